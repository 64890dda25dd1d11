//! Bit storage: a plain bit array backed by `bitvec`, and its lock-free atomic twin.
//!
//! [`BitStore`] keeps the bits in a `BitVec<u64, Lsb0>`: bit `i` lives in word `i / 64` at
//! position `i % 64` counted from the least significant bit. That layout is also the on-disk
//! layout (words written little-endian), so the raw words can be serialised as they are. The
//! per-bit `bitvec` API is used wherever speed does not matter; the probe loops of the
//! filters work on the raw `u64` words ([`BitStore::as_words`], [`test_bit`], [`set_bit`]),
//! because the per-bit API costs a bounds-checked pointer-and-offset computation per access
//! that a benchmark of `contains` shows (see `docs/design.md`).
//!
//! [`AtomicBitStore`] is the same layout in `AtomicU64` words, for filters shared between
//! threads: setting a bit is one `fetch_or`, reading one is a `load`, all `Relaxed`. Relaxed is
//! enough because bits only ever go from 0 to 1 and no other memory is published through
//! them: a reader that sees a bit set needs nothing else to have happened before it. A key
//! inserted by one thread is visible to another once the inserting call has returned and the
//! threads have synchronised by any means (a join, a channel, a lock).
//!
//! Large stores ask the kernel for transparent huge pages (Linux only; see [`BitStore::new`]),
//! because a filter probes random words and 4 KiB pages make most probes of a large filter a
//! TLB miss as well as a cache miss.

use std::sync::atomic::{AtomicU64, Ordering};

use bitvec::prelude::{BitVec, Lsb0};
use bitvec::slice::BitSlice;

use crate::Error;
use crate::hash::{Probes, pair_at};
use crate::math::{MAX_NUM_BITS, check_num_bits};

/// Filters up to this many bytes are treated as cached: their batch queries skip prefetching
/// (it would only add instructions), and the counting filter and the scalable filter's layers
/// test their probes without branches, because a mispredicted early exit costs more than the
/// loads it skips while they hit the cache. The boundary is a typical per-core share of the
/// last-level cache; `docs/design.md` has the measurements behind it. ([`BitStore::all_set`]
/// tests pairs of probes and exits early at every size: see its documentation.)
pub const BRANCH_FREE_MAX_BYTES: usize = 4 << 20;

/// Words needed for `num_bits` bits, checked against the address space.
///
/// # Errors
///
/// [`Error::TooLarge`] when the words do not fit in memory on this platform.
pub fn words_for(num_bits: u64) -> Result<usize, Error> {
    let words = num_bits.div_ceil(64);
    let max_bits = (BitSlice::<u64, Lsb0>::MAX_BITS as u64).min(MAX_NUM_BITS);
    match usize::try_from(words) {
        Ok(w) if num_bits <= max_bits && w.checked_mul(8).is_some() => Ok(w),
        _ => Err(Error::TooLarge {
            requested_bits: num_bits as f64,
            max_bits,
        }),
    }
}

/// Whether bit `pos` is set in `words` (LSB-first within each word).
///
/// # Panics
///
/// If `pos / 64` is not a valid index of `words`.
#[inline(always)]
pub fn test_bit(words: &[u64], pos: u64) -> bool {
    (words[(pos >> 6) as usize] >> (pos & 63)) & 1 != 0
}

/// Sets bit `pos` in `words` and returns whether it was set before.
///
/// # Panics
///
/// If `pos / 64` is not a valid index of `words`.
#[inline(always)]
pub fn set_bit(words: &mut [u64], pos: u64) -> bool {
    let word = &mut words[(pos >> 6) as usize];
    let mask = 1u64 << (pos & 63);
    let was = *word & mask != 0;
    *word |= mask;
    was
}

/// Hints the CPU to bring the cache line holding `value` into the cache, without waiting for
/// it. Batch queries call this for every probe of a group of keys before testing any, so the
/// memory reads overlap instead of following one another. A no-op on targets other than
/// x86_64.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` requires SSE, which every x86_64 CPU has. It is a hint: it
    // reads nothing the program can observe and never faults, and the pointer comes from a
    // live reference anyway.
    unsafe {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// The mask of the bits of the last word that lie inside a store of `num_bits` bits.
#[inline]
fn tail_mask(num_bits: u64) -> u64 {
    match num_bits % 64 {
        0 => u64::MAX,
        r => (1u64 << r) - 1,
    }
}

/// Allocates `words` zeroed words, the way every store of the workspace allocates its array.
/// Large allocations come from the kernel already zeroed (the allocator uses `calloc`/`mmap`),
/// so the pages are only touched when a bit is first set; on Linux, arrays of 4 MiB and more
/// are advised to use transparent huge pages (see [`BitStore::new`]). Public so that stores of
/// other word layouts (the counting filter's 4-bit counters) get the same treatment.
///
/// # Examples
///
/// ```
/// let words = bloom_core::bits::alloc_zeroed_words(1 << 20);
/// assert!(words.len() == 1 << 20 && words.iter().all(|&w| w == 0));
/// ```
pub fn alloc_zeroed_words(words: usize) -> Vec<u64> {
    let v = vec![0u64; words];
    advise_huge_pages(&v);
    v
}

/// A copy of `words` in memory from [`alloc_zeroed_words`] (so huge pages are advised for a
/// large copy, as for a new store).
///
/// # Examples
///
/// ```
/// let copy = bloom_core::bits::copy_words(&[1, 2, 3]);
/// assert_eq!(copy, vec![1, 2, 3]);
/// ```
pub fn copy_words(words: &[u64]) -> Vec<u64> {
    let mut copy = alloc_zeroed_words(words.len());
    copy.copy_from_slice(words);
    copy
}

/// Allocations from this size on are worth huge pages: below it the whole store fits in the
/// reach of the TLB anyway.
pub const HUGE_PAGE_THRESHOLD: usize = 4 << 20;

/// Asks Linux to back the 2 MiB-aligned interior of `memory` with transparent huge pages,
/// when it spans at least [`HUGE_PAGE_THRESHOLD`] bytes. Advisory only: the kernel may
/// decline, and nothing changes but speed. A no-op on other systems.
///
/// Filters probe random cache lines; with 4 KiB pages most probes of a large filter are a
/// TLB miss as well as a cache miss. Any filter storage (bit words, counters, aligned
/// blocks) can call this right after allocating.
#[cfg(target_os = "linux")]
pub fn advise_huge_pages<T>(memory: &[T]) {
    const HUGE_PAGE: usize = 2 << 20;
    let bytes = std::mem::size_of_val(memory);
    if bytes < HUGE_PAGE_THRESHOLD {
        return;
    }
    let start = memory.as_ptr() as usize;
    let aligned_start = start.next_multiple_of(HUGE_PAGE);
    let aligned_end = (start + bytes) & !(HUGE_PAGE - 1);
    if aligned_end <= aligned_start {
        return;
    }
    let (range, len) = (
        aligned_start as *mut libc::c_void,
        aligned_end - aligned_start,
    );
    // SAFETY: the range [aligned_start, aligned_end) lies inside the live allocation of
    // `memory`; MADV_HUGEPAGE changes only how the kernel backs those pages, never their
    // contents, so no Rust-visible memory is affected.
    unsafe {
        libc::madvise(range, len, libc::MADV_HUGEPAGE);
    }
    // Fresh pages (a new mapping, the usual case for a large first allocation) get huge pages
    // when first touched. But an allocator may hand out memory an earlier allocation already
    // touched (glibc serves even large blocks from its heap once the process has freed a few),
    // and those pages stay small until the kernel's background scan gets to them, which can
    // take minutes. For them, ask for the huge pages now.
    if page_resident(aligned_start) {
        // SAFETY: as above; MADV_COLLAPSE (Linux 6.1 and later; older kernels return EINVAL,
        // which is ignored) copies the pages' contents into huge pages and never changes them.
        unsafe {
            libc::madvise(range, len, MADV_COLLAPSE);
        }
    }
}

/// `MADV_COLLAPSE` (Linux 6.1), spelled out because not every target's `libc` defines it.
#[cfg(target_os = "linux")]
const MADV_COLLAPSE: libc::c_int = 25;

/// Whether the page at `addr` (page-aligned) is in memory already.
#[cfg(target_os = "linux")]
fn page_resident(addr: usize) -> bool {
    let mut status = 0u8;
    // SAFETY: `addr` is page-aligned and lies in a live mapping (the caller's allocation);
    // mincore writes one status byte per page of the one-page range, into `status`.
    let ok = unsafe { libc::mincore(addr as *mut libc::c_void, 1, &mut status) } == 0;
    ok && status & 1 != 0
}

/// Asks the kernel for huge pages (Linux only; a no-op here).
#[cfg(not(target_os = "linux"))]
pub fn advise_huge_pages<T>(_memory: &[T]) {}

/// A fixed-size array of bits, backed by `bitvec`'s `BitVec<u64, Lsb0>`.
///
/// Bits past `len()` in the last word are always zero; every constructor checks it.
///
/// # Examples
///
/// ```
/// use bloom_core::bits::BitStore;
///
/// let mut bits = BitStore::new(100)?;
/// assert!(!bits.set(70));
/// assert!(bits.set(70));
/// assert!(bits.get(70));
/// assert_eq!(bits.count_ones(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(PartialEq, Eq)]
pub struct BitStore {
    bits: BitVec<u64, Lsb0>,
}

/// A clone gets its memory from [`alloc_zeroed_words`] like a new store, so a large clone is
/// advised to use huge pages too (a derived clone would copy into plain allocator memory).
impl Clone for BitStore {
    fn clone(&self) -> Self {
        BitStore::from_vec_unchecked_tail(copy_words(self.as_words()), self.len())
            .expect("a store's own words and length are consistent")
    }
}

impl std::fmt::Debug for BitStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BitStore")
            .field("len", &self.len())
            .field("count_ones", &self.count_ones())
            .finish()
    }
}

impl BitStore {
    /// A store of `num_bits` zero bits.
    ///
    /// On Linux, stores of 4 MiB and more are advised to use transparent huge pages.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for 0 bits, [`Error::TooLarge`] beyond
    /// [`MAX_NUM_BITS`] or the address space.
    pub fn new(num_bits: u64) -> Result<Self, Error> {
        check_num_bits(num_bits)?;
        let words = words_for(num_bits)?;
        Self::from_vec_unchecked_tail(alloc_zeroed_words(words), num_bits)
    }

    /// A store of `num_bits` bits over the given words (LSB-first).
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] when `words` has the wrong length for `num_bits` or has bits set
    /// past `num_bits`; the errors of [`BitStore::new`] for a bad `num_bits`.
    pub fn from_words(words: Vec<u64>, num_bits: u64) -> Result<Self, Error> {
        check_num_bits(num_bits)?;
        let expected = words_for(num_bits)?;
        if words.len() != expected {
            return Err(Error::corrupt(format!(
                "{} words given for {num_bits} bits, {expected} expected",
                words.len()
            )));
        }
        if words.last().is_some_and(|&w| w & !tail_mask(num_bits) != 0) {
            return Err(Error::corrupt(format!(
                "bits set beyond the end ({num_bits} bits)"
            )));
        }
        Self::from_vec_unchecked_tail(words, num_bits)
    }

    /// Reads `num_bits` bits from little-endian words, as [`BitStore::write_le_bytes`] writes
    /// them. Allocates only after checking the length, so at most `bytes.len()` bytes.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] when the length does not match or bits are set past `num_bits`.
    pub fn from_le_bytes(bytes: &[u8], num_bits: u64) -> Result<Self, Error> {
        check_num_bits(num_bits)?;
        let words = words_for(num_bits)?;
        if bytes.len() as u64 != words as u64 * 8 {
            return Err(Error::corrupt(format!(
                "{} payload bytes for {num_bits} bits, {} expected",
                bytes.len(),
                words as u64 * 8
            )));
        }
        let mut v = alloc_zeroed_words(words);
        for (w, chunk) in v.iter_mut().zip(bytes.chunks_exact(8)) {
            *w = u64::from_le_bytes(chunk.try_into().expect("chunks of 8"));
        }
        Self::from_words(v, num_bits)
    }

    fn from_vec_unchecked_tail(words: Vec<u64>, num_bits: u64) -> Result<Self, Error> {
        let mut bits = BitVec::from_vec(words);
        bits.truncate(num_bits as usize);
        Ok(BitStore { bits })
    }

    /// The number of bits.
    #[inline]
    pub fn len(&self) -> u64 {
        self.bits.len() as u64
    }

    /// Whether the store has no bits (never true: constructors require at least one).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bits.is_empty()
    }

    /// Whether bit `index` is set.
    ///
    /// # Panics
    ///
    /// If `index >= self.len()`.
    #[inline]
    pub fn get(&self, index: u64) -> bool {
        self.bits[index as usize]
    }

    /// Sets bit `index`, returning whether it was set before.
    ///
    /// # Panics
    ///
    /// If `index >= self.len()`.
    #[inline]
    pub fn set(&mut self, index: u64) -> bool {
        let mut bit = self
            .bits
            .get_mut(index as usize)
            .expect("bit index in range");
        let was = *bit;
        *bit = true;
        was
    }

    /// The raw words, bit `i` at word `i / 64`, position `i % 64` from the least significant
    /// bit. Bits past `len()` are zero.
    #[inline]
    pub fn as_words(&self) -> &[u64] {
        self.bits.as_raw_slice()
    }

    /// The raw words, mutable, for probe loops.
    ///
    /// Callers must keep bits past `len()` zero; the filters do, because their positions are
    /// always below `len()`.
    #[inline]
    pub fn as_words_mut(&mut self) -> &mut [u64] {
        self.bits.as_raw_mut_slice()
    }

    /// Whether every position of `probes` is set: the query of a classic Bloom filter.
    ///
    /// The probes are tested a pair at a time, with one branch per pair: the two words of a
    /// pair are shifted and combined before the single test, and the query stops at the first
    /// pair with a zero bit. At the optimal fill an absent key fails its first pair three
    /// times in four, so the branch is predictable, and on large filters the lines of the
    /// pairs it skips are never read (`docs/design.md` has the measurements).
    ///
    /// # Panics
    ///
    /// If `probes.range()` differs from `self.len()` (checked once per call, so each probe
    /// needs no bounds check).
    #[inline(always)]
    pub fn all_set(&self, probes: Probes) -> bool {
        let words = self.as_words();
        assert_eq!(
            probes.range(),
            self.len(),
            "probes must span exactly this store"
        );
        let shifted = |pos: u64| {
            debug_assert!(pos < self.len());
            // SAFETY: `Probes` yields positions below `range()` (multiply-shift maps into
            // `[0, range)`), `range() == self.len()` was checked above, and a store of `len`
            // bits has `ceil(len / 64)` words, so `pos / 64` is a valid index.
            unsafe { *words.get_unchecked((pos >> 6) as usize) >> (pos & 63) }
        };
        probes.all_pairs(|p, q| shifted(p) & shifted(q) & 1 != 0)
    }

    /// Whether the positions of one probe pair are set: the pair that step value `x` gives in
    /// this store ([`pair_at`]`(x, self.len())`, pair j of a key when `x` is its step j,
    /// see [`Steps`](crate::hash::Steps)). With `lone`, only the first position is tested:
    /// the last pair of an odd number of probes.
    ///
    /// This is how a query tests a key against several stores in lockstep (one pair of each
    /// store at a time) at the cost of [`all_set`](BitStore::all_set): the positions are
    /// in range by construction, so no bounds check is needed, and nothing branches on the
    /// bits.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_core::bits::BitStore;
    /// use bloom_core::hash::{hash_key, Probes, Steps, DEFAULT_SEED};
    ///
    /// let mut bits = BitStore::new(10_000)?;
    /// let h = hash_key("key", DEFAULT_SEED);
    /// bits.set_all(Probes::new(h, 5, 10_000));
    /// // Five probes: two full pairs and a lone last probe.
    /// let mut steps = Steps::new(h);
    /// assert!(bits.pair_set(steps.next_value(), false));
    /// assert!(bits.pair_set(steps.next_value(), false));
    /// assert!(bits.pair_set(steps.next_value(), true));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline(always)]
    pub fn pair_set(&self, x: u64, lone: bool) -> bool {
        let words = self.as_words();
        let (p, q) = pair_at(x, self.len());
        let q = if lone { p } else { q };
        let shifted = |pos: u64| {
            debug_assert!(pos < self.len());
            // SAFETY: `pair_at(x, m)` gives positions below `m` for every `x` and every
            // `m >= 1` (documented there and tested), `m == self.len() >= 1` here, and a
            // store of `len` bits has `ceil(len / 64)` words, so `pos / 64` is a valid index.
            let word = unsafe { *words.get_unchecked((pos >> 6) as usize) };
            word >> (pos & 63)
        };
        // The two bits are combined as integers, not as `bool`s: with `&` of two `bool`s
        // feeding a loop's exit, the compiler may test them with two branches, and for an
        // absent key the first bit alone is a coin flip.
        shifted(p) & shifted(q) & 1 != 0
    }

    /// Prefetches the cache lines of the pair that step value `x` gives in this store (see
    /// [`pair_set`](BitStore::pair_set) and [`prefetch`]): both lines when the pair's
    /// 512-bit group straddles two.
    #[inline(always)]
    pub fn prefetch_pair(&self, x: u64) {
        let words = self.as_words();
        let (p, q) = pair_at(x, self.len());
        for pos in [p, q] {
            // SAFETY: as in `pair_set`: both positions are below `self.len()`, so
            // `pos / 64` indexes one of the store's `ceil(len / 64)` words.
            prefetch(unsafe { words.get_unchecked((pos >> 6) as usize) });
        }
    }

    /// Sets every position of `probes`; returns whether all were set before (the "possibly
    /// present already" answer of an insert).
    ///
    /// # Panics
    ///
    /// If `probes.range()` differs from `self.len()`.
    #[inline(always)]
    pub fn set_all(&mut self, probes: Probes) -> bool {
        assert_eq!(
            probes.range(),
            self.len(),
            "probes must span exactly this store"
        );
        let words = self.as_words_mut();
        let mut all = true;
        probes.all_pairs(|p, q| {
            let (wp, wq) = ((p >> 6) as usize, (q >> 6) as usize);
            let (mp, mq) = (1u64 << (p & 63), 1u64 << (q & 63));
            // SAFETY: as in `all_set`: positions are below `range() == len`, and the store
            // has `ceil(len / 64)` words. Both bits are read before either is set, so a pair
            // that repeats a position (the odd tail) or shares a word reports correctly.
            unsafe {
                all &= (*words.get_unchecked(wp) & mp != 0) & (*words.get_unchecked(wq) & mq != 0);
                *words.get_unchecked_mut(wp) |= mp;
                *words.get_unchecked_mut(wq) |= mq;
            }
            true
        });
        all
    }

    /// Prefetches the cache line of every position of `probes` (see [`prefetch`]).
    ///
    /// # Panics
    ///
    /// If `probes.range()` differs from `self.len()`.
    #[inline(always)]
    pub fn prefetch_all(&self, probes: Probes) {
        prefetch_probes(self.as_words(), self.len(), probes);
    }

    /// The number of set bits.
    pub fn count_ones(&self) -> u64 {
        self.as_words()
            .iter()
            .map(|w| u64::from(w.count_ones()))
            .sum()
    }

    /// The fraction of bits set.
    pub fn fill_ratio(&self) -> f64 {
        self.count_ones() as f64 / self.len() as f64
    }

    /// Clears every bit.
    pub fn clear(&mut self) {
        self.as_words_mut().fill(0);
    }

    /// ORs `other` into `self` (set union).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the lengths differ.
    pub fn union_with(&mut self, other: &BitStore) -> Result<(), Error> {
        Error::check_same("num_bits", self.len(), other.len())?;
        for (a, b) in self.as_words_mut().iter_mut().zip(other.as_words()) {
            *a |= *b;
        }
        Ok(())
    }

    /// ANDs `other` into `self` (set intersection).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the lengths differ.
    pub fn intersect_with(&mut self, other: &BitStore) -> Result<(), Error> {
        Error::check_same("num_bits", self.len(), other.len())?;
        for (a, b) in self.as_words_mut().iter_mut().zip(other.as_words()) {
            *a &= *b;
        }
        Ok(())
    }

    /// Bytes of heap held by the words.
    pub fn heap_bytes(&self) -> usize {
        self.bits.as_raw_slice().len() * 8
    }

    /// Bytes of [`BitStore::write_le_bytes`]'s output.
    pub fn le_bytes_len(&self) -> u64 {
        self.as_words().len() as u64 * 8
    }

    /// Appends the words, little-endian, to `out`.
    pub fn write_le_bytes(&self, out: &mut Vec<u8>) {
        out.reserve(self.as_words().len() * 8);
        for w in self.as_words() {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }

    /// The underlying `bitvec` storage.
    pub fn as_bitslice(&self) -> &BitSlice<u64, Lsb0> {
        &self.bits
    }

    /// Moves the words out.
    pub fn into_words(self) -> Vec<u64> {
        self.bits.into_vec()
    }
}

/// Prefetches the line of every position of `probes` in `words`, a store of `len` bits of
/// either word type: the body of both `prefetch_all`s.
#[inline(always)]
fn prefetch_probes<T>(words: &[T], len: u64, probes: Probes) {
    assert_eq!(probes.range(), len, "probes must span exactly this store");
    probes.all_pairs(|p, q| {
        // The partner lies in the same 64-byte group, which the first line may not cover
        // entirely when the array is not 64-byte aligned: prefetch both.
        // SAFETY: as in `BitStore::all_set`: positions are below `range() == len`, and the
        // store has `ceil(len / 64)` words.
        unsafe {
            prefetch(words.get_unchecked((p >> 6) as usize));
            prefetch(words.get_unchecked((q >> 6) as usize));
        }
        true
    });
}

/// The atomic twin of [`BitStore`]: the same layout in `AtomicU64` words, every method
/// `&self`, lock-free.
///
/// # Examples
///
/// ```
/// use bloom_core::bits::AtomicBitStore;
///
/// let bits = AtomicBitStore::new(1000)?;
/// std::thread::scope(|s| {
///     s.spawn(|| bits.set(1));
///     s.spawn(|| bits.set(999));
/// });
/// assert!(bits.get(1) && bits.get(999));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct AtomicBitStore {
    words: Box<[AtomicU64]>,
    num_bits: u64,
}

impl std::fmt::Debug for AtomicBitStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtomicBitStore")
            .field("len", &self.num_bits)
            .field("count_ones", &self.count_ones())
            .finish()
    }
}

/// A clone is a snapshot ([`AtomicBitStore::to_bit_store`], memory from
/// [`alloc_zeroed_words`] as for [`BitStore`]'s clone) made atomic again in place.
impl Clone for AtomicBitStore {
    fn clone(&self) -> Self {
        self.to_bit_store().into()
    }
}

impl AtomicBitStore {
    /// A store of `num_bits` zero bits.
    ///
    /// # Errors
    ///
    /// As [`BitStore::new`].
    pub fn new(num_bits: u64) -> Result<Self, Error> {
        Ok(BitStore::new(num_bits)?.into())
    }

    /// The number of bits.
    #[inline]
    pub fn len(&self) -> u64 {
        self.num_bits
    }

    /// Whether the store has no bits (never true: constructors require at least one).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.num_bits == 0
    }

    /// The raw atomic words.
    #[inline]
    pub fn as_words(&self) -> &[AtomicU64] {
        &self.words
    }

    /// Whether bit `index` is set (a `Relaxed` load).
    ///
    /// # Panics
    ///
    /// If `index >= self.len()`.
    #[inline]
    pub fn get(&self, index: u64) -> bool {
        assert!(
            index < self.num_bits,
            "bit index {index} out of range {}",
            self.num_bits
        );
        (self.words[(index >> 6) as usize].load(Ordering::Relaxed) >> (index & 63)) & 1 != 0
    }

    /// Whether every position of `probes` is set (`Relaxed` loads), tested a pair at a time
    /// and stopping at the first pair with a zero bit, as [`BitStore::all_set`] does.
    ///
    /// # Panics
    ///
    /// If `probes.range()` differs from `self.len()`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_core::bits::AtomicBitStore;
    /// use bloom_core::hash::{hash_key, Probes, DEFAULT_SEED};
    ///
    /// let bits = AtomicBitStore::new(4096)?;
    /// let h = hash_key(&42u64, DEFAULT_SEED);
    /// assert!(!bits.all_set(Probes::new(h, 7, 4096)));
    /// for p in Probes::new(h, 7, 4096) {
    ///     bits.set(p);
    /// }
    /// assert!(bits.all_set(Probes::new(h, 7, 4096)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline(always)]
    pub fn all_set(&self, probes: Probes) -> bool {
        assert_eq!(
            probes.range(),
            self.num_bits,
            "probes must span exactly this store"
        );
        let words = &self.words[..];
        let shifted = |pos: u64| {
            debug_assert!(pos < self.num_bits);
            // SAFETY: as in `BitStore::all_set`: positions are below `range() == num_bits`
            // (checked above) and the store has `ceil(num_bits / 64)` words.
            unsafe { words.get_unchecked((pos >> 6) as usize) }.load(Ordering::Relaxed)
                >> (pos & 63)
        };
        probes.all_pairs(|p, q| shifted(p) & shifted(q) & 1 != 0)
    }

    /// Prefetches the cache line of every position of `probes`, as
    /// [`BitStore::prefetch_all`] does.
    ///
    /// # Panics
    ///
    /// If `probes.range()` differs from `self.len()`.
    #[inline(always)]
    pub fn prefetch_all(&self, probes: Probes) {
        prefetch_probes(&self.words, self.num_bits, probes);
    }

    /// Sets bit `index` with one `Relaxed` `fetch_or`, returning whether it was set before.
    ///
    /// # Panics
    ///
    /// If `index >= self.len()`.
    #[inline]
    pub fn set(&self, index: u64) -> bool {
        assert!(
            index < self.num_bits,
            "bit index {index} out of range {}",
            self.num_bits
        );
        let mask = 1u64 << (index & 63);
        self.words[(index >> 6) as usize].fetch_or(mask, Ordering::Relaxed) & mask != 0
    }

    /// The number of set bits (a snapshot: concurrent inserts may or may not be counted).
    pub fn count_ones(&self) -> u64 {
        self.words
            .iter()
            .map(|w| u64::from(w.load(Ordering::Relaxed).count_ones()))
            .sum()
    }

    /// The fraction of bits set.
    pub fn fill_ratio(&self) -> f64 {
        self.count_ones() as f64 / self.num_bits as f64
    }

    /// Clears every bit. Inserts racing with it may survive or not.
    pub fn clear(&self) {
        for w in self.words.iter() {
            w.store(0, Ordering::Relaxed);
        }
    }

    /// ORs `other` into `self` word by word.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the lengths differ.
    pub fn union_with(&self, other: &AtomicBitStore) -> Result<(), Error> {
        Error::check_same("num_bits", self.num_bits, other.num_bits)?;
        for (a, b) in self.words.iter().zip(other.words.iter()) {
            a.fetch_or(b.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        Ok(())
    }

    /// ANDs `other` into `self` word by word.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the lengths differ.
    pub fn intersect_with(&self, other: &AtomicBitStore) -> Result<(), Error> {
        Error::check_same("num_bits", self.num_bits, other.num_bits)?;
        for (a, b) in self.words.iter().zip(other.words.iter()) {
            a.fetch_and(b.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        Ok(())
    }

    /// Bytes of heap held by the words.
    pub fn heap_bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// A plain copy of the current bits, in memory from [`alloc_zeroed_words`] (advised to
    /// use huge pages when large, as a new store is).
    pub fn to_bit_store(&self) -> BitStore {
        let mut words = alloc_zeroed_words(self.words.len());
        for (w, a) in words.iter_mut().zip(self.words.iter()) {
            *w = a.load(Ordering::Relaxed);
        }
        BitStore::from_words(words, self.num_bits).expect("an atomic store keeps its invariants")
    }
}

impl From<BitStore> for AtomicBitStore {
    fn from(bits: BitStore) -> Self {
        let num_bits = bits.len();
        let words = bits.into_words().into_iter().map(AtomicU64::new).collect();
        AtomicBitStore { words, num_bits }
    }
}

impl From<AtomicBitStore> for BitStore {
    fn from(bits: AtomicBitStore) -> Self {
        let num_bits = bits.num_bits;
        let words: Vec<u64> = bits
            .words
            .into_vec()
            .into_iter()
            .map(AtomicU64::into_inner)
            .collect();
        BitStore::from_words(words, num_bits).expect("an atomic store keeps its invariants")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Clones copy into fresh memory (advised like a new store): equal, independent, and the
    /// same for the atomic store; also for a store past the huge-page threshold.
    #[test]
    fn clones_are_equal_and_independent() {
        for num_bits in [1u64, 200, (HUGE_PAGE_THRESHOLD as u64 + 4096) * 8] {
            let mut a = BitStore::new(num_bits).unwrap();
            for i in (0..num_bits).step_by(997) {
                a.set(i);
            }
            let mut b = a.clone();
            assert_eq!(a, b);
            b.set(num_bits - 1);
            assert_eq!(a.get(num_bits - 1), (num_bits - 1) % 997 == 0);
            let atomic = AtomicBitStore::from(a.clone());
            let copy = atomic.clone();
            atomic.set(num_bits - 1);
            assert_eq!(BitStore::from(copy), a);
        }
    }

    #[test]
    fn raw_words_agree_with_bitvec() {
        let mut s = BitStore::new(200).unwrap();
        for i in [0u64, 1, 63, 64, 65, 127, 199] {
            assert!(!s.set(i));
        }
        for i in 0..200u64 {
            assert_eq!(s.get(i), test_bit(s.as_words(), i), "{i}");
        }
        assert_eq!(s.as_words()[0], 1 | 2 | (1 << 63));
        assert!(set_bit(s.as_words_mut(), 199));
        assert!(!set_bit(s.as_words_mut(), 198));
        assert_eq!(s.count_ones(), 8);
        assert!((s.fill_ratio() - 0.04).abs() < 1e-12);
    }

    #[test]
    fn pair_set_agrees_with_the_bits() {
        use crate::hash::{Steps, hash_key, pair_at};
        for num_bits in [1u64, 7, 64, 511, 512, 513, 1000, 4096, 100_003] {
            let mut s = BitStore::new(num_bits).unwrap();
            // About half the bits set.
            for i in (0..num_bits).filter(|i| hash_key(i, 9) as u64 & 1 == 0) {
                s.set(i);
            }
            for key in 0..2_000u64 {
                let x = Steps::new(hash_key(&key, 4)).nth(key as usize % 5).unwrap();
                let (p, q) = pair_at(x, num_bits);
                assert_eq!(
                    s.pair_set(x, false),
                    s.get(p) && s.get(q),
                    "{num_bits} {key}"
                );
                assert_eq!(s.pair_set(x, true), s.get(p), "{num_bits} {key}");
                s.prefetch_pair(x);
            }
        }
    }

    #[test]
    fn sizes_are_checked() {
        assert!(BitStore::new(0).is_err());
        assert!(BitStore::new(MAX_NUM_BITS + 1).is_err());
        assert!(words_for(u64::MAX).is_err());
        assert_eq!(words_for(65).unwrap(), 2);
    }

    #[test]
    fn from_words_rejects_bad_tails_and_lengths() {
        assert!(BitStore::from_words(vec![0, 0], 65).is_ok());
        assert!(BitStore::from_words(vec![0, 2], 65).is_err());
        assert!(BitStore::from_words(vec![0], 65).is_err());
        assert!(BitStore::from_words(vec![u64::MAX], 64).is_ok());
    }

    #[test]
    fn le_bytes_round_trip() {
        let mut s = BitStore::new(130).unwrap();
        s.set(3);
        s.set(129);
        let mut out = Vec::new();
        s.write_le_bytes(&mut out);
        assert_eq!(out.len() as u64, s.le_bytes_len());
        assert_eq!(out[0], 8);
        assert_eq!(BitStore::from_le_bytes(&out, 130).unwrap(), s);
        assert!(BitStore::from_le_bytes(&out[1..], 130).is_err());
        assert!(BitStore::from_le_bytes(&out, 129).is_err());
    }

    #[test]
    fn union_and_intersection() {
        let mut a = BitStore::new(100).unwrap();
        let mut b = BitStore::new(100).unwrap();
        a.set(1);
        a.set(2);
        b.set(2);
        b.set(3);
        let mut u = a.clone();
        u.union_with(&b).unwrap();
        assert_eq!(u.count_ones(), 3);
        a.intersect_with(&b).unwrap();
        assert_eq!(a.count_ones(), 1);
        assert!(a.get(2));
        let c = BitStore::new(101).unwrap();
        assert!(a.union_with(&c).is_err());
        assert!(a.intersect_with(&c).is_err());
    }

    #[test]
    fn atomic_twin_matches() {
        let a = AtomicBitStore::new(1000).unwrap();
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let a = &a;
                s.spawn(move || {
                    for i in (t..1000).step_by(4) {
                        a.set(i);
                    }
                });
            }
        });
        assert_eq!(a.count_ones(), 1000);
        let plain: BitStore = a.clone().into();
        assert_eq!(plain.count_ones(), 1000);
        let b = AtomicBitStore::from(BitStore::new(1000).unwrap());
        b.set(5);
        a.intersect_with(&b).unwrap();
        assert_eq!(a.count_ones(), 1);
        a.clear();
        assert_eq!(a.count_ones(), 0);
        a.union_with(&b).unwrap();
        assert!(a.get(5));
        assert_eq!(a.to_bit_store().count_ones(), 1);
        assert!(a.union_with(&AtomicBitStore::new(10).unwrap()).is_err());
    }

    #[test]
    fn large_store_gets_zeroed_pages() {
        let s = BitStore::new(64 << 20).unwrap();
        assert_eq!(s.count_ones(), 0);
        assert_eq!(s.heap_bytes(), 8 << 20);
    }
}
