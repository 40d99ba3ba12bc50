//! The configuration schema: one definition of every key the core reads, for Neovim's
//! `setup()` table (handed over by `check_config` of the Lua module) and the `leash`
//! program's TOML file alike. Each key is checked with a message that names its path,
//! what was expected and what was given; every issue is reported at once, and a
//! configuration with any issue gives nothing.
//!
//! Keys only one frontend reads (Neovim's `keymap_modes`) are checked there; [`check`] is
//! told their names so that it neither calls them unknown nor misses them when it
//! guesses what a misspelt key meant.

mod entry;
mod issue;
mod provider;
mod raise;
mod value;

use std::cell::Cell;
use std::collections::BTreeMap;

use serde::de::{DeserializeOwned, Error as _, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

pub use entry::{EntryConfig, Runs};
pub use issue::{Issue, Issues};
pub use provider::check_table as check_provider;
pub use raise::{parse as parse_raise_rules, RULE_REACHES};

use crate::llm::ProviderConfig;
use crate::policy::RaiseRule;
use issue::{at, Checker};
use value::{boolean, int_in, string, ValueError};

/// The part of the configuration the core reads, every default filled in.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// The name of the provider to use (a built-in kind or a key of `providers`); none is
    /// offline planning.
    pub provider: Option<String>,
    /// Named model providers.
    pub providers: BTreeMap<String, ProviderConfig>,
    /// How many catalog entries the model sees; none is the ranker's default.
    pub shortlist_limit: Option<usize>,
    /// `false` skips the confirmation of plans whose steps are all safe or edit.
    pub confirm_before_run: bool,
    /// Which catalog sources are on.
    pub sources: Sources,
    /// Whether every exchange is appended to the log.
    pub log: bool,
    /// The deadline of one model call, for a provider that sets none.
    pub timeout_ms: Option<u64>,
    /// Rules that raise the reach of matching ids or keys.
    pub raise: Vec<RaiseRule>,
    /// Catalog items of the user's own.
    pub entries: Vec<EntryConfig>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            provider: None,
            providers: BTreeMap::new(),
            shortlist_limit: None,
            confirm_before_run: true,
            sources: Sources::default(),
            log: true,
            timeout_ms: None,
            raise: Vec::new(),
            entries: Vec::new(),
        }
    }
}

/// Which catalog sources are on (all by default). The `leash` program has no user
/// commands, mappings, language servers or diagnostics; it accepts those keys so that one
/// file can be shared.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Sources {
    pub commands: bool,
    pub options: bool,
    pub user_commands: bool,
    pub keymaps: bool,
    pub scripts: bool,
    pub git: bool,
    pub files: bool,
    pub lsp: bool,
    pub diagnostics: bool,
    pub terminal: bool,
}

impl Default for Sources {
    fn default() -> Self {
        Sources {
            commands: true,
            options: true,
            user_commands: true,
            keymaps: true,
            scripts: true,
            git: true,
            files: true,
            lsp: true,
            diagnostics: true,
            terminal: true,
        }
    }
}

impl Config {
    /// The provider configuration the planner uses: the named provider's table (with the
    /// top-level `timeout_ms` when it sets none), or none for the offline planner.
    pub fn provider_config(&self) -> Option<ProviderConfig> {
        let name = self.provider.as_deref().filter(|n| *n != "offline")?;
        let mut p = self.providers.get(name).cloned().unwrap_or_default();
        p.name.get_or_insert_with(|| name.to_string());
        if p.timeout_ms.is_none() {
            // A deadline message then names the top-level key, the one to change.
            p.timeout_setting = Some("timeout_ms".into());
            p.timeout_ms = self.timeout_ms;
        }
        Some(p)
    }
}

/// Every key of the schema as a dotted path: `provider`, `sources.git`,
/// `providers.NAME.kind`, `raise[].pattern`… (the documentation is checked against it).
pub fn keys() -> Vec<String> {
    let mut out = Vec::new();
    for top in field_names::<Config>() {
        out.push(top.to_string());
        match *top {
            "sources" => out.extend(field_names::<Sources>().iter().map(|k| at("sources", k))),
            "providers" => out.extend(provider::fields().iter().map(|k| at("providers.NAME", k))),
            "raise" => out.extend(["raise[].pattern".to_string(), "raise[].reach".to_string()]),
            "entries" => out.extend(field_names::<EntryConfig>().iter().map(|k| format!("entries[].{k}"))),
            _ => {}
        }
    }
    out
}

/// Checks a configuration table (a Lua table or a TOML file, as JSON) and gives its typed
/// form. Keys in `elsewhere` belong to the frontend: they are skipped here, and count as
/// known when a misspelt key is matched to the closest one. `runs` says whether an entry
/// may run a Lua function.
pub fn check(value: &Value, elsewhere: &[&str], runs: Runs) -> Result<Config, Issues> {
    let mut c = Checker::default();
    let Value::Object(top) = value else {
        return Err(Issues(vec![Issue { path: "config".into(), message: value::want("a table", value).to_string() }]));
    };
    let mut known: Vec<&str> = field_names::<Config>().to_vec();
    known.extend(elsewhere);
    let mut ours = Map::new();
    for (key, v) in top {
        if elsewhere.contains(&key.as_str()) {
            continue;
        }
        let result = match key.as_str() {
            "provider" => string(v),
            "providers" => {
                provider::check_all(&mut c, v);
                Ok(())
            }
            "shortlist_limit" => int_in(v, 1, 500),
            "confirm_before_run" | "log" => boolean(v),
            "timeout_ms" => int_in(v, 1000, 600_000),
            "sources" => {
                check_sources(&mut c, v);
                Ok(())
            }
            "raise" => {
                raise::check(&mut c, "raise", v);
                Ok(())
            }
            "entries" => {
                entry::check(&mut c, v, runs);
                Ok(())
            }
            "api_key" => Err(ValueError::InlineKey { in_provider: false }),
            _ => {
                c.unknown("", key, &known);
                continue;
            }
        };
        c.check(key, result);
        ours.insert(key.clone(), v.clone());
    }
    provider::check_choice(&mut c, top.get("provider"), top.get("providers"));
    c.finish()?;
    Config::deserialize(normalized(Value::Object(ours), None))
        .map_err(|e| Issues(vec![Issue { path: "config".into(), message: e.to_string() }]))
}

/// One key of a frontend's setup table as the frontend could read it.
#[derive(Debug, Clone, PartialEq)]
pub enum SetupField {
    /// A key and its value as JSON.
    Read(String, Value),
    /// A key whose value has no JSON form (a Lua function), and why.
    Unreadable(String, String),
    /// A key that is not a string, named by its type (`number`).
    NotText(String),
}

/// Checks a frontend's setup table read key by key (Neovim's `setup()`, through the Lua
/// module's `check_config`) as [`check`] does; a key that is not a string, or a value
/// with no JSON form under a key not in `elsewhere`, is an error too. Gives the
/// configuration or every error as `path: what is wrong`: those of the reading in the
/// order read when the schema found nothing, else all of them sorted.
pub fn check_setup(fields: Vec<SetupField>, elsewhere: &[&str], runs: Runs) -> Result<Config, Vec<String>> {
    let mut top = Map::new();
    let mut errors = Vec::new();
    for field in fields {
        match field {
            SetupField::NotText(kind) => errors.push(format!("opts: should have string keys, not {kind}")),
            SetupField::Read(key, _) | SetupField::Unreadable(key, _) if elsewhere.contains(&key.as_str()) => {}
            SetupField::Read(key, value) => {
                top.insert(key, value);
            }
            SetupField::Unreadable(key, why) => errors.push(format!("{key}: cannot be read ({why})")),
        }
    }
    match check(&Value::Object(top), elsewhere, runs) {
        Ok(config) if errors.is_empty() => Ok(config),
        Ok(_) => Err(errors),
        Err(issues) => {
            errors.extend(issues.0.iter().map(ToString::to_string));
            errors.sort();
            Err(errors)
        }
    }
}

/// The provider configuration the planner uses for a configuration table: the table
/// checked by [`check`] (no keys elsewhere), then [`Config::provider_config`]; none for
/// the offline planner.
pub fn provider_of(value: &Value, runs: Runs) -> Result<Option<ProviderConfig>, Issues> {
    Ok(check(value, &[], runs)?.provider_config())
}

fn check_sources(c: &mut Checker, v: &Value) {
    let Value::Object(m) = v else { return c.bad("sources", value::want("a table", v).to_string()) };
    let known = field_names::<Sources>();
    for (k, on) in m {
        if known.contains(&k.as_str()) {
            c.check(&at("sources", k), boolean(on));
        } else {
            c.unknown("sources", k, known);
        }
    }
}

/// The keys whose value is a list, so that an empty Lua table (`{}`) reads as one.
const LISTS: [&str; 5] = ["raise", "api_key_cmd", "entries", "cmd", "aliases"];

/// A checked value ready for serde: whole floats (Lua numbers) become integers, an empty
/// table under a list key becomes an empty list.
fn normalized(v: Value, key: Option<&str>) -> Value {
    match v {
        Value::Object(m) if m.is_empty() && key.is_some_and(|k| LISTS.contains(&k)) => Value::Array(Vec::new()),
        Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k.clone(), normalized(v, Some(&k)))).collect()),
        Value::Array(a) => Value::Array(a.into_iter().map(|v| normalized(v, None)).collect()),
        Value::Number(ref n) if n.is_f64() => match value::whole(&v) {
            Some(i) => Value::from(i),
            None => v,
        },
        other => other,
    }
}

/// The field names serde knows for a struct (what `deny_unknown_fields` accepts), so that
/// the list of keys is the struct itself.
pub(crate) fn field_names<T: DeserializeOwned>() -> &'static [&'static str] {
    struct Probe<'a>(&'a Cell<&'static [&'static str]>);
    impl<'de> Deserializer<'de> for Probe<'_> {
        type Error = serde::de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(Self::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            self.0.set(fields);
            Err(Self::Error::custom("probed"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
        }
    }
    let fields = Cell::new(&[][..]);
    let _ = T::deserialize(Probe(&fields));
    fields.get()
}

#[cfg(test)]
mod tests;
