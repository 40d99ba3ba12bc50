//! The prompt: the system message, the user message built from the shortlist, and the
//! plan's JSON schema (with the shortlisted ids and keys as enums) for providers that
//! support structured output.
//!
//! The prompt shapes what the model tends to do; it decides nothing. Everything it asks
//! for is checked again by the validator.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::catalog::{Entry, ValueType};
use crate::rank::Ranked;

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
}

/// The messages and the schema for one request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prompt {
    pub system: String,
    pub user: String,
    pub schema: Value,
    /// The shortlisted ids and keys, best first.
    pub shortlist: Vec<String>,
}

/// The system prompt: what a plan is and the rules for making one.
pub fn system_prompt(editor: &str) -> String {
    let editor = if editor.is_empty() { "the editor" } else { editor };
    format!(
        r#"You operate {editor} for its user. You receive a request and a shortlist of what {editor} can do here. Answer with one JSON object and nothing else:
{{"reply": "one short sentence for the user",
 "steps": [
  {{"type": "item", "id": "<an id from the shortlist>", "args": "<arguments, only if the item takes them>", "why": "<a few words>"}},
  {{"type": "setting", "key": "<a setting key from the shortlist>", "value": <true/false, a number or a string>, "scope": "local", "why": "<a few words>"}},
  {{"type": "terminal", "command": "<a shell command line>", "why": "<a few words>"}}
 ]}}
Rules:
- Use only ids and keys that appear in the shortlist, spelled exactly. Never invent one.
- Prefer a catalog item or a setting over a terminal step; use a terminal step only when nothing in the shortlist can do it.
- Setting values must have the listed type or be one of the listed values. Add "scope": "local" only when the user asks for this window or buffer only.
- Keep the plan minimal: usually 1 to 3 steps, in the order they must run.
- If nothing fits, or the request is not something {editor} can do, return "steps": [] and explain why in "reply".
- The user confirms steps that run programs, run code or write files; never claim a step is pre-approved."#
    )
}

/// Builds the messages and the schema for `request` over a ranked shortlist.
pub fn build(request: &str, shortlist: &[Ranked], context: &Context) -> Prompt {
    let mut user = String::with_capacity(64 * shortlist.len() + 256);
    user.push_str("Shortlist (id | kind | title):\n");
    for r in shortlist {
        let e = r.entry;
        user.push_str(&format!("{} | {} | {}\n", e.name(), e.kind(), one_line(e.title())));
    }
    let settings: Vec<String> = shortlist.iter().filter_map(|r| setting_line(r.entry)).collect();
    if !settings.is_empty() {
        user.push_str("\nSettings (key and value):\n");
        for s in settings {
            user.push_str(&s);
            user.push('\n');
        }
    }
    user.push_str(&format!("\nContext: {}\n", context_line(context)));
    user.push_str(&format!("\nRequest: {}\n", one_line(request)));
    let shortlist_names: Vec<String> = shortlist.iter().map(|r| r.entry.name().to_string()).collect();
    Prompt { system: system_prompt(&context.editor), user, schema: schema(shortlist), shortlist: shortlist_names }
}

/// `wrap (boolean)`, `signcolumn (one of yes | no | auto | number)`.
fn setting_line(entry: &Entry) -> Option<String> {
    let Entry::Setting(s) = entry else { return None };
    Some(match (&s.values, s.value_type) {
        // A list's values are its items, not whole values: "one of" would mislead.
        (Some(values), _) if !values.is_empty() && s.list.is_none() => {
            format!("{} (one of {})", s.key, values.join(" | "))
        }
        (_, t) => format!("{} ({})", s.key, t.as_str()),
    })
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

/// The plan's JSON schema, with the shortlisted ids and keys as enums.
pub fn schema(shortlist: &[Ranked]) -> Value {
    let ids: Vec<&str> =
        shortlist.iter().filter(|r| matches!(r.entry, Entry::Item(_))).map(|r| r.entry.name()).collect();
    let keys: Vec<&str> =
        shortlist.iter().filter(|r| matches!(r.entry, Entry::Setting(_))).map(|r| r.entry.name()).collect();
    let value_types: Vec<&str> = {
        let mut t: Vec<&str> = shortlist
            .iter()
            .filter_map(|r| match r.entry {
                Entry::Setting(s) => Some(match s.value_type {
                    ValueType::Boolean => "boolean",
                    ValueType::Number => "integer",
                    ValueType::String => "string",
                }),
                Entry::Item(_) => None,
            })
            .collect();
        t.sort_unstable();
        t.dedup();
        t
    };
    let why = json!({"type": "string"});
    let mut variants = Vec::new();
    if !ids.is_empty() {
        variants.push(json!({
            "type": "object",
            "properties": {
                "type": {"type": "string", "enum": ["item"]},
                "id": {"type": "string", "enum": ids},
                "args": {"type": "string"},
                "why": why,
            },
            "required": ["type", "id", "args", "why"],
            "additionalProperties": false,
        }));
    }
    if !keys.is_empty() {
        variants.push(json!({
            "type": "object",
            "properties": {
                "type": {"type": "string", "enum": ["setting"]},
                "key": {"type": "string", "enum": keys},
                "value": {"type": value_types},
                "scope": {"type": "string", "enum": ["local", "global"]},
                "why": why,
            },
            "required": ["type", "key", "value", "scope", "why"],
            "additionalProperties": false,
        }));
    }
    variants.push(json!({
        "type": "object",
        "properties": {
            "type": {"type": "string", "enum": ["terminal"]},
            "command": {"type": "string"},
            "why": why,
        },
        "required": ["type", "command", "why"],
        "additionalProperties": false,
    }));
    json!({
        "type": "object",
        "properties": {
            "reply": {"type": "string"},
            // No maxItems: Anthropic's structured output rejects array bounds; the
            // validator caps plans at ten steps whatever the schema says.
            "steps": {"type": "array", "items": {"anyOf": variants}},
        },
        "required": ["reply", "steps"],
        "additionalProperties": false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use crate::rank::{rank, Mode};

    fn catalog() -> Catalog {
        Catalog::from_value(&json!({"version": 1, "editor": "neovim", "entries": [
            {"id": "cmd:vsplit", "kind": "command", "title": "split current window vertically", "args": "optional", "reach": "safe"},
            {"key": "wrap", "title": "long lines wrap", "type": "boolean"},
            {"key": "signcolumn", "title": "when to display the sign column", "type": "string", "values": ["yes", "no", "auto", "number"]},
            {"key": "tabstop", "title": "number of spaces a tab counts for", "type": "number"},
            {"key": "clipboard", "title": "use the clipboard as the unnamed register", "type": "string", "list": "comma", "values": ["unnamed", "unnamedplus"]}
        ]}))
        .unwrap()
    }

    #[test]
    fn user_message_lists_the_shortlist_settings_context_and_request() {
        let c = catalog();
        let shortlist = rank(&c, "wrap sign column split tabstop clipboard", 10, Mode::Any);
        let ctx = Context {
            os: "linux".into(),
            filetype: "rust".into(),
            project: "rust (cargo)".into(),
            ..Context::default()
        };
        let p = build("wrap lines\nand show signs", &shortlist, &ctx);
        assert!(p.user.contains("cmd:vsplit | command | split current window vertically\n"), "{}", p.user);
        assert!(p.user.contains("wrap | setting | long lines wrap\n"));
        assert!(p.user.contains("\nwrap (boolean)\n"));
        assert!(p.user.contains("signcolumn (one of yes | no | auto | number)"));
        assert!(p.user.contains("tabstop (number)"));
        assert!(p.user.contains("\nclipboard (string)\n"), "a list's items are not whole values");
        assert!(p.user.contains("Context: OS linux; filetype rust; selection: none; project: rust (cargo)"));
        assert!(p.user.ends_with("Request: wrap lines and show signs\n"), "the request stays on one line");
        assert_eq!(p.shortlist.len(), 5);
    }

    #[test]
    fn system_prompt_states_the_rules() {
        let s = system_prompt("Neovim");
        for rule in ["Never invent", "Prefer a catalog item", "\"steps\": []", "1 to 3 steps", "\"type\": \"terminal\""]
        {
            assert!(s.contains(rule), "missing {rule}");
        }
    }

    #[test]
    fn schema_enumerates_only_the_shortlist() {
        let c = catalog();
        let shortlist = rank(&c, "wrap split", 10, Mode::Any);
        let s = schema(&shortlist);
        let variants = s["properties"]["steps"]["items"]["anyOf"].as_array().unwrap();
        assert_eq!(variants[0]["properties"]["id"]["enum"], json!(["cmd:vsplit"]));
        assert_eq!(variants[1]["properties"]["key"]["enum"], json!(["wrap"]));
        assert_eq!(variants[1]["properties"]["value"]["type"], json!(["boolean"]));
        assert_eq!(variants[2]["properties"]["type"]["enum"], json!(["terminal"]));
        assert!(s["properties"]["steps"].get("maxItems").is_none());
    }

    #[test]
    fn schema_without_items_or_settings_keeps_the_terminal_variant() {
        let s = schema(&[]);
        assert_eq!(s["properties"]["steps"]["items"]["anyOf"].as_array().unwrap().len(), 1);
    }
}
