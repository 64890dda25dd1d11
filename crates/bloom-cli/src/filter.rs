//! One type over every variant a filter file can hold, chosen by the file's header.

use std::path::Path;

use bloom_blocked::{BlockedBloomFilter, SplitBlockBloomFilter};
use bloom_classic::BloomFilter;
use bloom_core::Error;
use bloom_core::format::{self, HashScheme, Variant};
use bloom_core::hash::Hashing;
use bloom_core::internal::Probes;
use bloom_counting::CountingBloomFilter;
use bloom_scalable::ScalableBloomFilter;
use clap::ValueEnum;

use crate::atomic;
use crate::failure::Failure;
use crate::key::Key;
use crate::lines::{Inputs, SEQUENTIAL_BATCH_BYTES};

/// Where the header's fields lie (docs/format.md, "Framing"): the variant tag follows the
/// magic and the version, then the hash scheme tag, then the seed (or key fingerprint).
const VARIANT_OFFSET: usize = format::MAGIC.len() + 2;
/// See [`VARIANT_OFFSET`].
const SCHEME_OFFSET: usize = VARIANT_OFFSET + 1;
/// See [`VARIANT_OFFSET`].
const SEED_OFFSET: usize = SCHEME_OFFSET + 1;

/// How a filter file's keys become positions, as `bloom info` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HashInfo {
    /// Parquet's XXH64 with seed 0 (the split block filter).
    Parquet,
    /// Seeded XXH3 with this seed.
    Seeded(u64),
    /// SipHash-1-3 under a secret key whose fingerprint is this.
    Keyed {
        /// The key's [fingerprint](bloom_core::hash::SecretKey::fingerprint).
        fingerprint: u64,
    },
}

/// `$body` evaluated with `$f` bound to the filter inside `$filter`, whatever its variant:
/// for the methods every variant has under the same name.
macro_rules! each_variant {
    ($filter:expr, $f:ident => $body:expr) => {
        match $filter {
            AnyFilter::Classic($f) => $body,
            AnyFilter::Blocked($f) => $body,
            AnyFilter::SplitBlock($f) => $body,
            AnyFilter::Counting($f) => $body,
            AnyFilter::Scalable($f) => $body,
        }
    };
}

/// The variants `bloom create` builds, by the names the command line uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Kind {
    /// `BloomFilter`: m bits, k probes anywhere (in pairs sharing a cache line).
    Classic,
    /// `BlockedBloomFilter`: every key in one 512-bit cache line; faster, a little larger.
    Blocked,
    /// `SplitBlockBloomFilter`: Apache Parquet's split-block filter (256-bit blocks).
    SplitBlock,
    /// `CountingBloomFilter`: 4-bit counters (four times the memory; the library can remove
    /// keys).
    Counting,
    /// `ScalableBloomFilter`: grows by adding layers as keys arrive; the rate stays below p.
    Scalable,
}

impl Kind {
    /// Every variant, in the order `bloom size` lists them.
    pub(crate) const ALL: [Kind; 5] = [
        Kind::Classic,
        Kind::Blocked,
        Kind::SplitBlock,
        Kind::Counting,
        Kind::Scalable,
    ];

    /// The name the command line and the output use.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Classic => "classic",
            Kind::Blocked => "blocked",
            Kind::SplitBlock => "split-block",
            Kind::Counting => "counting",
            Kind::Scalable => "scalable",
        }
    }
}

/// A filter of any variant, as read from or written to a filter file.
#[derive(Debug, Clone)]
pub(crate) enum AnyFilter {
    /// A classic filter.
    Classic(BloomFilter),
    /// A blocked filter.
    Blocked(BlockedBloomFilter),
    /// A Parquet split-block filter.
    SplitBlock(SplitBlockBloomFilter),
    /// A counting filter.
    Counting(CountingBloomFilter),
    /// A scalable filter.
    Scalable(ScalableBloomFilter),
}

impl AnyFilter {
    /// An empty filter of variant `kind` sized by the variant's own `new(n, p)`.
    ///
    /// # Errors
    ///
    /// The variant's [`Error`] for an `n` of 0, a `p` outside (0, 1) or a size too large.
    pub(crate) fn new(kind: Kind, n: u64, p: f64) -> Result<AnyFilter, Error> {
        Ok(match kind {
            Kind::Classic => AnyFilter::Classic(BloomFilter::new(n, p)?),
            Kind::Blocked => AnyFilter::Blocked(BlockedBloomFilter::new(n, p)?),
            Kind::SplitBlock => AnyFilter::SplitBlock(SplitBlockBloomFilter::new(n, p)?),
            Kind::Counting => AnyFilter::Counting(CountingBloomFilter::new(n, p)?),
            Kind::Scalable => AnyFilter::Scalable(ScalableBloomFilter::new(n, p)?),
        })
    }

    /// [`new`](AnyFilter::new) with `hashing` instead of the workspace's default seed: a
    /// seed of the user's (an outsider cannot aim keys at known bits while the seed stays
    /// private), or a secret key (SipHash-1-3; nobody without the key can, even holding the
    /// file: `docs/security.md`). Filters merge only with filters hashed alike.
    ///
    /// # Errors
    ///
    /// As `new`, and [`Error::InvalidParameter`] for the split block filter, which hashes
    /// with Parquet's fixed XXH64 seed so that Parquet readers find its keys.
    pub(crate) fn new_hashed(
        kind: Kind,
        n: u64,
        p: f64,
        hashing: Hashing,
    ) -> Result<AnyFilter, Error> {
        // `with_seed` and `with_key` empty and rehash a filter: the new one's bits are
        // zeroed lazily, so building it first costs nothing.
        macro_rules! hashed {
            ($filter:expr) => {
                match hashing {
                    Hashing::Seeded(seed) => $filter.with_seed(seed),
                    Hashing::Keyed(secret) => $filter.with_key(secret.to_bytes()),
                }
            };
        }
        Ok(match kind {
            Kind::Classic => AnyFilter::Classic(hashed!(BloomFilter::new(n, p)?)),
            Kind::Blocked => AnyFilter::Blocked(hashed!(BlockedBloomFilter::new(n, p)?)),
            Kind::Counting => AnyFilter::Counting(hashed!(CountingBloomFilter::new(n, p)?)),
            Kind::Scalable => {
                let builder = ScalableBloomFilter::builder(n, p);
                AnyFilter::Scalable(
                    match hashing {
                        Hashing::Seeded(seed) => builder.seed(seed),
                        Hashing::Keyed(secret) => builder.key(secret.to_bytes()),
                    }
                    .build()?,
                )
            }
            Kind::SplitBlock => {
                let option = if hashing.is_keyed() {
                    "--key-file"
                } else {
                    "--seed"
                };
                return Err(Error::invalid(
                    option,
                    "the split-block filter hashes with Parquet's fixed XXH64 seed (0), \
                     which Parquet readers must share",
                ));
            }
        })
    }

    /// The filter in `bytes`, of whichever variant its header names; a keyed filter's with
    /// its `key`.
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`] or [`Error::BadMagic`] for bytes that are not a filter file,
    /// [`Error::Corrupt`] for an unknown variant tag, and any error of the variant's
    /// `from_bytes` (version, checksum, parameters) or `from_bytes_with_key`
    /// ([`Error::KeyRequired`], [`Error::WrongKey`], [`Error::NotKeyed`]).
    pub(crate) fn from_bytes(bytes: &[u8], key: Option<&[u8; 16]>) -> Result<AnyFilter, Error> {
        if bytes.len() < format::HEADER_LEN {
            return Err(Error::Truncated {
                needed: format::HEADER_LEN as u64,
                available: bytes.len() as u64,
            });
        }
        if bytes[..format::MAGIC.len()] != format::MAGIC {
            let mut found = [0; 4];
            found.copy_from_slice(&bytes[..4]);
            return Err(Error::BadMagic { found });
        }
        let tag = bytes[VARIANT_OFFSET];
        let variant = Variant::from_tag(tag)
            .ok_or_else(|| Error::corrupt(format!("unknown variant tag {tag}")))?;
        // The variant's own `from_bytes` checks everything else.
        macro_rules! decode {
            ($filter:ident) => {
                match key {
                    None => $filter::from_bytes(bytes)?,
                    Some(key) => $filter::from_bytes_with_key(bytes, key)?,
                }
            };
        }
        Ok(match variant {
            Variant::Classic => AnyFilter::Classic(decode!(BloomFilter)),
            Variant::Counting => AnyFilter::Counting(decode!(CountingBloomFilter)),
            Variant::Scalable => AnyFilter::Scalable(decode!(ScalableBloomFilter)),
            Variant::Blocked => AnyFilter::Blocked(decode!(BlockedBloomFilter)),
            // Never keyed: a key given for one is a key given for a seeded filter.
            Variant::SplitBlock if key.is_some() => return Err(Error::NotKeyed),
            Variant::SplitBlock => AnyFilter::SplitBlock(SplitBlockBloomFilter::from_bytes(bytes)?),
            // A sliding window needs a clock or an insert count the command has no use for.
            Variant::Aging => {
                return Err(Error::invalid(
                    "filter file",
                    "the bloom command does not handle AgingBloomFilter files",
                ));
            }
        })
    }

    /// Reads the filter file at `path`, a keyed filter's with `key`.
    ///
    /// # Errors
    ///
    /// A [`Failure`] naming `path` when it cannot be read or does not hold a valid filter,
    /// or when `key` is missing, wrong, or given for a filter that is not keyed.
    pub(crate) fn load(path: &Path, key: Option<&Key>) -> Result<AnyFilter, Failure> {
        let bytes = atomic::read_file(path)?;
        AnyFilter::from_bytes(&bytes, key.map(Key::bytes)).map_err(|e| load_failure(path, key, e))
    }

    /// Reads the filter file at `path` to describe it ([`bloom info`](crate::report::info)):
    /// as [`load`](AnyFilter::load), except that a keyed filter needs no key, since its
    /// header and bits say all `info` prints.
    ///
    /// A keyed file read without its key is read as the seeded filter of the same bits:
    /// the keyed scheme changes how keys become positions, not the parameters or the bits
    /// (`docs/format.md`, hash scheme 3), so the header's scheme tag is set to the seeded
    /// one and the checksum recomputed. That filter only describes the file; it is never
    /// queried, added to or written, and the [`HashInfo`] returned is the file's own.
    ///
    /// # Errors
    ///
    /// As [`load`](AnyFilter::load), but for a missing key.
    pub(crate) fn load_description(
        path: &Path,
        key: Option<&Key>,
    ) -> Result<(AnyFilter, HashInfo), Failure> {
        let bytes = atomic::read_file(path)?;
        let fail = |e| load_failure(path, key, e);
        match AnyFilter::from_bytes(&bytes, key.map(Key::bytes)) {
            Ok(filter) => {
                let hash = filter.hash_info();
                Ok((filter, hash))
            }
            // The framing and the checksum were checked before the key was asked for.
            Err(Error::KeyRequired) if bytes.len() >= format::FRAMING_LEN => {
                let mut seeded = bytes;
                let mut field = [0u8; 8];
                field.copy_from_slice(&seeded[SEED_OFFSET..format::HEADER_LEN]);
                seeded[SCHEME_OFFSET] = HashScheme::Xxh3_128 as u8;
                let end = seeded.len() - 8;
                let checksum = format::checksum(&seeded[..end]);
                seeded[end..].copy_from_slice(&checksum.to_le_bytes());
                let filter = AnyFilter::from_bytes(&seeded, None).map_err(fail)?;
                let fingerprint = u64::from_le_bytes(field);
                Ok((filter, HashInfo::Keyed { fingerprint }))
            }
            Err(e) => Err(fail(e)),
        }
    }

    /// Writes the filter to `path` atomically (see [`atomic::write_atomic`]).
    ///
    /// # Errors
    ///
    /// A [`Failure`] naming `path` when it cannot be written.
    pub(crate) fn save(&self, path: &Path) -> Result<(), Failure> {
        atomic::write_atomic(path, &self.to_bytes())
    }

    /// The filter's bytes in the workspace's format.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        each_variant!(self, f => f.to_bytes())
    }

    /// The variant.
    pub(crate) fn kind(&self) -> Kind {
        match self {
            AnyFilter::Classic(_) => Kind::Classic,
            AnyFilter::Blocked(_) => Kind::Blocked,
            AnyFilter::SplitBlock(_) => Kind::SplitBlock,
            AnyFilter::Counting(_) => Kind::Counting,
            AnyFilter::Scalable(_) => Kind::Scalable,
        }
    }

    /// How the filter hashes its keys.
    pub(crate) fn hash_info(&self) -> HashInfo {
        let hashing = match self {
            AnyFilter::Classic(f) => f.hashing(),
            AnyFilter::Blocked(f) => f.hashing(),
            AnyFilter::Counting(f) => f.hashing(),
            AnyFilter::Scalable(f) => f.hashing(),
            AnyFilter::SplitBlock(_) => return HashInfo::Parquet,
        };
        match hashing {
            Hashing::Seeded(seed) => HashInfo::Seeded(seed),
            Hashing::Keyed(secret) => HashInfo::Keyed {
                fingerprint: secret.fingerprint(),
            },
        }
    }

    /// The binary format's variant.
    fn variant(&self) -> Variant {
        match self {
            AnyFilter::Classic(_) => Variant::Classic,
            AnyFilter::Blocked(_) => Variant::Blocked,
            AnyFilter::SplitBlock(_) => Variant::SplitBlock,
            AnyFilter::Counting(_) => Variant::Counting,
            AnyFilter::Scalable(_) => Variant::Scalable,
        }
    }

    /// Adds the keys one after another.
    ///
    /// Keys are hashed as `[u8]` by the XXH3 variants (the bytes `Hash` writes for a byte
    /// slice: its length, then its bytes), so a program that queries the file with the
    /// library passes the same bytes as a `&[u8]`. The split-block filter hashes the raw
    /// bytes, Parquet's hash of a `BYTE_ARRAY` value, so Parquet readers find the keys.
    ///
    /// # Errors
    ///
    /// [`Error::Full`] when a scalable filter reaches its caps.
    pub(crate) fn insert_all(&mut self, keys: &[&[u8]]) -> Result<(), Error> {
        match self {
            AnyFilter::Classic(f) => f.insert_all(keys),
            // The blocked filter's batch insert hashes a group of keys and prefetches their
            // blocks first.
            AnyFilter::Blocked(f) => f.insert_all(keys),
            AnyFilter::SplitBlock(f) => keys.iter().for_each(|k| {
                f.insert_bytes(k);
            }),
            AnyFilter::Counting(f) => f.insert_all(keys),
            AnyFilter::Scalable(f) => {
                for k in keys {
                    f.insert(*k)?;
                }
            }
        }
        Ok(())
    }

    /// Adds the keys of every input, hashing them as [`insert_all`](AnyFilter::insert_all)
    /// does.
    ///
    /// A classic filter's keys are hashed on a thread of their own
    /// ([`Inputs::for_each_hashed_batch`]) and inserted by hash, their probes' lines
    /// prefetched ([`insert_prefetched`]); the other variants' are inserted by `insert_all`,
    /// batch after batch.
    ///
    /// The blocked filter stays on its `insert_all`, which prefetches each key's block
    /// between hashing it and inserting it: inserted by hash, without that prefetch (the
    /// library offers none for a hash), it took 0.99-1.03 s of CPU on the 1 GB file of
    /// docs/cli.md against 0.64-0.65 s (`perf stat -e task-clock`, two runs each).
    ///
    /// # Errors
    ///
    /// A [`Failure`] naming the input that cannot be read, or `fail` of the filter's error
    /// ([`Error::Full`] when a scalable filter reaches its caps).
    pub(crate) fn insert_inputs(
        &mut self,
        inputs: &Inputs,
        fail: impl Fn(Error) -> Failure,
    ) -> Result<(), Failure> {
        match self {
            AnyFilter::Classic(f) => {
                let hashing = f.hashing();
                inputs.for_each_hashed_batch(
                    |key| hashing.hash(key),
                    |hashes| {
                        insert_prefetched(f, hashes);
                        Ok(())
                    },
                )
            }
            other => inputs.for_each_batch(SEQUENTIAL_BATCH_BYTES, |keys| {
                other.insert_all(keys).map_err(&fail)
            }),
        }
    }

    /// Adds the keys with the variant's rayon build, `par_insert_all`, the same filter as
    /// [`insert_all`](AnyFilter::insert_all) gives.
    ///
    /// # Errors
    ///
    /// The error of [`check_parallel`](AnyFilter::check_parallel), before adding anything.
    pub(crate) fn par_insert_all(&mut self, keys: &[&[u8]]) -> Result<(), Error> {
        self.check_parallel()?;
        match self {
            AnyFilter::Classic(f) => f.par_insert_all(keys),
            AnyFilter::Blocked(f) => f.par_insert_all(keys),
            AnyFilter::Counting(f) => f.par_insert_all(keys),
            AnyFilter::SplitBlock(_) | AnyFilter::Scalable(_) => {}
        }
        Ok(())
    }

    /// Whether the variant has a parallel build ([`par_insert_all`](AnyFilter::par_insert_all)).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] naming `--parallel` for the split block and scalable
    /// variants, which have none.
    pub(crate) fn check_parallel(&self) -> Result<(), Error> {
        match self {
            AnyFilter::Classic(_) | AnyFilter::Blocked(_) | AnyFilter::Counting(_) => Ok(()),
            AnyFilter::SplitBlock(_) | AnyFilter::Scalable(_) => Err(Error::invalid(
                "--parallel",
                format!("{} filters have no parallel build", self.kind().name()),
            )),
        }
    }

    /// Appends to `out` whether each key may be present (false means definitely absent),
    /// hashing keys as [`insert_all`](AnyFilter::insert_all) does.
    pub(crate) fn contains_all(&self, keys: &[&[u8]], out: &mut Vec<bool>) {
        match self {
            AnyFilter::Classic(f) => f.contains_batch_into(keys, out),
            AnyFilter::Blocked(f) => f.contains_batch_into(keys, out),
            // The batch query hashes through `Hash`; Parquet's hash is of the raw bytes.
            AnyFilter::SplitBlock(f) => out.extend(keys.iter().map(|k| f.contains_bytes(k))),
            AnyFilter::Counting(f) => f.contains_batch_into(keys, out),
            AnyFilter::Scalable(f) => f.contains_batch_into(keys, out),
        }
    }

    /// Adds every key of `other` to this filter.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the variants, sizes or seeds differ.
    pub(crate) fn union(&mut self, other: &AnyFilter) -> Result<(), Error> {
        match (self, other) {
            (AnyFilter::Classic(a), AnyFilter::Classic(b)) => a.union(b),
            (AnyFilter::Blocked(a), AnyFilter::Blocked(b)) => a.union(b),
            (AnyFilter::SplitBlock(a), AnyFilter::SplitBlock(b)) => a.union(b),
            (AnyFilter::Counting(a), AnyFilter::Counting(b)) => a.union(b),
            (AnyFilter::Scalable(a), AnyFilter::Scalable(b)) => a.union(b),
            (a, b) => Err(Error::Incompatible {
                parameter: "variant tag",
                left: u64::from(a.variant() as u8),
                right: u64::from(b.variant() as u8),
            }),
        }
    }

    /// Bytes the filter holds in memory.
    pub(crate) fn memory_usage(&self) -> usize {
        each_variant!(self, f => f.memory_usage())
    }

    /// The fraction of bits (of counters, for a counting filter) set; over every layer of a
    /// scalable filter.
    pub(crate) fn fill_ratio(&self) -> f64 {
        match self {
            AnyFilter::Classic(f) => f.fill_ratio(),
            AnyFilter::Blocked(f) => f.fill_ratio(),
            AnyFilter::SplitBlock(f) => f.fill_ratio(),
            AnyFilter::Counting(f) => f.fill_ratio(),
            AnyFilter::Scalable(f) => {
                let layers = f.layers().iter().map(|l| l.filter());
                let (ones, bits) = layers.fold((0, 0), |(ones, bits), l| {
                    (ones + l.count_ones(), bits + l.num_bits())
                });
                ones as f64 / bits as f64
            }
        }
    }

    /// The number of distinct keys added, estimated from the fill.
    pub(crate) fn estimated_len(&self) -> u64 {
        each_variant!(self, f => f.estimated_len())
    }

    /// The false-positive rate at the current fill.
    pub(crate) fn estimated_fpr(&self) -> f64 {
        each_variant!(self, f => f.estimated_fpr())
    }
}

/// Keys whose cache lines are prefetched before any of them is inserted by
/// [`insert_prefetched`].
const INSERT_BURST: usize = 16;

/// Adds the keys of `hashes` (by `BloomFilter::hash`) to a classic filter as its
/// `insert_all` does (the same bits), with the cache misses of a filter larger than the
/// cache overlapped: the lines of all the probes of a burst of keys are prefetched, then
/// the burst's keys inserted.
///
/// `BloomFilter::insert_all` inserts key by key, so each key waits for its own probes'
/// lines (about four, at p = 0.01) one key after another. On the 1 GB file of
/// docs/cli.md (12.5 million keys, a 15 MB filter that other work on the machine keeps
/// out of the cache) that took 5.6 s, 80% of it in the insert.
fn insert_prefetched(filter: &mut BloomFilter, hashes: &[u128]) {
    let (num_hashes, num_bits) = (filter.num_hashes(), filter.num_bits());
    for burst in hashes.chunks(INSERT_BURST) {
        for &hash in burst {
            filter
                .bits()
                .prefetch_all(Probes::new(hash, num_hashes, num_bits));
        }
        for &hash in burst {
            filter.insert_hash(hash);
        }
    }
}

/// The failure of loading the filter file at `path` with `key`: the library's error, or for
/// the errors of keyed loading, what to do about them in the command's terms.
fn load_failure(path: &Path, key: Option<&Key>, error: Error) -> Failure {
    match (error, key) {
        (Error::KeyRequired, _) => Failure::file(
            path,
            "keyed filter: its secret key is needed, give its key file with --key-file",
        ),
        (Error::WrongKey, Some(key)) => Failure::file(
            path,
            format!(
                "wrong key: the key in {} is not the one this filter was keyed with",
                key.path().display()
            ),
        ),
        (Error::NotKeyed, _) => Failure::file(
            path,
            "not a keyed filter (it hashes with a seed): drop --key-file",
        ),
        (other, _) => Failure::file(path, other),
    }
}
