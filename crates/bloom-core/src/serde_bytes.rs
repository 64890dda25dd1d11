//! Serde support shared by every filter's `serde` feature: a filter serialises as the bytes
//! of its `to_bytes` (a byte string where the format has one, a sequence of numbers in
//! formats such as JSON) and deserialises through its `from_bytes`, with all its checks.

use std::fmt;

use serde::de::{Deserializer, Error as _, SeqAccess, Visitor};
use serde::ser::Serializer;

use crate::Error;

#[doc(hidden)]
pub use serde as __serde;

/// Implements `serde::Serialize` and `serde::Deserialize` for a filter type as the bytes of
/// its `to_bytes`, read back through its `from_bytes` ([`serialize`], [`deserialize`]): the
/// impls every filter crate's `serde` feature provides.
///
/// # Examples
///
/// ```
/// use bloom_core::Error;
///
/// /// A stand-in for a filter: its binary format is its one byte.
/// #[derive(Debug, PartialEq)]
/// struct Tiny(u8);
///
/// impl Tiny {
///     fn to_bytes(&self) -> Vec<u8> {
///         vec![self.0]
///     }
///     fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
///         match bytes {
///             [b] => Ok(Tiny(*b)),
///             _ => Err(Error::corrupt("one byte expected")),
///         }
///     }
/// }
///
/// bloom_core::serde_via_bytes!(Tiny);
///
/// let json = serde_json::to_string(&Tiny(7)).unwrap();
/// assert_eq!(json, "[7]");
/// assert_eq!(serde_json::from_str::<Tiny>(&json).unwrap(), Tiny(7));
/// assert!(serde_json::from_str::<Tiny>("[1,2]").is_err());
/// ```
#[macro_export]
macro_rules! serde_via_bytes {
    ($filter:ty) => {
        impl $crate::serde_bytes::__serde::Serialize for $filter {
            fn serialize<S: $crate::serde_bytes::__serde::Serializer>(
                &self,
                serializer: S,
            ) -> Result<S::Ok, S::Error> {
                $crate::serde_bytes::serialize(&self.to_bytes(), serializer)
            }
        }

        impl<'de> $crate::serde_bytes::__serde::Deserialize<'de> for $filter {
            fn deserialize<D: $crate::serde_bytes::__serde::Deserializer<'de>>(
                deserializer: D,
            ) -> Result<Self, D::Error> {
                $crate::serde_bytes::deserialize(deserializer, <$filter>::from_bytes)
            }
        }
    };
}

/// Serialises `bytes` (a filter's `to_bytes` output) as a byte string.
///
/// # Errors
///
/// Whatever the serializer reports.
pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_bytes(bytes)
}

/// Deserialises a byte string (or a sequence of `u8`) and hands it to `from_bytes`.
///
/// # Errors
///
/// Whatever the deserializer reports, or the error of `from_bytes` as a custom error.
pub fn deserialize<'de, D, F>(
    deserializer: D,
    from_bytes: impl FnOnce(&[u8]) -> Result<F, Error>,
) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
{
    let bytes = deserializer.deserialize_byte_buf(BytesVisitor)?;
    from_bytes(&bytes).map_err(D::Error::custom)
}

struct BytesVisitor;

impl<'de> Visitor<'de> for BytesVisitor {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the bytes of a serialised filter")
    }

    fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
        Ok(v.to_vec())
    }

    fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
        Ok(v)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
        // The hint comes from the input: cap what it may make us reserve up front.
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
        while let Some(b) = seq.next_element::<u8>()? {
            out.push(b);
        }
        Ok(out)
    }
}
