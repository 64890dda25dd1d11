//! What the errors say: a truncation gives the exact field size and bytes left.

use bloom_classic::BloomFilter;
use bloom_core::Error;
use bloom_core::format::{FRAMING_LEN, SIZE_AND_HASHES_LEN};
use bloom_scalable::ScalableBloomFilter;

/// A classic filter of about 180 KB (payload 179,720 bytes), as in issue 14.
fn classic_180k() -> BloomFilter {
    let mut f = BloomFilter::new(150_000, 0.01).unwrap();
    f.insert_all(0..150_000u64);
    f
}

#[test]
fn a_classic_filter_missing_its_last_byte_says_one_byte_is_missing() {
    let bytes = classic_180k().to_bytes();
    // The payload and its checksum are the last field: everything after the length.
    let last_field = (bytes.len() - FRAMING_LEN - SIZE_AND_HASHES_LEN + 8) as u64;
    assert_eq!(last_field, 179_728, "the filter of the issue");
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
    let last_field = (bytes.len() - FRAMING_LEN - 45 + 8) as u64;
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
