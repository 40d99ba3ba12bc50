//! Lua values to the core's types and back, and the panic guard every export runs in.

use std::panic::{catch_unwind, AssertUnwindSafe};

use mlua::{Lua, LuaSerdeExt, Table, Value as LuaValue};
use serde_json::Value;

use leash_core::catalog::{parse_code_dirs, parse_name_handlers};
use leash_core::llm::ProviderConfig;
use leash_core::planner::session::SessionCatalog;
use leash_core::policy::Policy;
use leash_core::profile::neovim::code_dirs::CodeDirs;
use leash_core::profile::neovim::name_handlers::NameHandler;
use leash_core::prompt::Context;
use leash_core::rank::{self, Mode};
use leash_core::reach::Reach;

/// Runs `f`, turning a panic into a Lua error.
pub fn guard<T>(f: impl FnOnce() -> mlua::Result<T>) -> mlua::Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(mlua::Error::runtime(format!("leash: internal error (please report it): {what}")))
        }
    }
}

/// A Lua error with this message.
pub fn err(message: impl std::fmt::Display) -> mlua::Error {
    mlua::Error::runtime(message.to_string())
}

/// Reads an optional field of an options table.
pub fn opt<T: mlua::FromLua>(opts: &Option<Table>, key: &str) -> mlua::Result<Option<T>> {
    match opts {
        Some(t) => t.get::<Option<T>>(key).map_err(|e| err(format!("option “{key}”: {e}"))),
        None => Ok(None),
    }
}

/// A file name from Lua as a path: Lua strings are bytes, and a file name need not be
/// UTF-8 (Neovim edits such files; the core must not fail on one).
pub fn lua_path(s: &mlua::String) -> std::path::PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::path::PathBuf::from(std::ffi::OsStr::from_bytes(&s.as_bytes()))
    }
    #[cfg(not(unix))]
    {
        std::path::PathBuf::from(s.to_string_lossy())
    }
}

/// An optional, non-empty file name of an options table, as a path.
pub fn opt_path(opts: &Option<Table>, key: &str) -> mlua::Result<Option<std::path::PathBuf>> {
    Ok(opt::<mlua::String>(opts, key)?.filter(|s| !s.as_bytes().is_empty()).map(|s| lua_path(&s)))
}

/// A Lua value read as `T`, where a string that is not UTF-8 (an option's value, a
/// mapping's description, as Neovim allows them) is read as Neovim draws it, each such
/// byte as `<ff>`, instead of failing the whole value. The copy is made only when the
/// value as it is does not read.
pub fn text_value<T>(lua: &Lua, v: LuaValue, read: impl Fn(LuaValue) -> mlua::Result<T>) -> mlua::Result<T> {
    match read(v.clone()) {
        Ok(t) => Ok(t),
        Err(first) => match utf8_copy(lua, v, 0)? {
            Some(copy) => read(copy),
            None => Err(first),
        },
    }
}

/// A copy of `v` with every string that is not UTF-8 written out (see [`text_value`]), or
/// `None` when nothing in it needed that. Tables keep their metatable (mlua's array
/// marker); past 32 levels of tables the rest is nil.
fn utf8_copy(lua: &Lua, v: LuaValue, depth: usize) -> mlua::Result<Option<LuaValue>> {
    match v {
        LuaValue::String(s) if s.to_str().is_err() => {
            Ok(Some(LuaValue::String(lua.create_string(drawn(&s.as_bytes()))?)))
        }
        LuaValue::Table(t) if depth < 32 => {
            let mut changed = false;
            let copy = lua.create_table()?;
            for pair in t.pairs::<LuaValue, LuaValue>() {
                let (k, v) = pair?;
                let k = match utf8_copy(lua, k.clone(), depth + 1)? {
                    Some(c) => {
                        changed = true;
                        c
                    }
                    None => k,
                };
                let v = match utf8_copy(lua, v.clone(), depth + 1)? {
                    Some(c) => {
                        changed = true;
                        c
                    }
                    None => v,
                };
                copy.raw_set(k, v)?;
            }
            if !changed {
                return Ok(None);
            }
            copy.set_metatable(t.metatable())?;
            Ok(Some(LuaValue::Table(copy)))
        }
        LuaValue::Table(_) => Ok(Some(LuaValue::Nil)),
        _ => Ok(None),
    }
}

/// Text that is not UTF-8 as Neovim draws it: each byte that is not part of a UTF-8
/// character as `<ff>`.
fn drawn(bytes: &[u8]) -> String {
    let mut shown = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        shown.push_str(chunk.valid());
        for b in chunk.invalid() {
            shown.push_str(&format!("<{b:02x}>"));
        }
    }
    shown
}

/// Bulk data from Lua (catalog entries, name handlers, folders) as JSON. A string is the
/// JSON text of it (what `vim.json.encode` makes), which crosses faster than the table
/// (mlua converts a table field by field: a real config's 160 mapping entries took
/// 1.2 ms as a table, 0.8 ms as text); its strings that are not UTF-8 (`vim.json.encode`
/// keeps their bytes) read as [`text_value`] reads them from a table. Any other value is
/// converted through [`text_value`].
pub fn bulk_json(lua: &Lua, v: LuaValue, what: &str) -> mlua::Result<Value> {
    let bad = |e: &dyn std::fmt::Display| err(format!("{what}: {e}"));
    match v {
        LuaValue::String(s) => {
            let bytes = s.as_bytes();
            // Outside strings JSON text is ASCII: a byte that is not UTF-8 is inside one.
            match std::str::from_utf8(&bytes) {
                Ok(text) => serde_json::from_str(text),
                Err(_) => serde_json::from_str(&drawn(&bytes)),
            }
            .map_err(|e| bad(&e))
        }
        other => text_value(lua, other, |v| lua.from_value(v)).map_err(|e| bad(&e)),
    }
}

/// The `limit` and `mode` options of a ranking.
pub fn limit_and_mode(opts: &Option<Table>) -> mlua::Result<(usize, Mode)> {
    let limit = opt::<usize>(opts, "limit")?.unwrap_or(rank::DEFAULT_SHORTLIST);
    let mode = match opt::<String>(opts, "mode")? {
        None => Mode::default(),
        Some(m) => Mode::parse(&m).ok_or_else(|| err(format!("option “mode” is any or all, not “{m}”")))?,
    };
    Ok((limit, mode))
}

/// The `context` option: what the editor says about where the request was made. Its
/// `current` values (one per setting, hundreds) are read directly, or as their JSON
/// text (an object; what the planner sends): through serde they cost more than
/// everything else `plan_start` converts.
pub fn context(lua: &Lua, opts: &Option<Table>) -> mlua::Result<Context> {
    let mut context = context_deferred(lua, opts)?;
    context.read_current_text().map_err(err)?;
    Ok(context)
}

/// [`context`], with `current` given as JSON text kept as text
/// ([`Context::current_text`]): the planner reads it on its own thread, so the editor's
/// main thread does not wait for it before the request leaves.
pub fn context_deferred(lua: &Lua, opts: &Option<Table>) -> mlua::Result<Context> {
    let bad = |e: mlua::Error| err(format!("option “context”: {e}"));
    let Some(v) = opt::<LuaValue>(opts, "context")? else { return Ok(Context::default()) };
    let current = match &v {
        LuaValue::Table(t) => match t.raw_get::<LuaValue>("current")? {
            c @ (LuaValue::Table(_) | LuaValue::String(_)) => Some((t.clone(), c)),
            _ => None,
        },
        _ => None,
    };
    let Some((t, current)) = current else { return text_value(lua, v, |v| lua.from_value(v)).map_err(bad) };
    let rest = lua.create_table()?;
    for pair in t.pairs::<LuaValue, LuaValue>() {
        let (k, v) = pair?;
        if !matches!(&k, LuaValue::String(s) if s.as_bytes().as_ref() == b"current") {
            rest.raw_set(k, v)?;
        }
    }
    let mut context: Context = text_value(lua, LuaValue::Table(rest), |v| lua.from_value(v)).map_err(bad)?;
    let current = match current {
        LuaValue::Table(c) => c,
        LuaValue::String(text) => {
            // Outside strings JSON text is ASCII: a byte that is not UTF-8 is inside one.
            let bytes = text.as_bytes();
            context.current_text = Some(match std::str::from_utf8(&bytes) {
                Ok(text) => text.to_string(),
                Err(_) => drawn(&bytes),
            });
            return Ok(context);
        }
        _ => return Err(err("option “context”: current: not a table of setting values")),
    };
    for pair in current.pairs::<LuaValue, LuaValue>() {
        let (k, v) = pair?;
        let LuaValue::String(k) = k else {
            return Err(err("option “context”: current: a key is not a setting name"));
        };
        // What serde makes of each (a whole number is an integer, NaN is null), and a
        // string that is not UTF-8 as `text_value` reads it.
        let v = match v {
            LuaValue::Boolean(b) => Value::Bool(b),
            LuaValue::Integer(i) => Value::from(i),
            LuaValue::Number(n) => serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number),
            LuaValue::String(s) => Value::String(match s.to_str() {
                Ok(text) => text.to_string(),
                Err(_) => drawn(&s.as_bytes()),
            }),
            other => text_value(lua, other, |v| lua.from_value(v)).map_err(bad)?,
        };
        context.current.insert(drawn(&k.as_bytes()), v);
    }
    Ok(context)
}

/// A reach by name.
pub fn reach(reach: &str) -> mlua::Result<Reach> {
    Reach::parse(reach).ok_or_else(|| err(format!("unknown reach “{reach}”")))
}

/// A list of name handlers from Lua (`{ pattern, event, group }` tables); none for nil.
pub fn name_handlers(lua: &Lua, handlers: Option<LuaValue>) -> mlua::Result<Vec<NameHandler>> {
    match handlers {
        None | Some(LuaValue::Nil) => Ok(Vec::new()),
        Some(h) => parse_name_handlers(&bulk_json(lua, h, "option “name_handlers”")?).map_err(err),
    }
}

/// The folders Neovim loads code from (`code_dirs`) and the current directory (`cwd`) of
/// a frontend's options table.
pub fn code_dirs(lua: &Lua, opts: &Option<Table>) -> mlua::Result<CodeDirs> {
    let cwd = opt::<String>(opts, "cwd")?;
    match opt::<LuaValue>(opts, "code_dirs")? {
        Some(v) => parse_code_dirs(Some(&bulk_json(lua, v, "option “code_dirs”")?), cwd.as_deref()).map_err(err),
        None => Ok(CodeDirs::default()),
    }
}

/// The policy the options ask for over a catalog: `profile` (default: the catalog's
/// editor) and `raise` rules.
pub fn policy(lua: &Lua, catalog: &SessionCatalog, opts: &Option<Table>) -> mlua::Result<Policy> {
    let profile = opt::<String>(opts, "profile")?;
    let raise = match opt::<LuaValue>(opts, "raise")? {
        Some(raise) => Some(plain_json(lua.from_value(raise).map_err(|e| err(format!("option “raise”: {e}")))?)),
        None => None,
    };
    catalog.policy(profile.as_deref(), raise.as_ref()).map_err(err)
}

/// The `provider` option: the model to ask (default: the offline planner), as a table or
/// as the JSON text `provider_config` gave with it.
pub fn provider(lua: &Lua, opts: &Option<Table>) -> mlua::Result<ProviderConfig> {
    match opt::<LuaValue>(opts, "provider")? {
        Some(LuaValue::String(text)) => {
            let json: Value = serde_json::from_slice(&text.as_bytes())
                .map_err(|e| err(format!("option “provider”: not JSON text: {e}")))?;
            ProviderConfig::from_json(&json).map_err(err)
        }
        Some(v) => {
            let json: Value = lua.from_value(v).map_err(|e| err(format!("option “provider”: {e}")))?;
            ProviderConfig::from_json(&json).map_err(err)
        }
        None => Ok(ProviderConfig::default()),
    }
}

/// A Lua table read as JSON, with an empty table as an empty JSON table (Lua cannot tell
/// `{}` from an empty list; the schema reads an empty table under a list key as a list).
pub fn plain_json(v: Value) -> Value {
    match v {
        Value::Array(a) if a.is_empty() => Value::Object(serde_json::Map::new()),
        Value::Array(a) => Value::Array(a.into_iter().map(plain_json).collect()),
        Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, plain_json(v))).collect()),
        other => other,
    }
}

/// Plain Lua tables for a configuration: no array metatable (the Lua side copies them
/// with `vim.deepcopy`), and an absent value is absent, not `vim.NIL`.
pub fn plain_tables() -> mlua::SerializeOptions {
    mlua::SerializeOptions::new().set_array_metatable(false).serialize_none_to_null(false).serialize_unit_to_null(false)
}

/// JSON as a Lua value.
pub fn to_lua(lua: &Lua, v: &Value) -> mlua::Result<LuaValue> {
    lua.to_value(v)
}

/// A Lua value as JSON, for code that reads it leniently: `nil` and `vim.NIL` are null,
/// a table with a sequence part is an array (its other keys are dropped), other tables
/// are objects (keys that are UTF-8 strings only), a whole number is an integer. A
/// string that is not UTF-8 becomes `{"bytes": "<its visible form>"}` (see
/// [`leash_core::present::text_of`]), which equals no value a plan sets, so no setting reads
/// as already set by it; functions and userdata are null. A table inside itself is null
/// there, and past [`JsonWalk::MAX_NODES`] values everything is null: no Lua value makes
/// this slow.
pub fn json_of(v: &LuaValue) -> Value {
    JsonWalk::default().value(v)
}

/// The state of one [`json_of`] walk.
#[derive(Default)]
struct JsonWalk {
    /// The tables being converted, outermost first.
    path: Vec<*const std::ffi::c_void>,
    nodes: usize,
}

impl JsonWalk {
    /// More values than any plan or step holds.
    const MAX_NODES: usize = 100_000;

    fn value(&mut self, v: &LuaValue) -> Value {
        self.nodes += 1;
        if self.nodes > Self::MAX_NODES {
            return Value::Null;
        }
        match v {
            LuaValue::Boolean(b) => Value::Bool(*b),
            LuaValue::Integer(i) => Value::from(*i),
            LuaValue::Number(n) if n.fract() == 0.0 && n.abs() < 9e15 => Value::from(*n as i64),
            LuaValue::Number(n) => serde_json::Number::from_f64(*n).map_or(Value::Null, Value::Number),
            LuaValue::String(s) => match s.to_str() {
                Ok(text) => Value::String(text.to_string()),
                Err(_) => serde_json::json!({ "bytes": leash_core::text::shown_bytes(&s.as_bytes()) }),
            },
            LuaValue::Table(t) if !self.path.contains(&t.to_pointer()) => {
                self.path.push(t.to_pointer());
                let out = if t.raw_len() > 0 { self.array(t) } else { self.object(t) };
                self.path.pop();
                out
            }
            _ => Value::Null,
        }
    }

    fn array(&mut self, t: &Table) -> Value {
        let items: Vec<LuaValue> =
            t.clone().sequence_values::<LuaValue>().map(|v| v.unwrap_or(LuaValue::Nil)).collect();
        Value::Array(items.iter().map(|v| self.value(v)).collect())
    }

    fn object(&mut self, t: &Table) -> Value {
        let mut map = serde_json::Map::new();
        for (k, v) in t.clone().pairs::<LuaValue, LuaValue>().flatten() {
            if let LuaValue::String(k) = k {
                if let Ok(k) = k.to_str() {
                    let v = self.value(&v);
                    map.insert(k.to_string(), v);
                }
            }
        }
        Value::Object(map)
    }
}
