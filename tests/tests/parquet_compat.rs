//! `SplitBlockBloomFilter` against the `parquet` crate's `Sbbf`: same sizes, byte-identical
//! bitsets for the same values, and each reads what the other writes.

use bloom_blocked::SplitBlockBloomFilter;
use parquet::bloom_filter::Sbbf;

fn sbbf_bitset(sbbf: &Sbbf) -> Vec<u8> {
    let mut out = Vec::new();
    sbbf.write_bitset(&mut out).unwrap();
    out
}

fn sbbf_bytes(sbbf: &Sbbf) -> Vec<u8> {
    let mut out = Vec::new();
    sbbf.write(&mut out).unwrap();
    out
}

/// SplitMix64 values, so failures repeat.
fn values(seed: u64, count: usize) -> Vec<u64> {
    bloom_tests::SplitMix64(seed).take(count).collect()
}

#[test]
fn same_values_give_byte_identical_bitsets() {
    for num_bytes in [32usize, 64, 1000, 4096, 1 << 16, 1 << 20] {
        let mut ours = SplitBlockBloomFilter::with_num_bytes(num_bytes);
        let mut theirs = Sbbf::new_with_num_of_bytes(num_bytes);
        assert_eq!(ours.num_bytes(), theirs.num_blocks() * 32, "{num_bytes}");
        for (i, v) in values(num_bytes as u64, 3_000).into_iter().enumerate() {
            match i % 6 {
                0 => {
                    ours.insert_i64(v as i64);
                    theirs.insert(&(v as i64));
                }
                1 => {
                    ours.insert_i32(v as i32);
                    theirs.insert(&(v as i32));
                }
                2 => {
                    let f = f64::from_bits(v);
                    ours.insert_f64(f);
                    theirs.insert(&f);
                }
                3 => {
                    let f = f32::from_bits(v as u32);
                    ours.insert_f32(f);
                    theirs.insert(&f);
                }
                4 => {
                    let s = format!("value-{v:x}");
                    ours.insert_bytes(s.as_bytes());
                    theirs.insert(s.as_str());
                }
                _ => {
                    let b: Vec<u8> = v.to_le_bytes()[..(v % 8) as usize].to_vec();
                    ours.insert_bytes(&b);
                    theirs.insert(b.as_slice());
                }
            }
        }
        assert_eq!(ours.bitset_bytes(), sbbf_bitset(&theirs), "{num_bytes}");
        assert_eq!(ours.to_parquet_bytes(), sbbf_bytes(&theirs), "{num_bytes}");
        // Generic integer keys hash as their plain encoding.
        let mut generic = SplitBlockBloomFilter::with_num_bytes(num_bytes);
        let mut typed = Sbbf::new_with_num_of_bytes(num_bytes);
        for v in values(7, 500) {
            generic.insert(&(v as i64));
            typed.insert(&(v as i64));
        }
        assert_eq!(generic.bitset_bytes(), sbbf_bitset(&typed));
    }
}

#[test]
fn sizing_from_ndv_and_fpp_matches() {
    for (ndv, fpp) in [
        (1u64, 0.5),
        (100, 0.01),
        (10_000, 0.001),
        (1_000_000, 0.01),
        (3_000_000, 0.05),
        (20_000_000, 0.01),
    ] {
        let ours = SplitBlockBloomFilter::new(ndv, fpp).unwrap();
        let theirs = Sbbf::new_with_ndv_fpp(ndv, fpp).unwrap();
        assert_eq!(ours.num_blocks(), theirs.num_blocks(), "{ndv} {fpp}");
    }
}

#[test]
fn parquet_reads_what_we_write() {
    let mut ours = SplitBlockBloomFilter::new(50_000, 0.01).unwrap();
    let vals = values(3, 50_000);
    for &v in &vals {
        ours.insert_i64(v as i64);
        ours.insert_bytes(&v.to_be_bytes());
    }
    let theirs = Sbbf::from_bytes(&ours.to_parquet_bytes()).unwrap();
    for &v in &vals {
        assert!(theirs.check(&(v as i64)));
        assert!(theirs.check(&v.to_be_bytes()[..]));
    }
    let from_bitset = Sbbf::new(&ours.bitset_bytes());
    assert_eq!(sbbf_bytes(&from_bitset), ours.to_parquet_bytes());
}

#[test]
fn we_read_what_parquet_writes() {
    let mut theirs = Sbbf::new_with_ndv_fpp(50_000, 0.02).unwrap();
    let vals = values(4, 50_000);
    for &v in &vals {
        theirs.insert(&(v as i32));
        theirs.insert(&f64::from_bits(v));
    }
    let ours = SplitBlockBloomFilter::from_parquet_bytes(&sbbf_bytes(&theirs)).unwrap();
    for &v in &vals {
        assert!(ours.contains_i32(v as i32));
        assert!(ours.contains_f64(f64::from_bits(v)));
    }
    // Both agree on absent values too (same bits, same answers).
    for v in values(5, 100_000) {
        assert_eq!(ours.contains_i64(v as i64), theirs.check(&(v as i64)));
    }
    let bitset = SplitBlockBloomFilter::from_bitset(&sbbf_bitset(&theirs)).unwrap();
    assert_eq!(bitset, ours);
}
