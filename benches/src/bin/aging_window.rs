//! Sliding windows over u64 keys: `AgingBloomFilter` against what users build today from
//! this workspace's filters, in one run (issue 19's figures).
//!
//! * **aging**: `AgingBloomFilter::new(window, p)`.
//! * **pair**: two `BloomFilter`s, each `new(window, p)`. Inserts go to the current one;
//!   every `window` inserts the older one is cleared and becomes current. A query asks both.
//!   Every key of the last `window` inserts is found, and keys stay up to `2 window` inserts.
//!   Both filters answer, so its false-positive rate is up to about 2p; the memory of a pair
//!   sized for p/2 each (the same combined rate) is printed too.
//! * **aging l = 20**: `AgingBloomFilter::builder(window, p).generations(20)`: fewer
//!   slices to scan, more slack.
//! * **blocked B = 128 (prototype)**: the blocked layout of docs/aging.md (module `blocked`
//!   below), blocks of 128 bits, with the default filter's k and l and 5% more bits than its
//!   slices (what the exact rate of `aging_layout` asks for at 1% and 0.1%: 2.9% and 4.2%);
//!   its query by AVX-512 where the CPU has it. Its masks are checked equal to the portable
//!   code's on the absent keys, and its portable query is timed too (on a line of its own).
//! * **blocked B = 64 (prototype)**: the same with blocks of 64 bits and 10% more bits than
//!   the slices (`aging_layout`: 5.8% at 1%, 9.2% at 0.1%), over the memory target at 1%.
//! * **one BloomFilter**, for inserts only: `BloomFilter::new(window, p)` cleared every
//!   window, the reference "a `BloomFilter` insert" of the issue's target.
//! * **counting**: `CountingBloomFilter::new(window, p)` and a queue of the last `window`
//!   keys: each insert past the window removes the key leaving it. The queue (8 bytes per
//!   key) is part of its memory: the removal needs the key.
//!
//! Each structure sees the same stream: `3 window` inserts to reach the steady state, then
//! `window` more, timed in chunks of 10,000 (the structures take turns on each chunk, in an
//! order that rotates), stopping 8 times along the way to measure, untimed, the rate at which
//! keys of each age past the window still answer present, and the false-positive rate of
//! keys never inserted. Then `contains` is timed on present keys (the last `window / 2`
//! inserted) and on absent ones, by `chunked_ratios` against the pair. Times are the thread's
//! CPU time.
//!
//! Printed per window and p: memory in bits per key of the window and as a multiple of the
//! pair's, insert and contains ns per key (medians over chunks) and their ratios to the
//! pair's, the measured false-positive rate (the highest of the 8 points), and the slack:
//! how far past the window (as a fraction of it) keys still answered present at a rate above
//! p + 3 sigma, the most over the 8 points, in buckets of 2% of the window.
//!
//! ```text
//! cargo run --release -p bloom-benches --bin aging_window [window ...]
//! ```

use std::collections::VecDeque;

use blocked::Prototype;
use bloom_aging::AgingBloomFilter;
use bloom_benches::{chunked_ratios, cpu_ns_per_key, median, sizes_from_args, u64_keys};
use bloom_classic::BloomFilter;
use bloom_counting::CountingBloomFilter;

/// Keys per timed chunk.
const CHUNK: usize = 10_000;
/// Rounds of `chunked_ratios` for the queries.
const ROUNDS: usize = 5;
/// Points along the measured window where expiry and the false-positive rate are measured.
const POINTS: usize = 8;
/// Buckets of key age per window in the expiry measurement.
const BUCKETS: usize = 50;

/// Two classic filters taking turns.
struct Pair {
    current: BloomFilter,
    previous: BloomFilter,
    count: u64,
    window: u64,
}

impl Pair {
    fn new(window: u64, p: f64) -> Pair {
        let f = BloomFilter::new(window, p).expect("valid parameters");
        Pair {
            current: f.clone(),
            previous: f,
            count: 0,
            window,
        }
    }

    fn insert(&mut self, key: &u64) -> bool {
        let seen = self.contains(key);
        self.current.insert(key);
        self.count += 1;
        if self.count == self.window {
            std::mem::swap(&mut self.current, &mut self.previous);
            self.current.clear();
            self.count = 0;
        }
        seen
    }

    fn contains(&self, key: &u64) -> bool {
        self.current.contains(key) || self.previous.contains(key)
    }

    fn memory_usage(&self) -> usize {
        self.current.memory_usage() + self.previous.memory_usage() + 2 * size_of::<u64>()
    }
}

/// A counting filter that removes the key leaving the window.
struct Counting {
    filter: CountingBloomFilter,
    queue: VecDeque<u64>,
    window: usize,
}

impl Counting {
    fn new(window: u64, p: f64) -> Counting {
        Counting {
            filter: CountingBloomFilter::new(window, p).expect("valid parameters"),
            queue: VecDeque::with_capacity(window as usize + 1),
            window: window as usize,
        }
    }

    fn insert(&mut self, key: &u64) -> bool {
        let seen = self.filter.insert(key);
        self.queue.push_back(*key);
        if self.queue.len() > self.window {
            let old = self
                .queue
                .pop_front()
                .expect("the queue is past the window");
            // A key whose counters all saturated stays present: what users of this scheme get.
            let _outcome = self
                .filter
                .remove(&old)
                .expect("a key of the queue was inserted");
        }
        seen
    }

    fn contains(&self, key: &u64) -> bool {
        self.filter.contains(key)
    }

    fn memory_usage(&self) -> usize {
        self.filter.memory_usage() + self.queue.capacity() * size_of::<u64>()
    }
}

/// The three structures, fed the same stream.
struct Contenders {
    aging: AgingBloomFilter,
    pair: Pair,
    counting: Counting,
    /// Fewer generations: faster, more slack.
    aging_short: AgingBloomFilter,
    /// One `BloomFilter` for the window, cleared every window: the reference for inserts.
    single: BloomFilter,
    single_count: u64,
    /// The blocked layout's prototype, blocks of 128 bits.
    blocked: Prototype,
    /// The same, blocks of 64 bits.
    blocked_narrow: Prototype,
}

impl Contenders {
    fn contains(&self, which: usize, key: &u64) -> bool {
        match which {
            0 => self.aging.contains(key),
            1 => self.pair.contains(key),
            2 => self.counting.contains(key),
            3 => self.aging_short.contains(key),
            4 => self.blocked.contains(self.aging.hash(key)),
            5 => self.blocked_narrow.contains(self.aging.hash(key)),
            _ => self.blocked.contains_portable(self.aging.hash(key)),
        }
    }

    fn insert_chunk(&mut self, which: usize, chunk: &[u64]) -> f64 {
        match which {
            0 => cpu_ns_per_key(chunk, |c| {
                c.iter().filter(|k| self.aging.insert(*k)).count()
            }),
            1 => cpu_ns_per_key(chunk, |c| c.iter().filter(|k| self.pair.insert(k)).count()),
            2 => cpu_ns_per_key(chunk, |c| {
                c.iter().filter(|k| self.counting.insert(k)).count()
            }),
            3 => cpu_ns_per_key(chunk, |c| {
                c.iter().filter(|k| self.aging_short.insert(*k)).count()
            }),
            4 => cpu_ns_per_key(chunk, |c| {
                c.iter()
                    .filter(|k| self.blocked.insert(self.aging.hash(*k)))
                    .count()
            }),
            5 => cpu_ns_per_key(chunk, |c| {
                c.iter()
                    .filter(|k| self.blocked_narrow.insert(self.aging.hash(*k)))
                    .count()
            }),
            _ => cpu_ns_per_key(chunk, |c| {
                let window = self.pair.window;
                c.iter()
                    .filter(|k| {
                        let seen = self.single.insert(*k);
                        self.single_count += 1;
                        if self.single_count == window {
                            self.single.clear();
                            self.single_count = 0;
                        }
                        seen
                    })
                    .count()
            }),
        }
    }
}

const NAMES: [&str; 6] = [
    "aging",
    "pair",
    "counting",
    "aging l = 20",
    "blocked B = 128 (prototype)",
    "blocked B = 64 (prototype)",
];
/// The slot of the prototype's portable query (timed, not a structure of its own).
const PORTABLE: usize = NAMES.len() + 1;
/// The structures.
const ALL: usize = NAMES.len();
/// The generations of the second aging filter.
const SHORT_GENERATIONS: u32 = 20;

fn main() {
    let windows = sizes_from_args(&[100_000, 1_000_000]);
    println!(
        "| window | p | structure | bits per key | memory / pair | insert ns | insert / pair | contains present ns | contains absent ns | contains / pair (present, absent) | measured FPR | slack past the window |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for window in windows {
        for p in [0.01, 0.001] {
            run(window, p);
        }
    }
}

fn run(window: usize, p: f64) {
    let w = window as u64;
    let aging = AgingBloomFilter::new(w, p).expect("valid parameters");
    let prototype = |percent: u64, block_words: u32| {
        Prototype::new(
            aging.num_hashes(),
            aging.generations(),
            aging.generation_len(),
            aging.num_bits() * percent / 100,
            block_words,
        )
    };
    let (blocked, blocked_narrow) = (prototype(105, 2), prototype(110, 1));
    let mut c = Contenders {
        aging,
        pair: Pair::new(w, p),
        counting: Counting::new(w, p),
        aging_short: AgingBloomFilter::builder(w, p)
            .generations(SHORT_GENERATIONS)
            .build()
            .expect("valid parameters"),
        single: BloomFilter::new(w, p).expect("valid parameters"),
        single_count: 0,
        blocked,
        blocked_narrow,
    };
    let stream = u64_keys(4 * window, (window as u64) << 8 | (p * 1e4) as u64);
    let absent = u64_keys(window.min(1_000_000), 1 << 60 | window as u64);
    let warm = 3 * window;
    for k in &stream[..warm] {
        c.aging.insert(k);
        c.pair.insert(k);
        c.counting.insert(k);
        c.aging_short.insert(k);
        c.blocked.insert(c.aging.hash(k));
        c.blocked_narrow.insert(c.aging.hash(k));
    }
    c.single_count = (warm % window) as u64;

    // The structures' inserts, and the single filter's (slot ALL).
    let mut insert_times = vec![Vec::new(); ALL + 1];
    let mut fpr = [0.0f64; ALL];
    let mut slack = [0usize; ALL];
    let mut done = warm;
    let per_point = window / POINTS;
    for point in 0..POINTS {
        let end = warm + (point + 1) * per_point;
        for (i, chunk) in stream[done..end].chunks(CHUNK).enumerate() {
            for turn in 0..=ALL {
                let which = (turn + i) % (ALL + 1);
                insert_times[which].push(c.insert_chunk(which, chunk));
            }
        }
        done = end;
        for which in 0..ALL {
            // Keys of each age past the window: bucket b holds ages
            // [window + b window / BUCKETS, window + (b + 1) window / BUCKETS). The slack
            // ends at the first bucket, from the young end, whose rate is down to p (within
            // 3 sigma): the rate falls with age, and scanning from the young end keeps a
            // noisy old bucket from counting.
            let width = window / BUCKETS;
            let sigma = (p * (1.0 - p) / width as f64).sqrt();
            let down = (0..BUCKETS).find(|&b| {
                let newest = done - window - b * width;
                let bucket = &stream[newest - width..newest];
                let hits = bucket.iter().filter(|k| c.contains(which, k)).count();
                hits as f64 / width as f64 <= p + 3.0 * sigma
            });
            slack[which] = slack[which].max(down.unwrap_or(BUCKETS));
            let fp = absent.iter().filter(|k| c.contains(which, k)).count();
            fpr[which] = fpr[which].max(fp as f64 / absent.len() as f64);
        }
        // The window itself is all there, at every point.
        for (which, name) in NAMES.iter().enumerate() {
            assert!(
                stream[done - window..done]
                    .iter()
                    .all(|k| c.contains(which, k)),
                "{name}: false negative in the window"
            );
        }
    }

    let present = &stream[done - window / 2..done];
    let queries = present.len().min(absent.len());
    let run_contains = |which: usize, chunk: &[u64]| {
        cpu_ns_per_key(chunk, |keys| {
            keys.iter().filter(|k| c.contains(which, k)).count()
        })
    };
    assert!(
        absent.iter().all(|k| {
            let h = c.aging.hash(k);
            c.blocked.masks_agree(h) && c.blocked_narrow.masks_agree(h)
        }),
        "a prototype's AVX-512 mask differs from the portable one"
    );
    let others = [0, 2, 3, 4, 5, PORTABLE];
    let on_present = chunked_ratios(&present[..queries], CHUNK, ROUNDS, &others, 1, run_contains);
    let on_absent = chunked_ratios(&absent[..queries], CHUNK, ROUNDS, &others, 1, run_contains);

    let memory = [
        c.aging.memory_usage(),
        c.pair.memory_usage(),
        c.counting.memory_usage(),
        c.aging_short.memory_usage(),
        c.blocked.memory_usage(),
        c.blocked_narrow.memory_usage(),
    ];
    let insert_ns: Vec<f64> = insert_times.iter().map(|t| median(t.clone())).collect();
    for which in 0..ALL {
        let bits = memory[which] as f64 * 8.0 / w as f64;
        let (present_ns, absent_ns) = (on_present.median_time(which), on_absent.median_time(which));
        let ratio = if which == 1 {
            "1".to_string()
        } else {
            format!(
                "{:.2}, {:.2}",
                on_present.median_ratio(which),
                on_absent.median_ratio(which)
            )
        };
        println!(
            "| {window} | {p} | {} | {bits:.1} | {:.3} | {:.1} | {:.2} | {present_ns:.1} | {absent_ns:.1} | {ratio} | {:.5} | {:.0}% |",
            NAMES[which],
            memory[which] as f64 / memory[1] as f64,
            insert_ns[which],
            insert_ns[which] / insert_ns[1],
            fpr[which],
            100.0 * slack[which] as f64 / BUCKETS as f64,
        );
    }
    println!(
        "| {window} | {p} | blocked B = 128 prototype, portable query{} | | | | | {:.1} | {:.1} | {:.2}, {:.2} | | |",
        if c.blocked.has_avx512() {
            ""
        } else {
            " (no AVX-512: as above)"
        },
        on_present.median_time(PORTABLE),
        on_absent.median_time(PORTABLE),
        on_present.median_ratio(PORTABLE),
        on_absent.median_ratio(PORTABLE),
    );
    println!(
        "| {window} | {p} | one BloomFilter, insert only | | | {:.1} | {:.2} | | | | | |",
        insert_ns[ALL],
        insert_ns[ALL] / insert_ns[1]
    );
    println!(
        "| {window} | {p} | aging insert / one BloomFilter insert | | | {:.2} (l = 20: {:.2}; blocked B = 128: {:.2}, B = 64: {:.2}) | | | | | | |",
        insert_ns[0] / insert_ns[ALL],
        insert_ns[3] / insert_ns[ALL],
        insert_ns[4] / insert_ns[ALL],
        insert_ns[5] / insert_ns[ALL]
    );
    let half = Pair::new(w, p / 2.0);
    println!(
        "| {window} | {p} | pair at p/2 each | {:.1} | {:.3} | | | | | | | |",
        half.memory_usage() as f64 * 8.0 / w as f64,
        half.memory_usage() as f64 / memory[1] as f64
    );
}

/// A prototype of the blocked layout (docs/aging.md, "A blocked layout"), to measure its
/// query and insert beside the filter's: not a filter of the workspace (no format, no
/// union), but a complete one for this stream, its false-positive rate and slack measured
/// like the others'.
///
/// A key picks a row by multiply-shift of the low half of its hash (the filter's seeded
/// XXH3-128). Each of the `k + l` slices gives each row a block of B = 64 or 128 bits (one or
/// two words), the blocks of a row side by side in physical slice order, so a row is
/// `(k + l) B / 64` adjacent words. With `x` and `c` the low and high 32-bit halves of the
/// hash's high half (`c` made odd), the key's bit in the block of physical slice j is the top
/// `log2 B` bits of MurmurHash3's 32-bit finalizer of `x + j c`. The ring turns as the filter's: inserts set the k newest
/// slices, every `generation_len` inserts the oldest slice is cleared in every row.
///
/// The query gathers the bits of all slices into one mask in physical order (the AVX-512
/// version: 16 positions per register; with B = 128 each block's word picked from two loads
/// of 8 words by a two-table permute, with B = 64 one load of 8 words; the bits tested by one
/// test per 8 slices), turns it
/// to ring order and looks for k set bits in a row by shifts. Up to 128 slices.
mod blocked {
    use bloom_core::internal::{high_half, low_half, reduce};

    /// The most slices the mask holds.
    pub(crate) const MAX_SLICES: u32 = 128;

    /// MurmurHash3's 32-bit finalizer (a bijection; Appleby, MurmurHash3).
    #[inline(always)]
    fn fmix32(mut h: u32) -> u32 {
        h ^= h >> 16;
        h = h.wrapping_mul(0x85eb_ca6b);
        h ^= h >> 13;
        h = h.wrapping_mul(0xc2b2_ae35);
        h ^ (h >> 16)
    }

    pub(crate) struct Prototype {
        words: Vec<u64>,
        rows: u64,
        /// Words per block: 1 or 2.
        block_words: u32,
        k: u32,
        slices: u32,
        head: u32,
        count: u64,
        generation_len: u64,
        #[cfg(target_arch = "x86_64")]
        avx512: Option<avx512::Avx512>,
    }

    impl Prototype {
        /// A ring of `k + l` slices (at most [`MAX_SLICES`]) of blocks of `block_words`
        /// words (1 or 2) over at least `num_bits` bits.
        pub(crate) fn new(
            k: u32,
            l: u32,
            generation_len: u64,
            num_bits: u64,
            block_words: u32,
        ) -> Prototype {
            let slices = k + l;
            assert!(slices <= MAX_SLICES, "the prototype holds up to 128 slices");
            assert!(matches!(block_words, 1 | 2), "blocks of 64 or 128 bits");
            let row_words = u64::from(slices * block_words);
            let rows = num_bits.div_ceil(row_words * 64).max(1);
            Prototype {
                words: vec![0; (rows * row_words) as usize],
                rows,
                block_words,
                k,
                slices,
                head: 0,
                count: 0,
                generation_len,
                #[cfg(target_arch = "x86_64")]
                avx512: avx512::Avx512::detect(),
            }
        }

        /// Whether the AVX-512 query runs on this CPU.
        pub(crate) fn has_avx512(&self) -> bool {
            #[cfg(target_arch = "x86_64")]
            return self.avx512.is_some();
            #[cfg(not(target_arch = "x86_64"))]
            return false;
        }

        pub(crate) fn memory_usage(&self) -> usize {
            size_of::<Self>() + self.words.len() * 8
        }

        /// Words per row.
        #[inline(always)]
        fn row_words(&self) -> usize {
            (self.slices * self.block_words) as usize
        }

        /// The key's row, and the (x, c) of its positions.
        #[inline(always)]
        fn row_of(&self, hash: u128) -> (&[u64], u32, u32) {
            let start = reduce(low_half(hash), self.rows) as usize * self.row_words();
            let b = high_half(hash);
            (
                &self.words[start..start + self.row_words()],
                b as u32,
                (b >> 32) as u32 | 1,
            )
        }

        /// The key's bit in the block of physical slice j: (word in the row, bit).
        #[inline(always)]
        fn bit_of(&self, x: u32, c: u32, j: u32) -> (usize, u32) {
            // The top 6 or 7 bits: a position in the block.
            let pos = fmix32(x.wrapping_add(j.wrapping_mul(c))) >> (32 - 5 - self.block_words);
            (
                (self.block_words * j) as usize + (pos >> 6) as usize,
                pos & 63,
            )
        }

        pub(crate) fn insert(&mut self, hash: u128) -> bool {
            let seen = self.contains(hash);
            let (_, x, c) = self.row_of(hash);
            let start = reduce(low_half(hash), self.rows) as usize * self.row_words();
            for i in 0..self.k {
                let j = (self.head + i) % self.slices;
                let (word, bit) = self.bit_of(x, c, j);
                self.words[start + word] |= 1 << bit;
            }
            self.count += 1;
            if self.count == self.generation_len {
                self.head = (self.head + self.slices - 1) % self.slices;
                let (stride, width) = (self.row_words(), self.block_words as usize);
                let at = width * self.head as usize;
                for row in self.words.chunks_exact_mut(stride) {
                    row[at..at + width].fill(0);
                }
                self.count = 0;
            }
            seen
        }

        /// The key's bits in physical slice order (bit j: slice j), plain Rust.
        pub(crate) fn mask_portable(&self, hash: u128) -> u128 {
            let (row, x, c) = self.row_of(hash);
            (0..self.slices).fold(0, |mask, j| {
                let (word, bit) = self.bit_of(x, c, j);
                mask | (u128::from((row[word] >> bit) & 1) << j)
            })
        }

        /// The mask by the fastest implementation the CPU has.
        #[inline]
        fn mask(&self, hash: u128) -> u128 {
            #[cfg(target_arch = "x86_64")]
            if let Some(token) = self.avx512 {
                let (row, x, c) = self.row_of(hash);
                return avx512::mask(token, row, self.slices, x, c);
            }
            self.mask_portable(hash)
        }

        /// Whether the key's bits are set in k consecutive slices, in ring order.
        #[inline]
        fn has_run(&self, mask: u128) -> bool {
            let n = self.slices;
            let all = if n == 128 { u128::MAX } else { (1 << n) - 1 };
            // Logical slice i is physical (head + i) mod n.
            let ring = if self.head == 0 {
                mask
            } else {
                ((mask >> self.head) | (mask << (n - self.head))) & all
            };
            let (mut run, mut len) = (ring, 1);
            while len < self.k {
                let step = len.min(self.k - len);
                run &= run >> step;
                len += step;
            }
            run != 0
        }

        pub(crate) fn contains(&self, hash: u128) -> bool {
            self.has_run(self.mask(hash))
        }

        /// [`contains`](Self::contains) with the portable mask.
        pub(crate) fn contains_portable(&self, hash: u128) -> bool {
            self.has_run(self.mask_portable(hash))
        }

        /// Whether the AVX-512 mask equals the portable one for `hash` (true without AVX-512).
        pub(crate) fn masks_agree(&self, hash: u128) -> bool {
            self.mask(hash) == self.mask_portable(hash)
        }
    }

    // The AVX-512 intrinsics and target features are stable from Rust 1.89, above the
    // workspace's declared 1.85 (bloom-core's `#[target_feature(enable = "avx512f")]`
    // needs 1.89 as well); clippy's MSRV check flags only the intrinsics.
    #[cfg(target_arch = "x86_64")]
    #[allow(clippy::incompatible_msrv)]
    mod avx512 {
        use std::arch::x86_64::*;

        /// Proof that the CPU has AVX-512 F and DQ; made only by [`Avx512::detect`].
        #[derive(Debug, Clone, Copy)]
        pub(crate) struct Avx512 {
            _detected: (),
        }

        impl Avx512 {
            pub(crate) fn detect() -> Option<Avx512> {
                (std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512dq"))
                .then_some(Avx512 { _detected: () })
            }
        }

        /// The mask of a row of `slices` blocks (at most 128) of `row.len() / slices` words
        /// (1 or 2).
        #[inline(always)]
        pub(crate) fn mask(_token: Avx512, row: &[u64], slices: u32, x: u32, c: u32) -> u128 {
            assert!(slices <= 128 && matches!(row.len() / slices as usize, 1 | 2));
            // SAFETY: the token proves the CPU has AVX-512 F and DQ.
            unsafe {
                if row.len() == slices as usize {
                    mask_avx512::<1>(row, x, c)
                } else {
                    mask_avx512::<2>(row, x, c)
                }
            }
        }

        /// The mask of a row of blocks of `WORDS` words (1 or 2).
        ///
        /// # Safety
        ///
        /// The CPU must have AVX-512 F and DQ; `row.len()` must be `WORDS` times the slices,
        /// at most 128 slices.
        #[target_feature(enable = "avx512f,avx512dq")]
        unsafe fn mask_avx512<const WORDS: u32>(row: &[u64], x: u32, c: u32) -> u128 {
            let slices = row.len() as u32 / WORDS;
            debug_assert!(row.len() as u32 == WORDS * slices && slices <= 128);
            let lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
            let pairs = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
            let (vx, vc) = (_mm512_set1_epi32(x as i32), _mm512_set1_epi32(c as i32));
            let mut mask = 0u128;
            let mut j = 0;
            while j < slices {
                let jj = _mm512_add_epi32(_mm512_set1_epi32(j as i32), lane);
                let mut h = _mm512_add_epi32(vx, _mm512_mullo_epi32(jj, vc));
                h = _mm512_xor_si512(h, _mm512_srli_epi32::<16>(h));
                h = _mm512_mullo_epi32(h, _mm512_set1_epi32(0x85eb_ca6b_u32 as i32));
                h = _mm512_xor_si512(h, _mm512_srli_epi32::<13>(h));
                h = _mm512_mullo_epi32(h, _mm512_set1_epi32(0xc2b2_ae35_u32 as i32));
                h = _mm512_xor_si512(h, _mm512_srli_epi32::<16>(h));
                // The top 6 or 7 bits.
                let pos = if WORDS == 1 {
                    _mm512_srli_epi32::<26>(h)
                } else {
                    _mm512_srli_epi32::<25>(h)
                };
                for (half, pos) in [
                    _mm512_castsi512_si256(pos),
                    _mm512_extracti64x4_epi64::<1>(pos),
                ]
                .into_iter()
                .enumerate()
                {
                    let first = j + 8 * half as u32;
                    if first >= slices {
                        break;
                    }
                    let pos = _mm512_cvtepu32_epi64(pos);
                    // The words of slices first..first + 8 that lie in the row.
                    let words = WORDS * (slices - first).min(8);
                    let live = if words == 16 {
                        u16::MAX
                    } else {
                        (1u16 << words) - 1
                    };
                    let at = row.as_ptr().wrapping_add((WORDS * first) as usize);
                    // SAFETY: a masked load reads only its live lanes, words
                    // `WORDS first .. WORDS first + words` of the row, inside it; the
                    // pointers are only offset with `wrapping_add`.
                    let word = unsafe {
                        let low = _mm512_maskz_loadu_epi64(live as u8, at.cast());
                        if WORDS == 1 {
                            low
                        } else {
                            let high = _mm512_maskz_loadu_epi64(
                                (live >> 8) as u8,
                                at.wrapping_add(8).cast(),
                            );
                            let which = _mm512_add_epi64(pairs, _mm512_srli_epi64::<6>(pos));
                            _mm512_permutex2var_epi64(low, which, high)
                        }
                    };
                    let bit = _mm512_sllv_epi64(
                        _mm512_set1_epi64(1),
                        _mm512_and_si512(pos, _mm512_set1_epi64(63)),
                    );
                    // Lanes past the row read zero words (masked off above): never set.
                    let set = _mm512_test_epi64_mask(word, bit);
                    mask |= u128::from(set) << first;
                }
                j += 16;
            }
            mask
        }
    }
}

#[cfg(test)]
mod tests {
    use super::blocked::Prototype;
    use bloom_core::keys::SplitMix64;

    /// Hashes as the bench feeds them: two 64-bit halves.
    fn hashes(seed: u64, count: usize) -> Vec<u128> {
        let mut rng = SplitMix64(seed);
        (0..count)
            .map(|_| u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64()))
            .collect()
    }

    /// The prototype finds every key of its window, and its AVX-512 mask (where the CPU has
    /// it) is the portable one, for ring sizes around the 8- and 16-slice steps.
    #[test]
    fn prototype_keeps_its_window_and_its_masks_agree() {
        for (k, l, block_words) in [
            (10, 80, 2),
            (10, 80, 1),
            (3, 5, 2),
            (4, 12, 1),
            (7, 9, 2),
            (7, 9, 1),
            (16, 112, 1),
            (16, 112, 2),
            (1, 1, 2),
        ] {
            let generation_len = 50;
            let bits = 4_000 * u64::from(k + l);
            let mut p = Prototype::new(k, l, generation_len, bits, block_words);
            let keys = hashes(u64::from(k * 1000 + l), 30 * generation_len as usize);
            for (i, &h) in keys.iter().enumerate() {
                p.insert(h);
                if i % 97 == 0 {
                    let window = (u64::from(l) * generation_len) as usize;
                    let start = (i + 1).saturating_sub(window);
                    assert!(keys[start..=i].iter().all(|&h| p.contains(h)), "{k} {l}");
                }
            }
            for &h in keys.iter().chain(&hashes(7, 2_000)) {
                assert!(p.masks_agree(h), "k {k} l {l}");
                assert_eq!(p.contains(h), p.contains_portable(h));
            }
        }
    }
}
