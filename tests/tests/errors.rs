//! What the errors say: every constructor names its own parameters, a truncation gives the
//! exact field size and bytes left, and bytes of one variant read as another name both types.

use bloom_blocked::{AtomicBlockedBloomFilter, BlockedBloomFilter, SplitBlockBloomFilter};
use bloom_classic::{AtomicBloomFilter, BloomFilter};
use bloom_core::internal::{SIZE_AND_HASHES_LEN, framing_len};
use bloom_core::{Error, Filter, Persist};
use bloom_counting::CountingBloomFilter;
use bloom_scalable::ScalableBloomFilter;

/// The parameter an `Err(InvalidParameter)` names, checked against its message.
fn named<T: std::fmt::Debug>(result: Result<T, Error>) -> &'static str {
    match result {
        Err(e @ Error::InvalidParameter { name, .. }) => {
            assert!(
                e.to_string().starts_with(&format!("invalid {name}: ")),
                "{e}"
            );
            name
        }
        other => panic!("not a parameter error: {other:?}"),
    }
}

#[test]
fn constructors_name_their_own_parameters() {
    for bad_rate in [0.0, 1.0, -0.5, f64::NAN, f64::INFINITY] {
        let cases = [
            (named(BloomFilter::new(100, bad_rate)), "fpr"),
            (named(AtomicBloomFilter::new(100, bad_rate)), "fpr"),
            (named(CountingBloomFilter::new(100, bad_rate)), "fpr"),
            (named(ScalableBloomFilter::new(100, bad_rate)), "fpr"),
            (named(BlockedBloomFilter::new(100, bad_rate)), "fpr"),
            (named(AtomicBlockedBloomFilter::new(100, bad_rate)), "fpr"),
            (named(SplitBlockBloomFilter::new(100, bad_rate)), "fpp"),
        ];
        for (i, (got, want)) in cases.into_iter().enumerate() {
            assert_eq!(got, want, "case {i}, rate {bad_rate}");
        }
    }
    let cases = [
        (named(BloomFilter::new(0, 0.01)), "expected_items"),
        (named(AtomicBloomFilter::new(0, 0.01)), "expected_items"),
        (named(CountingBloomFilter::new(0, 0.01)), "expected_items"),
        (named(ScalableBloomFilter::new(0, 0.01)), "initial_capacity"),
        (
            named(ScalableBloomFilter::builder(0, 0.01).build()),
            "initial_capacity",
        ),
        (named(BlockedBloomFilter::new(0, 0.01)), "expected_items"),
        (
            named(AtomicBlockedBloomFilter::new(0, 0.01)),
            "expected_items",
        ),
        (named(SplitBlockBloomFilter::new(0, 0.01)), "ndv"),
        // The `with_params` forms: (num_bits or num_counters, num_hashes).
        (named(BloomFilter::with_params(0, 3)), "num_bits"),
        (named(AtomicBloomFilter::with_params(0, 3)), "num_bits"),
        (
            named(CountingBloomFilter::with_params(0, 3)),
            "num_counters",
        ),
        (named(BlockedBloomFilter::with_params(0, 3)), "num_bits"),
        (
            named(AtomicBlockedBloomFilter::with_params(0, 3)),
            "num_bits",
        ),
    ];
    for (i, (got, want)) in cases.into_iter().enumerate() {
        assert_eq!(got, want, "case {i}");
    }
    for k in [0, 65] {
        let bits = bloom_core::bits::BitStore::new(64).unwrap();
        let cases = [
            named(BloomFilter::with_params(1024, k)),
            named(AtomicBloomFilter::with_params(1024, k)),
            named(CountingBloomFilter::with_params(1024, k)),
            named(BlockedBloomFilter::with_params(1024, k)),
            named(AtomicBlockedBloomFilter::with_params(1024, k)),
            named(BloomFilter::from_bits(bits, k, 0)),
        ];
        assert_eq!(cases, ["num_hashes"; 6], "k = {k}");
    }
    assert_eq!(
        ScalableBloomFilter::new(0, 0.01).unwrap_err().to_string(),
        "invalid initial_capacity: must be at least 1 (got 0)"
    );
    assert_eq!(
        SplitBlockBloomFilter::new(1000, 2.0)
            .unwrap_err()
            .to_string(),
        "invalid fpp: must be a number in (0, 1) (got 2)"
    );
}

/// A classic filter of about 180 KB (payload 179,720 bytes): cut by one byte, its error
/// used to give the field's size as the bytes needed.
fn classic_180k() -> BloomFilter {
    let mut f = BloomFilter::new(150_000, 0.01).unwrap();
    f.insert_all(0..150_000u64);
    f
}

#[test]
fn a_classic_filter_missing_its_last_byte_says_one_byte_is_missing() {
    let bytes = classic_180k().to_bytes();
    // The payload and its checksum are the last field: everything after the length.
    let last_field =
        (bytes.len() - framing_len(SIZE_AND_HASHES_LEN) - SIZE_AND_HASHES_LEN + 8) as u64;
    assert_eq!(last_field, 179_728, "the 180 KB filter");
    let err = BloomFilter::from_bytes(&bytes[..bytes.len() - 1]).unwrap_err();
    assert_eq!(
        err,
        Error::Truncated {
            needed: last_field,
            available: last_field - 1
        }
    );
    assert_eq!(
        err.to_string(),
        "truncated input: at least 1 byte missing (the next field needs 179728 bytes, \
         179727 left)"
    );
    // Half the payload gone: the count is what is missing, not the field's size.
    let cut = bytes.len() - 100_000;
    assert_eq!(
        BloomFilter::from_bytes(&bytes[..cut])
            .unwrap_err()
            .to_string(),
        "truncated input: at least 100000 bytes missing (the next field needs 179728 bytes, \
         79728 left)"
    );
    // Inside the header: the seed is 8 bytes, and 3 of them are there.
    assert_eq!(
        BloomFilter::from_bytes(&bytes[..11])
            .unwrap_err()
            .to_string(),
        "truncated input: at least 5 bytes missing (the next field needs 8 bytes, 3 left)"
    );
}

#[test]
fn a_scalable_filter_cut_to_20_bytes_says_41_are_missing() {
    let mut f = ScalableBloomFilter::new(1000, 0.01).unwrap();
    f.insert_all(0..3000u64).unwrap();
    let bytes = f.to_bytes();
    let err = ScalableBloomFilter::from_bytes(&bytes[..20]).unwrap_err();
    // The header takes 16 bytes; the parameters are 45, of which 4 are there.
    assert_eq!(
        err,
        Error::Truncated {
            needed: 45,
            available: 4
        }
    );
    assert_eq!(
        err.to_string(),
        "truncated input: at least 41 bytes missing (the next field needs 45 bytes, 4 left)"
    );
    // One byte short: the last field (the layers and the checksum) lacks exactly one.
    let last_field = (bytes.len() - framing_len(45) - 45 + 8) as u64;
    let err = ScalableBloomFilter::from_bytes(&bytes[..bytes.len() - 1]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "truncated input: at least 1 byte missing (the next field needs {last_field} \
             bytes, {} left)",
            last_field - 1
        )
    );
}

/// One filter of each variant, as bytes, with the type names its variant's message uses.
fn every_variant() -> Vec<(Vec<u8>, &'static str)> {
    vec![
        (
            BloomFilter::new(100, 0.01).unwrap().to_bytes(),
            "a BloomFilter or AtomicBloomFilter",
        ),
        (
            CountingBloomFilter::new(100, 0.01).unwrap().to_bytes(),
            "a CountingBloomFilter",
        ),
        (
            ScalableBloomFilter::new(100, 0.01).unwrap().to_bytes(),
            "a ScalableBloomFilter",
        ),
        (
            BlockedBloomFilter::new(100, 0.01).unwrap().to_bytes(),
            "a BlockedBloomFilter or AtomicBlockedBloomFilter",
        ),
        (
            SplitBlockBloomFilter::new(100, 0.01).unwrap().to_bytes(),
            "a SplitBlockBloomFilter",
        ),
    ]
}

/// Reads every variant's bytes as `F`: its own decode, the others name both types.
fn check_wrong_variant<F: Filter + Persist + std::fmt::Debug>(own: &str) {
    for (bytes, held) in every_variant() {
        if held == own {
            assert!(F::from_bytes(&bytes).is_ok(), "{}", F::NAME);
            continue;
        }
        let err = F::from_bytes(&bytes).unwrap_err();
        assert!(matches!(err, Error::WrongVariant { .. }), "{err:?}");
        assert_eq!(
            err.to_string(),
            format!("wrong filter variant: these bytes hold {held}, not {own}"),
            "{}",
            F::NAME
        );
    }
}

#[test]
fn bytes_of_another_variant_name_both_types() {
    let classic = "a BloomFilter or AtomicBloomFilter";
    let blocked = "a BlockedBloomFilter or AtomicBlockedBloomFilter";
    check_wrong_variant::<BloomFilter>(classic);
    check_wrong_variant::<AtomicBloomFilter>(classic);
    check_wrong_variant::<CountingBloomFilter>("a CountingBloomFilter");
    check_wrong_variant::<ScalableBloomFilter>("a ScalableBloomFilter");
    check_wrong_variant::<BlockedBloomFilter>(blocked);
    check_wrong_variant::<AtomicBlockedBloomFilter>(blocked);
    check_wrong_variant::<SplitBlockBloomFilter>("a SplitBlockBloomFilter");
    // Counting bytes read as a classic filter, which used to say only "expected tag 2,
    // found tag 1": the message word for word.
    let counting = CountingBloomFilter::new(100, 0.01).unwrap().to_bytes();
    assert_eq!(
        BloomFilter::from_bytes(&counting).unwrap_err().to_string(),
        "wrong filter variant: these bytes hold a CountingBloomFilter, not a BloomFilter or \
         AtomicBloomFilter"
    );
}
