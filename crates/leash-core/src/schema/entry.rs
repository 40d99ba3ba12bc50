//! `entries`: catalog items of the user's own, `{ id, title, run | cmd, … }`. In Neovim
//! `run` is a Lua function, which stays on the Lua side: it hands over `run = true`
//! instead. The `leash` program's entries run a `cmd` only.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::field_names;
use super::issue::Checker;
use super::raise::RULE_REACHES;
use super::value::list;
use crate::entry::Args;
use crate::item_id::ItemKind;
use crate::reach::Reach;

/// One entry, as checked (`check` has made sure of `id`, `title` and `run` or `cmd`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct EntryConfig {
    /// Letters, digits, `_`, `.` or `-`; the item is `entry:<id>` (a leading `entry:` is
    /// dropped).
    pub id: String,
    /// What the model and the plan window see.
    pub title: String,
    /// Whether it runs a Lua function (Neovim only).
    pub run: bool,
    /// An argv list run in a terminal (always `shell`).
    pub cmd: Option<Vec<String>>,
    /// The directory `cmd` runs in.
    pub cwd: Option<String>,
    pub args: Option<Args>,
    /// The declared reach (a `cmd` is `shell` whatever is declared).
    pub reach: Option<Reach>,
    pub aliases: Vec<String>,
    pub description: Option<String>,
}

/// Who reads the entries: Neovim runs Lua functions (`run`), the `leash` program does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runs {
    LuaOrCmd,
    CmdOnly,
}

/// Checks `entries` (a list); each wrong entry is named `entries[N]` (from 1) with its
/// first problem.
pub(crate) fn check(c: &mut Checker, v: &Value, runs: Runs) {
    let Some(items) = list(v) else {
        return c.bad("entries", format!("should be a list of entries, not {}", super::value::type_name(v)));
    };
    let mut seen: Vec<String> = Vec::new();
    for (i, e) in items.iter().enumerate() {
        let at = format!("entries[{}]", i + 1);
        let Value::Object(m) = e else {
            c.bad(&at, "should be a table");
            continue;
        };
        match check_one(m, runs, &seen) {
            Ok(id) => seen.push(id),
            Err((field, message)) => c.bad(&format!("{at}{field}"), message),
        }
    }
}

/// The entry's id, or the field it is wrong in (`.run`, or none) and why.
fn check_one(m: &Map<String, Value>, runs: Runs, seen: &[String]) -> Result<String, (&'static str, String)> {
    let bad = |message: &str| Err(("", message.to_string()));
    let fields = field_names::<EntryConfig>();
    if let Some(k) = m.keys().find(|k| !fields.contains(&k.as_str())) {
        return Err(("", format!("has an unknown field '{k}'")));
    }
    let id = m.get("id").and_then(Value::as_str).map(|s| ItemKind::Entry.name_in(s).unwrap_or(s));
    let Some(id) = id.filter(|id| !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c)))
    else {
        return bad("needs an id of letters, digits, \"_\", \".\" or \"-\"");
    };
    if seen.iter().any(|s| s == id) {
        return Err(("", format!("repeats the id {id:?}")));
    }
    if m.get("title").and_then(Value::as_str).is_none_or(|t| t.trim().is_empty()) {
        return bad("needs a title");
    }
    let run = m.get("run");
    match runs {
        Runs::CmdOnly if run.is_some() => {
            return Err((".run", "is a Lua function in Neovim; here an entry runs a cmd".into()));
        }
        Runs::LuaOrCmd if run.is_some() == m.contains_key("cmd") => {
            return bad("needs exactly one of run (a function) or cmd (an argv list)");
        }
        _ => {}
    }
    if run.is_some_and(|r| r != &Value::Bool(true)) {
        return bad("run should be a function");
    }
    let strings = |v: &Value| list(v).is_some_and(|a| a.iter().all(Value::is_string));
    let argv = |c: &Value| strings(c) && list(c).is_some_and(|a| !a.is_empty());
    if (runs == Runs::CmdOnly || m.contains_key("cmd")) && !m.get("cmd").is_some_and(argv) {
        return bad("cmd should be a non-empty list of strings (an argv)");
    }
    let is_string = |k: &str| m.get(k).is_none_or(Value::is_string);
    if !is_string("cwd") {
        return bad("cwd should be a string");
    }
    if !m.get("args").is_none_or(|a| a.as_str().is_some_and(|a| ["none", "optional", "required"].contains(&a))) {
        return bad("args should be 'none', 'optional' or 'required'");
    }
    let reach_ok = |r: &Value| r.as_str().and_then(Reach::parse).is_some_and(|r| RULE_REACHES.contains(&r));
    if !m.get("reach").is_none_or(reach_ok) {
        return bad("reach should be 'safe', 'edit', 'write', 'code' or 'shell'");
    }
    if !m.get("aliases").is_none_or(strings) {
        return bad("aliases should be a list of strings");
    }
    if !is_string("description") {
        return bad("description should be a string");
    }
    Ok(id.to_string())
}

impl EntryConfig {
    /// The id without a leading `entry:`.
    pub fn name(&self) -> &str {
        ItemKind::Entry.name_in(&self.id).unwrap_or(&self.id)
    }

    /// How it takes arguments (none by default).
    pub fn args(&self) -> Args {
        self.args.unwrap_or(Args::None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn issues(v: Value, runs: Runs) -> String {
        let mut c = Checker::default();
        check(&mut c, &v, runs);
        c.finish().map_or_else(|e| e.to_string(), |()| String::new())
    }

    #[test]
    fn each_wrong_entry_is_named() {
        let lua = |e: Value| issues(json!([e]), Runs::LuaOrCmd);
        assert_eq!(lua(json!({"id": "a", "title": "a", "run": true})), "");
        assert!(lua(json!({"id": "a", "title": "a"})).contains("exactly one of run"));
        assert!(lua(json!({"id": "a", "title": "a", "run": true, "cmd": ["x"]})).contains("exactly one of run"));
        assert!(lua(json!({"id": "a b", "title": "a", "run": true})).contains("needs an id"));
        assert!(lua(json!({"id": "a", "title": "a", "run": true, "reach": "none"})).contains("reach should be"));
        assert!(lua(json!({"id": "a", "title": "a", "cmd": {}})).contains("cmd should be a non-empty list"));
        assert_eq!(
            lua(json!({"id": "a", "title": "a", "cmd": ["x"], "bang": 1})),
            "entries[1]: has an unknown field 'bang'"
        );
        assert_eq!(
            issues(
                json!([{"id": "a", "title": "a", "cmd": ["x"]}, {"id": "entry:a", "title": "b", "cmd": ["y"]}, {"id": "b"}]),
                Runs::LuaOrCmd
            ),
            "entries[2]: repeats the id \"a\"; entries[3]: needs a title"
        );
        let toml = |e: Value| issues(json!([e]), Runs::CmdOnly);
        assert_eq!(
            toml(json!({"id": "a", "title": "a"})),
            "entries[1]: cmd should be a non-empty list of strings (an argv)"
        );
        assert!(toml(json!({"id": "a", "title": "a", "run": true})).starts_with("entries[1].run: is a Lua function"));
    }
}
