//! The binary end to end on tiny sizes: every format written, CSV and JSON parsed back; the
//! output place checked before measuring; a reader that closes early; bad arguments.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use bloom_compare::report::files::{from_csv, from_json};
use bloom_compare::report::terminal::{WIDTH, display_width};

fn out_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn tiny_run_writes_every_format_and_parses_back() {
    let out = out_dir("bloom-compare-cli");
    let docs = out.join("docs");
    let output = Command::new(env!("CARGO_BIN_EXE_bloom-compare"))
        .args([
            "--n",
            "2K,5K",
            "--fpr",
            "1%,0.1%",
            "--load",
            "50,100,150",
            "--keys",
            "u64,str16,url",
            "--rounds",
            "1",
            "--negatives",
            "20K",
            "--probe-ms",
            "2",
            "--seed",
            "7",
            "--write-docs",
        ])
        .arg("--out")
        .arg(&out)
        .arg("--docs-dir")
        .arg(&docs)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    // The report opens with the guide computed from this run, and fits 120 columns.
    assert_eq!(
        stdout.lines().next(),
        Some("## Choosing a variant"),
        "{stdout}"
    );
    assert!(stdout.contains("Figures below are for u64 keys at n = 5,000, target p = 1%"));
    for line in stdout.lines() {
        assert!(display_width(line) <= WIDTH, "{line}");
    }
    assert!(stdout.contains("no false negatives"), "{stdout}");
    assert!(
        stdout.contains("URL-like keys (50-120 bytes), n = 5,000, load 100%: space and accuracy")
    );
    assert!(
        stdout.contains("bloom-compare --n 2K,5K"),
        "the header shows the command"
    );
    assert!(stdout.contains("BloomFilter"));
    // No progress bar when stderr is not a terminal.
    assert!(!stderr.contains("eta"), "{stderr}");

    let csv = std::fs::read_to_string(out.join("report.csv")).unwrap();
    let rows = from_csv(&csv).unwrap();
    let json = std::fs::read_to_string(out.join("report.json")).unwrap();
    let report = from_json(&json).unwrap();
    assert_eq!(rows.len(), report.rows.len());
    assert!(rows.len() >= 3 * 2 * 2 * 3 * 2, "{} rows", rows.len());
    for (a, b) in rows.iter().zip(&report.rows) {
        assert_eq!(
            (a.key_kind, a.n, a.load_percent),
            (b.key_kind, b.n, b.load_percent)
        );
        assert_eq!(a.candidate, b.candidate);
        assert_eq!(a.false_positives, b.false_positives);
        assert_eq!(a.memory_bytes, b.memory_bytes);
        assert!((a.absent_ns - b.absent_ns).abs() <= 1e-9 * a.absent_ns.abs());
    }
    assert!(report.is_correct());
    assert_eq!(report.header.seed, 7);
    assert!(
        report.header.rustc.starts_with("rustc "),
        "{}",
        report.header.rustc
    );
    assert!(!report.header.cpu.is_empty());
    // The CPU in full, in the JSON and in what is printed, as read on this machine.
    let cpu = report
        .header
        .cpu_details
        .clone()
        .expect("CPU details recorded");
    assert_eq!(cpu.arch.as_deref(), Some(std::env::consts::ARCH));
    assert!(cpu.simd.is_some());
    assert_eq!(report.header.cpu_info(), cpu);
    assert!(
        stdout.contains(&format!("**CPU:** {}", cpu.name())),
        "{stdout}"
    );
    assert!(stdout.contains("**Caches (CPU 0):** "), "{stdout}");

    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("space and accuracy"));
    // The docs' plots are this CPU's, in a folder of their own.
    let key = cpu.key();
    for plot in ["fpr_vs_bits.svg", "query_vs_n.svg", "memory_vs_n.svg"] {
        for dir in [out.join("plots"), docs.join("plots").join(&key)] {
            let svg = std::fs::read_to_string(dir.join(plot)).unwrap();
            assert!(svg.starts_with("<svg"), "{plot}");
            assert!(svg.contains("<text"), "{plot} has no text");
            assert!(svg.contains("BloomFilter"), "{plot} has no legend");
        }
    }
    let tradeoffs = std::fs::read_to_string(docs.join("tradeoffs.md")).unwrap();
    assert!(tradeoffs.contains(&format!("<!-- cpu: {key} -->\n## {}\n", cpu.heading())));
    assert!(tradeoffs.contains("### Choosing a variant"));
    assert!(tradeoffs.contains(&format!("](plots/{key}/fpr_vs_bits.svg)")));
    assert!(stderr.contains(&format!("regenerated the section of {}", cpu.heading())));
}

/// The tiny run with `--write-docs` into `docs`; its exit status, standard error and
/// how long it took.
fn write_docs(name: &str, docs: &std::path::Path) -> (bool, String, Duration) {
    let start = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_bloom-compare"))
        .args(TINY)
        .args(["--format", "json", "--write-docs", "--docs-dir"])
        .arg(docs)
        .arg("--out")
        .arg(out_dir(name))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.success(), stderr, start.elapsed())
}

#[test]
fn docs_keep_the_sections_of_other_cpus() {
    let docs = out_dir("bloom-compare-cli-sections");
    std::fs::create_dir_all(docs.join("plots/other-cpu")).unwrap();
    // Another machine's section, and its plot, as a run there left them.
    let other = "<!-- cpu: other-cpu -->\n## Other CPU: AVX2, L3 8 MiB\n\n\
                 ![plot](plots/other-cpu/fpr_vs_bits.svg)\n\n<!-- end cpu -->\n";
    let page = format!("# Trade-offs\n\nAn older introduction.\n\n{other}");
    std::fs::write(docs.join("tradeoffs.md"), &page).unwrap();
    std::fs::write(docs.join("plots/other-cpu/fpr_vs_bits.svg"), "<svg/>").unwrap();
    for round in 0..2 {
        let (ok, stderr, _) = write_docs("bloom-compare-cli-sections-out", &docs);
        assert!(ok, "{stderr}");
        let text = std::fs::read_to_string(docs.join("tradeoffs.md")).unwrap();
        assert!(text.contains(other), "round {round}: {text}");
        assert_eq!(text.matches("<!-- end cpu -->").count(), 2, "round {round}");
        assert!(text.contains("- Other CPU: AVX2, L3 8 MiB\n"), "{text}");
        assert!(!text.contains("An older introduction."));
        assert!(!stderr.contains("removed"), "{stderr}");
    }
    assert_eq!(
        std::fs::read_to_string(docs.join("plots/other-cpu/fpr_vs_bits.svg")).unwrap(),
        "<svg/>"
    );
}

#[test]
fn docs_from_before_the_sections_are_replaced_with_their_plots() {
    let docs = out_dir("bloom-compare-cli-old-docs");
    std::fs::create_dir_all(docs.join("plots")).unwrap();
    let old = "# Trade-offs\n\n| run | |\n|---|---|\n| CPU | AMD EPYC (2 cores) |\n\n\
               ![a](plots/fpr_vs_bits.svg)\n![b](plots/query_vs_n.svg)\n";
    std::fs::write(docs.join("tradeoffs.md"), old).unwrap();
    for name in ["fpr_vs_bits.svg", "query_vs_n.svg", "memory_vs_n.svg"] {
        std::fs::write(docs.join("plots").join(name), "<svg/>").unwrap();
    }
    let (ok, stderr, _) = write_docs("bloom-compare-cli-old-docs-out", &docs);
    assert!(ok, "{stderr}");
    let text = std::fs::read_to_string(docs.join("tradeoffs.md")).unwrap();
    assert!(!text.contains("AMD EPYC (2 cores)"));
    assert_eq!(text.matches("<!-- cpu: ").count(), 1);
    // The plots the old page showed are gone; the one it did not show is not its to remove.
    assert!(!docs.join("plots/fpr_vs_bits.svg").exists());
    assert!(!docs.join("plots/query_vs_n.svg").exists());
    assert!(docs.join("plots/memory_vs_n.svg").exists());
    assert!(
        stderr.contains(
            "removed the plots of the page without per-CPU sections it replaced: \
                         plots/fpr_vs_bits.svg, plots/query_vs_n.svg\n"
        ),
        "{stderr}"
    );
}

#[test]
fn docs_whose_sections_do_not_pair_up_are_refused_before_measuring() {
    let docs = out_dir("bloom-compare-cli-bad-docs");
    std::fs::create_dir_all(&docs).unwrap();
    let bad = "# Trade-offs\n\n<!-- cpu: other-cpu -->\n## Other CPU\n";
    std::fs::write(docs.join("tradeoffs.md"), bad).unwrap();
    let (ok, stderr, elapsed) = write_docs("bloom-compare-cli-bad-docs-out", &docs);
    assert!(!ok);
    assert!(
        stderr
            .contains("tradeoffs.md, line 3: the section of \"other-cpu\" has no <!-- end cpu -->"),
        "{stderr}"
    );
    assert!(
        stderr.contains("mend them, or move the file away"),
        "{stderr}"
    );
    assert!(!stderr.contains("measuring"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(docs.join("tradeoffs.md")).unwrap(),
        bad
    );
    assert!(!docs.join("plots").exists());
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
}

#[test]
fn only_the_formats_asked_for_are_written() {
    let out = out_dir("bloom-compare-cli-csv");
    let status = Command::new(env!("CARGO_BIN_EXE_bloom-compare"))
        .args(TINY)
        .args(["--format", "csv"])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(status.status.success());
    assert!(out.join("report.csv").exists());
    assert!(!out.join("report.json").exists());
    assert!(!out.join("plots").exists());
    let rows = from_csv(&std::fs::read_to_string(out.join("report.csv")).unwrap()).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].candidate, "classic");
}

#[test]
fn bad_arguments_are_refused() {
    for args in [
        &["--fpr", "2"][..],
        &["--n", "0"],
        &["--keys", "bytes"],
        &["--variants", "nonesuch"],
        &["--load", "0"],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_bloom-compare"))
            .args(args)
            .args(["--format", "csv", "--out"])
            .arg(out_dir("bloom-compare-cli-bad"))
            .output()
            .unwrap();
        assert!(!output.status.success(), "{args:?} accepted");
        assert!(!output.stderr.is_empty(), "{args:?}");
    }
    let list = Command::new(env!("CARGO_BIN_EXE_bloom-compare"))
        .arg("--list")
        .output()
        .unwrap();
    assert!(list.status.success());
    assert!(String::from_utf8_lossy(&list.stdout).contains("classic"));
}

#[test]
fn a_size_written_with_thousands_commas_is_refused_with_the_way_to_write_it() {
    let refused = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_bloom-compare"))
            .args(args)
            .output()
            .unwrap();
        assert!(!output.status.success(), "{args:?} accepted");
        assert!(output.stdout.is_empty());
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let stderr = refused(&["--n", "100,000"]);
    assert!(
        stderr.contains("the comma separates sizes (this would be 100 and 000)"),
        "{stderr}"
    );
    assert!(stderr.contains("100_000 or 100K"), "{stderr}");
    let stderr = refused(&["--negatives", "100,000"]);
    assert!(stderr.contains("write 100_000 or 100K"), "{stderr}");
}

/// The smallest sweep: one candidate, one setting, one round.
const TINY: [&str; 16] = [
    "--n",
    "1000",
    "--fpr",
    "5%",
    "--load",
    "100",
    "--peers",
    "none",
    "--variants",
    "classic",
    "--rounds",
    "1",
    "--negatives",
    "5000",
    "--probe-ms",
    "1",
];

#[cfg(unix)]
#[test]
fn a_reader_that_closes_early_ends_the_run_quietly() {
    use std::os::fd::OwnedFd;
    use std::os::unix::net::UnixStream;

    // Standard output is a socket whose reading end is closed before the binary starts:
    // its first write fails with a broken pipe, as under `| true` or `| head` (without the
    // race of a reader that might still read first).
    let (reader, writer) = UnixStream::pair().unwrap();
    drop(reader);
    let out = out_dir("bloom-compare-cli-pipe");
    let child = Command::new(env!("CARGO_BIN_EXE_bloom-compare"))
        .args(TINY)
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::from(OwnedFd::from(writer)))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stderr.to_lowercase().contains("broken pipe"), "{stderr}");
    // The run went on: its files were written, and it said so.
    assert!(out.join("report.csv").exists());
    assert!(stderr.contains("wrote 6 files in"), "{stderr}");

    // `--list` too.
    let (reader, writer) = UnixStream::pair().unwrap();
    drop(reader);
    let output = Command::new(env!("CARGO_BIN_EXE_bloom-compare"))
        .arg("--list")
        .stdout(Stdio::from(OwnedFd::from(writer)))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
        .wait_with_output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn an_out_that_is_a_file_is_refused_before_measuring() {
    let dir = out_dir("bloom-compare-cli-out-file");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("results");
    std::fs::write(&file, "an earlier file").unwrap();
    let start = Instant::now();
    // The default sweep: half a minute or more of measuring, had it started.
    let output = Command::new(env!("CARGO_BIN_EXE_bloom-compare"))
        .arg("--out")
        .arg(&file)
        .output()
        .unwrap();
    let elapsed = start.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains(&format!(
            "--out {}: {} is a file, not a folder",
            file.display(),
            file.display()
        )),
        "{stderr}"
    );
    assert!(stderr.contains("--out names the folder"), "{stderr}");
    // No measurement started: the binary announces one on stderr, and prints the report
    // on stdout after it.
    assert!(!stderr.contains("measuring"), "{stderr}");
    assert!(output.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "an earlier file");
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "nothing else written"
    );
    // Not a speed test: refusing takes milliseconds, the sweep it would have run far longer.
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");

    // A file where the plots' folder goes is refused the same way.
    let out = out_dir("bloom-compare-cli-out-plots");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("plots"), "").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_bloom-compare"))
        .args(TINY)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("plots is a file, not a folder"), "{stderr}");
    assert!(!stderr.contains("measuring"), "{stderr}");
    assert!(!out.join("report.md").exists());
}

#[test]
fn a_second_run_says_it_replaces_the_first() {
    let out = out_dir("bloom-compare-cli-replace");
    let run = || {
        let output = Command::new(env!("CARGO_BIN_EXE_bloom-compare"))
            .args(TINY)
            .args(["--format", "csv,json", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(output.status.success());
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let first = run();
    assert!(
        first.contains(&format!(
            "wrote 2 files in {}: report.csv, report.json",
            out.display()
        )),
        "{first}"
    );
    assert!(!first.contains("replacing"), "{first}");
    let second = run();
    assert!(second.contains("(replacing the previous run's"), "{second}");
}
