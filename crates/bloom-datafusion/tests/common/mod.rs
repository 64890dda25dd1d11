//! What the SQL tests share: a context with the functions and four partitions, tables split
//! over them, and queries run to one value.

#![allow(dead_code, unreachable_pub)]

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{Field, Schema};
use datafusion::common::ScalarValue;
use datafusion::datasource::MemTable;
use datafusion::error::Result;
use datafusion::prelude::{SessionConfig, SessionContext};

/// Partitions of every table, and the target partitions of the context.
pub const PARTITIONS: usize = 4;

/// A context with the four functions, planning for [`PARTITIONS`] partitions.
pub fn context() -> SessionContext {
    let ctx =
        SessionContext::new_with_config(SessionConfig::new().with_target_partitions(PARTITIONS));
    bloom_datafusion::register(&ctx);
    ctx
}

/// Registers `name` as a table of one column `k` holding `column`, cut into [`PARTITIONS`]
/// partitions of consecutive rows.
pub fn register_column(ctx: &SessionContext, name: &str, column: ArrayRef) -> Result<()> {
    register_columns(ctx, name, vec![("k", column)])
}

/// Registers `name` as a table of the named columns (of one length), cut into
/// [`PARTITIONS`] partitions of consecutive rows.
pub fn register_columns(
    ctx: &SessionContext,
    name: &str,
    columns: Vec<(&str, ArrayRef)>,
) -> Result<()> {
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(n, c)| Field::new(*n, c.data_type().clone(), true))
            .collect::<Vec<_>>(),
    ));
    let len = columns[0].1.len();
    let step = len.div_ceil(PARTITIONS).max(1);
    let mut partitions = Vec::new();
    for start in (0..len).step_by(step) {
        let part = step.min(len - start);
        let arrays = columns.iter().map(|(_, c)| c.slice(start, part)).collect();
        partitions.push(vec![RecordBatch::try_new(Arc::clone(&schema), arrays)?]);
    }
    while partitions.len() < PARTITIONS {
        partitions.push(vec![]);
    }
    ctx.register_table(name, Arc::new(MemTable::try_new(schema, partitions)?))?;
    Ok(())
}

/// The single value `sql` returns.
pub async fn scalar(ctx: &SessionContext, sql: &str) -> Result<ScalarValue> {
    let batches = ctx.sql(sql).await?.collect().await?;
    let batch = batches.iter().find(|b| b.num_rows() > 0).expect("one row");
    assert_eq!(batch.num_rows(), 1, "{sql}");
    ScalarValue::try_from_array(batch.column(0), 0)
}

/// The bytes `sql` returns (one BINARY value, not null).
pub async fn bytes(ctx: &SessionContext, sql: &str) -> Result<Vec<u8>> {
    match scalar(ctx, sql).await? {
        ScalarValue::Binary(Some(b)) => Ok(b),
        other => panic!("{sql}: {other:?} is not bytes"),
    }
}

/// The first column of `sql`'s result as booleans, `None` for null.
pub async fn booleans(ctx: &SessionContext, sql: &str) -> Result<Vec<Option<bool>>> {
    let batches = ctx.sql(sql).await?.collect().await?;
    Ok(batches
        .iter()
        .flat_map(|b| b.column(0).as_boolean().iter().collect::<Vec<_>>())
        .collect())
}

/// The count `sql` returns.
pub async fn count(ctx: &SessionContext, sql: &str) -> Result<u64> {
    match scalar(ctx, sql).await? {
        ScalarValue::Int64(Some(n)) => Ok(n as u64),
        other => panic!("{sql}: {other:?} is not a count"),
    }
}

/// `bytes` as a SQL binary literal.
pub fn hex_literal(bytes: &[u8]) -> String {
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("X'{hex}'")
}

/// Key `i` of a scrambled sequence: distinct for distinct `i` (an odd multiplier is a
/// bijection of 64-bit integers), so disjoint ranges of `i` give disjoint key sets.
pub fn key(i: u64) -> i64 {
    i.wrapping_mul(0x9E37_79B9_7F4A_7C15) as i64
}
