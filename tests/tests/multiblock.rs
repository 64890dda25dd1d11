//! The shared suite and the layout's own checks for `MultiblockBloomFilter` and
//! `AtomicMultiblockBloomFilter`: kernels against the portable test on random filters,
//! sizing and accuracy against the formula on several kinds
//! of keys, a filter above 2^32 bits, and the bytes of an independent model. Folding and
//! unions across sizes are in `fold.rs`, views in `views.rs`.

use bloom_blocked::{AtomicMultiblockBloomFilter, MultiblockBloomFilter};
use bloom_core::Keyed as _;
use bloom_tests::keyed::Keyed;
use bloom_tests::{engine_suite, filter_suite};

filter_suite!(multiblock, MultiblockBloomFilter);
filter_suite!(atomic_multiblock, AtomicMultiblockBloomFilter);
filter_suite!(keyed_multiblock, Keyed<MultiblockBloomFilter>);
engine_suite!(engine, bloom_blocked::Multiblock, seeded);

/// Queries running beside inserts (the kernel reads a line in place) find every key
/// inserted before they began.
#[test]
fn atomic_queries_during_inserts_find_every_inserted_key() {
    bloom_tests::check_queries_during_inserts(100_000, |n| {
        AtomicMultiblockBloomFilter::new(n, 0.01).unwrap()
    });
}

/// Every probe this CPU has gives the portable answers on random filters of random sizes and
/// fills (block counts that are not powers of two included), single and batch, seeded and
/// keyed.
#[test]
fn simd_and_portable_probes_agree_on_random_filters() {
    bloom_tests::check_kernels_agree_with_portable(12, 40, |round, num_blocks| {
        let f = MultiblockBloomFilter::with_params(num_blocks * 512, 8).unwrap();
        if round % 4 == 3 {
            f.with_key([round as u8; 16])
        } else {
            f
        }
    });
}

/// `new(n, p)` promises at most `p` by its formula (which the shared suite's checks hold it
/// to on every kind of key), and its bits per key are those the formula needs: within 3% of
/// the blocked layout's sizing at 1% and 0.1%.
#[test]
fn new_sizes_by_its_formula() {
    for p in [0.1, 0.01, 0.001] {
        assert!(
            MultiblockBloomFilter::new(100_000, p)
                .unwrap()
                .expected_fpr(100_000)
                <= p
        );
        let bits = MultiblockBloomFilter::new(1_000_000, p).unwrap().num_bits() as f64 / 1e6;
        let blocked = bloom_blocked::BlockedBloomFilter::new(1_000_000, p)
            .unwrap()
            .num_bits() as f64
            / 1e6;
        println!("p {p}: {bits:.3} bits per key, blocked {blocked:.3}");
        if p < 0.05 {
            assert!(bits <= blocked * 1.03, "p {p}: {bits} against {blocked}");
        }
    }
}

/// Sizes, k and bytes the layout cannot hold are errors.
#[test]
fn bad_parameters_are_errors() {
    bloom_tests::engine::check_eight_bits_per_key_errors::<bloom_blocked::Multiblock>();
}

/// A filter of 2^33 bits (1 GiB, zeroed lazily by the kernel): keys land in blocks beyond bit
/// 2^32 and are found there.
#[test]
fn a_filter_above_two_to_the_32_bits() {
    bloom_tests::check_above_two_to_the_32(MultiblockBloomFilter::with_params(1 << 33, 8).unwrap());
}

/// The bytes of small filters, pinned: a change here is a change of format. The vectors come
/// from `tests/golden/multiblock_golden.py`, an independent model (the seeded hash
/// written out in Python, the block choice, the field re-mix and the framing written out
/// from `docs/format.md`).
#[test]
fn golden_bytes() {
    bloom_tests::engine::check_eight_bits_per_key_golden::<bloom_blocked::Multiblock>(
        b"BLMF\x05\x00\x07\x01",
        GOLDEN_A,
        GOLDEN_B,
    );
}

const GOLDEN_A: &str = "424c4d4605000701157c4a7fb979379e00040000000000000800000080000000000000000000000000000000000000000000000000000000000000000000000018000040008000000108000000200400005000100000000000000040802400000000840000080004000808020000040000020081100000000010000000001808010002040200440020201000008010040000010c10080020100000800006200004000018400000a0021000014040200000020404000000681021082040000000aff81b0e678aef88";
const GOLDEN_B: &str = "424c4d46050007010700000000000000000600000000000008000000c00000000000000000000000000000000000000000000000000000000000000000000000200209008184201c0a0550c001800440b88100800846085100e300820224250080210406308134001039086020091280500220010af401105a490200242008100d8000218800040408222822a010040011009000500a2020400000c20024201400821040008502801004008404808550204301a05004000012000033080880a0a94440810260080040040180b0424181004a004081010b0d180101000a6014c108204490068c2040484039030082000002124192a8002010200010c0204804e20ba4368e588768ae";
