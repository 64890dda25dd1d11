//! The keys a sweep inserts and queries: three kinds, generated from a seed, with the
//! negatives (keys never inserted) guaranteed disjoint from the positives; or the lines of
//! a user's file ([`key_file`](crate::key_file)), a fourth kind named after the file.
//!
//! Every key carries a distinct 64-bit identifier: identifier `i` of a run is
//! `mix(i + seed)`, where `mix` is the SplitMix64 output function, a bijection on `u64`
//! ([`bloom_core::keys`], the workspace's one key generator: these identifiers are its
//! `distinct_keys`).
//! Positives take `i` in `[0, count)` and negatives `i` in `[2^63, 2^63 + count)`, so no
//! negative can equal a positive, whatever the sizes, and the measured false-positive rate
//! counts only true false positives.

use std::fmt;
use std::hash::Hash;
use std::str::FromStr;

use bloom_core::keys::{SplitMix64, distinct_keys, mix};
use serde::{Deserialize, Serialize};

/// A type of key the sweep can use: what every candidate's insert and query take.
pub trait Key: Hash + Clone + fmt::Debug + Send + Sync + 'static {}

impl Key for u64 {}
impl Key for String {}
impl Key for Vec<u8> {}

/// The kinds of key a sweep measures.
///
/// Serialized as its [`name`](KeyKind::name): `u64`, `str16`, `url`, or `file: <name>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyKind {
    /// Random 64-bit integers: the cheapest key to hash.
    U64,
    /// Strings of 16 hex digits: short, fixed-length byte keys.
    Str16,
    /// URL-like strings of 50 to 120 bytes (uniformly distributed lengths): the crawler's key.
    Url,
    /// The lines of a user's file, as bytes; the label (`file: urls.txt`, made by
    /// [`KeyKind::file`]) is what reports show.
    File(&'static str),
}

impl KeyKind {
    /// Every kind, in report order.
    pub const ALL: [KeyKind; 3] = [KeyKind::U64, KeyKind::Str16, KeyKind::Url];

    /// The kind of the keys read from a file called `file_name` (a path's last part):
    /// labelled `file: <file_name>` in reports.
    ///
    /// The kind stays `Copy`, as every report table groups rows by it, so the label is
    /// interned: each distinct label is allocated once for the life of the process (a run
    /// names one file; a rerendered report the few it holds).
    pub fn file(file_name: &str) -> KeyKind {
        KeyKind::File(intern(&format!("{FILE_PREFIX}{file_name}")))
    }

    /// The short name used on the command line and in reports (`file: urls.txt` for a
    /// file's keys).
    pub fn name(self) -> &'static str {
        match self {
            KeyKind::U64 => "u64",
            KeyKind::Str16 => "str16",
            KeyKind::Url => "url",
            KeyKind::File(label) => label,
        }
    }

    /// A description for report headings.
    pub fn describe(self) -> &'static str {
        match self {
            KeyKind::U64 => "u64 keys",
            KeyKind::Str16 => "16-byte string keys",
            KeyKind::Url => "URL-like keys (50-120 bytes)",
            KeyKind::File(label) => label,
        }
    }

    /// The kind named `name` in a report: one of [`KeyKind::ALL`] or a file's label.
    fn from_name(name: &str) -> Result<KeyKind, String> {
        match name.strip_prefix(FILE_PREFIX) {
            Some(file_name) => Ok(KeyKind::file(file_name)),
            None => name.parse(),
        }
    }
}

/// How a file's label starts.
const FILE_PREFIX: &str = "file: ";

/// `label` as a string that lives as long as the process, allocated once per distinct label.
fn intern(label: &str) -> &'static str {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};
    static LABELS: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut labels = LABELS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(&known) = labels.get(label) {
        return known;
    }
    let leaked: &'static str = Box::leak(label.to_owned().into_boxed_str());
    labels.insert(leaked);
    leaked
}

impl Serialize for KeyKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for KeyKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        KeyKind::from_name(&name).map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for KeyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for KeyKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "u64" => Ok(KeyKind::U64),
            "str16" | "string" | "str" => Ok(KeyKind::Str16),
            "url" => Ok(KeyKind::Url),
            other => Err(format!(
                "unknown key kind {other:?} (expected u64, str16 or url)"
            )),
        }
    }
}

/// The first index of the negative identifiers: half the identifier space, so positives
/// (`[0, count)`) and negatives never meet.
const NEGATIVE_BASE: u64 = 1 << 63;

/// Which side of the split a key set is drawn from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Keys to insert.
    Positive,
    /// Keys never inserted, disjoint from every positive of the same seed.
    Negative,
}

impl Side {
    fn base(self) -> u64 {
        match self {
            Side::Positive => 0,
            Side::Negative => NEGATIVE_BASE,
        }
    }
}

/// The identifiers of `count` keys of one side. Positives of a larger count extend those
/// of a smaller one (the first keys are the same), so one generated set serves every n of a
/// sweep.
pub fn identifiers(side: Side, count: usize, seed: u64) -> impl Iterator<Item = u64> {
    distinct_keys(side.base().wrapping_add(seed), count as u64)
}

/// A 16-byte key: the identifier in hex.
pub fn short_string(id: u64) -> String {
    format!("{id:016x}")
}

/// Shortest and longest URL-like key, in bytes.
pub const URL_LENGTHS: std::ops::RangeInclusive<usize> = 50..=120;

const DOMAINS: [&str; 8] = [
    "example",
    "news-site",
    "shop",
    "archive",
    "wiki",
    "videos",
    "blog",
    "docs",
];
const TLDS: [&str; 5] = ["com", "org", "net", "io", "dev"];
const SECTIONS: [&str; 6] = ["articles", "p", "products", "2024/07", "users", "search"];
/// Characters the padding of a URL is drawn from.
const URL_CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789-_";

/// Builds a URL-like key of 50 to 120 bytes around `id`: a host, a section, the identifier
/// in hex (which makes the key unique), and random path characters up to a length drawn
/// uniformly from [`URL_LENGTHS`].
pub fn url(id: u64, seed: u64) -> String {
    let mut rng = SplitMix64(id ^ mix(seed));
    let target = *URL_LENGTHS.start()
        + rng.below((URL_LENGTHS.end() - URL_LENGTHS.start() + 1) as u64) as usize;
    let mut s = String::with_capacity(*URL_LENGTHS.end());
    s.push_str("https://www.");
    s.push_str(DOMAINS[rng.below(DOMAINS.len() as u64) as usize]);
    s.push_str(&format!("{}.", rng.below(100)));
    s.push_str(TLDS[rng.below(TLDS.len() as u64) as usize]);
    s.push('/');
    s.push_str(SECTIONS[rng.below(SECTIONS.len() as u64) as usize]);
    s.push('/');
    s.push_str(&format!("{id:016x}"));
    // The fixed part is 39 to 53 bytes, inside the range; padding brings it to the target.
    if s.len() < target {
        s.push('/');
    }
    while s.len() < target {
        s.push(URL_CHARS[rng.below(URL_CHARS.len() as u64) as usize] as char);
    }
    s
}

/// The positives and negatives of one kind, generated once per sweep.
#[derive(Debug, Clone)]
pub enum KeySet {
    /// `u64` keys.
    U64 {
        /// Keys inserted (prefixes serve smaller settings).
        positives: Vec<u64>,
        /// Keys never inserted.
        negatives: Vec<u64>,
    },
    /// String keys (16-byte or URL-like).
    Strings {
        /// The kind of strings.
        kind: KeyKind,
        /// Keys inserted.
        positives: Vec<String>,
        /// Keys never inserted.
        negatives: Vec<String>,
    },
    /// Byte-string keys: the lines of a file ([`KeyKind::File`]).
    Bytes {
        /// The kind, naming the file.
        kind: KeyKind,
        /// Keys inserted.
        positives: Vec<Vec<u8>>,
        /// Keys never inserted.
        negatives: Vec<Vec<u8>>,
    },
}

impl KeySet {
    /// Generates `positives` keys to insert and `negatives` keys never inserted, of `kind`.
    ///
    /// A file's keys are read, not generated ([`key_file::read`](crate::key_file::read)):
    /// for [`KeyKind::File`] this returns an empty set of that kind.
    pub fn generate(kind: KeyKind, positives: usize, negatives: usize, seed: u64) -> KeySet {
        let strings = |side: Side, count: usize| -> Vec<String> {
            identifiers(side, count, seed)
                .map(|id| match kind {
                    KeyKind::Url => url(id, seed),
                    _ => short_string(id),
                })
                .collect()
        };
        match kind {
            KeyKind::U64 => KeySet::U64 {
                positives: identifiers(Side::Positive, positives, seed).collect(),
                negatives: identifiers(Side::Negative, negatives, seed).collect(),
            },
            KeyKind::Str16 | KeyKind::Url => KeySet::Strings {
                kind,
                positives: strings(Side::Positive, positives),
                negatives: strings(Side::Negative, negatives),
            },
            KeyKind::File(_) => KeySet::Bytes {
                kind,
                positives: Vec::new(),
                negatives: Vec::new(),
            },
        }
    }

    /// The kind of the keys.
    pub fn kind(&self) -> KeyKind {
        match self {
            KeySet::U64 { .. } => KeyKind::U64,
            KeySet::Strings { kind, .. } | KeySet::Bytes { kind, .. } => *kind,
        }
    }

    /// The number of positives held.
    pub fn positives_len(&self) -> usize {
        match self {
            KeySet::U64 { positives, .. } => positives.len(),
            KeySet::Strings { positives, .. } => positives.len(),
            KeySet::Bytes { positives, .. } => positives.len(),
        }
    }

    /// The number of negatives held.
    pub fn negatives_len(&self) -> usize {
        match self {
            KeySet::U64 { negatives, .. } => negatives.len(),
            KeySet::Strings { negatives, .. } => negatives.len(),
            KeySet::Bytes { negatives, .. } => negatives.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Checks that the 5,000 positives are distinct and that no negative is among them.
    fn assert_distinct_and_disjoint<T: Eq + std::hash::Hash>(positives: &[T], negatives: &[T]) {
        let p: HashSet<_> = positives.iter().collect();
        assert_eq!(p.len(), 5_000);
        assert!(negatives.iter().all(|k| !p.contains(k)));
    }

    #[test]
    fn kinds_have_their_shapes_and_sides_are_disjoint() {
        for kind in KeyKind::ALL {
            let set = KeySet::generate(kind, 5_000, 5_000, 7);
            match &set {
                KeySet::U64 {
                    positives,
                    negatives,
                } => assert_distinct_and_disjoint(positives, negatives),
                KeySet::Strings {
                    positives,
                    negatives,
                    ..
                } => {
                    assert_distinct_and_disjoint(positives, negatives);
                    for k in positives.iter().chain(negatives) {
                        match kind {
                            KeyKind::Str16 => assert_eq!(k.len(), 16),
                            _ => assert!(URL_LENGTHS.contains(&k.len()), "{k} ({})", k.len()),
                        }
                    }
                    if kind == KeyKind::Url {
                        // Lengths spread over the whole range.
                        let lengths: HashSet<usize> = positives.iter().map(String::len).collect();
                        assert!(lengths.len() > 60, "{}", lengths.len());
                    }
                }
                KeySet::Bytes { .. } => panic!("{kind} generated byte keys"),
            }
            assert_eq!(set.kind(), kind);
            assert_eq!((set.positives_len(), set.negatives_len()), (5_000, 5_000));
        }
    }

    #[test]
    fn larger_sets_extend_smaller_ones_and_seeds_differ() {
        let small: Vec<u64> = identifiers(Side::Positive, 10, 1).collect();
        let large: Vec<u64> = identifiers(Side::Positive, 100, 1).collect();
        assert_eq!(small[..], large[..10]);
        let other: Vec<u64> = identifiers(Side::Positive, 10, 2).collect();
        assert_ne!(small, other);
        assert_eq!("URL".parse::<KeyKind>(), Ok(KeyKind::Url));
        assert!("bytes".parse::<KeyKind>().is_err());
    }

    #[test]
    fn file_kinds_are_named_after_the_file_and_round_trip() {
        let kind = KeyKind::file("urls.txt");
        assert_eq!(kind.name(), "file: urls.txt");
        assert_eq!(kind, KeyKind::file("urls.txt"));
        assert!(std::ptr::eq(kind.name(), KeyKind::file("urls.txt").name()));
        let json = serde_json::to_string(&kind).unwrap();
        assert_eq!(json, "\"file: urls.txt\"");
        assert_eq!(serde_json::from_str::<KeyKind>(&json).unwrap(), kind);
        assert_eq!(serde_json::to_string(&KeyKind::Str16).unwrap(), "\"str16\"");
        assert_eq!(
            serde_json::from_str::<KeyKind>("\"url\"").unwrap(),
            KeyKind::Url
        );
        assert!(serde_json::from_str::<KeyKind>("\"bytes\"").is_err());
        // A file is never generated: its kind gets an empty set.
        let set = KeySet::generate(kind, 10, 10, 1);
        assert_eq!((set.kind(), set.positives_len()), (kind, 0));
    }
}
