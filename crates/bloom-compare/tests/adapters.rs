//! Every candidate's adapter, ours and the peers': no false negatives on a small set of
//! every key kind, at every load, and a candidate that forgets keys is caught.

use std::collections::HashSet;
use std::time::Duration;

use bloom_compare::candidate::{self, BuildResult, Built, Candidate, Info, Origin};
use bloom_compare::keys::{Key, KeyKind};
use bloom_compare::measure::Entry;
use bloom_compare::report::{CandidateInfo, Header, Report};
use bloom_compare::sweep::{Negatives, Sweep};
use bloom_core::hash::hash_key;
use bloom_core::internal::low_half;

#[global_allocator]
static ALLOCATOR: bloom_compare::alloc::CountingAllocator = bloom_compare::alloc::CountingAllocator;

fn small_sweep(entries: Vec<Entry>, loads: Vec<u32>) -> Sweep {
    Sweep {
        entries,
        kinds: KeyKind::ALL.to_vec(),
        sizes: vec![3_000],
        fprs: vec![0.02],
        loads,
        threads: 2,
        rounds: 1,
        seed: 9,
        negatives: Negatives::Fixed(10_000),
        probe_budget: Duration::from_millis(1),
        file_keys: None,
    }
}

fn report(sweep: &Sweep) -> Report {
    let outcome = sweep.run(&mut |_| {}).unwrap();
    Report {
        header: Header::collect(&["test".into()], sweep.seed, sweep.rounds, sweep.threads),
        candidates: sweep.entries.iter().map(CandidateInfo::from).collect(),
        rows: outcome.rows,
        skipped: outcome.skipped,
        design: Vec::new(),
    }
}

#[test]
fn every_candidate_records_the_kernel_it_ran() {
    use bloom_blocked::{
        BlockedBloomFilter, Multiblock32BloomFilter, MultiblockBloomFilter, SplitBlockBloomFilter,
    };
    use bloom_compare::candidates::probe_kernel;

    let mut entries = candidate::ours();
    entries.extend(candidate::peers());
    let mut sweep = small_sweep(entries.clone(), vec![100]);
    sweep.kinds = vec![KeyKind::U64];
    // k = 6 and k = 10: a blocked filter may run another kernel at each.
    sweep.fprs = vec![0.02, 0.001];
    let report = report(&sweep);
    for row in &report.rows {
        let kernel = row.kernel.as_deref();
        let n = row.n;
        let p = row.target_fpr;
        match row.candidate.as_str() {
            // What the filter itself says it runs, built alike.
            "blocked" | "blocked-keyed" => assert_eq!(
                kernel,
                Some(probe_kernel(BlockedBloomFilter::new(n, p).unwrap().probe())),
                "at p = {p}"
            ),
            // The atomic twin runs the owning filter's kernel on its words in place.
            "atomic-blocked" => assert_eq!(
                kernel,
                Some(probe_kernel(
                    bloom_blocked::AtomicBlockedBloomFilter::new(n, p)
                        .unwrap()
                        .probe()
                )),
                "at p = {p}"
            ),
            "multiblock" => assert_eq!(
                kernel,
                Some(probe_kernel(
                    MultiblockBloomFilter::new(n, p).unwrap().probe()
                ))
            ),
            "multiblock32" => assert_eq!(
                kernel,
                Some(probe_kernel(
                    Multiblock32BloomFilter::new(n, p).unwrap().probe()
                ))
            ),
            "split-block" => assert_eq!(
                kernel,
                Some(probe_kernel(
                    SplitBlockBloomFilter::new(n, p).unwrap().probe()
                ))
            ),
            "aging" => assert_eq!(
                kernel,
                Some(probe_kernel(
                    bloom_aging::AgingBloomFilter::new(n, p).unwrap().probe()
                )),
                "at p = {p}"
            ),
            // sbbf-rs names its choice, which is one of its kernels.
            "sbbf-rs-safe" => assert!(
                matches!(
                    kernel,
                    Some("avx2" | "sse4.1" | "neon" | "simd128" | "portable")
                ),
                "{kernel:?}"
            ),
            _ if row.origin == Origin::Ours => {
                assert_eq!(kernel, Some(candidate::PORTABLE), "{}", row.name)
            }
            _ => assert_eq!(kernel, None, "{}", row.name),
        }
    }
    // Every kernel is in the report's summary, under the kernel it ran.
    let groups = bloom_compare::report::markdown::kernel_groups(&report);
    let portable = groups
        .iter()
        .find(|(k, _)| k == candidate::PORTABLE)
        .unwrap();
    assert!(
        portable.1.contains(&"BloomFilter".to_string()),
        "{groups:?}"
    );
    assert!(
        portable.1.contains(&"AtomicBloomFilter".to_string()),
        "{groups:?}"
    );
    if cfg!(feature = "peers") {
        assert_eq!(groups.last().unwrap().0, "not known", "{groups:?}");
    }
}

#[test]
fn every_adapter_finds_every_key_it_took() {
    let mut entries = candidate::ours();
    entries.extend(candidate::peers());
    #[cfg(feature = "peers")]
    assert_eq!(entries.len(), candidate::ours().len() + 7);
    let sweep = small_sweep(entries.clone(), vec![100]);
    let report = report(&sweep);
    assert!(report.skipped.is_empty(), "{:?}", report.skipped);
    for entry in &entries {
        for kind in KeyKind::ALL {
            let row = report
                .rows
                .iter()
                .find(|r| r.candidate == entry.info.id && r.key_kind == kind)
                .unwrap_or_else(|| panic!("{} not measured on {kind}", entry.info.id));
            assert_eq!(row.false_negatives, 0, "{} on {kind}", row.name);
            assert_eq!(row.keys_offered, 3_000, "{} on {kind}", row.name);
            assert!(row.keys_accepted > 0, "{} on {kind}", row.name);
            assert!(row.memory_bytes.unwrap() > 0, "{} on {kind}", row.name);
            assert!(row.bits_per_key.unwrap() > 4.0, "{} on {kind}", row.name);
            // Each measures a rate near its own target (a 2% target or its fixed rate).
            assert!(
                row.measured_fpr < row.nominal_fpr * 2.0 + 0.002,
                "{}: {} for {}",
                row.name,
                row.measured_fpr,
                row.nominal_fpr
            );
            assert_eq!(row.present_batch_ns.is_some(), entry.batch, "{}", row.name);
            assert_eq!(
                row.parallel_speedup.is_some(),
                entry.parallel,
                "{}",
                row.name
            );
            assert!(row.probe_single_ns.is_some());
        }
    }
    assert!(report.is_correct());
}

#[test]
fn over_capacity_loads_keep_every_accepted_key() {
    let mut entries = candidate::ours();
    entries.extend(candidate::peers());
    let sweep = small_sweep(entries, vec![50, 150]);
    let report = report(&sweep);
    assert!(
        report.is_correct(),
        "{:?}",
        report.false_negative_rows().collect::<Vec<_>>()
    );
    for row in &report.rows {
        if row.full {
            assert!(row.keys_accepted < row.keys_offered);
        } else {
            assert_eq!(row.keys_accepted, row.keys_offered, "{}", row.name);
        }
    }
}

/// A candidate that forgets one key in a hundred: the sweep must catch it.
struct Forgetful;

impl Candidate for Forgetful {
    type Filter<K: Key> = HashSet<u64>;

    const INFO: Info = Info {
        id: "forgetful",
        name: "Forgetful",
        crate_name: "(test)",
        origin: Origin::Ours,
        hasher: "the seeded hash",
        structure: "hash set that drops keys",
        ..Info::PLAIN
    };

    fn build<K: Key>(_: u64, _: f64, keys: &[K]) -> BuildResult<HashSet<u64>> {
        let set = keys
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 100 != 7)
            .map(|(_, k)| low_half(hash_key(k, 0)))
            .collect();
        Ok(Built::all(set, keys.len()))
    }

    fn contains<K: Key>(filter: &HashSet<u64>, key: &K) -> bool {
        filter.contains(&low_half(hash_key(key, 0)))
    }
}

#[test]
fn a_false_negative_fails_the_run() {
    let sweep = small_sweep(vec![Entry::of::<Forgetful>()], vec![100]);
    let report = report(&sweep);
    assert!(!report.is_correct());
    let bad: Vec<_> = report.false_negative_rows().collect();
    assert_eq!(bad.len(), 3);
    assert!(bad.iter().all(|r| r.false_negatives == 30));
    let text = bloom_compare::report::markdown::render(&report);
    assert!(text.contains("FALSE NEGATIVES"), "{text}");
}

#[test]
fn every_variant_of_the_workspace_has_an_adapter() {
    let ids: Vec<&str> = candidate::ours().iter().map(|e| e.info.id).collect();
    assert_eq!(
        ids,
        [
            "classic",
            "atomic-classic",
            "classic-keyed",
            "counting",
            "scalable",
            "aging",
            "blocked",
            "atomic-blocked",
            "blocked-keyed",
            "multiblock",
            "multiblock32",
            "split-block",
            "spark",
            "guava",
        ]
    );
}

/// The hasher cell of every row of the rendered candidates table, by candidate name.
fn hasher_cells(table: &str) -> Vec<(String, String)> {
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect()
    };
    let mut lines = table.lines();
    let header = cells(lines.next().unwrap());
    let at = header.iter().position(|h| h == "hasher used here").unwrap();
    lines
        .skip(1)
        .map(|line| {
            let row = cells(line);
            (row[0].trim_matches('`').to_string(), row[at].clone())
        })
        .collect()
}

/// The keyed candidates run SipHash-1-3 under their secret key, and every report says so:
/// the entry, each row and the candidates table's "hasher used here" take the hasher from
/// the filter the adapter builds (`hashing()`), never from a string beside it.
#[test]
fn keyed_candidates_report_siphash() {
    use bloom_compare::candidates::{
        Classic, Guava, KeyedBlocked, KeyedClassic, Spark, SplitBlock,
    };
    use bloom_compare::report::markdown::candidates_table;

    let keyed = |id: &str| id.ends_with("-keyed");
    let entries = candidate::ours();
    assert_eq!(entries.iter().filter(|e| keyed(e.info.id)).count(), 2);
    for e in &entries {
        let expected = match e.info.id {
            id if keyed(id) => candidate::OUR_KEYED_HASHER,
            // Not bloom-core's hashing: their adapters' own descriptions.
            "split-block" => SplitBlock::INFO.hasher,
            "spark" => Spark::INFO.hasher,
            "guava" => Guava::INFO.hasher,
            _ => candidate::OUR_HASHER,
        };
        assert_eq!(e.info.hasher, expected, "{}", e.info.id);
    }
    // What each adapter's built filter reports.
    let keys: Vec<u64> = (0..100).collect();
    let classic = Classic::build(100, 0.01, &keys).unwrap();
    assert_eq!(
        Classic::hasher::<u64>(&classic.filter),
        candidate::OUR_HASHER
    );
    let keyed_classic = KeyedClassic::build(100, 0.01, &keys).unwrap();
    assert!(keyed_classic.filter.hashing().is_keyed());
    assert_eq!(
        KeyedClassic::hasher::<u64>(&keyed_classic.filter),
        candidate::OUR_KEYED_HASHER
    );
    let keyed_blocked = KeyedBlocked::build(100, 0.01, &keys).unwrap();
    assert!(keyed_blocked.filter.hashing().is_keyed());
    assert_eq!(
        KeyedBlocked::hasher::<u64>(&keyed_blocked.filter),
        candidate::OUR_KEYED_HASHER
    );

    // The rows of a run and the table of its report.
    let mut sweep = small_sweep(
        entries
            .into_iter()
            .filter(|e| matches!(e.info.id, "classic" | "classic-keyed" | "blocked-keyed"))
            .collect(),
        vec![100],
    );
    sweep.kinds = vec![KeyKind::U64];
    let report = report(&sweep);
    assert_eq!(report.rows.len(), 3);
    for row in &report.rows {
        assert_eq!(
            row.hasher.starts_with("SipHash-1-3"),
            keyed(&row.candidate),
            "{row:?}"
        );
    }
    let cells = hasher_cells(&candidates_table(&report).render());
    assert_eq!(
        cells,
        [
            ("BloomFilter".to_string(), candidate::OUR_HASHER.to_string()),
            (
                "BloomFilter (keyed)".into(),
                candidate::OUR_KEYED_HASHER.into()
            ),
            (
                "BlockedBloomFilter (keyed)".into(),
                candidate::OUR_KEYED_HASHER.into()
            ),
        ]
    );
}

#[test]
fn the_split_block_adapter_hashes_u64_keys_as_parquet_int64() {
    use bloom_compare::candidates::SplitBlock;
    let keys: Vec<u64> = bloom_core::keys::distinct_keys(0, 2_000).collect();
    let built = SplitBlock::build(keys.len() as u64, 0.01, &keys).unwrap();
    // Parquet's INT64 entry point finds every key the adapter inserted: the hasher column's
    // claim (XXH64 over the 8 little-endian bytes).
    assert!(keys.iter().all(|&k| built.filter.contains_i64(k as i64)));
    let mut parquet = bloom_blocked::SplitBlockBloomFilter::new(keys.len() as u64, 0.01).unwrap();
    for &k in &keys {
        parquet.insert_i64(k as i64);
    }
    assert_eq!(built.filter, parquet);
}

#[test]
fn the_counting_filter_holds_four_times_the_classic_memory() {
    let entries: Vec<Entry> = candidate::ours()
        .into_iter()
        .filter(|e| ["classic", "counting"].contains(&e.info.id))
        .collect();
    let mut sweep = small_sweep(entries, vec![100]);
    sweep.kinds = vec![KeyKind::U64];
    sweep.sizes = vec![100_000];
    let report = report(&sweep);
    let memory = |id: &str| {
        report
            .rows
            .iter()
            .find(|r| r.candidate == id)
            .and_then(|r| r.memory_bytes)
            .unwrap() as f64
    };
    let ratio = memory("counting") / memory("classic");
    assert!((3.9..=4.1).contains(&ratio), "{ratio}");
}

/// An adapter's `build` for keys of type `K` and filter `F`.
type BuildFn<K, F> = fn(u64, f64, &[K]) -> BuildResult<F>;

/// Adapters take the capacity as the filters' `new` does: a `u64` (the workspace's size
/// rule, `docs/design.md`, "Sizes and parameters"); so do the sweep's sizes and settings.
#[test]
fn capacities_are_counts_of_keys() {
    use bloom_compare::candidates::{Classic, SplitBlock};
    use bloom_compare::measure::Setting;
    let _: BuildFn<u64, bloom_classic::BloomFilter> = Classic::build::<u64>;
    let _: BuildFn<String, bloom_blocked::SplitBlockBloomFilter> = SplitBlock::build::<String>;
    let sweep = small_sweep(candidate::ours(), vec![100]);
    let _: &[u64] = &sweep.sizes;
    let setting = Setting {
        kind: KeyKind::U64,
        capacity: u64::from(u32::MAX) + 1,
        load_percent: 100,
        fpr: 0.5,
    };
    let _: u64 = setting.capacity;
}
