#!/usr/bin/env python3
"""Golden bytes of AgingBloomFilter, computed without the Rust code.

An independent model of the aging filter as docs/format.md ("Aging") and docs/aging.md
describe it: XXH3-128 from the reference C library (through the `xxhash` package, `pip
install xxhash`), a key's bit in physical slice j at `reduce(mix(a + j b), slice_bits)`
with SplitMix64's finalizer, inserts into the k newest slices, a shift after every
`generation_len` inserts, and the 64 bytes of parameters and ring state. tests/tests/aging.rs
pins its output; run this script to regenerate it after a deliberate change of format.
"""
import struct

import xxhash

from golden_model import DEFAULT_SEED, M64, digest, frame_params, s, u64


def mix(z):
    """SplitMix64's finalizer (Steele, Lea, Flood 2014)."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def build(k, l, slice_bits, generation_len, seed, keys):
    slices = k + l
    bits = [[0] * slice_bits for _ in range(slices)]
    head, count = 0, 0
    for key in keys:
        h = digest(key, seed)
        a, b = h & M64, h >> 64
        for i in range(k):
            j = (head + i) % slices
            bits[j][(mix((a + j * b) & M64) * slice_bits) >> 64] = 1
        count += 1
        if count == generation_len:
            head = (head - 1) % slices
            bits[head] = [0] * slice_bits
            count = 0
    payload = b"".join(
        struct.pack("<Q", sum(bit << (i % 64) for i, bit in enumerate(row[w:w + 64])))
        for row in bits
        for w in range(0, slice_bits, 64)
    )
    params = struct.pack("<IIQQQIIQQQ", k, l, slice_bits, generation_len, 0, head, 0, count, 0, 0)
    return frame_params(6, seed, params, payload)


# k = 2, l = 3, 64-bit slices, generations of 2 inserts: the u64 keys 0..10, then "golden".
print(build(2, 3, 64, 2, DEFAULT_SEED, [u64(i) for i in range(10)] + [s("golden")]).hex())
