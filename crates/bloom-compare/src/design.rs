//! The design space of the fixed-size layouts: each layout at each of its k, at several
//! memory budgets in bits per key, on the same keys: the measured rate, the insert and the
//! query times. The trade-off table Boost.Bloom publishes for its filters (for three
//! compilers), made on the reader's own machine for this workspace's layouts.
//!
//! Every filter is built with `with_params(c × n, k)` (the layout rounds the bits up to its
//! blocks), holds the same `n` keys, and is timed on one thread: `insert_all`, `contains` on
//! present and absent keys, and `contains_batch_into` on absent keys, best of three passes.

use std::hint::black_box;
use std::time::Instant;

use bloom_blocked::{Blocked, Multiblock, Multiblock32};
use bloom_classic::Classic;
use bloom_core::engine::{BitStore, Engine, Layout};
use bloom_core::keys::{SplitMix64, distinct_keys};
use serde::{Deserialize, Serialize};

/// The memory budgets measured, in bits per key.
pub const BITS_PER_KEY: [u32; 4] = [8, 12, 16, 20];

/// The largest key count the design sweep uses: out of a core's private caches, in the
/// last-level cache of the machines it was written on.
pub const MAX_KEYS: u64 = 1_000_000;

/// One layout at one k and one memory budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DesignRow {
    /// The layout's type (`BloomFilter`, `BlockedBloomFilter`, ...).
    pub layout: String,
    /// Bits set per key.
    pub k: u32,
    /// The budget asked for, in bits per key.
    pub budget: u32,
    /// The bits per key the layout took (its sizes round up to whole blocks).
    pub bits_per_key: f64,
    /// Keys held.
    pub n: u64,
    /// Absent keys queried.
    pub negatives: u64,
    /// The share of them answered "present".
    pub fpr: f64,
    /// The rate the layout's formula expects.
    pub expected_fpr: f64,
    /// `insert_all`, ns per key.
    pub insert_ns: f64,
    /// `contains` on present keys, ns per key.
    pub present_ns: f64,
    /// `contains` on absent keys, ns per key.
    pub absent_ns: f64,
    /// `contains_batch_into` on absent keys, ns per key.
    pub batch_absent_ns: f64,
}

/// The keys one sweep shares between its filters.
struct Keys {
    present: Vec<u64>,
    /// Present keys in a random order, for the query.
    shuffled: Vec<u64>,
    absent: Vec<u64>,
}

/// The best of three passes of `f` over `count` keys, in ns per key (`f` returns a count,
/// which is kept from the optimiser). The scale run times its queries with it too.
pub fn best_ns(count: usize, mut f: impl FnMut() -> usize) -> f64 {
    (0..3)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed().as_nanos() as f64 / count as f64
        })
        .fold(f64::MAX, f64::min)
}

/// Builds the layout `L` at `k` for `budget` bits per key and measures it, or `None` when
/// the layout does not take that k.
fn measure<L: Layout>(k: u32, budget: u32, keys: &Keys) -> Option<DesignRow> {
    let n = keys.present.len() as u64;
    let bits = u64::from(budget) * n;
    let mut insert_ns = f64::MAX;
    let mut filter = None;
    for _ in 0..3 {
        let mut f = Engine::<L, BitStore>::with_params(bits, k).ok()?;
        let start = Instant::now();
        f.insert_all(&keys.present);
        insert_ns = insert_ns.min(start.elapsed().as_nanos() as f64 / n as f64);
        filter = Some(f);
    }
    let f = filter?;
    let mut out = Vec::with_capacity(keys.absent.len());
    f.contains_batch_into(&keys.absent, &mut out);
    let false_positives = out.iter().filter(|&&b| b).count() as u64;
    let present_ns = best_ns(keys.shuffled.len(), || {
        keys.shuffled
            .iter()
            .filter(|k| black_box(&f).contains(*k))
            .count()
    });
    let absent_ns = best_ns(keys.absent.len(), || {
        keys.absent
            .iter()
            .filter(|k| black_box(&f).contains(*k))
            .count()
    });
    let batch_absent_ns = best_ns(keys.absent.len(), || {
        f.contains_batch_into(&keys.absent, &mut out);
        out.iter().filter(|&&b| b).count()
    });
    Some(DesignRow {
        layout: L::NAME.to_string(),
        k,
        budget,
        bits_per_key: f.num_bits() as f64 / n as f64,
        n,
        negatives: keys.absent.len() as u64,
        fpr: false_positives as f64 / keys.absent.len() as f64,
        expected_fpr: f.expected_fpr(n),
        insert_ns,
        present_ns,
        absent_ns,
        batch_absent_ns,
    })
}

/// The k measured for a layout that chooses its k at `budget` bits per key: the layout's
/// best k and the two on each side of it (within 1..=16).
fn ks_around(best: u32) -> impl Iterator<Item = u32> {
    best.saturating_sub(2).max(1)..=(best + 2).min(16)
}

/// The design sweep: `n` keys (at most [`MAX_KEYS`]) from `seed`, the classic and blocked
/// layouts at their best k and two on each side, the two multiblock layouts at their one
/// k of 8, at every budget of [`BITS_PER_KEY`], and `2 × n` absent keys (at least a
/// million). `progress` is called after each filter with the number done and the total.
pub fn run(n: u64, seed: u64, progress: &mut dyn FnMut(usize, usize)) -> Vec<DesignRow> {
    let n = n.clamp(1, MAX_KEYS);
    let present: Vec<u64> = distinct_keys(seed << 40, n).collect();
    let mut pick = SplitMix64(seed ^ 0x5eed);
    let shuffled = (0..n).map(|_| present[pick.below(n) as usize]).collect();
    let absent = distinct_keys((seed << 40) + (1 << 39), (2 * n).max(1_000_000)).collect();
    let keys = Keys {
        present,
        shuffled,
        absent,
    };
    let mut plan: Vec<(&str, u32, u32)> = Vec::new();
    for budget in BITS_PER_KEY {
        let c = f64::from(budget);
        let classic = (c * std::f64::consts::LN_2).round() as u32;
        plan.extend(ks_around(classic).map(|k| ("classic", k, budget)));
        let blocked = bloom_blocked::BlockedBloomFilter::optimal_num_hashes(c);
        plan.extend(ks_around(blocked).map(|k| ("blocked", k, budget)));
        plan.push(("multiblock", 8, budget));
        plan.push(("multiblock32", 8, budget));
    }
    let mut rows = Vec::new();
    for (done, &(layout, k, budget)) in plan.iter().enumerate() {
        let row = match layout {
            "classic" => measure::<Classic>(k, budget, &keys),
            "blocked" => measure::<Blocked>(k, budget, &keys),
            "multiblock" => measure::<Multiblock>(k, budget, &keys),
            _ => measure::<Multiblock32>(k, budget, &keys),
        };
        rows.extend(row);
        progress(done + 1, plan.len());
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every layout is measured at every budget, the multiblock layouts at k = 8 only, the
    /// others at five k around their best; the rates are those of filters that hold their
    /// keys (not above twice the formula) and the times are positive.
    #[test]
    fn every_layout_at_every_budget() {
        let rows = run(5_000, 3, &mut |_, _| {});
        for budget in BITS_PER_KEY {
            for layout in [
                "BloomFilter",
                "BlockedBloomFilter",
                "MultiblockBloomFilter",
                "Multiblock32BloomFilter",
            ] {
                let of: Vec<&DesignRow> = rows
                    .iter()
                    .filter(|r| r.layout == layout && r.budget == budget)
                    .collect();
                let expected = if layout.starts_with("Multiblock") {
                    1
                } else {
                    5
                };
                assert_eq!(of.len(), expected, "{layout} at {budget}");
                for r in of {
                    assert!(r.bits_per_key >= f64::from(budget), "{r:?}");
                    assert!(r.fpr <= 2.0 * r.expected_fpr + 1e-4, "{r:?}");
                    assert!(r.insert_ns > 0.0 && r.present_ns > 0.0, "{r:?}");
                    assert!(r.absent_ns > 0.0 && r.batch_absent_ns > 0.0, "{r:?}");
                }
            }
        }
    }
}
