//! bloom-datafusion's four SQL functions run through Apache Ballista 55 in standalone mode
//! (scheduler and executor in this test process, on loopback), registered on the client
//! context and on the scheduler's and executor's session state, against the same SQL through
//! a plain DataFusion `SessionContext`.

use std::path::Path;

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use datafusion::arrow::array::{AsArray, RecordBatch};
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::Int64Type;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::common::{Result, ScalarValue};
use datafusion::execution::{SessionState, SessionStateBuilder};
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};

/// Partitions of the plans (and files of each table): more than one, so the aggregates run
/// as partial aggregates per partition and a final one over their states.
const PARTITIONS: usize = 4;
/// `build` holds the even keys 0, 2, ..., 2 * (BUILD_KEYS - 1).
const BUILD_KEYS: i64 = 5_000;
/// `probe` holds the keys 0 .. PROBE_KEYS: the even ones below 2 * BUILD_KEYS match.
const PROBE_KEYS: i64 = 40_000;

/// Writes `build` and `probe` as directories of PARTITIONS Parquet files each (a MemTable
/// made by `CREATE TABLE` is not queryable through Ballista: its own test
/// `should_support_sql_create_table` expects a panic).
async fn write_tables(dir: &Path) -> Result<()> {
    let ctx = SessionContext::new();
    for (table, rows, expr) in [
        ("build", BUILD_KEYS, "value * 2"),
        ("probe", PROBE_KEYS, "value"),
    ] {
        std::fs::create_dir_all(dir.join(table))?;
        let per_file = rows / PARTITIONS as i64;
        for part in 0..PARTITIONS as i64 {
            let (from, to) = (part * per_file, (part + 1) * per_file - 1);
            let path = dir.join(table).join(format!("part-{part}.parquet"));
            let sql = format!(
                "COPY (SELECT CAST({expr} AS BIGINT) AS k FROM generate_series({from}, {to})) \
                 TO '{}' STORED AS PARQUET",
                path.display()
            );
            ctx.sql(&sql).await?.collect().await?;
        }
    }
    Ok(())
}

async fn register_tables(ctx: &SessionContext, dir: &Path) -> Result<()> {
    for table in ["build", "probe"] {
        let path = format!("{}/", dir.join(table).display());
        ctx.register_parquet(table, &path, ParquetReadOptions::default())
            .await?;
    }
    Ok(())
}

/// A plain DataFusion context with the functions and the tables.
async fn datafusion_context(dir: &Path) -> Result<SessionContext> {
    let ctx =
        SessionContext::new_with_config(SessionConfig::new().with_target_partitions(PARTITIONS));
    bloom_datafusion::register(&ctx);
    register_tables(&ctx, dir).await?;
    Ok(ctx)
}

/// A session state for Ballista (its configuration, `PARTITIONS` partitions) that holds the
/// four functions: what a cluster's scheduler and executor are started from.
fn state_with_functions() -> SessionState {
    let config = SessionConfig::new_with_ballista().with_target_partitions(PARTITIONS);
    let with_functions = SessionContext::new_with_state(
        SessionStateBuilder::new()
            .with_config(config)
            .with_default_features()
            .build(),
    );
    bloom_datafusion::register(&with_functions);
    with_functions.state()
}

/// A Ballista standalone context: the state handed to `standalone_with_state` already holds
/// the four functions, and Ballista 55 builds both the in-process scheduler's sessions
/// (`new_standalone_scheduler_from_state`) and the executor's function registry
/// (`new_standalone_executor_from_state`, `BallistaFunctionRegistry::from(&SessionState)`)
/// from that state. The functions are registered on the client context too.
async fn ballista_context(dir: &Path) -> Result<SessionContext> {
    let ctx = SessionContext::standalone_with_state(state_with_functions()).await?;
    bloom_datafusion::register(&ctx);
    register_tables(&ctx, dir).await?;
    Ok(ctx)
}

/// `ctx.sql(sql)` collected, or the error of planning or of running it.
async fn try_collect(ctx: &SessionContext, sql: &str) -> Result<Vec<RecordBatch>> {
    ctx.sql(sql).await?.collect().await
}

async fn run(ctx: &SessionContext, sql: &str) -> Result<RecordBatch> {
    let batches = ctx.sql(sql).await?.collect().await?;
    let schema = batches
        .first()
        .map(|b| b.schema())
        .expect("at least one batch");
    Ok(concat_batches(&schema, &batches)?)
}

/// The one value of a one-row, one-column result.
async fn scalar(ctx: &SessionContext, sql: &str) -> Result<ScalarValue> {
    let batch = run(ctx, sql).await?;
    assert_eq!((batch.num_rows(), batch.num_columns()), (1, 1), "{sql}");
    ScalarValue::try_from_array(batch.column(0), 0)
}

/// The keys of a one-column BIGINT result, sorted.
async fn keys(ctx: &SessionContext, sql: &str) -> Result<Vec<i64>> {
    let batch = run(ctx, sql).await?;
    let mut keys: Vec<i64> = batch
        .column(0)
        .as_primitive::<Int64Type>()
        .iter()
        .map(|k| k.expect("no null key"))
        .collect();
    keys.sort_unstable();
    Ok(keys)
}

fn binary_len(value: &ScalarValue) -> usize {
    match value {
        ScalarValue::Binary(Some(bytes)) => bytes.len(),
        other => panic!("not a binary value: {other:?}"),
    }
}

/// Runs a probe query (`SELECT k FROM probe WHERE ...`) on both contexts: Ballista keeps
/// every key of `matching`, and exactly the rows DataFusion keeps.
async fn check_probe(
    datafusion: &SessionContext,
    ballista: &SessionContext,
    sql: &str,
    matching: &[i64],
) -> Result<()> {
    let expected = keys(datafusion, sql).await?;
    let got = keys(ballista, sql).await?;
    let shown: String = sql.chars().take(160).collect();
    println!(
        "{shown}: {} of {PROBE_KEYS} probe rows kept ({} match)",
        got.len(),
        matching.len()
    );
    assert!(
        matching.iter().all(|k| got.binary_search(k).is_ok()),
        "{shown}"
    );
    assert_eq!(got, expected, "{shown}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_functions_run_through_ballista_standalone() -> Result<()> {
    let dir = tempfile::tempdir()?;
    write_tables(dir.path()).await?;
    let datafusion = datafusion_context(dir.path()).await?;
    let ballista = ballista_context(dir.path()).await?;

    // The distributed plan: partial aggregates per partition, a final one after a shuffle.
    let explain = run(
        &ballista,
        "EXPLAIN SELECT bloom_filter_agg(k, 10000, 0.01) FROM build",
    )
    .await?;
    println!("{}", pretty_format_batches(&[explain])?);

    let explain = run(
        &ballista,
        "EXPLAIN SELECT k FROM probe \
         WHERE might_contain((SELECT bloom_filter_agg(k) FROM build), k)",
    )
    .await?;
    println!("{}", pretty_format_batches(&[explain])?);

    let matching: Vec<i64> = (0..BUILD_KEYS).map(|k| k * 2).collect();

    // (1) bloom_filter_agg: the bytes Ballista returns are DataFusion's, sized and default.
    for sql in [
        "SELECT bloom_filter_agg(k, 1000, 0.01) FROM build",
        "SELECT bloom_filter_agg(k, 10000, 0.01) FROM build",
        "SELECT bloom_filter_agg(k) FROM build",
    ] {
        let expected = scalar(&datafusion, sql).await?;
        let got = scalar(&ballista, sql).await?;
        println!("{sql}: {} bytes", binary_len(&got));
        assert_eq!(got, expected, "{sql}");
    }

    // (2) might_contain over a scalar subquery: every matching probe row is kept, and the
    // rows kept are DataFusion's (the same filter gives the same answers).
    for sql in [
        "SELECT k FROM probe \
         WHERE might_contain((SELECT bloom_filter_agg(k, 10000, 0.01) FROM build), k)",
        "SELECT k FROM probe WHERE might_contain((SELECT bloom_filter_agg(k) FROM build), k)",
    ] {
        check_probe(&datafusion, &ballista, sql, &matching).await?;
    }

    // A literal filter (might_contain's `simplify` plans it into a one-row List<Binary>,
    // which then travels in the serialized plan).
    let ScalarValue::Binary(Some(bytes)) = scalar(
        &datafusion,
        "SELECT bloom_filter_agg(k, 10000, 0.01) FROM build",
    )
    .await?
    else {
        panic!("not a binary value");
    };
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let sql = format!("SELECT k FROM probe WHERE might_contain(X'{hex}', k)");
    println!("a literal filter of {} bytes:", bytes.len());
    check_probe(&datafusion, &ballista, &sql, &matching).await?;

    // The runtime join filter of docs/datafusion.md: the join's result is exact.
    let join = "SELECT p.k FROM (SELECT * FROM probe \
                WHERE might_contain((SELECT bloom_filter_agg(k) FROM build), k)) p \
                JOIN build b ON p.k = b.k";
    assert_eq!(keys(&ballista, join).await?, matching, "{join}");

    // Under GROUP BY (the grouped accumulator, its states shuffled between stages): each
    // group's filter is DataFusion's.
    for sql in [
        "SELECT k % 7 AS g, bloom_filter_agg(k, 1000, 0.01) AS f FROM build GROUP BY g ORDER BY g",
        "SELECT k % 7 AS g, spark_bloom_filter_agg(k, 1000, 10000) AS f FROM build \
         GROUP BY g ORDER BY g",
    ] {
        let expected = run(&datafusion, sql).await?;
        let got = run(&ballista, sql).await?;
        println!("{sql}: {} groups", got.num_rows());
        assert_eq!(got.num_rows(), 7, "{sql}");
        assert_eq!(got, expected, "{sql}");
    }

    // (3) Spark's pair.
    let sql = "SELECT spark_bloom_filter_agg(k, 10000, 100000) FROM build";
    let expected = scalar(&datafusion, sql).await?;
    let got = scalar(&ballista, sql).await?;
    println!("{sql}: {} bytes", binary_len(&got));
    assert_eq!(got, expected, "{sql}");

    let sql = "SELECT k FROM probe WHERE spark_might_contain(\
               (SELECT spark_bloom_filter_agg(k, 10000, 100000) FROM build), k)";
    check_probe(&datafusion, &ballista, sql, &matching).await?;
    Ok(())
}

/// What registering only on the client does: the standalone cluster of `standalone()` has
/// DataFusion's and Ballista's own functions, not these.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn without_the_functions_on_the_cluster_the_query_fails() -> Result<()> {
    let dir = tempfile::tempdir()?;
    write_tables(dir.path()).await?;
    let ctx = SessionContext::standalone().await?;
    bloom_datafusion::register(&ctx);
    register_tables(&ctx, dir.path()).await?;
    let error = try_collect(&ctx, "SELECT bloom_filter_agg(k, 1000, 0.01) FROM build")
        .await
        .expect_err("the cluster lacks bloom_filter_agg");
    println!("error: {error}");
    // The scheduler cannot decode the logical plan the client sent (datafusion-proto looks
    // the function up by name in the scheduler session's registry, then asks the codec).
    let error = error.to_string();
    assert!(error.contains("Could not parse plan"), "{error}");
    assert!(
        error.contains(
            "LogicalExtensionCodec is not provided for aggregate function bloom_filter_agg"
        ),
        "{error}"
    );
    Ok(())
}

/// A scheduler with the functions (so the plan is accepted and split into stages) and an
/// executor without them (`new_standalone_executor`: DataFusion's and Ballista's functions
/// only), started by hand as `SessionContextExt::standalone_with_state` starts them: the
/// functions must be in the executor's registry.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn without_the_functions_on_the_executor_the_query_fails() -> Result<()> {
    use ballista_core::serde::BallistaCodec;
    use ballista_core::serde::protobuf::scheduler_grpc_client::SchedulerGrpcClient;
    use datafusion::error::DataFusionError;

    let dir = tempfile::tempdir()?;
    write_tables(dir.path()).await?;
    let state = state_with_functions();

    let external = |e: ballista_core::error::BallistaError| DataFusionError::External(e.into());
    let address = ballista_scheduler::standalone::new_standalone_scheduler_from_state(&state)
        .await
        .map_err(external)?;
    let scheduler = loop {
        match SchedulerGrpcClient::connect(format!("http://localhost:{}", address.port())).await {
            Ok(scheduler) => break scheduler,
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(100)).await,
        }
    };
    ballista_executor::new_standalone_executor(scheduler, 2, BallistaCodec::default())
        .await
        .map_err(external)?;

    let ctx =
        SessionContext::remote_with_state(&format!("df://localhost:{}", address.port()), state)
            .await?;
    bloom_datafusion::register(&ctx);
    register_tables(&ctx, dir.path()).await?;
    let error = tokio::time::timeout(
        std::time::Duration::from_secs(120),
        try_collect(&ctx, "SELECT bloom_filter_agg(k, 1000, 0.01) FROM build"),
    )
    .await
    .expect("the job ends within 2 minutes")
    .expect_err("the executor lacks bloom_filter_agg");
    println!("error: {error}");
    // The executor cannot decode the stage's physical plan (the task context's registry is
    // the executor's `BallistaFunctionRegistry`).
    let error = error.to_string();
    assert!(
        error.contains("Task failed due to runtime execution error"),
        "{error}"
    );
    assert!(
        error.contains(
            "PhysicalExtensionCodec is not provided for aggregate function bloom_filter_agg"
        ),
        "{error}"
    );
    Ok(())
}
