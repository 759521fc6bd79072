//! `format::decode_shard` on arbitrary bytes.
//!
//! First byte even: the rest is a whole shard file (exercises magic, version, length and checksum
//! checks). Odd: the rest is a payload, wrapped in a valid header with its real SHA-256, so the
//! bincode decoder and the consistency checks see arbitrary bytes (a forged shard).
//! Properties: no panic; anything that decodes re-encodes to bytes that decode to the same
//! payload; every posting of an accepted index lies inside the shard.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| chsr_fuzz::shard_decode(data));
