//! The one criterion entry file of the workspace: each module registers its groups here.
//!
//! ```text
//! cargo bench -p bloom-benches                      # everything
//! cargo bench -p bloom-benches -- classic/contains  # one group
//! ```

use criterion::{criterion_group, criterion_main};

mod classic;
mod counting;

criterion_group! {
    name = benches;
    config = classic::config();
    targets = classic::insert, classic::contains, classic::parallel_build
}
criterion_group! {
    name = counting_benches;
    config = counting::config();
    targets = counting::contains, counting::insert, counting::remove, counting::interleaved
}
criterion_main!(benches, counting_benches);
