//! Names that the editor reads or writes through a handler instead of by itself.
//!
//! Neovim's bundled gzip plugin runs `gzip`, `xz`, `lz4`… when a `*.gz`, `*.xz`, `*.lz4`
//! name is read or written; the tar and zip plugins run `tar` and `unzip`; netrw runs
//! `scp` and `curl`. Which names are handled depends on the plugins actually loaded, so
//! the frontend reports them with the catalog (`name_handlers`, from the autocommands it
//! finds) instead of leash keeping a list that goes stale (the last one missed `.lz4`
//! and `.bz3`). A step whose file argument is such a name reaches what the handler
//! reaches: as far as leash knows, a program.
//!
//! Patterns are Neovim autocommand file patterns (`*.gz`, `*.[Zz]`, `{a,b}.x`,
//! `zipfile:*`), matched without regard to case (stricter than Neovim): against the
//! whole name and, as Neovim does for a pattern without `/`, against its last component.

use serde::{Deserialize, Serialize};

/// One autocommand that reads or writes names matching `pattern` in the editor's place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameHandler {
    /// The autocommand's file pattern, e.g. `*.gz`.
    pub pattern: String,
    /// The event it runs on, e.g. `BufReadPost` (shown in messages).
    #[serde(default)]
    pub event: String,
    /// Its group, e.g. `gzip` (shown in messages).
    #[serde(default)]
    pub group: String,
}

impl NameHandler {
    /// Whether `name` (a file name as given, relative or absolute) is handled.
    pub fn matches(&self, name: &str) -> bool {
        let pattern = self.pattern.to_lowercase();
        let name = name.trim_end_matches(['/', '\\']).to_lowercase();
        if name.is_empty() || pattern.is_empty() {
            return false;
        }
        let tail = name.rsplit('/').next().unwrap_or(&name);
        glob_matches(&pattern, &name) || glob_matches(&pattern, tail)
    }

    /// "an autocommand of “gzip” (BufReadPost *.gz)", for messages.
    pub fn describe(&self) -> String {
        let group = if self.group.is_empty() { "no group" } else { &self.group };
        format!("an autocommand of “{group}” ({} {})", self.event, self.pattern)
    }
}

/// The first handler that claims `name`, if any.
pub fn handler_for<'a>(handlers: &'a [NameHandler], name: &str) -> Option<&'a NameHandler> {
    handlers.get(handler_index(handlers, name)?)
}

/// The position in `handlers` of the one [`handler_for`] finds for `name`, if any.
pub fn handler_index(handlers: &[NameHandler], name: &str) -> Option<usize> {
    handlers.iter().position(|h| h.matches(name))
}

/// The names in one file argument: Neovim splits the arguments of `:args`, `:argadd`,
/// `:next`, `:drop`, `:vimgrep`… at white space, and `:edit` takes the whole argument.
/// Both readings are returned, so a handled name is found either way.
pub fn names_in(arg: &str) -> impl Iterator<Item = &str> {
    std::iter::once(arg.trim()).chain(arg.split(char::is_whitespace)).filter(|w| !w.is_empty())
}

/// Whether `text` matches the Neovim file pattern `pattern` (`*` also crosses `/`, as in
/// autocommand patterns; `?`, `[…]`, `[^…]`/`[!…]`, `{a,b}` and `\x` escapes).
pub fn glob_matches(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    match_at(&p, &t)
}

fn match_at(p: &[char], t: &[char]) -> bool {
    let Some((&c, rest)) = p.split_first() else {
        return t.is_empty();
    };
    match c {
        '*' => (0..=t.len()).any(|skip| match_at(rest, &t[skip..])),
        '?' => !t.is_empty() && match_at(rest, &t[1..]),
        '[' => match class(rest) {
            Some((set, negated, after)) => {
                !t.is_empty() && (set.contains(&t[0]) != negated) && match_at(after, &t[1..])
            }
            None => t.first() == Some(&'[') && match_at(rest, &t[1..]),
        },
        '{' => match alternatives(rest) {
            Some((alts, after)) => alts.iter().any(|alt| {
                let mut joined = alt.clone();
                joined.extend_from_slice(after);
                match_at(&joined, t)
            }),
            None => t.first() == Some(&'{') && match_at(rest, &t[1..]),
        },
        '\\' if !rest.is_empty() => t.first() == Some(&rest[0]) && match_at(&rest[1..], &t[1..]),
        _ => t.first() == Some(&c) && match_at(rest, &t[1..]),
    }
}

/// `a-z0]…` after a `[`: the characters of the class, whether it is negated, and the rest.
fn class(p: &[char]) -> Option<(Vec<char>, bool, &[char])> {
    let (negated, mut i) = match p.first() {
        Some('^') | Some('!') => (true, 1),
        _ => (false, 0),
    };
    let mut set = Vec::new();
    let start = i;
    while i < p.len() {
        if p[i] == ']' && i > start {
            return Some((set, negated, &p[i + 1..]));
        }
        if i + 2 < p.len() && p[i + 1] == '-' && p[i + 2] != ']' {
            let (lo, hi) = (p[i], p[i + 2]);
            set.extend((lo..=hi).filter(|c| c.is_ascii() || lo <= *c));
            i += 3;
        } else {
            set.push(p[i]);
            i += 1;
        }
    }
    None
}

/// `a,b}…` after a `{`: the alternatives (nested braces kept whole) and the rest.
fn alternatives(p: &[char]) -> Option<(Vec<Vec<char>>, &[char])> {
    let mut alts = vec![Vec::new()];
    let mut depth = 0;
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            '\\' if i + 1 < p.len() => {
                alts.last_mut()?.extend_from_slice(&p[i..i + 2]);
                i += 2;
                continue;
            }
            '{' => depth += 1,
            '}' if depth == 0 => return Some((alts, &p[i + 1..])),
            '}' => depth -= 1,
            ',' if depth == 0 => {
                alts.push(Vec::new());
                i += 1;
                continue;
            }
            _ => {}
        }
        alts.last_mut()?.push(p[i]);
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(pattern: &str) -> NameHandler {
        NameHandler { pattern: pattern.into(), event: "BufReadPost".into(), group: "gzip".into() }
    }

    #[test]
    fn suffix_patterns() {
        assert!(h("*.gz").matches("notes.gz"));
        assert!(h("*.gz").matches("dir/notes.gz"));
        assert!(h("*.gz").matches("/abs/dir/NOTES.GZ"));
        assert!(h("*.lz4").matches("x.lz4"));
        assert!(h("*.gz").matches("notes.gz/"));
        assert!(!h("*.gz").matches("notes.gzip"));
        assert!(!h("*.gz").matches("gz"));
        assert!(!h("*.gz").matches(""));
        assert!(h("*.tar.gz").matches("a.tar.gz"));
    }

    #[test]
    fn other_pattern_forms() {
        assert!(glob_matches("zipfile:*", "zipfile:a.zip::b"));
        assert!(glob_matches("*.[zz]", "a.z"));
        assert!(glob_matches("*.[a-c]", "x.b"));
        assert!(!glob_matches("*.[a-c]", "x.d"));
        assert!(glob_matches("*.[^a-c]", "x.d"));
        assert!(glob_matches("*.[!a-c]", "x.d"));
        assert!(glob_matches("*.{gz,xz}", "a.xz"));
        assert!(!glob_matches("*.{gz,xz}", "a.bz"));
        assert!(glob_matches("*.shada.tmp.[a-z]", "main.shada.tmp.x"));
        assert!(glob_matches("a?c", "abc"));
        assert!(!glob_matches("a?c", "ac"));
        assert!(glob_matches("a\\*c", "a*c"));
        assert!(!glob_matches("a\\*c", "abc"));
        assert!(glob_matches("*", "anything/at/all"));
        assert!(glob_matches("[", "["));
        assert!(glob_matches("{a", "{a"));
    }

    #[test]
    fn names_in_an_argument() {
        let names: Vec<_> = names_in("a.txt  b.gz").collect();
        assert_eq!(names, vec!["a.txt  b.gz", "a.txt", "b.gz"]);
        let handlers = [h("*.txt"), h("*.gz")];
        assert_eq!(handler_for(&handlers, "b.gz").map(|h| h.pattern.as_str()), Some("*.gz"));
        assert_eq!(handler_for(&handlers, "b.md"), None);
        let both = [h("*.txt"), h("*.gz"), h("b.*")];
        assert_eq!(handler_index(&both, "b.gz"), Some(1), "the first that claims it");
        assert_eq!(handler_index(&both, "B.MD"), Some(2));
        assert_eq!(handler_index(&both, "c.md"), None);
        assert_eq!(h("*.gz").describe(), "an autocommand of “gzip” (BufReadPost *.gz)");
    }
}
