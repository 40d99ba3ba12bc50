//! The catalog handle and what is asked of it: build, rank, prompt, validate, and the
//! plan window's content.

use mlua::{Lua, Table, UserData, UserDataMethods, UserDataRef, Value as LuaValue};
use serde_json::Value;

use leash_core::catalog::Catalog;
use leash_core::planner::session::SessionCatalog;
use leash_core::profile::neovim::present::{present, Known, Shown};
use leash_core::validate;

use crate::base::base_entries;
use crate::convert::{bulk_json, code_dirs, context, err, json_of, limit_and_mode, name_handlers, opt, policy, to_lua};
use crate::method;

/// A catalog shared with Lua (and with planner jobs), with the ranker's index of it.
pub struct LuaCatalog(pub SessionCatalog);

impl UserData for LuaCatalog {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        method(methods, "len", |_, this, ()| Ok(this.0.catalog().len()));
        method(methods, "to_json", |_, this, ()| Ok(this.0.catalog().to_json().to_string()));
        method(methods, "has", |_, this, name: String| Ok(this.0.catalog().get(&name).is_some()));
    }
}

/// `catalog_new(entries, editor?, opts?)`: the catalog of a frontend's entries, a list or
/// its JSON text (`opts`: name_handlers, code_dirs, cwd, and `base`, the entries parsed
/// once per session that the catalog is built on first: [`crate::base`]).
pub fn new(lua: &Lua, (entries, editor, opts): (LuaValue, Option<String>, Option<Table>)) -> mlua::Result<LuaCatalog> {
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
    let base = base_entries(&opts)?;
    let catalog = match &base {
        Some(base) => Catalog::with_base(editor, &base.entries, &base.lists, &values),
        None => Catalog::from_entry_values(editor, &values),
    }
    .map_err(err)?
    .with_name_handlers(handlers)
    .with_code_dirs(code_dirs);
    Ok(LuaCatalog(match base {
        Some(base) => SessionCatalog::on_base(catalog, base.index),
        None => SessionCatalog::from_catalog(catalog),
    }))
}

/// `rank(catalog, request, opts?)`: the shortlist, as `{ id, kind, title, score }` rows.
pub fn rank(
    lua: &Lua,
    (catalog, request, opts): (UserDataRef<LuaCatalog>, String, Option<Table>),
) -> mlua::Result<Table> {
    let (limit, mode) = limit_and_mode(&opts)?;
    let ranked = catalog.0.rank(&request, limit, mode);
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
}

/// `prompt(catalog, request, opts?)`: the messages and schema a model would be sent.
pub fn prompt(
    lua: &Lua,
    (catalog, request, opts): (UserDataRef<LuaCatalog>, String, Option<Table>),
) -> mlua::Result<Table> {
    let (limit, mode) = limit_and_mode(&opts)?;
    let context = context(lua, &opts)?;
    let p = catalog.0.prompt(&request, limit, mode, &context);
    let out = lua.create_table()?;
    out.set("system", p.system)?;
    out.set("user", p.user)?;
    out.set("schema", p.schema.to_string())?;
    out.set("shortlist", p.shortlist)?;
    Ok(out)
}

/// `validate(catalog, text, opts?)`: a model's answer checked against the catalog.
pub fn validate(
    lua: &Lua,
    (catalog, text, opts): (UserDataRef<LuaCatalog>, String, Option<Table>),
) -> mlua::Result<LuaValue> {
    let policy = policy(lua, &catalog.0, &opts)?;
    let range = context(lua, &opts)?.range;
    let plan = validate::validate_text(&text, catalog.0.catalog(), &policy, range).map_err(err)?;
    to_lua(lua, &plan.to_json())
}

/// `present_plan(plan, known?)`: the plan window's content
/// (`leash_core::profile::neovim::present`) for the plan the Lua side holds and what it
/// knows of each step (by position: `{ now?, global?, file? }`): rows of
/// `{ text, style }`, the summary, the unchanged settings' indexes and the
/// nothing-to-change message.
pub fn present_plan(lua: &Lua, (plan, known): (LuaValue, Option<Table>)) -> mlua::Result<Table> {
    let known: mlua::Result<Vec<Known>> = match known {
        Some(known) => known.sequence_values::<LuaValue>().map(|k| k.map(|k| Known::from_json(&json_of(&k)))).collect(),
        None => Ok(Vec::new()),
    };
    shown_table(lua, present(&json_of(&plan), &known?))
}

/// The plan window's content as `present_plan` gives it.
fn shown_table(lua: &Lua, shown: Shown) -> mlua::Result<Table> {
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

/// `preview_steps(plan)`: which steps of the plan the Lua side holds the plan window
/// dry-runs on a copy of the buffer (`leash_core::profile::neovim::preview`):
/// `{ steps = { { kind, why?, apply? }… }, options = { name… } }`, the steps by position
/// and the options the copy takes.
pub fn preview_steps(lua: &Lua, plan: LuaValue) -> mlua::Result<Table> {
    use leash_core::profile::neovim::preview;
    let steps = preview::plan(&json_of(&plan));
    let out = lua.create_table()?;
    out.set("steps", to_lua(lua, &serde_json::to_value(&steps).map_err(err)?)?)?;
    out.set("options", lua.create_sequence_from(preview::TEXT_OPTIONS.iter().copied())?)?;
    Ok(out)
}

/// `entry_details(catalog, names, opts)`: for each name (an item's id or a setting's key),
/// `{ entry = <the entry as the catalog holds it>, reach = <the least reach a step naming
/// it has> }`, or `false` where the catalog has no such entry. `opts.raise`: the user's
/// raise rules, as for `validate`. What an agent's search shows (lua/leash/agent.lua).
pub fn entry_details(
    lua: &Lua,
    (catalog, names, opts): (UserDataRef<LuaCatalog>, Vec<String>, Option<Table>),
) -> mlua::Result<Table> {
    let policy = policy(lua, &catalog.0, &opts)?;
    let out = lua.create_table_with_capacity(names.len(), 0)?;
    for (i, name) in names.iter().enumerate() {
        match catalog.0.catalog().get(name) {
            Some(entry) => {
                let row = lua.create_table()?;
                row.set("entry", to_lua(lua, &entry.to_json())?)?;
                row.set("reach", policy.least_reach(entry).as_str())?;
                out.raw_set(i + 1, row)?;
            }
            None => out.raw_set(i + 1, false)?,
        }
    }
    Ok(out)
}
