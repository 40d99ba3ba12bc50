//! Catalog entries: an *item* (something to run: an Ex command, a user command, a keymap,
//! a script…) or a *setting* (an option with a type and the values it takes), and how one
//! entry is read from JSON, naming what is wrong with it. A [`crate::catalog::Catalog`]
//! holds them; the editor profiles and the validator read them.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

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
    pub fn parse(s: &str) -> Option<Args> {
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
    /// with placeholders (see [`crate::values`]): `context:{number}`, `vert:{char}`.
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
pub fn parse_entry(v: &Value) -> Result<Entry, EntryError> {
    let obj = v.as_object().ok_or(EntryError::NotAnObject)?;
    let fields = Fields::from_object(obj)?;
    fields.into_entry()
}

/// Parses a list of entry objects from JSON text straight into entries: the fields are
/// read as their types (no JSON tree; each string copied once, into its entry), then
/// checked as [`parse_entry`] checks them. An error gives the index of the entry; where
/// the text does not read as that (a field of the wrong type, a duplicate field), the
/// caller parses the text as a tree and [`parse_entry`] names the problem.
pub fn parse_entries<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Result<Entry, EntryError>>, D::Error> {
    let raw: Vec<Object<'de>> = Deserialize::deserialize(d)?;
    Ok(raw.into_iter().map(|o| o.0.into_entry()).collect())
}

/// The fields of an entry read from a JSON object only (serde would also read a struct
/// from a list of its fields in order).
struct Object<'a>(Fields<'a>);

impl<'de> Deserialize<'de> for Object<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Map;
        impl<'de> serde::de::Visitor<'de> for Map {
            type Value = Object<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an entry object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Object<'de>, A::Error> {
                Fields::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Object)
            }
        }
        d.deserialize_map(Map)
    }
}

/// One entry's fields as read, before they are checked against each other. Read from a
/// JSON tree ([`Fields::from_object`], naming a field of the wrong type) or from JSON text
/// through serde (where any field of the wrong type fails the whole read).
#[derive(Default, Deserialize)]
#[serde(default)]
struct Fields<'a> {
    /// `Some(None)`: given as `null` (an item with an empty id).
    #[serde(borrow, deserialize_with = "given")]
    id: Option<Option<Cow<'a, str>>>,
    #[serde(borrow, deserialize_with = "given")]
    key: Option<Option<Cow<'a, str>>>,
    #[serde(borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    title: Option<Cow<'a, str>>,
    #[serde(borrow)]
    description: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "strings")]
    aliases: Option<Vec<Cow<'a, str>>>,
    #[serde(borrow)]
    reach: Option<Cow<'a, str>>,
    #[serde(borrow)]
    args: Option<Cow<'a, str>>,
    range: Option<bool>,
    #[serde(borrow)]
    plugin: Option<Cow<'a, str>>,
    loads: Option<bool>,
    #[serde(borrow, rename = "type")]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "strings")]
    values: Option<Vec<Cow<'a, str>>>,
    #[serde(borrow)]
    list: Option<Cow<'a, str>>,
    min: Option<i64>,
    max: Option<i64>,
    #[serde(borrow)]
    scope: Option<Cow<'a, str>>,
}

impl<'a> Fields<'a> {
    /// The fields of a JSON object, each of the type it must have: the fields an item
    /// has for an item, a setting's for a setting (others are not read).
    fn from_object(obj: &'a serde_json::Map<String, Value>) -> Result<Fields<'a>, EntryError> {
        let name = Self::name_of(obj.get("id").or_else(|| obj.get("key")).and_then(Value::as_str));
        let err = |problem: FieldError| EntryError::Field { name: name.clone(), problem };
        let string = |field: &str| -> Result<Option<Cow<'a, str>>, EntryError> {
            match obj.get(field) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(Cow::Borrowed(s.as_str()))),
                Some(_) => Err(err(FieldError::NotAString(field.to_string()))),
            }
        };
        let boolean = |field: &'static str| match obj.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(err(FieldError::NotABool(field))),
        };
        let strings = |field: &str, problem: FieldError| match obj.get(field) {
            None | Some(Value::Null) => Ok(None),
            // An empty Lua table arrives as an empty object.
            Some(Value::Object(m)) if m.is_empty() => Ok(None),
            Some(Value::Array(a)) => a
                .iter()
                .map(|x| x.as_str().map(Cow::Borrowed))
                .collect::<Option<Vec<_>>>()
                .map(Some)
                .ok_or_else(|| err(problem.clone())),
            Some(_) => Err(err(problem.clone())),
        };
        let mut f = Fields {
            aliases: strings("aliases", FieldError::Aliases)?,
            title: string("title")?,
            description: string("description")?,
            reach: string("reach")?,
            ..Fields::default()
        };
        if let Some(r) = &f.reach {
            Reach::parse(r).ok_or_else(|| err(FieldError::UnknownReach(r.to_string())))?;
        }
        match (obj.get("id"), obj.get("key")) {
            (Some(_), Some(_)) => return Err(err(FieldError::BothIdAndKey)),
            (None, None) => return Err(EntryError::NeitherIdNorKey),
            (Some(_), None) => {
                f.id = Some(string("id")?);
                f.kind = string("kind")?;
                f.args = string("args")?;
                f.range = boolean("range")?;
                f.plugin = string("plugin")?;
                f.loads = boolean("loads")?;
            }
            (None, Some(_)) => {
                f.key = Some(string("key")?);
                f.ty = string("type")?;
                f.values = strings("values", FieldError::Values)?;
                f.list = string("list")?;
                let number = |field: &str| match obj.get(field) {
                    None | Some(Value::Null) => Ok(None),
                    Some(Value::Number(n)) if n.is_i64() => Ok(n.as_i64()),
                    Some(_) => Err(err(FieldError::NotAnInteger(field.to_string()))),
                };
                f.min = number("min")?;
                f.max = number("max")?;
                f.scope = string("scope")?;
            }
        }
        Ok(f)
    }

    /// How an error names the entry: “cmd:w”, or “(no id)”.
    fn name_of(id_or_key: Option<&str>) -> String {
        id_or_key.map(|s| format!("“{s}”")).unwrap_or_else(|| "(no id)".into())
    }

    /// The entry these fields make, checked as a whole.
    fn into_entry(self) -> Result<Entry, EntryError> {
        let id_or_key = match (&self.id, &self.key) {
            (Some(id), _) => id.as_deref(),
            (None, Some(key)) => key.as_deref(),
            (None, None) => None,
        };
        let name = Self::name_of(id_or_key);
        let err = |problem: FieldError| EntryError::Field { name: name.clone(), problem };
        let owned = |s: Option<Cow<'a, str>>| s.map(Cow::into_owned).unwrap_or_default();
        let aliases = self.aliases.unwrap_or_default().into_iter().map(Cow::into_owned).collect();
        let reach = match self.reach {
            None => None,
            Some(r) => Some(Reach::parse(&r).ok_or_else(|| err(FieldError::UnknownReach(r.to_string())))?),
        };
        match (self.id, self.key) {
            (Some(_), Some(_)) => Err(err(FieldError::BothIdAndKey)),
            (None, None) => Err(EntryError::NeitherIdNorKey),
            (Some(id), None) => {
                let id = owned(id);
                if id.trim().is_empty() {
                    return Err(EntryError::EmptyId);
                }
                let kind = match self.kind {
                    Some(kind) => kind.into_owned(),
                    None => id.split(':').next().unwrap_or("").to_string(),
                };
                let args = match self.args {
                    None => Args::None,
                    Some(a) => Args::parse(&a).ok_or_else(|| err(FieldError::UnknownArgs(a.to_string())))?,
                };
                Ok(Entry::Item(Item {
                    id,
                    kind,
                    title: owned(self.title),
                    aliases,
                    args,
                    // An item whose frontend declared nothing could do anything.
                    reach: reach.unwrap_or(Reach::Shell),
                    range: self.range.unwrap_or(false),
                    description: owned(self.description),
                    plugin: owned(self.plugin),
                    loads: self.loads.unwrap_or(false),
                }))
            }
            (None, Some(key)) => {
                let key = owned(key);
                if key.trim().is_empty() {
                    return Err(EntryError::EmptyKey);
                }
                let ty = self.ty.ok_or_else(|| err(FieldError::MissingType))?;
                let value_type = ValueType::parse(&ty).ok_or_else(|| err(FieldError::UnknownType(ty.to_string())))?;
                let values: Option<Vec<String>> = self.values.map(|v| v.into_iter().map(Cow::into_owned).collect());
                if values.is_some() && value_type != ValueType::String {
                    return Err(err(FieldError::ValuesNotString));
                }
                let list = match self.list {
                    None => None,
                    Some(l) => Some(ListKind::parse(&l).ok_or_else(|| err(FieldError::UnknownList(l.to_string())))?),
                };
                match (list, &values) {
                    (Some(_), None) => return Err(err(FieldError::ListWithoutValues)),
                    (Some(ListKind::Flags), Some(v)) if v.iter().any(|f| f.chars().count() != 1) => {
                        return Err(err(FieldError::FlagNotOneChar))
                    }
                    _ => {}
                }
                for (field, n) in [("min", self.min), ("max", self.max)] {
                    if n.is_some() && value_type != ValueType::Number {
                        return Err(err(FieldError::NumberOnly(field.to_string())));
                    }
                }
                if let (Some(lo), Some(hi)) = (self.min, self.max) {
                    if lo > hi {
                        return Err(err(FieldError::MinAboveMax { lo, hi }));
                    }
                }
                let scope = match self.scope {
                    None => None,
                    Some(s) => {
                        Some(SettingScope::parse(&s).ok_or_else(|| err(FieldError::UnknownScope(s.to_string())))?)
                    }
                };
                Ok(Entry::Setting(Setting {
                    key,
                    title: owned(self.title),
                    value_type,
                    values,
                    list,
                    min: self.min,
                    max: self.max,
                    scope,
                    aliases,
                    reach,
                    description: owned(self.description),
                }))
            }
        }
    }
}

/// A field that, when given, counts as given even as `null` (`Some(None)`); serde gives
/// a missing one its default, `None`.
fn given<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<Cow<'de, str>>>, D::Error> {
    let s: Option<Cow<'de, str>> = Deserialize::deserialize(d)?;
    Ok(Some(s))
}

/// A list of strings, where `null` and an empty object (an empty Lua table) are none.
fn strings<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<Cow<'de, str>>>, D::Error> {
    struct Strings;
    impl<'de> serde::de::Visitor<'de> for Strings {
        type Value = Option<Vec<Cow<'de, str>>>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list of strings")
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
            while let Some(s) = seq.next_element::<Cow<'de, str>>()? {
                out.push(s);
            }
            Ok(Some(out))
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            match map.next_key::<serde::de::IgnoredAny>()? {
                None => Ok(None),
                Some(_) => Err(serde::de::Error::custom("a list of strings")),
            }
        }
    }
    d.deserialize_any(Strings)
}
