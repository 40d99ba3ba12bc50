//! The `raise` rules: `{ pattern = 'user:Deploy*', reach = 'shell' }` raises the reach of
//! every id or key the pattern matches (an exact id or key, or a prefix ending in `*`).
//! Parsed here only, for the Lua setup table, the options of a Neovim plan and the
//! `leash` program's file alike.

use serde_json::Value;

use super::issue::{Checker, Issues};
use super::value::{list, type_name};
use crate::policy::RaiseRule;
use crate::reach::Reach;

/// The reaches a rule may name. `plugin` is left out: it labels a plugin's own code, which
/// a rule about an id cannot know; `shell` is the reach above it.
pub const RULE_REACHES: [Reach; 5] = [Reach::Safe, Reach::Edit, Reach::Write, Reach::Code, Reach::Shell];

const FIELDS: [&str; 2] = ["pattern", "reach"];

/// Parses a list of rules; every issue is named `raise[N]` (from 1).
pub fn parse(v: &Value) -> Result<Vec<RaiseRule>, Issues> {
    let mut c = Checker::default();
    let rules = check(&mut c, "raise", v);
    c.finish().map(|()| rules)
}

/// Checks the rules under `path`, recording every issue; returns the good ones.
pub(crate) fn check(c: &mut Checker, path: &str, v: &Value) -> Vec<RaiseRule> {
    let Some(items) = list(v) else {
        c.bad(path, format!("should be a list of {{ pattern, reach }}, not {}", type_name(v)));
        return Vec::new();
    };
    let mut rules = Vec::new();
    for (i, r) in items.iter().enumerate() {
        let at = format!("{path}[{}]", i + 1);
        let Value::Object(m) = r else {
            c.bad(&at, format!("should be a table {{ pattern, reach }}, not {}", type_name(r)));
            continue;
        };
        for k in m.keys().filter(|k| !FIELDS.contains(&k.as_str())) {
            c.unknown(&at, k, &FIELDS);
        }
        let pattern = m.get("pattern").and_then(Value::as_str).filter(|p| !p.is_empty());
        let reach = m.get("reach").and_then(Value::as_str).and_then(Reach::parse).filter(|r| RULE_REACHES.contains(r));
        if pattern.is_none() {
            c.bad(&at, "needs a pattern (an id or key, or a prefix ending in *)");
        }
        if reach.is_none() {
            c.bad(&at, "reach should be 'safe', 'edit', 'write', 'code' or 'shell'");
        }
        // A rule that can change nothing is a mistake to say, not to ignore: `safe` raises
        // nothing (it was meant to lower, which no rule can), and a `*` before the end is
        // read as part of an exact id, which no id has.
        if pattern.is_some() && reach == Some(Reach::Safe) {
            c.bad(&at, "reach 'safe' raises nothing: a rule can only raise a reach, never lower it");
            continue;
        }
        if pattern.is_some_and(|p| p.strip_suffix('*').unwrap_or(p).contains('*')) {
            c.bad(&at, "a “*” may only end the pattern (a prefix ending in *), so this one matches nothing");
            continue;
        }
        if let (Some(p), Some(reach)) = (pattern, reach) {
            rules.push(RaiseRule { pattern: p.to_string(), reach });
        }
    }
    rules
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rules_and_their_issues() {
        let rules = parse(&json!([{"pattern": "script:*", "reach": "shell"}])).unwrap();
        assert_eq!(rules, [RaiseRule { pattern: "script:*".into(), reach: Reach::Shell }]);
        assert_eq!(parse(&json!({})).unwrap(), [], "an empty Lua table");
        let e =
            parse(&json!([{"pattern": "x", "reach": "harmless"}, {"reach": "safe"}, {"patern": "y", "reach": "safe"}]))
                .unwrap_err()
                .to_string();
        assert_eq!(
            e,
            "raise[1]: reach should be 'safe', 'edit', 'write', 'code' or 'shell'; \
             raise[2]: needs a pattern (an id or key, or a prefix ending in *); \
             raise[3].patern: unknown option (did you mean 'raise[3].pattern'?); \
             raise[3]: needs a pattern (an id or key, or a prefix ending in *)"
        );
        assert!(parse(&json!([{"pattern": "x", "reach": "plugin"}])).is_err(), "plugin is no rule's reach");
        assert!(parse(&json!("x")).unwrap_err().to_string().contains("raise: should be a list"));
    }

    #[test]
    fn a_rule_that_could_never_match_or_raise_is_an_error() {
        // `safe` raises nothing: such a rule was meant to lower a reach, which no rule can.
        let e = parse(&json!([{"pattern": "cmd:terminal", "reach": "safe"}])).unwrap_err().to_string();
        assert!(e.starts_with("raise[1]: reach 'safe' raises nothing"), "{e}");
        assert!(e.contains("never lower"), "{e}");
        // A `*` anywhere but at the end is taken as part of an exact id: it matched nothing.
        for pattern in ["user:*Deploy", "*:Deploy*", "script:**", "lsp:*", "*"] {
            let got = parse(&json!([{"pattern": pattern, "reach": "shell"}]));
            let inner = pattern.strip_suffix('*').unwrap_or(pattern).contains('*');
            assert_eq!(got.is_err(), inner, "{pattern}: {got:?}");
            if let Err(e) = got {
                assert!(e.to_string().contains("a “*” may only end the pattern"), "{e}");
            }
        }
    }
}
