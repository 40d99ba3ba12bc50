//! The model part of the schema: `provider` (which one to use) and `providers.NAME`
//! (how to reach each), checked key by key. The typed form is [`ProviderConfig`]; what
//! only a request can tell (a URL's host, a header's bytes) is checked when it resolves.

use serde_json::{Map, Value};

use super::field_names;
use serde::Deserialize;

use super::issue::{at, Checker, Issue, Issues};
use super::value::{int_in, number_in, one_of, string, string_map, strings, ValueError};
use crate::llm::{ProviderConfig, ProviderKind};

/// The built-in kinds: `provider` may name one without a `providers` entry.
fn kinds() -> &'static [&'static str; 4] {
    static KINDS: std::sync::OnceLock<[&str; 4]> = std::sync::OnceLock::new();
    KINDS.get_or_init(ProviderKind::names)
}

/// Fields of [`ProviderConfig`] a frontend sets, never the user.
const INTERNAL: [&str; 1] = ["timeout_setting"];

/// The keys a user may write in a provider's table.
pub fn fields() -> Vec<&'static str> {
    field_names::<ProviderConfig>().iter().copied().filter(|f| !INTERNAL.contains(f)).collect()
}

/// Checks `providers` (a table of named tables).
pub(crate) fn check_all(c: &mut Checker, v: &Value) {
    let Value::Object(all) = v else {
        c.bad("providers", super::value::want("a table of named provider tables", v).to_string());
        return;
    };
    let known = fields();
    for (name, p) in all {
        let path = at("providers", name);
        let Value::Object(p) = p else {
            c.bad(&path, super::value::want("a table", p).to_string());
            continue;
        };
        check_one(c, &path, p, &known);
        if !p.contains_key("kind") && !kinds().contains(&name.as_str()) {
            c.bad(
                &at(&path, "kind"),
                format!("needed, since '{name}' is not a built-in kind ({})", kinds().join(", ")),
            );
        }
    }
}

fn check_one(c: &mut Checker, path: &str, p: &Map<String, Value>, known: &[&str]) {
    for (key, v) in p {
        let here = at(path, key);
        let result = match key.as_str() {
            "api_key" => Err(ValueError::InlineKey { in_provider: true }),
            "kind" => one_of(v, kinds()),
            "structured" => one_of(v, &["json_schema", "json_object", "tool", "none"]),
            "timeout_ms" | "connect_timeout_ms" => int_in(v, 1, 600_000),
            "max_tokens" => int_in(v, 1, 1_000_000),
            "retries" => int_in(v, 0, i64::from(crate::llm::provider_config::MAX_RETRIES)),
            "temperature" => number_in(v, 0.0, 2.0),
            "headers" => string_map(v),
            "api_key_cmd" => strings(v, 1),
            k if known.contains(&k) => string(v),
            _ => {
                c.unknown(path, key, known);
                continue;
            }
        };
        c.check(&here, result);
    }
}

/// Checks one provider's table given on its own (`leash plan --config JSON`) key by key,
/// as an entry of `providers` is checked (issues name the keys as written there), and
/// gives its typed form. A key set to `null` is left unset, as JSON writers mean it.
pub fn check_table(v: &Value) -> Result<ProviderConfig, Issues> {
    let Value::Object(p) = v else {
        return Err(Issues(vec![Issue {
            path: "config".into(),
            message: super::value::want("a table", v).to_string(),
        }]));
    };
    let p: Map<String, Value> = p.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), v.clone())).collect();
    let mut c = Checker::default();
    check_one(&mut c, "", &p, &fields());
    c.finish()?;
    ProviderConfig::deserialize(super::normalized(Value::Object(p), None))
        .map_err(|e| Issues(vec![Issue { path: "config".into(), message: e.to_string() }]))
}

/// `provider` names a built-in kind or an entry of `providers`.
pub(crate) fn check_choice(c: &mut Checker, provider: Option<&Value>, providers: Option<&Value>) {
    let Some(Value::String(name)) = provider else { return };
    let defined: Vec<&str> = match providers {
        Some(Value::Object(m)) => m.keys().map(String::as_str).collect(),
        _ => Vec::new(),
    };
    if kinds().contains(&name.as_str()) || defined.contains(&name.as_str()) {
        return;
    }
    let mut candidates: Vec<&str> = kinds().to_vec();
    candidates.extend(&defined);
    let guess = super::issue::closest(name, &candidates).map(|g| format!(" (did you mean '{g}'?)")).unwrap_or_default();
    let mut sorted = defined.clone();
    sorted.sort_unstable();
    let defined =
        if sorted.is_empty() { "none defined".to_string() } else { format!("defined: {}", sorted.join(", ")) };
    c.bad(
        "provider",
        format!(
            "'{name}' is neither a built-in kind ({}) nor defined in providers ({defined}){guess}",
            kinds().join(", ")
        ),
    );
}
