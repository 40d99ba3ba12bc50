use super::*;
use serde_json::json;

fn issues(v: Value) -> String {
    check(&v, &["keymap_modes"], Runs::LuaOrCmd).unwrap_err().to_string()
}

#[test]
fn a_valid_table_is_typed_with_defaults() {
    let c = check(
        &json!({"provider": "local", "shortlist_limit": 20.0, "sources": {"keymaps": false},
                "providers": {"local": {"kind": "ollama", "model": "m", "timeout_ms": 9000.0}},
                "raise": {}, "entries": [{"id": "x", "title": "x", "run": true}]}),
        &[],
        Runs::LuaOrCmd,
    )
    .unwrap();
    assert_eq!(c.shortlist_limit, Some(20));
    assert!(!c.sources.keymaps && c.sources.git && c.confirm_before_run && c.log);
    assert_eq!(c.providers["local"].timeout_ms, Some(9000));
    assert!(c.raise.is_empty());
    assert!(c.entries[0].run);
    assert_eq!(check(&json!({}), &[], Runs::CmdOnly).unwrap(), Config::default());
}

#[test]
fn every_error_at_once_by_path() {
    assert_eq!(
        issues(json!({"provider": "mine", "providers": {"mine": {"kind": "gpt", "timeout_ms": 2.5}},
                      "timeout_ms": 5, "sources": {"gti": false}})),
        "providers.mine.kind: should be one of 'anthropic', 'openai', 'ollama', 'offline', not \"gpt\"; \
         providers.mine.timeout_ms: should be an integer from 1 to 600000, not 2.5; \
         sources.gti: unknown option (did you mean 'sources.git'?); \
         timeout_ms: should be an integer from 1000 to 600000, not 5"
    );
    assert_eq!(
        issues(json!({"shortlist_limt": 1})),
        "shortlist_limt: unknown option (did you mean 'shortlist_limit'?)"
    );
    assert_eq!(issues(json!({"keymap_mode": 1})), "keymap_mode: unknown option (did you mean 'keymap_modes'?)");
    assert_eq!(issues(json!({"log": "yes"})), "log: should be a boolean, not string");
}

#[test]
fn providers_and_the_chosen_one() {
    assert_eq!(
        issues(json!({"provider": "antropic", "providers": {"work": {"kind": "openai"}, "groq": {"kind": "openai"}}})),
        "provider: 'antropic' is neither a built-in kind (anthropic, openai, ollama, offline) \
         nor defined in providers (defined: groq, work) (did you mean 'anthropic'?)"
    );
    assert_eq!(
        issues(json!({"providers": {"mine": {"model": "m"}}})),
        "providers.mine.kind: needed, since 'mine' is not a built-in kind (anthropic, openai, ollama, offline)"
    );
    let e = issues(json!({"providers": {"groq": {"kind": "openai", "api_key": "sk-secret-7", "temperature": 3,
                                                   "retries": 9, "api_key_cmd": [], "headers": {"X": 1}, "modle": "m"}}}));
    assert!(!e.contains("sk-secret"), "{e}");
    for part in [
        "providers.groq.api_key: a key does not belong in the config, only where it comes from: api_key_env",
        "providers.groq.temperature: should be a number from 0 to 2, not 3",
        "providers.groq.retries: should be an integer from 0 to 5, not 9",
        "providers.groq.api_key_cmd: should be a list of at least 1 string(s)",
        "providers.groq.headers: [\"X\"] should be a string, not number",
        "providers.groq.modle: unknown option (did you mean 'providers.groq.model'?)",
    ] {
        assert!(e.contains(part), "{part} in {e}");
    }
    assert!(issues(json!({"providers": {"x": {"timeout_setting": "y", "kind": "openai"}}})).contains("unknown option"));
    assert!(issues(json!({"api_key": "k"})).starts_with("api_key: a key does not belong in the config, only where"));
}

#[test]
fn the_provider_config_takes_the_top_level_deadline() {
    let c = check(&json!({"provider": "ollama", "timeout_ms": 5000}), &[], Runs::CmdOnly).unwrap();
    let p = c.provider_config().unwrap();
    assert_eq!(
        (p.name.as_deref(), p.timeout_ms, p.timeout_setting.as_deref()),
        (Some("ollama"), Some(5000), Some("timeout_ms"))
    );
    let c = check(
        &json!({"provider": "l", "providers": {"l": {"kind": "ollama", "timeout_ms": 9000}}}),
        &[],
        Runs::CmdOnly,
    )
    .unwrap();
    let p = c.provider_config().unwrap();
    assert_eq!((p.timeout_ms, p.timeout_setting), (Some(9000), None));
    assert_eq!(Config::default().provider_config(), None, "offline");
}

#[test]
fn a_setup_table_read_key_by_key() {
    let read = |k: &str, v: Value| SetupField::Read(k.into(), v);
    let unreadable = |k: &str| SetupField::Unreadable(k.into(), "a function".into());
    let c = check_setup(
        vec![read("shortlist_limit", json!(20)), read("keymap_modes", json!(1)), unreadable("on_plan")],
        &["keymap_modes", "on_plan"],
        Runs::LuaOrCmd,
    )
    .unwrap();
    assert_eq!(c.shortlist_limit, Some(20), "keys elsewhere are the frontend's, readable or not");
    // What could not be read, in the order read, when the schema finds nothing wrong.
    let e = check_setup(
        vec![unreadable("log"), SetupField::NotText("number".into()), read("shortlist_limit", json!(20))],
        &[],
        Runs::LuaOrCmd,
    )
    .unwrap_err();
    assert_eq!(e, ["log: cannot be read (a function)", "opts: should have string keys, not number"]);
    // With the schema's issues, everything sorted.
    let e =
        check_setup(vec![unreadable("sources"), read("log", json!("yes")), read("gti", json!(1))], &[], Runs::LuaOrCmd)
            .unwrap_err();
    assert_eq!(
        e,
        ["gti: unknown option", "log: should be a boolean, not string", "sources: cannot be read (a function)"]
    );
}

#[test]
fn the_provider_of_a_configuration() {
    assert_eq!(provider_of(&json!({}), Runs::LuaOrCmd).unwrap(), None, "offline");
    assert_eq!(provider_of(&json!({"provider": "offline"}), Runs::LuaOrCmd).unwrap(), None);
    let p = provider_of(&json!({"provider": "ollama", "timeout_ms": 5000}), Runs::LuaOrCmd).unwrap().unwrap();
    assert_eq!((p.name.as_deref(), p.timeout_ms), (Some("ollama"), Some(5000)));
    let e = provider_of(&json!({"provider": "nope"}), Runs::LuaOrCmd).unwrap_err().to_string();
    assert!(e.starts_with("provider:"), "{e}");
}

#[test]
fn every_key_of_the_structs_is_checked() {
    // A wrong type under each key is named by that key, never called unknown.
    for key in field_names::<Config>() {
        let e = issues(json!({ *key: Value::Null }));
        assert!(e.starts_with(&format!("{key}: should be")), "{key}: {e}");
    }
    for key in field_names::<Sources>() {
        assert!(issues(json!({"sources": { *key: 1 }})).starts_with(&format!("sources.{key}: should be a boolean")));
    }
    for key in provider::fields() {
        let e = issues(json!({"providers": {"openai": { key: true }}}));
        assert!(e.starts_with(&format!("providers.openai.{key}: should be")), "{key}: {e}");
    }
    assert!(keys().contains(&"providers.NAME.api_key_cmd".to_string()) && keys().contains(&"sources.lsp".to_string()));
}
