//! Arbitrary model output must never panic the parser or the validator, and whatever the
//! validator keeps must obey the rules: catalog names only, a reach on every step, and
//! confirmation required whenever a step writes, runs code or runs a program.

use leash_core::catalog::Catalog;
use leash_core::confirm::Confirm;
use leash_core::plan;
use leash_core::policy::Policy;
use leash_core::profile::Profile;
use leash_core::reach::Reach;
use leash_core::validate::{validate, Action, MAX_STEPS};
use proptest::prelude::*;
use serde_json::{json, Value};

fn catalog() -> Catalog {
    leash_core::policy::narrow_catalog(Catalog::from_value(&json!({"version": 1, "editor": "neovim", "entries": [
        {"id": "cmd:vsplit", "kind": "command", "title": "split vertically", "aliases": ["vs"], "args": "optional", "reach": "safe"},
        {"id": "cmd:edit", "kind": "command", "title": "edit a file", "args": "optional", "reach": "safe"},
        {"id": "cmd:colorscheme", "kind": "command", "title": "load colour scheme", "args": "optional", "reach": "safe"},
        {"id": "cmd:nohlsearch", "kind": "command", "title": "stop highlighting", "args": "none", "reach": "safe"},
        {"id": "term:run", "kind": "terminal", "title": "run a shell command", "args": "required", "reach": "shell"},
        {"id": "user:Thing", "kind": "user_command", "title": "a user command", "args": "optional"},
        {"key": "wrap", "title": "long lines wrap", "type": "boolean", "aliases": ["wrap"]},
        {"key": "tabstop", "title": "tab width", "type": "number", "aliases": ["ts"]},
        {"key": "signcolumn", "title": "sign column", "type": "string", "values": ["yes", "no", "auto"]},
        {"key": "statusline", "title": "status line", "type": "string"},
        {"key": "shell", "title": "the shell", "type": "string", "aliases": ["sh"]}
    ]}))
    .unwrap())
}

fn check_invariants(text: &str) {
    let cat = catalog();
    for profile in [Profile::Neovim, Profile::Generic] {
        let Ok(p) = plan::parse(text) else { return };
        let v = validate(&p, &cat, &Policy::new(profile), None);
        let mut indices: Vec<usize> =
            v.steps.iter().map(|s| s.index).chain(v.dropped.iter().map(|d| d.index)).collect();
        indices.sort_unstable();
        assert_eq!(indices, (0..p.steps.len()).collect::<Vec<_>>(), "every step is kept or dropped, once");
        assert!(v.steps.len() <= MAX_STEPS);
        for s in &v.steps {
            match &s.action {
                Action::Item { id, .. } => assert!(cat.item(id).is_some(), "kept unknown item {id}"),
                Action::Setting { key, .. } => assert!(cat.setting(key).is_some_and(|s| &s.key == key), "kept {key}"),
                Action::Terminal { .. } => assert_eq!(s.reach, Reach::Shell),
            }
            assert!(!s.label.is_empty());
        }
        let dangerous = v.steps.iter().any(|s| s.reach >= Reach::Write);
        assert_eq!(v.confirm == Confirm::Required, dangerous);
        assert!(!v.reply.chars().any(char::is_control));
    }
}

fn step() -> impl Strategy<Value = Value> {
    let name = prop_oneof![
        Just("cmd:vsplit".to_string()),
        Just("cmd:vs".to_string()),
        Just("cmd:edit".to_string()),
        Just("cmd:colorscheme".to_string()),
        Just("cmd:nohlsearch".to_string()),
        Just("term:run".to_string()),
        Just("user:Thing".to_string()),
        Just("wrap".to_string()),
        Just("ts".to_string()),
        Just("tabstop".to_string()),
        Just("signcolumn".to_string()),
        Just("statusline".to_string()),
        Just("shell".to_string()),
        Just("sh".to_string()),
        ".{0,12}",
    ];
    let text = prop_oneof![
        Just("notes.md | !touch /tmp/x".to_string()),
        Just("`touch x`".to_string()),
        Just("+!touch x".to_string()),
        Just("term://sh".to_string()),
        Just("../../x".to_string()),
        Just("desert".to_string()),
        Just("%".to_string()),
        "\\PC{0,20}",
        ".{0,20}",
    ];
    let value = prop_oneof![
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        text.clone().prop_map(Value::from),
        Just(Value::Null),
        Just(json!([1, 2])),
    ];
    let kind = prop_oneof![Just("item"), Just("setting"), Just("terminal"), Just("shell"), Just("")];
    (kind, name, text, value, proptest::option::of(prop_oneof![Just("local"), Just("global"), Just("x")])).prop_map(
        |(kind, name, text, value, scope)| {
            json!({"type": kind, "id": name, "key": name, "args": text, "value": value, "command": text,
                   "scope": scope, "why": "because", "confirm": "skip", "reach": "safe"})
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        check_invariants(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn arbitrary_text_around_braces_never_panics(s in "[{}\\[\\]\",:a-z0-9 \\\\<>/think]{0,200}") {
        check_invariants(&s);
    }

    #[test]
    fn random_plans_obey_the_rules(steps in proptest::collection::vec(step(), 0..14), reply in "\\PC{0,40}") {
        let text = json!({"reply": reply, "steps": steps}).to_string();
        check_invariants(&text);
        // The plan cut off anywhere inside its object is never completed into a plan.
        let mut end = text.len() / 2;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        prop_assert!(plan::parse(&text[..end]).is_err(), "a cut-off plan was accepted");
    }
}
