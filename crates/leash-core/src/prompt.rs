//! The prompt: the system message, the user message built from the shortlist, and the
//! plan's JSON schema for providers that support structured output.
//!
//! The prompt shapes what the model tends to do; it decides nothing. Everything it asks
//! for is checked again by the validator. What small models got wrong shaped it:
//!
//! - Items and settings are listed apart, under the step type each one needs, so no
//!   kind word (`command`) can be mistaken for a step type.
//! - Every schema and example puts `type` first and keeps a deliberate key order
//!   (grammar-constrained decoding writes keys in schema order).
//! - No example suggests `scope`; the schema offers it only where the request asks for
//!   one window or buffer ("this window", "locally") and only for options that have a
//!   local value.
//! - Each setting carries its type or allowed values and its current value; the schema
//!   gives each shortlisted setting a branch of its own with its own value type, and a
//!   compact schema (one branch per step type) is kept for providers that refuse a
//!   large one.
//! - Each entry carries a few words of its help that its title does not already say,
//!   within a size budget.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::entry::{Args, Entry, ListKind, Setting, ValueType};
use crate::rank::Ranked;

/// The user message stays under this many bytes at the default shortlist size; the help
/// words are what gives way.
pub const USER_BUDGET: usize = 7 * 1024;
/// The most help words kept per entry, in bytes.
const GLOSS_MAX: usize = 72;
/// How much of an entry's help [`gloss`] reads first (its first sentences are in it).
const GLOSS_HEAD: usize = 1024;
/// The most allowed values listed per setting in the message (the schema has them all).
const VALUES_SHOWN: usize = 16;
/// A current string value longer than this is described, not quoted.
const CURRENT_MAX: usize = 40;

/// What the editor says about where the request was made. Every field is optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct Context {
    /// Operating system: `linux`, `macos`, `windows`.
    pub os: String,
    /// The current buffer's filetype.
    pub filetype: String,
    /// What is selected, in words (`3 lines`), or empty when nothing is.
    pub selection: String,
    /// The detected project stack (`rust (cargo)`, `node (pnpm)`).
    pub project: String,
    /// The editor's name, for the system prompt (`Neovim`, `Helix`).
    pub editor: String,
    /// The lines the user gave the request (`[2, 4]`), which commands that take a range
    /// run on. The editor's input, never the model's: see [`crate::range`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<crate::range::LineRange>,
    /// Current values of settings by key (as the current window and buffer see them),
    /// so "toggle" and "turn off" can be planned. Only shortlisted ones are shown.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub current: BTreeMap<String, Value>,
    /// Current values still as the JSON text of an object, as a frontend may hand them
    /// over: the planner reads them into `current` on its own thread
    /// ([`Context::read_current_text`]), so the editor's main thread does not wait for it.
    #[serde(skip)]
    pub current_text: Option<String>,
    /// The color schemes installed (Neovim's `getcompletion('', 'color')`), so the
    /// offline planner knows a name when it sees one. Not shown to a model.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub colorschemes: Vec<String>,
    /// The plan the user asked to change ("no, only this buffer"): shown to the model
    /// with the new request, and its entries are put on the shortlist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<Previous>,
}

impl Context {
    /// Reads [`Context::current_text`] into [`Context::current`]: an object of values by
    /// setting key (an empty list reads as no values). An error says what is wrong.
    pub fn read_current_text(&mut self) -> Result<(), String> {
        let Some(text) = self.current_text.take() else { return Ok(()) };
        match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(values)) => self.current.extend(values),
            // An empty Lua table is encoded as an empty list.
            Ok(Value::Array(a)) if a.is_empty() => {}
            Ok(_) => return Err("option “context”: current: not an object of setting values".into()),
            Err(e) => return Err(format!("option “context”: current: {e}")),
        }
        Ok(())
    }
}

/// An earlier request and the steps planned for it, which the new request refines.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct Previous {
    /// The earlier request, in the user's words.
    pub request: String,
    /// Its validated steps as plan steps (`{"type": "setting", "key": …, "value": …}`);
    /// fields other than a step's own are left out of the prompt.
    pub steps: Vec<Value>,
}

/// The most earlier steps shown to the model, and the most bytes of each.
const PREVIOUS_STEPS: usize = 10;
const PREVIOUS_STEP_MAX: usize = 240;

impl Previous {
    /// The ids and keys its steps name, in order (for the shortlist).
    pub fn names(&self) -> Vec<&str> {
        self.steps
            .iter()
            .take(PREVIOUS_STEPS)
            .filter_map(|s| s.get("id").or_else(|| s.get("key")).and_then(Value::as_str))
            .collect()
    }
}

/// The messages and the schemas for one request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prompt {
    pub system: String,
    pub user: String,
    /// The plan's schema with one branch per shortlisted setting.
    pub schema: Value,
    /// The same plan in one branch per step type, for providers that refuse `schema`.
    pub compact_schema: Value,
    /// The shortlisted ids and keys, best first.
    pub shortlist: Vec<String>,
}

/// Which exchange a prompt is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Round {
    /// The first question: the model may answer with look-ups.
    First,
    /// After a look-up: no more look-ups.
    Second,
}

/// What one look-up found, for the second question.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Found {
    /// What the model asked for.
    pub query: String,
    /// The ids and keys found, best first (empty when nothing was).
    pub names: Vec<String>,
}

/// The system prompt: what a plan is and the rules for making one.
pub fn system_prompt(editor: &str, round: Round) -> String {
    let editor = if editor.is_empty() { "the editor" } else { editor };
    let (shape, lookup_rule) = match round {
        Round::First => (
            r#"{"reply": "<one short sentence for the user>", "steps": [<the steps, in the order they run>], "lookup": []}"#,
            "\n- If the entry you need is not listed but you know its name, answer \"steps\": [] and \"lookup\": [\"<its name or a few words>\"] (at most 5): you will be shown more entries once. Names and lookup words are English, whatever language the request is in; the reply is in the request's language.",
        ),
        Round::Second => (r#"{"reply": "<one short sentence for the user>", "steps": [<the steps, in the order they run>]}"#, ""),
    };
    format!(
        r#"You operate {editor} for its user. You receive the user's request and a shortlist of what {editor} can do: Items (commands and actions, by id) and Settings (options, by key, with their type and current value). Answer with one JSON object and nothing else:
{shape}
Each step is one of:
{{"type": "item", "id": "<an id from Items>", "args": "<its arguments, or empty>", "why": "<a few words>"}}
{{"type": "setting", "key": "<a key from Settings>", "value": <a value of its type>, "why": "<a few words>"}}
{{"type": "terminal", "command": "<a shell command line>", "why": "<a few words>"}}
Rules:
- "type" is exactly "item", "setting" or "terminal". A command is an item.
- Use only ids and keys from the lists, spelled exactly. Never invent one.
- A setting's value has the listed type: true or false for a boolean, a whole number for a number, a string for a string, and only a listed value where values are listed. To toggle, use the opposite of the current value.
- A setting applies as :set does. Only if the user asks for this window or buffer only, add "scope": "local" to the step.
- Prefer an item or a setting. Use a terminal step only for files, programs and what no item does.{lookup_rule}
- If nothing fits, or {editor} cannot do it, answer "steps": [] and say why in "reply".
- Keep the plan minimal: usually 1 to 3 steps.
- The user confirms steps that run programs, run code or write files; never claim a step is pre-approved."#
    )
}

/// Builds the messages and the schemas for `request` over a ranked shortlist.
pub fn build(request: &str, shortlist: &[Ranked], context: &Context) -> Prompt {
    let entries: Vec<&Entry> = shortlist.iter().map(|r| r.entry).collect();
    build_round(request, &entries, context, Round::First, &[])
}

/// Builds the messages and the schemas for one round over the shortlisted entries, best
/// first. In the second round `found` says what each look-up found; those entries should
/// already be in `entries`.
pub fn build_round(request: &str, entries: &[&Entry], context: &Context, round: Round, found: &[Found]) -> Prompt {
    let local = asks_for_local(request);
    let user = user_message(request, entries, context, round, found);
    Prompt {
        system: system_prompt(&context.editor, round),
        user,
        schema: schema(entries, round, local, Shape::PerSetting),
        compact_schema: schema(entries, round, local, Shape::Compact),
        shortlist: entries.iter().map(|e| e.name().to_string()).collect(),
    }
}

fn user_message(request: &str, entries: &[&Entry], context: &Context, round: Round, found: &[Found]) -> String {
    let tail = tail_lines(request, context, round, found);
    // Each entry's line, then its help words while the budget lasts, best-ranked first.
    let lines: Vec<String> = entries.iter().map(|e| entry_line(e, context)).collect();
    let glosses: Vec<String> = entries.iter().map(|e| gloss(e)).collect();
    let fixed = lines.iter().map(|l| l.len() + 3).sum::<usize>() + tail.len() + 160;
    let mut budget = USER_BUDGET.saturating_sub(fixed);
    let keep: Vec<bool> = glosses
        .iter()
        .map(|g| {
            let fits = !g.is_empty() && g.len() + 2 <= budget;
            if fits {
                budget -= g.len() + 2;
            }
            fits
        })
        .collect();
    let mut out = String::with_capacity(USER_BUDGET);
    let sections = [
        ("Items (a step {\"type\": \"item\", \"id\": …}):\n", true),
        ("Settings (a step {\"type\": \"setting\", \"key\": …, \"value\": …}):\n", false),
    ];
    for (title, items) in sections {
        let rows: Vec<usize> = (0..entries.len()).filter(|&i| matches!(entries[i], Entry::Item(_)) == items).collect();
        if rows.is_empty() {
            continue;
        }
        out.push_str(title);
        for i in rows {
            out.push_str("- ");
            out.push_str(&lines[i]);
            if keep[i] {
                // A title that is a sentence (or was cut) already ends its own way.
                if !lines[i].ends_with(['.', '…']) {
                    out.push('.');
                }
                out.push(' ');
                out.push_str(&glosses[i]);
            }
            out.push('\n');
        }
        out.push('\n');
    }
    if entries.is_empty() {
        out.push_str("Nothing in the catalog matched the request.\n\n");
    }
    out.push_str(&tail);
    out
}

/// The look-up report (second round), the context and the request: the end of the message.
fn tail_lines(request: &str, context: &Context, round: Round, found: &[Found]) -> String {
    let mut out = String::new();
    if round == Round::Second {
        out.push_str("You asked to look up:\n");
        for f in found {
            if f.names.is_empty() {
                out.push_str(&format!("- \"{}\": nothing in the catalog\n", one_line(&f.query)));
            } else {
                out.push_str(&format!("- \"{}\": {}\n", one_line(&f.query), f.names.join(", ")));
            }
        }
        out.push_str("They are in the lists above. This is the last look: answer with steps now.\n\n");
    }
    out.push_str(&format!("Context: {}\n", context_line(context)));
    if let Some(previous) = &context.previous {
        out.push_str(&previous_lines(previous));
    }
    out.push_str(&format!("\nRequest: {}\n", one_line(request)));
    out
}

/// The plan being refined: the earlier request and its steps, one compact JSON object
/// a line with only the fields a step of the model's has.
fn previous_lines(previous: &Previous) -> String {
    const FIELDS: [&str; 7] = ["type", "id", "args", "key", "value", "scope", "command"];
    let mut out = format!(
        "\nThe user saw your plan for an earlier request and asks to change it.\nEarlier request: {}\n",
        one_line(&previous.request)
    );
    if previous.steps.is_empty() {
        out.push_str("Your plan for it had no steps.\n");
    } else {
        // It may have run (`:Leash last` offers the window's `e` for any kept plan).
        out.push_str("Your plan for it:\n");
        for step in previous.steps.iter().take(PREVIOUS_STEPS) {
            // Written field by field: `type` first, as in every example the model sees.
            let fields: Vec<String> = FIELDS
                .iter()
                .filter_map(|f| match step.get(*f) {
                    None | Some(Value::Null) => None,
                    Some(Value::Array(a)) if a.is_empty() => None,
                    Some(v) => Some(format!("{}:{}", Value::from(*f), v)),
                })
                .collect();
            let line = format!("{{{}}}", fields.join(","));
            out.push_str("- ");
            out.push_str(&cut(&line, PREVIOUS_STEP_MAX));
            out.push('\n');
        }
    }
    out.push_str("Answer with the whole new plan for the request below, which replaces that plan.\n");
    out
}

/// `cmd:vsplit (optional args): split current window vertically`,
/// `wrap (boolean, now false): long lines wrap`.
fn entry_line(entry: &Entry, context: &Context) -> String {
    match entry {
        Entry::Item(i) => {
            let args = match i.args {
                Args::None => "",
                Args::Optional => " (optional args)",
                Args::Required => " (needs args)",
            };
            format!("{}{args}: {}", i.id, one_line(&i.title))
        }
        Entry::Setting(s) => {
            let mut kind = value_words(s);
            if let Some(now) = context.current.get(&s.key).and_then(current_words) {
                kind.push_str(", now ");
                kind.push_str(&now);
            }
            format!("{} ({kind}): {}", s.key, one_line(&s.title))
        }
    }
}

/// `boolean`, `number 1–9999`, `one of yes, no, auto`, `comma list of unnamed, unnamedplus`,
/// `flags from "nvi"`.
fn value_words(s: &Setting) -> String {
    let shown = |values: &[String]| {
        let mut v: Vec<String> = values.iter().take(VALUES_SHOWN).map(|x| quoted_if_odd(x)).collect();
        if values.len() > VALUES_SHOWN {
            v.push("…".into());
        }
        v.join(", ")
    };
    match (s.value_type, &s.values, s.list) {
        (ValueType::Boolean, _, _) => "boolean".into(),
        (ValueType::Number, _, _) => match (s.min, s.max) {
            (Some(lo), Some(hi)) => format!("number {lo}–{hi}"),
            (Some(lo), None) => format!("number ≥ {lo}"),
            (None, Some(hi)) => format!("number ≤ {hi}"),
            (None, None) => "number".into(),
        },
        (ValueType::String, Some(values), None) if !values.is_empty() => format!("one of {}", shown(values)),
        (ValueType::String, Some(values), Some(ListKind::Comma)) => format!("comma list of {}", shown(values)),
        (ValueType::String, Some(values), Some(ListKind::Flags)) => {
            format!("flags from \"{}\"", one_line(&values.concat()))
        }
        (ValueType::String, _, _) => "string".into(),
    }
}

/// An allowed value as it is, or quoted when it is empty or holds a comma or a space.
fn quoted_if_odd(v: &str) -> String {
    if v.is_empty() || v.contains([',', ' ']) {
        format!("\"{}\"", one_line(v))
    } else {
        one_line(v)
    }
}

/// `false`, `8`, `"auto"`, or `a value of 120 characters`; `None` for anything else.
fn current_words(v: &Value) -> Option<String> {
    match v {
        Value::Bool(b) => Some(b.to_string()),
        // Lua hands whole numbers over as floats (`5.0`).
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Some(i.to_string()),
            (None, Some(f)) if f.fract() == 0.0 && f.abs() < 1e15 => Some(format!("{}", f as i64)),
            _ => Some(n.to_string()),
        },
        Value::String(s) if s.chars().any(char::is_control) => Some("a value".into()),
        Value::String(s) if s.chars().count() <= CURRENT_MAX => Some(Value::String(s.clone()).to_string()),
        Value::String(s) => Some(format!("a value of {} characters", s.chars().count())),
        _ => None,
    }
}

/// A few words of the entry's help that its title does not already say: the first of its
/// first three sentences that brings at least two new words, cut at [`GLOSS_MAX`] bytes.
fn gloss(entry: &Entry) -> String {
    let title_words: Vec<String> = words(entry.title());
    let description = entry.description();
    // An option's help runs to kilobytes and only its first sentences count: they are
    // read from its head, and from the whole help only when they run past it.
    let head = head_of(description, GLOSS_HEAD);
    if head.len() < description.len() {
        if let Some(gloss) = pick_gloss(&title_words, &help_text(head), false) {
            return gloss;
        }
    }
    pick_gloss(&title_words, &help_text(description), true).unwrap_or_default()
}

/// [`gloss`] of help `text`: `None` when `text` is the head of the help (`whole` false)
/// and its first three sentences do not all end in it, so the head cannot tell.
fn pick_gloss(title_words: &[String], text: &str, whole: bool) -> Option<String> {
    let mut taken = 0;
    for piece in text.split_inclusive(". ") {
        let sentence = piece.trim().trim_end_matches('.');
        if sentence.is_empty() {
            continue;
        }
        // The head's last piece may be cut short: it ends where the head does.
        if !whole && !piece.ends_with(". ") {
            return None;
        }
        // Where the title was cut from the help itself, its words come again.
        let (head, title_head) = (words(sentence), title_words.iter().take(4));
        let repeats_title = title_words.len() >= 4 && head.iter().take(4).eq(title_head);
        if !repeats_title && head.into_iter().filter(|w| w.len() > 2 && !title_words.contains(w)).count() >= 2 {
            return Some(cut(sentence, GLOSS_MAX));
        }
        taken += 1;
        if taken == 3 {
            return Some(String::new());
        }
    }
    whole.then(String::new)
}

/// The first `max` bytes of `s` or a little fewer, ending before a whitespace (all of
/// `s` when it is that short).
fn head_of(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let head = &s[..end];
    head.rfind(char::is_whitespace).map_or(head, |at| &head[..at])
}

/// Help text without markup: `*tags*`, backticks and the option's own preamble.
fn help_text(description: &str) -> String {
    // One pass, one string: this runs for every shortlisted entry of every request.
    let (mut text, mut first) = (String::with_capacity(description.len()), true);
    for w in description.split_whitespace() {
        if w.len() > 2 && w.starts_with('*') && w.ends_with('*') {
            continue;
        }
        if !first {
            text.push(' ');
        }
        first = false;
        for piece in w.split('`') {
            text.push_str(piece);
        }
    }
    if text.starts_with("This option ") {
        text.drain(.."This option ".len());
    }
    if text.starts_with("When on, ") {
        text.replace_range(..1, "w");
    }
    text
}

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// `s` cut at a word boundary to at most `max` bytes, with `…` when cut.
fn cut(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let head = &s[..end];
    let head = head.rsplit_once(' ').map(|(h, _)| h).unwrap_or(head);
    format!("{}…", head.trim_end_matches([',', ';', ':', ' ']))
}

fn context_line(c: &Context) -> String {
    let or = |s: &str, none: &str| if s.is_empty() { none.to_string() } else { one_line(s) };
    format!(
        "OS {}; filetype {}; selection: {}; project: {}",
        or(&c.os, "unknown"),
        or(&c.filetype, "none"),
        or(&c.selection, "none"),
        or(&c.project, "none")
    )
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether the request asks for one window or buffer ("in this window", "for the current
/// buffer", "only here", "locally"): only then does the schema offer `scope`, so that
/// grammar-constrained decoding is never led to it. Naming a window is not asking for a
/// local value: "split the window and show line numbers" wants numbers as `:set` does
/// (a 1.5B model set them locally when scope was offered for it), and plurals ("all
/// windows") mean no window of its own.
fn asks_for_local(request: &str) -> bool {
    let words = words(request);
    let one = |w: &str| matches!(w, "this" | "current" | "one");
    let place = |w: &str| matches!(w, "window" | "buffer" | "split" | "pane" | "file");
    words.iter().any(|w| matches!(w.as_str(), "local" | "locally" | "setlocal"))
        || words.windows(2).any(|p| {
            (one(&p[0]) && place(&p[1]))
                || matches!((p[0].as_str(), p[1].as_str()), ("only" | "just", "here") | ("here", "only"))
        })
}

/// Which schema to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// One branch per shortlisted setting, each with its own value type.
    PerSetting,
    /// One branch per step type; the value is any of the shortlisted settings' types.
    Compact,
}

fn string_schema() -> Value {
    json!({"type": "string"})
}

/// The value schema of one setting: its type, its allowed values, its list pattern.
fn value_schema(s: &Setting) -> Value {
    match (s.value_type, &s.values, s.list) {
        (ValueType::Boolean, _, _) => json!({"type": "boolean"}),
        (ValueType::Number, _, _) => {
            let mut v = json!({"type": "integer"});
            if let Some(lo) = s.min {
                v["minimum"] = json!(lo);
            }
            if let Some(hi) = s.max {
                v["maximum"] = json!(hi);
            }
            v
        }
        // A placeholder (`{number}`) is no value: such a setting gets a plain string.
        (ValueType::String, Some(values), None) if !values.is_empty() && !values.iter().any(|v| v.contains('{')) => {
            json!({"type": "string", "enum": values})
        }
        // A list pattern only where every value can stand in it as written: an escape
        // (`\.`) is more regex than some servers' grammar converters take (llama.cpp's
        // rejects it and its server goes down), and a placeholder (`context:{number}`)
        // is no literal. Other lists are plain strings; the validator checks them.
        (ValueType::String, Some(values), Some(ListKind::Comma))
            if !values.is_empty() && values.iter().all(|v| plain(v)) =>
        {
            let one = format!("({})", values.join("|"));
            json!({"type": "string", "pattern": format!("^({one}(,{one})*)?$")})
        }
        (ValueType::String, Some(values), Some(ListKind::Flags))
            if !values.is_empty() && values.iter().all(|v| v.chars().all(|c| c.is_ascii_alphanumeric())) =>
        {
            json!({"type": "string", "pattern": format!("^[{}]*$", values.concat())})
        }
        (ValueType::String, _, _) => string_schema(),
    }
}

/// A list value a pattern can hold as it is: letters, digits, `_`, `-` and `:` only.
fn plain(v: &str) -> bool {
    !v.is_empty() && v.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':'))
}

/// An object schema whose properties keep the given order, all required, closed.
fn object(properties: Vec<(&str, Value)>) -> Value {
    let required: Vec<Value> = properties.iter().map(|(k, _)| Value::from(*k)).collect();
    let props: Map<String, Value> = properties.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    members([
        ("type", "object".into()),
        ("properties", Value::Object(props)),
        ("required", Value::Array(required)),
        ("additionalProperties", false.into()),
    ])
}

/// An object of these members, in this order. Unlike `json!`, which copies a value put in
/// it member by member, it moves them: the schema nests every branch three deep.
fn members<const N: usize>(members: [(&str, Value); N]) -> Value {
    Value::Object(members.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

fn scope_schema() -> Value {
    // `global` first: it is what `:set` does.
    json!({"type": "string", "enum": ["global", "local"]})
}

/// The plan's JSON schema over the shortlisted entries. Keys come in a deliberate order:
/// `reply`, `steps`, `lookup`; in each step `type` first and `why` last.
fn schema(entries: &[&Entry], round: Round, offer_scope: bool, shape: Shape) -> Value {
    let ids: Vec<&str> = entries.iter().filter(|e| matches!(e, Entry::Item(_))).map(|e| e.name()).collect();
    let settings: Vec<&Setting> = entries
        .iter()
        .filter_map(|e| match e {
            Entry::Setting(s) => Some(s),
            Entry::Item(_) => None,
        })
        .collect();
    let mut variants = Vec::new();
    if !ids.is_empty() {
        variants.push(object(vec![
            ("type", json!({"type": "string", "enum": ["item"]})),
            ("id", json!({"type": "string", "enum": ids})),
            ("args", string_schema()),
            ("why", string_schema()),
        ]));
    }
    let with_scope = |s: &Setting| offer_scope && s.scope.is_some_and(|sc| sc.has_local_value());
    match shape {
        Shape::PerSetting => {
            for s in &settings {
                let mut props = vec![
                    ("type", json!({"type": "string", "enum": ["setting"]})),
                    ("key", json!({"type": "string", "enum": [s.key]})),
                    ("value", value_schema(s)),
                ];
                if with_scope(s) {
                    props.push(("scope", scope_schema()));
                }
                props.push(("why", string_schema()));
                variants.push(object(props));
            }
        }
        Shape::Compact if !settings.is_empty() => {
            let mut types: Vec<&str> = settings
                .iter()
                .map(|s| match s.value_type {
                    ValueType::Boolean => "boolean",
                    ValueType::Number => "integer",
                    ValueType::String => "string",
                })
                .collect();
            types.sort_unstable();
            types.dedup();
            let keys: Vec<&str> = settings.iter().map(|s| s.key.as_str()).collect();
            let mut props = vec![
                ("type", json!({"type": "string", "enum": ["setting"]})),
                ("key", json!({"type": "string", "enum": keys})),
                ("value", json!({"type": types})),
            ];
            if settings.iter().any(|s| with_scope(s)) {
                props.push(("scope", scope_schema()));
            }
            props.push(("why", string_schema()));
            variants.push(object(props));
        }
        Shape::Compact => {}
    }
    variants.push(object(vec![
        ("type", json!({"type": "string", "enum": ["terminal"]})),
        ("command", string_schema()),
        ("why", string_schema()),
    ]));
    let mut top = vec![
        ("reply", string_schema()),
        // No maxItems: Anthropic's structured output rejects array bounds; the
        // validator caps plans at ten steps whatever the schema says.
        ("steps", members([("type", "array".into()), ("items", members([("anyOf", Value::Array(variants))]))])),
    ];
    if round == Round::First {
        top.push(("lookup", json!({"type": "array", "items": {"type": "string"}})));
    }
    object(top)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use crate::rank::{rank, Index, Mode};

    /// [`help_text`] as the steps it takes: one line, tags out, backticks out, preamble out.
    fn help_text_in_steps(description: &str) -> String {
        let flat = one_line(description);
        let kept: Vec<&str> =
            flat.split(' ').filter(|w| !(w.len() > 2 && w.starts_with('*') && w.ends_with('*'))).collect();
        let text = kept.join(" ").replace('`', "");
        let text = text.strip_prefix("This option ").map(str::to_string).unwrap_or(text);
        text.strip_prefix("When on, ").map(|t| format!("when on, {t}")).unwrap_or(text)
    }

    /// [`gloss`] as it reads the whole help: its first three sentences.
    fn gloss_of_whole_help(entry: &Entry) -> String {
        let title_words: Vec<String> = words(entry.title());
        let text = help_text_in_steps(entry.description());
        let sentences = text.split_inclusive(". ").map(|s| s.trim().trim_end_matches('.')).filter(|s| !s.is_empty());
        for sentence in sentences.take(3) {
            let (head, title_head) = (words(sentence), title_words.iter().take(4));
            if title_words.len() >= 4 && head.iter().take(4).eq(title_head) {
                continue;
            }
            if head.into_iter().filter(|w| w.len() > 2 && !title_words.contains(w)).count() >= 2 {
                return cut(sentence, GLOSS_MAX);
            }
        }
        String::new()
    }

    #[test]
    fn a_gloss_read_in_one_pass_from_the_help_s_head_is_the_whole_help_s() {
        let value: Value = serde_json::from_str(include_str!("../../../tests/data/neovim-0.12-catalog.json")).unwrap();
        let real = Catalog::from_value(&value).unwrap();
        let long = real.entries().iter().filter(|e| e.description().len() > GLOSS_HEAD).count();
        assert!(long > 50, "the fixture has long help texts ({long})");
        for entry in real.entries() {
            assert_eq!(help_text(entry.description()), help_text_in_steps(entry.description()), "{}", entry.name());
            assert_eq!(gloss(entry), gloss_of_whole_help(entry), "{}", entry.name());
        }
        // Sentences that run past the head, a head that ends inside a word or a
        // sentence, and one word longer than the head.
        let sentence = |n: usize| format!("{} ends here. ", "a wordy sentence that repeats".repeat(n));
        let cases = [
            sentence(40),
            format!("Tiny. {}", sentence(35)),
            format!("{}{}{}", sentence(10), sentence(10), sentence(30)),
            format!("x. y. {}", "w".repeat(3000)),
            format!("When on, {} *tag* `code`. Second sentence with new words. Third.", "z ".repeat(600)),
            "*tag* This option `` is *a* tag-led   help.\n\tWhen on, x".to_string(),
            "This option When on, does both.".to_string(),
            String::new(),
        ];
        for description in cases {
            assert_eq!(help_text(&description), help_text_in_steps(&description), "{description:.60}");
            let entry = crate::entry::parse_entry(
                &json!({"id": "cmd:x", "kind": "command", "title": "x", "reach": "safe", "description": description}),
            )
            .unwrap();
            assert_eq!(gloss(&entry), gloss_of_whole_help(&entry), "{description:.60}");
        }
    }

    fn catalog() -> Catalog {
        crate::policy::narrow_catalog(Catalog::from_value(&json!({"version": 1, "editor": "neovim", "entries": [
            {"id": "cmd:vsplit", "kind": "command", "title": "split current window vertically", "args": "optional", "reach": "safe"},
            {"id": "cmd:delete", "kind": "command", "title": "delete lines", "args": "none", "reach": "edit",
             "description": "Delete [range] lines (default: current line) [into register x]. Note these weird abbreviations."},
            {"key": "wrap", "title": "long lines wrap", "type": "boolean", "scope": "window",
             "description": "This option changes how text is displayed. It doesn't change the text in the buffer."},
            {"key": "signcolumn", "title": "when to display the sign column", "type": "string", "values": ["yes", "no", "auto", "number"], "scope": "window"},
            {"key": "tabstop", "title": "number of spaces a tab counts for", "type": "number", "min": 1, "max": 9999, "scope": "buffer"},
            {"key": "guifont", "title": "font", "type": "string", "scope": "global"},
            {"key": "clipboard", "title": "use the clipboard as the unnamed register", "type": "string", "list": "comma", "values": ["unnamed", "unnamedplus"], "scope": "global"},
            {"key": "mouse", "title": "enable the use of mouse clicks", "type": "string", "list": "flags", "values": ["n", "v", "i", "c", "h", "a", "r"], "scope": "global"},
            {"key": "busy", "title": "Sets a buffer busy status.", "type": "number", "scope": "buffer",
             "description": "Sets a buffer busy status. Indicated in the default statusline."},
            {"key": "maxsearchcount", "title": "Maximum number of matches shown for the search count…", "type": "number", "scope": "global",
             "description": "Maximum number of matches shown for the search count status. When the number of matches exceeds it, a \">\" is shown."}
        ]}))
        .unwrap())
    }

    fn entries(c: &Catalog, names: &[&str]) -> Vec<&'static Entry> {
        names.iter().map(|n| &*Box::leak(Box::new(c.get(n).unwrap().clone()))).collect()
    }

    #[test]
    fn current_values_given_as_text_are_read_into_the_context() {
        let mut ctx = Context { current_text: Some(r#"{"wrap": true, "tabstop": 4}"#.into()), ..Context::default() };
        ctx.read_current_text().unwrap();
        assert_eq!((ctx.current["wrap"].clone(), ctx.current["tabstop"].clone()), (json!(true), json!(4)));
        assert_eq!(ctx.current_text, None, "read once");
        let mut empty = Context { current_text: Some("[]".into()), ..Context::default() };
        empty.read_current_text().unwrap();
        assert!(empty.current.is_empty());
        for (text, why) in [("[1]", "not an object of setting values"), ("{", "option “context”: current: EOF")] {
            let mut bad = Context { current_text: Some(text.into()), ..Context::default() };
            let e = bad.read_current_text().unwrap_err();
            assert!(e.contains(why), "{e}");
        }
    }

    #[test]
    fn items_and_settings_are_listed_apart_under_their_step_type() {
        let c = catalog();
        let shortlist = rank(&Index::new(&c), &c, "wrap sign column split tabstop clipboard", 10, Mode::Any);
        let ctx = Context {
            os: "linux".into(),
            filetype: "rust".into(),
            project: "rust (cargo)".into(),
            ..Context::default()
        };
        let p = build("wrap lines\nand show signs", &shortlist, &ctx);
        let items_at = p.user.find("Items (a step {\"type\": \"item\"").unwrap();
        let settings_at = p.user.find("Settings (a step {\"type\": \"setting\"").unwrap();
        let vsplit_at = p.user.find("- cmd:vsplit (optional args): split current window vertically\n").unwrap();
        let wrap_at = p.user.find("- wrap (boolean): long lines wrap").unwrap();
        assert!(items_at < vsplit_at && vsplit_at < settings_at && settings_at < wrap_at, "{}", p.user);
        assert!(!p.user.contains("| command |") && !p.user.contains("| setting |"), "no kind column");
        assert!(p.user.contains("- signcolumn (one of yes, no, auto, number): when to display the sign column\n"));
        assert!(p.user.contains("- tabstop (number 1–9999): number of spaces a tab counts for\n"));
        assert!(p.user.contains("Context: OS linux; filetype rust; selection: none; project: rust (cargo)"));
        assert!(p.user.ends_with("Request: wrap lines and show signs\n"), "the request stays on one line");
        assert_eq!(p.shortlist.len(), shortlist.len());
    }

    #[test]
    fn settings_carry_their_current_value_and_lists_their_allowed_items() {
        let c = catalog();
        let mut ctx = Context::default();
        ctx.current.insert("wrap".into(), json!(false));
        ctx.current.insert("tabstop".into(), json!(8.0));
        ctx.current.insert("signcolumn".into(), json!("auto"));
        ctx.current.insert("guifont".into(), json!("x".repeat(100)));
        ctx.current.insert("clipboard".into(), json!(""));
        ctx.current.insert("mouse".into(), json!("nvi"));
        let e = entries(&c, &["wrap", "tabstop", "signcolumn", "guifont", "clipboard", "mouse"]);
        let p = build_round("x", &e, &ctx, Round::First, &[]);
        assert!(p.user.contains("- wrap (boolean, now false): long lines wrap"), "{}", p.user);
        assert!(p.user.contains("- tabstop (number 1–9999, now 8)"));
        assert!(p.user.contains("- signcolumn (one of yes, no, auto, number, now \"auto\")"));
        assert!(p.user.contains("- guifont (string, now a value of 100 characters)"), "long values are not quoted");
        assert!(p.user.contains("- clipboard (comma list of unnamed, unnamedplus, now \"\")"));
        assert!(p.user.contains("- mouse (flags from \"nvichar\", now \"nvi\")"));
    }

    #[test]
    fn entries_carry_help_words_their_title_does_not_say() {
        let c = catalog();
        let e = entries(&c, &["cmd:delete", "wrap", "tabstop"]);
        let p = build_round("x", &e, &Context::default(), Round::First, &[]);
        assert!(
            p.user.contains(
                "- cmd:delete: delete lines. Delete [range] lines (default: current line) [into register x]\n"
            ),
            "{}",
            p.user
        );
        assert!(p.user.contains("- wrap (boolean): long lines wrap. changes how text is displayed\n"), "{}", p.user);
        assert!(p.user.contains("- tabstop (number 1–9999): number of spaces a tab counts for\n"), "no help, no words");
        assert_eq!(cut("one two three four", 9), "one two…");
        // A title that is a sentence keeps one full stop; a title cut from the help is
        // not said twice.
        let e = entries(&c, &["busy", "maxsearchcount"]);
        let p = build_round("x", &e, &Context::default(), Round::First, &[]);
        assert!(
            p.user
                .contains("- busy (number 0–10000): Sets a buffer busy status. Indicated in the default statusline\n"),
            "{}",
            p.user
        );
        assert!(
            p.user.contains(
                "- maxsearchcount (number 1–9999): Maximum number of matches shown for the search count… When the number"
            ),
            "{}",
            p.user
        );
    }

    #[test]
    fn system_prompt_states_the_rules_and_suggests_no_scope() {
        let s = system_prompt("Neovim", Round::First);
        for rule in [
            "Never invent",
            "A command is an item",
            "\"type\" is exactly \"item\", \"setting\" or \"terminal\"",
            "\"steps\": []",
            "1 to 3 steps",
            "\"lookup\": [\"<its name",
            "opposite of the current value",
        ] {
            assert!(s.contains(rule), "missing {rule}");
        }
        // Every example step starts with "type"; none carries a scope.
        for line in s.lines().filter(|l| l.starts_with("{\"type\"")) {
            assert!(!line.contains("scope"), "{line}");
        }
        assert!(!s.contains(r#""scope": "local","#), "no example suggests local");
        let second = system_prompt("Neovim", Round::Second);
        assert!(!second.contains("lookup"), "{second}");
    }

    #[test]
    fn schema_keys_come_in_a_deliberate_order() {
        let c = catalog();
        let e = entries(&c, &["cmd:vsplit", "wrap"]);
        let p = build_round("turn on wrap", &e, &Context::default(), Round::First, &[]);
        let keys = |v: &Value| v["properties"].as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&p.schema), ["reply", "steps", "lookup"]);
        let variants = p.schema["properties"]["steps"]["items"]["anyOf"].as_array().unwrap();
        assert_eq!(keys(&variants[0]), ["type", "id", "args", "why"]);
        assert_eq!(keys(&variants[1]), ["type", "key", "value", "why"]);
        assert_eq!(keys(&variants[2]), ["type", "command", "why"]);
        // Serialized the same way: what a provider receives.
        let text = p.schema.to_string();
        assert!(text.find("\"reply\"").unwrap() < text.find("\"steps\"").unwrap());
        assert!(
            text.find("\"type\":{\"type\":\"string\",\"enum\":[\"item\"]}").unwrap() < text.find("\"id\"").unwrap()
        );
        assert_eq!(variants[1]["required"], json!(["type", "key", "value", "why"]));
    }

    #[test]
    fn each_setting_gets_its_own_value_branch() {
        let c = catalog();
        let e = entries(&c, &["wrap", "tabstop", "signcolumn", "clipboard", "mouse", "guifont"]);
        let p = build_round("x", &e, &Context::default(), Round::First, &[]);
        let variants = p.schema["properties"]["steps"]["items"]["anyOf"].as_array().unwrap();
        let branch = |key: &str| {
            variants.iter().find(|v| v["properties"]["key"]["enum"] == json!([key])).unwrap()["properties"]["value"]
                .clone()
        };
        assert_eq!(branch("wrap"), json!({"type": "boolean"}));
        assert_eq!(branch("tabstop"), json!({"type": "integer", "minimum": 1, "maximum": 9999}));
        assert_eq!(branch("signcolumn"), json!({"type": "string", "enum": ["yes", "no", "auto", "number"]}));
        assert_eq!(
            branch("clipboard"),
            json!({"type": "string", "pattern": "^((unnamed|unnamedplus)(,(unnamed|unnamedplus))*)?$"})
        );
        assert_eq!(branch("mouse"), json!({"type": "string", "pattern": "^[nvichar]*$"}));
        assert_eq!(branch("guifont"), json!({"type": "string"}));
        // No item shortlisted: no item branch; the terminal branch is always there.
        assert_eq!(variants.len(), 7);
        assert_eq!(variants[6]["properties"]["type"]["enum"], json!(["terminal"]));
        // The compact schema has one branch per step type.
        let compact = p.compact_schema["properties"]["steps"]["items"]["anyOf"].as_array().unwrap();
        assert_eq!(compact.len(), 2);
        assert_eq!(compact[0]["properties"]["key"]["enum"].as_array().unwrap().len(), 6);
        assert_eq!(compact[0]["properties"]["value"]["type"], json!(["boolean", "integer", "string"]));
    }

    #[test]
    fn values_with_punctuation_or_placeholders_get_no_pattern() {
        let c = crate::policy::narrow_catalog(Catalog::from_value(&json!({"version": 1, "editor": "neovim", "entries": [
            {"key": "complete", "title": "t", "type": "string", "list": "comma", "values": [".", "w", "]", "kspell"]},
            {"key": "diffopt", "title": "t", "type": "string", "list": "comma", "values": ["filler", "context:{number}"]},
            {"key": "cpoptions", "title": "t", "type": "string", "list": "flags", "values": ["a", "$", "!"]},
            {"key": "signcolumn", "title": "t", "type": "string", "values": ["yes", "auto:{number}"]},
            {"key": "splitkeep", "title": "t", "type": "string", "values": ["cursor", "screen"]}
        ]}))
        .unwrap());
        let schema = |key: &str| match c.setting(key) {
            Some(s) => value_schema(s),
            None => panic!("{key}"),
        };
        for key in ["complete", "diffopt", "cpoptions", "signcolumn"] {
            assert_eq!(schema(key), json!({"type": "string"}), "{key}");
        }
        assert_eq!(schema("splitkeep"), json!({"type": "string", "enum": ["cursor", "screen"]}));
    }

    #[test]
    fn scope_is_offered_only_when_the_request_asks_for_one_window_and_the_option_has_a_local_value() {
        let c = catalog();
        let e = entries(&c, &["wrap", "guifont"]);
        let has_scope = |request: &str, key: &str, compact: bool| {
            let p = build_round(request, &e, &Context::default(), Round::First, &[]);
            let s = if compact { &p.compact_schema } else { &p.schema };
            s["properties"]["steps"]["items"]["anyOf"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|v| v["properties"]["key"]["enum"].as_array().is_some_and(|k| k.contains(&json!(key))))
                .any(|v| v["properties"].get("scope").is_some())
        };
        assert!(!has_scope("turn on word wrap", "wrap", false));
        assert!(!has_scope("set the tab width to 2 and wrap", "wrap", false), "a tab is not a window");
        assert!(!has_scope("wrap lines in all windows", "wrap", false), "all windows is every window");
        assert!(!has_scope("turn on word wrap", "wrap", true));
        assert!(has_scope("wrap lines in this window only", "wrap", false));
        assert!(has_scope("wrap lines in this window only", "wrap", true));
        for asked in ["wrap lines in the current buffer", "wrap lines locally", "wrap lines only here", "setlocal wrap"]
        {
            assert!(has_scope(asked, "wrap", false), "{asked}");
        }
        for named in [
            "split the window vertically and wrap lines",
            "go to the next buffer and wrap lines",
            "wrap lines and close the window",
            "wrap lines in every split",
        ] {
            assert!(!has_scope(named, "wrap", false), "naming a window is not asking for a local value: {named}");
        }
        assert!(!has_scope("bigger font in this window only", "guifont", false), "guifont is global");
    }

    #[test]
    fn the_second_round_reports_the_lookups_and_asks_for_no_more() {
        let c = catalog();
        let e = entries(&c, &["cmd:vsplit", "wrap"]);
        let found = [
            Found { query: "vertical split".into(), names: vec!["cmd:vsplit".into()] },
            Found { query: "fontsize".into(), names: vec![] },
        ];
        let p = build_round("x", &e, &Context::default(), Round::Second, &found);
        assert!(
            p.user.contains("- \"vertical split\": cmd:vsplit\n- \"fontsize\": nothing in the catalog\n"),
            "{}",
            p.user
        );
        assert!(p.user.contains("This is the last look"));
        assert!(p.schema["properties"].get("lookup").is_none());
        assert!(p.compact_schema["properties"].get("lookup").is_none());
        assert!(!p.system.contains("lookup"));
    }

    #[test]
    fn a_refined_request_shows_the_plan_it_changes_before_the_request() {
        let c = catalog();
        let e = entries(&c, &["wrap"]);
        let plain = build_round("no, only this buffer", &e, &Context::default(), Round::First, &[]);
        assert!(!plain.user.contains("Earlier request"), "{}", plain.user);
        let ctx = Context {
            previous: Some(Previous {
                request: "turn on\nword wrap".into(),
                steps: vec![
                    json!({"type": "setting", "key": "wrap", "value": true, "why": "w", "reach": "safe",
                                   "label": "Set wrap", "index": 0, "args": []}),
                    json!({"type": "terminal", "command": "make test", "why": "t", "reach": "shell"}),
                ],
            }),
            ..Context::default()
        };
        let p = build_round("no, only this buffer", &e, &ctx, Round::First, &[]);
        let earlier = p.user.find("Earlier request: turn on word wrap\n").expect(&p.user);
        let step = p.user.find("- {\"type\":\"setting\",\"key\":\"wrap\",\"value\":true}\n").expect(&p.user);
        assert!(p.user.contains("- {\"type\":\"terminal\",\"command\":\"make test\"}\n"), "{}", p.user);
        let request = p.user.find("Request: no, only this buffer\n").unwrap();
        assert!(earlier < step && step < request, "{}", p.user);
        assert!(!p.user.contains("\"why\"") && !p.user.contains("label"), "only a step's own fields: {}", p.user);
        assert!(p.user.ends_with("Request: no, only this buffer\n"));
        // The request asks for this buffer: the schema offers scope, as for any request.
        let none = Context { previous: Some(Previous::default()), ..Context::default() };
        assert!(build_round("x", &e, &none, Round::First, &[]).user.contains("Your plan for it had no steps."));
    }

    #[test]
    fn schema_without_items_or_settings_keeps_the_terminal_variant() {
        let p = build_round("x", &[], &Context::default(), Round::First, &[]);
        assert_eq!(p.schema["properties"]["steps"]["items"]["anyOf"].as_array().unwrap().len(), 1);
        assert_eq!(p.compact_schema["properties"]["steps"]["items"]["anyOf"].as_array().unwrap().len(), 1);
        assert!(p.user.contains("Nothing in the catalog matched"));
    }
}
