//! Measuring one candidate in one setting: build (timed, with its memory footprint), query
//! every inserted key and every negative one at a time and in batches (timed, and checked),
//! build again on several threads, and probe the memory at the filter's size.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rayon::ThreadPool;
use serde::{Deserialize, Serialize};

use crate::alloc::{self, Footprint};
use crate::candidate::{BuildError, Candidate, Info, Origin};
use crate::keys::{Key, KeyKind, KeySet};
use crate::probe::{self, ProbeResult};

/// One point of a sweep: which keys, how many the filter is sized for, how full it gets,
/// and the rate it is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Setting {
    /// The kind of keys.
    pub kind: KeyKind,
    /// The capacity every filter is sized for (n).
    pub capacity: u64,
    /// Keys inserted, as a percentage of the capacity.
    pub load_percent: u32,
    /// The target false-positive rate every tunable filter is sized for (p).
    pub fpr: f64,
}

impl Setting {
    /// How many keys are offered to a filter: `capacity * load / 100`.
    pub fn keys_offered(&self) -> usize {
        (u128::from(self.capacity) * u128::from(self.load_percent) / 100) as usize
    }
}

/// Probe results of the current round, by filter size (sizes within about 2% share one).
#[derive(Debug, Default)]
pub struct ProbeCache {
    results: HashMap<i64, ProbeResult>,
}

impl ProbeCache {
    /// An empty cache.
    pub fn new() -> Self {
        ProbeCache::default()
    }

    /// Forgets every result (between rounds, so each round measures afresh).
    pub fn clear(&mut self) {
        self.results.clear();
    }

    /// The probe of a buffer of about `bytes`, measured now unless a buffer within about 2%
    /// of that size was measured this round.
    pub fn get(&mut self, bytes: usize, seed: u64, budget: Duration) -> ProbeResult {
        let bucket = ((bytes.max(1) as f64).log2() * 32.0).round() as i64;
        *self
            .results
            .entry(bucket)
            .or_insert_with(|| probe::probe(bytes, seed, budget))
    }
}

/// What a measurement needs besides the keys.
#[derive(Debug)]
pub struct Context<'a> {
    /// Negatives to query (a prefix of the key set's negatives).
    pub negatives: usize,
    /// The pool for the parallel build (`None`: not measured).
    pub pool: Option<&'a ThreadPool>,
    /// Probe results shared by the candidates of a round.
    pub probes: &'a mut ProbeCache,
    /// Time spent on each of the probe's two measurements.
    pub probe_budget: Duration,
    /// Seed of the probe's random addresses.
    pub seed: u64,
}

/// The raw figures of one candidate in one setting, in one round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    /// Keys offered to the filter.
    pub keys_offered: usize,
    /// Keys it took before reporting full (all of them, usually).
    pub keys_accepted: usize,
    /// Time to build the filter from its keys.
    pub build: Duration,
    /// Bytes held after the build and the most held at once during it, heap and inline
    /// (`None` without the counting allocator).
    pub footprint: Option<(usize, usize)>,
    /// Time to query every accepted key, one at a time.
    pub present: Duration,
    /// Time to query every negative, one at a time.
    pub absent: Duration,
    /// Time to query every accepted key with the batch query.
    pub present_batch: Option<Duration>,
    /// Time to query every negative with the batch query.
    pub absent_batch: Option<Duration>,
    /// Negatives queried.
    pub negatives: u64,
    /// Negatives answered "possibly present", one at a time.
    pub false_positives: u64,
    /// Negatives answered "possibly present" by the batch query.
    pub batch_false_positives: Option<u64>,
    /// Accepted keys answered "absent" by the single query.
    pub false_negatives: u64,
    /// Accepted keys answered "absent" by the batch query.
    pub batch_false_negatives: u64,
    /// Time of the parallel build, and keys its filter then answered "absent".
    pub parallel: Option<(Duration, u64)>,
    /// The memory probe at the filter's size.
    pub probe: Option<ProbeResult>,
    /// The kernel the filter ran its queries with ([`Candidate::kernel`]).
    #[serde(default)]
    pub kernel: Option<String>,
}

/// A registered candidate: its facts and its measuring function, compiled for each key type.
#[derive(Clone, Copy)]
pub struct Entry {
    /// What it is.
    pub info: Info,
    /// Whether it has a batch query.
    pub batch: bool,
    /// Whether it has a parallel build.
    pub parallel: bool,
    run: fn(&Setting, &KeySet, &mut Context<'_>) -> Result<Measurement, BuildError>,
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("id", &self.info.id)
            .field("batch", &self.batch)
            .field("parallel", &self.parallel)
            .finish()
    }
}

impl Entry {
    /// The entry of candidate `C`, with the hasher its filter reports.
    pub fn of<C: Candidate>() -> Entry {
        Entry {
            info: Info {
                hasher: hasher_of::<C>(),
                ..C::INFO
            },
            batch: C::BATCH,
            parallel: C::PARALLEL,
            run: run::<C>,
        }
    }

    /// Measures the candidate in `setting` on `keys`.
    ///
    /// # Errors
    ///
    /// When the candidate cannot be built for the setting.
    pub fn measure(
        &self,
        setting: &Setting,
        keys: &KeySet,
        context: &mut Context<'_>,
    ) -> Result<Measurement, BuildError> {
        (self.run)(setting, keys, context)
    }

    /// How many keys the candidate is offered in `setting`: the setting's load, or exactly
    /// its capacity for a filter built once from its keys.
    pub fn keys_offered(&self, setting: &Setting) -> usize {
        if self.info.static_build {
            in_memory(setting.capacity)
        } else {
            setting.keys_offered()
        }
    }
}

/// The hasher candidate `C` runs, as its own filter says ([`Candidate::hasher`]): one of ours
/// is built empty and asked (a keyed adapter's filter answers SipHash-1-3), so the reports
/// cannot state a hasher the filter does not run; a peer, whose hasher its adapter fixes, is
/// not built. The `INFO`'s where the build fails.
fn hasher_of<C: Candidate>() -> &'static str {
    if C::INFO.origin == Origin::Peer {
        return C::INFO.hasher;
    }
    C::build::<u64>(1_000, 0.01, &[]).map_or(C::INFO.hasher, |built| C::hasher(&built.filter))
}

fn run<C: Candidate>(
    setting: &Setting,
    keys: &KeySet,
    context: &mut Context<'_>,
) -> Result<Measurement, BuildError> {
    match keys {
        KeySet::U64 {
            positives,
            negatives,
        } => measure::<C, u64>(setting, positives, negatives, context),
        KeySet::Strings {
            positives,
            negatives,
            ..
        } => measure::<C, String>(setting, positives, negatives, context),
        KeySet::Bytes {
            positives,
            negatives,
            ..
        } => measure::<C, Vec<u8>>(setting, positives, negatives, context),
    }
}

/// Runs `work` and returns its result and duration.
#[inline]
fn timed<R>(work: impl FnOnce() -> R) -> (R, Duration) {
    let start = Instant::now();
    let result = work();
    (result, start.elapsed())
}

/// A count of keys as the length of a slice of them: `usize::MAX` (more than any key set
/// holds) when it does not fit the address space.
fn in_memory(count: u64) -> usize {
    usize::try_from(count).unwrap_or(usize::MAX)
}

/// Measures candidate `C` on keys of type `K`.
///
/// # Errors
///
/// When `C` cannot be built for `setting`, or the key set is too small for it.
pub fn measure<C: Candidate, K: Key>(
    setting: &Setting,
    positives: &[K],
    negatives: &[K],
    context: &mut Context<'_>,
) -> Result<Measurement, BuildError> {
    let offered_count = if C::INFO.static_build {
        in_memory(setting.capacity)
    } else {
        setting.keys_offered()
    };
    let offered = positives.get(..offered_count).ok_or_else(|| {
        BuildError::new(format!(
            "key set holds {} positives, setting needs {offered_count}",
            positives.len()
        ))
    })?;
    let negatives = &negatives[..context.negatives.min(negatives.len())];

    let ((built, build), footprint) =
        alloc::footprint(|| timed(|| C::build(setting.capacity, setting.fpr, offered)));
    let built = built?;
    let filter = &built.filter;
    let accepted = &offered[..built.accepted];

    let (hits, present) = timed(|| {
        accepted
            .iter()
            .filter(|k| C::contains(filter, opaque(*k)))
            .count()
    });
    let (false_positives, absent) = timed(|| {
        negatives
            .iter()
            .filter(|k| C::contains(filter, opaque(*k)))
            .count()
    });
    let mut measurement = Measurement {
        keys_offered: offered.len(),
        keys_accepted: accepted.len(),
        build,
        // The filter's own struct (on the stack here) counts too.
        footprint: footprint.map(|Footprint { held, peak }| {
            let inline = std::mem::size_of::<C::Filter<K>>();
            (held + inline, peak + inline)
        }),
        present,
        absent,
        present_batch: None,
        absent_batch: None,
        negatives: negatives.len() as u64,
        false_positives: false_positives as u64,
        batch_false_positives: None,
        false_negatives: (accepted.len() - hits) as u64,
        batch_false_negatives: 0,
        parallel: None,
        probe: None,
        kernel: C::kernel(filter).map(String::from),
    };
    if C::BATCH {
        let mut out = Vec::with_capacity(accepted.len().max(negatives.len()));
        let ((), present_batch) = timed(|| C::contains_batch(filter, accepted, &mut out));
        measurement.batch_false_negatives = out.iter().filter(|&&b| !b).count() as u64
            + accepted.len().saturating_sub(out.len()) as u64;
        let ((), absent_batch) = timed(|| C::contains_batch(filter, negatives, &mut out));
        measurement.batch_false_positives = Some(out.iter().filter(|&&b| b).count() as u64);
        measurement.present_batch = Some(present_batch);
        measurement.absent_batch = Some(absent_batch);
    }
    drop(built);

    if let Some(pool) = context
        .pool
        .filter(|_| C::PARALLEL && accepted.len() == offered.len())
    {
        let (parallel, duration) =
            timed(|| C::par_build(setting.capacity, setting.fpr, offered, pool));
        let parallel = parallel?;
        let missing = offered
            .iter()
            .filter(|k| !C::contains(&parallel, k))
            .count();
        measurement.parallel = Some((duration, missing as u64));
    }

    if let Some((held, _)) = measurement.footprint {
        measurement.probe = Some(context.probes.get(held, context.seed, context.probe_budget));
    }
    Ok(measurement)
}

/// `key`, passed through a barrier the optimiser cannot see through, so that a timed loop
/// of queries cannot be hoisted, merged or vectorised across keys. Unlike
/// `std::hint::black_box`, it does not also tell the compiler that any memory may have
/// changed: with that, every query reloaded its filter's fields and redid the work that
/// depends only on them (the hash's seed, the kernel's choice), a cost no ordinary loop of
/// queries pays and one that fell unevenly on the candidates (docs/compare.md, "Inlining
/// and the key barrier").
#[inline(always)]
fn opaque<T>(key: &T) -> &T {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        let mut address = (key as *const T).expose_provenance();
        // SAFETY: the template is a comment: no instruction runs, the register holding the
        // address is left as it is, and no memory, stack or flag is touched (as the options
        // say).
        unsafe {
            std::arch::asm!(
                "/* {0} */",
                inout(reg) address,
                options(pure, nomem, nostack, preserves_flags)
            );
        }
        // SAFETY: `address` is still `key`'s address, whose provenance was exposed above (the
        // asm changed nothing), so the pointer is to the `T` that `key` borrows, for the same
        // lifetime.
        unsafe { &*std::ptr::with_exposed_provenance::<T>(address) }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        std::hint::black_box(key)
    }
}
