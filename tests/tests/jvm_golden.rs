//! The JVM-compatible filters against vectors the real engines wrote: Spark's sketch
//! `BloomFilter` (V1 and V2, from the jar pyspark ships) and Guava's `BloomFilter` (Debian's
//! libguava-java), made by `tests/golden/jvm/generate.sh`.
//!
//! For every vector: Rust builds the same filter from the same parameters and keys and must
//! write the JVM's bytes exactly (both `to_bytes` and `write_to`); Rust reads the JVM's bytes
//! and writes them back unchanged; both filters give the JVM's answers to 1,000,000 probes
//! (half inserted keys where there are enough, the rest never inserted), single and batch;
//! and the JVM's own counters (puts that changed bits, `expectedFpp`, Guava's
//! `approximateElementCount`) agree.

use bloom_jvm::{GuavaBloomFilter, SparkBloomFilter};
use bloom_tests::jvm::{Vector, answers, golden_dir};

fn bytes_of(vector: &Vector) -> Vec<u8> {
    let path = golden_dir()
        .join("vectors")
        .join(format!("{}.bin", vector.name));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Within a few ulps: Java's `Math.pow` and Rust's `powf` may round differently.
fn assert_close(name: &str, what: &str, rust: f64, jvm: f64) {
    assert!(
        (rust - jvm).abs() <= jvm.abs() * 1e-14,
        "{name}: {what} {rust} (Rust) vs {jvm} (JVM)"
    );
}

#[test]
fn spark_vectors() {
    let vectors = Vector::load(&golden_dir().join("vectors/spark.txt"));
    assert_eq!(vectors.len(), 8, "four V1 and four V2 vectors");
    for v in &vectors {
        let jvm_bytes = bytes_of(v);
        let (built, changed) = v.build_spark();
        assert_eq!(
            built.to_bytes(),
            jvm_bytes,
            "{}: Rust's bytes differ",
            v.name
        );
        let mut streamed = Vec::new();
        built.write_to(&mut streamed).expect("write_to");
        assert_eq!(streamed, jvm_bytes, "{}: write_to differs", v.name);
        assert_eq!(changed, v.changed, "{}: puts that changed bits", v.name);
        assert_close(
            &v.name,
            "expected fpp",
            built.expected_fpp(),
            v.expected_fpp,
        );

        let read = SparkBloomFilter::from_bytes(&jvm_bytes).expect("the JVM's bytes");
        assert_eq!(read, built, "{}", v.name);
        assert_eq!(
            read.to_bytes(),
            jvm_bytes,
            "{}: bytes changed on the way through",
            v.name
        );
        assert_eq!(
            SparkBloomFilter::read_from(&jvm_bytes[..]).as_ref(),
            Ok(&read)
        );
        assert_eq!(Some(read.version()), v.spark_version(), "{}", v.name);
        assert_eq!(read.seed(), v.seed, "{}", v.name);

        assert_eq!(
            answers(&read, v.kind, v.probe_range()),
            v.answers,
            "{}: answers",
            v.name
        );
        assert_eq!(
            answers(&built, v.kind, v.probe_range()),
            v.answers,
            "{}: answers",
            v.name
        );
    }
}

#[test]
fn guava_vectors() {
    let vectors = Vector::load(&golden_dir().join("vectors/guava.txt"));
    assert_eq!(vectors.len(), 4);
    for v in &vectors {
        let jvm_bytes = bytes_of(v);
        let (built, changed) = v.build_guava();
        assert_eq!(
            built.to_bytes(),
            jvm_bytes,
            "{}: Rust's bytes differ",
            v.name
        );
        let mut streamed = Vec::new();
        built.write_to(&mut streamed).expect("write_to");
        assert_eq!(streamed, jvm_bytes, "{}: write_to differs", v.name);
        assert_eq!(changed, v.changed, "{}: puts that changed bits", v.name);
        assert_close(
            &v.name,
            "expected fpp",
            built.expected_fpp(),
            v.expected_fpp,
        );
        assert_eq!(
            Some(built.approximate_element_count()),
            v.approximate_element_count,
            "{}: approximateElementCount",
            v.name
        );

        let read = GuavaBloomFilter::from_bytes(&jvm_bytes).expect("the JVM's bytes");
        assert_eq!(read, built, "{}", v.name);
        assert_eq!(read.to_bytes(), jvm_bytes, "{}", v.name);
        assert_eq!(
            GuavaBloomFilter::read_from(&jvm_bytes[..]).as_ref(),
            Ok(&read)
        );

        assert_eq!(
            answers(&read, v.kind, v.probe_range()),
            v.answers,
            "{}: answers",
            v.name
        );
        assert_eq!(
            answers(&built, v.kind, v.probe_range()),
            v.answers,
            "{}: answers",
            v.name
        );
    }
}
