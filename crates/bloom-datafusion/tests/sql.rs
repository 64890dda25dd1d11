//! `bloom_filter_agg` and `might_contain` in SQL, over four partitions: no false negatives,
//! the rate at its target, the bytes of the Rust API, nulls, the three ways a filter arrives,
//! and the errors.

mod common;

use std::sync::Arc;

use bloom_blocked::BlockedBloomFilter;
use bloom_classic::BloomFilter;
use bloom_datafusion::DEFAULT_EXPECTED_ITEMS;
use datafusion::arrow::array::AsArray;
use datafusion::arrow::array::{
    ArrayRef, BinaryArray, BinaryViewArray, Float64Array, Int32Array, Int64Array, LargeBinaryArray,
    LargeStringArray, StringArray, StringViewArray, UInt8Array,
};
use datafusion::common::ScalarValue;
use datafusion::error::{DataFusionError, Result};
use datafusion::physical_plan::displayable;
use datafusion::prelude::{SessionConfig, SessionContext};

use common::*;

/// Positives inserted and negatives probed by the rate tests.
const POSITIVES: u64 = 100_000;
const NEGATIVES: u64 = 1_000_000;
const FPR: f64 = 0.01;

/// Asserts that `false_positives` of [`NEGATIVES`] is within 3 sigma of a rate of at most
/// `target`.
fn assert_rate(what: &str, false_positives: u64, target: f64) {
    let n = NEGATIVES as f64;
    let bound = target + 3.0 * (target * (1.0 - target) / n).sqrt();
    let measured = false_positives as f64 / n;
    assert!(
        measured <= bound,
        "{what}: measured rate {measured} above {bound} (target {target})"
    );
}

/// Builds over `build` and probes `build` (every key must pass) and `negatives` (the rate)
/// with the filter as a scalar subquery, with and without `expected_items`.
async fn check_rate(build: ArrayRef, negatives: ArrayRef) -> Result<()> {
    let ctx = context();
    register_column(&ctx, "build", build)?;
    register_column(&ctx, "negatives", negatives)?;
    for agg in [
        format!("bloom_filter_agg(k, {POSITIVES}, {FPR})"),
        "bloom_filter_agg(k)".to_string(),
    ] {
        let filter = format!("(SELECT {agg} FROM build)");
        let missed = count(
            &ctx,
            &format!("SELECT count(*) FROM build WHERE NOT might_contain({filter}, k)"),
        )
        .await?;
        assert_eq!(missed, 0, "{agg}: false negatives");
        let passed = count(
            &ctx,
            &format!("SELECT count(*) FROM negatives WHERE might_contain({filter}, k)"),
        )
        .await?;
        assert_rate(&agg, passed, FPR);
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bigint_keys_have_no_false_negatives_and_the_target_rate() -> Result<()> {
    let build: Int64Array = (0..POSITIVES).map(key).collect();
    let negatives: Int64Array = (POSITIVES..POSITIVES + NEGATIVES).map(key).collect();
    check_rate(Arc::new(build), Arc::new(negatives)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn varchar_keys_have_no_false_negatives_and_the_target_rate() -> Result<()> {
    let name = |i: u64| format!("user-{}", key(i));
    let build: StringArray = (0..POSITIVES).map(|i| Some(name(i))).collect();
    let negatives: StringArray = (POSITIVES..POSITIVES + NEGATIVES)
        .map(|i| Some(name(i)))
        .collect();
    check_rate(Arc::new(build), Arc::new(negatives)).await
}

#[tokio::test]
async fn partial_and_final_aggregates_both_run() -> Result<()> {
    let ctx = context();
    let keys: Int64Array = (0..10_000).map(key).collect();
    register_column(&ctx, "t", Arc::new(keys))?;
    let df = ctx
        .sql("SELECT bloom_filter_agg(k, 10000, 0.01) FROM t")
        .await?;
    let plan = df.create_physical_plan().await?;
    let shown = displayable(plan.as_ref()).indent(true).to_string();
    assert!(
        shown.contains("mode=Partial") && shown.contains("mode=Final"),
        "{shown}"
    );
    Ok(())
}

/// The bytes SQL builds over `column` (split over four partitions) equal `rust`'s.
async fn assert_same_bytes(column: ArrayRef, args: &str, rust: &BlockedBloomFilter) -> Result<()> {
    let ctx = context();
    register_column(&ctx, "t", column)?;
    let sql = bytes(&ctx, &format!("SELECT bloom_filter_agg(k{args}) FROM t")).await?;
    assert!(
        sql == rust.to_bytes(),
        "bloom_filter_agg(k{args}) differs from Rust"
    );
    Ok(())
}

#[tokio::test]
async fn the_bytes_are_the_rust_apis() -> Result<()> {
    let n = 5_000u64;
    let longs: Vec<i64> = (0..n).map(key).collect();
    let mut rust = BlockedBloomFilter::new(n, 0.02).unwrap();
    rust.insert_all(&longs);
    assert_same_bytes(
        Arc::new(Int64Array::from(longs.clone())),
        ", 5000, 0.02",
        &rust,
    )
    .await?;

    // Narrow integers are the same keys as their 64-bit values: Int32 and UInt8 columns.
    let ints: Vec<i32> = (0..n as i32).map(|i| i * 3 - 7_000).collect();
    let mut rust = BlockedBloomFilter::new(n, 0.01).unwrap();
    rust.insert_all(ints.iter().map(|&i| i64::from(i)));
    assert_same_bytes(Arc::new(Int32Array::from(ints)), ", 5000", &rust).await?;
    let bytes: Vec<u8> = (0..=255).collect();
    let mut rust = BlockedBloomFilter::new(1_000, 0.01).unwrap();
    rust.insert_all(bytes.iter().map(|&b| u64::from(b)));
    assert_same_bytes(Arc::new(UInt8Array::from(bytes)), ", 1000", &rust).await?;

    // Strings as `str`, in each of Arrow's three string types; binary values as `[u8]`.
    let names: Vec<String> = (0..n).map(|i| format!("name-{i}")).collect();
    let mut rust = BlockedBloomFilter::new(n, 0.001).unwrap();
    rust.insert_all(&names);
    let args = ", 5000, 0.001";
    let strs: Vec<&str> = names.iter().map(String::as_str).collect();
    assert_same_bytes(Arc::new(StringArray::from(strs.clone())), args, &rust).await?;
    assert_same_bytes(Arc::new(LargeStringArray::from(strs.clone())), args, &rust).await?;
    assert_same_bytes(Arc::new(StringViewArray::from(strs)), args, &rust).await?;
    let blobs: Vec<&[u8]> = names.iter().map(|s| s.as_bytes()).collect();
    let mut rust = BlockedBloomFilter::new(n, 0.001).unwrap();
    rust.insert_all(&blobs);
    assert_same_bytes(Arc::new(BinaryArray::from(blobs)), args, &rust).await?;
    Ok(())
}

/// The filters of a `GROUP BY` query, in the order of its rows.
async fn grouped_filters(ctx: &SessionContext, sql: &str) -> Result<Vec<Vec<u8>>> {
    let mut filters = Vec::new();
    for batch in ctx.sql(sql).await?.collect().await? {
        let column = batch.column(batch.num_columns() - 1).as_binary::<i32>();
        filters.extend(column.iter().map(|f| f.expect("a filter").to_vec()));
    }
    Ok(filters)
}

/// Under `GROUP BY` (over four partitions, so partial and final aggregates both run), each
/// group's filter is the bytes the same aggregate builds over that group's rows alone, for
/// both aggregates, sized and folded, with and without `FILTER (WHERE ...)`.
#[tokio::test]
async fn group_by_gives_each_group_its_own_filter() -> Result<()> {
    let ctx = context();
    let n = 20_000u64;
    let keys: Int64Array = (0..n).map(key).collect();
    let groups: Int64Array = (0..n as i64).map(|i| i % 7).collect();
    register_columns(
        &ctx,
        "t",
        vec![("k", Arc::new(keys)), ("g", Arc::new(groups))],
    )?;
    for aggregate in [
        "bloom_filter_agg(k, 5000, 0.01)",
        "bloom_filter_agg(k)",
        "spark_bloom_filter_agg(k, 5000, 40000)",
    ] {
        for (filter, condition) in [("", ""), (" FILTER (WHERE k % 3 = 0)", " AND k % 3 = 0")] {
            let sql = format!("SELECT g, {aggregate}{filter} FROM t GROUP BY g ORDER BY g");
            let grouped = grouped_filters(&ctx, &sql).await?;
            assert_eq!(grouped.len(), 7, "{sql}");
            for (g, filter) in grouped.iter().enumerate() {
                let alone = format!("SELECT {aggregate} FROM t WHERE g = {g}{condition}");
                assert!(*filter == bytes(&ctx, &alone).await?, "{sql}: group {g}");
            }
        }
    }
    Ok(())
}

/// When a partial aggregate's groups are nearly as many as its rows, DataFusion passes each
/// row on as its own state (`convert_to_state`): the filters are still each group's.
#[tokio::test]
async fn groups_as_many_as_rows_still_give_each_groups_filter() -> Result<()> {
    let config = SessionConfig::new()
        .with_target_partitions(PARTITIONS)
        .set_usize(
            "datafusion.execution.skip_partial_aggregation_probe_rows_threshold",
            1,
        )
        .set(
            "datafusion.execution.skip_partial_aggregation_probe_ratio_threshold",
            &ScalarValue::Float64(Some(0.1)),
        );
    let ctx = SessionContext::new_with_config(config);
    bloom_datafusion::register(&ctx);
    let keys: Int64Array = (0..2_000u64).map(key).collect();
    register_column(&ctx, "t", Arc::new(keys.clone()))?;
    let sql = "SELECT k, bloom_filter_agg(k, 10, 0.01) FROM t GROUP BY k ORDER BY k";
    let grouped = grouped_filters(&ctx, sql).await?;
    let mut sorted: Vec<i64> = keys.values().to_vec();
    sorted.sort_unstable();
    assert_eq!(grouped.len(), sorted.len());
    for (k, filter) in sorted.iter().zip(&grouped) {
        let mut rust = BlockedBloomFilter::new(10, 0.01).unwrap();
        rust.insert(k);
        assert!(*filter == rust.to_bytes(), "key {k}");
    }
    Ok(())
}

#[tokio::test]
async fn without_a_size_it_folds_to_fit() -> Result<()> {
    let longs: Vec<i64> = (0..20_000).map(key).collect();
    // The default size in a power of two of blocks (which can fold), filled, then folded.
    let sized = BlockedBloomFilter::new(DEFAULT_EXPECTED_ITEMS, 0.01).unwrap();
    let bits = sized.num_bits().next_power_of_two();
    let mut rust = BlockedBloomFilter::with_params(bits, sized.num_hashes()).unwrap();
    rust.insert_all(&longs);
    let folded = rust.fold_to_fit(rust.estimated_len(), 0.01).unwrap();
    assert!(folded.num_bits() < rust.num_bits());
    assert_same_bytes(Arc::new(Int64Array::from(longs)), "", &folded).await
}

#[tokio::test]
async fn nulls_are_skipped_and_answer_null() -> Result<()> {
    let ctx = context();
    let keys = Int64Array::from(vec![Some(1), None, Some(3), None]);
    let order = Int64Array::from(vec![0, 1, 2, 3]);
    register_columns(
        &ctx,
        "t",
        vec![("k", Arc::new(keys) as ArrayRef), ("i", Arc::new(order))],
    )?;
    let mut rust = BlockedBloomFilter::new(100, 0.01).unwrap();
    rust.insert_all([1i64, 3]);
    assert_eq!(
        bytes(&ctx, "SELECT bloom_filter_agg(k, 100) FROM t").await?,
        rust.to_bytes()
    );

    let filter = hex_literal(&rust.to_bytes());
    let sql = format!("SELECT might_contain({filter}, k) FROM t ORDER BY i");
    assert_eq!(
        booleans(&ctx, &sql).await?,
        [Some(true), None, Some(true), None]
    );
    let answers = booleans(&ctx, "SELECT might_contain(NULL, k) FROM t ORDER BY i").await?;
    assert_eq!(answers, [None, None, None, None]);
    // No rows: the empty filter.
    let empty = bytes(&ctx, "SELECT bloom_filter_agg(k, 100) FROM t WHERE k > 10").await?;
    assert_eq!(
        empty,
        BlockedBloomFilter::new(100, 0.01).unwrap().to_bytes()
    );
    Ok(())
}

#[tokio::test]
async fn a_filter_arrives_as_a_literal_a_subquery_or_a_column() -> Result<()> {
    let ctx = context();
    let probes: Vec<i64> = (0..2_000).map(key).collect();
    let order: Vec<i64> = (0..2_000).collect();
    register_columns(
        &ctx,
        "probe",
        vec![
            ("k", Arc::new(Int64Array::from(probes.clone())) as ArrayRef),
            ("i", Arc::new(Int64Array::from(order.clone()))),
        ],
    )?;
    register_column(
        &ctx,
        "build",
        Arc::new(Int64Array::from(probes[..500].to_vec())),
    )?;
    let answers = |f: &dyn Fn(&i64) -> bool| -> Vec<Option<bool>> {
        probes.iter().map(|k| Some(f(k))).collect()
    };

    // A classic filter built in Rust, as a literal.
    let mut classic = BloomFilter::new(500, 0.05).unwrap();
    classic.insert_all(&probes[..500]);
    let sql = format!(
        "SELECT might_contain({}, k) FROM probe ORDER BY i",
        hex_literal(&classic.to_bytes())
    );
    assert_eq!(
        booleans(&ctx, &sql).await?,
        answers(&|k| classic.contains(k))
    );

    // A blocked filter built in SQL, as a scalar subquery (a join: a column repeating it).
    let mut blocked = BlockedBloomFilter::new(500, 0.05).unwrap();
    blocked.insert_all(&probes[..500]);
    let sql = "SELECT might_contain((SELECT bloom_filter_agg(k, 500, 0.05) FROM build), k) \
               FROM probe ORDER BY i";
    assert_eq!(
        booleans(&ctx, sql).await?,
        answers(&|k| blocked.contains(k))
    );

    // A column of filters: runs of the classic filter, the blocked one, and nulls.
    let filter_of = |i: usize| match (i / 300) % 3 {
        0 => Some(classic.to_bytes()),
        1 => Some(blocked.to_bytes()),
        _ => None,
    };
    let want: Vec<Option<bool>> = probes
        .iter()
        .enumerate()
        .map(|(i, k)| match (i / 300) % 3 {
            0 => Some(classic.contains(k)),
            1 => Some(blocked.contains(k)),
            _ => None,
        })
        .collect();
    let filters: Vec<Option<Vec<u8>>> = (0..probes.len()).map(filter_of).collect();
    let filters = BinaryArray::from_iter(filters.iter().map(|f| f.as_deref()));
    register_columns(
        &ctx,
        "pairs",
        vec![
            ("f", Arc::new(filters) as ArrayRef),
            ("k", Arc::new(Int64Array::from(probes.clone()))),
            ("i", Arc::new(Int64Array::from(order))),
        ],
    )?;
    let got = booleans(&ctx, "SELECT might_contain(f, k) FROM pairs ORDER BY i").await?;
    assert_eq!(got, want);
    Ok(())
}

/// A scalar key gets a scalar answer (null for a null filter or key), and a column of
/// filters answers alike whichever binary type holds it.
#[tokio::test]
async fn scalar_keys_and_every_binary_column_answer_alike() -> Result<()> {
    let ctx = context();
    let mut rust = BlockedBloomFilter::new(100, 0.01).unwrap();
    rust.insert_all([1i64, 3]);
    let filter = hex_literal(&rust.to_bytes());
    for (args, want) in [
        (format!("{filter}, 1"), Some(true)),
        (format!("{filter}, CAST(NULL AS BIGINT)"), None),
        ("NULL, 1".to_string(), None),
    ] {
        let sql = format!("SELECT might_contain({args})");
        assert_eq!(booleans(&ctx, &sql).await?, [want], "{sql}");
    }
    let bytes = rust.to_bytes();
    let rows = vec![Some(bytes.as_slice()), None, Some(bytes.as_slice())];
    let columns: [ArrayRef; 3] = [
        Arc::new(BinaryArray::from(rows.clone())),
        Arc::new(LargeBinaryArray::from(rows.clone())),
        Arc::new(BinaryViewArray::from(rows)),
    ];
    for (n, filters) in columns.into_iter().enumerate() {
        let table = format!("filters_{n}");
        register_columns(
            &ctx,
            &table,
            vec![
                ("f", filters),
                ("k", Arc::new(Int64Array::from(vec![1, 3, 5]))),
                ("i", Arc::new(Int64Array::from(vec![0, 1, 2]))),
            ],
        )?;
        let sql = format!("SELECT might_contain(f, k) FROM {table} ORDER BY i");
        let want = [Some(true), None, Some(rust.contains(&5i64))];
        assert_eq!(booleans(&ctx, &sql).await?, want, "{sql}");
    }
    Ok(())
}

/// The error `sql` fails with, planning or running.
async fn error_of(sql: &str) -> DataFusionError {
    let ctx = context();
    register_columns(
        &ctx,
        "t",
        vec![
            ("k", Arc::new(Int64Array::from(vec![1, 2, 3])) as ArrayRef),
            ("x", Arc::new(Float64Array::from(vec![1.0, 2.0, 3.0]))),
        ],
    )
    .unwrap();
    match ctx.sql(sql).await {
        Err(e) => e,
        Ok(df) => df.collect().await.expect_err(sql),
    }
}

#[tokio::test]
async fn bad_arguments_are_errors() {
    for (sql, says) in [
        ("SELECT bloom_filter_agg(k, 0) FROM t", "must be positive"),
        ("SELECT bloom_filter_agg(k, -5) FROM t", "must be positive"),
        (
            "SELECT bloom_filter_agg(k, 100, 1.5) FROM t",
            "between 0 and 1",
        ),
        (
            "SELECT bloom_filter_agg(k, 100, 0) FROM t",
            "between 0 and 1",
        ),
        ("SELECT bloom_filter_agg(k, k) FROM t", "must be a constant"),
        (
            "SELECT bloom_filter_agg(k, 1800000000) FROM t",
            "a BINARY value holds at most",
        ),
        (
            "SELECT bloom_filter_agg(x) FROM t",
            "keys must be integers, strings or binary",
        ),
        (
            "SELECT bloom_filter_agg(k, 'many') FROM t",
            "must be an integer",
        ),
        (
            "SELECT bloom_filter_agg(k, 10, 0.1, 4) FROM t",
            "takes 1 to 3 arguments",
        ),
        ("SELECT might_contain(123, k) FROM t", "must be BINARY"),
        (
            "SELECT might_contain(X'00', x) FROM t",
            "keys must be integers",
        ),
    ] {
        let e = error_of(sql).await.to_string();
        assert!(e.contains(says), "{sql}: {e}");
    }
}

#[tokio::test]
async fn corrupt_or_foreign_filters_are_execution_errors() {
    let mut f = BlockedBloomFilter::new(100, 0.01).unwrap();
    f.insert(&1i64);
    let good = f.to_bytes();
    let mut flipped = good.clone();
    let last = flipped.len() - 20;
    flipped[last] ^= 0x10;
    let spark = bloom_jvm::SparkBloomFilter::new(100, 0.01)
        .unwrap()
        .to_bytes();
    // The variant tag, byte 6 of the header: a counting filter's, and one no filter has.
    let (mut counting, mut unknown) = (good.clone(), good.clone());
    counting[6] = 2;
    unknown[6] = 0xEE;
    for (bytes, says) in [
        (counting, "not CountingBloomFilter"),
        (unknown, "unknown variant tag 238"),
        (flipped, "corrupt"),
        (good[..good.len() - 1].to_vec(), "corrupt"),
        (vec![1, 2, 3], "not of this library's format"),
        (spark, "spark_might_contain"),
    ] {
        let sql = format!("SELECT might_contain({}, k) FROM t", hex_literal(&bytes));
        let e = error_of(&sql).await;
        assert!(
            matches!(e.find_root(), DataFusionError::Execution(_)),
            "{e:?}"
        );
        assert!(e.to_string().contains(says), "{e}");
    }
}
