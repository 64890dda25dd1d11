//! Shared helpers of the criterion benchmarks: key generation and peer adapters.
