//! The results of a sweep and their presentations: one [`Row`] per candidate and setting,
//! a [`Header`] describing the machine and the run, and writers for markdown, CSV, JSON and
//! SVG plots, the narrower form the command prints ([`terminal`]), and docs/tradeoffs.md
//! ([`docs`]) with its one section per CPU ([`sections`]).

use std::f64::consts::LN_2;

use serde::{Deserialize, Serialize};

use crate::candidate::{Info, Origin};
use crate::keys::KeyKind;
use crate::measure::{Entry, Measurement, Setting};
use crate::stats::FprEstimate;
use crate::sweep::Skipped;

pub mod docs;
pub mod files;
pub mod header;
pub mod markdown;
pub mod plots;
pub mod sections;
pub mod terminal;

pub use header::Header;

/// A measured rate at least this many times the candidate's own target (with the whole 95%
/// interval above it) is flagged, at loads up to 100% (or any load for a filter that grows).
pub const FAR_ABOVE_FACTOR: f64 = 1.5;

/// One candidate in one setting: every figure the report shows. Flat, so that it is one
/// CSV line; absent figures are `None` (an empty CSV field, a JSON `null`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Key kind.
    pub key_kind: KeyKind,
    /// Capacity every filter was sized for.
    pub n: u64,
    /// Keys offered, in percent of `n`.
    pub load_percent: u32,
    /// The sweep's target rate for this setting.
    pub target_fpr: f64,
    /// The candidate's id (command-line name).
    pub candidate: String,
    /// The candidate's type.
    pub name: String,
    /// Its crate.
    pub crate_name: String,
    /// Ours or a peer.
    pub origin: Origin,
    /// The hash function it used.
    pub hasher: String,
    /// The kernel it ran its queries with (`avx512`, `avx2`, `portable`, ...): the
    /// candidate's choice for this CPU and this setting. `None` where it cannot be known
    /// (most peers), and in reports written before it was recorded.
    #[serde(default)]
    pub kernel: Option<String>,
    /// The rate it was built for: the target, or its fixed rate.
    pub nominal_fpr: f64,
    /// Keys offered.
    pub keys_offered: u64,
    /// Keys it took (fewer when it reported full).
    pub keys_accepted: u64,
    /// Whether it refused a key as full.
    pub full: bool,
    /// Bytes held after the build, heap and inline.
    pub memory_bytes: Option<u64>,
    /// The most bytes held at once during the build.
    pub peak_build_bytes: Option<u64>,
    /// `memory_bytes * 8 / keys_accepted`.
    pub bits_per_key: Option<f64>,
    /// `log2(1 / measured rate)`: the fewest bits per key any filter with that rate needs.
    pub bound_bits_per_key: Option<f64>,
    /// `bits_per_key / bound_bits_per_key`: against the bound at the rate measured.
    pub ratio_to_bound: Option<f64>,
    /// `bits_per_key / log2(1 / nominal_fpr)`: against the bound at the rate the candidate
    /// was asked for (the target, or its fixed rate). A filter that reaches a rate far below
    /// its target (a scalable filter's tightened layers, Parquet's power-of-two sizes) pays
    /// for it in bits, which this ratio shows and `ratio_to_bound` hides. Absent from
    /// reports written before it existed; [`files`] fills it in when reading those.
    #[serde(default)]
    pub ratio_to_target_bound: Option<f64>,
    /// `bits_per_key / (log2(1 / measured rate) / ln 2)`: against the optimal classic filter
    /// at the same rate.
    pub ratio_to_classic: Option<f64>,
    /// Negatives queried.
    pub negatives: u64,
    /// Negatives answered "possibly present".
    pub false_positives: u64,
    /// `false_positives / negatives`.
    pub measured_fpr: f64,
    /// Lower end of the 95% interval of the rate.
    pub fpr_ci_low: f64,
    /// Upper end of the 95% interval of the rate.
    pub fpr_ci_high: f64,
    /// Build time per key accepted (nanoseconds).
    pub insert_ns: f64,
    /// Query time per inserted key, one at a time.
    pub present_ns: f64,
    /// Query time per negative, one at a time.
    pub absent_ns: f64,
    /// Query time per inserted key, batch query.
    pub present_batch_ns: Option<f64>,
    /// Query time per negative, batch query.
    pub absent_batch_ns: Option<f64>,
    /// Size of the memory probe's buffer.
    pub probe_bytes: Option<u64>,
    /// One random cache-line read in it, one at a time (dependent chain).
    pub probe_single_ns: Option<f64>,
    /// One random cache-line read in it, in prefetched groups of 32.
    pub probe_batch_ns: Option<f64>,
    /// `present_ns / probe_single_ns`.
    pub present_x_probe: Option<f64>,
    /// `absent_ns / probe_single_ns`.
    pub absent_x_probe: Option<f64>,
    /// `present_batch_ns / probe_batch_ns`.
    pub present_batch_x_probe: Option<f64>,
    /// `absent_batch_ns / probe_batch_ns`.
    pub absent_batch_x_probe: Option<f64>,
    /// Threads of the parallel build.
    pub threads: Option<u32>,
    /// Parallel build time per key.
    pub parallel_insert_ns: Option<f64>,
    /// Sequential build time over parallel build time.
    pub parallel_speedup: Option<f64>,
    /// Inserted keys answered "absent" by any query of any round (single, batch, or after
    /// the parallel build).
    pub false_negatives: u64,
    /// False negatives its documentation allows after it reported full (a cuckoo filter
    /// drops one stored key when an insert fails); any more is an error.
    pub tolerated_false_negatives: u64,
    /// Whether the batch query counted a different number of false positives than the
    /// single query.
    pub batch_disagrees: bool,
    /// Whether the measured rate is far above the candidate's own target.
    pub fpr_far_above_target: bool,
    /// Rounds measured (times are the fastest round's).
    pub rounds: u32,
}

/// `bits_per_key / log2(1 / rate)`: how many times the information-theoretic minimum for
/// `rate` a filter holding `bits_per_key` uses (`None` for a rate outside (0, 1)).
pub fn bound_ratio(bits_per_key: f64, rate: f64) -> Option<f64> {
    (rate > 0.0 && rate < 1.0).then(|| bits_per_key / -rate.log2())
}

fn per_key(d: std::time::Duration, count: u64) -> f64 {
    d.as_nanos() as f64 / count.max(1) as f64
}

impl Row {
    /// The row of `entry` in `setting` from its (merged) measurement.
    pub fn new(
        entry: &Entry,
        setting: &Setting,
        m: &Measurement,
        rounds: usize,
        threads: Option<usize>,
    ) -> Row {
        let info: &Info = &entry.info;
        let accepted = m.keys_accepted as u64;
        let estimate = FprEstimate::from_counts(m.false_positives, m.negatives);
        let memory = m.footprint.map(|(held, _)| held as u64);
        let bits_per_key = memory.map(|b| b as f64 * 8.0 / accepted.max(1) as f64);
        let bound = (estimate.rate > 0.0).then(|| -estimate.rate.log2());
        let ratio = |scale: f64| match (bits_per_key, bound) {
            (Some(b), Some(l)) if l > 0.0 => Some(b / (l * scale)),
            _ => None,
        };
        let full = m.keys_accepted < m.keys_offered;
        let load_percent = if info.static_build {
            100
        } else {
            setting.load_percent
        };
        let nominal_fpr = info.fixed_fpr.unwrap_or(setting.fpr);
        let probe = m.probe;
        let times = |ns: f64, probe_ns: Option<f64>| probe_ns.map(|p| ns / p);
        let present_ns = per_key(m.present, accepted);
        let absent_ns = per_key(m.absent, m.negatives);
        let present_batch_ns = m.present_batch.map(|d| per_key(d, accepted));
        let absent_batch_ns = m.absent_batch.map(|d| per_key(d, m.negatives));
        let probe_single = probe.map(|p| p.single_ns);
        let probe_batch = probe.map(|p| p.batched_ns);
        let parallel_missing = m.parallel.map_or(0, |(_, missing)| missing);
        Row {
            key_kind: setting.kind,
            n: setting.capacity,
            load_percent,
            target_fpr: setting.fpr,
            candidate: info.id.to_string(),
            name: info.name.to_string(),
            crate_name: info.crate_name.to_string(),
            origin: info.origin,
            hasher: info.hasher.to_string(),
            kernel: m.kernel.clone(),
            nominal_fpr,
            keys_offered: m.keys_offered as u64,
            keys_accepted: accepted,
            full,
            memory_bytes: memory,
            peak_build_bytes: m.footprint.map(|(_, peak)| peak as u64),
            bits_per_key,
            bound_bits_per_key: bound,
            ratio_to_bound: ratio(1.0),
            ratio_to_target_bound: bits_per_key.and_then(|b| bound_ratio(b, nominal_fpr)),
            ratio_to_classic: ratio(1.0 / LN_2),
            negatives: m.negatives,
            false_positives: m.false_positives,
            measured_fpr: estimate.rate,
            fpr_ci_low: estimate.low,
            fpr_ci_high: estimate.high,
            insert_ns: per_key(m.build, accepted),
            present_ns,
            absent_ns,
            present_batch_ns,
            absent_batch_ns,
            probe_bytes: probe.map(|p| p.bytes as u64),
            probe_single_ns: probe_single,
            probe_batch_ns: probe_batch,
            present_x_probe: times(present_ns, probe_single),
            absent_x_probe: times(absent_ns, probe_single),
            present_batch_x_probe: present_batch_ns.and_then(|ns| times(ns, probe_batch)),
            absent_batch_x_probe: absent_batch_ns.and_then(|ns| times(ns, probe_batch)),
            threads: threads.filter(|_| m.parallel.is_some()).map(|t| t as u32),
            parallel_insert_ns: m.parallel.map(|(d, _)| per_key(d, m.keys_offered as u64)),
            parallel_speedup: m
                .parallel
                .map(|(d, _)| m.build.as_secs_f64() / d.as_secs_f64().max(1e-12)),
            false_negatives: m
                .false_negatives
                .max(m.batch_false_negatives)
                .max(parallel_missing),
            tolerated_false_negatives: u64::from(info.evicts_when_full && full),
            batch_disagrees: m
                .batch_false_positives
                .is_some_and(|b| b != m.false_positives),
            fpr_far_above_target: (load_percent <= 100 || info.grows)
                && estimate.far_above(nominal_fpr, FAR_ABOVE_FACTOR),
            rounds: rounds as u32,
        }
    }

    /// Whether the row shows a false negative beyond what the candidate documents: the
    /// run's verdict is a failure.
    pub fn has_false_negatives(&self) -> bool {
        self.false_negatives > self.tolerated_false_negatives
    }

    /// Fills in the figures that reports written by earlier versions lack, from the ones
    /// they have.
    pub fn fill_derived(&mut self) {
        if self.ratio_to_target_bound.is_none() {
            self.ratio_to_target_bound = self
                .bits_per_key
                .and_then(|b| bound_ratio(b, self.nominal_fpr));
        }
    }

    /// Whether the candidate was built for its own fixed rate rather than the sweep's
    /// target (a fingerprint filter whose rate cannot be chosen).
    pub fn has_fixed_rate(&self) -> bool {
        (self.nominal_fpr - self.target_fpr).abs() > f64::EPSILON * self.target_fpr
    }

    /// The FPR estimate of the row.
    pub fn fpr_estimate(&self) -> FprEstimate {
        FprEstimate::from_counts(self.false_positives, self.negatives)
    }
}

/// A candidate's fixed facts, as the report lists them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CandidateInfo {
    /// Command-line name.
    pub id: String,
    /// Type.
    pub name: String,
    /// Crate (and version, for peers).
    pub crate_name: String,
    /// Ours or a peer.
    pub origin: Origin,
    /// Hash function used.
    pub hasher: String,
    /// Structure.
    pub structure: String,
    /// Supports removal.
    pub deletes: bool,
    /// Grows past its capacity.
    pub grows: bool,
    /// Has a batch query.
    pub batch: bool,
    /// Has a parallel build.
    pub parallel: bool,
    /// Its fixed rate, if it has one.
    pub fixed_fpr: Option<f64>,
    /// Built once from all its keys.
    pub static_build: bool,
}

impl From<&Entry> for CandidateInfo {
    fn from(e: &Entry) -> Self {
        CandidateInfo {
            id: e.info.id.into(),
            name: e.info.name.into(),
            crate_name: e.info.crate_name.into(),
            origin: e.info.origin,
            hasher: e.info.hasher.into(),
            structure: e.info.structure.into(),
            deletes: e.info.deletes,
            grows: e.info.grows,
            batch: e.batch,
            parallel: e.parallel,
            fixed_fpr: e.info.fixed_fpr,
            static_build: e.info.static_build,
        }
    }
}

/// A whole run: what was run where, who was measured, and every row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Machine and run.
    pub header: Header,
    /// The candidates, in report order.
    pub candidates: Vec<CandidateInfo>,
    /// Every measurement.
    pub rows: Vec<Row>,
    /// Candidates that could not be built in some setting.
    pub skipped: Vec<Skipped>,
    /// The design space of the fixed-size layouts ([`crate::design`]); empty in reports
    /// written before it was measured.
    #[serde(default)]
    pub design: Vec<crate::design::DesignRow>,
}

impl Report {
    /// Rows with false negatives beyond what their candidate documents.
    pub fn false_negative_rows(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| r.has_false_negatives())
    }

    /// Rows whose measured rate is far above their target.
    pub fn flagged_rows(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| r.fpr_far_above_target)
    }

    /// Whether every candidate answered "present" for every key it holds.
    pub fn is_correct(&self) -> bool {
        self.false_negative_rows().next().is_none()
    }
}
