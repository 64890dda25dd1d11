//! Two-way live test against the real JVM libraries, where they are installed: what the JVM
//! writes, Rust reads and answers identically; what Rust writes, the JVM reads and answers
//! identically (every inserted key found, the same answers for the absent ones).
//!
//! Needs `java` and `javac`, and for each half its jar: Guava's from Debian's libguava-java
//! (`/usr/share/java/guava.jar`, or `GUAVA_JAR`), Spark's `spark-sketch` jar from the
//! `pyspark` package (`pip install pyspark`, 4.1 or later; or `SPARK_SKETCH_JAR`). A half whose
//! tools are missing is skipped with a message on stderr; with `BLOOM_JVM_LIVE=require`
//! (`.ci/run` sets it for the halves it provides: `guava`, `spark` or `all`) a missing tool
//! fails the test instead. When the tools are present the half always runs.

use std::path::{Path, PathBuf};
use std::process::Command;

use bloom_jvm::{GuavaBloomFilter, SparkBloomFilter};
use bloom_tests::jvm::{Digest, Vector, answers, golden_dir};

/// Whether `BLOOM_JVM_LIVE` requires this half (`spark` or `guava`).
fn required(half: &str) -> bool {
    std::env::var("BLOOM_JVM_LIVE").is_ok_and(|v| v == "all" || v == "require" || v == half)
}

/// Skips (or, when required, fails) with `why`.
fn skip(half: &str, why: &str) {
    assert!(!required(half), "{half} live test required but {why}");
    eprintln!("jvm_live: {half} half skipped: {why}");
}

fn has_java() -> bool {
    ["java", "javac"].iter().all(|tool| {
        Command::new(tool)
            .arg("-version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

fn spark_jar() -> Option<PathBuf> {
    if let Ok(jar) = std::env::var("SPARK_SKETCH_JAR") {
        let jar = PathBuf::from(jar);
        return jar.exists().then_some(jar);
    }
    let out = Command::new("python3")
        .args([
            "-c",
            "import os, pyspark; print(os.path.dirname(pyspark.__file__))",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("jars");
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("spark-sketch_") && n.ends_with(".jar"))
        })
}

fn guava_jar() -> Option<PathBuf> {
    let jar = std::env::var("GUAVA_JAR").map_or_else(
        |_| PathBuf::from("/usr/share/java/guava.jar"),
        PathBuf::from,
    );
    jar.exists().then_some(jar)
}

/// A fresh folder under the target's temporary directory.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bloom-jvm-live-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// Compiles `Keys.java` and `program.java` against `jar` into `dir`, and returns the
/// classpath to run it with.
fn compile(jar: &Path, program: &str, dir: &Path) -> String {
    let src = golden_dir();
    let out = Command::new("javac")
        .arg("-nowarn")
        .arg("-cp")
        .arg(jar)
        .arg("-d")
        .arg(dir)
        .arg(src.join("Keys.java"))
        .arg(src.join(format!("{program}.java")))
        .output()
        .expect("javac runs");
    assert!(
        out.status.success(),
        "javac {program} against {} failed (Spark needs pyspark 4.1 or later, for V2):\n{}",
        jar.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    format!("{}:{}", jar.display(), dir.display())
}

fn java(classpath: &str, args: &[&str]) -> String {
    let out = Command::new("java")
        .arg("-cp")
        .arg(classpath)
        .args(args)
        .output()
        .expect("java runs");
    assert!(
        out.status.success(),
        "java {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Runs one half: the JVM generates its vectors, Rust checks them; Rust writes the same
/// filters, the JVM checks them. `rust_bytes` builds a vector's filter in Rust and returns
/// its bytes and its answers; `read_answers` reads the JVM's bytes in Rust and answers.
fn run_half(
    half: &str,
    jar: &Path,
    program: &str,
    rust_bytes: impl Fn(&Vector) -> (Vec<u8>, Digest),
    read_answers: impl Fn(&Vector, &[u8]) -> Digest,
) {
    let dir = scratch(half);
    let classpath = compile(jar, program, &dir.join("classes"));
    // The JVM writes; Rust reads.
    let manifest = java(
        &classpath,
        &[program, "generate", dir.to_str().expect("UTF-8 path")],
    );
    let vectors: Vec<Vector> = manifest.lines().map(Vector::parse).collect();
    assert!(!vectors.is_empty(), "{program} generated nothing");
    for v in &vectors {
        let jvm_bytes = std::fs::read(dir.join(format!("{}.bin", v.name))).expect("JVM's bytes");
        assert_eq!(
            read_answers(v, &jvm_bytes),
            v.answers,
            "{}: Rust reading the JVM's bytes",
            v.name
        );
        // Rust writes; the JVM reads.
        let (ours, our_answers) = rust_bytes(v);
        assert_eq!(
            ours, jvm_bytes,
            "{}: Rust's bytes differ from the JVM's",
            v.name
        );
        let path = dir.join(format!("rust-{}.bin", v.name));
        std::fs::write(&path, &ours).expect("write Rust's bytes");
        let n = v.n.to_string();
        let probes = v.probes.to_string();
        let line = java(
            &classpath,
            &[
                program,
                "check",
                path.to_str().expect("UTF-8 path"),
                v.kind.word(),
                &n,
                &probes,
            ],
        );
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words.len(), 2, "{line}");
        assert_eq!(
            Digest::parse(words[0], words[1]),
            our_answers,
            "{}: the JVM reading Rust's bytes",
            v.name
        );
        assert_eq!(our_answers, v.answers, "{}", v.name);
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "jvm_live: {half}: {} vectors, both ways, against {}",
        vectors.len(),
        jar.display()
    );
}

#[test]
fn guava_both_ways() {
    if !has_java() {
        return skip("guava", "java or javac not found");
    }
    let Some(jar) = guava_jar() else {
        return skip(
            "guava",
            "no Guava jar (apt-get install libguava-java, or set GUAVA_JAR)",
        );
    };
    run_half(
        "guava",
        &jar,
        "GuavaGolden",
        |v| {
            let (f, _) = v.build_guava();
            (f.to_bytes(), answers(&f, v.kind, v.probe_range()))
        },
        |v, bytes| {
            let f = GuavaBloomFilter::from_bytes(bytes).expect("Guava's bytes");
            answers(&f, v.kind, v.probe_range())
        },
    );
}

#[test]
fn spark_both_ways() {
    if !has_java() {
        return skip("spark", "java or javac not found");
    }
    let Some(jar) = spark_jar() else {
        return skip(
            "spark",
            "no spark-sketch jar (pip install pyspark, or set SPARK_SKETCH_JAR)",
        );
    };
    run_half(
        "spark",
        &jar,
        "SparkGolden",
        |v| {
            let (f, _) = v.build_spark();
            (f.to_bytes(), answers(&f, v.kind, v.probe_range()))
        },
        |v, bytes| {
            let f = SparkBloomFilter::from_bytes(bytes).expect("Spark's bytes");
            answers(&f, v.kind, v.probe_range())
        },
    );
}
