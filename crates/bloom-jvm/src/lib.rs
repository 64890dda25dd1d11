//! Bloom filters byte-compatible with the JVM's: Apache Spark's sketch `BloomFilter` (both
//! binary versions) and Guava's `BloomFilter`.
//!
//! The largest Bloom filters are built where the data lives: in Spark jobs over billions of
//! rows (`DataFrameStatFunctions.bloomFilter`, the runtime join filter's `bloom_filter_agg`)
//! and in JVM services with Guava. With this crate a Rust service reads the bytes those
//! filters are written as and answers every query as the JVM would, and Rust code writes
//! filters that Spark and Guava read.
//!
//! * [`SparkBloomFilter`]: `org.apache.spark.util.sketch.BloomFilter`, V1 (Spark up to 4.0)
//!   and V2 (Spark 4.1 and later, their default), [`SparkVersion`].
//! * [`GuavaBloomFilter`]: `com.google.common.hash.BloomFilter` with its default strategy
//!   `MURMUR128_MITZ_64`, for longs, UTF-8 strings and byte arrays.
//!
//! Both are one type, [`JvmBloomFilter`], over a [`Format`] ([`Spark`], [`Guava`]): what the
//! two libraries share is written once, what each defines is its format's.
//!
//! Both hash, size and lay out bits exactly as the JVM libraries do, which is not how this
//! workspace's own filters do it (Murmur3 instead of XXH3, Java's `%` instead of a
//! multiply-shift, big-endian words, no checksum): they exist for compatibility, so they do
//! not implement the workspace's `Filter` trait over `T: Hash` keys, whose bytes the JVM
//! would never produce. Their inserts answer as every `insert` of the workspace does
//! (`insert_i64`, `insert_str`, `insert_bytes`: whether the key was possibly present before);
//! the JVM's `put*` answer the opposite (whether a bit changed), and `put_long`, `put_str` and
//! `put_bytes` keep that answer under the JVM's names. Their readers are stricter than the
//! JVM's: truncated input, unknown versions, impossible lengths and trailing bytes are a
//! [`bloom_core::Error`], and no reader allocates more than its input holds.
//! `docs/distributed.md` in the repository shows a filter built by Spark over a large table
//! and served from Rust, and the other way round.
//!
//! # Example
//!
//! ```
//! use bloom_jvm::{GuavaBloomFilter, SparkBloomFilter, SparkVersion};
//!
//! // A filter as Spark would build it, shipped as bytes...
//! let mut spark = SparkBloomFilter::new(1_000, 0.01)?;
//! spark.insert_str("alice");
//! let bytes = spark.to_bytes();
//! // ...read back as Spark's `BloomFilter.readFrom` would.
//! let served = SparkBloomFilter::from_bytes(&bytes)?;
//! assert!(served.might_contain_str("alice"));
//! assert_eq!(served.version(), SparkVersion::V2);
//!
//! let mut guava = GuavaBloomFilter::new(1_000, 0.01)?;
//! assert!(!guava.insert_i64(42)); // certainly new
//! assert!(guava.insert_i64(42)); // possibly seen before
//! // Guava's own `put` answers the opposite: whether a bit changed.
//! assert!(!guava.put_long(42));
//! let copy = GuavaBloomFilter::from_bytes(&guava.to_bytes())?;
//! assert!(copy.might_contain_long(42));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Crate features
//!
//! None: the crate depends only on `bloom-core`.

mod batch;
mod bits;
mod fastmod;
mod filter;
mod guava;
mod murmur3;
mod spark;
mod wire;

pub use filter::{Format, JvmBloomFilter};
pub use guava::{Guava, GuavaBloomFilter};
pub use spark::{Spark, SparkBloomFilter, SparkVersion};
