//! The executor's checks just before a step runs (lua/leash/policy.lua and code_dirs.lua
//! call them), the Neovim profile's lists the Lua side reads, and model text made
//! visible: the core's rules, the ones the validator applied, never a copy in Lua. Each
//! check answers nil when the step may run, else the reason.

use mlua::{Lua, Table, Value as LuaValue};

use leash_core::limits::MAX_TEXT_BYTES;
use leash_core::llm::ProviderKind;
use leash_core::policy::budget::MAX_PLAN_SLEEP_MS;
use leash_core::profile::neovim;
use leash_core::profile::neovim::code_dirs::{PendingStep, RunState};
use leash_core::profile::neovim::name_handlers::handler_index;
use leash_core::reach::Reach;
use leash_core::{confirm, entry, limits};

use crate::convert::{code_dirs, err, json_of, lua_path, name_handlers, opt, opt_path, reach};

/// `policy_lists()`: the Neovim profile's lists the Lua side needs (its argument filter
/// and text checks use these, so the two sides cannot drift apart).
pub fn policy_lists(lua: &Lua, (): ()) -> mlua::Result<Table> {
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
    out.set("reaches", lua.create_sequence_from(Reach::ALL.iter().map(|r| r.as_str()))?)?;
    out.set(
        "default_key_envs",
        lua.create_sequence_from(ProviderKind::ALL.iter().filter_map(|k| k.default_key_env()))?,
    )?;
    out.set("commands", command_facts(lua)?)?;
    Ok(out)
}

/// What the profile's tables say of each Ex command: `{ raw, reach, <flag> = true… }`
/// by name.
fn command_facts(lua: &Lua) -> mlua::Result<Table> {
    let commands = lua.create_table()?;
    let facts = neovim::command_facts().ok_or_else(|| err("leash: the Neovim profile tables failed to load"))?;
    for (name, facts) in facts {
        let row = lua.create_table()?;
        row.set("raw", facts.raw.as_str())?;
        row.set("reach", facts.reach.as_str())?;
        for flag in facts.flags {
            row.set(flag, true)?;
        }
        commands.set(name, row)?;
    }
    Ok(commands)
}

/// `check_command_args(name, reach, args, handlers?)`: `:name args` in a step of
/// `reach`: the argument filter, and below shell no file name that one of `handlers`
/// (the autocommands that read or write names in Neovim's place) claims.
pub fn check_command_args(
    lua: &Lua,
    (name, reach_name, args, handlers): (String, String, Vec<String>, Option<LuaValue>),
) -> mlua::Result<Option<String>> {
    let reach = reach(&reach_name)?;
    let handlers = name_handlers(lua, handlers)?;
    Ok(neovim::check_before_run(&name, reach, &args, &handlers).err().map(|r| r.to_string()))
}

/// `check_item_args(args, reach)`: the arguments of a user command or a user entry in a
/// step of `reach`.
pub fn check_item_args(_: &Lua, (args, reach_name): (Vec<String>, String)) -> mlua::Result<Option<String>> {
    Ok(neovim::check_item_args(&args, reach(&reach_name)?).err().map(|r| r.to_string()))
}

/// `check_file_name(name)`: a file name leash opens that came from elsewhere (a language
/// server's jump target).
pub fn check_file_name(_: &Lua, name: String) -> mlua::Result<Option<String>> {
    Ok(neovim::check_file_name(&name).err().map(|r| r.to_string()))
}

/// `name_handler(name, handlers)`: the position (1-based) of the first of `handlers`
/// that reads or writes `name`, or nil.
pub fn name_handler(lua: &Lua, (name, handlers): (String, LuaValue)) -> mlua::Result<Option<usize>> {
    let handlers = name_handlers(lua, Some(handlers))?;
    Ok(handler_index(&handlers, &name).map(|i| i + 1))
}

/// `write_landing(step, state?)`: where a step about to run writes, checked against the
/// folders Neovim loads code from as they are now (`state`: code_dirs, cwd, file,
/// modified, and the path options the plan set before as `settings`): nil, or why the
/// write is `code`.
pub fn write_landing(lua: &Lua, (step, state): (Table, Option<Table>)) -> mlua::Result<Option<String>> {
    let dirs = code_dirs(lua, &state)?;
    let file = opt_path(&state, "file")?;
    let modified = opt::<Vec<mlua::String>>(&state, "modified")?.unwrap_or_default().iter().map(lua_path).collect();
    let step = pending_step(&step)?;
    let now = RunState {
        file,
        modified,
        settings: match opt::<Table>(&state, "settings")? {
            Some(set) => set
                .pairs::<String, LuaValue>()
                .map(|pair| pair.map(|(k, v)| (k, text(v))))
                .collect::<mlua::Result<_>>()?,
            None => Vec::new(),
        },
    };
    Ok(dirs.write_landing(&step, &now))
}

/// A plan step as the Lua side holds it, for [`write_landing`].
fn pending_step(step: &Table) -> mlua::Result<PendingStep> {
    Ok(match step.get::<Option<String>>("type")?.as_deref() {
        Some("item") => PendingStep::Item {
            id: step.get::<Option<String>>("id")?.unwrap_or_default(),
            args: match step.get::<LuaValue>("args")? {
                LuaValue::Table(t) => t.sequence_values::<String>().collect::<mlua::Result<_>>()?,
                LuaValue::String(s) => vec![s.to_str()?.to_string()],
                _ => Vec::new(),
            },
        },
        Some("setting") => PendingStep::Setting {
            key: step.get::<Option<String>>("key")?.unwrap_or_default(),
            value: text(step.get("value")?),
        },
        _ => PendingStep::Other,
    })
}

/// A value that is text (a Lua string, read as UTF-8 lossily), or none.
fn text(v: LuaValue) -> Option<String> {
    match v {
        LuaValue::String(s) => Some(s.to_string_lossy()),
        _ => None,
    }
}

/// `visible(text)`: model text with every invisible character written out (`^[`,
/// `<U+202E>`): the one definition the plan window, progress, notifications and the
/// policy share. Bytes that are not UTF-8 are kept as they are (Neovim draws them as
/// `<xx>`); only the valid runs between them are rewritten.
pub fn visible(_: &Lua, s: mlua::String) -> mlua::Result<mlua::BString> {
    Ok(leash_core::text::visible_bytes(&s.as_bytes()).into())
}

/// `is_invisible(code_point)`: whether one code point is invisible (false for a number
/// that is no code point).
pub fn is_invisible(_: &Lua, u: u32) -> mlua::Result<bool> {
    Ok(char::from_u32(u).is_some_and(leash_core::text::is_invisible))
}

/// `check_step_args(id, takes, args)`: why the arguments of an item step must not run
/// (as many as the entry takes, `"none" | "optional" | "required"`, each within the text
/// rule), or nil.
pub fn check_step_args(_: &Lua, (id, takes, args): (String, String, Vec<String>)) -> mlua::Result<Option<String>> {
    let takes = entry::Args::parse(&takes).ok_or_else(|| err(format!("leash: unknown argument kind “{takes}”")))?;
    Ok(limits::check_item_step_args(&id, takes, &args).err().map(|r| r.to_string()))
}

/// `plan_needs_window(plan, confirm_before_run)`: whether the plan the Lua side holds
/// must be shown before it runs (the core's rule, read from its fields).
pub fn plan_needs_window(_: &Lua, (plan, confirm_before_run): (LuaValue, bool)) -> mlua::Result<bool> {
    Ok(confirm::plan_needs_window(&json_of(&plan), confirm_before_run))
}

/// `plan_marked(plan)`: whether the plan the Lua side holds has a marked step.
pub fn plan_marked(_: &Lua, plan: LuaValue) -> mlua::Result<bool> {
    Ok(confirm::plan_value_is_marked(&json_of(&plan)))
}

/// `path_landing(path, state?)`: where writing, creating or moving to the file `path`
/// lands, with the current directory and folders of `state` (as for `write_landing`):
/// nil, or why that reaches further than a `[write]` step shows (a folder Neovim loads
/// code from, another project); `state.code_folders = false` (editing or deleting a
/// file) asks only about the project. A language server's workspace edit is checked
/// with it.
pub fn path_landing(lua: &Lua, (path, state): (mlua::String, Option<Table>)) -> mlua::Result<Option<String>> {
    let code_folders = opt::<bool>(&state, "code_folders")?.unwrap_or(true);
    Ok(code_dirs(lua, &state)?.path_reach(&lua_path(&path), code_folders).map(|(_, why)| why))
}
