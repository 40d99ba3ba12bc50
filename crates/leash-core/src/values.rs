//! Setting values checked against what the catalog says the setting takes: a number
//! range (`min`/`max`), one of a fixed set (`values`), a comma list whose every item is
//! one of `values`, or a string of flags each one of `values` (`list`).
//!
//! A value in `values` is a literal or a small pattern: `{number}` stands for a decimal
//! number from 0 to 9999 without leading zeros, `{char}` for one printable character of single display width
//! other than `,`, and `{name}` for a name of letters, digits and `_`. So `context:{number}`
//! takes `context:3`, `vert:{char}` takes `vert:│`, `{name}:{name}` takes
//! `Normal:Float`. Anything else in braces is literal text.
//!
//! This knows nothing of any editor: the Neovim profile adds its own rules on top
//! (`neovim_values`), and the editor still has the last word when the step runs.

use crate::entry::{ListKind, Setting, SettingValue};
use crate::refusal::ValueError;

/// Checks an already typed value against the setting's range, values and list kind.
pub fn check(setting: &Setting, value: &SettingValue) -> Result<(), ValueError> {
    let key = || setting.key.clone();
    match value {
        SettingValue::Boolean(_) => Ok(()),
        SettingValue::Number(n) => {
            check_range(&setting.key, *n, setting.min.unwrap_or(i64::MIN), setting.max.unwrap_or(i64::MAX))
        }
        SettingValue::String(s) => {
            let Some(values) = &setting.values else { return Ok(()) };
            let allowed = || shown_values(values);
            match setting.list {
                None if values.iter().any(|v| matches(v, s)) => Ok(()),
                None => Err(ValueError::NotOneOf { key: key(), value: quoted(s), allowed: allowed() }),
                Some(ListKind::Comma) => {
                    if s.is_empty() {
                        return Ok(());
                    }
                    for item in s.split(',') {
                        if item.is_empty() {
                            return Err(ValueError::EmptyItem { key: key(), value: quoted(s) });
                        }
                        if !values.iter().any(|v| matches(v, item)) {
                            return Err(ValueError::UnknownItem { key: key(), item: quoted(item), allowed: allowed() });
                        }
                    }
                    Ok(())
                }
                Some(ListKind::Flags) => {
                    for c in s.chars() {
                        if !values.iter().any(|v| v.chars().eq(std::iter::once(c))) {
                            let flag = quoted(&c.to_string());
                            return Err(ValueError::UnknownFlag { key: key(), flag, allowed: values.join(" ") });
                        }
                    }
                    Ok(())
                }
            }
        }
    }
}

/// Checks that number `value` of setting `key` is in `min..=max`.
pub fn check_range(key: &str, value: i64, min: i64, max: i64) -> Result<(), ValueError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(ValueError::OutOfRange { key: key.into(), value, min, max })
    }
}

/// Whether `text` is the value `pattern` describes (a literal, or with placeholders).
pub fn matches(pattern: &str, text: &str) -> bool {
    if !pattern.contains('{') {
        return pattern == text;
    }
    match_parts(&parts(pattern), text)
}

/// One piece of a value pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part<'a> {
    Literal(&'a str),
    Number,
    Char,
    Name,
}

/// The largest number `{number}` stands for.
pub const MAX_PATTERN_NUMBER: u32 = 9999;

fn parts(pattern: &str) -> Vec<Part<'_>> {
    const PLACEHOLDERS: [(&str, Part<'static>); 3] =
        [("{number}", Part::Number), ("{char}", Part::Char), ("{name}", Part::Name)];
    let mut out = Vec::new();
    let (mut literal_start, mut pos) = (0, 0);
    while let Some(open) = pattern[pos..].find('{') {
        let at = pos + open;
        match PLACEHOLDERS.iter().find(|(p, _)| pattern[at..].starts_with(p)) {
            Some((p, part)) => {
                if at > literal_start {
                    out.push(Part::Literal(&pattern[literal_start..at]));
                }
                out.push(*part);
                pos = at + p.len();
                literal_start = pos;
            }
            None => pos = at + 1,
        }
    }
    if literal_start < pattern.len() {
        out.push(Part::Literal(&pattern[literal_start..]));
    }
    out
}

/// Backtracking match of the pieces against the text (patterns are a few pieces long).
fn match_parts(parts: &[Part], text: &str) -> bool {
    let Some((first, rest)) = parts.split_first() else { return text.is_empty() };
    match first {
        Part::Literal(l) => text.strip_prefix(l).is_some_and(|t| match_parts(rest, t)),
        Part::Char => {
            let mut chars = text.chars();
            match chars.next() {
                Some(c) if is_single_width_char(c) => match_parts(rest, chars.as_str()),
                _ => false,
            }
        }
        Part::Number => {
            // No leading zeros: "0" is zero, "007" is not a number here.
            let digits = text.bytes().take_while(u8::is_ascii_digit).count();
            let longest = if text.starts_with('0') { digits.min(1) } else { digits.min(4) };
            (1..=longest).any(|n| {
                text[..n].parse::<u32>().is_ok_and(|v| v <= MAX_PATTERN_NUMBER) && match_parts(rest, &text[n..])
            })
        }
        Part::Name => {
            let len = text.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
            (1..=len.min(200)).rev().any(|n| match_parts(rest, &text[n..]))
        }
    }
}

/// A printable character that takes one screen cell (with 'ambiwidth' single): ASCII,
/// Latin-1, and the punctuation, arrows, box drawing and shapes used for fill characters.
/// Narrower than what editors accept, never wider.
pub fn is_single_width_char(c: char) -> bool {
    match c {
        ',' => false,
        ' '..='~' => true,
        '\u{A1}'..='\u{FF}' => c != '\u{AD}',
        '\u{2010}'..='\u{2027}' | '\u{2190}'..='\u{21FF}' | '\u{2500}'..='\u{25FF}' => true,
        _ => false,
    }
}

/// The value as a JSON string (control characters escaped), cut short when long.
fn quoted(s: &str) -> String {
    const MAX_CHARS: usize = 80;
    let cut: String = s.chars().take(MAX_CHARS).collect();
    let mut out = serde_json::Value::String(cut).to_string();
    if s.chars().count() > MAX_CHARS {
        out.push('…');
    }
    out
}

/// `yes | no | auto`, cut short when a vocabulary is long (event names).
fn shown_values(values: &[String]) -> String {
    const MAX: usize = 24;
    let mut out = values.iter().take(MAX).map(String::as_str).collect::<Vec<_>>().join(" | ");
    if values.len() > MAX {
        out.push_str(&format!(" | … ({} in all)", values.len()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use crate::entry::Entry;
    use serde_json::json;

    fn setting(entry: serde_json::Value) -> Setting {
        let c = Catalog::from_value(&json!({"version": 1, "editor": "generic", "entries": [entry]})).unwrap();
        match &c.entries()[0] {
            Entry::Setting(s) => s.clone(),
            Entry::Item(_) => unreachable!(),
        }
    }

    fn string(s: &str) -> SettingValue {
        SettingValue::String(s.into())
    }

    #[test]
    fn numbers_stay_in_their_range() {
        let ts = setting(json!({"key": "tabstop", "type": "number", "min": 1, "max": 9999}));
        assert!(check(&ts, &SettingValue::Number(1)).is_ok());
        assert!(check(&ts, &SettingValue::Number(9999)).is_ok());
        assert_eq!(
            check(&ts, &SettingValue::Number(0)).unwrap_err().to_string(),
            "“tabstop” takes a number from 1 to 9999, not 0"
        );
        assert!(check(&ts, &SettingValue::Number(10000)).is_err());
        let open = setting(json!({"key": "x", "type": "number"}));
        assert!(check(&open, &SettingValue::Number(i64::MIN)).is_ok(), "no range declared: any number");
    }

    #[test]
    fn a_single_choice_is_one_of_the_values() {
        let s = setting(json!({"key": "signcolumn", "type": "string", "values": ["yes", "no", "yes:{number}"]}));
        assert!(check(&s, &string("yes")).is_ok());
        assert!(check(&s, &string("yes:3")).is_ok());
        assert_eq!(
            check(&s, &string("maybe")).unwrap_err().to_string(),
            "“signcolumn” takes one of yes | no | yes:{number}, not \"maybe\""
        );
        assert!(check(&s, &string("yes,no")).is_err(), "not a list");
        assert!(check(&s, &string("")).is_err(), "empty is a value like any other");
    }

    #[test]
    fn every_item_of_a_comma_list_is_one_of_the_values() {
        let s = setting(
            json!({"key": "clipboard", "type": "string", "list": "comma", "values": ["unnamed", "unnamedplus"]}),
        );
        assert!(check(&s, &string("unnamedplus")).is_ok());
        assert!(check(&s, &string("unnamed,unnamedplus")).is_ok());
        assert!(check(&s, &string("")).is_ok(), "the empty list");
        assert_eq!(
            check(&s, &string("unnamedplus,bogus")).unwrap_err().to_string(),
            "“clipboard” takes a comma-separated list of unnamed | unnamedplus; \"bogus\" is not one of them"
        );
        assert!(matches!(check(&s, &string("unnamed,")), Err(ValueError::EmptyItem { .. })));
        assert!(matches!(check(&s, &string(",unnamed")), Err(ValueError::EmptyItem { .. })));
        assert!(check(&s, &string("unnamed ,unnamedplus")).is_err(), "no trimming");
    }

    #[test]
    fn every_flag_is_one_of_the_values() {
        let s = setting(json!({"key": "mouse", "type": "string", "list": "flags", "values": ["a", "n", "v", "i"]}));
        assert!(check(&s, &string("nvi")).is_ok());
        assert!(check(&s, &string("")).is_ok());
        assert_eq!(
            check(&s, &string("xyz")).unwrap_err().to_string(),
            "“mouse” takes flags from a n v i; \"x\" is not one of them"
        );
        assert!(check(&s, &string("n,v")).is_err(), "a comma is not a flag here");
    }

    #[test]
    fn patterns_take_numbers_characters_and_names() {
        assert!(matches("context:{number}", "context:3"));
        assert!(matches("context:{number}", "context:9999"));
        assert!(!matches("context:{number}", "context:10000"), "at most 9999");
        assert!(!matches("context:{number}", "context:"));
        assert!(!matches("context:{number}", "context:-1"));
        assert!(!matches("context:{number}", "context:3x"));
        assert!(matches("context:{number}", "context:0"));
        assert!(!matches("context:{number}", "context:03"), "no leading zeros");
        assert!(matches("vert:{char}", "vert:│"));
        assert!(matches("vert:{char}", "vert:|"));
        assert!(!matches("vert:{char}", "vert:ab"));
        assert!(!matches("vert:{char}", "vert:"));
        assert!(!matches("vert:{char}", "vert:\t"), "control characters are not fill characters");
        assert!(!matches("vert:{char}", "vert:界"), "a double-width character");
        assert!(matches("tab:{char}{char}", "tab:>-"));
        assert!(matches("{name}:{name}", "Normal:NormalFloat"));
        assert!(!matches("{name}:{name}", "Normal:"));
        assert!(!matches("{name}:{name}", "Nor mal:X"));
        assert!(matches("+{number}", "+1"));
        assert!(matches("{other}", "{other}"), "unknown placeholders are literal");
        assert!(!matches("{other}", "x"));
    }
}
