//! One type over every variant a filter file can hold, chosen by the file's header.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use bloom_blocked::{
    BlockedBloomFilter, Multiblock32BloomFilter, MultiblockBloomFilter, SplitBlockBloomFilter,
};
use bloom_classic::BloomFilter;
use bloom_core::engine::{BitStore, Engine, Layout};
use bloom_core::format::{self, HashScheme, Variant};
use bloom_core::hash::Hashing;
use bloom_core::{Error, Keyed};
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
            AnyFilter::Multiblock($f) => $body,
            AnyFilter::Multiblock32($f) => $body,
            AnyFilter::SplitBlock($f) => $body,
            AnyFilter::Counting($f) => $body,
            AnyFilter::Scalable($f) => $body,
        }
    };
}

/// `$body` evaluated for the variant `$kind` names, with `$t` naming that variant's type,
/// wrapped in its `AnyFilter`; `$split` instead of `$body` for the split-block filter,
/// which has no keyed form.
macro_rules! each_kind {
    ($kind:expr, $t:ident => $body:expr) => {
        each_kind!($kind, $t => $body, split_block => $body)
    };
    ($kind:expr, $t:ident => $body:expr, split_block => $split:expr) => {
        match $kind {
            Kind::Classic => AnyFilter::Classic({
                type $t = BloomFilter;
                $body
            }),
            Kind::Blocked => AnyFilter::Blocked({
                type $t = BlockedBloomFilter;
                $body
            }),
            Kind::Multiblock => AnyFilter::Multiblock({
                type $t = MultiblockBloomFilter;
                $body
            }),
            Kind::Multiblock32 => AnyFilter::Multiblock32({
                type $t = Multiblock32BloomFilter;
                $body
            }),
            Kind::SplitBlock => AnyFilter::SplitBlock({
                type $t = SplitBlockBloomFilter;
                $split
            }),
            Kind::Counting => AnyFilter::Counting({
                type $t = CountingBloomFilter;
                $body
            }),
            Kind::Scalable => AnyFilter::Scalable({
                type $t = ScalableBloomFilter;
                $body
            }),
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
    /// `MultiblockBloomFilter`: one bit in each 64-bit word of a 512-bit cache line, for
    /// rates of 2% and below.
    Multiblock,
    /// `Multiblock32BloomFilter`: one bit in each 32-bit word of a 256-bit block (half a
    /// line per query), for about 6% more memory than `blocked`.
    Multiblock32,
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
    pub(crate) const ALL: [Kind; 7] = [
        Kind::Classic,
        Kind::Blocked,
        Kind::Multiblock,
        Kind::Multiblock32,
        Kind::SplitBlock,
        Kind::Counting,
        Kind::Scalable,
    ];

    /// The name the command line and the output use.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Classic => "classic",
            Kind::Blocked => "blocked",
            Kind::Multiblock => "multiblock",
            Kind::Multiblock32 => "multiblock32",
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
    /// A multiblock filter.
    Multiblock(MultiblockBloomFilter),
    /// A 32-bit multiblock filter.
    Multiblock32(Multiblock32BloomFilter),
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
        Ok(each_kind!(kind, F => F::new(n, p)?))
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
            Kind::Multiblock => AnyFilter::Multiblock(hashed!(MultiblockBloomFilter::new(n, p)?)),
            Kind::Multiblock32 => {
                AnyFilter::Multiblock32(hashed!(Multiblock32BloomFilter::new(n, p)?))
            }
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
        // The variant's own `from_bytes` checks everything else.
        Ok(each_kind!(kind_of(bytes, key)?, F => match key {
            None => F::from_bytes(bytes)?,
            Some(key) => F::from_bytes_with_key(bytes, key)?,
        }, split_block => F::from_bytes(bytes)?))
    }

    /// Reads one filter file's bytes from `reader` as [`from_bytes`](AnyFilter::from_bytes)
    /// reads them whole (the same verdict on any bytes), streamed: the filter's memory is
    /// the only copy of its payload, where reading the file first held it twice (a 1 GB
    /// filter needed 2 GB).
    ///
    /// # Errors
    ///
    /// Those of [`from_bytes`](AnyFilter::from_bytes), and [`Error::Io`] when the reader
    /// fails.
    pub(crate) fn read_from(
        mut reader: impl Read,
        key: Option<&[u8; 16]>,
    ) -> Result<AnyFilter, Error> {
        let mut header = [0u8; format::HEADER_LEN];
        let got = read_up_to(&mut reader, &mut header)?;
        if got < header.len() {
            return AnyFilter::from_bytes(&header[..got], key);
        }
        let variant = kind_of(&header, key)?;
        let mut frame = (&header[..]).chain(&mut reader);
        let filter = each_kind!(variant, F => match key {
            None => F::read_from(&mut frame)?,
            Some(key) => F::read_from_with_key(&mut frame, key)?,
        }, split_block => F::read_from(&mut frame)?);
        // A file is one frame: bytes after it are an error, as `from_bytes` finds them.
        let extra = io::copy(&mut reader, &mut io::sink())?;
        if extra > 0 {
            return Err(Error::corrupt(format!("{extra} bytes after the checksum")));
        }
        Ok(filter)
    }

    /// Reads the filter file at `path`, a keyed filter's with `key`.
    ///
    /// # Errors
    ///
    /// A [`Failure`] naming `path` when it cannot be read or does not hold a valid filter,
    /// or when `key` is missing, wrong, or given for a filter that is not keyed.
    pub(crate) fn load(path: &Path, key: Option<&Key>) -> Result<AnyFilter, Failure> {
        let file = File::open(path).map_err(|e| Failure::file(path, e))?;
        AnyFilter::read_from(file, key.map(Key::bytes)).map_err(|e| load_failure(path, key, e))
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
                seeded[SCHEME_OFFSET] = HashScheme::Seeded as u8;
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
        atomic::write_atomic(path, |file| each_variant!(self, f => f.write_to(file)))
    }

    /// The variant.
    pub(crate) fn kind(&self) -> Kind {
        match self {
            AnyFilter::Classic(_) => Kind::Classic,
            AnyFilter::Blocked(_) => Kind::Blocked,
            AnyFilter::Multiblock(_) => Kind::Multiblock,
            AnyFilter::Multiblock32(_) => Kind::Multiblock32,
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
            AnyFilter::Multiblock(f) => f.hashing(),
            AnyFilter::Multiblock32(f) => f.hashing(),
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
            AnyFilter::Multiblock(_) => Variant::Multiblock,
            AnyFilter::Multiblock32(_) => Variant::Multiblock32,
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
            AnyFilter::Multiblock(f) => f.insert_all(keys),
            AnyFilter::Multiblock32(f) => f.insert_all(keys),
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
    /// The classic and blocked filters' keys are hashed on a thread of their own
    /// ([`Inputs::for_each_hashed_batch`]) and inserted by hash with the library's
    /// `insert_hashes`, which prefetches their cache lines in bursts; the other variants'
    /// are inserted by `insert_all`, batch after batch. The blocked filter moved to this
    /// pipeline from `insert_all` on the main thread: the hashing, the costliest step, now
    /// runs beside the reading and the inserting (figures in docs/cli.md).
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
            AnyFilter::Classic(f) => insert_hashed(f, inputs),
            AnyFilter::Blocked(f) => insert_hashed(f, inputs),
            AnyFilter::Multiblock(f) => insert_hashed(f, inputs),
            AnyFilter::Multiblock32(f) => insert_hashed(f, inputs),
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
            AnyFilter::Multiblock(f) => f.par_insert_all(keys),
            AnyFilter::Multiblock32(f) => f.par_insert_all(keys),
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
            AnyFilter::Classic(_)
            | AnyFilter::Blocked(_)
            | AnyFilter::Multiblock(_)
            | AnyFilter::Multiblock32(_)
            | AnyFilter::Counting(_) => Ok(()),
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
            AnyFilter::Multiblock(f) => f.contains_batch_into(keys, out),
            AnyFilter::Multiblock32(f) => f.contains_batch_into(keys, out),
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
            (AnyFilter::Multiblock(a), AnyFilter::Multiblock(b)) => a.union(b),
            (AnyFilter::Multiblock32(a), AnyFilter::Multiblock32(b)) => a.union(b),
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
            AnyFilter::Multiblock(f) => f.fill_ratio(),
            AnyFilter::Multiblock32(f) => f.fill_ratio(),
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

/// Adds the keys of every input to an engine filter: hashed on a thread of their own with the
/// layout's hash, inserted by hash in prefetched bursts ([`AnyFilter::insert_inputs`]).
fn insert_hashed<L: Layout>(
    filter: &mut Engine<L, BitStore>,
    inputs: &Inputs,
) -> Result<(), Failure> {
    let hashing = filter.hashing();
    inputs.for_each_hashed_batch(
        |key| L::hash(&hashing, key),
        |hashes| {
            filter.insert_hashes(hashes);
            Ok(())
        },
    )
}

/// The variant a filter file's header (at least [`format::HEADER_LEN`] bytes) names.
///
/// # Errors
///
/// [`Error::BadMagic`] for bytes that are not a filter file, [`Error::Corrupt`] for an
/// unknown variant tag, [`Error::NotKeyed`] for a key given for a split-block filter, and
/// [`Error::InvalidParameter`] for an aging filter, which the command does not handle.
fn kind_of(header: &[u8], key: Option<&[u8; 16]>) -> Result<Kind, Error> {
    if header[..format::MAGIC.len()] != format::MAGIC {
        let mut found = [0; 4];
        found.copy_from_slice(&header[..4]);
        return Err(Error::BadMagic { found });
    }
    let tag = header[VARIANT_OFFSET];
    match Variant::from_tag(tag) {
        None => Err(Error::corrupt(format!("unknown variant tag {tag}"))),
        // Never keyed: a key given for one is a key given for a seeded filter.
        Some(Variant::SplitBlock) if key.is_some() => Err(Error::NotKeyed),
        // A sliding window needs a clock or an insert count the command has no use for.
        Some(Variant::Aging) => Err(Error::invalid(
            "filter file",
            "the bloom command does not handle AgingBloomFilter files",
        )),
        Some(Variant::Classic) => Ok(Kind::Classic),
        Some(Variant::Blocked) => Ok(Kind::Blocked),
        Some(Variant::Multiblock) => Ok(Kind::Multiblock),
        Some(Variant::Multiblock32) => Ok(Kind::Multiblock32),
        Some(Variant::SplitBlock) => Ok(Kind::SplitBlock),
        Some(Variant::Counting) => Ok(Kind::Counting),
        Some(Variant::Scalable) => Ok(Kind::Scalable),
    }
}

/// Fills `buf` from `reader` as far as the input goes; the bytes read (fewer than
/// `buf.len()` only at the end of the input).
fn read_up_to(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match reader.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
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
        // The file's own read error, as for a file that cannot be opened.
        (Error::Io(e), _) => Failure::file(path, e.get_ref()),
        (other, _) => Failure::file(path, other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bloom_core::hash::SecretKey;

    fn bytes_of(filter: &AnyFilter) -> Vec<u8> {
        each_variant!(filter, f => f.to_bytes())
    }

    /// Both readers accept `input` as the same filter, or both refuse it: the stream reader
    /// checks the parameters as they pass, before the checksum, so a damaged file may be
    /// refused for another reason, but a file cut short is "truncated" to both, and a
    /// missing, wrong or needless key is the same error.
    fn agree(input: &[u8], key: Option<&[u8; 16]>, kind: Kind) {
        let streamed = AnyFilter::read_from(input, key).map(|f| bytes_of(&f));
        let whole = AnyFilter::from_bytes(input, key).map(|f| bytes_of(&f));
        let context = format!("{kind:?}, {} bytes, keyed {}", input.len(), key.is_some());
        match (&streamed, &whole) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{context}"),
            (Err(a), Err(b)) => match b {
                Error::Truncated { .. } => {
                    assert!(matches!(a, Error::Truncated { .. }), "{context}: {a}")
                }
                Error::KeyRequired | Error::WrongKey | Error::NotKeyed => {
                    assert_eq!(a, b, "{context}")
                }
                _ => {}
            },
            _ => panic!("{context}: streamed {streamed:?}, whole {whole:?}"),
        }
    }

    /// `read_from` (what `load` runs) and `from_bytes` give the same verdict, and the same
    /// filter, on every variant's file: whole, cut short anywhere, with bytes after it, with
    /// a byte changed, keyed or not.
    #[test]
    fn streamed_load_agrees_with_from_bytes() {
        let key = SecretKey::from_bytes([7; 16]);
        for kind in Kind::ALL {
            let mut cases = vec![(AnyFilter::new(kind, 300, 0.01).unwrap(), None)];
            if kind != Kind::SplitBlock {
                let keyed = AnyFilter::new_hashed(kind, 300, 0.01, Hashing::Keyed(key)).unwrap();
                cases.push((keyed, Some(key.to_bytes())));
            }
            for (mut filter, key) in cases {
                let keys: Vec<&[u8]> = vec![b"a", b"bb", b"ccc"];
                filter.insert_all(&keys).unwrap();
                let whole = bytes_of(&filter);
                let mut inputs = vec![whole.clone(), Vec::new()];
                for cut in [
                    1,
                    7,
                    format::HEADER_LEN - 1,
                    format::HEADER_LEN,
                    70,
                    whole.len() - 1,
                ] {
                    inputs.push(whole[..cut].to_vec());
                }
                let mut longer = whole.clone();
                longer.extend_from_slice(b"\n\0");
                inputs.push(longer);
                for at in [
                    0,
                    VARIANT_OFFSET,
                    SCHEME_OFFSET,
                    40,
                    whole.len() / 2,
                    whole.len() - 1,
                ] {
                    let mut damaged = whole.clone();
                    damaged[at] ^= 0x10;
                    inputs.push(damaged);
                }
                for input in inputs {
                    agree(&input, key.as_ref(), kind);
                }
                // The wrong key, and a key for a seeded file, are refused alike.
                let other = if key.is_some() { [9u8; 16] } else { [1; 16] };
                agree(&whole, Some(&other), kind);
            }
        }
    }
}
