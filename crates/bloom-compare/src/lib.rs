//! Side-by-side measurement of the bloom-family filters and their peer crates.
//!
//! The `bloom-compare` binary runs a sweep (key kinds × sizes × target rates × loads) over
//! every selected candidate, on the same keys, and reports for each: bits per key and its
//! ratio to the information-theoretic bound, target and measured false-positive rate with
//! a confidence interval, insert and query times (present and absent keys, single and
//! batch), memory held and peak memory during the build, the speed-up of a parallel build,
//! and a memory probe (the cost of a random cache-line read in a buffer of the filter's
//! size, measured in the same run) that each query time is divided by. Every run also
//! checks correctness: a false negative fails the run.
//!
//! ```sh
//! cargo run --release -p bloom-compare            # the quick default sweep
//! cargo run --release -p bloom-compare -- --help  # every option
//! ```
//!
//! The library is the machinery behind it:
//!
//! * [`candidate`]: the [`Candidate`](candidate::Candidate) adapter trait; one marker type
//!   and impl per filter in [`candidates`].
//! * [`keys`]: seeded keys of three kinds, negatives disjoint from positives.
//!   [`key_file`]: a user's own keys, the lines of a file, with a held-out share (or a
//!   second file) as the absent keys.
//! * [`measure`] and [`sweep`]: measuring one candidate in one setting, and the whole grid.
//! * [`cpu`]: the CPU a report names: model, family and model numbers, SIMD features,
//!   cache sizes.
//! * [`probe`]: the memory probe (the workspace's one: the benchmarks use it too).
//!   [`stats`]: the rate estimate and its interval.
//! * [`alloc`]: the counting allocator behind the memory figures.
//! * [`report`]: rows, header, the markdown, CSV, JSON and SVG outputs, and the report the
//!   command prints ([`report::terminal`]).
//!
//! # Example
//!
//! ```
//! use std::time::Duration;
//! use bloom_compare::{candidate, keys::KeyKind, sweep::{Negatives, Sweep}};
//!
//! let sweep = Sweep {
//!     entries: candidate::ours(),
//!     kinds: vec![KeyKind::U64],
//!     sizes: vec![2_000],
//!     fprs: vec![0.01],
//!     loads: vec![100],
//!     threads: 1,
//!     rounds: 1,
//!     seed: 1,
//!     negatives: Negatives::Fixed(20_000),
//!     probe_budget: Duration::from_millis(3),
//!     file_keys: None,
//! };
//! let outcome = sweep.run(&mut |_| {})?;
//! let classic = outcome.rows.iter().find(|r| r.candidate == "classic").unwrap();
//! assert_eq!(classic.false_negatives, 0);
//! assert!(classic.fpr_ci_low < 0.015);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Sizes
//!
//! As in the filter crates: the capacity a filter is sized for is a `u64`
//! ([`Setting::capacity`](measure::Setting::capacity), [`Sweep::sizes`](sweep::Sweep::sizes),
//! [`Candidate::build`](candidate::Candidate::build)), and adapters of peer crates that take a
//! `usize` convert it, failing with a [`BuildError`](candidate::BuildError) where it does not
//! fit. Bytes of memory are `usize` ([`Footprint`](alloc::Footprint)). Lengths of the
//! generated key sets, which are slices in memory, stay `usize`; the fields of a report
//! [`Row`](report::Row), a file format, are fixed-width (`u64`).
//!
//! # Crate features
//!
//! * `peers` (on by default): the peer crates `fastbloom`, `bloomfilter`, `sbbf-rs-safe`,
//!   `growable-bloom-filter`, `xorf` (binary fuse 8), `qfilter` and `cuckoofilter`, measured
//!   beside ours.

pub mod alloc;
pub mod candidate;
pub mod candidates;
pub mod cpu;
pub mod design;
pub mod key_file;
pub mod keys;
pub mod measure;
pub mod probe;
pub mod report;
pub mod stats;
pub mod sweep;
