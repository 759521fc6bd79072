//! The `chsr` command-line tool: build shards, search them, verify an output folder, evaluate.
//!
//! Errors are printed as one line (`error: …`) with exit status 1 (2 for usage errors); no panic
//! backtrace reaches the user.
//!
//! The commands live in [`cli`] (native only: clap and the indexer are not Wasm dependencies):
//! `cli/args.rs` holds the clap interface, and each command has its own module.

#[cfg(not(target_arch = "wasm32"))]
mod cli;

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(cli::run());
}
