//! Requests in German, Spanish and French read in English (`languages.txt`).
//!
//! The catalog, the concepts and the documentation the ranker searches are English, so
//! "Zeilennummern anzeigen" found nothing. A request is read as one of these languages
//! when it has one of that language's editor words (one that is not also the English
//! word) and two of its words in all (or is that one word), the language with most words winning; then each of its words and phrases is replaced by
//! the English words of its line, its small words are dropped, and everything else (a
//! number, a name like `tabstop`) stays. A German compound the table lacks is read as
//! the words it is made of ("Tabulatorbreite" → "tab width"). Accents do not matter.
//! English requests come back as `None`, untouched.

use std::collections::HashMap;
use std::sync::OnceLock;

/// The data file (its header documents the format).
const SOURCE: &str = include_str!("languages.txt");

/// Longest phrase, in words.
const MAX_PHRASE: usize = 5;

struct Language {
    name: String,
    /// Phrase (folded words joined by one space) → English words.
    words: HashMap<String, String>,
    stop: Vec<String>,
}

fn languages() -> &'static [Language] {
    static ALL: OnceLock<Vec<Language>> = OnceLock::new();
    ALL.get_or_init(|| parse(SOURCE))
}

fn parse(text: &str) -> Vec<Language> {
    let mut out: Vec<Language> = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let parts: Vec<&str> = line.split('|').map(str::trim).collect();
        let mut head = parts[0].split_whitespace();
        let name = head.next().unwrap_or_default().to_string();
        let stop = head.next() == Some("stop");
        let at = match out.iter().position(|l| l.name == name) {
            Some(i) => i,
            None => {
                out.push(Language { name, words: HashMap::new(), stop: Vec::new() });
                out.len() - 1
            }
        };
        let lang = &mut out[at];
        let list = parts.get(1).copied().unwrap_or_default().split(',').map(|w| words(w).join(" "));
        if stop {
            lang.stop.extend(list);
        } else {
            let english = parts.get(2).copied().unwrap_or_default().to_string();
            for phrase in list.filter(|p| !p.is_empty()) {
                lang.words.insert(phrase, english.clone());
            }
        }
    }
    out
}

/// Lower-case words with accents folded (`é` → `e`, `ß` → `ss`); apostrophes and
/// hyphens split words (`d'état`, `Groß-`).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(fold).collect()
}

fn fold(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    for c in word.chars().flat_map(char::to_lowercase) {
        match c {
            'à' | 'á' | 'â' | 'ä' | 'ã' => out.push('a'),
            'è' | 'é' | 'ê' | 'ë' => out.push('e'),
            'ì' | 'í' | 'î' | 'ï' => out.push('i'),
            'ò' | 'ó' | 'ô' | 'ö' | 'õ' => out.push('o'),
            'ù' | 'ú' | 'û' | 'ü' => out.push('u'),
            'ç' => out.push('c'),
            'ñ' => out.push('n'),
            'ß' => out.push_str("ss"),
            c => out.push(c),
        }
    }
    out
}

/// `request` in English words if it is written in one of the table's languages.
pub fn to_english(request: &str) -> Option<String> {
    let ws = words(request);
    // One word of the language's own is enough when it is the whole request ("Speichern").
    let enough = |e: (usize, usize)| e >= (1, 2) || (ws.len() == 1 && e.0 == 1);
    let lang = languages().iter().max_by_key(|l| evidence(l, &ws)).filter(|l| enough(evidence(l, &ws)))?;
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ws.len() {
        if let Some((len, english)) = longest(lang, &ws[i..]) {
            out.push(english.to_string());
            i += len;
            continue;
        }
        if !lang.stop.contains(&ws[i]) {
            out.push(compound(lang, &ws[i]).unwrap_or_else(|| ws[i].clone()));
        }
        i += 1;
    }
    Some(out.join(" "))
}

/// How surely `ws` is written in `lang`: whether it has a word of it that is not also
/// English, and how many of its words are the language's (small ones included).
fn evidence(lang: &Language, ws: &[String]) -> (usize, usize) {
    let mut own = 0;
    let mut all = 0;
    let mut i = 0;
    while i < ws.len() {
        if let Some((len, english)) = longest(lang, &ws[i..]) {
            // A word English spells the same, or as its plural ("tabs", "colors"), says
            // nothing of the language: "enable true colors" is English.
            let phrase = ws[i..i + len].join(" ");
            if phrase != english && phrase.strip_suffix('s') != Some(english) {
                own += 1;
            }
            all += len;
            i += len;
            continue;
        }
        if lang.stop.contains(&ws[i]) {
            all += 1;
        } else if compound(lang, &ws[i]).is_some() {
            own += 1;
            all += 1;
        }
        i += 1;
    }
    (own.min(1), all)
}

/// The longest phrase of `lang` at the start of `ws`: its length in words and English.
fn longest<'a>(lang: &'a Language, ws: &[String]) -> Option<(usize, &'a str)> {
    (1..=MAX_PHRASE.min(ws.len())).rev().find_map(|n| {
        let phrase = ws[..n].join(" ");
        lang.words.get(&phrase).or_else(|| lang.words.get(plural(&phrase)?)).map(|e| (n, e.as_str()))
    })
}

/// `phrase` without a plural ending the table may not list.
fn plural(phrase: &str) -> Option<&str> {
    ["en", "es", "s", "n"].iter().find_map(|end| phrase.strip_suffix(end).filter(|rest| rest.len() >= 4))
}

/// A German compound read as two known words, with a linking `s`, `n` or `e` allowed
/// between them: "tabulatorbreite" → "tab width".
fn compound(lang: &Language, word: &str) -> Option<String> {
    if lang.name != "de" || word.len() < 8 {
        return None;
    }
    let known = |w: &str| lang.words.get(w).or_else(|| lang.words.get(plural(w)?));
    for cut in (4..=word.len() - 4).filter(|&c| word.is_char_boundary(c)) {
        let (head, tail) = word.split_at(cut);
        let Some(second) = known(tail) else { continue };
        for link in ["", "s", "n", "e", "en"] {
            if let Some(first) = head.strip_suffix(link).and_then(known) {
                return Some(format!("{first} {second}"));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn en(request: &str) -> Option<String> {
        to_english(request)
    }

    #[test]
    fn each_language_reads_as_english() {
        assert_eq!(en("Zeilennummern anzeigen").as_deref(), Some("line numbers show"));
        assert_eq!(en("Tabulatorbreite auf 4 setzen").as_deref(), Some("tab width 4 set"));
        assert_eq!(en("mostrar números de línea").as_deref(), Some("show line numbers"));
        assert_eq!(en("activer le retour à la ligne").as_deref(), Some("enable wrap"));
        assert_eq!(en("toujours afficher la barre d'état").as_deref(), Some("always show status line"));
        assert_eq!(en("Fenster vertikal teilen").as_deref(), Some("window vertical split"));
        assert_eq!(en("Speichern").as_deref(), Some("save write"), "one word of its own");
        assert_eq!(en("terminal"), None, "a word that is English too");
    }

    #[test]
    fn german_compounds_split_into_known_words() {
        assert_eq!(en("Suchergebnisse hervorheben").as_deref(), Some("search highlight"));
        assert_eq!(en("Zeilenbreite ändern").as_deref(), Some("line width change"));
    }

    #[test]
    fn english_requests_are_left_alone() {
        for r in [
            "make the font bigger and turn on word wrap",
            "open a new tab in the window",
            "show no line numbers in a file",
            "set tabstop to 4",
            "split the window vertically",
            // Words the table's languages share with English, plurals included.
            "replace all tabs with spaces in this file",
            "enable true colors in the terminal",
            "round indentation to a multiple of shiftwidth",
            "type a special character like é",
            "",
        ] {
            assert_eq!(en(r), None, "{r}");
        }
    }

    #[test]
    fn every_line_of_the_table_parses() {
        let langs = languages();
        assert_eq!(langs.iter().map(|l| l.name.as_str()).collect::<Vec<_>>(), ["de", "es", "fr"]);
        for l in langs {
            assert!(l.words.len() > 50 && l.stop.len() > 20, "{}", l.name);
            assert!(l.words.values().all(|e| !e.is_empty()), "{}: a line without English", l.name);
        }
    }
}
