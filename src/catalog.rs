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
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::code_dirs::CodeDirs;
use crate::item_id::{ItemId, ItemKind};
use crate::name_handlers::NameHandler;
use crate::reach::Reach;

/// Whether an item takes arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Args {
    None,
    Optional,
    Required,
}

impl Args {
    fn parse(s: &str) -> Option<Args> {
        match s {
            "none" => Some(Args::None),
            "optional" => Some(Args::Optional),
            "required" => Some(Args::Required),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Args::None => "none",
            Args::Optional => "optional",
            Args::Required => "required",
        }
    }
}

/// The type of a setting's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueType {
    Boolean,
    Number,
    String,
}

impl ValueType {
    fn parse(s: &str) -> Option<ValueType> {
        match s {
            "boolean" => Some(ValueType::Boolean),
            "number" => Some(ValueType::Number),
            "string" => Some(ValueType::String),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ValueType::Boolean => "boolean",
            ValueType::Number => "number",
            ValueType::String => "string",
        }
    }
}

/// Something to run: an Ex command, a user command, a keymap, a script, a Git action…
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Item {
    /// Unique id naming its source: `cmd:vsplit`, `user:Format`, `script:cargo:test`
    /// (read and built by [`crate::item_id`]).
    pub id: String,
    /// The source's kind word: `command`, `user_command`, `keymap`, `script`…
    pub kind: String,
    pub title: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    pub args: Args,
    /// The reach the frontend declared; the policy may raise it, never lower it.
    pub reach: Reach,
    /// Whether the item runs on a line range: the user's range, when `:Do` got one.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub range: bool,
    /// Longer searchable text (documentation), weighted below names and titles.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The plugin the item's code belongs to (`gitsigns.nvim`, `your config`), where the
    /// frontend could tell; shown in front of its label.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub plugin: String,
    /// Running it first loads its plugin (a lazy.nvim stand-in): the label says so.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub loads: bool,
}

/// Where an option's value lives, as the frontend says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SettingScope {
    /// One value for the whole editor: `:setlocal` changes it everywhere.
    Global,
    /// Each window has its own value.
    Window,
    /// Each buffer has its own value.
    Buffer,
    /// A global value that a window or buffer may override.
    GlobalLocal,
}

impl SettingScope {
    fn parse(s: &str) -> Option<SettingScope> {
        match s {
            "global" => Some(SettingScope::Global),
            "window" | "win" => Some(SettingScope::Window),
            "buffer" | "buf" => Some(SettingScope::Buffer),
            "global-local" => Some(SettingScope::GlobalLocal),
            _ => None,
        }
    }

    /// Whether a window or buffer can hold a value of its own (`:setlocal` means
    /// something different from `:set`).
    pub fn has_local_value(self) -> bool {
        self != SettingScope::Global
    }
}

/// An option with a typed value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Setting {
    /// The option's full name, exactly: `wrap`, `signcolumn`.
    pub key: String,
    pub title: String,
    #[serde(rename = "type")]
    pub value_type: ValueType,
    /// Allowed values: of the whole value when `list` is absent (one of a fixed set), of
    /// each item of a comma list, or each flag of a flag list. A value may be a pattern
    /// with placeholders (see [`crate::policy::values`]): `context:{number}`, `vert:{char}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
    /// Whether the value is a list whose items (or flags) are each one of `values`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list: Option<ListKind>,
    /// The smallest number a number setting takes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<i64>,
    /// The largest number a number setting takes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<i64>,
    /// Where the value lives; unknown when the frontend does not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<SettingScope>,
    /// Short names (`sw`): a step may use one, and the validated step carries the key.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// A reach the frontend declared for this setting; the policy may raise it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reach: Option<Reach>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
}

/// How the items of a list setting are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ListKind {
    /// Items separated by commas (`unnamed,unnamedplus`), each one of the setting's values;
    /// the empty string is the empty list.
    Comma,
    /// A string of one-character flags (`nvi`), each one of the setting's values.
    Flags,
}

impl ListKind {
    fn parse(s: &str) -> Option<ListKind> {
        match s {
            "comma" => Some(ListKind::Comma),
            "flags" => Some(ListKind::Flags),
            _ => None,
        }
    }
}

/// A setting's value once it has been checked against the setting's type.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SettingValue {
    Boolean(bool),
    Number(i64),
    String(String),
}

impl fmt::Display for SettingValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingValue::Boolean(b) => write!(f, "{b}"),
            SettingValue::Number(n) => write!(f, "{n}"),
            SettingValue::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// One catalog entry.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    Item(Item),
    Setting(Setting),
}

impl Entry {
    /// The id of an item or the key of a setting: what the ranker reports.
    pub fn name(&self) -> &str {
        match self {
            Entry::Item(i) => &i.id,
            Entry::Setting(s) => &s.key,
        }
    }

    pub fn kind(&self) -> &str {
        match self {
            Entry::Item(i) => &i.kind,
            Entry::Setting(_) => "setting",
        }
    }

    pub fn title(&self) -> &str {
        match self {
            Entry::Item(i) => &i.title,
            Entry::Setting(s) => &s.title,
        }
    }

    pub fn aliases(&self) -> &[String] {
        match self {
            Entry::Item(i) => &i.aliases,
            Entry::Setting(s) => &s.aliases,
        }
    }

    pub fn description(&self) -> &str {
        match self {
            Entry::Item(i) => &i.description,
            Entry::Setting(s) => &s.description,
        }
    }

    /// The entry as its JSON object (the catalog file's shape).
    pub fn to_json(&self) -> Value {
        let mut v = match self {
            Entry::Item(i) => serde_json::to_value(i),
            Entry::Setting(s) => serde_json::to_value(s),
        }
        .unwrap_or(Value::Null);
        if let (Entry::Setting(_), Value::Object(m)) = (self, &mut v) {
            m.insert("kind".into(), Value::String("setting".into()));
        }
        v
    }
}

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
    /// frontend found them; see [`crate::name_handlers`].
    name_handlers: Vec<NameHandler>,
    /// The folders the editor loads code from and its current directory, as the frontend
    /// found them; see [`crate::code_dirs`].
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

/// Why one catalog entry does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    /// The entry is not a JSON object.
    #[error("must be an object")]
    NotAnObject,
    /// The entry is neither an item nor a setting.
    #[error("has neither “id” (an item) nor “key” (a setting)")]
    NeitherIdNorKey,
    /// An item with an empty id.
    #[error("empty “id”")]
    EmptyId,
    /// A setting with an empty key.
    #[error("empty “key”")]
    EmptyKey,
    /// A field of the named entry (“cmd:w”, or “(no id)”) is wrong.
    #[error("{name}: {problem}")]
    Field { name: String, problem: FieldError },
}

/// What is wrong with one field of a catalog entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldError {
    /// A field that must be a string.
    #[error("“{0}” must be a string")]
    NotAString(String),
    /// `aliases` that are not a list of strings.
    #[error("“aliases” must be a list of strings")]
    Aliases,
    /// A reach leash does not have.
    #[error("unknown reach “{0}” (expected safe, edit, write, code, plugin or shell)")]
    UnknownReach(String),
    /// Both `id` and `key`.
    #[error("has both “id” and “key”: an item has an id, a setting a key")]
    BothIdAndKey,
    /// An `args` value leash does not have.
    #[error("unknown args “{0}” (expected none, optional or required)")]
    UnknownArgs(String),
    /// A field that must be a boolean.
    #[error("“{0}” must be true or false")]
    NotABool(&'static str),
    /// A setting without a `type`.
    #[error("missing “type” (boolean, number or string)")]
    MissingType,
    /// A setting type leash does not have.
    #[error("unknown type “{0}” (expected boolean, number or string)")]
    UnknownType(String),
    /// `values` that are not a list of strings.
    #[error("“values” must be a list of strings")]
    Values,
    /// `values` on a setting that is not a string.
    #[error("“values” is only allowed for string settings")]
    ValuesNotString,
    /// A list kind leash does not have.
    #[error("unknown list “{0}” (expected comma or flags)")]
    UnknownList(String),
    /// A `list` without the `values` of its items.
    #[error("“list” needs the “values” its items are taken from")]
    ListWithoutValues,
    /// A flag of a `flags` list longer than one character.
    #[error("every value of a “flags” list must be one character")]
    FlagNotOneChar,
    /// `min` or `max` on a setting that is not a number.
    #[error("“{0}” is only allowed for number settings")]
    NumberOnly(String),
    /// `min` or `max` that is not an integer.
    #[error("“{0}” must be an integer")]
    NotAnInteger(String),
    /// `min` above `max`.
    #[error("“min” {lo} is above “max” {hi}")]
    MinAboveMax { lo: i64, hi: i64 },
    /// A scope leash does not have.
    #[error("unknown scope “{0}” (expected global, window, buffer or global-local)")]
    UnknownScope(String),
}

/// Parses one entry object; the error says which field is wrong and names the entry.
fn parse_entry(v: &Value) -> Result<Entry, EntryError> {
    let obj = v.as_object().ok_or(EntryError::NotAnObject)?;
    let name = obj
        .get("id")
        .or_else(|| obj.get("key"))
        .and_then(Value::as_str)
        .map(|s| format!("“{s}”"))
        .unwrap_or_else(|| "(no id)".into());
    let err = |problem: FieldError| EntryError::Field { name: name.clone(), problem };
    let string = |field: &str| -> Result<Option<String>, EntryError> {
        match obj.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(err(FieldError::NotAString(field.to_string()))),
        }
    };
    let aliases = match obj.get("aliases") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| x.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| err(FieldError::Aliases))?,
        // An empty Lua table arrives as an empty object.
        Some(Value::Object(m)) if m.is_empty() => Vec::new(),
        Some(_) => return Err(err(FieldError::Aliases)),
    };
    let title = string("title")?.unwrap_or_default();
    let description = string("description")?.unwrap_or_default();
    let reach = match string("reach")? {
        None => None,
        Some(r) => Some(Reach::parse(&r).ok_or_else(|| err(FieldError::UnknownReach(r.clone())))?),
    };
    match (obj.get("id"), obj.get("key")) {
        (Some(_), Some(_)) => Err(err(FieldError::BothIdAndKey)),
        (None, None) => Err(EntryError::NeitherIdNorKey),
        (Some(_), None) => {
            let id = string("id")?.unwrap_or_default();
            if id.trim().is_empty() {
                return Err(EntryError::EmptyId);
            }
            let kind = string("kind")?.unwrap_or_else(|| id.split(':').next().unwrap_or("").to_string());
            let args = match string("args")? {
                None => Args::None,
                Some(a) => Args::parse(&a).ok_or_else(|| err(FieldError::UnknownArgs(a.clone())))?,
            };
            let range = match obj.get("range") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err(err(FieldError::NotABool("range"))),
            };
            Ok(Entry::Item(Item {
                id,
                kind,
                title,
                aliases,
                args,
                // An item whose frontend declared nothing could do anything.
                reach: reach.unwrap_or(Reach::Shell),
                range,
                description,
                plugin: string("plugin")?.unwrap_or_default(),
                loads: match obj.get("loads") {
                    None | Some(Value::Null) => false,
                    Some(Value::Bool(b)) => *b,
                    Some(_) => return Err(err(FieldError::NotABool("loads"))),
                },
            }))
        }
        (None, Some(_)) => {
            let key = string("key")?.unwrap_or_default();
            if key.trim().is_empty() {
                return Err(EntryError::EmptyKey);
            }
            let ty = string("type")?.ok_or_else(|| err(FieldError::MissingType))?;
            let value_type = ValueType::parse(&ty).ok_or_else(|| err(FieldError::UnknownType(ty.clone())))?;
            let values = match obj.get("values") {
                None | Some(Value::Null) => None,
                Some(Value::Object(m)) if m.is_empty() => None,
                Some(Value::Array(a)) => Some(
                    a.iter()
                        .map(|x| x.as_str().map(str::to_string))
                        .collect::<Option<Vec<_>>>()
                        .ok_or_else(|| err(FieldError::Values))?,
                ),
                Some(_) => return Err(err(FieldError::Values)),
            };
            if values.is_some() && value_type != ValueType::String {
                return Err(err(FieldError::ValuesNotString));
            }
            let list = match string("list")? {
                None => None,
                Some(l) => Some(ListKind::parse(&l).ok_or_else(|| err(FieldError::UnknownList(l.clone())))?),
            };
            match (list, &values) {
                (Some(_), None) => return Err(err(FieldError::ListWithoutValues)),
                (Some(ListKind::Flags), Some(v)) if v.iter().any(|f| f.chars().count() != 1) => {
                    return Err(err(FieldError::FlagNotOneChar))
                }
                _ => {}
            }
            let number = |field: &str| -> Result<Option<i64>, EntryError> {
                match obj.get(field) {
                    None | Some(Value::Null) => Ok(None),
                    Some(Value::Number(n)) if n.is_i64() && value_type == ValueType::Number => Ok(n.as_i64()),
                    Some(Value::Number(n)) if n.is_i64() => Err(err(FieldError::NumberOnly(field.to_string()))),
                    Some(_) => Err(err(FieldError::NotAnInteger(field.to_string()))),
                }
            };
            let (min, max) = (number("min")?, number("max")?);
            if let (Some(lo), Some(hi)) = (min, max) {
                if lo > hi {
                    return Err(err(FieldError::MinAboveMax { lo, hi }));
                }
            }
            let scope = match string("scope")? {
                None => None,
                Some(s) => Some(SettingScope::parse(&s).ok_or_else(|| err(FieldError::UnknownScope(s.clone())))?),
            };
            Ok(Entry::Setting(Setting {
                key,
                title,
                value_type,
                values,
                list,
                min,
                max,
                scope,
                aliases,
                reach,
                description,
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
