//! The editor-concept vocabulary (`concepts.txt`): people's words → the editor's words.
//!
//! A concept's phrases are matched on the request's stems (stopwords dropped, words
//! consecutive); a match adds the concept's editor words to the request with a lower
//! weight than the request's own words.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::text::{query_words, stem};

/// The data file, one concept a line (its header documents the format).
pub const SOURCE: &str = include_str!("concepts.txt");

/// One line of the vocabulary.
#[derive(Debug)]
pub struct Concept {
    /// Each phrase as stems, in order.
    pub phrases: Vec<Vec<String>>,
    /// Editor words, lower-cased (not stemmed: names must stay whole).
    pub editor: Vec<String>,
    /// The example request and the entry it must bring up: only the tests read them,
    /// holding every line to a sentence it must help.
    #[cfg_attr(not(test), allow(dead_code))]
    pub example: String,
    #[cfg_attr(not(test), allow(dead_code))]
    pub expect: String,
    /// The line in the data file, for the tests' messages.
    #[cfg_attr(not(test), allow(dead_code))]
    pub line: usize,
}

/// Every concept, parsed once.
pub fn all() -> &'static [Concept] {
    static ALL: OnceLock<Vec<Concept>> = OnceLock::new();
    ALL.get_or_init(|| parse(SOURCE))
}

/// The concepts a request stem may take part in: every stem of every phrase, and
/// every phrase of two words or more written as one (its stems joined). Only these
/// concepts are tried against a request.
fn by_stem() -> &'static HashMap<String, Vec<usize>> {
    static MAP: OnceLock<HashMap<String, Vec<usize>>> = OnceLock::new();
    MAP.get_or_init(|| {
        let mut map: HashMap<String, Vec<usize>> = HashMap::new();
        for (c, concept) in all().iter().enumerate() {
            for phrase in &concept.phrases {
                let joined = (phrase.len() >= 2).then(|| phrase.concat());
                for key in phrase.iter().cloned().chain(joined) {
                    let list = map.entry(key).or_default();
                    if list.last() != Some(&c) {
                        list.push(c);
                    }
                }
            }
        }
        map
    })
}

fn parse(text: &str) -> Vec<Concept> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut cols = line.split('|').map(str::trim);
        let (Some(people), Some(editor)) = (cols.next(), cols.next()) else { continue };
        let (example, expect) = cols
            .next()
            .and_then(|e| e.split_once("=>"))
            .map_or((String::new(), String::new()), |(a, b)| (a.trim().to_string(), b.trim().to_string()));
        let phrases = people
            .split(',')
            .map(|p| query_words(p).iter().map(|w| stem(w)).collect::<Vec<_>>())
            .filter(|p| !p.is_empty())
            .collect();
        let editor = editor.split_whitespace().map(str::to_lowercase).collect();
        out.push(Concept { phrases, editor, example, expect, line: n + 1 });
    }
    out
}

/// The concepts a request's stems mention: (concept, index of the stem where the
/// phrase ends). A phrase matches when all its stems occur within a window one word
/// longer than the phrase (numbers left out), in any order ("startup message",
/// "message at startup"), or when one word is the phrase written together.
/// `skip` leaves one concept out (the tests measure what each adds).
pub fn matches(stems: &[String], skip: Option<usize>) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut candidates: Vec<usize> = stems.iter().filter_map(|s| by_stem().get(s)).flatten().copied().collect();
    candidates.sort_unstable();
    candidates.dedup();
    for c in candidates {
        let concept = &all()[c];
        if Some(c) == skip {
            continue;
        }
        let mut best: Option<usize> = None;
        for phrase in &concept.phrases {
            let mut lo = usize::MAX;
            let mut hi = 0;
            let found = phrase.iter().all(|p| match stems.iter().position(|s| s == p) {
                Some(at) => {
                    lo = lo.min(at);
                    hi = hi.max(at);
                    true
                }
                None => false,
            });
            // Numbers do not count as words between ("tabs of 2 spaces").
            if found && stems[lo..=hi].iter().filter(|s| !is_number(s)).count() <= phrase.len() + 1 {
                best = Some(best.map_or(hi, |b: usize| b.min(hi)));
            }
            // The phrase written as one word ("statusline" for "status line").
            if phrase.len() >= 2 {
                if let Some(at) = stems.iter().position(|s| is_joined(s, phrase)) {
                    best = Some(best.map_or(at, |b: usize| b.min(at)));
                }
            }
        }
        if let Some(end) = best {
            out.push((c, end));
        }
    }
    out
}

fn is_number(word: &str) -> bool {
    word.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `word` is the phrase's stems written together.
fn is_joined(word: &str, phrase: &[String]) -> bool {
    let mut rest = word;
    for p in phrase {
        match rest.strip_prefix(p.as_str()) {
            Some(r) => rest = r,
            None => return false,
        }
    }
    rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_parses_with_an_example() {
        let all = all();
        assert!(all.len() >= 40, "{}", all.len());
        for c in all {
            assert!(!c.phrases.is_empty() && !c.editor.is_empty(), "line {}", c.line);
            assert!(!c.example.is_empty() && !c.expect.is_empty(), "line {}: no example", c.line);
        }
    }

    #[test]
    fn phrases_match_nearby_stems() {
        let stems: Vec<String> = query_words("turn on soft wrapping").iter().map(|w| stem(w)).collect();
        let found = matches(&stems, None);
        let soft = all().iter().position(|c| c.editor.contains(&"linebreak".to_string())).unwrap();
        assert!(found.iter().any(|&(c, _)| c == soft), "{found:?}");
        let stems: Vec<String> = query_words("wrap lines, but make them soft").iter().map(|w| stem(w)).collect();
        assert!(!matches(&stems, None).iter().any(|&(c, _)| c == soft));
    }

    fn concept_of(editor_word: &str) -> usize {
        all().iter().position(|c| c.editor.iter().any(|w| w == editor_word)).unwrap()
    }

    fn found(request: &str, concept: usize) -> bool {
        let stems: Vec<String> = query_words(request).iter().map(|w| stem(w)).collect();
        matches(&stems, None).iter().any(|&(c, _)| c == concept)
    }

    #[test]
    fn a_phrase_written_as_one_word_matches() {
        let status = concept_of("laststatus");
        assert!(found("hide the status bar", status));
        assert!(found("hide the statusbar", status));
        assert!(found("no statuslines", status));
        assert!(!found("statusbarbaz", status));
    }

    #[test]
    fn numbers_do_not_count_as_words_between() {
        let soft = concept_of("expandtab");
        assert!(found("make tabs 8 spaces", soft));
        assert!(found("make all tabs use 2 spaces", soft));
        assert!(!found("make all tabs use many more spaces", soft));
    }
}
