//! The one criterion entry file of the workspace: each module registers its groups here.
//!
//! ```text
//! cargo bench -p bloom-benches --bench main                      # everything
//! cargo bench -p bloom-benches --bench main -- classic/contains  # one group
//! ```

use criterion::{criterion_group, criterion_main};

mod classic;
mod core;

criterion_group! {
    name = classic_benches;
    config = classic::config();
    targets = classic::insert, classic::contains, classic::parallel_build
}

criterion_group! {
    name = core_benches;
    config = classic::config();
    targets = core::hash, core::probe_sequence, core::probe_strategy, core::memory
}

criterion_main!(classic_benches, core_benches);
