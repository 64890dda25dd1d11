//! `bloom_filter_agg` and `might_contain`: filters of the workspace's shared binary format
//! (`docs/format.md`), built as a [`BlockedBloomFilter`] and read whichever fixed-size filter
//! the header names.

use std::hash::Hash;

use bloom_blocked::BlockedBloomFilter;
use bloom_classic::BloomFilter;
use bloom_core::engine::DEFAULT_FPR;
use bloom_core::engine::Layout as _;
use bloom_core::format::{HEADER_LEN, MAGIC, Variant};
use datafusion::arrow::array::Array;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{Result, exec_err, plan_err};
use datafusion::logical_expr::function::AccumulatorArgs;

use crate::accumulate::Building;
use crate::args::{coerce_count, coerce_rate, positive_count, rate};
use crate::keys::{KeyFn, Slots, coerce_key, visit_keys};
use crate::probe::Probing;

/// The keys `bloom_filter_agg` sizes its filter for when not told: the filter then folds to
/// the size the keys it holds need when the aggregate ends.
pub const DEFAULT_EXPECTED_ITEMS: u64 = 1_000_000;

/// The largest filter payload `bloom_filter_agg` builds: its bytes are one `BINARY` value
/// (the result and the state), whose offsets are 32-bit, so a value stays below 2 GiB; the
/// frame around the payload takes a few hundred bytes more.
const MAX_FILTER_BYTES: u64 = i32::MAX as u64 - 4096;

/// Where the variant tag lies in the header (`docs/format.md`): after the magic and the
/// format version.
const VARIANT_OFFSET: usize = 6;

/// The filter `bloom_filter_agg(expr [, expected_items [, fpr]])` builds.
#[derive(Debug, Clone)]
pub(crate) struct Blocked {
    filter: BlockedBloomFilter,
    /// The rate to fold the filter down to at the end, when it was sized for
    /// [`DEFAULT_EXPECTED_ITEMS`] rather than for a count the query gave.
    fold_for: Option<f64>,
}

/// The filter `bloom_filter_agg` builds when not told how many keys will come: the filter
/// `new(DEFAULT_EXPECTED_ITEMS, fpr)` with its block count rounded up to a power of two, so
/// that it folds by halves to any smaller power of two (`new` sizes to the block, and an odd
/// count has no fold).
fn foldable(fpr: f64) -> Result<BlockedBloomFilter, bloom_core::Error> {
    let sized = BlockedBloomFilter::new(DEFAULT_EXPECTED_ITEMS, fpr)?;
    BlockedBloomFilter::with_params(sized.num_bits().next_power_of_two(), sized.num_hashes())
}

/// Inserts keys with the burst insert.
struct Insert<'a>(&'a mut BlockedBloomFilter);

impl KeyFn for Insert<'_> {
    type Output = ();
    fn call<T: Hash>(self, keys: &[T]) {
        self.0.insert_all(keys);
    }
}

impl Building for Blocked {
    const NAME: &'static str = "bloom_filter_agg";

    fn coerce_types(arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let name = Self::NAME;
        match arg_types {
            [key] => Ok(vec![coerce_key(name, key)?]),
            [key, n] => Ok(vec![
                coerce_key(name, key)?,
                coerce_count(name, "expected_items", n)?,
            ]),
            [key, n, p] => Ok(vec![
                coerce_key(name, key)?,
                coerce_count(name, "expected_items", n)?,
                coerce_rate(name, "fpr", p)?,
            ]),
            _ => plan_err!(
                "{name}(expr [, expected_items [, fpr]]) takes 1 to 3 arguments, not {}",
                arg_types.len()
            ),
        }
    }

    fn from_args(args: &AccumulatorArgs<'_>) -> Result<Self> {
        let name = Self::NAME;
        let items = match args.exprs.get(1) {
            Some(n) => Some(positive_count(name, "expected_items", n)?),
            None => None,
        };
        let fpr = match args.exprs.get(2) {
            Some(p) => rate(name, "fpr", p)?,
            None => DEFAULT_FPR,
        };
        let filter = match items {
            Some(items) => {
                let bytes = bloom_blocked::Blocked::for_items(items, fpr)
                    .or_else(|e| plan_err!("{name}: {e}"))?
                    .num_bits()
                    / 8;
                if bytes > MAX_FILTER_BYTES {
                    return plan_err!(
                        "{name}: a filter for {items} keys at fpr {fpr} takes {bytes} bytes; \
                         a BINARY value holds at most {MAX_FILTER_BYTES}"
                    );
                }
                BlockedBloomFilter::new(items, fpr)
            }
            None => foldable(fpr),
        };
        Ok(Blocked {
            filter: filter.or_else(|e| plan_err!("{name}: {e}"))?,
            fold_for: if items.is_none() { Some(fpr) } else { None },
        })
    }

    fn insert(&mut self, keys: &dyn Array) -> Result<()> {
        visit_keys(keys, Slots::NonNull, Insert(&mut self.filter))
    }

    fn merge(&mut self, state: &[u8]) -> Result<()> {
        let other = BlockedBloomFilter::from_bytes(state)
            .or_else(|e| exec_err!("{}: a partial state is not a filter: {e}", Self::NAME))?;
        self.filter
            .union(&other)
            .or_else(|e| exec_err!("{}: cannot merge a partial state: {e}", Self::NAME))
    }

    fn state(&self) -> Vec<u8> {
        self.filter.to_bytes()
    }

    fn finish(&self) -> Result<Option<Vec<u8>>> {
        let Some(fpr) = self.fold_for else {
            return Ok(Some(self.filter.to_bytes()));
        };
        let items = self.filter.estimated_len().max(1);
        match self.filter.fold_to_fit(items, fpr) {
            Ok(folded) => Ok(Some(folded.to_bytes())),
            // Filled past what any filter at `fpr` holds (a full block makes the estimate
            // infinite): no fold fits, and the filter stays as it is, its rate above `fpr`.
            Err(bloom_core::Error::TooLarge { .. }) => Ok(Some(self.filter.to_bytes())),
            Err(e) => exec_err!("{}: {e}", Self::NAME),
        }
    }

    fn memory_usage(&self) -> usize {
        self.filter.memory_usage()
    }
}

/// A fixed-size filter of the shared format, as its header says.
pub(crate) enum SharedFilter {
    /// `BloomFilter`'s bytes.
    Classic(BloomFilter),
    /// `BlockedBloomFilter`'s bytes.
    Blocked(BlockedBloomFilter),
}

/// Answers keys with the batch query.
struct Query<'a> {
    filter: &'a SharedFilter,
    out: &'a mut Vec<bool>,
}

impl KeyFn for Query<'_> {
    type Output = ();
    fn call<T: Hash>(self, keys: &[T]) {
        match self.filter {
            SharedFilter::Classic(f) => f.contains_batch_into(keys, self.out),
            SharedFilter::Blocked(f) => f.contains_batch_into(keys, self.out),
        }
    }
}

impl Probing for SharedFilter {
    const NAME: &'static str = "might_contain";

    fn decode(bytes: &[u8]) -> Result<Self> {
        let name = Self::NAME;
        if bytes.len() < HEADER_LEN || bytes[..MAGIC.len()] != MAGIC {
            // Spark's filters start with their version, a big-endian `int` 1 or 2.
            let hint = match bytes.get(..4) {
                Some([0, 0, 0, 1 | 2]) => " (Spark's filter? spark_might_contain reads those)",
                _ => "",
            };
            return exec_err!(
                "{name}: the filter is not of this library's format (no BLMF magic){hint}"
            );
        }
        let tag = bytes[VARIANT_OFFSET];
        let decoded = match Variant::from_tag(tag) {
            Some(Variant::Classic) => BloomFilter::from_bytes(bytes).map(SharedFilter::Classic),
            Some(Variant::Blocked) => {
                BlockedBloomFilter::from_bytes(bytes).map(SharedFilter::Blocked)
            }
            Some(other) => {
                return exec_err!(
                    "{name} reads BloomFilter and BlockedBloomFilter bytes, not {}",
                    other.type_names()
                );
            }
            None => return exec_err!("{name}: the filter is corrupt: unknown variant tag {tag}"),
        };
        decoded.or_else(|e| exec_err!("{name}: the filter is corrupt: {e}"))
    }

    fn coerce_key(data_type: &DataType) -> Result<DataType> {
        coerce_key(Self::NAME, data_type)
    }

    fn probe(&self, keys: &dyn Array, out: &mut Vec<bool>) -> Result<()> {
        visit_keys(keys, Slots::All, Query { filter: self, out })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A filter without a size, filled past what any filter holds (full blocks make its
    /// estimate infinite), ends as it is rather than as an error about a size nobody asked
    /// for; a filter filled within reach still folds.
    #[test]
    fn an_overfilled_filter_ends_unfolded() {
        let mut full = Blocked {
            filter: BlockedBloomFilter::with_params(4 * 512, 7).unwrap(),
            fold_for: Some(0.01),
        };
        full.filter.insert_all(0..100_000u64);
        assert_eq!(full.filter.estimated_len(), u64::MAX);
        assert_eq!(full.finish().unwrap(), Some(full.filter.to_bytes()));
        let mut light = Blocked {
            filter: BlockedBloomFilter::with_params(64 * 512, 7).unwrap(),
            fold_for: Some(0.01),
        };
        light.filter.insert_all(0..100u64);
        let folded = light.finish().unwrap().unwrap();
        assert!(folded.len() < light.filter.to_bytes().len());
    }
}
