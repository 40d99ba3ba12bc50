//! The runtime entries a session hands over once (Neovim's builtin commands and
//! options): parsed by the first catalog that names them, then kept, so that every
//! catalog of the session is built on them and converts only the entries Lua hands over.
//! The ranker's reading of them is kept too ([`BaseIndex`]), in the file Lua names beside
//! the runtime cache.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use mlua::Table;

use leash_core::base_entries::BaseEntries;
use leash_core::rank::BaseIndex;

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

/// The base entries of the session, under their key, with the ranker's index of the
/// lists each catalog takes of them.
static BASE: Mutex<Option<Base>> = Mutex::new(None);

struct Base {
    key: String,
    entries: Arc<BaseEntries>,
    /// By the lists taken (Neovim's catalogs all take the same) and the file it is kept in.
    indexes: Vec<(Vec<String>, Option<String>, Arc<BaseIndex>)>,
}

/// What a catalog is built on: the base entries, the lists of them it takes, and the
/// ranker's index of those.
pub struct BaseUse {
    pub entries: Arc<BaseEntries>,
    pub lists: Vec<String>,
    pub index: Arc<BaseIndex>,
}

/// The base entries `catalog_new` builds on (`opts.base`: `{ key, lists, path? | text?,
/// index? }`) and the lists of them it takes, or none: parsed once per `key` from `path`
/// or `text` (about a millisecond for Neovim's) and kept for the session, with the
/// ranker's index of the lists, kept in the file `index` when given.
pub fn base_entries(opts: &Option<Table>) -> mlua::Result<Option<BaseUse>> {
    let Some(spec) = opt::<Table>(opts, "base")? else { return Ok(None) };
    let key: String = spec.get("key").map_err(|e| err(format!("option “base.key”: {e}")))?;
    let lists: Vec<String> = spec.get("lists").map_err(|e| err(format!("option “base.lists”: {e}")))?;
    let index_file: Option<String> = spec.get("index").map_err(|e| err(format!("option “base.index”: {e}")))?;
    let mut slot = BASE.lock().unwrap_or_else(|e| e.into_inner());
    let base = match &mut *slot {
        Some(base) if base.key == key => base,
        _ => {
            let source = Source::from_table(&spec)?.ok_or_else(|| {
                err(format!("leash: the base entries “{key}” are not loaded: give their path or text"))
            })?;
            let entries = Arc::new(source.parse().map_err(err)?);
            slot.insert(Base { key, entries, indexes: Vec::new() })
        }
    };
    let index = match base.indexes.iter().find(|(l, f, _)| *l == lists && *f == index_file) {
        Some((_, _, index)) => Arc::clone(index),
        None => {
            let mut len = 0;
            for name in &lists {
                len += base.entries.list(name).map_err(err)?.len();
            }
            let index = Arc::new(BaseIndex::new(len, index_file.clone().map(PathBuf::from)));
            base.indexes.push((lists.clone(), index_file, Arc::clone(&index)));
            index
        }
    };
    Ok(Some(BaseUse { entries: Arc::clone(&base.entries), lists, index }))
}
