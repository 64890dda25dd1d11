//! The counter array: 4-bit counters, sixteen to a `u64` word.
//!
//! Counter `i` lives in word `i / 16`, in bits `4 (i % 16)` to `4 (i % 16) + 3` (counter 0 is
//! the least significant nibble). Written as little-endian words, which is also the payload of
//! the binary format, counter `i` is byte `i / 2`, low nibble when `i` is even.
//!
//! Whole-array operations (counting non-zero and saturated counters, the saturating union,
//! the conversion to a bit array) work on sixteen counters at a time with word arithmetic
//! ("SIMD within a register"); each is checked against a counter-by-counter loop in the tests.

use bloom_core::Error;
use bloom_core::bits::{BitStore, Words};
use bloom_core::internal::batch::ProbeSet;
use bloom_core::internal::{Probes, check_count};
use bloom_core::math::MAX_NUM_BITS;

/// The value at which a counter saturates and sticks: the largest a 4-bit counter holds.
pub const MAX_COUNT: u8 = 15;

/// The most counters a filter may have: 2^38, so that the counters (4 bits each) stay within
/// the workspace's size limit of [`MAX_NUM_BITS`] bits (128 GiB).
pub const MAX_NUM_COUNTERS: u64 = MAX_NUM_BITS / 4;

/// Bit 0 of every nibble.
const NIBBLE_LOW_BITS: u64 = 0x1111_1111_1111_1111;

/// The word holding counter `pos`.
#[inline(always)]
pub(crate) fn word_index(pos: u64) -> usize {
    (pos >> 4) as usize
}

/// The shift of counter `pos` within its word.
#[inline(always)]
pub(crate) fn nibble_shift(pos: u64) -> u32 {
    ((pos & 15) << 2) as u32
}

/// The value of counter `pos`.
///
/// # Panics
///
/// If `pos / 16` is not a valid index of `words`.
#[inline(always)]
pub(crate) fn counter(words: &[u64], pos: u64) -> u64 {
    (words[word_index(pos)] >> nibble_shift(pos)) & 15
}

/// Adds 1 to the counter at bit `shift` of `word` unless it is saturated (15), without a
/// branch; returns its value before.
#[inline(always)]
pub(crate) fn saturating_increment(word: &mut u64, shift: u32) -> u64 {
    let count = (*word >> shift) & 15;
    *word += u64::from(count != 15) << shift;
    count
}

/// Bit `4j` of the result is set where counter `j` of `word` is non-zero.
#[inline(always)]
pub(crate) fn nonzero_nibbles(word: u64) -> u64 {
    // Shifting by 1 to 3 brings the upper bits of each nibble down to its bit 0; bits that
    // cross into the nibble below land on bits 1 to 3, which the mask drops.
    (word | (word >> 1) | (word >> 2) | (word >> 3)) & NIBBLE_LOW_BITS
}

/// Bit `4j` of the result is set where counter `j` of `word` is saturated (15).
#[inline(always)]
pub(crate) fn saturated_nibbles(word: u64) -> u64 {
    word & (word >> 1) & (word >> 2) & (word >> 3) & NIBBLE_LOW_BITS
}

/// The sixteen counters of `a` plus those of `b`, each saturating at 15.
#[inline]
pub(crate) fn saturating_add_nibbles(a: u64, b: u64) -> u64 {
    const LOW_NIBBLES: u64 = 0x0F0F_0F0F_0F0F_0F0F;
    const CARRIES: u64 = 0x1010_1010_1010_1010;
    // Add the even and the odd nibbles separately, each widened to a byte: a sum of two
    // nibbles is at most 30, so it fits its byte and never carries into the next; bit 4 of
    // the byte says the sum reached 16. Where it did, OR-ing 15 into the byte makes its low
    // nibble 15 (saturation), and the mask drops bit 4.
    let lane_sum = |x: u64, y: u64| {
        let sum = x + y;
        let overflow = ((sum & CARRIES) >> 4) * 15;
        (sum | overflow) & LOW_NIBBLES
    };
    let even = lane_sum(a & LOW_NIBBLES, b & LOW_NIBBLES);
    let odd = lane_sum((a >> 4) & LOW_NIBBLES, (b >> 4) & LOW_NIBBLES);
    even | (odd << 4)
}

/// Gathers bit `4j` of `flags` (j = 0..16) into bit j of the result; the other bits of
/// `flags` must be zero.
#[inline]
pub(crate) fn gather_nibble_flags(flags: u64) -> u64 {
    // Each step halves the spacing of the flags, folding every lane's upper half onto its
    // lower half: spacing 4 -> 2 bits (bytes), 2 -> 1 (16-bit lanes), then whole bytes and
    // 16-bit groups.
    let x = (flags | (flags >> 3)) & 0x0303_0303_0303_0303;
    let x = (x | (x >> 6)) & 0x000F_000F_000F_000F;
    let x = (x | (x >> 12)) & 0x0000_00FF_0000_00FF;
    (x | (x >> 24)) & 0xFFFF
}

/// Checks a number of counters: 1 to [`MAX_NUM_COUNTERS`].
///
/// # Errors
///
/// [`Error::InvalidParameter`] for 0, [`Error::TooLarge`] above the maximum (reported in
/// bits of counter memory, 4 per counter).
pub(crate) fn check_num_counters(num_counters: u64) -> Result<(), Error> {
    check_count("num_counters", num_counters)?;
    if num_counters > MAX_NUM_COUNTERS {
        return Err(too_large(num_counters));
    }
    Ok(())
}

/// The error for more counters than fit, in bits of counter memory (4 per counter).
fn too_large(num_counters: u64) -> Error {
    Error::TooLarge {
        requested_bits: num_counters as f64 * 4.0,
        max_bits: MAX_NUM_BITS,
    }
}

/// Words needed for `num_counters` counters, checked against the address space.
fn words_for(num_counters: u64) -> Result<usize, Error> {
    usize::try_from(num_counters.div_ceil(16))
        .ok()
        .filter(|words| words.checked_mul(8).is_some())
        .ok_or_else(|| too_large(num_counters))
}

/// Checks that a payload of `len` bytes holds the words of `num_counters` counters exactly.
fn check_payload(num_counters: u64, len: u64) -> Result<(), Error> {
    check_num_counters(num_counters)?;
    let expected = words_for(num_counters)? as u64 * 8;
    if len != expected {
        return Err(Error::corrupt(format!(
            "{len} payload bytes for {num_counters} counters, {expected} expected"
        )));
    }
    Ok(())
}

/// A fixed-size array of 4-bit counters. Counters past `len()` in the last word are always
/// zero; every constructor checks it, and the filter only touches counters below `len()`.
///
/// The words are the core's [`Words`]: lazily zeroed, aligned, fallible, advised for huge
/// pages, and cleared for free while never written.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Counters {
    words: Words<u64>,
    len: u64,
}

/// The counters' summary, as a bit store's Debug gives its length and set bits: how many
/// are in use and how many have saturated (each print reads every counter).
impl std::fmt::Debug for Counters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Counters")
            .field("len", &self.len)
            .field("nonzero", &self.count_nonzero())
            .field("saturated", &self.count_saturated())
            .finish()
    }
}

impl Counters {
    /// `num_counters` zero counters.
    pub(crate) fn new(num_counters: u64) -> Result<Self, Error> {
        check_num_counters(num_counters)?;
        Self::from_words(Words::zeroed(words_for(num_counters)?)?, num_counters)
    }

    /// Reads `num_counters` counters from little-endian words. Allocates only after checking
    /// the length, so at most `bytes.len()` bytes.
    pub(crate) fn from_le_bytes(bytes: &[u8], num_counters: u64) -> Result<Self, Error> {
        check_payload(num_counters, bytes.len() as u64)?;
        Self::from_words(Words::from_le_bytes(bytes)?, num_counters)
    }

    /// `num_counters` counters held in `words` (as [`Counters::from_le_bytes`] reads them):
    /// an error unless there are exactly as many words as they need and no counter is set
    /// past the last.
    pub(crate) fn from_words(v: Words<u64>, num_counters: u64) -> Result<Self, Error> {
        check_payload(num_counters, v.len() as u64 * 8)?;
        // No counter may be set past the last; a full last word has no such bits (and a
        // shift by 64 would overflow).
        let tail_shift = 4 * (num_counters % 16);
        if tail_shift != 0 && v.as_slice().last().is_some_and(|&w| w >> tail_shift != 0) {
            return Err(Error::corrupt(format!(
                "counters set beyond the end ({num_counters} counters)"
            )));
        }
        Ok(Counters {
            words: v,
            len: num_counters,
        })
    }

    /// The raw words.
    #[inline(always)]
    pub(crate) fn words(&self) -> &[u64] {
        self.words.as_slice()
    }

    /// The raw words, mutable. Callers keep the counters past `len()` zero.
    #[inline(always)]
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        self.words.as_mut_slice()
    }

    /// The value of counter `index`, or `None` past the end.
    pub(crate) fn get(&self, index: u64) -> Option<u8> {
        (index < self.len).then(|| counter(self.words(), index) as u8)
    }

    /// The number of non-zero counters.
    pub(crate) fn count_nonzero(&self) -> u64 {
        self.words()
            .iter()
            .map(|&w| u64::from(nonzero_nibbles(w).count_ones()))
            .sum()
    }

    /// The number of saturated counters.
    pub(crate) fn count_saturated(&self) -> u64 {
        self.words()
            .iter()
            .map(|&w| u64::from(saturated_nibbles(w).count_ones()))
            .sum()
    }

    /// Sets every counter to zero; an array never written is not touched.
    pub(crate) fn clear(&mut self) {
        self.words.clear();
    }

    /// Adds `other`'s counters to these, each saturating at 15 (the lengths must agree: the
    /// filter checks its parameters first).
    pub(crate) fn saturating_add(&mut self, other: &Counters) {
        debug_assert_eq!(self.len, other.len);
        for (a, &b) in self.words.as_mut_slice().iter_mut().zip(other.words()) {
            *a = saturating_add_nibbles(*a, b);
        }
    }

    /// A bit array of the same length with bit `i` set where counter `i` is non-zero.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfMemory`] when the allocator refuses the bit array.
    pub(crate) fn to_bit_store(&self) -> Result<BitStore, Error> {
        let mut bits = BitStore::new(self.len)?;
        // Four counter words (64 counters) make one bit word.
        for (bit_word, quad) in bits.as_words_mut().iter_mut().zip(self.words().chunks(4)) {
            *bit_word = quad.iter().enumerate().fold(0, |acc, (j, &w)| {
                acc | (gather_nibble_flags(nonzero_nibbles(w)) << (16 * j))
            });
        }
        Ok(bits)
    }

    /// Bytes of heap held by the words.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.words.heap_bytes()
    }

    /// Bytes of [`Counters::write_le_bytes`]'s output.
    pub(crate) fn le_bytes_len(&self) -> u64 {
        self.words.len() as u64 * 8
    }

    /// Puts the words, little-endian, into `out` (`to_bytes` and `write_to`).
    pub(crate) fn write_le_bytes(&self, out: &mut bloom_core::internal::Sink<'_>) {
        out.put_words(self.words().iter().copied());
    }
}

/// The counters as the batch engine sees them: a position is set when its counter is
/// non-zero. The probes are taken in pairs (`Probes::all_pairs`), as the classic filter's
/// are: one step of the sequence per two counters, and no per-probe state.
impl ProbeSet for Counters {
    #[inline(always)]
    fn all_set(&self, probes: Probes) -> bool {
        let words = self.in_range(&probes);
        probes.all_pairs(|p, q| (nibble(words, p) != 0) & (nibble(words, q) != 0))
    }

    #[inline(always)]
    fn prefetch(&self, probes: Probes) {
        let words = self.words();
        for pos in probes {
            bloom_core::internal::prefetch(&words[word_index(pos)]);
        }
    }

    #[inline(always)]
    fn footprint(&self) -> usize {
        self.words().len() * 8
    }

    /// The direct loop runs on cached counters, where testing all of a key's counters costs
    /// less than mispredicted early exits.
    #[inline(always)]
    fn contains_now(&self, probes: Probes) -> bool {
        let words = self.in_range(&probes);
        let mut all = true;
        probes.all_pairs(|p, q| {
            all &= (nibble(words, p) != 0) & (nibble(words, q) != 0);
            true
        });
        all
    }
}

impl Counters {
    /// The words, once `probes` is known to stay within the counters: what lets
    /// [`nibble`] read without a bounds check per probe.
    ///
    /// # Panics
    ///
    /// If `probes` range over more positions than there are counters.
    #[inline(always)]
    fn in_range(&self, probes: &Probes) -> &[u64] {
        assert!(probes.range() <= self.len, "probes beyond the counters");
        self.words()
    }

    /// Calls `change(word, shift)` for each of `probes`' positions in order, with the word
    /// that holds its counter and the counter's shift in it, until `change` returns false;
    /// returns how many positions it was called for. The sequence is stepped a pair at a
    /// time, as the tests above step it, and a position that occurs twice is changed twice
    /// (an update, unlike a test, must not repeat an odd count's lone last probe).
    ///
    /// # Panics
    ///
    /// If `probes` range over more positions than there are counters.
    #[inline(always)]
    pub(crate) fn each_counter(
        &mut self,
        probes: Probes,
        mut change: impl FnMut(&mut u64, u32) -> bool,
    ) -> u32 {
        assert!(probes.range() <= self.len, "probes beyond the counters");
        let count = probes.len() as u32;
        let words = self.words_mut();
        let mut one = |pos: u64, taken: &mut u32| {
            debug_assert!(word_index(pos) < words.len());
            // SAFETY: `pos` is below the probes' range, checked above to be at most the
            // counters' count, so word `pos / 16` exists (`words_for`).
            let word = unsafe { words.get_unchecked_mut(word_index(pos)) };
            *taken += 1;
            change(word, nibble_shift(pos))
        };
        let mut taken = 0;
        probes.all_pairs(|p, q| one(p, &mut taken) && (taken == count || one(q, &mut taken)));
        taken
    }
}

/// Counter `pos` of `words`, which hold at least `pos + 1` counters (a position below the
/// range of probes that [`Counters::in_range`] checked).
#[inline(always)]
fn nibble(words: &[u64], pos: u64) -> u64 {
    debug_assert!(word_index(pos) < words.len());
    // SAFETY: the caller's probes range over at most the counters' count (checked by
    // `in_range`), so `pos` is below it and word `pos / 16` exists (`words_for`).
    unsafe { (*words.get_unchecked(word_index(pos)) >> nibble_shift(pos)) & 15 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn nibbles(w: u64) -> [u64; 16] {
        std::array::from_fn(|j| (w >> (4 * j)) & 15)
    }

    proptest! {
        #[test]
        fn word_operations_match_a_counter_loop(a in any::<u64>(), b in any::<u64>()) {
            let (na, nb) = (nibbles(a), nibbles(b));
            let nonzero = nonzero_nibbles(a);
            let saturated = saturated_nibbles(a);
            let sum = nibbles(saturating_add_nibbles(a, b));
            let gathered = gather_nibble_flags(nonzero);
            for j in 0..16 {
                prop_assert_eq!((nonzero >> (4 * j)) & 15, u64::from(na[j] != 0));
                prop_assert_eq!((saturated >> (4 * j)) & 15, u64::from(na[j] == 15));
                prop_assert_eq!(sum[j], (na[j] + nb[j]).min(15));
                prop_assert_eq!((gathered >> j) & 1, u64::from(na[j] != 0));
            }
            prop_assert_eq!(gathered >> 16, 0);
        }
    }

    #[test]
    fn word_operations_on_edge_values() {
        for (a, b) in [
            (0, 0),
            (u64::MAX, u64::MAX),
            (u64::MAX, 0),
            (0x8888, 0x8888),
        ] {
            let sum = nibbles(saturating_add_nibbles(a, b));
            for (j, s) in sum.iter().enumerate() {
                assert_eq!(*s, (nibbles(a)[j] + nibbles(b)[j]).min(15));
            }
        }
        assert_eq!(gather_nibble_flags(NIBBLE_LOW_BITS), 0xFFFF);
        assert_eq!(gather_nibble_flags(1 << 60), 1 << 15);
    }

    #[test]
    fn layout_and_tail_checks() {
        let mut c = Counters::new(20).unwrap();
        assert_eq!(c.words().len(), 2);
        c.words_mut()[1] = 0x3 << 12; // counter 19
        assert_eq!(c.get(19), Some(3));
        assert_eq!(c.get(20), None);
        let mut sink = bloom_core::internal::Sink::in_memory(0);
        c.write_le_bytes(&mut sink);
        let bytes = sink.into_vec();
        assert_eq!(bytes.len() as u64, c.le_bytes_len());
        // Counter 19 is the high nibble of byte 9.
        assert_eq!(bytes[9], 0x30);
        assert_eq!(Counters::from_le_bytes(&bytes, 20).unwrap(), c);
        assert!(Counters::from_le_bytes(&bytes, 19).is_err());
        assert!(Counters::from_le_bytes(&bytes[..15], 20).is_err());
        assert!(Counters::from_le_bytes(&bytes, 33).is_err());
        assert!(Counters::new(0).is_err());
        assert!(matches!(
            Counters::new(MAX_NUM_COUNTERS + 1),
            Err(Error::TooLarge { .. })
        ));
    }

    /// Both tests of the batch engine answer as the definition (every probed counter
    /// non-zero), for every probe count (odd ones end in a lone probe) and sizes that end in
    /// a partial word; probes over more positions than the counters panic.
    #[test]
    fn probe_tests_answer_as_the_definition() {
        let mut x = 3u64;
        let mut next = || {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1442695040888963407);
            x
        };
        for len in [1u64, 17, 1000, 4099] {
            let mut c = Counters::new(len).unwrap();
            for i in 0..len {
                // About one counter in five zero, so that keys both pass and fail.
                let value = [0, 1, 2, 7, 15][(next() >> 60) as usize % 5];
                c.words_mut()[word_index(i)] |= value << nibble_shift(i);
            }
            for k in 1..=9 {
                for _ in 0..200 {
                    let hash = u128::from(next()) << 64 | u128::from(next());
                    let probes = Probes::new(hash, k, len);
                    let expected = probes.clone().all(|pos| c.get(pos) != Some(0));
                    assert_eq!(c.all_set(probes.clone()), expected, "len {len} k {k}");
                    assert_eq!(c.contains_now(probes.clone()), expected, "len {len} k {k}");
                    // `each_counter` visits every position once, in order, and stops when
                    // asked to.
                    let mut visited = Vec::new();
                    let taken = c.each_counter(probes.clone(), |word, shift| {
                        visited.push((word as *const u64, shift));
                        true
                    });
                    let words = c.words().as_ptr();
                    let positions: Vec<_> = probes
                        .clone()
                        .map(|pos| (words.wrapping_add(word_index(pos)), nibble_shift(pos)))
                        .collect();
                    assert_eq!((taken, &visited), (k, &positions), "len {len} k {k}");
                    let stop = (next() % u64::from(k)) as u32 + 1;
                    let mut calls = 0;
                    let taken = c.each_counter(probes, |_, _| {
                        calls += 1;
                        calls < stop
                    });
                    assert_eq!((taken, calls), (stop, stop), "len {len} k {k}");
                }
            }
        }
        let c = Counters::new(16).unwrap();
        let beyond = Probes::new(7, 3, 17);
        let result = std::panic::catch_unwind(|| c.contains_now(beyond));
        assert!(result.is_err(), "probes beyond the counters must panic");
    }

    #[test]
    fn counts_and_bit_store_match_a_counter_loop() {
        for len in [1u64, 15, 16, 17, 63, 64, 65, 200, 1000] {
            let mut c = Counters::new(len).unwrap();
            let mut x = len;
            for i in 0..len {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let value = [0, 0, 1, 7, 15][(x >> 60) as usize % 5];
                c.words_mut()[word_index(i)] |= value << nibble_shift(i);
            }
            let values: Vec<u8> = (0..len).map(|i| c.get(i).unwrap()).collect();
            assert_eq!(
                c.count_nonzero(),
                values.iter().filter(|&&v| v != 0).count() as u64
            );
            assert_eq!(
                c.count_saturated(),
                values.iter().filter(|&&v| v == 15).count() as u64
            );
            let bits = c.to_bit_store().unwrap();
            assert_eq!(bits.len(), len);
            for (i, &v) in values.iter().enumerate() {
                assert_eq!(bits.get(i as u64), v != 0, "len {len} counter {i}");
            }
            let mut doubled = c.clone();
            doubled.saturating_add(&c);
            for (i, &v) in values.iter().enumerate() {
                assert_eq!(doubled.get(i as u64), Some((2 * v).min(15)));
            }
            doubled.clear();
            assert_eq!(doubled.count_nonzero(), 0);
            // The words, and the seven words of slack that align them to a cache line.
            assert_eq!(c.heap_bytes(), len.div_ceil(16) as usize * 8 + 56);
        }
    }
}
