//! Which steps of a plan Neovim's plan window dry-runs on a copy of the buffer before the
//! person decides, and why the others are not.
//!
//! A step is dry-run only when it is a builtin Ex command that changes nothing but the
//! text of the current buffer, deterministically, from that text and a few options:
//! `:substitute` with a replacement that evaluates nothing, `:sort`, `:retab`, `:>`,
//! `:join`, `:delete`, `:move`… and `:global`/`:vglobal` whose command is one of those.
//! Everything else is "not previewed", with the reason the window shows: it runs code,
//! a program or a plugin, asks for input, or reads a file or the undo history. A
//! language server's format, rename or code action
//! that comes before any other step that changes text is shown as the server's own edit,
//! asked for before the window opens and applied exactly as shown. Once a step that is not
//! dry-run comes first (it may switch buffer, move the cursor or change the text in a
//! way the copy does not see), no later step is dry-run either.
//!
//! The frontend runs the `Run` steps on its copy with the step's own arguments, range and
//! `nvim_cmd` call; this module only decides which may be run there. It never has to
//! be right about what Neovim does for a step to be safe: the reach rules decide what
//! runs, and these rules only refuse more.

use serde::Serialize;
use serde_json::{Map, Value};

use super::substitute::{self, Form};
use crate::item_id::ItemKind;
use crate::reach::Reach;

/// What the plan window does with one step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum DryRun {
    /// Run it on the copy and show what it changed.
    Run,
    /// A setting: the copy takes it first when `apply` (it changes what a text command
    /// does: 'shiftwidth', 'ignorecase'…); any other setting changes no text.
    Setting { apply: bool },
    /// It changes no text but may switch buffer or move the cursor (a view, a jump, a
    /// write): nothing is shown for it, and no later step is dry-run.
    Blind,
    /// It may change text, and the window says "effect not previewed" with `why`.
    Not { why: String },
    /// A language server's format, rename or code action, and no step before it changes
    /// text: the frontend asks the server for its edit (for a code action, the one the
    /// person picks, resolved) before the window opens, shows it, and the step applies
    /// exactly that edit. Nothing after it is dry-run.
    Server,
}

/// The options a dry run copies from the buffer (and takes from the plan's settings):
/// the ones that change what a text command does.
pub const TEXT_OPTIONS: &[&str] = &[
    "tabstop",
    "shiftwidth",
    "softtabstop",
    "expandtab",
    "vartabstop",
    "varsofttabstop",
    "shiftround",
    "textwidth",
    "wrapmargin",
    "formatoptions",
    "comments",
    "joinspaces",
    "iskeyword",
    "ignorecase",
    "smartcase",
    "magic",
    "gdefault",
    "edcompatible",
    "cpoptions",
    "wrapscan",
    "regexpengine",
    "maxmempattern",
    "endofline",
    "fixendofline",
];

/// What the window does with each step of `plan` (a validated plan as a JSON-like
/// value), by position.
pub fn plan(plan: &Value) -> Vec<DryRun> {
    let steps = plan.get("steps").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    let empty = Map::new();
    let mut out = Vec::with_capacity(steps.len());
    // The first step that is not dry-run, and whether its effect on text is unknown.
    let mut first: Option<(usize, bool)> = None;
    // A step before was dry-run: a server asked now would edit the text before it.
    let mut ran = false;
    for (pos, step) in steps.iter().enumerate() {
        let dry = match step_dry_run(step.as_object().unwrap_or(&empty)) {
            DryRun::Server if ran => DryRun::Not { why: "a step before it changes the text first".into() },
            dry => dry,
        };
        let dry = match (dry, first) {
            (DryRun::Run, Some((at, changes))) => DryRun::Not { why: after(at, changes) },
            (dry, _) => dry,
        };
        // A server's edit is asked for against the text as it is now: only before any
        // other step that changes it.
        let dry = match (dry, first) {
            (DryRun::Server, Some((at, changes))) => DryRun::Not { why: after(at, changes) },
            (dry, _) => dry,
        };
        if first.is_none() {
            match &dry {
                DryRun::Blind => first = Some((pos, false)),
                DryRun::Not { .. } | DryRun::Server => first = Some((pos, true)),
                DryRun::Run => ran = true,
                DryRun::Setting { .. } => {}
            }
        }
        out.push(dry);
    }
    out
}

/// Why a step after step `at` (0-based) is not dry-run.
fn after(at: usize, changes: bool) -> String {
    if changes {
        format!("step {} comes first, and what it does is not previewed", at + 1)
    } else {
        format!("step {} runs first and may switch to another buffer or line", at + 1)
    }
}

/// One step on its own.
fn step_dry_run(step: &Map<String, Value>) -> DryRun {
    let text = |k: &str| step.get(k).and_then(Value::as_str).unwrap_or_default();
    let not = |why: &str| DryRun::Not { why: why.to_string() };
    match text("type") {
        "setting" => return DryRun::Setting { apply: TEXT_OPTIONS.contains(&text("key")) },
        "terminal" => return not("it runs in a terminal"),
        "item" => {}
        _ => return not("leash does not know this kind of step"),
    }
    let id = text("id");
    let reach = Reach::parse(text("reach"));
    if ItemKind::Terminal.holds(id) {
        return not("it runs in a terminal");
    }
    let args: Vec<&str> =
        step.get("args").and_then(Value::as_array).map_or(Vec::new(), |a| a.iter().filter_map(Value::as_str).collect());
    let arg = args.join(" ");
    if let Some(name) = ItemKind::Command.name_in(id) {
        match command(name, &arg) {
            // A step without a known reach did not come from the validator: never run.
            Some(Ok(())) if reach.is_some() => return DryRun::Run,
            Some(Err(why)) if reach.is_some_and(|r| r <= Reach::Code) => return DryRun::Not { why },
            Some(_) => {}
            // A command that changes no text by its table (a view, a write) changes none
            // when a rule raised its step (`:write` in the config folder is code).
            None if reach.is_some()
                && super::command_reach(name).is_some_and(|r| r <= Reach::Write && r != Reach::Edit) =>
            {
                return DryRun::Blind
            }
            None => {}
        }
    }
    if matches!(id, "lsp:format" | "lsp:rename" | "lsp:code_action") && reach.is_some() {
        return DryRun::Server;
    }
    match reach {
        Some(Reach::Safe | Reach::Write) => DryRun::Blind,
        Some(Reach::Edit) => not("leash does not dry-run this step"),
        Some(Reach::Code) => not("it runs code"),
        Some(Reach::Plugin) => not("it runs plugin code leash cannot see into"),
        Some(Reach::Shell) => not("it runs a program"),
        None => not("its reach is unknown"),
    }
}

/// Whether the builtin `:name arg`, a command that changes text, may run on the copy, or
/// why not; `None` for a command that is not one of those (its reach says how it is
/// shown).
fn command(name: &str, arg: &str) -> Option<Result<(), String>> {
    Some(match name {
        "substitute" | "smagic" | "snomagic" => substitute_dry(arg),
        "sort" | "uniq" => sort_dry(arg),
        "retab" | "left" | "center" | "right" | "<" | ">" | "join" => Ok(()),
        "delete" if arg.contains(['+', '*']) => Err("it writes the clipboard register".into()),
        "delete" => Ok(()),
        "move" | "copy" | "t" => address(arg),
        "global" | "vglobal" => global(arg),
        "undo" | "redo" | "earlier" | "later" => Err("it depends on the buffer's undo history".into()),
        "append" | "insert" | "change" => Err("it reads the text you type next".into()),
        "read" | "recover" => Err("it reads a file".into()),
        "diffget" | "diffput" => Err("it copies text between diff buffers".into()),
        "spellrepall" => Err("it repeats your last spelling correction".into()),
        _ => return None,
    })
}

/// A new substitute that evaluates nothing, asks nothing, keeps no earlier flags and
/// names its pattern.
fn substitute_dry(arg: &str) -> Result<(), String> {
    if let Some(why) = substitute::code_reason(arg) {
        return Err(why.to_string());
    }
    let Form::New(parts) = substitute::parse(arg) else {
        return Err("leash cannot read it as a pattern and a replacement".into());
    };
    if parts.pattern.is_empty() {
        return Err("it uses the last search pattern".into());
    }
    if parts.flags.starts_with('&') {
        return Err("it keeps the flags of the last substitute (&)".into());
    }
    if parts.flags.contains('c') {
        return Err("it asks before each change (the c flag)".into());
    }
    if !parts.rest.trim().chars().all(|c| c.is_ascii_digit()) {
        return Err("leash cannot read what follows its flags".into());
    }
    Ok(())
}

/// `:sort` with a pattern of its own (an empty one is the last search pattern).
fn sort_dry(arg: &str) -> Result<(), String> {
    let mut chars = arg.chars().skip_while(|c| c.is_ascii_alphabetic() || c.is_whitespace());
    match (chars.next(), chars.next()) {
        (Some('"'), _) | (None, _) => Ok(()),
        (Some(d), Some(e)) if d == e => Err("it uses the last search pattern".into()),
        _ => Ok(()),
    }
}

/// A line address the copy answers as the buffer would: numbers, `.`, `$`, offsets and
/// the buffer's own marks `'a`–`'z` (copied to it).
fn address(arg: &str) -> Result<(), String> {
    let mut chars = arg.chars();
    while let Some(c) = chars.next() {
        match c {
            '0'..='9' | '.' | '$' | '+' | '-' | ' ' => {}
            '\'' if chars.next().is_some_and(|m| m.is_ascii_lowercase()) => {}
            _ => return Err("its address searches, or names a mark the preview does not copy".into()),
        }
    }
    Ok(())
}

/// `:global`/`:vglobal` whose pattern ends where leash is sure it ends and whose command
/// is one a dry run may run on each matching line.
fn global(arg: &str) -> Result<(), String> {
    let b = arg.as_bytes();
    let Some(&delim) = b.first() else { return Err("it uses the last search pattern".into()) };
    if delim == b'\\' {
        return Err("it uses the last search pattern".into());
    }
    if !delim.is_ascii_punctuation() || delim == b'"' || delim == b'|' {
        return Err("leash cannot read its pattern".into());
    }
    // Without a collection, Neovim's pattern ends at the first delimiter a backslash does
    // not escape; with one, leash would have to be right about `skip_anyof` to know which
    // command runs, and does not guess.
    let end = plain_end(b, delim);
    let pattern = &arg[1..end];
    if pattern.contains('[') {
        return Err(
            "its pattern has a [collection], and leash previews a :global only where it is sure where the pattern ends"
                .into(),
        );
    }
    if pattern.is_empty() {
        return Err("it uses the last search pattern".into());
    }
    let cmd = if end < b.len() { &arg[end + 1..] } else { "" };
    if cmd.contains('|') {
        return Err("it runs more than one command (|)".into());
    }
    global_command(cmd)
}

/// Where a pattern without a collection ends: the first delimiter that no backslash
/// escapes (the length of `b` when none does).
fn plain_end(b: &[u8], delim: u8) -> usize {
    let mut p = 1;
    while p < b.len() {
        if b[p] == delim {
            return p;
        }
        p += if b[p] == b'\\' { 2 } else { 1 };
    }
    b.len()
}

/// The command `:global` runs on each line: `[range]name args`.
fn global_command(cmd: &str) -> Result<(), String> {
    let cmd = cmd.trim_start_matches(|c: char| c == ':' || c.is_whitespace());
    let mut rest = cmd;
    // A range of plain addresses and the buffer's own marks.
    loop {
        let mut chars = rest.chars();
        match chars.next() {
            Some('0'..='9' | '.' | '$' | '+' | '-' | ',' | ';' | ' ') => rest = chars.as_str(),
            Some('\'') if chars.next().is_some_and(|m| m.is_ascii_lowercase()) => rest = chars.as_str(),
            _ => break,
        }
    }
    if rest.starts_with('>') || rest.starts_with('<') {
        let shift = rest.chars().next().unwrap_or('>');
        let args = rest.trim_start_matches(shift);
        return count_only(args);
    }
    let name_len = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
    let (name, args) = rest.split_at(name_len);
    let is = |full: &str, min: usize| name.len() >= min && full.starts_with(name);
    if name.is_empty() {
        return if args.trim().is_empty() { Ok(()) } else { Err("leash cannot read the command it runs".into()) };
    }
    if is("delete", 1) {
        let args = args.trim_start();
        let args =
            args.strip_prefix(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '"' || c == '-').unwrap_or(args);
        return count_only(args);
    }
    if is("move", 1) || name == "t" || is("copy", 2) {
        return address(args);
    }
    if is("join", 1) {
        return count_only(args.strip_prefix('!').unwrap_or(args));
    }
    if is("left", 2) || is("center", 2) || is("right", 2) {
        return match args.trim() {
            "" => Ok(()),
            n if n.len() <= 4 && n.parse::<u32>().is_ok_and(|n| n <= 1000) => Ok(()),
            _ => Err("leash cannot read the width it aligns to".into()),
        };
    }
    if name == "s" || is("substitute", 2) {
        return substitute_dry(args);
    }
    if is("normal", 4) {
        return Err("it runs keys (:normal), which can run mappings and code".into());
    }
    Err(format!("it runs :{name} on each matching line, which leash does not dry-run"))
}

/// Only a count may follow.
fn count_only(args: &str) -> Result<(), String> {
    if args.trim().chars().all(|c| c.is_ascii_digit()) {
        Ok(())
    } else {
        Err("leash cannot read the command it runs".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cmd(name: &str, arg: &str, reach: &str) -> Value {
        json!({"type": "item", "id": format!("cmd:{name}"), "args": [arg], "reach": reach})
    }

    fn one(step: Value) -> DryRun {
        plan(&json!({"steps": [step]})).remove(0)
    }

    fn why(d: DryRun) -> String {
        match d {
            DryRun::Not { why } => why,
            other => panic!("{other:?} is not “not previewed”"),
        }
    }

    #[test]
    fn text_commands_are_dry_run() {
        for (name, arg) in [
            ("substitute", "/apple/APPLE/g"),
            ("substitute", "#a#b#gi 3"),
            ("smagic", "/a/b/"),
            ("sort", "n"),
            ("sort", "/\\d\\+/ r"),
            ("sort", ""),
            ("retab", "4"),
            ("center", "40"),
            (">", ""),
            ("join", ""),
            ("delete", "x"),
            ("move", "0"),
            ("t", "$"),
            ("copy", "'a+1"),
            ("global", "/^\\s*$/d"),
            ("global", "/x/"),
            ("vglobal", "/keep/d _"),
            ("global", "/a/s/b/c/g"),
            ("global", "#a#m0"),
            ("global", "/a/>>"),
            ("global", "/TODO/ j!"),
            ("global", "/x/.,+1j"),
            ("global", "/x/ce 40"),
        ] {
            assert_eq!(one(cmd(name, arg, "edit")), DryRun::Run, ":{name} {arg}");
        }
    }

    #[test]
    fn what_could_run_code_ask_or_read_state_is_not() {
        for (name, arg, want) in [
            ("substitute", "/x/\\=system('id')/", "expression"),
            ("substitute", "/a/b/c", "asks before each change"),
            ("substitute", "/a/b/&", "keeps the flags"),
            ("substitute", "//b/", "last search pattern"),
            ("substitute", "", "repeats the last substitute"),
            ("sort", "//", "last search pattern"),
            ("delete", "+", "clipboard"),
            ("move", "/end/", "address searches"),
            ("undo", "", "undo history"),
            ("global", "/x/normal dd", ":normal"),
            ("global", "/x/norm! dd", ":normal"),
            ("global", "/x/s/a/\\=system('id')/", "expression"),
            ("global", "/x/d | call system('id')", "more than one command"),
            ("global", "/[/]/d", "[collection]"),
            ("global", "//d", "last search pattern"),
            ("global", "/x/call Evil()", ":call on each matching line"),
            ("global", "/x/put ='a'", ":put"),
            ("global", "/x/m/y/", "address searches"),
        ] {
            let got = why(one(cmd(name, arg, "code")));
            assert!(got.contains(want), ":{name} {arg}: {got}");
        }
        assert!(why(one(json!({"type": "terminal", "command": "make", "reach": "shell"}))).contains("terminal"));
        assert!(why(one(json!({"type": "item", "id": "map:n:gq", "reach": "plugin"}))).contains("plugin"));
        assert!(why(one(json!({"type": "item", "id": "user:Fmt", "reach": "mystery"}))).contains("unknown"));
        // A write raised to code (the config folder) changes no text.
        assert_eq!(one(cmd("write", "", "code")), DryRun::Blind);
        assert_eq!(why(one(cmd("lua", "x()", "code"))), "it runs code");
    }

    #[test]
    fn a_step_that_is_not_dry_run_stops_the_ones_after_it() {
        let steps = plan(&json!({"steps": [
            {"type": "setting", "key": "shiftwidth", "value": 2, "reach": "safe"},
            cmd("sort", "", "edit"),
            {"type": "setting", "key": "wrap", "value": true, "reach": "safe"},
            cmd("bnext", "", "safe"),
            cmd(">", "", "edit"),
            cmd("lua", "x()", "code"),
        ]}));
        assert_eq!(steps[0], DryRun::Setting { apply: true });
        assert_eq!(steps[1], DryRun::Run);
        assert_eq!(steps[2], DryRun::Setting { apply: false });
        assert_eq!(steps[3], DryRun::Blind);
        assert!(why(steps[4].clone()).contains("step 4 runs first and may switch"));
        assert_eq!(why(steps[5].clone()), "it runs code");
        let steps = plan(&json!({"steps": [cmd("substitute", "", "code"), cmd("sort", "", "edit")]}));
        assert!(why(steps[1].clone()).contains("step 1 comes first"));
    }

    #[test]
    fn a_language_server_is_asked_only_before_any_other_text_step() {
        let format = json!({"type": "item", "id": "lsp:format", "reach": "edit"});
        let rename = json!({"type": "item", "id": "lsp:rename", "args": ["count"], "reach": "write"});
        let wrap = json!({"type": "setting", "key": "wrap", "value": true, "reach": "safe"});
        let steps = plan(&json!({"steps": [wrap, format.clone(), cmd("sort", "", "edit")]}));
        assert_eq!(steps[1], DryRun::Server);
        assert!(why(steps[2].clone()).contains("step 2 comes first"));
        let steps = plan(&json!({"steps": [cmd("sort", "", "edit"), rename.clone()]}));
        assert_eq!(why(steps[1].clone()), "a step before it changes the text first");
        let steps = plan(&json!({"steps": [cmd("vsplit", "", "safe"), format]}));
        assert!(why(steps[1].clone()).contains("step 1 runs first"));
        assert_eq!(one(rename), DryRun::Server);
        let action = json!({"type": "item", "id": "lsp:code_action", "reach": "code"});
        assert_eq!(one(action.clone()), DryRun::Server);
        let steps = plan(&json!({"steps": [cmd("sort", "", "edit"), action]}));
        assert_eq!(why(steps[1].clone()), "a step before it changes the text first");
    }

    #[test]
    fn a_step_without_a_reach_is_never_run() {
        let step = json!({"type": "item", "id": "cmd:sort", "args": []});
        assert!(matches!(one(step), DryRun::Not { .. }));
    }
}
