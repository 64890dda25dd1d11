//! Tests only: `tests/ballista.rs` runs bloom-datafusion's functions through Ballista.
