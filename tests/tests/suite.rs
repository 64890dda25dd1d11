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

/// With discovery turned off, a file of this folder that is neither declared above nor a
/// `[[test]]` of `tests/Cargo.toml` would never be compiled or run: none may be.
#[test]
fn every_test_file_is_a_module_or_a_binary_of_its_own() {
    let suite = include_str!("suite.rs");
    let manifest = include_str!("../Cargo.toml");
    let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/tests");
    let mut files = 0;
    for entry in std::fs::read_dir(folder).unwrap() {
        let file = entry.unwrap().file_name().into_string().unwrap();
        let Some(module) = file.strip_suffix(".rs") else {
            continue;
        };
        let declared = suite.lines().any(|line| line == format!("mod {module};"));
        let own = manifest.contains(&format!("path = \"tests/{file}\""));
        assert!(
            declared || own,
            "tests/tests/{file} is neither a module of the suite nor a test binary"
        );
        files += 1;
    }
    assert!(files > 20, "only {files} test files found in {folder}");
}
