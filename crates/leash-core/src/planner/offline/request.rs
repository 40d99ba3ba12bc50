//! Reading a request for the offline planner: its words in English (a request in German,
//! Spanish or French is read through the ranker's languages table), its numbers, its
//! on/off words, and the clauses a request for several things is made of.
//!
//! Words that say nothing about what to do ("please", "the", "my", "set", "turn") are
//! dropped; everything else must later be explained by what is planned, so a word this
//! reader keeps is a word that can stop a plan.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::rank::{stem, to_english};

/// What an on/off word says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Truth {
    On,
    Off,
    /// The opposite of the current value.
    Toggle,
}

/// One meaningful word of a clause.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Word {
    /// Lower case, accents as typed (or folded, for a request read from another language).
    pub text: String,
    /// The word and its stems: what a vocabulary word is compared with.
    pub forms: Vec<String>,
    /// The number it is (`4`, `four`).
    pub number: Option<i64>,
    /// The on/off meaning it has, if any ("hide" is off).
    pub truth: Option<Truth>,
    /// Whether it asks for a change relative to the current value ("bigger", "more").
    pub relative: bool,
    /// Whether the word before it was "by" (`increase by 2`).
    pub after_by: bool,
    /// Whether the word before it was "to" or "at" (`set tabs to 3`, `wrap at 80`): a
    /// number there is the value the request sets, not a count of things.
    pub after_to: bool,
    /// A word that may name what is wanted but needs no explaining ("use", "always").
    pub soft: bool,
}

impl Word {
    /// Whether `vocabulary` (one word) is this word, stems compared.
    pub fn is(&self, vocabulary: &str) -> bool {
        if let Some(exact) = vocabulary.strip_prefix('=') {
            return self.text == exact;
        }
        if vocabulary == "<n>" {
            return self.number.is_some();
        }
        if vocabulary == "<to-n>" {
            return self.number.is_some() && self.after_to;
        }
        match vocabulary_forms(vocabulary) {
            Some(theirs) => self.forms.iter().any(|f| theirs.contains(f)),
            None => {
                let theirs = forms(vocabulary);
                self.forms.iter().any(|f| theirs.contains(f))
            }
        }
    }
}

/// The forms of a word of the phrases' vocabulary (none for another word), each made
/// once, when the word is first compared: matching a request compares its words with
/// thousands of them, and stemming each again was most of an offline plan's time; making
/// all of them at once cost a session's first request 2.5 ms.
fn vocabulary_forms(word: &str) -> Option<&'static [String]> {
    static FORMS: OnceLock<HashMap<&'static str, OnceLock<Vec<String>>>> = OnceLock::new();
    let all =
        FORMS.get_or_init(|| super::phrases::vocabulary_words().into_iter().map(|w| (w, OnceLock::new())).collect());
    let (&word, cell) = all.get_key_value(word)?;
    Some(cell.get_or_init(|| forms(word)))
}

/// The meaningful words of one part of the request, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Clause {
    pub words: Vec<Word>,
}

impl Clause {
    /// The clause's words joined by spaces (what the ranker is given).
    pub fn text(&self) -> String {
        self.words.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" ")
    }
}

/// A request as the offline planner reads it.
#[derive(Debug, Clone)]
pub(super) struct Reading {
    /// All of it as one clause.
    pub whole: Clause,
    /// Its parts between "and", commas and the like; one part when there is no joint.
    pub parts: Vec<Clause>,
    /// Whether the request quotes text, or holds a pattern or a path: a model's job.
    pub has_literal: bool,
    /// Whether it asks a question ("is wrap on?", "how do I …"): answered by a model,
    /// never planned offline.
    pub question: bool,
}

/// Words dropped from every clause: they say nothing about what to do.
const FILLER: &[&str] = &[
    "a", "an", "the", "please", "pls", "plz", "can", "could", "would", "will", "should", "shall", "you", "u", "i",
    "i'd", "i'm", "i'll", "me", "my", "mine", "we", "us", "our", "let", "let's", "lets", "want", "wanna", "like",
    "need", "to", "for", "of", "in", "into", "at", "by", "with", "from", "it", "its", "it's", "this", "that", "these",
    "those", "here", "there", "now", "just", "some", "be", "is", "are", "was", "do", "does", "have", "has", "value",
    "feature", "editor", "vim", "nvim", "neovim", "helix", "hx", "then", "so", "also", "too", "than", "thing",
    "things", "kindly", "thanks", "thank", "okay", "ok", "hey", "hi", "or", "nicely", "when", "while", "i've", "again",
    "prefer", "what's", "where's", "how's", "there's", "it'd", "you'd",
];

/// Every word this reader has a list for (filler, on/off, units, …): words the offline
/// planner knows, so none of them is taken for a typo.
pub(super) fn own_words() -> Vec<&'static str> {
    let lists: [&[&'static str]; 12] =
        [FILLER, SOFT, ON, OFF, TOGGLE, RELATIVE, EDIT_VERBS, EDIT_OBJECTS, UI_NOUNS, QUESTION, UNITS, PLACES];
    let mut out: Vec<&'static str> = lists.iter().flat_map(|l| l.iter().copied()).collect();
    out.extend(JOINTS.iter().copied());
    out.extend(NUMBER_WORDS.iter().map(|(w, _)| *w));
    out.extend(ABBREVIATIONS.iter().flat_map(|(short, full)| [*short, *full]));
    out.extend(SPELL_LANGUAGES.iter().flat_map(|(name, _)| name.split(' ')));
    out
}

/// Words that need no explaining (filler, soft words): a typo read as one of them would
/// vanish from the request, so only a swap of two letters is read as one ("tunr").
pub(super) fn silent_words() -> impl Iterator<Item = &'static str> {
    FILLER.iter().chain(SOFT.iter()).copied()
}

/// Whether `word` is dropped from every clause.
pub(super) fn is_filler(word: &str) -> bool {
    FILLER.contains(&word)
}

/// Words that may name what is wanted ("always" shows the status line, "instead" tells
/// spaces from tabs, "mode" is dark mode) but that nothing needs to explain.
const SOFT: &[&str] = &[
    "always",
    "mode",
    "current",
    "currently",
    "use",
    "using",
    "switch",
    "make",
    "change",
    "put",
    "set",
    "turn",
    "get",
    "automatically",
    "up",
    "possible",
    "way",
    "what",
    "which",
    "how",
    "one",
    // "turn line numbers back on", "go back to the previous tab": again, or previous
    // where a phrase says so.
    "back",
];

const ON: &[&str] = &[
    "on",
    "enable",
    "enabled",
    "enables",
    "activate",
    "activated",
    "show",
    "shows",
    "display",
    "start",
    "yes",
    "true",
    "see",
    "visible",
    "showing",
    "displaying",
    "enabling",
    "activating",
];
const OFF: &[&str] = &[
    "off",
    "disable",
    "disabled",
    "disables",
    "deactivate",
    "deactivated",
    "hide",
    "hides",
    "hiding",
    "disabling",
    "deactivating",
    "no",
    "not",
    "don't",
    "dont",
    "doesn't",
    "never",
    "stop",
    "without",
    "remove",
    "false",
    "none",
    "silence",
    "silent",
    "mute",
    "muted",
];
const TOGGLE: &[&str] = &["toggle", "toggles", "flip"];
/// Words that ask for a change relative to the current value: a model's job, unless a
/// number says exactly what to.
const RELATIVE: &[&str] = &[
    "increase", "decrease", "bigger", "smaller", "more", "less", "larger", "double", "half", "wider", "narrower",
    "taller", "shorter", "grow", "shrink", "raise", "lower", "reduce",
];
/// "remove" and "delete" turn a setting off, except when they speak of text: then the
/// request edits the buffer, which is a model's job.
const EDIT_VERBS: &[&str] = &["remove", "delete", "strip", "trim", "clean", "clear", "erase", "get", "drop", "kill"];
const EDIT_OBJECTS: &[&str] = &[
    "trailing",
    "whitespace",
    "spaces",
    "space",
    "blank",
    "empty",
    "duplicate",
    "duplicates",
    "duplicated",
    "lines",
    "line",
    "word",
    "words",
    "text",
    "comment",
    "comments",
    "character",
    "characters",
    "tabs",
];
/// Words after a text unit that make it a thing on the screen ("line numbers").
const UI_NOUNS: &[&str] = &[
    "number",
    "numbers",
    "numbering",
    "wrap",
    "wrapping",
    "ending",
    "endings",
    "break",
    "breaks",
    "height",
    "length",
    "width",
    "highlight",
    "highlighting",
    "count",
    "column",
];

/// Words that begin a question rather than a request ("what" and "which" ask for
/// something a command shows: "what's the working directory").
const QUESTION: &[&str] =
    &["is", "are", "was", "were", "does", "do", "did", "why", "how", "isn't", "aren't", "doesn't", "whether"];

/// Where a request is split into parts.
const JOINTS: &[&str] = &["and", "then", "also", "plus", "&", "as well as"];

const NUMBER_WORDS: &[(&str, i64)] = &[
    ("zero", 0),
    ("one", 1),
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("eleven", 11),
    ("twelve", 12),
    ("sixteen", 16),
    ("twenty", 20),
    ("thirty", 30),
    ("forty", 40),
    ("fifty", 50),
    ("sixty", 60),
    ("seventy", 70),
    ("eighty", 80),
    ("ninety", 90),
    ("hundred", 100),
];

/// All spellings a word is compared by: itself and its stems (and without a plural `s`).
pub(super) fn forms(word: &str) -> Vec<String> {
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

/// Reads `request`.
pub(super) fn read(request: &str) -> Reading {
    let english = to_english(request).unwrap_or_else(|| request.to_string());
    let has_literal = request.contains(['"', '`', '/', '\\', '*', '^', '$', '<', '>', '{', '}', '[', ']', '|'])
        || request.chars().filter(|c| *c == '\'').count() >= 2 && !request.contains("'t ");
    let raw = raw_words(&english);
    // "what does … do", "what is wrap": asking about, not asking for ("what's the
    // working directory" asks for what a command shows).
    let question = raw.first().is_some_and(|w| QUESTION.contains(&w.as_str()))
        || (raw.first().is_some_and(|w| w == "what" || w == "which")
            && raw.get(1).is_some_and(|w| ["does", "do", "did", "is", "are", "was"].contains(&w.as_str())));
    let whole = clause(&raw);
    let mut parts = Vec::new();
    let mut current: Vec<String> = Vec::new();
    // Vim's `set number relativenumber`: one part an option (a part that is no option's
    // name fails, and the whole request is read instead).
    let vim_set = raw.len() > 2
        && raw[0] == "set"
        && raw[1..].iter().all(|w| w.chars().all(|c| c.is_ascii_alphabetic()) && !FILLER.contains(&w.as_str()));
    if vim_set {
        let parts = raw[1..].iter().map(|w| clause(&[raw[0].clone(), w.clone()])).collect();
        return Reading { whole, parts, has_literal, question };
    }
    for w in raw {
        if w == "," || w == ";" || JOINTS.contains(&w.as_str()) {
            if !current.is_empty() {
                parts.push(clause(&current));
                current.clear();
            }
        } else {
            current.push(w);
        }
    }
    if !current.is_empty() {
        parts.push(clause(&current));
    }
    parts.retain(|c| !c.words.is_empty());
    Reading { whole, parts, has_literal, question }
}

/// The words of a text in order, lower case, with `,` and `;` kept as words of their own
/// (where a request is split) and `rather than` read as `instead`.
fn raw_words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<String>| {
        let w = word.trim_matches('\'').to_lowercase();
        if !w.is_empty() {
            out.push(w);
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphanumeric() || c == '\'' || c == '_' {
            word.push(c);
        } else {
            // Vim's `set wrap!` flips the option.
            let bang = c == '!' && !word.is_empty();
            flush(&mut word, &mut out);
            if c == ',' || c == ';' {
                out.push(c.to_string());
            }
            if bang {
                out.push("toggle".into());
            }
        }
    }
    flush(&mut word, &mut out);
    // "2nd", "80ch": a number with its unit run together.
    let mut split = Vec::with_capacity(out.len());
    for w in out {
        let digits = w.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && digits < w.len() && w[digits..].chars().all(char::is_alphabetic) {
            split.push(w[..digits].to_string());
            split.push(w[digits..].to_string());
        } else {
            split.push(w);
        }
    }
    let mut out: Vec<String> = Vec::with_capacity(split.len());
    let mut i = 0;
    while i < split.len() {
        if split[i] == "rather" && split.get(i + 1).is_some_and(|w| w == "than") {
            out.push("instead".into());
            i += 2;
            continue;
        }
        // "the number of lines" is a count, not line numbers.
        if matches!(split[i].as_str(), "number" | "numbers") && split.get(i + 1).is_some_and(|w| w == "of") {
            out.push("count".into());
            i += 2;
            continue;
        }
        // "empty the file" clears it; "an empty file" is a new one.
        if split[i] == "empty"
            && split.get(i + 1).is_some_and(|w| ["the", "this", "that", "my", "all", "it"].contains(&w.as_str()))
        {
            out.push("clear".into());
            i += 1;
            continue;
        }
        // "move the window to the right" moves the window, which no phrase does; "move to
        // the window on the right" goes there.
        if split[i] == "move" {
            let object =
                split[i + 1..].iter().find(|w| !["the", "this", "that", "my", "current"].contains(&w.as_str()));
            if i + 1 < split.len()
                && split[i + 1] != "to"
                && object.is_some_and(|w| {
                    ["window", "windows", "split", "splits", "pane", "panes", "tab", "buffer", "line"]
                        .contains(&w.as_str())
                })
            {
                out.push("relocate".into());
                i += 1;
                continue;
            }
        }
        // "no more beeping", "don't wrap anymore": "more" is no amount there.
        if split[i] == "anymore"
            || (split[i] == "more" && i > 0 && ["no", "not", "any"].contains(&split[i - 1].as_str()))
            || (split[i] == "any" && split.get(i + 1).is_some_and(|w| w == "more"))
        {
            i += 1;
            continue;
        }
        if let Some((_, full)) = ABBREVIATIONS.iter().find(|(short, _)| *short == split[i]) {
            out.push(full.to_string());
            i += 1;
            continue;
        }
        if split[i] == "get" && split.get(i + 1).is_some_and(|w| w == "rid") {
            out.push("remove".into());
            i += if split.get(i + 2).is_some_and(|w| w == "of") { 3 } else { 2 };
            continue;
        }
        if split[i] == "do" && split.get(i + 1).is_some_and(|w| w == "not") {
            out.push("not".into());
            i += 2;
            continue;
        }
        if split[i] == "as"
            && split.get(i + 1).is_some_and(|w| w == "well")
            && split.get(i + 2).is_some_and(|w| w == "as")
        {
            out.push("and".into());
            i += 3;
            continue;
        }
        out.push(split[i].clone());
        i += 1;
    }
    out
}

/// Short forms people type for the words the vocabulary spells out, and words that say
/// what another does ("everything" is "all").
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("nums", "numbers"),
    ("num", "number"),
    ("buf", "buffer"),
    ("bufs", "buffers"),
    ("dir", "directory"),
    ("everything", "all"),
];

fn clause(raw: &[String]) -> Clause {
    // "remove the current line" edits text; "remove line numbers" is a setting.
    let object = |i: usize| {
        EDIT_OBJECTS.contains(&raw[i].as_str()) && !raw.get(i + 1).is_some_and(|n| UI_NOUNS.contains(&n.as_str()))
    };
    let edits = raw.iter().any(|w| EDIT_VERBS.contains(&w.as_str())) && (0..raw.len()).any(object);
    let mut words: Vec<Word> = Vec::new();
    for (i, w) in raw.iter().enumerate() {
        if w == "," || w == ";" || JOINTS.contains(&w.as_str()) {
            continue;
        }
        let next = raw.get(i + 1).map(String::as_str);
        let prev = i.checked_sub(1).and_then(|p| raw.get(p)).map(String::as_str);
        let number = w.parse::<i64>().ok().or_else(|| number_word(w, prev, next));
        if number.is_none() && FILLER.contains(&w.as_str()) {
            continue;
        }
        // "on this line", "on the right": a place, not "on" ("turn on the …" is on).
        if w == "on"
            && next.is_some_and(|n| PLACES.contains(&n))
            && !prev.is_some_and(|p| ["turn", "switch", "flip", "put", "be", "is", "are"].contains(&p))
        {
            continue;
        }
        let truth = if TOGGLE.contains(&w.as_str()) {
            Some(Truth::Toggle)
        } else if ON.contains(&w.as_str()) {
            Some(Truth::On)
        } else if OFF.contains(&w.as_str()) && !(edits && EDIT_VERBS.contains(&w.as_str())) {
            Some(Truth::Off)
        } else {
            None
        };
        words.push(Word {
            text: w.clone(),
            forms: forms(w),
            number,
            truth,
            relative: RELATIVE.contains(&w.as_str()),
            after_by: prev == Some("by"),
            after_to: prev == Some("to") || prev == Some("at"),
            soft: number.is_none() && SOFT.contains(&w.as_str()),
        });
    }
    Clause { words }
}

/// A number written as a word, where it counts something ("two spaces", "tabstop to
/// four", "tab size four") and not in "this one" or "the two windows".
fn number_word(w: &str, prev: Option<&str>, next: Option<&str>) -> Option<i64> {
    let (_, n) = NUMBER_WORDS.iter().find(|(name, _)| *name == w)?;
    let unit = next.is_some_and(|n| UNITS.contains(&n));
    let set_to = prev.is_some_and(|p| ["to", "at", "=", "of", "is", "by"].contains(&p));
    // "this one", "the other one": a pronoun.
    let pronoun = prev.is_some_and(|p| {
        ["this", "that", "the", "each", "every", "other", "which", "any", "a", "current", "only", "last", "next", "new"]
            .contains(&p)
    });
    (unit || set_to || (next.is_none() && !pronoun)).then_some(*n)
}

/// Words after which "on" says where rather than on.
const PLACES: &[&str] = &[
    "this", "that", "the", "a", "an", "my", "every", "each", "all", "these", "those", "save", "saving", "startup",
    "top", "bottom", "left", "right", "line", "lines", "screen", "disk",
];

/// Words a number is counted in.
const UNITS: &[&str] = &[
    "space",
    "spaces",
    "line",
    "lines",
    "character",
    "characters",
    "char",
    "chars",
    "column",
    "columns",
    "col",
    "cols",
    "wide",
    "ms",
    "millisecond",
    "milliseconds",
    "second",
    "seconds",
    "level",
    "levels",
    "row",
    "rows",
    "bit",
];

/// What the on/off words among `words` say together: `Err` when they disagree. An off
/// word wins over the everyday verbs that are on words ("don't show", "never display").
pub(super) fn truth_of<'a>(words: impl Iterator<Item = &'a Word>) -> Result<Option<Truth>, ()> {
    let mut strong: Option<Truth> = None;
    let mut weak_on = false;
    for w in words {
        let Some(t) = w.truth else { continue };
        if t == Truth::On && WEAK_ON.contains(&w.text.as_str()) {
            weak_on = true;
            continue;
        }
        if strong.is_some_and(|have| have != t) {
            return Err(());
        }
        strong = Some(t);
    }
    Ok(match strong {
        Some(Truth::Toggle) if weak_on => return Err(()),
        Some(t) => Some(t),
        None => weak_on.then_some(Truth::On),
    })
}

/// On words that are everyday verbs: an off word beside them says off.
const WEAK_ON: &[&str] = &["show", "shows", "showing", "display", "displaying", "see", "visible"];
/// Off words that are everyday verbs.
const WEAK_OFF: &[&str] = &["hide", "hides", "hiding"];

/// Whether `word` is an on/off word that is an everyday verb ("show me the diff"): not
/// enough to make a word a setting's name.
pub(super) fn is_weak(word: &str) -> bool {
    WEAK_ON.contains(&word) || WEAK_OFF.contains(&word)
}

/// Whether a word (or two: "british english") names a language's spelling dictionary:
/// which (`german` → `de`), where, and how many words.
pub(super) fn spell_language(words: &[&Word]) -> Option<(&'static str, usize, usize)> {
    // Two-word names first: "british english".
    for (i, pair) in words.windows(2).enumerate() {
        let joined = format!("{} {}", pair[0].text, pair[1].text);
        if let Some((_, code)) = SPELL_LANGUAGES.iter().find(|(n, _)| *n == joined) {
            return Some((code, i, 2));
        }
    }
    words
        .iter()
        .enumerate()
        .find_map(|(i, w)| SPELL_LANGUAGES.iter().find(|(n, _)| *n == fold(&w.text)).map(|(_, c)| (*c, i, 1)))
}

/// Language names in English, German, Spanish and French (accents folded), and the
/// name of Vim's spell file for each.
const SPELL_LANGUAGES: &[(&str, &str)] = &[
    ("british english", "en_gb"),
    ("american english", "en_us"),
    ("us english", "en_us"),
    ("uk english", "en_gb"),
    ("canadian english", "en_ca"),
    ("australian english", "en_au"),
    ("brazilian portuguese", "pt_br"),
    ("european portuguese", "pt_pt"),
    ("english", "en"),
    ("englisch", "en"),
    ("ingles", "en"),
    ("anglais", "en"),
    ("german", "de"),
    ("deutsch", "de"),
    ("aleman", "de"),
    ("allemand", "de"),
    ("french", "fr"),
    ("franzosisch", "fr"),
    ("frances", "fr"),
    ("francais", "fr"),
    ("spanish", "es"),
    ("spanisch", "es"),
    ("espanol", "es"),
    ("castellano", "es"),
    ("espagnol", "es"),
    ("italian", "it"),
    ("italienisch", "it"),
    ("italiano", "it"),
    ("italien", "it"),
    ("portuguese", "pt"),
    ("portugiesisch", "pt"),
    ("portugues", "pt"),
    ("portugais", "pt"),
    ("dutch", "nl"),
    ("niederlandisch", "nl"),
    ("neerlandes", "nl"),
    ("neerlandais", "nl"),
    ("polish", "pl"),
    ("polnisch", "pl"),
    ("russian", "ru"),
    ("russisch", "ru"),
    ("swedish", "sv"),
    ("schwedisch", "sv"),
    ("danish", "da"),
    ("danisch", "da"),
    ("norwegian", "nb"),
    ("norwegisch", "nb"),
    ("czech", "cs"),
    ("tschechisch", "cs"),
    ("hungarian", "hu"),
    ("greek", "el"),
    ("turkish", "tr"),
    ("catalan", "ca"),
    ("finnish", "fi"),
];

/// Lower case with accents folded (`français` → `francais`).
fn fold(word: &str) -> String {
    word.chars()
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            'à' | 'á' | 'â' | 'ä' | 'ã' => 'a',
            'è' | 'é' | 'ê' | 'ë' => 'e',
            'ì' | 'í' | 'î' | 'ï' => 'i',
            'ò' | 'ó' | 'ô' | 'ö' | 'õ' => 'o',
            'ù' | 'ú' | 'û' | 'ü' => 'u',
            'ç' => 'c',
            'ñ' => 'n',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(c: &Clause) -> Vec<&str> {
        c.words.iter().map(|w| w.text.as_str()).collect()
    }

    #[test]
    fn filler_goes_and_meaning_stays() {
        let r = read("Please turn on the line numbers for me");
        assert_eq!(texts(&r.whole), ["turn", "on", "line", "numbers"]);
        assert!(r.whole.words[0].soft);
        assert_eq!(r.whole.words[1].truth, Some(Truth::On));
        assert_eq!(r.parts.len(), 1);
    }

    #[test]
    fn parts_split_at_joints() {
        let r = read("turn on wrap and line numbers, then hide whitespace");
        let parts: Vec<Vec<&str>> = r.parts.iter().map(texts).collect();
        assert_eq!(parts, [vec!["turn", "on", "wrap"], vec!["line", "numbers"], vec!["hide", "whitespace"]]);
    }

    #[test]
    fn numbers_in_digits_and_words() {
        let r = read("indent with two spaces");
        assert_eq!(r.whole.words.iter().find_map(|w| w.number), Some(2));
        let r = read("close all windows but this one");
        assert!(r.whole.words.iter().all(|w| w.number.is_none()), "{:?}", texts(&r.whole));
        let r = read("set textwidth=80ch");
        assert_eq!(texts(&r.whole), ["set", "textwidth", "80", "ch"]);
    }

    #[test]
    fn on_before_a_place_is_not_on() {
        assert!(read("change the tab to spaces on this line").whole.words.iter().all(|w| w.truth.is_none()));
        assert!(read("open splits on the right").whole.words.iter().all(|w| w.truth.is_none()));
        assert_eq!(read("line numbers on").whole.words[2].truth, Some(Truth::On));
        assert_eq!(read("turn on the cursor line").whole.words[1].truth, Some(Truth::On));
    }

    #[test]
    fn off_wins_over_show() {
        let truth = |r: &str| truth_of(read(r).whole.words.iter());
        assert_eq!(truth("don't show line numbers"), Ok(Some(Truth::Off)));
        assert_eq!(truth("never display the tab line"), Ok(Some(Truth::Off)));
        assert_eq!(truth("show line numbers"), Ok(Some(Truth::On)));
        assert_eq!(truth("wrap on off"), Err(()));
        assert_eq!(truth("enable but disable"), Err(()));
    }

    #[test]
    fn remove_is_off_unless_it_edits_text() {
        assert_eq!(read("remove line numbers").whole.words[0].truth, Some(Truth::Off));
        assert_eq!(read("remove trailing whitespace").whole.words[0].truth, None);
    }

    #[test]
    fn other_languages_read_in_english() {
        let r = read("Zeilennummern anzeigen");
        assert_eq!(texts(&r.whole), ["line", "numbers", "show"]);
    }

    #[test]
    fn literal_text_is_noticed() {
        assert!(read("replace \"foo\" with bar").has_literal);
        assert!(read("delete lines matching ^#").has_literal);
        assert!(!read("don't wrap lines").has_literal);
    }

    #[test]
    fn language_names() {
        let r = read("spell check in British English");
        let ws: Vec<&Word> = r.whole.words.iter().collect();
        assert_eq!(spell_language(&ws).map(|(c, ..)| c), Some("en_gb"));
        let r = read("corrector ortográfico en alemán");
        let ws: Vec<&Word> = r.whole.words.iter().collect();
        assert_eq!(spell_language(&ws).map(|(c, ..)| c), Some("de"));
    }
}
