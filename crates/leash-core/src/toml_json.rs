//! TOML documents read as JSON values, for the parts of the core that only read TOML
//! (project files, the `leash` program's configuration). Editing a file in place, with
//! its comments kept, goes through `toml_edit` directly (see `helix::config`).

use serde_json::{Map, Value};
use toml_edit::{Item, TableLike};

/// Parses `text` as a TOML document and returns its root table as a JSON object. Dates
/// become strings.
pub fn parse(text: &str) -> Result<Value, toml_edit::TomlError> {
    let doc: toml_edit::Document<String> = text.parse()?;
    Ok(table(doc.as_table()))
}

fn table(t: &dyn TableLike) -> Value {
    let mut out = Map::new();
    for (k, v) in t.iter() {
        out.insert(k.to_string(), item(v));
    }
    Value::Object(out)
}

fn item(i: &Item) -> Value {
    match i {
        Item::None => Value::Null,
        Item::Value(v) => value(v),
        Item::Table(t) => table(t),
        Item::ArrayOfTables(a) => Value::Array(a.iter().map(|t| table(t)).collect()),
    }
}

fn value(v: &toml_edit::Value) -> Value {
    use toml_edit::Value as V;
    match v {
        V::String(s) => Value::String(s.value().clone()),
        V::Integer(n) => Value::from(*n.value()),
        V::Float(f) => serde_json::Number::from_f64(*f.value()).map_or(Value::Null, Value::Number),
        V::Boolean(b) => Value::Bool(*b.value()),
        V::Datetime(d) => Value::String(d.value().to_string()),
        V::Array(a) => Value::Array(a.iter().map(value).collect()),
        V::InlineTable(t) => table(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tables_arrays_and_inline_tables() {
        let v = parse(
            "top = 1\n[workspace]\nmembers = [\n  \"crates/*\", # every crate\n]\n[[bin]]\nname = \"a\"\n[[bin]]\nname = \"b\"\n[project]\nscripts = { x = \"m:f\" }\n",
        )
        .unwrap();
        assert_eq!(v["top"], json!(1));
        assert_eq!(v["workspace"]["members"], json!(["crates/*"]));
        assert_eq!(v["bin"], json!([{"name": "a"}, {"name": "b"}]));
        assert_eq!(v["project"]["scripts"]["x"], json!("m:f"));
        assert!(parse("[a\n").is_err());
    }
}
