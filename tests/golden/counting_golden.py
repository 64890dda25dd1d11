#!/usr/bin/env python3
"""Golden bytes of CountingBloomFilter, computed without the Rust code.

An independent model of the counting filter: the seeded hash of golden_model.py (XXH3 from the reference C library, through the
`xxhash` package, `pip install xxhash`), the probe sequence and the framing written out as
docs/format.md describes them. tests/tests/counting.rs pins its output; run this script to
regenerate it after a deliberate change of format.
"""
from golden_model import DEFAULT_SEED, classic_probes, digest, frame, s, u64


def build(m, k, seed, keys):
    counters = [0] * m
    for key in keys:
        for p in classic_probes(digest(key, seed), k, m):
            counters[p] = min(15, counters[p] + 1)
    payload = bytearray((m + 15) // 16 * 8)
    for i, c in enumerate(counters):
        payload[i // 2] |= c << (4 * (i % 2))
    return frame(2, seed, m, k, bytes(payload))


a = build(40, 3, DEFAULT_SEED, [u64(1), u64(2), u64(3), u64(3)])
b = build(20, 4, 7, [s("hello")] * 16 + [s("world")])
for name, v in [("A", a), ("B", b)]:
    print(name, len(v), v.hex())
