//! The probe sequence of the classic filters: the k positions of one key in `[0, m)`, derived
//! from the two halves of its 128-bit digest (enhanced double hashing, each position reduced
//! by multiply-shift, in pairs that share a 512-bit group). Part of the binary format:
//! `docs/design.md` describes it.

/// Maps a uniformly distributed 64-bit value to `[0, n)` without division and without modulo
/// bias beyond `n / 2^64`: the high 64 bits of the 128-bit product `x * n` (Lemire, "Fast
/// random integer generation in an interval", ACM TOMACS 2019). Correct for every `n` up to
/// `u64::MAX`, so filters beyond 2^32 bits are addressed in full.
///
/// # Examples
///
/// ```
/// use bloom_core::internal::reduce;
///
/// assert_eq!(reduce(0, 1000), 0);
/// assert_eq!(reduce(u64::MAX, 1000), 999);
/// assert_eq!(reduce(1 << 63, 1 << 40), 1 << 39);
/// ```
#[inline(always)]
pub const fn reduce(x: u64, n: u64) -> u64 {
    ((x as u128 * n as u128) >> 64) as u64
}

/// The low half of a digest: the first of the two hash values positions derive from.
#[inline(always)]
pub const fn low_half(hash: u128) -> u64 {
    hash as u64
}

/// The high half of a digest: the second of the two hash values positions derive from.
#[inline(always)]
pub const fn high_half(hash: u128) -> u64 {
    (hash >> 64) as u64
}

/// The constant that scales the cubic term of [`Probes`]: the 64-bit golden ratio (odd, with
/// well-spread bits).
const PROBE_SPREAD: u64 = 0x9E37_79B9_7F4A_7C15;

/// Positions per group that the two probes of a pair share: 512 bits, one 64-byte cache line
/// of a classic filter's bit array.
pub const PAIR_GROUP: u64 = 512;

/// The k probe positions of one key in `[0, m)`: pairs of probes that share a 512-position
/// group, the pairs spread by enhanced double hashing in the 64-bit domain.
///
/// With `a` and `b` the two halves of the digest, step j (j = 0, 1, ...) computes
///
/// ```text
/// x_j = a + j b + C (j^3 - j) / 6      (mod 2^64),  C = 0x9E37_79B9_7F4A_7C15
/// p_j = reduce(x_j, m)                                  probe 2j
/// s_j = p_j - p_j mod 512,  L_j = min(512, m - s_j)
/// q_j = s_j + ((x_j mod 2^32) L_j) >> 32                 probe 2j + 1
/// ```
///
/// and yields `p_0, q_0, p_1, q_1, ...` until k positions are out (an odd k ends with a lone
/// `p`). `p_j` comes from the high bits of `x_j` and `q_j`'s offset in the group from its low
/// 32 bits, which `p_j` does not depend on (for m up to 2^32; beyond, they share a few bits).
/// The partner must not come from the increment `y_j`: the next step's position is
/// `p_j` plus the high bits of `y_j`, and a partner tied to them makes a key's whole pattern
/// a function of two numbers, which measurably raised the false-positive rate of small
/// filters. Each `p_j` is uniform over `[0, m)` and each `q_j` uniform over `p_j`'s group, so
/// every probe, on its own, is uniform over the whole array, as in a textbook Bloom filter;
/// only the two probes of a pair are tied to one group, so a query reads about `k / 2`
/// cache lines instead of k. The correlation this adds costs little accuracy: measured
/// false-positive rates stay within 1.5% of the classic formula `(1 - e^{-kn/m})^k` (the
/// variance of a 512-bit group's fill is small; [`paired_fpr`](crate::math::paired_fpr)
/// gives the exact expectation, and `docs/design.md` the measurements).
///
/// The `x` sequence is the enhanced double hashing of Dillinger and Manolios ("Bloom Filters
/// in Probabilistic Verification", FMCAD 2004), whose cubic term keeps a key's steps apart
/// even when `b` is degenerate (plain double hashing `a + j b` repeats when `b` is near a
/// multiple of `2^64 / i` for small i). They work modulo m; here the sequence runs modulo
/// 2^64 and multiply-shift ([`reduce`]) reads its high bits, so the cubic term is scaled by
/// the odd constant C to reach those bits. A step is three additions and two
/// multiplications: no division, no data-dependent branch, a one-addition dependency chain
/// between steps, and no limit on m below 2^64.
///
/// The sequence is part of the binary format: changing it changes which bits a key owns.
///
/// # Examples
///
/// ```
/// use bloom_core::hash::{hash_key, DEFAULT_SEED};
/// use bloom_core::internal::Probes;
///
/// let positions: Vec<u64> = Probes::new(hash_key("key", DEFAULT_SEED), 7, 100_000).collect();
/// assert_eq!(positions.len(), 7);
/// assert!(positions.iter().all(|&p| p < 100_000));
/// // Probes 0 and 1 share a 512-position group.
/// assert_eq!(positions[0] / 512, positions[1] / 512);
/// ```
#[derive(Debug, Clone)]
pub struct Probes {
    steps: Steps,
    remaining: u32,
    pending: Option<u64>,
    m: u64,
}

impl Probes {
    /// The `num_hashes` positions of `hash` in `[0, num_bits)`.
    #[inline(always)]
    pub fn new(hash: u128, num_hashes: u32, num_bits: u64) -> Self {
        Probes {
            steps: Steps::new(hash),
            remaining: num_hashes,
            pending: None,
            m: num_bits,
        }
    }

    /// The range `m` every position is below.
    #[inline(always)]
    pub fn range(&self) -> u64 {
        self.m
    }

    /// Only the first `count` of the remaining positions.
    #[inline(always)]
    pub fn first(mut self, count: u32) -> Self {
        self.remaining = self.remaining.min(count);
        self
    }

    /// The remaining positions after skipping `count`.
    #[inline(always)]
    pub fn after(mut self, count: u32) -> Self {
        for _ in 0..count.min(self.remaining) {
            self.next();
        }
        self
    }

    /// The first position of the second pair (probe 2, `p_1`) of `hash` in `[0, num_bits)`,
    /// without building the sequence: what a query can prefetch before it tests the first
    /// pair. With at most two probes a key has no second pair; this is then where it would be.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_core::hash::{hash_key, DEFAULT_SEED};
    /// use bloom_core::internal::Probes;
    ///
    /// let hash = hash_key("key", DEFAULT_SEED);
    /// let third = Probes::new(hash, 7, 100_000).nth(2);
    /// assert_eq!(Some(Probes::second_pair_position(hash, 100_000)), third);
    /// ```
    #[inline(always)]
    pub fn second_pair_position(hash: u128, num_bits: u64) -> u64 {
        let mut steps = Steps::new(hash);
        steps.next_value();
        reduce(steps.next_value(), num_bits)
    }

    /// One step: the pair `(p_j, q_j)`, then the state moves to step j + 1.
    #[inline(always)]
    fn step(&mut self) -> (u64, u64) {
        pair_at(self.steps.next_value(), self.m)
    }

    /// Whether `test` holds for every remaining pair (the pairs of [`Probes::pairs`], the
    /// lone last probe as `(p, p)`), stopping at the first that fails: the loop of a query.
    /// It counts whole pairs instead of stepping the [`Pairs`] iterator, so the compiled loop
    /// has one branch per pair for the test and one for the count, and no per-pair state.
    ///
    /// Valid in any state: after an odd number of positions was taken (by
    /// [`after`](Probes::after) or the iterator), the partner left over is tested first, as
    /// `(q, q)`. For a fresh `Probes` that check folds away when inlined.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_core::hash::{hash_key, DEFAULT_SEED};
    /// use bloom_core::internal::Probes;
    ///
    /// let probes = Probes::new(hash_key("key", DEFAULT_SEED), 7, 100_000);
    /// let mut seen = Vec::new();
    /// assert!(probes.clone().all_pairs(|p, q| {
    ///     seen.push((p, q));
    ///     true
    /// }));
    /// assert_eq!(seen, probes.pairs().collect::<Vec<_>>());
    /// ```
    #[inline(always)]
    pub fn all_pairs(mut self, mut test: impl FnMut(u64, u64) -> bool) -> bool {
        if let Some(q) = self.pending.take() {
            self.remaining -= 1;
            if !test(q, q) {
                return false;
            }
        }
        for _ in 0..self.remaining / 2 {
            let (p, q) = self.step();
            if !test(p, q) {
                return false;
            }
        }
        if self.remaining % 2 == 1 {
            let (p, _) = self.step();
            return test(p, p);
        }
        true
    }

    /// The remaining positions as pairs, for probe loops: `ceil(remaining / 2)` pairs, the last
    /// one `(p, p)` when an odd number remains (testing or setting a bit twice is harmless).
    /// After an odd number of positions was taken, the first pair is the partner left over,
    /// as `(q, q)`: every remaining position is in exactly one pair, in any state.
    #[inline(always)]
    pub fn pairs(self) -> Pairs {
        Pairs { probes: self }
    }
}

/// The part of a key's probe sequence that does not depend on the filter: the step values
/// `x_0, x_1, ...` of [`Probes`] (`x_j = a + j b + C (j^3 - j) / 6 mod 2^64`), from which
/// [`pair_at`] derives pair j of any filter size.
///
/// Filters that test one key against several bit arrays (the layers of a scalable filter)
/// share one `Steps` between them: step j is computed once and each array reduces it to its
/// own range, and the arrays can be tested pair by pair in lockstep. For every `m` and `k`,
/// `Probes::new(hash, k, m).pairs()` yields `pair_at(x_j, m)` for j below `ceil(k / 2)`
/// (the last one `(p, p)` when k is odd); the tests check it for random hashes, m and k.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Steps {
    x: u64,
    y: u64,
    w: u64,
}

impl Steps {
    /// The steps of `hash`, starting at `x_0`.
    #[inline(always)]
    pub const fn new(hash: u128) -> Self {
        Steps {
            x: low_half(hash),
            y: high_half(hash),
            w: 0,
        }
    }

    /// The current step value `x_j`, without moving on.
    #[inline(always)]
    pub const fn value(&self) -> u64 {
        self.x
    }

    /// The current step value `x_j`; the steps move on to `j + 1`. A step is three
    /// additions, and the next value depends on the previous one through one of them.
    #[inline(always)]
    pub fn next_value(&mut self) -> u64 {
        let x = self.x;
        self.w = self.w.wrapping_add(PROBE_SPREAD);
        self.x = self.x.wrapping_add(self.y);
        self.y = self.y.wrapping_add(self.w);
        x
    }
}

/// Never ends: a key has a step for every j (filters take the first `ceil(k / 2)`).
impl Iterator for Steps {
    type Item = u64;

    #[inline(always)]
    fn next(&mut self) -> Option<u64> {
        Some(self.next_value())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

/// The pair of positions `(p, q)` that step value `x` gives in `[0, m)`: `p = reduce(x, m)`,
/// and `q` in `p`'s 512-position group, from the low 32 bits of `x` (see [`Probes`]).
///
/// Both positions are below `m` for every `x` and every `m >= 1`: `p` by [`reduce`], and
/// `q` because its offset in the group is below `min(512, m - group start)`. Bit arrays rely
/// on this to test a pair without bounds checks (`BitStore::pair_set`); a property test
/// checks it over the whole range of `x` and `m`.
#[inline(always)]
pub const fn pair_at(x: u64, m: u64) -> (u64, u64) {
    let p = reduce(x, m);
    let group = p - p % PAIR_GROUP;
    // Every group that starts below `m` rounded down to whole groups spans `PAIR_GROUP`
    // positions, a power of two, so the partner's multiply-shift is a shift there. The
    // partial last group's branch is taken by fewer than `PAIR_GROUP / m` of the pairs, so
    // it is predicted, and the bound is the same for every pair of a loop.
    let q = if group < m - m % PAIR_GROUP {
        group + ((x as u32 as u64 * PAIR_GROUP) >> 32)
    } else {
        group + ((x as u32 as u64 * (m - group)) >> 32)
    };
    (p, q)
}

/// The positions of a [`Probes`] two at a time; see [`Probes::pairs`].
#[derive(Debug, Clone)]
pub struct Pairs {
    probes: Probes,
}

impl Iterator for Pairs {
    type Item = (u64, u64);

    #[inline(always)]
    fn next(&mut self) -> Option<(u64, u64)> {
        if let Some(q) = self.probes.pending.take() {
            self.probes.remaining -= 1;
            return Some((q, q));
        }
        match self.probes.remaining {
            0 => None,
            1 => {
                self.probes.remaining = 0;
                let (p, _) = self.probes.step();
                Some((p, p))
            }
            _ => {
                self.probes.remaining -= 2;
                Some(self.probes.step())
            }
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let pending = u32::from(self.probes.pending.is_some());
        let n = ((self.probes.remaining - pending).div_ceil(2) + pending) as usize;
        (n, Some(n))
    }
}

impl Iterator for Probes {
    type Item = u64;

    #[inline(always)]
    fn next(&mut self) -> Option<u64> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        if let Some(q) = self.pending.take() {
            return Some(q);
        }
        let (p, q) = self.step();
        if self.remaining > 0 {
            self.pending = Some(q);
        }
        Some(p)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining as usize, Some(self.remaining as usize))
    }
}

impl ExactSizeIterator for Probes {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::{DEFAULT_SEED, hash_bytes, hash_key};

    /// Golden values: these pin the digest and the probe sequence, which are part of the binary
    /// format. If this test fails, the format changed.
    #[test]
    fn golden_digests_and_probes() {
        let h = hash_key(&42u64, DEFAULT_SEED);
        assert_eq!(h, hash_bytes(&42u64.to_le_bytes(), DEFAULT_SEED));
        assert_eq!(h, GOLDEN_42);
        let positions: Vec<u64> = Probes::new(h, 7, 958_506).collect();
        assert_eq!(positions, GOLDEN_42_PROBES);
        let h = hash_key("https://example.com/", DEFAULT_SEED);
        assert_eq!(h, GOLDEN_URL);
        let big: Vec<u64> = Probes::new(h, 4, 1 << 40).collect();
        assert_eq!(big, GOLDEN_URL_PROBES_2_40);
    }

    // Computed independently of this crate by tests/golden/golden_model.py: the seeded hash
    // written out in Python (the short-key products for 42's 8 bytes; the reference XXH3-64
    // of the C library, through Python's `xxhash` package, for the URL's 28 bytes), its widening and the
    // closed form of the probe sequence. The URL's bytes end with its `str` terminator in the
    // canonical width: `0xff` as 8 little-endian bytes.
    const GOLDEN_42: u128 = 0x0aea_c057_c700_3089_ac47_27c3_60fc_2532;
    const GOLDEN_42_PROBES: [u64; 7] = [
        645_036, 644_801, 685_911, 685_647, 360_670, 360_668, 261_701,
    ];
    const GOLDEN_URL: u128 = 0xb5ab_40bb_24cf_98d3_c435_6029_305f_dc60;
    const GOLDEN_URL_PROBES_2_40: [u64; 4] = [
        842_709_084_464,
        842_709_084_256,
        523_459_683_413,
        523_459_683_498,
    ];

    /// The second pair's position computed on its own is the sequence's probe 2, for every
    /// size (a wrong one would only misplace a prefetch, which no answer shows).
    #[test]
    fn second_pair_position_is_probe_two() {
        // SplitMix64 written out: the `keys` module sits above this one.
        let mut state = 17u64;
        let mut next = || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let z = (state ^ (state >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        for _ in 0..10_000 {
            let hash = u128::from(next()) << 64 | u128::from(next());
            let m = 1 + next() % crate::internal::checks::MAX_NUM_BITS;
            let third = Probes::new(hash, 3, m).nth(2);
            assert_eq!(
                Some(Probes::second_pair_position(hash, m)),
                third,
                "{m} bits"
            );
        }
    }

    #[test]
    fn reduce_is_multiply_shift() {
        assert_eq!(reduce(u64::MAX, u64::MAX), u64::MAX - 1);
        assert_eq!(reduce(1 << 32, 1 << 32), 1);
        // Beyond 2^32: the top of the range is reachable.
        assert!(reduce(u64::MAX, 1 << 33) >= (1 << 33) - 1);
    }

    /// The closed form of the documentation, written out with wide integers.
    fn closed_form(h: u128, k: u32, m: u64) -> Vec<u64> {
        let (a, b) = (u128::from(h as u64), u128::from((h >> 64) as u64));
        let c = u128::from(PROBE_SPREAD);
        let mut out = Vec::new();
        for j in 0..u128::from(k).div_ceil(2) {
            let x = (a + j * b + c * ((j * j * j - j) / 6)) as u64;
            let p = reduce(x, m);
            let s = p - p % 512;
            let q = s + (((x & 0xffff_ffff) * (m - s).min(512)) >> 32);
            out.push(p);
            out.push(q);
        }
        out.truncate(k as usize);
        out
    }

    #[test]
    fn probes_stay_in_range_and_follow_the_closed_form() {
        for m in [
            1u64,
            2,
            64,
            65,
            511,
            512,
            513,
            1000,
            958_506,
            1 << 33,
            u64::MAX / 2,
            u64::MAX,
        ] {
            for seed in 0..200u64 {
                let h = hash_key(&seed, 3);
                for k in [1u32, 2, 7, 20] {
                    let p: Vec<u64> = Probes::new(h, k, m).collect();
                    assert_eq!(p.len(), k as usize);
                    assert!(p.iter().all(|&x| x < m), "m {m}");
                    assert_eq!(p, closed_form(h, k, m), "m {m} k {k}");
                    // The pair view gives the same positions (the odd tail doubled).
                    let pairs: Vec<u64> = Probes::new(h, k, m)
                        .pairs()
                        .flat_map(|(a, b)| [a, b])
                        .collect();
                    assert_eq!(&pairs[..k as usize], &p[..]);
                    assert_eq!(pairs.len(), k.div_ceil(2) as usize * 2);
                    // Steps and pair_at give the same pairs, whatever m.
                    let from_steps: Vec<(u64, u64)> = Steps::new(h)
                        .take(k.div_ceil(2) as usize)
                        .map(|x| pair_at(x, m))
                        .collect();
                    let from_pairs: Vec<(u64, u64)> = Probes::new(h, k, m).pairs().collect();
                    for (j, (a, b)) in from_steps.iter().zip(&from_pairs).enumerate() {
                        let lone = k % 2 == 1 && j + 1 == from_pairs.len();
                        assert_eq!(a.0, b.0, "m {m} k {k} pair {j}");
                        if !lone {
                            assert_eq!(a.1, b.1, "m {m} k {k} pair {j}");
                        }
                    }
                    if k % 2 == 1 {
                        assert_eq!(pairs[pairs.len() - 1], pairs[pairs.len() - 2]);
                    }
                }
                // first/after split the sequence.
                let all: Vec<u64> = Probes::new(h, 7, m).collect();
                let head: Vec<u64> = Probes::new(h, 7, m).first(2).collect();
                let tail: Vec<u64> = Probes::new(h, 7, m).after(2).collect();
                assert_eq!([head, tail].concat(), all);
            }
        }
    }

    mod range {
        use super::super::{PAIR_GROUP, pair_at};
        use proptest::prelude::*;

        proptest! {
            /// The range invariant `BitStore::pair_set` relies on: both positions below m,
            /// for any step value and any m, and in one 512-position group.
            #[test]
            fn pair_at_stays_in_range(
                x in any::<u64>(),
                m in prop_oneof![
                    1u64..2048,
                    any::<u64>().prop_map(|m| m.max(1)),
                    (0u64..1024).prop_map(|d| u64::MAX - d),
                ],
            ) {
                let (p, q) = pair_at(x, m);
                prop_assert!(p < m && q < m, "x {x} m {m}: {p} {q}");
                prop_assert_eq!(p / PAIR_GROUP, q / PAIR_GROUP);
                // The formula of `Probes`' docs, with its multiplication, whichever branch
                // `pair_at` took.
                let group = p - p % PAIR_GROUP;
                let span = (m - group).min(PAIR_GROUP);
                prop_assert_eq!(q, group + (((x & 0xffff_ffff) * span) >> 32));
            }
        }
    }

    /// `after(n)` then `all_pairs` or `pairs` covers exactly the positions after the first n,
    /// for odd n too (it once skipped the partner left over in release builds).
    #[test]
    fn pairs_after_any_count_cover_the_rest() {
        for key in 0..200u64 {
            let h = hash_key(&key, 11);
            for k in 1..=12u32 {
                let all: Vec<u64> = Probes::new(h, k, 10_007).collect();
                for n in 0..=k {
                    let mut tested = Vec::new();
                    assert!(Probes::new(h, k, 10_007).after(n).all_pairs(|p, q| {
                        tested.extend([p, q]);
                        true
                    }));
                    let mut paired: Vec<u64> = Probes::new(h, k, 10_007)
                        .after(n)
                        .pairs()
                        .flat_map(|(p, q)| [p, q])
                        .collect();
                    let pairs = Probes::new(h, k, 10_007).after(n).pairs();
                    assert_eq!(pairs.size_hint().0, pairs.count(), "k {k} n {n}");
                    let mut rest = all[n as usize..].to_vec();
                    for v in [&mut tested, &mut paired, &mut rest] {
                        v.sort_unstable();
                        v.dedup();
                    }
                    assert_eq!(tested, rest, "all_pairs, k {k} n {n}");
                    assert_eq!(paired, rest, "pairs, k {k} n {n}");
                    // A failing test stops the loop whatever the state.
                    let mut calls = 0;
                    let any = n < k;
                    assert_eq!(
                        !Probes::new(h, k, 10_007).after(n).all_pairs(|_, _| {
                            calls += 1;
                            false
                        }),
                        any
                    );
                    assert!(calls <= 1);
                }
            }
        }
    }

    #[test]
    fn steps_restart_from_value() {
        let h = hash_key(&3u64, 1);
        let mut s = Steps::new(h);
        assert_eq!(s.value(), h as u64);
        let first = s.next_value();
        assert_eq!(first, h as u64);
        let copy = s;
        assert_eq!(s.next_value(), copy.value());
        // x_5 = a + 5 b + C (5^3 - 5) / 6.
        let (a, b) = (low_half(h), high_half(h));
        let x5 = a
            .wrapping_add(b.wrapping_mul(5))
            .wrapping_add(PROBE_SPREAD.wrapping_mul(20));
        assert_eq!(Steps::new(h).nth(5), Some(x5));
    }

    #[test]
    fn pairs_share_a_group_and_partners_are_uniform() {
        let m = 1_000_000u64;
        let mut offsets = [0u32; 8];
        for key in 0..50_000u64 {
            let p: Vec<u64> = Probes::new(hash_key(&key, 1), 8, m).collect();
            for pair in p.chunks(2) {
                assert_eq!(pair[0] / 512, pair[1] / 512);
                offsets[(pair[1] % 512 / 64) as usize] += 1;
            }
        }
        // 200,000 partners over 8 equal slices of the group: 25,000 each.
        assert!(
            offsets.iter().all(|&c| (24_000..26_000).contains(&c)),
            "{offsets:?}"
        );
    }

    #[test]
    fn probes_of_degenerate_hashes_stay_apart() {
        // b = 2^63 would make plain double hashing alternate between two positions.
        let m = 1 << 20;
        for b in [0u64, 1 << 63, 1 << 62, u64::MAX / 3] {
            let h = (u128::from(b) << 64) | 12345;
            // The first probe of each pair (the partners share its group).
            let mut p: Vec<u64> = Probes::new(h, 20, m).step_by(2).collect();
            p.sort_unstable();
            p.dedup();
            assert!(p.len() >= 9, "b = {b:#x}: {p:?}");
        }
    }

    #[test]
    fn probes_spread_over_a_range_beyond_2_pow_32() {
        let m = 1u64 << 34;
        let mut above = 0;
        for key in 0..10_000u64 {
            above += Probes::new(hash_key(&key, 0), 4, m)
                .filter(|&p| p >= 1 << 33)
                .count();
        }
        // Half of 40,000 probes should land in the upper half.
        assert!((19_000..21_000).contains(&above), "{above}");
    }
}
