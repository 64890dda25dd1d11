//! Cache-line blocked Bloom filters, their lock-free twin, and Apache Parquet's split-block
//! filter.
//!
//! A classic Bloom filter spreads a key's k bits over the whole array: on a filter larger
//! than the cache, a query costs up to k cache misses. A blocked filter keeps each key's bits
//! inside one 64-byte block, so a query costs one: the filter used in front of SSTables, in
//! query engines' joins and in Parquet files.
//!
//! * [`BlockedBloomFilter`]: 512-bit (one cache line), 64-byte-aligned blocks, k bits per
//!   key (salted products of one hash, 1 <= k <= 16) with k chosen for the bits per key as a
//!   blocked filter needs, sized so the rate asked for is the rate reached; a batch query
//!   that prefetches; AVX-512, AVX2 or portable queries chosen at run time ([`Probe`]; at build time
//!   without `std`).
//! * [`AtomicBlockedBloomFilter`]: the same filter with `&self` inserts, lock-free and
//!   `Send + Sync`.
//! * [`SplitBlockBloomFilter`]: Parquet's split-block filter, bit-compatible with every
//!   Parquet implementation, with the Thrift [`ParquetHeader`] reader and writer, and
//!   [`AtomicSplitBlockBloomFilter`], its lock-free twin.
//! * [`BlockedBloomFilterRef`] and [`SplitBlockBloomFilterRef`]: read-only views of the
//!   filters' bytes (a memory-mapped file), queried in place without copying them; they
//!   open in O(1).
//!
//! All share the workspace's [`Error`] type, binary format and traits: [`Filter`],
//! [`Persist`] and, with `std`, [`PersistIo`].
//! `docs/blocked.md` explains the choice of k, the position scheme and the storage.
//!
//! # Example
//!
//! ```
//! use bloom_blocked::BlockedBloomFilter;
//!
//! let mut filter = BlockedBloomFilter::new(1_000_000, 0.01)?;
//! let keys: Vec<u64> = (0..1_000u64).collect();
//! filter.insert_all(&keys);
//! assert!(filter.contains_batch(&keys).iter().all(|&present| present));
//! let copy = BlockedBloomFilter::from_bytes(&filter.to_bytes())?;
//! assert_eq!(copy, filter);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Sizes
//!
//! As everywhere in the workspace: counts of keys and bits are `u64` (`new(expected_items:
//! u64, ..)`, `SplitBlockBloomFilter::new(ndv: u64, ..)`, `num_bits`, `count_ones`,
//! `estimated_len`), bytes of memory are `usize` (`memory_usage`, the split-block filter's
//! `num_bytes` and `with_num_bytes`, [`ParquetHeader::num_bytes`], [`BITSET_MAX_BYTES`]),
//! counts of in-memory parts are `usize` (`num_blocks`), `num_hashes` is `u32`.
//!
//! # Crate features
//!
//! * `std` (default): the standard library, passed to `bloom-core`. Without it the crate is
//!   `#![no_std]` + `alloc` and has everything but what needs an operating system:
//!   `write_to` and `read_from` (and `read_from_with_key`, and [`PersistIo`]),
//!   `with_random_seed` and `with_random_key`, huge pages for large arrays, and run-time
//!   detection of AVX2 and AVX-512: without `std` a [`Probe`] is available when the build targets its features
//!   (`-C target-cpu=native`, `-C target-feature=+avx2`), so the vector kernels need such a
//!   build.
//! * `rayon`: parallel bulk build (`par_insert_all`, `ParallelExtend`,
//!   `FromParallelIterator`) and `par_contains_batch` of every filter of the crate (blocked,
//!   multiblock, 32-bit multiblock, split-block, and their atomic twins). Turns on `std`.
//! * `serde`: `Serialize` and `Deserialize` for the same eight types, as the bytes of
//!   `to_bytes`; with or without `std`.
//!
//! [`Filter`]: bloom_core::Filter
//! [`Error`]: bloom_core::Error

#![cfg_attr(not(any(feature = "std", test)), no_std)]
// The docs link the items that need `std` (streams, random seeds); without it they have no
// target, and that is expected rather than a mistake in the docs.
#![cfg_attr(not(feature = "std"), allow(rustdoc::broken_intra_doc_links))]

extern crate alloc;

mod layout;
mod lines;
mod multiblock;
mod multiblock32;
mod params;
mod probe;
mod split;
#[cfg(test)]
mod tests;

use bloom_core::engine::{AtomicBitStore, BitStore, Engine, LeBits};

#[cfg(feature = "std")]
pub use bloom_core::PersistIo;
pub use bloom_core::engine::DEFAULT_FPR;
pub use bloom_core::format::{BITSET_MAX_BYTES, BITSET_MIN_BYTES, ParquetHeader};
pub use bloom_core::{Error, Filter, Persist};
pub use layout::Blocked;
pub use multiblock::{MULTIBLOCK_HASHES, Multiblock};
pub use multiblock32::{MULTIBLOCK32_BLOCK_BITS, MULTIBLOCK32_HASHES, Multiblock32};
pub use probe::{BLOCK_BITS, Probe};
pub use split::SplitBlock;

/// A Bloom filter whose keys each touch one 512-bit block: one cache line per query, where
/// a classic filter pays up to k cache misses.
///
/// Each key's 64-bit hash picks a block (any number of blocks, by multiply-shift) and sets
/// `num_hashes` bits in it, at positions drawn independently (they may repeat).
/// `num_hashes` is chosen for the bits per key as a blocked filter needs, from
/// [`blocked_fpr_replacement`](bloom_core::math::blocked_fpr_replacement), and
/// [`new`](BlockedBloomFilter::new) sizes the filter with the same formula, so the rate
/// reached is the one asked for. A blocked filter needs a little more memory than a classic
/// one for the same rate (about 4% at 1%), and is several times faster on filters that do not
/// fit in cache. Queries use AVX2 or AVX-512 when the CPU has them ([`Probe`]).
///
/// For a filter shared between threads, see [`AtomicBlockedBloomFilter`].
///
/// # Examples
///
/// ```
/// use bloom_blocked::BlockedBloomFilter;
///
/// let mut filter = BlockedBloomFilter::new(10_000, 0.01)?;
/// for i in 0..10_000u64 {
///     filter.insert(&i);
/// }
/// // No false negatives...
/// assert!((0..10_000u64).all(|i| filter.contains(&i)));
/// // ...and about 1% false positives.
/// let fp = (10_000..110_000u64).filter(|i| filter.contains(i)).count();
/// assert!(fp < 1_150, "{fp} false positives in 100,000");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// It is the [`Blocked`] layout over owned words: its methods are the engine's ([`Engine`]),
/// shared with every fixed-size filter.
pub type BlockedBloomFilter = Engine<Blocked, BitStore>;

/// A 512-bit blocked Bloom filter whose every method takes `&self`: it can be shared between
/// threads (it is `Send + Sync`) and inserted into concurrently without a lock.
///
/// An insert ORs the key's bits into the (at most eight) words of its block that need them,
/// each with one `Relaxed` `fetch_or`, skipped when a `Relaxed` load shows the bits set
/// already; a query reads the block's words as `Relaxed` loads would. Relaxed is enough:
/// bits only go from 0 to 1 and nothing else is published through them, so a key is found
/// by every query that starts after its insert returned (and the threads synchronised by
/// any means). It answers exactly like a [`BlockedBloomFilter`] holding the same keys, has
/// the same binary format, and converts to and from one without copying. Queries run the
/// owning filter's kernel ([`Probe`]) on the block in place: its `asm!` loads read each
/// aligned word whole, as `Relaxed` loads would, while other threads set bits in it.
///
/// # Examples
///
/// ```
/// use bloom_blocked::AtomicBlockedBloomFilter;
///
/// let filter = AtomicBlockedBloomFilter::new(40_000, 0.01)?;
/// std::thread::scope(|s| {
///     for t in 0..4u64 {
///         let filter = &filter;
///         s.spawn(move || {
///             for i in (t * 10_000)..((t + 1) * 10_000) {
///                 filter.insert(&i);
///             }
///         });
///     }
/// });
/// assert!((0..40_000u64).all(|i| filter.contains(&i)));
/// let fp = (40_000..140_000u64).filter(|i| filter.contains(i)).count();
/// assert!(fp < 1_150, "{fp} false positives in 100,000");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// It is the [`Blocked`] layout over atomic words.
pub type AtomicBlockedBloomFilter = Engine<Blocked, AtomicBitStore>;

/// A read-only [`BlockedBloomFilter`] over the bytes of its
/// [`to_bytes`](BlockedBloomFilter::to_bytes) (a memory-mapped file, a page of a block
/// cache), queried where they lie: opening reads the header and the payload's last word,
/// so it costs the same for a kilobyte and a gigabyte.
///
/// It answers [`contains`](BlockedBloomFilterRef::contains),
/// [`contains_hash`](BlockedBloomFilterRef::contains_hash) and
/// [`contains_batch`](BlockedBloomFilterRef::contains_batch) exactly as the owning filter
/// would, with the same kernels ([`Probe`]) and the same batch engine. The bytes may start at
/// any address: the kernels read each block's 64 bytes where they lie (none of their loads
/// needs alignment), one cache line where the payload lies on a 64-byte boundary and two
/// where it does not ([`is_aligned`](BlockedBloomFilterRef::is_aligned) says which). The
/// format puts the payload 64 bytes into the frame, so a frame at the start of a
/// page-aligned mapping (or at any 64-byte boundary) reads each block from one cache line;
/// a frame placed elsewhere takes the unaligned path, whose cost docs/format.md ("Views")
/// gives.
///
/// Opening does not read the checksum (it would read every byte):
/// [`verify`](BlockedBloomFilterRef::verify) does, when the caller wants it;
/// [`to_owned`](BlockedBloomFilterRef::to_owned) copies into a [`BlockedBloomFilter`],
/// checksum included.
///
/// # Examples
///
/// ```
/// use bloom_blocked::{BlockedBloomFilter, BlockedBloomFilterRef};
/// use bloom_core::Keyed;
///
/// let mut filter = BlockedBloomFilter::new(10_000, 0.01)?;
/// filter.insert_all(0..10_000u64);
/// let bytes = filter.to_bytes();
/// let view = BlockedBloomFilterRef::from_bytes(&bytes)?;
/// view.verify()?;
/// // No false negatives...
/// assert!((0..10_000u64).all(|i| view.contains(&i)));
/// // ...about 1% false positives, the owning filter's answers exactly.
/// let fp = (10_000..110_000u64).filter(|i| view.contains(i)).count();
/// assert!(fp < 1_150, "{fp} false positives in 100,000");
/// let keys: Vec<u64> = (10_000..20_000).collect();
/// assert_eq!(view.contains_batch(&keys), filter.contains_batch(&keys));
/// assert_eq!(view.to_owned()?, filter);
///
/// // A keyed filter's bytes open with its key only.
/// let key = *b"0123456789abcdef";
/// let mut keyed = BlockedBloomFilter::new(1000, 0.01)?.with_key(key);
/// keyed.insert("secret");
/// let bytes = keyed.to_bytes();
/// assert!(BlockedBloomFilterRef::from_bytes(&bytes).is_err());
/// assert!(BlockedBloomFilterRef::from_bytes_with_key(&bytes, &key)?.contains("secret"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// It is the [`Blocked`] layout over the borrowed bytes.
pub type BlockedBloomFilterRef<'a> = Engine<Blocked, LeBits<'a>>;

/// A Bloom filter whose keys each set one bit in each of the eight 64-bit words of one
/// 512-bit block: one cache line per query, and no multiplication inside the block, so its
/// query is cheaper than the blocked layout's ([`Multiblock`]; Boost.Bloom's
/// `fast_multiblock64<8>` and the sectorized filter of Lang et al. have this shape).
///
/// Eight bits per key is its one shape: it needs 10.21 bits per key for 1% and 15.87 for
/// 0.1% (the [`BlockedBloomFilter`] needs 10.04 and 15.68 with its sizing), and more than
/// a blocked filter with fewer bits per key at rates of 5% and above, where the
/// [`BlockedBloomFilter`] is the better choice. [`new`](MultiblockBloomFilter::new) sizes it
/// by [`multiblock_fpr`](bloom_core::math::multiblock_fpr), so the rate reached is the one
/// asked for. It has every method of the blocked filter: batch queries, folding, views,
/// the atomic twin ([`AtomicMultiblockBloomFilter`]), keys and seeds, and the format
/// (variant tag 7); queries use AVX-512 or AVX2 where the CPU has them ([`Probe`]).
///
/// # Examples
///
/// ```
/// use bloom_blocked::MultiblockBloomFilter;
///
/// let mut filter = MultiblockBloomFilter::new(10_000, 0.01)?;
/// filter.insert_all(0..10_000u64);
/// // No false negatives...
/// assert!((0..10_000u64).all(|i| filter.contains(&i)));
/// // ...and about 1% false positives.
/// let fp = (10_000..110_000u64).filter(|i| filter.contains(i)).count();
/// assert!(fp < 1_150, "{fp} false positives in 100,000");
/// let copy = MultiblockBloomFilter::from_bytes(&filter.to_bytes())?;
/// assert_eq!(copy, filter);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type MultiblockBloomFilter = Engine<Multiblock, BitStore>;

/// A [`MultiblockBloomFilter`] whose every method takes `&self`: inserts from any number of
/// threads, lock-free (one `Relaxed` `fetch_or` per word whose bit is not set yet), queries
/// with the owning filter's kernel reading the line in place. The same bytes as the owning
/// filter, converted to and from it without copying.
///
/// # Examples
///
/// ```
/// use bloom_blocked::AtomicMultiblockBloomFilter;
///
/// let filter = AtomicMultiblockBloomFilter::new(20_000, 0.01)?;
/// std::thread::scope(|s| {
///     for t in 0..2u64 {
///         let filter = &filter;
///         s.spawn(move || filter.insert_all(t * 10_000..(t + 1) * 10_000));
///     }
/// });
/// assert!((0..20_000u64).all(|i| filter.contains(&i)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type AtomicMultiblockBloomFilter = Engine<Multiblock, AtomicBitStore>;

/// A read-only [`MultiblockBloomFilter`] over the bytes of its
/// [`to_bytes`](MultiblockBloomFilter::to_bytes), queried where they lie (as
/// [`BlockedBloomFilterRef`] is for the blocked layout).
///
/// # Examples
///
/// ```
/// use bloom_blocked::{MultiblockBloomFilter, MultiblockBloomFilterRef};
///
/// let mut filter = MultiblockBloomFilter::new(1000, 0.01)?;
/// filter.insert("key");
/// let bytes = filter.to_bytes();
/// let view = MultiblockBloomFilterRef::from_bytes(&bytes)?;
/// assert!(view.contains("key"));
/// assert_eq!(view.to_owned()?, filter);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type MultiblockBloomFilterRef<'a> = Engine<Multiblock, LeBits<'a>>;

/// A Bloom filter whose keys each set one bit in each of the eight 32-bit words of one
/// 256-bit block, half a cache line ([`Multiblock32`]; Boost.Bloom's `fast_multiblock32<8>`
/// has this shape). No multiplication inside the block: one 32-byte load, one variable
/// shift of the field word, one masked variable shift of the block and one `vptest` with
/// AVX2, no 512-bit register needed.
///
/// The price is memory: eight bits in a 256-bit block fill it faster than in a 512-bit one,
/// so it needs about 10.6 bits per key for 1% and 17.1 for 0.1%, 6% and 9% more than the
/// [`BlockedBloomFilter`] (and more at rates of 5% and above, where the blocked filter is
/// the better choice). Where it is faster than the 512-bit layouts depends on the CPU:
/// docs/blocked.md has the measurements. [`new`](Multiblock32BloomFilter::new) sizes it by
/// [`multiblock_fpr`](bloom_core::math::multiblock_fpr) with 32-bit words, so the rate
/// reached is the one asked for. It has every method of the blocked filter: batch queries,
/// folding (by powers of two dividing its count of lines), views
/// ([`Multiblock32BloomFilterRef`]), the atomic twin ([`AtomicMultiblock32BloomFilter`]),
/// keys and seeds, and the format (variant tag 8).
///
/// # Examples
///
/// ```
/// use bloom_blocked::Multiblock32BloomFilter;
///
/// let mut filter = Multiblock32BloomFilter::new(10_000, 0.01)?;
/// filter.insert_all(0..10_000u64);
/// // No false negatives...
/// assert!((0..10_000u64).all(|i| filter.contains(&i)));
/// // ...and about 1% false positives.
/// let fp = (10_000..110_000u64).filter(|i| filter.contains(i)).count();
/// assert!(fp < 1_150, "{fp} false positives in 100,000");
/// let copy = Multiblock32BloomFilter::from_bytes(&filter.to_bytes())?;
/// assert_eq!(copy, filter);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type Multiblock32BloomFilter = Engine<Multiblock32, BitStore>;

/// A [`Multiblock32BloomFilter`] whose every method takes `&self`: inserts from any number
/// of threads, lock-free (one `Relaxed` `fetch_or` per 64-bit word whose bits are not set
/// yet), queries with the owning filter's kernel reading the line in place. The same bytes
/// as the owning filter, converted to and from it without copying.
///
/// # Examples
///
/// ```
/// use bloom_blocked::AtomicMultiblock32BloomFilter;
///
/// let filter = AtomicMultiblock32BloomFilter::new(20_000, 0.01)?;
/// std::thread::scope(|s| {
///     for t in 0..2u64 {
///         let filter = &filter;
///         s.spawn(move || filter.insert_all(t * 10_000..(t + 1) * 10_000));
///     }
/// });
/// assert!((0..20_000u64).all(|i| filter.contains(&i)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type AtomicMultiblock32BloomFilter = Engine<Multiblock32, AtomicBitStore>;

/// A read-only [`Multiblock32BloomFilter`] over the bytes of its
/// [`to_bytes`](Multiblock32BloomFilter::to_bytes), queried where they lie (as
/// [`BlockedBloomFilterRef`] is for the blocked layout).
///
/// # Examples
///
/// ```
/// use bloom_blocked::{Multiblock32BloomFilter, Multiblock32BloomFilterRef};
///
/// let mut filter = Multiblock32BloomFilter::new(1000, 0.01)?;
/// filter.insert("key");
/// let bytes = filter.to_bytes();
/// let view = Multiblock32BloomFilterRef::from_bytes(&bytes)?;
/// assert!(view.contains("key"));
/// assert_eq!(view.to_owned()?, filter);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type Multiblock32BloomFilterRef<'a> = Engine<Multiblock32, LeBits<'a>>;

/// Apache Parquet's split-block Bloom filter (SBBF), exactly as the Parquet format specifies
/// it (parquet-format, BloomFilter.md), so Spark, DuckDB, DataFusion, Trino and the `parquet`
/// crate read what it writes and it reads what they write: the [`SplitBlock`] layout over
/// owned words.
///
/// * A value is hashed with XXH64, seed 0, over its plain encoding (little-endian `i32`,
///   `i64`, IEEE-754 `f32`/`f64`; the bytes of a byte array without their length prefix).
/// * The bitset is z blocks of eight little-endian `u32` words. The hash's high 32 bits pick
///   the block, `((h >> 32) * z) >> 32`; in word j of it the bit
///   `(low32(h) * SALT[j]) >> 27` is set (wrapping 32-bit multiplication, the spec's eight
///   salts).
///
/// The bitset alone is [`bitset_bytes`](SplitBlockBloomFilter::bitset_bytes); with
/// Parquet's Thrift `BloomFilterHeader` in front, as stored in a file, it is
/// [`to_parquet_bytes`](SplitBlockBloomFilter::to_parquet_bytes). [`to_bytes`](
/// SplitBlockBloomFilter::to_bytes) is the workspace's own checksummed format (hash scheme
/// Parquet's, seed 0). Parquet fixes the hash, so the filter has no seed and no key.
///
/// Generic keys (`insert(&key)` with `T: Hash`) are hashed over the bytes `Hash` writes, which
/// for integers is their plain encoding (`insert(&5i64)` equals `insert_i64(5)`), but for
/// strings and byte slices adds a length or terminator: use
/// [`insert_bytes`](SplitBlockBloomFilter::insert_bytes) for Parquet's byte arrays.
///
/// Unlike the workspace's other filters, this one hashes each integer type at its own width,
/// because Parquet does: an `INT32` column's filter holds 4-byte values and readers probe it
/// with 4-byte values. So `contains(&5)` (an `i32`) does not find a key inserted as `5i64`;
/// write the width of the column (`5i64`, or
/// [`contains_i64`](SplitBlockBloomFilter::contains_i64)).
///
/// Its methods are the engine's ([`Engine`]), shared with every fixed-size filter, and those
/// of the engine for a layout hashed as Parquet hashes (values by their plain encoding,
/// Parquet's sizes and bytes). [`AtomicSplitBlockBloomFilter`] is its lock-free twin,
/// [`SplitBlockBloomFilterRef`] its view.
///
/// # Examples
///
/// ```
/// use bloom_blocked::SplitBlockBloomFilter;
///
/// let mut filter = SplitBlockBloomFilter::new(10_000, 0.01)?;
/// for i in 0..10_000i64 {
///     filter.insert_i64(i);
/// }
/// filter.insert_bytes(b"hello");
/// assert!((0..10_000i64).all(|i| filter.contains_i64(i)) && filter.contains_bytes(b"hello"));
/// let fp = (10_000..110_000i64).filter(|&i| filter.contains_i64(i)).count();
/// assert!(fp < 1_000, "{fp} false positives in 100,000");
/// let parquet = filter.to_parquet_bytes();
/// assert_eq!(SplitBlockBloomFilter::from_parquet_bytes(&parquet)?, filter);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type SplitBlockBloomFilter = Engine<SplitBlock, BitStore>;

/// A [`SplitBlockBloomFilter`] whose every method takes `&self` (`insert_i64` and the other
/// inserts by value too): inserts from any number of threads, lock-free (one `Relaxed`
/// `fetch_or` per 64-bit word whose bits are not set yet), queries with the owning filter's
/// kernel reading the block in place. The same bytes as the owning filter, converted to and
/// from it without copying: threads of a Parquet writer can fill one column chunk's filter
/// together.
///
/// # Examples
///
/// ```
/// use bloom_blocked::AtomicSplitBlockBloomFilter;
///
/// let filter = AtomicSplitBlockBloomFilter::new(20_000, 0.01)?;
/// std::thread::scope(|s| {
///     for t in 0..2i64 {
///         let filter = &filter;
///         s.spawn(move || {
///             for v in t * 10_000..(t + 1) * 10_000 {
///                 filter.insert_i64(v);
///             }
///         });
///     }
/// });
/// assert!((0..20_000i64).all(|v| filter.contains_i64(v)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type AtomicSplitBlockBloomFilter = Engine<SplitBlock, AtomicBitStore>;

/// A read-only [`SplitBlockBloomFilter`] over the bytes of its
/// [`to_bytes`](SplitBlockBloomFilter::to_bytes), queried where they lie: opening reads the
/// header and the bitset's last word. It answers as the owning filter would, with the same
/// kernels and batch engine, at any address (the kernels read a block's 32 bytes
/// unaligned). [`verify`](SplitBlockBloomFilterRef::verify) checks the checksum, which
/// opening skips.
///
/// # Examples
///
/// ```
/// use bloom_blocked::{SplitBlockBloomFilter, SplitBlockBloomFilterRef};
///
/// let mut filter = SplitBlockBloomFilter::new(10_000, 0.01)?;
/// filter.insert_all(0..10_000i64);
/// let bytes = filter.to_bytes();
/// let view = SplitBlockBloomFilterRef::from_bytes(&bytes)?;
/// view.verify()?;
/// assert!((0..10_000i64).all(|i| view.contains(&i)));
/// let fp = (10_000..110_000i64).filter(|i| view.contains(i)).count();
/// assert!(fp < 1_000, "{fp} false positives in 100,000");
/// assert!(view.contains_bytes(&5i64.to_le_bytes()));
/// assert_eq!(view.to_owned()?, filter);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type SplitBlockBloomFilterRef<'a> = Engine<SplitBlock, LeBits<'a>>;
