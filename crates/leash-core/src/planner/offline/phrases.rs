//! The everyday vocabulary: phrases people type ("line numbers", "the edge of the
//! screen", "spaces instead of tabs", "close other windows"), each with what it means in
//! each editor (the first meaning whose settings and commands the catalog has wins).
//!
//! A clause says a phrase when each of the phrase's word groups has one of its
//! alternatives in the clause (an alternative is one or more words in a row; `#` is a
//! number there, `=word` a word compared exactly rather than by its stems), and every
//! other word of the clause is a word the phrase allows, a word its steps take (an on/off
//! word for a setting, the number, a language, a color scheme's name) or a soft word
//! ("use", "always"). A clause of another language is read in English first, so the
//! table serves every language. What the table does not say is left to the ranker's
//! names, the picker or a model.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::{json, Value};

use super::request::{is_filler, spell_language, truth_of, Clause, Truth, Word};
use crate::catalog::Catalog;
use crate::entry::{Args, ValueType};
use crate::item_id::ItemId;

/// A value in the table.
#[derive(Debug, Clone, Copy)]
pub(super) enum V {
    /// No such value: the phrase cannot say it.
    No,
    B(bool),
    S(&'static str),
    N(i64),
}

impl V {
    fn json(self) -> Option<Value> {
        match self {
            V::No => None,
            V::B(b) => Some(json!(b)),
            V::S(s) => Some(json!(s)),
            V::N(n) => Some(json!(n)),
        }
    }
}

/// One step a phrase plans.
#[derive(Debug, Clone)]
pub(super) enum Step {
    /// A boolean setting: on unless the clause says off; `toggle` flips the current value.
    Flag(&'static str),
    /// A setting with a value for on and one for off; `toggle` picks the other one.
    Values(&'static str, V, V),
    /// A setting to exactly this value; an off word stops the phrase.
    Fixed(&'static str, V),
    /// A number setting to the clause's number (a string setting gets it as text).
    Number(&'static str),
    /// The same, with this number when the clause gives none.
    NumberOr(&'static str, i64),
    /// A setting to the value one of the clause's words names (word → value).
    Choose(&'static str, Vec<(&'static str, &'static str)>),
    /// `spelllang` to the languages the clause names; nothing when it names none.
    Languages,
    /// The color scheme the clause names: an item (`cmd:colorscheme NAME`) or, for a key,
    /// a setting (`theme = NAME`).
    Theme(&'static str),
    /// An item (a command's name, or an id with its prefix) with these arguments.
    Run(&'static str, &'static str),
    /// A command whose argument is the clause's number.
    RunNumber(&'static str),
    /// A command whose argument one of the clause's words names (word → argument).
    RunChoose(&'static str, Vec<(&'static str, &'static str)>),
    /// A command with one argument for on and one for off (`:syntax on`).
    RunTruth(&'static str, &'static str, &'static str),
    /// A list of columns (`colorcolumn`, Helix's `rulers`): the number, or none for off.
    Column(&'static str),
    /// A number setting to the clause's number, or to this value for off.
    NumberOff(&'static str, i64),
}

use Step::{
    Choose, Column, Fixed, Flag, Languages, Number, NumberOff, NumberOr, Run, RunChoose, RunNumber, RunTruth, Theme,
    Values,
};

/// A phrase: its word groups, the words it allows, and its meanings per editor.
#[derive(Debug)]
pub(super) struct Phrase {
    need: Vec<Vec<&'static str>>,
    may: Vec<&'static str>,
    does: Vec<Vec<Step>>,
    /// Words that mean something else when they come with the phrase ("clear the search
    /// highlighting" is `:nohlsearch`, not the option off).
    not: Vec<&'static str>,
}

/// A step as planned: the plan's JSON step, without its `why`.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Planned {
    Setting { key: String, value: Value },
    Item { id: String, args: String },
}

/// What a phrase made of a clause.
#[derive(Debug, Clone)]
pub(super) struct Match {
    pub steps: Vec<Planned>,
    /// How many of the clause's words the phrase's groups and values took: more is more
    /// specific.
    pub score: usize,
    /// The clause's words nothing explained (empty: the phrase says the whole clause).
    pub unexplained: Vec<usize>,
    /// A color scheme the clause names that is not installed.
    pub missing_theme: Option<String>,
    /// Whether an entry's name made it (not a phrase of the vocabulary).
    pub by_name: bool,
}

/// What planning may read besides the catalog.
pub(super) struct Env<'a> {
    pub catalog: &'a Catalog,
    /// Current values of settings, by key.
    pub current: &'a BTreeMap<String, Value>,
    /// Installed color schemes (empty: not known).
    pub colorschemes: &'a [String],
    /// The request as typed, for a name's spelling.
    pub request: &'a str,
}

/// The vocabulary (its header documents the format).
const SOURCE: &str = include_str!("phrases.txt");

/// The vocabulary, read once.
fn phrases() -> &'static [Phrase] {
    static ALL: OnceLock<Vec<Phrase>> = OnceLock::new();
    // A line that does not read is left out; a test reads every line.
    ALL.get_or_init(|| parse(SOURCE).unwrap_or_default())
}

/// Reads the vocabulary: every phrase, or the first line that does not read.
fn parse(text: &'static str) -> Result<Vec<Phrase>, String> {
    let mut lists: Vec<(&str, Vec<&'static str>)> = Vec::new();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate().map(|(n, l)| (n + 1, l.trim())) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(def) = line.strip_prefix('@') {
            let (name, words) = def.split_once(" = ").ok_or(format!("line {n}: a list is `@name = words`"))?;
            lists.push((name.trim(), words.split_whitespace().collect()));
            continue;
        }
        let fields: Vec<&'static str> = line.split(" | ").map(str::trim).collect();
        if fields.len() < 3 {
            return Err(format!("line {n}: a phrase is NEED | MAY | MEANING"));
        }
        let need: Vec<Vec<&'static str>> =
            fields[0].split(" + ").map(|g| g.split(',').map(str::trim).filter(|a| !a.is_empty()).collect()).collect();
        let mut may = Vec::new();
        for word in fields[1].split_whitespace().filter(|w| *w != "-") {
            match word.strip_prefix('@') {
                Some(name) => may.extend(
                    lists.iter().find(|(l, _)| *l == name).ok_or(format!("line {n}: no list @{name}"))?.1.iter(),
                ),
                None => may.push(word),
            }
        }
        let does = fields[2]
            .split(" || ")
            .map(|meaning| meaning.split(" ; ").map(|s| step(s.trim())).collect::<Result<Vec<_>, _>>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("line {n}: {e}"))?;
        let not = match fields.get(3) {
            Some(f) => f.strip_prefix("not:").ok_or(format!("line {n}: a fourth field is `not: words`"))?,
            None => "",
        };
        if need.iter().any(Vec::is_empty) || does.iter().any(Vec::is_empty) {
            return Err(format!("line {n}: an empty group or meaning"));
        }
        out.push(Phrase { need, may, does, not: not.split_whitespace().collect() });
    }
    Ok(out)
}

/// Every word the vocabulary reads: its phrases' words, the words their steps choose
/// by, and the words that are never a color scheme's name.
pub(super) fn vocabulary_words() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = NOT_NAMES.to_vec();
    for p in phrases() {
        for alt in p.need.iter().flatten() {
            out.extend(alt.split(' ').filter(|w| !w.starts_with('<')).map(|w| w.trim_start_matches('=')));
        }
        out.extend(p.may.iter().copied());
        out.extend(p.not.iter().copied());
        for step in p.does.iter().flatten() {
            if let Choose(_, table) | RunChoose(_, table) = step {
                out.extend(table.iter().map(|(word, _)| *word));
            }
        }
    }
    out
}

/// One step of a meaning (`flag wrap`, `run wincmd =`).
fn step(text: &'static str) -> Result<Step, String> {
    let words: Vec<&'static str> = text.split_whitespace().collect();
    let pairs = |from: usize| -> Result<Vec<(&'static str, &'static str)>, String> {
        words[from..].iter().map(|p| p.split_once('=').ok_or(format!("“{p}” is not WORD=VALUE in “{text}”"))).collect()
    };
    let value = |w: &'static str| -> V {
        match w {
            "-" => V::No,
            "true" => V::B(true),
            "false" => V::B(false),
            "\"\"" => V::S(""),
            _ => w.parse::<i64>().map_or(V::S(w), V::N),
        }
    };
    Ok(match words.as_slice() {
        ["flag", key] => Flag(key),
        ["set", key, on, off] => Values(key, value(on), value(off)),
        ["fixed", key, v] => Fixed(key, value(v)),
        ["number", key] => Number(key),
        ["number", key, off] if off.starts_with("off=") => match off[4..].parse() {
            Ok(v) => NumberOff(key, v),
            Err(_) => return Err(format!("“{text}”: off= takes a number")),
        },
        ["number", key, default] => match default.parse() {
            Ok(v) => NumberOr(key, v),
            Err(_) => return Err(format!("“{text}”: the default is a number")),
        },
        ["column", key] => Column(key),
        ["choose", key, ..] => Choose(key, pairs(2)?),
        ["languages"] => Languages,
        ["theme", target] => Theme(target),
        ["run", name] => Run(name, ""),
        ["run", name, "<n>"] => RunNumber(name),
        ["run", name, on, off] if on.starts_with("on=") && off.starts_with("off=") => {
            RunTruth(name, &on[3..], &off[4..])
        }
        // `=` alone is an argument (`:wincmd =`), not WORD=ARG.
        ["run", name, arg] if arg.split_once('=').is_none_or(|(word, _)| word.is_empty()) => Run(name, arg),
        ["run", name, ..] => RunChoose(name, pairs(2)?),
        _ => return Err(format!("“{text}” is no step")),
    })
}

/// The phrases that say `clause` in full, best first, and the best partial ones (all of
/// a phrase's groups found, some word left over): candidates for the picker.
pub(super) fn matches(clause: &Clause, env: &Env) -> Vec<Match> {
    let mut out: Vec<Match> = phrases().iter().filter_map(|p| match_phrase(p, clause, env)).collect();
    out.sort_by(|a, b| a.unexplained.len().cmp(&b.unexplained.len()).then(b.score.cmp(&a.score)));
    out
}

/// Where the words of `alternative` (one or more words, `#` a number) are in `clause`,
/// in a row among the words not used yet (soft words between them skipped: "indent
/// using tabs" says "indent tabs").
/// Whether a phrase that names a color scheme has all its word groups in `clause`: only
/// then are the installed color schemes worth asking the editor for.
pub(super) fn may_name_theme(clause: &Clause) -> bool {
    let used = vec![false; clause.words.len()];
    phrases()
        .iter()
        .filter(|p| p.does.iter().flatten().any(|s| matches!(s, Theme(_))))
        .any(|p| p.need.iter().all(|group| group.iter().any(|alt| find(alt, clause, &used).is_some())))
}

fn find(alternative: &str, clause: &Clause, used: &[bool]) -> Option<Vec<usize>> {
    let parts: Vec<&str> = alternative.split(' ').filter(|p| !p.is_empty() && !is_filler(p)).collect();
    let words = &clause.words;
    if parts.is_empty() {
        return None;
    }
    // A number alone after "by" moves text: "indent by 4" is no width ("indent by 4
    // spaces" still is).
    let bare_number = parts == ["<n>"];
    'start: for start in 0..words.len() {
        if bare_number && words[start].after_by {
            continue;
        }
        let mut idx = Vec::with_capacity(parts.len());
        let mut i = start;
        for (k, part) in parts.iter().enumerate() {
            if k > 0 {
                while i < words.len() && words[i].soft && !used[i] && !words[i].is(part) {
                    i += 1;
                }
            }
            if i >= words.len() || used[i] || !words[i].is(part) {
                continue 'start;
            }
            idx.push(i);
            i += 1;
        }
        return Some(idx);
    }
    None
}

/// Whether `word` is one the phrase allows: a word of its list, or a one-word
/// alternative of its groups (the words a phrase is said by explain each other: "away
/// from the edge"). A word of a longer alternative is not: "paste" belongs to "clipboard
/// copy paste", and alone says something else.
fn allowed(word: &Word, phrase: &Phrase) -> bool {
    phrase.may.iter().any(|m| word.is(m))
        || phrase
            .need
            .iter()
            .any(|group| group.iter().any(|alt| !alt.contains(' ') && !alt.starts_with('<') && word.is(alt)))
}

fn match_phrase(phrase: &Phrase, clause: &Clause, env: &Env) -> Option<Match> {
    let words = &clause.words;
    let mut used = vec![false; words.len()];
    let mut score = 0;
    let mut number: Option<i64> = None;
    for group in &phrase.need {
        // The longest alternative that is there.
        let mut best: Option<Vec<usize>> = None;
        for alt in group.iter() {
            if let Some(idx) = find(alt, clause, &used) {
                if best.as_ref().is_none_or(|b| idx.len() > b.len()) {
                    best = Some(idx);
                }
            }
        }
        let idx = best?;
        for &i in &idx {
            used[i] = true;
            if let Some(n) = words[i].number {
                number.get_or_insert(n);
            }
        }
        score += idx.len();
    }
    if words.iter().any(|w| phrase.not.iter().any(|n| w.text == *n)) {
        return None;
    }
    let steps = phrase.does.iter().find(|alt| alt.iter().all(|s| has(env.catalog, s)))?;
    // Words of the phrase's own list.
    for (i, w) in words.iter().enumerate() {
        if !used[i] && w.number.is_none() && w.truth.is_none() && allowed(w, phrase) {
            used[i] = true;
        }
    }
    let mut planned = Building::default();
    let takes_truth = steps.iter().any(|s| !matches!(s, Run(..) | RunNumber(_) | RunChoose(..)));
    let takes_number =
        steps.iter().any(|s| matches!(s, Number(_) | NumberOr(..) | RunNumber(_) | Column(_) | NumberOff(..)));
    // On/off words: the settings' value, or words of the phrase's list for a command.
    let loose_truth: Vec<usize> = (0..words.len()).filter(|&i| !used[i] && words[i].truth.is_some()).collect();
    let mut truth: Option<Truth> = None;
    if takes_truth {
        truth = truth_of(loose_truth.iter().map(|&i| &words[i])).ok()?;
        loose_truth.iter().for_each(|&i| used[i] = true);
    } else {
        for i in loose_truth {
            used[i] = used[i] || allowed(&words[i], phrase);
        }
    }
    // "change the line numbers" says to change something, not to what: a flag needs
    // its value said.
    if truth.is_none()
        && steps.iter().all(|s| matches!(s, Flag(_)))
        && words.iter().any(|w| ["change", "modify", "adjust", "alter"].contains(&w.text.as_str()))
    {
        return None;
    }
    // The number: the one a group took, else the one left.
    let loose: Vec<usize> = (0..words.len()).filter(|&i| !used[i] && words[i].number.is_some()).collect();
    let mut relative: Option<(i64, bool)> = None;
    if takes_number && number.is_none() {
        match loose.as_slice() {
            [] => {}
            [i] => {
                number = words[*i].number;
                used[*i] = true;
            }
            _ => return None,
        }
    }
    if takes_number {
        // "increase the scroll offset by 2": relative to the current value.
        for (i, w) in words.iter().enumerate() {
            if !used[i] && w.relative {
                used[i] = true;
                let up = ["increase", "bigger", "more", "larger", "wider", "taller", "grow", "raise", "double"]
                    .contains(&w.text.as_str());
                let by = words.iter().any(|x| x.after_by && x.number.is_some());
                relative = Some((if up { 1 } else { -1 }, by));
            }
        }
    }
    for step in steps.iter() {
        if !planned.add(step, words, &mut used, truth, number, relative, env, &mut score) {
            return None;
        }
    }
    if planned.steps.is_empty() && planned.missing_theme.is_none() {
        return None;
    }
    let unexplained: Vec<usize> = (0..words.len()).filter(|&i| !used[i] && !words[i].soft).collect();
    Some(Match { steps: planned.steps, score, unexplained, missing_theme: planned.missing_theme, by_name: false })
}

/// Whether the catalog has what `step` needs, with the value type it sets.
fn has(catalog: &Catalog, step: &Step) -> bool {
    let typed = |key: &str, want: Option<ValueType>| {
        catalog.setting(key).is_some_and(|s| want.is_none_or(|t| s.value_type == t))
    };
    let of = |v: V| match v {
        V::No => None,
        V::B(_) => Some(ValueType::Boolean),
        V::S(_) => Some(ValueType::String),
        V::N(_) => Some(ValueType::Number),
    };
    match step {
        Flag(key) => typed(key, Some(ValueType::Boolean)),
        Values(key, on, off) => typed(key, of(*on).or(of(*off))),
        Fixed(key, v) => typed(key, of(*v)),
        Number(key) | NumberOr(key, _) | NumberOff(key, _) => typed(key, Some(ValueType::Number)),
        Choose(key, _) | Column(key) => typed(key, Some(ValueType::String)),
        Languages => typed("spelllang", Some(ValueType::String)),
        Theme(target) => match target.strip_prefix("cmd:") {
            Some(_) => catalog.item(target).is_some(),
            None => typed(target, Some(ValueType::String)),
        },
        Run(name, _) | RunNumber(name) | RunChoose(name, _) | RunTruth(name, ..) => item_id(catalog, name).is_some(),
    }
}

/// The id of `name` (a command's name, or an id with its prefix) in the catalog. `hx:`
/// names a Helix command whose Neovim namesake does something else (`:goto` is a line
/// there, a byte offset here).
pub(super) fn item_id(catalog: &Catalog, name: &str) -> Option<String> {
    let name = match name.strip_prefix("hx:") {
        Some(n) if catalog.editor() == "helix" => n,
        Some(_) => return None,
        None => name,
    };
    let id = if name.contains(':') { name.to_string() } else { ItemId::command(name).to_string() };
    catalog.item(&id).map(|i| i.id.clone())
}

/// The steps of one phrase as they are worked out.
#[derive(Default)]
struct Building {
    steps: Vec<Planned>,
    missing_theme: Option<String>,
}

impl Building {
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        step: &Step,
        words: &[Word],
        used: &mut [bool],
        truth: Option<Truth>,
        number: Option<i64>,
        relative: Option<(i64, bool)>,
        env: &Env,
        score: &mut usize,
    ) -> bool {
        let current = |key: &str| env.current.get(key);
        let set = |key: &str, value: Value| Planned::Setting { key: key.to_string(), value };
        let planned = match step {
            Flag(key) => {
                let value = match truth {
                    None | Some(Truth::On) => true,
                    Some(Truth::Off) => false,
                    Some(Truth::Toggle) => match current(key).and_then(Value::as_bool) {
                        Some(b) => !b,
                        None => return false,
                    },
                };
                set(key, json!(value))
            }
            Values(key, on, off) => {
                // A value of the setting's own list named in the clause wins ("sign
                // column auto").
                if let Some(v) = named_value(env.catalog, key, words, used, score) {
                    if truth.is_some_and(|t| t != Truth::On) {
                        return false;
                    }
                    set(key, json!(v))
                } else {
                    let chosen = match truth {
                        None | Some(Truth::On) => on,
                        Some(Truth::Off) => off,
                        Some(Truth::Toggle) => {
                            let Some(cur) = current(key) else { return false };
                            if on.json().as_ref() == Some(cur) {
                                off
                            } else {
                                on
                            }
                        }
                    };
                    let Some(v) = chosen.json() else { return false };
                    set(key, v)
                }
            }
            Column(key) => match (truth, number) {
                (Some(Truth::Off), None) => set(key, json!("")),
                (None | Some(Truth::On), Some(n)) if n > 0 => set(key, json!(n.to_string())),
                _ => return false,
            },
            NumberOff(key, off) => match (truth, number) {
                (Some(Truth::Off), None) => set(key, json!(off)),
                (None | Some(Truth::On), Some(n)) if n >= 0 => set(key, json!(n)),
                _ => return false,
            },
            Fixed(key, v) => {
                if matches!(truth, Some(Truth::Off | Truth::Toggle)) {
                    return false;
                }
                let Some(v) = v.json() else { return false };
                set(key, v)
            }
            Number(key) | NumberOr(key, _) => {
                if matches!(truth, Some(Truth::Off | Truth::Toggle)) {
                    return false;
                }
                let fallback = if let NumberOr(_, n) = *step { Some(n) } else { None };
                let value = match (number, relative) {
                    (Some(n), Some((sign, true))) => match current(key).and_then(Value::as_i64) {
                        Some(c) => c + sign * n,
                        None => return false,
                    },
                    (Some(n), _) => n,
                    (None, Some(_)) => return false,
                    (None, None) => match fallback {
                        Some(n) => n,
                        None => return false,
                    },
                };
                if value < 0 {
                    return false;
                }
                match env.catalog.setting(key).map(|s| s.value_type) {
                    Some(ValueType::String) => set(key, json!(value.to_string())),
                    _ => set(key, json!(value)),
                }
            }
            Choose(key, table) => {
                if matches!(truth, Some(Truth::Off | Truth::Toggle)) {
                    return false;
                }
                let Some(v) = choose(table, words, used, score) else { return false };
                set(key, json!(v))
            }
            Languages => {
                let codes = languages(words, used, score);
                if codes.is_empty() {
                    return true;
                }
                if matches!(truth, Some(Truth::Off | Truth::Toggle)) {
                    return false;
                }
                set("spelllang", json!(codes.join(",")))
            }
            Theme(target) => {
                if matches!(truth, Some(Truth::Off | Truth::Toggle)) {
                    return false;
                }
                match theme(words, used, env, score) {
                    Some(Ok(name)) => match target.strip_prefix("cmd:") {
                        Some(_) => Planned::Item { id: target.to_string(), args: name },
                        None => set(target, json!(name)),
                    },
                    Some(Err(missing)) => {
                        self.missing_theme = Some(missing);
                        return true;
                    }
                    None => return false,
                }
            }
            Run(name, args) => {
                let Some(id) = item_id(env.catalog, name) else { return false };
                if args.is_empty() && env.catalog.item(&id).is_some_and(|i| i.args == Args::Required) {
                    return false;
                }
                Planned::Item { id, args: args.to_string() }
            }
            RunNumber(name) => {
                let (Some(id), Some(n)) = (item_id(env.catalog, name), number) else { return false };
                Planned::Item { id, args: n.to_string() }
            }
            RunTruth(name, on, off) => {
                let Some(id) = item_id(env.catalog, name) else { return false };
                let args = match truth {
                    None | Some(Truth::On) => on,
                    Some(Truth::Off) => off,
                    Some(Truth::Toggle) => return false,
                };
                Planned::Item { id, args: args.to_string() }
            }
            RunChoose(name, table) => {
                let Some(id) = item_id(env.catalog, name) else { return false };
                let Some(arg) = choose(table, words, used, score) else { return false };
                Planned::Item { id, args: arg.to_string() }
            }
        };
        self.steps.push(planned);
        true
    }
}

/// The value of the table a word of the clause names, that word marked used.
fn choose(
    table: &[(&str, &'static str)],
    words: &[Word],
    used: &mut [bool],
    score: &mut usize,
) -> Option<&'static str> {
    for (i, w) in words.iter().enumerate() {
        if let Some((_, v)) = table.iter().find(|(word, _)| w.text == *word) {
            if !used[i] {
                *score += 1;
            }
            used[i] = true;
            return Some(v);
        }
    }
    None
}

/// One of `key`'s allowed values, as a word of the clause not used yet.
fn named_value(catalog: &Catalog, key: &str, words: &[Word], used: &mut [bool], score: &mut usize) -> Option<String> {
    let setting = catalog.setting(key).filter(|s| s.list.is_none())?;
    let values = setting.values.as_ref()?;
    for (i, w) in words.iter().enumerate() {
        if used[i] || w.truth.is_some() || w.number.is_some() {
            continue;
        }
        if let Some(v) = values.iter().find(|v| v.to_lowercase() == w.text && !v.contains('{')) {
            used[i] = true;
            *score += 1;
            return Some(v.clone());
        }
    }
    None
}

/// The spell languages the clause names, in order, their words marked used.
fn languages(words: &[Word], used: &mut [bool], score: &mut usize) -> Vec<&'static str> {
    let mut codes = Vec::new();
    let mut rest: Vec<usize> = (0..words.len()).filter(|&i| !used[i]).collect();
    loop {
        let view: Vec<&Word> = rest.iter().map(|&i| &words[i]).collect();
        let Some((code, at, width)) = spell_language(&view) else { break };
        for &i in &rest[at..at + width] {
            used[i] = true;
        }
        *score += 1;
        if !codes.contains(&code) {
            codes.push(code);
        }
        rest.drain(at..at + width);
    }
    codes
}

/// Words that are never a color scheme's name (`dark theme` is the background).
const NOT_NAMES: &[&str] = &[
    "dark",
    "light",
    "bright",
    "new",
    "another",
    "different",
    "other",
    "random",
    "nice",
    "better",
    "good",
    "cool",
    "next",
    "previous",
    "night",
    "day",
    "black",
    "white",
    "my",
    "favorite",
    "favourite",
    "installed",
    "available",
    "all",
    "list",
    "current",
    "which",
    "what",
];

/// The color scheme the clause names: `Ok(name)` (as installed, or as the request spells
/// it when the installed ones are not known), `Err(name)` for a name that is not
/// installed, `None` when it names none.
fn theme(words: &[Word], used: &mut [bool], env: &Env, score: &mut usize) -> Option<Result<String, String>> {
    let free: Vec<usize> = (0..words.len()).filter(|&i| !used[i] && words[i].truth.is_none()).collect();
    if !env.colorschemes.is_empty() {
        // One word, or two run together ("tokyo night" → tokyonight, "gruvbox material"
        // → gruvbox-material).
        let installed = |name: &str| {
            env.colorschemes.iter().find(|c| {
                let c = c.to_lowercase();
                c == name || c.replace(['-', '_'], "") == name.replace(['-', '_'], "")
            })
        };
        for pair in free.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            if b == a + 1 {
                if let Some(c) = installed(&format!("{}{}", words[a].text, words[b].text)) {
                    used[a] = true;
                    used[b] = true;
                    *score += 1;
                    return Some(Ok(c.clone()));
                }
            }
        }
        for &i in &free {
            if let Some(c) = installed(&words[i].text) {
                used[i] = true;
                *score += 1;
                return Some(Ok(c.clone()));
            }
        }
        // A name that is not installed: said, not planned.
        let named: Vec<usize> =
            free.iter().copied().filter(|&i| !words[i].soft && !NOT_NAMES.contains(&words[i].text.as_str())).collect();
        if let [i] = named.as_slice() {
            used[*i] = true;
            return Some(Err(spelling(env.request, &words[*i].text)));
        }
        return None;
    }
    // Not known: the one word left that is not a value word.
    let named: Vec<usize> = free.iter().copied().filter(|&i| !words[i].soft && words[i].number.is_none()).collect();
    match named.as_slice() {
        [i] if !NOT_NAMES.contains(&words[*i].text.as_str()) => {
            used[*i] = true;
            *score += 1;
            Some(Ok(spelling(env.request, &words[*i].text)))
        }
        _ => None,
    }
}

/// `word` (lower case) as the request spells it.
pub(super) fn spelling(request: &str, word: &str) -> String {
    request
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '_' || c == '-'))
        .map(|w| w.trim_matches('\''))
        .find(|w| w.to_lowercase() == word)
        .unwrap_or(word)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_of_the_vocabulary_reads() {
        let all = parse(SOURCE).unwrap();
        assert!(all.len() > 100, "{}", all.len());
        assert!(parse("wrap | - | flag").unwrap_err().contains("line 1"));
        assert!(parse("wrap | @nope | flag wrap").unwrap_err().contains("@nope"));
        assert!(parse("wrap | - | number wrap x").is_err());
    }

    /// Helix's commands and options as its profile knows them (what `leash helix` builds
    /// its catalog from), typed as the catalog types them.
    fn helix() -> Catalog {
        let d = crate::profile::helix::data();
        let mut entries = Vec::new();
        for t in &d.typable_commands {
            let id = format!("cmd:{}", t.name);
            entries.push(json!({"id": id, "kind": "command", "title": t.title, "args": "optional", "reach": "safe"}));
        }
        for o in &d.options {
            let kind = match o.kind.as_str() {
                "boolean" => "boolean",
                "number" => "number",
                "string" | "list" => "string",
                _ => continue,
            };
            entries.push(json!({"key": o.key, "kind": "setting", "title": o.title, "type": kind}));
        }
        Catalog::from_value(&json!({"version": 1, "editor": "helix", "entries": entries})).unwrap()
    }

    /// Every setting and command the vocabulary names is one of a clean Neovim 0.12's or
    /// of Helix's, with the type of value the step sets: a typo would quietly never plan.
    #[test]
    fn every_meaning_names_what_an_editor_has() {
        let text = include_str!("../../../../../tests/data/neovim-0.12-catalog.json");
        let neovim = crate::policy::narrow_catalog(Catalog::from_json(text).unwrap());
        let helix = helix();
        for (n, phrase) in phrases().iter().enumerate() {
            for meaning in &phrase.does {
                let somewhere = [&neovim, &helix].iter().any(|c| meaning.iter().all(|s| has(c, s)));
                assert!(somewhere, "phrase {} ({:?}): no editor has {meaning:?}", n + 1, phrase.need);
            }
        }
    }
}
