//! The one error type of the command: a message that names what failed.

use std::fmt;
use std::path::Path;

/// Why a command failed, as the one line `bloom: ...` printed on standard error.
///
/// Every failure that concerns a file names it first (`FILE: what went wrong`), so a
/// script that runs `bloom` over many files can tell which one is bad.
#[derive(Debug)]
pub(crate) struct Failure {
    message: String,
}

impl Failure {
    /// A failure about the file (or `-`, standard input) at `path`.
    pub(crate) fn file(path: &Path, reason: impl fmt::Display) -> Failure {
        Failure {
            message: format!("{}: {reason}", path.display()),
        }
    }

    /// A failure about no file in particular (a bad parameter, standard output).
    pub(crate) fn plain(reason: impl fmt::Display) -> Failure {
        Failure {
            message: reason.to_string(),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
