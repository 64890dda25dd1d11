#!/usr/bin/env python3
"""Golden bytes of Multiblock32BloomFilter, computed without the Rust code.

An independent model of the 32-bit multiblock layout: the seeded hash of golden_model.py
(XXH3 from the reference C library through the `xxhash` package for long keys), the block
by multiply-shift, the field word, one bit per 32-bit word and the framing written out as
docs/format.md (32-bit multiblock section) describes them.
tests/tests/multiblock32.rs pins its output; run this script to regenerate it after a
deliberate change of format.
"""
from golden_model import DEFAULT_SEED, M64, digest, frame, s, u64, words_le

# Where the field of 32-bit word i of a block starts in the field word.
SHIFTS = [0, 32, 5, 37, 10, 42, 15, 47]


def fields(h):
    # h XORed with itself shifted left by 20, cut to 64 bits.
    return (h ^ (h << 20)) & M64


def build(num_bits, seed, keys):
    num_lines = num_bits // 512
    # The filter as 32-bit words: block b, word i is words[8 b + i].
    words = [0] * (num_bits // 32)
    for key in keys:
        h = digest(key, seed) & M64  # the seeded hash, the low half
        # The 256-bit block, counting two per line; 8 32-bit words each.
        block = (h * 2 * num_lines) >> 64
        f = fields(h)
        for i in range(8):
            words[8 * block + i] |= 1 << ((f >> SHIFTS[i]) & 31)
    # Two 32-bit words make one little-endian 64-bit word, the low one first.
    pairs = [words[2 * j] | (words[2 * j + 1] << 32) for j in range(len(words) // 2)]
    return frame(8, seed, num_bits, 8, words_le(pairs))


# A: two lines, the u64 keys 0..10.
a = build(1024, DEFAULT_SEED, [u64(i) for i in range(10)])
# B: three lines (not a power of two), seed 7, string keys.
b = build(1536, 7, [s("key%d" % i) for i in range(40)])
for name, v in [("A", a), ("B", b)]:
    print(name, len(v), v.hex())
