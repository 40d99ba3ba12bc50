//! The setup table checked by the core's one schema (`leash_core::schema`), and the
//! provider table the planner uses.

use mlua::{Lua, LuaSerdeExt, Table, Value as LuaValue};
use serde_json::Value;

use leash_core::schema::{self, SetupField};

use crate::convert::{err, plain_json, plain_tables};

/// `check_config(tbl, elsewhere?)`: the setup table's keys the core reads, checked by the
/// one schema. Gives the normalized configuration, or nil and every error as `path: what
/// is wrong`. A value Lua cannot hand over (a function) is named by its key.
pub fn check_config(
    lua: &Lua,
    (tbl, elsewhere): (Table, Option<Vec<String>>),
) -> mlua::Result<(LuaValue, Option<Vec<String>>)> {
    let fields = tbl.pairs::<LuaValue, LuaValue>().map(|pair| pair.map(|(k, v)| setup_field(lua, k, v)));
    let fields = fields.collect::<mlua::Result<Vec<_>>>()?;
    let elsewhere = elsewhere.unwrap_or_default();
    let elsewhere: Vec<&str> = elsewhere.iter().map(String::as_str).collect();
    match schema::check_setup(fields, &elsewhere, schema::Runs::LuaOrCmd) {
        Ok(cfg) => Ok((lua.to_value_with(&cfg, plain_tables())?, None)),
        Err(errors) => Ok((LuaValue::Nil, Some(errors))),
    }
}

/// One key of the setup table and its value, as JSON where it has a JSON form.
fn setup_field(lua: &Lua, key: LuaValue, value: LuaValue) -> SetupField {
    let LuaValue::String(key) = key else { return SetupField::NotText(key.type_name().to_string()) };
    let key = key.to_string_lossy();
    match lua.from_value::<Value>(value) {
        Ok(v) => SetupField::Read(key, plain_json(v)),
        Err(e) => SetupField::Unreadable(key, e.to_string()),
    }
}

/// `provider_config(cfg)`: the provider table the planner uses for a config
/// `check_config` gave (its provider, providers and timeout_ms), and the same as JSON
/// text (what `plan_start` reads fastest: the planner keeps it for the next request), or
/// nil for the offline planner.
pub fn provider_config(lua: &Lua, cfg: LuaValue) -> mlua::Result<(LuaValue, Option<String>)> {
    let v = plain_json(lua.from_value(cfg).map_err(|e| err(format!("leash: config: {e}")))?);
    match schema::provider_of(&v, schema::Runs::LuaOrCmd).map_err(|e| err(format!("leash: config: {e}")))? {
        Some(p) => {
            // Absent, not null, where the table has nothing (`plain_tables`): the text
            // reads as the table does.
            let json = serde_json::to_value(&p).map_err(|e| err(format!("leash: config: {e}")))?;
            let text = without_nulls(json).to_string();
            Ok((lua.to_value_with(&p, plain_tables())?, Some(text)))
        }
        None => Ok((LuaValue::Nil, None)),
    }
}

/// `v` without the members of its objects that are null.
fn without_nulls(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            Value::Object(m.into_iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k, without_nulls(v))).collect())
        }
        Value::Array(a) => Value::Array(a.into_iter().map(without_nulls).collect()),
        other => other,
    }
}

/// `provider_key(cfg)`: what :checkhealth says of the configured provider, its dialect,
/// where its key comes from and whether a request needs one
/// (`leash_core::llm::KeyReport`), or nil offline.
pub fn provider_key(lua: &Lua, cfg: LuaValue) -> mlua::Result<LuaValue> {
    let v = plain_json(lua.from_value(cfg).map_err(|e| err(format!("leash: config: {e}")))?);
    match schema::provider_of(&v, schema::Runs::LuaOrCmd).map_err(|e| err(format!("leash: config: {e}")))? {
        Some(p) => lua.to_value_with(&p.key_report().map_err(err)?, plain_tables()),
        None => Ok(LuaValue::Nil),
    }
}

/// `config_keys()`: every key of the core's schema as a dotted path
/// (`providers.NAME.kind`).
pub fn config_keys(_: &Lua, (): ()) -> mlua::Result<Vec<String>> {
    Ok(schema::keys())
}
