//! What the aging filter's layout costs in memory: the blocked layout it has (blocks of
//! B = 128 bits, sized by the crate) against blocks of 64 bits and against the separate
//! slices it had before (docs/aging.md, "Layout").
//!
//! In the blocked layout (the Age-Partitioned Blocked Bloom Filter of Shtul, Baquero,
//! Almeida, arXiv 2001.03147) a key picks one row, and every slice gives each row a block of
//! B bits, the blocks of one row side by side. A query reads one row instead of one word in
//! each slice. The price is that the blocks of one row are loaded together: a row that
//! received more keys than the average in a generation is fuller in all k slices those keys
//! went to, which makes a run of k set bits, a false positive, likelier than with separate
//! slices (each key's bit anywhere in a slice, independently from slice to slice).
//!
//! The exact rate of a blocked layout is `bloom_aging::blocked_run_probability` (a transfer
//! matrix over the Poisson counts of each generation in a row; the crate's sizing uses it).
//! This bench checks it by a Monte Carlo: the keys of each generation land in a row in a
//! Poisson number, so a sampled row has the block fills `1 - (1 - 1/B)^S_i` (S_i the keys of
//! the generations slice i holds), the rate given the row is `run_probability` of them, and
//! the mean over `samples` sampled rows estimates the rate. A key `slack` generations past its
//! window has its `k - slack` bits left in the oldest slices: the same with those slices
//! counted as set. The bench prints the Monte Carlo's rate at the size found, divided by the
//! exact one.
//!
//! For each k: the separate slices' memory is the least multiple of 64 bits per slice whose
//! rates (by `run_probability` at the slices' expected fills) are at most p; B = 128 is the
//! filter's own sizing (`builder(window, p).slices(k, l).slack(slack)`); B = 64 the least
//! number of rows, searched upwards from the separate slices' memory in steps of 0.5%, whose
//! exact steady and expired rates are both at most p. Printed as bits per key of the window
//! and as a multiple of a pair of classic filters sized for the window at p
//! (`2 log2(1/p) / ln 2` bits per key, the optimum).
//!
//! ```text
//! cargo run --release -p bloom-benches --bin aging_layout [p l slack samples]
//! ```
//! (defaults: p = 0.01, l = 80, slack = 8 generations, 100,000 sampled rows).

use bloom_aging::{AgingBloomFilter, blocked_run_probability, run_probability};
use bloom_core::keys::SplitMix64;

/// The window of every configuration: the rates depend on it only through the keys per
/// row and generation, which the memory per key fixes.
const WINDOW: u64 = 100_000;
/// The step of the search for the blocked layout's memory.
const STEP: f64 = 0.005;
/// Where the search gives up, as a multiple of the separate slices' memory.
const MOST: f64 = 1.6;

/// A Poisson variate of mean `mean` (Knuth's product of uniforms; the means here are below
/// 20).
fn poisson(rng: &mut SplitMix64, mean: f64) -> u32 {
    let limit = (-mean).exp();
    let mut product = 1.0;
    let mut count = 0;
    loop {
        product *= (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        if product <= limit {
            return count;
        }
        count += 1;
    }
}

/// A configuration of the blocked layout.
struct Blocked {
    k: u32,
    l: u32,
    /// Keys per generation.
    generation_len: u64,
    block_bits: u32,
    rows: u64,
}

impl Blocked {
    /// The exact steady rate and that of a key `slack` generations past its window.
    fn exact_rates(&self, slack: u32) -> (f64, f64) {
        let slices = (self.k + self.l) as usize;
        let means = vec![self.generation_len as f64 / self.rows as f64; slices];
        let rate = |set_from: usize| {
            blocked_run_probability(self.k, &means, self.block_bits, set_from)
                .expect("k within the crate's limit")
        };
        (rate(slices), rate((self.l + slack) as usize))
    }

    /// The mean over `samples` sampled rows of the steady rate, and of the rate of a key
    /// `slack` generations past its window.
    fn rates(&self, slack: u32, samples: usize, rng: &mut SplitMix64) -> (f64, f64) {
        let (k, slices) = (self.k as usize, (self.k + self.l) as usize);
        let mean = self.generation_len as f64 / self.rows as f64;
        let empty = 1.0 - 1.0 / f64::from(self.block_bits);
        let mut keys = vec![0u32; slices];
        let mut fills = vec![0.0; slices];
        let (mut steady, mut expired) = (0.0, 0.0);
        for _ in 0..samples {
            // keys[a]: the row's keys of the generation of age a.
            for count in &mut keys {
                *count = poisson(rng, mean);
            }
            for (i, fill) in fills.iter_mut().enumerate() {
                let held: u32 = keys[i.saturating_sub(k - 1)..=i].iter().sum();
                *fill = 1.0 - empty.powi(held as i32);
            }
            steady += run_probability(fills.iter().copied(), self.k);
            let left = (self.l + slack) as usize;
            expired += run_probability(
                fills
                    .iter()
                    .enumerate()
                    .map(|(i, &f)| if i >= left { 1.0 } else { f }),
                self.k,
            );
        }
        (steady / samples as f64, expired / samples as f64)
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: f64| -> f64 {
        args.get(i)
            .map_or(default, |a| a.parse().expect("arguments are numbers"))
    };
    let (p, l, slack) = (arg(0, 0.01), arg(1, 80.0) as u32, arg(2, 8.0) as u32);
    let samples = arg(3, 100_000.0) as usize;
    let pair = 2.0 * (1.0 / p).log2() / std::f64::consts::LN_2;
    println!(
        "p = {p}, l = {l}, slack {slack} generations, window {WINDOW}, {samples} rows sampled; \
         a pair at p: {pair:.2} bits per key"
    );
    println!(
        "Blocked cells: bits per key (x the pair) [Monte Carlo / exact: steady, {slack} past]"
    );
    println!("| k | separate slices | B = 64 | B = 128 |");
    println!("|---:|---:|---:|---:|");
    let mut rng = SplitMix64(19);
    for k in 8..=13 {
        let Ok(filter) = AgingBloomFilter::builder(WINDOW, p)
            .slices(k, l)
            .slack(slack)
            .build()
        else {
            continue;
        };
        let g = filter.generation_len();
        let separate = separate_bits(k, l, g, p, slack);
        let per_key = |bits: f64| {
            let bits_per_key = bits / WINDOW as f64;
            format!("{bits_per_key:.2} ({:.3}x)", bits_per_key / pair)
        };
        let check = |blocked: &Blocked, rng: &mut SplitMix64| {
            let (steady, expired) = blocked.exact_rates(slack);
            let (mc_steady, mc_expired) = blocked.rates(slack, samples, rng);
            format!("[{:.3}, {:.3}]", mc_steady / steady, mc_expired / expired)
        };
        let mut row = format!("| {k} | {} |", per_key(separate));
        // B = 64: searched up from the separate slices.
        let row_bits = f64::from((k + l) * 64);
        let mut factor = 1.0;
        row += &loop {
            if factor > MOST {
                break format!(" above {MOST}x the separate slices |");
            }
            let blocked = Blocked {
                k,
                l,
                generation_len: g,
                block_bits: 64,
                rows: (separate * factor / row_bits).ceil() as u64,
            };
            let (steady, expired) = blocked.exact_rates(slack);
            if steady.max(expired) <= p {
                let bits = blocked.rows as f64 * row_bits;
                break format!(" {} {} |", per_key(bits), check(&blocked, &mut rng));
            }
            factor += STEP;
        };
        // B = 128: the filter as the crate sizes it.
        let blocked = Blocked {
            k,
            l,
            generation_len: g,
            block_bits: bloom_aging::BLOCK_BITS,
            rows: filter.num_rows(),
        };
        row += &format!(
            " {} {} |",
            per_key(filter.num_bits() as f64),
            check(&blocked, &mut rng)
        );
        println!("{row}");
    }
}

/// The memory of separate slices (the aging filter's layout before the blocked one): the
/// least multiple of 64 bits per slice whose steady rate and rate `slack` generations past
/// the window, by `run_probability` at the slices' expected fills, are at most `p`.
fn separate_bits(k: u32, l: u32, generation_len: u64, p: f64, slack: u32) -> f64 {
    let rate = |slice_bits: f64, set_from: u32| {
        run_probability(
            (0..k + l).map(|i| {
                if i >= set_from {
                    return 1.0;
                }
                let keys = f64::from(i.min(k - 1) + 1) * generation_len as f64;
                -(keys * (-1.0 / slice_bits).ln_1p()).exp_m1()
            }),
            k,
        )
    };
    let fits = |words: u64| {
        let bits = (words * 64) as f64;
        rate(bits, k + l).max(rate(bits, l + slack)) <= p
    };
    let mut hi = 1u64;
    while !fits(hi) {
        hi *= 2;
    }
    let words = bloom_core::math::smallest_fitting(hi / 2, hi, fits);
    (words * 64 * u64::from(k + l)) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The crate's exact rate and this bench's Monte Carlo agree.
    #[test]
    fn exact_rate_matches_the_monte_carlo() {
        let blocked = Blocked {
            k: 4,
            l: 6,
            generation_len: 100,
            block_bits: 64,
            rows: 40,
        };
        let (steady, expired) = blocked.exact_rates(2);
        let (mc_steady, mc_expired) = blocked.rates(2, 200_000, &mut SplitMix64(5));
        assert!(
            (mc_steady / steady - 1.0).abs() < 0.02,
            "{mc_steady} {steady}"
        );
        assert!(
            (mc_expired / expired - 1.0).abs() < 0.02,
            "{mc_expired} {expired}"
        );
        assert!(expired > steady);
    }
}
