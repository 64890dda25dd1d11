//! Writing a filter file so that it is either the old file or the whole new one.

use std::fs;
use std::io::Write;
use std::path::Path;

use crate::failure::Failure;

/// Who may read a file `bloom` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// A filter file: data like any other, readable by others as the umask allows (mode
    /// 0666 before the umask), not the owner-only mode temporary files get by default.
    Shared,
    /// A key file: readable and writable by its owner only (mode 0600), from its creation
    /// on, so the key is never readable by others, not even for a moment.
    OwnerOnly,
}

/// Replaces the file at `path` atomically with what `write` writes (a filter streams its
/// frame, so its bytes are never all in memory a second time).
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
/// A [`Failure`] naming `path` when the directory cannot be written or the disk is full,
/// or with `write`'s own error.
pub(crate) fn write_atomic<E: std::fmt::Display>(
    path: &Path,
    write: impl FnOnce(&mut fs::File) -> Result<(), E>,
) -> Result<(), Failure> {
    write_then_rename(path, write, Access::Shared, Replace::Yes)
}

/// Writes `bytes` to a new file at `path` as [`write_atomic`] does, with `access`, but
/// refuses to replace a file that exists: the file appears whole, or not at all.
///
/// # Errors
///
/// A [`Failure`] naming `path` when it exists already, or as [`write_atomic`].
pub(crate) fn write_new(path: &Path, bytes: &[u8], access: Access) -> Result<(), Failure> {
    write_then_rename(path, |file| file.write_all(bytes), access, Replace::No)
}

/// Whether [`write_then_rename`] may replace an existing file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Replace {
    Yes,
    No,
}

/// The steps of [`write_atomic`], for both [`Replace`] choices.
fn write_then_rename<E: std::fmt::Display>(
    path: &Path,
    write: impl FnOnce(&mut fs::File) -> Result<(), E>,
    access: Access,
    replace: Replace,
) -> Result<(), Failure> {
    let fail = |e: std::io::Error| Failure::file(path, e);
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".bloom-").suffix(".tmp");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(match access {
        Access::Shared => 0o666,
        Access::OwnerOnly => 0o600,
    }));
    // Elsewhere the temporary file's own default (owner-only where the OS has modes).
    #[cfg(not(unix))]
    let _ = access;
    let mut tmp = builder.tempfile_in(dir).map_err(fail)?;
    write(tmp.as_file_mut()).map_err(|e| Failure::file(path, e))?;
    tmp.as_file().sync_all().map_err(fail)?;
    match replace {
        Replace::Yes => tmp.persist(path).map(drop).map_err(|e| fail(e.error))?,
        // A hard link, which fails when `path` exists, then the temporary name removed.
        Replace::No => tmp.persist_noclobber(path).map(drop).map_err(|e| {
            if e.error.kind() == std::io::ErrorKind::AlreadyExists {
                Failure::file(path, "exists already, and is not replaced")
            } else {
                fail(e.error)
            }
        })?,
    }
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
