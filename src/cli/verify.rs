//! `chsr verify`: check every shard of a folder, its dense part, text list and text parts and the
//! embedding model against the manifest; one `ok` line per good file, one `BAD` line per bad one.

use chsr::search::Library;

/// Runs `chsr verify` on the folder `dir`.
pub(super) fn run(dir: &std::path::Path) -> Result<(), String> {
    let mut lib = Library::open_dir(dir).map_err(|e| e.to_string())?;
    let entries = lib.manifest().shards.clone();
    let mut errors = Vec::new();
    let mut dense = 0;
    let (mut lists, mut texts) = (0, 0);
    // Text parts whose list is bad: not named, so not checked; one line per list, but each part
    // counts as a file that failed.
    let (mut bad_lists, mut unchecked) = (0, 0);
    for e in &entries {
        let path = dir.join(&e.file);
        match std::fs::read(&path) {
            Err(err) => errors.push(format!(
                "{}: {}",
                e.file,
                chsr::search::missing_shard_message(&err)
            )),
            Ok(bytes) => match lib.load_shard(&e.file, &bytes) {
                Ok(()) => println!("ok  {} ({} chunks, {} bytes)", e.file, e.chunks, e.bytes),
                Err(err) => errors.push(err.to_string()),
            },
        }
        // Its dense part, if any (checked against the shard it belongs to).
        if let Some(d) = &e.dense {
            dense += 1;
            match std::fs::read(dir.join(&d.file)) {
                Err(err) => errors.push(format!(
                    "{} (vectors of {}): {}",
                    d.file,
                    e.file,
                    chsr::search::missing_shard_message(&err)
                )),
                Ok(_) if !lib.is_loaded(&e.file) => errors.push(format!(
                    "{} (vectors of {}): not checked, its shard is bad",
                    d.file, e.file
                )),
                Ok(bytes) => match lib.load_dense(&d.file, &bytes) {
                    Ok(()) => {
                        println!("ok  {} (vectors of {}, {} bytes)", d.file, e.file, d.bytes)
                    }
                    Err(err) => errors.push(err.to_string()),
                },
            }
        }
        // Its text list (checked against the shard), then the parts it names (each checked
        // against the list's digest and the shard it belongs to).
        if let Some(l) = &e.text_list {
            lists += 1;
            let what = format!("{} (text list of {})", l.file, e.file);
            match std::fs::read(dir.join(&l.file)) {
                Err(err) => errors.push(format!(
                    "{what}: {}",
                    chsr::search::missing_shard_message(&err)
                )),
                Ok(_) if !lib.is_loaded(&e.file) => {
                    errors.push(format!("{what}: not checked, its shard is bad"))
                }
                Ok(bytes) => match lib.load_text_list(&l.file, &bytes) {
                    Ok(()) => println!(
                        "ok  {} (text list of {}, {} parts, {} bytes)",
                        l.file, e.file, l.parts, l.bytes
                    ),
                    Err(err) => errors.push(err.to_string()),
                },
            }
            if !lib.is_loaded(&l.file) {
                texts += l.parts as usize;
                unchecked += l.parts as usize;
                bad_lists += 1;
                errors.push(format!(
                    "{} text parts of {}: not checked, their text list is bad",
                    l.parts, e.file
                ));
            }
        }
        let parts: Vec<_> = lib
            .text_needed()
            .into_iter()
            .filter(|t| t.shard == e.file)
            .map(|t| t.part)
            .collect();
        for t in &parts {
            texts += 1;
            let what = format!(
                "{} (text of chunks {}..{} of {})",
                t.file,
                t.first,
                t.first + t.chunks,
                e.file
            );
            match std::fs::read(dir.join(&t.file)) {
                Err(err) => errors.push(format!(
                    "{what}: {}",
                    chsr::search::missing_shard_message(&err)
                )),
                Ok(bytes) => match lib.load_text(&t.file, &bytes) {
                    Ok(()) => println!(
                        "ok  {} (text of chunks {}..{} of {}, {} bytes)",
                        t.file,
                        t.first,
                        t.first + t.chunks,
                        e.file,
                        t.bytes
                    ),
                    Err(err) => errors.push(err.to_string()),
                },
            }
        }
    }
    // The embedding model the manifest lists, if any: present, the right file, decodable.
    let model = lib.manifest().model.clone();
    if let Some(m) = &model {
        match std::fs::read(dir.join(&m.file)) {
            Err(err) => errors.push(format!(
                "{} (embedding model): {}",
                m.file,
                chsr::search::missing_shard_message(&err)
            )),
            Ok(bytes) => match lib.load_model(&bytes) {
                Ok(()) => println!(
                    "ok  {} (embedding model {}, {} bytes)",
                    m.file, m.id, m.bytes
                ),
                Err(err) => errors.push(err.to_string()),
            },
        }
    }
    let files = entries.len() + dense + lists + texts;
    let mut what = format!("{} shards", entries.len());
    if dense > 0 {
        what += &format!(", {dense} dense parts");
    }
    if lists > 0 {
        what += &format!(", {lists} text lists, {texts} text parts");
    }
    if model.is_some() {
        what += " and the embedding model";
    }
    if errors.is_empty() {
        println!("{what} verified");
        Ok(())
    } else {
        for e in &errors {
            eprintln!("BAD {e}");
        }
        Err(format!(
            "{} of {} files failed verification",
            errors.len() - bad_lists + unchecked,
            files + usize::from(model.is_some())
        ))
    }
}
