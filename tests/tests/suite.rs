//! The shared suite: every test file of this folder is a module of this one test binary, but
//! `alloc_bound.rs` (a counting global allocator) and `too_large.rs` (it reads the process's
//! resident memory), which need a process of their own. A new file joins with a `mod` line
//! here: `tests/Cargo.toml` turns off the discovery of one binary per file.

mod aging;
mod blocked;
mod classic;
mod counting;
mod errors;
mod fold;
mod jvm;
mod jvm_golden;
mod jvm_live;
mod keyed;
mod multiblock;
mod multiblock32;
mod parallel;
mod parquet_compat;
mod partitions;
mod scalable;
mod serde;
mod sizes;
mod stream_bytes;
mod views;
