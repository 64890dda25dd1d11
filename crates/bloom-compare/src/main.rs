//! `bloom-compare`: the side-by-side sweep of the bloom-family filters and peer crates.
//!
//! ```sh
//! cargo run --release -p bloom-compare              # quick default sweep, prints the report
//! cargo run --release -p bloom-compare -- --help    # every option
//! ```

use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use bloom_compare::candidate::{self, Origin};
use bloom_compare::key_file::{self, Absent, KeyFile};
use bloom_compare::keys::KeyKind;
use bloom_compare::measure::Entry;
use bloom_compare::report::files::{self, Format};
use bloom_compare::report::{CandidateInfo, Header, Report, docs, markdown, terminal};
use bloom_compare::sweep::{Negatives, Sweep};

#[global_allocator]
static ALLOCATOR: bloom_compare::alloc::CountingAllocator = bloom_compare::alloc::CountingAllocator;

/// Measures the bloom-family filters and peer crates side by side on the same keys: bits per
/// key, measured false-positive rate, insert and query times against a memory probe,
/// memory, parallel build. Every run also checks that no filter forgets a key.
#[derive(Debug, Parser)]
#[command(name = "bloom-compare", version)]
struct Cli {
    /// Our variants to measure: ids separated by commas, `all` or `none` (`--list` shows
    /// the ids).
    #[arg(long, value_delimiter = ',', default_value = "all")]
    variants: Vec<String>,

    /// Peer crates to measure: ids separated by commas, `all` or `none`.
    #[arg(long, value_delimiter = ',', default_value = "all")]
    peers: Vec<String>,

    /// Capacities n every filter is sized for, separated by commas (`100K`, `1M`, `1e7`,
    /// `100_000` or plain numbers; a comma is never a thousands separator) [default: 100K,1M;
    /// with --keys-file, the number of keys to insert].
    #[arg(long = "n", value_parser = parse_counts)]
    sizes: Vec<Counts>,

    /// Target false-positive rates (`0.01` or `1%`).
    #[arg(long = "fpr", value_delimiter = ',', default_value = "1%,0.1%", value_parser = parse_rate)]
    fprs: Vec<f64>,

    /// Keys inserted, in percent of the capacity [default: 50,100,150; with --keys-file
    /// 50,100, as the file holds no keys beyond n].
    #[arg(long = "load", value_delimiter = ',')]
    loads: Option<Vec<u32>>,

    /// Key kinds: u64, str16 (16-byte strings), url (URL-like, 50-120 bytes) [default: u64].
    #[arg(long = "keys", value_delimiter = ',')]
    kinds: Option<Vec<KeyKind>>,

    /// Measure on your own keys: the lines of this file (any bytes; duplicates dropped),
    /// a share of them held out as the absent keys (--absent-share) unless --absent-file
    /// gives them. Replaces --keys; the report names the file.
    #[arg(long, value_name = "PATH")]
    keys_file: Option<PathBuf>,

    /// With --keys-file: the absent keys, one per line; lines also in the keys file are
    /// dropped. Every line of the keys file is then inserted.
    #[arg(long, value_name = "PATH")]
    absent_file: Option<PathBuf>,

    /// With --keys-file: the share of its distinct lines held out as absent keys, chosen by
    /// --seed (`0.2` or `20%`) [default: 20%].
    #[arg(long, value_parser = parse_rate)]
    absent_share: Option<f64>,

    /// Threads for the parallel build (1: not measured) [default: the available cores].
    #[arg(long)]
    threads: Option<usize>,

    /// Rounds per setting, interleaved across candidates; times are the fastest round's.
    #[arg(long, default_value_t = 2)]
    rounds: usize,

    /// Negatives per setting [default: enough for about 2,000 false positives at the target
    /// rate, between 100 thousand and 2 million].
    #[arg(long, value_parser = parse_count)]
    negatives: Option<usize>,

    /// Milliseconds for each of the memory probe's two measurements.
    #[arg(long, default_value_t = 12)]
    probe_ms: u64,

    /// Seed of the keys, so runs repeat.
    #[arg(long, default_value_t = 42)]
    seed: u64,

    /// Folder for the output files, created if missing; a run replaces the files an earlier
    /// run wrote there (give each run its own folder to keep them) [default:
    /// target/bloom-compare].
    #[arg(long)]
    out: Option<PathBuf>,

    /// Output files to write: markdown (the full tables), csv, json, svg (the report is
    /// printed either way, narrowed to 120 columns).
    #[arg(
        long = "format",
        value_delimiter = ',',
        default_value = "markdown,csv,json,svg"
    )]
    formats: Vec<Format>,

    /// Also write this run into docs/tradeoffs.md, as the section of this CPU (the sections of
    /// other CPUs there are kept), with its plots in docs/plots/<cpu>/.
    #[arg(long)]
    write_docs: bool,

    /// The docs folder `--write-docs` writes to [default: the workspace's docs/].
    #[arg(long)]
    docs_dir: Option<PathBuf>,

    /// No progress bar (it is also hidden when stderr is not a terminal).
    #[arg(long, short)]
    quiet: bool,

    /// List the candidates and exit.
    #[arg(long)]
    list: bool,

    /// Measure nothing: read a `report.json` written by an earlier run and write its outputs
    /// (and, with `--write-docs`, the docs) again.
    #[arg(long, value_name = "REPORT_JSON")]
    rerender: Option<PathBuf>,
}

/// Parses `1000`, `1_000`, `100K`, `2.5M`, `1G`, `1e6`.
fn parse_count(s: &str) -> Result<usize, String> {
    if s.contains(',') {
        return Err(format!(
            "a comma is not a thousands separator here; write {} or {}",
            s.replace(',', "_"),
            thousands_hint(s)
        ));
    }
    let t = s.trim().replace('_', "");
    let (number, scale) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&t[..t.len() - 1], 1e3),
        Some('M') => (&t[..t.len() - 1], 1e6),
        Some('G') => (&t[..t.len() - 1], 1e9),
        _ => (t.as_str(), 1.0),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("{s:?} is not a count (try 100000, 100K, 1M or 1e6)"))?;
    let value = value * scale;
    if !(value >= 1.0 && value.fract() == 0.0 && value < 1e15) {
        return Err(format!("{s:?} is not a positive whole count"));
    }
    Ok(value as usize)
}

/// The sizes of one `--n`, in the order given.
#[derive(Debug, Clone, PartialEq)]
struct Counts(Vec<usize>);

/// Whether `s` reads as one number written with commas between groups of three digits
/// (`100,000`, `1,000,000`).
fn is_thousands(s: &str) -> bool {
    let mut groups = s.trim().split(',');
    let head_ok = groups
        .next()
        .is_some_and(|g| (1..=3).contains(&g.len()) && g.bytes().all(|b| b.is_ascii_digit()));
    let mut rest = groups.peekable();
    head_ok
        && rest.peek().is_some()
        && rest.all(|g| g.len() == 3 && g.bytes().all(|b| b.is_ascii_digit()))
}

/// `100K` for `100,000` (or the number, when it has no short form).
fn thousands_hint(s: &str) -> String {
    let digits: String = s.chars().filter(char::is_ascii_digit).collect();
    digits.parse::<u64>().map_or_else(
        |_| "100K".into(),
        bloom_compare::report::markdown::short_count,
    )
}

/// Parses a list of sizes separated by commas (`100K,1M`), refusing a number written with
/// thousands separators (`100,000`), which would otherwise read as the sizes 100 and 000.
fn parse_counts(s: &str) -> Result<Counts, String> {
    if is_thousands(s) {
        let groups: Vec<&str> = s.trim().split(',').collect();
        let mut message = format!(
            "the comma separates sizes (this would be {}); write one size as {} or {}",
            groups.join(" and "),
            groups.join("_"),
            thousands_hint(s)
        );
        if groups.iter().all(|g| g.bytes().any(|b| b != b'0')) {
            let repeated: Vec<String> = groups.iter().map(|g| format!("--n {g}")).collect();
            let _ = write!(
                message,
                ", or the sizes {} as {}",
                groups.join(" and "),
                repeated.join(" ")
            );
        }
        return Err(message);
    }
    s.split(',')
        .map(parse_count)
        .collect::<Result<_, _>>()
        .map(Counts)
}

/// Parses `0.01` or `1%`.
fn parse_rate(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let value = match t.strip_suffix('%') {
        Some(pct) => pct.trim().parse::<f64>().map(|v| v / 100.0),
        None => t.parse::<f64>(),
    }
    .map_err(|_| format!("{s:?} is not a rate (try 0.01 or 1%)"))?;
    if value > 0.0 && value < 1.0 {
        Ok(value)
    } else {
        Err(format!("{s:?} must be strictly between 0 and 1"))
    }
}

/// The candidates named by `names` among `available` (`all`, `none`, or ids).
fn select(available: Vec<Entry>, names: &[String], what: &str) -> Result<Vec<Entry>, String> {
    let names: Vec<String> = names
        .iter()
        .map(|n| n.trim().to_ascii_lowercase())
        .collect();
    if names.iter().any(|n| n == "all") {
        return Ok(available);
    }
    if names.iter().all(|n| n == "none" || n.is_empty()) {
        return Ok(Vec::new());
    }
    let mut chosen = Vec::new();
    for name in names.iter().filter(|n| *n != "none") {
        match available.iter().find(|e| e.info.id == name) {
            Some(e) => chosen.push(*e),
            None => {
                let ids: Vec<&str> = available.iter().map(|e| e.info.id).collect();
                return Err(format!(
                    "unknown {what} {name:?}; available: {}",
                    if ids.is_empty() {
                        "none (built without the `peers` feature)".to_string()
                    } else {
                        ids.join(", ")
                    }
                ));
            }
        }
    }
    Ok(chosen)
}

/// `target/bloom-compare`, found from the executable's own place in `target/<profile>/`.
fn default_out_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            let profile_dir = exe.parent()?;
            let target = profile_dir.parent()?;
            (target.file_name()? == "target").then(|| target.join("bloom-compare"))
        })
        .unwrap_or_else(|| PathBuf::from("target").join("bloom-compare"))
}

/// The workspace's docs folder (this crate lives in `crates/bloom-compare`).
fn default_docs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs")
}

fn progress_bar(quiet: bool) -> ProgressBar {
    let bar = ProgressBar::new(0);
    if quiet || !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    } else {
        bar.set_draw_target(ProgressDrawTarget::stderr());
    }
    if let Ok(style) = ProgressStyle::with_template(
        "{elapsed_precise:.dim} [{bar:30.cyan/blue}] {percent:>3}% (eta {eta}) {msg}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Writes a line to standard error, ignoring failure: a message about the run must not
/// panic when stderr is closed or a closed pipe.
macro_rules! note {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// Standard output, through which the report is printed. A reader that closes early
/// (`| head`, `| true`) has read all it wants: the rest of the report is dropped quietly,
/// and the run goes on to write its files and give its verdict, as command-line tools do.
#[derive(Debug, Default)]
struct Output {
    closed: bool,
}

impl Output {
    /// Prints `text`; a closed reader is not an error.
    ///
    /// # Errors
    ///
    /// Any other failure to write.
    fn print(&mut self, text: &str) -> Result<(), String> {
        if self.closed {
            return Ok(());
        }
        let mut out = std::io::stdout().lock();
        match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            Err(e) => Err(format!("standard output: {e}")),
        }
    }
}

fn list(entries: &[Entry]) -> String {
    let infos: Vec<CandidateInfo> = entries.iter().map(CandidateInfo::from).collect();
    let mut text = String::new();
    for origin in [Origin::Ours, Origin::Peer] {
        let _ = writeln!(
            text,
            "{}:",
            if origin == Origin::Ours {
                "variants (--variants)"
            } else {
                "peers (--peers)"
            }
        );
        for c in infos.iter().filter(|c| c.origin == origin) {
            let _ = writeln!(
                text,
                "  {:<24} {} ({}); hasher: {}",
                c.id, c.name, c.crate_name, c.hasher
            );
        }
    }
    text
}

/// `paths` relative to `dir`, joined by commas.
fn relative_list(paths: &[PathBuf], dir: &Path) -> String {
    paths
        .iter()
        .map(|p| p.strip_prefix(dir).unwrap_or(p).display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The keys of `--keys-file`, split as `--absent-file` or `--absent-share` say; `None`
/// without `--keys-file`.
///
/// # Errors
///
/// A one-line message for options that do not go together, or a file that cannot be used
/// ([`key_file::read`]).
fn read_key_file(cli: &Cli) -> Result<Option<KeyFile>, String> {
    let Some(path) = &cli.keys_file else {
        return match (&cli.absent_file, cli.absent_share) {
            (Some(_), _) => Err("--absent-file needs --keys-file".into()),
            (None, Some(_)) => Err("--absent-share needs --keys-file".into()),
            (None, None) => Ok(None),
        };
    };
    if cli.kinds.is_some() {
        return Err(
            "--keys-file and --keys do not go together: the file's lines are the keys".into(),
        );
    }
    let absent = match (&cli.absent_file, cli.absent_share) {
        (Some(_), Some(_)) => {
            return Err(
                "--absent-file and --absent-share do not go together: the absent \
                        keys come from one or the other"
                    .into(),
            );
        }
        (Some(absent), None) => Absent::File(absent),
        (None, share) => Absent::HeldOut(share.unwrap_or(key_file::DEFAULT_ABSENT_SHARE)),
    };
    key_file::read(path, absent, cli.seed).map(Some)
}

fn run(cli: Cli, stdout: &mut Output) -> Result<ExitCode, String> {
    let args: Vec<String> = std::env::args().collect();
    let ours = candidate::ours();
    let peers = candidate::peers();
    if cli.list {
        let all: Vec<Entry> = ours.iter().chain(&peers).copied().collect();
        stdout.print(&list(&all))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut entries = select(ours, &cli.variants, "variant")?;
    entries.extend(select(peers, &cli.peers, "peer")?);
    let threads = cli
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let file = read_key_file(&cli)?;
    let file_summary = file.as_ref().map(|f| f.summary.clone());
    let mut sizes: Vec<u64> = cli
        .sizes
        .iter()
        .flat_map(|c| c.0.iter().map(|&n| n as u64))
        .collect();
    if sizes.is_empty() {
        sizes = match &file {
            Some(file) => vec![file.summary.positives as u64],
            None => vec![100_000, 1_000_000],
        };
    }
    let kinds = match (&file, &cli.kinds) {
        (Some(file), _) => vec![file.keys.kind()],
        (None, Some(kinds)) => kinds.clone(),
        (None, None) => vec![KeyKind::U64],
    };
    let loads = cli.loads.clone().unwrap_or_else(|| {
        if file.is_some() {
            vec![50, 100]
        } else {
            vec![50, 100, 150]
        }
    });
    let sweep = Sweep {
        entries: entries.clone(),
        kinds,
        sizes,
        fprs: cli.fprs.clone(),
        loads,
        threads,
        rounds: cli.rounds,
        seed: cli.seed,
        negatives: cli.negatives.map_or(Negatives::DEFAULT, Negatives::Fixed),
        probe_budget: Duration::from_millis(cli.probe_ms.max(1)),
        file_keys: file.map(|f| f.keys),
    };
    sweep.validate()?;
    if let (Some(summary), false) = (&file_summary, cli.quiet) {
        note!("bloom-compare: {summary}");
    }
    if !bloom_compare::alloc::is_installed() {
        return Err("the counting allocator is not installed".into());
    }

    // The output places are checked before anything is measured: a bad --out fails now,
    // not after the sweep.
    let out = cli.out.clone().unwrap_or_else(default_out_dir);
    let replaced = files::prepare(&out, &cli.formats).map_err(|e| {
        format!(
            "--out {}: {e}; --out names the folder the report's files are written to (created \
             if missing)",
            out.display()
        )
    })?;
    // A report to rerender is read now, and a run's header collected: the docs get the
    // section of the CPU they name, whose page is checked before measuring too.
    let rerendered = match &cli.rerender {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            Some(files::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?)
        }
        None => None,
    };
    let mut header = Header::collect(&args, cli.seed, cli.rounds, threads);
    let docs_dir = cli.docs_dir.clone().unwrap_or_else(default_docs_dir);
    if cli.write_docs {
        let cpu = rerendered
            .as_ref()
            .map_or(&header, |r| &r.header)
            .cpu_info();
        docs::prepare(&docs_dir, &cpu.key())
            .map_err(|e| format!("--docs-dir {}: {e}", docs_dir.display()))?;
    }

    let report = match rerendered {
        Some(report) => report,
        None => {
            if !cli.quiet {
                let plan = sweep.plan();
                let steps: usize = plan.iter().map(|p| p.entries.len()).sum();
                note!(
                    "bloom-compare: measuring {} in {}, {} each ({}); the report follows on \
                     standard output",
                    markdown::plural(entries.len() as u64, "candidate", "candidates"),
                    markdown::plural(plan.len() as u64, "setting", "settings"),
                    markdown::plural(cli.rounds as u64, "round", "rounds"),
                    markdown::plural((steps * cli.rounds) as u64, "step", "steps"),
                );
            }
            let bar = progress_bar(cli.quiet);
            let start = Instant::now();
            // The bar follows the steps' expected cost, not their count, so its estimate
            // of the time left holds when the large settings come last.
            let outcome = sweep.run(&mut |p| {
                bar.set_length(p.work_total);
                bar.set_position(p.work_done);
                bar.set_message(format!("{}/{} {}", p.done, p.total, p.what));
            })?;
            bar.finish_and_clear();
            let largest = sweep.sizes.iter().copied().max().unwrap_or(1);
            let bar = progress_bar(cli.quiet);
            let design = bloom_compare::design::run(largest, cli.seed, &mut |done, total| {
                bar.set_length(total as u64);
                bar.set_position(done as u64);
                bar.set_message("the design space".to_string());
            });
            bar.finish_and_clear();
            header.wall_seconds = start.elapsed().as_secs_f64();
            Report {
                header,
                candidates: entries.iter().map(CandidateInfo::from).collect(),
                rows: outcome.rows,
                skipped: outcome.skipped,
                design,
            }
        }
    };
    let full_tables = cli
        .formats
        .contains(&Format::Markdown)
        .then(|| files::paths(&out, &[Format::Markdown]))
        .and_then(|p| p.into_iter().next());
    stdout.print(&terminal::render(&report, full_tables.as_deref()))?;

    let written = files::write_all(&report, &out, &cli.formats).map_err(|e| e.to_string())?;
    if !written.is_empty() {
        note!(
            "wrote {} in {}{}: {}",
            markdown::plural(written.len() as u64, "file", "files"),
            out.display(),
            if replaced.is_empty() {
                ""
            } else {
                " (replacing the previous run's; give --out another folder to keep both)"
            },
            relative_list(&written, &out)
        );
    }
    if cli.write_docs {
        let done = docs::write(&report, &docs_dir).map_err(|e| e.to_string())?;
        note!(
            "regenerated the section of {} in {}: {}",
            report.header.cpu_info().heading(),
            docs_dir.display(),
            relative_list(&done.files, &docs_dir)
        );
        if !done.removed.is_empty() {
            note!(
                "removed the plots of the page without per-CPU sections it replaced: {}",
                relative_list(&done.removed, &docs_dir)
            );
        }
    }

    if !report.is_correct() {
        note!();
        note!("################################################################");
        note!("#  FALSE NEGATIVES: a filter answered \"absent\" for a key it holds");
        for r in report.false_negative_rows() {
            note!(
                "#  {} ({} keys, n = {}, p = {}, load {}%): {} lost",
                r.name,
                r.key_kind,
                r.n,
                r.target_fpr,
                r.load_percent,
                markdown::plural(r.false_negatives, "key", "keys")
            );
        }
        note!("################################################################");
        return Ok(ExitCode::from(3));
    }
    let flagged = report.flagged_rows().count();
    if flagged > 0 {
        note!(
            "warning: {} with a rate far above the target (marked ⚠)",
            markdown::plural(flagged as u64, "measurement", "measurements")
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut stdout = Output::default();
    match run(cli, &mut stdout) {
        Ok(code) => code,
        Err(e) => {
            note!("bloom-compare: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_rates_parse() {
        assert_eq!(parse_count("100K"), Ok(100_000));
        assert_eq!(parse_count("2.5M"), Ok(2_500_000));
        assert_eq!(parse_count("1e6"), Ok(1_000_000));
        assert_eq!(parse_count("1_000"), Ok(1_000));
        assert!(parse_count("0").is_err());
        assert!(parse_count("1.5").is_err());
        assert!(parse_count("lots").is_err());
        assert_eq!(
            parse_counts("100K,1M"),
            Ok(Counts(vec![100_000, 1_000_000]))
        );
        assert_eq!(parse_counts("2000"), Ok(Counts(vec![2_000])));
        assert_eq!(parse_counts("1,2"), Ok(Counts(vec![1, 2])));
        assert!(is_thousands("100,000") && is_thousands("1,000,000"));
        assert!(!is_thousands("100K,1M") && !is_thousands("1000") && !is_thousands("10,20"));
        let e = parse_counts("1,000,000").unwrap_err();
        assert!(e.contains("1_000_000 or 1M"), "{e}");
        assert!(!e.contains("--n 000"), "{e}");
        let e = parse_counts("100,200").unwrap_err();
        assert!(
            e.contains("100_200 or 100.2K, or the sizes 100 and 200 as --n 100 --n 200"),
            "{e}"
        );
        let e = parse_count("100,000").unwrap_err();
        assert!(e.contains("100_000 or 100K"), "{e}");
        assert_eq!(parse_rate("1%"), Ok(0.01));
        assert_eq!(parse_rate("0.001"), Ok(0.001));
        assert!(parse_rate("0").is_err());
        assert!(parse_rate("100%").is_err());
        assert!(parse_rate("x").is_err());
    }

    #[test]
    fn cli_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
