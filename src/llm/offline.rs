//! The offline planner: no network, no model. It handles direct requests from the
//! ranker alone (`wrap on`, `turn on word wrap`, `set tabstop to 4`, `relative line
//! numbers`, `vsplit`) and otherwise says, in one sentence, that the request needs a model
//! and how to configure one.
//!
//! It plans only when it is sure: one of the top-ranked entries must be named by the
//! request's words (a word, or words run together: `relative … numbers` →
//! `relativenumber`), every other meaningful word must be explained by that entry's title
//! or be a filler word, no other top entry may be named as well (one setting wins over
//! items of the same name), and the value must be
//! clear: on/off words for a boolean, exactly one number for a number, one of the allowed
//! values for a string. An item is planned only when it needs no arguments. The plan
//! still goes through the validator like any model's.

use std::time::Duration;

use serde_json::{json, Map, Value};

use super::config::Structured;
use super::{Answer, Output, Usage};
use crate::catalog::{Args, Catalog, Entry, ValueType};
use crate::rank::{query_words, stem, Ranked};

/// How many top-ranked entries may be named.
const TOP: usize = 5;

/// The sentence given when the request needs a model.
pub const NEEDS_MODEL: &str = "This needs a language model: set provider = 'anthropic' and ANTHROPIC_API_KEY, \
or provider = 'ollama' for a local one (see :help leash-providers).";

const TRUE_WORDS: &[&str] = &["on", "enable", "enabled", "show", "true", "yes", "activate", "start"];
const FALSE_WORDS: &[&str] = &[
    "off",
    "disable",
    "disabled",
    "hide",
    "false",
    "no",
    "not",
    "don't",
    "dont",
    "stop",
    "deactivate",
    "without",
    "never",
    "remove",
];
/// Words that say what to do without naming what: ignored when matching.
const FILLER: &[&str] = &[
    "set", "turn", "switch", "make", "change", "use", "put", "option", "options", "setting", "settings", "value",
    "now", "editor", "vim", "neovim", "nvim", "feature", "mode", "word", "words", "long", "text", "run", "command",
    "local", "locally", "here", "equal", "equals",
];
/// Words that ask for something relative to the current state: a model's job.
const RELATIVE: &[&str] =
    &["toggle", "increase", "decrease", "bigger", "smaller", "more", "less", "larger", "double", "half"];

/// The offline planner's answer: a plan object, or the explanation as a plan with no steps.
pub fn answer(request: &str, catalog: &Catalog, shortlist: &[Ranked]) -> Answer {
    let object = match plan_object(request, catalog, shortlist) {
        Some(o) => o,
        None => explanation(),
    };
    Answer {
        output: Output::Object(object),
        usage: Usage::default(),
        attempts: 0,
        elapsed: Duration::ZERO,
        ask: super::Ask::configured(Structured::None),
        model: String::new(),
        truncated: false,
    }
}

fn explanation() -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("reply".into(), Value::String(NEEDS_MODEL.into()));
    m.insert("steps".into(), Value::Array(Vec::new()));
    m
}

/// All spellings a word is matched by: itself and its stems.
fn forms(word: &str) -> Vec<String> {
    let mut v = vec![word.to_string(), stem(word), stem(&stem(word))];
    if word.len() > 3 {
        if let Some(singular) = word.strip_suffix('s') {
            v.push(singular.to_string());
            v.push(stem(singular));
        }
    }
    v.sort();
    v.dedup();
    v
}

/// The names an entry is called by, lower-cased: key or id without its source prefix,
/// and aliases.
fn names(entry: &Entry) -> Vec<String> {
    let base = match entry {
        Entry::Setting(s) => s.key.clone(),
        Entry::Item(i) => i.id.rsplit(':').next().unwrap_or(&i.id).to_string(),
    };
    std::iter::once(base).chain(entry.aliases().iter().cloned()).map(|n| n.to_lowercase()).collect()
}

fn title_forms(entry: &Entry) -> Vec<String> {
    entry
        .title()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .flat_map(|w| forms(&w.to_lowercase()))
        .collect()
}

/// Which content words (by index) spell one of `names`, alone or run together in order
/// (at most three). The longest spelling wins.
fn named_by(content: &[String], names: &[String]) -> Vec<usize> {
    let n = content.len();
    let mut best: Vec<usize> = Vec::new();
    let mut consider = |idx: Vec<usize>| {
        if idx.len() <= best.len() {
            return;
        }
        // Every combination of spellings of the chosen words.
        let mut spellings = vec![String::new()];
        for &i in &idx {
            let f = forms(&content[i]);
            spellings = spellings.iter().flat_map(|s| f.iter().map(move |w| format!("{s}{w}"))).collect();
        }
        if spellings.iter().any(|s| names.contains(s)) {
            best = idx;
        }
    };
    for a in 0..n {
        consider(vec![a]);
        for b in a + 1..n {
            consider(vec![a, b]);
            for c in b + 1..n {
                consider(vec![a, b, c]);
            }
        }
    }
    best
}

fn plan_object(request: &str, catalog: &Catalog, shortlist: &[Ranked]) -> Option<Map<String, Value>> {
    let words = query_words(request);
    if words.iter().any(|w| RELATIVE.contains(&w.as_str())) {
        return None;
    }
    let raw_words: Vec<String> = request
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-' || c == '_'))
        .map(|w| w.trim_matches('\'').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    let numbers: Vec<i64> = raw_words.iter().filter_map(|w| w.parse::<i64>().ok()).collect();

    let mut truth: Option<bool> = None;
    let mut conflicting = false;
    let mut content: Vec<String> = Vec::new();
    for w in &words {
        let v = if TRUE_WORDS.contains(&w.as_str()) {
            Some(true)
        } else if FALSE_WORDS.contains(&w.as_str()) {
            Some(false)
        } else {
            None
        };
        match v {
            Some(b) => {
                conflicting |= truth.is_some_and(|t| t != b);
                truth = Some(b);
            }
            None if w.parse::<i64>().is_ok() || FILLER.contains(&w.as_str()) => {}
            None => content.push(w.clone()),
        }
    }
    if content.is_empty() || conflicting {
        return None;
    }
    // `nowrap`, `nonumber`: Vim's way of saying off.
    let mut negated_alias = false;
    if content.len() == 1 {
        if let Some(rest) = content[0].strip_prefix("no") {
            if !rest.is_empty() && catalog.setting(rest).is_some() && catalog.setting(&content[0]).is_none() {
                content[0] = rest.to_string();
                negated_alias = true;
            }
        }
    }
    if negated_alias {
        if truth == Some(true) {
            return None;
        }
        truth = Some(false);
    }

    // `nowrap` ranks poorly as a word; rank what it negates instead.
    let reranked;
    let shortlist = if negated_alias {
        reranked = crate::rank::rank(catalog, &content[0], TOP, crate::rank::Mode::Any);
        &reranked[..]
    } else {
        shortlist
    };
    // The top entries the request names, with the words naming each.
    let mut named: Vec<(&Entry, Vec<usize>)> = shortlist
        .iter()
        .take(TOP)
        .map(|r| (r.entry, named_by(&content, &names(r.entry))))
        .filter(|(_, idx)| !idx.is_empty())
        // An on/off word or a number is a setting's value: items do not take them.
        .filter(|(e, _)| matches!(e, Entry::Setting(_)) || (truth.is_none() && numbers.is_empty()))
        .collect();
    named.sort_by_key(|(_, idx)| std::cmp::Reverse(idx.len()));
    let best = named.first()?.1.len();
    let tied: Vec<&(&Entry, Vec<usize>)> = named.iter().filter(|(_, idx)| idx.len() == best).collect();
    // Several top entries named by as many words are ambiguous (`number` vs
    // `relativenumber` is not: the longer spelling names more words), except that one
    // setting beats items of the same name (`line numbers` means the option `number`, not
    // the Ex command `:number`).
    let (entry, by_name) = match tied.as_slice() {
        [only] => (*only).clone(),
        _ => {
            let settings: Vec<_> = tied.iter().filter(|(e, _)| matches!(e, Entry::Setting(_))).collect();
            match settings.as_slice() {
                [one] => (**one).clone(),
                _ => return None,
            }
        }
    };

    // Values a string setting allows are not content words.
    let allowed: Vec<String> = match entry {
        Entry::Setting(s) => s.values.clone().unwrap_or_default().iter().map(|v| v.to_lowercase()).collect(),
        Entry::Item(_) => Vec::new(),
    };
    let title = title_forms(entry);
    let explained = |i: usize| {
        by_name.contains(&i) || allowed.contains(&content[i]) || forms(&content[i]).iter().any(|f| title.contains(f))
    };
    if !(0..content.len()).all(explained) {
        return None;
    }

    let (step, reply) = match entry {
        Entry::Setting(s) => {
            let value = match s.value_type {
                ValueType::Boolean => {
                    if !numbers.is_empty() {
                        return None;
                    }
                    json!(truth.unwrap_or(true))
                }
                ValueType::Number => {
                    if truth.is_some() || numbers.len() != 1 {
                        return None;
                    }
                    json!(numbers[0])
                }
                ValueType::String => {
                    let mut found: Vec<&String> = allowed.iter().filter(|v| raw_words.contains(v)).collect();
                    found.dedup();
                    if found.len() != 1 || !numbers.iter().all(|n| found[0] == &n.to_string()) {
                        return None;
                    }
                    // The catalog's own spelling of the value.
                    let original = s.values.as_ref()?.iter().find(|v| v.to_lowercase() == *found[0])?;
                    json!(original)
                }
            };
            let shown = match &value {
                Value::Bool(true) => "on".to_string(),
                Value::Bool(false) => "off".to_string(),
                v => v.to_string(),
            };
            (
                json!({"type": "setting", "key": s.key, "value": value, "why": "the request names this setting"}),
                format!("Set {} {}.", s.key, shown),
            )
        }
        Entry::Item(i) => {
            if i.args == Args::Required || truth.is_some() || !numbers.is_empty() {
                return None;
            }
            (
                json!({"type": "item", "id": i.id, "args": "", "why": "the request names this"}),
                format!("Run {}: {}.", i.id, i.title.trim_end_matches('.')),
            )
        }
    };
    let mut m = Map::new();
    m.insert("reply".into(), Value::String(reply));
    m.insert("steps".into(), Value::Array(vec![step]));
    Some(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::{rank, Mode};

    fn catalog() -> Catalog {
        Catalog::from_value(&json!({"version": 1, "editor": "neovim", "entries": [
            {"id": "cmd:vsplit", "kind": "command", "title": "split current window vertically", "aliases": ["vs"], "args": "optional", "reach": "safe"},
            {"id": "cmd:split", "kind": "command", "title": "split current window", "aliases": ["sp"], "args": "optional", "reach": "safe"},
            {"id": "cmd:edit", "kind": "command", "title": "edit a file", "aliases": ["e"], "args": "required", "reach": "write"},
            {"key": "wrap", "title": "long lines wrap", "type": "boolean"},
            {"key": "wrapscan", "title": "searches wrap around the end of the file", "type": "boolean", "aliases": ["ws"]},
            {"key": "linebreak", "title": "wrap long lines at a blank", "type": "boolean", "aliases": ["lbr"]},
            {"key": "guifont", "title": "GUI: Name(s) of font(s) to be used", "type": "string", "aliases": ["gfn"]},
            {"key": "tabstop", "title": "number of spaces a <Tab> in the text stands for", "type": "number", "aliases": ["ts"]},
            {"key": "shiftwidth", "title": "number of spaces to use for (auto)indent step", "type": "number", "aliases": ["sw"]},
            {"key": "relativenumber", "title": "show relative line number in front of each line", "type": "boolean", "aliases": ["rnu"]},
            {"key": "number", "title": "print the line number in front of each line", "type": "boolean", "aliases": ["nu"]},
            {"key": "background", "title": "\"dark\" or \"light\", used for highlight colors", "type": "string", "values": ["light", "dark"], "aliases": ["bg"]},
            {"key": "signcolumn", "title": "when to display the sign column", "type": "string", "values": ["yes", "no", "auto", "number"], "aliases": ["scl"]},
            {"key": "wrapmargin", "title": "chars from the right where wrapping starts", "type": "number", "aliases": ["wm"]},
            {"key": "whichwrap", "title": "allow specified keys to cross line boundaries", "type": "string", "aliases": ["ww"]},
            {"key": "textwidth", "title": "maximum width of text that is being inserted", "type": "number", "aliases": ["tw"]},
            {"key": "iskeyword", "title": "characters included in keywords", "type": "string", "aliases": ["isk"]},
            {"key": "breakindent", "title": "wrapped line repeats indent", "type": "boolean", "aliases": ["bri"]},
            {"key": "showbreak", "title": "string to use at the start of wrapped lines", "type": "string", "aliases": ["sbr"]},
            {"key": "numberwidth", "title": "number of columns used for the line number", "type": "number", "aliases": ["nuw"]},
            {"key": "cursorline", "title": "highlight the screen line of the cursor", "type": "boolean", "aliases": ["cul"]},
            {"id": "cmd:wrapmode", "kind": "user_command", "title": "toggle soft wrap mode for prose", "args": "none", "reach": "safe"},
            {"id": "cmd:number", "kind": "command", "title": "print lines with line number", "aliases": ["nu"], "args": "optional", "reach": "safe"}
        ]}))
        .unwrap()
    }

    fn run(request: &str) -> Value {
        let c = catalog();
        let shortlist = rank(&c, request, 60, Mode::Any);
        match answer(request, &c, &shortlist).output {
            Output::Object(m) => Value::Object(m),
            Output::Text(t) => panic!("text {t}"),
        }
    }

    fn step(request: &str) -> Option<Value> {
        run(request)["steps"].as_array().and_then(|s| s.first().cloned())
    }

    fn setting(request: &str) -> Option<(String, Value)> {
        let s = step(request)?;
        Some((s["key"].as_str()?.to_string(), s["value"].clone()))
    }

    #[test]
    fn direct_settings() {
        assert_eq!(setting("wrap on"), Some(("wrap".into(), json!(true))));
        assert_eq!(setting("turn on word wrap"), Some(("wrap".into(), json!(true))));
        assert_eq!(setting("turn off wrap"), Some(("wrap".into(), json!(false))));
        assert_eq!(setting("nowrap"), Some(("wrap".into(), json!(false))));
        assert_eq!(setting("set tabstop to 4"), Some(("tabstop".into(), json!(4))));
        assert_eq!(setting("ts 8"), Some(("tabstop".into(), json!(8))));
        assert_eq!(setting("relative line numbers"), Some(("relativenumber".into(), json!(true))));
        assert_eq!(setting("show line numbers"), Some(("number".into(), json!(true))));
        assert_eq!(setting("set background to dark"), Some(("background".into(), json!("dark"))));
        assert_eq!(setting("signcolumn yes"), Some(("signcolumn".into(), json!("yes"))));
        assert_eq!(setting("highlight the cursor line"), Some(("cursorline".into(), json!(true))));
        assert_eq!(setting("line numbers"), Some(("number".into(), json!(true))), "a setting before a same-named item");
        assert_eq!(setting("cursor line on"), Some(("cursorline".into(), json!(true))));
        assert_eq!(setting("set textwidth to 80"), Some(("textwidth".into(), json!(80))));
    }

    #[test]
    fn direct_items() {
        let s = step("vsplit").unwrap();
        assert_eq!((s["type"].as_str(), s["id"].as_str()), (Some("item"), Some("cmd:vsplit")));
        assert!(step("edit").is_none(), "an item that needs arguments is a model's job");
    }

    #[test]
    fn everything_else_needs_a_model() {
        for r in [
            "make the font bigger",
            "set tabstop",
            "wrap on and set tabstop to 4",
            "toggle wrap",
            "wrap on off",
            "set background to purple",
            "format this file",
            "",
        ] {
            let v = run(r);
            assert_eq!(v["steps"], json!([]), "{r}: {v}");
            assert_eq!(v["reply"], json!(NEEDS_MODEL), "{r}");
        }
    }
}
