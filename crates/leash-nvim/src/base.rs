//! The runtime entries a session hands over once (Neovim's builtin commands and
//! options): parsed by the first catalog that names them, then kept, so that every
//! catalog of the session is built on them and converts only the entries Lua hands over.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use mlua::Table;

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

/// The base entries of the session, under their key.
static BASE: Mutex<Option<(String, Arc<BaseEntries>)>> = Mutex::new(None);

/// The base entries `catalog_new` builds on (`opts.base`: `{ key, lists, path? | text? }`)
/// and the lists of them it takes, or none: parsed once per `key` from `path` or `text`
/// (about a millisecond for Neovim's) and kept for the session.
pub fn base_entries(opts: &Option<Table>) -> mlua::Result<Option<(Arc<BaseEntries>, Vec<String>)>> {
    let Some(spec) = opt::<Table>(opts, "base")? else { return Ok(None) };
    let key: String = spec.get("key").map_err(|e| err(format!("option “base.key”: {e}")))?;
    let lists: Vec<String> = spec.get("lists").map_err(|e| err(format!("option “base.lists”: {e}")))?;
    let mut slot = BASE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((k, base)) = &*slot {
        if *k == key {
            return Ok(Some((Arc::clone(base), lists)));
        }
    }
    let source = Source::from_table(&spec)?
        .ok_or_else(|| err(format!("leash: the base entries “{key}” are not loaded: give their path or text")))?;
    let base = Arc::new(source.parse().map_err(err)?);
    *slot = Some((key, Arc::clone(&base)));
    Ok(Some((base, lists)))
}
