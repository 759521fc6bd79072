//! `Library::load_shard` on arbitrary bytes, with a manifest built from the fixture, then searches
//! over whatever loaded.
//!
//! First byte, bit 0: wrap the rest in a valid header (forged payload) or take it as a whole file.
//! Bit 1: make the manifest agree with the bytes (its SHA-256, and an entry for the shard's
//! subject/level), as a host serving a forged or stale-but-consistent folder would; otherwise the
//! fixture manifest is used as is (integrity path; bits 3-7 pick its entry). Bit 2 clear: the
//! toy query embedder claims the model the shard records, so its dense index is searched, by exact
//! scan and (forced, since the shards are small) by the HNSW graph; set: the model mismatches.
//! Properties: no panic, loading errors print, searches return at most k results inside the scope.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| chsr_fuzz::shard_load(data));
