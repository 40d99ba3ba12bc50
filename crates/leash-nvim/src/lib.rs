//! The Lua module `leash_native`: the only file that knows Lua.
//!
//! Every function converts plain Lua tables to the core's types and back, and runs inside
//! `catch_unwind`, so a panic becomes a Lua error instead of crossing the FFI boundary.
//! Nothing here touches Lua off the main thread: long work (the planner) runs on the
//! runtime thread and hands back plain Rust values, converted here when Lua asks.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use mlua::{Lua, LuaSerdeExt, Table, UserData, UserDataMethods, UserDataRef, Value as LuaValue};
use serde_json::Value;

use leash_core::base_entries::BaseEntries;
use leash_core::catalog::{parse_code_dirs, parse_name_handlers, Catalog};
use leash_core::limits::MAX_TEXT_BYTES;
use leash_core::llm::ProviderConfig;
use leash_core::planner::{self, LogRecord, PlanJob, PlanRequest};
use leash_core::policy::budget::MAX_PLAN_SLEEP_MS;
use leash_core::policy::Policy;
use leash_core::profile::neovim;
use leash_core::profile::neovim::code_dirs::CodeDirs;
use leash_core::profile::neovim::name_handlers as names;
use leash_core::profile::Profile;
use leash_core::project;
use leash_core::prompt::{self, Context};
use leash_core::rank::{self, Mode};
use leash_core::reach::Reach;
use leash_core::runtime::{self, JobResult};
use leash_core::schema;
use leash_core::validate;

/// A catalog shared with Lua (and, through the `Arc`, with planner jobs), with the
/// ranker's index of it, built once for every request ranked against it.
pub struct LuaCatalog(pub Arc<Catalog>, pub Arc<rank::IndexCell>);

impl UserData for LuaCatalog {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("len", |_, this, ()| Ok(this.0.len()));
        methods.add_method("to_json", |_, this, ()| guard(|| Ok(this.0.to_json().to_string())));
        methods.add_method("has", |_, this, name: String| Ok(this.0.get(&name).is_some()));
    }
}

/// A planning request running on the runtime thread. Lua holds it and asks for the
/// result (and for progress) when the completion pipe says something happened.
pub struct LuaPlanJob {
    job: PlanJob,
    request: PlanRequest,
    /// The latest progress line not yet taken.
    progress: Arc<Mutex<Option<String>>>,
    started: std::time::Instant,
}

impl UserData for LuaPlanJob {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("id", |_, this, ()| Ok(this.job.id()));
        methods.add_method("cancel", |_, this, ()| {
            this.job.cancel();
            Ok(())
        });
        methods.add_method("is_finished", |_, this, ()| Ok(this.job.is_finished()));
        // nil while running; then, once, {status = "done"|"error"|"cancelled", …}.
        methods.add_method("take", |lua, this, ()| guard(|| take_job(lua, this)));
        // The latest progress line since the last call (`looking up …`), or nil.
        methods
            .add_method("progress", |_, this, ()| Ok(this.progress.lock().unwrap_or_else(|e| e.into_inner()).take()));
    }
}

fn take_job(lua: &Lua, this: &LuaPlanJob) -> mlua::Result<LuaValue> {
    let Some(result) = this.job.try_take() else { return Ok(LuaValue::Nil) };
    let out = lua.create_table()?;
    let failure = |out: &Table, message: String, code: &str, log: Option<LogRecord>| -> mlua::Result<()> {
        out.set("status", "error")?;
        out.set("error", message)?;
        out.set("code", code)?;
        if let Some(log) = log {
            out.set("log", log.to_line())?;
        }
        Ok(())
    };
    match result {
        JobResult::Finished(Ok(outcome)) => {
            out.set("status", "done")?;
            out.set("plan", to_lua(lua, &outcome.plan.to_json())?)?;
            out.set("log", outcome.log.to_line())?;
        }
        JobResult::Finished(Err(f)) if f.error.is_cancelled() => out.set("status", "cancelled")?,
        JobResult::Finished(Err(f)) => failure(&out, f.error.to_string(), f.error.code(), Some(*f.log))?,
        JobResult::Cancelled => out.set("status", "cancelled")?,
        JobResult::Panicked(what) => {
            let message = format!("leash: internal error while planning (please report it): {what}");
            let error = leash_core::llm::LlmError::Internal(message.clone());
            let log = LogRecord::failure(&this.request, &error, this.started.elapsed());
            failure(&out, message, "internal", Some(log))?
        }
    }
    Ok(LuaValue::Table(out))
}

/// Runs `f`, turning a panic into a Lua error.
fn guard<T>(f: impl FnOnce() -> mlua::Result<T>) -> mlua::Result<T> {
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

fn err(message: impl std::fmt::Display) -> mlua::Error {
    mlua::Error::runtime(message.to_string())
}

/// Reads an optional field of an options table.
fn opt<T: mlua::FromLua>(opts: &Option<Table>, key: &str) -> mlua::Result<Option<T>> {
    match opts {
        Some(t) => t.get::<Option<T>>(key).map_err(|e| err(format!("option “{key}”: {e}"))),
        None => Ok(None),
    }
}

fn limit_and_mode(opts: &Option<Table>) -> mlua::Result<(usize, Mode)> {
    let limit = opt::<usize>(opts, "limit")?.unwrap_or(rank::DEFAULT_SHORTLIST);
    let mode = match opt::<String>(opts, "mode")? {
        None => Mode::Any,
        Some(m) => Mode::parse(&m).ok_or_else(|| err(format!("option “mode” is any or all, not “{m}”")))?,
    };
    Ok((limit, mode))
}

/// The `context` option: what the editor says about where the request was made. Its
/// `current` values (one per setting, hundreds) are read directly: through serde they
/// cost more than everything else `plan_start` converts.
fn context(lua: &Lua, opts: &Option<Table>) -> mlua::Result<Context> {
    let bad = |e: mlua::Error| err(format!("option “context”: {e}"));
    let v = match opt::<LuaValue>(opts, "context")? {
        Some(v) => v,
        None => return Ok(Context::default()),
    };
    let current = match &v {
        LuaValue::Table(t) => match t.raw_get::<LuaValue>("current")? {
            LuaValue::Table(c) => Some((t.clone(), c)),
            _ => None,
        },
        _ => None,
    };
    let Some((t, current)) = current else { return lua.from_value(v).map_err(bad) };
    let rest = lua.create_table()?;
    for pair in t.pairs::<LuaValue, LuaValue>() {
        let (k, v) = pair?;
        if !matches!(&k, LuaValue::String(s) if s.as_bytes() == b"current") {
            rest.raw_set(k, v)?;
        }
    }
    let mut context: Context = lua.from_value(LuaValue::Table(rest)).map_err(bad)?;
    for pair in current.pairs::<LuaValue, LuaValue>() {
        let (k, v) = pair?;
        let LuaValue::String(k) = k else {
            return Err(err("option “context”: current: a key is not a setting name"));
        };
        // What serde makes of each (a whole number is an integer, NaN is null).
        let v = match v {
            LuaValue::Boolean(b) => Value::Bool(b),
            LuaValue::Integer(i) => Value::from(i),
            LuaValue::Number(n) => serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number),
            LuaValue::String(s) => Value::String(s.to_str().map_err(bad)?.to_string()),
            other => lua.from_value(other).map_err(bad)?,
        };
        context.current.insert(k.to_str().map_err(bad)?.to_string(), v);
    }
    Ok(context)
}

fn parse_reach(reach: &str) -> mlua::Result<Reach> {
    Reach::parse(reach).ok_or_else(|| err(format!("unknown reach “{reach}”")))
}

/// A list of name handlers from Lua (`{ pattern, event, group }` tables); none for nil.
fn name_handlers(lua: &Lua, handlers: Option<LuaValue>) -> mlua::Result<Vec<names::NameHandler>> {
    match handlers {
        None | Some(LuaValue::Nil) => Ok(Vec::new()),
        Some(h) => parse_name_handlers(&bulk_json(lua, h, "option “name_handlers”")?).map_err(err),
    }
}

/// Bulk data from Lua (catalog entries, name handlers, folders) as JSON: a string is the
/// JSON text of it (what `vim.json.encode` makes), which crosses faster than the table
/// (mlua converts a table field by field: 160 mapping entries took 1.2 ms as a table,
/// 0.8 ms as text); any other value is converted as before.
fn bulk_json(lua: &Lua, v: LuaValue, what: &str) -> mlua::Result<Value> {
    match v {
        LuaValue::String(s) => serde_json::from_slice(&s.as_bytes()).map_err(|e| err(format!("{what}: {e}"))),
        other => lua.from_value(other).map_err(|e| err(format!("{what}: {e}"))),
    }
}

fn to_lua(lua: &Lua, v: &Value) -> mlua::Result<LuaValue> {
    lua.to_value(v)
}

/// The last discovered items and their generation number: `None` when they are those of
/// generation `unless` (nothing to convert again), else the number the caller keeps.
fn sources_generation(found: &project::Discovered, unless: Option<u64>) -> Option<u64> {
    static LAST: Mutex<(u64, Option<project::Discovered>)> = Mutex::new((0, None));
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    if last.1.as_ref() != Some(found) {
        *last = (last.0 + 1, Some(found.clone()));
    } else if unless == Some(last.0) {
        return None;
    }
    Some(last.0)
}

/// Where base entries come from: the file they are cached in, or their text.
enum BaseSource {
    Path(std::path::PathBuf),
    Text(String),
}

impl BaseSource {
    /// `{ path = … }` or `{ text = … }`; none when the table has neither.
    fn from_table(spec: &Table) -> mlua::Result<Option<BaseSource>> {
        if let Some(path) = spec.get::<Option<String>>("path").map_err(|e| err(format!("base “path”: {e}")))? {
            return Ok(Some(BaseSource::Path(path.into())));
        }
        let text = spec.get::<Option<mlua::String>>("text").map_err(|e| err(format!("base “text”: {e}")))?;
        Ok(match text {
            Some(t) => Some(BaseSource::Text(t.to_str()?.to_string())),
            None => None,
        })
    }

    fn parse(self) -> Result<BaseEntries, String> {
        let text = match self {
            BaseSource::Path(path) => std::fs::read_to_string(&path)
                .map_err(|e| format!("leash: cannot read the runtime entries in {}: {e}", path.display()))?,
            BaseSource::Text(text) => text,
        };
        BaseEntries::from_json(&text).map_err(|e| e.to_string())
    }
}

/// The base entries of the session under their key: being parsed on a thread of their
/// own (`prepare_base`), or parsed.
enum BaseSlot {
    Parsing(std::thread::JoinHandle<Result<BaseEntries, String>>),
    Ready(Arc<BaseEntries>),
}

static BASE: Mutex<Option<(String, BaseSlot)>> = Mutex::new(None);

/// `prepare_base(key, { path | text })`: starts parsing the base entries under `key` on
/// a thread of their own, unless they are there already, so that the catalog built next
/// finds them parsed (the first `:Do` of a session collects its other sources meanwhile).
fn prepare_base(key: String, spec: Table) -> mlua::Result<()> {
    let source = BaseSource::from_table(&spec)?.ok_or_else(|| err("prepare_base: give a path or a text"))?;
    let mut slot = BASE.lock().unwrap_or_else(|e| e.into_inner());
    if matches!(&*slot, Some((k, _)) if *k == key) {
        return Ok(());
    }
    // A thread that cannot start leaves the parse to catalog_new.
    if let Ok(handle) = std::thread::Builder::new().name("leash-base".into()).spawn(move || source.parse()) {
        *slot = Some((key, BaseSlot::Parsing(handle)));
    }
    Ok(())
}

/// The base entries `catalog_new` builds on (`opts.base`: `{ key, lists, path? | text? }`),
/// or none: the entries a frontend keeps that change only with the editor's build, parsed
/// once per `key` (ahead, by `prepare_base`, or now from `path` or `text`) and kept for
/// the session, so a catalog rebuilt because a mapping changed converts only the entries
/// that Lua hands over.
fn base_entries(opts: &Option<Table>) -> mlua::Result<Option<(Arc<BaseEntries>, Vec<String>)>> {
    let Some(spec) = opt::<Table>(opts, "base")? else { return Ok(None) };
    let key: String = spec.get("key").map_err(|e| err(format!("option “base.key”: {e}")))?;
    let lists: Vec<String> = spec.get("lists").map_err(|e| err(format!("option “base.lists”: {e}")))?;
    let mut slot = BASE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((k, found)) = slot.take() {
        if k == key {
            let base = match found {
                BaseSlot::Ready(base) => base,
                BaseSlot::Parsing(handle) => Arc::new(
                    handle
                        .join()
                        .map_err(|_| err("leash: internal error while reading the runtime entries (please report it)"))?
                        .map_err(err)?,
                ),
            };
            *slot = Some((k, BaseSlot::Ready(Arc::clone(&base))));
            return Ok(Some((base, lists)));
        }
    }
    let source = BaseSource::from_table(&spec)?
        .ok_or_else(|| err(format!("leash: the base entries “{key}” are not loaded: give their path or text")))?;
    let base = Arc::new(source.parse().map_err(err)?);
    *slot = Some((key, BaseSlot::Ready(Arc::clone(&base))));
    Ok(Some((base, lists)))
}

/// The policy for a catalog, with the caller's raise rules.
fn policy(lua: &Lua, catalog: &Catalog, opts: &Option<Table>) -> mlua::Result<Policy> {
    let profile = opt::<String>(opts, "profile")?.unwrap_or_else(|| catalog.editor().to_string());
    let profile = Profile::for_editor(&profile).map_err(err)?;
    let rules = match opt::<LuaValue>(opts, "raise")? {
        Some(raise) => {
            let raise = plain_json(lua.from_value(raise).map_err(|e| err(format!("option “raise”: {e}")))?);
            schema::parse_raise_rules(&raise).map_err(|e| err(format!("option “raise”: {e}")))?
        }
        None => Vec::new(),
    };
    Ok(Policy::new(profile).with_raise_rules(rules))
}

/// A Lua table read as JSON, with an empty table as an empty JSON table (Lua cannot tell
/// `{}` from an empty list; the schema reads an empty table under a list key as a list).
fn plain_json(v: Value) -> Value {
    match v {
        Value::Array(a) if a.is_empty() => Value::Object(serde_json::Map::new()),
        Value::Array(a) => Value::Array(a.into_iter().map(plain_json).collect()),
        Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, plain_json(v))).collect()),
        other => other,
    }
}

/// Plain Lua tables for a configuration: no array metatable (the Lua side copies them
/// with `vim.deepcopy`), and an absent value is absent, not `vim.NIL`.
fn plain_tables() -> mlua::SerializeOptions {
    mlua::SerializeOptions::new().set_array_metatable(false).serialize_none_to_null(false).serialize_unit_to_null(false)
}

/// `check_config(tbl, elsewhere)`: the setup table's keys the core reads, checked by the
/// one schema (`leash_core::schema`). Gives the normalized configuration, or nil and every
/// error as `path: what is wrong`. A value Lua cannot hand over (a function) is named by
/// its key.
fn check_config(lua: &Lua, tbl: Table, elsewhere: Vec<String>) -> mlua::Result<(LuaValue, Option<Vec<String>>)> {
    let mut top = serde_json::Map::new();
    let mut unreadable = Vec::new();
    for pair in tbl.pairs::<LuaValue, LuaValue>() {
        let (k, v) = pair?;
        let key = match &k {
            LuaValue::String(s) => s.to_string_lossy(),
            other => {
                unreadable.push(format!("opts: should have string keys, not {}", other.type_name()));
                continue;
            }
        };
        if elsewhere.contains(&key) {
            continue;
        }
        match lua.from_value::<Value>(v) {
            Ok(v) => {
                top.insert(key, plain_json(v));
            }
            Err(e) => unreadable.push(format!("{key}: cannot be read ({e})")),
        }
    }
    let elsewhere: Vec<&str> = elsewhere.iter().map(String::as_str).collect();
    let mut errors = unreadable;
    match schema::check(&Value::Object(top), &elsewhere, schema::Runs::LuaOrCmd) {
        Ok(cfg) if errors.is_empty() => Ok((lua.to_value_with(&cfg, plain_tables())?, None)),
        Ok(_) => Ok((LuaValue::Nil, Some(errors))),
        Err(issues) => {
            errors.extend(issues.0.iter().map(ToString::to_string));
            errors.sort();
            Ok((LuaValue::Nil, Some(errors)))
        }
    }
}

/// The folders Neovim loads code from (`code_dirs`) and the current directory (`cwd`) of
/// a frontend's options table.
fn code_dirs(lua: &Lua, opts: &Option<Table>) -> mlua::Result<CodeDirs> {
    let cwd = opt::<String>(opts, "cwd")?;
    match opt::<LuaValue>(opts, "code_dirs")? {
        Some(v) => parse_code_dirs(Some(&bulk_json(lua, v, "option “code_dirs”")?), cwd.as_deref()).map_err(err),
        None => Ok(CodeDirs::default()),
    }
}

/// `leash_core::text::visible` over bytes from Lua: valid UTF-8 runs rewritten, invalid bytes
/// kept (Neovim shows those as `<xx>` itself).
fn visible_bytes(bytes: &[u8]) -> mlua::Result<mlua::BString> {
    let mut out = Vec::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.extend_from_slice(leash_core::text::visible(chunk.valid()).as_bytes());
        out.extend_from_slice(chunk.invalid());
    }
    Ok(out.into())
}

/// The plan window's content for the plan the Lua side holds and what it knows of each
/// step (by position: `{ now?, global?, file? }`).
fn present_plan(lua: &Lua, plan: LuaValue, known: Option<Table>) -> mlua::Result<Table> {
    use leash_core::profile::neovim::present::{present, Known};
    let plan = json_of(&plan);
    let mut by_pos = Vec::new();
    if let Some(known) = known {
        for k in known.sequence_values::<LuaValue>() {
            let k = json_of(&k?);
            by_pos.push(Known {
                now: k.get("now").cloned().unwrap_or_default(),
                global: k.get("global").cloned().unwrap_or_default(),
                file: k.get("file").and_then(leash_core::present::text_of).map(str::to_owned),
            });
        }
    }
    let shown = present(&plan, &by_pos);
    let rows = lua.create_table()?;
    for row in &shown.rows {
        let chunks = lua.create_table()?;
        for (text, style) in row {
            chunks.push(lua.create_sequence_from([text.as_str(), style.name()])?)?;
        }
        rows.push(chunks)?;
    }
    let out = lua.create_table()?;
    out.set("rows", rows)?;
    out.set("summary", shown.summary)?;
    out.set("unchanged", shown.unchanged)?;
    out.set("nothing", shown.nothing)?;
    Ok(out)
}

/// A Lua value as JSON, for code that reads it leniently: `nil` and `vim.NIL` are null,
/// a table with a sequence part is an array (its other keys are dropped), other tables
/// are objects (keys that are UTF-8 strings only), a whole number is an integer. A
/// string that is not UTF-8 becomes `{"bytes": "<its visible form>"}` (see
/// [`leash_core::present::text_of`]), which equals no value a plan sets, so no setting reads
/// as already set by it; functions and userdata are null. A table inside itself is null
/// there, and past [`JsonWalk::MAX_NODES`] values everything is null: no Lua value makes
/// this slow.
fn json_of(v: &LuaValue) -> Value {
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
                Err(_) => {
                    // Written as Neovim draws it: each byte that is not UTF-8 as `<ff>`.
                    let mut shown = String::new();
                    for chunk in s.as_bytes().utf8_chunks() {
                        shown.push_str(&leash_core::text::visible(chunk.valid()));
                        for b in chunk.invalid() {
                            shown.push_str(&format!("<{b:02x}>"));
                        }
                    }
                    serde_json::json!({ "bytes": shown })
                }
            },
            LuaValue::Table(t) if !self.path.contains(&t.to_pointer()) => {
                self.path.push(t.to_pointer());
                let out = if t.raw_len() > 0 {
                    let items: Vec<LuaValue> =
                        t.clone().sequence_values::<LuaValue>().map(|v| v.unwrap_or(LuaValue::Nil)).collect();
                    Value::Array(items.iter().map(|v| self.value(v)).collect())
                } else {
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
                };
                self.path.pop();
                out
            }
            _ => Value::Null,
        }
    }
}

/// The Neovim profile's lists the Lua side needs (its argument filter and text checks
/// use these, so the two sides cannot drift apart).
fn policy_lists(lua: &Lua) -> mlua::Result<Table> {
    let out = lua.create_table()?;
    let withheld = lua.create_table()?;
    for (name, why) in neovim::withheld_commands() {
        withheld.set(*name, *why)?;
    }
    out.set("withheld", withheld)?;
    out.set("no_args", lua.create_sequence_from(neovim::argumentless_commands().iter().copied())?)?;
    let caps = lua.create_table()?;
    for (name, cap) in neovim::number_arg_caps() {
        caps.set(*name, *cap)?;
    }
    out.set("number_arg_caps", caps)?;
    out.set("max_text_bytes", MAX_TEXT_BYTES)?;
    out.set("max_plan_sleep_ms", MAX_PLAN_SLEEP_MS)?;
    let commands = lua.create_table()?;
    for (name, facts) in
        neovim::command_facts().ok_or_else(|| err("leash: the Neovim profile tables failed to load"))?
    {
        let row = lua.create_table()?;
        row.set("raw", facts.raw.as_str())?;
        row.set("reach", facts.reach.as_str())?;
        for flag in facts.flags {
            row.set(flag, true)?;
        }
        commands.set(name, row)?;
    }
    out.set("commands", commands)?;
    Ok(out)
}

/// The module table.
#[mlua::lua_module(name = "leash_native")]
fn leash_native(lua: &Lua) -> mlua::Result<Table> {
    let m = lua.create_table()?;
    m.set("version", lua.create_function(|_, ()| Ok(env!("CARGO_PKG_VERSION")))?)?;
    // What `rank`, `prompt` and `plan_start` use when no `limit` is given.
    m.set("default_shortlist_limit", rank::DEFAULT_SHORTLIST)?;

    m.set(
        "catalog_new",
        lua.create_function(|lua, (entries, editor, opts): (LuaValue, Option<String>, Option<Table>)| {
            guard(|| {
                let what = "catalog entries must be a list of tables";
                let values = match bulk_json(lua, entries, what)? {
                    Value::Array(values) => values,
                    // An empty Lua table is encoded as an empty object.
                    Value::Object(m) if m.is_empty() => Vec::new(),
                    _ => return Err(err(what)),
                };
                let handlers = name_handlers(lua, opt::<LuaValue>(&opts, "name_handlers")?)?;
                let code_dirs = code_dirs(lua, &opts)?;
                let editor = editor.as_deref().unwrap_or("neovim");
                let catalog = match base_entries(&opts)? {
                    Some((base, lists)) => Catalog::with_base(editor, &base, &lists, &values),
                    None => Catalog::from_entry_values(editor, &values),
                }
                .map_err(err)?
                .with_name_handlers(handlers)
                .with_code_dirs(code_dirs);
                let catalog = Arc::new(leash_core::policy::narrow_catalog(catalog));
                // The ranker's index (tens of ms with the documentation text) is built on
                // the ranker's worker thread, so building the catalog does not hold up the
                // editor.
                let index = Arc::new(rank::IndexCell::default());
                rank::prepare_in_background(&catalog, &index);
                Ok(LuaCatalog(catalog, index))
            })
        })?,
    )?;

    m.set(
        "rank",
        lua.create_function(|lua, (catalog, request, opts): (UserDataRef<LuaCatalog>, String, Option<Table>)| {
            guard(|| {
                let (limit, mode) = limit_and_mode(&opts)?;
                let ranked = rank::rank(catalog.1.get(&catalog.0), &catalog.0, &request, limit, mode);
                // Sized tables and keys made once: building the rows costs more than ranking.
                let out = lua.create_table_with_capacity(ranked.len(), 0)?;
                let keys = [lua.create_string("id")?, lua.create_string("kind")?, lua.create_string("title")?];
                let score = lua.create_string("score")?;
                for (i, r) in ranked.iter().enumerate() {
                    let row = lua.create_table_with_capacity(0, 4)?;
                    row.raw_set(&keys[0], r.entry.name())?;
                    row.raw_set(&keys[1], r.entry.kind())?;
                    row.raw_set(&keys[2], r.entry.title())?;
                    row.raw_set(&score, r.score)?;
                    out.raw_set(i + 1, row)?;
                }
                Ok(out)
            })
        })?,
    )?;

    m.set(
        "prompt",
        lua.create_function(|lua, (catalog, request, opts): (UserDataRef<LuaCatalog>, String, Option<Table>)| {
            guard(|| {
                let (limit, mode) = limit_and_mode(&opts)?;
                let context = context(lua, &opts)?;
                let shortlist = rank::rank(catalog.1.get(&catalog.0), &catalog.0, &request, limit, mode);
                let p = prompt::build(&request, &shortlist, &context);
                let out = lua.create_table()?;
                out.set("system", p.system)?;
                out.set("user", p.user)?;
                out.set("schema", p.schema.to_string())?;
                out.set("shortlist", p.shortlist)?;
                Ok(out)
            })
        })?,
    )?;

    m.set(
        "validate",
        lua.create_function(|lua, (catalog, text, opts): (UserDataRef<LuaCatalog>, String, Option<Table>)| {
            guard(|| {
                let policy = policy(lua, &catalog.0, &opts)?;
                let range = context(lua, &opts)?.range;
                let plan = validate::validate_text(&text, &catalog.0, &policy, range).map_err(err)?;
                to_lua(lua, &plan.to_json())
            })
        })?,
    )?;

    m.set(
        "plan_start",
        lua.create_function(|lua, (catalog, request, opts): (UserDataRef<LuaCatalog>, String, Option<Table>)| {
            guard(|| {
                let (limit, _) = limit_and_mode(&opts)?;
                let context = context(lua, &opts)?;
                let config = match opt::<LuaValue>(&opts, "provider")? {
                    Some(v) => {
                        let json: Value = lua.from_value(v).map_err(|e| err(format!("option “provider”: {e}")))?;
                        ProviderConfig::from_json(&json).map_err(err)?
                    }
                    None => ProviderConfig::default(),
                };
                let policy = policy(lua, &catalog.0, &opts)?;
                let mut req = PlanRequest::new(request, Arc::clone(&catalog.0), policy);
                req.index = Arc::clone(&catalog.1);
                req.limit = limit;
                req.context = context;
                req.provider = config;
                let progress = Arc::new(Mutex::new(None));
                let slot = Arc::clone(&progress);
                req.progress = Some(Arc::new(move |line: &str| {
                    *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(line.to_string());
                    runtime::wake();
                }));
                // The job's copy of the request is kept for its log line only: without the
                // current values (hundreds), which that does not show.
                let current = std::mem::take(&mut req.context.current);
                let kept = req.clone();
                req.context.current = current;
                let job = planner::start(req).map_err(err)?;
                Ok(LuaPlanJob { job, request: kept, progress, started: std::time::Instant::now() })
            })
        })?,
    )?;

    m.set("policy_lists", lua.create_function(|lua, ()| guard(|| policy_lists(lua)))?)?;
    m.set("prepare_base", lua.create_function(|_, (key, spec): (String, Table)| guard(|| prepare_base(key, spec)))?)?;

    m.set(
        "check_config",
        lua.create_function(|lua, (tbl, elsewhere): (Table, Option<Vec<String>>)| {
            guard(|| check_config(lua, tbl, elsewhere.unwrap_or_default()))
        })?,
    )?;
    // The provider table the planner uses for a config `check_config` gave (its provider,
    // providers and timeout_ms), or nil for the offline planner.
    m.set(
        "provider_config",
        lua.create_function(|lua, cfg: LuaValue| {
            guard(|| {
                let v = plain_json(lua.from_value(cfg).map_err(|e| err(format!("leash: config: {e}")))?);
                let cfg =
                    schema::check(&v, &[], schema::Runs::LuaOrCmd).map_err(|e| err(format!("leash: config: {e}")))?;
                match cfg.provider_config() {
                    Some(p) => lua.to_value_with(&p, plain_tables()),
                    None => Ok(LuaValue::Nil),
                }
            })
        })?,
    )?;
    // Every key of the core's schema as a dotted path (`providers.NAME.kind`).
    m.set("config_keys", lua.create_function(|_, ()| guard(|| Ok(schema::keys())))?)?;

    // Model text with every invisible character written out (`^[`, `<U+202E>`): the one
    // definition the plan window, progress, notifications and the policy share. Bytes that
    // are not UTF-8 are kept as they are (Neovim draws them as `<xx>`); only the valid
    // runs between them are rewritten.
    m.set("visible", lua.create_function(|_, s: mlua::String| guard(|| Ok(visible_bytes(&s.as_bytes()))))?)?;
    // The plan window's content (`leash_core::profile::neovim::present`): rows of `{ text, style }`,
    // the summary, the unchanged settings' indexes and the nothing-to-change message.
    m.set(
        "present_plan",
        lua.create_function(|lua, (plan, known): (LuaValue, Option<Table>)| guard(|| present_plan(lua, plan, known)))?,
    )?;
    // Where a step about to run writes, checked against the folders Neovim loads code
    // from as they are now (the current directory, file and changed buffers, and the
    // path options the plan set before): nil, or why the write is `code`.
    m.set(
        "write_landing",
        lua.create_function(|lua, (step, state): (Table, Option<Table>)| {
            guard(|| {
                let dirs = code_dirs(lua, &state)?;
                let file = opt::<String>(&state, "file")?.filter(|f| !f.is_empty());
                let modified = opt::<Vec<String>>(&state, "modified")?.unwrap_or_default();
                let text = |v: LuaValue| match v {
                    LuaValue::String(s) => Some(s.to_string_lossy()),
                    _ => None,
                };
                let mut why = match step.get::<Option<String>>("type")?.as_deref() {
                    Some("item") => {
                        let id: String = step.get::<Option<String>>("id")?.unwrap_or_default();
                        let args: Vec<String> = match step.get::<LuaValue>("args")? {
                            LuaValue::Table(t) => t.sequence_values::<String>().collect::<mlua::Result<_>>()?,
                            LuaValue::String(s) => vec![s.to_str()?.to_string()],
                            _ => Vec::new(),
                        };
                        dirs.item_reach(&id, &args, file.as_deref(), &modified)
                    }
                    Some("setting") => {
                        let key: String = step.get::<Option<String>>("key")?.unwrap_or_default();
                        text(step.get("value")?).and_then(|v| dirs.option_reach(&key, &v))
                    }
                    _ => None,
                };
                if let Some(set) = opt::<Table>(&state, "settings")? {
                    for pair in set.pairs::<String, LuaValue>() {
                        let (key, value) = pair?;
                        why = why.or_else(|| text(value).and_then(|v| dirs.option_reach(&key, &v)));
                    }
                }
                Ok(why.map(|(_, why)| why))
            })
        })?,
    )?;

    // Whether one code point is invisible (false for a number that is no code point).
    m.set(
        "is_invisible",
        lua.create_function(|_, u: u32| Ok(char::from_u32(u).is_some_and(leash_core::text::is_invisible)))?,
    )?;

    // The executor's checks just before a step runs (lua/leash/policy.lua calls them): the
    // core's rules, the ones the validator applied, never a copy in Lua. Each answers nil
    // when the step may run, else the reason.
    //
    // `:name args` in a step of `reach`: the argument filter, and below shell no file name
    // that one of `handlers` (the autocommands that read or write names in Neovim's place)
    // claims.
    m.set(
        "check_command_args",
        lua.create_function(|lua, (name, reach, args, handlers): (String, String, Vec<String>, Option<LuaValue>)| {
            guard(|| {
                let reach = parse_reach(&reach)?;
                let handlers = name_handlers(lua, handlers)?;
                Ok(neovim::check_before_run(&name, reach, &args, &handlers).err().map(|r| r.to_string()))
            })
        })?,
    )?;
    // The arguments of a user command or a user entry in a step of `reach`.
    m.set(
        "check_item_args",
        lua.create_function(|_, (args, reach): (Vec<String>, String)| {
            guard(|| Ok(neovim::check_item_args(&args, parse_reach(&reach)?).err().map(|r| r.to_string())))
        })?,
    )?;
    // A file name leash opens that came from elsewhere (a language server's jump target).
    m.set(
        "check_file_name",
        lua.create_function(|_, name: String| {
            guard(|| Ok(neovim::check_file_name(&name).err().map(|r| r.to_string())))
        })?,
    )?;
    // The position (1-based) of the first of `handlers` that reads or writes `name`, or nil.
    m.set(
        "name_handler",
        lua.create_function(|lua, (name, handlers): (String, LuaValue)| {
            guard(|| {
                let handlers = name_handlers(lua, Some(handlers))?;
                Ok(handlers.iter().position(|h| h.matches(&name)).map(|i| i + 1))
            })
        })?,
    )?;

    // The editor-agnostic sources (scripts, Git, files), discovered by reading files only.
    // With `unless = N`: nil when the items are those the call that answered generation N
    // found (the Lua side keeps its tables), else the items with their `generation`.
    m.set(
        "sources",
        lua.create_function(|lua, opts: Option<Table>| {
            guard(|| {
                let cwd = match opt::<String>(&opts, "cwd")? {
                    Some(c) => std::path::PathBuf::from(c),
                    None => std::env::current_dir().map_err(|e| err(format!("leash: no current directory: {e}")))?,
                };
                let file = opt::<String>(&opts, "file")?.filter(|f| !f.is_empty()).map(std::path::PathBuf::from);
                let editor = opt::<String>(&opts, "editor")?.unwrap_or_else(|| "neovim".into());
                let editor = project::Editor::parse(&editor)
                    .ok_or_else(|| err(format!("option “editor” is neovim or helix, not “{editor}”")))?;
                let found = project::discover(&project::Options { cwd, file, editor });
                let Some(generation) = sources_generation(&found, opt::<u64>(&opts, "unless")?) else {
                    return Ok(LuaValue::Nil);
                };
                // Plain tables: the Lua side copies them (`vim.deepcopy`), which a table
                // with mlua's array metatable does not survive.
                let plain = mlua::SerializeOptions::new().set_array_metatable(false);
                let out = lua.to_value_with(&found, plain)?;
                if let LuaValue::Table(t) = &out {
                    t.set("generation", generation)?;
                }
                Ok(out)
            })
        })?,
    )?;

    // The files a project's runners read when a script starts, relative to its root.
    m.set("script_files", lua.create_function(|_, ()| Ok(project::scripts::definition_files()))?)?;

    // Forget every parsed project file (tests and benchmarks).
    m.set(
        "sources_reset",
        lua.create_function(|_, ()| {
            project::cache::clear_all();
            Ok(())
        })?,
    )?;

    // The work tree root above a folder, or nil.
    m.set(
        "git_root",
        lua.create_function(|_, start: String| {
            Ok(project::git::root(std::path::Path::new(&start)).and_then(|r| r.to_str().map(str::to_string)))
        })?,
    )?;

    // The git arguments of an action: {argv} or nil, reason. `opts`: root, file, line, args.
    m.set(
        "git_argv",
        lua.create_function(|_, (action, opts): (String, Option<Table>)| {
            guard(|| {
                let root = opt::<String>(&opts, "root")?.unwrap_or_default();
                let file = opt::<String>(&opts, "file")?.map(std::path::PathBuf::from);
                let line = opt::<usize>(&opts, "line")?;
                let args = opt::<Vec<String>>(&opts, "args")?.unwrap_or_default();
                let cx = project::git::StepContext { file: file.as_deref(), line, args: &args };
                Ok(match project::git::argv(&action, std::path::Path::new(&root), &cx) {
                    Ok(argv) => (Some(argv), None),
                    Err(e) => (None, Some(e.to_string())),
                })
            })
        })?,
    )?;

    // The full argv of a read-only git command: the overrides, then `args`.
    m.set("git_quiet", lua.create_function(|_, args: Vec<String>| Ok(project::git::quiet(args)))?)?;

    // Why a branch name or a commit message is refused, or nil.
    m.set(
        "git_check",
        lua.create_function(|_, (what, text): (String, String)| {
            Ok(match what.as_str() {
                "branch" => project::git::check_branch(&text).err().map(|e| e.to_string()),
                _ => project::git::check_message(&text).err().map(|e| e.to_string()),
            })
        })?,
    )?;

    // The read end of the completion pipe: one byte per finished job. Call once.
    m.set("notify_fd", lua.create_function(|_, ()| guard(|| runtime::notify_fd().map_err(err)))?)?;

    Ok(m)
}
