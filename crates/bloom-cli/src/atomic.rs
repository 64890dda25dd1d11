//! Writing a filter file so that it is either the old file or the whole new one.

use std::fs;
use std::io::Write;
use std::path::Path;

use crate::failure::Failure;

/// Replaces the file at `path` with `bytes` atomically.
///
/// The bytes go to a temporary file in the same directory (a rename is only atomic within
/// one file system), which is flushed to disk (`fsync`) and then renamed over `path`; the
/// directory is flushed too, so the rename survives a crash. A failure at any step, or an
/// interrupted process, leaves `path` as it was: the temporary file is removed on error,
/// and a killed process leaves at most a `.bloom-*.tmp` file beside it, never a
/// half-written filter.
///
/// # Errors
///
/// A [`Failure`] naming `path` when the directory cannot be written or the disk is full.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let fail = |e: std::io::Error| Failure::file(path, e);
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".bloom-").suffix(".tmp");
    // A filter file is data like any other: readable by others as the umask allows, not the
    // owner-only mode temporary files get by default.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder.tempfile_in(dir).map_err(fail)?;
    tmp.write_all(bytes).map_err(fail)?;
    tmp.as_file().sync_all().map_err(fail)?;
    tmp.persist(path).map_err(|e| fail(e.error))?;
    #[cfg(unix)]
    fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(fail)?;
    Ok(())
}

/// Reads the whole file at `path`.
///
/// # Errors
///
/// A [`Failure`] naming `path` when it cannot be read.
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>, Failure> {
    fs::read(path).map_err(|e| Failure::file(path, e))
}
