//! Words: splitting, stopwords, the stemmer. The same functions process requests,
//! catalog text and the concept vocabulary, so all three meet on the same stems.

use std::borrow::Cow;

/// Words that carry no meaning in a request to an editor. ("all", "on", "off", "no"
/// and "not" stay: `:wall`, `:only`, `nowrap` and "don't" requests depend on them.)
pub(crate) const STOPWORDS: &[&str] = &[
    "a", "about", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can", "could", "do", "does",
    "for", "from", "get", "have", "how", "i", "i'd", "i'm", "if", "in", "into", "is", "it", "it's", "its", "just",
    "let", "lets", "me", "my", "of", "or", "our", "please", "pls", "plz", "so", "some", "that", "the", "their", "them",
    "then", "there", "these", "they", "this", "those", "to", "too", "us", "very", "want", "wanna", "was", "we", "what",
    "when", "where", "which", "while", "who", "why", "will", "with", "would", "you", "your",
    // The editor itself and the documentation's placeholder name: "make vim stop
    // beeping", "replace foo with bar".
    "vim", "nvim", "neovim", "foo",
];

/// Symbols people type for what the editor names in words (`~` lines, `$` at line ends).
const SYMBOLS: &[(char, &str)] =
    &[('~', "tilde"), ('$', "dollar"), ('¶', "pilcrow"), ('↪', "arrow"), ('→', "arrow"), ('·', "dot"), ('•', "dot")];

/// Lower-cased words of a text: letters, digits, `_` and inner apostrophes.
pub(crate) fn split_words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '_'))
        .map(|w| w.trim_matches('\'').to_lowercase())
        .filter(|w| !w.is_empty())
}

/// [`split_words`] of `text`, as slices of it when it is ASCII without capitals (the
/// index lowercases each entry's text once with [`lower_ascii`]: one copy of a text
/// instead of one per word); otherwise each word lowercased on its own, as there.
pub(crate) fn split_lowered(text: &str) -> Vec<Cow<'_, str>> {
    if text.is_ascii() && !text.bytes().any(|b| b.is_ascii_uppercase()) {
        text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '_'))
            .map(|w| w.trim_matches('\''))
            .filter(|w| !w.is_empty())
            .map(Cow::Borrowed)
            .collect()
    } else {
        split_words(text).map(Cow::Owned).collect()
    }
}

/// `text` lowercased when it is ASCII, for [`split_lowered`].
pub(crate) fn lower_ascii(text: Cow<'_, str>) -> Cow<'_, str> {
    if text.is_ascii() && text.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(text.to_ascii_lowercase())
    } else {
        text
    }
}

/// Catalog text without the bracket emphasis of kickstart-style descriptions: a short
/// run (1 to 3 letters or digits) in brackets joined to the letters that follow loses
/// its brackets, so "[G]oto [D]efinition" reads "Goto Definition" and "[R]e[n]ame"
/// "Rename" (split at the brackets, they would be the words "g", "oto", "d"...).
/// Other brackets stay: `[count]`, `[a-z]`, "[ ] Find buffers", `:e[dit]`.
pub(crate) fn strip_emphasis(text: &str) -> Cow<'_, str> {
    if !text.contains('[') {
        return Cow::Borrowed(text);
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '[' {
            let run = chars[i + 1..].iter().take_while(|c| c.is_alphanumeric()).count();
            let close = i + 1 + run;
            if (1..=3).contains(&run)
                && chars.get(close) == Some(&']')
                && chars.get(close + 1).is_some_and(|c| c.is_alphabetic())
            {
                out.extend(&chars[i + 1..close]);
                i = close + 1;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    Cow::Owned(out)
}

/// The request's meaningful words, lower-cased, stopwords dropped, in order, without
/// repeats. A few symbols count as the word that names them (`~` is "tilde").
pub fn query_words(request: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |word: String| {
        if !STOPWORDS.contains(&word.as_str()) && !out.contains(&word) {
            out.push(word);
        }
    };
    let mut rest = request;
    while let Some(at) = rest.find(|c: char| SYMBOLS.iter().any(|&(s, _)| s == c)) {
        let (before, after) = rest.split_at(at);
        split_words(before).for_each(&mut push);
        let c = after.chars().next().unwrap_or(' ');
        if let Some(&(_, name)) = SYMBOLS.iter().find(|&&(s, _)| s == c) {
            push(name.to_string());
        }
        rest = &after[c.len_utf8()..];
    }
    split_words(rest).for_each(&mut push);
    out
}

/// A light suffix stemmer: enough that "wrapping", "wraps" and "wrapped" meet "wrap",
/// "indentation" meets "indent" and "bigger" meets "big".
pub fn stem(word: &str) -> String {
    // Irregular forms meet their base word first ("wrote" and "written" are "write").
    let word = IRREGULAR.iter().find(|(form, _)| *form == word).map_or(word, |(_, base)| base);
    let mut out = strip_suffix(word);
    // A final silent "e" goes, so "close", "closes", "closing" and "closed" meet
    // on "clos", and "size" meets "sizing".
    if out.len() >= 4 && out.ends_with('e') && !out.ends_with("ee") {
        out.pop();
    }
    out
}

/// Irregular verb forms people use in requests, and their base form.
const IRREGULAR: &[(&str, &str)] = &[
    ("written", "write"),
    ("wrote", "write"),
    ("undone", "undo"),
    ("undid", "undo"),
    ("redone", "redo"),
    ("redid", "redo"),
    ("shown", "show"),
    ("chosen", "choose"),
    ("chose", "choose"),
    ("broken", "break"),
    ("broke", "break"),
    ("taken", "take"),
    ("took", "take"),
    ("given", "give"),
    ("gave", "give"),
    ("ran", "run"),
    ("kept", "keep"),
    ("lost", "lose"),
    ("found", "find"),
    ("made", "make"),
    ("frozen", "freeze"),
    ("froze", "freeze"),
    ("began", "begin"),
    ("begun", "begin"),
];

fn strip_suffix(word: &str) -> String {
    let w = word;
    let n = w.len();
    if !w.is_ascii() || n <= 3 {
        return w.to_string();
    }
    for (suffix, replacement, min_stem) in [
        ("ational", "ate", 3),
        ("ization", "ize", 3),
        ("ations", "", 4),
        ("ation", "", 4),
        ("iness", "y", 3),
        ("ness", "", 3),
        ("ments", "", 3),
        ("ment", "", 3),
        ("ioned", "", 5),
        ("ioning", "", 5),
        ("ions", "", 5),
        ("ion", "", 5),
        ("ings", "", 3),
        ("ing", "", 3),
        ("ies", "y", 2),
        ("ied", "y", 2),
        ("ers", "", 3),
        ("er", "", 3),
        ("est", "", 3),
        ("ed", "", 3),
        ("ly", "", 3),
        ("es", "", 4),
        ("s", "", 3),
    ] {
        if let Some(stem) = w.strip_suffix(suffix) {
            // "searches", "boxes" lose "es"; "messages", "files" only lose "s".
            if suffix == "es"
                && !(stem.ends_with("ch")
                    || stem.ends_with("sh")
                    || stem.ends_with('x')
                    || stem.ends_with('s')
                    || stem.ends_with('z'))
            {
                continue;
            }
            // "selection" meets "select", "substitution" "substitute"; "region" stays.
            if suffix.starts_with("ion") && !(stem.ends_with('t') || stem.ends_with('s')) {
                continue;
            }
            if stem.len() >= min_stem
                && !(suffix == "s" && (stem.ends_with('s') || stem.ends_with('u') || stem.ends_with('i')))
            {
                let mut out = format!("{stem}{replacement}");
                // "wrapping" → "wrapp" → "wrap"
                let b = out.as_bytes();
                if replacement.is_empty()
                    && b.len() >= 3
                    && b[b.len() - 1] == b[b.len() - 2]
                    && !matches!(b[b.len() - 1], b'l' | b's' | b'z' | b'e' | b'o' | b'd')
                {
                    out.pop();
                }
                return out;
            }
        }
    }
    w.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_from_a_lowered_text_are_the_words_of_the_text() {
        for text in [
            "Toggle 'Wrap' of LONG_lines: don't",
            "",
            "''' ' x'y' _A_ 3D",
            "Été à l'ÉCOLE ΣΊΣΥΦΟΣ Straße",
            "mixed ASCII and Ünïcode Words",
            "[G]oto [D]efinition",
        ] {
            let lowered = lower_ascii(Cow::Borrowed(text));
            let a: Vec<String> = split_lowered(&lowered).into_iter().map(Cow::into_owned).collect();
            let b: Vec<String> = split_words(text).collect();
            assert_eq!(a, b, "{text}");
        }
        // ASCII text is split into slices of the one lowered copy.
        let lowered = lower_ascii(Cow::Borrowed("Show The Line"));
        assert!(split_lowered(&lowered).iter().all(|w| matches!(w, Cow::Borrowed(_))));
    }

    #[test]
    fn bracket_emphasis_is_stripped() {
        assert_eq!(strip_emphasis("[G]oto [D]efinition"), "Goto Definition");
        assert_eq!(strip_emphasis("[S]earch [F]iles"), "Search Files");
        assert_eq!(strip_emphasis("[R]e[n]ame"), "Rename");
        assert_eq!(strip_emphasis("Open [D]iagnostic [Q]uickfix list"), "Open Diagnostic Quickfix list");
        assert_eq!(strip_emphasis("[T]oggle Inlay [H]ints"), "Toggle Inlay Hints");
        assert_eq!(strip_emphasis("[W]orkspace [S]ymbols"), "Workspace Symbols");
        // Not emphasis: placeholders, classes, a marker before a space, Vim's abbreviations.
        for plain in [
            "[count]x",
            "[a-z]",
            "[ ] Find existing buffers",
            "[?] Find recent files",
            ":e[dit]",
            "[N]%",
            "no [brackets",
        ] {
            assert_eq!(strip_emphasis(plain), plain);
        }
        let words: Vec<String> = split_words(&strip_emphasis("[G]oto [D]efinition")).collect();
        assert_eq!(words, ["goto", "definition"]);
    }

    #[test]
    fn symbols_become_words() {
        assert_eq!(query_words("hide the ~ lines"), ["hide", "tilde", "lines"]);
        assert_eq!(query_words("a$b"), ["dollar", "b"]);
    }

    #[test]
    fn more_stems() {
        assert_eq!(stem("indentation"), "indent");
        assert_eq!(stem("bigger"), "big");
        assert_eq!(stem("biggest"), "big");
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("added"), "add");
        assert_eq!(stem("messages"), stem("message"));
        assert_eq!(stem("matches"), "match");
        assert_eq!(stem("spelled"), "spell");
        assert_eq!(stem("folding"), "fold");
        assert_eq!(stem("station"), "station");
        // "-ion" after t or s: the noun meets its verb.
        assert_eq!(stem("selection"), stem("select"));
        assert_eq!(stem("substitution"), stem("substitute"));
        assert_eq!(stem("completions"), stem("complete"));
        assert_eq!(stem("region"), "region");
        assert_eq!(stem("option"), "option");
        // Irregular forms meet their base word.
        assert_eq!(stem("written"), stem("write"));
        assert_eq!(stem("wrote"), stem("writes"));
        assert_eq!(stem("undone"), "undo");
    }
}
