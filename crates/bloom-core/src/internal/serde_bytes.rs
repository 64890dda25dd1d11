//! Serde support shared by every filter's `serde` feature: a filter serialises as the bytes
//! of its `to_bytes` and deserialises through its `from_bytes`, with all its checks.
//!
//! * Human-readable formats (JSON, YAML, TOML, ...: `is_human_readable()`) get one string,
//!   the bytes in base64 (standard alphabet, padded; RFC 4648 §4): 4 characters per 3 bytes,
//!   where a JSON array of numbers took about 3.6.
//! * Binary formats get the bytes as a byte string (`serialize_bytes`), and may give them
//!   back as bytes, a byte buffer or a sequence of `u8`.
//!
//! Errors say what was wrong: the wrong kind of value ("invalid type: sequence, expected a
//! base64 string..."), damaged base64 ("invalid base64 at character 3: ..."), or what
//! `from_bytes` found in the bytes ("not a filter: bad magic number ...").

use alloc::vec::Vec;
use core::fmt;

use serde::de::{Deserializer, Error as _, SeqAccess, Visitor};
use serde::ser::Serializer;

use crate::Error;

mod base64;

/// Serialises `bytes` (a filter's `to_bytes` output): a base64 string for a human-readable
/// format, a byte string for a binary one.
///
/// # Errors
///
/// Whatever the serializer reports.
pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
    if serializer.is_human_readable() {
        serializer.collect_str(&base64::Encode(bytes))
    } else {
        serializer.serialize_bytes(bytes)
    }
}

/// Deserialises what [`serialize`] wrote and hands the bytes to `from_bytes`.
///
/// A human-readable format must hold a base64 string; a binary one bytes, a byte buffer or a
/// sequence of `u8`. Either also takes what the other writes where the format can give it
/// (serde's buffering of untagged enums reports every format as human-readable, for one).
///
/// # Errors
///
/// Whatever the deserializer reports (such as a value of another type), invalid base64
/// (naming the character), or the error of `from_bytes`, all as the format's custom error.
pub fn deserialize<'de, D, F>(
    deserializer: D,
    from_bytes: impl FnOnce(&[u8]) -> Result<F, Error>,
) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
{
    let bytes = if deserializer.is_human_readable() {
        deserializer.deserialize_str(BytesVisitor {
            human_readable: true,
        })?
    } else {
        deserializer.deserialize_byte_buf(BytesVisitor {
            human_readable: false,
        })?
    };
    from_bytes(&bytes).map_err(D::Error::custom)
}

/// Takes a filter's bytes in any of the forms [`deserialize`] accepts.
struct BytesVisitor {
    /// Whether the format is human-readable: then a sequence is not accepted, so that a
    /// JSON array is reported as the wrong type rather than read as bytes.
    human_readable: bool,
}

impl<'de> Visitor<'de> for BytesVisitor {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.human_readable {
            f.write_str("a base64 string of a serialised filter's bytes")
        } else {
            f.write_str("the bytes of a serialised filter")
        }
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Vec<u8>, E> {
        base64::decode(v).map_err(E::custom)
    }

    fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
        Ok(v.to_vec())
    }

    fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
        Ok(v)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
        if self.human_readable {
            return Err(A::Error::invalid_type(serde::de::Unexpected::Seq, &self));
        }
        // The hint comes from the input: cap what it may make us reserve up front.
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
        while let Some(b) = seq.next_element::<u8>()? {
            out.push(b);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use serde::de::value::{
        BorrowedBytesDeserializer, BytesDeserializer, Error as ValueError, SeqDeserializer,
        StrDeserializer,
    };
    use serde::ser::{self, Impossible, Serialize};

    use super::*;

    /// A stand-in `from_bytes` that takes any bytes: the tests look at what reaches it.
    fn identity(bytes: &[u8]) -> Result<Vec<u8>, Error> {
        Ok(bytes.to_vec())
    }

    /// A deserializer that reports itself binary, over one of serde's value deserializers.
    struct Binary<D>(D);

    impl<'de, D: Deserializer<'de>> Deserializer<'de> for Binary<D> {
        type Error = D::Error;

        fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.0.deserialize_any(visitor)
        }

        fn is_human_readable(&self) -> bool {
            false
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map struct
            enum identifier ignored_any
        }
    }

    #[test]
    fn binary_formats_may_give_bytes_byte_buffers_or_sequences() {
        let bytes = b"BLMF\x01\x00".to_vec();
        let de = Binary(BytesDeserializer::<ValueError>::new(&bytes));
        assert_eq!(deserialize(de, identity).unwrap(), bytes);
        let de = Binary(BorrowedBytesDeserializer::<ValueError>::new(&bytes));
        assert_eq!(deserialize(de, identity).unwrap(), bytes);
        let de = Binary(SeqDeserializer::<_, ValueError>::new(bytes.iter().copied()));
        assert_eq!(deserialize(de, identity).unwrap(), bytes);
        // A sequence of something else is the format's type error, not a filter error.
        let de = Binary(SeqDeserializer::<_, ValueError>::new(
            [1u16, 300].into_iter(),
        ));
        let err = deserialize(de, identity).unwrap_err().to_string();
        assert_eq!(err, "invalid value: integer `300`, expected u8");
    }

    #[test]
    fn human_readable_formats_give_base64() {
        // serde's value deserializers call themselves human-readable.
        let de = StrDeserializer::<ValueError>::new("Zm9vYg==");
        assert_eq!(deserialize(de, identity).unwrap(), b"foob");
        let de = StrDeserializer::<ValueError>::new("Zm!vYg==");
        assert_eq!(
            deserialize(de, identity).unwrap_err().to_string(),
            "invalid base64 at character 3: '!' is not a base64 digit"
        );
        // A sequence is the wrong type there, whatever it holds.
        let de = SeqDeserializer::<_, ValueError>::new([1u8, 2, 3].into_iter());
        assert_eq!(
            deserialize(de, identity).unwrap_err().to_string(),
            "invalid type: sequence, expected a base64 string of a serialised filter's bytes"
        );
        // Bytes are still taken (buffered content in untagged enums arrives this way).
        let de = BytesDeserializer::<ValueError>::new(b"raw");
        assert_eq!(deserialize(de, identity).unwrap(), b"raw");
    }

    #[test]
    fn from_bytes_errors_pass_through() {
        use crate::format::{HashScheme, Variant, decode};

        // Six zero bytes: good base64, but not the format's magic.
        let de = StrDeserializer::<ValueError>::new("AAAAAAAA");
        let err = deserialize(de, |b| {
            decode(b, Variant::Classic, HashScheme::Seeded, 0).map(|_| ())
        })
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "not a filter: bad magic number [00, 00, 00, 00]"
        );
    }

    /// What the capturing serializer was given.
    #[derive(Debug, PartialEq)]
    enum Captured {
        Str(String),
        Bytes(Vec<u8>),
    }

    /// A serializer that takes only a string or bytes, human-readable or not as asked.
    struct Capture {
        human_readable: bool,
    }

    /// Rejects every other kind of value.
    macro_rules! reject {
        ($($method:ident($($arg:ty),*) -> $ok:ty;)*) => {
            $(fn $method(self, $(_: $arg),*) -> Result<$ok, ValueError> {
                Err(ser::Error::custom(stringify!($method)))
            })*
        };
    }

    impl ser::Serializer for Capture {
        type Ok = Captured;
        type Error = ValueError;
        type SerializeSeq = Impossible<Captured, ValueError>;
        type SerializeTuple = Impossible<Captured, ValueError>;
        type SerializeTupleStruct = Impossible<Captured, ValueError>;
        type SerializeTupleVariant = Impossible<Captured, ValueError>;
        type SerializeMap = Impossible<Captured, ValueError>;
        type SerializeStruct = Impossible<Captured, ValueError>;
        type SerializeStructVariant = Impossible<Captured, ValueError>;

        fn is_human_readable(&self) -> bool {
            self.human_readable
        }

        fn serialize_str(self, v: &str) -> Result<Captured, ValueError> {
            Ok(Captured::Str(v.to_owned()))
        }

        fn serialize_bytes(self, v: &[u8]) -> Result<Captured, ValueError> {
            Ok(Captured::Bytes(v.to_vec()))
        }

        reject! {
            serialize_bool(bool) -> Captured;
            serialize_i8(i8) -> Captured;
            serialize_i16(i16) -> Captured;
            serialize_i32(i32) -> Captured;
            serialize_i64(i64) -> Captured;
            serialize_u8(u8) -> Captured;
            serialize_u16(u16) -> Captured;
            serialize_u32(u32) -> Captured;
            serialize_u64(u64) -> Captured;
            serialize_f32(f32) -> Captured;
            serialize_f64(f64) -> Captured;
            serialize_char(char) -> Captured;
            serialize_none() -> Captured;
            serialize_unit() -> Captured;
            serialize_unit_struct(&'static str) -> Captured;
            serialize_unit_variant(&'static str, u32, &'static str) -> Captured;
            serialize_seq(Option<usize>) -> Self::SerializeSeq;
            serialize_tuple(usize) -> Self::SerializeTuple;
            serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
            serialize_tuple_variant(&'static str, u32, &'static str, usize)
                -> Self::SerializeTupleVariant;
            serialize_map(Option<usize>) -> Self::SerializeMap;
            serialize_struct(&'static str, usize) -> Self::SerializeStruct;
            serialize_struct_variant(&'static str, u32, &'static str, usize)
                -> Self::SerializeStructVariant;
        }

        fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<Captured, ValueError> {
            Err(ser::Error::custom("some"))
        }

        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: &T,
        ) -> Result<Captured, ValueError> {
            Err(ser::Error::custom("newtype struct"))
        }

        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Captured, ValueError> {
            Err(ser::Error::custom("newtype variant"))
        }
    }

    #[test]
    fn binary_formats_get_bytes_human_readable_ones_base64() {
        let bytes = b"foobar\x00\xff";
        let binary = serialize(
            bytes,
            Capture {
                human_readable: false,
            },
        )
        .unwrap();
        assert_eq!(binary, Captured::Bytes(bytes.to_vec()));
        let text = serialize(
            bytes,
            Capture {
                human_readable: true,
            },
        )
        .unwrap();
        assert_eq!(text, Captured::Str("Zm9vYmFyAP8=".to_owned()));
        // Each reads back through its own path.
        let de = Binary(BytesDeserializer::<ValueError>::new(bytes));
        assert_eq!(deserialize(de, identity).unwrap(), bytes);
        let de = StrDeserializer::<ValueError>::new("Zm9vYmFyAP8=");
        assert_eq!(deserialize(de, identity).unwrap(), bytes);
    }
}
