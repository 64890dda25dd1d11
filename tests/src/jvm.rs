//! What the JVM-compatible filters' tests share (`tests/tests/jvm_*.rs`, the fuzz targets):
//! the keys of the golden vectors, generated exactly as `tests/golden/jvm/Keys.java`
//! generates them, the digest of a run of answers, the manifests the JVM wrote, and the
//! checks run on arbitrary bytes.

use std::path::{Path, PathBuf};

use bloom_jvm::{Format, GuavaBloomFilter, JvmBloomFilter, SparkBloomFilter, SparkVersion};

/// splitmix64 of `i` (Steele, Lea and Flood, 2014), as `Keys.gen`.
pub fn key_long(i: u64) -> i64 {
    let mut z = i.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) as i64
}

/// Key `i` as a string, as `Keys.str`: 2 to 21 bytes, some with two- and three-byte
/// characters.
pub fn key_str(i: u64) -> String {
    let mut s = format!("k{}", (key_long(i) as u64) >> (i % 50));
    if i.is_multiple_of(3) {
        s.push('\u{e9}');
    }
    if i.is_multiple_of(7) {
        s.push_str("\u{65e5}\u{672c}");
    }
    s
}

/// Key `i` as a byte array of `i % 20` bytes, as `Keys.bytes`.
pub fn key_bytes(i: u64) -> Vec<u8> {
    let g = key_long(i) as u64;
    (0..i % 20)
        .map(|j| (g >> ((j % 8) * 8)).wrapping_add(j) as u8)
        .collect()
}

/// The first probed index for `n` keys inserted and `probes` probes, as `Keys.firstProbe`:
/// up to half the probes are inserted keys.
pub fn first_probe(n: u64, probes: u64) -> u64 {
    n - n.min(probes / 2)
}

/// The kinds of key a vector holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `key_long(i)` as a long.
    Long,
    /// `key_str(i)`.
    Str,
    /// `key_bytes(i)`.
    Bytes,
}

impl Kind {
    /// The kind of a manifest's word.
    ///
    /// # Panics
    ///
    /// For a word that names no kind.
    pub fn parse(word: &str) -> Kind {
        match word {
            "long" => Kind::Long,
            "str" => Kind::Str,
            "bytes" => Kind::Bytes,
            other => panic!("unknown key kind {other}"),
        }
    }

    /// The manifest's word for the kind.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Long => "long",
            Kind::Str => "str",
            Kind::Bytes => "bytes",
        }
    }
}

/// FNV-1a 64 over answers packed eight to a byte (answer j at bit j % 8 of byte j / 8), and
/// the count of `true` answers, as `Keys.Digest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Digest {
    /// The `true` answers.
    pub positives: u64,
    /// The FNV-1a 64 hash of the packed answers.
    pub hash: u64,
}

impl Digest {
    /// The digest of `answers`, in order.
    pub fn of(answers: impl IntoIterator<Item = bool>) -> Digest {
        let mut hash = 0xcbf2_9ce4_8422_2325u64;
        let (mut acc, mut nbits, mut positives) = (0u8, 0, 0);
        let flush = |acc: u8, hash: &mut u64| {
            *hash ^= u64::from(acc);
            *hash = hash.wrapping_mul(0x100_0000_01b3);
        };
        for answer in answers {
            if answer {
                acc |= 1 << nbits;
                positives += 1;
            }
            nbits += 1;
            if nbits == 8 {
                flush(acc, &mut hash);
                (acc, nbits) = (0, 0);
            }
        }
        if nbits > 0 {
            flush(acc, &mut hash);
        }
        Digest { positives, hash }
    }

    /// Parses the `positives hash` pair the Java programs print.
    ///
    /// # Panics
    ///
    /// When the words are not two numbers.
    pub fn parse(positives: &str, hash: &str) -> Digest {
        Digest {
            positives: positives.parse().expect("positives"),
            hash: u64::from_str_radix(hash, 16).expect("hex digest"),
        }
    }
}

/// One line of a manifest (`tests/golden/jvm/vectors/{spark,guava}.txt`).
#[derive(Debug, Clone, PartialEq)]
pub struct Vector {
    /// The name, also of its `.bin` file.
    pub name: String,
    /// Spark's version number, 0 for Guava.
    pub version: i32,
    /// The kind of key.
    pub kind: Kind,
    /// Keys 0..n inserted.
    pub n: u64,
    /// The fpp the filter was created for.
    pub fpp: f64,
    /// The seed (Spark V2).
    pub seed: i32,
    /// How many puts reported a change.
    pub changed: u64,
    /// The JVM's `expectedFpp()` after the inserts.
    pub expected_fpp: f64,
    /// Keys probed, from `first_probe(n, probes)`.
    pub probes: u64,
    /// The JVM's answers to the probes.
    pub answers: Digest,
    /// Guava's `approximateElementCount()`.
    pub approximate_element_count: Option<u64>,
}

impl Vector {
    /// Parses a manifest line.
    ///
    /// # Panics
    ///
    /// When the line is malformed.
    pub fn parse(line: &str) -> Vector {
        let w: Vec<&str> = line.split_whitespace().collect();
        assert!(w.len() >= 11, "short manifest line: {line}");
        Vector {
            name: w[0].to_string(),
            version: w[1].parse().expect("version"),
            kind: Kind::parse(w[2]),
            n: w[3].parse().expect("n"),
            fpp: w[4].parse().expect("fpp"),
            seed: w[5].parse().expect("seed"),
            changed: w[6].parse().expect("changed"),
            expected_fpp: w[7].parse().expect("expected fpp"),
            probes: w[8].parse().expect("probes"),
            answers: Digest::parse(w[9], w[10]),
            approximate_element_count: w.get(11).map(|c| c.parse().expect("count")),
        }
    }

    /// The lines of a manifest file, parsed.
    ///
    /// # Panics
    ///
    /// When the file cannot be read or a line is malformed.
    pub fn load(path: &Path) -> Vec<Vector> {
        std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(Vector::parse)
            .collect()
    }

    /// The Spark version of the vector, `None` for Guava.
    pub fn spark_version(&self) -> Option<SparkVersion> {
        SparkVersion::from_number(self.version)
    }

    /// A Spark filter built by Rust as the JVM program built this one, and the number of
    /// puts that changed bits.
    ///
    /// # Panics
    ///
    /// When the vector is Guava's or the parameters are refused.
    pub fn build_spark(&self) -> (SparkBloomFilter, u64) {
        let version = self.spark_version().expect("a Spark vector");
        let mut f = if version == SparkVersion::V2 && self.seed == 0 {
            SparkBloomFilter::new(self.n, self.fpp).expect("new")
        } else {
            let bits = SparkBloomFilter::optimal_num_bits(self.n, self.fpp).expect("bits");
            SparkBloomFilter::with_version(version, self.n, bits, self.seed).expect("with_version")
        };
        let changed = self.fill(&mut f);
        (f, changed)
    }

    /// A Guava filter built by Rust as the JVM program built this one, and the number of
    /// puts that changed bits.
    ///
    /// # Panics
    ///
    /// When the parameters are refused.
    pub fn build_guava(&self) -> (GuavaBloomFilter, u64) {
        let mut f = GuavaBloomFilter::new(self.n, self.fpp).expect("new");
        let changed = self.fill(&mut f);
        (f, changed)
    }

    /// Puts keys `0..n` of the vector's kind, and returns how many puts changed bits.
    fn fill<F: JvmFilter>(&self, f: &mut F) -> u64 {
        (0..self.n)
            .filter(|&i| match self.kind {
                Kind::Long => f.put_long(key_long(i)),
                Kind::Str => f.put_str(&key_str(i)),
                Kind::Bytes => f.put_bytes(&key_bytes(i)),
            })
            .count() as u64
    }

    /// The probed indices.
    pub fn probe_range(&self) -> std::ops::Range<u64> {
        let first = first_probe(self.n, self.probes);
        first..first + self.probes
    }
}

/// A JVM filter of either library, to run one set of checks over both: the methods of the
/// same names.
pub trait JvmFilter {
    /// `insert_i64`.
    fn insert_i64(&mut self, key: i64) -> bool;
    /// `insert_str`.
    fn insert_str(&mut self, key: &str) -> bool;
    /// `insert_bytes`.
    fn insert_bytes(&mut self, key: &[u8]) -> bool;
    /// `put_long`.
    fn put_long(&mut self, key: i64) -> bool;
    /// `put_str`.
    fn put_str(&mut self, key: &str) -> bool;
    /// `put_bytes`.
    fn put_bytes(&mut self, key: &[u8]) -> bool;
    /// `might_contain_long`.
    fn might_contain_long(&self, key: i64) -> bool;
    /// `might_contain_str`.
    fn might_contain_str(&self, key: &str) -> bool;
    /// `might_contain_bytes`.
    fn might_contain_bytes(&self, key: &[u8]) -> bool;
    /// `might_contain_long_batch`.
    fn might_contain_long_batch(&self, keys: &[i64]) -> Vec<bool>;
    /// `might_contain_bytes_batch` over strings.
    fn might_contain_str_batch(&self, keys: &[String]) -> Vec<bool>;
    /// `might_contain_bytes_batch` over byte arrays.
    fn might_contain_bytes_batch(&self, keys: &[Vec<u8>]) -> Vec<bool>;
}

impl<F: Format> JvmFilter for JvmBloomFilter<F> {
    fn insert_i64(&mut self, key: i64) -> bool {
        JvmBloomFilter::insert_i64(self, key)
    }
    fn insert_str(&mut self, key: &str) -> bool {
        JvmBloomFilter::insert_str(self, key)
    }
    fn insert_bytes(&mut self, key: &[u8]) -> bool {
        JvmBloomFilter::insert_bytes(self, key)
    }
    fn put_long(&mut self, key: i64) -> bool {
        JvmBloomFilter::put_long(self, key)
    }
    fn put_str(&mut self, key: &str) -> bool {
        JvmBloomFilter::put_str(self, key)
    }
    fn put_bytes(&mut self, key: &[u8]) -> bool {
        JvmBloomFilter::put_bytes(self, key)
    }
    fn might_contain_long(&self, key: i64) -> bool {
        JvmBloomFilter::might_contain_long(self, key)
    }
    fn might_contain_str(&self, key: &str) -> bool {
        JvmBloomFilter::might_contain_str(self, key)
    }
    fn might_contain_bytes(&self, key: &[u8]) -> bool {
        JvmBloomFilter::might_contain_bytes(self, key)
    }
    fn might_contain_long_batch(&self, keys: &[i64]) -> Vec<bool> {
        JvmBloomFilter::might_contain_long_batch(self, keys)
    }
    fn might_contain_str_batch(&self, keys: &[String]) -> Vec<bool> {
        JvmBloomFilter::might_contain_bytes_batch(self, keys)
    }
    fn might_contain_bytes_batch(&self, keys: &[Vec<u8>]) -> Vec<bool> {
        JvmBloomFilter::might_contain_bytes_batch(self, keys)
    }
}

/// The digest of `filter`'s answers to the probes of `kind` over `range`; also checks that
/// the batch query of the kind gives the same answers.
///
/// # Panics
///
/// When the batch and single queries disagree.
pub fn answers<F: JvmFilter>(filter: &F, kind: Kind, range: std::ops::Range<u64>) -> Digest {
    let (single, batch): (Vec<bool>, Vec<bool>) = match kind {
        Kind::Long => {
            let keys: Vec<i64> = range.map(key_long).collect();
            let single = keys.iter().map(|&k| filter.might_contain_long(k)).collect();
            (single, filter.might_contain_long_batch(&keys))
        }
        Kind::Str => {
            let keys: Vec<String> = range.map(key_str).collect();
            let single = keys.iter().map(|k| filter.might_contain_str(k)).collect();
            (single, filter.might_contain_str_batch(&keys))
        }
        Kind::Bytes => {
            let keys: Vec<Vec<u8>> = range.map(key_bytes).collect();
            let single = keys.iter().map(|k| filter.might_contain_bytes(k)).collect();
            (single, filter.might_contain_bytes_batch(&keys))
        }
    };
    assert_eq!(batch, single, "batch and single queries disagree");
    Digest::of(single)
}

/// `tests/golden/jvm/`.
pub fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("golden/jvm")
}

/// Checks on arbitrary bytes given to `SparkBloomFilter::from_bytes`: never a panic;
/// whatever decodes is canonical (writes the same bytes), streams back the same, holds a key
/// put into it, and survives a merge with itself.
///
/// # Panics
///
/// When any of those properties fails.
pub fn check_spark_bytes(data: &[u8]) {
    let streamed = SparkBloomFilter::read_from(data);
    let Ok(mut filter) = SparkBloomFilter::from_bytes(data) else {
        return;
    };
    assert_eq!(filter.to_bytes(), data, "accepted bytes are not canonical");
    assert_eq!(streamed.as_ref(), Ok(&filter), "read_from disagrees");
    let _ = (filter.estimated_fpr(), filter.cardinality());
    // A huge k makes a query slow (as in Spark): only query filters with a sane one.
    if filter.num_hashes() <= 64 {
        let copy = filter.clone();
        filter.merge(&copy).expect("merge with itself");
        filter.insert_bytes(data);
        assert!(filter.might_contain_bytes(data), "false negative");
        filter.insert_i64(data.len() as i64);
        assert!(
            filter.might_contain_long(data.len() as i64),
            "false negative"
        );
    }
}

/// As [`check_spark_bytes`], for `GuavaBloomFilter`.
///
/// # Panics
///
/// When any of the properties fails.
pub fn check_guava_bytes(data: &[u8]) {
    let streamed = GuavaBloomFilter::read_from(data);
    let Ok(mut filter) = GuavaBloomFilter::from_bytes(data) else {
        return;
    };
    assert_eq!(filter.to_bytes(), data, "accepted bytes are not canonical");
    assert_eq!(streamed.as_ref(), Ok(&filter), "read_from disagrees");
    let _ = (filter.estimated_fpr(), filter.approximate_element_count());
    let copy = filter.clone();
    filter.put_all(&copy).expect("put_all with itself");
    filter.insert_bytes(data);
    assert!(filter.might_contain_bytes(data), "false negative");
}

/// The replay of a fuzz target's committed inputs, for the JVM targets' checks (defined once
/// at the crate's root).
pub use crate::replay_fuzz_dir;
