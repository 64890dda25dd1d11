//! What a blocked layout of `AgingBloomFilter` would cost in memory: a Monte Carlo of its
//! false-positive rate, against the separate slices the filter has (docs/aging.md, "A blocked
//! layout").
//!
//! In a blocked layout (the Age-Partitioned Blocked Bloom Filter of Shtul, Baquero, Almeida,
//! arXiv 2001.03147) a key picks one row, and every slice gives each row a block of B bits,
//! the blocks of one row side by side: a key's bit in slice i is in its row's block of slice
//! i. A query then reads one row instead of one word in each slice. The price is that the
//! blocks of one row are loaded together: a row that received more keys than the average in a
//! generation is fuller in all k slices those keys went to, which makes a run of k set bits,
//! a false positive, likelier than the separate slices' theory says.
//!
//! The model: the keys of each generation land in a row independently with probability
//! 1/rows, so a row receives a Poisson number of them, independently from generation to
//! generation (the generations full, `ceil(window / l)` keys each, the steady state just
//! before a shift that `new` sizes for). Slice i (0 the newest) holds the keys of the
//! generations of ages `i - k + 1` to `i`, so its block in a row has the fill
//! `1 - (1 - 1/B)^S_i`, S_i those generations' keys in the row. Given a row, a key never
//! inserted finds its bits set independently from slice to slice, so the rate given the row
//! is [`run_probability`] of the row's fills, and the filter's rate its mean over rows,
//! estimated from `samples` sampled rows. A key `slack` generations past its window has its
//! `k - slack` bits left in the oldest slices: the same with those slices counted as set.
//!
//! The same mean has a closed form, computed exactly here ([`exact_rate`]) by a transfer
//! matrix: with q = 1 - 1/B, a slice's bit is clear with probability `q^S_i`, set with
//! `1 - q^S_i`; expanding the products over the slices of every sequence without a run of
//! k, each term is `± q^(sum of S_i over a set of slices)`, whose mean over the Poisson
//! counts is a product over generations of `exp(mean (q^c - 1))`, c the slices of the set that
//! hold the generation. A generation is held by k consecutive slices, so the terms can be
//! summed slice by slice over the states (run length so far, or a run found; which of the
//! last k - 1 slices are in the set): `(k + 1) 2^(k - 1)` states, a few milliseconds at
//! k = 10. Once a run is found the later slices' two terms cancel, so the found states carry
//! the rate itself. The bench prints the Monte Carlo's rate at the size found, divided by the
//! exact one, as the check of both.
//!
//! For each k, the separate slices' memory is the filter's own sizing
//! (`builder(window, p).slices(k, l).slack(slack)`); the blocked layout's is the least
//! number of rows, searched upwards from the same memory in steps of 0.5%, whose exact
//! steady and expired rates are both at most p. Printed as bits per key of the window and as a
//! multiple of a pair of classic filters sized for the window at p (`2 log2(1/p) / ln 2` bits
//! per key, the optimum).
//!
//! ```text
//! cargo run --release -p bloom-benches --bin aging_layout [p l slack samples]
//! ```
//! (defaults: p = 0.01, l = 80, slack = 8 generations, 100,000 sampled rows).

use bloom_aging::{AgingBloomFilter, run_probability};
use bloom_core::keys::SplitMix64;

/// The window of every configuration: the rates depend on it only through the keys per
/// row and generation, which the memory per key fixes.
const WINDOW: u64 = 100_000;
/// Block sizes, in bits per slice and row.
const BLOCK_BITS: [u32; 2] = [64, 128];
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

/// The rate of a blocked layout of `means.len()` slices and blocks of `block_bits` bits:
/// the probability, over the Poisson counts of each generation in the key's row (`means[a]`
/// the mean for the generation of age a) and over the key's positions, that k consecutive
/// slices have the key's bit set; slices from `set_from` on certainly have it (a key's
/// own bits left past its window). See the module docs for the recurrence.
fn exact_rate(k: u32, means: &[f64], block_bits: u32, set_from: usize) -> f64 {
    let (k, slices) = (k as usize, means.len());
    let empty = 1.0 - 1.0 / f64::from(block_bits);
    let held = (1usize << (k - 1)) - 1;
    let found = k;
    let index = |run: usize, set: usize| run << (k - 1) | set;
    let mut weights = vec![0.0; (k + 1) << (k - 1)];
    weights[0] = 1.0;
    let mut next = weights.clone();
    // factor[c]: the mean of q^(c S) over a generation's count S of mean `m`.
    let factors = |m: f64| -> Vec<f64> {
        (0..=k)
            .map(|c| (m * (empty.powi(c as i32) - 1.0)).exp())
            .collect()
    };
    for i in 0..slices {
        next.fill(0.0);
        // The generation of age i - k + 1 has all its slices once slice i is in.
        let factor = i.checked_sub(k - 1).map(|a| factors(means[a]));
        for run in 0..=found {
            for set in 0..=held {
                let weight = weights[index(run, set)];
                if weight == 0.0 {
                    continue;
                }
                let mut push = |to: usize, in_set: usize, sign: f64| {
                    let window = set << 1 | in_set;
                    let f = factor
                        .as_ref()
                        .map_or(1.0, |f| f[window.count_ones() as usize]);
                    next[index(to, window & held)] += sign * weight * f;
                };
                let longer = (run + 1).min(found);
                if run == found || i >= set_from {
                    push(longer, 0, 1.0);
                } else {
                    // Clear: q^S. Set: 1 - q^S, two terms.
                    push(0, 1, 1.0);
                    push(longer, 0, 1.0);
                    push(longer, 1, -1.0);
                }
            }
        }
        std::mem::swap(&mut weights, &mut next);
    }
    // The generations whose slices run past the last: held by the set's slices among them.
    (0..=held)
        .map(|set| {
            let pending: f64 = (slices + 1 - k..slices)
                .map(|a| factors(means[a])[(set & ((1 << (slices - a)) - 1)).count_ones() as usize])
                .product();
            weights[index(found, set)] * pending
        })
        .sum::<f64>()
        .clamp(0.0, 1.0)
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
        let steady = exact_rate(self.k, &means, self.block_bits, slices);
        let expired = exact_rate(self.k, &means, self.block_bits, (self.l + slack) as usize);
        (steady, expired)
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
        let separate = filter.num_bits() as f64;
        let per_key = |bits: f64| {
            let bits_per_key = bits / WINDOW as f64;
            format!("{bits_per_key:.2} ({:.3}x)", bits_per_key / pair)
        };
        let mut row = format!("| {k} | {} |", per_key(separate));
        for block_bits in BLOCK_BITS {
            let row_bits = f64::from((k + l) * block_bits);
            let mut factor = 1.0;
            let found = loop {
                if factor > MOST {
                    break None;
                }
                let blocked = Blocked {
                    k,
                    l,
                    generation_len: filter.generation_len(),
                    block_bits,
                    rows: (separate * factor / row_bits).ceil() as u64,
                };
                let (steady, expired) = blocked.exact_rates(slack);
                if steady.max(expired) <= p {
                    let (mc_steady, mc_expired) = blocked.rates(slack, samples, &mut rng);
                    break Some((
                        blocked.rows as f64 * row_bits,
                        mc_steady / steady,
                        mc_expired / expired,
                    ));
                }
                factor += STEP;
            };
            row += &match found {
                Some((bits, steady, expired)) => {
                    format!(" {} [{steady:.3}, {expired:.3}] |", per_key(bits))
                }
                None => format!(" above {MOST}x the separate slices |"),
            };
        }
        println!("{row}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The probability of Poisson(mean) = c.
    fn poisson_pmf(mean: f64, c: u32) -> f64 {
        (1..=c).fold((-mean).exp(), |p, i| p * mean / f64::from(i))
    }

    /// The rate by brute force: every count of every generation up to a cut-off, weighted by
    /// its probability, each with the exact run probability at its fills. The counts past the
    /// cut-off (14, at means up to 2) hold less than 10^-8 of the weight.
    fn enumerated(k: u32, means: &[f64], block_bits: u32, set_from: usize) -> f64 {
        const MOST: u32 = 14;
        let (k_us, slices) = (k as usize, means.len());
        let empty = 1.0 - 1.0 / f64::from(block_bits);
        let mut counts = vec![0u32; slices];
        let mut total = 0.0;
        loop {
            let weight: f64 = counts
                .iter()
                .zip(means)
                .map(|(&c, &m)| poisson_pmf(m, c))
                .product();
            let fills = (0..slices).map(|i| {
                if i >= set_from {
                    1.0
                } else {
                    let held: u32 = counts[i.saturating_sub(k_us - 1)..=i].iter().sum();
                    1.0 - empty.powi(held as i32)
                }
            });
            total += weight * run_probability(fills, k);
            // The next combination of counts, as an odometer.
            let mut digit = 0;
            loop {
                if digit == slices {
                    return total;
                }
                counts[digit] += 1;
                if counts[digit] <= MOST {
                    break;
                }
                counts[digit] = 0;
                digit += 1;
            }
        }
    }

    #[test]
    fn exact_rate_matches_enumeration() {
        for (k, means, block_bits, set_from) in [
            (2, vec![1.5, 0.7, 2.0, 1.0], 4, 4),
            (2, vec![1.5, 0.7, 2.0, 1.0], 4, 3),
            (3, vec![2.0, 2.0, 2.0, 2.0, 2.0], 8, 5),
            (1, vec![0.5, 1.8, 1.0], 2, 3),
            (4, vec![1.0; 5], 3, 5),
        ] {
            let exact = exact_rate(k, &means, block_bits, set_from);
            let brute = enumerated(k, &means, block_bits, set_from);
            assert!(
                (exact - brute).abs() < 1e-7,
                "k {k} {means:?} B {block_bits}: {exact} against {brute}"
            );
        }
    }

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
