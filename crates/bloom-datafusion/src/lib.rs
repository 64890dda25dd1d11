//! Bloom filter SQL functions for [Apache DataFusion](https://datafusion.apache.org): build a
//! filter over a column with an aggregate, and test another column against it, vectorised.
//!
//! [`register`] adds four functions to a [`SessionContext`]:
//!
//! | function | returns | what it does |
//! |---|---|---|
//! | `bloom_filter_agg(expr [, expected_items [, fpr]])` | `BINARY` | a [`BlockedBloomFilter`] over the non-null values of `expr`, as its bytes ([`to_bytes`](BlockedBloomFilter::to_bytes)) |
//! | `might_contain(filter, expr)` | `BOOLEAN` | whether `filter` (a classic or blocked filter's bytes) may hold `expr`: `false` means certainly not |
//! | `spark_bloom_filter_agg(expr, expected_items, num_bits)` | `BINARY` | Spark's `bloom_filter_agg`: the bytes of Spark's sketch `BloomFilter` (V2) over `BIGINT` values |
//! | `spark_might_contain(filter, expr)` | `BOOLEAN` | Spark's `might_contain`, on the bytes of Spark's filter (V1 or V2) |
//!
//! The aggregates insert whole Arrow arrays with the filters' burst insert, keep the filter's
//! bytes as their state and merge states by union, so partial aggregates on many partitions
//! (or machines) combine into the filter one pass would build. The queries decode each
//! distinct filter once (a literal, a scalar subquery, or a column repeating one filter) and
//! answer a whole array with the batch query. Bad arguments (sizes that are not positive, a
//! rate outside (0, 1), types the functions take no keys of) are planning errors; a corrupt
//! or foreign filter is an execution error, never a panic.
//!
//! # Keys hash as in Rust
//!
//! A column's values hash exactly as the same values do through [`Hash`](std::hash::Hash) in
//! Rust: integers of every width in `bloom_core`'s one canonical width (`Int32` 5, `Int64` 5
//! and Rust's `5u64` are one key), `Utf8`, `LargeUtf8` and `Utf8View` as `str`, `Binary`,
//! `LargeBinary` and `BinaryView` as `[u8]`. So `bloom_filter_agg(k, n, p)` over values `v`
//! gives the bytes of `BlockedBloomFilter::new(n, p)` after `insert_all(v)`, and a filter built
//! in Rust answers `might_contain` in SQL, and back.
//!
//! # Example
//!
//! ```
//! use datafusion::prelude::SessionContext;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> datafusion::error::Result<()> {
//! let ctx = SessionContext::new();
//! bloom_datafusion::register(&ctx);
//! ctx.sql("CREATE TABLE build AS SELECT * FROM (VALUES (1), (5), (9)) AS t(k)").await?;
//! ctx.sql("CREATE TABLE probe AS SELECT * FROM (VALUES (1), (2), (9), (NULL)) AS t(k)").await?;
//! let hits = ctx
//!     .sql(
//!         "SELECT k FROM probe \
//!          WHERE might_contain((SELECT bloom_filter_agg(k, 1000, 0.01) FROM build), k) \
//!          ORDER BY k",
//!     )
//!     .await?
//!     .collect()
//!     .await?;
//! let pretty = datafusion::arrow::util::pretty::pretty_format_batches(&hits)?.to_string();
//! // 1 and 9 pass (no false negatives); 2 is absent but for a 1% chance; null never passes.
//! assert!(pretty.contains("| 1 |") && pretty.contains("| 9 |"));
//! # Ok(())
//! # }
//! ```
//!
//! `docs/datafusion.md` has the functions' details, Spark's interoperability, and measured
//! speeds against the Rust API.
//!
//! # Crate features
//!
//! None. DataFusion is taken with no default features; the application that owns the
//! `SessionContext` chooses DataFusion's (the SQL planner, `sql`, to write the functions in
//! SQL).

/// Implements `PartialEq`, `Eq`, `Hash` and `Debug` for a function type generic over the
/// filter it handles: DataFusion compares functions by these, and a function is its name
/// and signature (a cache it holds is no part of its identity).
macro_rules! identity_is_name_and_signature {
    ($function:ident, $bound:ident) => {
        impl<F: $bound> PartialEq for $function<F> {
            fn eq(&self, other: &Self) -> bool {
                self.signature == other.signature
            }
        }

        impl<F: $bound> Eq for $function<F> {}

        impl<F: $bound> std::hash::Hash for $function<F> {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                F::NAME.hash(state);
                self.signature.hash(state);
            }
        }

        impl<F: $bound> std::fmt::Debug for $function<F> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($function))
                    .field("name", &F::NAME)
                    .finish()
            }
        }
    };
}
pub(crate) use identity_is_name_and_signature;

mod accumulate;
mod args;
mod keys;
mod probe;
mod shared;
mod spark;

use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use datafusion::prelude::SessionContext;

pub use bloom_blocked::BlockedBloomFilter;
pub use shared::DEFAULT_EXPECTED_ITEMS;
pub use spark::{SPARK_MAX_NUM_BITS, SPARK_MAX_NUM_ITEMS};

/// Adds `bloom_filter_agg`, `might_contain`, `spark_bloom_filter_agg` and
/// `spark_might_contain` to `ctx` (replacing functions of those names).
///
/// # Examples
///
/// ```
/// use datafusion::execution::FunctionRegistry;
/// use datafusion::prelude::SessionContext;
///
/// let ctx = SessionContext::new();
/// bloom_datafusion::register(&ctx);
/// assert!(ctx.udaf("bloom_filter_agg").is_ok() && ctx.udf("might_contain").is_ok());
/// ```
pub fn register(ctx: &SessionContext) {
    ctx.register_udaf(bloom_filter_agg());
    ctx.register_udf(might_contain());
    ctx.register_udaf(spark_bloom_filter_agg());
    ctx.register_udf(spark_might_contain());
}

/// The aggregate `bloom_filter_agg(expr [, expected_items BIGINT [, fpr DOUBLE]]) -> BINARY`:
/// a [`BlockedBloomFilter`] over the non-null values of `expr` (integers, strings or binary
/// values), returned as its bytes.
///
/// It is `BlockedBloomFilter::new(expected_items, fpr)` (`fpr` defaults to
/// [`bloom_core::engine::DEFAULT_FPR`], 1%) filled with `insert_all`. Without
/// `expected_items` it sizes for [`DEFAULT_EXPECTED_ITEMS`] (in a power of two of blocks,
/// so that it folds) and, at the end, folds the filter to the smallest size that holds the
/// keys it counts (by fill) at `fpr` ([`fold_to_fit`](BlockedBloomFilter::fold_to_fit)).
/// No input row gives the empty filter.
/// `expected_items` and `fpr` must be constants: a count that is not positive or a rate
/// outside (0, 1) is an error.
///
/// # Examples
///
/// The bytes are those the Rust API gives for the same values:
///
/// ```
/// use bloom_datafusion::BlockedBloomFilter;
/// use datafusion::common::ScalarValue;
/// use datafusion::prelude::SessionContext;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let ctx = SessionContext::new();
/// bloom_datafusion::register(&ctx);
/// let sql = "SELECT bloom_filter_agg(k, 1000, 0.01) FROM (VALUES (1), (2), (3)) AS t(k)";
/// let batches = ctx.sql(sql).await?.collect().await?;
/// let bytes = ScalarValue::try_from_array(batches[0].column(0), 0)?;
///
/// let mut filter = BlockedBloomFilter::new(1000, 0.01)?;
/// filter.insert_all([1i64, 2, 3]);
/// assert_eq!(bytes, ScalarValue::Binary(Some(filter.to_bytes())));
///
/// let error = ctx.sql("SELECT bloom_filter_agg(k, 0) FROM (VALUES (1)) AS t(k)").await;
/// let error = match error {
///     Err(e) => e,
///     Ok(df) => df.collect().await.unwrap_err(),
/// };
/// assert!(error.to_string().contains("expected_items must be positive"));
/// # Ok(())
/// # }
/// ```
pub fn bloom_filter_agg() -> AggregateUDF {
    AggregateUDF::new_from_impl(accumulate::BuildFilter::<shared::Blocked>::new())
}

/// The function `might_contain(filter BINARY, expr) -> BOOLEAN`: whether the filter may hold
/// each value of `expr` (`false`: certainly not).
///
/// `filter` is the bytes of a fixed-size filter of the workspace's format, `BloomFilter` or
/// `BlockedBloomFilter` (their header says which); a literal, a scalar subquery or a column,
/// each distinct filter decoded once. A null filter or a null key gives null. Bytes of any
/// other kind, corrupt or keyed bytes are an execution error that says so.
///
/// # Examples
///
/// A filter built in Rust, as a literal:
///
/// ```
/// use bloom_datafusion::BlockedBloomFilter;
/// use datafusion::arrow::array::AsArray;
/// use datafusion::prelude::SessionContext;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut filter = BlockedBloomFilter::new(1000, 0.01)?;
/// filter.insert_all(["alice", "bob"]);
/// let hex: String = filter.to_bytes().iter().map(|b| format!("{b:02x}")).collect();
///
/// let ctx = SessionContext::new();
/// bloom_datafusion::register(&ctx);
/// let sql = format!(
///     "SELECT might_contain(X'{hex}', name) FROM (VALUES ('alice'), ('bob'), (NULL)) AS t(name)"
/// );
/// let batches = ctx.sql(&sql).await?.collect().await?;
/// let answers: Vec<Option<bool>> = batches[0].column(0).as_boolean().iter().collect();
/// assert_eq!(answers, [Some(true), Some(true), None]);
/// # Ok(())
/// # }
/// ```
pub fn might_contain() -> ScalarUDF {
    ScalarUDF::new_from_impl(probe::MightContain::<shared::SharedFilter>::new())
}

/// The aggregate `spark_bloom_filter_agg(expr BIGINT, expected_items BIGINT, num_bits BIGINT)
/// -> BINARY`: Apache Spark's `bloom_filter_agg`, the bytes of Spark's sketch `BloomFilter`.
///
/// As Spark 4.1 and later: format V2, seed 0, `expected_items` capped at
/// [`SPARK_MAX_NUM_ITEMS`] and `num_bits` at [`SPARK_MAX_NUM_BITS`], null when no non-null
/// value came. Spark's `might_contain` reads the bytes, and [`spark_might_contain`] reads
/// Spark's.
///
/// # Examples
///
/// ```
/// use bloom_jvm::{SparkBloomFilter, SparkVersion};
/// use datafusion::common::ScalarValue;
/// use datafusion::prelude::SessionContext;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let ctx = SessionContext::new();
/// bloom_datafusion::register(&ctx);
/// let sql = "SELECT spark_bloom_filter_agg(k, 100, 1024) FROM (VALUES (7), (8)) AS t(k)";
/// let batches = ctx.sql(sql).await?.collect().await?;
/// let bytes = ScalarValue::try_from_array(batches[0].column(0), 0)?;
///
/// let mut spark = SparkBloomFilter::with_version(SparkVersion::V2, 100, 1024, 0)?;
/// spark.insert_i64(7);
/// spark.insert_i64(8);
/// assert_eq!(bytes, ScalarValue::Binary(Some(spark.to_bytes())));
/// # Ok(())
/// # }
/// ```
pub fn spark_bloom_filter_agg() -> AggregateUDF {
    AggregateUDF::new_from_impl(accumulate::BuildFilter::<spark::Spark>::new())
}

/// The function `spark_might_contain(filter BINARY, expr BIGINT) -> BOOLEAN`: Apache Spark's
/// `might_contain`, on the bytes of Spark's sketch `BloomFilter` (V1 or V2), as Spark's
/// `bloom_filter_agg` writes them (or [`spark_bloom_filter_agg`]). Null filter or key, null
/// answer; bytes that are not Spark's filter, an execution error.
pub fn spark_might_contain() -> ScalarUDF {
    ScalarUDF::new_from_impl(probe::MightContain::<bloom_jvm::SparkBloomFilter>::new())
}
