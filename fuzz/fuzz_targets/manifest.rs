//! `Manifest::from_json` on arbitrary text, then what a reader does with an accepted manifest:
//! list subjects and levels, validate scopes against it, plan which shards to fetch, search
//! before anything is loaded.
//! Properties: no panic; an accepted manifest round-trips through `to_json`; every shard file
//! name it accepts is a plain file name; a search either runs or names the shards to load.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| chsr_fuzz::manifest(data));
