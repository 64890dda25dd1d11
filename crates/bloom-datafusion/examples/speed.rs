//! The cost per key of the SQL functions against the Rust API they run on, on one core:
//!
//! - `might_contain(filter, k)` over 1,000,000 `BIGINT` rows against
//!   `BlockedBloomFilter::contains_batch` over the same values, with the same filter;
//! - `bloom_filter_agg(k, n, 0.01)` over 10,000,000 rows against `new(n, 0.01)` and
//!   `insert_all` over the same values.
//!
//! Both queries run with one target partition, so both sides use one core. Each figure is
//! the best of seven runs. `docs/datafusion.md` records the figures with the CPU.
//!
//! ```sh
//! cargo run --release -p bloom-datafusion --example speed
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use bloom_datafusion::BlockedBloomFilter;
use datafusion::arrow::array::{Int64Array, RecordBatch};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::datasource::MemTable;
use datafusion::error::Result;
use datafusion::physical_plan::collect;
use datafusion::prelude::{SessionConfig, SessionContext};

const RUNS: usize = 7;
const QUERY_ROWS: u64 = 1_000_000;
const BUILD_ROWS: u64 = 10_000_000;

/// Key `i`: distinct for distinct `i`.
fn key(i: u64) -> i64 {
    i.wrapping_mul(0x9E37_79B9_7F4A_7C15) as i64
}

/// The best time of [`RUNS`] runs of `f`.
async fn best<F, Fut>(mut f: F) -> Result<Duration>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<()>>,
{
    let mut best = Duration::MAX;
    for _ in 0..RUNS {
        let start = Instant::now();
        f().await?;
        best = best.min(start.elapsed());
    }
    Ok(best)
}

/// A one-partition context with the functions, batches of `batch_rows` rows, and a table
/// `t` of `keys` in such batches.
fn context(keys: &[i64], batch_rows: usize) -> Result<SessionContext> {
    let config = SessionConfig::new()
        .with_target_partitions(1)
        .with_batch_size(batch_rows);
    let ctx = SessionContext::new_with_config(config);
    bloom_datafusion::register(&ctx);
    let schema = Arc::new(Schema::new(vec![Field::new("k", DataType::Int64, false)]));
    let batches = keys
        .chunks(batch_rows)
        .map(|c| {
            RecordBatch::try_new(
                Arc::clone(&schema),
                vec![Arc::new(Int64Array::from(c.to_vec()))],
            )
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    ctx.register_table("t", Arc::new(MemTable::try_new(schema, vec![batches])?))?;
    Ok(ctx)
}

fn ns_per_key(time: Duration, keys: u64) -> f64 {
    time.as_secs_f64() * 1e9 / keys as f64
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    // might_contain: a filter of the first half of the keys, queried with all of them.
    let keys: Vec<i64> = (0..QUERY_ROWS).map(key).collect();
    let mut filter = BlockedBloomFilter::new(QUERY_ROWS / 2, 0.01).expect("sizes");
    filter.insert_all(&keys[..keys.len() / 2]);
    let hex: String = filter
        .to_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let sql = format!("SELECT count(*) FROM t WHERE might_contain(X'{hex}', k)");
    let mut answers = Vec::new();
    let rust_time = best(|| {
        filter.contains_batch_into(&keys, &mut answers);
        std::hint::black_box(&answers);
        async { Ok(()) }
    })
    .await?;
    // DataFusion's default batch (8,192 rows), and a larger one: any cost paid per batch
    // (a literal filter is planned so that no batch copies or compares it) shows as a
    // difference between the two.
    for batch_rows in [8_192, 65_536] {
        let ctx = context(&keys, batch_rows)?;
        // Planning a query with a literal of the filter's size is a cost per query, not per
        // key: timed apart, and the plan run as it is.
        let start = Instant::now();
        let plan = ctx.sql(&sql).await?.create_physical_plan().await?;
        let planning = start.elapsed();
        let sql_time = best(|| {
            let (plan, task) = (Arc::clone(&plan), ctx.task_ctx());
            async move { collect(plan, task).await.map(drop) }
        })
        .await?;
        let (s, r) = (
            ns_per_key(sql_time, QUERY_ROWS),
            ns_per_key(rust_time, QUERY_ROWS),
        );
        println!(
            "might_contain over {QUERY_ROWS} BIGINT rows in batches of {batch_rows} ({} KiB \
             filter): SQL {s:.2} ns/key, contains_batch {r:.2} ns/key, ratio {:.2}; planning \
             the query {:.1} ms",
            filter.memory_usage() / 1024,
            s / r,
            planning.as_secs_f64() * 1e3
        );
    }

    // bloom_filter_agg against insert_all.
    let keys: Vec<i64> = (0..BUILD_ROWS).map(key).collect();
    let ctx = context(&keys, SessionConfig::new().batch_size())?;
    let sql = format!("SELECT bloom_filter_agg(k, {BUILD_ROWS}, 0.01) FROM t");
    let plan = ctx.sql(&sql).await?.create_physical_plan().await?;
    let sql_time = best(|| {
        let (plan, task) = (Arc::clone(&plan), ctx.task_ctx());
        async move { collect(plan, task).await.map(drop) }
    })
    .await?;
    let rust_time = best(|| {
        let mut f = BlockedBloomFilter::new(BUILD_ROWS, 0.01).expect("sizes");
        f.insert_all(&keys);
        std::hint::black_box(f.to_bytes());
        async { Ok(()) }
    })
    .await?;
    let (s, r) = (
        ns_per_key(sql_time, BUILD_ROWS),
        ns_per_key(rust_time, BUILD_ROWS),
    );
    println!(
        "bloom_filter_agg over {BUILD_ROWS} BIGINT rows: SQL {s:.2} ns/key, \
         new + insert_all + to_bytes {r:.2} ns/key, ratio {:.2}",
        s / r
    );
    Ok(())
}
