//! The report as markdown: the tables the command prints and docs/tradeoffs.md holds.

use std::fmt::Write as _;

use crate::candidate::Origin;
use crate::keys::KeyKind;
use crate::report::{CandidateInfo, FAR_ABOVE_FACTOR, Report, Row};

/// A markdown table whose columns are padded to equal width, so it reads as well in a
/// terminal as rendered.
#[derive(Debug, Clone)]
pub struct Table {
    header: Vec<String>,
    right: Vec<bool>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column headings; headings starting with `>` are right-aligned
    /// (the `>` is dropped).
    pub fn new(header: &[&str]) -> Table {
        Table {
            header: header
                .iter()
                .map(|h| h.trim_start_matches('>').to_string())
                .collect(),
            right: header.iter().map(|h| h.starts_with('>')).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row (missing cells are empty).
    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// Whether no row was added.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The table as markdown lines.
    pub fn render(&self) -> String {
        let columns = self.header.len();
        let width = |i: usize| {
            self.rows
                .iter()
                .filter_map(|r| r.get(i))
                .chain(std::iter::once(&self.header[i]))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
                .max(3)
        };
        let widths: Vec<usize> = (0..columns).map(width).collect();
        let line = |cells: &[String]| {
            let mut s = String::from("|");
            for (i, w) in widths.iter().enumerate() {
                let cell = cells.get(i).map_or("", String::as_str);
                let pad = w - cell.chars().count();
                if self.right[i] {
                    let _ = write!(s, " {}{} |", " ".repeat(pad), cell);
                } else {
                    let _ = write!(s, " {}{} |", cell, " ".repeat(pad));
                }
            }
            s.push('\n');
            s
        };
        let mut out = line(&self.header);
        out.push('|');
        for (i, w) in widths.iter().enumerate() {
            if self.right[i] {
                let _ = write!(out, "{}:|", "-".repeat(w + 1));
            } else {
                let _ = write!(out, "{}|", "-".repeat(w + 2));
            }
        }
        out.push('\n');
        for row in &self.rows {
            out.push_str(&line(row));
        }
        out
    }
}

/// A rate in percent with three significant digits: `1%`, `0.0954%`.
pub fn percent(rate: f64) -> String {
    if rate == 0.0 {
        return "0".into();
    }
    let pct = rate * 100.0;
    let digits = (2 - pct.abs().log10().floor() as i32).clamp(0, 8) as usize;
    let s = format!("{pct:.digits$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    format!("{s}%")
}

/// Nanoseconds: one decimal below 100, none above.
pub fn nanos(ns: f64) -> String {
    if ns < 100.0 {
        format!("{ns:.1}")
    } else {
        format!("{ns:.0}")
    }
}

/// An optional figure, or a dash.
pub fn opt(value: Option<f64>, f: impl Fn(f64) -> String) -> String {
    value.map_or_else(|| "–".to_string(), f)
}

/// Bytes in KiB, MiB or GiB.
pub fn bytes(b: u64) -> String {
    let b = b as f64;
    if b < 1024.0 * 1024.0 {
        format!("{:.1} KiB", b / 1024.0)
    } else if b < 1024.0 * 1024.0 * 1024.0 {
        format!("{:.2} MiB", b / (1024.0 * 1024.0))
    } else {
        format!("{:.2} GiB", b / (1024.0 * 1024.0 * 1024.0))
    }
}

/// A count with thousands separators: `1,000,000`.
pub fn count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `count` and the noun that goes with it: `1 measurement`, `2 measurements`, with
/// thousands separators (`1,000 keys`).
pub fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", count(n), if n == 1 { one } else { many })
}

/// A count in short form: `100K`, `1M`, `2.5M`.
pub fn short_count(n: u64) -> String {
    let (value, unit) = if n >= 1_000_000_000 && n.is_multiple_of(100_000_000) {
        (n as f64 / 1e9, "G")
    } else if n >= 1_000_000 && n.is_multiple_of(100_000) {
        (n as f64 / 1e6, "M")
    } else if n >= 1_000 && n.is_multiple_of(100) {
        (n as f64 / 1e3, "K")
    } else {
        return n.to_string();
    };
    let s = format!("{value:.1}");
    format!("{}{unit}", s.trim_end_matches(".0"))
}

/// A multiple with two decimals: `1.45×`.
pub fn ratio(x: f64) -> String {
    format!("{x:.2}×")
}

/// The candidate cell: its name, with marks for anything wrong.
fn candidate_cell(row: &Row) -> String {
    let mut s = row.name.clone();
    if row.has_false_negatives() {
        let _ = write!(
            s,
            " ❌ {}",
            plural(row.false_negatives, "FALSE NEGATIVE", "FALSE NEGATIVES")
        );
    } else if row.false_negatives > 0 {
        let _ = write!(s, " ({} evicted when full)", count(row.false_negatives));
    }
    if row.fpr_far_above_target {
        s.push_str(" ⚠");
    }
    s
}

/// The rate the candidate was built for: the target, or its own fixed rate followed by
/// `fixed_mark`.
pub fn rate_cell(row: &Row, fixed_mark: &str) -> String {
    if row.has_fixed_rate() {
        format!("{}{fixed_mark}", percent(row.nominal_fpr))
    } else {
        percent(row.target_fpr)
    }
}

fn target_cell(row: &Row) -> String {
    rate_cell(row, " (fixed)")
}

/// Two times in nanoseconds as `a / b`, or a dash when either is missing.
pub fn nanos_pair(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) => format!("{} / {}", nanos(a), nanos(b)),
        _ => "–".into(),
    }
}

/// The measured rate with its 95% interval: `1.05% [1%, 1.09%]`.
pub fn measured_cell(row: &Row) -> String {
    format!(
        "{} [{}, {}]",
        percent(row.measured_fpr),
        percent(row.fpr_ci_low),
        percent(row.fpr_ci_high)
    )
}

/// The (kind, n) groups of a report, in run order.
pub fn groups(report: &Report) -> Vec<(KeyKind, u64)> {
    let mut groups: Vec<(KeyKind, u64)> = Vec::new();
    for r in &report.rows {
        if !groups.contains(&(r.key_kind, r.n)) {
            groups.push((r.key_kind, r.n));
        }
    }
    groups
}

/// The load the main tables show: 100% if measured, else the first load.
pub fn main_load(report: &Report) -> u32 {
    if report.rows.iter().any(|r| r.load_percent == 100) {
        100
    } else {
        report.rows.first().map_or(100, |r| r.load_percent)
    }
}

/// The loads measured, in run order.
pub fn loads(report: &Report) -> Vec<u32> {
    let mut loads: Vec<u32> = Vec::new();
    for r in &report.rows {
        if !loads.contains(&r.load_percent) {
            loads.push(r.load_percent);
        }
    }
    loads.sort_unstable();
    loads
}

/// The target rates measured, in run order.
pub fn fprs(report: &Report) -> Vec<f64> {
    let mut fprs: Vec<f64> = Vec::new();
    for r in &report.rows {
        if !fprs.contains(&r.target_fpr) {
            fprs.push(r.target_fpr);
        }
    }
    fprs
}

/// The rows of one group at one load, ordered by target rate (run order) then candidate
/// (report order).
pub fn rows_at(report: &Report, kind: KeyKind, n: u64, load: u32) -> Vec<&Row> {
    let order = |id: &str| report.candidates.iter().position(|c| c.id == id);
    let fprs = fprs(report);
    let mut rows: Vec<&Row> = report
        .rows
        .iter()
        .filter(|r| r.key_kind == kind && r.n == n && r.load_percent == load)
        .collect();
    rows.sort_by_key(|r| {
        (
            fprs.iter().position(|&p| p == r.target_fpr),
            order(&r.candidate),
        )
    });
    rows
}

/// The space and accuracy table of one group.
pub fn accuracy_table(rows: &[&Row]) -> Table {
    let mut t = Table::new(&[
        "candidate",
        ">target p",
        ">measured p [95% CI]",
        ">bits/key",
        ">× log2(1/target p)",
        ">× log2(1/measured p)",
        ">× 1.44 log2(1/measured p)",
        ">memory",
        ">peak in build",
    ]);
    for r in rows {
        t.push(vec![
            candidate_cell(r),
            target_cell(r),
            measured_cell(r),
            opt(r.bits_per_key, |b| format!("{b:.2}")),
            opt(r.ratio_to_target_bound, ratio),
            opt(r.ratio_to_bound, ratio),
            opt(r.ratio_to_classic, ratio),
            r.memory_bytes.map_or_else(|| "–".into(), bytes),
            r.peak_build_bytes.map_or_else(|| "–".into(), bytes),
        ]);
    }
    t
}

/// The speed table of one group.
pub fn speed_table(rows: &[&Row]) -> Table {
    let mut t = Table::new(&[
        "candidate",
        ">target p",
        ">insert",
        ">present",
        ">absent",
        ">present batch",
        ">absent batch",
        ">read: 1 / batch",
        ">absent × read",
        ">absent batch × read",
        ">parallel build",
    ]);
    for r in rows {
        t.push(vec![
            candidate_cell(r),
            target_cell(r),
            nanos(r.insert_ns),
            nanos(r.present_ns),
            nanos(r.absent_ns),
            opt(r.present_batch_ns, nanos),
            opt(r.absent_batch_ns, nanos),
            nanos_pair(r.probe_single_ns, r.probe_batch_ns),
            opt(r.absent_x_probe, ratio),
            opt(r.absent_batch_x_probe, ratio),
            match (r.parallel_speedup, r.threads) {
                (Some(s), Some(t)) => format!("{s:.2}× on {t}"),
                _ => "–".into(),
            },
        ]);
    }
    t
}

/// The rows of one (kind, n) group by load: for every target rate (run order) and candidate
/// (report order) measured there, its row at each of `loads(report)` (`None` where it was
/// not measured at that load).
pub fn rows_by_load(report: &Report, kind: KeyKind, n: u64) -> Vec<Vec<Option<&Row>>> {
    let loads = loads(report);
    let mut out = Vec::new();
    for fpr in fprs(report) {
        for c in &report.candidates {
            let cells: Vec<Option<&Row>> = loads
                .iter()
                .map(|&l| {
                    report.rows.iter().find(|r| {
                        r.key_kind == kind
                            && r.n == n
                            && r.target_fpr == fpr
                            && r.candidate == c.id
                            && r.load_percent == l
                    })
                })
                .collect();
            if cells.iter().any(Option::is_some) {
                out.push(cells);
            }
        }
    }
    out
}

/// The load table of one (kind, n) group: the measured rate of every candidate at every
/// load.
pub fn load_table(report: &Report, kind: KeyKind, n: u64) -> Table {
    let mut header = vec!["candidate".to_string(), ">target p".to_string()];
    header.extend(loads(report).iter().map(|l| format!(">{l}% of n")));
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(&header_refs);
    for cells in rows_by_load(report, kind, n) {
        let Some(first) = cells.iter().flatten().next() else {
            continue;
        };
        let mut row = vec![first.name.clone(), target_cell(first)];
        for cell in &cells {
            row.push(match cell {
                None => "–".into(),
                Some(r) => {
                    let mut s = percent(r.measured_fpr);
                    if r.full {
                        let _ = write!(s, " (full at {}%)", r.keys_accepted * 100 / r.n.max(1));
                    }
                    if r.fpr_far_above_target {
                        s.push_str(" ⚠");
                    }
                    s
                }
            });
        }
        t.push(row);
    }
    t
}

/// The candidates table: who was measured, with which hasher.
pub fn candidates_table(report: &Report) -> Table {
    let mut t = Table::new(&[
        "candidate",
        "crate",
        "structure",
        "hasher used here",
        "kernel here",
        "deletes",
        "grows",
        "batch query",
        "parallel build",
    ]);
    let yes = |b: bool| if b { "yes" } else { "no" }.to_string();
    for c in &report.candidates {
        t.push(vec![
            format!("`{}`", c.name),
            format!("{} ({})", c.crate_name, c.origin),
            c.structure.clone(),
            c.hasher.clone(),
            kernel_cell(report, &c.id),
            yes(c.deletes),
            yes(c.grows),
            yes(c.batch),
            yes(c.parallel),
        ]);
    }
    t
}

/// The kernels candidate `id` ran in the report, in the order first met, each with the
/// target rates it ran at (a blocked filter's kernel depends on its k, so on the rate).
fn kernels_of<'a>(report: &'a Report, id: &str) -> Vec<(Option<&'a str>, Vec<f64>)> {
    let mut kernels: Vec<(Option<&str>, Vec<f64>)> = Vec::new();
    for row in report.rows.iter().filter(|r| r.candidate == id) {
        let kernel = row.kernel.as_deref();
        let at = match kernels.iter_mut().find(|(k, _)| *k == kernel) {
            Some(entry) => &mut entry.1,
            None => {
                kernels.push((kernel, Vec::new()));
                &mut kernels.last_mut().expect("just pushed").1
            }
        };
        if !at.contains(&row.target_fpr) {
            at.push(row.target_fpr);
        }
    }
    kernels
}

/// A kernel as a report names it: `–` where not known.
fn kernel_name(kernel: Option<&str>) -> &str {
    kernel.unwrap_or("–")
}

/// ` at p = 1%, 0.1%`: where a candidate that ran several kernels ran this one.
fn at_rates(rates: &[f64]) -> String {
    let rates: Vec<String> = rates.iter().map(|&p| percent(p)).collect();
    format!(" at p = {}", rates.join(", "))
}

/// The kernel candidate `id` ran: `avx2`, or where it ran several, each with its target
/// rates (`avx2 at p = 1%, avx512 at p = 0.1%`); `–` where not known or not measured.
pub fn kernel_cell(report: &Report, id: &str) -> String {
    let kernels = kernels_of(report, id);
    match kernels.as_slice() {
        [] => "–".into(),
        [(kernel, _)] => kernel_name(*kernel).into(),
        several => several
            .iter()
            .map(|(kernel, rates)| format!("{}{}", kernel_name(*kernel), at_rates(rates)))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// The measured candidates grouped by the kernel they ran, in the order first met, those
/// not known last; a candidate that ran several kernels is named in each group with the
/// target rates it ran it at. Ours are named by type, peers by crate.
pub fn kernel_groups(report: &Report) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(Option<&str>, Vec<String>)> = Vec::new();
    for c in &report.candidates {
        let kernels = kernels_of(report, &c.id);
        let several = kernels.len() > 1;
        for (kernel, rates) in kernels {
            let mut name = short_name(c);
            if several {
                name.push_str(&at_rates(&rates));
            }
            match groups.iter_mut().find(|(k, _)| *k == kernel) {
                Some(group) => group.1.push(name),
                None => groups.push((kernel, vec![name])),
            }
        }
    }
    // A stable sort: the known kernels keep their order.
    groups.sort_by_key(|(kernel, _)| kernel.is_none());
    groups
        .into_iter()
        .map(|(kernel, names)| (kernel.unwrap_or("not known").to_string(), names))
        .collect()
}

/// [`kernel_groups`] in one line: `portable: BloomFilter, ...; avx2: BlockedBloomFilter at p
/// = 1%, sbbf-rs-safe; avx512: BlockedBloomFilter at p = 0.1%; not known: fastbloom, ...`.
pub fn kernels_summary(report: &Report) -> String {
    let groups = kernel_groups(report);
    if groups.is_empty() {
        return "none measured".into();
    }
    groups
        .iter()
        .map(|(kernel, names)| format!("{kernel}: {}", names.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// [`kernel_groups`] as a table: one row per kernel.
pub fn kernels_table(report: &Report) -> Table {
    let mut t = Table::new(&["kernel", "candidates that ran it"]);
    for (kernel, names) in kernel_groups(report) {
        t.push(vec![kernel, names.join(", ")]);
    }
    t
}

/// What was run where: the [`header_table`], then the [`kernels_table`] (the part of the
/// run that the CPU decides).
pub fn run_tables(report: &Report) -> String {
    format!(
        "{}\n{}",
        header_table(report).render(),
        kernels_table(report).render()
    )
}

/// A candidate by type for ours, by crate for peers (whose type names, such as
/// `growable_bloom_filter::GrowableBloom`, are long).
fn short_name(c: &CandidateInfo) -> String {
    match c.origin {
        Origin::Ours => c.name.clone(),
        Origin::Peer => c.id.clone(),
    }
}

/// The header as a two-column table.
pub fn header_table(report: &Report) -> Table {
    let h = &report.header;
    let mut t = Table::new(&["run", ""]);
    t.push(vec!["tool".into(), h.tool.clone()]);
    t.push(vec!["date".into(), h.date.clone()]);
    let cpu = h.cpu_info();
    t.push(vec![
        "CPU".into(),
        format!("{}, {} cores", cpu.name(), h.cores),
    ]);
    t.push(vec!["SIMD".into(), cpu.simd_text()]);
    t.push(vec!["caches (CPU 0)".into(), cpu.caches.describe()]);
    if let (Some(load), Some(shared)) = (h.load_average, h.shared_cores()) {
        let cores = if shared {
            "other work sharing the cores"
        } else {
            "the cores idle"
        };
        t.push(vec![
            "load average at start".into(),
            format!("{load:.2} ({cores})"),
        ]);
    }
    t.push(vec!["compiler".into(), h.rustc.clone()]);
    t.push(vec!["command".into(), format!("`{}`", h.command_line)]);
    t.push(vec![
        "seed, rounds, threads".into(),
        format!("{}, {}, {}", h.seed, h.rounds, h.threads),
    ]);
    t.push(vec!["wall time".into(), format!("{:.1} s", h.wall_seconds)]);
    t
}

/// The correctness verdict, one paragraph.
pub fn verdict(report: &Report) -> String {
    let mut out = String::new();
    let bad: Vec<&Row> = report.false_negative_rows().collect();
    if bad.is_empty() {
        let _ = writeln!(
            out,
            "**Correctness:** no false negatives in {} (every inserted key queried one at a \
             time, in batches, and after the parallel build, in every round).",
            plural(report.rows.len() as u64, "measurement", "measurements")
        );
    } else {
        let _ = writeln!(
            out,
            "**❌ FALSE NEGATIVES:** {} answered \"absent\" for keys {} hold:",
            plural(bad.len() as u64, "measurement", "measurements"),
            if bad.len() == 1 { "it" } else { "they" }
        );
        for r in bad {
            let _ = writeln!(
                out,
                "- {} ({} keys, n = {}, p = {}, load {}%): {}",
                r.name,
                r.key_kind,
                count(r.n),
                percent(r.target_fpr),
                r.load_percent,
                plural(r.false_negatives, "false negative", "false negatives")
            );
        }
    }
    let tolerated: Vec<&Row> = report
        .rows
        .iter()
        .filter(|r| r.false_negatives > 0 && !r.has_false_negatives())
        .collect();
    for r in tolerated {
        let _ = writeln!(
            out,
            "\n{} lost {} when it ran out of room ({} keys, n = {}, load {}%), as its \
             documentation warns a failed insert does.",
            r.name,
            plural(r.false_negatives, "stored key", "stored keys"),
            r.key_kind,
            count(r.n),
            r.load_percent
        );
    }
    let flagged: Vec<&Row> = report.flagged_rows().collect();
    if !flagged.is_empty() {
        let _ = writeln!(
            out,
            "\n**⚠ Rate far above target** (the whole 95% interval above {FAR_ABOVE_FACTOR}× the \
             candidate's own target):"
        );
        for r in flagged {
            let _ = writeln!(
                out,
                "- {} ({} keys, n = {}, target {}, load {}%): measured {}",
                r.name,
                r.key_kind,
                count(r.n),
                percent(r.nominal_fpr),
                r.load_percent,
                measured_cell(r)
            );
        }
    }
    for r in report.rows.iter().filter(|r| r.batch_disagrees) {
        let _ = writeln!(
            out,
            "\nNote: {}'s batch query counted a different number of false positives than its \
             single query ({} keys, n = {}, load {}%).",
            r.name,
            r.key_kind,
            count(r.n),
            r.load_percent
        );
    }
    if !report.skipped.is_empty() {
        let _ = writeln!(out, "\nNot measured:");
        for s in &report.skipped {
            let _ = writeln!(
                out,
                "- {} ({} keys, n = {}, p = {}, load {}%): {}",
                s.candidate,
                s.setting.kind,
                count(s.setting.capacity),
                percent(s.setting.fpr),
                s.setting.load_percent,
                s.reason
            );
        }
    }
    out
}

/// How to read the tables.
pub const LEGEND: &str = "\
How to read the tables:

- **measured p**: false positives among negatives drawn from a key set disjoint from the \
inserted keys, with the 95% Wilson score interval.
- **bits/key**: bytes the filter holds after its build (counted by the allocator, heap and \
inline) × 8 / keys inserted. **× log2(1/target p)** divides it by the information-theoretic \
minimum for the rate it was asked for (no filter with that rate can use fewer bits): what \
the filter costs for the rate you ask, including any margin it keeps below it. \
**× log2(1/measured p)** divides it by the same minimum for the rate it *reached*, \
**× 1.44 log2(1/measured p)** by what an optimal classic Bloom filter needs for that rate.
- **peak in build**: the most bytes the build held at once (filters built from all keys at \
once need scratch space).
- Times are nanoseconds per key, the fastest of the rounds. **insert** is the whole build \
divided by the keys (for a filter built once from all keys, its construction). **present** \
queries every inserted key, **absent** every negative; **batch** uses the candidate's own \
batch query, where it has one.
- **read: 1 / batch** is the memory probe, measured in the same run in a buffer the size of \
the filter: one random cache-line read when each read waits for the previous one \
(dependent chain), and per read when 32 random lines are prefetched together. \
**absent × read** divides the single absent query by the first, **absent batch × read** the \
batch absent query by the second. A loop of independent single queries lets the CPU overlap \
their reads, so a multiple below 1 is possible for it.
- **parallel build**: sequential build time over the build on that many threads.
";

/// The whole report as markdown: header, verdict, candidates, then for every (kind, n)
/// group the accuracy and speed tables at the main load and the load table.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", run_tables(report));
    let _ = writeln!(out, "{}", verdict(report));
    let _ = writeln!(
        out,
        "### Candidates\n\n{}",
        candidates_table(report).render()
    );
    let load = main_load(report);
    for (kind, n) in groups(report) {
        let rows = rows_at(report, kind, n, load);
        if !rows.is_empty() {
            let _ = writeln!(
                out,
                "### {}, n = {}, load {}%: space and accuracy\n\n{}",
                kind.describe(),
                count(n),
                load,
                accuracy_table(&rows).render()
            );
            let _ = writeln!(
                out,
                "### {}, n = {}, load {}%: time per key (ns)\n\n{}",
                kind.describe(),
                count(n),
                load,
                speed_table(&rows).render()
            );
        }
        if loads(report).len() > 1 {
            let _ = writeln!(
                out,
                "### {}, n = {}: measured rate by load\n\n{}",
                kind.describe(),
                count(n),
                load_table(report, kind, n).render()
            );
        }
    }
    let design = design_table(report);
    if !design.is_empty() {
        let _ = writeln!(out, "{}", design);
    }
    out.push_str(LEGEND);
    out
}

/// The design space ([`crate::design`]) as a section: per memory budget, every layout at
/// every k measured, with its rate and times; empty when the report has none.
pub fn design_table(report: &Report) -> String {
    let Some(first) = report.design.first() else {
        return String::new();
    };
    let mut out = format!(
        "### The design space: every layout at every k, n = {}\n\n\
         Each filter built with `with_params(c × n, k)` for a budget of c bits per key (the \
         layout rounds up to whole blocks), holding the same {} keys, on one thread; times \
         are the best of three passes, the rate is measured on {} absent keys. The best k of \
         the classic and blocked layouts and two on each side; the multiblock layouts have \
         one k. Bold: the lowest rate at each budget.\n\n",
        count(first.n),
        count(first.n),
        count(first.negatives),
    );
    let mut table = Table::new(&[
        ">c",
        "layout",
        ">k",
        ">bits/key",
        ">rate",
        ">formula",
        ">insert",
        ">present",
        ">absent",
        ">batch absent",
    ]);
    let mut budgets: Vec<u32> = report.design.iter().map(|r| r.budget).collect();
    budgets.dedup();
    for budget in budgets {
        let rows: Vec<&crate::design::DesignRow> = report
            .design
            .iter()
            .filter(|r| r.budget == budget)
            .collect();
        let best = rows.iter().map(|r| r.fpr).fold(f64::MAX, f64::min);
        for r in rows {
            let rate = if r.fpr == best {
                format!("**{}**", percent(r.fpr))
            } else {
                percent(r.fpr)
            };
            table.push(vec![
                budget.to_string(),
                format!("`{}`", r.layout),
                r.k.to_string(),
                format!("{:.2}", r.bits_per_key),
                rate,
                percent(r.expected_fpr),
                nanos(r.insert_ns),
                nanos(r.present_ns),
                nanos(r.absent_ns),
                nanos(r.batch_absent_ns),
            ]);
        }
    }
    out.push_str(&table.render());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_format() {
        assert_eq!(percent(0.01), "1%");
        assert_eq!(percent(0.000_954_3), "0.0954%");
        assert_eq!(percent(0.012_345), "1.23%");
        assert_eq!(percent(0.0), "0");
        assert_eq!(percent(0.5), "50%");
        assert_eq!(count(1_234_567), "1,234,567");
        assert_eq!(count(12), "12");
        assert_eq!(plural(1, "measurement", "measurements"), "1 measurement");
        assert_eq!(plural(0, "measurement", "measurements"), "0 measurements");
        assert_eq!(plural(1_000, "key", "keys"), "1,000 keys");
        assert_eq!(short_count(100_000), "100K");
        assert_eq!(short_count(2_500_000), "2.5M");
        assert_eq!(short_count(10_000_000), "10M");
        assert_eq!(short_count(1234), "1234");
        assert_eq!(bytes(2048), "2.0 KiB");
        assert_eq!(bytes(3 * 1024 * 1024), "3.00 MiB");
        assert_eq!(nanos(12.345), "12.3");
        assert_eq!(nanos(123.4), "123");
    }

    #[test]
    fn tables_pad_and_align() {
        let mut t = Table::new(&["a", ">b"]);
        t.push(vec!["long cell".into(), "1".into()]);
        let s = t.render();
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines[0], "| a         |   b |");
        assert_eq!(lines[1], "|-----------|----:|");
        assert_eq!(lines[2], "| long cell |   1 |");
    }
}
