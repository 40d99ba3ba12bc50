//! Neovim's rules for option values that the catalog's vocabulary cannot say: the number
//! range of every number option (from the profile tables), list items that exclude or
//! require each other, lists that must not be empty, and options no step can set.
//!
//! Neovim tells the catalog which items a list option takes (option-value completion);
//! it does not tell how they combine, so these rules are written by hand, each from a
//! refusal of Neovim's. The sweep test (in `tests/nvim/values_spec.lua`) tries values
//! of every option in a throwaway Neovim and fails wherever leash accepts a value that
//! Neovim refuses, so a rule missing here shows up there.

use crate::entry::{ListKind, Setting, SettingValue, ValueType};
use crate::refusal::RuleError;
use crate::values::matches;

/// How the items of one list option must combine.
enum Rule {
    /// Exactly one item matches one of these patterns.
    ExactlyOne(&'static [&'static str]),
    /// At most one item matches one of these patterns.
    AtMostOne(&'static [&'static str]),
    /// The list has at least one item.
    NotEmpty,
    /// An item matching one of these patterns stands alone.
    Alone(&'static [&'static str]),
    /// The list has at most this many items.
    MaxItems(usize),
}

/// Each row: the option, the rule, and Neovim's refusal that it stands for.
const RULES: &[(&str, Rule)] = &[
    // "breaksymlink" alone and "yes,no" are E474.
    ("backupcopy", Rule::ExactlyOne(&["yes", "no", "auto"])),
    // "", "line,screenline" and "both,screenline" are E474 ("both" is "line,number").
    ("cursorlineopt", Rule::NotEmpty),
    ("cursorlineopt", Rule::AtMostOne(&["line", "screenline"])),
    ("cursorlineopt", Rule::AtMostOne(&["both", "screenline"])),
    // "horizontal,vertical" is E474.
    ("diffopt", Rule::AtMostOne(&["horizontal", "vertical"])),
    ("lispoptions", Rule::AtMostOne(&["expr:{number}"])),
    // "hit-enter" without "history:" is E474; so is "hit-enter,wait:5".
    ("messagesopt", Rule::ExactlyOne(&["history:{number}"])),
    ("messagesopt", Rule::ExactlyOne(&["hit-enter", "wait:{number}"])),
    // "" and "hor:1,hor:2" are E474.
    ("mousescroll", Rule::NotEmpty),
    ("mousescroll", Rule::AtMostOne(&["hor:{number}"])),
    ("mousescroll", Rule::AtMostOne(&["ver:{number}"])),
    ("sessionoptions", Rule::AtMostOne(&["sesdir", "curdir"])),
    ("viewoptions", Rule::AtMostOne(&["sesdir", "curdir"])),
    ("spellsuggest", Rule::AtMostOne(&["best", "fast", "double"])),
    // "0" alone turns variable tab stops off; in a list every stop is E487 unless positive.
    ("vartabstop", Rule::Alone(&["0"])),
    ("varsofttabstop", Rule::Alone(&["0"])),
    // Five parts are E474.
    ("wildmode", Rule::MaxItems(4)),
];

/// Options Neovim refuses to set whatever the value ('channel' is set by Neovim).
const READ_ONLY: &[&str] = &["channel"];

/// Narrows a Neovim setting's number range to the profile's (a catalog may declare a
/// narrower one, never a wider one). Applied to a Neovim catalog once it is built
/// ([`crate::policy::narrow_catalog`]), so the catalog and the prompt carry the range the
/// validator checks.
pub fn narrow(setting: &mut Setting) {
    if setting.value_type != ValueType::Number {
        return;
    }
    if let Some((min, max)) = super::number_range(&setting.key) {
        setting.min = Some(setting.min.map_or(min, |m| m.max(min)));
        setting.max = Some(setting.max.map_or(max, |m| m.min(max)));
    }
}

/// Checks `value` of option `key` against the rules above. `list` is how the catalog
/// says the option's items are written.
pub fn check(key: &str, list: Option<ListKind>, value: &SettingValue) -> Result<(), RuleError> {
    if READ_ONLY.contains(&key) {
        return Err(RuleError::ReadOnly { key: key.into() });
    }
    let SettingValue::String(s) = value else { return Ok(()) };
    let items: Vec<&str> = match list {
        Some(ListKind::Comma) => s.split(',').filter(|i| !i.is_empty()).collect(),
        _ => return Ok(()),
    };
    for (_, rule) in RULES.iter().filter(|(k, _)| *k == key) {
        let count = |patterns: &[&str]| items.iter().filter(|i| patterns.iter().any(|p| matches(p, i))).count();
        match rule {
            Rule::NotEmpty if items.is_empty() => return Err(RuleError::Empty { key: key.into() }),
            Rule::ExactlyOne(p) if count(p) != 1 => {
                return Err(RuleError::NotExactlyOne { key: key.into(), items: p.join(", ") })
            }
            Rule::AtMostOne(p) if count(p) > 1 => {
                return Err(RuleError::MoreThanOne { key: key.into(), items: p.join(", ") })
            }
            Rule::Alone(p) if items.len() > 1 && count(p) > 0 => {
                return Err(RuleError::NotAlone { key: key.into(), items: p.join(", ") })
            }
            Rule::MaxItems(max) if items.len() > *max => return Err(RuleError::TooMany { key: key.into(), max: *max }),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comma(key: &str, s: &str) -> Result<(), RuleError> {
        check(key, Some(ListKind::Comma), &SettingValue::String(s.into()))
    }

    #[test]
    fn items_that_exclude_or_require_each_other() {
        assert!(comma("backupcopy", "yes,breaksymlink").is_ok());
        assert_eq!(
            comma("backupcopy", "yes,no").unwrap_err().to_string(),
            "'backupcopy' takes exactly one of yes, no, auto"
        );
        assert!(comma("backupcopy", "breaksymlink").is_err());
        assert!(comma("cursorlineopt", "").is_err());
        assert!(comma("cursorlineopt", "number,line").is_ok());
        assert_eq!(
            comma("cursorlineopt", "line,screenline").unwrap_err().to_string(),
            "'cursorlineopt' takes at most one of line, screenline"
        );
        assert!(comma("messagesopt", "hit-enter,history:500").is_ok());
        assert!(comma("messagesopt", "wait:100,history:500").is_ok());
        assert!(comma("messagesopt", "hit-enter").is_err());
        assert!(comma("messagesopt", "hit-enter,wait:5,history:1").is_err());
        assert!(comma("sessionoptions", "curdir,sesdir").is_err());
        assert!(comma("diffopt", "vertical,horizontal").is_err());
        assert!(comma("diffopt", "algorithm:myers,inline:char,context:3,vertical").is_ok());
        assert!(comma("vartabstop", "0").is_ok());
        assert!(comma("vartabstop", "0,4").is_err());
        assert!(comma("vartabstop", "8,4").is_ok());
        assert!(comma("wildmode", "longest,list,full,lastused").is_ok());
        assert_eq!(comma("wildmode", "a,b,c,d,e").unwrap_err().to_string(), "'wildmode' takes at most 4 items");
        assert!(comma("clipboard", "").is_ok(), "no rule: the vocabulary decides");
    }

    #[test]
    fn read_only_options_take_nothing() {
        assert_eq!(
            check("channel", None, &SettingValue::Number(0)).unwrap_err().to_string(),
            "'channel' is read-only: Neovim sets it, a plan cannot"
        );
    }

    #[test]
    fn every_rule_names_a_list_option_of_the_tables() {
        for (key, _) in RULES {
            assert!(super::super::option_reach(key).is_some(), "{key} is not a Neovim option");
        }
    }

    #[test]
    fn a_neovim_catalog_carries_the_profiles_number_ranges_and_no_wider_one() {
        let entries = serde_json::json!([
            {"key": "tabstop", "title": "tab width", "type": "number"},
            {"key": "busy", "title": "busy status", "type": "number", "max": 5},
            {"key": "wrap", "title": "long lines wrap", "type": "boolean"}
        ]);
        let entries = entries.as_array().unwrap();
        let narrowed = |editor: &str| {
            crate::policy::narrow_catalog(crate::catalog::Catalog::from_entry_values(editor, entries).unwrap())
        };
        let c = narrowed("neovim");
        let tabstop = c.setting("tabstop").unwrap();
        assert_eq!((tabstop.min, tabstop.max), (Some(1), Some(9999)));
        let busy = c.setting("busy").unwrap();
        assert_eq!((busy.min, busy.max), (Some(0), Some(5)), "the catalog's narrower cap stays");
        assert_eq!(c.setting("wrap").unwrap().max, None);
        let generic = narrowed("generic");
        assert_eq!(generic.setting("tabstop").unwrap().max, None, "other editors' catalogs are left as they are");
    }
}
