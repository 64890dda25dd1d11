//! Arrow arrays as keys: which column types a filter takes, and each array handed to a
//! filter as a slice of one Rust type, so a column hashes exactly as the same values do
//! through `Hash` in Rust.
//!
//! Integers go in as their own native type: `bloom_core` writes every integer that fits in
//! 64 bits in one canonical width (8 little-endian bytes, sign- or zero-extended), so an
//! `Int32` column, an `Int64` column and a Rust `u64` of the same values are one set of keys.
//! Strings go in as `&str`, binary values as `&[u8]`, as `Hash` writes those in Rust.

use std::hash::Hash;

use datafusion::arrow::array::{Array, ArrayAccessor, ArrowPrimitiveType, AsArray};
use datafusion::arrow::datatypes::{
    DataType, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type,
    UInt64Type,
};
use datafusion::common::{Result, exec_err, plan_err};

/// Which slots of an array a [`KeyFn`] sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slots {
    /// Every slot, nulls included (whatever value a null slot holds): for queries, whose
    /// answers at null slots are masked afterwards, one answer per row.
    All,
    /// The non-null values only: for inserts.
    NonNull,
}

/// What to do with an array's keys, once they are a slice of one `Hash` type.
pub(crate) trait KeyFn {
    /// What the call returns.
    type Output;
    /// Called once with the keys.
    fn call<T: Hash>(self, keys: &[T]) -> Self::Output;
}

/// The column type a key argument of type `data_type` is coerced to: integers, strings and
/// binary values as they are, a dictionary as its value type, a null literal as `Int64`.
///
/// # Errors
///
/// A planning error naming `function` for any other type (floats have no `Hash` in Rust, so
/// no Rust value they could match).
pub(crate) fn coerce_key(function: &str, data_type: &DataType) -> Result<DataType> {
    match data_type {
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => Ok(data_type.clone()),
        other if other.is_string() || other.is_integer() => Ok(data_type.clone()),
        DataType::Null => Ok(DataType::Int64),
        DataType::Dictionary(_, value) => coerce_key(function, value),
        other => {
            plan_err!("{function}: keys must be integers, strings or binary values, not {other}")
        }
    }
}

/// Calls `f` with `array`'s keys (the `slots` asked for) as a slice of their Rust type: the
/// integer's own type, `&str` or `&[u8]`.
///
/// # Errors
///
/// An execution error for a type [`coerce_key`] does not return (which a plan that went
/// through the function's coercion never passes).
pub(crate) fn visit_keys<F: KeyFn>(array: &dyn Array, slots: Slots, f: F) -> Result<F::Output> {
    let skip_nulls = slots == Slots::NonNull && array.null_count() > 0;
    Ok(match array.data_type() {
        DataType::Int8 => primitive::<Int8Type, F>(array, skip_nulls, f),
        DataType::Int16 => primitive::<Int16Type, F>(array, skip_nulls, f),
        DataType::Int32 => primitive::<Int32Type, F>(array, skip_nulls, f),
        DataType::Int64 => primitive::<Int64Type, F>(array, skip_nulls, f),
        DataType::UInt8 => primitive::<UInt8Type, F>(array, skip_nulls, f),
        DataType::UInt16 => primitive::<UInt16Type, F>(array, skip_nulls, f),
        DataType::UInt32 => primitive::<UInt32Type, F>(array, skip_nulls, f),
        DataType::UInt64 => primitive::<UInt64Type, F>(array, skip_nulls, f),
        DataType::Utf8 => f.call(&variable(array.as_string::<i32>(), skip_nulls)),
        DataType::LargeUtf8 => f.call(&variable(array.as_string::<i64>(), skip_nulls)),
        DataType::Utf8View => f.call(&variable(array.as_string_view(), skip_nulls)),
        DataType::Binary => f.call(&variable(array.as_binary::<i32>(), skip_nulls)),
        DataType::LargeBinary => f.call(&variable(array.as_binary::<i64>(), skip_nulls)),
        DataType::BinaryView => f.call(&variable(array.as_binary_view(), skip_nulls)),
        other => return exec_err!("keys of type {other} are not supported"),
    })
}

/// A primitive array's values: the array's own buffer when every slot is wanted, else its
/// non-null values gathered.
fn primitive<P: ArrowPrimitiveType, F: KeyFn>(
    array: &dyn Array,
    skip_nulls: bool,
    f: F,
) -> F::Output
where
    P::Native: Hash,
{
    let a = array.as_primitive::<P>();
    if skip_nulls {
        f.call(&a.iter().flatten().collect::<Vec<_>>())
    } else {
        f.call(a.values())
    }
}

/// The values of a variable-length array, as references into it: every slot (`value(i)`
/// is defined at null slots too), or the non-null ones.
fn variable<A: ArrayAccessor>(array: A, skip_nulls: bool) -> Vec<A::Item> {
    let slots = 0..array.len();
    if skip_nulls {
        slots
            .filter(|&i| array.is_valid(i))
            .map(|i| array.value(i))
            .collect()
    } else {
        slots.map(|i| array.value(i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bloom_core::hash::{DEFAULT_SEED, hash_key};
    use datafusion::arrow::array::{Int32Array, StringArray, UInt8Array};

    /// The digests of the keys a visit hands over.
    struct Digests;

    impl KeyFn for Digests {
        type Output = Vec<u128>;
        fn call<T: Hash>(self, keys: &[T]) -> Vec<u128> {
            keys.iter().map(|k| hash_key(k, DEFAULT_SEED)).collect()
        }
    }

    #[test]
    fn integers_of_every_width_are_one_key() {
        let wide: Vec<u128> = [5i64, -3]
            .iter()
            .map(|k| hash_key(k, DEFAULT_SEED))
            .collect();
        let a = Int32Array::from(vec![5, -3]);
        assert_eq!(visit_keys(&a, Slots::All, Digests).unwrap(), wide);
        let b = UInt8Array::from(vec![5]);
        assert_eq!(visit_keys(&b, Slots::All, Digests).unwrap(), wide[..1]);
    }

    #[test]
    fn strings_hash_as_str_and_nulls_are_skipped_for_inserts() {
        let a = StringArray::from(vec![Some("a"), None, Some("b")]);
        let want: Vec<u128> = ["a", "b"]
            .iter()
            .map(|k| hash_key(*k, DEFAULT_SEED))
            .collect();
        assert_eq!(visit_keys(&a, Slots::NonNull, Digests).unwrap(), want);
        assert_eq!(visit_keys(&a, Slots::All, Digests).unwrap().len(), 3);
    }

    #[test]
    fn floats_are_refused_at_planning() {
        assert!(coerce_key("f", &DataType::Float64).is_err());
        let dict = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
        assert_eq!(coerce_key("f", &dict).unwrap(), DataType::Utf8);
    }
}
