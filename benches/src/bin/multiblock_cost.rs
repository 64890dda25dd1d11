//! Where the time of a 32-bit multiblock query goes, against `sbbf-rs-safe` 0.3 fed XXH3-64 of
//! the key's 8 little-endian bytes: `Multiblock32BloomFilter::contains` beside the same kind
//! of test rebuilt step by step, each step one design choice away from Boost.Bloom's
//! `fast_multiblock32<8>` (boostorg/bloom, `include/boost/bloom/fast_multiblock32.hpp`: one
//! multiply to hash an integer, the block by multiply-shift, eight 5-bit fields of the same
//! hash, one bit in each 32-bit word of a 256-bit block).
//!
//! The rebuilt queries run in a loop compiled for AVX2 and BMI2 as a whole (`#[target_feature]`,
//! intrinsics, the constants in registers), as a C++ build with `-march=native` runs Boost's;
//! the library's query runs in code built for the baseline target, with its `asm!` kernel and
//! its dispatch. The steps, each timed on the same present keys:
//!
//! - **library**: `Multiblock32BloomFilter::contains`.
//! - **loop**: the layout's first placement (the workspace's seeded hash, the line by
//!   multiply-shift, the field word re-mixed by one more multiply, its top bit choosing the
//!   line's half) in the AVX2 loop.
//! - **blocks**: 256-bit blocks picked directly by multiply-shift (no half from the field
//!   word, whose multiply the address then waits for).
//! - **shifted XOR**: the fields from `h ^ (h << 20)` instead of a re-mix: the library's
//!   placement, so that this step against the library's is what the compilation and the
//!   dispatch cost.
//! - **no re-mix**: the fields taken from the hash itself.
//! - **one multiply**: the hash one 64x64-bit multiply of the seeded key, folded (Boost's
//!   integer hash), instead of the workspace's two.
//!
//! Each step's false-positive rate is measured too, on random keys and on sequential ones (the
//! keys `0..n` inserted, `n..` queried), where a weaker hash shows first. The steps are
//! measurements of designs, not filters of the workspace: they have no format.
//!
//! The queries of each step are cut into chunks of 10,000 timed against `sbbf-rs-safe` on the
//! same chunk ([`chunked_ratios`](bloom_benches::chunked_ratios)); printed per n: each
//! step's median ns per query and its median ratio to the peer. Off x86-64, or without AVX2
//! and BMI2, it prints why it cannot run.
//!
//! ```text
//! cargo run --release -p bloom-benches --bin multiblock_cost [n ...]
//! ```

#[cfg(target_arch = "x86_64")]
fn main() {
    if !std::arch::is_x86_feature_detected!("avx2") || !std::arch::is_x86_feature_detected!("bmi2")
    {
        println!("multiblock_cost needs a CPU with AVX2 and BMI2");
        return;
    }
    steps::run();
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("multiblock_cost measures x86-64 kernels; this is another architecture");
}

#[cfg(target_arch = "x86_64")]
mod steps {
    use std::arch::x86_64::*;

    use bloom_benches::{QueryKeys, chunked_ratios, cpu_ns_per_key, sizes_from_args};
    use bloom_blocked::Multiblock32BloomFilter;
    use bloom_core::hash::Hashing;
    use xxhash_rust::xxh3::xxh3_64;

    /// Times each chunk is timed, per candidate.
    const ROUNDS: usize = 5;
    /// Queries per timed chunk.
    const CHUNK: usize = 10_000;
    /// Most queries per key set.
    const MAX_QUERIES: usize = 1_000_000;
    /// The target false-positive rate the library's filter is sized for.
    const FPR: f64 = 0.01;
    /// The seed of every step's hash.
    const SEED: u64 = 0x243F_6A88_85A3_08D3;
    /// The re-mix's and the one-multiply hash's multiplier: the 64-bit golden ratio.
    const MUL: u64 = 0x9E37_79B9_7F4A_7C15;
    /// The steps, in the order they are printed.
    const STEPS: [&str; 6] = [
        "library",
        "loop",
        "blocks",
        "shifted XOR",
        "no re-mix",
        "one multiply",
    ];
    /// The steps rebuilt in the AVX2 loop, in order.
    const LOOP_STEPS: [Step; 5] = [
        Step::Loop,
        Step::Blocks,
        Step::ShiftedXor,
        Step::NoRemix,
        Step::OneMultiply,
    ];

    /// The two halves of a 64x64-bit product, XORed.
    #[inline(always)]
    fn fold_mul(a: u64, b: u64) -> u64 {
        let p = u128::from(a) * u128::from(b);
        (p as u64) ^ ((p >> 64) as u64)
    }

    /// `floor(h * n / 2^64)`: a block below `n` from the hash's high bits.
    #[inline(always)]
    fn reduce(h: u64, n: usize) -> usize {
        ((u128::from(h) * n as u128) >> 64) as usize
    }

    /// A 256-bit block of eight 32-bit words.
    #[repr(C, align(32))]
    #[derive(Clone, Copy)]
    struct Block([u32; 8]);

    /// One step's design: how a key finds its block and its field word.
    #[derive(Clone, Copy, PartialEq)]
    enum Step {
        /// The layout's first placement: line and re-mixed fields, the half from the fields.
        Loop,
        /// Blocks by multiply-shift, fields re-mixed.
        Blocks,
        /// Blocks by multiply-shift, fields from the hash XORed with itself shifted: the
        /// library's placement.
        ShiftedXor,
        /// Blocks by multiply-shift, fields from the hash.
        NoRemix,
        /// As `NoRemix`, the hash one multiply.
        OneMultiply,
    }

    impl Step {
        /// The block (a 256-bit index into the filter) and the field word of `key`.
        #[inline(always)]
        fn locate(self, hashing: &Hashing, key: u64, num_blocks: usize) -> (usize, u64) {
            let h = match self {
                Step::OneMultiply => fold_mul(key ^ SEED, MUL),
                _ => hashing.hash64(&key),
            };
            match self {
                Step::Loop => {
                    let g = fold_mul(h, MUL);
                    (2 * reduce(h, num_blocks / 2) + (g >> 63) as usize, g)
                }
                Step::Blocks => (reduce(h, num_blocks), fold_mul(h, MUL)),
                Step::ShiftedXor => (reduce(h, num_blocks), h ^ (h << 20)),
                Step::NoRemix | Step::OneMultiply => (reduce(h, num_blocks), h),
            }
        }
    }

    /// A filter of 256-bit blocks, bit i of a key in 32-bit word i: word 2j from bits
    /// `5j..5j + 5` of the field word, word 2j + 1 from bits `32 + 5j..37 + 5j`.
    struct Blocks {
        step: Step,
        hashing: Hashing,
        blocks: Vec<Block>,
    }

    impl Blocks {
        fn new(step: Step, num_bits: u64) -> Blocks {
            Blocks {
                step,
                hashing: Hashing::Seeded(SEED),
                // An even count, so that the library's placement has whole lines.
                blocks: vec![Block([0; 8]); (num_bits / 512 * 2).max(2) as usize],
            }
        }

        fn insert(&mut self, key: u64) {
            let (b, g) = self.step.locate(&self.hashing, key, self.blocks.len());
            for j in 0..4 {
                self.blocks[b].0[2 * j] |= 1 << ((g >> (5 * j)) & 31);
                self.blocks[b].0[2 * j + 1] |= 1 << ((g >> (32 + 5 * j)) & 31);
            }
        }

        /// The keys of `keys` found.
        fn count(&self, keys: &[u64]) -> usize {
            // SAFETY: `main` checked that the CPU has AVX2 and BMI2.
            unsafe {
                match self.step {
                    Step::Loop => self.count_in::<0>(keys),
                    Step::Blocks => self.count_in::<1>(keys),
                    Step::ShiftedXor => self.count_in::<2>(keys),
                    Step::NoRemix => self.count_in::<3>(keys),
                    Step::OneMultiply => self.count_in::<4>(keys),
                }
            }
        }

        /// The query loop of step `S` (the index of [`Step`]'s variant), compiled for AVX2
        /// and BMI2.
        #[target_feature(enable = "avx2,bmi2")]
        fn count_in<const S: u8>(&self, keys: &[u64]) -> usize {
            let step = LOOP_STEPS[S as usize];
            let shifts = _mm256_set_epi64x(15, 10, 5, 0);
            let low5 = _mm256_set1_epi32(31);
            let ones = _mm256_set1_epi32(1);
            let mut found = 0;
            for &key in keys {
                let (b, g) = step.locate(&self.hashing, key, self.blocks.len());
                let fields = _mm256_and_si256(
                    _mm256_srlv_epi64(_mm256_set1_epi64x(g as i64), shifts),
                    low5,
                );
                // SAFETY: `locate` gives a block below `blocks.len()`; `Block` is 32 bytes
                // aligned to 32.
                let words = unsafe { _mm256_load_si256(self.blocks.as_ptr().add(b).cast()) };
                found += _mm256_testc_si256(_mm256_srlv_epi32(words, fields), ones) as usize;
            }
            found
        }
    }

    /// The hash `sbbf-rs-safe` is fed.
    fn peer_hash(key: &u64) -> u64 {
        xxh3_64(&key.to_le_bytes())
    }

    /// The rate of each step's filter (the library's first) on `absent` after `present`.
    fn rates(num_bits: u64, present: &[u64], absent: &[u64]) -> Vec<f64> {
        let mut ours = Multiblock32BloomFilter::new(present.len() as u64, FPR).expect("sized");
        ours.insert_all(present);
        let mut out = vec![absent.iter().filter(|k| ours.contains(*k)).count()];
        for step in LOOP_STEPS {
            let mut f = Blocks::new(step, num_bits);
            present.iter().for_each(|&k| f.insert(k));
            assert_eq!(f.count(present), present.len(), "a false negative");
            out.push(f.count(absent));
        }
        out.iter()
            .map(|&fp| fp as f64 / absent.len() as f64)
            .collect()
    }

    pub(super) fn run() {
        for n in sizes_from_args(&[100_000]) {
            let keys = QueryKeys::new(n, MAX_QUERIES);
            let mut ours = Multiblock32BloomFilter::new(n as u64, FPR).expect("sized");
            ours.insert_all(&keys.present);
            let num_bits = ours.num_bits();
            let steps: Vec<Blocks> = LOOP_STEPS
                .into_iter()
                .map(|step| {
                    let mut f = Blocks::new(step, num_bits);
                    keys.present.iter().for_each(|&k| f.insert(k));
                    f
                })
                .collect();
            let mut peer = sbbf_rs_safe::Filter::new(11, n);
            for k in &keys.present {
                peer.insert_hash(peer_hash(k));
            }
            let random = rates(num_bits, &keys.present, &keys.absent);
            let sequential: Vec<u64> = (0..n as u64).collect();
            let later: Vec<u64> = (n as u64..(n + n.min(MAX_QUERIES)) as u64).collect();
            let sequential = rates(num_bits, &sequential, &later);
            let queries = &keys.present[..n.min(MAX_QUERIES)];
            let t = chunked_ratios(
                queries,
                CHUNK,
                ROUNDS,
                &[0, 1, 2, 3, 4, 5],
                6,
                |c, chunk| {
                    cpu_ns_per_key(chunk, |q| match c {
                        0 => q.iter().filter(|k| ours.contains(*k)).count(),
                        1..=5 => steps[c - 1].count(q),
                        _ => q
                            .iter()
                            .filter(|k| peer.contains_hash(peer_hash(k)))
                            .count(),
                    })
                },
            );
            println!(
                "n = {n}, {:.2} bits per key; sbbf-rs-safe {:.2} ns",
                num_bits as f64 / n as f64,
                t.median_time(6)
            );
            println!("| step | ns | / sbbf-rs-safe | rate, random keys | rate, sequential keys |");
            println!("|---|---|---|---|---|");
            for (c, name) in STEPS.iter().enumerate() {
                println!(
                    "| {name} | {:.2} | {:.3} | {:.3}% | {:.3}% |",
                    t.median_time(c),
                    t.median_ratio(c),
                    random[c] * 100.0,
                    sequential[c] * 100.0
                );
            }
        }
    }
}
