//! `from_bytes` allocates no more than its input's length, whatever the bytes claim.
//! `read_from` allocates only as bytes arrive, and `write_to` through a bounded buffer.
//!
//! A counting global allocator records, per thread, the peak of live heap bytes; each check
//! decodes bytes and compares that peak with the input's length. Hostile inputs claim huge
//! sizes with a valid checksum, so the structural checks, not the checksum, must refuse them
//! before allocating.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use bloom_classic::{AtomicBloomFilter, BloomFilter};
use bloom_core::format;
use bloom_tests::payload_len_offset;

struct Counting;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn record(delta: isize) {
    // `try_with`: the allocator also runs while thread-locals are being torn down.
    let _ = LIVE.try_with(|live| {
        let now = live.get().saturating_add_signed(delta);
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

// SAFETY: every method forwards to the system allocator unchanged; the bookkeeping touches
// only const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size() as isize);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(layout.size() as isize);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        record(-(layout.size() as isize));
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size as isize - layout.size() as isize);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `decode` and returns the peak of heap bytes it added on this thread.
fn peak_during(decode: impl FnOnce()) -> usize {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    decode();
    PEAK.with(Cell::get) - base
}

/// Asserts that `decode` of `bytes` allocates at most the input's length plus a small
/// constant (the filter's own struct and error strings).
pub fn assert_bounded<T, E>(bytes: &[u8], decode: impl Fn(&[u8]) -> Result<T, E>) {
    let peak = peak_during(|| {
        let _ = decode(bytes);
    });
    assert!(
        peak <= bytes.len() + 1024,
        "decoding {} bytes allocated {peak} bytes",
        bytes.len()
    );
}

/// Rewrites a field of a classic filter's bytes and fixes the checksum.
fn with_field(bytes: &[u8], offset: usize, value: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[offset..offset + value.len()].copy_from_slice(value);
    let end = out.len() - 8;
    let sum = format::checksum(&out[..end]);
    out[end..].copy_from_slice(&sum.to_le_bytes());
    out
}

#[test]
fn classic_from_bytes_is_bounded_by_its_input() {
    let mut f = BloomFilter::new(50_000, 0.01).unwrap();
    f.insert_all(0..50_000u32);
    let bytes = f.to_bytes();
    // The counter sees the decoded filter's own allocation...
    let decoded = peak_during(|| drop(BloomFilter::from_bytes(&bytes).unwrap()));
    assert!(decoded >= f.bits().heap_bytes(), "{decoded}");
    // ...and nothing beyond the input's size.
    assert_bounded(&bytes, BloomFilter::from_bytes);
    assert_bounded(&bytes, AtomicBloomFilter::from_bytes);

    // Parameters claiming 2^40 bits, or a payload length near u64::MAX, with valid checksums.
    let huge_bits = with_field(&bytes, 16, &(1u64 << 40).to_le_bytes());
    assert!(BloomFilter::from_bytes(&huge_bits).is_err());
    assert_bounded(&huge_bits, BloomFilter::from_bytes);
    let huge_payload = with_field(&bytes, 28, &(u64::MAX - 8).to_le_bytes());
    assert!(BloomFilter::from_bytes(&huge_payload).is_err());
    assert_bounded(&huge_payload, BloomFilter::from_bytes);

    // Every truncation.
    for len in (0..bytes.len()).step_by(997) {
        assert_bounded(&bytes[..len], BloomFilter::from_bytes);
    }
}

/// `read_from` over a short stream (`bytes` cut to `keep`) whose header claims 2^40 payload
/// bytes: `Truncated`, having allocated no more than twice what arrived plus one 64 KiB
/// chunk (the buffer doubles as bytes arrive, never ahead of them).
fn assert_stream_bounded<T: std::fmt::Debug>(
    bytes: &[u8],
    keep: usize,
    read_from: impl Fn(&[u8]) -> Result<T, bloom_core::Error>,
) {
    let at = payload_len_offset(bytes);
    let mut lying = bytes.to_vec();
    lying[at..at + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    lying.truncate(keep);
    let mut result = None;
    let peak = peak_during(|| result = Some(read_from(&lying)));
    assert!(
        matches!(result, Some(Err(bloom_core::Error::Truncated { .. }))),
        "{result:?}"
    );
    let bound = 2 * lying.len() + bloom_core::internal::STREAM_CHUNK + 1024;
    assert!(
        peak <= bound,
        "reading {} bytes claiming 2^40 allocated {peak} bytes, bound {bound}",
        lying.len()
    );
}

#[test]
fn stream_readers_allocate_only_as_bytes_arrive() {
    use bloom_blocked::{AtomicBlockedBloomFilter, BlockedBloomFilter, SplitBlockBloomFilter};
    use bloom_counting::CountingBloomFilter;
    use bloom_scalable::ScalableBloomFilter;

    let mut classic = BloomFilter::new(50_000, 0.01).unwrap();
    classic.insert_all(0..50_000u32);
    let bytes = classic.to_bytes();
    assert_stream_bounded(&bytes, usize::MAX, |b| BloomFilter::read_from(b));
    assert_stream_bounded(&bytes, usize::MAX, |b| AtomicBloomFilter::read_from(b));
    // A stream far shorter than one chunk.
    assert_stream_bounded(&bytes, 100, |b| BloomFilter::read_from(b));
    // An honest stream: the frame's buffer (its exact size, grown as bytes arrived) and the
    // filter built from it.
    let peak = peak_during(|| drop(BloomFilter::read_from(&bytes[..]).unwrap()));
    assert!(
        peak <= 2 * bytes.len() + 1024,
        "{peak} for {} bytes",
        bytes.len()
    );

    let counting = CountingBloomFilter::new(10_000, 0.01).unwrap();
    assert_stream_bounded(&counting.to_bytes(), usize::MAX, |b| {
        CountingBloomFilter::read_from(b)
    });
    // The word-store readers hold the payload once: the store the filter keeps, grown (by
    // `realloc`) as bytes arrive, beside a few small buffers.
    let mut counting = CountingBloomFilter::new(200_000, 0.01).unwrap();
    counting.insert_all(0..200_000u32);
    let counting_bytes = counting.to_bytes();
    let classic_bytes = classic.to_bytes();
    let mut scalable = ScalableBloomFilter::new(10_000, 0.01).unwrap();
    scalable.insert_all(0..200_000u32).unwrap();
    let scalable_bytes = scalable.to_bytes();
    let mut split = bloom_blocked::SplitBlockBloomFilter::new(100_000, 0.01).unwrap();
    split.insert_all(0..100_000u32);
    let split_bytes = split.to_bytes();
    let mut aging = bloom_aging::AgingBloomFilter::new(50_000, 0.01).unwrap();
    aging.insert_all(0..100_000u32);
    let aging_bytes = aging.to_bytes();
    let peaks = [
        (
            aging_bytes.len(),
            peak_during(|| {
                drop(bloom_aging::AgingBloomFilter::read_from(&aging_bytes[..]).unwrap())
            }),
        ),
        (
            split_bytes.len(),
            peak_during(|| {
                drop(bloom_blocked::SplitBlockBloomFilter::read_from(&split_bytes[..]).unwrap())
            }),
        ),
        (
            scalable_bytes.len(),
            peak_during(|| drop(ScalableBloomFilter::read_from(&scalable_bytes[..]).unwrap())),
        ),
        (
            counting_bytes.len(),
            peak_during(|| drop(CountingBloomFilter::read_from(&counting_bytes[..]).unwrap())),
        ),
        (
            classic_bytes.len(),
            peak_during(|| drop(BloomFilter::read_from(&classic_bytes[..]).unwrap())),
        ),
    ];
    for (len, peak) in peaks {
        assert!(peak <= len + 4_096, "{peak} to read {len} bytes");
    }
    let mut scalable = ScalableBloomFilter::new(1_000, 0.01).unwrap();
    scalable.insert_all(0..10_000u32).unwrap();
    assert_stream_bounded(&scalable.to_bytes(), usize::MAX, |b| {
        ScalableBloomFilter::read_from(b)
    });
    let blocked = BlockedBloomFilter::new(10_000, 0.01).unwrap();
    assert_stream_bounded(&blocked.to_bytes(), usize::MAX, |b| {
        BlockedBloomFilter::read_from(b)
    });
    assert_stream_bounded(&blocked.to_bytes(), usize::MAX, |b| {
        AtomicBlockedBloomFilter::read_from(b)
    });
    let sbbf = SplitBlockBloomFilter::new(10_000, 0.01).unwrap();
    assert_stream_bounded(&sbbf.to_bytes(), usize::MAX, |b| {
        SplitBlockBloomFilter::read_from(b)
    });
}

/// `write_to` holds the filter plus its 64 KiB buffer, however large the filter: here a
/// filter of about 1.2 MB writes through about 65 KiB of heap.
#[test]
fn stream_writers_use_a_bounded_buffer() {
    let mut classic = BloomFilter::new(1_000_000, 0.01).unwrap();
    classic.insert_all(0..1_000u32);
    let atomic = classic.clone().into_atomic();
    let mut sink = std::io::sink();
    for peak in [
        peak_during(|| classic.write_to(&mut sink).unwrap()),
        peak_during(|| atomic.write_to(&mut sink).unwrap()),
    ] {
        assert!(
            peak <= bloom_core::internal::STREAM_CHUNK + 8 * 1024,
            "{peak} bytes to write {} bytes",
            classic.to_bytes().len()
        );
    }
}

/// The JVM formats' readers: a word count of 2^31 - 1 on a short input is refused before any
/// allocation (`from_bytes`) or allocates only as words arrive (`read_from`).
#[test]
fn jvm_readers_are_bounded_by_their_input() {
    use bloom_jvm::{GuavaBloomFilter, SparkBloomFilter, SparkVersion};

    let mut spark = SparkBloomFilter::with_version(SparkVersion::V1, 10_000, 200_000, 0).unwrap();
    (0..10_000).for_each(|i| {
        spark.insert_i64(i);
    });
    let mut guava = GuavaBloomFilter::new(10_000, 0.001).unwrap();
    (0..10_000).for_each(|i| {
        guava.insert_i64(i);
    });
    // (bytes, offset of the word count)
    let cases = [
        (spark.to_bytes(), 8),
        (SparkBloomFilter::new(10_000, 0.01).unwrap().to_bytes(), 12),
        (guava.to_bytes(), 2),
    ];
    for (bytes, at) in &cases {
        let mut lying = bytes.clone();
        lying[*at..at + 4].copy_from_slice(&i32::MAX.to_be_bytes());
        let guava_case = *at == 2;
        for keep in [lying.len(), 100, at + 4] {
            let input = &lying[..keep];
            let mut result = None;
            let peak = peak_during(|| {
                result = Some(if guava_case {
                    GuavaBloomFilter::from_bytes(input).map(drop)
                } else {
                    SparkBloomFilter::from_bytes(input).map(drop)
                })
            });
            assert!(matches!(
                result,
                Some(Err(bloom_core::Error::Truncated { .. }))
            ));
            assert!(peak <= 1024, "from_bytes of {keep} bytes allocated {peak}");
            let peak = peak_during(|| {
                result = Some(if guava_case {
                    GuavaBloomFilter::read_from(input).map(drop)
                } else {
                    SparkBloomFilter::read_from(input).map(drop)
                })
            });
            assert!(matches!(
                result,
                Some(Err(bloom_core::Error::Truncated { .. }))
            ));
            let bound = 2 * keep + 64 * 1024 + 1024;
            assert!(peak <= bound, "read_from of {keep} bytes allocated {peak}");
        }
    }
}
