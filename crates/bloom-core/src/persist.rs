//! The persistence traits: [`Persist`] (bytes in memory) and, with `std`, [`PersistIo`]
//! (streams).

use alloc::vec::Vec;

use crate::Error;

/// A filter that is saved as bytes and loaded from them: the workspace's binary format
/// (`docs/format.md`), so generic code can save and load any variant. Needs only `alloc`.
///
/// Every filter type of the workspace that implements [`Filter`](crate::Filter) implements
/// this trait too; each also has these methods inherently, so a caller that names a concrete
/// type needs no import. The streaming forms are the extension trait [`PersistIo`], which
/// exists only with the `std` feature.
///
/// # Examples
///
/// ```
/// use bloom_classic::BloomFilter;
/// use bloom_core::{Error, Filter, Persist};
///
/// // Any variant: a copy of the filter through its bytes, as a checkpoint would make it.
/// fn reload<F: Filter + Persist>(filter: &F) -> Result<F, Error> {
///     F::from_bytes(&filter.to_bytes())
/// }
///
/// let mut seen = BloomFilter::new(1000, 0.01)?;
/// seen.insert("https://example.com/");
/// let copy = reload(&seen)?;
/// assert!(copy.contains("https://example.com/"));
/// assert_eq!(copy, seen);
/// assert!(BloomFilter::from_bytes(&[0; 10]).is_err());
/// # Ok::<(), Error>(())
/// ```
pub trait Persist: Sized {
    /// The filter in the workspace's binary format (`docs/format.md`).
    fn to_bytes(&self) -> Vec<u8>;

    /// Reads a filter written by [`Persist::to_bytes`].
    ///
    /// # Errors
    ///
    /// Any framing or consistency error; never panics, never allocates more than the input's
    /// length.
    fn from_bytes(bytes: &[u8]) -> Result<Self, Error>;
}

/// The streaming forms of [`Persist`]: the same bytes written to a [`std::io::Write`] and read
/// from a [`std::io::Read`]. Only with the `std` feature.
///
/// An extension trait, so that features stay additive: no other trait requires it, and a
/// filter crate implements it under its own `std` feature. A crate built without `std` has
/// no impl and is complete without one; turning `std` on, in any crate of a build, only adds
/// impls.
///
/// # Examples
///
/// ```
/// use std::io::{Read, Write};
///
/// use bloom_classic::BloomFilter;
/// use bloom_core::{Error, PersistIo};
///
/// // Any variant: filters one after another in one stream, and back in order (each
/// // `read_from` reads exactly one filter's bytes).
/// fn save_all<F: PersistIo>(filters: &[F], mut out: impl Write) -> Result<(), Error> {
///     filters.iter().try_for_each(|filter| filter.write_to(&mut out))
/// }
/// fn load_all<F: PersistIo>(mut input: impl Read, count: usize) -> Result<Vec<F>, Error> {
///     (0..count).map(|_| F::read_from(&mut input)).collect()
/// }
///
/// let mut days = vec![BloomFilter::new(1000, 0.01)?, BloomFilter::new(1000, 0.01)?];
/// days[0].insert("monday");
/// days[1].insert("tuesday");
/// let mut file = Vec::new();
/// save_all(&days, &mut file)?;
/// let loaded: Vec<BloomFilter> = load_all(&file[..], 2)?;
/// assert_eq!(loaded, days);
/// assert!(loaded[1].contains("tuesday"));
/// # Ok::<(), Error>(())
/// ```
#[cfg(feature = "std")]
pub trait PersistIo: Persist {
    /// Writes the bytes of [`Persist::to_bytes`] to `writer` through a bounded buffer,
    /// without building them in memory.
    ///
    /// # Errors
    ///
    /// `Error::Io` when the writer fails.
    fn write_to<W: std::io::Write>(&self, writer: W) -> Result<(), Error>;

    /// Reads a filter from `reader` as [`Persist::from_bytes`] reads bytes, allocating only
    /// as bytes arrive; reads exactly one filter's bytes.
    ///
    /// # Errors
    ///
    /// Those of [`Persist::from_bytes`] (`Error::Truncated` when the stream ends early);
    /// `Error::Io` when the reader fails.
    fn read_from<R: std::io::Read>(reader: R) -> Result<Self, Error>;
}
