//! Everyday requests that name no entry ("split the window vertically", "disable the
//! mouse", "go to the next buffer"): a short table of phrases, each with the step it means
//! in each editor (the first target the catalog has wins).
//!
//! A request matches a phrase when each of the phrase's word groups has a word in the
//! request and every other meaningful word of the request is one the phrase allows (or a
//! filler word); words are compared by their stems. On/off words give a setting its value
//! and rule out items. Anything else is left to a model.

use serde_json::{json, Map, Value};

use super::{forms, item_reply, truth_word, FILLER};
use crate::catalog::Catalog;
use crate::entry::{Entry, ValueType};
use crate::item_id::ItemId;
use crate::rank::query_words;

/// What a phrase runs.
enum Target {
    /// A builtin command without arguments, by name (`write` for `cmd:write`).
    Command(&'static str),
    /// A setting: a boolean takes the on/off word (on by default); a text setting takes
    /// `on` or `off`.
    Setting { key: &'static str, on: &'static str, off: &'static str },
}

use Target::{Command, Setting};

struct Phrase {
    /// Each group needs one of its words in the request.
    groups: &'static [&'static [&'static str]],
    /// Further words the request may have.
    allowed: &'static [&'static str],
    /// The first one the catalog has is planned.
    targets: &'static [Target],
}

const fn flag(key: &'static str) -> Target {
    Setting { key, on: "", off: "" }
}

const MOVE: &[&str] = &["go", "switch", "jump", "move", "open"];

const PHRASES: &[Phrase] = &[
    Phrase {
        groups: &[&["split"], &["vertical", "vertically", "side"]],
        allowed: &["window", "pane", "screen", "by"],
        targets: &[Command("vsplit")],
    },
    Phrase {
        groups: &[&["split"], &["horizontal", "horizontally", "below", "under"]],
        allowed: &["window", "pane", "screen"],
        targets: &[Command("split"), Command("hsplit")],
    },
    Phrase {
        groups: &[&["invisible", "whitespace", "hidden", "tabs"]],
        allowed: &["character", "characters", "chars", "char", "spaces", "space", "display", "render", "trailing"],
        targets: &[flag("list"), Setting { key: "whitespace.render", on: "all", off: "none" }],
    },
    Phrase {
        groups: &[&["highlight", "highlighted", "mark"], &["current", "cursor"], &["line"]],
        allowed: &[],
        targets: &[flag("cursorline")],
    },
    Phrase { groups: &[&["mouse"]], allowed: &["support"], targets: &[Setting { key: "mouse", on: "a", off: "" }] },
    Phrase {
        groups: &[&["next"], &["buffer", "file"]],
        allowed: MOVE,
        targets: &[Command("bnext"), Command("buffer-next")],
    },
    Phrase {
        groups: &[&["previous", "prev", "back"], &["buffer", "file"]],
        allowed: MOVE,
        targets: &[Command("bprevious"), Command("buffer-previous")],
    },
    Phrase { groups: &[&["next"], &["tab", "tabpage"]], allowed: MOVE, targets: &[Command("tabnext")] },
    Phrase {
        groups: &[&["previous", "prev", "back"], &["tab", "tabpage"]],
        allowed: MOVE,
        targets: &[Command("tabprevious")],
    },
    Phrase {
        groups: &[&["sort"]],
        allowed: &["line", "lines", "selected", "selection", "alphabetically"],
        targets: &[Command("sort")],
    },
    Phrase {
        groups: &[&["save"]],
        allowed: &["file", "buffer", "changes", "current", "work"],
        targets: &[Command("write")],
    },
    Phrase {
        groups: &[&["spell", "spelling", "spellcheck"]],
        allowed: &["check", "checking", "checker"],
        targets: &[flag("spell")],
    },
];

/// The plan object for `request` if it is one of the phrases, else `None`.
pub(super) fn plan(request: &str, catalog: &Catalog) -> Option<Map<String, Value>> {
    let mut truth = None;
    let mut content = Vec::new();
    for w in query_words(request) {
        match truth_word(&w) {
            Some(b) if truth.is_some_and(|t| t != b) => return None,
            Some(b) => truth = Some(b),
            None if FILLER.contains(&w.as_str()) => {}
            None if w.chars().all(|c| c.is_ascii_digit()) => return None,
            None => content.push(w),
        }
    }
    let phrase = PHRASES.iter().find(|p| matches(p, &content))?;
    phrase.targets.iter().find_map(|t| step(t, truth, catalog))
}

/// Whether `content` (the request's meaningful words) says `phrase`.
fn matches(phrase: &Phrase, content: &[String]) -> bool {
    let same = |w: &str, p: &str| {
        let (wf, pf) = (forms(w), forms(p));
        wf.iter().any(|f| pf.contains(f))
    };
    let in_group = |w: &str| phrase.groups.iter().any(|g| g.iter().any(|p| same(w, p)));
    let allowed = |w: &str| phrase.allowed.iter().any(|p| same(w, p));
    !content.is_empty()
        && phrase.groups.iter().all(|g| content.iter().any(|w| g.iter().any(|p| same(w, p))))
        && content.iter().all(|w| in_group(w) || allowed(w))
}

fn step(target: &Target, truth: Option<bool>, catalog: &Catalog) -> Option<Map<String, Value>> {
    let (step, reply) = match *target {
        Command(name) => {
            let id = ItemId::command(name).to_string();
            let item = catalog.item(&id)?;
            if truth.is_some() || item.args == crate::entry::Args::Required {
                return None;
            }
            (json!({"type": "item", "id": id, "args": "", "why": "what the request asks"}), item_reply(item, ""))
        }
        Setting { key, on, off } => {
            let Some(Entry::Setting(s)) = catalog.get(key) else { return None };
            let on_wanted = truth.unwrap_or(true);
            let value = match s.value_type {
                ValueType::Boolean => json!(on_wanted),
                ValueType::String if !on.is_empty() || !off.is_empty() => json!(if on_wanted { on } else { off }),
                _ => return None,
            };
            let shown = match &value {
                Value::Bool(b) => (if *b { "on" } else { "off" }).to_string(),
                v => v.to_string(),
            };
            (
                json!({"type": "setting", "key": key, "value": value, "why": "what the request asks"}),
                format!("Set {key} {shown}."),
            )
        }
    };
    let mut m = Map::new();
    m.insert("reply".into(), Value::String(reply));
    m.insert("steps".into(), Value::Array(vec![step]));
    Some(m)
}
