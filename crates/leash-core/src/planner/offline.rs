//! The offline planner: no network, no model. It plans the everyday direct requests
//! itself ("turn on word wrap", "indent with 2 spaces", "close other windows", "dark
//! theme", "spell check in German", "colorscheme desert", "turn on wrap and line
//! numbers"), offers a few candidates when it is not sure, and says in one short line
//! when a request needs a model.
//!
//! A request is read in English (see [`request`]) and split into parts at "and" and
//! commas. A part is planned when one meaning explains every word of it: a phrase of the
//! everyday vocabulary ([`phrases`]) or the name of a top-ranked entry ("set tabstop to
//! 4", "nowrap", "signcolumn yes"), with the value the part gives (an on/off word, a
//! number with its unit, an allowed value, a language, a color scheme's name; "toggle"
//! is the opposite of the current value in the context). The whole request is tried
//! first, then its parts; every part must be planned for a plan of several.
//!
//! When it is not sure (no meaning explains every word, or two explain as much with
//! different plans), it answers with no steps and up to [`CHOICES`] candidates, each a
//! plan of its own with a label that says its effect (`wrap: off → on`): the editor
//! offers them in a picker, and the one chosen is shown as an ordinary plan. A request
//! that edits text, quotes something or names nothing the catalog has gets the one line
//! saying it needs a model. Every plan, chosen ones included, goes through the
//! validator like a model's.

mod phrases;
mod request;
mod typos;

use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::catalog::Catalog;
use crate::entry::{Args, Entry, ValueType};
use crate::item_id::{ItemId, ItemKind};
use crate::llm::provider_config::Structured;
use crate::llm::{Answer, Ask, Output, Usage};
use crate::prompt::Context;
use crate::rank::{Index, Mode, Ranked};
use phrases::{Env, Match, Planned};
use request::{forms, is_weak, Clause, Truth, Word};

/// How many top-ranked entries a request may name.
const TOP: usize = 5;
/// The most candidates offered when the planner is not sure.
pub const CHOICES: usize = 5;

/// The line given when the request needs a model, in Neovim.
pub const NEEDS_MODEL: &str = "offline can't plan this: :help leash-providers adds a model";

/// The same for the `leash` program (Helix), whose settings live in its config file.
pub const NEEDS_MODEL_PROGRAM: &str =
    "This needs a language model: set one in ~/.config/leash/config.toml (see leash helix --help).";

/// The reply over the candidates.
pub const NOT_SURE: &str = "Not sure which one you mean; pick one:";

/// Verbs that edit text (or ask for something a setting cannot do): without a plan for
/// the whole request, these are a model's job, not a picker's.
const EDIT_VERBS: &[&str] = &[
    "delete",
    "replace",
    "substitute",
    "rename",
    "insert",
    "add",
    "append",
    "prepend",
    "comment",
    "uncomment",
    "capitalize",
    "uppercase",
    "lowercase",
    "duplicate",
    "copy",
    "paste",
    "yank",
    "cut",
    "reverse",
    "convert",
    "refactor",
    "generate",
    "explain",
    "fix",
    "create",
    "count",
    "surround",
    "translate",
    "align",
    "indent",
    "dedent",
    "unindent",
    "write",
    "type",
    "swap",
    "move",
    "trim",
    "strip",
    "remove",
    "join",
    "find",
    "grep",
    "run",
    "install",
    "update",
    "commit",
    "push",
    "pull",
    "calculate",
    "format",
    // What the reader makes of "move the window …": moving it, not going to it.
    "relocate",
];

/// One candidate of the picker: a label and the plan it stands for.
pub struct Choice {
    /// What choosing it does, with the current value (`wrap: off → on (long lines wrap…)`).
    pub label: String,
    /// The plan object (`{"reply", "steps"}`), validated like any plan before it is offered.
    pub plan: Map<String, Value>,
}

/// The offline planner's answer: a plan object (no steps when it needs a model or is
/// not sure) and the candidates when it is not sure.
pub struct Offline {
    pub answer: Answer,
    pub choices: Vec<Choice>,
}

/// The offline planner's answer with no context (no current values, no color schemes).
pub fn answer(request: &str, catalog: &Catalog, index: &Index, shortlist: &[Ranked]) -> Answer {
    plan(request, catalog, index, shortlist, &Context::default()).answer
}

/// Whether planning `request` offline may need the installed color schemes
/// ([`Context::colorschemes`]): it names a color scheme the way a phrase does, in any of
/// the languages the planner reads. Listing them costs the editor a search of its
/// folders, which the other requests need not wait for.
pub fn wants_colorschemes(request: &str) -> bool {
    phrases::may_name_theme(&request::read(request).whole)
}

/// Plans `request` offline; `context` gives the current values ("toggle") and the
/// installed color schemes.
pub fn plan(request: &str, catalog: &Catalog, index: &Index, shortlist: &[Ranked], context: &Context) -> Offline {
    let env = Env { catalog, current: &context.current, colorschemes: &context.colorschemes, request };
    let (object, choices) = decide(request, &env, index, shortlist);
    Offline {
        answer: Answer {
            output: Output::Object(object),
            usage: Usage::default(),
            attempts: 0,
            elapsed: Duration::ZERO,
            ask: Ask::configured(Structured::None),
            model: String::new(),
            truncated: false,
        },
        choices,
    }
}

/// What one part of a request comes to.
enum Outcome {
    /// One meaning explains it: these steps, and how many of the words it took.
    Sure(Vec<Planned>, usize),
    /// It names a color scheme that is not installed.
    MissingTheme(String),
    /// Not sure: the candidates, best first (maybe none).
    Unsure(Vec<Vec<Planned>>),
}

fn decide(request: &str, env: &Env, index: &Index, shortlist: &[Ranked]) -> (Map<String, Value>, Vec<Choice>) {
    let corrected = typos::correct(request, env.catalog, env.colorschemes);
    let request = corrected.as_deref().unwrap_or(request);
    // The shortlist was ranked on the words as typed.
    let reranked;
    let shortlist = match corrected {
        Some(_) => {
            reranked = crate::rank::rank(index, env.catalog, request, shortlist.len().max(TOP), Mode::Any);
            &reranked[..]
        }
        None => shortlist,
    };
    let reading = request::read(request);
    if reading.whole.words.is_empty() {
        return (needs_model(env.catalog), Vec::new());
    }
    if reading.question {
        return (needs_model(env.catalog), Vec::new());
    }
    let whole = resolve(&reading.whole, env, index, Some(shortlist));
    // Several parts each planned take more words than one meaning of the whole ("use
    // spaces instead of tabs and indent with 4 spaces"); the whole wins a tie ("save and
    // quit" is `:wq`).
    let parts = if reading.parts.len() > 1 { plan_parts(&reading.parts, env, index) } else { None };
    let candidates = match (whole, parts) {
        (Outcome::Sure(steps, score), Some((_, total))) if score >= total => {
            return (plan_object(&steps, env), Vec::new())
        }
        (_, Some((steps, _))) => return (plan_object(&steps, env), Vec::new()),
        (Outcome::Sure(steps, _), None) => return (plan_object(&steps, env), Vec::new()),
        (Outcome::MissingTheme(name), None) => return (missing_theme(&name), Vec::new()),
        (Outcome::Unsure(c), None) => c,
    };
    if reading.parts.len() > 1 {
        // Several things asked, not all of them clear: a model's job.
        return (needs_model(env.catalog), Vec::new());
    }
    if reading.has_literal || reading.question || edits(&reading.whole) || reading.whole.words.len() > 8 {
        return (needs_model(env.catalog), Vec::new());
    }
    let choices: Vec<Choice> = candidates
        .into_iter()
        .take(CHOICES)
        .map(|steps| Choice { label: label(&steps, env), plan: plan_object(&steps, env) })
        .collect();
    if choices.is_empty() {
        return (needs_model(env.catalog), Vec::new());
    }
    let mut m = Map::new();
    m.insert("reply".into(), json!(NOT_SURE));
    m.insert("steps".into(), json!([]));
    (m, choices)
}

/// Whether a part asks to edit text or for an action no setting is: a model's job when
/// nothing explains it.
fn edits(clause: &Clause) -> bool {
    clause.words.iter().any(|w| EDIT_VERBS.contains(&w.text.as_str()) || w.relative)
}

/// Plans every part, or none: the steps of all of them in order, and how many words
/// their meanings took.
fn plan_parts(parts: &[Clause], env: &Env, index: &Index) -> Option<(Vec<Planned>, usize)> {
    // An on/off word said once counts for every part ("turn off wrap and line numbers").
    let mut truths: Vec<Truth> = parts.iter().flat_map(|p| p.words.iter().filter_map(|w| w.truth)).collect();
    truths.dedup();
    let shared = match truths.as_slice() {
        [t] => Some(*t),
        _ => None,
    };
    let mut steps: Vec<Planned> = Vec::new();
    let mut total = 0;
    let mut previous: Option<Vec<Planned>> = None;
    for part in parts {
        let mut outcome = Outcome::Unsure(Vec::new());
        if let Some(t) = shared.filter(|_| part.words.iter().all(|w| w.truth.is_none())) {
            let mut with = part.clone();
            with.words.push(Word { truth: Some(t), soft: true, ..word("(said before)") });
            outcome = resolve(&with, env, index, None);
        }
        // An on/off word that this part cannot take belongs to another part ("tabs 4
        // wide, no expandtab").
        if !matches!(outcome, Outcome::Sure(..)) {
            outcome = resolve(part, env, index, None);
        }
        // "…, 4 wide": a number alone speaks of what the part before it set.
        if !matches!(outcome, Outcome::Sure(..)) {
            if let Some(topic) = previous.as_deref().and_then(topic) {
                let mut with = Clause { words: vec![word(topic)] };
                with.words.extend(part.words.iter().cloned());
                outcome = resolve(&with, env, index, None);
            }
        }
        let Outcome::Sure(s, score) = outcome else { return None };
        total += score;
        previous = Some(s.clone());
        for step in s {
            // Two parts that set one setting to different values are no one plan ("spell
            // check in English and German" is one list of languages).
            if let Planned::Setting { key, .. } = &step {
                if steps.iter().any(|have| matches!(have, Planned::Setting { key: k, .. } if k == key) && *have != step)
                {
                    return None;
                }
            }
            if !steps.contains(&step) {
                steps.push(step);
            }
        }
    }
    Some((steps, total))
}

/// What a part that gives only a number with a width (or only a language) speaks of,
/// after a part that set these steps.
fn topic(steps: &[Planned]) -> Option<&'static str> {
    steps.iter().find_map(|s| match s {
        Planned::Setting { key, .. } => match key.as_str() {
            "expandtab" | "shiftwidth" | "tabstop" | "softtabstop" => Some("indent"),
            // "…and set the language to French"
            "spell" | "spelllang" => Some("spell"),
            "textwidth" | "text-width" => Some("textwidth"),
            "scrolloff" => Some("scrolloff"),
            _ => None,
        },
        Planned::Item { id, .. } if id == "cmd:indent-style" => Some("indent"),
        Planned::Item { .. } => None,
    })
}

fn word(text: &str) -> Word {
    Word {
        text: text.to_string(),
        forms: forms(text),
        number: None,
        truth: None,
        relative: false,
        after_by: false,
        after_to: false,
        soft: false,
    }
}

/// What one part comes to: the phrase or name that explains all of it and takes most of
/// its words; two that take as many with different plans are candidates.
fn resolve(clause: &Clause, env: &Env, index: &Index, shortlist: Option<&[Ranked]>) -> Outcome {
    let mut all: Vec<Match> = phrases::matches(clause, env);
    let ranked_here;
    let ranked = match shortlist {
        Some(s) => s,
        None => {
            ranked_here = crate::rank::rank(index, env.catalog, &clause.text(), 10, Mode::Any);
            &ranked_here[..]
        }
    };
    if let Some(m) = by_name(clause, env, index, ranked) {
        all.push(m);
    }
    if let Some(name) = all.iter().find(|m| m.unexplained.is_empty()).and_then(|m| m.missing_theme.clone()) {
        return Outcome::MissingTheme(name);
    }
    let full: Vec<&Match> = all.iter().filter(|m| m.unexplained.is_empty() && !m.steps.is_empty()).collect();
    if let Some(best) = full.iter().map(|m| m.score).max() {
        let mut best: Vec<&&Match> = full.iter().filter(|m| m.score == best).collect();
        // A phrase of the vocabulary says what it means; a name may be a word's other sense
        // ("exit" is `:quit`, not `:exit`).
        if best.iter().any(|m| !m.by_name) {
            best.retain(|m| !m.by_name);
        }
        let mut top: Vec<Vec<Planned>> = Vec::new();
        for m in &best {
            if !top.contains(&m.steps) {
                top.push(m.steps.clone());
            }
        }
        if top.len() == 1 {
            return Outcome::Sure(top.remove(0), best[0].score);
        }
        return Outcome::Unsure(with_candidates(top, &all, clause, env, ranked));
    }
    Outcome::Unsure(with_candidates(Vec::new(), &all, clause, env, ranked))
}

/// The candidates for the picker: the ambiguous plans, then phrases that explain most of
/// the part, then the ranker's best entries that the part names a word of, each with
/// the value the part gives (or the opposite of the current one).
fn with_candidates(
    mut out: Vec<Vec<Planned>>,
    matches: &[Match],
    clause: &Clause,
    env: &Env,
    ranked: &[Ranked],
) -> Vec<Vec<Planned>> {
    let mut partial: Vec<&Match> =
        matches.iter().filter(|m| !m.steps.is_empty() && m.unexplained.len() <= 2 && m.score > 0).collect();
    partial.sort_by(|a, b| b.score.cmp(&a.score).then(a.unexplained.len().cmp(&b.unexplained.len())));
    for m in partial {
        if !out.contains(&m.steps) {
            out.push(m.steps.clone());
        }
    }
    let content: Vec<&Word> =
        clause.words.iter().filter(|w| !w.soft && w.truth.is_none() && w.number.is_none()).collect();
    // Entries ranked far below the best are not what the request is about.
    let floor = ranked.first().map_or(0, |r| r.score / 2);
    for r in ranked.iter().take(10).filter(|r| r.score >= floor) {
        if out.iter().filter(|steps| !steps.iter().all(|s| unchanged(s, env))).count() >= CHOICES {
            break;
        }
        if !related(r.entry, &content) {
            continue;
        }
        if let Some(step) = candidate_step(r.entry, clause, env) {
            let steps = vec![step];
            if !out.contains(&steps) {
                out.push(steps);
            }
        }
    }
    // A candidate that would change nothing is no answer.
    out.retain(|steps| !steps.iter().all(|s| unchanged(s, env)));
    out
}

/// Whether a step sets a setting to the value it has.
fn unchanged(step: &Planned, env: &Env) -> bool {
    match step {
        Planned::Setting { key, value } => env.current.get(key) == Some(value),
        Planned::Item { .. } => false,
    }
}

/// Words too common in titles to tie a request to an entry ("maximize this window" is
/// not about every entry whose title says "window").
const GENERIC: &[&str] = &[
    "window",
    "windows",
    "buffer",
    "buffers",
    "file",
    "files",
    "line",
    "lines",
    "text",
    "screen",
    "current",
    "all",
    "new",
    "open",
    "list",
    "character",
    "characters",
    "word",
    "words",
    "command",
    "commands",
    "mode",
    "cursor",
    "tab",
    "tabs",
    "column",
    "columns",
    "name",
    "number",
    "make",
    "use",
    "set",
    "value",
    "option",
    "options",
];

/// Whether a word of the part that is not a common one is a word of the entry's names
/// or title.
fn related(entry: &Entry, content: &[&Word]) -> bool {
    let mut theirs: Vec<String> = names(entry);
    theirs.extend(
        entry
            .title()
            .split(|c: char| !c.is_alphanumeric())
            .map(str::to_lowercase)
            .filter(|w| w.len() > 2 && !request::is_filler(w))
            .flat_map(|w| forms(&w)),
    );
    content
        .iter()
        .filter(|w| !GENERIC.contains(&w.text.as_str()))
        .any(|w| w.forms.iter().any(|f| f.len() > 2 && theirs.contains(f)))
}

/// The step a candidate entry would be, with the value the part gives.
fn candidate_step(entry: &Entry, clause: &Clause, env: &Env) -> Option<Planned> {
    let truth = request::truth_of(clause.words.iter()).ok()?;
    let numbers: Vec<i64> = clause.words.iter().filter_map(|w| w.number).collect();
    match entry {
        Entry::Setting(s) => {
            let current = env.current.get(&s.key);
            let value = match s.value_type {
                ValueType::Boolean => match truth {
                    None | Some(Truth::On) => json!(true),
                    Some(Truth::Off) => json!(false),
                    // The other value when the current one is known.
                    Some(Truth::Toggle) => json!(!current.and_then(Value::as_bool).unwrap_or(false)),
                },
                ValueType::Number => match numbers.as_slice() {
                    [n] => json!(n),
                    _ => return None,
                },
                ValueType::String => {
                    let values = s.values.as_ref()?;
                    let named = values.iter().find(|v| clause.words.iter().any(|w| w.text == v.to_lowercase()))?;
                    json!(named)
                }
            };
            Some(Planned::Setting { key: s.key.clone(), value })
        }
        Entry::Item(i) => {
            let offered = matches!(
                ItemId::parse(&i.id).map(|id| id.kind),
                Some(ItemKind::Command | ItemKind::User | ItemKind::Static | ItemKind::Keymap)
            );
            (offered && i.args != Args::Required && i.id != "cmd:!")
                .then(|| Planned::Item { id: i.id.clone(), args: String::new() })
        }
    }
}

// ---- plans by an entry's name ("set tabstop to 4", "nowrap", "signcolumn yes")

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

/// Which of `content` (positions in `words`) spell one of `names`, alone or run together
/// in order (at most three). The longest spelling wins.
fn named_by(words: &[Word], content: &[usize], names: &[String]) -> Vec<usize> {
    let n = content.len();
    let mut best: Vec<usize> = Vec::new();
    let mut consider = |idx: Vec<usize>| {
        if idx.len() <= best.len() {
            return;
        }
        let mut spellings = vec![String::new()];
        for &i in &idx {
            let f = &words[i].forms;
            spellings = spellings.iter().flat_map(|s| f.iter().map(move |w| format!("{s}{w}"))).collect();
        }
        if spellings.iter().any(|s| names.contains(s)) {
            best = idx;
        }
    };
    for a in 0..n {
        consider(vec![content[a]]);
        for b in a + 1..n {
            consider(vec![content[a], content[b]]);
            for c in b + 1..n {
                consider(vec![content[a], content[b], content[c]]);
            }
        }
    }
    best
}

/// Whether `word` is an everyday word: one the title of another entry uses ("window",
/// "diff"), unlike a name only Vim has ("foldmethod").
fn everyday(catalog: &Catalog, word: &str) -> bool {
    catalog.entries().iter().any(|e| {
        base_name(e) != word && e.title().split(|c: char| !c.is_alphanumeric()).any(|w| w.eq_ignore_ascii_case(word))
    })
}

/// The plan when the part names a top-ranked entry and says nothing else: every other
/// word is its title's, one of its values, an on/off word for a setting, its number, or
/// (for a text setting with no list, or an item that needs an argument) the one word
/// after its name.
fn by_name(clause: &Clause, env: &Env, index: &Index, ranked: &[Ranked]) -> Option<Match> {
    let catalog = env.catalog;
    let mut words = clause.words.clone();
    let mut truth = request::truth_of(words.iter()).ok()?;
    let numbers: Vec<usize> = (0..words.len()).filter(|&i| words[i].number.is_some()).collect();
    let mut content: Vec<usize> =
        (0..words.len()).filter(|&i| !words[i].soft && words[i].truth.is_none() && words[i].number.is_none()).collect();
    if content.is_empty() || words.iter().any(|w| w.relative) {
        return None;
    }
    // `nowrap`, `nonumber`: Vim's way of saying off.
    let reranked;
    let mut ranked = ranked;
    if let [only] = content.as_slice() {
        let text = words[*only].text.clone();
        if let Some(rest) = text.strip_prefix("no") {
            // Not a command's name (`:nohlsearch`, `:noh`).
            let command = matches!(catalog.find(&text), Some(Entry::Item(_)));
            if !rest.is_empty() && !command && catalog.setting(rest).is_some() && catalog.setting(&text).is_none() {
                if truth == Some(Truth::On) {
                    return None;
                }
                truth = Some(Truth::Off);
                words[*only] = word(rest);
                reranked = crate::rank::rank(index, catalog, rest, TOP, Mode::Any);
                ranked = &reranked[..];
            }
        }
    }
    let content_words = content.clone();
    // The top entries the part names, with the words naming each.
    // A name that is an everyday word ("diff", "list", "window") is only Vim's name when
    // the request speaks Vim: an explicit on/off word, a number, one of the setting's
    // values, "set", or the name alone. "show me the diff" is not the option 'diff'; the
    // vocabulary says the everyday requests.
    // A verb alone ("paste") asks to do it, not for the option of that name.
    let explicit = !numbers.is_empty()
        || words.iter().any(|w| w.truth.is_some() && !is_weak(&w.text))
        || words.iter().any(|w| ["set", "setting", "option", "settings", "options"].contains(&w.text.as_str()));
    let vim_words = words.len() == 1 || explicit;
    let speaks_vim = |entry: &Entry, idx: &[usize]| {
        let Entry::Setting(s) = entry else { return true };
        let one_word = idx.len() == 1 && names(entry).iter().any(|n| words[idx[0]].forms.contains(n));
        if one_word && !explicit && EDIT_VERBS.contains(&words[idx[0]].text.as_str()) {
            return false;
        }
        let value = s.values.iter().flatten().any(|v| words.iter().any(|w| w.text == v.to_lowercase()));
        !one_word || vim_words || value || !everyday(catalog, &s.key)
    };
    let mut named: Vec<(&Entry, Vec<usize>)> = ranked
        .iter()
        .take(TOP)
        .map(|r| (r.entry, named_by(&words, &content_words, &names(r.entry))))
        .filter(|(_, idx)| !idx.is_empty())
        // An on/off word or a number is a setting's value: items do not take them.
        .filter(|(e, _)| matches!(e, Entry::Setting(_)) || (truth.is_none() && numbers.is_empty()))
        .filter(|(e, idx)| speaks_vim(e, idx))
        .collect();
    named.sort_by_key(|(_, idx)| std::cmp::Reverse(idx.len()));
    let best = named.first()?.1.len();
    let tied: Vec<&(&Entry, Vec<usize>)> = named.iter().filter(|(_, idx)| idx.len() == best).collect();
    // Several top entries named by as many words are ambiguous, except that one setting
    // beats items of the same name (`line numbers` is the option `number`, not `:number`)
    // and the lower-case one of commands that differ only in case (`:bnext`, `:bNext`).
    let same_name = |one: &Entry| tied.iter().all(|(e, _)| base_name(e).eq_ignore_ascii_case(base_name(one)));
    let lower: Vec<&&(&Entry, Vec<usize>)> =
        tied.iter().filter(|(e, _)| !base_name(e).contains(char::is_uppercase)).collect();
    let (entry, by_name) = match (tied.as_slice(), lower.as_slice()) {
        ([only], _) => (*only).clone(),
        (_, [one]) if same_name(one.0) => (**one).clone(),
        _ => {
            let settings: Vec<_> = tied.iter().filter(|(e, _)| matches!(e, Entry::Setting(_))).collect();
            // "set" says which: the setting ("set filetype to python", not `:python`).
            let says_set = words.iter().any(|w| ["set", "setting", "option"].contains(&w.text.as_str()));
            // A setting needs a value: with none said, a text setting's namesake command is
            // meant ("tabclose" is `:tabclose`, not 'tabclose').
            let valued = |e: &Entry| match e {
                Entry::Setting(s) => s.value_type == ValueType::Boolean || truth.is_some() || !numbers.is_empty(),
                Entry::Item(_) => false,
            };
            let items: Vec<_> = lower.iter().filter(|(e, _)| matches!(e, Entry::Item(_))).collect();
            match (settings.as_slice(), items.as_slice()) {
                ([one], _) if says_set || (same_name(one.0) && valued(one.0)) => (**one).clone(),
                ([one], [item]) if same_name(one.0) => (***item).clone(),
                _ => return None,
            }
        }
    };
    let mut score = by_name.len();
    content.retain(|i| !by_name.contains(i));
    if matches!(entry, Entry::Item(_))
        && words.iter().any(|w| w.soft && !["current", "currently"].contains(&w.text.as_str()))
    {
        return None;
    }

    // Values a string setting allows are not content words.
    let allowed: Vec<String> = match entry {
        Entry::Setting(s) => s.values.clone().unwrap_or_default().iter().map(|v| v.to_lowercase()).collect(),
        Entry::Item(_) => Vec::new(),
    };
    let title = title_forms(entry);
    let value_word = content.iter().copied().find(|&i| allowed.contains(&words[i].text));
    let unexplained: Vec<usize> = content
        .iter()
        .copied()
        .filter(|&i| Some(i) != value_word && !words[i].forms.iter().any(|f| title.contains(f)))
        .collect();
    // A name given after the entry's name (`theme gruvbox`, `colorscheme desert`, `set
    // spelllang de`): the one word left, last, for a text setting without a list of
    // values or an item that needs an argument; spelled as the request spells it.
    // Not after an everyday word unless the request says "set": "open a shell" is no
    // request to `:Open shell`, "set filetype to python" is one to set 'filetype'.
    let says_set = words.iter().any(|w| ["set", "setting", "option"].contains(&w.text.as_str()));
    let named_in_vim = by_name.len() > 1 || says_set || !everyday(catalog, &words[by_name[0]].text);
    let takes_name = named_in_vim
        && match entry {
            Entry::Setting(s) => s.value_type == ValueType::String && allowed.is_empty(),
            // Never the argument of an item that writes or runs something: a guessed
            // word there ("rename this symbol") would cost a file, not a setting.
            Entry::Item(i) => i.args == Args::Required && i.reach <= crate::reach::Reach::Edit,
        };
    let last = words.len() - 1;
    let free = match unexplained.as_slice() {
        [] => None,
        // Right after the name: "highlight the current line" gives 'highlight' no value.
        [i] if takes_name
            && *i == last
            && by_name.iter().max() == Some(&(i - 1))
            && truth.is_none()
            && numbers.is_empty() =>
        {
            score += 1;
            Some(phrases::spelling(env.request, &words[*i].text))
        }
        _ => return None,
    };
    if value_word.is_some() {
        score += 1;
    }
    let step = match entry {
        Entry::Setting(s) => {
            let value = match s.value_type {
                ValueType::Boolean => {
                    // "change wrap" says to change it, not to what.
                    let change =
                        words.iter().any(|w| ["change", "modify", "adjust", "alter"].contains(&w.text.as_str()));
                    if !numbers.is_empty() || (change && truth.is_none()) {
                        return None;
                    }
                    match truth {
                        None | Some(Truth::On) => json!(true),
                        Some(Truth::Off) => json!(false),
                        Some(Truth::Toggle) => json!(!env.current.get(&s.key).and_then(Value::as_bool)?),
                    }
                }
                ValueType::Number => {
                    if truth.is_some() || numbers.len() != 1 {
                        return None;
                    }
                    json!(words[numbers[0]].number)
                }
                ValueType::String if free.is_some() => json!(free),
                ValueType::String => {
                    if matches!(truth, Some(Truth::Off | Truth::Toggle)) {
                        return None;
                    }
                    match (value_word, numbers.as_slice()) {
                        (Some(i), []) => {
                            let v = s.values.as_ref()?.iter().find(|v| v.to_lowercase() == words[i].text)?;
                            json!(v)
                        }
                        // A column or a count for a setting whose values are numbers.
                        (None, [n]) if allowed.iter().any(|v| v.contains("{number}")) || allowed.is_empty() => {
                            json!(words[*n].number?.to_string())
                        }
                        _ => return None,
                    }
                }
            };
            Planned::Setting { key: s.key.clone(), value }
        }
        Entry::Item(i) => {
            if (i.args == Args::Required && free.is_none()) || truth.is_some() || !numbers.is_empty() {
                return None;
            }
            Planned::Item { id: i.id.clone(), args: free.unwrap_or_default() }
        }
    };
    Some(Match { steps: vec![step], score, unexplained: Vec::new(), missing_theme: None, by_name: true })
}

// ---- the answers

/// The line saying a request needs a model, for the catalog's editor.
pub fn needs_model_line(catalog: &Catalog) -> &'static str {
    if catalog.editor() == "neovim" {
        NEEDS_MODEL
    } else {
        NEEDS_MODEL_PROGRAM
    }
}

fn needs_model(catalog: &Catalog) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("reply".into(), json!(needs_model_line(catalog)));
    m.insert("steps".into(), json!([]));
    m
}

fn missing_theme(name: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(
        "reply".into(),
        json!(format!("No color scheme named “{name}” is installed (:colorscheme and Tab lists them).")),
    );
    m.insert("steps".into(), json!([]));
    m
}

/// The plan object for `steps`, with a reply that says them in words.
fn plan_object(steps: &[Planned], env: &Env) -> Map<String, Value> {
    let mut json_steps = Vec::new();
    let mut said = Vec::new();
    for step in steps {
        match step {
            Planned::Setting { key, value } => {
                json_steps.push(json!({"type": "setting", "key": key, "value": value, "why": "what the request asks"}));
                said.push(format!("set {key} {}", shown(Some(value))));
            }
            Planned::Item { id, args } => {
                json_steps.push(json!({"type": "item", "id": id, "args": args, "why": "what the request asks"}));
                said.push(env.catalog.item(id).map(|i| item_words(i, args)).unwrap_or_else(|| id.clone()));
            }
        }
    }
    let mut reply = said.join(", ");
    if let Some(first) = reply.get(0..1) {
        let upper = first.to_uppercase();
        reply.replace_range(0..1, &upper);
    }
    reply.push('.');
    let mut m = Map::new();
    m.insert("reply".into(), Value::String(reply));
    m.insert("steps".into(), Value::Array(json_steps));
    m
}

/// A value as the user reads it: on/off, a number, text in quotes.
fn shown(value: Option<&Value>) -> String {
    match value {
        Some(Value::Bool(true)) => "on".into(),
        Some(Value::Bool(false)) => "off".into(),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) => format!("{s:?}"),
        Some(v) => v.to_string(),
        None => "?".into(),
    }
}

/// An item step in words: "split current window vertically (:vsplit)".
fn item_words(item: &crate::entry::Item, args: &str) -> String {
    let title = item.title.trim_end_matches('.').to_string();
    let name = item.id.split_once(':').map_or(item.id.as_str(), |(_, n)| n);
    let shown = match ItemId::parse(&item.id) {
        Some(ItemId { kind: ItemKind::Command | ItemKind::User, .. }) => format!(":{name}"),
        _ => name.to_string(),
    };
    if args.is_empty() {
        format!("{title} ({shown})")
    } else {
        format!("{title} ({shown} {args})")
    }
}

/// A candidate's label: each step with what it changes (`wrap: off → on (long lines
/// wrap…)`, `:tabnew (edit a file in a new tab page)`).
fn label(steps: &[Planned], env: &Env) -> String {
    steps
        .iter()
        .map(|s| match s {
            Planned::Setting { key, value } => {
                let title = env.catalog.setting(key).map(|s| s.title.trim_end_matches('.').to_string());
                let change = match env.current.get(key) {
                    Some(cur) => format!("{key}: {} → {}", shown(Some(cur)), shown(Some(value))),
                    None => format!("{key} → {}", shown(Some(value))),
                };
                match title {
                    Some(t) if !t.is_empty() => format!("{change} ({t})"),
                    _ => change,
                }
            }
            Planned::Item { id, args } => {
                let name = id.split_once(':').map_or(id.as_str(), |(_, n)| n);
                let cmd = if args.is_empty() { format!(":{name}") } else { format!(":{name} {args}") };
                match env.catalog.item(id) {
                    Some(i) => format!("{cmd} ({})", i.title.trim_end_matches('.')),
                    None => cmd,
                }
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::BTreeMap;
    use std::sync::OnceLock;

    /// The real catalog of a clean Neovim 0.12 (`:Leash catalog`), narrowed as the
    /// editor's is, and its index.
    fn real() -> &'static (Catalog, Index) {
        static REAL: OnceLock<(Catalog, Index)> = OnceLock::new();
        REAL.get_or_init(|| {
            let text = include_str!("../../../../tests/data/neovim-0.12-catalog.json");
            let c = crate::policy::narrow_catalog(Catalog::from_json(text).expect("catalog"));
            let index = Index::new(&c);
            (c, index)
        })
    }

    const INSTALLED: &[&str] = &["blue", "default", "desert", "habamax", "retrobox", "tokyonight", "gruvbox-material"];

    fn plan_with(request: &str, current: &[(&str, Value)], themes: &[&str]) -> (Value, Vec<(String, Value)>) {
        let (c, index) = real();
        let context = Context {
            current: current.iter().map(|(k, v)| (k.to_string(), v.clone())).collect::<BTreeMap<_, _>>(),
            colorschemes: themes.iter().map(|s| s.to_string()).collect(),
            ..Context::default()
        };
        let shortlist = crate::rank::rank(index, c, request, 60, Mode::Any);
        let out = plan(request, c, index, &shortlist, &context);
        let Output::Object(m) = out.answer.output else { panic!("text") };
        (Value::Object(m), out.choices.into_iter().map(|c| (c.label, Value::Object(c.plan))).collect())
    }

    fn run(request: &str) -> Value {
        plan_with(request, &[], INSTALLED).0
    }

    /// The steps as `key=value` or `id args`, in order.
    fn steps(v: &Value) -> Vec<String> {
        v["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| match s["type"].as_str() {
                Some("setting") => format!("{}={}", s["key"].as_str().unwrap(), s["value"]),
                _ => format!("{} {}", s["id"].as_str().unwrap(), s["args"].as_str().unwrap()).trim_end().to_string(),
            })
            .collect()
    }

    fn planned(request: &str) -> Vec<String> {
        steps(&run(request))
    }

    #[test]
    fn settings_by_name_with_their_values() {
        for (request, want) in [
            ("wrap on", "wrap=true"),
            ("turn off wrap", "wrap=false"),
            ("nowrap", "wrap=false"),
            ("set tabstop to 4", "tabstop=4"),
            ("ts=8", "tabstop=8"),
            ("set background to dark", "background=\"dark\""),
            ("signcolumn yes", "signcolumn=\"yes\""),
            ("cursor line on", "cursorline=true"),
            ("set textwidth to 80", "textwidth=80"),
            ("colorcolumn 120", "colorcolumn=\"120\""),
            ("set spelllang to de", "spelllang=\"de\""),
            ("set filetype to python", "filetype=\"python\""),
        ] {
            assert_eq!(planned(request), [want], "{request}");
        }
    }

    #[test]
    fn vim_s_own_words_plan_by_name() {
        assert_eq!(planned("diff on"), ["diff=true"]);
        assert_eq!(planned("set list"), ["list=true"]);
        assert_eq!(planned("nolist"), ["list=false"]);
        assert_eq!(planned("nohlsearch"), ["cmd:nohlsearch"], "a command, not 'hlsearch' off");
        assert_eq!(planned("noh"), ["cmd:nohlsearch"]);
        assert_eq!(planned("make new vertical splits open to the right"), ["splitright=true"]);
    }

    #[test]
    fn numbers_take_their_unit_and_target() {
        assert_eq!(planned("indent with 2 spaces"), ["shiftwidth=2", "tabstop=2"]);
        assert_eq!(planned("indent with two spaces"), ["shiftwidth=2", "tabstop=2"]);
        assert_eq!(planned("highlight column 80"), ["colorcolumn=\"80\""]);
        assert_eq!(planned("wrap text at 72 characters"), ["textwidth=72"]);
        assert_eq!(planned("keep 8 lines around the cursor"), ["scrolloff=8"]);
        assert_eq!(planned("tab size 2"), ["tabstop=2"]);
        // A number nothing takes stops the plan; so does one too many.
        assert!(planned("show line numbers 3").is_empty());
        assert!(planned("indent with 2 spaces 4").is_empty());
        // Relative to the current value, when the context has it.
        let (v, _) = plan_with("increase the text width by 8", &[("textwidth", json!(72))], &[]);
        assert_eq!(steps(&v), ["textwidth=80"]);
        let (v, _) = plan_with("increase the text width by 8", &[], &[]);
        assert!(steps(&v).is_empty(), "no current value: not planned");
    }

    #[test]
    fn on_off_and_toggle_words() {
        assert_eq!(planned("hide line numbers"), ["number=false"]);
        assert_eq!(planned("don't wrap lines"), ["wrap=false"]);
        assert_eq!(planned("stop wrapping long lines"), ["wrap=false"]);
        assert_eq!(planned("get rid of the line numbers"), ["number=false"]);
        assert_eq!(planned("enable mouse support"), ["mouse=\"a\""]);
        assert_eq!(planned("disable the mouse"), ["mouse=\"\""]);
        let (v, _) = plan_with("toggle relative line numbers", &[("relativenumber", json!(true))], &[]);
        assert_eq!(steps(&v), ["relativenumber=false"]);
        let (v, _) = plan_with("toggle the status line", &[("laststatus", json!(2))], &[]);
        assert_eq!(steps(&v), ["laststatus=0"]);
        // Without the current value, a toggle is a choice, not a guess.
        let (v, choices) = plan_with("toggle wrap", &[], &[]);
        assert!(steps(&v).is_empty());
        assert!(!choices.is_empty());
        // Both on and off: not planned.
        assert!(planned("wrap on off").is_empty());
    }

    #[test]
    fn named_values_come_from_the_request() {
        assert_eq!(planned("dark theme"), ["background=\"dark\""]);
        assert_eq!(planned("turn off dark mode"), ["background=\"light\""]);
        assert_eq!(planned("fold by indentation"), ["foldmethod=\"indent\""]);
        assert_eq!(planned("global status line"), ["laststatus=3"]);
        assert_eq!(planned("use the system clipboard"), ["clipboard=\"unnamedplus\""]);
        assert_eq!(planned("open new splits below"), ["splitbelow=true"]);
        assert_eq!(planned("use windows line endings"), ["fileformat=\"dos\""]);
        assert_eq!(planned("always show the sign column"), ["signcolumn=\"yes\""]);
        assert_eq!(planned("show the sign column only in markdown auto"), Vec::<String>::new());
        assert_eq!(planned("sign column auto"), ["signcolumn=\"auto\""]);
    }

    #[test]
    fn languages_become_spell_codes() {
        assert_eq!(planned("spell check in German"), ["spell=true", "spelllang=\"de\""]);
        assert_eq!(planned("spell check in English and French"), ["spell=true", "spelllang=\"en,fr\""]);
        assert_eq!(planned("set the spell language to British English"), ["spelllang=\"en_gb\""]);
        assert_eq!(planned("Rechtschreibprüfung auf Deutsch"), ["spell=true", "spelllang=\"de\""]);
        assert_eq!(planned("turn on spell checking"), ["spell=true"]);
    }

    #[test]
    fn the_color_schemes_are_wanted_only_for_a_request_that_may_name_one() {
        for request in [
            "use the gruvbox colorscheme",
            "colo habamax",
            "switch theme to desert",
            "wechsle das Farbschema zu blue",
            "cambia el tema a desert",
        ] {
            assert!(wants_colorschemes(request), "{request}");
        }
        for request in ["make the font bigger and turn on word wrap", "dark background", "sort lines", "gruvbox"] {
            assert!(!wants_colorschemes(request), "{request}");
        }
        // (Every request of the offline sets is planned with the color schemes only when
        // it wants them: crates/leash/tests/offline_requests.rs.)
    }

    #[test]
    fn colorschemes_are_the_installed_ones() {
        assert_eq!(planned("colorscheme desert"), ["cmd:colorscheme desert"]);
        assert_eq!(planned("use the desert theme"), ["cmd:colorscheme desert"]);
        assert_eq!(planned("switch to tokyo night colors"), ["cmd:colorscheme tokyonight"]);
        assert_eq!(planned("gruvbox material color scheme"), ["cmd:colorscheme gruvbox-material"]);
        // A name that is not installed is said, not run.
        let v = run("colorscheme dracula");
        assert!(steps(&v).is_empty());
        assert!(v["reply"].as_str().unwrap().contains("“dracula”"), "{v}");
        // Without the list, the word after the name, as the request spells it.
        let (v, _) = plan_with("colorscheme Tokyo", &[], &[]);
        assert_eq!(steps(&v), ["cmd:colorscheme Tokyo"]);
        let (v, _) = plan_with("colorscheme desert blue", &[], &[]);
        assert!(steps(&v).is_empty(), "one name only");
        // Dark is the background, never a scheme's name.
        assert_eq!(planned("dark color scheme"), ["background=\"dark\""]);
    }

    #[test]
    fn commands_with_fixed_arguments() {
        for (request, want) in [
            ("open a new tab", "cmd:tabnew"),
            ("close this tab", "cmd:tabclose"),
            ("close all other windows", "cmd:only"),
            ("save all files", "cmd:wall"),
            ("open a terminal", "cmd:terminal"),
            ("open the quickfix list", "cmd:copen"),
            ("next error in the quickfix list", "cmd:cnext"),
            ("clear the search highlights", "cmd:nohlsearch"),
            ("make all windows the same size", "cmd:wincmd ="),
            ("sort and remove duplicates", "cmd:sort u"),
            ("turn off syntax highlighting", "cmd:syntax off"),
            ("split the window vertically", "cmd:vsplit"),
            ("go to the next buffer", "cmd:bnext"),
            ("bnext", "cmd:bnext"),
            ("tabnext", "cmd:tabnext"),
            ("vsplit", "cmd:vsplit"),
        ] {
            assert_eq!(planned(request), [want], "{request}");
        }
        // The reply says it in words, with the command.
        assert_eq!(run("split the window vertically")["reply"], json!("Split current window vertically (:vsplit)."));
        // `:goto` is a byte offset in Neovim: "go to line 42" is not it.
        assert!(planned("go to line 42").is_empty());
    }

    #[test]
    fn two_things_in_one_request() {
        assert_eq!(planned("turn on wrap and line numbers"), ["wrap=true", "number=true"]);
        assert_eq!(planned("turn off wrap and line numbers"), ["wrap=false", "number=false"]);
        assert_eq!(planned("use spaces instead of tabs, 4 wide"), ["expandtab=true", "shiftwidth=4", "tabstop=4"]);
        assert_eq!(planned("split the window vertically and sort"), ["cmd:vsplit", "cmd:sort"]);
        // One meaning of the whole wins a tie with its parts.
        assert_eq!(planned("save and quit"), ["cmd:wq"]);
        assert_eq!(planned("keep 5 lines above and below the cursor"), ["scrolloff=5"]);
        // A part that is not clear makes the whole a model's job.
        assert_eq!(run("turn on wrap and make the font bigger")["reply"], json!(NEEDS_MODEL));
    }

    #[test]
    fn unsure_requests_get_candidates_with_their_effect() {
        let (v, choices) = plan_with("toggle wrap", &[], &[]);
        assert_eq!(v["reply"], json!(NOT_SURE));
        assert!(choices.len() <= CHOICES);
        assert_eq!(choices[0].0, "wrap → on (long lines wrap and continue on the next line)");
        let (_, choices) = plan_with("wrap lines please nicely visually for reading", &[("wrap", json!(false))], &[]);
        assert!(choices.iter().any(|(label, _)| label.starts_with("wrap: off → on")), "{choices:?}");
        // Each candidate is a plan of its own.
        for (_, plan) in &choices {
            assert_eq!(plan["steps"].as_array().map(Vec::len), Some(1), "{plan}");
        }
    }

    #[test]
    fn what_needs_a_model_says_so_in_one_line() {
        for r in [
            "make the font bigger",
            "rename this variable to count",
            "delete all lines containing TODO",
            "replace \"foo\" with bar",
            "remove trailing whitespace",
            "is wrap on?",
            "how do I turn on wrap",
            "maximize this window",
            "",
        ] {
            let (v, choices) = plan_with(r, &[], INSTALLED);
            assert_eq!(v["steps"], json!([]), "{r}: {v}");
            assert!(choices.is_empty(), "{r}: {choices:?}");
            assert_eq!(v["reply"], json!(NEEDS_MODEL), "{r}");
        }
        assert!(!NEEDS_MODEL.contains('\n') && NEEDS_MODEL.len() < 80);
    }

    #[test]
    fn typos_are_read_as_the_word_one_keystroke_away() {
        assert_eq!(planned("line nubmers off"), ["number=false"]);
        assert_eq!(planned("tunr off wrap"), ["wrap=false"]);
        assert_eq!(planned("colorsheme desert"), ["cmd:colorscheme desert"]);
        assert_eq!(planned("splt the window vertically"), ["cmd:vsplit"]);
        // Not a word that needs no explaining ("world" is no "would"), nor a word that is
        // another word ("blink" is no "blank").
        assert!(planned("save the world").is_empty());
        assert!(planned("make the cursor blink").is_empty());
    }

    #[test]
    fn word_forms_and_everyday_wording() {
        assert_eq!(planned("stop showing whitespace"), ["list=false"]);
        assert_eq!(planned("no more beeping"), ["belloff=\"all\""]);
        assert_eq!(planned("don't show line numbers anymore"), ["number=false"]);
        assert_eq!(planned("turn line numbering back on"), ["number=true"]);
        assert_eq!(planned("enable relative line nums"), ["relativenumber=true"]);
        assert_eq!(planned("use the system clipboard for everything"), ["clipboard=\"unnamedplus\""]);
        assert_eq!(planned("spell check in Canadian English"), ["spell=true", "spelllang=\"en_ca\""]);
    }

    #[test]
    fn a_number_after_to_or_at_is_the_value() {
        assert_eq!(planned("set tabs to 3"), ["tabstop=3"]);
        assert_eq!(planned("wrap at 80"), ["textwidth=80"]);
        // A number that counts or names something is not.
        assert!(planned("go to tab 3").is_empty());
        assert!(planned("wrap 3 lines").is_empty());
    }

    #[test]
    fn parts_of_a_request_share_or_keep_their_words() {
        // An off word that one part cannot take is the other part's.
        assert_eq!(planned("tabs 4 wide, no expandtab"), ["tabstop=4", "expandtab=false"]);
        assert_eq!(planned("use tabs, width 4"), ["expandtab=false", "shiftwidth=4", "tabstop=4"]);
        // "the language" after spelling is spelling's.
        assert_eq!(planned("enable spell check and set the language to french"), ["spell=true", "spelllang=\"fr\""]);
        // Parts that set one setting twice are read as one request.
        assert_eq!(planned("spellcheck language: german and english"), ["spelllang=\"de,en\""]);
    }

    #[test]
    fn lists_diagnostics_and_what_the_editor_shows() {
        for (request, want) in [
            ("jump to the next diagnostic", "map:n:]d"),
            ("previous diagnostic", "map:n:[d"),
            ("show the diagnostics for this line", "map:n:<C-W>d"),
            ("close the location list", "cmd:lclose"),
            ("next item in the location list", "cmd:lnext"),
            ("first error", "cmd:cfirst"),
            ("show the command history", "cmd:history"),
            ("show the neovim version", "cmd:version"),
            ("list all tab pages", "cmd:tabs"),
            ("alphabetize the lines", "cmd:sort"),
            ("new empty buffer in a vertical split", "cmd:vnew"),
        ] {
            assert_eq!(planned(request), [want], "{request}");
        }
    }

    #[test]
    fn vim_s_set_with_several_options() {
        assert_eq!(planned("set number relativenumber"), ["number=true", "relativenumber=true"]);
        assert_eq!(planned("set nonumber norelativenumber"), ["number=false", "relativenumber=false"]);
        assert_eq!(planned("set paste wrap"), ["paste=true", "wrap=true"]);
        // Not every word an option: the request as a whole.
        assert_eq!(planned("set background dark"), ["background=\"dark\""]);
        assert!(planned("set number foo").is_empty());
    }

    #[test]
    fn bigger_and_smaller_in_other_languages_are_a_model_s_job() {
        // "aumentar" was unknown, so "size" alone offered `:retab` ("change tab size").
        for r in ["aumentar el tamaño de la fuente", "augmenter la taille de la police", "Schriftgröße erhöhen"] {
            let (v, choices) = plan_with(r, &[], INSTALLED);
            assert!(steps(&v).is_empty() && choices.is_empty(), "{r}: {v} {choices:?}");
        }
    }

    #[test]
    fn settings_said_by_what_they_do() {
        assert_eq!(planned("show the sign column only when needed"), ["signcolumn=\"auto\""]);
        assert_eq!(planned("new vertical windows on the left"), ["splitright=false"]);
        assert_eq!(planned("open splits at the top"), ["splitbelow=false"]);
        assert_eq!(planned("show the file name in the window title"), ["title=true"]);
        assert_eq!(planned("confirm before quitting with unsaved changes"), ["confirm=true"]);
        // Splitting a window is not where new ones go.
        assert!(planned("split the window on the left").is_empty());
    }

    #[test]
    fn everyday_words_that_are_also_names_ask_for_something_else() {
        // A verb alone is the action ("paste"), not the option of its name.
        assert!(planned("paste").is_empty());
        assert_eq!(planned("set paste"), ["paste=true"]);
        // "open a file" is no list of the open files; "jump back" is no jump list.
        assert!(planned("open a file").is_empty());
        assert_eq!(planned("show open files"), ["cmd:ls"]);
        assert!(planned("jump back").is_empty());
        // Showing the undo history is not keeping it.
        assert!(planned("show undo history").is_empty());
        // Moving a window is not going to it.
        assert!(planned("move the window to the right").is_empty());
        assert_eq!(planned("move to the window on the right"), ["cmd:wincmd l"]);
        // Vim's `!` flips an option.
        let (v, _) = plan_with("set wrap!", &[("wrap", json!(true))], &[]);
        assert_eq!(steps(&v), ["wrap=false"]);
    }

    #[test]
    fn a_guessed_word_is_never_the_argument_of_an_item_that_writes() {
        let c = Catalog::from_json(
            r#"{"version": 1, "editor": "helix", "entries": [
                {"id": "file:rename", "kind": "file", "title": "rename or move the current file",
                 "args": "required", "reach": "write"},
                {"id": "cmd:compiler", "kind": "command", "title": "pick a compiler plugin",
                 "args": "required", "reach": "safe"}]}"#,
        )
        .unwrap();
        let index = Index::new(&c);
        let steps_of = |request: &str| {
            let shortlist = crate::rank::rank(&index, &c, request, 60, Mode::Any);
            let Output::Object(m) = plan(request, &c, &index, &shortlist, &Context::default()).answer.output else {
                panic!("text")
            };
            steps(&Value::Object(m))
        };
        // `file:rename` needs a path: "symbol" is no name to move the file to.
        assert!(steps_of("rename this symbol").is_empty());
        // A safe item still takes the word after its name.
        assert_eq!(steps_of("compiler gcc"), ["cmd:compiler gcc"]);
    }

    #[test]
    fn never_a_plan_the_request_did_not_ask_for() {
        for r in [
            "remove the current line",
            "copy this line to the clipboard",
            "paste from the system clipboard",
            "show the number of lines",
            "highlight the current line in red",
            "fold all",
            "close the terminal",
            "split this line",
            "open file notes.md",
            "turn on wrap only in markdown files",
            "show line numbers in insert mode",
            "status",
            "the default theme is fine",
            // An everyday word that is also a name is Vim's name only in Vim's words.
            "show me the diff",
            "switch buffer",
            "what is wrap",
            "what does :set list do",
        ] {
            assert_eq!(planned(r), Vec::<String>::new(), "{r}");
        }
    }
}
