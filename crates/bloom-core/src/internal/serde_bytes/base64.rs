//! Base64 with the standard alphabet and `=` padding (RFC 4648 §4): the text form of a
//! filter's bytes in human-readable serde formats.
//!
//! The decoder is strict: the length must be a multiple of 4, padding may only end the
//! text, and the bits padding leaves unused must be zero (RFC 4648 §3.5), so every byte
//! string has exactly one text and a damaged text is an error, never other bytes.

use alloc::vec::Vec;
use core::fmt;

/// RFC 4648, Table 1.
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Marks a byte that is not a base64 digit in [`DIGITS`].
const INVALID: u8 = 0xff;

/// The value of each base64 digit, [`INVALID`] for every other byte.
const DIGITS: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut i = 0;
    while i < 64 {
        table[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    table
};

/// Formats bytes as base64, without building the string first (serde's `collect_str` writes
/// it straight into the output).
pub(crate) struct Encode<'a>(pub(crate) &'a [u8]);

impl fmt::Display for Encode<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Characters are written in runs of this many, to keep formatter calls few.
        const RUN: usize = 1024;
        let mut out = [0u8; RUN];
        for chunk in self.0.chunks(RUN / 4 * 3) {
            let mut len = 0;
            for group in chunk.chunks(3) {
                let b = [
                    group[0],
                    *group.get(1).unwrap_or(&0),
                    *group.get(2).unwrap_or(&0),
                ];
                let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
                for (j, slot) in out[len..len + 4].iter_mut().enumerate() {
                    *slot = if j <= group.len() {
                        ALPHABET[((n >> (18 - 6 * j)) & 63) as usize]
                    } else {
                        b'='
                    };
                }
                len += 4;
            }
            // Only ASCII was written.
            f.write_str(core::str::from_utf8(&out[..len]).map_err(|_| fmt::Error)?)?;
        }
        Ok(())
    }
}

/// Why a text is not base64.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DecodeError {
    /// The length is not a multiple of 4 (a cut or padless text).
    Length(usize),
    /// The character at this position (counted from 1) is not a base64 digit.
    Character(usize, char),
    /// Padding at this position (counted from 1) is not at the end of the text.
    Padding(usize),
    /// The last digit before the padding, at this position (counted from 1), sets bits the
    /// padding says are unused: no encoder writes that.
    UnusedBits(usize),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Length(len) => write!(
                f,
                "invalid base64: {len} characters, not a multiple of 4 (cut short?)"
            ),
            DecodeError::Character(at, c) => write!(
                f,
                "invalid base64 at character {at}: {c:?} is not a base64 digit"
            ),
            DecodeError::Padding(at) => write!(
                f,
                "invalid base64 at character {at}: padding before the end"
            ),
            DecodeError::UnusedBits(at) => write!(
                f,
                "invalid base64 at character {at}: bits set that the padding leaves unused"
            ),
        }
    }
}

/// Decodes `text`; see the module docs for what is accepted.
pub(crate) fn decode(text: &str) -> Result<Vec<u8>, DecodeError> {
    let bytes = text.as_bytes();
    // Characters counted from 1, as a reader counts them (the text may hold non-ASCII).
    let position = |i: usize| text[..i].chars().count() + 1;
    if let Some(at) = bytes
        .iter()
        .position(|&c| DIGITS[usize::from(c)] == INVALID && c != b'=')
    {
        // Every byte before `at` is ASCII, so `at` starts a character.
        let c = text[at..]
            .chars()
            .next()
            .unwrap_or(char::REPLACEMENT_CHARACTER);
        return Err(DecodeError::Character(position(at), c));
    }
    // All ASCII from here: a byte is a character.
    if !bytes.len().is_multiple_of(4) {
        return Err(DecodeError::Length(bytes.len()));
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    let groups = bytes.len() / 4;
    for (g, group) in bytes.chunks_exact(4).enumerate() {
        let start = g * 4;
        let last = g + 1 == groups;
        // Padding: one or two `=`, only at the end of the last group.
        let pad = match group {
            [_, _, b'=', b'='] if last => 2,
            [_, _, _, b'='] if last => 1,
            _ => 0,
        };
        let mut n = 0u32;
        for (j, &c) in group[..4 - pad].iter().enumerate() {
            let digit = DIGITS[usize::from(c)];
            if digit == INVALID {
                // Only `=` is left that is not a digit.
                return Err(DecodeError::Padding(start + j + 1));
            }
            n |= u32::from(digit) << (18 - 6 * j);
        }
        let [_, b0, b1, b2] = n.to_be_bytes();
        out.push(b0);
        match pad {
            0 => out.extend_from_slice(&[b1, b2]),
            1 if b2 == 0 => out.push(b1),
            2 if b1 == 0 && b2 == 0 => {}
            _ => return Err(DecodeError::UnusedBits(start + 4 - pad)),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(bytes: &[u8]) -> String {
        Encode(bytes).to_string()
    }

    #[test]
    fn rfc_4648_test_vectors() {
        // RFC 4648, §10.
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(encode(plain.as_bytes()), coded);
            assert_eq!(decode(coded).unwrap(), plain.as_bytes());
        }
        assert_eq!(encode(&[0xfb, 0xff, 0xbf]), "+/+/");
    }

    #[test]
    fn round_trips_every_length_and_byte() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for len in 0..3000usize {
            let bytes: Vec<u8> = (0..len)
                .map(|i| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    // Every byte value appears, including 0 and 255.
                    if i % 7 == 0 {
                        (i / 7) as u8
                    } else {
                        state as u8
                    }
                })
                .collect();
            let text = encode(&bytes);
            assert_eq!(text.len(), len.div_ceil(3) * 4, "{len}");
            assert_eq!(decode(&text).unwrap(), bytes, "{len}");
        }
    }

    #[test]
    fn damaged_texts_are_errors_that_say_where() {
        assert_eq!(decode("Zm9"), Err(DecodeError::Length(3)));
        assert_eq!(decode("Zm!v"), Err(DecodeError::Character(3, '!')));
        assert_eq!(
            decode("Zm!v").unwrap_err().to_string(),
            "invalid base64 at character 3: '!' is not a base64 digit"
        );
        assert_eq!(decode("Zm9vé==="), Err(DecodeError::Character(5, 'é')));
        assert_eq!(decode("Zm9vYé=="), Err(DecodeError::Character(6, 'é')));
        assert_eq!(decode("Zm9v Zm9"), Err(DecodeError::Character(5, ' ')));
        assert_eq!(decode("Zg==Zm9v"), Err(DecodeError::Padding(3)));
        assert_eq!(decode("Z===").unwrap_err(), DecodeError::Padding(2));
        assert_eq!(decode("=Zm9").unwrap_err(), DecodeError::Padding(1));
        assert_eq!(decode("Zm=v").unwrap_err(), DecodeError::Padding(3));
        // "Zh==" and "Zm9=" set bits the padding drops: not what any encoder writes.
        assert_eq!(decode("Zh=="), Err(DecodeError::UnusedBits(2)));
        assert_eq!(decode("Zm9="), Err(DecodeError::UnusedBits(3)));
        assert_eq!(
            decode("Zh==").unwrap_err().to_string(),
            "invalid base64 at character 2: bits set that the padding leaves unused"
        );
        assert_eq!(
            decode("Zm9vY").unwrap_err().to_string(),
            "invalid base64: 5 characters, not a multiple of 4 (cut short?)"
        );
    }
}
