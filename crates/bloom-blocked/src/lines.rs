//! What the layouts of one line per key share (blocked and multiblock: a 512-bit cache line;
//! 32-bit multiblock and Parquet's split block: a 256-bit half line): the line is found from
//! a 64-bit hash, and tested by the layout's kernel on the line's bytes where the storage
//! lends them, or portably on its words where it does not (atomic words). The single-key
//! test over any storage, the inserts and the batch query (keyed filters' keys hashed with
//! SipHash in SIMD lanes first) are written here once, for either width.

use alloc::vec::Vec;
use core::hash::Hash;

use core::sync::atomic::AtomicU64;
use core::sync::atomic::Ordering::Relaxed;

use bloom_core::engine::{Layout, Storage};
use bloom_core::hash::{Hashing, KeyHashing, SecretKey};
use bloom_core::internal::batch::{self, Lines, Loop, OneLine};
use bloom_core::internal::caches::last_level_cache_bytes;

use crate::probe::{TestUser, Width};

/// Words per cache line, the line of the blocked and multiblock layouts.
pub(crate) const LINE_WORDS: usize = 8;

/// A layout that puts each key's bits in one line of its [`Width`], located from a 64-bit
/// hash of its own hashing ([`Layout::hash`]).
pub(crate) trait LineLayout: Layout<Hash = u64> {
    /// The line's size: a cache line or half of one.
    type Width: Width;

    /// The number of lines.
    fn num_lines(&self) -> u64;

    /// The first word of `hash`'s line and the word its positions come from.
    fn locate(&self, hash: u64) -> (usize, u64);

    /// The portable test of the key of `g` on a line whose word `w` `word` reads.
    fn test_words(&self, word: impl Fn(usize) -> u64, g: u64) -> bool;

    /// Runs `run` with the kernel's tests of a line, chosen here once: where a layout
    /// matches on its kernel, for the batch and (through `with_single_test`) the single-key
    /// query.
    fn with_test<R>(&self, run: impl TestUser<R, Self::Width>) -> R;

    /// [`with_test`](LineLayout::with_test) for one key's query, which pays its branches
    /// once per key: a layout with more kernels than a few compares reach tests its usual
    /// ones first.
    #[inline(always)]
    fn with_single_test<R>(&self, run: impl TestUser<R, Self::Width>) -> R {
        self.with_test(run)
    }

    /// The key of `g`'s bits as the line's words.
    fn mask(&self, g: u64) -> <Self::Width as Width>::Words;

    /// Sets the key of `g`'s bits in a line of atomic words (`Relaxed`); whether all of them
    /// were set before (a word another thread completes meanwhile is reported by the write).
    /// By default the line's words are loaded first, with no branch, and only those that
    /// lack a bit of their mask take a locked write: where a key's bits fall in a random
    /// subset of the words, or each of its words has one bit that the fill may have set, a
    /// branch per word is a coin toss the predictor loses, where one loop over the words to
    /// write mispredicts about once (docs/design.md, "The atomic filter").
    #[inline(always)]
    fn set_shared(&self, line: &<Self::Width as Width>::Atomics, g: u64) -> bool {
        let (line, mask) = (line.as_ref(), self.mask(g));
        let mask = mask.as_ref();
        let mut todo = 0u32;
        for (w, (word, &m)) in line.iter().zip(mask).enumerate() {
            todo |= u32::from(word.load(Relaxed) & m != m) << w;
        }
        let mut was = true;
        while todo != 0 {
            let w = todo.trailing_zeros() as usize;
            was &= line[w].fetch_or(mask[w], Relaxed) & mask[w] == mask[w];
            todo &= todo - 1;
        }
        was
    }

    /// Sets the key of `g`'s bits in `line`; whether all of them were set before. By
    /// default, through [`mask`](LineLayout::mask).
    #[inline(always)]
    fn set_line(&self, line: &mut <Self::Width as Width>::Words, g: u64) -> bool {
        let mut was = true;
        for (word, &m) in line.as_mut().iter_mut().zip(self.mask(g).as_ref()) {
            was &= *word & m == m;
            *word |= m;
        }
        was
    }
}

/// Sets the bits of `hash` in `words`; whether all of them were set before.
#[inline]
pub(crate) fn insert<L: LineLayout>(layout: &L, words: &mut [u64], hash: u64) -> bool {
    let (first, g) = layout.locate(hash);
    layout.set_line(L::Width::words_at(words, first), g)
}

/// Sets the bits of `hash` in atomic `words`; whether all of them were set before.
#[inline]
pub(crate) fn insert_shared<L: LineLayout>(layout: &L, words: &[AtomicU64], hash: u64) -> bool {
    let (first, g) = layout.locate(hash);
    layout.set_shared(L::Width::atomics_at(words, first), g)
}

/// Sets the bits of every key of `keys` in `words` on all of rayon's threads, each thread
/// owning a range of lines: the same bits as inserting them one by one.
///
/// # Panics
///
/// If `words` does not hold exactly `layout`'s lines.
#[cfg(feature = "rayon")]
pub(crate) fn par_scatter<L: LineLayout + Sync, T: Hash + Sync>(
    layout: &L,
    hashing: &L::Hashing,
    words: &mut [u64],
    keys: &[T],
) {
    let words_per_line = L::Width::WORDS;
    assert_eq!(
        words.len() as u64,
        layout.num_lines() * words_per_line as u64
    );
    bloom_core::internal::par::par_scatter_into(
        L::Width::lines_mut(words),
        keys,
        // The entry is the hash alone, 8 bytes to bucket and move where the line and the
        // field word took 16: locating it again costs two multiplies, the traffic more.
        |key| [L::hash(hashing, key)],
        |hash| layout.locate(hash).0 / words_per_line,
        |line, hash| {
            layout.set_line(line, layout.locate(hash).1);
        },
    );
}

/// The test of the line at word `first` of `store` ([`test_at`]), the kernel chosen here by
/// [`LineLayout::with_test`].
///
/// # Safety
///
/// `store` must hold `layout`'s lines and `first` be the first word of one of them.
#[inline(always)]
pub(crate) unsafe fn test<L: LineLayout, S: Storage>(
    layout: &L,
    store: &S,
    first: usize,
    g: u64,
) -> bool {
    // One key's test, run by `with_test` with the kernel's two tests. Each of those closures
    // holds one kernel, never the layout's whole dispatch: a closure holding the dispatch
    // (about 1 KB) was left out of line in a large caller (the comparison's loop), a call
    // per key, where these inline like the batch's.
    struct Single<'a, L, S: Storage> {
        layout: &'a L,
        base: S::Base,
        first: usize,
        g: u64,
    }
    impl<L: LineLayout, S: Storage> TestUser<bool, L::Width> for Single<'_, L, S> {
        #[inline(always)]
        fn run(
            self,
            bytes: impl Fn(&<L::Width as Width>::Bytes, u64) -> bool + Copy,
            shared: impl Fn(&<L::Width as Width>::Atomics, u64) -> Option<bool> + Copy,
        ) -> bool {
            let tests = Tests { bytes, shared };
            // SAFETY: `test`'s caller's contract.
            unsafe { test_at::<L, S>(self.layout, self.base, self.first, self.g, &tests) }
        }

        /// In a build for AVX2 (`-C target-cpu=native` on a CPU with it), the kernel's
        /// intrinsics form, which the caller's code then inlines as the batch loop does.
        #[cfg(all(
            target_arch = "x86_64",
            target_feature = "avx2",
            target_feature = "bmi1",
            target_feature = "bmi2"
        ))]
        #[inline(always)]
        fn run_avx2(
            self,
            _: crate::probe::avx2::Avx2,
            _: impl Fn(&<L::Width as Width>::Bytes, u64) -> bool + Copy,
            compiled: impl Fn(&<L::Width as Width>::Bytes, u64) -> bool + Copy,
            shared: impl Fn(&<L::Width as Width>::Atomics, u64) -> Option<bool> + Copy,
        ) -> bool {
            self.run(compiled, shared)
        }

        /// In a build for AVX-512 (`-C target-cpu=native` on a CPU with it), as
        /// `run_avx2`.
        #[cfg(all(
            target_arch = "x86_64",
            target_feature = "avx2",
            target_feature = "bmi1",
            target_feature = "bmi2",
            target_feature = "avx512f",
            target_feature = "avx512bw",
            target_feature = "avx512vl"
        ))]
        #[inline(always)]
        fn run_avx512(
            self,
            _: crate::probe::avx2::Avx512,
            _: impl Fn(&<L::Width as Width>::Bytes, u64) -> bool + Copy,
            compiled: impl Fn(&<L::Width as Width>::Bytes, u64) -> bool + Copy,
            shared: impl Fn(&<L::Width as Width>::Atomics, u64) -> Option<bool> + Copy,
        ) -> bool {
            self.run(compiled, shared)
        }
    }
    layout.with_single_test(Single::<L, S> {
        layout,
        base: store.base(),
        first,
        g,
    })
}

/// The kernel's test of the key of `g` on a line's bytes, for the tests that compare
/// kernels.
#[cfg(test)]
pub(crate) fn test_line<L: LineLayout>(
    layout: &L,
    line: &<L::Width as Width>::Bytes,
    g: u64,
) -> bool {
    layout.with_test(crate::probe::OnBytes::<L::Width>(line, g))
}

/// A kernel's tests as [`TestUser::run`] hands them over: `bytes` on a line's bytes, `shared`
/// on a line of atomic words read in place (`None` where the kernel is the portable one).
#[derive(Clone, Copy)]
struct Tests<Q, P> {
    bytes: Q,
    shared: P,
}

/// The test of the line at word `first` of the store `base` is of: `tests.bytes` on the
/// line's bytes where the storage lends them, `tests.shared` on atomic words read in place
/// where it has a kernel to run, else the portable test of the words read one by one.
///
/// # Safety
///
/// `base` must be of a live store holding `layout`'s lines and `first` be the first word of
/// one of them.
#[inline(always)]
unsafe fn test_at<L: LineLayout, S: Storage>(
    layout: &L,
    base: S::Base,
    first: usize,
    g: u64,
    tests: &Tests<
        impl Fn(&<L::Width as Width>::Bytes, u64) -> bool,
        impl Fn(&<L::Width as Width>::Atomics, u64) -> Option<bool>,
    >,
) -> bool {
    if S::LINES {
        // SAFETY: the caller's contract puts the line's words in the store, which `base` is
        // of.
        return (tests.bytes)(unsafe { L::Width::bytes::<S>(base, first) }, g);
    }
    if S::SHARED_LINES {
        // SAFETY: the storage's lines are shared, and the caller's contract puts the line's
        // words in the store `base` is of.
        let line = unsafe { L::Width::atomics::<S>(base, first) };
        if let Some(answer) = (tests.shared)(line, g) {
            return answer;
        }
    }
    let line = S::advance(base, first);
    // SAFETY: as above, for each of the line's words, read from the line's base.
    layout.test_words(|w| unsafe { S::read(line, w) }, g)
}

/// The answers for `keys` into `out`: the batch engine over the lines, the kernel's test
/// chosen once outside the loop; a keyed filter's keys hashed in SIMD lanes, integer keys a
/// group at a time beside the tests in a loop compiled for the CPU when the filter fits the
/// last-level cache ([`batch::words_first`]), other keys and larger filters a chunk at a time
/// before them.
///
/// # Panics
///
/// If `store` does not hold exactly `layout`'s lines.
pub(crate) fn contains_batch_into<L: LineLayout, S: Storage, T: Hash>(
    layout: &L,
    hashing: &L::Hashing,
    store: &S,
    keys: &[T],
    out: &mut Vec<bool>,
) {
    assert_eq!(
        store.num_bits(),
        layout.num_lines() * 64 * L::Width::WORDS as u64,
        "a store of another size"
    );
    match hashing.secret_key() {
        Some(&secret) => {
            batch_into::<L, S, T, true>(layout, store, hashing, Some(secret), keys, out)
        }
        None => batch_into::<L, S, T, false>(layout, store, hashing, None, keys, out),
    }
}

/// The batch query over any storage; `PREHASHED` keys are the hashes themselves.
#[inline(always)]
fn batch_into<L: LineLayout, S: Storage, T: Hash, const PREHASHED: bool>(
    layout: &L,
    store: &S,
    hashing: &L::Hashing,
    secret: Option<SecretKey>,
    keys: &[T],
    out: &mut Vec<bool>,
) {
    struct Run<'k, L: Layout, S, T, const PREHASHED: bool> {
        layout: &'k L,
        store: &'k S,
        hashing: L::Hashing,
        secret: Option<SecretKey>,
        keys: &'k [T],
        out: &'k mut Vec<bool>,
    }
    impl<L: LineLayout, S: Storage, T: Hash, const PREHASHED: bool> Run<'_, L, S, T, PREHASHED> {
        /// The batch, in a loop `compiled` for the CPU's features or not: keys to hash
        /// under `secret` (integer keys) hashed in lanes a group at a time beside the tests
        /// when it is, within the last-level cache; a chunk at a time before them otherwise.
        #[inline(always)]
        fn go(
            self,
            compiled: bool,
            bytes: impl Fn(&<L::Width as Width>::Bytes, u64) -> bool + Copy,
            shared: impl Fn(&<L::Width as Width>::Atomics, u64) -> Option<bool> + Copy,
        ) {
            let query = BatchOf::<L, S, _, _, PREHASHED> {
                layout: self.layout,
                store: self.store,
                base: self.store.base(),
                hashing: self.hashing,
                tests: Tests { bytes, shared },
            };
            let lines = Lines(&query);
            debug_assert_eq!(
                self.secret.is_some(),
                PREHASHED,
                "keyed exactly when prehashed"
            );
            // A seeded batch's `secret` is `None`: said as a constant, so that its loop
            // holds no keyed code.
            match self.secret.filter(|_| PREHASHED) {
                Some(secret)
                    if compiled
                        && self.store.footprint() <= last_level_cache_bytes()
                        && batch::words_first(self.keys) =>
                {
                    batch::keyed_direct_into(&lines, &secret, self.keys, self.out);
                }
                Some(secret) => {
                    batch::keyed_batch_into(
                        &Hashing::Keyed(secret),
                        self.keys,
                        self.out,
                        |hashes, answers| {
                            batch::contains_batch_into(&lines, hashes, answers);
                        },
                    );
                }
                None => batch::contains_batch_into(&lines, self.keys, self.out),
            }
        }
    }
    impl<L: LineLayout, S: Storage, T: Hash, const PREHASHED: bool> TestUser<(), L::Width>
        for Run<'_, L, S, T, PREHASHED>
    {
        #[inline(always)]
        fn run(
            self,
            bytes: impl Fn(&<L::Width as Width>::Bytes, u64) -> bool + Copy,
            shared: impl Fn(&<L::Width as Width>::Atomics, u64) -> Option<bool> + Copy,
        ) {
            self.go(false, bytes, shared);
        }

        /// The batch loop compiled for AVX2, with the kernel's intrinsics form inlined.
        #[cfg(target_arch = "x86_64")]
        #[inline(always)]
        fn run_avx2(
            self,
            token: crate::probe::avx2::Avx2,
            _: impl Fn(&<L::Width as Width>::Bytes, u64) -> bool + Copy,
            compiled: impl Fn(&<L::Width as Width>::Bytes, u64) -> bool + Copy,
            shared: impl Fn(&<L::Width as Width>::Atomics, u64) -> Option<bool> + Copy,
        ) {
            token.compiled(
                #[inline(always)]
                move || self.go(true, compiled, shared),
            );
        }

        /// The batch loop compiled for AVX-512, with the kernel's intrinsics form inlined;
        /// over atomic lines, which the `asm!` form reads in any loop, the baseline loop
        /// (the compiled one measured slower there, docs/blocked.md).
        #[cfg(target_arch = "x86_64")]
        #[inline(always)]
        fn run_avx512(
            self,
            token: crate::probe::avx2::Avx512,
            test: impl Fn(&<L::Width as Width>::Bytes, u64) -> bool + Copy,
            compiled: impl Fn(&<L::Width as Width>::Bytes, u64) -> bool + Copy,
            shared: impl Fn(&<L::Width as Width>::Atomics, u64) -> Option<bool> + Copy,
        ) {
            if S::SHARED_LINES {
                return self.run(test, shared);
            }
            token.compiled(
                #[inline(always)]
                move || self.go(true, compiled, shared),
            );
        }
    }
    layout.with_test(Run::<L, S, T, PREHASHED> {
        layout,
        store,
        hashing: *hashing,
        secret,
        keys,
        out,
    });
}

/// The batch engine's view of a line layout's filter: one line per key. Made only by
/// `contains_batch_into`, after the store's size is checked.
struct BatchOf<'a, L: Layout, S: Storage, Q, P, const PREHASHED: bool> {
    layout: &'a L,
    store: &'a S,
    /// The store's words, taken once: the loops hold it in a register.
    base: S::Base,
    hashing: L::Hashing,
    /// The kernel's tests, chosen once for the batch.
    tests: Tests<Q, P>,
}

impl<L, S, Q, P, const PREHASHED: bool> OneLine for BatchOf<'_, L, S, Q, P, PREHASHED>
where
    L: LineLayout,
    S: Storage,
    Q: Fn(&<L::Width as Width>::Bytes, u64) -> bool,
    P: Fn(&<L::Width as Width>::Atomics, u64) -> Option<bool>,
{
    type Staged = (usize, u64);
    /// Lines of atomic words keep the bursts: their tests, inline assembly in a loop built
    /// for the baseline target, measured slower in the overlapped loop (docs/blocked.md).
    const LOOP: Loop = if S::SHARED_LINES {
        Loop::Bursts
    } else {
        Loop::Overlapped
    };

    #[inline(always)]
    fn footprint(&self) -> usize {
        self.store.footprint()
    }

    #[inline(always)]
    fn locate<T: Hash>(&self, key: &T) -> (usize, u64) {
        let hash = if PREHASHED {
            batch::prehashed(key)
        } else {
            // SAFETY: `contains_batch_into` runs the keys themselves only for a hashing with
            // no secret key (a keyed filter's go through SipHash lanes first, `PREHASHED`).
            // Said to the compiler, the keyed arm of the hash leaves the loop.
            unsafe { core::hint::assert_unchecked(self.hashing.secret_key().is_none()) };
            L::hash(&self.hashing, key)
        };
        self.layout.locate(hash)
    }

    #[inline(always)]
    fn prefetch(&self, (first, _): (usize, u64)) {
        S::prefetch_line(self.base, first);
    }

    #[inline(always)]
    fn test(&self, (first, g): (usize, u64)) -> bool {
        // SAFETY: `contains_batch_into` checked the store's size (the base is its), and
        // `locate` picked a line below `num_lines`.
        unsafe { test_at::<L, S>(self.layout, self.base, first, g, &self.tests) }
    }

    #[inline(always)]
    fn empty(&self) -> (usize, u64) {
        (0, 0)
    }
}
