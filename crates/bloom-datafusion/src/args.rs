//! The constant arguments of the aggregates (sizes and rates): their coercion at planning
//! and their values, checked, when an accumulator is made.

use std::sync::Arc;

use datafusion::arrow::datatypes::DataType;
use datafusion::common::{Result, ScalarValue, plan_err};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::expressions::Literal;

/// Coerces a size argument (`expected_items`, `num_bits`) to `Int64`.
///
/// # Errors
///
/// A planning error for a type that is not an integer.
pub(crate) fn coerce_count(function: &str, name: &str, data_type: &DataType) -> Result<DataType> {
    if data_type.is_integer() {
        Ok(DataType::Int64)
    } else {
        plan_err!("{function}: {name} must be an integer, not {data_type}")
    }
}

/// Coerces a rate argument (`fpr`) to `Float64`.
///
/// # Errors
///
/// A planning error for a type that is not numeric.
pub(crate) fn coerce_rate(function: &str, name: &str, data_type: &DataType) -> Result<DataType> {
    if data_type.is_numeric() {
        Ok(DataType::Float64)
    } else {
        plan_err!("{function}: {name} must be a number, not {data_type}")
    }
}

/// The value of a constant argument: the literal `expr` must be.
fn literal<'a>(
    function: &str,
    name: &str,
    expr: &'a Arc<dyn PhysicalExpr>,
) -> Result<&'a ScalarValue> {
    match expr.downcast_ref::<Literal>() {
        Some(lit) => Ok(lit.value()),
        None => plan_err!("{function}: {name} must be a constant, not {expr}"),
    }
}

/// The positive count a constant argument holds.
///
/// # Errors
///
/// A planning error when it is not a constant, is null, or is not positive.
pub(crate) fn positive_count(
    function: &str,
    name: &str,
    expr: &Arc<dyn PhysicalExpr>,
) -> Result<u64> {
    match literal(function, name, expr)? {
        ScalarValue::Int64(Some(n)) if *n > 0 => Ok(*n as u64),
        ScalarValue::Int64(Some(n)) => plan_err!("{function}: {name} must be positive, not {n}"),
        other => plan_err!("{function}: {name} must be a positive BIGINT, not {other}"),
    }
}

/// The false-positive rate a constant argument holds.
///
/// # Errors
///
/// A planning error when it is not a constant, is null, or is outside (0, 1).
pub(crate) fn rate(function: &str, name: &str, expr: &Arc<dyn PhysicalExpr>) -> Result<f64> {
    match literal(function, name, expr)? {
        ScalarValue::Float64(Some(p)) if *p > 0.0 && *p < 1.0 => Ok(*p),
        ScalarValue::Float64(Some(p)) => {
            plan_err!("{function}: {name} must be between 0 and 1 (exclusive), not {p}")
        }
        other => plan_err!("{function}: {name} must be a DOUBLE between 0 and 1, not {other}"),
    }
}
