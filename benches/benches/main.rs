//! The one criterion entry file of the workspace: each module registers its groups here.
//!
//! ```text
//! cargo bench -p bloom-benches                      # everything
//! cargo bench -p bloom-benches -- classic/contains  # one group
//! ```

use criterion::{criterion_group, criterion_main};

mod blocked;
mod classic;

criterion_group! {
    name = benches;
    config = classic::config();
    targets = classic::insert, classic::contains, classic::parallel_build
}
criterion_group! {
    name = blocked_benches;
    config = blocked::config();
    targets = blocked::contains, blocked::split_block, blocked::insert, blocked::parallel_build
}
criterion_main!(benches, blocked_benches);
