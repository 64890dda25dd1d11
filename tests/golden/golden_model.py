"""The parts of the golden models every filter shares, written without the Rust code.

The framing of docs/format.md (magic, version, variant, hash scheme, seed, the size and
probe-count parameters, payload length, payload, XXH3-64 checksum), the seeded hash (two
multiplies for keys of at most 8 bytes, XXH3-64 beyond, docs/format.md, "The seeded hash"),
the classic probe sequence (pairs sharing a 512-position group, docs/format.md, classic
section), and the key encodings of the key hasher. The reference XXH3 comes from the C
library through the `xxhash` package (`pip install xxhash`).
"""
import struct

import xxhash

M64 = (1 << 64) - 1
DEFAULT_SEED = 0x9E3779B97F4A7C15
SPREAD = 0x9E3779B97F4A7C15


K = [0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x27D4EB2F165667C5]
HIGH_SALT = 0xD1B54A32D192ED03


def fold_mul(a, b):
    """lo ^ hi of the 128-bit product."""
    p = a * b
    return (p & M64) ^ (p >> 64)


def short_hash(key, seed):
    """The seeded hash of at most 8 bytes: two words, the halves of their product multiplied."""
    n = len(key)
    if n == 8:
        a = b = struct.unpack("<Q", key)[0]
    elif n >= 4:
        a = struct.unpack("<I", key[:4])[0]
        b = struct.unpack("<I", key[n - 4:])[0]
    elif n >= 1:
        a = key[0] << 16 | key[n // 2] << 8 | key[n - 1]
        b = 0
    else:
        a = b = 0
    x = ((a ^ K[0] ^ seed) & M64) * (b ^ K[1])
    return fold_mul((x & M64) ^ K[2] ^ n, (x >> 64) ^ K[3])


def hash64(key, seed):
    """The seeded hash of a key's bytes (format version 5): up to 8 bytes by `short_hash`,
    longer ones by seeded XXH3-64."""
    if len(key) <= 8:
        return short_hash(key, seed)
    return xxhash.xxh3_64_intdigest(key, seed)


def digest(key, seed):
    """The 128 bits a key's positions come from: the seeded hash in the low half, and in the
    high half lo ^ hi of the product of the hash XOR a salt and the golden ratio."""
    h = hash64(key, seed)
    return fold_mul(h ^ HIGH_SALT, 0x9E3779B97F4A7C15) << 64 | h


def classic_probes(h, k, m):
    """x_j = a + j b + C (j^3 - j) / 6 mod 2^64; p_j = (x_j m) >> 64; q_j in p_j's group."""
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


VERSION = 5


def frame_params(variant, seed, params, payload):
    """A filter's bytes, format version 5, the seeded hash scheme: the header, the variant's
    parameter bytes, the payload length, zero padding up to the next multiple of 64 bytes
    (docs/format.md, "Framing"), the payload and the XXH3-64 checksum."""
    out = bytearray(b"BLMF") + struct.pack("<HBBQ", VERSION, variant, 1, seed)
    out += params + struct.pack("<Q", len(payload))
    out += bytes(-len(out) % 64) + payload
    out += struct.pack("<Q", xxhash.xxh3_64_intdigest(bytes(out), 0))
    return bytes(out)


def frame(variant, seed, size, k, payload):
    """A filter whose parameters are the size (u64) and k (u32)."""
    return frame_params(variant, seed, struct.pack("<QI", size, k), payload)


def words_le(words):
    """64-bit words, little-endian."""
    return b"".join(struct.pack("<Q", w) for w in words)


def u64(v):
    """A u64 key: its 8 little-endian bytes."""
    return struct.pack("<Q", v)


def s(v):
    """A str key: its bytes, then the 0xff terminator `str`'s Hash writes as a u8, which the
    key hasher writes in the canonical integer width, 8 little-endian bytes."""
    return v.encode() + struct.pack("<Q", 0xFF)
