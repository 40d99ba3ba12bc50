//! The Helix catalog for the Helix version in use: typable commands (`cmd:<name>`), the
//! static commands leash can type the key of (`static:<name>`, see [`super::statics`]),
//! `[editor]` options keyed by their `:set-option` path (`soft-wrap.enable`), the
//! editor-agnostic sources (project scripts, Git, files), `term:run` and the user's own
//! entries.
//!
//! The command and option data is Helix 25.07.1's (`policy/helix-reach.json`), plus what
//! master added when the running Helix is newer. The list options `rulers`,
//! `gutters.layout` and `statusline.left/center/right` are offered as comma lists of
//! their allowed elements; other lists and tables (`shell`, `gutters` as a table…) are
//! classified by the policy but not offered.

use std::path::Path;
use std::sync::Arc;

use super::statics;
use crate::config_file::ProgramConfig;
use leash_core::catalog::{Catalog, CatalogError};
use leash_core::entry::{Args, Entry, Item, ListKind, Setting, SettingScope, ValueType};
use leash_core::item_id::ItemId;
use leash_core::profile::helix::{data, withheld, HelixOption, StaticCommand, Typable, DATA_VERSION};
use leash_core::project::{self, Discovered, Editor};
use leash_core::reach::Reach;

/// A Helix release number (`25.07.1` is `(25, 7, 1)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(pub u32, pub u32, pub u32);

impl Version {
    /// Reads `25.07.1`, `helix 25.07.1 (a05c151b)` or `25.01`.
    pub fn parse(text: &str) -> Option<Version> {
        let word = text.split_whitespace().find(|w| w.starts_with(|c: char| c.is_ascii_digit()))?;
        let mut parts = word.split('.').map(|p| p.trim_end_matches(|c: char| !c.is_ascii_digit()).parse::<u32>());
        let major = parts.next()?.ok()?;
        let minor = parts.next().and_then(Result::ok).unwrap_or(0);
        let patch = parts.next().and_then(Result::ok).unwrap_or(0);
        Some(Version(major, minor, patch))
    }

    /// The release the data describes.
    pub fn data() -> Version {
        Version::parse(DATA_VERSION).unwrap_or(Version(25, 7, 1))
    }

    /// Whether an entry marked `since` exists in this release.
    fn has(self, since: &str) -> bool {
        since != "master" || self > Version::data()
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{:02}.{}", self.0, self.1, self.2)
    }
}

/// The version of the Helix that started leash: `$LEASH_HELIX_VERSION`, else what
/// `hx --version` prints (the running Helix's binary where the process tree shows it),
/// else the data's release.
pub fn detect_version() -> Version {
    if let Some(v) = std::env::var("LEASH_HELIX_VERSION").ok().as_deref().and_then(Version::parse) {
        return v;
    }
    let exe = super::process::helix_pid().and_then(super::process::helix_exe);
    let program = exe.filter(|p| p.file_name().is_some_and(|n| n == "hx")).unwrap_or_else(|| "hx".into());
    std::process::Command::new(&program)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .and_then(|o| Version::parse(&String::from_utf8_lossy(&o.stdout)))
        .unwrap_or_else(Version::data)
}

/// The catalog with what running its items needs.
pub struct HelixCatalog {
    pub catalog: Arc<Catalog>,
    pub discovered: Discovered,
    pub version: Version,
}

/// Builds the Helix catalog for a working directory and the current file.
pub fn build(
    version: Version,
    cwd: &Path,
    file: Option<&Path>,
    cfg: &ProgramConfig,
) -> Result<HelixCatalog, CatalogError> {
    let mut entries = Vec::new();
    let d = data();
    if cfg.core.sources.commands {
        for t in d.typable_commands.iter().filter(|t| version.has(&t.since) && withheld(&t.name).is_none()) {
            entries.push(command_entry(t));
        }
        for s in d.static_commands.iter().filter(|s| version.has(&s.since)) {
            if let Some(waits) = statics::offered(&s.name) {
                entries.push(static_entry(s, waits));
            }
        }
    }
    if cfg.core.sources.options {
        entries.extend(d.options.iter().filter(|o| version.has(&o.since)).filter_map(option_entry));
    }
    let discovered = project::discover(&project::Options {
        cwd: cwd.to_path_buf(),
        file: file.map(Path::to_path_buf),
        editor: Editor::Helix,
    });
    let mut shared = Vec::new();
    if cfg.core.sources.scripts {
        shared.extend(discovered.scripts.iter());
    }
    if cfg.core.sources.git {
        shared.extend(discovered.git.iter());
    }
    if cfg.core.sources.files {
        shared.extend(discovered.files.iter());
    }
    entries.extend(shared.into_iter().map(project::SourceItem::to_entry));
    if cfg.core.sources.terminal {
        entries.push(project::terminal::run_item(Editor::Helix).to_entry());
    }
    for u in &cfg.entries {
        entries.push(Entry::Item(Item {
            id: ItemId::entry(&u.id).to_string(),
            kind: "entry".into(),
            title: u.title.clone(),
            aliases: u.aliases.clone(),
            args: u.args,
            // It runs a program: shell, whatever was declared.
            reach: Reach::Shell,
            range: false,
            description: u.description.clone(),
            plugin: String::new(),
            loads: false,
        }));
    }
    Ok(HelixCatalog { catalog: Arc::new(Catalog::new("helix", entries)?), discovered, version })
}

/// The reach a command has at the least; the policy raises it from the arguments
/// (`:vsplit FILE` opens a file, `:write` without `--no-format` runs a formatter).
fn floor_reach(t: &Typable) -> Reach {
    match t.name.as_str() {
        "vsplit" | "hsplit" => Reach::Safe,
        _ => t.safer_reach.unwrap_or(t.reach),
    }
}

fn command_entry(t: &Typable) -> Entry {
    let args = match t.args.as_str() {
        "required" => Args::Required,
        "optional" => Args::Optional,
        _ => Args::None,
    };
    Entry::Item(Item {
        id: ItemId::command(&t.name).to_string(),
        kind: "command".into(),
        title: t.title.trim_end_matches('.').to_string(),
        aliases: t.aliases.clone(),
        args,
        reach: floor_reach(t),
        range: false,
        description: String::new(),
        plugin: String::new(),
        loads: false,
    })
}

fn static_entry(s: &StaticCommand, waits: statics::Waits) -> Entry {
    let description = match waits {
        statics::Waits::Yes => "Waits for the user (a picker, a prompt or insert mode): only as a plan's last step.",
        statics::Waits::No => "",
    };
    Entry::Item(Item {
        id: ItemId::static_command(&s.name).to_string(),
        kind: "static command".into(),
        title: s.title.trim_end_matches('.').to_string(),
        aliases: vec![s.name.replace('_', " ")],
        args: Args::None,
        reach: s.reach,
        range: false,
        description: description.into(),
        plugin: String::new(),
        loads: false,
    })
}

fn option_entry(o: &HelixOption) -> Option<Entry> {
    let list = leash_core::profile::helix::is_list_option(&o.key).then_some(ListKind::Comma);
    let value_type = match o.kind.as_str() {
        "boolean" => ValueType::Boolean,
        "number" => ValueType::Number,
        "string" => ValueType::String,
        "list" if list.is_some() => ValueType::String,
        _ => return None,
    };
    let values = match value_type {
        // Helix's rulers are column numbers.
        ValueType::String if o.key == "rulers" => Some(vec!["{number}".to_string()]),
        ValueType::String => o
            .values
            .as_ref()
            .map(|v| v.iter().filter_map(|x| x.as_str().map(str::to_string)).collect::<Vec<_>>())
            .filter(|v| !v.is_empty()),
        _ => None,
    };
    Some(Entry::Setting(Setting {
        key: o.key.clone(),
        title: o.title.trim_end_matches('.').to_string(),
        value_type,
        values,
        list,
        min: None,
        max: None,
        // Helix has one value per setting: config.toml's.
        scope: Some(SettingScope::Global),
        aliases: Vec::new(),
        reach: Some(o.reach),
        description: String::new(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use leash_core::entry::SettingValue;

    fn cfg() -> ProgramConfig {
        ProgramConfig::default()
    }

    #[test]
    fn versions() {
        assert_eq!(Version::parse("helix 25.07.1 (a05c151b)"), Some(Version(25, 7, 1)));
        assert_eq!(Version::parse("25.01"), Some(Version(25, 1, 0)));
        assert!(Version(25, 10, 0) > Version(25, 7, 1));
        assert_eq!(Version(25, 7, 1).to_string(), "25.07.1");
        assert_eq!(Version::parse("no version"), None);
    }

    #[test]
    fn commands_and_options_of_the_release() {
        let dir = std::env::temp_dir();
        let c = build(Version(25, 7, 1), &dir, None, &cfg()).unwrap();
        let cat = &c.catalog;
        assert_eq!(cat.editor(), "helix");
        assert_eq!(cat.item("cmd:vsplit").unwrap().reach, Reach::Safe);
        assert_eq!(cat.item("cmd:vsplit").unwrap().aliases, ["vs"]);
        assert_eq!(cat.item("cmd:write").unwrap().reach, Reach::Write);
        assert_eq!(cat.item("cmd:run-shell-command").unwrap().reach, Reach::Shell);
        assert!(cat.item("cmd:set-option").is_none(), "settings are setting steps");
        assert!(cat.item("cmd:config-reload").is_none());
        assert!(cat.item("cmd:set-register").is_none(), "master only");
        let comment = cat.item("static:toggle_comments").unwrap();
        assert_eq!((comment.reach, comment.args), (Reach::Edit, Args::None));
        assert_eq!(comment.aliases, ["toggle comments"]);
        assert!(cat.item("static:replay_macro").is_none(), "not offered");
        assert!(cat.item("static:shell_pipe").is_none(), "not offered");
        let ln = cat.setting("line-number").unwrap();
        assert_eq!(ln.values.as_deref().unwrap(), ["absolute", "relative"]);
        assert_eq!(cat.setting("soft-wrap.enable").unwrap().value_type, ValueType::Boolean);
        let rulers = cat.setting("rulers").unwrap();
        assert_eq!((rulers.value_type, rulers.list), (ValueType::String, Some(ListKind::Comma)));
        let left = cat.setting("statusline.left").unwrap();
        assert!(left.values.as_deref().unwrap().contains(&"file-name".to_string()));
        assert!(cat.setting("gutters.layout").unwrap().values.as_deref().unwrap().contains(&"diff".to_string()));
        assert!(cat.setting("shell").is_none(), "other lists are not offered");
        assert!(cat.setting("gutters").is_none(), "the table is not offered");
        assert!(cat.setting("editor.line-number").is_none());
        assert_eq!(cat.item("term:run").unwrap().reach, Reach::Shell);
        let newer = build(Version(26, 1, 0), &dir, None, &cfg()).unwrap();
        assert!(newer.catalog.item("cmd:set-register").is_some());
    }

    #[test]
    fn list_options_take_their_elements_only() {
        let c = build(Version(25, 7, 1), &std::env::temp_dir(), None, &cfg()).unwrap();
        let policy = leash_core::policy::Policy::new(leash_core::profile::Profile::Helix);
        let check = |key: &str, value: serde_json::Value| {
            let answer = serde_json::json!({"reply": "r", "steps": [
                {"type": "setting", "key": key, "value": value, "why": "w"}]});
            let plan = leash_core::validate::validate_text(&answer.to_string(), &c.catalog, &policy, None).unwrap();
            match plan.steps.first().map(|s| &s.action) {
                Some(leash_core::validate::Action::Setting { value, .. }) => Ok(value.clone()),
                _ => Err(plan.dropped[0].refusal.to_string()),
            }
        };
        let text = |s: &str| SettingValue::String(s.into());
        assert_eq!(check("rulers", "80,100".into()), Ok(text("80,100")));
        assert_eq!(check("rulers", serde_json::json!([80, 100])), Ok(text("80,100")));
        assert_eq!(check("rulers", "".into()), Ok(text("")), "no rulers");
        assert!(check("rulers", "80,wide".into()).unwrap_err().contains("wide"));
        assert!(check("rulers", "70000".into()).unwrap_err().contains("70000"));
        assert_eq!(
            check("statusline.right", serde_json::json!(["position", "file-type"])),
            Ok(text("position,file-type"))
        );
        assert!(check("statusline.left", "mode,clock".into()).unwrap_err().contains("clock"));
        assert!(check("gutters.layout", serde_json::json!(["diff", 3])).is_err());
        assert_eq!(leash_core::profile::helix::list_array("rulers", "80,100"), Some(serde_json::json!([80, 100])));
        assert_eq!(leash_core::profile::helix::list_array("line-number", "x"), None);
    }

    #[test]
    fn sources_can_be_turned_off() {
        let mut off = cfg();
        off.core.sources.commands = false;
        off.core.sources.terminal = false;
        let c = build(Version(25, 7, 1), &std::env::temp_dir(), None, &off).unwrap();
        assert!(c.catalog.item("cmd:vsplit").is_none());
        assert!(c.catalog.item("term:run").is_none());
        assert!(c.catalog.setting("line-number").is_some());
    }

    #[test]
    fn the_offline_planner_answers_with_helix_keys_and_values() {
        let c = build(Version(25, 7, 1), &std::env::temp_dir(), None, &cfg()).unwrap().catalog;
        let plan = |r: &str| {
            let index = leash_core::rank::Index::new(&c);
            let shortlist = leash_core::rank::rank(&index, &c, r, 60, leash_core::rank::Mode::Any);
            match leash_core::planner::offline::answer(r, &c, &index, &shortlist).output {
                leash_core::llm::Output::Object(m) => serde_json::Value::Object(m),
                leash_core::llm::Output::Text(t) => panic!("text {t}"),
            }
        };
        let first = |r: &str| plan(r)["steps"][0].clone();
        let kv = |r: &str| {
            let s = first(r);
            (s["key"].as_str().unwrap_or_default().to_string(), s["value"].clone())
        };
        assert_eq!(kv("relative line numbers"), ("line-number".into(), serde_json::json!("relative")));
        assert_eq!(kv("absolute line numbers"), ("line-number".into(), serde_json::json!("absolute")));
        assert_eq!(kv("soft wrap"), ("soft-wrap.enable".into(), serde_json::json!(true)));
        assert_eq!(kv("turn off soft wrap"), ("soft-wrap.enable".into(), serde_json::json!(false)));
        assert_eq!(kv("theme gruvbox"), ("theme".into(), serde_json::json!("gruvbox")));
        assert_eq!(kv("disable the mouse"), ("mouse".into(), serde_json::json!(false)));
        assert_eq!(kv("show whitespace"), ("whitespace.render".into(), serde_json::json!("all")));
        assert_eq!(first("go to the next buffer")["id"], serde_json::json!("cmd:buffer-next"));
        assert_eq!(first("split the window vertically")["id"], serde_json::json!("cmd:vsplit"));
        // What needs a model says how to set one up for the program, not Neovim's help.
        let reply = plan("make everything nicer")["reply"].as_str().unwrap_or_default().to_string();
        assert!(reply.contains("config.toml") && !reply.contains(":help"), "{reply}");
    }
}
