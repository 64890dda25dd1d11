//! The adapters: one marker type and one `impl Candidate` per filter type.

mod more;
mod ours;
#[cfg(feature = "peers")]
mod peers;

pub use more::{Aging, Guava, Spark};
pub use ours::{
    AtomicBlocked, AtomicClassic, Blocked, Classic, Counting, KeyedBlocked, KeyedClassic,
    Multiblock, Multiblock32, Scalable, SplitBlock, probe_kernel,
};
#[cfg(feature = "peers")]
pub use peers::{
    Bloomfilter, Cuckoofilter, Fastbloom, GrowableBloom, Qfilter, SbbfRsSafe, XorfBinaryFuse8,
    all as all_peers,
};
