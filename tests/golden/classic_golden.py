#!/usr/bin/env python3
"""Golden bytes of BloomFilter, computed without the Rust code.

An independent model of the classic filter: XXH3-128 from the reference C library (through
the `xxhash` package, `pip install xxhash`), the probe sequence's closed form (pairs sharing
a 512-bit group, docs/format.md and bloom-core's `Probes`) and the framing of docs/format.md.
tests/tests/classic.rs pins its output; run this script to regenerate it after a deliberate
change of format.
"""
import struct
import xxhash

M64 = (1 << 64) - 1
DEFAULT_SEED = 0x9E3779B97F4A7C15
SPREAD = 0x9E3779B97F4A7C15


def probes(h, k, m):
    # x_j = a + j b + C (j^3 - j) / 6 mod 2^64; p_j = (x_j m) >> 64; q_j in p_j's group.
    a, b = h & M64, h >> 64
    out, j = [], 0
    while len(out) < k:
        x = (a + j * b + SPREAD * ((j ** 3 - j) // 6)) & M64
        p = (x * m) >> 64
        start = p - p % 512
        q = start + (((x & 0xFFFFFFFF) * min(m - start, 512)) >> 32)
        out += [p, q]
        j += 1
    return out[:k]


def build(num_bits, k, seed, keys):
    words = [0] * ((num_bits + 63) // 64)
    for key in keys:
        for p in probes(xxhash.xxh3_128_intdigest(key, seed), k, num_bits):
            words[p // 64] |= 1 << (p % 64)
    payload = b"".join(struct.pack("<Q", w) for w in words)
    out = bytearray(b"BLMF") + struct.pack("<HBBQ", 1, 1, 1, seed)
    out += struct.pack("<QI", num_bits, k) + struct.pack("<Q", len(payload)) + payload
    out += struct.pack("<Q", xxhash.xxh3_64_intdigest(bytes(out), 0))
    return bytes(out)


def u64(v):
    return struct.pack("<Q", v)


def s(v):
    # str's Hash writes its bytes, then a 0xff terminator as a u8, which the key hasher
    # writes in the canonical integer width: 8 little-endian bytes.
    return v.encode() + struct.pack("<Q", 0xFF)


# 128 bits, k = 3, the u64 keys 0..10 and the string "golden".
print(build(128, 3, DEFAULT_SEED, [u64(i) for i in range(10)] + [s("golden")]).hex())
