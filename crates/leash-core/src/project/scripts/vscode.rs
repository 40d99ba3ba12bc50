//! `.vscode/tasks.json` tasks of type `shell` or `process` that can be resolved without
//! VS Code (no input variables, no current file).

use serde_json::Value;

use super::{item, Extra, Project};
use crate::project::cache::FileCache;
use crate::project::SourceItem;

static TASKS: FileCache<Value> = FileCache::new();

pub fn items(p: &Project) -> Vec<SourceItem> {
    let Some(doc) = TASKS.read(&p.path(".vscode/tasks.json"), parse_jsonc) else { return Vec::new() };
    let Some(tasks) = doc.get("tasks").and_then(Value::as_array) else { return Vec::new() };
    tasks.iter().filter_map(|t| task(p, t)).collect()
}

/// JSON with comments and trailing commas, as VS Code writes it.
pub fn parse_jsonc(text: &str) -> Option<Value> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => while chars.next_if(|&n| n != '\n').is_some() {},
            ('/', Some('*')) => {
                chars.next();
                let mut prev = ' ';
                for n in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    serde_json::from_str(&crate::json_repair::repair(&out)).ok()
}

/// A `shell` or `process` task as an item, or `None` when it cannot be resolved.
fn task(p: &Project, t: &Value) -> Option<SourceItem> {
    let label = t.get("label").or_else(|| t.get("taskName")).and_then(Value::as_str)?;
    let kind = t.get("type").and_then(Value::as_str).unwrap_or("process");
    if kind != "shell" && kind != "process" {
        return None;
    }
    let value = |v: &Value| -> Option<String> {
        let v = match v {
            Value::Object(o) => o.get("value")?,
            other => other,
        };
        let s = v.as_str()?.replace("${workspaceFolder}", p.root_text).replace("${workspaceRoot}", p.root_text);
        (!s.contains("${")).then_some(s)
    };
    let command = value(t.get("command")?)?;
    if command.is_empty() {
        return None;
    }
    let args = match t.get("args") {
        Some(Value::Array(a)) => a.iter().map(value).collect::<Option<Vec<_>>>()?,
        _ => Vec::new(),
    };
    let cwd = match t.pointer("/options/cwd") {
        Some(v) => value(v)?,
        None => p.root_text.to_string(),
    };
    let argv = if kind == "shell" {
        // A shell task is a command line by definition; it runs in sh (cmd.exe on
        // Windows) exactly as shown in the title.
        let line = std::iter::once(command).chain(args).collect::<Vec<_>>().join(" ");
        if cfg!(windows) {
            vec!["cmd.exe".into(), "/d".into(), "/c".into(), line]
        } else {
            vec!["sh".into(), "-c".into(), line]
        }
    } else {
        std::iter::once(command).chain(args).collect()
    };
    let group = match t.get("group") {
        Some(Value::Object(g)) => g.get("kind").and_then(Value::as_str).map(str::to_string),
        Some(Value::String(g)) => Some(g.clone()),
        _ => None,
    };
    let meaning = group.unwrap_or_else(|| label.to_lowercase());
    Some(item(
        "vscode",
        label,
        argv,
        &cwd,
        Extra { args: None, description: format!(".vscode/tasks.json task {label:?}"), meaning: Some(&meaning) },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas() {
        let v = parse_jsonc("{ // c\n \"a\": \"x//y\", /* b */ \"l\": [1,2,], }").unwrap();
        assert_eq!(v["a"], "x//y");
        assert_eq!(v["l"], serde_json::json!([1, 2]));
    }
}
