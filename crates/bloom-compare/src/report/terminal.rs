//! The report as the command prints it: the guide to choosing a variant first (the one
//! docs/tradeoffs.md holds, computed from this run), then the verdict, the run, and for
//! every (kind, n) group narrow tables that fit a terminal of [`WIDTH`] columns, each kind
//! of table followed, where it first appears, by one line per column saying what it shows.
//!
//! The full tables (every column, peak memory in the build, the candidates and their
//! hashers) are the markdown file's ([`markdown::render`]); the terminal shows a choice of
//! their columns, and leaves out the least needed ones, in a fixed order, when a table
//! would still be too wide, saying which.

use std::fmt::Write as _;
use std::path::Path;

use crate::candidate::Origin;
use crate::report::markdown::{
    self, Table, bytes, count, groups, loads, main_load, measured_cell, nanos, nanos_pair, opt,
    percent, ratio, rows_at,
};
use crate::report::{Report, Row, docs};

/// The widest line the terminal report prints (tables, prose and keys alike), in columns.
pub const WIDTH: usize = 120;

/// The columns a terminal gives `c`: two for the wide (East Asian wide and emoji) ranges
/// this report can print, such as ❌ and ⚠, one otherwise.
fn char_width(c: char) -> usize {
    match u32::from(c) {
        0x1100..=0x115F
        | 0x2600..=0x27BF
        | 0x2E80..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1FAFF => 2,
        _ => 1,
    }
}

/// The columns `s` takes in a terminal (see [`WIDTH`]).
pub fn display_width(s: &str) -> usize {
    s.chars().map(char_width).sum()
}

/// `text` with every line longer than `width` wrapped at spaces. A wrapped line keeps its
/// indentation, and a list item (`- `) continues under its text. A single word longer
/// than the line (a long path) is left whole.
pub fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if display_width(line) <= width {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let body = line.trim_start();
        let indent = line.len() - body.len();
        let hanging = if body.starts_with("- ") {
            indent + 2
        } else {
            indent
        };
        let mut current = " ".repeat(indent);
        let mut empty = true;
        for word in body.split(' ').filter(|w| !w.is_empty()) {
            if !empty && display_width(&current) + 1 + display_width(word) > width {
                out.push_str(&current);
                out.push('\n');
                current = " ".repeat(hanging);
                empty = true;
            }
            if !empty {
                current.push(' ');
            }
            current.push_str(word);
            empty = false;
        }
        out.push_str(&current);
        out.push('\n');
    }
    out
}

/// One column of a terminal table.
struct Column<'a> {
    /// Heading; a leading `>` right-aligns the column (as in [`Table::new`]).
    heading: &'static str,
    /// What it shows, in one line.
    key: &'static str,
    /// 0: always shown; otherwise the column is left out, highest first, while the table
    /// is wider than [`WIDTH`].
    drop_order: u8,
    cell: Box<dyn Fn(&Row) -> String + 'a>,
}

impl<'a> Column<'a> {
    fn new(
        heading: &'static str,
        key: &'static str,
        drop_order: u8,
        cell: impl Fn(&Row) -> String + 'a,
    ) -> Self {
        Column {
            heading,
            key,
            drop_order,
            cell: Box::new(cell),
        }
    }
}

/// The widest line of `text`, in columns.
fn widest(text: &str) -> usize {
    text.lines().map(display_width).max().unwrap_or(0)
}

/// The name a terminal table shows: ours by type, peers by crate (their type names, such as
/// `growable_bloom_filter::GrowableBloom`, are in the full tables); ❌ marks false
/// negatives and ⚠ a rate far above the target, as the verdict details.
fn label(row: &Row) -> String {
    let mut s = match row.origin {
        Origin::Ours => row.name.clone(),
        Origin::Peer => row.candidate.clone(),
    };
    if row.has_false_negatives() {
        s.push_str(" ❌");
    }
    if row.fpr_far_above_target {
        s.push_str(" ⚠");
    }
    s
}

/// The rate the candidate was built for; `*` when it is its own fixed rate.
fn target(row: &Row) -> String {
    markdown::rate_cell(row, "*")
}

const CANDIDATE_KEY: &str =
    "ours by type, peers by crate; ❌ false negatives, ⚠ rate far above its target (see above)";
const TARGET_KEY: &str = "the false-positive rate it was built for; * its own fixed rate, which \
                          cannot be chosen";

/// The columns every terminal table opens with, `columns` after them.
fn with_leading<'a>(columns: impl IntoIterator<Item = Column<'a>>) -> Vec<Column<'a>> {
    let mut all = vec![
        Column::new("candidate", CANDIDATE_KEY, 0, label),
        Column::new(">target p", TARGET_KEY, 0, target),
    ];
    all.extend(columns);
    all
}

fn accuracy_columns<'a>() -> Vec<Column<'a>> {
    with_leading([
        Column::new(
            ">measured p [95% CI]",
            "false positives among keys never inserted, with the 95% Wilson interval",
            1,
            measured_cell,
        ),
        Column::new(
            ">bits/key",
            "bytes held after the build × 8 / keys inserted",
            0,
            |r| opt(r.bits_per_key, |b| format!("{b:.2}")),
        ),
        Column::new(
            ">× target bound",
            "bits/key over log2(1/target p): the fewest bits any filter needs for the rate asked",
            0,
            |r| opt(r.ratio_to_target_bound, ratio),
        ),
        Column::new(
            ">× measured bound",
            "bits/key over log2(1/measured p): the same bound at the rate it reached",
            2,
            |r| opt(r.ratio_to_bound, ratio),
        ),
        Column::new(">memory", "bytes held after the build", 3, |r| {
            r.memory_bytes.map_or_else(|| "–".into(), bytes)
        }),
    ])
}

fn speed_columns<'a>() -> Vec<Column<'a>> {
    with_leading([
        Column::new(
            ">insert",
            "ns per key to build it (a filter built once from all its keys: its construction)",
            1,
            |r| nanos(r.insert_ns),
        ),
        Column::new(
            ">present",
            "ns per query of an inserted key, one at a time (the fastest round)",
            0,
            |r| nanos(r.present_ns),
        ),
        Column::new(
            ">absent",
            "ns per query of a key never inserted, one at a time",
            0,
            |r| nanos(r.absent_ns),
        ),
        Column::new(
            ">batch pres / abs",
            "the same two with the candidate's own batch query (– : it has none)",
            2,
            |r| nanos_pair(r.present_batch_ns, r.absent_batch_ns),
        ),
        Column::new(
            ">read 1 / batch",
            "ns of one random cache-line read in a buffer of the filter's size: alone / in \
             prefetched groups of 32",
            5,
            |r| nanos_pair(r.probe_single_ns, r.probe_batch_ns),
        ),
        Column::new(
            ">absent × read",
            "absent over one random cache-line read (alone) in a buffer of the filter's size; \
             below 1: reads overlapped",
            3,
            |r| opt(r.absent_x_probe, ratio),
        ),
        Column::new(
            ">parallel",
            "time of the build on one thread over the build on that many threads",
            4,
            |r| match (r.parallel_speedup, r.threads) {
                (Some(s), Some(t)) => format!("{s:.2}× on {t}"),
                _ => "–".into(),
            },
        ),
    ])
}

/// The table of `rows` with as many of `columns` as fit in [`WIDTH`] (those with
/// `drop_order` 0 always); returns it, the columns shown and the headings left out.
fn fit<'c, 'a>(
    columns: &'c [Column<'a>],
    rows: &[&Row],
) -> (String, Vec<&'c Column<'a>>, Vec<&'static str>) {
    let mut shown: Vec<&Column<'a>> = columns.iter().collect();
    let mut left_out = Vec::new();
    loop {
        let headings: Vec<&str> = shown.iter().map(|c| c.heading).collect();
        let mut table = Table::new(&headings);
        for row in rows {
            table.push(shown.iter().map(|c| (c.cell)(row)).collect());
        }
        let text = table.render();
        let droppable = shown
            .iter()
            .enumerate()
            .filter(|(_, c)| c.drop_order > 0)
            .max_by_key(|(_, c)| c.drop_order)
            .map(|(i, _)| i);
        match droppable {
            Some(i) if widest(&text) > WIDTH => {
                left_out.push(shown.remove(i).heading.trim_start_matches('>'));
            }
            _ => return (text, shown, left_out),
        }
    }
}

/// One line per column: its heading, then what it shows.
fn keys<'a>(columns: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let columns: Vec<(&str, &str)> = columns.into_iter().collect();
    let pad = columns
        .iter()
        .map(|(h, _)| display_width(h))
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    let indent = " ".repeat(pad + 4);
    for (heading, key) in columns {
        let gap = " ".repeat(pad - display_width(heading));
        // Wrapped under its own text, after the headings' column.
        let wrapped = wrap(&format!("{indent}{key}"), WIDTH);
        let mut lines = wrapped.lines();
        if let Some(first) = lines.next() {
            let _ = writeln!(out, "  {heading}{gap}  {}", first.trim_start());
        }
        for line in lines {
            let _ = writeln!(out, "{line}");
        }
    }
    out
}

/// A table section: heading, table, and (`explain`) the key of its columns; the columns
/// left out for width are named either way.
fn section(out: &mut String, heading: &str, columns: &[Column<'_>], rows: &[&Row], explain: bool) {
    let (table, shown, left_out) = fit(columns, rows);
    let _ = writeln!(out, "### {heading}\n\n{table}");
    if explain {
        out.push_str(&keys(
            shown
                .iter()
                .map(|c| (c.heading.trim_start_matches('>'), c.key)),
        ));
    }
    if !left_out.is_empty() {
        let _ = writeln!(
            out,
            "  (left out to fit {WIDTH} columns: {}; see the full tables)",
            left_out.join(", ")
        );
    }
    out.push('\n');
}

/// The load table of one group, with the terminal's names.
fn load_section(
    out: &mut String,
    report: &Report,
    kind: crate::keys::KeyKind,
    n: u64,
    explain: bool,
) {
    let loads = loads(report);
    let mut headings = vec!["candidate".to_string(), ">target p".to_string()];
    headings.extend(loads.iter().map(|l| format!(">{l}% of n")));
    let refs: Vec<&str> = headings.iter().map(String::as_str).collect();
    let mut table = Table::new(&refs);
    for cells in markdown::rows_by_load(report, kind, n) {
        let Some(first) = cells.iter().flatten().next() else {
            continue;
        };
        let mut row = vec![label(first), target(first)];
        row.extend(cells.iter().map(|cell| match cell {
            None => "–".into(),
            Some(r) => {
                let mut s = percent(r.measured_fpr);
                if r.full {
                    s.push_str(" (full)");
                }
                if r.fpr_far_above_target {
                    s.push_str(" ⚠");
                }
                s
            }
        }));
        table.push(row);
    }
    let _ = writeln!(
        out,
        "### {}, n = {}: measured rate by load\n\n{}",
        kind.describe(),
        count(n),
        table.render()
    );
    if explain {
        out.push_str(&keys([
            ("candidate", CANDIDATE_KEY),
            ("target p", TARGET_KEY),
            (
                "L% of n",
                "measured rate with L% of n keys inserted; (full): it refused keys before that",
            ),
        ]));
    }
    out.push('\n');
}

/// The run in a few lines: tool, compiler, time; the CPU, its SIMD features and caches;
/// the kernel each candidate ran; the command.
fn run_lines(report: &Report) -> String {
    let h = &report.header;
    let mut s = format!("**Run:** {}, {}", h.tool, h.date);
    if let Some(load) = h.load_average {
        let _ = write!(s, ", load average {load:.2} at the start");
    }
    let cpu = h.cpu_info();
    let _ = write!(
        s,
        ", {}; seed {}, {}, {} for the parallel build; {:.1} s.\n\
         **CPU:** {}, {} cores; SIMD: {}.\n**Caches (CPU 0):** {}.\n**Kernels:** {}.\n\
         Command: `{}`",
        h.rustc,
        h.seed,
        markdown::plural(h.rounds as u64, "round", "rounds"),
        markdown::plural(h.threads as u64, "thread", "threads"),
        h.wall_seconds,
        cpu.name(),
        h.cores,
        cpu.simd_text(),
        cpu.caches.describe(),
        markdown::kernels_summary(report),
        h.command_line
    );
    s
}

/// The report for a terminal: the guide, the verdict, the run, then the narrow tables of
/// every group, no line wider than [`WIDTH`] (but for a word that cannot be broken, such
/// as a long path). `full_tables` is where the markdown file with every column was
/// written, if it was.
pub fn render(report: &Report, full_tables: Option<&Path>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## Choosing a variant\n");
    out.push_str(&wrap(&docs::guide(report), WIDTH));
    out.push('\n');
    out.push_str(&wrap(&markdown::verdict(report), WIDTH));
    out.push('\n');
    out.push_str(&wrap(&run_lines(report), WIDTH));
    out.push('\n');

    let load = main_load(report);
    let accuracy = accuracy_columns();
    let speed = speed_columns();
    let mut first = true;
    for (kind, n) in groups(report) {
        let rows = rows_at(report, kind, n, load);
        if !rows.is_empty() {
            let group = format!("{}, n = {}, load {}%", kind.describe(), count(n), load);
            section(
                &mut out,
                &format!("{group}: space and accuracy"),
                &accuracy,
                &rows,
                first,
            );
            section(
                &mut out,
                &format!("{group}: time per key (ns)"),
                &speed,
                &rows,
                first,
            );
        }
        if loads(report).len() > 1 {
            load_section(&mut out, report, kind, n, first);
        }
        first = false;
    }
    let closing = match full_tables {
        Some(path) => format!(
            "The full tables (every column, peak memory in the build, the candidates and their \
             hashers): {}",
            path.display()
        ),
        None => "The full tables (every column, the candidates and their hashers) are written \
                 with --format markdown."
            .to_string(),
    };
    out.push_str(&wrap(&closing, WIDTH));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_count_wide_marks_twice() {
        assert_eq!(display_width("abc"), 3);
        assert_eq!(display_width("a ❌"), 4);
        assert_eq!(display_width("⚠"), 2);
        assert_eq!(display_width("1.45×"), 5);
        assert_eq!(display_width("–"), 1);
    }

    #[test]
    fn wrapping_keeps_indents_and_list_items() {
        let text = "- one two three four five six\n  seven eight nine ten\nshort";
        let wrapped = wrap(text, 12);
        let lines: Vec<&str> = wrapped.lines().collect();
        assert_eq!(
            lines,
            [
                "- one two",
                "  three four",
                "  five six",
                "  seven",
                "  eight nine",
                "  ten",
                "short"
            ]
        );
        assert!(lines.iter().all(|l| display_width(l) <= 12));
        // A word longer than the line stays whole.
        assert_eq!(wrap("a /very/long/path b", 5), "a\n/very/long/path\nb\n");
    }
}
