//! `Library::search` over the fixture library with arbitrary queries, scopes and options.
//!
//! The input is structured (`arbitrary`): query bytes (read as lossy UTF-8, optionally repeated
//! into a long query), scope fields whose values come from the fixture's real values or are
//! random strings, k (including 0 and more than MAX_K), the variant, a gating override, section
//! expansion, snippet length and the fallback switch.
//! Properties: no panic; an error is a scope or option error (never "not loaded": every shard
//! is); at most k results, ranked 1..n; gated results (C, D, and E's in-scope ones) satisfy the
//! requested scope; a result outside the scope always carries a leakage label other than
//! in_scope; B+ never returns an out-of-scope chunk; the response serialises.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| chsr_fuzz::search(data));
