#!/usr/bin/env python3
"""Golden bytes of MultiblockBloomFilter, computed without the Rust code.

An independent model of the multiblock layout: the seeded hash of golden_model.py (XXH3 from
the reference C library through the `xxhash` package for long keys), the block choice, the
field re-mix, one bit per 64-bit word and the framing written out as docs/format.md (multiblock section) describes
them. tests/tests/multiblock.rs pins its output; run this script to regenerate it after a
deliberate change of format.
"""
from golden_model import DEFAULT_SEED, M64, digest, frame, s, u64, words_le


def fields(h):
    # lo ^ hi of the 128-bit product of h and the 64-bit golden ratio.
    product = h * 0x9E3779B97F4A7C15
    return (product & M64) ^ (product >> 64)


def build(num_bits, seed, keys):
    num_blocks = num_bits // 512
    words = [0] * (num_bits // 64)
    for key in keys:
        h = digest(key, seed) & M64  # the seeded hash, the low half
        b = (h * num_blocks) >> 64
        f = fields(h)
        for w in range(8):
            words[8 * b + w] |= 1 << ((f >> (6 * w)) & 63)
    return frame(7, seed, num_bits, 8, words_le(words))


# A: two blocks, the u64 keys 0..10.
a = build(1024, DEFAULT_SEED, [u64(i) for i in range(10)])
# B: three blocks (not a power of two), seed 7, string keys.
b = build(1536, 7, [s("key%d" % i) for i in range(40)])
for name, v in [("A", a), ("B", b)]:
    print(name, len(v), v.hex())
