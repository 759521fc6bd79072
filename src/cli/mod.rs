//! The commands of the `chsr` binary (native only).
//!
//! [`args`] is the clap interface; [`run`] parses it and hands each command to its module:
//! [`build`], [`index`], [`search`] (`search` and `explain`, with their printed output),
//! [`verify`], [`eval`] (which writes and prints through [`report`]) and, with the `distill`
//! feature, `distill` and `tokenlearn`. A command returns `Err(message)`; [`run`] prints it as one `error:` line.

mod args;
mod build;
#[cfg(feature = "distill")]
mod distill;
mod eval;
mod index;
mod report;
mod search;
mod verify;

use args::{Cli, Cmd};
use clap::Parser;

/// Parses the command line and runs the command; returns the process exit status (0, 1 for an
/// error, 2 for a usage error).
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    match dispatch(cli.cmd) {
        Ok(()) => 0,
        Err(msg) => {
            eprintln!("error: {msg}");
            1
        }
    }
}

fn dispatch(cmd: Cmd) -> Result<(), String> {
    match cmd {
        Cmd::Build {
            out,
            k1,
            b,
            private,
            model,
            ef_search,
            corpus,
        } => build::run(out, k1, b, private, model, ef_search, corpus),
        Cmd::Index(a) => index::run(*a),
        Cmd::Search(a) => search::search(*a),
        Cmd::Verify { dir } => verify::run(&dir),
        Cmd::Explain(a) => search::explain(*a),
        Cmd::Eval(a) => eval::run(a),
        #[cfg(feature = "distill")]
        Cmd::Distill(a) => distill::run(a),
        #[cfg(feature = "distill")]
        Cmd::Tokenlearn(a) => distill::tokenlearn(a),
    }
}
