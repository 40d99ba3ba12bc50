//! Entries parsed once and shared by many catalogs: the lists a frontend keeps that change
//! only with the editor's build (Neovim's builtin commands and options), so that a catalog
//! rebuilt because a mapping or a user command changed converts only what changed.

use serde_json::Value;

use crate::catalog::CatalogError;
use crate::entry::{parse_entry, Entry};

/// Named lists of parsed entries (`commands`, `options`).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct BaseEntries {
    lists: Vec<(String, Vec<Entry>)>,
}

impl BaseEntries {
    /// Parses `{"commands": [entry, …], "options": [entry, …], …}`: every member that is a
    /// list is a list of entries; other members (a frontend's own data) are skipped.
    pub fn from_json(text: &str) -> Result<BaseEntries, CatalogError> {
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
}
