//! The command line as a user runs it (`CARGO_BIN_EXE_chsr`), and the shard folders and corpora
//! the tests run it on. Native only: the Wasm tests cannot run the binary.

use super::{fixture, SPINE};
use chsr::build::write_output;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `chsr` with `args` (without `RUST_BACKTRACE`): (exit status, stdout, stderr). Fails the
/// test if it panicked.
pub fn chsr(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_chsr"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("chsr runs");
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(
        !e.contains("panicked") && !e.contains("RUST_BACKTRACE"),
        "chsr {args:?} panicked:\n{e}"
    );
    (out.status.code().expect("exit status"), o, e)
}

/// A fresh folder under the test target dir (in a folder named after the test binary).
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(env!("CARGO_CRATE_NAME"))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The fixture written as a shard folder, and the path of its chemistry shard.
pub fn shard_dir(name: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(name);
    let (out, _) = fixture();
    write_output(out, &dir).unwrap();
    let chem = dir.join(&out.manifest.shards[0].file);
    (dir, chem)
}

/// The text parts the part lists in `dir` name (as the manifest counts them), and those of its
/// first shard; each list names as many as the manifest says.
pub fn text_parts(dir: &Path) -> (usize, usize) {
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let shards = m["shards"].as_array().unwrap();
    let n = |s: &serde_json::Value| {
        let listed = &s["part_list"];
        let file = dir.join(listed["file"].as_str().expect("a part list"));
        let list: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let parts = list["text"]["bytes"].as_array().unwrap().len();
        assert_eq!(listed["text_parts"].as_u64(), Some(parts as u64));
        parts
    };
    (shards.iter().map(n).sum(), n(&shards[0]))
}

/// `p` as a `&str`, for [`chsr`]'s arguments.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `chsr search` for "heat" in the fixture's chemistry shard (chemistry, college) of `dir`.
pub fn search_chem(dir: &Path) -> (i32, String, String) {
    chsr(&[
        "search",
        "--shards",
        s(dir),
        "--subject",
        "chemistry",
        "--level",
        "college",
        "heat",
    ])
}

/// Checks that a [`chsr`] call exited with code 1 and that its stderr holds each of `needles`;
/// returns that stderr.
pub fn assert_fails_with((code, _, err): (i32, String, String), needles: &[&str]) -> String {
    assert_eq!(code, 1);
    for needle in needles {
        assert!(err.contains(needle), "{err}");
    }
    err
}

/// Writes `text` to the corpus file `name` in `dir`; returns its path.
pub fn corpus(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A shard folder built by the CLI with the committed static model (dense shards + model file).
pub fn model_dir(name: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(name);
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/model/minilm-l6-static.chsrm");
    // Every fifth fixture line: all five subject-level pairs, a quick build in a debug binary.
    let lines: Vec<&str> = SPINE.lines().step_by(5).collect();
    let corpus = dir.join("corpus.jsonl");
    std::fs::write(&corpus, lines.join("\n")).unwrap();
    let out = dir.join("shards");
    let (code, _, err) = chsr(&["build", "--out", s(&out), "--model", s(&model), s(&corpus)]);
    assert_eq!(code, 0, "{err}");
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    let file = out.join(
        m["model"]["file"]
            .as_str()
            .expect("the manifest lists the model"),
    );
    (out, file)
}
