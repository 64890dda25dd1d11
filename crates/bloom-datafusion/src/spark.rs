//! `spark_bloom_filter_agg` and `spark_might_contain`: Apache Spark's `bloom_filter_agg` and
//! `might_contain` (its runtime join filter, `BloomFilterAggregate` and
//! `BloomFilterMightContain`), on the bytes of Spark's sketch `BloomFilter` through
//! [`SparkBloomFilter`].
//!
//! Spark's aggregate makes its filter with `BloomFilter.create(expectedNumItems, numBits)`,
//! which Spark 4.1 and later make in format V2 (their default; earlier Sparks, V1): so does
//! this one ([`SparkVersion::V2`]). Spark caps both sizes silently, at the defaults of
//! `spark.sql.optimizer.runtime.bloomFilter.maxNumItems` (4,000,000) and `.maxNumBits`
//! (67,108,864), and returns null when no bit is set (no non-null input); so does this one.
//! Keys are 64-bit integers (Spark's `Byte`, `Short` and `Integer` widen to `Long`).

use bloom_jvm::{SparkBloomFilter, SparkVersion};
use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::datatypes::{DataType, Int64Type};
use datafusion::common::{Result, exec_err, plan_err};
use datafusion::logical_expr::function::AccumulatorArgs;

use crate::accumulate::Building;
use crate::args::{coerce_count, positive_count};
use crate::probe::Probing;

/// Spark's cap on the expected items of its aggregate: the default of
/// `spark.sql.optimizer.runtime.bloomFilter.maxNumItems`.
pub const SPARK_MAX_NUM_ITEMS: u64 = 4_000_000;

/// Spark's cap on the bits of its aggregate's filter: the default of
/// `spark.sql.optimizer.runtime.bloomFilter.maxNumBits` (8 MiB of bits).
pub const SPARK_MAX_NUM_BITS: u64 = 67_108_864;

/// The type a Spark key of type `data_type` is coerced to: `Int64`, from any integer type
/// whose values all fit (Spark has no unsigned types; `UInt64` does not fit).
fn coerce_long(function: &str, data_type: &DataType) -> Result<DataType> {
    match data_type {
        DataType::UInt64 => {
            plan_err!("{function}: keys must be BIGINT, and UInt64 values do not all fit")
        }
        other if other.is_integer() || other.is_null() => Ok(DataType::Int64),
        DataType::Dictionary(_, value) => coerce_long(function, value),
        other => plan_err!("{function}: keys must be BIGINT (or a narrower integer), not {other}"),
    }
}

/// The keys of an array coerced by [`coerce_long`].
fn longs<'a>(function: &str, keys: &'a dyn Array) -> Result<&'a [i64]> {
    match keys.data_type() {
        DataType::Int64 => Ok(keys.as_primitive::<Int64Type>().values()),
        other => exec_err!("{function}: keys of type {other} are not BIGINT"),
    }
}

/// The filter `spark_bloom_filter_agg(expr, expected_items, num_bits)` builds.
#[derive(Debug, Clone)]
pub(crate) struct Spark(SparkBloomFilter);

impl Building for Spark {
    const NAME: &'static str = "spark_bloom_filter_agg";

    fn coerce_types(arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let name = Self::NAME;
        match arg_types {
            [key, n, bits] => Ok(vec![
                coerce_long(name, key)?,
                coerce_count(name, "expected_items", n)?,
                coerce_count(name, "num_bits", bits)?,
            ]),
            _ => plan_err!(
                "{name}(expr, expected_items, num_bits) takes 3 arguments, not {}",
                arg_types.len()
            ),
        }
    }

    fn from_args(args: &AccumulatorArgs<'_>) -> Result<Self> {
        let name = Self::NAME;
        let [_, items, bits] = args.exprs else {
            return plan_err!("{name} takes 3 arguments, not {}", args.exprs.len());
        };
        let items = positive_count(name, "expected_items", items)?.min(SPARK_MAX_NUM_ITEMS);
        let bits = positive_count(name, "num_bits", bits)?.min(SPARK_MAX_NUM_BITS);
        let filter = SparkBloomFilter::with_version(SparkVersion::V2, items, bits, 0)
            .or_else(|e| plan_err!("{name}: {e}"))?;
        Ok(Spark(filter))
    }

    fn insert(&mut self, keys: &dyn Array) -> Result<()> {
        let values = longs(Self::NAME, keys)?;
        // The batch insert: in a large filter, the words of a burst of keys' probes are
        // prefetched before any of them is set.
        match keys.nulls() {
            None => self.0.insert_all_i64(values.iter().copied()),
            Some(nulls) => self
                .0
                .insert_all_i64(nulls.valid_indices().map(|i| values[i])),
        }
        Ok(())
    }

    fn merge(&mut self, state: &[u8]) -> Result<()> {
        let other = SparkBloomFilter::from_bytes(state)
            .or_else(|e| exec_err!("{}: a partial state is not a filter: {e}", Self::NAME))?;
        self.0
            .merge(&other)
            .or_else(|e| exec_err!("{}: cannot merge a partial state: {e}", Self::NAME))
    }

    fn state(&self) -> Vec<u8> {
        self.0.to_bytes()
    }

    fn finish(&self) -> Result<Option<Vec<u8>>> {
        // Spark's `BloomFilterAggregate.eval`: no bit set, no filter.
        Ok((self.0.cardinality() > 0).then(|| self.0.to_bytes()))
    }

    fn memory_usage(&self) -> usize {
        self.0.memory_usage()
    }
}

impl Probing for SparkBloomFilter {
    const NAME: &'static str = "spark_might_contain";

    fn decode(bytes: &[u8]) -> Result<Self> {
        let name = Self::NAME;
        SparkBloomFilter::from_bytes(bytes)
            .or_else(|e| exec_err!("{name}: the filter is not Spark's (or is corrupt): {e}"))
    }

    fn coerce_key(data_type: &DataType) -> Result<DataType> {
        coerce_long(Self::NAME, data_type)
    }

    fn probe(&self, keys: &dyn Array, out: &mut Vec<bool>) -> Result<()> {
        self.might_contain_long_batch_into(longs(Self::NAME, keys)?, out);
        Ok(())
    }
}
