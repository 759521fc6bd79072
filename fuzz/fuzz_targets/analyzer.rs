//! The analyzer on arbitrary Unicode: formula normalisation, tokenisation, document and query
//! analysis, snippet building, query understanding and glossary expansion.
//! Properties: no panic; token spans are in order, on char boundaries and equal to their text;
//! a query is bounded by MAX_QUERY_TERMS distinct terms, and (when not truncated) has exactly the
//! distinct terms the document path gives the same text; a snippet is a piece of the text
//! (verbatim, with `…` marking cuts), with no empty or mergeable segments.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| chsr_fuzz::analyzer(data));
