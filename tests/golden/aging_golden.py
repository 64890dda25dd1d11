#!/usr/bin/env python3
"""Golden bytes of AgingBloomFilter, computed without the Rust code.

An independent model of the aging filter as docs/format.md ("Aging") and docs/aging.md
describe it: the seeded hash of golden_model.py (XXH3 from the reference C library, through the `xxhash` package, `pip
install xxhash`); the blocked layout, a key's row `(a * rows) >> 64` (a the digest's low
half), and in the row's 128-bit block of physical slice j the bit given by the top 7 bits of
MurmurHash3's fmix32 of `x + j c mod 2^32` (x, c the low and high 32-bit halves of the
digest's high half, c with its low bit set); inserts into the k newest slices, a shift after
every `generation_len` inserts clearing the oldest slice's block in every row, and the 64
bytes of parameters (layout 1) and ring state. tests/tests/aging.rs pins its output; run
this script to regenerate it after a deliberate change of format.
"""
import struct

from golden_model import DEFAULT_SEED, M64, digest, frame_params, s, u64

M32 = (1 << 32) - 1
BLOCK_BITS = 128
LAYOUT = 1


def fmix32(h):
    """MurmurHash3's 32-bit finalizer (Appleby)."""
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & M32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & M32
    return h ^ (h >> 16)


def build(k, l, rows, generation_len, seed, keys):
    slices = k + l
    # blocks[r][j]: the 128 bits of row r's block of physical slice j, as an integer.
    blocks = [[0] * slices for _ in range(rows)]
    head, count = 0, 0
    for key in keys:
        h = digest(key, seed)
        a, b = h & M64, h >> 64
        row = (a * rows) >> 64
        x, c = b & M32, (b >> 32) | 1
        for i in range(k):
            j = (head + i) % slices
            blocks[row][j] |= 1 << (fmix32((x + j * c) & M32) >> 25)
        count += 1
        if count == generation_len:
            head = (head - 1) % slices
            for r in range(rows):
                blocks[r][head] = 0
            count = 0
    payload = b"".join(
        struct.pack("<QQ", block & M64, block >> 64) for row in blocks for block in row
    )
    slice_bits = rows * BLOCK_BITS
    params = struct.pack(
        "<IIQQQIIQQQ", k, l, slice_bits, generation_len, 0, head, LAYOUT, count, 0, 0
    )
    return frame_params(6, seed, params, payload)


# k = 2, l = 3, 2 rows, generations of 2 inserts: the u64 keys 0..10, then "golden".
print(build(2, 3, 2, 2, DEFAULT_SEED, [u64(i) for i in range(10)] + [s("golden")]).hex())
