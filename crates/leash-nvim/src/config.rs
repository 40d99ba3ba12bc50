//! The setup table checked by the core's one schema (`leash_core::schema`), and the
//! provider table the planner uses.

use mlua::{Lua, LuaSerdeExt, Table, Value as LuaValue};
use serde_json::Value;

use leash_core::schema;

use crate::convert::{err, plain_json, plain_tables};

/// `check_config(tbl, elsewhere?)`: the setup table's keys the core reads, checked by the
/// one schema. Gives the normalized configuration, or nil and every error as `path: what
/// is wrong`. A value Lua cannot hand over (a function) is named by its key.
pub fn check_config(
    lua: &Lua,
    (tbl, elsewhere): (Table, Option<Vec<String>>),
) -> mlua::Result<(LuaValue, Option<Vec<String>>)> {
    let elsewhere = elsewhere.unwrap_or_default();
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

/// `provider_config(cfg)`: the provider table the planner uses for a config
/// `check_config` gave (its provider, providers and timeout_ms), or nil for the offline
/// planner.
pub fn provider_config(lua: &Lua, cfg: LuaValue) -> mlua::Result<LuaValue> {
    let v = plain_json(lua.from_value(cfg).map_err(|e| err(format!("leash: config: {e}")))?);
    let cfg = schema::check(&v, &[], schema::Runs::LuaOrCmd).map_err(|e| err(format!("leash: config: {e}")))?;
    match cfg.provider_config() {
        Some(p) => lua.to_value_with(&p, plain_tables()),
        None => Ok(LuaValue::Nil),
    }
}

/// `config_keys()`: every key of the core's schema as a dotted path
/// (`providers.NAME.kind`).
pub fn config_keys(_: &Lua, (): ()) -> mlua::Result<Vec<String>> {
    Ok(schema::keys())
}
