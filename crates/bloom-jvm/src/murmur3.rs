//! The two MurmurHash3 functions the JVM filters hash with.
//!
//! * Spark's sketch module hashes with its own copy of MurmurHash3 x86_32 (after Spark's
//!   `common/sketch/.../Murmur3_x86_32.java`). Longs are hashed as two 4-byte blocks (low
//!   half, then high half); byte arrays as little-endian 4-byte blocks followed by each tail
//!   byte mixed as a whole block of its own, sign-extended (`hashUnsafeBytes`). That tail
//!   handling is not the reference MurmurHash3's, so for lengths that are not a multiple of
//!   four the values differ from every other Murmur3 library.
//! * Guava's `Hashing.murmur3_128()` is the reference MurmurHash3 x64_128 (after Guava's
//!   `Murmur3_128HashFunction.java`), with seed 0 for the Bloom filter.

const C1_32: u32 = 0xcc9e_2d51;
const C2_32: u32 = 0x1b87_3593;

#[inline(always)]
fn mix_k1(k1: u32) -> u32 {
    k1.wrapping_mul(C1_32).rotate_left(15).wrapping_mul(C2_32)
}

#[inline(always)]
fn mix_h1(h1: u32, k1: u32) -> u32 {
    (h1 ^ k1)
        .rotate_left(13)
        .wrapping_mul(5)
        .wrapping_add(0xe654_6b64)
}

#[inline(always)]
fn fmix32(h1: u32, len: u32) -> u32 {
    let mut h = h1 ^ len;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// Spark's `Murmur3_x86_32.hashLong(value, seed)`.
#[inline(always)]
pub(crate) fn spark_hash_long(value: i64, seed: i32) -> i32 {
    let v = value as u64;
    let h1 = mix_h1(seed as u32, mix_k1(v as u32));
    let h1 = mix_h1(h1, mix_k1((v >> 32) as u32));
    fmix32(h1, 8) as i32
}

/// Spark's `Murmur3_x86_32.hashUnsafeBytes(bytes, seed)`: little-endian 4-byte blocks, then
/// each remaining byte as a block of its own, sign-extended as Java's `byte` is.
///
/// The length is mixed in as Java's `int`: arrays on the JVM hold fewer than 2^31 bytes, and
/// the callers reject longer keys before hashing.
pub(crate) fn spark_hash_bytes(bytes: &[u8], seed: i32) -> i32 {
    let mut blocks = bytes.chunks_exact(4);
    let mut h1 = seed as u32;
    for block in &mut blocks {
        let k = u32::from_le_bytes([block[0], block[1], block[2], block[3]]);
        h1 = mix_h1(h1, mix_k1(k));
    }
    for &b in blocks.remainder() {
        h1 = mix_h1(h1, mix_k1(b as i8 as i32 as u32));
    }
    fmix32(h1, bytes.len() as u32) as i32
}

const C1_64: u64 = 0x87c3_7b91_1142_53d5;
const C2_64: u64 = 0x4cf5_ad43_2745_937f;

#[inline(always)]
fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

#[inline(always)]
fn mix_k1_64(k1: u64) -> u64 {
    k1.wrapping_mul(C1_64).rotate_left(31).wrapping_mul(C2_64)
}

#[inline(always)]
fn mix_k2_64(k2: u64) -> u64 {
    k2.wrapping_mul(C2_64).rotate_left(33).wrapping_mul(C1_64)
}

#[inline(always)]
fn finish128(mut h1: u64, mut h2: u64, len: u64) -> (u64, u64) {
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    (h1, h2)
}

/// MurmurHash3 x64_128 with seed 0 over `bytes`: the two 64-bit halves, in the order Guava's
/// `HashCode` holds them (its first eight bytes, little-endian, are the first half).
pub(crate) fn murmur3_x64_128(bytes: &[u8]) -> (u64, u64) {
    let (mut h1, mut h2) = (0u64, 0u64);
    let mut blocks = bytes.chunks_exact(16);
    for block in &mut blocks {
        let k1 = u64::from_le_bytes(block[..8].try_into().unwrap_or([0; 8]));
        let k2 = u64::from_le_bytes(block[8..].try_into().unwrap_or([0; 8]));
        h1 ^= mix_k1_64(k1);
        h1 = h1
            .rotate_left(27)
            .wrapping_add(h2)
            .wrapping_mul(5)
            .wrapping_add(0x52dc_e729);
        h2 ^= mix_k2_64(k2);
        h2 = h2
            .rotate_left(31)
            .wrapping_add(h1)
            .wrapping_mul(5)
            .wrapping_add(0x3849_5ab5);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let mut k = [0u8; 16];
        k[..tail.len()].copy_from_slice(tail);
        let k1 = u64::from_le_bytes(k[..8].try_into().unwrap_or([0; 8]));
        let k2 = u64::from_le_bytes(k[8..].try_into().unwrap_or([0; 8]));
        if tail.len() > 8 {
            h2 ^= mix_k2_64(k2);
        }
        h1 ^= mix_k1_64(k1);
    }
    finish128(h1, h2, bytes.len() as u64)
}

/// [`murmur3_x64_128`] of the eight little-endian bytes of `value` (Guava's `longFunnel`),
/// without going through a byte slice: a tail of eight bytes is one `k1` block.
#[inline(always)]
pub(crate) fn murmur3_x64_128_long(value: i64) -> (u64, u64) {
    let h1 = mix_k1_64(value as u64);
    finish128(h1, 0, 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x64_128_reference_values() {
        // The reference implementation's (SMHasher's MurmurHash3_x64_128) outputs, seed 0,
        // as the two little-endian halves of its 16 output bytes.
        assert_eq!(murmur3_x64_128(b""), (0, 0));
        // "hello": Guava's HashCode prints 029bbd41b3a7d8cb191dae486a901e5b (its bytes in
        // order), and its asLong() is 0xcbd8a7b341bd9b02.
        let (h1, h2) = murmur3_x64_128(b"hello");
        assert_eq!(h1, 0xcbd8_a7b3_41bd_9b02);
        assert_eq!(
            h2.to_le_bytes(),
            [0x19, 0x1d, 0xae, 0x48, 0x6a, 0x90, 0x1e, 0x5b]
        );
    }

    #[test]
    fn long_shortcut_equals_the_bytes() {
        for v in [0i64, 1, -1, 42, i64::MIN, i64::MAX, 0x0123_4567_89ab_cdef] {
            assert_eq!(murmur3_x64_128_long(v), murmur3_x64_128(&v.to_le_bytes()));
        }
    }

    #[test]
    fn spark_long_is_two_int_blocks() {
        // hashLong mixes the low then the high half as 4-byte blocks: the same as hashing
        // the eight little-endian bytes, which are two whole blocks and no tail.
        for v in [0i64, 1, -1, 42, i64::MIN, i64::MAX] {
            for seed in [0, 1, -7] {
                assert_eq!(
                    spark_hash_long(v, seed),
                    spark_hash_bytes(&v.to_le_bytes(), seed)
                );
            }
        }
    }

    #[test]
    fn spark_tail_bytes_are_whole_blocks() {
        // One byte 0x80 is mixed as the block 0xffffff80 (sign extension), with length 1.
        let expected = fmix32(mix_h1(0, mix_k1(0xffff_ff80)), 1) as i32;
        assert_eq!(spark_hash_bytes(&[0x80], 0), expected);
        assert_ne!(spark_hash_bytes(&[0x80], 0), spark_hash_bytes(&[0x7f], 0));
    }
}
