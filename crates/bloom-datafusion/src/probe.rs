//! The query functions, written once over the filter they read: a filter argument that is a
//! literal, a scalar subquery or a column, decoded once per distinct filter, and the keys
//! answered a whole array at a time by the filter's batch query.
//!
//! DataFusion turns a scalar subquery into a join, so the filter then arrives as a column
//! repeating the same bytes on every row (each row a copy). The rows are taken in runs of
//! equal bytes (compared with the previous row's: by address first, then by content); each run
//! is answered by one batch query, and the last filter decoded is kept, so a filter is decoded
//! once per query, not once per row or per batch.
//!
//! A literal filter is planned into a one-row list of one binary value ([`simplify`]): DataFusion
//! hands a literal to every batch as a copy of its value, which for a `BINARY` means copying
//! the whole filter, but a list's value is an Arrow array shared by reference. The kept filter
//! holds that array, so the next batch finds it by address, with neither a copy nor a
//! comparison of the bytes.
//!
//! [`simplify`]: ScalarUDFImpl::simplify

use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, BooleanArray, new_null_array,
};
use datafusion::arrow::buffer::{BooleanBuffer, NullBuffer};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::utils::SingleRowListArrayBuilder;
use datafusion::common::{Result, ScalarValue, exec_err, plan_err};
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::simplify::{ExprSimplifyResult, SimplifyContext};
use datafusion::logical_expr::{
    ColumnarValue, Expr, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
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

/// Where the bytes of the kept filter live.
enum Source {
    /// A copy made when the filter was decoded.
    Copy(Vec<u8>),
    /// A planned literal's value, a binary array of one value sharing the plan's buffer.
    Shared(ArrayRef),
}

impl Source {
    fn bytes(&self) -> &[u8] {
        match self {
            Source::Copy(bytes) => bytes,
            Source::Shared(array) => array.as_binary::<i32>().value(0),
        }
    }
}

/// The last filter decoded, with the bytes it came from.
type Decoded<F> = Arc<(Source, F)>;

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
    /// now (and kept in its place). `shared` is the array `bytes` lie in when it is a planned
    /// literal's, which the kept filter then holds instead of a copy.
    fn filter(&self, bytes: &[u8], shared: Option<ArrayRef>) -> Result<Decoded<F>> {
        // A panic elsewhere while the lock was held leaves a whole `Option`: still usable.
        let cached = self.last.lock().unwrap_or_else(|e| e.into_inner()).clone();
        // The kept bytes are alive as long as the kept filter, so bytes at their address are
        // they; other bytes are compared.
        if let Some(hit) =
            cached.filter(|c| std::ptr::eq(c.0.bytes(), bytes) || c.0.bytes() == bytes)
        {
            return Ok(hit);
        }
        let source = shared.map_or_else(|| Source::Copy(bytes.to_vec()), Source::Shared);
        let decoded = Arc::new((source, F::decode(bytes)?));
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::clone(&decoded));
        Ok(decoded)
    }

    /// A column of filters against a column of keys: one batch query per run of rows with
    /// the same filter.
    fn probe_rows(&self, filters: &dyn Array, keys: &ArrayRef) -> Result<BooleanArray> {
        let rows = binary_rows(F::NAME, filters)?;
        let mut values = Vec::with_capacity(keys.len());
        let mut part = Vec::new();
        let mut start = 0;
        while start < rows.len() {
            let bytes = rows[start];
            let mut end = start + 1;
            while end < rows.len() && same(bytes, rows[end]) {
                end += 1;
            }
            match bytes {
                // A null filter answers null (its rows are masked below).
                None => values.resize(end, false),
                Some(bytes) => {
                    let filter = self.filter(bytes, None)?;
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

/// The rows of a column of filters, whichever binary type it is: `None` at a null.
fn binary_rows<'a>(function: &str, array: &'a dyn Array) -> Result<Vec<Option<&'a [u8]>>> {
    Ok(match array.data_type() {
        DataType::Binary => array.as_binary::<i32>().iter().collect(),
        DataType::LargeBinary => array.as_binary::<i64>().iter().collect(),
        DataType::BinaryView => array.as_binary_view().iter().collect(),
        other => return exec_err!("{function}: a filter of type {other} is not BINARY"),
    })
}

/// A scalar filter's bytes, and, when the scalar is a planned literal ([`planned_literal`]),
/// its value: a binary array of those bytes alone, sharing their buffer. `None` for a null.
type ScalarBytes<'a> = Option<(&'a [u8], Option<ArrayRef>)>;

/// The bytes of a scalar filter; `None` for a null.
fn scalar_bytes<'a>(function: &str, value: &'a ScalarValue) -> Result<ScalarBytes<'a>> {
    match value {
        ScalarValue::Binary(b) | ScalarValue::LargeBinary(b) | ScalarValue::BinaryView(b) => {
            Ok(b.as_deref().map(|bytes| (bytes, None)))
        }
        ScalarValue::List(list) if list.len() == 1 && list.value_type() == DataType::Binary => {
            if list.is_null(0) {
                return Ok(None);
            }
            let value = list.value(0);
            if value.len() != 1 {
                return exec_err!(
                    "{function}: a filter as a list must hold one BINARY value, not {}",
                    value.len()
                );
            }
            if value.is_null(0) {
                return Ok(None);
            }
            let bytes = list
                .values()
                .as_binary::<i32>()
                .value(list.value_offsets()[0] as usize);
            Ok(Some((bytes, Some(value))))
        }
        ScalarValue::Null => Ok(None),
        other => exec_err!(
            "{function}: a filter of type {} is not BINARY",
            other.data_type()
        ),
    }
}

/// A literal filter's bytes as the one value of a one-row list: the form a literal keeps
/// through the plan by reference (this module's docs say why); `None` for anything else.
fn planned_literal(value: &ScalarValue) -> Option<ScalarValue> {
    let bytes = match value {
        ScalarValue::Binary(Some(b))
        | ScalarValue::LargeBinary(Some(b))
        | ScalarValue::BinaryView(Some(b)) => b,
        _ => return None,
    };
    let values: ArrayRef = Arc::new(BinaryArray::from_vec(vec![bytes.as_slice()]));
    Some(SingleRowListArrayBuilder::new(values).build_list_scalar())
}

/// The type a filter argument of type `data_type` is coerced to.
fn coerce_filter(function: &str, data_type: &DataType) -> Result<DataType> {
    match data_type {
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => Ok(data_type.clone()),
        // A planned literal ([`planned_literal`]), if the plan's types are coerced again.
        DataType::List(field) if field.data_type() == &DataType::Binary => Ok(data_type.clone()),
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
        let name = F::NAME;
        match arg_types {
            [filter, key] => Ok(vec![coerce_filter(name, filter)?, F::coerce_key(key)?]),
            args => plan_err!("{name}(filter, key) takes 2 arguments, not {}", args.len()),
        }
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Boolean)
    }

    /// Plans a literal filter into the form whose evaluations share its bytes
    /// ([`planned_literal`]).
    fn simplify(&self, mut args: Vec<Expr>, _info: &SimplifyContext) -> Result<ExprSimplifyResult> {
        let Some(Expr::Literal(value, metadata)) = args.first() else {
            return Ok(ExprSimplifyResult::Original(args));
        };
        let Some(planned) = planned_literal(value) else {
            return Ok(ExprSimplifyResult::Original(args));
        };
        args[0] = Expr::Literal(planned, metadata.clone());
        let udf = Arc::new(ScalarUDF::new_from_impl(MightContain::<F>::new()));
        Ok(ExprSimplifyResult::Simplified(Expr::ScalarFunction(
            ScalarFunction::new_udf(udf, args),
        )))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let [filters, keys] = <[ColumnarValue; 2]>::try_from(args.args).map_err(|a| {
            datafusion::common::exec_datafusion_err!("{}: {} arguments", F::NAME, a.len())
        })?;
        let filter = match filters {
            ColumnarValue::Scalar(filter) => filter,
            ColumnarValue::Array(filters) => {
                let keys = keys.into_array(filters.len())?;
                let answers = self.probe_rows(&filters, &keys)?;
                return Ok(ColumnarValue::Array(Arc::new(answers)));
            }
        };
        let bytes = scalar_bytes(F::NAME, &filter)?;
        // A scalar key is answered as an array of one, and its answer returned as a scalar.
        let scalar_key = matches!(keys, ColumnarValue::Scalar(_));
        let keys = keys.into_array(1)?;
        let answers: ArrayRef = match bytes {
            Some((bytes, shared)) => {
                let mut out = Vec::with_capacity(keys.len());
                self.filter(bytes, shared)?.1.probe(&keys, &mut out)?;
                Arc::new(BooleanArray::new(out.into(), keys.logical_nulls()))
            }
            None => new_null_array(&DataType::Boolean, keys.len()),
        };
        Ok(if scalar_key {
            ColumnarValue::Scalar(ScalarValue::try_from_array(&answers, 0)?)
        } else {
            ColumnarValue::Array(answers)
        })
    }
}

crate::identity_is_name_and_signature!(MightContain, Probing);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_planned_literal_shares_its_bytes() {
        let bytes = b"the bytes of a filter".to_vec();
        let planned = planned_literal(&ScalarValue::Binary(Some(bytes.clone()))).unwrap();
        // DataFusion clones the literal for every batch: the clones read one buffer.
        let copy = planned.clone();
        let (first, shared) = scalar_bytes("f", &planned).unwrap().unwrap();
        let (second, _) = scalar_bytes("f", &copy).unwrap().unwrap();
        assert_eq!(first, bytes.as_slice());
        assert!(std::ptr::eq(first, second));
        assert!(shared.is_some());
        // The planned type is a filter type, should the plan's types be coerced again.
        let planned_type = planned.data_type();
        assert_eq!(coerce_filter("f", &planned_type).unwrap(), planned_type);
        // Nulls and non-binary values stay as they are.
        assert!(planned_literal(&ScalarValue::Binary(None)).is_none());
        assert!(planned_literal(&ScalarValue::Int64(Some(1))).is_none());
        let null_list = ScalarValue::List(Arc::new(datafusion::arrow::array::ListArray::new_null(
            Arc::new(datafusion::arrow::datatypes::Field::new_list_field(
                DataType::Binary,
                true,
            )),
            1,
        )));
        assert!(scalar_bytes("f", &null_list).unwrap().is_none());
        // A list of two values is no filter: an error, not a null.
        let values: ArrayRef = Arc::new(BinaryArray::from_vec(vec![b"a".as_slice(), b"b"]));
        let two = SingleRowListArrayBuilder::new(values).build_list_scalar();
        assert!(scalar_bytes("f", &two).is_err());
    }
}
