//! Past one machine: partitions of the keys built in separate processes, shipped as bytes,
//! and merged with `union`, give exactly the filter one process builds from all the keys,
//! for the classic and the blocked filter (the `partitions` example of bloom-blocked runs
//! the same at scale).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use bloom_blocked::BlockedBloomFilter;
use bloom_classic::BloomFilter;
use bloom_core::keys::distinct_keys;

/// Set by the parent to the folder a child writes its partition's files to.
const CHILD_DIR: &str = "BLOOM_PARTITION_DIR";
/// Set by the parent to the partition a child builds.
const CHILD_PART: &str = "BLOOM_PARTITION";

const PARTS: u64 = 4;
const KEYS: u64 = 200_000;

fn part_keys(part: u64) -> impl Iterator<Item = u64> {
    distinct_keys(KEYS * part / PARTS, KEYS / PARTS)
}

fn files(dir: &Path, part: u64) -> (PathBuf, PathBuf) {
    (
        dir.join(format!("classic-{part}")),
        dir.join(format!("blocked-{part}")),
    )
}

/// The child's work: both filters of one partition, written to files.
fn build_part(dir: &Path, part: u64) {
    let mut classic = BloomFilter::new(KEYS, 0.01).unwrap();
    let mut blocked = BlockedBloomFilter::new(KEYS, 0.01).unwrap();
    classic.insert_all(part_keys(part));
    blocked.insert_all(part_keys(part));
    let (c, b) = files(dir, part);
    classic.write_to(std::fs::File::create(c).unwrap()).unwrap();
    blocked.write_to(std::fs::File::create(b).unwrap()).unwrap();
}

#[test]
fn partitions_built_in_four_processes_merge_into_the_whole() {
    if let (Some(dir), Some(part)) = (std::env::var_os(CHILD_DIR), std::env::var_os(CHILD_PART)) {
        let part = part.to_str().unwrap().parse().unwrap();
        build_part(Path::new(&dir), part);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let name = bloom_tests::test_name(
        module_path!(),
        "partitions_built_in_four_processes_merge_into_the_whole",
    );
    let children: Vec<_> = (0..PARTS)
        .map(|part| {
            Command::new(std::env::current_exe().unwrap())
                .args([name.as_str(), "--exact", "--test-threads=1"])
                .env(CHILD_DIR, dir.path())
                .env(CHILD_PART, part.to_string())
                // The children's own "test result" lines would be counted as runs by CI.
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }

    let mut classic = BloomFilter::new(KEYS, 0.01).unwrap();
    let mut blocked = BlockedBloomFilter::new(KEYS, 0.01).unwrap();
    for part in 0..PARTS {
        let (c, b) = files(dir.path(), part);
        classic
            .union(&BloomFilter::read_from(std::fs::File::open(c).unwrap()).unwrap())
            .unwrap();
        blocked
            .union(&BlockedBloomFilter::read_from(std::fs::File::open(b).unwrap()).unwrap())
            .unwrap();
    }
    let mut whole_classic = BloomFilter::new(KEYS, 0.01).unwrap();
    let mut whole_blocked = BlockedBloomFilter::new(KEYS, 0.01).unwrap();
    whole_classic.insert_all(distinct_keys(0, KEYS));
    whole_blocked.insert_all(distinct_keys(0, KEYS));
    assert_eq!(classic, whole_classic);
    assert_eq!(blocked, whole_blocked);
    assert!(distinct_keys(0, KEYS).all(|k| classic.contains(&k) && blocked.contains(&k)));
}
