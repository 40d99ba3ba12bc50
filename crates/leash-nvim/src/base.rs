//! The runtime entries a session hands over once (Neovim's builtin commands and
//! options): parsed on a thread of their own ahead of the first catalog, then kept, so
//! that every catalog of the session is built on them and converts only the entries Lua
//! hands over.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use mlua::{Lua, Table};

use leash_core::base_entries::BaseEntries;

use crate::convert::{err, opt};

/// Where base entries come from: the file they are cached in, or their text.
enum Source {
    Path(PathBuf),
    Text(String),
}

impl Source {
    /// `{ path = … }` or `{ text = … }`; none when the table has neither.
    fn from_table(spec: &Table) -> mlua::Result<Option<Source>> {
        if let Some(path) = spec.get::<Option<String>>("path").map_err(|e| err(format!("base “path”: {e}")))? {
            return Ok(Some(Source::Path(path.into())));
        }
        let text = spec.get::<Option<mlua::String>>("text").map_err(|e| err(format!("base “text”: {e}")))?;
        Ok(match text {
            Some(t) => Some(Source::Text(t.to_str()?.to_string())),
            None => None,
        })
    }

    fn parse(self) -> Result<BaseEntries, String> {
        let text = match self {
            Source::Path(path) => std::fs::read_to_string(&path)
                .map_err(|e| format!("leash: cannot read the runtime entries in {}: {e}", path.display()))?,
            Source::Text(text) => text,
        };
        BaseEntries::from_json(&text).map_err(|e| e.to_string())
    }
}

/// The base entries of the session under their key: being parsed on a thread of their
/// own (`prepare_base`), or parsed.
enum Slot {
    Parsing(JoinHandle<Result<BaseEntries, String>>),
    Ready(Arc<BaseEntries>),
}

static BASE: Mutex<Option<(String, Slot)>> = Mutex::new(None);

/// `prepare_base(key, { path | text })`: starts parsing the base entries under `key` on
/// a thread of their own, unless they are there already, so that the catalog built next
/// finds them parsed (the first `:Do` of a session collects its other sources meanwhile).
pub fn prepare_base(_: &Lua, (key, spec): (String, Table)) -> mlua::Result<()> {
    let source = Source::from_table(&spec)?.ok_or_else(|| err("prepare_base: give a path or a text"))?;
    let mut slot = BASE.lock().unwrap_or_else(|e| e.into_inner());
    if matches!(&*slot, Some((k, _)) if *k == key) {
        return Ok(());
    }
    // A thread that cannot start leaves the parse to `catalog_new`, which then reads
    // the source again.
    if let Ok(handle) = std::thread::Builder::new().name("leash-base".into()).spawn(move || source.parse()) {
        *slot = Some((key, Slot::Parsing(handle)));
    }
    Ok(())
}

/// The base entries `catalog_new` builds on (`opts.base`: `{ key, lists, path? | text? }`)
/// and the lists of them it takes, or none: parsed once per `key` (ahead, by
/// `prepare_base`, or now from `path` or `text`) and kept for the session.
pub fn base_entries(opts: &Option<Table>) -> mlua::Result<Option<(Arc<BaseEntries>, Vec<String>)>> {
    let Some(spec) = opt::<Table>(opts, "base")? else { return Ok(None) };
    let key: String = spec.get("key").map_err(|e| err(format!("option “base.key”: {e}")))?;
    let lists: Vec<String> = spec.get("lists").map_err(|e| err(format!("option “base.lists”: {e}")))?;
    let mut slot = BASE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((k, found)) = slot.take() {
        if k == key {
            let base = match found {
                Slot::Ready(base) => base,
                Slot::Parsing(handle) => Arc::new(
                    handle
                        .join()
                        .map_err(|_| err("leash: internal error while reading the runtime entries (please report it)"))?
                        .map_err(err)?,
                ),
            };
            *slot = Some((k, Slot::Ready(Arc::clone(&base))));
            return Ok(Some((base, lists)));
        }
    }
    let source = Source::from_table(&spec)?
        .ok_or_else(|| err(format!("leash: the base entries “{key}” are not loaded: give their path or text")))?;
    let base = Arc::new(source.parse().map_err(err)?);
    *slot = Some((key, Slot::Ready(Arc::clone(&base))));
    Ok(Some((base, lists)))
}
