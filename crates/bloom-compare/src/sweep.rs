//! The sweep: every selected candidate in every setting, on keys generated once per kind,
//! with rounds interleaved across candidates so that a burst of noise from other work on
//! the machine lands on one round of several candidates rather than all rounds of one.

use std::time::Duration;

use rayon::ThreadPool;
use serde::{Deserialize, Serialize};

use crate::keys::{KeyKind, KeySet};
use crate::measure::{Context, Entry, Measurement, ProbeCache, Setting};
use crate::report::Row;
use crate::stats;

/// How many negatives each setting queries.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Negatives {
    /// Enough for about this many false positives at the candidate's target rate, within
    /// `[min, max]` (see [`stats::negatives_for`]).
    ForExpected {
        /// False positives to expect.
        false_positives: f64,
        /// Fewest negatives.
        min: usize,
        /// Most negatives.
        max: usize,
    },
    /// Always this many.
    Fixed(usize),
}

impl Negatives {
    /// The default: about 2,000 expected false positives (a 95% interval of about ±4.4% of
    /// the rate), between 100 thousand and 2 million negatives.
    pub const DEFAULT: Negatives = Negatives::ForExpected {
        false_positives: 2_000.0,
        min: 100_000,
        max: 2_000_000,
    };

    /// How many negatives to query for a target rate `fpr`.
    pub fn count(&self, fpr: f64) -> usize {
        match *self {
            Negatives::ForExpected {
                false_positives,
                min,
                max,
            } => stats::negatives_for(fpr, false_positives, min, max),
            Negatives::Fixed(count) => count,
        }
    }
}

/// A sweep's configuration.
#[derive(Debug, Clone)]
pub struct Sweep {
    /// The candidates, in report order.
    pub entries: Vec<Entry>,
    /// Key kinds.
    pub kinds: Vec<KeyKind>,
    /// Capacities (n).
    pub sizes: Vec<u64>,
    /// Target false-positive rates (p).
    pub fprs: Vec<f64>,
    /// Loads, in percent of capacity.
    pub loads: Vec<u32>,
    /// Threads of the parallel build (1: not measured).
    pub threads: usize,
    /// Rounds per setting; times are the fastest round's.
    pub rounds: usize,
    /// Seed of the keys and probe addresses.
    pub seed: u64,
    /// Negatives per setting.
    pub negatives: Negatives,
    /// Time for each of the memory probe's two measurements.
    pub probe_budget: Duration,
    /// The keys of the [`KeyKind::File`] kind in [`kinds`](Sweep::kinds), read from the
    /// user's file ([`key_file::read`](crate::key_file::read)); `None` when only generated
    /// kinds are measured.
    pub file_keys: Option<KeySet>,
}

/// Where a sweep is, for a progress display.
///
/// Steps differ in cost by a factor of fifty or more (a candidate at n = 1M with 2 million
/// negatives against one at n = 100K with 100 thousand), so a display that counts
/// steps alike misjudges the time left; `work_done` and `work_total` weight each step by
/// its expected cost ([`Sweep::step_cost`]) and are what a bar and its estimate should
/// follow.
#[derive(Debug, Clone, Copy)]
pub struct Progress<'a> {
    /// Measurements done.
    pub done: usize,
    /// Measurements in the whole sweep.
    pub total: usize,
    /// Expected cost of the steps done (key generation included), in estimated
    /// nanoseconds.
    pub work_done: u64,
    /// Expected cost of the whole sweep, in the same unit.
    pub work_total: u64,
    /// What is being done now.
    pub what: &'a str,
}

/// Estimated nanoseconds per inserted key and pass over the inserted keys (a build, a
/// query of every key), for u64 keys. Fitted on the default sweep (304 steps, 28.6 s on 2
/// shared cores): 20 ns per key and pass, 17 per negative and pass.
const NS_PER_KEY_PASS: f64 = 20.0;

/// Estimated nanoseconds per negative and pass over the negatives.
const NS_PER_NEGATIVE_PASS: f64 = 17.0;

/// How much more a query or insert costs with keys of `kind` than with u64 keys (hashing
/// the bytes), as measured at n = 100K.
fn kind_factor(kind: KeyKind) -> f64 {
    match kind {
        KeyKind::U64 => 1.0,
        KeyKind::Str16 => 1.2,
        // Not measured for a file's keys, whose lengths are the user's: the URL-like keys'
        // figure stands in. It only weights the progress bar.
        KeyKind::Url | KeyKind::File(_) => 1.35,
    }
}

/// Estimated nanoseconds to generate one key of `kind` (the URL-like keys are formatted).
fn generation_ns(kind: KeyKind) -> f64 {
    match kind {
        KeyKind::U64 => 5.0,
        KeyKind::Str16 => 65.0,
        KeyKind::Url => 230.0,
        // A file's keys are read before the sweep starts.
        KeyKind::File(_) => 0.0,
    }
}

/// A candidate that could not be measured in a setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    /// The candidate's id.
    pub candidate: String,
    /// The setting.
    pub setting: Setting,
    /// Why.
    pub reason: String,
}

/// What a sweep produced.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// One row per candidate and setting measured.
    pub rows: Vec<Row>,
    /// Candidates that could not be built in some setting.
    pub skipped: Vec<Skipped>,
}

/// One planned setting and the candidates measured in it.
#[derive(Debug, Clone)]
pub struct Planned {
    /// The setting.
    pub setting: Setting,
    /// Indices into [`Sweep::entries`].
    pub entries: Vec<usize>,
}

impl Sweep {
    /// Checks the configuration.
    ///
    /// # Errors
    ///
    /// A message naming the first bad parameter.
    pub fn validate(&self) -> Result<(), String> {
        if self.entries.is_empty() {
            return Err("no candidates selected".into());
        }
        if self.kinds.is_empty() || self.sizes.is_empty() || self.fprs.is_empty() {
            return Err("key kinds, sizes and target rates must not be empty".into());
        }
        if self.loads.is_empty() {
            return Err("loads must not be empty".into());
        }
        if let Some(n) = self.sizes.iter().find(|&&n| n == 0 || n > 1 << 34) {
            return Err(format!("size {n} out of range (1 to 2^34)"));
        }
        if let Some(p) = self.fprs.iter().find(|&&p| !(p > 0.0 && p < 1.0)) {
            return Err(format!("target rate {p} must be strictly between 0 and 1"));
        }
        if let Some(l) = self.loads.iter().find(|&&l| l == 0 || l > 1_000) {
            return Err(format!("load {l}% out of range (1 to 1000)"));
        }
        if self.rounds == 0 || self.threads == 0 {
            return Err("rounds and threads must be at least 1".into());
        }
        self.validate_file_keys()
    }

    /// Checks that a file's kind comes with its keys, and enough of them for every setting.
    fn validate_file_keys(&self) -> Result<(), String> {
        for &kind in &self.kinds {
            let KeyKind::File(label) = kind else {
                continue;
            };
            let keys = self
                .file_keys
                .as_ref()
                .filter(|k| k.kind() == kind)
                .ok_or_else(|| format!("no keys were read for the kind {label:?}"))?;
            let available = keys.positives_len();
            let plan = self.plan();
            let needed = plan
                .iter()
                .filter(|p| p.setting.kind == kind)
                .flat_map(|p| {
                    p.entries
                        .iter()
                        .map(move |&i| (self.entries[i].keys_offered(&p.setting), p.setting))
                })
                .max_by_key(|&(keys, _)| keys);
            if let Some((needed, setting)) = needed.filter(|&(n, _)| n > available) {
                return Err(format!(
                    "--n {} at --load {}% needs {needed} keys to insert, but {} gives \
                     {available}; give a smaller --n or lower loads (--n defaults to \
                     {available})",
                    setting.capacity,
                    setting.load_percent,
                    label.strip_prefix("file: ").unwrap_or(label),
                ));
            }
        }
        Ok(())
    }

    /// The load a candidate built once from its keys is measured at: 100% if the sweep has
    /// it, else the first load.
    fn static_load(&self) -> u32 {
        if self.loads.contains(&100) {
            100
        } else {
            self.loads[0]
        }
    }

    /// Every setting, with the candidates measured in it. A candidate with a fixed rate is
    /// measured at the first target rate only; one built once from its keys only at one
    /// load (it always holds exactly its capacity).
    pub fn plan(&self) -> Vec<Planned> {
        let mut plan = Vec::new();
        for &kind in &self.kinds {
            for &capacity in &self.sizes {
                for (fpr_index, &fpr) in self.fprs.iter().enumerate() {
                    for &load_percent in &self.loads {
                        let entries: Vec<usize> = self
                            .entries
                            .iter()
                            .enumerate()
                            .filter(|(_, e)| e.info.fixed_fpr.is_none() || fpr_index == 0)
                            .filter(|(_, e)| {
                                !e.info.static_build || load_percent == self.static_load()
                            })
                            .map(|(i, _)| i)
                            .collect();
                        if !entries.is_empty() {
                            plan.push(Planned {
                                setting: Setting {
                                    kind,
                                    capacity,
                                    load_percent,
                                    fpr,
                                },
                                entries,
                            });
                        }
                    }
                }
            }
        }
        plan
    }

    /// Negatives queried for `entry` in `setting`.
    fn negatives_for(&self, entry: &Entry, setting: &Setting) -> usize {
        self.negatives
            .count(entry.info.fixed_fpr.unwrap_or(setting.fpr))
    }

    /// The expected cost of measuring `entry` once (one round) in `setting`, in estimated
    /// nanoseconds: a pass over the inserted keys for the build and one for the present
    /// queries, one more for the batch query where the candidate has one and two for the
    /// parallel build and its check where it is measured; a pass over the negatives for the
    /// single query and one for the batch query; all scaled for the key kind. Only the
    /// proportions matter to a progress display: on the default sweep (29 s on 2 shared
    /// cores), the time left that the command's bar estimates from these weights was within
    /// 20% of the truth once 15% of the work was done; counting every step alike, it was 3.2
    /// to 4.7 times too short.
    pub fn step_cost(&self, entry: &Entry, setting: &Setting) -> u64 {
        let keys = entry.keys_offered(setting) as f64;
        let negatives = self.negatives_for(entry, setting) as f64;
        let batch = if entry.batch { 1.0 } else { 0.0 };
        let parallel = if entry.parallel && self.threads > 1 {
            2.0
        } else {
            0.0
        };
        let key_passes = 2.0 + batch + parallel;
        let negative_passes = 1.0 + batch;
        let ns = kind_factor(setting.kind)
            * (keys * key_passes * NS_PER_KEY_PASS
                + negatives * negative_passes * NS_PER_NEGATIVE_PASS);
        (ns.ceil() as u64).max(1)
    }

    /// The expected cost of generating `positives` and `negatives` keys of `kind`, in the
    /// unit of [`step_cost`](Sweep::step_cost).
    pub fn generation_cost(kind: KeyKind, positives: usize, negatives: usize) -> u64 {
        let ns = generation_ns(kind) * (positives as f64 + negatives as f64);
        (ns.ceil() as u64).max(1)
    }

    /// The keys generated for `kind`: as many positives and negatives as its most demanding
    /// setting needs.
    fn key_counts(&self, plan: &[Planned], kind: KeyKind) -> (usize, usize) {
        let settings = plan.iter().filter(|p| p.setting.kind == kind);
        let mut positives = 0;
        let mut negatives = 0;
        for p in settings {
            for &i in &p.entries {
                let entry = &self.entries[i];
                positives = positives.max(entry.keys_offered(&p.setting));
                negatives = negatives.max(self.negatives_for(entry, &p.setting));
            }
        }
        (positives, negatives)
    }

    /// The expected cost of the whole sweep (every round of every step, and the keys), in
    /// the unit of [`step_cost`](Sweep::step_cost): the `work_total` of its [`Progress`].
    pub fn total_cost(&self) -> u64 {
        let plan = self.plan();
        let steps: u64 = plan
            .iter()
            .flat_map(|p| {
                p.entries
                    .iter()
                    .map(|&i| self.step_cost(&self.entries[i], &p.setting))
            })
            .sum();
        let keys: u64 = self
            .kinds
            .iter()
            .map(|&kind| {
                let (positives, negatives) = self.key_counts(&plan, kind);
                Sweep::generation_cost(kind, positives, negatives)
            })
            .sum();
        steps * self.rounds as u64 + keys
    }

    /// Runs the sweep, calling `progress` before each measurement (and before generating
    /// each kind's keys), and once more when it is done (`done == total`,
    /// `work_done == work_total`).
    ///
    /// # Errors
    ///
    /// When the configuration is invalid or the thread pool cannot be built.
    pub fn run(&self, progress: &mut dyn FnMut(Progress<'_>)) -> Result<Outcome, String> {
        self.validate()?;
        let pool = if self.threads > 1 {
            Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(self.threads)
                    .build()
                    .map_err(|e| format!("thread pool: {e}"))?,
            )
        } else {
            None
        };
        let plan = self.plan();
        let mut at = At {
            done: 0,
            total: plan.iter().map(|p| p.entries.len() * self.rounds).sum(),
            work_done: 0,
            work_total: self.total_cost(),
        };
        let mut outcome = Outcome::default();
        for &kind in &self.kinds {
            let (positives, negatives) = self.key_counts(&plan, kind);
            let generated;
            let keys = match (kind, &self.file_keys) {
                (KeyKind::File(_), Some(keys)) => keys,
                _ => {
                    let what = format!("generating {positives} + {negatives} {} keys", kind.name());
                    progress(at.progress(&what));
                    generated = KeySet::generate(kind, positives, negatives, self.seed);
                    &generated
                }
            };
            at.work_done += Sweep::generation_cost(kind, positives, negatives);
            for planned in plan.iter().filter(|p| p.setting.kind == kind) {
                self.run_setting(
                    planned,
                    keys,
                    pool.as_ref(),
                    &mut at,
                    progress,
                    &mut outcome,
                );
            }
        }
        progress(at.progress("done"));
        Ok(outcome)
    }

    fn run_setting(
        &self,
        planned: &Planned,
        keys: &KeySet,
        pool: Option<&ThreadPool>,
        at: &mut At,
        progress: &mut dyn FnMut(Progress<'_>),
        outcome: &mut Outcome,
    ) {
        let setting = planned.setting;
        let mut results: Vec<Option<Measurement>> = vec![None; planned.entries.len()];
        let mut failed = vec![false; planned.entries.len()];
        let mut probes = ProbeCache::new();
        for round in 0..self.rounds {
            probes.clear();
            for (slot, &index) in planned.entries.iter().enumerate() {
                let entry = &self.entries[index];
                let what = format!(
                    "{} n={} p={} load={}% {} (round {}/{})",
                    setting.kind.name(),
                    setting.capacity,
                    setting.fpr,
                    setting.load_percent,
                    entry.info.id,
                    round + 1,
                    self.rounds
                );
                progress(at.progress(&what));
                at.done += 1;
                at.work_done += self.step_cost(entry, &setting);
                if failed[slot] {
                    continue;
                }
                let mut context = Context {
                    negatives: self.negatives_for(entry, &setting),
                    pool,
                    probes: &mut probes,
                    probe_budget: self.probe_budget,
                    seed: self.seed ^ round as u64,
                };
                match entry.measure(&setting, keys, &mut context) {
                    Ok(m) => {
                        results[slot] = Some(match results[slot].take() {
                            None => m,
                            Some(best) => merge(best, m),
                        })
                    }
                    Err(e) => {
                        failed[slot] = true;
                        results[slot] = None;
                        outcome.skipped.push(Skipped {
                            candidate: entry.info.id.to_string(),
                            setting,
                            reason: e.message,
                        });
                    }
                }
            }
        }
        for (slot, &index) in planned.entries.iter().enumerate() {
            if let Some(m) = results[slot].take() {
                let entry = &self.entries[index];
                let threads = (entry.parallel && self.threads > 1).then_some(self.threads);
                outcome
                    .rows
                    .push(Row::new(entry, &setting, &m, self.rounds, threads));
            }
        }
    }
}

/// The counters behind [`Progress`].
#[derive(Debug, Clone, Copy)]
struct At {
    done: usize,
    total: usize,
    work_done: u64,
    work_total: u64,
}

impl At {
    fn progress<'a>(&self, what: &'a str) -> Progress<'a> {
        Progress {
            done: self.done,
            total: self.total,
            work_done: self.work_done,
            work_total: self.work_total,
            what,
        }
    }
}

/// Two rounds of one candidate in one setting: the faster time of each measurement, the
/// larger false-negative count, the first round's counts otherwise (they are the same for
/// a deterministic filter).
fn merge(a: Measurement, b: Measurement) -> Measurement {
    let min_opt = |x: Option<Duration>, y: Option<Duration>| match (x, y) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    };
    Measurement {
        build: a.build.min(b.build),
        present: a.present.min(b.present),
        absent: a.absent.min(b.absent),
        present_batch: min_opt(a.present_batch, b.present_batch),
        absent_batch: min_opt(a.absent_batch, b.absent_batch),
        false_negatives: a.false_negatives.max(b.false_negatives),
        batch_false_negatives: a.batch_false_negatives.max(b.batch_false_negatives),
        parallel: match (a.parallel, b.parallel) {
            (Some((da, ma)), Some((db, mb))) => Some((da.min(db), ma.max(mb))),
            (x, y) => x.or(y),
        },
        probe: match (a.probe, b.probe) {
            (Some(x), Some(y)) => Some(crate::probe::ProbeResult {
                bytes: x.bytes,
                single_ns: x.single_ns.min(y.single_ns),
                batched_ns: x.batched_ns.min(y.batched_ns),
            }),
            (x, y) => x.or(y),
        },
        ..a
    }
}
