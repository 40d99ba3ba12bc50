//! What is wrong with a configuration: one [`Issue`] per key, named by its path
//! (`llm.timeout_ms`, `providers.groq.kind`, `raise[2]`), with what was expected and what
//! was given, and the small checks every part of the schema shares.

use serde_json::Value;

/// One thing wrong with one key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct Issue {
    /// The key's path, as the user writes it (`sources.git`, `entries[2]`).
    pub path: String,
    /// What is wrong, as the end of a sentence (`should be a boolean, not string`).
    pub message: String,
}

/// Every issue of a configuration, sorted by path; never empty.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", join(.0))]
pub struct Issues(pub Vec<Issue>);

fn join(issues: &[Issue]) -> String {
    issues.iter().map(Issue::to_string).collect::<Vec<_>>().join("; ")
}

/// Collects issues while a configuration is walked.
#[derive(Debug, Default)]
pub(crate) struct Checker {
    issues: Vec<Issue>,
}

impl Checker {
    pub fn bad(&mut self, path: &str, message: impl Into<String>) {
        self.issues.push(Issue { path: path.to_string(), message: message.into() });
    }

    /// Records `result`'s message under `path` when it is an error.
    pub fn check(&mut self, path: &str, result: Result<(), String>) {
        if let Err(message) = result {
            self.bad(path, message);
        }
    }

    /// `path` is not a key of `known`: names the closest one (under the same parent).
    pub fn unknown(&mut self, parent: &str, key: &str, known: &[&str]) {
        let guess = closest(key, known).map(|g| format!(" (did you mean '{}'?)", at(parent, g))).unwrap_or_default();
        self.bad(&at(parent, key), format!("unknown option{guess}"));
    }

    /// The issues, sorted by path, or `Ok` when there are none.
    pub fn finish(mut self) -> Result<(), Issues> {
        if self.issues.is_empty() {
            return Ok(());
        }
        self.issues.sort_by_key(Issue::to_string);
        Err(Issues(self.issues))
    }
}

/// `parent.key`, or `key` at the top.
pub(crate) fn at(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

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

/// The candidate nearest to `word` by edit distance, if it is close enough.
pub(crate) fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let (d, best) = candidates.iter().map(|c| (distance(word, c), *c)).min()?;
    (d <= 2.max(word.chars().count() / 3)).then_some(best)
}

/// Levenshtein distance.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push((prev[j + 1] + 1).min(cur[j] + 1).min(prev[j] + usize::from(ca != *cb)));
        }
        prev = cur;
    }
    prev[b.len()]
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
        assert_eq!(closest("shortlist_limt", &["shortlist_limit", "log"]), Some("shortlist_limit"));
        assert_eq!(closest("zzzzzz", &["log"]), None);
    }
}
