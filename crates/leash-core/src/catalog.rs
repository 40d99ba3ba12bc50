//! The catalog: everything the editor can do, as validated entries indexed by id and key.
//!
//! An entry is an *item* (something to run: an Ex command, a user command, a keymap, a
//! script…) or a *setting* (an option with a type). A catalog is only ever built through
//! [`Catalog::new`] or [`Catalog::from_json`], which reject duplicate or empty ids and keys,
//! unknown types and unknown reaches, naming the bad entry. Look-ups by id, key and
//! setting alias are hash look-ups.
//!
//! A catalog is plain data and look-ups: the editor profile's narrowing of its settings
//! ([`crate::policy::narrow_catalog`]) is a step its builders run, and the ranker's index
//! ([`crate::rank::IndexCell`]) is kept by whoever ranks it.

use std::collections::HashMap;

use serde_json::Value;

use crate::base_entries::BaseEntries;
use crate::entry::{parse_entry, Entry, EntryError, Item, Setting};
use crate::item_id::{ItemId, ItemKind};
use crate::profile::neovim::code_dirs::CodeDirs;
use crate::profile::neovim::name_handlers::NameHandler;

/// Why a catalog could not be built. Each message names the entry.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CatalogError {
    #[error("catalog is not valid JSON: {0}")]
    Json(String),
    #[error("catalog file must be an object with an \"entries\" array")]
    NoEntries,
    #[error("catalog file has version {0}; this leash reads version 1")]
    Version(u64),
    #[error("entry {index}: {message}")]
    Entry { index: usize, message: EntryError },
    #[error("duplicate id “{0}”")]
    DuplicateId(String),
    #[error("duplicate setting key “{0}”")]
    DuplicateKey(String),
    #[error("setting alias “{alias}” of “{key}” is already the key or alias of “{other}”")]
    AliasClash { alias: String, key: String, other: String },
    #[error("“name_handlers” must be a list of {{\"pattern\", \"event\", \"group\"}} objects: {0}")]
    NameHandlers(String),
    #[error("“code_dirs” must be a list of folder paths: {0}")]
    CodeDirs(String),
    #[error("the base entries must be an object of entry lists")]
    BaseNotAnObject,
    #[error("“{list}” entry {index}: {message}")]
    BaseEntry { list: String, index: usize, message: EntryError },
    #[error("the base entries have no list “{0}”")]
    NoBaseList(String),
}

/// A validated, indexed set of entries.
#[derive(Debug, Default)]
pub struct Catalog {
    editor: String,
    entries: Vec<Entry>,
    by_id: HashMap<String, usize>,
    by_key: HashMap<String, usize>,
    by_setting_alias: HashMap<String, usize>,
    /// Names the editor reads or writes through a handler (`*.gz` by gzip.vim), as the
    /// frontend found them; see [`crate::profile::neovim::name_handlers`].
    name_handlers: Vec<NameHandler>,
    /// The folders the editor loads code from and its current directory, as the frontend
    /// found them; see [`crate::profile::neovim::code_dirs`].
    code_dirs: CodeDirs,
    /// Item aliases (`vs`, `g`), first item wins: only for [`Catalog::find`].
    by_item_alias: HashMap<String, usize>,
}

impl Catalog {
    /// Builds a catalog, checking that ids and keys are unique and setting aliases
    /// unambiguous.
    pub fn new(editor: impl Into<String>, entries: Vec<Entry>) -> Result<Catalog, CatalogError> {
        let mut cat =
            Catalog { editor: editor.into(), entries: Vec::with_capacity(entries.len()), ..Catalog::default() };
        for entry in entries {
            cat.push(entry)?;
        }
        for (i, entry) in cat.entries.iter().enumerate() {
            if let Entry::Item(item) = entry {
                for alias in &item.aliases {
                    cat.by_item_alias.entry(alias.clone()).or_insert(i);
                }
            }
            if let Entry::Setting(s) = entry {
                for alias in &s.aliases {
                    if alias == &s.key {
                        continue;
                    }
                    if let Some(&other) = cat.by_key.get(alias).or_else(|| cat.by_setting_alias.get(alias)) {
                        return Err(CatalogError::AliasClash {
                            alias: alias.clone(),
                            key: s.key.clone(),
                            other: cat.entries[other].name().to_string(),
                        });
                    }
                    cat.by_setting_alias.insert(alias.clone(), i);
                }
            }
        }
        Ok(cat)
    }

    fn push(&mut self, entry: Entry) -> Result<(), CatalogError> {
        let index = self.entries.len();
        match &entry {
            Entry::Item(i) => {
                if self.by_id.insert(i.id.clone(), index).is_some() {
                    return Err(CatalogError::DuplicateId(i.id.clone()));
                }
            }
            Entry::Setting(s) => {
                if self.by_key.insert(s.key.clone(), index).is_some() {
                    return Err(CatalogError::DuplicateKey(s.key.clone()));
                }
            }
        }
        self.entries.push(entry);
        Ok(())
    }

    /// Reads a catalog file: `{"version": 1, "editor": "neovim", "entries": [ … ]}`.
    pub fn from_json(text: &str) -> Result<Catalog, CatalogError> {
        let v: Value = serde_json::from_str(text).map_err(|e| CatalogError::Json(e.to_string()))?;
        Catalog::from_value(&v)
    }

    /// Builds a catalog from an already parsed catalog file.
    pub fn from_value(v: &Value) -> Result<Catalog, CatalogError> {
        let obj = v.as_object().ok_or(CatalogError::NoEntries)?;
        if let Some(version) = obj.get("version").and_then(Value::as_u64) {
            if version != 1 {
                return Err(CatalogError::Version(version));
            }
        }
        let editor = obj.get("editor").and_then(Value::as_str).unwrap_or("");
        let entries = obj.get("entries").and_then(Value::as_array).ok_or(CatalogError::NoEntries)?;
        let handlers = match obj.get("name_handlers") {
            None | Some(Value::Null) => Vec::new(),
            Some(v) => parse_name_handlers(v)?,
        };
        let code_dirs = parse_code_dirs(obj.get("code_dirs"), obj.get("cwd").and_then(Value::as_str))?;
        Ok(Catalog::from_entry_values(editor, entries)?.with_name_handlers(handlers).with_code_dirs(code_dirs))
    }

    /// The catalog with `narrow` applied to every setting: it may narrow what a setting
    /// takes (its number range, its values), never its key or aliases, which the look-ups
    /// were built from. The editor's own narrowing is the policy's
    /// ([`crate::policy::narrow_catalog`]).
    pub fn map_settings(mut self, mut narrow: impl FnMut(&mut Setting)) -> Catalog {
        for entry in &mut self.entries {
            if let Entry::Setting(s) = entry {
                narrow(s);
            }
        }
        self
    }

    /// The catalog with the folders its editor loads code from.
    pub fn with_code_dirs(mut self, code_dirs: CodeDirs) -> Catalog {
        self.code_dirs = code_dirs;
        self
    }

    /// The folders the editor loads code from (empty: none known).
    pub fn code_dirs(&self) -> &CodeDirs {
        &self.code_dirs
    }

    /// The catalog with the names its editor reads or writes through a handler.
    pub fn with_name_handlers(mut self, handlers: Vec<NameHandler>) -> Catalog {
        self.name_handlers = handlers;
        self
    }

    /// Names the editor reads or writes through a handler (autocommands such as gzip.vim's).
    pub fn name_handlers(&self) -> &[NameHandler] {
        &self.name_handlers
    }

    /// Builds a catalog from a list of entry objects (the shape the Lua module passes).
    pub fn from_entry_values(editor: &str, values: &[Value]) -> Result<Catalog, CatalogError> {
        let entries = values
            .iter()
            .enumerate()
            .map(|(index, v)| parse_entry(v).map_err(|message| CatalogError::Entry { index, message }))
            .collect::<Result<Vec<_>, _>>()?;
        Catalog::new(editor, entries)
    }

    /// Builds a catalog from the `lists` of `base` (in that order), then `values`: the same
    /// catalog as [`Catalog::from_entry_values`] of all of them, without converting the
    /// base entries again. An entry error counts its index over the whole list.
    pub fn with_base(
        editor: &str,
        base: &BaseEntries,
        lists: &[String],
        values: &[Value],
    ) -> Result<Catalog, CatalogError> {
        let mut entries = Vec::new();
        for name in lists {
            entries.extend_from_slice(base.list(name)?);
        }
        let offset = entries.len();
        entries.reserve(values.len());
        for (i, v) in values.iter().enumerate() {
            entries.push(parse_entry(v).map_err(|message| CatalogError::Entry { index: offset + i, message })?);
        }
        Catalog::new(editor, entries)
    }

    /// The catalog file for this catalog.
    pub fn to_json(&self) -> Value {
        let mut v = serde_json::json!({
            "version": 1,
            "editor": self.editor,
            "entries": self.entries.iter().map(Entry::to_json).collect::<Vec<_>>(),
        });
        if let (false, Value::Object(m)) = (self.name_handlers.is_empty(), &mut v) {
            m.insert("name_handlers".into(), serde_json::to_value(&self.name_handlers).unwrap_or(Value::Null));
        }
        if let (false, Value::Object(m)) = (self.code_dirs.given().is_empty(), &mut v) {
            m.insert("code_dirs".into(), serde_json::json!(self.code_dirs.given()));
            if let Some(cwd) = self.code_dirs.cwd() {
                m.insert("cwd".into(), serde_json::json!(cwd.display().to_string()));
            }
        }
        v
    }

    pub fn editor(&self) -> &str {
        &self.editor
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The command item a model named by an alias in place of the name: `cmd:w` for
    /// `cmd:write`, `cmd:vs` for `cmd:vsplit` (an Ex command's or Helix command's
    /// abbreviation). Only `cmd:` ids, and only to another `cmd:` item.
    pub fn command_by_alias(&self, id: &str) -> Option<&Item> {
        let alias = ItemKind::Command.name_in(id)?;
        match self.by_item_alias.get(alias).map(|&i| &self.entries[i]) {
            Some(Entry::Item(item)) if ItemKind::Command.holds(&item.id) => Some(item),
            _ => None,
        }
    }

    /// The item with exactly this id.
    pub fn item(&self, id: &str) -> Option<&Item> {
        match self.by_id.get(id).map(|&i| &self.entries[i]) {
            Some(Entry::Item(item)) => Some(item),
            _ => None,
        }
    }

    /// The setting with exactly this key, or whose listed alias this is.
    pub fn setting(&self, key_or_alias: &str) -> Option<&Setting> {
        let index = self.by_key.get(key_or_alias).or_else(|| self.by_setting_alias.get(key_or_alias));
        match index.map(|&i| &self.entries[i]) {
            Some(Entry::Setting(s)) => Some(s),
            _ => None,
        }
    }

    /// The entry an id or key names (items first), for the ranker's callers.
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.by_id.get(name).or_else(|| self.by_key.get(name)).map(|&i| &self.entries[i])
    }

    /// The entry a model most likely means by `name`, looked up exactly: an id, a setting
    /// key or alias, a command written as `:name` or `name` (`cmd:name`, `user:name`), an
    /// item alias (`:g` → `cmd:global`); then the same ignoring case. `None` when nothing
    /// is named exactly (the caller may then ask the ranker).
    pub fn find(&self, name: &str) -> Option<&Entry> {
        let name = name.trim();
        let bare = name.strip_prefix(':').unwrap_or(name).trim();
        if bare.is_empty() {
            return None;
        }
        let exact = |n: &str| -> Option<usize> {
            self.by_id
                .get(n)
                .or_else(|| self.by_key.get(n))
                .or_else(|| self.by_setting_alias.get(n))
                .or_else(|| self.by_id.get(&ItemId::command(n).to_string()))
                .or_else(|| self.by_id.get(&ItemId::user(n).to_string()))
                .or_else(|| self.by_item_alias.get(n))
                .copied()
        };
        let index = exact(name).or_else(|| exact(bare)).or_else(|| {
            // Option names and commands are lower case; user commands start upper case.
            let lower = bare.to_lowercase();
            let mut upper_first = lower.clone();
            if let Some(first) = upper_first.get_mut(0..1) {
                first.make_ascii_uppercase();
            }
            exact(&lower).or_else(|| exact(&upper_first))
        })?;
        self.entries.get(index)
    }
}

/// Parses a catalog's `name_handlers`: `[{"pattern": "*.gz", "event": …, "group": …}]`
/// (an empty Lua table arrives as an empty object).
pub fn parse_name_handlers(v: &Value) -> Result<Vec<NameHandler>, CatalogError> {
    match v {
        Value::Object(m) if m.is_empty() => Ok(Vec::new()),
        _ => {
            let handlers: Vec<NameHandler> =
                serde_json::from_value(v.clone()).map_err(|e| CatalogError::NameHandlers(e.to_string()))?;
            match handlers.iter().find(|h| h.pattern.trim().is_empty()) {
                Some(_) => Err(CatalogError::NameHandlers("a pattern is empty".into())),
                None => Ok(handlers),
            }
        }
    }
}

/// Parses a catalog's `code_dirs` (a list of folder paths; an empty Lua table arrives as
/// an empty object) with the `cwd` relative paths start in.
pub fn parse_code_dirs(v: Option<&Value>, cwd: Option<&str>) -> Result<CodeDirs, CatalogError> {
    let dirs: Vec<String> = match v {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(m)) if m.is_empty() => Vec::new(),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| CatalogError::CodeDirs(e.to_string()))?,
    };
    if dirs.iter().any(|d| d.trim().is_empty()) {
        return Err(CatalogError::CodeDirs("a folder is empty".into()));
    }
    Ok(CodeDirs::new(cwd, &dirs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::*;
    use crate::reach::Reach;
    use serde_json::json;

    fn cat(entries: Value) -> Result<Catalog, CatalogError> {
        Catalog::from_value(&json!({"version": 1, "editor": "neovim", "entries": entries}))
    }

    #[test]
    fn items_and_settings_are_indexed() {
        let c = cat(json!([
            {"id": "cmd:vsplit", "kind": "command", "title": "split vertically", "aliases": ["vs"], "args": "optional", "reach": "safe"},
            {"key": "shiftwidth", "title": "indent width", "type": "number", "aliases": ["sw"], "scope": "buffer"},
            {"key": "signcolumn", "title": "sign column", "type": "string", "values": ["yes", "no"]}
        ]))
        .unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(c.item("cmd:vsplit").unwrap().args, Args::Optional);
        assert!(c.item("cmd:vs").is_none(), "item aliases are not ids");
        assert_eq!(c.setting("sw").unwrap().key, "shiftwidth");
        assert_eq!(c.setting("signcolumn").unwrap().values.as_deref().unwrap(), ["yes", "no"]);
        assert!(c.setting("SW").is_none(), "no case folding");
    }

    #[test]
    fn duplicates_and_empty_names_are_errors_naming_the_entry() {
        let dup = cat(json!([{"id": "a:x", "reach": "safe"}, {"id": "a:x", "reach": "safe"}])).unwrap_err();
        assert_eq!(dup.to_string(), "duplicate id “a:x”");
        let dupk = cat(json!([{"key": "wrap", "type": "boolean"}, {"key": "wrap", "type": "boolean"}])).unwrap_err();
        assert_eq!(dupk, CatalogError::DuplicateKey("wrap".into()));
        let empty = cat(json!([{"id": " "}])).unwrap_err();
        assert!(empty.to_string().contains("entry 0: empty “id”"), "{empty}");
        let ty = cat(json!([{"key": "wrap", "type": "bool"}])).unwrap_err();
        assert!(ty.to_string().contains("“wrap”: unknown type “bool”"), "{ty}");
        let reach = cat(json!([{"id": "x:y", "reach": "harmless"}])).unwrap_err();
        assert!(reach.to_string().contains("entry 0: “x:y”: unknown reach “harmless”"), "{reach}");
        let both = cat(json!([{"id": "x", "key": "y", "type": "boolean"}])).unwrap_err();
        assert!(both.to_string().contains("both"), "{both}");
        let clash = cat(json!([
            {"key": "a", "type": "boolean", "aliases": ["b"]},
            {"key": "b", "type": "boolean"}
        ]))
        .unwrap_err();
        assert!(matches!(clash, CatalogError::AliasClash { .. }), "{clash}");
    }

    #[test]
    fn name_handlers_are_read_checked_and_written_back() {
        let v = json!({"version": 1, "editor": "neovim", "entries": [],
            "name_handlers": [{"pattern": "*.gz", "event": "BufReadPost", "group": "gzip"}, {"pattern": "zipfile:*"}]});
        let c = Catalog::from_value(&v).unwrap();
        assert_eq!(c.name_handlers().len(), 2);
        assert_eq!(c.name_handlers()[1].event, "");
        let again = Catalog::from_value(&c.to_json()).unwrap();
        assert_eq!(again.name_handlers(), c.name_handlers());
        assert!(cat(json!([])).unwrap().to_json().get("name_handlers").is_none());
        let bad = Catalog::from_value(&json!({"entries": [], "name_handlers": [{"event": "x"}]})).unwrap_err();
        assert!(matches!(bad, CatalogError::NameHandlers(_)), "{bad}");
        let empty = Catalog::from_value(&json!({"entries": [], "name_handlers": [{"pattern": " "}]})).unwrap_err();
        assert!(empty.to_string().contains("a pattern is empty"), "{empty}");
        assert_eq!(parse_name_handlers(&json!({})).unwrap(), Vec::new());
    }

    #[test]
    fn an_item_without_a_declared_reach_is_shell() {
        let c = cat(json!([{"id": "user:Thing", "title": "does a thing"}])).unwrap();
        assert_eq!(c.item("user:Thing").unwrap().reach, Reach::Shell);
        assert_eq!(c.item("user:Thing").unwrap().kind, "user");
    }

    #[test]
    fn a_plugin_item_names_its_plugin_and_whether_it_loads() {
        let c = cat(json!([{"id": "map:n:x", "title": "t", "reach": "plugin", "plugin": "foo.nvim", "loads": true}]))
            .unwrap();
        let item = c.item("map:n:x").unwrap();
        assert_eq!((item.reach, item.plugin.as_str(), item.loads), (Reach::Plugin, "foo.nvim", true));
        assert!(cat(json!([{"id": "map:n:x", "title": "t", "loads": "yes"}])).is_err());
    }

    #[test]
    fn round_trips_through_its_json() {
        let c = cat(json!([
            {"id": "cmd:vsplit", "kind": "command", "title": "split", "aliases": ["vs"], "args": "optional", "reach": "safe"},
            {"key": "signcolumn", "title": "sign column", "type": "string", "values": ["yes", "no"], "scope": "window"}
        ]))
        .unwrap();
        let again = Catalog::from_value(&c.to_json()).unwrap();
        assert_eq!(again.entries(), c.entries());
        assert_eq!(again.editor(), "neovim");
    }

    #[test]
    fn wrong_version_and_shape_are_reported() {
        assert_eq!(Catalog::from_json("[]").unwrap_err(), CatalogError::NoEntries);
        assert_eq!(Catalog::from_value(&json!({"version": 2, "entries": []})).unwrap_err(), CatalogError::Version(2));
        assert!(matches!(Catalog::from_json("{").unwrap_err(), CatalogError::Json(_)));
    }
}
