//! The small checks every part of the schema shares: what one value must be (a boolean,
//! an integer in a range, one of some words, a list of strings), and how a wrong value is
//! named in the message (by its Lua type, or as written).

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

pub(crate) fn want(what: &str, v: &Value) -> String {
    format!("should be {what}, not {}", type_name(v))
}

pub(crate) fn boolean(v: &Value) -> Result<(), String> {
    if v.is_boolean() {
        Ok(())
    } else {
        Err(want("a boolean", v))
    }
}

pub(crate) fn string(v: &Value) -> Result<(), String> {
    if v.is_string() {
        Ok(())
    } else {
        Err(want("a string", v))
    }
}

pub(crate) fn int_in(v: &Value, lo: i64, hi: i64) -> Result<(), String> {
    match whole(v) {
        Some(n) if (lo..=hi).contains(&n) => Ok(()),
        _ => Err(format!("should be an integer from {lo} to {hi}, not {}", shown(v))),
    }
}

pub(crate) fn number_in(v: &Value, lo: f64, hi: f64) -> Result<(), String> {
    match v.as_f64() {
        Some(n) if (lo..=hi).contains(&n) => Ok(()),
        _ => Err(format!("should be a number from {lo} to {hi}, not {}", shown(v))),
    }
}

/// One of `words`: `should be one of 'a', 'b', not "c"`.
pub(crate) fn one_of(v: &Value, words: &[&str]) -> Result<(), String> {
    if v.as_str().is_some_and(|s| words.contains(&s)) {
        return Ok(());
    }
    let listed = words.iter().map(|w| format!("'{w}'")).collect::<Vec<_>>().join(", ");
    Err(format!("should be one of {listed}, not {}", shown(v)))
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
pub(crate) fn strings(v: &Value, min: usize) -> Result<(), String> {
    let Some(items) = list(v) else { return Err(want("a list of strings", v)) };
    if let Some((i, s)) = items.iter().enumerate().find(|(_, s)| !s.is_string()) {
        return Err(format!("[{}] should be a string, not {}", i + 1, type_name(s)));
    }
    if items.len() < min {
        return Err(format!("should be a list of at least {min} string(s), not an empty one"));
    }
    Ok(())
}

/// A table of strings (header names to values); a value is never shown.
pub(crate) fn string_map(v: &Value) -> Result<(), String> {
    match v {
        Value::Object(m) => match m.iter().find(|(_, s)| !s.is_string()) {
            Some((k, s)) => Err(format!("[{k:?}] should be a string, not {}", type_name(s))),
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
        assert_eq!(int_in(&json!(2.5), 1, 10).unwrap_err(), "should be an integer from 1 to 10, not 2.5");
        assert_eq!(int_in(&json!(20.0), 1, 10).unwrap_err(), "should be an integer from 1 to 10, not 20");
        assert!(int_in(&json!(5.0), 1, 10).is_ok(), "a Lua number");
        assert_eq!(one_of(&json!("gpt"), &["a", "b"]).unwrap_err(), "should be one of 'a', 'b', not \"gpt\"");
        assert_eq!(boolean(&json!("no")).unwrap_err(), "should be a boolean, not string");
        assert_eq!(strings(&json!(["a", 1]), 0).unwrap_err(), "[2] should be a string, not number");
        assert!(strings(&json!({}), 0).is_ok(), "an empty Lua table");
    }
}
