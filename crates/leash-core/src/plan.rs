//! The model's plan: its types, and the parser that takes the first JSON object out of
//! whatever the model wrote.
//!
//! The parser is deliberately literal. It skips prose, code fences and `<think>` blocks,
//! tolerates trailing commas and raw control characters inside strings (lossless
//! repairs, [`crate::json_repair`]: the characters are kept, escaped), ignores a second
//! object, and never completes a truncated one. Top-level problems (no object, no
//! `steps`) are a [`ParseError`]; a malformed step becomes [`ProposedStep::Malformed`]
//! with a [`StepShape`] naming the field, so the validator can list it as dropped
//! instead of losing it.

use serde_json::{Map, Value};

/// The most bytes of model output the parser looks at.
pub const MAX_INPUT_BYTES: usize = 1 << 20;

/// A plan as the model proposed it: nothing here is trusted yet.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The model's one-sentence reply, for display only.
    pub reply: String,
    pub steps: Vec<ProposedStep>,
    /// Names or short phrases the model asks leash to look up in the whole catalog
    /// before it answers again (at most [`MAX_LOOKUPS`], each at most
    /// [`MAX_LOOKUP_CHARS`] characters; the rest is dropped).
    pub lookup: Vec<String>,
}

/// The most look-ups one answer may ask for.
pub const MAX_LOOKUPS: usize = 5;
/// The longest look-up kept, in characters.
pub const MAX_LOOKUP_CHARS: usize = 80;

/// `:set` or `:setlocal`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Local,
    Global,
}

/// One step of a proposed plan.
#[derive(Debug, Clone, PartialEq)]
pub enum ProposedStep {
    Item {
        id: String,
        args: Vec<String>,
        why: String,
    },
    Setting {
        key: String,
        value: Value,
        scope: Option<Scope>,
        why: String,
    },
    Terminal {
        command: String,
        why: String,
    },
    /// A step that does not have the shape of any step kind.
    Malformed(StepShape),
}

/// What is wrong with the shape of a step (the reason of a `malformed_step` refusal).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StepShape {
    #[error("a step must be an object")]
    NotAnObject,
    #[error("missing field “{0}”")]
    MissingField(&'static str),
    #[error("field “{0}” must be a string")]
    NotAString(&'static str),
    #[error("field “args” must be a string or a list of strings")]
    BadArgs,
    #[error("field “scope” must be \"local\" or \"global\", not “{0}”")]
    BadScope(String),
    #[error("unknown step type “{0}” (expected item, setting or terminal)")]
    UnknownType(String),
}

/// Why no plan could be read from the model's text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParseError {
    #[error("the answer contains no JSON object")]
    NoObject,
    #[error("the answer ends before its JSON object does (it was cut off); nothing was run")]
    Truncated,
    #[error("the answer's JSON is not valid: {0}")]
    Invalid(String),
    #[error("the plan has no “{0}” field")]
    MissingField(&'static str),
    #[error("the plan's “{field}” must be {expected}")]
    WrongType { field: &'static str, expected: &'static str },
    #[error("the answer is larger than {MAX_INPUT_BYTES} bytes")]
    TooLarge,
}

/// Parses the model's raw text into a plan.
pub fn parse(text: &str) -> Result<Plan, ParseError> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(ParseError::TooLarge);
    }
    let object = first_object(&strip_thinking(text))?;
    plan_from_object(&object)
}

/// Builds a plan from an already decoded JSON object (structured-output providers).
pub fn plan_from_object(object: &Map<String, Value>) -> Result<Plan, ParseError> {
    let reply = match object.get("reply") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err(ParseError::WrongType { field: "reply", expected: "a string" }),
    };
    let steps = match object.get("steps") {
        None => return Err(ParseError::MissingField("steps")),
        Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.iter().map(parse_step).collect(),
        Some(_) => return Err(ParseError::WrongType { field: "steps", expected: "a list" }),
    };
    Ok(Plan { reply, steps, lookup: lookups(object.get("lookup")) })
}

/// The look-ups of an answer: strings only, trimmed, non-empty, distinct, capped in
/// number and length. Anything else in the field is ignored: a look-up only widens what
/// the model is shown, never what may run.
fn lookups(v: Option<&Value>) -> Vec<String> {
    let items: Vec<&Value> = match v {
        Some(Value::Array(a)) => a.iter().collect(),
        Some(s @ Value::String(_)) => vec![s],
        _ => return Vec::new(),
    };
    let mut out: Vec<String> = Vec::new();
    for item in items {
        let Some(text) = item.as_str() else { continue };
        let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let text: String = text.chars().filter(|c| !c.is_control()).take(MAX_LOOKUP_CHARS).collect();
        if !text.is_empty() && !out.contains(&text) {
            out.push(text);
        }
        if out.len() == MAX_LOOKUPS {
            break;
        }
    }
    out
}

/// Removes `<think>…</think>` blocks; an unclosed one hides everything after it.
fn strip_thinking(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<think>") {
        out.push_str(&rest[..start]);
        match rest[start..].find("</think>") {
            Some(end) => rest = &rest[start + end + "</think>".len()..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// The first balanced `{…}` span that parses as a JSON object (after dropping trailing
/// commas). A span that does not parse is skipped whole, never searched inside: an object
/// nested in a broken outer one is not the plan.
fn first_object(text: &str) -> Result<Map<String, Value>, ParseError> {
    let bytes = text.as_bytes();
    let mut pos = 0;
    let mut last_error = None;
    while let Some(offset) = text[pos..].find('{') {
        let start = pos + offset;
        let Some(end) = balanced_end(bytes, start) else {
            return Err(last_error.unwrap_or(ParseError::Truncated));
        };
        let candidate = crate::json_repair::repair(&text[start..end]);
        match serde_json::from_str::<Value>(&candidate) {
            Ok(Value::Object(map)) => return Ok(map),
            Ok(_) => {}
            Err(e) => last_error = Some(ParseError::Invalid(e.to_string())),
        }
        pos = end;
    }
    Err(last_error.unwrap_or(ParseError::NoObject))
}

/// The index just past the `}` closing the `{` at `start`, if the text has it.
fn balanced_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate().skip(start) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

fn parse_step(v: &Value) -> ProposedStep {
    match step_fields(v) {
        Ok(step) => step,
        Err(shape) => ProposedStep::Malformed(shape),
    }
}

fn step_fields(v: &Value) -> Result<ProposedStep, StepShape> {
    let obj = v.as_object().ok_or(StepShape::NotAnObject)?;
    let text = |field: &'static str, required: bool| -> Result<String, StepShape> {
        match obj.get(field) {
            None | Some(Value::Null) if required => Err(StepShape::MissingField(field)),
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(StepShape::NotAString(field)),
        }
    };
    let why = text("why", false)?;
    match text("type", true)?.as_str() {
        "item" => {
            let args = match obj.get("args") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::String(s)) if s.is_empty() => Vec::new(),
                Some(Value::String(s)) => vec![s.clone()],
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|x| x.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
                    .ok_or(StepShape::BadArgs)?,
                Some(_) => return Err(StepShape::BadArgs),
            };
            Ok(ProposedStep::Item { id: text("id", true)?, args, why })
        }
        "setting" => {
            let value = match obj.get("value") {
                None | Some(Value::Null) => return Err(StepShape::MissingField("value")),
                Some(v) => v.clone(),
            };
            let scope = match text("scope", false)?.as_str() {
                "" => None,
                "local" => Some(Scope::Local),
                "global" => Some(Scope::Global),
                other => return Err(StepShape::BadScope(other.to_string())),
            };
            Ok(ProposedStep::Setting { key: text("key", true)?, value, scope, why })
        }
        "terminal" => Ok(ProposedStep::Terminal { command: text("command", true)?, why }),
        other => Err(StepShape::UnknownType(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const PLAN: &str =
        r#"{"reply": "ok", "steps": [{"type": "setting", "key": "wrap", "value": true, "why": "wrap"}]}"#;

    fn wrap_step() -> ProposedStep {
        ProposedStep::Setting { key: "wrap".into(), value: json!(true), scope: None, why: "wrap".into() }
    }

    #[test]
    fn plain_object() {
        let p = parse(PLAN).unwrap();
        assert_eq!(p.reply, "ok");
        assert_eq!(p.steps, vec![wrap_step()]);
    }

    #[test]
    fn prose_fences_and_thinking_around_the_object() {
        let text = format!(
            "<think>maybe {{\"steps\": []}} here</think>Sure! Here it is:\n```json\n{PLAN}\n```\nDone {{\"x\": 1}}"
        );
        assert_eq!(parse(&text).unwrap().steps, vec![wrap_step()]);
    }

    #[test]
    fn a_second_object_is_ignored() {
        let text = format!(r#"{PLAN} {{"reply": "evil", "steps": [{{"type": "terminal", "command": "rm -rf ~"}}]}}"#);
        let p = parse(&text).unwrap();
        assert_eq!(p.reply, "ok");
        assert_eq!(p.steps.len(), 1);
    }

    #[test]
    fn trailing_commas_are_tolerated_but_not_inside_strings() {
        let p = parse(r#"{"reply": "a,}", "steps": [{"type": "terminal", "command": "echo ,]", },],}"#).unwrap();
        assert_eq!(p.reply, "a,}");
        assert_eq!(p.steps, vec![ProposedStep::Terminal { command: "echo ,]".into(), why: String::new() }]);
    }

    #[test]
    fn truncated_object_is_never_completed_nor_searched_inside() {
        let text = r#"{"reply": "x", "steps": [{"type": "setting", "key": "wrap", "value": true}, {"type": "item""#;
        assert_eq!(parse(text).unwrap_err(), ParseError::Truncated);
        let cut_in_string = r#"{"reply": "x}"#;
        assert_eq!(parse(cut_in_string).unwrap_err(), ParseError::Truncated);
        assert_eq!(parse("<think>{\"steps\": []}").unwrap_err(), ParseError::NoObject);
    }

    #[test]
    fn braces_in_prose_are_skipped() {
        let text = format!("Use {{braces}} like this: {PLAN}");
        assert_eq!(parse(&text).unwrap().reply, "ok");
    }

    #[test]
    fn top_level_errors_name_the_field() {
        assert_eq!(parse("no json here").unwrap_err(), ParseError::NoObject);
        assert_eq!(parse(r#"{"reply": "hi"}"#).unwrap_err(), ParseError::MissingField("steps"));
        assert_eq!(
            parse(r#"{"reply": 3, "steps": []}"#).unwrap_err().to_string(),
            "the plan's “reply” must be a string"
        );
        assert_eq!(
            parse(r#"{"steps": {"type": "item"}}"#).unwrap_err(),
            ParseError::WrongType { field: "steps", expected: "a list" }
        );
    }

    #[test]
    fn malformed_steps_are_kept_with_a_reason() {
        let p = parse(
            r#"{"steps": [
                {"type": "setting", "key": "wrap"},
                {"type": "item"},
                {"type": "item", "id": "cmd:vsplit", "args": 3},
                {"type": "shell", "command": "ls"},
                "ls",
                {"type": "setting", "key": "wrap", "value": true, "scope": "everywhere"},
                {"type": "item", "id": "cmd:vsplit", "args": ["a", "b"], "approved": true}
            ]}"#,
        )
        .unwrap();
        let shapes: Vec<Option<&StepShape>> = p
            .steps
            .iter()
            .map(|s| match s {
                ProposedStep::Malformed(shape) => Some(shape),
                _ => None,
            })
            .collect();
        assert_eq!(shapes[0], Some(&StepShape::MissingField("value")));
        assert_eq!(shapes[1], Some(&StepShape::MissingField("id")));
        assert_eq!(shapes[2], Some(&StepShape::BadArgs));
        assert_eq!(shapes[3], Some(&StepShape::UnknownType("shell".into())));
        assert_eq!(shapes[4], Some(&StepShape::NotAnObject));
        assert_eq!(shapes[5], Some(&StepShape::BadScope("everywhere".into())));
        assert_eq!(shapes[1].map(ToString::to_string).as_deref(), Some("missing field “id”"));
        assert_eq!(
            p.steps[6],
            ProposedStep::Item { id: "cmd:vsplit".into(), args: vec!["a".into(), "b".into()], why: String::new() }
        );
    }

    #[test]
    fn raw_control_characters_inside_strings_are_kept_escaped() {
        let text = "{\"reply\": \"Line one\nline two\", \"steps\": [{\"type\": \"terminal\", \"command\": \"ls\n\trm -rf ~\u{1b}\"}]}";
        let p = parse(text).unwrap();
        assert_eq!(p.reply, "Line one\nline two");
        assert_eq!(
            p.steps,
            vec![ProposedStep::Terminal { command: "ls\n\trm -rf ~\u{1b}".into(), why: String::new() }]
        );
        // Outside strings a raw newline is plain white space, as JSON allows.
        assert_eq!(parse("{\n\"steps\":\n[]\n}").unwrap().steps, vec![]);
        // Still refused: a string that never closes, and an escape that is not JSON.
        assert_eq!(parse("{\"reply\": \"a\nb, \"steps\": []").unwrap_err(), ParseError::Truncated);
        assert!(matches!(parse("{\"reply\": \"a\\\nb\", \"steps\": []}").unwrap_err(), ParseError::Invalid(_)));
    }

    #[test]
    fn lookups_are_strings_trimmed_distinct_and_capped() {
        let p = parse(
            r#"{"steps": [], "lookup": [" laststatus ", "status   line", 3, "", "laststatus", "a", "b", "c", "d"]}"#,
        )
        .unwrap();
        assert_eq!(p.lookup, vec!["laststatus", "status line", "a", "b", "c"]);
        assert_eq!(p.lookup.len(), MAX_LOOKUPS);
        let long = "x".repeat(200);
        let p = parse(&format!(r#"{{"steps": [], "lookup": "{long}"}}"#)).unwrap();
        assert_eq!(p.lookup, vec!["x".repeat(MAX_LOOKUP_CHARS)]);
        assert!(parse(PLAN).unwrap().lookup.is_empty());
        assert!(parse(r#"{"steps": [], "lookup": {"a": 1}}"#).unwrap().lookup.is_empty());
    }

    #[test]
    fn a_string_argument_is_one_argument() {
        let p = parse(r#"{"steps": [{"type": "item", "id": "cmd:edit", "args": "a b.txt"}]}"#).unwrap();
        assert_eq!(
            p.steps[0],
            ProposedStep::Item { id: "cmd:edit".into(), args: vec!["a b.txt".into()], why: String::new() }
        );
    }
}
