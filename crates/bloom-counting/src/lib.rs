//! A counting Bloom filter: a Bloom filter that can forget keys, without ever producing a
//! false negative for a key it still holds.
//!
//! [`CountingBloomFilter`] keeps a 4-bit counter where a classic Bloom filter keeps a bit.
//! Inserting a key increments its k counters, removing it decrements them, and a key is
//! reported present while all its counters are non-zero. Counters saturate at 15 and then
//! stick (they are never decremented again), so an overflow can only make the filter keep a
//! key longer than it should, never lose one.
//!
//! It uses the same hashing and the same k positions as
//! [`bloom_classic::BloomFilter`] of the same size, probe count and seed, so holding the
//! same keys it answers exactly as that filter does, and
//! [`to_bloom_filter`](CountingBloomFilter::to_bloom_filter) turns it into one.
//!
//! # Example
//!
//! ```
//! use bloom_counting::{CountingBloomFilter, Error, Removed};
//!
//! // Which sessions are open right now, in front of a slow session store.
//! let mut open = CountingBloomFilter::new(100_000, 0.01)?;
//! open.insert("session-1");
//! open.insert("session-2");
//! assert_eq!(open.remove("session-1")?, Removed::Decremented);
//! assert!(!open.contains("session-1"));
//! assert!(open.contains("session-2"));
//! // Removing what is certainly not there is an error, and changes nothing.
//! assert_eq!(open.remove("session-9"), Err(Error::NotPresent));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # When to choose it
//!
//! Choose it over the classic filter when keys leave the set: cache contents, open sessions,
//! a sliding window. It costs four times the memory of a classic filter at the same
//! false-positive rate (4 bits per counter: about 4.8 bytes per key at 1%, against 1.2) and
//! its false-positive rate is the classic one for the keys currently in it. When keys never
//! leave, use `bloom_classic::BloomFilter`; when readers only need membership, ship them
//! [`to_bloom_filter`](CountingBloomFilter::to_bloom_filter)'s quarter-size copy.
//!
//! # Overflow
//!
//! With the optimal number of probes, the probability that any of m counters ever exceeds 15
//! is at most `m (e ln 2 / 16)^16`, about `1.37e-15 m` (Fan, Cao, Almeida, Broder, "Summary
//! Cache: A Scalable Wide-Area Web Cache Sharing Protocol", IEEE/ACM ToN 2000): for a
//! filter of a billion counters, about one in a million. Counters saturate in practice for
//! another reason: a key inserted 15 times or more saturates its own counters. Those then
//! stick, so that key stays "present" for good, and the other keys probing those counters
//! keep one probe answered. Removing such a key returns [`Removed::Saturated`] rather than
//! [`Removed::Decremented`], and [`saturated_counters`](CountingBloomFilter::saturated_counters)
//! reports how many counters are stuck; `docs/counting.md` has the details.
//!
//! # Sizes
//!
//! As everywhere in the workspace: counts of keys and counters are `u64` (`new(expected_items:
//! u64, ..)`, `with_params(num_counters: u64, ..)`, `num_counters`, `saturated_counters`,
//! `nonzero_counters`, `estimated_len`), bytes of memory are `usize` (`memory_usage`),
//! `num_hashes` is `u32`.
//!
//! # Crate features
//!
//! * `rayon`: parallel bulk build, `CountingBloomFilter::par_insert_all`, `ParallelExtend`
//!   and `FromParallelIterator`.
//! * `serde`: `Serialize` and `Deserialize`, as the bytes of `to_bytes`.

mod counters;
mod counting;
mod params;
mod removed;

pub use bloom_classic::BloomFilter;
pub use bloom_core::{Error, Filter, Persist, PersistIo};
pub use counters::{MAX_COUNT, MAX_NUM_COUNTERS};
pub use counting::CountingBloomFilter;
pub use removed::Removed;
