//! `chsr eval`: the OpenCERB benchmark harness (native only).
//!
//! Query sets ([`queries`]), per-query metrics ([`metrics`]), statistics ([`stats`]) and the
//! consistency judge ([`judge`]).

pub mod judge;
pub mod metrics;
pub mod queries;
pub mod stats;
