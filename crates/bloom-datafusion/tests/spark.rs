//! `spark_bloom_filter_agg` and `spark_might_contain` against `bloom-jvm`'s
//! `SparkBloomFilter` and against the golden vectors Spark's own jar wrote
//! (`tests/golden/jvm`, made by `generate.sh` from pyspark's `spark-sketch` jar): the
//! aggregate writes Spark's bytes, and Spark's filters answer in SQL as in Spark.

mod common;

use std::sync::Arc;

use bloom_jvm::{SparkBloomFilter, SparkVersion};
use bloom_tests::jvm::{Digest, Kind, Vector, golden_dir, key_long};
use datafusion::arrow::array::{ArrayRef, Int32Array, Int64Array, UInt64Array};
use datafusion::common::ScalarValue;
use datafusion::error::Result;

use common::*;

/// The golden vectors of Spark's filter over longs, with their bytes.
fn long_vectors() -> Vec<(Vector, Vec<u8>)> {
    let dir = golden_dir().join("vectors");
    Vector::load(&dir.join("spark.txt"))
        .into_iter()
        .filter(|v| v.kind == Kind::Long)
        .map(|v| {
            let path = dir.join(format!("{}.bin", v.name));
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (v, bytes)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_aggregate_writes_the_bytes_spark_wrote() -> Result<()> {
    let vectors = long_vectors();
    let v2: Vec<_> = vectors
        .iter()
        .filter(|(v, _)| v.spark_version() == Some(SparkVersion::V2) && v.seed == 0)
        .collect();
    assert!(v2.len() >= 2, "the V2 long vectors");
    for (v, spark_bytes) in v2 {
        let ctx = context();
        let keys: Int64Array = (0..v.n).map(key_long).collect();
        register_column(&ctx, "t", Arc::new(keys))?;
        // Spark's `create(n, fpp)` is `create(n, optimalNumOfBits(n, fpp))`.
        let bits = SparkBloomFilter::optimal_num_bits(v.n, v.fpp).unwrap();
        let sql = format!("SELECT spark_bloom_filter_agg(k, {}, {bits}) FROM t", v.n);
        assert!(
            bytes(&ctx, &sql).await? == *spark_bytes,
            "{}: bytes differ from Spark's",
            v.name
        );
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filters_spark_built_answer_as_in_spark() -> Result<()> {
    for (v, spark_bytes) in long_vectors() {
        let ctx = context();
        let keys: Int64Array = v.probe_range().map(key_long).collect();
        let order: Int64Array = v.probe_range().map(|i| i as i64).collect();
        register_columns(
            &ctx,
            "t",
            vec![("k", Arc::new(keys) as ArrayRef), ("i", Arc::new(order))],
        )?;
        let sql = format!(
            "SELECT spark_might_contain({}, k) FROM t ORDER BY i",
            hex_literal(&spark_bytes)
        );
        let answers = booleans(&ctx, &sql).await?;
        let digest = Digest::of(answers.into_iter().map(|a| a.expect("not null")));
        assert!(
            digest == v.answers,
            "{}: answers differ from Spark's",
            v.name
        );
    }
    Ok(())
}

#[tokio::test]
async fn the_aggregate_is_spark_bloom_filter_over_four_partitions() -> Result<()> {
    let ctx = context();
    let keys: Int32Array = (0..3_000)
        .map(|i| if i % 10 == 0 { None } else { Some(i * 7 - 900) })
        .collect();
    register_column(&ctx, "t", Arc::new(keys.clone()))?;
    let mut rust = SparkBloomFilter::with_version(SparkVersion::V2, 3_000, 30_000, 0).unwrap();
    keys.iter().flatten().for_each(|k| {
        rust.insert_i64(i64::from(k));
    });
    let sql = "SELECT spark_bloom_filter_agg(k, 3000, 30000) FROM t";
    let built = bytes(&ctx, sql).await?;
    assert!(built == rust.to_bytes(), "differs from SparkBloomFilter");

    // And back: no false negatives, nulls answer null.
    let filter = hex_literal(&built);
    let missed = count(
        &ctx,
        &format!("SELECT count(*) FROM t WHERE NOT spark_might_contain({filter}, k)"),
    )
    .await?;
    assert_eq!(missed, 0);
    let nulls = count(
        &ctx,
        &format!("SELECT count(*) FROM t WHERE spark_might_contain({filter}, k) IS NULL"),
    )
    .await?;
    assert_eq!(nulls, 300);

    // Spark's caps: at most 4,000,000 items and 67,108,864 bits.
    let capped = bytes(
        &ctx,
        "SELECT spark_bloom_filter_agg(k, 9000000000, 100000000) FROM t",
    )
    .await?;
    let read = SparkBloomFilter::from_bytes(&capped).unwrap();
    assert_eq!(read.bit_size(), bloom_datafusion::SPARK_MAX_NUM_BITS);
    let want = SparkBloomFilter::optimal_num_hashes(
        bloom_datafusion::SPARK_MAX_NUM_ITEMS,
        bloom_datafusion::SPARK_MAX_NUM_BITS,
    );
    assert_eq!(read.num_hashes(), want);
    Ok(())
}

#[tokio::test]
async fn no_input_is_null_and_bad_input_is_an_error() -> Result<()> {
    let ctx = context();
    register_columns(
        &ctx,
        "t",
        vec![
            (
                "k",
                Arc::new(Int64Array::from(vec![Some(1), None])) as ArrayRef,
            ),
            ("u", Arc::new(UInt64Array::from(vec![1, 2]))),
        ],
    )?;
    let empty = scalar(
        &ctx,
        "SELECT spark_bloom_filter_agg(k, 10, 640) FROM t WHERE k > 5",
    )
    .await?;
    assert_eq!(empty, ScalarValue::Binary(None));
    let nulls = scalar(
        &ctx,
        "SELECT spark_bloom_filter_agg(k, 10, 640) FROM t WHERE k IS NULL",
    )
    .await?;
    assert_eq!(nulls, ScalarValue::Binary(None));

    let blocked = bloom_blocked::BlockedBloomFilter::new(10, 0.01)
        .unwrap()
        .to_bytes();
    for (sql, says) in [
        (
            "SELECT spark_bloom_filter_agg(k, 0, 640) FROM t".to_string(),
            "must be positive",
        ),
        (
            "SELECT spark_bloom_filter_agg(k, 10, -1) FROM t".to_string(),
            "must be positive",
        ),
        (
            "SELECT spark_bloom_filter_agg(k, 10) FROM t".to_string(),
            "takes 3 arguments",
        ),
        (
            "SELECT spark_bloom_filter_agg(u, 10, 640) FROM t".to_string(),
            "keys must be BIGINT",
        ),
        (
            format!(
                "SELECT spark_might_contain({}, k) FROM t",
                hex_literal(&blocked)
            ),
            "not Spark's",
        ),
    ] {
        let e = match ctx.sql(&sql).await {
            Err(e) => e,
            Ok(df) => df.collect().await.expect_err(&sql),
        };
        assert!(e.to_string().contains(says), "{sql}: {e}");
    }
    Ok(())
}

/// A filter a real Spark job built (`tests/golden/jvm/spark_job.py`: a local Spark session,
/// the keys in 8 partitions, one filter per partition merged by Spark), probed in SQL: every
/// key it was built from is found, as a literal and as a column of the filter.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_filter_from_a_spark_job_finds_every_key() -> Result<()> {
    const KEYS: i64 = 5000;
    let path = golden_dir().join("vectors/spark_job_8_partitions.bin");
    let spark_bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let filter = SparkBloomFilter::from_bytes(&spark_bytes).expect("Spark's bytes");
    assert_eq!(
        filter.version(),
        SparkVersion::V2,
        "Spark 4.1 and later write V2"
    );
    let ctx = context();
    let keys: Int64Array = (0..KEYS).map(|i| i * 7919 - 1_000_000).collect();
    register_column(&ctx, "t", Arc::new(keys))?;
    let literal = hex_literal(&spark_bytes);
    let found = count(
        &ctx,
        &format!("SELECT count(*) FROM t WHERE spark_might_contain({literal}, k)"),
    )
    .await?;
    assert_eq!(found, KEYS as u64);
    // The filter as a column: a scalar subquery, which DataFusion plans as a join.
    ctx.sql(&format!("CREATE TABLE f AS SELECT {literal} AS filter"))
        .await?
        .collect()
        .await?;
    let found = count(
        &ctx,
        "SELECT count(*) FROM t WHERE spark_might_contain((SELECT filter FROM f), k)",
    )
    .await?;
    assert_eq!(found, KEYS as u64);
    Ok(())
}
