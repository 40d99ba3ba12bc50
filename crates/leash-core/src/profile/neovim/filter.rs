//! The argument filter of doc/reach.md (section 4.3): the rules one argument or option
//! string must pass so that a command or option reaches no further than its row says
//! (no `+cmd`, `!`, `|`, backticks, URL schemes, expansion characters, control or
//! invisible characters; plain names where a runtime file is named).

use super::tables::Flags;
use super::MAX_TEXT_BYTES;
use crate::refusal::{Hazard, Refusal};
use crate::text::is_invisible;

pub(super) fn unsafe_arg(what: String, hazard: Hazard) -> Refusal {
    Refusal::UnsafeArgument { what, hazard }
}

/// The recipe of doc/reach.md (section 4.3) for one argument.
pub(super) fn check_arg(arg: &str, flags: Flags) -> Result<(), Refusal> {
    let what = format!("argument “{}”", shown(arg));
    check_plain_text(&what, arg)?;
    check_hazards(arg, flags).map_err(|hazard| unsafe_arg(what, hazard))?;
    if flags.xfile || flags.loads_files {
        // One argument can hold several names: `:args`, `:argadd`, `:next`, `:drop`,
        // `:vimgrep`… split their argument at white space (a backslash-escaped space
        // too), so `a.txt term://sh` adds a `term://` name that a later `:next` or
        // `:last` opens. Every word gets the rules the first one gets.
        for word in arg.split(char::is_whitespace).filter(|w| !w.is_empty()) {
            check_word(word).map_err(|hazard| {
                unsafe_arg(format!("the name “{}” in argument “{}”", shown(word), shown(arg)), hazard)
            })?;
        }
    }
    Ok(())
}

/// The rules for an argument as a whole.
pub(super) fn check_hazards(arg: &str, flags: Flags) -> Result<(), Hazard> {
    if arg.contains('`') {
        return Err(Hazard::Backtick);
    }
    let start = arg.trim_start();
    if start.starts_with('+') {
        // Every command gets this rule; the flags only make the message precise.
        let reading = match (flags.cmdarg, flags.argopt) {
            (true, _) => "a command to run (+cmd)",
            (false, true) => "an option (++opt)",
            (false, false) => "a command (+cmd) or option (++opt)",
        };
        return Err(Hazard::Plus { reading });
    }
    if start.starts_with('!') {
        return Err(Hazard::Bang);
    }
    if arg.contains('|') {
        return Err(Hazard::Bar);
    }
    if let Some(scheme) = url_scheme(start) {
        return Err(Hazard::UrlScheme { scheme: scheme.to_string() });
    }
    if flags.xfile {
        if let Some(c) = arg.chars().find(|c| "%#*?[{$".contains(*c)) {
            return Err(Hazard::Expansion { c });
        }
        if start.starts_with('~') {
            return Err(Hazard::Home);
        }
        if let Some(word) = angle_word(arg) {
            return Err(Hazard::EditorText { word: word.to_string() });
        }
    }
    Ok(())
}

/// The start-of-name rules for one white-space separated word of a file argument.
pub(super) fn check_word(word: &str) -> Result<(), Hazard> {
    if word.starts_with('+') {
        return Err(Hazard::Plus { reading: "+cmd or ++opt" });
    }
    if word.starts_with('!') {
        return Err(Hazard::Bang);
    }
    if let Some(scheme) = url_scheme(word) {
        return Err(Hazard::UrlScheme { scheme: scheme.to_string() });
    }
    if word.starts_with('~') {
        return Err(Hazard::Home);
    }
    Ok(())
}

/// Shared by arguments and option strings: bounded, and nothing that hides part of the
/// text (a control character, then any other character of [`crate::text::is_invisible`]:
/// format characters such as U+061C or tag characters, non-ASCII spaces, unassigned code
/// points…).
pub(super) fn check_plain_text(what: &str, s: &str) -> Result<(), Refusal> {
    if s.len() > MAX_TEXT_BYTES {
        return Err(Refusal::TooLong { what: what.to_string(), max: MAX_TEXT_BYTES });
    }
    if let Some(c) = s.chars().find(|c| c.is_control()) {
        return Err(Refusal::ControlCharacter { what: what.to_string(), c });
    }
    if let Some(c) = s.chars().find(|c| is_invisible(*c)) {
        return Err(Refusal::InvisibleCharacter { what: what.to_string(), c });
    }
    Ok(())
}

/// A runtime-file name (`desert`, `gcc`, `c.doxygen`): a path could source any file.
pub(super) fn check_name(s: &str) -> Result<(), Hazard> {
    let plain = s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    if s.is_empty() || !plain {
        return Err(Hazard::NotPlainName);
    }
    if s.contains("..") {
        return Err(Hazard::ParentDir);
    }
    Ok(())
}

/// `term:`, `https:`, `C:`… at the start: `[A-Za-z][A-Za-z0-9+.-]*:`.
pub(super) fn url_scheme(s: &str) -> Option<&str> {
    let mut chars = s.char_indices();
    let (_, first) = chars.next()?;
    if !first.is_ascii_alphabetic() {
        return None;
    }
    for (i, c) in chars {
        if c == ':' {
            return Some(&s[..=i]);
        }
        if !(c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-')) {
            return None;
        }
    }
    None
}

/// The first `<word>` (`<cword>`, `<cfile>`, `<sfile>`…) in `s`.
pub(super) fn angle_word(s: &str) -> Option<&str> {
    let mut rest = s;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let len = after.bytes().take_while(u8::is_ascii_alphabetic).count();
        if len > 0 && after[len..].starts_with('>') {
            return Some(&rest[open..open + len + 2]);
        }
        rest = after;
    }
    None
}

/// An argument as quoted in a message: invisible characters written out as the plan
/// window writes them (`^J`, `<U+202E>`, [`crate::text::visible`]), long ones cut.
pub(super) fn shown(s: &str) -> String {
    const MAX_CHARS: usize = 60;
    let mut cut: String = s.chars().take(MAX_CHARS).collect();
    if cut.len() < s.len() {
        cut.push('…');
    }
    crate::text::visible(&cut)
}
