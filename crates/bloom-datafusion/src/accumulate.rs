//! The aggregates, written once over the filter they build: an accumulator inserts whole
//! arrays, keeps the filter's bytes as its state, and merges states by union, so partial
//! aggregates on any number of partitions (and machines) combine. Under `GROUP BY` one
//! accumulator holds every group's filter and takes a batch's rows group by group.

use std::fmt::Debug;
use std::marker::PhantomData;

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BinaryArray, BooleanArray, UInt64Array};
use datafusion::arrow::compute::take;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{Result, ScalarValue, exec_datafusion_err, exec_err};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{
    Accumulator, AggregateUDFImpl, EmitTo, GroupsAccumulator, Signature, Volatility,
};

/// A filter an aggregate builds.
pub(crate) trait Building: Debug + Clone + Send + Sync + Sized + 'static {
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

    fn groups_accumulator_supported(&self, _args: AccumulatorArgs<'_>) -> bool {
        true
    }

    fn create_groups_accumulator(
        &self,
        args: AccumulatorArgs<'_>,
    ) -> Result<Box<dyn GroupsAccumulator>> {
        Ok(Box::new(FilterGroups {
            empty: B::from_args(&args)?,
            groups: Vec::new(),
        }))
    }
}

/// The first of `columns` (the keys or the states), or an execution error naming `B`'s
/// aggregate and the column it lacks.
fn first_column<'a, B: Building>(columns: &'a [ArrayRef], what: &str) -> Result<&'a ArrayRef> {
    match columns.first() {
        Some(column) => Ok(column),
        None => exec_err!("{}: no {what} column", B::NAME),
    }
}

/// The filters' bytes of a state column, or an execution error naming `B`'s aggregate.
fn state_column<B: Building>(states: &[ArrayRef]) -> Result<&BinaryArray> {
    let states = first_column::<B>(states, "state")?;
    let data_type = states.data_type();
    states.as_binary_opt::<i32>().ok_or_else(|| {
        exec_datafusion_err!("{}: a state of type {data_type} is not a filter", B::NAME)
    })
}

/// The accumulator of either aggregate: a filter being built.
#[derive(Debug)]
struct FilterAccumulator<B>(B);

impl<B: Building> Accumulator for FilterAccumulator<B> {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.0.insert(first_column::<B>(values, "key")?)
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        for state in state_column::<B>(states)?.iter().flatten() {
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

/// Whether an aggregate's `FILTER (WHERE ...)`, as DataFusion hands it over, keeps `row`.
fn kept(opt_filter: Option<&BooleanArray>, row: usize) -> bool {
    opt_filter.is_none_or(|f| f.is_valid(row) && f.value(row))
}

/// The accumulator of either aggregate under `GROUP BY`: one filter per group, each the
/// empty filter the arguments ask for until its rows come. A batch's rows are sorted by
/// group and each group's run taken into one array (Arrow's `take`), which its filter
/// inserts whole, as the single accumulator inserts a batch.
#[derive(Debug)]
struct FilterGroups<B> {
    empty: B,
    groups: Vec<B>,
}

impl<B: Building> FilterGroups<B> {
    /// Room for `total_num_groups` groups, new ones empty.
    fn grow(&mut self, total_num_groups: usize) {
        if self.groups.len() < total_num_groups {
            self.groups.resize(total_num_groups, self.empty.clone());
        }
    }
}

impl<B: Building> GroupsAccumulator for FilterGroups<B> {
    fn update_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        opt_filter: Option<&BooleanArray>,
        total_num_groups: usize,
    ) -> Result<()> {
        let keys = first_column::<B>(values, "key")?;
        self.grow(total_num_groups);
        let mut rows: Vec<(usize, u64)> = group_indices
            .iter()
            .enumerate()
            .filter(|&(row, _)| kept(opt_filter, row))
            .map(|(row, &group)| (group, row as u64))
            .collect();
        rows.sort_unstable();
        for run in rows.chunk_by(|a, b| a.0 == b.0) {
            let Some(filter) = self.groups.get_mut(run[0].0) else {
                return exec_err!("{}: group {} out of range", B::NAME, run[0].0);
            };
            let indices = UInt64Array::from_iter_values(run.iter().map(|&(_, row)| row));
            filter.insert(take(keys.as_ref(), &indices, None)?.as_ref())?;
        }
        Ok(())
    }

    fn merge_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        total_num_groups: usize,
    ) -> Result<()> {
        let states = state_column::<B>(values)?;
        self.grow(total_num_groups);
        for (state, &group) in states.iter().zip(group_indices) {
            if let (Some(state), Some(filter)) = (state, self.groups.get_mut(group)) {
                filter.merge(state)?;
            }
        }
        Ok(())
    }

    fn evaluate(&mut self, emit_to: EmitTo) -> Result<ArrayRef> {
        let finished = emit_to
            .take_needed(&mut self.groups)
            .iter()
            .map(B::finish)
            .collect::<Result<Vec<_>>>()?;
        Ok(Arc::new(BinaryArray::from_iter(finished)))
    }

    fn state(&mut self, emit_to: EmitTo) -> Result<Vec<ArrayRef>> {
        let states = emit_to.take_needed(&mut self.groups);
        let states = BinaryArray::from_iter(states.iter().map(|b| Some(b.state())));
        Ok(vec![Arc::new(states)])
    }

    /// Each row as its own group, as DataFusion asks when a partial aggregate's groups are
    /// nearly as many as its rows: the state of a filter holding that row's key alone (or
    /// none, for a row the aggregate's filter drops). Each is a filter of the full size, as
    /// one accumulator per group would be.
    fn convert_to_state(
        &self,
        values: &[ArrayRef],
        opt_filter: Option<&BooleanArray>,
    ) -> Result<Vec<ArrayRef>> {
        let keys = first_column::<B>(values, "key")?;
        let states = (0..keys.len())
            .map(|row| {
                let mut filter = self.empty.clone();
                if kept(opt_filter, row) {
                    filter.insert(keys.slice(row, 1).as_ref())?;
                }
                Ok(Some(filter.state()))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(vec![Arc::new(BinaryArray::from_iter(states))])
    }

    fn size(&self) -> usize {
        size_of::<Self>()
            + self.empty.memory_usage()
            + self.groups.iter().map(B::memory_usage).sum::<usize>()
    }
}
