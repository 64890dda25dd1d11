//! Secret keys for keyed filters: the key file's format, reading one and making one.
//!
//! A key file holds a 128-bit key as 32 hexadecimal digits, optionally followed by a
//! newline (`\n` or `\r\n`): what `bloom keygen` writes, and what `openssl rand -hex 16`
//! or `xxd -p -l 16 /dev/urandom`-style tools print. A file of exactly 16 bytes is taken as
//! the raw key instead; the two cannot be confused, as a hex key is 32 or more bytes.

use std::path::{Path, PathBuf};

use bloom_core::hash::SecretKey;

use crate::atomic::{self, Access};
use crate::failure::Failure;

/// The bytes of a raw key.
const KEY_BYTES: usize = 16;

/// A secret key and the key file it was read from (which error messages name).
pub(crate) struct Key {
    path: PathBuf,
    bytes: [u8; KEY_BYTES],
}

impl Key {
    /// Reads the key file at `path`.
    ///
    /// # Errors
    ///
    /// A [`Failure`] naming `path` when it cannot be read, or holds neither 32 hex digits
    /// (with an optional newline) nor 16 raw bytes.
    pub(crate) fn read(path: &Path) -> Result<Key, Failure> {
        let contents = atomic::read_file(path)?;
        let bytes = parse(&contents)
            .map_err(|reason| Failure::file(path, format!("bad key file: {reason}")))?;
        Ok(Key {
            path: path.to_owned(),
            bytes,
        })
    }

    /// The key in the key file at `path`, when a path is given.
    ///
    /// # Errors
    ///
    /// As [`read`](Key::read).
    pub(crate) fn read_optional(path: Option<&Path>) -> Result<Option<Key>, Failure> {
        path.map(Key::read).transpose()
    }

    /// The key's 16 bytes, as the library's `with_key` and `from_bytes_with_key` take them.
    pub(crate) fn bytes(&self) -> &[u8; KEY_BYTES] {
        &self.bytes
    }

    /// The key file it was read from.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The key as the library's hashing takes it.
    pub(crate) fn secret(&self) -> SecretKey {
        SecretKey::from_bytes(self.bytes)
    }
}

/// The key in the contents of a key file (see the module's documentation).
///
/// # Errors
///
/// Why the contents are not a key, in words for the user.
fn parse(contents: &[u8]) -> Result<[u8; KEY_BYTES], String> {
    if let Ok(raw) = <[u8; KEY_BYTES]>::try_from(contents) {
        return Ok(raw);
    }
    let digits = contents
        .strip_suffix(b"\n")
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .unwrap_or(contents);
    if digits.len() != 2 * KEY_BYTES {
        return Err(format!(
            "expected 32 hex digits (optionally then a newline) or 16 raw bytes, found {} bytes",
            contents.len()
        ));
    }
    let mut key = [0u8; KEY_BYTES];
    for (byte, pair) in key.iter_mut().zip(digits.chunks_exact(2)) {
        let (Some(high), Some(low)) = (hex_value(pair[0]), hex_value(pair[1])) else {
            return Err("expected 32 hex digits (0-9, a-f), found other characters".to_owned());
        };
        *byte = high << 4 | low;
    }
    Ok(key)
}

/// The value of one hexadecimal digit, either case.
fn hex_value(digit: u8) -> Option<u8> {
    char::from(digit)
        .to_digit(16)
        .and_then(|v| u8::try_from(v).ok())
}

/// The key as 32 lowercase hex digits and a newline: a key file's contents.
fn to_hex_line(key: &[u8; KEY_BYTES]) -> String {
    let mut line: String = key.iter().map(|b| format!("{b:02x}")).collect();
    line.push('\n');
    line
}

/// Writes a fresh random key ([`SecretKey::random`]) to a new key file at `path`, readable
/// by its owner only, atomically.
///
/// # Errors
///
/// A [`Failure`] naming `path` when it exists already (replacing a key would strand the
/// filters keyed with it) or cannot be written.
pub(crate) fn generate(path: &Path) -> Result<(), Failure> {
    let line = to_hex_line(&SecretKey::random().to_bytes());
    atomic::write_new(path, line.as_bytes(), Access::OwnerOnly)
}

/// The key's fingerprint as `bloom info` prints it: 16 hex digits.
pub(crate) fn fingerprint_hex(fingerprint: u64) -> String {
    format!("{fingerprint:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: [u8; 16] = [
        0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,
        0xff,
    ];

    #[test]
    fn hex_with_or_without_a_newline_and_raw_bytes_are_keys() {
        let hex = "00112233445566778899aabbccddeeff";
        assert_eq!(parse(hex.as_bytes()), Ok(KEY));
        assert_eq!(parse(format!("{hex}\n").as_bytes()), Ok(KEY));
        assert_eq!(parse(format!("{hex}\r\n").as_bytes()), Ok(KEY));
        assert_eq!(parse(hex.to_uppercase().as_bytes()), Ok(KEY));
        assert_eq!(parse(&KEY), Ok(KEY));
        assert_eq!(parse(to_hex_line(&KEY).as_bytes()), Ok(KEY));
    }

    #[test]
    fn other_contents_are_refused_with_a_reason() {
        let hex = "00112233445566778899aabbccddeeff";
        for bad in [
            &b""[..],
            &hex.as_bytes()[..31],
            format!("{hex}0").as_bytes(),
            format!("{hex}\n\n").as_bytes(),
            format!(" {hex}").as_bytes(),
        ] {
            let reason = parse(bad).expect_err("not a key");
            assert!(reason.contains("found"), "{reason}");
        }
        let not_hex = "0011223344556677889gaabbccddeeff";
        assert!(parse(not_hex.as_bytes()).is_err_and(|r| r.contains("other characters")));
        assert!(parse("+0112233445566778899aabbccddeeff".as_bytes()).is_err());
    }
}
