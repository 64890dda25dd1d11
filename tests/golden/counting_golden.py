#!/usr/bin/env python3
"""Golden bytes of CountingBloomFilter, computed without the Rust code.

An independent model of the counting filter: XXH3 from the reference C library (through the
`xxhash` package, `pip install xxhash`), the probe sequence and the framing written out as
docs/format.md describes them. tests/tests/counting.rs pins its output; run this script to
regenerate it after a deliberate change of format.
"""
import xxhash, struct
M64 = (1 << 64) - 1
C = 0x9E3779B97F4A7C15
DEFAULT_SEED = 0x9E3779B97F4A7C15

def probes(h, k, m):
    # Pairs sharing a 512-position group (docs/format.md, classic section).
    x, y, w = h & M64, h >> 64, 0
    out = []
    while len(out) < k:
        p = (x * m) >> 64
        s = p - p % 512
        q = s + (((x & 0xFFFFFFFF) * min(512, m - s)) >> 32)
        out += [p, q]
        w = (w + C) & M64
        x = (x + y) & M64
        y = (y + w) & M64
    return out[:k]

def build(m, k, seed, keys):
    counters = [0] * m
    for key in keys:
        h = xxhash.xxh3_128_intdigest(key, seed)
        for p in probes(h, k, m):
            counters[p] = min(15, counters[p] + 1)
    words = (m + 15) // 16
    payload = bytearray(words * 8)
    for i, c in enumerate(counters):
        payload[i // 2] |= c << (4 * (i % 2))
    out = bytearray(b"BLMF") + struct.pack("<HBBQ", 1, 2, 1, seed)
    out += struct.pack("<QI", m, k) + struct.pack("<Q", len(payload)) + payload
    out += struct.pack("<Q", xxhash.xxh3_64_intdigest(bytes(out), 0))
    return bytes(out)

def u64(v): return struct.pack("<Q", v)
def s(v): return v.encode() + struct.pack("<Q", 0xFF)  # str terminator, canonical width

a = build(40, 3, DEFAULT_SEED, [u64(1), u64(2), u64(3), u64(3)])
b = build(20, 4, 7, [s("hello")] * 16 + [s("world")])
for name, v in [("A", a), ("B", b)]:
    print(name, len(v), v.hex())
