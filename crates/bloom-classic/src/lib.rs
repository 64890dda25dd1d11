//! The classic Bloom filter, and its lock-free atomic twin.
//!
//! A Bloom filter answers "is this key in the set?" with "definitely not" or "possibly",
//! in a few bits per key: about 9.6 bits for a 1% false-positive rate, 14.4 for 0.1%. It
//! never forgets a key. Put it in front of something expensive (a disk read, a database
//! round trip, a download) to skip the work for keys that are certainly absent.
//!
//! * [`BloomFilter`]: `num_bits` bits, each key setting `num_hashes` of them anywhere: the
//!   most accurate Bloom filter per bit. Single writer (`&mut self` inserts).
//! * [`AtomicBloomFilter`]: the same filter with `&self` inserts, lock-free and
//!   `Send + Sync`, for sharing between threads.
//! * [`BloomFilterRef`]: a read-only view of a filter's bytes (a memory-mapped file),
//!   queried in place without copying them; it opens in O(1).
//!
//! Both hash every key once (the seeded hash, [`bloom_core::hash`]), derive all probe
//! positions from that hash, and share the workspace's binary format, [`Error`] type and
//! traits: [`Filter`], [`Persist`] and, with `std`, [`PersistIo`].
//!
//! # Example
//!
//! ```
//! use bloom_classic::BloomFilter;
//!
//! let mut seen = BloomFilter::new(1_000_000, 0.01)?;
//! for url in ["https://a.example/", "https://b.example/", "https://a.example/"] {
//!     if seen.insert(url) {
//!         println!("probably crawled already: {url}");
//!     }
//! }
//! assert!(seen.contains("https://b.example/"));
//! let copy = BloomFilter::from_bytes(&seen.to_bytes())?;
//! assert_eq!(copy, seen);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Choosing the seed, or a key
//!
//! All filters use [`DEFAULT_SEED`](bloom_core::hash::DEFAULT_SEED) unless given another
//! with `with_seed`, so filters built anywhere can be merged with `union`. When keys come
//! from an adversary, or the filter's bytes are published, hash under a secret key
//! (`with_key`, `with_random_key`, methods of [`Keyed`](bloom_core::Keyed)): SipHash-1-3 instead of the seeded hash, so nobody without the
//! key can craft keys that share bits, find false positives offline, or test keys against
//! the bytes. The bytes keep only the key's fingerprint; `docs/security.md` has the threats
//! and the cost.
//!
//! ```
//! use bloom_classic::BloomFilter;
//! use bloom_core::{Error, Keyed};
//!
//! let key = *b"0123456789abcdef"; // in practice, from a secret store
//! let mut seen = BloomFilter::new(10_000, 0.01)?.with_key(key);
//! seen.insert("https://example.com/");
//! let bytes = seen.to_bytes();
//! assert_eq!(BloomFilter::from_bytes(&bytes), Err(Error::KeyRequired));
//! let loaded = BloomFilter::from_bytes_with_key(&bytes, &key)?;
//! assert!(loaded.contains("https://example.com/"));
//! # Ok::<(), Error>(())
//! ```
//!
//! # Sizes
//!
//! As everywhere in the workspace: counts of keys and bits are `u64` (`new(expected_items:
//! u64, ..)`, `with_params(num_bits: u64, ..)`, `num_bits`, `count_ones`, `estimated_len`),
//! bytes of memory are `usize` (`memory_usage`), `num_hashes` is `u32`. A filter sized from a
//! slice takes `keys.len() as u64`, lossless on every target.
//!
//! # Crate features
//!
//! * `std` (default): the standard library, passed to `bloom-core`. Without it the crate is
//!   `#![no_std]` + `alloc` and has everything but what needs an operating system:
//!   `write_to`, `read_from` and `read_from_with_key` (streams, and [`PersistIo`]),
//!   `with_random_seed` and `with_random_key` (its randomness), and huge pages for large
//!   arrays.
//! * `rayon`: parallel bulk build, `BloomFilter::par_insert_all`, `ParallelExtend` and
//!   `FromParallelIterator`, and `AtomicBloomFilter::par_insert_all`. Turns on `std`.
//! * `serde`: `Serialize` and `Deserialize`, as the bytes of `to_bytes`; with or without
//!   `std`.
//!
//! [`Filter`]: bloom_core::Filter
//! [`Error`]: bloom_core::Error

#![cfg_attr(not(any(feature = "std", test)), no_std)]
// The docs link the items that need `std` (streams, random seeds); without it they have no
// target, and that is expected rather than a mistake in the docs.
#![cfg_attr(not(feature = "std"), allow(rustdoc::broken_intra_doc_links))]

extern crate alloc;

mod layout;
#[cfg(test)]
mod tests;

use bloom_core::engine::{AtomicBitStore, BitStore, Engine, LeBits};

#[cfg(feature = "std")]
pub use bloom_core::PersistIo;
pub use bloom_core::engine::DEFAULT_FPR;
pub use bloom_core::{Error, Filter, Persist};
pub use layout::Classic;

/// A classic Bloom filter: `num_bits` bits, each key setting `num_hashes` of them anywhere in
/// the array.
///
/// It answers "definitely not present" or "possibly present", never forgets a key, and is
/// as accurate per bit as a Bloom filter can be (every probe may land anywhere, unlike a
/// blocked filter). The cost is up to k cache misses per query on large filters; the batch
/// query [`contains_batch`](BloomFilter::contains_batch) overlaps them.
///
/// For a filter shared between threads, see [`AtomicBloomFilter`]; the two convert into
/// each other.
///
/// # Examples
///
/// ```
/// use bloom_classic::BloomFilter;
///
/// let mut filter = BloomFilter::new(10_000, 0.01)?;
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
/// It is the [`Classic`] layout over owned words: its methods are the engine's
/// ([`Engine`]), shared with every fixed-size filter.
pub type BloomFilter = Engine<Classic, BitStore>;

/// A classic Bloom filter whose every method takes `&self`: it can be shared between threads
/// (it is `Send + Sync`) and inserted into concurrently without a lock.
///
/// Each probe is one `AtomicU64::fetch_or` (insert) or `load` (query), all with `Relaxed`
/// ordering. That is enough for a Bloom filter: bits only go from 0 to 1 and nothing else is
/// published through them, so a key is found by every query that starts after its insert
/// returned (and the threads synchronised, by a join, a channel, or a lock), and a concurrent
/// query may see some of its bits or all of them. It answers exactly like a [`BloomFilter`]
/// holding the same keys, has the same binary format, and converts to and from one.
///
/// # Examples
///
/// ```
/// use bloom_classic::AtomicBloomFilter;
///
/// let filter = AtomicBloomFilter::new(40_000, 0.01)?;
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
/// It is the [`Classic`] layout over atomic words.
pub type AtomicBloomFilter = Engine<Classic, AtomicBitStore>;

/// A read-only [`BloomFilter`] over the bytes of its [`to_bytes`](BloomFilter::to_bytes) (a
/// memory-mapped file, a page of a block cache), queried where they lie: opening reads the
/// header and the bit array's last word (whose bits past the end must be clear), so it costs
/// the same for a kilobyte and a gigabyte.
///
/// It answers [`contains`](BloomFilterRef::contains), [`contains_hash`](BloomFilterRef::contains_hash)
/// and [`contains_batch`](BloomFilterRef::contains_batch) exactly as the owning filter would.
/// The bytes may start at any address: bit `p` is read as bit `p % 64` of the little-endian word
/// `p / 64` of the payload, so no alignment and no byte order is assumed.
///
/// Opening does not read the checksum (it would read every byte):
/// [`verify`](BloomFilterRef::verify) does, when the caller wants it;
/// [`to_owned`](BloomFilterRef::to_owned) copies into a [`BloomFilter`], checksum included.
///
/// # Examples
///
/// ```
/// use bloom_classic::{BloomFilter, BloomFilterRef};
/// use bloom_core::Keyed;
///
/// let mut filter = BloomFilter::new(10_000, 0.01)?;
/// filter.insert_all(0..10_000u64);
/// let bytes = filter.to_bytes();
/// let view = BloomFilterRef::from_bytes(&bytes)?;
/// view.verify()?;
/// // No false negatives...
/// assert!((0..10_000u64).all(|i| view.contains(&i)));
/// // ...about 1% false positives, the owning filter's answers exactly.
/// let fp = (10_000..110_000u64).filter(|i| view.contains(i)).count();
/// assert!(fp < 1_150, "{fp} false positives in 100,000");
/// assert!((10_000..20_000u64).all(|i| view.contains(&i) == filter.contains(&i)));
/// assert_eq!(view.to_owned()?, filter);
///
/// // A keyed filter's bytes open with its key only.
/// let key = *b"0123456789abcdef";
/// let mut keyed = BloomFilter::new(1000, 0.01)?.with_key(key);
/// keyed.insert("secret");
/// let bytes = keyed.to_bytes();
/// assert!(BloomFilterRef::from_bytes(&bytes).is_err());
/// assert!(BloomFilterRef::from_bytes_with_key(&bytes, &key)?.contains("secret"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// It is the [`Classic`] layout over the borrowed bytes.
pub type BloomFilterRef<'a> = Engine<Classic, LeBits<'a>>;
