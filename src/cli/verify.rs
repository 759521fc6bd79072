//! `chsr verify`: check every shard of a folder, its dense part, its part list, its postings and
//! text parts, and the embedding model against the manifest; one `ok` line per good file, one
//! `BAD` line per bad one.

use chsr::search::Library;

/// Runs `chsr verify` on the folder `dir`.
pub(super) fn run(dir: &std::path::Path) -> Result<(), String> {
    let mut lib = Library::open_dir(dir).map_err(|e| e.to_string())?;
    let entries = lib.manifest().shards.clone();
    let mut errors = Vec::new();
    let mut dense = 0;
    let (mut lists, mut texts, mut postings) = (0, 0, 0);
    // Parts whose list is bad: not named, so not checked; one line per list, but each part
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
        // Its part list (checked against the shard), then the parts it names (each checked
        // against the list's digest and the shard it belongs to).
        if let Some(l) = &e.part_list {
            lists += 1;
            let what = format!("{} (part list of {})", l.file, e.file);
            match std::fs::read(dir.join(&l.file)) {
                Err(err) => errors.push(format!(
                    "{what}: {}",
                    chsr::search::missing_shard_message(&err)
                )),
                Ok(_) if !lib.is_loaded(&e.file) => {
                    errors.push(format!("{what}: not checked, its shard is bad"))
                }
                Ok(bytes) => match lib.load_part_list(&l.file, &bytes) {
                    Ok(()) => println!(
                        "ok  {} (part list of {}, {} postings and {} text parts, {} bytes)",
                        l.file, e.file, l.postings_parts, l.text_parts, l.bytes
                    ),
                    Err(err) => errors.push(err.to_string()),
                },
            }
            if !lib.is_loaded(&l.file) {
                let n = (l.text_parts + l.postings_parts) as usize;
                texts += l.text_parts as usize;
                postings += l.postings_parts as usize;
                unchecked += n;
                bad_lists += 1;
                errors.push(format!(
                    "{n} parts of {}: not checked, their part list is bad",
                    e.file
                ));
            }
        }
        // (file, what it holds, bytes)
        let postings_parts: Vec<_> = lib
            .postings_remaining()
            .into_iter()
            .filter(|t| t.shard == e.file)
            .map(|t| {
                let p = t.part;
                let (from, to) = (p.first, p.first + p.terms);
                (
                    p.file,
                    format!("postings of terms {from}..{to} of {}", e.file),
                    p.bytes,
                )
            })
            .collect();
        let text_parts: Vec<_> = lib
            .text_needed()
            .into_iter()
            .filter(|t| t.shard == e.file)
            .map(|t| {
                let p = t.part;
                let (from, to) = (p.first, p.first + p.chunks);
                (
                    p.file,
                    format!("text of chunks {from}..{to} of {}", e.file),
                    p.bytes,
                )
            })
            .collect();
        postings += postings_parts.len();
        texts += text_parts.len();
        // (file, what it holds, bytes)
        let parts = postings_parts.into_iter().chain(text_parts);
        for (file, what, size) in parts {
            match std::fs::read(dir.join(&file)) {
                Err(err) => errors.push(format!(
                    "{file} ({what}): {}",
                    chsr::search::missing_shard_message(&err)
                )),
                Ok(bytes) => match lib.load_file(&file, &bytes) {
                    Ok(()) => println!("ok  {file} ({what}, {size} bytes)"),
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
    let files = entries.len() + dense + lists + postings + texts;
    let mut what = format!("{} shards", entries.len());
    if dense > 0 {
        what += &format!(", {dense} dense parts");
    }
    if lists > 0 {
        what += &format!(", {lists} part lists");
    }
    if postings > 0 {
        what += &format!(", {postings} postings parts");
    }
    if texts > 0 {
        what += &format!(", {texts} text parts");
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
