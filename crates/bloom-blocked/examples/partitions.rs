//! Past one machine: four partitions of the keys built in four processes, each writing its
//! filter's bytes to a file, then merged with `union` and checked against every key.
//!
//! Every partition builds a filter with the same parameters (`BlockedBloomFilter::new` with
//! the same `n` and `p` gives the same size and k everywhere) and the same seed, so the four
//! sets of bits line up and the union is exactly the filter one process would have built from
//! all the keys; the example checks that too. The processes could as well be machines, with
//! the files shipped between them.
//!
//! ```text
//! cargo run --release -p bloom-blocked --example partitions -- [n]
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use bloom_blocked::BlockedBloomFilter;
use bloom_core::keys::distinct_keys;

/// Partitions, one process each.
const PARTS: u64 = 4;
/// The false-positive rate every partition is sized for (for all `n` keys).
const FPR: f64 = 0.01;

/// The file partition `part` writes its filter to.
fn part_file(dir: &Path, part: u64) -> PathBuf {
    dir.join(format!("part-{part}.bloom"))
}

/// The keys of partition `part` of `n`: a disjoint range of distinct keys.
fn part_keys(n: u64, part: u64) -> impl Iterator<Item = u64> {
    let start = n * part / PARTS;
    distinct_keys(start, n * (part + 1) / PARTS - start)
}

/// A child process: build one partition and write its bytes.
fn build_part(n: u64, part: u64, dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let mut filter = BlockedBloomFilter::new(n, FPR)?;
    filter.insert_all(part_keys(n, part));
    let file = std::fs::File::create(part_file(dir, part))?;
    filter.write_to(std::io::BufWriter::new(file))?;
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, n, part, dir] = &args[..]
        && flag == "--part"
    {
        return build_part(n.parse()?, part.parse()?, Path::new(dir));
    }
    let n: u64 = match args.get(1) {
        Some(n) => n.replace('_', "").parse()?,
        None => 4_000_000,
    };
    let dir = std::env::temp_dir().join(format!("bloom-partitions-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;

    let start = Instant::now();
    let children = (0..PARTS)
        .map(|part| {
            Command::new(std::env::current_exe()?)
                .args(["--part", &n.to_string(), &part.to_string()])
                .arg(&dir)
                .spawn()
        })
        .collect::<Result<Vec<_>, _>>()?;
    for mut child in children {
        if !child.wait()?.success() {
            return Err("a partition's process failed".into());
        }
    }
    println!(
        "{PARTS} processes built {n} keys in {:.2} s",
        start.elapsed().as_secs_f64()
    );

    let mut merged: Option<BlockedBloomFilter> = None;
    for part in 0..PARTS {
        let file = std::fs::File::open(part_file(&dir, part))?;
        let filter = BlockedBloomFilter::read_from(std::io::BufReader::new(file))?;
        match &mut merged {
            None => merged = Some(filter),
            Some(all) => all.union(&filter)?,
        }
    }
    std::fs::remove_dir_all(&dir)?;
    let merged = merged.ok_or("no partition")?;

    let missing = (0..PARTS)
        .flat_map(|part| part_keys(n, part))
        .filter(|k| !merged.contains(k))
        .count();
    let absent = 1_000_000u64;
    let false_positives = distinct_keys(1 << 63, absent)
        .filter(|k| merged.contains(k))
        .count();
    println!(
        "merged: {} bytes, {missing} of {n} keys missing, {:.3}% of {absent} absent keys answered present",
        merged.memory_usage(),
        false_positives as f64 * 100.0 / absent as f64
    );
    let mut one_process = BlockedBloomFilter::new(n, FPR)?;
    one_process.insert_all(distinct_keys(0, n));
    println!(
        "identical to the filter one process builds from all the keys: {}",
        one_process == merged
    );
    if missing != 0 || one_process != merged {
        return Err("the merged filter is not the filter of all the keys".into());
    }
    Ok(())
}
