//! The shared test suite: one set of checks run against every filter of the workspace, the
//! way one test set runs against every engine of a regex library.
//!
//! A filter joins the suite by implementing [`Subject`] (how to build it, what its theory
//! says) and invoking [`filter_suite!`] in a file under `tests/tests/`, a module of the one
//! test binary `tests/tests/suite.rs`. The checks:
//!
//! * no false negatives, against a `HashSet` model, over arbitrary keys (proptest), also
//!   after a round trip through bytes or a stream and after a union;
//! * measured false-positive rate against the variant's theory over a sweep of n and p;
//! * bad parameters are errors;
//! * every truncation and thousands of random mutations of the bytes are errors, never
//!   panics;
//! * streaming (`write_to`, `read_from`) gives the bytes of `to_bytes`, over any read sizes,
//!   and every short, lying or failing stream is an error;
//! * golden bytes pin the format.
//!
//! [`keyed::Keyed`] wraps any keyable variant so the same suite runs on filters hashed under
//! a secret key (`tests/keyed.rs`).
//!
//! [`Subject::build`] takes `expected_items: u64`, as every filter's `new` does (the
//! workspace's size rule, `docs/design.md`, "Sizes and parameters"); `tests/sizes.rs` pins
//! that rule for every public signature.

use std::collections::HashSet;
use std::fmt::Debug;
use std::hash::Hash;
use std::io;

use bloom_core::engine::{BitStore, BlockLayout, Engine, Probe};
use bloom_core::keys::mix;
use bloom_core::{Error, Filter, Persist, PersistIo};

pub mod counting;
pub mod engine;
pub mod jvm;
pub mod keyed;
mod subjects;
pub use subjects::split_block_fpr;

/// A filter under test: how to build one, and what its theory predicts. Every variant under
/// test also saves and loads itself, in memory and in streams.
pub trait Subject: Filter + PersistIo + Clone + Debug + Sized {
    /// Builds a filter sized for `expected_items` keys at false-positive rate `fpr`.
    ///
    /// # Errors
    ///
    /// The variant's own errors for bad parameters.
    fn build(expected_items: u64, fpr: f64) -> Result<Self, Error>;

    /// The false-positive rate theory predicts for this filter holding `num_items` distinct
    /// keys.
    fn theory_fpr(&self, num_items: u64) -> f64;

    /// The standard deviation of this filter's rate, holding `num_items` keys, from one
    /// filter of its size to the next (how the keys fall): 0 by default, where it is small
    /// beside the measurement's own.
    fn rate_spread(&self, num_items: u64) -> f64 {
        let _ = num_items;
        0.0
    }

    /// The least share of [`theory_fpr`](Subject::theory_fpr) a single filter's measured rate
    /// may fall to (before three standard deviations of the measurement): a rate far below
    /// theory means the theory describes another filter.
    const THEORY_FLOOR: f64 = 0.9;

    /// Whether a copy read back from bytes answers exactly like the original (false for a
    /// filter whose bytes are lossy, none so far).
    fn bytes_are_exact() -> bool {
        true
    }

    /// Whether the filter hashes integers in the key hasher's one canonical width (every
    /// variant but the split-block filter, which hashes Parquet's plain encoding of each
    /// type at its own width).
    fn canonical_integers() -> bool {
        true
    }
}

/// The suite's keys, from the workspace's one generator: [`SplitMix64`], a seeded stream, so
/// every failure repeats, and [`distinct_keys`], keys distinct by construction (calls over
/// disjoint ranges never share a key).
pub use bloom_core::keys::{SplitMix64, distinct_keys};

/// Asserts that every key of `keys` is reported present.
///
/// # Panics
///
/// On a false negative, naming the key and the stage.
pub fn assert_all_present<F: Subject, T: Hash + Debug>(filter: &F, keys: &[T], stage: &str) {
    for key in keys {
        assert!(
            filter.contains(key),
            "{}: false negative for {key:?} {stage}",
            F::NAME
        );
    }
    let batch = filter.contains_batch(keys);
    assert!(
        batch.iter().all(|&b| b),
        "{}: batch false negative {stage}",
        F::NAME
    );
}

/// Inserts `keys` one by one and checks the model: no false negatives, and `insert`
/// reports "possibly present" for every key inserted twice.
///
/// # Panics
///
/// On any violation.
pub fn check_no_false_negatives<F: Subject, T: Hash + Eq + Clone + Debug>(
    filter: &mut F,
    keys: &[T],
) {
    let mut model = HashSet::new();
    for key in keys {
        let seen = filter.insert(key).expect("insert");
        if !model.insert(key.clone()) {
            assert!(seen, "{}: re-inserted key {key:?} reported new", F::NAME);
        }
    }
    assert_all_present(filter, keys, "after inserts");
}

/// Round-trips `filter` through bytes and checks the copy finds every key.
///
/// # Panics
///
/// On a false negative or a failed round trip.
pub fn check_round_trip<F: Subject, T: Hash + Debug>(filter: &F, keys: &[T]) {
    let bytes = filter.to_bytes();
    let copy = F::from_bytes(&bytes).expect("round trip");
    assert_all_present(&copy, keys, "after a round trip");
    assert_eq!(
        copy.to_bytes(),
        bytes,
        "{}: bytes differ after a round trip",
        F::NAME
    );
}

/// Streams `filter` out with `write_to` and back with `read_from` (one byte per read, and
/// from a slice) and checks each copy finds every key.
///
/// # Panics
///
/// On a false negative or a failed stream.
pub fn check_stream_round_trip<F: Subject, T: Hash + Debug>(filter: &F, keys: &[T]) {
    let mut bytes = Vec::new();
    filter.write_to(&mut bytes).expect("write_to a Vec");
    let copy = F::read_from(OneByteReader(&bytes)).expect("read_from one byte at a time");
    assert_all_present(&copy, keys, "after write_to and read_from");
    let copy = F::read_from(&bytes[..]).expect("read_from");
    assert_all_present(&copy, keys, "after write_to and read_from a slice");
}

/// Builds two filters from two key sets, unites them, and checks the union finds both.
///
/// # Panics
///
/// On a false negative or a failed union.
pub fn check_union<F: Subject, T: Hash + Debug>(empty: &F, left: &[T], right: &[T]) {
    let mut a = empty.clone();
    let mut b = empty.clone();
    for k in left {
        a.insert(k).expect("insert");
    }
    for k in right {
        b.insert(k).expect("insert");
    }
    a.union(&b).expect("union of filters built alike");
    assert_all_present(&a, left, "after a union (left)");
    assert_all_present(&a, right, "after a union (right)");
}

/// The outcome of one false-positive measurement.
#[derive(Debug, Clone, Copy)]
pub struct FprMeasurement {
    /// Keys inserted.
    pub num_items: u64,
    /// Disjoint keys queried.
    pub num_negatives: u64,
    /// Queries answered "possibly present".
    pub false_positives: u64,
    /// What theory predicts.
    pub theory: f64,
    /// The standard deviation of the rate from one filter to the next under theory
    /// ([`Subject::rate_spread`]).
    pub spread: f64,
}

impl FprMeasurement {
    /// The measured rate.
    pub fn measured(&self) -> f64 {
        self.false_positives as f64 / self.num_negatives as f64
    }

    /// The standard deviation of the measured rate if theory holds: the binomial one of
    /// the queries, and the filter's own spread.
    pub fn sigma(&self) -> f64 {
        let binomial = self.theory * (1.0 - self.theory) / self.num_negatives as f64;
        (binomial + self.spread * self.spread).sqrt()
    }
}

/// The standard deviation of the rate, from one filter to the next, of a multiblock layout of
/// `num_bits` bits in blocks of eight `word_bits`-bit words holding `num_items` keys: the
/// rate is the mean over the blocks of each block's rate, `(1 - (1 - 1/w)^i)^8` for a block
/// of i keys, and the keys per block are Poisson. Small blocks spread it: a 256-bit block of
/// fifteen keys has about half the keys of a 512-bit one, and its rate moves more with each.
pub fn multiblock_spread(num_bits: u64, word_bits: u64, num_items: u64) -> f64 {
    let block_bits = 8 * word_bits;
    let num_blocks = (num_bits / block_bits) as f64;
    let lambda = num_items as f64 * block_bits as f64 / num_bits as f64;
    let clear = 1.0 - 1.0 / word_bits as f64;
    let (mut mean, mut square) = (0.0, 0.0);
    let mut poisson = (-lambda).exp();
    for i in 0..(lambda * 4.0 + 60.0) as i32 {
        let rate = (1.0 - clear.powi(i)).powi(8);
        mean += poisson * rate;
        square += poisson * rate * rate;
        poisson *= lambda / f64::from(i + 1);
    }
    ((square - mean * mean).max(0.0) / num_blocks).sqrt()
}

/// Inserts `num_items` seeded keys, queries enough disjoint keys that about `target_hits`
/// false positives are expected, and returns the measurement.
///
/// # Panics
///
/// On a false negative among the inserted keys.
pub fn measure_fpr<F: Subject>(
    filter: &mut F,
    num_items: u64,
    seed: u64,
    target_hits: u64,
) -> FprMeasurement {
    let keys: Vec<u64> = distinct_keys(seed << 40, num_items).collect();
    for k in &keys {
        filter.insert(k).expect("insert");
    }
    assert!(
        keys.iter().all(|k| filter.contains(k)),
        "{}: false negative",
        F::NAME
    );
    let theory = filter.theory_fpr(num_items);
    let num_negatives = ((target_hits as f64 / theory).ceil() as u64).clamp(100_000, 20_000_000);
    let negatives: Vec<u64> = distinct_keys((seed << 40) + (1 << 39), num_negatives).collect();
    let false_positives = filter
        .contains_batch(&negatives)
        .iter()
        .filter(|&&b| b)
        .count() as u64;
    FprMeasurement {
        num_items,
        num_negatives,
        false_positives,
        theory,
        spread: filter.rate_spread(num_items),
    }
}

/// Measures the rate of a filter built for (n, p) holding n keys and checks it against
/// theory: at most `theory x 1.1 + 3 sigma`, and at least `theory x THEORY_FLOOR - 3 sigma`
/// (a rate far below theory means the theory describes another filter).
///
/// # Panics
///
/// When the measured rate is outside the bounds.
pub fn check_fpr_against_theory<F: Subject>(n: u64, p: f64, seed: u64) -> FprMeasurement {
    let mut filter = F::build(n, p).expect("valid parameters");
    let m = measure_fpr(&mut filter, n, seed, 2_000);
    let (measured, theory, sigma) = (m.measured(), m.theory, m.sigma());
    assert!(
        measured <= theory * 1.1 + 3.0 * sigma,
        "{}: n {n} p {p}: measured FPR {measured:.6} above theory {theory:.6} x 1.1 + 3 sigma ({sigma:.2e})",
        F::NAME
    );
    assert!(
        measured >= theory * F::THEORY_FLOOR - 3.0 * sigma,
        "{}: n {n} p {p}: measured FPR {measured:.6} far below theory {theory:.6}",
        F::NAME
    );
    m
}

/// Values that are not a rate strictly between 0 and 1: every parameter that is one (a
/// false-positive rate, a tightening ratio) refuses each of them.
pub const NOT_PROBABILITIES: [f64; 8] = [
    0.0,
    1.0,
    -0.01,
    1.5,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    -0.0,
];

/// Checks that bad parameters are errors, never panics or filters.
///
/// # Panics
///
/// When a bad parameter is accepted.
pub fn check_bad_parameters<F: Subject>() {
    assert!(
        matches!(F::build(0, 0.01), Err(Error::InvalidParameter { .. })),
        "{}: n = 0 accepted",
        F::NAME
    );
    for p in NOT_PROBABILITIES {
        assert!(
            matches!(F::build(1000, p), Err(Error::InvalidParameter { .. })),
            "{}: p = {p} accepted",
            F::NAME
        );
    }
    for (n, p) in [(u64::MAX, 0.01), (u64::MAX / 2, 1e-10), (1 << 40, 0.5)] {
        assert!(
            matches!(F::build(n, p), Err(Error::TooLarge { .. })),
            "{}: n = {n}, p = {p} accepted",
            F::NAME
        );
    }
}

/// Checks that every truncation of `filter`'s bytes is an error, and that an
/// [`Error::Truncated`] tells the truth: its field outruns the input, and the bytes it says
/// are missing at least (`needed - available`) are no more than were cut off.
///
/// # Panics
///
/// When a truncation decodes or misreports what is missing.
pub fn check_truncations<F: Subject>(filter: &F) {
    let bytes = filter.to_bytes();
    for len in 0..bytes.len() {
        match F::from_bytes(&bytes[..len]) {
            Ok(_) => panic!("{}: truncation to {len} decoded", F::NAME),
            Err(Error::Truncated { needed, available }) => {
                let cut = (bytes.len() - len) as u64;
                assert!(
                    available < needed && needed - available <= cut,
                    "{}: cut to {len}: {needed} needed, {available} left, {cut} cut",
                    F::NAME
                );
            }
            Err(_) => {}
        }
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(
        F::from_bytes(&longer).is_err(),
        "{}: trailing byte accepted",
        F::NAME
    );
}

/// A reader that hands out one byte per call: streaming must not depend on read sizes.
#[derive(Debug)]
pub struct OneByteReader<'a>(pub &'a [u8]);

impl io::Read for OneByteReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match (buf.first_mut(), self.0.split_first()) {
            (Some(dst), Some((&byte, rest))) => {
                *dst = byte;
                self.0 = rest;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

/// A reader that yields its bytes, then fails (a connection reset mid-stream).
#[derive(Debug)]
pub struct FailingReader<'a>(pub &'a [u8]);

impl io::Read for FailingReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.0.is_empty() {
            return Err(io::Error::new(io::ErrorKind::ConnectionReset, "reset"));
        }
        io::Read::read(&mut self.0, buf)
    }
}

/// A writer that accepts `limit` bytes, then fails (a full disk).
#[derive(Debug, Default)]
pub struct FailingWriter {
    /// The bytes accepted so far.
    pub written: Vec<u8>,
    /// How many bytes it accepts before failing.
    pub limit: usize,
}

impl io::Write for FailingWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let room = self.limit - self.written.len();
        if room == 0 && !buf.is_empty() {
            return Err(io::Error::new(io::ErrorKind::StorageFull, "full"));
        }
        let n = room.min(buf.len());
        self.written.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The offset of the payload-length field in a frame: the first offset after the 16-byte
/// header whose `u64` equals the bytes left after it less the padding (zero bytes up to the
/// next multiple of 64) and the checksum. (A parameter equal to the payload's length, as the
/// split-block filter's byte count, is not followed by zeros up to the payload.)
///
/// # Panics
///
/// When no such field is found.
pub fn payload_len_offset(bytes: &[u8]) -> usize {
    (16..bytes.len() - 16)
        .find(|&at| {
            let len = u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
            let payload_at = (at + 8).next_multiple_of(bloom_core::format::PAYLOAD_ALIGN);
            bytes.len() >= payload_at + 8
                && len == (bytes.len() - payload_at - 8) as u64
                && bytes[at + 8..payload_at].iter().all(|&b| b == 0)
        })
        .expect("a payload length field")
}

/// Checks `write_to` and `read_from` against `to_bytes` and `from_bytes`: the same bytes,
/// the same filter, one byte per read, exactly one frame consumed; every truncation is
/// [`Error::Truncated`], a header claiming 2^40 or 2^64 - 1 payload bytes on a short stream
/// too; a writer or reader that fails midway gives [`Error::Io`] with its kind.
///
/// # Panics
///
/// When any of those fails.
pub fn check_streaming<F: Subject>(filter: &F) {
    let name = F::NAME;
    let bytes = filter.to_bytes();
    let mut written = Vec::new();
    filter.write_to(&mut written).expect("write_to a Vec");
    assert!(written == bytes, "{name}: write_to differs from to_bytes");

    let expected = F::from_bytes(&bytes).expect("from_bytes").to_bytes();
    let read = |r: &mut dyn io::Read| F::read_from(r).map(|f| f.to_bytes());
    assert_eq!(
        read(&mut &bytes[..]).expect("read_from"),
        expected,
        "{name}"
    );
    assert_eq!(
        read(&mut OneByteReader(&bytes)).expect("read_from one byte at a time"),
        expected,
        "{name}"
    );
    // Exactly one frame is read: what follows stays in the stream.
    let mut two = bytes.clone();
    two.extend_from_slice(&bytes);
    let mut stream = &two[..];
    assert_eq!(read(&mut stream).expect("first of two"), expected);
    assert_eq!(read(&mut stream).expect("second of two"), expected);
    assert!(stream.is_empty(), "{name}");

    let step = (bytes.len() / 1000).max(1);
    for len in (0..bytes.len()).step_by(step).chain([bytes.len() - 1]) {
        match read(&mut &bytes[..len]) {
            Err(Error::Truncated { needed, available }) => {
                assert!(available < needed, "{name}: cut to {len}")
            }
            other => panic!("{name}: stream cut to {len} gave {other:?}"),
        }
    }

    let at = payload_len_offset(&bytes);
    for claim in [1u64 << 40, u64::MAX] {
        let mut lying = bytes.clone();
        lying[at..at + 8].copy_from_slice(&claim.to_le_bytes());
        assert!(
            matches!(read(&mut &lying[..]), Err(Error::Truncated { .. })),
            "{name}: payload length {claim} on {} bytes",
            bytes.len()
        );
    }

    for limit in [0, 1, 16, bytes.len() / 2, bytes.len() - 1] {
        let mut w = FailingWriter {
            written: Vec::new(),
            limit,
        };
        match filter.write_to(&mut w) {
            Err(Error::Io(e)) => assert_eq!(e.kind(), io::ErrorKind::StorageFull, "{name}"),
            other => panic!("{name}: a writer failing after {limit} bytes gave {other:?}"),
        }
        assert_eq!(w.written, bytes[..limit], "{name}");
    }
    let mut w = FailingWriter {
        written: Vec::new(),
        limit: bytes.len(),
    };
    filter
        .write_to(&mut w)
        .expect("a writer with room for every byte");
    assert!(w.written == bytes, "{name}");

    for len in [0, 1, 16, bytes.len() / 2, bytes.len() - 1] {
        match read(&mut FailingReader(&bytes[..len])) {
            Err(Error::Io(e)) => assert_eq!(e.kind(), io::ErrorKind::ConnectionReset),
            other => panic!("{name}: a reader failing after {len} bytes gave {other:?}"),
        }
    }
    assert_eq!(
        read(&mut FailingReader(&bytes)).expect("the frame ends before the failure"),
        expected
    );
}

/// Applies `count` seeded random mutations (1 to 4 bytes changed each) to `filter`'s bytes:
/// each must be an error, because the checksum covers every byte. Then mutates only the
/// header and parameters and recomputes the checksum, so the structural checks are
/// reached: those must not panic, and whatever they accept must round-trip.
///
/// # Panics
///
/// When a mutation decodes (first case) or anything panics.
pub fn check_mutations<F: Subject>(filter: &F, count: usize, seed: u64) {
    let bytes = filter.to_bytes();
    let mut rng = SplitMix64(seed);
    for _ in 0..count {
        let mut m = bytes.clone();
        let changes = 1 + rng.next_u64() % 4;
        for _ in 0..changes {
            let i = (rng.next_u64() % m.len() as u64) as usize;
            m[i] ^= 1 + (rng.next_u64() % 255) as u8;
        }
        if m == bytes {
            // Two changes of one byte cancelled out.
            continue;
        }
        assert!(
            F::from_bytes(&m).is_err(),
            "{}: mutated bytes decoded",
            F::NAME
        );
    }
    // Header and parameter mutations with a valid checksum.
    let checked_len = bytes.len() - 8;
    let params_end = bytes.len().min(64) - 8;
    for _ in 0..count {
        let mut m = bytes.clone();
        let i = (rng.next_u64() % params_end as u64) as usize;
        m[i] = rng.next_u64() as u8;
        let sum = bloom_core::format::checksum(&m[..checked_len]);
        m[checked_len..].copy_from_slice(&sum.to_le_bytes());
        if let Ok(decoded) = F::from_bytes(&m) {
            let again = F::from_bytes(&decoded.to_bytes()).expect("accepted bytes round-trip");
            assert_eq!(again.to_bytes(), decoded.to_bytes());
        }
    }
}

/// Runs `check` on `data`, then (for 8 bytes or more) on `data` with its last 8 bytes
/// replaced by the format's checksum of the rest, so checks behind the checksum are reached.
fn as_given_and_resealed(data: &[u8], check: impl Fn(&[u8])) {
    check(data);
    if data.len() >= 8 {
        let mut fixed = data.to_vec();
        let end = fixed.len() - 8;
        let sum = bloom_core::format::checksum(&fixed[..end]);
        fixed[end..].copy_from_slice(&sum.to_le_bytes());
        check(&fixed);
    }
}

/// Decodes arbitrary bytes as an `F`, as a fuzz target does: once as given, and once with the
/// last 8 bytes replaced by the checksum of the rest, so the checks behind the checksum are
/// reached too. Decoding must return an error or a filter, never panic; a filter it accepts
/// must write back exactly the bytes it was read from, find a key inserted into it, and
/// round-trip. `more` runs the variant's own checks on each accepted filter.
///
/// Shared by the cargo-fuzz targets in `fuzz/` and the tests that replay the inputs committed
/// under `fuzz/regressions/`.
///
/// # Panics
///
/// When any of those properties fails.
pub fn check_any_bytes<F: Filter + Persist + PartialEq + Debug>(
    data: &[u8],
    more: impl Fn(&mut F),
) {
    let check = |bytes: &[u8]| {
        let Ok(mut filter) = F::from_bytes(bytes) else {
            return;
        };
        assert_eq!(
            filter.to_bytes(),
            bytes,
            "{}: accepted bytes are not canonical",
            F::NAME
        );
        let _ = (filter.estimated_fpr(), filter.estimated_len());
        more(&mut filter);
        filter.insert("check_any_bytes").expect("insert");
        assert!(
            filter.contains("check_any_bytes"),
            "{}: false negative",
            F::NAME
        );
        let copy = F::from_bytes(&filter.to_bytes()).expect("accepted bytes round-trip");
        assert_eq!(copy, filter, "{}: round trip changed the filter", F::NAME);
    };
    as_given_and_resealed(data, check);
}

/// The name the test harness gives test function `name` of the module whose `module_path!()`
/// is `module`: its path below the test binary's root module. A test that runs itself again
/// in a child process (`--exact`) passes it, so that it finds itself in any binary.
///
/// # Panics
///
/// If `module` is a binary's root, which holds no test files.
pub fn test_name(module: &str, name: &str) -> String {
    let (_, below_root) = module
        .split_once("::")
        .expect("a test file's module, below the binary's root");
    format!("{below_root}::{name}")
}

/// Reads arbitrary bytes as a stream of `F`s with `read_from`, as the `read_from` fuzz target
/// does: once as given, and once with the last 8 bytes replaced by the checksum of the rest
/// as [`check_any_bytes`] does. Reading must return an error or a filter, never panic, and
/// agree with `from_bytes`:
///
/// - a filter read consumed exactly the bytes of one frame, which `from_bytes` accepts as the
///   same filter and which the filter writes back;
/// - where `from_bytes` accepts the whole input, `read_from` reads the same filter and
///   consumes everything;
/// - a reader handing out one byte per call gets the same verdict and the same filter.
///
/// Shared by the cargo-fuzz target `read_from` in `fuzz/` and `tests/tests/stream_bytes.rs`.
///
/// # Panics
///
/// When any of those properties fails.
pub fn check_stream_bytes<F: Filter + PersistIo>(data: &[u8]) {
    // Filters are compared by their bytes (canonical: the tests above check it), which the
    // atomic filters, without `PartialEq`, have too.
    let bytes_of = |r: &Result<F, bloom_core::Error>| r.as_ref().ok().map(F::to_bytes);
    let check = |bytes: &[u8]| {
        let mut rest = bytes;
        let read = F::read_from(&mut rest);
        let consumed = bytes.len() - rest.len();
        let whole = F::from_bytes(bytes);
        match &read {
            Ok(filter) => {
                let frame = &bytes[..consumed];
                assert_eq!(filter.to_bytes(), frame, "{}: not canonical", F::NAME);
                assert_eq!(
                    bytes_of(&F::from_bytes(frame)).as_deref(),
                    Some(frame),
                    "{}: read_from accepted a frame from_bytes does not",
                    F::NAME
                );
            }
            Err(e) => assert!(
                whole.is_err(),
                "{}: from_bytes accepts what read_from refuses ({e})",
                F::NAME
            ),
        }
        if whole.is_ok() {
            assert_eq!(bytes_of(&read), bytes_of(&whole), "{}", F::NAME);
            assert_eq!(consumed, bytes.len(), "{}: frame not read whole", F::NAME);
        }
        assert_eq!(
            bytes_of(&F::read_from(OneByteReader(bytes))),
            bytes_of(&read),
            "{}: one byte per read changed the result",
            F::NAME
        );
    };
    as_given_and_resealed(data, check);
}

/// The `read_from` fuzz target's input: the first byte picks the variant (its value mod 8:
/// classic, atomic classic, counting, scalable, blocked, atomic blocked, split block,
/// aging), the rest is the stream given to [`check_stream_bytes`].
///
/// # Panics
///
/// As [`check_stream_bytes`].
pub fn check_stream_input(data: &[u8]) {
    use bloom_aging::AgingBloomFilter;
    use bloom_blocked::{AtomicBlockedBloomFilter, BlockedBloomFilter, SplitBlockBloomFilter};
    use bloom_classic::{AtomicBloomFilter, BloomFilter};
    use bloom_counting::CountingBloomFilter;
    use bloom_scalable::ScalableBloomFilter;

    let Some((&which, stream)) = data.split_first() else {
        return;
    };
    match which % 8 {
        0 => check_stream_bytes::<BloomFilter>(stream),
        1 => check_stream_bytes::<AtomicBloomFilter>(stream),
        2 => check_stream_bytes::<CountingBloomFilter>(stream),
        3 => check_stream_bytes::<ScalableBloomFilter>(stream),
        4 => check_stream_bytes::<BlockedBloomFilter>(stream),
        5 => check_stream_bytes::<AtomicBlockedBloomFilter>(stream),
        6 => check_stream_bytes::<SplitBlockBloomFilter>(stream),
        _ => check_stream_bytes::<AgingBloomFilter>(stream),
    }
}

/// Runs `check` on every file under `fuzz/regressions/<target>/` (seeds and minimized
/// crashes committed from fuzzing runs) and returns how many there were.
///
/// # Panics
///
/// When a file fails the checks or the folder cannot be read.
pub fn replay_fuzz_dir(target: &str, check: impl Fn(&[u8])) -> usize {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/regressions")
        .join(target);
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        check(&std::fs::read(&path).expect("readable input"));
        count += 1;
    }
    count
}

/// Runs [`check_any_bytes`] on every file under `fuzz/regressions/<target>/` and returns how
/// many there were ([`replay_fuzz_dir`]).
///
/// # Panics
///
/// When a file fails the checks or the folder cannot be read.
pub fn replay_fuzz_inputs<F: Filter + Persist + PartialEq + Debug>(
    target: &str,
    more: impl Fn(&mut F) + Copy,
) -> usize {
    replay_fuzz_dir(target, |data| check_any_bytes::<F>(data, more))
}

/// Keys inserted as `u64` are found when queried as any other integer type holding the same
/// value (the untyped literal `5` is an `i32`), one at a time and in a batch, and the same
/// for negative `i64` keys queried as narrower signed types: the key hasher writes every
/// integer in one canonical width. (The split-block filter hashes Parquet's plain encodings,
/// where the width is the column's type; its own tests check that instead.)
pub fn check_integer_widths<F: Subject>() {
    let mut f = F::build(2_000, 0.01).unwrap();
    for i in 0..1_000u64 {
        f.insert(&i).unwrap();
    }
    for i in -1_000..0i64 {
        f.insert(&i).unwrap();
    }
    for i in 0..1_000u64 {
        let found = [
            f.contains(&(i as u8)) || i > u64::from(u8::MAX),
            f.contains(&(i as u16)),
            f.contains(&(i as u32)),
            f.contains(&(i as usize)),
            f.contains(&u128::from(i)),
            f.contains(&(i as i16)),
            f.contains(&(i as i32)),
            f.contains(&(i as i64)),
            f.contains(&(i as isize)),
            f.contains(&i128::from(i)),
        ];
        assert!(
            found.iter().all(|&x| x),
            "key {i} lost across widths: {found:?}"
        );
        let signed = -(i as i64) - 1;
        assert!(f.contains(&(signed as i32)) && f.contains(&(signed as i16)));
        assert!(f.contains(&i128::from(signed)) && f.contains(&(signed as isize)));
    }
    // The case of the untyped literal: `[1, 2, 3]` is a slice of `i32`.
    assert_eq!(f.contains_batch(&[1, 2, 3]), vec![true; 3]);
    let as_i32: Vec<i32> = (0..1_000).collect();
    assert!(f.contains_batch(&as_i32).iter().all(|&x| x));
    let as_u8: Vec<u8> = (0..=255).collect();
    assert!(f.contains_batch(&as_u8).iter().all(|&x| x));
}

/// A filter larger than the batch engine's cached size (so `contains_batch` runs its
/// prefetching loop, not the key-by-key one) answers every batch exactly as single queries
/// do: runs of present keys (which switch the classic staging to eager bursts), runs of
/// absent keys, and mixtures, in batches of many lengths.
pub fn check_batch_past_the_cache<F: Subject>() {
    // Past the direct loop's limit for keys of several lines (the larger of the engine's
    // two limits; it follows this machine's caches). Memory is zeroed lazily and only a few
    // keys go in, so a large filter costs little here.
    let limit = bloom_core::internal::batch::direct_max_bytes(false);
    let mut n = 5_000_000;
    let mut f = F::build(n, 0.01).unwrap();
    while f.memory_usage() <= limit {
        n *= 2;
        f = F::build(n, 0.01).unwrap();
    }
    let present: Vec<u64> = distinct_keys(1 << 40, 20_000).collect();
    for k in &present {
        f.insert(k).unwrap();
    }
    let mut queries: Vec<u64> = Vec::new();
    let mut rng = SplitMix64(17);
    for run in 0..60 {
        let len = (rng.next_u64() % 700) as usize;
        for _ in 0..len {
            let r = rng.next_u64();
            queries.push(match run % 3 {
                0 => present[(r % present.len() as u64) as usize],
                1 => r,
                _ if r.is_multiple_of(2) => present[(r % present.len() as u64) as usize],
                _ => r,
            });
        }
    }
    let single: Vec<bool> = queries.iter().map(|k| f.contains(k)).collect();
    let mut start = 0;
    while start < queries.len() {
        let len = 1 + (rng.next_u64() % 3000) as usize;
        let end = (start + len).min(queries.len());
        assert_eq!(
            f.contains_batch(&queries[start..end]),
            single[start..end],
            "batch {start}..{end}"
        );
        start = end;
    }
    assert!(f.contains_batch(&present).iter().all(|&x| x));
}

/// For a filter on Parquet's plain encodings: every key is found at the width it was
/// inserted with, and a 32-bit key is not the 64-bit key of the same value (an INT32 column's
/// filter is probed with INT32 values, as Parquet readers do).
pub fn check_parquet_widths<F: Subject>() {
    let mut f = F::build(2_000, 0.01).unwrap();
    for i in 0..1_000i32 {
        f.insert(&i).unwrap();
        f.insert(&(i64::from(i) << 40)).unwrap();
    }
    assert!((0..1_000i32).all(|i| f.contains(&i)));
    assert!((0..1_000i64).all(|i| f.contains(&(i << 40))));
    let crossed = (0..1_000i32).filter(|&i| f.contains(&i64::from(i))).count();
    assert!(
        crossed < 100,
        "{crossed} of 1000 i32 keys found as i64: widths merged"
    );
}

/// Checks an empty filter of 2^33 bits (1 GiB, zeroed lazily by the kernel) of a layout of
/// one 512-bit line per key, chosen from the hash by multiply-shift: of 20,000 keys, about
/// half land in lines beyond bit 2^32, and
/// all are found there by single and batch queries, and by the atomic filter of its bits.
pub fn check_above_two_to_the_32<L: BlockLayout<Hash = u64>>(mut filter: Engine<L, BitStore>) {
    assert_eq!(filter.num_bits(), 1 << 33);
    let keys: Vec<u64> = distinct_keys(5 << 40, 20_000).collect();
    filter.insert_all(&keys);
    let high = keys
        .iter()
        .filter(|k| bloom_core::internal::reduce(filter.hash(*k), 1 << 24) >= 1 << 23)
        .count();
    assert!(
        (9_000..11_000).contains(&high),
        "{high} keys above bit 2^32"
    );
    assert!(filter.contains_batch(&keys).iter().all(|&b| b));
    assert!(keys.iter().all(|k| filter.contains(k)));
    let atomic = filter.into_atomic();
    assert!(keys.iter().all(|k| atomic.contains(k)));
}

/// Checks that every kernel this CPU has gives the portable test's answers, single and batch,
/// on `rounds` random filters of a layout of one block per key, of random sizes and fills
/// (block counts that are not powers of two included), and so does each filter's atomic twin
/// under the portable test and under every kernel: filter `round` is
/// `make(round, num_blocks)`, filled with distinct keys, the randomness seeded by `seed`.
pub fn check_kernels_agree_with_portable<L: BlockLayout<Hash = u64>>(
    seed: u64,
    rounds: u64,
    make: impl Fn(u64, u64) -> Engine<L, BitStore>,
) {
    let mut rng = SplitMix64(seed);
    let available: Vec<Probe> = [Probe::Avx2, Probe::Avx512]
        .into_iter()
        .filter(|p| p.is_available())
        .collect();
    for round in 0..rounds {
        let num_blocks = 1 + rng.next_u64() % 3000;
        let mut f = make(round, num_blocks);
        let n = num_blocks * 512 / (4 + rng.next_u64() % 16);
        f.insert_all(distinct_keys(round << 32, n));
        let portable = f.clone().with_probe(Probe::Portable).unwrap();
        assert_eq!(portable.probe(), Probe::Portable);
        let queries: Vec<u64> = (0..20_000).map(|_| rng.next_u64()).collect();
        let a = portable.contains_batch(&queries);
        assert!(a.iter().any(|&x| x), "some positives to compare");
        // The atomic twin reads its words one atomic load at a time under the portable
        // test, and in place under a kernel (below).
        let atomic_portable = portable.clone().into_atomic();
        assert_eq!(atomic_portable.probe(), Probe::Portable);
        assert_eq!(
            a,
            atomic_portable.contains_batch(&queries),
            "atomic, portable"
        );
        for (q, &expected) in queries.iter().zip(&a).take(2_000) {
            assert_eq!(atomic_portable.contains(q), expected, "atomic, portable");
        }
        for &probe in &available {
            let fast = f.clone().with_probe(probe).unwrap();
            let atomic = fast.clone().into_atomic();
            assert_eq!(
                atomic.probe(),
                fast.probe(),
                "the atomic twin runs the kernel"
            );
            assert_eq!(a, atomic.contains_batch(&queries), "atomic, {probe:?}");
            for (q, &expected) in queries.iter().zip(&a).take(2_000) {
                assert_eq!(atomic.contains(q), expected, "atomic, {probe:?}");
            }
            // A vector kernel runs: the one asked for, or (a layout of 256-bit blocks under
            // AVX-512) AVX2's.
            assert!(
                fast.probe() == probe || (probe == Probe::Avx512 && fast.probe() == Probe::Avx2),
                "{probe:?} gave {:?}",
                fast.probe()
            );
            let what = format!(
                "{probe:?} round {round}: {num_blocks} blocks, k {}",
                f.num_hashes()
            );
            assert_eq!(a, fast.contains_batch(&queries), "{what}");
            for (q, &expected) in queries.iter().zip(&a).take(2_000) {
                assert_eq!(fast.contains(q), expected, "{what}");
            }
        }
    }
}

/// Checks that an atomic filter answers "present" for every key whose insert returned
/// before the query began, while other threads go on inserting into it: two writers insert
/// their halves of `n` keys in order, each publishing how many it has inserted (`Release`),
/// and two readers, until the writers are done, read those counts (`Acquire`) and query the
/// newest published keys of each writer and a spread of older ones, one by one and in
/// batches. Queries of atomic line layouts read a line in place with vector loads while
/// inserts set bits in it: the check that no such read misses a bit set before it began.
pub fn check_queries_during_inserts<L: bloom_core::engine::Layout>(
    n: u64,
    make: impl Fn(u64) -> Engine<L, bloom_core::engine::AtomicBitStore>,
) {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let filter = make(n);
    let keys: Vec<u64> = distinct_keys(0x5eed, n).collect();
    let halves: Vec<&[u64]> = keys.chunks(keys.len().div_ceil(2)).collect();
    let published: Vec<AtomicU64> = halves.iter().map(|_| AtomicU64::new(0)).collect();
    let done = AtomicBool::new(false);
    let checked = AtomicU64::new(0);
    std::thread::scope(|s| {
        let writers: Vec<_> = halves
            .iter()
            .zip(&published)
            .map(|(half, count)| {
                let filter = &filter;
                s.spawn(move || {
                    for (i, key) in half.iter().enumerate() {
                        filter.insert(key);
                        count.store(i as u64 + 1, Ordering::Release);
                    }
                })
            })
            .collect();
        for reader in 0..2u64 {
            let (filter, halves, published, done, checked) =
                (&filter, &halves, &published, &done, &checked);
            s.spawn(move || {
                let mut rng = SplitMix64(reader);
                let mut batch = Vec::with_capacity(64);
                loop {
                    // Read `done` first: the counts read after it are final once it is set.
                    let finished = done.load(Ordering::Acquire);
                    for (half, count) in halves.iter().zip(published) {
                        let count = count.load(Ordering::Acquire) as usize;
                        if count == 0 {
                            continue;
                        }
                        batch.clear();
                        batch.extend_from_slice(&half[count.saturating_sub(32)..count]);
                        batch.extend((0..32).map(|_| half[rng.next_u64() as usize % count]));
                        for key in &batch {
                            assert!(filter.contains(key), "{key} inserted before the query");
                        }
                        assert!(filter.contains_batch(&batch).iter().all(|&b| b));
                        checked.fetch_add(batch.len() as u64, Ordering::Relaxed);
                    }
                    if finished {
                        break;
                    }
                }
            });
        }
        for writer in writers {
            writer.join().unwrap();
        }
        done.store(true, Ordering::Release);
    });
    assert!(checked.into_inner() > 0, "the readers queried");
    assert!(keys.iter().all(|k| filter.contains(k)));
}

/// Key `i` of a kind of keys, as the bytes a filter is given.
pub type KeyOf = Box<dyn Fn(u64) -> Vec<u8>>;

/// The kinds of keys a layout's rate is checked on: random and sequential integers, integers
/// strided by 2^32 and by 64 (which differ only in high or in few low bits), URLs, and
/// 24-byte keys one byte apart. Key `i` of each kind is distinct for every `i`.
pub fn key_kinds() -> [(&'static str, KeyOf); 6] {
    [
        ("random", Box::new(|i| mix(i).to_le_bytes().to_vec())),
        ("sequential", Box::new(|i| i.to_le_bytes().to_vec())),
        (
            "strided by 2^32",
            Box::new(|i| (i << 32).to_le_bytes().to_vec()),
        ),
        (
            "strided by 64",
            Box::new(|i| (i * 64).to_le_bytes().to_vec()),
        ),
        (
            "urls",
            Box::new(|i| format!("https://example.com/item/{i}").into_bytes()),
        ),
        (
            "one byte apart",
            Box::new(|i| {
                let mut key = vec![0x5a; 24];
                key[..8].copy_from_slice(&i.to_be_bytes());
                key
            }),
        ),
    ]
}

/// Integer key `i` of a kind of integer keys.
pub type IntegerOf = fn(u64) -> u64;

/// The kinds of integer keys a layout's rate is checked on, hashed as `u64` (the seeded
/// hash's one-word path; [`key_kinds`]' 8-byte slices write a length too and take the
/// two-word path): random, sequential, strided by 2^32 and strided by 64.
pub fn integer_kinds() -> [(&'static str, IntegerOf); 4] {
    [
        ("random integers", mix),
        ("sequential integers", |i| i),
        ("integers strided by 2^32", |i| i << 32),
        ("integers strided by 64", |i| i * 64),
    ]
}

/// Checks that `F::build(n, p)` holding keys `0..n` of each kind of [`key_kinds`] and
/// [`integer_kinds`] answers present for each of them, and measures over a million absent
/// keys of the same kind a rate at most its [`theory_fpr`](Subject::theory_fpr) plus three
/// binomial standard deviations.
///
/// # Panics
///
/// On a false negative or a rate above that bound, naming the kind of key.
pub fn check_rate_on_every_kind_of_key<F: Subject>(n: u64, p: f64) {
    for (name, key) in key_kinds() {
        check_rate_on_keys::<F, _>(n, p, name, key);
    }
    for (name, key) in integer_kinds() {
        check_rate_on_keys::<F, _>(n, p, name, key);
    }
}

/// [`check_rate_on_every_kind_of_key`] for one kind of key, `key(i)` the key `i`.
fn check_rate_on_keys<F: Subject, K: Hash>(n: u64, p: f64, name: &str, key: impl Fn(u64) -> K) {
    const ABSENT: u64 = 1_000_000;
    let mut f = F::build(n, p).expect("valid parameters");
    let present: Vec<K> = (0..n).map(&key).collect();
    for k in &present {
        f.insert(k).expect("insert");
    }
    assert!(
        f.contains_batch(&present).into_iter().all(|b| b),
        "{}, {name}: a false negative",
        F::NAME
    );
    let absent: Vec<K> = (n..n + ABSENT).map(&key).collect();
    let m = FprMeasurement {
        num_items: n,
        num_negatives: ABSENT,
        false_positives: f.contains_batch(&absent).into_iter().filter(|&b| b).count() as u64,
        theory: f.theory_fpr(n),
        spread: f.rate_spread(n),
    };
    assert!(
        m.measured() <= m.theory + 3.0 * m.sigma(),
        "{}, {name}, p {p}: {} false positives in {ABSENT}, theory {}",
        F::NAME,
        m.false_positives,
        m.theory
    );
}

/// Generates the shared tests for one filter type: `filter_suite!(module, Type);`.
///
/// The type must implement [`Subject`]. The generated module holds proptests for false
/// negatives (integers and byte strings, after round trip, streaming and union), the FPR
/// sweep and the rate on every kind of key, bad parameters, truncations and mutations,
/// streaming.
#[macro_export]
macro_rules! filter_suite {
    ($module:ident, $ty:ty) => {
        mod $module {
            use super::*;
            use proptest::prelude::*;
            use $crate::Subject;

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(64))]

                #[test]
                fn no_false_negatives_for_integers(keys in proptest::collection::vec(any::<u64>(), 1..2000)) {
                    let mut f = <$ty as Subject>::build((keys.len().max(10) / 2 + 1) as u64, 0.05).unwrap();
                    $crate::check_no_false_negatives(&mut f, &keys);
                    $crate::check_round_trip(&f, &keys);
                }

                #[test]
                fn no_false_negatives_for_byte_strings(keys in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..300), 1..300)) {
                    let mut f = <$ty as Subject>::build(keys.len() as u64, 0.01).unwrap();
                    $crate::check_no_false_negatives(&mut f, &keys);
                    $crate::check_round_trip(&f, &keys);
                }

                #[test]
                fn no_false_negatives_for_strings(keys in proptest::collection::vec(".{0,40}", 1..300)) {
                    let mut f = <$ty as Subject>::build(keys.len() as u64, 0.01).unwrap();
                    $crate::check_no_false_negatives(&mut f, &keys);
                }

                /// `write_to` then `read_from` keeps every key, over arbitrary keys (a
                /// growing filter's later layers too).
                #[test]
                fn no_false_negatives_after_streaming(keys in proptest::collection::vec(any::<u64>(), 0..1000)) {
                    let mut f = <$ty as Subject>::build((keys.len().max(10) / 2 + 1) as u64, 0.05).unwrap();
                    for key in &keys {
                        bloom_core::Filter::insert(&mut f, key).unwrap();
                    }
                    $crate::check_stream_round_trip(&f, &keys);
                }

                #[test]
                fn no_false_negatives_after_union(
                    left in proptest::collection::vec(any::<u64>(), 0..1000),
                    right in proptest::collection::vec(any::<u64>(), 0..1000),
                ) {
                    let empty = <$ty as Subject>::build(2000, 0.01).unwrap();
                    $crate::check_union(&empty, &left, &right);
                }
            }

            #[test]
            fn fpr_matches_theory_over_a_sweep() {
                for (i, &n) in [1_000u64, 10_000, 100_000, 1_000_000].iter().enumerate() {
                    for (j, &p) in [0.1, 0.01, 0.001].iter().enumerate() {
                        $crate::check_fpr_against_theory::<$ty>(n, p, (i * 3 + j) as u64 + 1);
                    }
                }
            }

            #[test]
            fn rate_holds_on_every_kind_of_key() {
                for p in [0.1, 0.01, 0.001] {
                    $crate::check_rate_on_every_kind_of_key::<$ty>(100_000, p);
                }
            }

            #[test]
            fn batch_queries_past_the_cache_answer_like_single_ones() {
                $crate::check_batch_past_the_cache::<$ty>();
            }

            #[test]
            fn integers_of_every_width_are_one_key() {
                if <$ty as Subject>::canonical_integers() {
                    $crate::check_integer_widths::<$ty>();
                } else {
                    $crate::check_parquet_widths::<$ty>();
                }
            }

            #[test]
            fn bad_parameters_are_errors() {
                $crate::check_bad_parameters::<$ty>();
            }

            #[test]
            fn truncated_and_mutated_bytes_are_errors() {
                let mut f = <$ty as Subject>::build(100, 0.01).unwrap();
                for k in 0..100u64 {
                    bloom_core::Filter::insert(&mut f, &k).unwrap();
                }
                $crate::check_truncations(&f);
                $crate::check_mutations(&f, 5_000, 7);
            }

            #[test]
            fn streaming_gives_the_bytes_of_to_bytes() {
                let mut f = <$ty as Subject>::build(100, 0.01).unwrap();
                for k in 0..100u64 {
                    bloom_core::Filter::insert(&mut f, &k).unwrap();
                }
                $crate::check_streaming(&f);
                // Several times the stream buffer (64 KiB), so it is flushed and refilled.
                let mut f = <$ty as Subject>::build(200_000, 0.01).unwrap();
                for k in 0..200_000u64 {
                    bloom_core::Filter::insert(&mut f, &k).unwrap();
                }
                $crate::check_streaming(&f);
            }

            #[test]
            fn garbage_is_an_error() {
                let mut rng = $crate::SplitMix64(3);
                for len in 0..2_000usize {
                    let bytes: Vec<u8> = (0..len % 300).map(|_| rng.next_u64() as u8).collect();
                    assert!(<$ty as bloom_core::Persist>::from_bytes(&bytes).is_err());
                }
            }
        }
    };
}

/// Checks a zero-copy view type against its owning filter on arbitrary bytes (the fuzz
/// targets' check): `$view::from_bytes` never panics, accepts with `verify` exactly what
/// `$owned::from_bytes` accepts, and a view answers single and batch queries alike, as the
/// filter `to_owned` gives it does: `check_view_bytes!(data, BloomFilterRef, BloomFilter)`.
#[macro_export]
macro_rules! check_view_bytes {
    ($data:expr, $view:ident, $owned:ident) => {{
        let data: &[u8] = $data;
        let view = $view::from_bytes(data);
        let verified = view.as_ref().is_ok_and(|v| v.verify().is_ok());
        assert_eq!(verified, $owned::from_bytes(data).is_ok());
        if let Ok(view) = view {
            let keys = [data.len() as u64, 0, u64::MAX];
            let answers = view.contains_batch(&keys);
            assert!(
                keys.iter()
                    .zip(&answers)
                    .all(|(k, &a)| view.contains(k) == a)
            );
            if let Ok(filter) = view.to_owned() {
                assert_eq!(filter.contains_batch(&keys), answers);
            }
        }
    }};
}
