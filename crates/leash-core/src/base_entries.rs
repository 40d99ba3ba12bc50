//! Entries parsed once and shared by many catalogs: the lists a frontend keeps that change
//! only with the editor's build (Neovim's builtin commands and options), so that a catalog
//! rebuilt because a mapping or a user command changed converts only what changed.

use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::catalog::CatalogError;
use crate::entry::{parse_entries, parse_entry, Entry, EntryError};

/// Named lists of parsed entries (`commands`, `options`).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct BaseEntries {
    lists: Vec<(String, Vec<Entry>)>,
}

impl BaseEntries {
    /// Parses `{"commands": [entry, …], "options": [entry, …], …}`: every member that is a
    /// list is a list of entries; other members (a frontend's own data) are skipped.
    ///
    /// The text is read straight into entries (a session's first catalog waits for these
    /// half a megabyte); text that does not read that way is read again as a JSON tree,
    /// which names what is wrong.
    pub fn from_json(text: &str) -> Result<BaseEntries, CatalogError> {
        let lists = match serde_json::from_str::<Document>(text) {
            Ok(Document(lists)) => lists,
            Err(_) => return Self::from_tree(text),
        };
        let mut out = Vec::with_capacity(lists.len());
        for (name, entries) in lists {
            let entries = entries
                .into_iter()
                .enumerate()
                .map(|(index, e)| e.map_err(|message| CatalogError::BaseEntry { list: name.clone(), index, message }))
                .collect::<Result<Vec<_>, _>>()?;
            out.push((name, entries));
        }
        Ok(BaseEntries { lists: out })
    }

    /// [`BaseEntries::from_json`] through a JSON tree, naming a field of the wrong type.
    fn from_tree(text: &str) -> Result<BaseEntries, CatalogError> {
        let v: Value = serde_json::from_str(text).map_err(|e| CatalogError::Json(e.to_string()))?;
        let Value::Object(members) = v else { return Err(CatalogError::BaseNotAnObject) };
        let mut lists = Vec::new();
        for (name, value) in members {
            let Value::Array(values) = value else { continue };
            let entries = values
                .iter()
                .enumerate()
                .map(|(index, v)| {
                    parse_entry(v).map_err(|message| CatalogError::BaseEntry { list: name.clone(), index, message })
                })
                .collect::<Result<Vec<_>, _>>()?;
            lists.push((name, entries));
        }
        Ok(BaseEntries { lists })
    }

    /// The list called `name`.
    pub fn list(&self, name: &str) -> Result<&[Entry], CatalogError> {
        self.lists
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, entries)| entries.as_slice())
            .ok_or_else(|| CatalogError::NoBaseList(name.to_string()))
    }
}

/// The base file read straight into entries: its lists by name, in order, each entry
/// checked. Anything else (a member named twice, a field of the wrong type) fails the
/// read, and the text is read as a tree instead.
struct Document(Vec<(String, Vec<Result<Entry, EntryError>>)>);

impl<'de> Deserialize<'de> for Document {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> Visitor<'de> for Members {
            type Value = Document;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of entry lists")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Document, A::Error> {
                let mut lists: Vec<(String, Vec<Result<Entry, EntryError>>)> = Vec::new();
                let mut names: Vec<String> = Vec::new();
                while let Some(name) = map.next_key::<String>()? {
                    if names.contains(&name) {
                        return Err(serde::de::Error::custom("a member named twice"));
                    }
                    if let Member(Some(entries)) = map.next_value::<Member>()? {
                        lists.push((name.clone(), entries));
                    }
                    names.push(name);
                }
                Ok(Document(lists))
            }
        }
        d.deserialize_map(Members)
    }
}

/// A member of the base file: a list of entries, or anything else (skipped).
struct Member(Option<Vec<Result<Entry, EntryError>>>);

impl<'de> Deserialize<'de> for Member {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Any;
        impl<'de> Visitor<'de> for Any {
            type Value = Member;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of entries, or anything")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Member, A::Error> {
                parse_entries(serde::de::value::SeqAccessDeserializer::new(seq)).map(|e| Member(Some(e)))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Member, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Member(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Member, E> {
                Ok(Member(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Member, E> {
                Ok(Member(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Member, E> {
                Ok(Member(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Member, E> {
                Ok(Member(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Member, E> {
                Ok(Member(None))
            }
            fn visit_unit<E>(self) -> Result<Member, E> {
                Ok(Member(None))
            }
        }
        d.deserialize_any(Any)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use serde_json::json;

    const TEXT: &str = r#"{
        "commands": [{"id": "cmd:vsplit", "kind": "command", "title": "split", "aliases": ["vs"], "args": "optional", "reach": "safe"}],
        "options": [{"key": "wrap", "kind": "setting", "type": "boolean", "title": "wrap long lines", "aliases": {}}],
        "user_help": {"TOhtml": "convert to HTML"}
    }"#;

    #[test]
    fn a_catalog_on_a_base_equals_one_built_from_every_entry() {
        let base = BaseEntries::from_json(TEXT).unwrap();
        let dynamic = [json!({"id": "user:Git", "kind": "user_command", "title": "git", "reach": "plugin"})];
        let lists = ["commands".to_string(), "options".to_string()];
        let on_base = Catalog::with_base("neovim", &base, &lists, &dynamic).unwrap();
        let all: Value = serde_json::from_str(TEXT).unwrap();
        let mut values = all["commands"].as_array().unwrap().clone();
        values.extend(all["options"].as_array().unwrap().iter().cloned());
        values.extend(dynamic.iter().cloned());
        let whole = Catalog::from_entry_values("neovim", &values).unwrap();
        assert_eq!(on_base.to_json(), whole.to_json());
        assert_eq!(on_base.len(), 3);
        // Only the lists asked for, in the order asked.
        let options_only = Catalog::with_base("neovim", &base, &lists[1..], &[]).unwrap();
        assert_eq!(options_only.len(), 1);
        assert!(options_only.setting("wrap").is_some());
    }

    #[test]
    fn bad_base_data_is_named() {
        assert_eq!(BaseEntries::from_json("[]"), Err(CatalogError::BaseNotAnObject));
        assert!(matches!(BaseEntries::from_json("{"), Err(CatalogError::Json(_))));
        let bad = BaseEntries::from_json(r#"{"options": [{"key": "wrap", "type": "colour"}]}"#).unwrap_err();
        assert!(bad.to_string().starts_with("“options” entry 0: "), "{bad}");
        let base = BaseEntries::from_json(TEXT).unwrap();
        let missing = Catalog::with_base("neovim", &base, &["keymaps".to_string()], &[]).unwrap_err();
        assert_eq!(missing.to_string(), "the base entries have no list “keymaps”");
        // A dynamic entry that repeats a base id is a duplicate, as in any catalog.
        let dup = [json!({"id": "cmd:vsplit", "kind": "command", "title": "again", "reach": "safe"})];
        let err = Catalog::with_base("neovim", &base, &["commands".to_string()], &dup).unwrap_err();
        assert_eq!(err, CatalogError::DuplicateId("cmd:vsplit".into()));
        // A bad dynamic entry is counted after the base ones, as in the whole list.
        let bad = [json!({"id": "user:X", "kind": "user_command", "title": "x", "reach": "loud"})];
        let err = Catalog::with_base("neovim", &base, &["commands".to_string()], &bad).unwrap_err();
        assert!(err.to_string().starts_with("entry 1: "), "{err}");
    }

    /// Every field of an item and of a setting given every kind of value, one field and
    /// two fields at a time: the text read straight into entries gives what the tree
    /// gives (the same entries, or the same error), whichever way the text was read.
    #[test]
    fn reading_straight_into_entries_agrees_with_the_tree() {
        let item = json!({"id": "cmd:w", "kind": "command", "title": "write", "aliases": ["wr"], "args": "optional",
            "reach": "write", "range": true, "description": "d", "plugin": "p", "loads": false});
        let setting = json!({"key": "sw", "title": "shift", "type": "number", "aliases": [], "min": 0, "max": 8,
            "scope": "buffer", "reach": "safe", "description": "d"});
        let fields = [
            "id",
            "key",
            "kind",
            "title",
            "description",
            "aliases",
            "reach",
            "args",
            "range",
            "plugin",
            "loads",
            "type",
            "values",
            "list",
            "min",
            "max",
            "scope",
            "other",
        ];
        let values = [
            Value::Null,
            json!(5),
            json!(-3),
            json!(1.5),
            json!(u64::MAX),
            json!(true),
            json!(""),
            json!(" "),
            json!("bogus"),
            json!("string"),
            json!("number"),
            json!("flags"),
            json!("comma"),
            json!("plugin"),
            json!("required"),
            json!("global-local"),
            json!({}),
            json!({"a": 1}),
            json!([]),
            json!(["a", "b"]),
            json!(["ab"]),
            json!([1]),
            json!("x\u{e9}\"y"),
        ];
        let mut variants = Vec::new();
        for base in [&item, &setting, &json!({"key": "list", "type": "string", "values": ["a", "b"], "list": "flags"})]
        {
            variants.push(base.clone());
            for f in fields {
                let mut without = base.clone();
                without.as_object_mut().unwrap().remove(f);
                variants.push(without);
                for v in &values {
                    let mut one = base.clone();
                    one[f] = v.clone();
                    variants.push(one.clone());
                    for g in fields {
                        for w in [json!(5), json!("bogus")] {
                            let mut two = one.clone();
                            two[g] = w.clone();
                            variants.push(two);
                        }
                    }
                }
            }
        }
        variants.push(json!(5));
        variants.push(json!([]));
        for v in &variants {
            let tree = parse_entry(v);
            let text = format!("[{v}]");
            if let Ok(mut straight) = parse_entries(&mut serde_json::Deserializer::from_str(&text)) {
                assert_eq!(straight.remove(0), tree, "{v}");
            }
            let doc = format!("{{\"user_help\": {{}}, \"commands\": [{v}], \"n\": 1}}");
            assert_eq!(BaseEntries::from_json(&doc), BaseEntries::from_tree(&doc), "{doc}");
        }
        // Entries of the right types are read straight: the tree is for text that is not.
        let text = format!("[{item}, {setting}]");
        let straight = parse_entries(&mut serde_json::Deserializer::from_str(&text)).unwrap();
        assert_eq!(straight, vec![parse_entry(&item), parse_entry(&setting)]);
        assert!(straight.iter().all(Result::is_ok));
        // A document the tree reads differently: a member named twice keeps the last.
        let twice = r#"{"options": [], "options": [{"key": "wrap", "type": "boolean"}]}"#;
        assert_eq!(BaseEntries::from_json(twice).unwrap().list("options").unwrap().len(), 1);
        assert_eq!(BaseEntries::from_json(twice), BaseEntries::from_tree(twice));
    }
}
