//! The editor-agnostic sources (scripts, Git, files) and the Git actions' arguments and
//! checks.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use mlua::{Lua, LuaSerdeExt, Table, Value as LuaValue};

use leash_core::project::{self, git};

use crate::convert::{err, lua_path, opt, opt_path};

/// `sources(opts?)`: the scripts, Git and file items of a project, discovered by reading
/// files only, with their `generation` (a number that changes when the items do).
/// `opts`: cwd, file, editor, and `unless = N`: nil when the items are those of
/// generation N (the Lua side keeps its tables; nothing is converted).
pub fn sources(lua: &Lua, opts: Option<Table>) -> mlua::Result<LuaValue> {
    let cwd = opt_path(&opts, "cwd")?;
    let file = opt_path(&opts, "file")?;
    let editor = opt::<String>(&opts, "editor")?;
    let options =
        project::Options::for_frontend(cwd.as_deref(), file.as_deref(), editor.as_deref().unwrap_or("neovim"))
            .map_err(err)?;
    let found = project::discover(&options);
    let Some(generation) = generation(&found, opt::<u64>(&opts, "unless")?) else { return Ok(LuaValue::Nil) };
    // Plain tables: the Lua side copies them (`vim.deepcopy`), which a table with mlua's
    // array metatable does not survive.
    let plain = mlua::SerializeOptions::new().set_array_metatable(false);
    let out = lua.to_value_with(&found, plain)?;
    if let LuaValue::Table(t) = &out {
        t.set("generation", generation)?;
    }
    Ok(out)
}

/// The generation of the items just discovered: `None` when they are those of generation
/// `unless` (nothing to convert again), else the number the caller keeps. A new number
/// whenever the items differ from the last ones found.
fn generation(found: &project::Discovered, unless: Option<u64>) -> Option<u64> {
    static LAST: Mutex<(u64, Option<project::Discovered>)> = Mutex::new((0, None));
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    if last.1.as_ref() != Some(found) {
        *last = (last.0 + 1, Some(found.clone()));
    } else if unless == Some(last.0) {
        return None;
    }
    Some(last.0)
}

/// `terminal_entry()`: the `term:run` item as Neovim runs it (the one Helix offers too).
pub fn terminal_entry(lua: &Lua, (): ()) -> mlua::Result<LuaValue> {
    let plain = mlua::SerializeOptions::new().set_array_metatable(false);
    lua.to_value_with(&project::terminal::run_item(project::Editor::Neovim), plain)
}

/// `script_files()`: the files a project's runners read when a script starts, relative
/// to its root.
pub fn script_files(_: &Lua, (): ()) -> mlua::Result<Vec<String>> {
    Ok(project::scripts::definition_files())
}

/// `sources_reset()`: forgets every parsed project file (tests and benchmarks).
pub fn sources_reset(_: &Lua, (): ()) -> mlua::Result<()> {
    project::cache::clear_all();
    Ok(())
}

/// `git_root(start)`: the work tree root above a folder, or nil.
pub fn git_root(_: &Lua, start: mlua::String) -> mlua::Result<Option<String>> {
    Ok(git::root(&lua_path(&start)).and_then(|r| r.to_str().map(str::to_string)))
}

/// `git_argv(action, opts?)`: the git arguments of an action: `{argv}`, or nil and the
/// reason. `opts`: root, file, line, args.
pub fn git_argv(
    _: &Lua,
    (action, opts): (String, Option<Table>),
) -> mlua::Result<(Option<Vec<String>>, Option<String>)> {
    let root = opt::<String>(&opts, "root")?.unwrap_or_default();
    let file = opt::<String>(&opts, "file")?.map(PathBuf::from);
    let line = opt::<usize>(&opts, "line")?;
    let args = opt::<Vec<String>>(&opts, "args")?.unwrap_or_default();
    let cx = git::StepContext { file: file.as_deref(), line, args: &args };
    Ok(match git::argv(&action, Path::new(&root), &cx) {
        Ok(argv) => (Some(argv), None),
        Err(e) => (None, Some(e.to_string())),
    })
}

/// `git_quiet(args)`: the full argv of a read-only git command: the overrides, then
/// `args`.
pub fn git_quiet(_: &Lua, args: Vec<String>) -> mlua::Result<Vec<String>> {
    Ok(git::quiet(args))
}

/// `git_check(what, text)`: why a branch name (`what` = "branch") or a commit message is
/// refused, or nil.
pub fn git_check(_: &Lua, (what, text): (String, String)) -> mlua::Result<Option<String>> {
    Ok(git::check_text(&what, &text).err().map(|e| e.to_string()))
}
