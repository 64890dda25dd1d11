//! The facade's features reach the variant crates: each type at its root is the variant
//! crate's own, saves and loads through the facade's `Persist` (and, with `std`, streams
//! through its `PersistIo`), and `serde` and `rayon` are turned on in every enabled variant
//! that has them.
//!
//! Every test is compiled only under the features it needs, so this file builds under every
//! feature combination; CI runs it with each.

// Writes each test once for every filter type; `$feature` gates it on the type's variant.
macro_rules! for_each_filter {
    ($mac:ident) => {
        $mac!(
            bloom_filter,
            "classic",
            BloomFilter,
            bloom_classic::BloomFilter
        );
        $mac!(
            atomic_bloom_filter,
            "classic",
            AtomicBloomFilter,
            bloom_classic::AtomicBloomFilter
        );
        $mac!(
            blocked_bloom_filter,
            "blocked",
            BlockedBloomFilter,
            bloom_blocked::BlockedBloomFilter
        );
        $mac!(
            atomic_blocked_bloom_filter,
            "blocked",
            AtomicBlockedBloomFilter,
            bloom_blocked::AtomicBlockedBloomFilter
        );
        $mac!(
            split_block_bloom_filter,
            "blocked",
            SplitBlockBloomFilter,
            bloom_blocked::SplitBlockBloomFilter
        );
        $mac!(
            counting_bloom_filter,
            "counting",
            CountingBloomFilter,
            bloom_counting::CountingBloomFilter
        );
        $mac!(
            scalable_bloom_filter,
            "scalable",
            ScalableBloomFilter,
            bloom_scalable::ScalableBloomFilter
        );
        $mac!(
            aging_bloom_filter,
            "aging",
            AgingBloomFilter,
            bloom_aging::AgingBloomFilter
        );
    };
}

/// A filter for 1,000 keys at 1% holding keys `0..1_000`, through the shared trait.
#[allow(dead_code)] // unused when no variant is enabled
fn filled<F: bloom_family::Filter>(mut filter: F) -> F {
    for key in 0..1_000u64 {
        filter.insert(&key).expect("below capacity");
    }
    filter
}

// The root's type is the variant crate's type (a type mismatch fails to compile), and its
// module re-exports it too.
macro_rules! same_type {
    ($name:ident, $feature:literal, $root:ident, $original:path) => {
        #[cfg(feature = $feature)]
        #[test]
        fn $name() {
            let filter: $original = filled(bloom_family::$root::new(1_000, 0.01).unwrap());
            assert!((0..1_000u64).all(|key| filter.contains(&key)));
            let back: $original = bloom_family::$root::from_bytes(&filter.to_bytes()).unwrap();
            assert_eq!(back.to_bytes(), filter.to_bytes());
        }
    };
}

mod same_type {
    #[allow(unused_imports)] // unused when no variant is enabled
    use super::filled;
    for_each_filter!(same_type);
}

/// The filter's bytes after a round trip through the facade's `Persist`.
#[allow(dead_code)] // unused when no variant is enabled
fn reloaded<F: bloom_family::Persist>(filter: &F) -> Vec<u8> {
    F::from_bytes(&filter.to_bytes()).unwrap().to_bytes()
}

/// The filter's bytes after a round trip through a stream, by the facade's `PersistIo`.
#[cfg(feature = "std")]
#[allow(dead_code)] // unused when no variant is enabled
fn restreamed<F: bloom_family::PersistIo>(filter: &F) -> Vec<u8> {
    let mut stream = Vec::new();
    filter.write_to(&mut stream).unwrap();
    F::read_from(&stream[..]).unwrap().to_bytes()
}

// Every variant implements the persistence traits the facade re-exports: `Persist` always,
// `PersistIo` with `std` (the facade's `std` turns on every variant's).
macro_rules! persist {
    ($name:ident, $feature:literal, $root:ident, $original:path) => {
        #[cfg(feature = $feature)]
        #[test]
        fn $name() {
            let filter = filled(bloom_family::$root::new(1_000, 0.01).unwrap());
            assert_eq!(super::reloaded(&filter), filter.to_bytes());
            #[cfg(feature = "std")]
            assert_eq!(super::restreamed(&filter), filter.to_bytes());
        }
    };
}

mod persist {
    #[allow(unused_imports)] // unused when no variant is enabled
    use super::filled;
    for_each_filter!(persist);
}

// `serde` reaches the variant: the filter serializes, and comes back with the same bytes.
macro_rules! serde_round_trip {
    ($name:ident, $feature:literal, $root:ident, $original:path) => {
        #[cfg(all(feature = "serde", feature = $feature))]
        #[test]
        fn $name() {
            let filter = filled(bloom_family::$root::new(1_000, 0.01).unwrap());
            let json = serde_json::to_string(&filter).unwrap();
            let back: bloom_family::$root = serde_json::from_str(&json).unwrap();
            assert_eq!(back.to_bytes(), filter.to_bytes());
        }
    };
}

mod serde_round_trip {
    #[allow(unused_imports)] // unused without `serde`
    use super::filled;
    for_each_filter!(serde_round_trip);
}

// `rayon` reaches every variant that has a parallel build (all but the scalable filter): it
// builds the same filter as the sequential `insert_all`. `$mut` is `mut` for the filters with
// `&mut self` inserts.
macro_rules! parallel_build {
    ($name:ident, $feature:literal, $root:ident, $($mut:ident)?) => {
        #[cfg(all(feature = "rayon", feature = $feature))]
        #[test]
        fn $name() {
            let keys: Vec<u64> = (0..100_000).collect();
            let $($mut)? parallel = bloom_family::$root::new(100_000, 0.01).unwrap();
            parallel.par_insert_all(&keys);
            let $($mut)? sequential = bloom_family::$root::new(100_000, 0.01).unwrap();
            sequential.insert_all(&keys);
            assert_eq!(parallel.to_bytes(), sequential.to_bytes());
        }
    };
}

mod parallel_build {
    parallel_build!(bloom_filter, "classic", BloomFilter, mut);
    parallel_build!(atomic_bloom_filter, "classic", AtomicBloomFilter,);
    parallel_build!(blocked_bloom_filter, "blocked", BlockedBloomFilter, mut);
    parallel_build!(
        atomic_blocked_bloom_filter,
        "blocked",
        AtomicBlockedBloomFilter,
    );
    parallel_build!(counting_bloom_filter, "counting", CountingBloomFilter, mut);
}

// `jvm` reaches bloom-jvm: the root's types are its types, and the module re-exports them.
#[cfg(feature = "jvm")]
#[test]
fn jvm_types() {
    let mut spark: bloom_jvm::SparkBloomFilter =
        bloom_family::SparkBloomFilter::new(1_000, 0.01).unwrap();
    assert!(!spark.insert_i64(1));
    let back: bloom_family::jvm::SparkBloomFilter =
        bloom_family::SparkBloomFilter::from_bytes(&spark.to_bytes()).unwrap();
    assert_eq!(back, spark);
    assert_eq!(back.version(), bloom_family::SparkVersion::V2);
    let mut guava: bloom_jvm::GuavaBloomFilter =
        bloom_family::GuavaBloomFilter::new(1_000, 0.01).unwrap();
    assert!(!guava.insert_i64(1));
    assert!(
        bloom_family::jvm::GuavaBloomFilter::from_bytes(&guava.to_bytes())
            .unwrap()
            .might_contain_long(1)
    );
}

// `datafusion` reaches bloom-datafusion: the module's functions are the crate's.
#[cfg(feature = "datafusion")]
#[test]
fn datafusion_functions() {
    use bloom_family::datafusion as sql;
    assert_eq!(sql::bloom_filter_agg().name(), "bloom_filter_agg");
    assert_eq!(sql::might_contain().name(), "might_contain");
    assert_eq!(
        sql::spark_bloom_filter_agg().name(),
        "spark_bloom_filter_agg"
    );
    assert_eq!(sql::spark_might_contain().name(), "spark_might_contain");
}
