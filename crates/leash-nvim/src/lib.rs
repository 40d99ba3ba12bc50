//! The Lua module `leash_native`: Neovim's door to leash-core, and the only crate that
//! knows Lua.
//!
//! Each export is one small function in the module of its concern ([`catalog`], [`base`],
//! [`job`], [`checks`], [`config`], [`project`]): it converts Lua values to the core's types
//! ([`convert`]), calls the core, and converts the answer back; no rule lives here.
//! [`leash_native`] registers them in one flat list, each through [`export`], which runs
//! it inside the panic guard ([`convert::guard`]), so a panic becomes a Lua error instead
//! of crossing the FFI boundary. Nothing here touches Lua off the main thread: long work
//! (the planner) runs on the runtime thread and hands back plain Rust values, converted
//! here when Lua asks.

mod base;
mod catalog;
mod checks;
mod config;
mod convert;
mod job;
mod project;

use mlua::{FromLuaMulti, IntoLuaMulti, Lua, MaybeSend, Table, UserData, UserDataMethods};

use convert::guard;

/// Registers `f` as the export `name`, run inside the panic guard.
fn export<A, R>(lua: &Lua, module: &Table, name: &str, f: fn(&Lua, A) -> mlua::Result<R>) -> mlua::Result<()>
where
    A: FromLuaMulti + 'static,
    R: IntoLuaMulti + 'static,
{
    module.set(name, lua.create_function(move |lua, args: A| guard(|| f(lua, args)))?)
}

/// Adds the method `name` of a userdata, run inside the panic guard.
fn method<T, M, A, R>(methods: &mut M, name: &str, f: impl Fn(&Lua, &T, A) -> mlua::Result<R> + MaybeSend + 'static)
where
    T: UserData,
    M: UserDataMethods<T>,
    A: FromLuaMulti,
    R: IntoLuaMulti,
{
    methods.add_method(name, move |lua, this, args: A| guard(|| f(lua, this, args)));
}

/// `version()`: the library's version, which must equal the Lua side's.
fn version(_: &Lua, (): ()) -> mlua::Result<&'static str> {
    Ok(env!("CARGO_PKG_VERSION"))
}

/// The module table: every export, in the order of lua/leash/native.lua's `exports`. A
/// new export is a function in the module of its concern and one line here.
#[mlua::lua_module(name = "leash_native")]
fn leash_native(lua: &Lua) -> mlua::Result<Table> {
    let m = lua.create_table()?;
    // What `rank`, `prompt` and `plan_start` use when no `limit` is given.
    m.set("default_shortlist_limit", leash_core::rank::DEFAULT_SHORTLIST)?;
    export(lua, &m, "catalog_new", catalog::new)?;
    export(lua, &m, "check_command_args", checks::check_command_args)?;
    export(lua, &m, "check_config", config::check_config)?;
    export(lua, &m, "check_file_name", checks::check_file_name)?;
    export(lua, &m, "check_item_args", checks::check_item_args)?;
    export(lua, &m, "check_step_args", checks::check_step_args)?;
    export(lua, &m, "config_keys", config::config_keys)?;
    export(lua, &m, "entry_details", catalog::entry_details)?;
    export(lua, &m, "git_argv", project::git_argv)?;
    export(lua, &m, "git_check", project::git_check)?;
    export(lua, &m, "git_quiet", project::git_quiet)?;
    export(lua, &m, "git_root", project::git_root)?;
    export(lua, &m, "is_invisible", checks::is_invisible)?;
    export(lua, &m, "name_handler", checks::name_handler)?;
    export(lua, &m, "notify_fd", job::notify_fd)?;
    export(lua, &m, "path_landing", checks::path_landing)?;
    export(lua, &m, "plan_marked", checks::plan_marked)?;
    export(lua, &m, "plan_needs_window", checks::plan_needs_window)?;
    export(lua, &m, "plan_start", job::plan_start)?;
    export(lua, &m, "policy_lists", checks::policy_lists)?;
    export(lua, &m, "present_plan", catalog::present_plan)?;
    export(lua, &m, "preview_steps", catalog::preview_steps)?;
    export(lua, &m, "prompt", catalog::prompt)?;
    export(lua, &m, "provider_config", config::provider_config)?;
    export(lua, &m, "provider_key", config::provider_key)?;
    export(lua, &m, "rank", catalog::rank)?;
    export(lua, &m, "script_files", project::script_files)?;
    export(lua, &m, "sources", project::sources)?;
    export(lua, &m, "sources_reset", project::sources_reset)?;
    export(lua, &m, "terminal_entry", project::terminal_entry)?;
    export(lua, &m, "validate", catalog::validate)?;
    export(lua, &m, "version", version)?;
    export(lua, &m, "visible", checks::visible)?;
    export(lua, &m, "wants_colorschemes", job::wants_colorschemes)?;
    export(lua, &m, "write_landing", checks::write_landing)?;
    Ok(m)
}
