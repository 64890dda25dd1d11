#!/usr/bin/env python3
"""Golden bytes of BlockedBloomFilter, computed without the Rust code.

An independent model of the 512-bit blocked filter: XXH3 from the reference C library
(through the `xxhash` package, `pip install xxhash`), the block choice, the bit positions and
the framing written out as docs/format.md (blocked section) describes them.
tests/tests/blocked.rs pins its output; run this script to regenerate it after a deliberate
change of format.
"""
from golden_model import DEFAULT_SEED, M64, digest, frame, s, u64, words_le


def splitmix(w):
    # The next word of fields: SplitMix64's output function of w plus the golden increment.
    z = (w + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def positions(high, k):
    # The first k distinct values among the 9-bit fields of high (bits 9j..9j+9, j < 7),
    # then of splitmix(high), splitmix(splitmix(high)), ...
    chosen, word = [], high
    while True:
        for j in range(7):
            p = (word >> (9 * j)) & 511
            if p not in chosen:
                chosen.append(p)
                if len(chosen) == k:
                    return chosen
        word = splitmix(word)


def build(num_bits, k, seed, keys):
    num_blocks = num_bits // 512
    words = [0] * (num_bits // 64)
    for key in keys:
        h = digest(key, seed)
        low, high = h & M64, h >> 64
        b = (low * num_blocks) >> 64
        for p in positions(high, k):
            words[8 * b + p // 64] |= 1 << (p % 64)
    return frame(4, seed, num_bits, k, words_le(words))


# A: two blocks, k = 6, the u64 keys 0..10.
a = build(1024, 6, DEFAULT_SEED, [u64(i) for i in range(10)])
# B: three blocks (not a power of two), k = 16 (more than seven fields: the SplitMix words,
# and repeats skipped), seed 7, string keys.
b = build(1536, 16, 7, [s("key%d" % i) for i in range(40)])
for name, v in [("A", a), ("B", b)]:
    print(name, len(v), v.hex())
