//! Typos in a request ("turn on spellchek", "line nubmers off", "tunr off wrap"): a word
//! that neither the offline planner's vocabulary nor the catalog knows, one keystroke
//! away from exactly one word they use, is read as that word.
//!
//! One keystroke is one letter changed to a key next to it, added or dropped (for words
//! of five letters and more) or two neighbours swapped; the first letter is never the
//! typo. A word with two such readings, a short word, a number and a request in another
//! language are left as typed: a wrong reading is worse than none, and a word left
//! unknown stops the plan. A word that needs no explaining ("would", "turn") is read
//! only from a swap ("tunr").

use std::collections::BTreeSet;
use std::sync::OnceLock;

use crate::catalog::Catalog;
use crate::entry::Entry;
use crate::rank::{stem, to_english};

/// The words the planner itself reads: its vocabulary and its lists of on/off words,
/// filler, units and the like.
fn own() -> &'static BTreeSet<String> {
    static OWN: OnceLock<BTreeSet<String>> = OnceLock::new();
    OWN.get_or_init(|| {
        super::phrases::vocabulary_words()
            .into_iter()
            .chain(super::request::own_words())
            .chain(super::EDIT_VERBS.iter().copied())
            .chain(super::GENERIC.iter().copied())
            .map(str::to_lowercase)
            .filter(|w| w.chars().all(char::is_alphabetic))
            .collect()
    })
}

/// `request` with its typos read as the words meant, or `None` when it has none.
pub(super) fn correct(request: &str, catalog: &Catalog, colorschemes: &[String]) -> Option<String> {
    if to_english(request).is_some() {
        return None;
    }
    let mut out = String::with_capacity(request.len());
    let mut at = 0;
    let mut changed = false;
    for (a, b) in words(request) {
        let typed = request[a..b].to_lowercase();
        if typed.chars().count() < 4
            || !typed.chars().all(char::is_alphabetic)
            || known_here(&typed, own())
            || colorschemes.iter().any(|c| c.eq_ignore_ascii_case(&typed))
            || in_catalog(&typed, catalog)
        {
            continue;
        }
        // What a typo may be read as: the planner's words and the catalog's names.
        let names = catalog.entries().iter().map(name).filter(|n| !n.contains(char::is_uppercase));
        let meant: Vec<&str> = own()
            .iter()
            .map(String::as_str)
            .chain(names)
            .filter(|t| one_keystroke(&typed, t) && (!silent().contains(t) || swapped(&typed, t)))
            .collect();
        let Some(first) = meant.first() else { continue };
        // Two readings that are one word's forms ("column", "columns") are one reading.
        if meant.iter().any(|t| stem(t) != stem(first)) {
            continue;
        }
        out.push_str(&request[at..a]);
        out.push_str(first);
        at = b;
        changed = true;
    }
    out.push_str(&request[at..]);
    changed.then_some(out)
}

/// An entry's own name: a setting's key, an item's id without its source.
fn name(entry: &Entry) -> &str {
    match entry {
        Entry::Setting(s) => s.key.as_str(),
        Entry::Item(i) => i.id.rsplit(':').next().unwrap_or(&i.id),
    }
}

/// Whether the catalog uses `word` (lower case): as a name, in a title or an alias, or
/// as a plural or singular of one of those words.
fn in_catalog(word: &str, catalog: &Catalog) -> bool {
    let same = |w: &str| {
        w.eq_ignore_ascii_case(word)
            || word.strip_suffix('s').is_some_and(|one| w.eq_ignore_ascii_case(one))
            || w.strip_suffix(['s', 'S']).is_some_and(|one| one.eq_ignore_ascii_case(word))
    };
    catalog.entries().iter().any(|e| {
        same(name(e))
            || std::iter::once(e.title())
                .chain(e.aliases().iter().map(String::as_str))
                .any(|text| text.split(|c: char| !c.is_alphanumeric()).any(same))
    })
}

/// Words that need no explaining: read from a typo only when two letters were swapped.
fn silent() -> &'static BTreeSet<&'static str> {
    static SILENT: OnceLock<BTreeSet<&'static str>> = OnceLock::new();
    SILENT.get_or_init(|| super::request::silent_words().collect())
}

/// Whether `typed` is `meant` with two neighbouring letters swapped.
fn swapped(typed: &str, meant: &str) -> bool {
    typed.len() == meant.len() && typed.chars().count() == meant.chars().count() && one_keystroke(typed, meant) && {
        let diff = typed.chars().zip(meant.chars()).filter(|(a, b)| a != b).count();
        diff == 2
    }
}

/// Whether `word` is one of `set`, or a form of one ("paragraph", "paragraphs").
fn known_here(word: &str, set: &BTreeSet<String>) -> bool {
    let mine = stem(word);
    set.contains(word)
        || set.contains(&mine)
        || word.strip_suffix('s').is_some_and(|w| set.contains(w))
        || set.contains(&format!("{word}s"))
        || set.range(mine.clone()..).take_while(|w| w.starts_with(&mine)).any(|w| stem(w) == mine)
}

/// Whether two letters are neighbours on a QWERTY keyboard: a changed letter is a typo
/// only then ("blink" is no "blank").
fn neighbours(a: char, b: char) -> bool {
    const ROWS: [&str; 3] = ["qwertyuiop", "asdfghjkl", "zxcvbnm"];
    let at = |c: char| ROWS.iter().enumerate().find_map(|(r, row)| row.find(c).map(|i| (r as i32, i as i32)));
    match (at(a), at(b)) {
        // Each row sits about half a key right of the one above it.
        (Some((ra, ia)), Some((rb, ib))) => match ra - rb {
            0 => (ia - ib).abs() == 1,
            1 => ia == ib || ia + 1 == ib,
            -1 => ib == ia || ib + 1 == ia,
            _ => false,
        },
        _ => false,
    }
}

/// The byte spans of the request's words (letters, digits, `'` and `_`).
fn words(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        let inside = c.is_alphanumeric() || c == '\'' || c == '_';
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

/// Whether `typed` is `meant` with one keystroke wrong: two neighbours swapped (words of
/// four letters and more), or one letter changed, added or dropped (five and more); the
/// first letter is never the typo.
fn one_keystroke(typed: &str, meant: &str) -> bool {
    let a: Vec<char> = typed.chars().collect();
    let b: Vec<char> = meant.chars().collect();
    if a == b || a.first() != b.first() || b.len() < 4 {
        return false;
    }
    if a.len() == b.len() {
        let diff: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
        return match diff.as_slice() {
            [i] => b.len() >= 5 && *i > 0 && neighbours(a[*i], b[*i]),
            [i, j] => *j == i + 1 && a[*i] == b[*j] && a[*j] == b[*i],
            _ => false,
        };
    }
    if b.len() < 5 {
        return false;
    }
    let (long, short) = if a.len() > b.len() { (&a, &b) } else { (&b, &a) };
    if long.len() != short.len() + 1 {
        return false;
    }
    // The one position where the longer has a letter the shorter lacks.
    let at = (0..short.len()).find(|&i| long[i] != short[i]).unwrap_or(short.len());
    at > 0 && long[at + 1..] == short[at..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_keystroke_away() {
        assert!(one_keystroke("tunr", "turn"), "swapped");
        assert!(one_keystroke("nubmers", "numbers"));
        assert!(one_keystroke("splt", "split"), "dropped");
        assert!(one_keystroke("relativ", "relative"));
        assert!(one_keystroke("spellchek", "spellcheck"));
        assert!(!one_keystroke("wrapp", "wrap"), "a four-letter word only by a swap");
        assert!(!one_keystroke("nord", "word"));
        assert!(!one_keystroke("xplit", "split"), "never the first letter");
        assert!(!one_keystroke("split", "split"));
        assert!(!one_keystroke("spilt", "spell"));
        assert!(one_keystroke("sprll", "spell"), "a key next to the one meant");
        assert!(!one_keystroke("blink", "blank"), "not next to each other: another word");
    }

    fn catalog() -> Catalog {
        Catalog::from_json(
            r#"{"version": 1, "editor": "neovim", "entries": [
                {"key": "number", "kind": "setting", "type": "boolean", "title": "print the line number"},
                {"key": "tabstop", "kind": "setting", "type": "number", "title": "number of spaces a tab counts for"},
                {"id": "cmd:vsplit", "kind": "command", "title": "split current window vertically", "args": "optional", "reach": "safe"}]}"#,
        )
        .unwrap()
    }

    #[test]
    fn typos_are_read_as_the_word_meant() {
        let c = catalog();
        assert_eq!(correct("line nubmers off", &c, &[]).as_deref(), Some("line numbers off"));
        assert_eq!(correct("tunr off wrap", &c, &[]).as_deref(), Some("turn off wrap"));
        assert_eq!(correct("set tabstp to 4", &c, &[]).as_deref(), Some("set tabstop to 4"));
        assert_eq!(correct("Splt the window", &c, &[]).as_deref(), Some("split the window"));
        // A word that needs no explaining is read from a swap only: "world" is no
        // "would", or "save the world" would save the file.
        assert_eq!(correct("save the world", &c, &[]), None);
    }

    #[test]
    fn known_words_names_and_other_languages_stay() {
        let c = catalog();
        assert_eq!(correct("turn off wrap", &c, &[]), None);
        assert_eq!(correct("colorscheme nord", &c, &[]), None, "no word one keystroke away");
        assert_eq!(correct("use the dessert theme", &c, &["dessert".into()]), None, "an installed scheme");
        assert_eq!(correct("Zeilenumbruch ausschalten", &c, &[]), None);
    }
}
