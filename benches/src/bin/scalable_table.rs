//! Measures what growth costs a `ScalableBloomFilter` for each growth factor and tightening
//! ratio: memory against a classic filter sized for the final number of keys, and the
//! false-positive rate measured on keys never inserted. The table in `docs/scalable.md`
//! (from which the defaults were chosen) is this program's output.
//!
//! ```text
//! cargo run --release -p bloom-benches --bin scalable_table [initial_capacity] [fpr]
//! ```

use bloom_benches::u64_keys;
use bloom_classic::BloomFilter;
use bloom_scalable::ScalableBloomFilter;

const GROWTHS: [u64; 3] = [10, 100, 1000];
const GROWTH_FACTORS: [u32; 2] = [2, 4];
const RATIOS: [f64; 7] = [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9];
/// Keys never inserted, queried per filter: about 2,000 false positives at 1%.
const NEGATIVES: usize = 200_000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n0: u64 = args
        .next()
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(10_000);
    let fpr: f64 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(0.01);
    let keys = u64_keys((n0 * GROWTHS[GROWTHS.len() - 1]) as usize, 1);
    let negatives = u64_keys(NEGATIVES, 2);

    println!(
        "n0 = {n0}, P = {fpr}; memory as a multiple of a classic filter sized for the final keys at P"
    );
    println!();
    println!("| s | r | growth | layers | memory ratio | bits per key | measured FPR |");
    println!("|---|---|---|---|---|---|---|");
    for growth in GROWTHS {
        let n = n0 * growth;
        let classic = BloomFilter::new(n, fpr)?.memory_usage() as f64;
        for s in GROWTH_FACTORS {
            for r in RATIOS {
                let mut f = ScalableBloomFilter::builder(n0, fpr)
                    .growth_factor(s)
                    .tightening_ratio(r)
                    .build()?;
                f.insert_all(&keys[..n as usize])?;
                let fp = negatives.iter().filter(|k| f.contains(*k)).count();
                let memory = f.memory_usage() as f64;
                println!(
                    "| {s} | {r} | {growth}x | {} | {:.3} | {:.2} | {:.4}% |",
                    f.num_layers(),
                    memory / classic,
                    memory * 8.0 / n as f64,
                    100.0 * fp as f64 / NEGATIVES as f64
                );
            }
        }
    }
    Ok(())
}
