//! JSONL ingest (`corpus::parse_line`, `corpus::parse_jsonl`) on arbitrary text, and — for small
//! corpora that parse — the builder and the reader behind it.
//! Properties: no panic; every line error names `file:line`; duplicate ids are refused; what
//! parses builds shards that decode and load against their own manifest; every chunk is found by
//! a gated browse of its own subject and level.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| chsr_fuzz::jsonl(data));
