//! Neovim's plan window in words: each step of a validated plan as Neovim runs it.
//!
//! A setting says its value before and after (`4 → 8`, `already true`, the global value
//! when the step writes both); a command reads `Run :cmd args on lines 2–4`; a terminal
//! step shows its whole command line; `file:delete`/`file:rename` name the file they act
//! on; a marked step says why beside its words, in the validator's few words. The input
//! is the plan as the Lua side holds it (the core's validated plan plus what only the
//! editor knows when the window opens: current values, the current file, a raised
//! reach), read leniently: a field of the wrong type counts as missing, a reach this
//! side does not know is shown as `[unknown reach]` and counted apart.

use serde_json::{Map, Value};

use crate::item_id::{ItemKind, TERM_RUN};
use crate::present::{mark, range_text, rows, same_value, shell_mark, summary, value_text, visible, Counts, PlanView};
use crate::present::{Row, StepView, Style};
use crate::reach::Reach;

/// What the editor knows about one step when the window opens, by the step's position.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Known {
    /// The option's value where the step writes it (`Null`: not known).
    pub now: Value,
    /// The option's global value (`Null`: not known, so it does not keep the step from
    /// changing nothing).
    pub global: Value,
    /// The file a `file:` step acts on, as shown (relative to the working folder).
    pub file: Option<String>,
    /// What the dry run found the step does (`preview`): one effect, or one per file a
    /// language server's edit changes.
    pub effects: Vec<Effect>,
}

/// What the plan window's dry run found a step does to the text, as the frontend hands
/// it over (`{ kind = 'diff', file, added, removed, lines = { { '-', 12, text }… },
/// more, expand }`, `{ kind = 'same', file }`, `{ kind = 'fails', file, why }`,
/// `{ kind = 'not', why }`).
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// It changes lines: the file, how many lines it adds and removes, the changed lines
    /// shown (added or not, line number, text) and how many more there are; `expand`
    /// when a key shows those.
    Diff { file: String, added: u64, removed: u64, lines: Vec<(bool, u64, String)>, more: u64, expand: bool },
    /// It runs and changes nothing.
    Same { file: String },
    /// It fails on the copy, so it fails when it runs and the plan stops there.
    Fails { file: String, why: String },
    /// Not dry-run, and why.
    Not { why: String },
    /// What else the step does, in the frontend's words: a file a language server's edit
    /// renames, creates or deletes.
    Also { text: String },
}

impl Effect {
    /// One effect or a list of them (a language server's edit of several files).
    pub fn list_from_json(v: &Value) -> Vec<Effect> {
        match v {
            Value::Array(list) => list.iter().filter_map(Effect::from_json).collect(),
            other => Effect::from_json(other).into_iter().collect(),
        }
    }

    /// Read leniently: a table of another shape is no effect (nothing is shown).
    pub fn from_json(v: &Value) -> Option<Effect> {
        let text = |k: &str| text_of(v.get(k)).to_string();
        let num = |k: &str| v.get(k).and_then(Value::as_f64).map_or(0, |f| f.max(0.0) as u64);
        match text_of(v.get("kind")) {
            "diff" => {
                let lines = v.get("lines").and_then(Value::as_array).map_or(Vec::new(), |ls| {
                    ls.iter()
                        .filter_map(|l| {
                            let l = l.as_array()?;
                            let added = text_of(l.first()) == "+";
                            let n = l.get(1).and_then(Value::as_f64).map_or(0, |f| f.max(0.0) as u64);
                            Some((added, n, text_of(l.get(2)).to_string()))
                        })
                        .collect()
                });
                Some(Effect::Diff {
                    file: text("file"),
                    added: num("added"),
                    removed: num("removed"),
                    lines,
                    more: num("more"),
                    expand: v.get("expand").and_then(Value::as_bool) == Some(true),
                })
            }
            "same" => Some(Effect::Same { file: text("file") }),
            "fails" => Some(Effect::Fails { file: text("file"), why: text("why") }),
            "not" => Some(Effect::Not { why: text("why") }),
            "also" => Some(Effect::Also { text: text("text") }),
            _ => None,
        }
    }

    /// The rows under the step: a count line and the changed lines, `-` removed and `+`
    /// added with their line numbers, or one line saying why there is no diff.
    pub fn rows(&self) -> Vec<Row> {
        let file = |f: &str| if f.is_empty() { "[No Name]".to_string() } else { visible(f) };
        match self {
            Effect::Diff { file: f, added, removed, lines, more, expand } => {
                let mut out = vec![vec![(format!("+{added} \u{2212}{removed} in {}", file(f)), Style::Note)]];
                let width = lines.iter().map(|(_, n, _)| n.to_string().len()).max().unwrap_or(1);
                for (add, n, text) in lines {
                    let (sign, style) = if *add { ('+', Style::Added) } else { ('-', Style::Removed) };
                    out.push(vec![(format!("{sign} {n:>width$} {}", visible(text)), style)]);
                }
                if *more > 0 {
                    let s = if *more == 1 { "" } else { "s" };
                    out.push(if *expand {
                        vec![(format!("\u{2026} {more} more changed line{s}: = shows them"), Style::Keys)]
                    } else {
                        vec![(format!("\u{2026} {more} more changed line{s}, not shown"), Style::Note)]
                    });
                }
                out
            }
            Effect::Same { file: f } => vec![vec![(format!("no change in {}", file(f)), Style::Unchanged)]],
            Effect::Fails { file: f, why } => {
                vec![vec![(format!("fails on {}, so the plan stops here: {}", file(f), visible(why)), Style::Error)]]
            }
            Effect::Not { why } => vec![vec![(format!("effect not previewed: {}", visible(why)), Style::Note)]],
            Effect::Also { text } => vec![vec![(visible(text), Style::Command)]],
        }
    }
}

impl Known {
    /// What the editor knows as its frontend hands it over (`{"now", "global",
    /// "file"}`), read leniently: a missing field is not known, and a file that is not
    /// text (see [`crate::present::text_of`]) is none.
    pub fn from_json(v: &Value) -> Known {
        Known {
            now: v.get("now").cloned().unwrap_or_default(),
            global: v.get("global").cloned().unwrap_or_default(),
            file: v.get("file").and_then(crate::present::text_of).map(str::to_owned),
            effects: v.get("effect").map_or(Vec::new(), Effect::list_from_json),
        }
    }
}

/// The plan window's content.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    pub rows: Vec<Row>,
    /// The first row's text.
    pub summary: String,
    /// The `index` of every setting step that changes nothing.
    pub unchanged: Vec<u64>,
    /// When every step of a non-empty plan changes nothing: what to tell the user
    /// (`leash: nothing to change: wrap is already true`).
    pub nothing: Option<String>,
}

/// The window's content for `plan` (a validated plan as a JSON-like value) and what is
/// known of each step (by position; missing positions know nothing).
pub fn present(plan: &Value, known: &[Known]) -> Shown {
    // A step that is not a table is still a step: shown (of unknown reach), never hidden.
    let empty = Map::new();
    let steps: Vec<&Map<String, Value>> = list(plan, "steps").iter().map(|s| s.as_object().unwrap_or(&empty)).collect();
    let before = before(&steps, known);
    let mut counts = Counts::default();
    let mut views = Vec::new();
    let mut unchanged: Vec<u64> = Vec::new();
    for (pos, step) in steps.iter().enumerate() {
        let reach = Reach::parse(text(step, "reach"));
        let same = before[pos].as_ref().is_some_and(|b| b.same);
        counts.add(reach, crate::confirm::runs_a_shell(step), same);
        if same {
            unchanged.push(step.get("index").and_then(Value::as_f64).map_or(pos as u64, |i| i as u64));
        }
        views.push(step_view(step, reach, before[pos].as_ref(), known.get(pos)));
    }
    let summary = summary(&counts);
    let view = PlanView {
        summary: Some(summary.clone()),
        reply: text_of(plan.get("reply")).to_string(),
        steps: views,
        // A refusal of an unknown shape is still listed.
        refused: list(plan, "dropped").iter().map(|d| text_of(d.get("reason")).to_string()).collect(),
    };
    let nothing = (!steps.is_empty() && unchanged.len() == steps.len()).then(|| {
        let parts: Vec<String> = steps
            .iter()
            .map(|s| format!("{} is already {}", visible(text(s, "key")), value_text(field(s, "value"))))
            .collect();
        format!("leash: nothing to change: {}", parts.join(", "))
    });
    Shown { rows: rows(&view), summary, unchanged, nothing }
}

/// A setting step's option just before it runs.
#[derive(Debug, Clone)]
struct Before {
    now: Value,
    global: Value,
    /// It already has the value, in every scope the step writes.
    same: bool,
    /// Its local value has it, its global value does not (the step writes both).
    here: bool,
}

/// For each setting step (by position): its option's value just before it runs,
/// counting the plan's earlier settings of the same option. A step without `:setlocal`
/// writes the global value too, so it changes nothing only when both already match.
/// Once an item or terminal step came first nothing is known: it may switch buffer or
/// window, or change options itself.
fn before(steps: &[&Map<String, Value>], known: &[Known]) -> Vec<Option<Before>> {
    let mut set: Map<String, Value> = Map::new();
    let mut set_global: Map<String, Value> = Map::new();
    let mut blind = false;
    let mut out = Vec::new();
    for (pos, step) in steps.iter().enumerate() {
        if text(step, "type") != "setting" {
            blind = true;
            out.push(None);
            continue;
        }
        let key = step.get("key").and_then(Value::as_str);
        let value = field(step, "value");
        let local = text(step, "scope") == "local";
        let k = known.get(pos).cloned().unwrap_or_default();
        let earlier = |m: &Map<String, Value>| key.and_then(|k| m.get(k)).cloned();
        let now = earlier(&set).unwrap_or(k.now.clone());
        let global = earlier(&set_global).unwrap_or(k.global.clone());
        out.push((!now.is_null()).then(|| {
            let matches = !blind && same_value(&now, value);
            let global_matches = local || global.is_null() || same_value(&global, value);
            Before {
                now: now.clone(),
                global: global.clone(),
                same: matches && global_matches,
                here: matches && !global_matches,
            }
        }));
        if let Some(key) = key {
            set.insert(key.into(), value.clone());
            set_global.insert(key.into(), if local { global } else { value.clone() });
        }
    }
    out
}

/// One step in Neovim's words.
fn step_view(
    step: &Map<String, Value>,
    reach: Option<Reach>,
    before: Option<&Before>,
    known: Option<&Known>,
) -> StepView {
    // A terminal step runs a shell whatever its reach says, and is marked so.
    let mark = match reach {
        _ if crate::confirm::runs_a_shell(step) => Some(shell_mark()),
        None => Some(("[unknown reach] ".to_string(), Style::Shell)),
        Some(r) => mark(r),
    };
    let plain = |s: String| (s, Style::Plain);
    let mut view = StepView {
        head: Vec::new(),
        mark_reason: Some(text(step, "mark_reason").to_string()),
        body: Vec::new(),
        note: Some(text(step, "note").to_string()),
        why: text(step, "why").to_string(),
        effect: known.map_or(Vec::new(), |k| k.effects.iter().flat_map(Effect::rows).collect()),
        mark,
    };
    let kind = text(step, "type");
    let id = text(step, "id");
    if kind == "setting" {
        let scope = if text(step, "scope") == "local" { " (this window/buffer only)" } else { "" };
        let value = field(step, "value");
        let shown = value_text(value);
        let (change, style) = match before {
            Some(b) if b.same => (format!("already {shown}"), Style::Unchanged),
            Some(b) if b.here => (
                format!("{} → {shown} here, global value {} → {shown}", value_text(&b.now), value_text(&b.global)),
                Style::Plain,
            ),
            Some(b) if !same_value(&b.now, value) => (format!("{} → {shown}", value_text(&b.now)), Style::Plain),
            _ => (shown, Style::Plain),
        };
        view.head = vec![plain(format!("Set {}{scope}: ", visible(text(step, "key")))), (change, style)];
    } else if kind == "terminal" || (kind == "item" && TERM_RUN == id) {
        // Only term:run's argument is a command line; term:below/term:tab open a shell.
        let command = if kind == "terminal" { text(step, "command").to_string() } else { args(step).join(" ") };
        view.head = vec![plain("Run in a terminal:".into())];
        view.body = vec![vec![(visible(&command), Style::Command)]];
    } else {
        view.head = vec![plain(item_text(step))];
        // The file `file:delete`/`file:rename` act on, as the executor will check it.
        if let Some(file) = known.and_then(|k| k.file.as_deref()) {
            let file = if file.is_empty() { "(no file)" } else { file };
            let tail = if step.get("current_file_may_change").and_then(Value::as_bool) == Some(true) {
                "; if an earlier step makes another file current, it does not run"
            } else {
                ""
            };
            view.body = vec![vec![(format!("on {}, the current file{tail}", visible(file)), Style::Command)]];
        }
    }
    view
}

/// An item step in words: `Run :cmd args` for a command, else the core's label.
fn item_text(step: &Map<String, Value>) -> String {
    let id = text(step, "id");
    let args: Vec<String> = args(step).iter().map(|a| visible(a)).collect();
    let tail = if args.is_empty() { String::new() } else { format!(" {}", args.join(" ")) };
    let range = range_text(range(step));
    let label = visible(text(step, "label"));
    if let Some(cmd) = ItemKind::Command.name_in(id) {
        return format!("Run :{}{tail}{range}", visible(cmd));
    }
    if !label.is_empty() {
        // A user command's label is the core's: its plugin, `Run :Name args`, the lines
        // it runs on, what it loads.
        return label;
    }
    match ItemKind::User.name_in(id) {
        Some(user) => format!("Run :{}{tail}{range}", visible(user)),
        None => format!("{}{tail}", visible(id)),
    }
}

static NULL: Value = Value::Null;

fn field<'a>(step: &'a Map<String, Value>, key: &str) -> &'a Value {
    step.get(key).unwrap_or(&NULL)
}

/// A string field (one that is not UTF-8 in its visible form), `""` when missing or
/// not a string.
fn text<'a>(step: &'a Map<String, Value>, key: &str) -> &'a str {
    text_of(step.get(key))
}

fn text_of(v: Option<&Value>) -> &str {
    v.and_then(crate::present::text_of).unwrap_or_default()
}

/// A list field: Lua hands an empty table over as an empty object.
fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn args(step: &Map<String, Value>) -> Vec<&str> {
    step.get("args")
        .and_then(Value::as_array)
        .map_or(Vec::new(), |a| a.iter().filter_map(crate::present::text_of).collect())
}

fn range(step: &Map<String, Value>) -> Option<(u64, u64)> {
    let r = step.get("range")?.as_array()?;
    let n = |i: usize| r.get(i).and_then(Value::as_f64).map(|f| f as u64);
    Some((n(0)?, n(1)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lines(shown: &Shown) -> Vec<String> {
        shown.rows.iter().map(|r| r.iter().map(|(t, _)| t.as_str()).collect()).collect()
    }

    fn known(now: Value, global: Value) -> Known {
        Known { now, global, ..Default::default() }
    }

    #[test]
    fn what_the_editor_knows_is_read_leniently() {
        let k = Known::from_json(&json!({"now": 4, "global": 4.0, "file": "a.txt", "other": 1}));
        assert_eq!(k, Known { now: json!(4), global: json!(4.0), file: Some("a.txt".into()), effects: Vec::new() });
        let bytes = Known::from_json(&json!({"file": {"bytes": "x<ff>"}}));
        assert_eq!(bytes.file.as_deref(), Some("x<ff>"), "a name that is not UTF-8, as shown");
        assert_eq!(Known::from_json(&json!({"file": 3})).file, None);
        assert_eq!(Known::from_json(&json!([1, 2])), Known::default());
        assert_eq!(Known::from_json(&Value::Null), Known::default());
    }

    #[test]
    fn a_setting_says_its_value_before_and_after() {
        let plan = json!({"reply": "", "steps": [
            {"index": 0, "type": "setting", "key": "tabstop", "value": 8, "reach": "safe", "why": "wider"},
            {"index": 1, "type": "setting", "key": "wrap", "value": true, "reach": "safe"},
            {"index": 2, "type": "setting", "key": "list", "value": true, "reach": "safe"},
        ], "dropped": {}});
        let shown = present(
            &plan,
            &[known(json!(4.0), json!(4.0)), known(json!(true), json!(false)), known(json!(true), json!(true))],
        );
        assert_eq!(
            lines(&shown),
            [
                "3 steps: no shell command, no code, no file writes; 1 changes nothing.",
                "",
                "1. Set tabstop: 4 → 8",
                "   (wider)",
                "2. Set wrap: true → true here, global value false → true",
                "3. Set list: already true",
            ]
        );
        assert_eq!(shown.unchanged, [2]);
        assert_eq!(shown.nothing, None);
        assert_eq!(shown.rows[5][2].1, Style::Unchanged);
    }

    #[test]
    fn an_earlier_setting_counts_and_an_item_makes_it_unknown() {
        let plan = json!({"steps": [
            {"index": 0, "type": "setting", "key": "wrap", "value": true, "reach": "safe"},
            {"index": 1, "type": "setting", "key": "wrap", "value": true, "reach": "safe"},
            {"index": 2, "type": "item", "id": "cmd:vsplit", "args": {}, "reach": "safe"},
            {"index": 3, "type": "setting", "key": "list", "value": true, "reach": "safe"},
        ]});
        let k = known(json!(false), json!(false));
        let shown = present(&plan, &[k.clone(), k.clone(), Known::default(), known(json!(true), json!(true))]);
        assert_eq!(shown.unchanged, [1], "the second wrap is already set by the first; list may not be");
        assert_eq!(lines(&shown)[4], "3. Run :vsplit");
        assert_eq!(lines(&shown)[5], "4. Set list: true");
    }

    #[test]
    fn a_setlocal_keeps_the_global_value_for_a_later_set() {
        // The window wraps, the global value does not: `:setlocal wrap` changes nothing,
        // the `:set wrap` after it still turns the global value on.
        let plan = json!({"steps": [
            {"index": 0, "type": "setting", "key": "wrap", "value": true, "scope": "local", "reach": "safe"},
            {"index": 1, "type": "setting", "key": "wrap", "value": true, "reach": "safe"},
        ]});
        let k = known(json!(true), json!(false));
        let shown = present(&plan, &[k.clone(), k]);
        assert_eq!(shown.unchanged, [0]);
        assert_eq!(shown.nothing, None, "the plan changes the global value");
        assert_eq!(lines(&shown)[3], "2. Set wrap: true → true here, global value false → true");
    }

    #[test]
    fn nothing_to_change_names_every_setting() {
        let plan = json!({"steps": [{"index": 0, "type": "setting", "key": "wrap", "value": true, "reach": "safe"}]});
        let shown = present(&plan, &[known(json!(true), Value::Null)]);
        assert_eq!(shown.nothing.as_deref(), Some("leash: nothing to change: wrap is already true"));
        assert!(present(&json!({"steps": []}), &[]).nothing.is_none());
    }

    #[test]
    fn terminals_show_their_whole_command_and_are_shell_whatever_their_reach() {
        let plan = json!({"steps": [
            {"index": 0, "type": "terminal", "command": "make\u{202e} test", "reach": "safe"},
            {"index": 1, "type": "item", "id": "term:run", "args": ["npm", "ci"], "reach": "shell"},
            {"index": 2, "type": "item", "id": "term:below", "args": {}, "reach": "safe", "label": "Open a terminal below"},
        ]});
        let shown = present(&plan, &[]);
        assert_eq!(
            lines(&shown),
            [
                "3 steps: 3 run shell commands.",
                "",
                "1. [shell] Run in a terminal:",
                "   make<U+202E> test",
                "2. [shell] Run in a terminal:",
                "   npm ci",
                "3. [shell] Open a terminal below",
            ]
        );
        assert_eq!(shown.rows[3][1].1, Style::Command);
    }

    #[test]
    fn items_read_as_commands_with_their_range_and_file() {
        let plan = json!({"steps": [
            {"index": 0, "type": "item", "id": "cmd:sort", "args": ["u"], "range": [2.0, 4.0], "reach": "edit"},
            {"index": 1, "type": "item", "id": "user:Format", "args": {}, "label": "", "range": [3, 3], "reach": "plugin"},
            {"index": 2, "type": "item", "id": "file:delete", "args": {}, "label": "Delete the current file",
             "reach": "write", "current_file_may_change": true, "note": "it is in git"},
            {"index": 3, "type": "item", "id": "lsp:rename", "args": ["x"], "reach": "odd"},
        ], "dropped": [{"index": 4, "code": "unknown_id", "reason": "step 5: no such id"}]});
        let known = [Known::default(), Known::default(), Known { file: Some("src/a.rs".into()), ..Default::default() }];
        let shown = present(&plan, &known);
        assert_eq!(
            lines(&shown),
            [
                "4 steps: 1 runs plugin code, 1 writes files, 1 has an unknown reach.",
                "",
                "1. Run :sort u on lines 2–4",
                "2. [plugin] Run :Format on line 3",
                "3. [write] Delete the current file",
                "   on src/a.rs, the current file; if an earlier step makes another file current, it does not run",
                "   it is in git",
                "4. [unknown reach] lsp:rename x",
                "",
                "Not run (refused by the checker):",
                "- step 5: no such id",
            ]
        );
        assert_eq!(shown.rows[6][1].1, Style::Write, "a note takes its mark's style");
        assert_eq!(shown.rows[7][1].1, Style::Shell);
    }

    #[test]
    fn a_mark_says_why_beside_the_step_in_its_style() {
        let plan = json!({"steps": [
            {"index": 0, "type": "item", "id": "cmd:colorscheme", "args": ["habamax"], "reach": "code",
             "mark_reason": "a colorscheme is a script that runs"},
            {"index": 1, "type": "setting", "key": "spelllang", "value": "de", "reach": "code",
             "mark_reason": "may load spell files\u{1b}"},
            // Only a mark is explained: a reason on an unmarked step is not shown.
            {"index": 2, "type": "setting", "key": "wrap", "value": true, "reach": "safe", "mark_reason": "x"},
        ]});
        let shown = present(&plan, &[Known::default(), known(json!("en"), json!("en"))]);
        let text = lines(&shown);
        assert_eq!(text[2], "1. [code] Run :colorscheme habamax \u{2014} a colorscheme is a script that runs");
        assert_eq!(text[3], "2. [code] Set spelllang: \"en\" → \"de\" \u{2014} may load spell files^[");
        assert_eq!(text[4], "3. Set wrap: true");
        assert_eq!(shown.rows[2].last().map(|p| p.1), Some(Style::Code));
    }

    #[test]
    fn fields_of_the_wrong_type_count_as_missing() {
        let plan =
            json!({"reply": 3, "steps": [{"type": "item", "id": 7, "args": "x", "reach": "safe", "why": {}}, 5]});
        let shown = lines(&present(&plan, &[]));
        assert_eq!(shown[0], "2 steps: 1 has an unknown reach.");
        assert_eq!(shown[2..], ["1. ", "2. [unknown reach] "]);
        assert_eq!(
            lines(&present(&json!("not a plan"), &[])),
            ["0 steps: no shell command, no code, no file writes.", "", "Nothing to run."]
        );
    }

    #[test]
    fn a_dry_run_shows_under_its_step() {
        let plan = json!({"reply": "", "steps": [
            {"index": 0, "type": "item", "id": "cmd:sort", "args": [], "reach": "edit", "why": "order"},
            {"index": 1, "type": "item", "id": "cmd:substitute", "args": ["/a/\\=1/"], "reach": "code"},
            {"index": 2, "type": "item", "id": "cmd:substitute", "args": ["/zzz/x/"], "reach": "edit"},
            {"index": 3, "type": "item", "id": "cmd:retab", "args": [], "reach": "edit"},
        ], "dropped": {}});
        let effect = |v: Value| Known { effects: Effect::list_from_json(&v), ..Default::default() };
        let known = [
            effect(json!({"kind": "diff", "file": "fruit.txt", "added": 2, "removed": 2, "more": 3, "expand": true,
                "lines": [["-", 1, "pear"], ["-", 10, "apple\u{1b}"], ["+", 1, "apple^["], ["+", 10, "pear"]]})),
            effect(json!({"kind": "not", "why": "its replacement is an expression (\\=), which runs code"})),
            effect(json!({"kind": "fails", "file": "", "why": "E486: Pattern not found: zzz"})),
            effect(json!({"kind": "same", "file": "fruit.txt"})),
        ];
        let shown = present(&plan, &known);
        let text = lines(&shown);
        assert_eq!(
            text[2..].to_vec(),
            [
                "1. Run :sort",
                "   (order)",
                "   +2 \u{2212}2 in fruit.txt",
                "   -  1 pear",
                "   - 10 apple^[",
                "   +  1 apple^[",
                "   + 10 pear",
                "   \u{2026} 3 more changed lines: = shows them",
                "2. [code] Run :substitute /a/\\=1/",
                "   effect not previewed: its replacement is an expression (\\=), which runs code",
                "3. Run :substitute /zzz/x/",
                "   fails on [No Name], so the plan stops here: E486: Pattern not found: zzz",
                "4. Run :retab",
                "   no change in fruit.txt",
            ]
        );
        // Removed and added lines are told apart by style, not only by their sign.
        assert_eq!(shown.rows[5][1].1, Style::Removed);
        assert_eq!(shown.rows[7][1].1, Style::Added);
        assert_eq!(shown.rows[9][1].1, Style::Keys);
        // A shape it does not know shows nothing; a list is one effect per file.
        assert_eq!(Effect::from_json(&json!({"kind": "maybe"})), None);
        let files = Effect::list_from_json(&json!([
            {"kind": "same", "file": "a.lua"}, {"kind": "maybe"}, {"kind": "also", "text": "renames a.lua → b.lua"}
        ]));
        assert_eq!(
            files,
            [Effect::Same { file: "a.lua".into() }, Effect::Also { text: "renames a.lua → b.lua".into() }]
        );
        let expanded = Effect::Diff { file: "f".into(), added: 0, removed: 1, lines: vec![], more: 1, expand: false };
        assert_eq!(expanded.rows()[1][0].0, "\u{2026} 1 more changed line, not shown");
    }
}
