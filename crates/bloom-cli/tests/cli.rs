//! End-to-end tests of the `bloom` binary: every subcommand through the built executable.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const VARIANTS: [&str; 7] = [
    "classic",
    "blocked",
    "multiblock",
    "multiblock32",
    "split-block",
    "counting",
    "scalable",
];

/// Runs `bloom args...` with `stdin` as its standard input.
fn bloom(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bloom"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the bloom binary runs");
    let mut input = child.stdin.take().expect("stdin is piped");
    // The command may exit before reading everything (on an error): ignore a broken pipe.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().expect("bloom finishes")
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("bloom exits with a code")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Asserts a failed run: exit code 2 and one `bloom: ...` line naming `needle`, no panic.
fn assert_error(output: &Output, needle: &str) {
    let message = stderr(output);
    assert_eq!(code(output), 2, "{message}");
    assert!(message.starts_with("bloom: "), "{message}");
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.contains(needle), "{needle:?} not in {message}");
    assert!(!message.contains("panicked"), "{message}");
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("temporary paths are UTF-8")
}

/// A directory for one test's files.
fn dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory")
}

/// The arguments of `bloom create` for a filter of `variant` for `n` keys at rate `p`,
/// written to `output`, then `options`.
fn create_args<'a>(
    variant: &'a str,
    n: &'a str,
    p: &'a str,
    output: &'a str,
    options: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![
        "create",
        "--variant",
        variant,
        "--n",
        n,
        "--p",
        p,
        "-o",
        output,
    ];
    args.extend_from_slice(options);
    args
}

/// Creates an empty filter of `variant` for `n` keys at rate `p` in `dir`, with `options`.
fn create_with(
    dir: &Path,
    name: &str,
    variant: &str,
    (n, p): (u64, f64),
    options: &[&str],
) -> PathBuf {
    let path = dir.join(name);
    let (n, p) = (n.to_string(), p.to_string());
    let out = bloom(&create_args(variant, &n, &p, path_str(&path), options), b"");
    assert_eq!(code(&out), 0, "{variant}: {}", stderr(&out));
    path
}

/// Creates an empty filter of `variant` for `n` keys at rate `p` in `dir`.
fn create(dir: &Path, name: &str, variant: &str, n: u64, p: f64) -> PathBuf {
    create_with(dir, name, variant, (n, p), &[])
}

fn lines(keys: impl IntoIterator<Item = String>) -> Vec<u8> {
    keys.into_iter()
        .flat_map(|k| format!("{k}\n").into_bytes())
        .collect()
}

/// The JSON objects of `bloom size --json`, one per line.
fn json_lines(stdout: &[u8]) -> Vec<Value> {
    stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("each line is one JSON object"))
        .collect()
}

fn info_json(path: &Path) -> Value {
    let out = bloom(&["info", path_str(path), "--json"], b"");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("info --json prints JSON")
}

#[test]
fn create_writes_an_empty_filter_of_each_variant() {
    let dir = dir();
    for variant in VARIANTS {
        let path = create(dir.path(), variant, variant, 1000, 0.01);
        let info = info_json(&path);
        assert_eq!(info["variant"], variant);
        assert_eq!(info["estimated_keys"], 0);
        assert_eq!(info["fill_ratio"], 0.0);
        assert!(info["memory_bytes"].as_u64().is_some_and(|m| m > 0));
        let text = bloom(&["info", path_str(&path)], b"");
        assert!(
            String::from_utf8_lossy(&text.stdout).starts_with(&format!("variant: {variant}\n"))
        );
    }
}

#[test]
fn added_keys_are_all_found_by_check() {
    let dir = dir();
    let keys = lines((0..2000).map(|i| format!("https://example.com/{i}")));
    for variant in VARIANTS {
        let path = create(dir.path(), variant, variant, 2000, 0.01);
        let out = bloom(&["add", path_str(&path)], &keys);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert!(
            out.stderr.is_empty(),
            "no progress bar when stderr is not a terminal"
        );
        let out = bloom(&["check", path_str(&path)], &keys);
        assert_eq!(code(&out), 0);
        assert_eq!(
            out.stdout, keys,
            "{variant}: every key is printed, in order"
        );
        let out = bloom(&["check", "--absent", path_str(&path)], &keys);
        assert_eq!(code(&out), 1, "{variant}: no key is absent");
        assert!(out.stdout.is_empty());
        let estimate = info_json(&path)["estimated_keys"].as_f64().unwrap();
        assert!((estimate - 2000.0).abs() < 200.0, "{variant}: {estimate}");
    }
}

#[test]
fn a_scalable_filter_grows_past_its_first_layer() {
    let dir = dir();
    let path = create(dir.path(), "s", "scalable", 100, 0.01);
    let keys = lines((0..5000).map(|i| format!("grow-{i}")));
    let out = bloom(&["add", path_str(&path)], &keys);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let info = info_json(&path);
    assert!(info["num_layers"].as_u64().is_some_and(|n| n > 1), "{info}");
    assert_eq!(
        info["keys_added"].as_u64().map(|n| n > 4900),
        Some(true),
        "{info}"
    );
    assert_eq!(bloom(&["check", path_str(&path)], &keys).stdout, keys);
}

#[test]
fn keys_come_from_files_and_stdin_in_order() {
    let dir = dir();
    let path = create(dir.path(), "f", "classic", 100, 0.001);
    let a = dir.path().join("a.txt");
    std::fs::write(&a, b"alpha\nbeta\n").unwrap();
    let out = bloom(&["add", path_str(&path), path_str(&a), "-"], b"gamma");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = bloom(&["check", path_str(&path)], b"alpha\ndelta\ngamma\nbeta\n");
    assert_eq!(out.stdout, b"alpha\ngamma\nbeta\n");
}

#[test]
fn check_exit_codes_are_grep_like() {
    let dir = dir();
    let path = create(dir.path(), "f", "blocked", 100, 0.001);
    bloom(&["add", path_str(&path)], b"present\n");
    assert_eq!(code(&bloom(&["check", path_str(&path)], b"present\n")), 0);
    assert_eq!(
        code(&bloom(&["check", path_str(&path)], b"surely-not-here\n")),
        1
    );
    assert_eq!(
        code(&bloom(
            &["check", "--absent", path_str(&path)],
            b"surely-not-here\n"
        )),
        0
    );
    assert_eq!(code(&bloom(&["check", path_str(&path)], b"")), 1);
    let missing = dir.path().join("missing");
    assert_error(
        &bloom(&["check", path_str(&missing)], b"x\n"),
        path_str(&missing),
    );
    let missing_input = dir.path().join("no-input.txt");
    assert_error(
        &bloom(&["check", path_str(&path), path_str(&missing_input)], b""),
        path_str(&missing_input),
    );
}

#[test]
fn empty_input_adds_nothing() {
    let dir = dir();
    for variant in VARIANTS {
        let path = create(dir.path(), variant, variant, 100, 0.01);
        let before = std::fs::read(&path).unwrap();
        let out = bloom(&["add", path_str(&path)], b"");
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert_eq!(std::fs::read(&path).unwrap(), before, "{variant}");
    }
}

#[test]
fn lf_and_crlf_lines_are_the_same_keys_and_bytes_need_no_utf8() {
    let dir = dir();
    for variant in VARIANTS {
        let path = create(dir.path(), variant, variant, 100, 0.0001);
        let out = bloom(&["add", path_str(&path)], b"\xff\xfe\r\nplain\n\x80abc");
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let out = bloom(
            &["check", path_str(&path)],
            b"\xff\xfe\n\x80abc\r\nplain\r\nother\n",
        );
        assert_eq!(out.stdout, b"\xff\xfe\n\x80abc\nplain\n", "{variant}");
    }
}

#[test]
fn a_key_longer_than_a_megabyte_is_one_key() {
    let dir = dir();
    let path = create(dir.path(), "f", "classic", 100, 0.0001);
    let long: Vec<u8> = (0..3 << 20).map(|i| b'a' + (i % 26) as u8).collect();
    let mut input = b"short\n".to_vec();
    input.extend_from_slice(&long);
    input.extend_from_slice(b"\nafter\n");
    let out = bloom(&["add", path_str(&path)], &input);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // The same key, this time the last line and without a terminator.
    let out = bloom(&["check", path_str(&path)], &long);
    assert_eq!(code(&out), 0);
    assert_eq!(out.stdout.len(), long.len() + 1);
    let mut shorter = long.clone();
    shorter.pop();
    assert_eq!(code(&bloom(&["check", path_str(&path)], &shorter)), 1);
    assert_eq!(
        bloom(&["check", path_str(&path)], b"after\nshort\n").stdout,
        b"after\nshort\n"
    );
}

#[test]
fn parallel_add_builds_the_same_filter() {
    let dir = dir();
    let keys = lines((0..50_000).map(|i| format!("key-{i}")));
    for variant in ["classic", "blocked", "counting"] {
        let sequential = create(dir.path(), &format!("{variant}-seq"), variant, 50_000, 0.01);
        let parallel = create(dir.path(), &format!("{variant}-par"), variant, 50_000, 0.01);
        assert_eq!(code(&bloom(&["add", path_str(&sequential)], &keys)), 0);
        let out = bloom(&["add", "--parallel", path_str(&parallel)], &keys);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert_eq!(
            std::fs::read(&sequential).unwrap(),
            std::fs::read(&parallel).unwrap()
        );
    }
    for variant in ["split-block", "scalable"] {
        let path = create(dir.path(), variant, variant, 100, 0.01);
        let before = std::fs::read(&path).unwrap();
        assert_error(
            &bloom(&["add", "--parallel", path_str(&path)], b"k\n"),
            "parallel",
        );
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }
}

#[test]
fn bad_arguments_are_errors_not_panics() {
    let dir = dir();
    let out = dir.path().join("f");
    let o = path_str(&out);
    let words = |args: &[&str]| -> Vec<String> { args.iter().map(|a| a.to_string()).collect() };
    let create = |variant: &str, n: &str, p: &str| words(&create_args(variant, n, p, o, &[]));
    let cases = [
        create("cuckoo", "10", "0.01"),
        create("classic", "0", "0.01"),
        create("classic", "10", "1.5"),
        create("classic", "10", "NaN"),
        create("classic", "-3", "0.01"),
        create("classic", "1000000000000000", "0.01"),
        words(&["create", "--variant", "classic", "--n", "10", "--p", "0.01"]),
        words(&["size", "--n", "10", "--p", "0"]),
        words(&["size", "--n", "0", "--p", "0.01"]),
        words(&["merge", o, "-o", o]),
        words(&["frobnicate"]),
        words(&[]),
    ];
    for args in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = bloom(&args, b"");
        assert_eq!(code(&output), 2, "{args:?}: {}", stderr(&output));
        assert!(!stderr(&output).contains("panicked"), "{args:?}");
    }
    assert!(!out.exists(), "no failed create left a file");
}

#[test]
fn corrupt_truncated_and_foreign_files_are_one_line_errors() {
    let dir = dir();
    let good = create(dir.path(), "good", "classic", 1000, 0.01);
    bloom(&["add", path_str(&good)], b"a\nb\n");
    let bytes = std::fs::read(&good).unwrap();
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 0x10;
    let cases: [(&str, Vec<u8>, &str); 5] = [
        ("flipped", flipped, "checksum"),
        ("truncated", bytes[..bytes.len() - 9].to_vec(), "truncated"),
        (
            "foreign",
            b"this is a text file, not a filter\n".to_vec(),
            "not a filter",
        ),
        ("empty", Vec::new(), "truncated"),
        ("header-only", bytes[..20].to_vec(), "truncated"),
    ];
    for (name, content, reason) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, &content).unwrap();
        let p = path_str(&path);
        for args in [
            &["info", p][..],
            &["check", p],
            &["add", p],
            &[
                "merge",
                path_str(&good),
                p,
                "-o",
                path_str(&dir.path().join("out")),
            ],
        ] {
            let out = bloom(args, b"a\n");
            assert_error(&out, &format!("{p}: "));
            assert!(stderr(&out).contains(reason), "{name}: {}", stderr(&out));
        }
        assert_eq!(
            std::fs::read(&path).unwrap(),
            content,
            "a failed add changes nothing"
        );
    }
}

#[test]
fn merge_is_the_union() {
    let dir = dir();
    for variant in VARIANTS {
        let a = create(dir.path(), &format!("{variant}-a"), variant, 1000, 0.001);
        let b = create(dir.path(), &format!("{variant}-b"), variant, 1000, 0.001);
        bloom(&["add", path_str(&a)], b"left\n");
        bloom(&["add", path_str(&b)], b"right\n");
        let out = dir.path().join(format!("{variant}-out"));
        let run = bloom(
            &["merge", path_str(&a), path_str(&b), "-o", path_str(&out)],
            b"",
        );
        assert_eq!(code(&run), 0, "{variant}: {}", stderr(&run));
        let found = bloom(&["check", path_str(&out)], b"left\nright\nneither\n");
        assert_eq!(found.stdout, b"left\nright\n", "{variant}");
    }
}

#[test]
fn merge_rejects_other_variants_and_sizes_by_name() {
    let dir = dir();
    let a = create(dir.path(), "a", "classic", 1000, 0.01);
    let counting = create(dir.path(), "counting", "counting", 1000, 0.01);
    let bigger = create(dir.path(), "bigger", "classic", 5000, 0.01);
    let out = dir.path().join("out");
    let run = bloom(
        &[
            "merge",
            path_str(&a),
            path_str(&counting),
            "-o",
            path_str(&out),
        ],
        b"",
    );
    assert_error(
        &run,
        &format!("{}: cannot merge a counting filter", path_str(&counting)),
    );
    assert!(stderr(&run).contains(path_str(&a)));
    let run = bloom(
        &[
            "merge",
            path_str(&a),
            path_str(&bigger),
            "-o",
            path_str(&out),
        ],
        b"",
    );
    assert_error(&run, path_str(&bigger));
    assert!(stderr(&run).contains(path_str(&a)));
    assert!(!out.exists());
}

#[test]
fn a_failed_merge_leaves_the_output_unchanged() {
    let dir = dir();
    let a = create(dir.path(), "a", "blocked", 1000, 0.01);
    let b = create(dir.path(), "b", "blocked", 1000, 0.01);
    bloom(&["add", path_str(&a)], b"x\n");
    let out = create(dir.path(), "out", "blocked", 1000, 0.01);
    bloom(&["add", path_str(&out)], b"kept\n");
    let before = std::fs::read(&out).unwrap();
    let mut corrupt = std::fs::read(&b).unwrap();
    corrupt.truncate(corrupt.len() - 1);
    std::fs::write(&b, corrupt).unwrap();
    let run = bloom(
        &["merge", path_str(&a), path_str(&b), "-o", path_str(&out)],
        b"",
    );
    assert_error(&run, path_str(&b));
    assert_eq!(std::fs::read(&out).unwrap(), before);
    // Only the files this test wrote: no temporary file is left behind.
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["a", "b", "out"]);
    // The output may be one of the inputs.
    let run = bloom(
        &["merge", path_str(&a), path_str(&out), "-o", path_str(&out)],
        b"",
    );
    assert_eq!(code(&run), 0, "{}", stderr(&run));
    assert_eq!(
        bloom(&["check", path_str(&out)], b"x\nkept\n").stdout,
        b"x\nkept\n"
    );
}

#[test]
fn size_lists_every_variant() {
    let out = bloom(&["size", "--n", "1000000", "--p", "0.01"], b"");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let table = String::from_utf8(out.stdout).unwrap();
    for variant in VARIANTS {
        assert!(table.lines().any(|l| l.starts_with(variant)), "{table}");
    }
    // Large sizes cost nothing: the filters are zeroed lazily.
    let out = bloom(
        &["size", "--n", "1000000000", "--p", "0.001", "--json"],
        b"",
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let rows = json_lines(&out.stdout);
    assert_eq!(rows.len(), VARIANTS.len());
    // Parquet's limit of 128 MiB is too small for a billion keys: an error in its row.
    let split = rows.iter().find(|r| r["variant"] == "split-block").unwrap();
    assert!(
        split["error"]
            .as_str()
            .is_some_and(|e| e.contains("too large")),
        "{split}"
    );
}

/// `create --seed`: the seed is in the file, the keys are found, and files of different
/// seeds do not merge; the split block filter refuses a seed.
#[test]
fn create_takes_a_seed() {
    let dir = dir();
    let [seeded, other] = [("seeded.blf", "12345"), ("other.blf", "6789")].map(|(name, seed)| {
        create_with(dir.path(), name, "classic", (1000, 0.01), &["--seed", seed])
    });
    let info = bloom(&["info", path_str(&seeded), "--json"], b"");
    assert_eq!(json_lines(&info.stdout)[0]["seed"], 12345);
    assert_eq!(code(&bloom(&["add", path_str(&seeded)], b"a\nb\n")), 0);
    assert_eq!(
        bloom(&["check", path_str(&seeded)], b"a\nb\n").stdout,
        b"a\nb\n"
    );
    let merged = dir.path().join("merged.blf");
    let out = bloom(
        &[
            "merge",
            path_str(&seeded),
            path_str(&other),
            "-o",
            path_str(&merged),
        ],
        b"",
    );
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let out = bloom(
        &create_args(
            "split-block",
            "1000",
            "0.01",
            path_str(&merged),
            &["--seed", "1"],
        ),
        b"",
    );
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("Parquet"), "{}", stderr(&out));
}

/// A size no variant can reach is still a table of errors, and a failure (exit 2).
#[test]
fn size_fails_when_no_variant_fits() {
    let out = bloom(&["size", "--n", "18000000000000000000", "--p", "0.01"], b"");
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no variant can hold"),
        "{}",
        stderr(&out)
    );
    let table = String::from_utf8(out.stdout).unwrap();
    for variant in VARIANTS {
        assert!(table.lines().any(|l| l.starts_with(variant)), "{table}");
    }
}

/// The calculator against measurement: for each variant, n keys added, then 200,000 other
/// keys checked; the count of false positives must be within five binomial standard
/// deviations (plus one key) of what `bloom size` expects.
#[test]
fn size_predicts_the_measured_false_positive_rate() {
    let dir = dir();
    let (n, p, queries) = (20_000u64, 0.01, 200_000u64);
    let out = bloom(
        &[
            "size",
            "--n",
            &n.to_string(),
            "--p",
            &p.to_string(),
            "--json",
        ],
        b"",
    );
    let rows = json_lines(&out.stdout);
    let keys = lines((0..n).map(|i| format!("member-{i}")));
    let others = lines((0..queries).map(|i| format!("stranger-{i}")));
    for row in rows {
        let variant = row["variant"].as_str().unwrap();
        let expected = row["expected_fpr"].as_f64().unwrap();
        let path = create(dir.path(), variant, variant, n, p);
        bloom(&["add", path_str(&path)], &keys);
        let found = bloom(&["check", path_str(&path)], &others);
        let positives = found.stdout.iter().filter(|&&b| b == b'\n').count() as f64;
        let mean = expected * queries as f64;
        let sigma = (mean * (1.0 - expected)).sqrt();
        assert!(
            (positives - mean).abs() <= 5.0 * sigma + 1.0,
            "{variant}: {positives} false positives, {mean:.1} expected (sigma {sigma:.1})"
        );
    }
}

#[test]
fn help_explains_every_subcommand() {
    let out = bloom(&["--help"], b"");
    assert_eq!(code(&out), 0);
    let help = String::from_utf8(out.stdout).unwrap();
    for command in ["create", "add", "check", "info", "merge", "size", "keygen"] {
        assert!(help.contains(&format!("  {command} ")), "{help}");
        let sub = bloom(&[command, "--help"], b"");
        assert_eq!(code(&sub), 0);
        assert!(
            String::from_utf8(sub.stdout)
                .unwrap()
                .contains("Example: bloom")
        );
    }
}

/// The variants that can be keyed (all but Parquet's split block filter).
const KEYABLE: [&str; 6] = [
    "classic",
    "blocked",
    "multiblock",
    "multiblock32",
    "counting",
    "scalable",
];

/// Runs `bloom keygen -o dir/name` and returns the key file.
fn keygen(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    let out = bloom(&["keygen", "-o", path_str(&path)], b"");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    path
}

/// Creates a filter of `variant` keyed with the key in `key_file`.
fn create_keyed(dir: &Path, name: &str, variant: &str, key_file: &Path) -> PathBuf {
    create_with(
        dir,
        name,
        variant,
        (1000, 0.001),
        &["--key-file", path_str(key_file)],
    )
}

/// The key in a key file written by `bloom keygen`.
fn key_bytes(key_file: &Path) -> [u8; 16] {
    let text = std::fs::read_to_string(key_file).unwrap();
    let digits = text.strip_suffix('\n').expect("keygen ends the line");
    let mut key = [0u8; 16];
    for (i, byte) in key.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&digits[2 * i..2 * i + 2], 16).expect("hex digits");
    }
    key
}

#[test]
fn keygen_writes_a_fresh_hex_key_for_its_owner_only_and_never_replaces_one() {
    let dir = dir();
    let a = keygen(dir.path(), "a.key");
    let b = keygen(dir.path(), "b.key");
    let text = std::fs::read_to_string(&a).unwrap();
    assert_eq!(text.len(), 33, "{text:?}");
    assert!(
        text[..32].bytes().all(|c| c.is_ascii_hexdigit()),
        "{text:?}"
    );
    assert_ne!(key_bytes(&a), key_bytes(&b), "two keys are two draws");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&a).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }
    let run = bloom(&["keygen", "-o", path_str(&a)], b"");
    assert_error(&run, &format!("{}: exists already", path_str(&a)));
    assert_eq!(std::fs::read_to_string(&a).unwrap(), text);
    assert_error(
        &bloom(
            &["keygen", "-o", path_str(&dir.path().join("no-dir/k.key"))],
            b"",
        ),
        "no-dir/k.key",
    );
}

/// A keyed filter of every keyable variant: its keys are found with its key, the key's
/// bytes are nowhere in the file, and `info` shows the fingerprint with or without the key.
#[test]
fn keyed_filters_work_with_their_key() {
    let dir = dir();
    let key_file = keygen(dir.path(), "secret.key");
    let key = key_bytes(&key_file);
    let keys = lines((0..500).map(|i| format!("https://example.com/{i}")));
    let k = path_str(&key_file);
    for variant in KEYABLE {
        let path = create_keyed(dir.path(), variant, variant, &key_file);
        let p = path_str(&path);
        let out = bloom(&["add", "--key-file", k, p], &keys);
        assert_eq!(code(&out), 0, "{variant}: {}", stderr(&out));
        let out = bloom(&["check", "--key-file", k, p], &keys);
        assert_eq!(out.stdout, keys, "{variant}: every key is found");
        let out = bloom(&["check", "--key-file", k, p], b"surely-absent\n");
        assert_eq!(code(&out), 1, "{variant}");
        let bytes = std::fs::read(&path).unwrap();
        assert!(
            !bytes.windows(16).any(|w| w == key),
            "{variant}: the key is not in the file"
        );
        let with_key = bloom(&["info", "--key-file", k, p, "--json"], b"");
        assert_eq!(code(&with_key), 0, "{}", stderr(&with_key));
        let info: Value = serde_json::from_slice(&with_key.stdout).unwrap();
        assert_eq!(info["keyed"], true, "{info}");
        assert!(info.get("seed").is_none(), "{info}");
        let fingerprint = info["key_fingerprint"].as_str().unwrap_or_default();
        assert_eq!(fingerprint.len(), 16, "{info}");
        let estimate = info["estimated_keys"].as_f64().unwrap();
        assert!((estimate - 500.0).abs() < 50.0, "{variant}: {estimate}");
        // Without the key, the header and bits still give every field, the same ones.
        assert_eq!(info_json(&path), info, "{variant}");
        let text = bloom(&["info", p], b"");
        let text = String::from_utf8(text.stdout).unwrap();
        assert!(
            text.contains("keyed: true\n")
                && text.contains(&format!("key_fingerprint: {fingerprint}\n")),
            "{text}"
        );
    }
    // A seeded file says so.
    let seeded = create(dir.path(), "seeded", "classic", 100, 0.01);
    let info = info_json(&seeded);
    assert_eq!(info["keyed"], false);
    assert!(info["seed"].is_u64() && info.get("key_fingerprint").is_none());
    let split = create(dir.path(), "split", "split-block", 100, 0.01);
    assert_eq!(info_json(&split)["keyed"], false);
}

/// A raw 16-byte key file is the same key as its 32 hex digits, with or without a newline.
#[test]
fn a_key_file_holds_hex_digits_or_sixteen_raw_bytes() {
    let dir = dir();
    let hex_file = keygen(dir.path(), "hex.key");
    let key = key_bytes(&hex_file);
    let raw_file = dir.path().join("raw.key");
    std::fs::write(&raw_file, key).unwrap();
    let bare_file = dir.path().join("bare.key");
    let text = std::fs::read_to_string(&hex_file).unwrap();
    std::fs::write(&bare_file, text.trim_end().to_uppercase()).unwrap();
    let made: Vec<Vec<u8>> = [&hex_file, &raw_file, &bare_file]
        .iter()
        .enumerate()
        .map(|(i, key_file)| {
            let path = create_keyed(dir.path(), &format!("f{i}"), "blocked", key_file);
            let out = bloom(
                &["add", "--key-file", path_str(key_file), path_str(&path)],
                b"k\n",
            );
            assert_eq!(code(&out), 0, "{}", stderr(&out));
            std::fs::read(&path).unwrap()
        })
        .collect();
    assert_eq!(made[0], made[1]);
    assert_eq!(made[0], made[2]);
    // Each form of the key opens the others' files.
    let f0 = dir.path().join("f0");
    let out = bloom(
        &["check", "--key-file", path_str(&raw_file), path_str(&f0)],
        b"k\n",
    );
    assert_eq!(out.stdout, b"k\n", "{}", stderr(&out));
}

#[test]
fn bad_key_files_are_one_line_errors_naming_them() {
    let dir = dir();
    let good = keygen(dir.path(), "good.key");
    let filter = create_keyed(dir.path(), "f", "classic", &good);
    let before = std::fs::read(&filter).unwrap();
    let hex = std::fs::read_to_string(&good).unwrap();
    let digits = hex.trim_end();
    let cases: [(&str, Vec<u8>, &str); 6] = [
        ("empty.key", Vec::new(), "found 0 bytes"),
        (
            "short.key",
            digits.as_bytes()[..31].to_vec(),
            "found 31 bytes",
        ),
        (
            "long.key",
            format!("{digits}00\n").into_bytes(),
            "found 35 bytes",
        ),
        ("raw17.key", vec![7; 17], "found 17 bytes"),
        (
            "not-hex.key",
            format!("{}zz\n", &digits[..30]).into_bytes(),
            "other characters",
        ),
        (
            "two-lines.key",
            format!("{digits}\n\n").into_bytes(),
            "found 34 bytes",
        ),
    ];
    for (name, contents, reason) in cases {
        let key_file = dir.path().join(name);
        std::fs::write(&key_file, &contents).unwrap();
        let k = path_str(&key_file);
        let output = dir.path().join(format!("{name}.bloom"));
        let o = path_str(&output);
        let f = path_str(&filter);
        for args in [
            &create_args("blocked", "10", "0.01", o, &["--key-file", k])[..],
            &["add", "--key-file", k, f],
            &["check", "--key-file", k, f],
            &["info", "--key-file", k, f],
            &["merge", "--key-file", k, f, f, "-o", o],
        ] {
            let out = bloom(args, b"x\n");
            assert_error(&out, &format!("{k}: bad key file: "));
            assert!(stderr(&out).contains(reason), "{name}: {}", stderr(&out));
        }
        assert!(!output.exists(), "{name}: nothing written");
    }
    let missing = dir.path().join("missing.key");
    assert_error(
        &bloom(
            &["add", "--key-file", path_str(&missing), path_str(&filter)],
            b"x\n",
        ),
        &format!("{}: ", path_str(&missing)),
    );
    assert_eq!(
        std::fs::read(&filter).unwrap(),
        before,
        "no failed add changed it"
    );
}

#[test]
fn a_missing_wrong_or_needless_key_is_an_error_naming_the_file() {
    let dir = dir();
    let key_file = keygen(dir.path(), "right.key");
    let other_key = keygen(dir.path(), "other.key");
    let keyed = create_keyed(dir.path(), "keyed", "blocked", &key_file);
    let k = path_str(&key_file);
    assert_eq!(
        code(&bloom(&["add", "--key-file", k, path_str(&keyed)], b"in\n")),
        0
    );
    let before = std::fs::read(&keyed).unwrap();
    let seeded = create(dir.path(), "seeded", "blocked", 1000, 0.001);
    let out = dir.path().join("out");
    let (f, s, o, w) = (
        path_str(&keyed),
        path_str(&seeded),
        path_str(&out),
        path_str(&other_key),
    );
    // No key: every command but info needs it.
    for args in [&["add", f][..], &["check", f], &["merge", f, f, "-o", o]] {
        let run = bloom(args, b"in\n");
        assert_error(&run, &format!("{f}: keyed filter"));
        assert!(stderr(&run).contains("--key-file"), "{}", stderr(&run));
    }
    // A wrong key: the filter and the key file named.
    for args in [
        &["add", "--key-file", w, f][..],
        &["check", "--key-file", w, f],
        &["info", "--key-file", w, f],
        &["merge", "--key-file", w, f, f, "-o", o],
    ] {
        let run = bloom(args, b"in\n");
        assert_error(&run, &format!("{f}: wrong key"));
        assert!(stderr(&run).contains(w), "{}", stderr(&run));
    }
    // A key for a seeded file, or for a split block file.
    let split = create(dir.path(), "split", "split-block", 100, 0.01);
    for file in [s, path_str(&split)] {
        for args in [
            &["add", "--key-file", k, file][..],
            &["info", "--key-file", k, file],
        ] {
            assert_error(
                &bloom(args, b"in\n"),
                &format!("{file}: not a keyed filter"),
            );
        }
    }
    // Merging a keyed file with a seeded one: the seeded one refuses the key.
    assert_error(
        &bloom(&["merge", "--key-file", k, f, s, "-o", o], b""),
        &format!("{s}: not a keyed filter"),
    );
    assert!(!out.exists());
    assert_eq!(
        std::fs::read(&keyed).unwrap(),
        before,
        "failed commands changed nothing"
    );
    // The split block filter cannot be keyed: Parquet fixes its hash.
    let run = bloom(
        &create_args("split-block", "10", "0.01", o, &["--key-file", k]),
        b"",
    );
    assert_error(&run, "--key-file");
    assert!(stderr(&run).contains("Parquet"), "{}", stderr(&run));
    assert!(!out.exists());
}

#[test]
fn keyed_filters_merge_only_under_one_key() {
    let dir = dir();
    let key_file = keygen(dir.path(), "k.key");
    let other_key = keygen(dir.path(), "other.key");
    let k = path_str(&key_file);
    let out = dir.path().join("out");
    let merge = |a: &Path, b: &Path| {
        let args = ["merge", "--key-file", k, path_str(a), path_str(b)];
        bloom(&[&args[..], &["-o", path_str(&out)]].concat(), b"")
    };
    for variant in KEYABLE {
        let a = create_keyed(dir.path(), &format!("{variant}-a"), variant, &key_file);
        let b = create_keyed(dir.path(), &format!("{variant}-b"), variant, &key_file);
        bloom(&["add", "--key-file", k, path_str(&a)], b"left\n");
        bloom(&["add", "--key-file", k, path_str(&b)], b"right\n");
        let run = merge(&a, &b);
        assert_eq!(code(&run), 0, "{variant}: {}", stderr(&run));
        let found = bloom(
            &["check", "--key-file", k, path_str(&out)],
            b"left\nright\nneither\n",
        );
        assert_eq!(found.stdout, b"left\nright\n", "{variant}");
        assert_eq!(info_json(&out)["keyed"], true);
    }
    // Files keyed with two keys cannot be loaded with one: the second names the key file.
    let a = create_keyed(dir.path(), "a", "classic", &key_file);
    let b = create_keyed(dir.path(), "b", "classic", &other_key);
    assert_error(&merge(&a, &b), &format!("{}: wrong key", path_str(&b)));
}

/// The names in `dir` that are not `keep`, after checking that each is a temporary file of
/// `atomic.rs` (`.bloom-*.tmp`: hidden, and named so that nobody takes it for a filter),
/// which a killed process cannot remove.
#[cfg(unix)]
fn leftovers(dir: &Path, keep: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| !keep.contains(&name.as_str()))
        .collect();
    names.sort();
    for name in &names {
        assert!(
            name.starts_with(".bloom-") && name.ends_with(".tmp"),
            "{name} left in {}",
            dir.display()
        );
    }
    names
}

/// `bloom add` killed (SIGKILL) while it reads its keys: it has consumed megabytes of a
/// pipe that never closes, so it is certainly mid-run; the filter file keeps its bytes and
/// nothing else is left in its directory.
#[cfg(unix)]
#[test]
fn an_add_killed_while_reading_leaves_the_file_as_it_was() {
    use std::os::unix::process::ExitStatusExt;

    let dir = dir();
    let path = create(dir.path(), "f", "blocked", 1_000_000, 0.01);
    assert_eq!(code(&bloom(&["add", path_str(&path)], b"before\n")), 0);
    let before = std::fs::read(&path).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_bloom"))
        .args(["add", path_str(&path)])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the bloom binary runs");
    let mut input = child.stdin.take().expect("stdin is piped");
    // 16 MiB of keys: `write_all` returns only once `bloom` has read all but a pipe
    // buffer's worth (64 KiB on Linux), so it has read and inserted keys when it dies.
    let chunk = lines((0..100_000).map(|i| format!("https://example.com/interrupted/{i}")));
    let mut written = 0;
    while written < 16 << 20 {
        input.write_all(&chunk).expect("bloom is still reading");
        written += chunk.len();
    }
    assert!(child.try_wait().unwrap().is_none(), "still running");
    child.kill().expect("SIGKILL delivered");
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(9), "{status:?}");
    drop(input);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the file is as it was"
    );
    // It never reached the write: not even a temporary file.
    assert_eq!(leftovers(dir.path(), &["f"]), Vec::<String>::new());
    let found = bloom(&["check", path_str(&path)], b"before\n");
    assert_eq!(found.stdout, b"before\n");
}

/// `bloom add` killed at moments spread over its whole run, the write of the new file
/// included: each time, the file is either the old bytes or the whole new filter (never a
/// half-written one), and anything else left is an obvious temporary file.
#[cfg(unix)]
#[test]
fn an_add_killed_at_any_moment_leaves_the_old_file_or_the_new_one() {
    use std::time::{Duration, Instant};

    let dir = dir();
    // About 6 MB of filter, so that reading, checksumming and writing it take a while.
    let path = create(dir.path(), "f", "classic", 5_000_000, 0.01);
    let old = std::fs::read(&path).unwrap();
    let run = |kill_after: Option<Duration>| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_bloom"))
            .args(["add", path_str(&path)])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the bloom binary runs");
        // One key, and the end of the input: the rest of the run is the load and the save.
        let mut input = child.stdin.take().unwrap();
        input.write_all(b"new-key\n").unwrap();
        drop(input);
        if let Some(delay) = kill_after {
            std::thread::sleep(delay);
            // It may have finished already: then there is nothing to kill.
            let _ = child.kill();
        }
        child.wait().unwrap()
    };
    let start = Instant::now();
    assert!(run(None).success());
    let whole_run = start.elapsed();
    let new = std::fs::read(&path).unwrap();
    assert_ne!(new, old);
    // Kills spread over the run's length as first timed (a loaded machine may stretch later
    // runs, so where each kill lands is not asserted, only what it leaves).
    for step in 0..12u32 {
        std::fs::write(&path, &old).unwrap();
        run(Some(whole_run * step / 10));
        let now = std::fs::read(&path).unwrap();
        assert!(
            now == old || now == new,
            "kill at {step}/10 of the run left {} bytes, neither file",
            now.len()
        );
        for name in leftovers(dir.path(), &["f"]) {
            std::fs::remove_file(dir.path().join(name)).unwrap();
        }
    }
    // And a run left alone still ends with the new filter.
    std::fs::write(&path, &old).unwrap();
    assert!(run(None).success());
    assert!(std::fs::read(&path).unwrap() == new);
}
