//! The adapter every candidate implements, and the registry of candidates.
//!
//! A candidate is a filter type seen through [`Candidate`]: how to build it for a capacity
//! and target rate from a slice of keys, how to query it one key at a time and (where it
//! has one) in batches, and (where it has one) how to build it on several threads. The
//! sweep measures every candidate through this one trait, on the same keys, the way
//! BurntSushi's rebar puts one adapter in front of every regex engine.
//!
//! Adding a variant is one marker type with an `impl Candidate` (see
//! [`candidates`](crate::candidates)) and one line in [`ours`] or [`peers`].

use std::fmt;

use bloom_core::hash::Hashing;
use rayon::ThreadPool;
use serde::{Deserialize, Serialize};

use crate::keys::Key;

/// Where a candidate comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// A filter of this workspace.
    Ours,
    /// A crate from crates.io, measured for comparison.
    Peer,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Origin::Ours => "ours",
            Origin::Peer => "peer",
        })
    }
}

/// What a candidate is: fixed facts the report prints beside its figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Info {
    /// The name to select it with on the command line (`--variants classic`).
    pub id: &'static str,
    /// The type's name, as reports show it.
    pub name: &'static str,
    /// The crate (and, for peers, the version measured).
    pub crate_name: &'static str,
    /// Ours or a peer.
    pub origin: Origin,
    /// The hash function the candidate used in the sweep, and how it got it. For ours, a
    /// registered [`Entry`](crate::measure::Entry) holds what the candidate's own filter
    /// reports ([`Candidate::hasher`]), so a keyed adapter says SipHash-1-3 whatever its
    /// `INFO` says.
    pub hasher: &'static str,
    /// Its structure in a few words.
    pub structure: &'static str,
    /// Whether it supports removing keys.
    pub deletes: bool,
    /// Whether it grows past its capacity while keeping its rate.
    pub grows: bool,
    /// The rate it always has, when the target cannot be chosen (xor and cuckoo filters
    /// with 8-bit fingerprints); the sweep then measures it once per size and load.
    pub fixed_fpr: Option<f64>,
    /// Whether it is built once from all its keys (no insert): measured at exactly its
    /// capacity, once per size.
    pub static_build: bool,
    /// Whether, by its documentation, a failed insert may drop a key stored earlier (a
    /// cuckoo filter that runs out of relocations): false negatives of such a candidate after
    /// it reported full are shown but expected, everywhere else they are errors.
    pub evicts_when_full: bool,
}

impl Info {
    /// The facts most candidates share, for the fields an `INFO` leaves out
    /// (`Info { id: ..., structure: ..., ..Info::PLAIN }`): it neither deletes nor grows, its
    /// rate is the target, it takes its keys one insert at a time and evicts none. Its names
    /// are empty: every candidate names itself, its origin and its hasher.
    pub const PLAIN: Info = Info {
        id: "",
        name: "",
        crate_name: "",
        origin: Origin::Ours,
        hasher: "",
        structure: "",
        deletes: false,
        grows: false,
        fixed_fpr: None,
        static_build: false,
        evicts_when_full: false,
    };
}

/// What [`Candidate::build`] returns: the filter with the count of keys it took, or why it
/// could not be built.
pub type BuildResult<F> = Result<Built<F>, BuildError>;

/// The kernel name of code that is the same on every CPU (no run-time choice).
pub const PORTABLE: &str = "portable";

/// The hasher description of this workspace's filters, seeded (the default).
pub const OUR_HASHER: &str =
    "the seeded hash (bloom-core: two multiplies to 8 bytes, XXH3-64 beyond; one call per key)";

/// The hasher description of this workspace's filters keyed with a secret key (`with_key`).
pub const OUR_KEYED_HASHER: &str = "SipHash-1-3 (bloom-core, under a secret key, one call per key)";

/// The hasher description of one of this workspace's filters hashing with `hashing`:
/// [`OUR_KEYED_HASHER`] under a secret key, else [`OUR_HASHER`].
pub fn our_hasher(hashing: Hashing) -> &'static str {
    if hashing.is_keyed() {
        OUR_KEYED_HASHER
    } else {
        OUR_HASHER
    }
}

/// A candidate could not be built for a setting (a peer refused the parameters, ran out of
/// construction attempts, ...). The sweep reports it and carries on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildError {
    /// What went wrong, in the candidate's words.
    pub message: String,
}

impl BuildError {
    /// An error with `message`.
    pub fn new(message: impl fmt::Display) -> Self {
        BuildError {
            message: message.to_string(),
        }
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for BuildError {}

/// A built filter and how many of the offered keys it took.
#[derive(Debug)]
pub struct Built<C> {
    /// The filter.
    pub filter: C,
    /// `keys[..accepted]` were inserted; an insert of `keys[accepted]` was refused (the
    /// filter was full) and no later key was offered.
    pub accepted: usize,
}

impl<C> Built<C> {
    /// A filter that took every one of `count` keys.
    pub fn all(filter: C, count: usize) -> Self {
        Built {
            filter,
            accepted: count,
        }
    }
}

/// Inserts every one of `keys` in order with `insert`, into a filter that takes them all.
#[inline]
pub fn insert_each<C, K>(
    mut filter: C,
    keys: &[K],
    mut insert: impl FnMut(&mut C, &K),
) -> Built<C> {
    for key in keys {
        insert(&mut filter, key);
    }
    Built::all(filter, keys.len())
}

/// Inserts `keys` in order with `insert` (which returns `false` when it refused a key
/// because the filter is full), stopping at the first refusal.
#[inline]
pub fn insert_until_full<C, K>(
    mut filter: C,
    keys: &[K],
    mut insert: impl FnMut(&mut C, &K) -> bool,
) -> Built<C> {
    for (i, key) in keys.iter().enumerate() {
        if !insert(&mut filter, key) {
            return Built {
                filter,
                accepted: i,
            };
        }
    }
    Built::all(filter, keys.len())
}

/// The adapter of one filter type: a marker type whose associated functions build and query
/// the filter as the sweep needs.
///
/// Everything is generic over the key type, so each candidate's loops are compiled for
/// `u64` and `String` keys separately and nothing but the filter's own work is timed.
/// [`Filter`](Candidate::Filter) may depend on the key type, for crates whose filter type
/// does (`bloomfilter::Bloom<T>`).
pub trait Candidate: 'static {
    /// The filter type, for keys of type `K`.
    type Filter<K: Key>;

    /// What it is.
    const INFO: Info;

    /// Whether [`contains_batch`](Candidate::contains_batch) is the candidate's own batch
    /// query (otherwise the batch columns stay empty).
    const BATCH: bool = false;

    /// Whether [`par_build`](Candidate::par_build) is implemented.
    const PARALLEL: bool = false;

    /// Builds a filter sized for `capacity` keys at false-positive rate `fpr`, holding
    /// `keys` (all of them, unless it reports being full first). Timed as the insert cost.
    ///
    /// # Errors
    ///
    /// When the candidate refuses the parameters or fails to build.
    fn build<K: Key>(capacity: u64, fpr: f64, keys: &[K]) -> BuildResult<Self::Filter<K>>;

    /// Whether `key` may be present.
    ///
    /// Every adapter marks it `#[inline(always)]`, so that each candidate's query is
    /// compiled into the timed loop as it would be into a user's loop: an adapter around a
    /// query that its crate inlines everywhere (ours are `#[inline(always)]`) was otherwise
    /// left out of line by LLVM when the query was large, adding a call per key that no
    /// user pays (`BlockedBloomFilter` at 1 million keys: 5.0 ns per present key that way,
    /// docs/compare.md, "Inlining").
    fn contains<K: Key>(filter: &Self::Filter<K>, key: &K) -> bool;

    /// The kernel `filter` runs its queries with, where it chose one for the CPU (`avx512`,
    /// `avx2`, `portable`, ...); `None` where it cannot be known. Called once per build,
    /// outside the timed work, and reported beside the CPU: the same filter may run another
    /// kernel on another machine.
    ///
    /// By default [`PORTABLE`] for ours (a filter without kernels runs the same code on every
    /// CPU) and `None` for peers, whose choices are their own; adapters of filters that
    /// choose override it.
    fn kernel<K: Key>(filter: &Self::Filter<K>) -> Option<&'static str> {
        let _ = filter;
        (Self::INFO.origin == Origin::Ours).then_some(PORTABLE)
    }

    /// The hash function `filter` runs, as reports show it. By default the `INFO`'s; ours
    /// override it with what the filter says ([`our_hasher`] of its `hashing()`), so that an
    /// adapter that keys its filter cannot report the seeded hasher.
    fn hasher<K: Key>(filter: &Self::Filter<K>) -> &'static str {
        let _ = filter;
        Self::INFO.hasher
    }

    /// Answers [`contains`](Candidate::contains) for every key into `out` (cleared first).
    fn contains_batch<K: Key>(filter: &Self::Filter<K>, keys: &[K], out: &mut Vec<bool>) {
        out.clear();
        out.extend(keys.iter().map(|k| Self::contains(filter, k)));
    }

    /// Builds the same filter as [`build`](Candidate::build) with every thread of `pool`.
    ///
    /// # Errors
    ///
    /// As [`build`](Candidate::build); also when the candidate has no parallel build.
    fn par_build<K: Key>(
        capacity: u64,
        fpr: f64,
        keys: &[K],
        pool: &ThreadPool,
    ) -> Result<Self::Filter<K>, BuildError> {
        let _ = (capacity, fpr, keys, pool);
        Err(BuildError::new(format!(
            "{} has no parallel build",
            Self::INFO.name
        )))
    }
}

/// Every candidate of this workspace, in report order.
pub fn ours() -> Vec<crate::measure::Entry> {
    use crate::measure::Entry;
    vec![
        Entry::of::<crate::candidates::Classic>(),
        Entry::of::<crate::candidates::AtomicClassic>(),
        Entry::of::<crate::candidates::KeyedClassic>(),
        Entry::of::<crate::candidates::Counting>(),
        Entry::of::<crate::candidates::Scalable>(),
        Entry::of::<crate::candidates::Aging>(),
        Entry::of::<crate::candidates::Blocked>(),
        Entry::of::<crate::candidates::AtomicBlocked>(),
        Entry::of::<crate::candidates::KeyedBlocked>(),
        Entry::of::<crate::candidates::Multiblock>(),
        Entry::of::<crate::candidates::Multiblock32>(),
        Entry::of::<crate::candidates::SplitBlock>(),
        Entry::of::<crate::candidates::Spark>(),
        Entry::of::<crate::candidates::Guava>(),
    ]
}

/// Every peer crate, in report order (empty without the `peers` feature).
pub fn peers() -> Vec<crate::measure::Entry> {
    #[cfg(feature = "peers")]
    {
        crate::candidates::all_peers()
    }
    #[cfg(not(feature = "peers"))]
    {
        Vec::new()
    }
}
