//! The query functions, written once over the filter they read: a filter argument that is a
//! literal, a scalar subquery or a column, decoded once per distinct filter, and the keys
//! answered a whole array at a time by the filter's batch query.
//!
//! DataFusion turns a scalar subquery into a join, so the filter then arrives as a column
//! repeating the same bytes on every row (each row a copy). The rows are taken in runs of
//! equal bytes (compared with the previous row's: by address first, then by content); each run
//! is answered by one batch query, and the last filter decoded is kept, so a filter is decoded
//! once per query, not once per row or per batch.

use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray, new_null_array};
use datafusion::arrow::buffer::{BooleanBuffer, NullBuffer};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{Result, ScalarValue, exec_err, plan_err};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

/// A filter a query function reads.
pub(crate) trait Probing: Send + Sync + Sized + 'static {
    /// The function's name.
    const NAME: &'static str;

    /// The filter in `bytes`.
    ///
    /// # Errors
    ///
    /// An execution error saying why the bytes are not a filter this function reads.
    fn decode(bytes: &[u8]) -> Result<Self>;

    /// The type a key argument of type `data_type` is coerced to.
    ///
    /// # Errors
    ///
    /// A planning error for a type the filter takes no keys of.
    fn coerce_key(data_type: &DataType) -> Result<DataType>;

    /// One answer per slot of `keys` (of a type [`coerce_key`](Self::coerce_key) returned),
    /// into `out` (cleared first); answers at null slots are masked afterwards.
    fn probe(&self, keys: &dyn Array, out: &mut Vec<bool>) -> Result<()>;
}

/// The last filter decoded, with the bytes it came from.
type Decoded<F> = Arc<(Vec<u8>, F)>;

/// A query function: `NAME(filter, key) -> BOOLEAN`.
pub(crate) struct MightContain<F> {
    signature: Signature,
    last: Mutex<Option<Decoded<F>>>,
    filter: PhantomData<fn() -> F>,
}

impl<F: Probing> MightContain<F> {
    pub(crate) fn new() -> Self {
        MightContain {
            signature: Signature::user_defined(Volatility::Immutable),
            last: Mutex::new(None),
            filter: PhantomData,
        }
    }

    /// The filter in `bytes`: the last one decoded when its bytes are these, else decoded
    /// now (and kept in its place).
    fn filter(&self, bytes: &[u8]) -> Result<Decoded<F>> {
        // A panic elsewhere while the lock was held leaves a whole `Option`: still usable.
        let cached = self.last.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some(hit) = cached.filter(|c| c.0 == bytes) {
            return Ok(hit);
        }
        let decoded = Arc::new((bytes.to_vec(), F::decode(bytes)?));
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::clone(&decoded));
        Ok(decoded)
    }

    /// The answers for `keys` from the filter in `bytes`, nulls where a key is null.
    fn probe_array(&self, bytes: &[u8], keys: &dyn Array) -> Result<BooleanArray> {
        let filter = self.filter(bytes)?;
        let mut out = Vec::with_capacity(keys.len());
        filter.1.probe(keys, &mut out)?;
        Ok(BooleanArray::new(
            BooleanBuffer::from(out),
            keys.logical_nulls(),
        ))
    }

    /// A column of filters against a column of keys: one batch query per run of rows with
    /// the same filter.
    fn probe_rows(&self, filters: &dyn Array, keys: &ArrayRef) -> Result<BooleanArray> {
        let rows = BinaryRows::new(F::NAME, filters)?;
        let mut values = Vec::with_capacity(keys.len());
        let mut part = Vec::new();
        let mut start = 0;
        while start < rows.len {
            let bytes = rows.get(start);
            let mut end = start + 1;
            while end < rows.len && same(bytes, rows.get(end)) {
                end += 1;
            }
            match bytes {
                // A null filter answers null (its rows are masked below).
                None => values.resize(end, false),
                Some(bytes) => {
                    let filter = self.filter(bytes)?;
                    filter.1.probe(&keys.slice(start, end - start), &mut part)?;
                    values.extend_from_slice(&part);
                }
            }
            start = end;
        }
        let nulls = NullBuffer::union(
            filters.logical_nulls().as_ref(),
            keys.logical_nulls().as_ref(),
        );
        Ok(BooleanArray::new(BooleanBuffer::from(values), nulls))
    }
}

/// Whether two rows hold the same filter: the same slice, or equal bytes.
fn same(a: Option<&[u8]>, b: Option<&[u8]>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => std::ptr::eq(a, b) || a == b,
        _ => false,
    }
}

/// The rows of a column of filters, whichever binary type it is.
struct BinaryRows<'a> {
    array: &'a dyn Array,
    len: usize,
}

impl<'a> BinaryRows<'a> {
    fn new(function: &str, array: &'a dyn Array) -> Result<Self> {
        match array.data_type() {
            DataType::Binary | DataType::LargeBinary | DataType::BinaryView => Ok(BinaryRows {
                array,
                len: array.len(),
            }),
            other => exec_err!("{function}: a filter of type {other} is not BINARY"),
        }
    }

    fn get(&self, i: usize) -> Option<&'a [u8]> {
        if self.array.is_null(i) {
            return None;
        }
        Some(match self.array.data_type() {
            DataType::Binary => self.array.as_binary::<i32>().value(i),
            DataType::LargeBinary => self.array.as_binary::<i64>().value(i),
            _ => self.array.as_binary_view().value(i),
        })
    }
}

/// The bytes of a scalar filter; `None` for a null.
fn scalar_bytes<'a>(function: &str, value: &'a ScalarValue) -> Result<Option<&'a [u8]>> {
    match value {
        ScalarValue::Binary(b) | ScalarValue::LargeBinary(b) | ScalarValue::BinaryView(b) => {
            Ok(b.as_deref())
        }
        ScalarValue::Null => Ok(None),
        other => exec_err!(
            "{function}: a filter of type {} is not BINARY",
            other.data_type()
        ),
    }
}

/// The type a filter argument of type `data_type` is coerced to.
fn coerce_filter(function: &str, data_type: &DataType) -> Result<DataType> {
    match data_type {
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => Ok(data_type.clone()),
        DataType::Null | DataType::FixedSizeBinary(_) => Ok(DataType::Binary),
        other => plan_err!("{function}: the filter must be BINARY, not {other}"),
    }
}

impl<F: Probing> ScalarUDFImpl for MightContain<F> {
    fn name(&self) -> &str {
        F::NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        match arg_types {
            [filter, key] => Ok(vec![coerce_filter(F::NAME, filter)?, F::coerce_key(key)?]),
            _ => plan_err!(
                "{}(filter, key) takes 2 arguments, not {}",
                F::NAME,
                arg_types.len()
            ),
        }
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Boolean)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let [filters, keys] = <[ColumnarValue; 2]>::try_from(args.args).map_err(|a| {
            datafusion::common::exec_datafusion_err!("{}: {} arguments", F::NAME, a.len())
        })?;
        match (filters, keys) {
            (ColumnarValue::Scalar(filter), keys) => {
                let Some(bytes) = scalar_bytes(F::NAME, &filter)? else {
                    return Ok(match keys {
                        ColumnarValue::Array(_) => {
                            ColumnarValue::Array(new_null_array(&DataType::Boolean, rows))
                        }
                        ColumnarValue::Scalar(_) => {
                            ColumnarValue::Scalar(ScalarValue::Boolean(None))
                        }
                    });
                };
                match keys {
                    ColumnarValue::Array(keys) => Ok(ColumnarValue::Array(Arc::new(
                        self.probe_array(bytes, &keys)?,
                    ))),
                    ColumnarValue::Scalar(key) => {
                        let answer = self.probe_array(bytes, &key.to_array()?)?;
                        Ok(ColumnarValue::Scalar(ScalarValue::try_from_array(
                            &answer, 0,
                        )?))
                    }
                }
            }
            (ColumnarValue::Array(filters), keys) => {
                let keys = keys.into_array(filters.len())?;
                Ok(ColumnarValue::Array(Arc::new(
                    self.probe_rows(&filters, &keys)?,
                )))
            }
        }
    }
}

crate::identity_is_name_and_signature!(MightContain, Probing);
