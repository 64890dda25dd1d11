//! `read_from` of every variant of the shared format on arbitrary streams: the first byte
//! picks the variant, the rest is the stream (`bloom_tests::check_stream_input`). Never
//! panics, and agrees with `from_bytes`: a filter read is exactly one frame that
//! `from_bytes` accepts, bytes `from_bytes` accepts are read whole, and a reader handing out
//! one byte at a time gets the same answer.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| bloom_tests::check_stream_input(data));
