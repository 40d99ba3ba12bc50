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

mod phrases;

use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::catalog::Catalog;
use crate::entry::{Args, Entry, ValueType};
use crate::item_id::{ItemId, ItemKind};
use crate::llm::provider_config::Structured;
use crate::llm::{Answer, Ask, Output, Usage};
use crate::rank::{query_words, stem, Index, Ranked};

/// How many top-ranked entries may be named.
const TOP: usize = 5;

/// The sentence given when the request needs a model, in Neovim: where to read how first,
/// since a message line shows only its start.
pub const NEEDS_MODEL: &str = "offline can't plan this: :help leash-providers (a model can: provider = 'anthropic' \
with ANTHROPIC_API_KEY, or provider = 'ollama' for a local one).";

/// The same for the `leash` program (Helix), whose settings live in its config file.
pub const NEEDS_MODEL_PROGRAM: &str = "This needs a language model: put provider = \"anthropic\" in \
~/.config/leash/config.toml and set ANTHROPIC_API_KEY, or provider = \"ollama\" for a local one \
(see leash helix --help).";

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
pub fn answer(request: &str, catalog: &Catalog, index: &Index, shortlist: &[Ranked]) -> Answer {
    let object = phrases::plan(request, catalog)
        .or_else(|| plan_object(request, catalog, index, shortlist))
        .unwrap_or_else(|| explanation(catalog));
    Answer {
        output: Output::Object(object),
        usage: Usage::default(),
        attempts: 0,
        elapsed: Duration::ZERO,
        ask: Ask::configured(Structured::None),
        model: String::new(),
        truncated: false,
    }
}

fn explanation(catalog: &Catalog) -> Map<String, Value> {
    let mut m = Map::new();
    let text = if catalog.editor() == "neovim" { NEEDS_MODEL } else { NEEDS_MODEL_PROGRAM };
    m.insert("reply".into(), Value::String(text.into()));
    m.insert("steps".into(), Value::Array(Vec::new()));
    m
}

/// The value an on/off word says (`enable` true, `hide` false), if it is one.
fn truth_word(w: &str) -> Option<bool> {
    if TRUE_WORDS.contains(&w) {
        Some(true)
    } else if FALSE_WORDS.contains(&w) {
        Some(false)
    } else {
        None
    }
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

/// An entry's own name: a setting's key, an item's id without its source prefix.
fn base_name(entry: &Entry) -> &str {
    match entry {
        Entry::Setting(s) => &s.key,
        Entry::Item(i) => i.id.rsplit(':').next().unwrap_or(&i.id),
    }
}

/// The names an entry is called by, lower-cased: key or id without its source prefix,
/// and aliases. A name with `-` or `.` (Helix's `line-number`, `soft-wrap.enable`) is
/// also called by its words run together, with and without a trailing `.enable`.
fn names(entry: &Entry) -> Vec<String> {
    let mut out = Vec::new();
    for n in std::iter::once(base_name(entry).to_string()).chain(entry.aliases().iter().cloned()) {
        let n = n.to_lowercase();
        if n.contains(['-', '.']) {
            let joined: String = n.chars().filter(|c| !matches!(c, '-' | '.')).collect();
            if let Some(stem) = n.strip_suffix(".enable") {
                out.push(stem.chars().filter(|c| !matches!(c, '-' | '.')).collect());
            }
            out.push(joined);
        }
        out.push(n);
    }
    out
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

fn plan_object(request: &str, catalog: &Catalog, index: &Index, shortlist: &[Ranked]) -> Option<Map<String, Value>> {
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
        match truth_word(w) {
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
        reranked = crate::rank::rank(index, catalog, &content[0], TOP, crate::rank::Mode::Any);
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
    // Ex commands that differ only in case (`:bnext` and `:bNext`): the request, written
    // in lower case, names the lower-case one.
    let lower: Vec<&&(&Entry, Vec<usize>)> =
        tied.iter().filter(|(e, _)| !base_name(e).contains(char::is_uppercase)).collect();
    let (entry, by_name) = match (tied.as_slice(), lower.as_slice()) {
        ([only], _) => (*only).clone(),
        (_, [one]) if tied.iter().all(|(e, _)| base_name(e).eq_ignore_ascii_case(base_name(one.0))) => (**one).clone(),
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
    let unexplained: Vec<usize> = (0..content.len()).filter(|&i| !explained(i)).collect();
    // A name given after the entry's name (`theme gruvbox`, `colorscheme desert`): the one
    // word left, last, for a text setting without a list of values or an item that needs
    // an argument; spelled as the request spells it.
    let takes_name = match entry {
        Entry::Setting(s) => s.value_type == ValueType::String && allowed.is_empty(),
        // Not an optional argument: `split vertically` is no request to open "vertically".
        Entry::Item(i) => i.args == Args::Required,
    };
    let free = match unexplained.as_slice() {
        [] => None,
        [i] if takes_name
            && *i + 1 == content.len()
            && by_name.iter().all(|n| n < i)
            && truth.is_none()
            && numbers.is_empty() =>
        {
            Some(request_spelling(request, &content[*i]))
        }
        _ => return None,
    };

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
                ValueType::String if free.is_some() => json!(free),
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
            if (i.args == Args::Required && free.is_none()) || truth.is_some() || !numbers.is_empty() {
                return None;
            }
            let args = free.unwrap_or_default();
            (json!({"type": "item", "id": i.id, "args": args, "why": "the request names this"}), item_reply(i, &args))
        }
    };
    let mut m = Map::new();
    m.insert("reply".into(), Value::String(reply));
    m.insert("steps".into(), Value::Array(vec![step]));
    Some(m)
}

/// `word` (lower case) as the request writes it.
fn request_spelling(request: &str, word: &str) -> String {
    request
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '_'))
        .map(|w| w.trim_matches('\''))
        .find(|w| w.to_lowercase() == word)
        .unwrap_or(word)
        .to_string()
}

/// The reply for an item step, in words: "Split current window vertically (:vsplit)."
fn item_reply(item: &crate::entry::Item, args: &str) -> String {
    let mut title = item.title.trim_end_matches('.').to_string();
    if let Some(first) = title.get(0..1) {
        let upper = first.to_uppercase();
        title.replace_range(0..1, &upper);
    }
    let name = item.id.split_once(':').map_or(item.id.as_str(), |(_, n)| n);
    let shown = match ItemId::parse(&item.id) {
        Some(ItemId { kind: ItemKind::Command | ItemKind::User, .. }) => format!(":{name}"),
        _ => name.to_string(),
    };
    if args.is_empty() {
        format!("{title} ({shown}).")
    } else {
        format!("{title} ({shown} {args}).")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::{rank, Mode};

    fn catalog() -> Catalog {
        crate::test_catalog::neovim()
    }

    fn run(request: &str) -> Value {
        let c = catalog();
        let index = Index::new(&c);
        let shortlist = rank(&index, &c, request, 60, Mode::Any);
        match answer(request, &c, &index, &shortlist).output {
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
    fn exact_command_names_choose_the_lower_case_command() {
        for (request, id) in
            [("bnext", "cmd:bnext"), ("next", "cmd:next"), ("tabnext", "cmd:tabnext"), ("bprevious", "cmd:bprevious")]
        {
            let s = step(request).unwrap_or_else(|| panic!("{request}: {}", run(request)));
            assert_eq!(s["id"], json!(id), "{request}");
        }
    }

    #[test]
    fn plain_everyday_requests() {
        let item = |r: &str| step(r).and_then(|s| s["id"].as_str().map(str::to_string));
        assert_eq!(item("split the window vertically").as_deref(), Some("cmd:vsplit"));
        assert_eq!(item("split window horizontally").as_deref(), Some("cmd:split"));
        assert_eq!(item("go to the next buffer").as_deref(), Some("cmd:bnext"));
        assert_eq!(item("previous buffer").as_deref(), Some("cmd:bprevious"));
        assert_eq!(item("switch to the next tab").as_deref(), Some("cmd:tabnext"));
        assert_eq!(item("sort these lines").as_deref(), Some("cmd:sort"));
        assert_eq!(item("save the file").as_deref(), Some("cmd:write"));
        assert_eq!(setting("show invisible characters"), Some(("list".into(), json!(true))));
        assert_eq!(setting("hide whitespace"), Some(("list".into(), json!(false))));
        assert_eq!(setting("highlight the current line"), Some(("cursorline".into(), json!(true))));
        assert_eq!(setting("disable the mouse"), Some(("mouse".into(), json!(""))));
        assert_eq!(setting("enable mouse support"), Some(("mouse".into(), json!("a"))));
        assert_eq!(setting("turn on spell checking"), Some(("spell".into(), json!(true))));
        // The reply says it in words, with the command.
        assert_eq!(run("split the window vertically")["reply"], json!("Split current window vertically (:vsplit)."));
        // Near misses stay a model's job.
        for r in [
            "split the window vertically and sort",
            "enable the next buffer",
            "sort by the third column",
            "save the file as notes.txt",
            "mouse 3",
        ] {
            assert_eq!(run(r)["steps"], json!([]), "{r}: {}", run(r));
        }
    }

    #[test]
    fn a_name_after_the_entry_s_name_is_its_value() {
        let s = step("colorscheme desert").unwrap();
        assert_eq!((s["id"].as_str(), s["args"].as_str()), (Some("cmd:colorscheme"), Some("desert")));
        let s = step("colorscheme Tokyo").unwrap();
        assert_eq!(s["args"], json!("Tokyo"), "spelled as the request spells it");
        assert!(step("split notes").is_none(), "an optional argument is not guessed");
        assert!(step("colorscheme desert blue").is_none(), "one word only");
        assert!(step("desert colorscheme").is_none(), "after the name");
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
