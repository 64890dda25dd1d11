//! The one criterion entry file of the workspace: each module registers its groups here.
//!
//! ```text
//! cargo bench -p bloom-benches --bench main                      # everything
//! cargo bench -p bloom-benches --bench main -- classic/contains  # one group
//! ```

use criterion::{criterion_group, criterion_main};

mod blocked;
mod classic;
mod core;
mod counting;
mod scalable;

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

criterion_group! {
    name = counting_benches;
    config = counting::config();
    targets = counting::contains, counting::insert, counting::remove, counting::interleaved
}

criterion_group! {
    name = scalable_benches;
    config = scalable::config();
    targets = scalable::contains, scalable::insert
}

criterion_group! {
    name = blocked_benches;
    config = blocked::config();
    targets = blocked::contains, blocked::split_block, blocked::insert, blocked::parallel_build
}

criterion_main!(
    classic_benches,
    core_benches,
    counting_benches,
    scalable_benches,
    blocked_benches
);
