//! The small checks every part of the schema shares: what one value must be (a boolean,
//! an integer in a range, one of some words, a list of strings), and how a wrong value is
//! named in the message (by its Lua type, or as written). A check says what is wrong as a
//! [`ValueError`], which the caller files under the key's path.

use serde_json::Value;

/// The type of a value as Lua names it (`string`, `number`, `boolean`, `table`).
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "nil",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) | Value::Object(_) => "table",
    }
}

/// A short rendering of a wrong value: numbers and strings as written, tables by type.
pub(crate) fn shown(v: &Value) -> String {
    match v {
        Value::Number(_) => match whole(v) {
            Some(n) => n.to_string(),
            None => v.to_string(),
        },
        Value::String(s) => format!("{s:?}"),
        Value::Bool(b) => b.to_string(),
        _ => type_name(v).to_string(),
    }
}

/// A whole number (Lua numbers may arrive as floats: `20.0`).
pub(crate) fn whole(v: &Value) -> Option<i64> {
    if let Some(n) = v.as_i64() {
        return Some(n);
    }
    let f = v.as_f64()?;
    (f.fract() == 0.0 && f.abs() < 9.0e15).then_some(f as i64)
}

/// Why a value is not what its key takes: the end of the sentence an [`Issue`] starts with
/// the key's path (`log: should be a boolean, not string`).
///
/// [`Issue`]: super::Issue
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum ValueError {
    /// Not of the kind the key takes: `expected` says what it takes (`a boolean`, `a list
    /// of strings`), `given` is the Lua type of what it got.
    #[error("should be {expected}, not {given}")]
    WrongType { expected: &'static str, given: &'static str },
    #[error("should be an integer from {lo} to {hi}, not {given}")]
    IntOutOfRange { lo: i64, hi: i64, given: String },
    #[error("should be a number from {lo} to {hi}, not {given}")]
    NumberOutOfRange { lo: f64, hi: f64, given: String },
    #[error("should be one of {}, not {given}", quoted(.words))]
    NotOneOf { words: &'static [&'static str], given: String },
    /// An element of a list (`index` from 1, as Lua counts) that is not a string.
    #[error("[{index}] should be a string, not {given}")]
    ItemNotString { index: usize, given: &'static str },
    #[error("should be a list of at least {min} string(s), not an empty one")]
    TooFewStrings { min: usize },
    /// A value of a table of strings that is not one; only its key is named, since the
    /// value may be a secret (a header holding a token).
    #[error("[{key:?}] should be a string, not {given}")]
    FieldNotString { key: String, given: &'static str },
    /// An `api_key` written in a provider's table (`in_provider`) or at the top: a key in
    /// the config ends up in dotfile repositories, so the message names the ways to point
    /// at one instead.
    #[error("a key does not belong in the config, only where it comes from{}: {}", key_place(.in_provider), KEY_WAYS)]
    InlineKey { in_provider: bool },
}

/// Where a key may come from, said for [`ValueError::InlineKey`].
const KEY_WAYS: &str = "api_key_env = 'NAME' (an environment variable), api_key_file = 'path' (a file holding it) \
     or api_key_cmd = { 'pass', 'show', 'llm' } (a command printing it)";

/// An `api_key` at the top is told where its provider's settings go.
fn key_place(in_provider: &bool) -> &'static str {
    if *in_provider {
        ""
    } else {
        ", in a provider (providers.NAME)"
    }
}

/// `'a', 'b', 'c'`.
fn quoted(words: &[&str]) -> String {
    words.iter().map(|w| format!("'{w}'")).collect::<Vec<_>>().join(", ")
}

/// `v` is not of the kind `expected` names.
pub(crate) fn want(expected: &'static str, v: &Value) -> ValueError {
    ValueError::WrongType { expected, given: type_name(v) }
}

pub(crate) fn boolean(v: &Value) -> Result<(), ValueError> {
    if v.is_boolean() {
        Ok(())
    } else {
        Err(want("a boolean", v))
    }
}

pub(crate) fn string(v: &Value) -> Result<(), ValueError> {
    if v.is_string() {
        Ok(())
    } else {
        Err(want("a string", v))
    }
}

pub(crate) fn int_in(v: &Value, lo: i64, hi: i64) -> Result<(), ValueError> {
    match whole(v) {
        Some(n) if (lo..=hi).contains(&n) => Ok(()),
        _ => Err(ValueError::IntOutOfRange { lo, hi, given: shown(v) }),
    }
}

pub(crate) fn number_in(v: &Value, lo: f64, hi: f64) -> Result<(), ValueError> {
    match v.as_f64() {
        Some(n) if (lo..=hi).contains(&n) => Ok(()),
        _ => Err(ValueError::NumberOutOfRange { lo, hi, given: shown(v) }),
    }
}

/// One of `words`: `should be one of 'a', 'b', not "c"`.
pub(crate) fn one_of(v: &Value, words: &'static [&'static str]) -> Result<(), ValueError> {
    if v.as_str().is_some_and(|s| words.contains(&s)) {
        return Ok(());
    }
    Err(ValueError::NotOneOf { words, given: shown(v) })
}

/// The elements of a list; an empty table (Lua cannot tell `{}` from a list) is an empty one.
pub(crate) fn list(v: &Value) -> Option<&[Value]> {
    match v {
        Value::Array(a) => Some(a),
        Value::Object(m) if m.is_empty() => Some(&[]),
        _ => None,
    }
}

/// A list of strings, with at least `min` of them.
pub(crate) fn strings(v: &Value, min: usize) -> Result<(), ValueError> {
    let Some(items) = list(v) else { return Err(want("a list of strings", v)) };
    if let Some((i, s)) = items.iter().enumerate().find(|(_, s)| !s.is_string()) {
        return Err(ValueError::ItemNotString { index: i + 1, given: type_name(s) });
    }
    if items.len() < min {
        return Err(ValueError::TooFewStrings { min });
    }
    Ok(())
}

/// A table of strings (header names to values); a value is never shown.
pub(crate) fn string_map(v: &Value) -> Result<(), ValueError> {
    match v {
        Value::Object(m) => match m.iter().find(|(_, s)| !s.is_string()) {
            Some((k, s)) => Err(ValueError::FieldNotString { key: k.clone(), given: type_name(s) }),
            None => Ok(()),
        },
        _ => Err(want("a table of strings", v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_say_what_was_expected_and_given() {
        let message = |r: Result<(), ValueError>| r.unwrap_err().to_string();
        assert_eq!(message(int_in(&json!(2.5), 1, 10)), "should be an integer from 1 to 10, not 2.5");
        assert_eq!(message(int_in(&json!(20.0), 1, 10)), "should be an integer from 1 to 10, not 20");
        assert!(int_in(&json!(5.0), 1, 10).is_ok(), "a Lua number");
        assert_eq!(message(number_in(&json!("hot"), 0.0, 2.0)), "should be a number from 0 to 2, not \"hot\"");
        assert_eq!(message(one_of(&json!("gpt"), &["a", "b"])), "should be one of 'a', 'b', not \"gpt\"");
        assert_eq!(message(boolean(&json!("no"))), "should be a boolean, not string");
        assert_eq!(message(string(&json!(1))), "should be a string, not number");
        assert_eq!(message(strings(&json!(["a", 1]), 0)), "[2] should be a string, not number");
        assert_eq!(message(strings(&json!({}), 1)), "should be a list of at least 1 string(s), not an empty one");
        assert_eq!(message(strings(&json!("a"), 1)), "should be a list of strings, not string");
        assert!(strings(&json!({}), 0).is_ok(), "an empty Lua table");
        assert_eq!(message(string_map(&json!({"X": 1}))), "[\"X\"] should be a string, not number");
        assert_eq!(message(string_map(&json!([]))), "should be a table of strings, not table");
    }
}
