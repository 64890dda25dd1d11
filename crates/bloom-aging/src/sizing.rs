//! The false-positive rate of the aging filter's blocked layout, and the size that reaches a
//! target rate.
//!
//! The layout (docs/aging.md, "Layout") is the Age-Partitioned Blocked Bloom Filter of
//! Shtul, Baquero, Almeida ("Age-Partitioned Bloom Filters", arXiv 2001.03147): a key picks
//! one of `rows` rows, and in that row each of the `k + l` slices has a block of
//! [`BLOCK_BITS`] bits holding the key's bit for that slice. A query answers "present" when
//! k consecutive slices have the key's bit set.
//!
//! Given the keys each block holds, a key never inserted finds its bits set independently
//! from slice to slice, so the rate given a row is [`run_probability`] of the row's block
//! fills. The rows are loaded unevenly, and a row that received more keys than the average
//! in a generation is fuller in all k slices those keys went to: the filter's rate is the
//! mean over that variation, computed exactly by [`blocked_run_probability`]. Sizing
//! searches the fewest rows whose rate is at most the target.

use bloom_core::{Error, math};

/// Bits of one slice's block in a row: two 64-bit words. One word per slice takes 6 to 9%
/// more memory for the same rate at l = 80 (docs/aging.md has the table).
pub const BLOCK_BITS: u32 = 128;

/// The most slices (`k + l`) a filter may have: a query gathers the bits of a row's slices
/// into one 128-bit mask.
pub const MAX_SLICES: u32 = 128;

/// The most generations (`l`) a filter may have: [`MAX_SLICES`] less one slice for k.
pub const MAX_GENERATIONS: u32 = MAX_SLICES - 1;

/// The most slices a key sets (`k`): the exact rate of the blocked layout costs
/// `(k + 1) 2^(k - 1)` states per slice, and sizing evaluates it four to eight times per k
/// tried, so a build's time doubles with every k (docs/aging.md, "The false-positive rate,
/// and sizing").
pub const MAX_NUM_HASHES: u32 = 16;

/// The generations [`AgingBloomFilter::new`](crate::AgingBloomFilter::new) uses. With
/// [`DEFAULT_SLACK_GENERATIONS`] it bounds the slack, how long a key may still answer present
/// after its window, to 10% of the window, for memory within 1.1 times a pair of classic
/// filters sized for the window at 1% and 0.1% (docs/aging.md has the table).
pub const DEFAULT_GENERATIONS: u32 = 80;

/// Generations past its window after which a key of a filter built by
/// [`AgingBloomFilter::new`](crate::AgingBloomFilter::new) answers present with probability
/// at most p, like a key never inserted: `DEFAULT_GENERATIONS / 10`.
pub const DEFAULT_SLACK_GENERATIONS: u32 = DEFAULT_GENERATIONS / 10;

/// The probability that some k consecutive trials of `fills` (in order) all succeed, the
/// trials independent and trial i succeeding with probability `fills[i]` (clamped to
/// [0, 1]): an age-partitioned filter's false-positive rate when slice i (0 the newest) has
/// the fraction `fills[i]` of its bits set, computed exactly by a recurrence over the length
/// of the current run. In the blocked layout this is the rate given one row's block fills
/// ([`AgingBloomFilter::estimated_fpr`](crate::AgingBloomFilter::estimated_fpr) averages it
/// over the rows).
///
/// A run of `k = 0` trials is always there: 1.
///
/// # Examples
///
/// ```
/// use bloom_aging::run_probability;
///
/// assert_eq!(run_probability([1.0, 1.0, 0.0], 2), 1.0);
/// assert_eq!(run_probability([0.0], 0), 1.0);
/// assert!((run_probability([0.5; 3], 2) - 0.375).abs() < 1e-12);
/// ```
pub fn run_probability(fills: impl IntoIterator<Item = f64>, k: u32) -> f64 {
    if k == 0 {
        return 1.0;
    }
    // runs[r]: the probability that the current run has length r and no run of k was seen.
    let k = k as usize;
    let mut runs = vec![0.0; k];
    runs[0] = 1.0;
    let mut found = 0.0;
    for f in fills {
        let f = f.clamp(0.0, 1.0);
        found += runs[k - 1] * f;
        let alive: f64 = runs.iter().sum();
        for r in (1..k).rev() {
            runs[r] = runs[r - 1] * f;
        }
        runs[0] = alive * (1.0 - f);
    }
    found.clamp(0.0, 1.0)
}

/// The exact false-positive rate of a blocked layout: the probability that a key never
/// inserted finds its bits set in k consecutive slices of its row, when the row has
/// `generation_means.len()` slices of blocks of `block_bits` bits (each key's bit uniform in
/// its block), the keys of the generation of age a (0 the newest) land in the row in a
/// Poisson number of mean `generation_means[a]` (the binomial count over many rows:
/// the generation's keys over the rows), independently from generation to generation, and
/// a generation's keys went into the k slices of ages a to a + k - 1. Slices from `set_from`
/// on are taken as set: the bits a key keeps once it is `set_from - l` generations past
/// its window (`set_from >= slices` for a key never inserted).
///
/// How: with q = 1 - 1/B, a slice's bit is clear with probability `q^S` (S the keys its
/// block holds) and set with `1 - q^S`. Expanding the product over the slices of every
/// sequence without a run of k, each term is `± q^(the sum of S over a set of slices)`,
/// whose mean over the Poisson counts is a product over the generations of
/// `exp(mean (q^c - 1))`, c the slices of the set that hold the generation. A generation is
/// held by k consecutive slices, so the terms are summed slice by slice over the states (the
/// length of the current run, or a run found; which of the last k - 1 slices are in the
/// set): `(k + 1) 2^(k - 1)` states. Once a run is found, a later slice's two terms cancel,
/// so the found states carry the rate itself.
///
/// # Errors
///
/// [`Error::InvalidParameter`] for k above [`MAX_NUM_HASHES`] (the states double with every
/// k), a block of 0 bits, or a mean that is negative or not finite.
///
/// # Examples
///
/// ```
/// use bloom_aging::{blocked_run_probability, run_probability};
///
/// // One generation of mean 0 keys per row: nothing is set.
/// assert_eq!(blocked_run_probability(2, &[0.0; 4], 128, 4)?, 0.0);
/// // Slices taken as set: a run is certain.
/// assert_eq!(blocked_run_probability(2, &[1.0; 4], 128, 2)?, 1.0);
/// // Rows loaded unevenly make runs likelier than even fills would (Jensen).
/// let means = [2.0; 12];
/// let fill = 1.0 - (1.0 - 1.0 / 128.0f64).powf(3.0 * 2.0);
/// let even = run_probability((0..12).map(|i| if i < 2 { 0.0 } else { fill }), 3);
/// assert!(blocked_run_probability(3, &means, 128, 12)? > even);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn blocked_run_probability(
    k: u32,
    generation_means: &[f64],
    block_bits: u32,
    set_from: usize,
) -> Result<f64, Error> {
    let (name, reason) = if k > MAX_NUM_HASHES {
        ("k", format!("must be at most {MAX_NUM_HASHES} (got {k})"))
    } else if block_bits == 0 {
        ("block_bits", "must be at least 1".to_owned())
    } else if generation_means.iter().any(|&m| m < 0.0 || !m.is_finite()) {
        let reason = "must be finite and non-negative";
        ("generation_means", reason.to_owned())
    } else {
        let rates = BlockedRate::new(k, block_bits).rates(generation_means, set_from);
        return Ok(rates.1);
    };
    Err(Error::invalid(name, reason))
}

/// The transfer matrix of [`blocked_run_probability`] for one k and block size.
struct BlockedRate {
    k: usize,
    /// `1 - 1/B`.
    empty: f64,
}

impl BlockedRate {
    fn new(k: u32, block_bits: u32) -> BlockedRate {
        BlockedRate {
            k: k as usize,
            empty: 1.0 - 1.0 / f64::from(block_bits),
        }
    }

    /// `factors[c]`: the mean of `q^(c S)` over a Poisson count S of mean `mean`.
    fn factors(&self, mean: f64) -> Vec<f64> {
        (0..=self.k)
            .map(|c| (mean * (self.empty.powi(c as i32) - 1.0)).exp())
            .collect()
    }

    /// The rate for a key never inserted and, when `set_from < means.len()`, the rate with
    /// the slices from `set_from` on set (else the same): one pass, the second forked off
    /// the first at slice `set_from`.
    fn rates(&self, means: &[f64], set_from: usize) -> (f64, f64) {
        let (k, slices) = (self.k, means.len());
        if k == 0 {
            return (1.0, 1.0);
        }
        if slices < k {
            // No room for a run.
            return (0.0, 0.0);
        }
        let mut weights = vec![0.0; (k + 1) << (k - 1)];
        weights[0] = 1.0;
        let mut next = weights.clone();
        let mut forked: Option<Vec<f64>> = None;
        for i in 0..slices {
            if i == set_from {
                forked = Some(weights.clone());
            }
            // The generation of age i - k + 1 has all its slices once slice i is in.
            let factor = i.checked_sub(k - 1).map(|a| self.factors(means[a]));
            let factor = factor.as_deref();
            self.step(&weights, &mut next, factor, false);
            std::mem::swap(&mut weights, &mut next);
            if let Some(f) = forked.as_mut() {
                self.step(f, &mut next, factor, true);
                std::mem::swap(f, &mut next);
            }
        }
        let steady = self.finish(&weights, means);
        let expired = forked.map_or(steady, |f| self.finish(&f, means));
        (steady, expired)
    }

    /// One slice: the weights of the states after it, from those before. `set`: the slice
    /// is taken as set.
    ///
    /// State `run << (k - 1) | members`: `members` says which of the last k - 1 slices are
    /// in the term's set (bit 0 the latest). The slice enters with `window = members << 1 |
    /// in_set`; the generation whose k slices end here contributes `factor[popcount(window)]`,
    /// and the oldest of the k bits leaves the state. Each target cell receives its terms in
    /// the order of the source states, so the sums are those of a plain loop over pushes.
    fn step(&self, weights: &[f64], next: &mut [f64], factor: Option<&[f64]>, set: bool) {
        let k = self.k;
        let shift = k - 1;
        let held = (1usize << shift) - 1;
        let ones = [1.0; MAX_NUM_HASHES as usize + 1];
        let factor = factor.unwrap_or(&ones[..=k]);
        // The factors of a state's members without and with the entering slice in the set.
        let (without, with): (Vec<f64>, Vec<f64>) = (0..=held)
            .map(|members| {
                let count = members.count_ones() as usize;
                (factor[count], factor[count + 1])
            })
            .unzip();
        next.fill(0.0);
        // Members m and m + half leave the same kept bits (the oldest drops out): handled
        // in pairs, m first, so each cell still receives its terms in the states' order.
        let half = (1usize << shift) >> 1;
        for run in 0..=k {
            let longer = (run + 1).min(k) << shift;
            let row = &weights[run << shift..(run + 1) << shift];
            if run == k || set {
                if half == 0 {
                    next[longer] += row[0] * without[0];
                    continue;
                }
                let (low, high) = row.split_at(half);
                let (low_f, high_f) = without.split_at(half);
                let target = next[longer..longer + 2 * half].chunks_exact_mut(2);
                for (t, (((&a, &fa), &b), &fb)) in
                    target.zip(low.iter().zip(low_f).zip(high).zip(high_f))
                {
                    t[0] += a * fa;
                    t[0] += b * fb;
                }
                continue;
            }
            // Clear: q^S. Set: 1 - q^S, two terms.
            if half == 0 {
                // k = 1: no slice is held, the entering one leaves at once.
                let w = row[0];
                next[0] += w * with[0];
                next[longer] += w * without[0];
                next[longer] -= w * with[0];
                continue;
            }
            let (head, tail) = next.split_at_mut(longer);
            let (cleared, target) = (&mut head[..2 * half], &mut tail[..2 * half]);
            for part in [0, half] {
                let terms = row[part..part + half]
                    .iter()
                    .zip(&without[part..part + half])
                    .zip(&with[part..part + half]);
                let cells = cleared.chunks_exact_mut(2).zip(target.chunks_exact_mut(2));
                for ((c, t), ((&w, &wo), &wi)) in cells.zip(terms) {
                    let b = w * wi;
                    c[1] += b;
                    t[0] += w * wo;
                    t[1] -= b;
                }
            }
        }
    }

    /// The found states' weights, each with the factors of the generations whose slices
    /// run past the last (held by the set's slices among them).
    fn finish(&self, weights: &[f64], means: &[f64]) -> f64 {
        let (k, slices) = (self.k, means.len());
        let held = (1usize << (k - 1)) - 1;
        let pending: Vec<Vec<f64>> = (slices + 1 - k..slices)
            .map(|a| self.factors(means[a]))
            .collect();
        (0..=held)
            .map(|members| {
                let factor: f64 = (slices + 1 - k..slices)
                    .zip(&pending)
                    .map(|(a, f)| f[(members & ((1 << (slices - a)) - 1)).count_ones() as usize])
                    .product();
                weights[k << (k - 1) | members] * factor
            })
            .sum::<f64>()
            .clamp(0.0, 1.0)
    }
}

/// The rates of a filter of `rows` rows with every generation full (`generation_len`
/// keys, the steady state just before a shift, the highest a steady stream reaches), for a
/// key never inserted and for one `past` generations past its window (`l + past` shifts after
/// its insert; from `past = k` on, no bit of it is left and this is the steady rate).
pub(crate) fn steady_rates(
    k: u32,
    l: u32,
    generation_len: u64,
    rows: u64,
    past: Option<u32>,
) -> (f64, f64) {
    let slices = (k + l) as usize;
    let means = vec![generation_len as f64 / rows as f64; slices];
    let set_from = past.map_or(slices, |p| (l + p) as usize);
    BlockedRate::new(k, BLOCK_BITS).rates(&means, set_from)
}

/// The rate after `inserts` distinct keys into an empty filter counting generations of
/// `generation_len` inserts.
pub(crate) fn rate_after(k: u32, l: u32, generation_len: u64, rows: u64, inserts: u64) -> f64 {
    let (shifts, current) = (inserts / generation_len, inserts % generation_len);
    let means: Vec<f64> = (0..u64::from(k + l))
        .map(|age| match age {
            0 => current as f64,
            a if a <= shifts => generation_len as f64,
            _ => 0.0,
        })
        .map(|keys| keys / rows as f64)
        .collect();
    BlockedRate::new(k, BLOCK_BITS).rates(&means, means.len()).0
}

/// The rate sizing holds at or below the target: the steady rate, and with `slack` the rate
/// of keys `slack` generations past their window.
fn sized_rate(k: u32, l: u32, generation_len: u64, rows: u64, slack: Option<u32>) -> f64 {
    let past = slack.filter(|&s| s < k);
    let (steady, expired) = steady_rates(k, l, generation_len, rows, past);
    steady.max(expired)
}

/// The keys per generation for a window of `window` keys over `l` generations.
pub(crate) fn generation_len(window: u64, l: u32) -> u64 {
    window.div_ceil(u64::from(l))
}

/// The fewest rows whose steady rate is at most `fpr`, and with `slack` also the rate of
/// keys `slack` generations past their window; with the ratio of the rows found to the
/// memory of separate slices.
///
/// The search starts from the memory of separate slices (each key's bit anywhere in its
/// slice, [`separate::slice_bits_for`]), which the blocked layout needs a few percent more
/// than (the uneven rows raise its rate): times `ratio` (the blocked layout's excess over
/// separate slices, measured on a neighbouring k) in steps of a 1,024th, or without a
/// ratio in steps of a 64th. It brackets the answer by galloping from there, and closes the
/// bracket by [`smallest_fitting`]: four to eight evaluations of the exact rate.
///
/// # Errors
///
/// [`Error::TooLarge`] when the filter would exceed
/// [`MAX_NUM_BITS`](bloom_core::math::MAX_NUM_BITS).
pub(crate) fn rows_for(
    k: u32,
    l: u32,
    generation_len: u64,
    fpr: f64,
    slack: Option<u32>,
    ratio: Option<f64>,
) -> Result<(u64, f64), Error> {
    let slices = k + l;
    // The most rows within `MAX_NUM_BITS`.
    let most = math::MAX_NUM_BITS / (u64::from(slices) * u64::from(BLOCK_BITS));
    let too_large = |rows: f64| Error::TooLarge {
        requested_bits: rows * f64::from(slices) * f64::from(BLOCK_BITS),
        max_bits: math::MAX_NUM_BITS,
    };
    let separate =
        separate::slice_bits_for(k, l, generation_len, fpr, slack)? as f64 / f64::from(BLOCK_BITS);
    if most == 0 {
        return Err(too_large(1.0));
    }
    // `smallest_fitting` brings the start into 1..=most.
    let start = (separate * ratio.unwrap_or(1.0)) as u64;
    let step = (start >> if ratio.is_some() { 10 } else { 6 }).max(1);
    let excess = |rows: u64| (sized_rate(k, l, generation_len, rows, slack) / fpr).ln();
    let rows =
        smallest_fitting(start, step, most, excess).ok_or_else(|| too_large(most as f64 * 2.0))?;
    Ok((rows, rows as f64 / separate))
}

/// The smallest `rows` in `1..=most` with `excess(rows) <= 0`, for an `excess` that falls
/// as `rows` grows (the log of the rate over the target), searched from `start`; `None`
/// when `most` does not fit.
///
/// Galloping from `start` (from `step`, doubling) brackets the answer between a
/// size that does not fit and one that does; the bracket is then closed by the Illinois
/// variant of regula falsi on whole numbers (the next size where the line through the
/// bracket's ends crosses zero, rounded up, the end that stays twice in a row taking half
/// its value), with a bisection whenever a step fails to halve the bracket. The rate is
/// smooth in the size, so the line lands within a few rows of the answer: bisection alone
/// took 10 to 20 evaluations per size where this takes 4 to 8.
fn smallest_fitting(
    start: u64,
    mut step: u64,
    most: u64,
    excess: impl Fn(u64) -> f64,
) -> Option<u64> {
    let start = start.clamp(1, most.max(1));
    // The bracket: `lo` does not fit (0 never does), `hi` does, each with its excess.
    let first = excess(start);
    let (mut lo, mut lo_excess, mut hi, mut hi_excess);
    if first <= 0.0 {
        (hi, hi_excess) = (start, first);
        (lo, lo_excess) = loop {
            let below = hi.saturating_sub(step);
            if below == 0 {
                break (0, f64::INFINITY);
            }
            let e = excess(below);
            if e > 0.0 {
                break (below, e);
            }
            (hi, hi_excess) = (below, e);
            step = step.saturating_mul(2);
        };
    } else {
        (lo, lo_excess) = (start, first);
        (hi, hi_excess) = loop {
            if lo >= most {
                return None;
            }
            let above = lo.saturating_add(step).min(most);
            let e = excess(above);
            if e <= 0.0 {
                break (above, e);
            }
            (lo, lo_excess) = (above, e);
            step = step.saturating_mul(2);
        };
    }
    // Which end moved last, and how often in a row (Illinois), and whether the last step
    // halved the bracket.
    let mut same_end = 0i32;
    let mut bisect = false;
    while hi - lo > 1 {
        let width = hi - lo;
        let guess = if bisect || !(lo_excess.is_finite() && hi_excess.is_finite()) {
            lo + width / 2
        } else {
            let t = lo_excess / (lo_excess - hi_excess);
            let at = lo as f64 + t * width as f64;
            (at.ceil() as u64).clamp(lo + 1, hi - 1)
        };
        let e = excess(guess);
        if e <= 0.0 {
            (hi, hi_excess) = (guess, e);
            same_end = same_end.max(0) + 1;
            if same_end >= 2 {
                lo_excess /= 2.0;
            }
        } else {
            (lo, lo_excess) = (guess, e);
            same_end = same_end.min(0) - 1;
            if same_end <= -2 {
                hi_excess /= 2.0;
            }
        }
        bisect = !bisect && (hi - lo) * 2 > width;
    }
    Some(hi)
}

/// The k that takes the least memory for `l` generations at `fpr` (and `slack`, as for
/// [`rows_for`]), with its rows.
///
/// The k of separate slices ([`separate::best_k`], a cheap recurrence) is the blocked
/// layout's best or next to it (docs/aging.md's table); its neighbours are tried too, and
/// further k in the direction memory falls.
///
/// # Errors
///
/// [`Error::TooLarge`] when no k fits in [`MAX_NUM_BITS`](bloom_core::math::MAX_NUM_BITS).
pub(crate) fn best_k(
    l: u32,
    generation_len: u64,
    fpr: f64,
    slack: Option<u32>,
) -> Result<(u32, u64), Error> {
    let guess = separate::best_k(l, generation_len, fpr, slack)?;
    let total = |k: u32, rows: u64| u128::from(k + l) * u128::from(rows);
    let k_range = 1..=MAX_NUM_HASHES.min(MAX_SLICES - l);
    let (rows, ratio) = rows_for(guess, l, generation_len, fpr, slack, None)?;
    let mut best = (guess, rows);
    let next = |k: u32, d| k.checked_add_signed(d).filter(|k| k_range.contains(k));
    for direction in [-1, 1] {
        while let Some(k) = next(best.0, direction) {
            match rows_for(k, l, generation_len, fpr, slack, Some(ratio)) {
                Ok((rows, _)) if total(k, rows) < total(best.0, best.1) => best = (k, rows),
                _ => break,
            }
        }
    }
    Ok(best)
}

/// The rate of separate slices (each key's bit anywhere in a slice of `slice_bits` bits,
/// independently from slice to slice): the blocked layout's rate with rows loaded evenly,
/// a lower bound the sizing starts from.
mod separate {
    use super::{Error, MAX_NUM_HASHES, MAX_SLICES, math, run_probability};

    /// `1 - (1 - 1/m)^keys`, for the at least `generation_len` keys of a slice.
    fn expected_fill(slice_bits: f64, keys: f64) -> f64 {
        -(keys * (-1.0 / slice_bits).ln_1p()).exp_m1()
    }

    /// The steady rate, or with `slack` the larger of it and the rate of keys `slack`
    /// generations past their window.
    fn rate(k: u32, l: u32, generation_len: u64, slice_bits: f64, slack: Option<u32>) -> f64 {
        let fills = |set_from: u32| {
            (0..k + l).map(move |i| {
                if i >= set_from {
                    1.0
                } else {
                    let keys = f64::from(i.min(k - 1) + 1) * generation_len as f64;
                    expected_fill(slice_bits, keys)
                }
            })
        };
        let steady = run_probability(fills(k + l), k);
        match slack {
            Some(past) if past < k => steady.max(run_probability(fills(l + past), k)),
            _ => steady,
        }
    }

    /// The smallest slice size, a multiple of 64 bits, whose rate is at most `fpr`.
    ///
    /// # Errors
    ///
    /// [`Error::TooLarge`] past [`MAX_NUM_BITS`](bloom_core::math::MAX_NUM_BITS).
    pub(super) fn slice_bits_for(
        k: u32,
        l: u32,
        generation_len: u64,
        fpr: f64,
        slack: Option<u32>,
    ) -> Result<u64, Error> {
        let slices = u64::from(k + l);
        let max_slice_words = math::MAX_NUM_BITS / slices / 64;
        let rate = |bits: f64| rate(k, l, generation_len, bits, slack);
        let fits = |words: u64| rate((words * 64) as f64) <= fpr;
        if max_slice_words == 0 || !fits(max_slice_words) {
            // What the target needs, found by doubling past the limit, for the error's message.
            let mut bits = (max_slice_words.max(1) * 64) as f64;
            while bits < 1e30 && rate(bits) > fpr {
                bits *= 2.0;
            }
            return Err(Error::TooLarge {
                requested_bits: bits * slices as f64,
                max_bits: math::MAX_NUM_BITS,
            });
        }
        // The rate falls as the slices grow: bisect on whole words (none never fit).
        Ok(math::smallest_fitting(0, max_slice_words, fits) * 64)
    }

    /// The k with the least memory for separate slices, among those the blocked layout
    /// allows.
    ///
    /// # Errors
    ///
    /// [`Error::TooLarge`] when no k fits.
    pub(super) fn best_k(
        l: u32,
        generation_len: u64,
        fpr: f64,
        slack: Option<u32>,
    ) -> Result<u32, Error> {
        let total = |(k, bits): (u32, u64)| u128::from(k + l) * u128::from(bits);
        let mut best: Option<(u32, u64)> = None;
        let mut first_error = None;
        // The memory falls with k to one minimum and rises after it (one k can tie its
        // neighbour after rounding to whole words): stop at the third k past the best.
        let mut worse = 0;
        for k in 1..=MAX_NUM_HASHES.min(MAX_SLICES - l) {
            match slice_bits_for(k, l, generation_len, fpr, slack) {
                Ok(bits) if best.is_none_or(|b| total((k, bits)) < total(b)) => {
                    best = Some((k, bits));
                    worse = 0;
                }
                Ok(_) if worse == 2 => break,
                Ok(_) => worse += 1,
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        match (best, first_error) {
            (Some((k, _)), _) => Ok(k),
            (None, Some(e)) => Err(e),
            (None, None) => Err(Error::invalid("l", "leaves no room for k")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smallest_fitting_finds_the_first_size_that_fits() {
        // Falling curves of several shapes (the log of a rate that falls like a power of
        // the size, a line, a step), searched from starts below, at and above the answer
        // with small and large first steps: the answer of a scan from 1, or None past
        // `most`.
        let most = 5_000u64;
        for answer in [1u64, 2, 3, 77, 1_000, 4_999, 5_000, 5_001] {
            let a = answer as f64;
            let curves: [Box<dyn Fn(u64) -> f64>; 3] = [
                Box::new(move |r| 7.0 * (a - 0.5).ln() - 7.0 * (r as f64).ln()),
                Box::new(move |r| (a - 0.5) - r as f64),
                Box::new(move |r| if r >= answer { -1.0 } else { 1.0 }),
            ];
            for curve in &curves {
                let scan = (1..=most).find(|&r| curve(r) <= 0.0);
                assert_eq!(scan, (answer <= most).then_some(answer));
                for start in [1u64, 2, 50, answer.max(1), 999, 4_000, most] {
                    for step in [1u64, 3, 64, 1_000] {
                        assert_eq!(
                            smallest_fitting(start, step, most, curve),
                            scan,
                            "answer {answer}, start {start}, step {step}"
                        );
                    }
                }
            }
        }
    }

    /// The probability of a run, by listing every outcome of a few trials.
    fn brute_force(fills: &[f64], k: usize) -> f64 {
        let n = fills.len();
        (0u32..1 << n)
            .map(|outcome| {
                let p: f64 = (0..n)
                    .map(|i| {
                        if outcome >> i & 1 == 1 {
                            fills[i]
                        } else {
                            1.0 - fills[i]
                        }
                    })
                    .product();
                let mut run = 0;
                let mut hit = false;
                for i in 0..n {
                    run = if outcome >> i & 1 == 1 { run + 1 } else { 0 };
                    hit |= run >= k;
                }
                if hit { p } else { 0.0 }
            })
            .sum()
    }

    #[test]
    fn run_probability_matches_enumeration() {
        let fills = [0.1, 0.5, 0.7, 0.3, 0.9, 0.6, 0.45, 0.2, 0.8];
        for k in 1..=5 {
            let exact = brute_force(&fills, k as usize);
            let dp = run_probability(fills, k);
            assert!((exact - dp).abs() < 1e-12, "k {k}: {exact} vs {dp}");
        }
        assert_eq!(run_probability([0.0; 5], 2), 0.0);
        assert_eq!(run_probability([1.0; 5], 5), 1.0);
        assert_eq!(run_probability([1.0; 4], 5), 0.0);
    }

    /// The blocked rate by brute force: every count of every generation up to a cut-off,
    /// weighted by its Poisson probability, each with the exact run probability at its
    /// fills. The counts past the cut-off (14, at means up to 2) hold less than 10^-8 of the
    /// weight.
    fn enumerated(k: u32, means: &[f64], block_bits: u32, set_from: usize) -> f64 {
        const MOST: u32 = 14;
        let pmf = |mean: f64, c: u32| (1..=c).fold((-mean).exp(), |p, i| p * mean / f64::from(i));
        let (k_us, slices) = (k as usize, means.len());
        let empty = 1.0 - 1.0 / f64::from(block_bits);
        let mut counts = vec![0u32; slices];
        let mut total = 0.0;
        loop {
            let weight: f64 = counts.iter().zip(means).map(|(&c, &m)| pmf(m, c)).product();
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
    fn blocked_rate_matches_enumeration() {
        for (k, means, block_bits, set_from) in [
            (2, vec![1.5, 0.7, 2.0, 1.0], 4, 4),
            (2, vec![1.5, 0.7, 2.0, 1.0], 4, 3),
            (3, vec![2.0, 2.0, 2.0, 2.0, 2.0], 8, 5),
            (3, vec![2.0, 0.0, 1.0, 2.0, 0.5], 8, 4),
            (1, vec![0.5, 1.8, 1.0], 2, 3),
            (4, vec![1.0; 5], 3, 5),
        ] {
            let exact = blocked_run_probability(k, &means, block_bits, set_from).unwrap();
            let brute = enumerated(k, &means, block_bits, set_from);
            assert!(
                (exact - brute).abs() < 1e-7,
                "k {k} {means:?} B {block_bits}: {exact} against {brute}"
            );
            // The forked pass gives both rates of a separate pass.
            let (steady, expired) = BlockedRate::new(k, block_bits).rates(&means, set_from);
            let never = blocked_run_probability(k, &means, block_bits, means.len()).unwrap();
            assert!((steady - never).abs() < 1e-15 && (expired - exact).abs() < 1e-15);
        }
        assert!(blocked_run_probability(17, &[1.0; 20], 128, 20).is_err());
        assert!(blocked_run_probability(2, &[1.0, f64::NAN], 128, 2).is_err());
        assert!(blocked_run_probability(2, &[1.0; 3], 0, 3).is_err());
        assert_eq!(blocked_run_probability(3, &[1.0; 2], 128, 2).unwrap(), 0.0);
    }

    /// The blocked rate by sampling rows: Poisson counts per generation, the exact run
    /// probability at each sampled row's fills, averaged.
    #[test]
    fn blocked_rate_matches_sampled_rows() {
        let (k, l, g, rows) = (4u32, 6u32, 100u64, 40u64);
        let slices = (k + l) as usize;
        let mean = g as f64 / rows as f64;
        let mut rng = bloom_core::keys::SplitMix64(5);
        let mut uniform = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let empty = 1.0 - 1.0 / f64::from(BLOCK_BITS);
        let samples = 200_000;
        let mut total = 0.0;
        for _ in 0..samples {
            let counts: Vec<u32> = (0..slices)
                .map(|_| {
                    // Knuth's product of uniforms.
                    let limit = (-mean).exp();
                    let (mut product, mut count) = (uniform(), 0);
                    while product > limit {
                        product *= uniform();
                        count += 1;
                    }
                    count
                })
                .collect();
            let fills = (0..slices).map(|i| {
                let held: u32 = counts[i.saturating_sub(k as usize - 1)..=i].iter().sum();
                1.0 - empty.powi(held as i32)
            });
            total += run_probability(fills, k);
        }
        let sampled = total / samples as f64;
        let (exact, _) = steady_rates(k, l, g, rows, None);
        assert!((sampled / exact - 1.0).abs() < 0.02, "{sampled} {exact}");
    }

    #[test]
    fn rows_are_the_fewest_that_reach_the_target() {
        for (l, fpr, slack) in [
            (20, 0.01, None),
            (20, 0.001, None),
            (5, 0.05, None),
            (1, 0.2, None),
            (80, 0.01, Some(8)),
            (80, 0.001, Some(8)),
        ] {
            let g = generation_len(100_000, l);
            let (k, rows) = best_k(l, g, fpr, slack).unwrap();
            let rate = |rows: u64| sized_rate(k, l, g, rows, slack);
            assert!(rate(rows) <= fpr, "l {l} p {fpr}");
            assert!(rate(rows - 1) > fpr, "l {l} p {fpr}");
            if let Some(past) = slack {
                assert!(steady_rates(k, l, g, rows, Some(past)).1 <= fpr);
            }
            // Neither neighbour of k takes less memory.
            for other in [k - 1, k + 1] {
                if let Ok((r, _)) = rows_for(other, l, g, fpr, slack, None) {
                    assert!(u64::from(other + l) * r >= u64::from(k + l) * rows);
                }
            }
        }
    }

    #[test]
    fn the_rate_rises_with_the_inserts_to_the_steady_one() {
        let (k, l, g, rows) = (5, 12, 300, 40);
        let steady = steady_rates(k, l, g, rows, None).0;
        let rates: Vec<f64> = (0..=u64::from(k + l) + 1)
            .map(|gens| rate_after(k, l, g, rows, gens * g))
            .collect();
        assert!(rates.windows(2).all(|w| w[0] <= w[1] + 1e-15), "{rates:?}");
        // After l + k generations every slice holds its steady share; just before the next
        // shift (a whole generation in the newest) the rate is the steady one.
        let full = rate_after(k, l, g, rows, u64::from(k + l) * g + g - 1);
        assert!(full <= steady && full > 0.9 * steady);
        assert_eq!(rate_after(k, l, g, rows, 0), 0.0);
    }

    #[test]
    fn too_large_is_an_error() {
        assert!(matches!(
            rows_for(8, 20, u64::MAX / 20, 0.01, None, None),
            Err(Error::TooLarge { .. })
        ));
        assert!(matches!(
            best_k(20, 1 << 40, 0.5, Some(2)),
            Err(Error::TooLarge { .. })
        ));
    }

    #[test]
    fn expired_keys_fade_to_the_steady_rate() {
        let (k, l, g, rows) = (6, 20, 500, 100);
        let steady = steady_rates(k, l, g, rows, None).0;
        let rates: Vec<f64> = (1..=k)
            .map(|j| steady_rates(k, l, g, rows, Some(j)).1)
            .collect();
        assert!(rates.windows(2).all(|w| w[0] >= w[1]), "{rates:?}");
        assert!((rates[k as usize - 1] - steady).abs() < 1e-12);
        assert!(rates[0] > 10.0 * steady);
    }
}
