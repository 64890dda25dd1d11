//! `--keys-file` end to end: a file of URL-like lines (with repeats and a line that is not
//! UTF-8) measured on tiny sizes, the report naming the file; `--absent-file` with lines
//! shared with the keys file; and every bad file or combination refused in one line before
//! anything is measured.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use std::time::Duration;

use bloom_compare::candidate;
use bloom_compare::key_file::{self, Absent};
use bloom_compare::keys::KeyKind;
use bloom_compare::report::files::{from_csv, from_json};
use bloom_compare::sweep::{Negatives, Sweep};

/// An empty folder of its own for a test.
fn dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `count` distinct URL-like lines (`prefix` keeps two files' lines apart).
fn urls(prefix: &str, count: usize) -> Vec<Vec<u8>> {
    (0..count)
        .map(|i| {
            format!(
                "https://www.{prefix}{}.example/articles/{i:06}/{}",
                i % 37,
                "x".repeat(i % 50)
            )
            .into_bytes()
        })
        .collect()
}

/// Writes `lines`, each ended by `\r\n` when `crlf`, else `\n`.
fn write_lines(path: &Path, lines: &[Vec<u8>], crlf: bool) {
    let mut bytes = Vec::new();
    for line in lines {
        bytes.extend_from_slice(line);
        bytes.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
    }
    std::fs::write(path, bytes).unwrap();
}

/// Runs the binary on a quick setting (two of our variants and one peer, one round, one
/// rate) with `args`, writing into `out`.
fn run(args: &[&str], out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bloom-compare"))
        .args([
            "--variants",
            "classic,blocked",
            "--peers",
            "none",
            "--fpr",
            "1%",
            "--rounds",
            "1",
            "--probe-ms",
            "2",
            "--seed",
            "7",
        ])
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

/// The standard output and error of a run that must have succeeded.
fn succeeded(output: &Output) -> (String, String) {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stdout}\n{stderr}");
    (stdout, stderr)
}

#[test]
fn a_keys_file_runs_end_to_end_and_the_report_names_it() {
    let dir = dir("keys-file-run");
    let keys = dir.join("urls.txt");
    let mut lines = urls("site", 3_000);
    // A line that is not UTF-8 is a key like any other.
    lines.push(b"https://www.site.example/\xff\xfe".to_vec());
    // 120 repeats, which are dropped and counted.
    lines.extend(urls("site", 120));
    write_lines(&keys, &lines, true);
    let out = dir.join("out");
    let (stdout, stderr) = succeeded(&run(&["--keys-file", keys.to_str().unwrap()], &out));
    // 3,001 distinct lines: 600 held out (20%), 2,401 to insert, and n defaults to that.
    assert!(
        stderr.contains(
            "keys from urls.txt: 3121 lines, 120 duplicates dropped, 2401 to insert; 600 held \
             out as absent (20% of the distinct lines)"
        ),
        "{stderr}"
    );
    assert!(
        stdout.contains("Figures below are for file: urls.txt at n = 2,401"),
        "{stdout}"
    );
    assert!(
        stdout.contains("file: urls.txt, n = 2,401, load 100%: space and accuracy"),
        "{stdout}"
    );
    assert!(stdout.contains("no false negatives"), "{stdout}");

    let report = from_json(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let rows = from_csv(&std::fs::read_to_string(out.join("report.csv")).unwrap()).unwrap();
    assert_eq!(rows.len(), report.rows.len());
    // Loads 50% and 100% (the file holds no keys beyond n), two candidates.
    assert_eq!(report.rows.len(), 4);
    for row in rows.iter().chain(&report.rows) {
        assert_eq!(row.key_kind, KeyKind::file("urls.txt"));
        assert_eq!(row.key_kind.name(), "file: urls.txt");
        assert_eq!(row.n, 2_401);
        assert_eq!(row.negatives, 600);
        assert!([50, 100].contains(&row.load_percent));
    }
    assert!(report.is_correct());
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("### file: urls.txt, n = 2,401: measured rate by load"));

    // A smaller --n takes a prefix of the shuffled keys; the same seed, the same split.
    let output = run(
        &[
            "--keys-file",
            keys.to_str().unwrap(),
            "--n",
            "1K",
            "--load",
            "100",
        ],
        &out,
    );
    assert!(output.status.success());
    let again = from_json(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert!(
        again
            .rows
            .iter()
            .all(|r| r.n == 1_000 && r.negatives == 600)
    );
}

#[test]
fn an_absent_file_gives_the_absent_keys_without_the_shared_lines() {
    let dir = dir("keys-file-absent");
    let keys = dir.join("keys.txt");
    let absent = dir.join("absent.txt");
    write_lines(&keys, &urls("in", 2_000), false);
    // 50 lines of the keys file, 1,000 others, 10 of them twice.
    let mut lines = urls("in", 50);
    lines.extend(urls("out", 1_000));
    lines.extend(urls("out", 10));
    write_lines(&absent, &lines, false);
    let out = dir.join("out");
    let (_, stderr) = succeeded(&run(
        &[
            "--keys-file",
            keys.to_str().unwrap(),
            "--absent-file",
            absent.to_str().unwrap(),
        ],
        &out,
    ));
    assert!(
        stderr.contains(
            "keys from keys.txt: 2000 lines, 0 duplicates dropped, 2000 to insert; 1000 absent \
             from absent.txt (1060 lines, 10 duplicates and 50 also in keys.txt dropped)"
        ),
        "{stderr}"
    );
    let report = from_json(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert!(!report.rows.is_empty());
    for row in &report.rows {
        assert_eq!(row.key_kind.name(), "file: keys.txt");
        assert_eq!((row.n, row.negatives), (2_000, 1_000));
    }
    assert!(report.is_correct());
}

#[test]
fn bad_key_files_and_combinations_are_refused_in_one_line_before_measuring() {
    let dir = dir("keys-file-errors");
    let keys = dir.join("keys.txt");
    write_lines(&keys, &urls("k", 100), false);
    let empty = dir.join("empty.txt");
    std::fs::write(&empty, b"\n\r\n").unwrap();
    let single = dir.join("single.txt");
    write_lines(&single, &[b"only".to_vec(), b"only".to_vec()], false);
    let missing = dir.join("missing.txt");
    let (k, e, s, m) = (
        keys.to_str().unwrap(),
        empty.to_str().unwrap(),
        single.to_str().unwrap(),
        missing.to_str().unwrap(),
    );
    let cases: [(&[&str], &str); 11] = [
        (&["--keys-file", m], "--keys-file"),
        (&["--keys-file", dir.to_str().unwrap()], "--keys-file"),
        (&["--keys-file", e], "the file is empty"),
        (
            &["--keys-file", s],
            "1 distinct line, at least 2 are needed",
        ),
        (&["--keys-file", k, "--keys", "url"], "do not go together"),
        (&["--keys-file", k, "--n", "81"], "needs 81 keys to insert"),
        (
            &["--keys-file", k, "--absent-file", k],
            "no absent key is left",
        ),
        (&["--keys-file", k, "--absent-file", m], "--absent-file"),
        (&["--absent-file", k], "--absent-file needs --keys-file"),
        (
            &["--absent-share", "10%"],
            "--absent-share needs --keys-file",
        ),
        (
            &[
                "--keys-file",
                k,
                "--absent-file",
                k,
                "--absent-share",
                "0.1",
            ],
            "do not go together",
        ),
    ];
    for (args, expected) in cases {
        let out = dir.join("out");
        let output = run(args, &out);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?} succeeded");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("bloom-compare: ") && stderr.contains(expected),
            "{args:?}: {stderr}"
        );
        assert!(output.stdout.is_empty(), "{args:?}");
        assert!(!out.exists(), "{args:?} wrote its output folder");
    }
}

#[test]
fn the_library_sweeps_a_file_read_with_key_file() {
    let dir = dir("keys-file-library");
    let path = dir.join("lib.txt");
    write_lines(&path, &urls("lib", 1_000), false);
    let file = key_file::read(&path, Absent::HeldOut(0.25), 3).unwrap();
    assert_eq!((file.summary.positives, file.summary.absent), (750, 250));
    let kind = file.keys.kind();
    let mut sweep = Sweep {
        entries: candidate::ours()[..1].to_vec(),
        kinds: vec![kind],
        sizes: vec![750],
        fprs: vec![0.01],
        loads: vec![100],
        threads: 1,
        rounds: 1,
        seed: 3,
        negatives: Negatives::DEFAULT,
        probe_budget: Duration::from_millis(2),
        file_keys: None,
    };
    // A file's kind without its keys is refused, not measured on nothing.
    let e = sweep.validate().unwrap_err();
    assert!(
        e.contains("no keys were read for the kind \"file: lib.txt\""),
        "{e}"
    );
    sweep.file_keys = Some(file.keys);
    let outcome = sweep.run(&mut |_| {}).unwrap();
    assert_eq!(outcome.rows.len(), 1);
    let row = &outcome.rows[0];
    assert_eq!((row.key_kind, row.n, row.negatives), (kind, 750, 250));
    assert_eq!((row.keys_offered, row.false_negatives), (750, 0));
}
