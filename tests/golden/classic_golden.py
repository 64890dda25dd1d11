#!/usr/bin/env python3
"""Golden bytes of BloomFilter, computed without the Rust code.

An independent model of the classic filter: the seeded hash of golden_model.py (XXH3 from the reference C library, through
the `xxhash` package, `pip install xxhash`), the probe sequence's closed form (pairs sharing
a 512-bit group, docs/format.md and bloom-core's `Probes`) and the framing of docs/format.md.
tests/tests/classic.rs pins its output; run this script to regenerate it after a deliberate
change of format.
"""
from golden_model import DEFAULT_SEED, classic_probes, digest, frame, s, u64, words_le


def build(num_bits, k, seed, keys):
    words = [0] * ((num_bits + 63) // 64)
    for key in keys:
        for p in classic_probes(digest(key, seed), k, num_bits):
            words[p // 64] |= 1 << (p % 64)
    return frame(1, seed, num_bits, k, words_le(words))


# 128 bits, k = 3, the u64 keys 0..10 and the string "golden".
print(build(128, 3, DEFAULT_SEED, [u64(i) for i in range(10)] + [s("golden")]).hex())
