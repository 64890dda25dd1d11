//! A runtime join filter by hand: a small build table, a large probe table (both Parquet
//! files), and the join run twice: plainly, and with the probe side first filtered by
//! `might_contain((SELECT bloom_filter_agg(k) FROM build), k)`, so the join sees only the
//! probe rows that may match. Prints both times, the speed-up and the rows skipped.
//!
//! ```sh
//! cargo run --release -p bloom-datafusion --example runtime_filter [probe_rows]
//! ```

use std::fs::File;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use datafusion::arrow::array::{ArrayRef, AsArray, Int64Array, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Int64Type, Schema};
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::error::Result;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::prelude::{ParquetReadOptions, SessionContext};

/// Rows of the build side: one key in 50 of the probe side's key range.
const BUILD_ROWS: u64 = 100_000;
/// Rows per record batch written.
const BATCH_ROWS: u64 = 65_536;

/// Key `i` of the probe side, scrambled so no range of keys is all build keys (which would
/// let a min/max filter do the Bloom filter's work).
fn key(i: u64) -> i64 {
    (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 1) as i64
}

/// Writes `rows` rows of (`k`, and a second column of `kind`) to `path`, batch by batch.
fn write_table(path: &Path, rows: u64, keys: impl Fn(u64) -> i64, payload: DataType) -> Result<()> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int64, false),
        Field::new("v", payload.clone(), false),
    ]));
    let mut writer = ArrowWriter::try_new(File::create(path)?, Arc::clone(&schema), None)?;
    for start in (0..rows).step_by(BATCH_ROWS as usize) {
        let range = start..rows.min(start + BATCH_ROWS);
        let k: ArrayRef = Arc::new(range.clone().map(&keys).collect::<Int64Array>());
        let v: ArrayRef = match payload {
            DataType::Utf8 => Arc::new(
                range
                    .map(|i| Some(format!("row {i}")))
                    .collect::<StringArray>(),
            ),
            _ => Arc::new(range.map(|i| i as i64).collect::<Int64Array>()),
        };
        writer.write(&RecordBatch::try_new(Arc::clone(&schema), vec![k, v])?)?;
    }
    writer.close()?;
    Ok(())
}

/// The best of three runs of `sql`, and its result.
async fn best_of_three(ctx: &SessionContext, sql: &str) -> Result<(Duration, Vec<RecordBatch>)> {
    let mut best = Duration::MAX;
    let mut result = Vec::new();
    for _ in 0..3 {
        let start = Instant::now();
        result = ctx.sql(sql).await?.collect().await?;
        best = best.min(start.elapsed());
    }
    Ok((best, result))
}

/// The first value of a result: a count.
fn first_count(batches: &[RecordBatch]) -> u64 {
    batches
        .iter()
        .find(|b| b.num_rows() > 0)
        .and_then(|b| {
            b.column(0)
                .as_primitive_opt::<Int64Type>()
                .map(|c| c.value(0) as u64)
        })
        .unwrap_or(0)
}

#[tokio::main]
async fn main() -> Result<()> {
    let probe_rows: u64 = match std::env::args().nth(1) {
        Some(n) => n.parse().map_err(|e| {
            datafusion::error::DataFusionError::Execution(format!("probe_rows: {e}"))
        })?,
        None => 5_000_000,
    };
    let dir = std::env::temp_dir().join(format!("bloom-runtime-filter-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let (build, probe) = (dir.join("build.parquet"), dir.join("probe.parquet"));
    // Build keys are every 50th probe key: 2% of the probe rows find a match.
    write_table(&build, BUILD_ROWS, |i| key(i * 50), DataType::Utf8)?;
    write_table(&probe, probe_rows, key, DataType::Int64)?;

    let ctx = SessionContext::new();
    bloom_datafusion::register(&ctx);
    let path = |p: &Path| p.to_string_lossy().into_owned();
    ctx.register_parquet("build", path(&build), ParquetReadOptions::default())
        .await?;
    ctx.register_parquet("probe", path(&probe), ParquetReadOptions::default())
        .await?;

    let plain =
        "SELECT count(*) AS matches, sum(p.v) AS total FROM probe p JOIN build b ON p.k = b.k";
    let filtered = "SELECT count(*) AS matches, sum(p.v) AS total \
        FROM (SELECT * FROM probe WHERE might_contain((SELECT bloom_filter_agg(k) FROM build), k)) p \
        JOIN build b ON p.k = b.k";
    let passed = "SELECT count(*) FROM probe WHERE might_contain((SELECT bloom_filter_agg(k) FROM build), k)";

    let (plain_time, plain_result) = best_of_three(&ctx, plain).await?;
    let (filtered_time, filtered_result) = best_of_three(&ctx, filtered).await?;
    let plain_result = pretty_format_batches(&plain_result)?.to_string();
    let filtered_result = pretty_format_batches(&filtered_result)?.to_string();
    assert_eq!(
        plain_result, filtered_result,
        "the filter changed the join's result"
    );
    let passed = first_count(&best_of_three(&ctx, passed).await?.1);

    println!(
        "build {BUILD_ROWS} rows, probe {probe_rows} rows (Parquet, {})",
        dir.display()
    );
    println!("{plain_result}");
    println!(
        "plain join:                {:>8.1} ms",
        plain_time.as_secs_f64() * 1e3
    );
    println!(
        "probe side Bloom-filtered: {:>8.1} ms",
        filtered_time.as_secs_f64() * 1e3
    );
    println!(
        "speed-up: {:.2}x",
        plain_time.as_secs_f64() / filtered_time.as_secs_f64()
    );
    println!(
        "probe rows skipped before the join: {} of {probe_rows} ({:.1}%); {passed} passed",
        probe_rows - passed,
        100.0 * (probe_rows - passed) as f64 / probe_rows as f64
    );
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
