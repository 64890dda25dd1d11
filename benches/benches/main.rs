//! The one criterion entry file of the workspace: each module registers its groups here.
//!
//! ```text
//! cargo bench -p bloom-benches                      # everything
//! cargo bench -p bloom-benches -- classic/contains  # one group
//! ```

use criterion::{criterion_group, criterion_main};

mod classic;
mod scalable;

criterion_group! {
    name = benches;
    config = classic::config();
    targets = classic::insert, classic::contains, classic::parallel_build
}
criterion_group! {
    name = scalable_benches;
    config = scalable::config();
    targets = scalable::contains, scalable::insert
}
criterion_main!(benches, scalable_benches);
