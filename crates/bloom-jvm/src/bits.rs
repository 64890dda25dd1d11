//! The bit array both JVM filters keep: whole 64-bit words, bit `i` at bit `i % 64` of word
//! `i / 64` (after Spark's `BitArray.java` and Guava's `LockFreeBitArray` in
//! `BloomFilterStrategies.java`; the two agree), with the count of set bits kept current.

use bloom_core::Error;
use bloom_core::internal::caches::l2_cache_bytes;
use bloom_core::internal::{advise_huge_pages, check_count};

use crate::fastmod::FastMod;

/// The most words either format's `int` length field can hold.
pub(crate) const MAX_WORDS: u64 = i32::MAX as u64;

/// Words of 64 bits, the number of them set, and the reduction of a hash to a bit index.
///
/// `pub` in this private module only because the formats' sealed trait (`filter.rs`) names
/// it: nothing outside the crate can reach it. Equal words make every other field equal: each
/// follows from the words.
#[derive(Clone, PartialEq, Eq)]
pub struct JvmBits {
    words: Vec<u64>,
    ones: u64,
    modulo: FastMod,
    /// Whether the words outgrow the L2 cache, where queries prefetch (`batch.rs`).
    beyond_l2: bool,
}

impl JvmBits {
    /// `num_words` zeroed words.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfMemory`] when the allocator refuses them.
    pub(crate) fn zeroed(num_words: usize) -> Result<Self, Error> {
        let mut words = allocate(num_words)?;
        words.resize(num_words, 0);
        Ok(Self::from_words(words))
    }

    /// The words given, which must not be empty (the readers reject an empty array first).
    pub(crate) fn from_words(words: Vec<u64>) -> Self {
        JvmBits {
            ones: words.iter().map(|w| u64::from(w.count_ones())).sum(),
            modulo: FastMod::new(words.len() as u64 * 64),
            beyond_l2: words.len() * 8 > l2_cache_bytes(),
            words,
        }
    }

    /// Bits held: 64 times the words.
    #[inline(always)]
    pub(crate) fn bit_size(&self) -> u64 {
        self.modulo.divisor()
    }

    /// Whether the words outgrow the L2 cache (read once per process from the system).
    #[inline(always)]
    pub(crate) fn beyond_l2(&self) -> bool {
        self.beyond_l2
    }

    /// Bits set.
    pub(crate) fn count_ones(&self) -> u64 {
        self.ones
    }

    /// The words, in order.
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    /// `hash % bit_size()`, Java's `%` on a non-negative hash.
    #[inline(always)]
    pub(crate) fn index(&self, hash: u64) -> u64 {
        self.modulo.rem(hash)
    }

    /// The word holding bit `index`, which must be below `bit_size()`.
    #[inline(always)]
    pub(crate) fn word(&self, index: u64) -> &u64 {
        &self.words[(index >> 6) as usize]
    }

    /// Whether bit `index` is set.
    #[inline(always)]
    pub(crate) fn get(&self, index: u64) -> bool {
        self.word(index) & (1u64 << (index & 63)) != 0
    }

    /// Sets the bits of the `k` hash values `next` gives (each reduced as
    /// [`index`](Self::index) reduces it); how many were clear before, by which the count of
    /// set bits grows.
    ///
    /// The reduction and the words are taken into locals first and the count is added once
    /// for all k bits: through `self`, every store to a word could alias the fields, which
    /// would be read again for each bit, and the count's read-modify-write in memory would
    /// chain every bit behind the one before.
    #[inline(always)]
    pub(crate) fn set(&mut self, k: u32, mut next: impl FnMut() -> u64) -> u64 {
        let modulo = self.modulo;
        let words = &mut self.words[..];
        let mut newly_set = 0;
        for _ in 0..k {
            let index = modulo.rem(next());
            let word = &mut words[(index >> 6) as usize];
            let mask = 1u64 << (index & 63);
            newly_set += u64::from(*word & mask == 0);
            *word |= mask;
        }
        self.ones += newly_set;
        newly_set
    }

    /// ORs `other`'s words into these; the lengths must be equal (the callers check).
    pub(crate) fn union(&mut self, other: &JvmBits) {
        let mut ones = 0;
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
            ones += u64::from(a.count_ones());
        }
        self.ones = ones;
    }
}

/// An empty vector with room for `num_words` words, asked to be backed by huge pages before
/// any of it is touched: queries read random words, and with 4 KiB pages most reads of a
/// large filter would miss the TLB as well as the cache (`bloom_core`'s storage does the
/// same).
///
/// # Errors
///
/// [`Error::OutOfMemory`] when the allocator refuses the room.
pub(crate) fn allocate(num_words: usize) -> Result<Vec<u64>, Error> {
    let mut words = Vec::new();
    words
        .try_reserve_exact(num_words)
        .map_err(|_| Error::OutOfMemory {
            bytes: num_words.saturating_mul(8),
        })?;
    advise_huge_pages(&words.spare_capacity_mut()[..num_words]);
    Ok(words)
}

/// Words of 64 bits for `num_bits` bits as both JVM libraries round it (up to whole words).
///
/// # Errors
///
/// [`Error::InvalidParameter`] (named `num_bits`) for 0, [`Error::TooLarge`] beyond
/// [`MAX_WORDS`] words: the formats' word count is a Java `int`.
pub(crate) fn words_for_bits(num_bits: u64) -> Result<usize, Error> {
    check_count("num_bits", num_bits)?;
    let words = num_bits.div_ceil(64);
    if words > MAX_WORDS {
        return Err(Error::TooLarge {
            requested_bits: num_bits as f64,
            max_bits: MAX_WORDS * 64,
        });
    }
    Ok(words as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_get_count_union() {
        let mut a = JvmBits::zeroed(2).unwrap();
        assert_eq!(a.bit_size(), 128);
        let mut values = [0, 127, 255].into_iter();
        assert_eq!(a.set(3, || values.next().unwrap()), 2);
        assert_eq!(a.set(1, || 127), 0);
        assert!(a.get(0) && a.get(127) && !a.get(64));
        assert_eq!(a.count_ones(), 2);
        assert_eq!(a.words(), &[1, 1 << 63]);
        let mut b = JvmBits::zeroed(2).unwrap();
        let mut values = [64, 128].into_iter();
        assert_eq!(b.set(2, || values.next().unwrap()), 2);
        a.union(&b);
        assert_eq!(a.count_ones(), 3);
        assert_eq!(a.index(130), 2);
    }

    #[test]
    fn word_counts() {
        assert!(words_for_bits(0).is_err());
        assert_eq!(words_for_bits(1).unwrap(), 1);
        assert_eq!(words_for_bits(64).unwrap(), 1);
        assert_eq!(words_for_bits(65).unwrap(), 2);
        assert_eq!(words_for_bits(MAX_WORDS * 64).unwrap(), MAX_WORDS as usize);
        assert!(matches!(
            words_for_bits(MAX_WORDS * 64 + 1),
            Err(Error::TooLarge { .. })
        ));
    }
}
