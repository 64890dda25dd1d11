//! Measures the false-positive rate of `BlockedBloomFilter` on u64 keys: at exactly 10 bits
//! per key (k from the blocked table), and as sized by `new(n, 0.01)`; with the theory beside
//! each, and `SplitBlockBloomFilter::new(n, 0.01)` for comparison.
//!
//! ```text
//! cargo run --release -p bloom-blocked --example accuracy [n] [negatives]
//! ```

use bloom_blocked::{BlockedBloomFilter, SplitBlockBloomFilter};
// The workspace's seeded key generator, so every run measures the same keys.
use bloom_core::keys::SplitMix64;

fn main() -> Result<(), bloom_blocked::Error> {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().map_or(10_000_000, |a| a.parse().expect("n"));
    let negatives: usize = args
        .next()
        .map_or(10_000_000, |a| a.parse().expect("negatives"));
    let keys: Vec<u64> = SplitMix64(1).take(n as usize).collect();
    // Distinct seeds: collisions between the sets have probability about 2^-64 per pair.
    let absent: Vec<u64> = SplitMix64(2).take(negatives).collect();
    let rate = |hits: usize| hits as f64 / negatives as f64;

    let k = BlockedBloomFilter::optimal_num_hashes(10.0);
    let mut ten = BlockedBloomFilter::with_params(10 * n, k)?;
    ten.insert_all(&keys);
    let fp = ten.contains_batch(&absent).iter().filter(|&&b| b).count();
    println!(
        "10 bits per key, k = {k}: measured FPR {:.4}% ({fp} of {negatives}), theory {:.4}%",
        100.0 * rate(fp),
        100.0 * ten.expected_fpr(n)
    );

    let mut sized = BlockedBloomFilter::new(n, 0.01)?;
    sized.insert_all(&keys);
    let fp = sized.contains_batch(&absent).iter().filter(|&&b| b).count();
    println!(
        "new(n, 0.01): {:.3} bits per key, k = {}: measured FPR {:.4}% ({fp} of {negatives}), \
         theory {:.4}%",
        sized.num_bits() as f64 / n as f64,
        sized.num_hashes(),
        100.0 * rate(fp),
        100.0 * sized.expected_fpr(n)
    );
    assert!(
        keys.iter().all(|key| sized.contains(key)),
        "no false negatives"
    );

    let mut split = SplitBlockBloomFilter::new(n, 0.01)?;
    for key in &keys {
        split.insert_i64(*key as i64);
    }
    let fp = absent
        .iter()
        .filter(|&&key| split.contains_i64(key as i64))
        .count();
    println!(
        "SplitBlockBloomFilter::new(n, 0.01): {:.3} bits per key: measured FPR {:.4}%",
        (split.num_bytes() * 8) as f64 / n as f64,
        100.0 * rate(fp)
    );
    Ok(())
}
