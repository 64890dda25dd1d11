//! A user's own keys: the lines of a file, as byte strings, split into the keys inserted
//! and the keys never inserted.
//!
//! Lines end at `\n`, and a `\r` before it is dropped, so files written on any system read
//! alike; a line need not be UTF-8. Empty lines are skipped (a blank line at the end of a
//! file is not a key). A line that appears more than once is kept once: a filter holds a
//! set, and a repeated key would count twice in the load without adding to what is stored.
//!
//! The absent keys come from one of two places ([`Absent`]):
//!
//! * a held-out share of the distinct lines, chosen by the run's seed
//!   ([`DEFAULT_ABSENT_SHARE`] unless told otherwise), so the absent keys look like the
//!   present ones;
//! * or the distinct lines of a second file, minus any that are also in the keys file (a key
//!   that is inserted cannot be a false positive).
//!
//! Either way the positives are shuffled by the seed, so a load of 50% inserts a random half
//! of them rather than the top of the file.

use std::collections::HashSet;
use std::fmt;
use std::path::Path;

use bloom_core::keys::{SplitMix64, mix};

use crate::keys::{KeyKind, KeySet};

/// The share of a keys file's distinct lines held out as absent keys when no absent file
/// is given: one in five, which leaves most of the keys to insert while querying enough
/// absent ones (200,000 for a million lines, about 2,000 false positives at 1%) to measure
/// the rate within about ±4.4% (a 95% interval, as [`Negatives::DEFAULT`](crate::sweep::Negatives::DEFAULT)).
pub const DEFAULT_ABSENT_SHARE: f64 = 0.2;

/// Where the absent keys come from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Absent<'a> {
    /// This share (strictly between 0 and 1) of the keys file's distinct lines, chosen by
    /// the seed.
    HeldOut(f64),
    /// The distinct lines of this file that are not in the keys file.
    File(&'a Path),
}

/// The lines of `bytes`: split at `\n`, a `\r` before it dropped, empty lines skipped.
pub fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes
        .split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .filter(|line| !line.is_empty())
}

/// The distinct items of `items`, in the order they first appear, and how many repeats
/// were dropped.
pub fn distinct<'a>(items: impl IntoIterator<Item = &'a [u8]>) -> (Vec<&'a [u8]>, usize) {
    let mut seen = HashSet::new();
    let mut kept = Vec::new();
    let mut repeats = 0;
    for item in items {
        if seen.insert(item) {
            kept.push(item);
        } else {
            repeats += 1;
        }
    }
    (kept, repeats)
}

/// Shuffles `items` in place, the same way for the same seed (Fisher-Yates on SplitMix64).
pub fn shuffle<T>(items: &mut [T], seed: u64) {
    // Another stream than the generated keys' identifiers of the same seed.
    let mut rng = SplitMix64(mix(seed ^ 0x6b65_7973_6669_6c65));
    for i in (1..items.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        items.swap(i, j);
    }
}

/// How many of `count` items a held-out `share` takes: `count * share` rounded, at least
/// one and leaving at least one (`count` must be at least 2).
pub fn held_out_count(count: usize, share: f64) -> usize {
    ((count as f64 * share).round() as usize).clamp(1, count.saturating_sub(1).max(1))
}

/// Splits `items` by `seed` into positives and a held-out share of absent items
/// ([`held_out_count`]), disjoint and together all of `items`, both in shuffled order.
pub fn held_out<T>(mut items: Vec<T>, share: f64, seed: u64) -> (Vec<T>, Vec<T>) {
    shuffle(&mut items, seed);
    let absent = held_out_count(items.len(), share);
    let negatives = items.split_off(items.len() - absent);
    (items, negatives)
}

/// What reading a keys file found, for the line the command prints before measuring.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// The keys file's name, as reports show it.
    pub name: String,
    /// Non-empty lines of the keys file.
    pub lines: usize,
    /// Repeated lines dropped from the keys file.
    pub duplicates: usize,
    /// Keys inserted (the sizes default to this).
    pub positives: usize,
    /// Keys never inserted.
    pub absent: usize,
    /// The share held out, when the absent keys came from the keys file.
    pub share: Option<f64>,
    /// The absent file's report, when there was one.
    pub absent_file: Option<AbsentSummary>,
}

/// What reading an absent file found.
#[derive(Debug, Clone, PartialEq)]
pub struct AbsentSummary {
    /// The absent file's name.
    pub name: String,
    /// Its non-empty lines.
    pub lines: usize,
    /// Repeated lines dropped.
    pub duplicates: usize,
    /// Distinct lines dropped because the keys file holds them too.
    pub overlap: usize,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "keys from {}: {} lines, {} duplicates dropped, {} to insert",
            self.name, self.lines, self.duplicates, self.positives
        )?;
        match (&self.absent_file, self.share) {
            (Some(a), _) => write!(
                f,
                "; {} absent from {} ({} lines, {} duplicates and {} also in {} dropped)",
                self.absent, a.name, a.lines, a.duplicates, a.overlap, self.name
            ),
            (None, Some(share)) => write!(
                f,
                "; {} held out as absent ({}% of the distinct lines)",
                self.absent,
                // Rounded to a thousandth of a percent: 0.1 * 100 is not 10 in floating point.
                (share * 100_000.0).round() / 1_000.0
            ),
            (None, None) => write!(f, "; {} absent", self.absent),
        }
    }
}

/// A keys file read and split: the keys for the sweep and what was found.
#[derive(Debug, Clone)]
pub struct KeyFile {
    /// The keys, of kind [`KeyKind::File`] named after the file.
    pub keys: KeySet,
    /// What was read.
    pub summary: Summary,
}

/// The last part of `path`, as reports show it.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The bytes of `path`, failing with a message naming the option and the file.
fn read_bytes(option: &str, path: &Path) -> Result<Vec<u8>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{option} {}: {e}", path.display()))?;
    if lines(&bytes).next().is_none() {
        return Err(format!(
            "{option} {}: the file is empty (one key per line expected)",
            path.display()
        ));
    }
    Ok(bytes)
}

/// Reads the keys file `path` and takes its absent keys from `absent`, splitting by `seed`.
///
/// # Errors
///
/// A one-line message naming the option and the file when a file cannot be read, holds no
/// line, the keys file has fewer than two distinct lines, the held-out share is not
/// strictly between 0 and 1, or no absent key is left.
pub fn read(path: &Path, absent: Absent<'_>, seed: u64) -> Result<KeyFile, String> {
    let bytes = read_bytes("--keys-file", path)?;
    let all_lines = lines(&bytes).count();
    let (keys, duplicates) = distinct(lines(&bytes));
    if keys.len() < 2 {
        return Err(format!(
            "--keys-file {}: {} distinct line, at least 2 are needed (keys to insert and keys \
             to query as absent)",
            path.display(),
            keys.len()
        ));
    }
    let name = file_name(path);
    // Outlives the match: the absent keys borrow from it until they are copied out.
    let absent_bytes;
    let (positives, negatives, share, absent_file) = match absent {
        Absent::HeldOut(share) => {
            if !(share > 0.0 && share < 1.0) {
                return Err(format!(
                    "--absent-share {share} must be strictly between 0 and 1"
                ));
            }
            let (positives, negatives) = held_out(keys, share, seed);
            (positives, negatives, Some(share), None)
        }
        Absent::File(absent_path) => {
            absent_bytes = read_bytes("--absent-file", absent_path)?;
            let absent_lines = lines(&absent_bytes).count();
            let (candidates, absent_duplicates) = distinct(lines(&absent_bytes));
            let present: HashSet<&[u8]> = keys.iter().copied().collect();
            let before = candidates.len();
            let negatives: Vec<&[u8]> = candidates
                .into_iter()
                .filter(|k| !present.contains(k))
                .collect();
            if negatives.is_empty() {
                return Err(format!(
                    "--absent-file {}: every line is also in {}, no absent key is left",
                    absent_path.display(),
                    path.display()
                ));
            }
            let summary = AbsentSummary {
                name: file_name(absent_path),
                lines: absent_lines,
                duplicates: absent_duplicates,
                overlap: before - negatives.len(),
            };
            let mut positives = keys;
            shuffle(&mut positives, seed);
            (positives, negatives, None, Some(summary))
        }
    };
    let summary = Summary {
        name: name.clone(),
        lines: all_lines,
        duplicates,
        positives: positives.len(),
        absent: negatives.len(),
        share,
        absent_file,
    };
    let owned = |keys: Vec<&[u8]>| keys.into_iter().map(<[u8]>::to_vec).collect();
    Ok(KeyFile {
        keys: KeySet::Bytes {
            kind: KeyKind::file(&name),
            positives: owned(positives),
            negatives: owned(negatives),
        },
        summary,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_drop_line_ends_and_empty_lines_and_keep_any_bytes() {
        let text = b"a\r\nb\n\nc\r\n\xff\xfe\nlast";
        let got: Vec<&[u8]> = lines(text).collect();
        assert_eq!(got, [&b"a"[..], b"b", b"c", b"\xff\xfe", b"last"]);
        assert_eq!(lines(b"").count(), 0);
        assert_eq!(lines(b"\n\r\n\n").count(), 0);
        assert_eq!(lines(b"x\n").collect::<Vec<_>>(), [b"x"]);
        // A lone \r inside a line is part of the key.
        assert_eq!(lines(b"a\rb\n").collect::<Vec<_>>(), [b"a\rb"]);
    }

    #[test]
    fn distinct_keeps_first_occurrences_and_counts_repeats() {
        let (kept, repeats) = distinct(lines(b"b\na\nb\r\nc\na\nb\n"));
        assert_eq!(kept, [&b"b"[..], b"a", b"c"]);
        assert_eq!(repeats, 3);
    }

    #[test]
    fn held_out_split_is_deterministic_disjoint_and_the_right_share() {
        let items: Vec<u32> = (0..10_000).collect();
        let (p, n) = held_out(items.clone(), 0.2, 42);
        assert_eq!((p.len(), n.len()), (8_000, 2_000));
        let all: HashSet<u32> = p.iter().chain(&n).copied().collect();
        assert_eq!(all.len(), 10_000, "disjoint and complete");
        assert_eq!(held_out(items.clone(), 0.2, 42), (p.clone(), n.clone()));
        let (p2, _) = held_out(items.clone(), 0.2, 43);
        assert_ne!(p, p2, "another seed, another split");
        // The held-out keys are spread over the file, not its tail.
        assert!(n.iter().filter(|&&k| k < 5_000).count() > 800);
        assert_eq!(held_out(items, 0.25, 1).1.len(), 2_500);
    }

    #[test]
    fn held_out_count_keeps_one_on_each_side() {
        assert_eq!(held_out_count(2, 0.2), 1);
        assert_eq!(held_out_count(2, 0.9), 1);
        assert_eq!(held_out_count(3, 0.01), 1);
        assert_eq!(held_out_count(10, 0.99), 9);
        assert_eq!(held_out_count(5, 0.2), 1);
        assert_eq!(held_out_count(1_000, 0.2), 200);
    }

    #[test]
    fn summary_names_the_share_as_given() {
        let summary = Summary {
            name: "urls.txt".into(),
            lines: 12,
            duplicates: 2,
            positives: 9,
            absent: 1,
            share: Some(0.1),
            absent_file: None,
        };
        assert_eq!(
            summary.to_string(),
            "keys from urls.txt: 12 lines, 2 duplicates dropped, 9 to insert; 1 held out as \
             absent (10% of the distinct lines)"
        );
    }
}
