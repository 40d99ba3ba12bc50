//! Shortlist ranking: which catalog entries a request is most likely about.
//!
//! A request is split into words (lower-cased, stopwords dropped, stemmed). Each word is
//! scored on its own against every entry and the scores add up (mode `any`), or every word
//! must match (mode `all`). Per word, an entry scores from three signals: an exact hit on
//! its name or an alias (strongest), nucleo's fuzzy match on the name and aliases, and
//! word matches on its title and documentation weighted by how rare the word is across
//! the catalog. Ties are broken by name, so a ranking is deterministic.

use std::collections::HashMap;
use std::sync::OnceLock;

use nucleo::pattern::{Atom, AtomKind, CaseMatching, Normalization};
use nucleo::{Matcher, Utf32Str, Utf32String};

use crate::catalog::{Catalog, Entry};

/// Whether every request word must match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// A word may match on its own; scores add up across matching words.
    #[default]
    Any,
    /// Every word must match somewhere.
    All,
}

impl Mode {
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "any" => Some(Mode::Any),
            "all" => Some(Mode::All),
            _ => None,
        }
    }
}

/// One ranked entry.
#[derive(Debug, Clone, Copy)]
pub struct Ranked<'a> {
    pub entry: &'a Entry,
    pub score: u32,
}

/// Field weights, in score points per fully matching word.
const EXACT_NAME: f32 = 100.0;
const FUZZY_NAME: f32 = 30.0;
const TITLE_WORD: f32 = 24.0;
const TITLE_PREFIX: f32 = 10.0;
const DOC_WORD: f32 = 6.0;

/// Words that carry no meaning in a request to an editor.
const STOPWORDS: &[&str] = &[
    "a", "about", "all", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can", "could", "do",
    "does", "for", "from", "get", "have", "how", "i", "i'd", "i'm", "if", "in", "into", "is", "it", "it's", "its",
    "just", "let", "lets", "me", "my", "of", "or", "our", "please", "pls", "plz", "so", "some", "that", "the", "their",
    "them", "then", "there", "these", "they", "this", "those", "to", "too", "us", "very", "want", "wanna", "was",
    "we", "what", "when", "where", "which", "while", "who", "why", "will", "with", "would", "you", "your",
];

/// The request's meaningful words, lower-cased, stopwords dropped, in order, without
/// repeats.
pub fn query_words(request: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in split_words(request) {
        if !STOPWORDS.contains(&word.as_str()) && !out.contains(&word) {
            out.push(word);
        }
    }
    out
}

fn split_words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '_'))
        .map(|w| w.trim_matches('\'').to_lowercase())
        .filter(|w| !w.is_empty())
}

/// A light suffix stemmer: enough that "wrapping", "wraps" and "wrapped" meet "wrap".
pub fn stem(word: &str) -> String {
    let w = word;
    let n = w.len();
    if !w.is_ascii() || n <= 3 {
        return w.to_string();
    }
    for (suffix, replacement, min_stem) in [
        ("ational", "ate", 3),
        ("ization", "ize", 3),
        ("iness", "y", 3),
        ("ness", "", 3),
        ("ments", "", 3),
        ("ment", "", 3),
        ("ings", "", 3),
        ("ing", "", 3),
        ("ies", "y", 2),
        ("ied", "y", 2),
        ("ers", "", 3),
        ("er", "", 3),
        ("ed", "", 3),
        ("ly", "", 3),
        ("es", "", 4),
        ("s", "", 3),
    ] {
        if let Some(stem) = w.strip_suffix(suffix) {
            if stem.len() >= min_stem && !(suffix == "s" && stem.ends_with('s')) {
                let mut out = format!("{stem}{replacement}");
                // "wrapping" → "wrapp" → "wrap"
                let b = out.as_bytes();
                if replacement.is_empty() && b.len() >= 4 && b[b.len() - 1] == b[b.len() - 2] && !matches!(b[b.len() - 1], b'l' | b's' | b'z') {
                    out.pop();
                }
                return out;
            }
        }
    }
    w.to_string()
}

/// What the ranker precomputes for a catalog: names for fuzzy matching and an inverted
/// index of title and documentation words.
#[derive(Debug, Default)]
pub struct Index {
    /// Per entry: the name without its source prefix, then the aliases, lower-cased.
    names: Vec<Vec<Utf32String>>,
    /// Per entry: the plain strings of `names`, for exact hits.
    plain_names: Vec<Vec<String>>,
    /// Stemmed word → (entry, weight) postings, weight already including rarity.
    words: HashMap<String, Vec<(u32, f32)>>,
    /// Stemmed words, sorted, for prefix look-ups.
    vocabulary: Vec<String>,
}

impl Index {
    /// Builds the index of a catalog.
    pub fn new(catalog: &Catalog) -> Index {
        let entries = catalog.entries();
        let mut names = Vec::with_capacity(entries.len());
        let mut plain_names = Vec::with_capacity(entries.len());
        // term → entry → best field weight
        let mut postings: HashMap<String, HashMap<u32, f32>> = HashMap::new();
        for (i, entry) in entries.iter().enumerate() {
            let name = entry.name();
            let bare = name.split_once(':').map_or(name, |(_, rest)| rest).to_lowercase();
            let mut plain = vec![bare];
            plain.extend(entry.aliases().iter().map(|a| a.to_lowercase()));
            names.push(plain.iter().map(|s| Utf32String::from(s.as_str())).collect());
            let mut add = |text: &str, weight: f32| {
                for word in split_words(text) {
                    let slot = postings.entry(stem(&word)).or_default().entry(i as u32).or_insert(0.0);
                    *slot = slot.max(weight);
                }
            };
            add(entry.title(), TITLE_WORD);
            // Parts of the name count as title words: "relativenumber" has no spaces,
            // but "cmd:tab_new" or "script:cargo:test" do.
            add(&name.replace(':', " "), TITLE_WORD);
            add(entry.description(), DOC_WORD);
            plain_names.push(plain);
        }
        let n = entries.len().max(1) as f32;
        let mut words = HashMap::with_capacity(postings.len());
        for (term, docs) in postings {
            let idf = (1.0 + n / docs.len() as f32).ln() / (1.0 + n).ln();
            let mut list: Vec<(u32, f32)> = docs.into_iter().map(|(d, w)| (d, w * idf)).collect();
            list.sort_by_key(|&(d, _)| d);
            words.insert(term, list);
        }
        let mut vocabulary: Vec<String> = words.keys().cloned().collect();
        vocabulary.sort();
        Index { names, plain_names, words, vocabulary }
    }
}

/// The index of `catalog`, built on first use and kept with it.
fn index(catalog: &Catalog) -> &Index {
    catalog.rank_index().get_or_init(|| Index::new(catalog))
}

thread_local! {
    static MATCHER: std::cell::RefCell<Matcher> = std::cell::RefCell::new(Matcher::new(nucleo::Config::DEFAULT));
}

/// Ranks the catalog against a request and returns at most `limit` entries, best first.
pub fn rank<'a>(catalog: &'a Catalog, request: &str, limit: usize, mode: Mode) -> Vec<Ranked<'a>> {
    let words = query_words(request);
    if words.is_empty() || limit == 0 {
        return Vec::new();
    }
    let idx = index(catalog);
    let n = catalog.len();
    let mut total = vec![0f32; n];
    let mut matched = vec![0u16; n];
    let mut word_score = vec![0f32; n];
    MATCHER.with(|m| {
        let mut matcher = m.borrow_mut();
        for word in &words {
            word_score.iter_mut().for_each(|s| *s = 0.0);
            score_word(idx, word, &mut matcher, &mut word_score);
            for i in 0..n {
                if word_score[i] > 0.0 {
                    total[i] += word_score[i];
                    matched[i] += 1;
                }
            }
        }
    });
    let needed = match mode {
        Mode::Any => 1,
        Mode::All => words.len() as u16,
    };
    let mut ranked: Vec<(u32, usize)> = (0..n)
        .filter(|&i| matched[i] >= needed && total[i] > 0.0)
        .map(|i| ((total[i] * 100.0).round() as u32, i))
        .collect();
    let entries = catalog.entries();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| entries[a.1].name().cmp(entries[b.1].name())));
    ranked.truncate(limit);
    ranked.into_iter().map(|(score, i)| Ranked { entry: &entries[i], score }).collect()
}

/// Adds one word's score for every entry into `out`.
fn score_word(idx: &Index, word: &str, matcher: &mut Matcher, out: &mut [f32]) {
    // Names: an exact hit beats everything; otherwise a fuzzy match counts when it is good.
    let atom = Atom::new(word, CaseMatching::Ignore, Normalization::Smart, AtomKind::Fuzzy, false);
    let perfect = atom.score(Utf32Str::Ascii(word.as_bytes()), matcher).unwrap_or(1).max(1) as f32;
    let fuzzy = word.chars().count() >= 3;
    for (i, names) in idx.names.iter().enumerate() {
        if idx.plain_names[i].iter().any(|n| n == word) {
            out[i] += EXACT_NAME;
            continue;
        }
        if fuzzy {
            let best = names.iter().filter_map(|n| atom.score(n.slice(..), matcher)).max();
            if let Some(s) = best {
                let quality = s as f32 / perfect;
                if quality >= 0.5 {
                    out[i] += FUZZY_NAME * quality.min(1.0);
                }
            }
        }
    }
    // Titles and documentation: the stemmed word, or words it begins.
    let stemmed = stem(word);
    let mut best: HashMap<u32, f32> = HashMap::new();
    if let Some(list) = idx.words.get(&stemmed) {
        for &(d, w) in list {
            best.insert(d, w);
        }
    }
    if stemmed.chars().count() >= 4 {
        let start = idx.vocabulary.partition_point(|t| t.as_str() < stemmed.as_str());
        for term in idx.vocabulary[start..].iter().take_while(|t| t.starts_with(stemmed.as_str())).skip_while(|t| **t == stemmed) {
            if let Some(list) = idx.words.get(term) {
                for &(d, w) in list {
                    let w = w * TITLE_PREFIX / TITLE_WORD;
                    let slot = best.entry(d).or_insert(0.0);
                    *slot = slot.max(w);
                }
            }
        }
    }
    for (d, w) in best {
        out[d as usize] += w;
    }
}

/// Forces the index to be built now (so the first request does not pay for it).
pub fn prepare(catalog: &Catalog) {
    index(catalog);
}

/// Exposed for the catalog's storage of the index.
pub(crate) type IndexCell = OnceLock<Index>;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn catalog() -> Catalog {
        Catalog::from_value(&json!({"version": 1, "editor": "neovim", "entries": [
            {"id": "cmd:vsplit", "kind": "command", "title": "split current window vertically", "aliases": ["vs"], "args": "optional", "reach": "safe"},
            {"id": "cmd:split", "kind": "command", "title": "split current window", "aliases": ["sp"], "args": "optional", "reach": "safe"},
            {"id": "cmd:make", "kind": "command", "title": "execute external command 'makeprg' and parse error messages", "args": "optional", "reach": "shell"},
            {"key": "wrap", "title": "long lines wrap", "type": "boolean"},
            {"key": "wrapscan", "title": "searches wrap around the end of the file", "type": "boolean", "aliases": ["ws"]},
            {"key": "linebreak", "title": "wrap long lines at a blank", "type": "boolean", "aliases": ["lbr"]},
            {"key": "guifont", "title": "GUI: Name(s) of font(s) to be used", "type": "string", "aliases": ["gfn"]},
            {"key": "tabstop", "title": "number of spaces a <Tab> in the text stands for", "type": "number", "aliases": ["ts"]},
            {"key": "relativenumber", "title": "show relative line number in front of each line", "type": "boolean", "aliases": ["rnu"]},
            {"key": "number", "title": "print the line number in front of each line", "type": "boolean", "aliases": ["nu"]},
            {"key": "swapfile", "title": "whether to use a swapfile for a buffer", "type": "boolean", "aliases": ["swf"],
             "description": "Use a swapfile for the buffer. Recovery is possible after a crash."}
        ]}))
        .unwrap()
    }

    fn ids(c: &Catalog, q: &str, mode: Mode) -> Vec<String> {
        rank(c, q, 10, mode).iter().map(|r| r.entry.name().to_string()).collect()
    }

    #[test]
    fn stopwords_are_dropped_and_words_kept_in_order() {
        assert_eq!(query_words("Please make the font bigger and turn on word wrap!"), ["make", "font", "bigger", "turn", "on", "word", "wrap"]);
        assert!(query_words("the of a to").is_empty());
        assert!(rank(&catalog(), "the of a to", 10, Mode::Any).is_empty());
    }

    #[test]
    fn stems_meet() {
        assert_eq!(stem("wrapping"), "wrap");
        assert_eq!(stem("wraps"), "wrap");
        assert_eq!(stem("wrapped"), "wrap");
        assert_eq!(stem("lines"), "line");
        assert_eq!(stem("searches"), "search");
        assert_eq!(stem("recovery"), "recovery");
        assert_eq!(stem("class"), "class");
    }

    #[test]
    fn an_exact_name_or_alias_hit_beats_a_fuzzy_title_hit() {
        let c = catalog();
        assert_eq!(ids(&c, "wrap", Mode::Any)[0], "wrap");
        assert_eq!(ids(&c, "vs", Mode::Any)[0], "cmd:vsplit");
        assert_eq!(ids(&c, "ts", Mode::Any)[0], "tabstop");
    }

    #[test]
    fn any_mode_adds_up_across_words() {
        let c = catalog();
        let got = ids(&c, "make the font bigger and turn on word wrap", Mode::Any);
        assert!(got.iter().take(4).any(|i| i == "guifont"), "{got:?}");
        assert!(got.iter().take(4).any(|i| i == "wrap"), "{got:?}");
        let rel = ids(&c, "relative line numbers", Mode::Any);
        assert_eq!(rel[0], "relativenumber", "{rel:?}");
    }

    #[test]
    fn all_mode_needs_every_word() {
        let c = catalog();
        let got = ids(&c, "split vertically", Mode::All);
        assert_eq!(got, ["cmd:vsplit"]);
        assert!(ids(&c, "split font", Mode::All).is_empty());
        assert!(ids(&c, "split font", Mode::Any).len() >= 3);
    }

    #[test]
    fn documentation_words_are_searchable_with_a_lower_weight() {
        let c = catalog();
        let got = rank(&c, "crash recovery", 10, Mode::Any);
        assert_eq!(got[0].entry.name(), "swapfile");
    }

    #[test]
    fn ties_are_ordered_by_name_and_ranking_is_deterministic() {
        let c = catalog();
        let a = rank(&c, "line", 20, Mode::Any);
        let b = rank(&c, "line", 20, Mode::Any);
        let pairs = |r: &[Ranked]| r.iter().map(|x| (x.entry.name().to_string(), x.score)).collect::<Vec<_>>();
        assert_eq!(pairs(&a), pairs(&b));
        for w in a.windows(2) {
            assert!(w[0].score > w[1].score || (w[0].score == w[1].score && w[0].entry.name() < w[1].entry.name()));
        }
    }

    #[test]
    fn limit_is_respected() {
        assert_eq!(rank(&catalog(), "line wrap split", 2, Mode::Any).len(), 2);
        assert!(rank(&catalog(), "wrap", 0, Mode::Any).is_empty());
    }
}
