//! Times ways of querying a `ScalableBloomFilter`'s layers on the filter of the benchmark
//! (100,000 to 10 million u64 keys at 1%, 7 layers): the evidence behind the query design
//! described in `docs/scalable.md`.
//!
//! Each variant answers from the same precomputed hashes through the filter's public parts
//! (its layers' bit stores, `Steps`, `BitStore::pair_set` and `prefetch_pair`); every one is
//! checked against the filter's own answers first. The keys are cut into chunks of 10,000;
//! each round, five in all, times a pass over all the chunks for each variant and one for
//! `growable-bloom-filter`, each after an untimed pass of its own, in an order that
//! alternates from round to round ([`chunked_ratios`]), so each structure is timed in the
//! cache state its own queries make. The time is the thread's CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`), so time the scheduler gives to other processes of a shared
//! machine is not counted. Printed: the median ns per query over
//! the chunks, and the median over the chunks of `growable-bloom-filter`'s time divided by
//! the variant's (both timed on the same chunk in the same round), the figure that survives
//! a noisy machine.
//! The crate's own `contains`, `contains_hash` and `contains_batch` are timed alongside, and
//! variants of the batch pipeline (from precomputed hashes).
//!
//! ```text
//! cargo run --release -p bloom-benches --bin scalable_query_variants
//! ```

use std::hint::black_box;

use bloom_benches::{chunked_ratios, thread_cpu_ns, u64_keys};
use bloom_core::bits::BitStore;
use bloom_core::internal::{Probes, Steps, test_bit};
use bloom_scalable::ScalableBloomFilter;
use growable_bloom_filter::GrowableBloom;

/// Times each chunk is timed, per variant.
const ROUNDS: usize = 5;
/// Queries per timed chunk.
const CHUNK: usize = 10_000;
/// Chunks of present and of absent keys.
const CHUNKS: usize = 20;

/// What a query needs of one layer.
struct Meta<'a> {
    bits: &'a BitStore,
    num_hashes: u32,
    pairs: u32,
}

fn metas(f: &ScalableBloomFilter) -> Vec<Meta<'_>> {
    f.layers()
        .iter()
        .map(|l| Meta {
            bits: l.filter().bits(),
            num_hashes: l.filter().num_hashes(),
            pairs: l.filter().num_hashes().div_ceil(2),
        })
        .collect()
}

/// Pair `j` of the key whose step j is `x` (the lone last probe when k is odd).
fn pair(m: &Meta<'_>, x: u64, j: u32) -> bool {
    m.bits.pair_set(x, j == m.num_hashes / 2)
}

/// The step values `x_0 ..` of a key, for the variants that use them out of order.
fn step_values(meta: &[Meta<'_>], h: u128) -> [u64; 32] {
    let mut xs = [0u64; 32];
    let max_pairs = meta.iter().map(|m| m.pairs).max().unwrap_or(0) as usize;
    let mut steps = Steps::new(h);
    for x in &mut xs[..max_pairs] {
        *x = steps.next_value();
    }
    xs
}

/// Calls `f` with the index of every set bit of `mask`, lowest first.
fn each(mut mask: u64, mut f: impl FnMut(usize)) {
    while mask != 0 {
        f(mask.trailing_zeros() as usize);
        mask &= mask - 1;
    }
}

/// The query before this design: newest first, each layer stopping at its first zero bit,
/// probe by probe (bounds-checked).
fn per_probe(meta: &[Meta<'_>], h: u128) -> bool {
    meta.iter().rev().any(|m| {
        let words = m.bits.as_words();
        Probes::new(h, m.num_hashes, m.bits.len()).all(|pos| test_bit(words, pos))
    })
}

/// Newest first, each layer stopping at its first pair with a zero bit.
fn per_pair(meta: &[Meta<'_>], h: u128) -> bool {
    meta.iter().rev().any(|m| {
        let mut s = Steps::new(h);
        (0..m.pairs).all(|j| pair(m, s.next_value(), j))
    })
}

/// As `per_pair`, each layer prefetching its pair 1 before testing its pair 0 (what
/// `contains_hash` does).
fn per_pair_next_prefetched(meta: &[Meta<'_>], h: u128) -> bool {
    meta.iter().rev().any(|m| {
        let mut s = Steps::new(h);
        let x0 = s.next_value();
        if m.pairs > 1 {
            m.bits.prefetch_pair(s.value());
        }
        pair(m, x0, 0) && (1..m.pairs).all(|j| pair(m, s.next_value(), j))
    })
}

/// Level-synchronous: stage j tests pair j of every layer still in the running, with no
/// branch between layers; stops when a layer has passed all its pairs or none is left.
/// With `AHEAD`, each stage also prefetches pair j + 1 of the layers it tests.
fn lockstep<const AHEAD: bool>(meta: &[Meta<'_>], h: u128) -> bool {
    let xs = step_values(meta, h);
    let mut alive = u64::MAX >> (64 - meta.len());
    let mut j = 0u32;
    loop {
        let mut next = 0u64;
        let mut done = false;
        each(alive, |i| {
            let m = &meta[i];
            if AHEAD && j + 1 < m.pairs {
                m.bits.prefetch_pair(xs[j as usize + 1]);
            }
            let pass = pair(m, xs[j as usize], j);
            next |= u64::from(pass) << i;
            done |= pass & (j + 1 == m.pairs);
        });
        if done {
            return true;
        }
        alive = next;
        if alive == 0 {
            return false;
        }
        j += 1;
    }
}

/// Pair 0 of every layer without a branch; the survivors prefetch their remaining pairs,
/// then are tested newest first, each stopping at its first failed pair.
fn first_pairs_then_survivors(meta: &[Meta<'_>], h: u128) -> bool {
    let xs = step_values(meta, h);
    let mut alive = 0u64;
    for (i, m) in meta.iter().enumerate() {
        alive |= u64::from(pair(m, xs[0], 0)) << i;
    }
    if alive == 0 {
        return false;
    }
    each(alive, |i| {
        let m = &meta[i];
        for &x in &xs[1..m.pairs as usize] {
            m.bits.prefetch_pair(x);
        }
    });
    while alive != 0 {
        let i = 63 - alive.leading_zeros() as usize;
        alive &= !(1 << i);
        let m = &meta[i];
        if (1..m.pairs).all(|j| pair(m, xs[j as usize], j)) {
            return true;
        }
    }
    false
}

/// Pairs 0 and 1 of every layer prefetched; then newest first, each layer testing both
/// without a branch between them, then stopping at its first failed pair.
fn two_pairs_prefetched(meta: &[Meta<'_>], h: u128) -> bool {
    let xs = step_values(meta, h);
    for m in meta.iter().rev() {
        for &x in &xs[..m.pairs.min(2) as usize] {
            m.bits.prefetch_pair(x);
        }
    }
    meta.iter().rev().any(|m| {
        let head = (0..m.pairs.min(2)).fold(true, |a, j| a & pair(m, xs[j as usize], j));
        head && (2..m.pairs).all(|j| pair(m, xs[j as usize], j))
    })
}

/// Pair 0 of every layer, then pair 1 of every layer, without a branch: a layer whose pair 0
/// failed tests its pair 0 again (a line already loaded) instead of pair 1, chosen by
/// arithmetic, so an absent key costs no misprediction in its first two rounds and the
/// processor can start on the next key. Only the layers that pass both are then tested
/// further, newest first.
fn two_rounds_branch_free(meta: &[Meta<'_>], h: u128) -> bool {
    let mut s = Steps::new(h);
    let x0 = s.next_value();
    let x1 = s.value();
    let mut alive = 0u64;
    for (i, m) in meta.iter().enumerate() {
        alive |= u64::from(pair(m, x0, 0)) << i;
    }
    let mut alive2 = 0u64;
    for (i, m) in meta.iter().enumerate() {
        let a = (alive >> i) & 1;
        let x = x0 ^ ((x0 ^ x1) & black_box(a.wrapping_neg()));
        let pass = if m.pairs > 1 { pair(m, x, 1) } else { true };
        alive2 |= (a & u64::from(pass)) << i;
    }
    if alive2 == 0 {
        return false;
    }
    s.next_value();
    while alive2 != 0 {
        let i = 63 - alive2.leading_zeros() as usize;
        alive2 &= !(1 << i);
        let m = &meta[i];
        let mut t = s;
        if (2..m.pairs).all(|j| pair(m, t.next_value(), j)) {
            return true;
        }
    }
    false
}

/// A timing floor, not a query (its answers are wrong): pair 0 of every layer without a
/// branch, as if every absent key were rejected by its first pairs.
fn floor_first_pairs_only(meta: &[Meta<'_>], h: u128) -> bool {
    let x0 = Steps::new(h).value();
    meta.iter().fold(false, |any, m| any | pair(m, x0, 0))
}

/// A batch pipeline like `contains_batch`, `D` keys between stages: prefetch every layer's
/// first pair; test it, the layers that pass prefetch their second pair (with
/// `REST_EARLY`, all their remaining pairs, and the next stage answers); test that, the
/// layers that pass again prefetch the rest; answer.
fn pipeline<const D: usize, const REST_EARLY: bool>(
    meta: &[Meta<'_>],
    hashes: &[u128],
    out: &mut Vec<bool>,
) {
    out.clear();
    let n = hashes.len();
    let last_stage = if REST_EARLY { 2 } else { 3 };
    let mut alive = vec![0u64; n];
    for t in 0..n + last_stage * D {
        if t < n {
            let x0 = Steps::new(hashes[t]).value();
            for m in meta.iter().rev() {
                m.bits.prefetch_pair(x0);
            }
        }
        if let Some(k) = t.checked_sub(D).filter(|&k| k < n) {
            let mut steps = Steps::new(hashes[k]);
            let x0 = steps.next_value();
            let mut mask = 0u64;
            for (i, m) in meta.iter().enumerate() {
                mask |= u64::from(pair(m, x0, 0)) << i;
            }
            alive[k] = mask;
            each(mask, |i| {
                let m = &meta[i];
                let mut s = steps;
                let end = if REST_EARLY { m.pairs } else { m.pairs.min(2) };
                for _ in 1..end {
                    m.bits.prefetch_pair(s.next_value());
                }
            });
        }
        if !REST_EARLY && let Some(k) = t.checked_sub(2 * D).filter(|&k| k < n) {
            let mut steps = Steps::new(hashes[k]);
            steps.next_value();
            let x1 = steps.next_value();
            let mut mask = alive[k];
            each(mask, |i| {
                let m = &meta[i];
                if m.pairs > 1 && !pair(m, x1, 1) {
                    mask &= !(1 << i);
                } else {
                    let mut s = steps;
                    for _ in 2..m.pairs {
                        m.bits.prefetch_pair(s.next_value());
                    }
                }
            });
            alive[k] = mask;
        }
        if let Some(k) = t.checked_sub(last_stage * D).filter(|&k| k < n) {
            let mut mask = alive[k];
            let mut found = false;
            while mask != 0 {
                let i = 63 - mask.leading_zeros() as usize;
                mask &= !(1 << i);
                let m = &meta[i];
                let mut s = Steps::new(hashes[k]);
                s.next_value();
                if (1..m.pairs).all(|j| pair(m, s.next_value(), j)) {
                    found = true;
                    break;
                }
            }
            out.push(found);
        }
    }
}

type Batch = (&'static str, fn(&[Meta<'_>], &[u128], &mut Vec<bool>));

/// CPU ns per item of counting the items `f` accepts.
fn ns_per_query<T>(items: &[T], f: impl Fn(&T) -> bool) -> f64 {
    let start = thread_cpu_ns() as f64;
    black_box(items.iter().filter(|x| f(x)).count());
    (thread_cpu_ns() as f64 - start) / items.len() as f64
}

type Variant = (&'static str, fn(&[Meta<'_>], u128) -> bool);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let present = u64_keys(10_000_000, 1);
    let absent = u64_keys(CHUNK * CHUNKS, 2);
    let mut ours = ScalableBloomFilter::new(100_000, 0.01)?;
    ours.insert_all(&present)?;
    let mut peer = GrowableBloom::new(0.01, 100_000);
    for k in &present {
        peer.insert(k);
    }
    let meta = metas(&ours);
    for (i, l) in ours.layers().iter().enumerate() {
        println!(
            "layer {i}: {} bits ({} KiB), k = {}, fill {:.4}",
            l.filter().num_bits(),
            l.filter().bits().heap_bytes() >> 10,
            l.filter().num_hashes(),
            l.filter().fill_ratio()
        );
    }
    // An absent key passes a pair of a layer filled to f with probability f^2.
    for j in 1..=4 {
        let none: f64 = ours
            .layers()
            .iter()
            .map(|l| 1.0 - l.filter().fill_ratio().powi(2 * j))
            .product();
        println!(
            "absent keys that some layer does not reject within its first {j} pair(s): {:.2}% \
             (from the fills)",
            100.0 * (1.0 - none)
        );
    }
    // Present keys spread over every layer.
    let present: Vec<u64> = present.iter().step_by(50).copied().collect();
    let variants: Vec<Variant> = vec![
        ("per probe, early exit (before)", per_probe),
        ("per pair, early exit", per_pair),
        ("per pair, pair 1 prefetched", per_pair_next_prefetched),
        ("lockstep", lockstep::<false>),
        ("lockstep, next pair prefetched", lockstep::<true>),
        ("first pairs, then survivors", first_pairs_then_survivors),
        ("two pairs of every layer prefetched", two_pairs_prefetched),
        ("two rounds without branches", two_rounds_branch_free),
        ("floor: first pairs only (wrong)", floor_first_pairs_only),
    ];
    let batches: Vec<Batch> = vec![
        ("batch: distance 2", pipeline::<2, false>),
        ("batch: distance 4", pipeline::<4, false>),
        ("batch: distance 8", pipeline::<8, false>),
        ("batch: all pairs after the first", pipeline::<4, true>),
    ];
    for (which, keys) in [("present", &present), ("absent", &absent)] {
        let hashes: Vec<u128> = keys.iter().map(|k| ours.hash(k)).collect();
        let expected: Vec<bool> = hashes.iter().map(|&h| ours.contains_hash(h)).collect();
        for (name, v) in variants.iter().filter(|(n, _)| !n.starts_with("floor")) {
            let got: Vec<bool> = hashes.iter().map(|&h| v(&meta, h)).collect();
            assert_eq!(got, expected, "{name} disagrees");
        }
        let mut out = Vec::new();
        ours.contains_batch_into(keys, &mut out);
        assert_eq!(out, expected, "contains_batch disagrees");
        for (name, b) in &batches {
            b(&meta, &hashes, &mut out);
            assert_eq!(out, expected, "{name} disagrees");
        }
        let n = variants.len() + batches.len();
        // Candidate c < n is a variant or batch, then the crate's three queries; n + 3 is
        // growable-bloom-filter, the reference. The chunks are given as indices into the
        // keys, so that the variants find their precomputed hashes.
        let index: Vec<u64> = (0..keys.len() as u64).collect();
        let candidates: Vec<usize> = (0..n + 3).collect();
        let t = chunked_ratios(&index, CHUNK, ROUNDS, &candidates, n + 3, |c, part| {
            let range = part[0] as usize..part[0] as usize + part.len();
            let (ks, hs) = (&keys[range.clone()], &hashes[range]);
            let batch = |b: &dyn Fn(&mut Vec<bool>)| {
                let mut out = Vec::with_capacity(hs.len());
                let start = thread_cpu_ns() as f64;
                b(&mut out);
                black_box(out.iter().filter(|&&x| x).count());
                (thread_cpu_ns() as f64 - start) / hs.len() as f64
            };
            if c < variants.len() {
                let v = variants[c].1;
                ns_per_query(hs, |&h| v(&meta, h))
            } else if c < n {
                let b = batches[c - variants.len()].1;
                batch(&|out| b(&meta, hs, out))
            } else if c == n {
                ns_per_query(hs, |&h| ours.contains_hash(h))
            } else if c == n + 1 {
                ns_per_query(ks, |k| ours.contains(k))
            } else if c == n + 2 {
                batch(&|out| ours.contains_batch_into(ks, out))
            } else {
                ns_per_query(ks, |k| peer.contains(k))
            }
        });
        let names = variants
            .iter()
            .map(|(n, _)| *n)
            .chain(batches.iter().map(|(n, _)| *n))
            .chain([
                "ScalableBloomFilter::contains_hash",
                "ScalableBloomFilter::contains",
                "ScalableBloomFilter::contains_batch",
            ]);
        println!(
            "{which} keys: median CPU ns per query over {} chunks of {CHUNK}; median of the \
             chunks' growable / variant",
            ROUNDS * CHUNKS
        );
        for (c, name) in names.enumerate() {
            println!(
                "  {name:<38} {:>6.0} ns  {:>5.2}x",
                t.median_time(c),
                1.0 / t.median_ratio(c)
            );
        }
        println!(
            "  {:<38} {:>6.0} ns  {:>5.2}x",
            "growable-bloom-filter",
            t.median_time(n + 3),
            1.0
        );
    }
    Ok(())
}
