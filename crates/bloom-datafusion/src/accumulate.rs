//! The aggregates, written once over the filter they build: an accumulator inserts whole
//! arrays, keeps the filter's bytes as its state, and merges states by union, so partial
//! aggregates on any number of partitions (and machines) combine.

use std::fmt::Debug;
use std::marker::PhantomData;

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{Result, ScalarValue, exec_err};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{Accumulator, AggregateUDFImpl, Signature, Volatility};

/// A filter an aggregate builds.
pub(crate) trait Building: Debug + Send + Sync + Sized + 'static {
    /// The aggregate's name.
    const NAME: &'static str;

    /// The types the arguments of types `arg_types` are coerced to.
    ///
    /// # Errors
    ///
    /// A planning error for a wrong number or type of arguments.
    fn coerce_types(arg_types: &[DataType]) -> Result<Vec<DataType>>;

    /// The empty filter the (constant) arguments ask for.
    ///
    /// # Errors
    ///
    /// A planning error for arguments that are not constants or are out of range.
    fn from_args(args: &AccumulatorArgs<'_>) -> Result<Self>;

    /// Inserts the non-null values of `keys`.
    fn insert(&mut self, keys: &dyn Array) -> Result<()>;

    /// ORs in the filter another accumulator's [`state`](Self::state) holds.
    fn merge(&mut self, state: &[u8]) -> Result<()>;

    /// The bytes of the filter as it is: what partial aggregates pass on.
    fn state(&self) -> Vec<u8>;

    /// The aggregate's result: the bytes of the finished filter, or `None` for SQL's null.
    fn finish(&self) -> Result<Option<Vec<u8>>>;

    /// Bytes held.
    fn memory_usage(&self) -> usize;
}

/// An aggregate that builds a filter: `B::NAME(...) -> BINARY`.
pub(crate) struct BuildFilter<B> {
    signature: Signature,
    filter: PhantomData<fn() -> B>,
}

impl<B: Building> BuildFilter<B> {
    pub(crate) fn new() -> Self {
        BuildFilter {
            signature: Signature::user_defined(Volatility::Immutable),
            filter: PhantomData,
        }
    }
}

crate::identity_is_name_and_signature!(BuildFilter, Building);

impl<B: Building> AggregateUDFImpl for BuildFilter<B> {
    fn name(&self) -> &str {
        B::NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        B::coerce_types(arg_types)
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Binary)
    }

    fn accumulator(&self, args: AccumulatorArgs<'_>) -> Result<Box<dyn Accumulator>> {
        Ok(Box::new(FilterAccumulator(B::from_args(&args)?)))
    }

    fn state_fields(&self, args: StateFieldsArgs<'_>) -> Result<Vec<FieldRef>> {
        let state = format_state_name(args.name, "filter");
        Ok(vec![Field::new(state, DataType::Binary, true).into()])
    }
}

/// The accumulator of either aggregate: a filter being built.
#[derive(Debug)]
struct FilterAccumulator<B>(B);

impl<B: Building> Accumulator for FilterAccumulator<B> {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        match values.first() {
            Some(keys) => self.0.insert(keys),
            None => exec_err!("{}: no key column", B::NAME),
        }
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let Some(states) = states.first() else {
            return exec_err!("{}: no state column", B::NAME);
        };
        if states.data_type() != &DataType::Binary {
            return exec_err!(
                "{}: a state of type {} is not a filter",
                B::NAME,
                states.data_type()
            );
        }
        for state in states.as_binary::<i32>().iter().flatten() {
            self.0.merge(state)?;
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![ScalarValue::Binary(Some(self.0.state()))])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(ScalarValue::Binary(self.0.finish()?))
    }

    fn size(&self) -> usize {
        size_of::<Self>() + self.0.memory_usage()
    }
}
