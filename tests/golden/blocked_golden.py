#!/usr/bin/env python3
"""Golden bytes of BlockedBloomFilter, computed without the Rust code.

An independent model of the 512-bit blocked filter: the seeded hash of golden_model.py (XXH3
from the reference C library through the `xxhash` package, `pip install xxhash`, for long
keys), the block choice, the bit positions and the framing written out as docs/format.md (blocked section) describes them.
tests/tests/blocked.rs pins its output; run this script to regenerate it after a deliberate
change of format.
"""
from golden_model import DEFAULT_SEED, M64, digest, frame, s, u64, words_le


# The probes' multipliers: Parquet's eight salts, then the 32-bit golden ratio, MurmurHash3's
# two finaliser multipliers and xxHash32's five primes.
SALT = [0x47B6137B, 0x44974D91, 0x8824AD5B, 0xA2B7289D, 0x705495C7, 0x2DF1424B, 0x9EFC4947,
        0x5C6BFB31, 0x9E3779B9, 0x85EBCA6B, 0xC2B2AE35, 0x27D4EB2F, 0x165667B1, 0x85EBCA77,
        0xC2B2AE3D, 0x9E3779B1]


def positions(h, k):
    # g = h * 0x9E3779B97F4A7C15 mod 2^64; probe i multiplies the low (i even) or high (i odd)
    # 32 bits of g by SALT[i] mod 2^32 and keeps the top nine bits. Repeats are kept.
    g = (h * 0x9E3779B97F4A7C15) & M64
    halves = [g & 0xFFFFFFFF, g >> 32]
    return [((halves[i % 2] * SALT[i]) & 0xFFFFFFFF) >> 23 for i in range(k)]


def build(num_bits, k, seed, keys):
    num_blocks = num_bits // 512
    words = [0] * (num_bits // 64)
    for key in keys:
        h = digest(key, seed) & M64  # the seeded hash, the low half
        b = (h * num_blocks) >> 64
        for p in positions(h, k):
            words[8 * b + p // 64] |= 1 << (p % 64)
    return frame(4, seed, num_bits, k, words_le(words))


# A: two blocks, k = 6, the u64 keys 0..10.
a = build(1024, 6, DEFAULT_SEED, [u64(i) for i in range(10)])
# B: three blocks (not a power of two), k = 16 (every probe lane), seed 7, string keys.
b = build(1536, 16, 7, [s("key%d" % i) for i in range(40)])
for name, v in [("A", a), ("B", b)]:
    print(name, len(v), v.hex())
