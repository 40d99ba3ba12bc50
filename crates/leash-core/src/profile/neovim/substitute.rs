//! A `:substitute` argument read the way Neovim reads it (`do_sub` in `ex_cmds.c`): a new
//! pattern, replacement and flags, or a repeat of the last substitute. The reach rule
//! (only a replacement that evaluates an expression is `code`) and the plan window's dry
//! run both read it from here.
//!
//! Where the pattern ends is read as Neovim's `skip_regexp` reads it, collections
//! (`[/]`) included. The reach rule does not depend on that reading: a replacement always
//! starts right after a delimiter, so "a delimiter followed by `\=`" anywhere after the
//! first one finds every expression, whatever the pattern holds.

/// The commands that read their argument as `:substitute` does.
pub const COMMANDS: [&str; 3] = ["substitute", "smagic", "snomagic"];

/// What a `:substitute` argument asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Form<'a> {
    /// No new pattern (`:s`, `:s g`, `:s 3`): the last substitute again, pattern and
    /// replacement, and that replacement may have been an expression.
    Repeat,
    /// Neither a new substitute nor a repeat (`:sx`, a delimiter that is not ASCII):
    /// Neovim refuses it, and nothing here claims to know what it does.
    Unreadable,
    /// A new pattern and replacement.
    New(Parts<'a>),
}

/// The parts of a new substitute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts<'a> {
    pub delim: u8,
    /// The pattern; empty for the last search pattern (`//`, `\/`, `\?`, `\&`).
    pub pattern: &'a str,
    pub replacement: &'a str,
    /// The flag letters (`g`, `c`, `i`…), with a leading `&` that keeps the last flags.
    pub flags: &'a str,
    /// What follows the flags: a count, a comment, or text Neovim refuses.
    pub rest: &'a str,
    /// The pattern holds a collection (`[…]`), so its end was found by the collection
    /// rules of `skip_anyof`.
    pub collection: bool,
}

/// Read `arg` (the command's arguments joined by spaces, as `nvim_cmd` joins them).
pub fn parse(arg: &str) -> Form<'_> {
    let bytes = arg.as_bytes();
    let Some(&first) = bytes.first() else { return Form::Repeat };
    if first.is_ascii_whitespace() || b"0123456789cegriIp|\"".contains(&first) {
        return Form::Repeat;
    }
    if first.is_ascii_alphabetic() || !first.is_ascii() || first.is_ascii_control() {
        return Form::Unreadable;
    }
    let (delim, pattern, after_pattern, collection) = if first == b'\\' {
        // `\/sub/`, `\?sub?`: the last search pattern; `\&sub&`: the last substitute pattern.
        match bytes.get(1) {
            Some(&d @ (b'/' | b'?' | b'&')) => (d, "", 2, false),
            _ => return Form::Unreadable,
        }
    } else {
        let end = pattern_end(arg, 1, first);
        let collection = arg[1..end].contains('[');
        let after = if bytes.get(end) == Some(&first) { end + 1 } else { end };
        (first, &arg[1..end], after, collection)
    };
    let repl_end = replacement_end(arg, after_pattern, delim);
    let replacement = &arg[after_pattern..repl_end];
    let flags_start = if bytes.get(repl_end) == Some(&delim) { repl_end + 1 } else { repl_end };
    let mut flags_end = flags_start;
    if bytes.get(flags_end) == Some(&b'&') {
        flags_end += 1;
    }
    while bytes.get(flags_end).is_some_and(|b| b"gcnerp#liI".contains(b)) {
        flags_end += 1;
    }
    Form::New(Parts {
        delim,
        pattern,
        replacement,
        flags: &arg[flags_start..flags_end],
        rest: &arg[flags_end..],
        collection,
    })
}

/// Why `:substitute arg` reaches `code`, or `None` when it only changes text.
pub fn code_reason(arg: &str) -> Option<&'static str> {
    let parts = match parse(arg) {
        Form::Repeat => return Some("it repeats the last substitute, whose replacement may be an expression"),
        Form::Unreadable => return Some("leash cannot read it as a pattern and a replacement"),
        Form::New(parts) => parts,
    };
    // Every replacement starts right after a delimiter: this finds an expression
    // wherever the pattern really ends.
    let expression = [parts.delim, b'\\', b'='];
    if arg.as_bytes().get(1..).is_some_and(|rest| rest.windows(3).any(|w| w == expression)) {
        return Some("its replacement is an expression (\\=), which runs code");
    }
    if parts.replacement.contains('~') {
        return Some("its replacement has “~”, which inserts the previous replacement");
    }
    None
}

/// The end of a pattern that starts at `start` and ends at `delim` (exclusive; the
/// length of `arg` when no delimiter ends it): `skip_regexp` with 'magic' on.
pub fn pattern_end(arg: &str, start: usize, delim: u8) -> usize {
    let b = arg.as_bytes();
    let mut magic = true;
    let mut p = start;
    while p < b.len() {
        if b[p] == delim {
            return p;
        }
        if (b[p] == b'[' && magic) || (b[p] == b'\\' && b.get(p + 1) == Some(&b'[') && !magic) {
            // Neovim hands `skip_anyof` the byte after `[` (after `\` for `\[`).
            p = skip_collection(b, p + 1);
            if p >= b.len() {
                return b.len();
            }
        } else if b[p] == b'\\' && p + 1 < b.len() {
            p += 1;
            match b[p] {
                b'v' | b'm' => magic = true,
                b'V' | b'M' => magic = false,
                _ => {}
            }
        }
        p = next_char(arg, p);
    }
    b.len()
}

/// The end of a replacement that starts at `start` (`skip_substitute`): the next
/// delimiter not escaped by a backslash.
fn replacement_end(arg: &str, start: usize, delim: u8) -> usize {
    let b = arg.as_bytes();
    let mut p = start;
    while p < b.len() {
        if b[p] == delim {
            return p;
        }
        if b[p] == b'\\' && p + 1 < b.len() {
            p += 1;
        }
        p = next_char(arg, p);
    }
    b.len()
}

/// `skip_anyof`: from the byte after `[` to the `]` that closes the collection (or the
/// end). The caller steps past the byte returned.
fn skip_collection(b: &[u8], mut p: usize) -> usize {
    const IN_RANGE: &[u8] = b"]^-n\\";
    const ABBREVIATIONS: &[u8] = b"nrtebdoxuU";
    if b.get(p) == Some(&b'^') {
        p += 1;
    }
    if matches!(b.get(p), Some(b']' | b'-')) {
        p += 1;
    }
    while p < b.len() && b[p] != b']' {
        if b[p] >= 0x80 {
            p += utf8_len(b[p]);
        } else if b[p] == b'-' {
            p += 1;
            if p < b.len() && b[p] != b']' {
                p += if b[p] >= 0x80 { utf8_len(b[p]) } else { 1 };
            }
        } else if b[p] == b'\\' && b.get(p + 1).is_some_and(|c| IN_RANGE.contains(c) || ABBREVIATIONS.contains(c)) {
            p += 2;
        } else if b[p] == b'[' {
            match class_len(&b[p..]) {
                Some(n) => p += n,
                None => p += 1,
            }
        } else {
            p += 1;
        }
    }
    p.min(b.len())
}

/// The length of `[:alpha:]`, `[=a=]` or `[.a.]` at the start of `b`.
fn class_len(b: &[u8]) -> Option<usize> {
    const CLASSES: [&str; 19] = [
        "alnum:]",
        "alpha:]",
        "blank:]",
        "cntrl:]",
        "digit:]",
        "graph:]",
        "lower:]",
        "print:]",
        "punct:]",
        "space:]",
        "upper:]",
        "xdigit:]",
        "tab:]",
        "return:]",
        "backspace:]",
        "escape:]",
        "ident:]",
        "keyword:]",
        "fname:]",
    ];
    if b.get(1) == Some(&b':') {
        if let Some(c) = CLASSES.iter().find(|c| b[2..].starts_with(c.as_bytes())) {
            return Some(c.len() + 2);
        }
    }
    for mark in [b'=', b'.'] {
        if b.get(1) == Some(&mark) && b.len() > 2 {
            let l = if b[2] >= 0x80 { utf8_len(b[2]) } else { 1 };
            if b.get(l + 2) == Some(&mark) && b.get(l + 3) == Some(&b']') {
                return Some(l + 4);
            }
        }
    }
    None
}

fn utf8_len(lead: u8) -> usize {
    match lead {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    }
}

/// The byte after the character at `p`.
fn next_char(s: &str, p: usize) -> usize {
    s[p..].chars().next().map_or(p + 1, |c| p + c.len_utf8())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(arg: &str) -> Parts<'_> {
        match parse(arg) {
            Form::New(p) => p,
            other => panic!("{arg:?} read as {other:?}"),
        }
    }

    #[test]
    fn reads_pattern_replacement_and_flags() {
        let p = parts("/apple/APPLE/gi 3");
        assert_eq!((p.delim, p.pattern, p.replacement, p.flags, p.rest), (b'/', "apple", "APPLE", "gi", " 3"));
        let p = parts("#a\\#b#c\\#d#&g");
        assert_eq!((p.pattern, p.replacement, p.flags), ("a\\#b", "c\\#d", "&g"));
        let p = parts("/x");
        assert_eq!((p.pattern, p.replacement, p.flags), ("x", "", ""));
        let p = parts("\\/new/");
        assert_eq!((p.delim, p.pattern, p.replacement), (b'/', "", "new"));
    }

    #[test]
    fn a_delimiter_inside_a_collection_does_not_end_the_pattern() {
        let p = parts("/[/]/x/g");
        assert_eq!((p.pattern, p.replacement, p.flags, p.collection), ("[/]", "x", "g", true));
        let p = parts("/[[:alpha:]/]\\+/_/");
        assert_eq!((p.pattern, p.replacement), ("[[:alpha:]/]\\+", "_"));
        let p = parts("/[]/]/y/");
        assert_eq!((p.pattern, p.replacement), ("[]/]", "y"));
        // No closing bracket: the rest is the pattern, as Neovim reads it.
        let p = parts("/a[/b/");
        assert_eq!((p.pattern, p.replacement), ("a[/b/", ""));
        // With \V a bracket is a plain character.
        let p = parts("/\\V[/x/");
        assert_eq!((p.pattern, p.replacement), ("\\V[", "x"));
    }

    #[test]
    fn repeats_and_unreadable_forms() {
        for arg in ["", " /a/b/", "g", "3", "c", "|x", "\"x"] {
            assert_eq!(parse(arg), Form::Repeat, "{arg:?}");
        }
        // `&` is a delimiter like any other: an empty pattern and replacement.
        let p = parts("&");
        assert_eq!((p.delim, p.pattern, p.replacement), (b'&', "", ""));
        assert_eq!(parse("xay"), Form::Unreadable);
        assert_eq!(parse("\\xa"), Form::Unreadable);
        assert_eq!(parse("éaéb"), Form::Unreadable);
    }

    #[test]
    fn only_an_expression_or_a_repeat_is_code() {
        for edit in
            ["/apple/APPLE/g", "/colou\\=r/color/", "#a#b#", "/\\(a\\)/\\1\\r&/", "/[=]/x/", "/a/b/&", "/[/]\\=x/y/"]
        {
            assert_eq!(code_reason(edit), None, "{edit:?}");
        }
        for code in [
            "/x/\\=system('id')/",
            "#x#\\=system('id')#",
            "/[/\\=x/y/",
            "\\/\\=1/",
            "//\\=1/",
            "/a/~/",
            "/a/x~y/",
            "",
            " g",
            "3",
        ] {
            assert!(code_reason(code).is_some(), "{code:?}");
        }
    }
}
