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
use bloom_tests::jvm::{JvmFilter, Vector, answers, golden_dir};

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

/// A filter type's side of the checks: how Rust builds a vector's filter, and its own
/// methods the checks call.
trait Golden: JvmFilter + PartialEq + std::fmt::Debug + Sized {
    fn build(v: &Vector) -> (Self, u64);
    fn to_bytes(&self) -> Vec<u8>;
    fn write_to(&self, out: &mut Vec<u8>);
    fn from_bytes(bytes: &[u8]) -> Self;
    fn read_from(bytes: &[u8]) -> Self;
    fn estimated_fpr(&self) -> f64;
    fn expected_fpp(&self) -> f64;
    /// Checks of the type's own (Spark's version and seed, Guava's element count).
    fn check_more(&self, v: &Vector);
}

impl Golden for SparkBloomFilter {
    fn build(v: &Vector) -> (Self, u64) {
        v.build_spark()
    }
    fn to_bytes(&self) -> Vec<u8> {
        SparkBloomFilter::to_bytes(self)
    }
    fn write_to(&self, out: &mut Vec<u8>) {
        SparkBloomFilter::write_to(self, out).expect("write_to");
    }
    fn from_bytes(bytes: &[u8]) -> Self {
        SparkBloomFilter::from_bytes(bytes).expect("the JVM's bytes")
    }
    fn read_from(bytes: &[u8]) -> Self {
        SparkBloomFilter::read_from(bytes).expect("the JVM's bytes, streamed")
    }
    fn estimated_fpr(&self) -> f64 {
        SparkBloomFilter::estimated_fpr(self)
    }
    fn expected_fpp(&self) -> f64 {
        SparkBloomFilter::expected_fpp(self)
    }
    fn check_more(&self, v: &Vector) {
        assert_eq!(Some(self.version()), v.spark_version(), "{}", v.name);
        assert_eq!(self.seed(), v.seed, "{}", v.name);
    }
}

impl Golden for GuavaBloomFilter {
    fn build(v: &Vector) -> (Self, u64) {
        v.build_guava()
    }
    fn to_bytes(&self) -> Vec<u8> {
        GuavaBloomFilter::to_bytes(self)
    }
    fn write_to(&self, out: &mut Vec<u8>) {
        GuavaBloomFilter::write_to(self, out).expect("write_to");
    }
    fn from_bytes(bytes: &[u8]) -> Self {
        GuavaBloomFilter::from_bytes(bytes).expect("the JVM's bytes")
    }
    fn read_from(bytes: &[u8]) -> Self {
        GuavaBloomFilter::read_from(bytes).expect("the JVM's bytes, streamed")
    }
    fn estimated_fpr(&self) -> f64 {
        GuavaBloomFilter::estimated_fpr(self)
    }
    fn expected_fpp(&self) -> f64 {
        GuavaBloomFilter::expected_fpp(self)
    }
    fn check_more(&self, v: &Vector) {
        assert_eq!(
            Some(self.approximate_element_count()),
            v.approximate_element_count,
            "{}: approximateElementCount",
            v.name
        );
    }
}

/// Every vector of `manifest`, both ways.
fn check_vectors<F: Golden>(manifest: &str, count: usize) {
    let vectors = Vector::load(&golden_dir().join("vectors").join(manifest));
    assert_eq!(vectors.len(), count, "{manifest}");
    for v in &vectors {
        let jvm_bytes = bytes_of(v);
        let (built, changed) = F::build(v);
        assert_eq!(
            built.to_bytes(),
            jvm_bytes,
            "{}: Rust's bytes differ",
            v.name
        );
        let mut streamed = Vec::new();
        built.write_to(&mut streamed);
        assert_eq!(streamed, jvm_bytes, "{}: write_to differs", v.name);
        assert_eq!(changed, v.changed, "{}: puts that changed bits", v.name);
        // The JVM's `expectedFpp` is the rate from the fill: `estimated_fpr` here, and
        // `expected_fpp` under the JVM's name.
        assert_close(
            &v.name,
            "expectedFpp",
            built.estimated_fpr(),
            v.expected_fpp,
        );
        assert_eq!(built.expected_fpp(), built.estimated_fpr(), "{}", v.name);
        built.check_more(v);

        let read = F::from_bytes(&jvm_bytes);
        assert_eq!(read, built, "{}", v.name);
        assert_eq!(
            read.to_bytes(),
            jvm_bytes,
            "{}: bytes changed on the way through",
            v.name
        );
        assert_eq!(F::read_from(&jvm_bytes), read, "{}", v.name);

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
fn spark_vectors() {
    // Four V1 and four V2 vectors.
    check_vectors::<SparkBloomFilter>("spark.txt", 8);
}

#[test]
fn guava_vectors() {
    check_vectors::<GuavaBloomFilter>("guava.txt", 4);
}
