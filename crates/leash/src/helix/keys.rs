//! The config.toml snippet a Helix user pastes: `space .` asks, confirms and applies;
//! `space ,` shows the plan only.
//!
//! `space .` is a macro (Helix 25.07 has no plugin system and no IPC):
//!
//! The macros never type a key the user's keymap may have rebound (`:`, `"`, `y`, `q`:
//! with `q = ":quit"`, `"lq` would quit Helix): they type leash's own keys instead, a
//! table under `space F12` that the same snippet binds to `command_mode`,
//! `select_register`, `yank` and `replay_macro` by name (see [`HELPERS`]).
//!
//! 1. `:noop %sh{leash helix do <<'LEASH_CONTEXT_…' …}` runs the dialog on the terminal
//!    while the user's buffer is still current; the here-document carries the file,
//!    language and selected lines as plain text (see [`super::context`]).
//! 2. `:new`, `:insert-output leash helix take`, `"ly`, `:buffer-close!` put what the
//!    dialog decided into register `l`, by way of a scratch buffer that is closed again.
//! 3. `:redraw` clears what the dialog left on screen; `"lq` replays register `l` as a
//!    macro: `:config-reload` when config.toml changed, then the plan's commands.
//!
//! `space ,` asks for the request and plans it the same way (`leash helix ask`, with
//! progress on the terminal), then `:run-shell-command leash helix plan` prints the plan
//! into Helix's popup and applies nothing; `space .` can then apply that plan as shown.

use std::hash::{BuildHasher, Hasher};
use std::path::Path;

use super::context::heredoc;

/// The key of leash's own table under `space`.
pub const HELPER_TABLE: &str = "F12";

/// leash's own keys under `space F12`: the key, the static command it runs, and what a
/// macro types for it.
pub const HELPERS: [(&str, &str); 4] =
    [(":", "command_mode"), ("\"", "select_register"), ("y", "yank"), ("q", "replay_macro")];

/// The macro text that runs `command` (one of [`HELPERS`]) whatever the user's keymap binds
/// to its default key.
pub fn helper(command: &str) -> String {
    let key = HELPERS.iter().find(|(_, c)| *c == command).map_or(":", |(k, _)| k);
    format!("<space><{HELPER_TABLE}>{key}")
}

/// Macro text typing one command line: `:line<ret>`, through leash's own key.
pub fn command_line(line: &str) -> String {
    format!("{}{}<ret>", helper("command_mode"), super::commandline::macro_escape(line))
}

/// What goes into the snippet.
pub struct KeysOptions<'a> {
    /// How Helix's shell starts leash: a path or a name on `PATH`.
    pub program: &'a str,
    /// A config.toml for Helix other than the default (`hx -c FILE`).
    pub helix_config: Option<&'a Path>,
    /// The here-document's random tail (tests fix it).
    pub tag: Option<String>,
}

/// A random tail for the here-document's delimiter.
pub fn random_tag() -> String {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    h.write_u32(std::process::id());
    format!("{:016x}", h.finish())
}

/// A word for a POSIX shell: as is when plain, else in single quotes.
fn shell_word(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Text for a Helix command line inside a macro: `%` doubled (no expansion), `<`/`>`
/// as key names.
fn helix_text(s: &str) -> String {
    super::commandline::macro_escape(&s.replace('%', "%%"))
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Why the key bindings cannot be made or installed.
#[derive(Debug, thiserror::Error)]
pub enum KeysError {
    /// leash's own path cannot stand in a Helix `%sh{…}`.
    #[error(
        "leash's path {0:?} holds a brace or a line break, which a Helix %sh{{…}} cannot hold; put leash on PATH and pass --command leash"
    )]
    Program(String),
    /// The `--helix-config` path is not valid text.
    #[error("the Helix config path is not text")]
    ConfigPathNotText,
    /// The `--helix-config` path cannot stand in a Helix `%sh{…}`.
    #[error("the Helix config path {0:?} holds a brace or a line break")]
    ConfigPath(String),
    /// The install would replace keys the user bound to something else.
    #[error(
        "{} binds already: {}; nothing was written. Pass --force to replace {}, or paste what `leash helix keys` prints under keys of your choice",
        .path.display(),
        .taken.join(", "),
        if .taken.len() == 1 { "it" } else { "them" }
    )]
    Taken { path: std::path::PathBuf, taken: Vec<String> },
    /// Helix's config.toml could not be read, changed or written.
    #[error(transparent)]
    Config(#[from] super::config_toml::HelixConfigError),
}

/// Refuses a path a Helix `%sh{…}` cannot hold.
fn check_program(program: &str) -> Result<(), KeysError> {
    if program.contains(['{', '}', '\n']) {
        return Err(KeysError::Program(program.to_string()));
    }
    Ok(())
}

/// The command line (without the `:`) that starts `leash helix resume` from the hand-off
/// macro: the programs a plan puts after Helix's commands.
pub fn resume_line(program: &str) -> Result<String, KeysError> {
    check_program(program)?;
    Ok(format!("noop %sh{{{} helix resume}}", shell_word(program).replace('%', "%%")))
}

/// The two bindings: the macros for `space .` and `space ,`.
pub fn bindings(opts: &KeysOptions<'_>) -> Result<(String, String), KeysError> {
    check_program(opts.program)?;
    let tag = opts.tag.clone().unwrap_or_else(random_tag);
    let program = helix_text(&shell_word(opts.program));
    let config = match opts.helix_config {
        Some(p) => {
            let p = p.to_str().ok_or(KeysError::ConfigPathNotText)?;
            if p.contains(['{', '}', '\n']) {
                return Err(KeysError::ConfigPath(p.to_string()));
            }
            format!(" --helix-config {}", helix_text(&shell_word(p)))
        }
        None => String::new(),
    };
    let context = helix_text_keep_expansions(&heredoc(&tag));
    let (cmd, reg, yank, replay) =
        (helper("command_mode"), helper("select_register"), helper("yank"), helper("replay_macro"));
    let apply = format!(
        "@{cmd}noop %sh{{{program} helix do --tag {tag}{config} {context}}}<ret>{cmd}new<ret>{cmd}insert-output {program} helix take<ret>{reg}l{yank}{cmd}buffer-close!<ret>{cmd}redraw<ret>{reg}l{replay}"
    );
    let plan = format!(
        "@{cmd}noop %sh{{{program} helix ask --tag {tag}{config} {context}}}<ret>{cmd}redraw<ret>{cmd}run-shell-command {program} helix plan<ret>"
    );
    Ok((apply, plan))
}

/// The snippet to paste.
pub fn snippet(opts: &KeysOptions<'_>) -> Result<String, KeysError> {
    let (apply, plan) = bindings(opts)?;
    Ok(format!(
        "# leash: ask a language model to operate Helix. `space .` asks, shows the plan and\n\
         # applies it after `y`; `space ,` shows the plan only. Made by `leash helix keys`\n\
         # (Helix 25.07 or newer, with a POSIX `shell`: the default sh). Uses register l.\n\
         # If your config.toml has a [keys.normal.space] table already, put the two lines\n\
         # there instead (`leash helix keys --install` does that for you).\n\
         [keys.normal.space]\n\
         \".\" = {}\n\
         \",\" = {}\n\
         \n\
         # leash's own keys, which the two macros type instead of keys you may rebind.\n\
         [keys.normal.space.{HELPER_TABLE}]\n\
         {}",
        toml_string(&apply),
        toml_string(&plan),
        HELPERS.iter().map(|(k, c)| format!("{} = \"{c}\"\n", toml_string(k))).collect::<String>()
    ))
}

/// Whether a binding is one leash made (an older install, another leash path): replacing
/// it is an update, not taking a key from the user.
fn is_leash_binding(value: &serde_json::Value, command: &str) -> bool {
    value.as_str().is_some_and(|v| v.starts_with('@') && v.contains(&format!(" helix {command} ")))
}

/// The keys the install would take from the user's own bindings, as `space .` = "…".
fn taken(file: &super::config_toml::ConfigFile) -> Vec<String> {
    let space = ["keys", "normal", "space"];
    let mut taken = Vec::new();
    for (key, command) in [(".", "do"), (",", "ask")] {
        match file.get_path(&[&space[..], &[key]].concat()) {
            Some(v) if !is_leash_binding(&v, command) => {
                taken.push(format!("space {key} = {}", leash_core::text::visible(&v.to_string())))
            }
            _ => {}
        }
    }
    match file.get_path(&[&space[..], &[HELPER_TABLE]].concat()) {
        None => {}
        Some(serde_json::Value::Object(own)) => {
            for (key, command) in HELPERS {
                match own.get(key) {
                    Some(v) if v != command => taken
                        .push(format!("space {HELPER_TABLE} {key} = {}", leash_core::text::visible(&v.to_string()))),
                    _ => {}
                }
            }
        }
        Some(v) => taken.push(format!("space {HELPER_TABLE} = {}", leash_core::text::visible(&v.to_string()))),
    }
    taken
}

/// Writes the two bindings into Helix's config.toml (into `[keys.normal.space]`,
/// created when missing), keeping everything else as it is. A key the user bound to
/// something else is replaced only with `force`; an earlier leash binding is updated.
pub fn install(opts: &KeysOptions<'_>, path: &Path, force: bool) -> Result<(), KeysError> {
    let (apply, plan) = bindings(opts)?;
    let mut file = super::config_toml::ConfigFile::read(path)?;
    let taken = taken(&file);
    if !taken.is_empty() && !force {
        return Err(KeysError::Taken { path: path.to_path_buf(), taken });
    }
    file.expand_inline(&["keys", "normal", "space"]);
    for (key, value) in [(".", apply), (",", plan)] {
        file.set_path(&["keys", "normal", "space", key], value.into())?;
    }
    for (key, command) in HELPERS {
        file.set_path(&["keys", "normal", "space", HELPER_TABLE, key], command.into())?;
    }
    Ok(file.write()?)
}

/// The here-document keeps its `%{…}` variables (they must expand); only `<`/`>` become
/// key names.
fn helix_text_keep_expansions(s: &str) -> String {
    super::commandline::macro_escape(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snippet_binds_exactly_space_dot_and_space_comma() {
        let s = snippet(&KeysOptions { program: "/opt/my tools/leash", helix_config: None, tag: Some("abc".into()) })
            .unwrap();
        let doc = leash_core::toml_json::parse(&s).unwrap();
        let space = doc.pointer("/keys/normal/space").unwrap().as_object().unwrap();
        let mut keys: Vec<&String> = space.keys().collect();
        keys.sort();
        assert_eq!(keys, [",", ".", "F12"]);
        let apply = space["."].as_str().unwrap();
        let c = "<space><F12>:";
        assert!(
            apply.starts_with(&format!(
                "@{c}noop %sh{{'/opt/my tools/leash' helix do --tag abc <lt><lt>'LEASH_CONTEXT_abc'%{{line_ending}}"
            )),
            "{apply}"
        );
        assert!(apply.contains("%{buffer_name}%{line_ending}LEASH_CONTEXT_abc%{line_ending}}<ret>"), "{apply}");
        assert!(apply.ends_with(&format!(
            "{c}insert-output '/opt/my tools/leash' helix take<ret><space><F12>\"l<space><F12>y{c}buffer-close!<ret>{c}redraw<ret><space><F12>\"l<space><F12>q"
        )));
        let plan = space[","].as_str().unwrap();
        assert!(plan.ends_with(&format!("{c}run-shell-command '/opt/my tools/leash' helix plan<ret>")), "{plan}");
        // Every key the macros type outside a prompt is one of leash's own, bound by name.
        let own = space["F12"].as_object().unwrap();
        assert_eq!(own.len(), 4);
        assert_eq!(own[":"], "command_mode");
        assert_eq!(own["\""], "select_register");
        assert_eq!(own["y"], "yank");
        assert_eq!(own["q"], "replay_macro");
        for m in [apply, plan] {
            let outside_prompts: String = m.split("<ret>").map(|part| part.split(c).next().unwrap_or("")).collect();
            let bare = outside_prompts
                .replace("<space><F12>\"l", "")
                .replace("<space><F12>y", "")
                .replace("<space><F12>q", "");
            assert!(bare == "@" || bare.is_empty(), "{m}: {bare}");
        }
        let with_config = snippet(&KeysOptions {
            program: "leash",
            helix_config: Some(Path::new("/tmp/100%/hx.toml")),
            tag: Some("t".into()),
        })
        .unwrap();
        assert!(with_config.contains("--helix-config /tmp/100%%/hx.toml"), "{with_config}");
        assert!(snippet(&KeysOptions { program: "/a/{b}/leash", helix_config: None, tag: None }).is_err());
    }

    #[test]
    fn resume_starts_this_leash() {
        assert_eq!(resume_line("/opt/100% tools/leash").unwrap(), "noop %sh{'/opt/100%% tools/leash' helix resume}");
        assert!(resume_line("/a/{b}/leash").is_err());
    }

    #[test]
    fn install_takes_no_key_from_the_user_unless_forced() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("config.toml");
        let mine = "[keys.normal.space]\n\".\" = \":write\"\n";
        std::fs::write(&path, mine).unwrap();
        let opts = KeysOptions { program: "leash", helix_config: None, tag: Some("t".into()) };
        let e = install(&opts, &path, false).unwrap_err().to_string();
        assert!(e.contains("space . = \":write\"") && e.contains("--force"), "{e}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), mine, "nothing was written");
        install(&opts, &path, true).unwrap();
        let doc = leash_core::toml_json::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(doc["keys"]["normal"]["space"]["."], serde_json::Value::String(bindings(&opts).unwrap().0));
        // leash's own earlier binding (another path, another tag) is updated without --force.
        let other = KeysOptions { program: "/opt/leash", helix_config: None, tag: Some("u".into()) };
        install(&other, &path, false).unwrap();
        // A key of leash's own table bound to something else is the user's too.
        std::fs::write(&path, "[keys.normal.space.F12]\nq = \":quit\"\n").unwrap();
        assert!(install(&opts, &path, false).unwrap_err().to_string().contains("space F12 q = \":quit\""));
    }

    #[test]
    fn an_inline_space_table_becomes_a_table_of_its_own() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("config.toml");
        std::fs::write(
            &path,
            "[keys.normal]\nspace = { x = \":write\", w = { v = \":vsplit\" } } # mine\nC-s = \":w\"\n",
        )
        .unwrap();
        let opts = KeysOptions { program: "leash", helix_config: None, tag: Some("t".into()) };
        install(&opts, &path, false).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.lines().all(|l| l.len() < 400 || l.starts_with("\".\" = ") || l.starts_with("\",\" = ")),
            "{text}"
        );
        assert!(text.contains("# mine\n[keys.normal.space]\n"), "{text}");
        let doc = leash_core::toml_json::parse(&text).unwrap();
        let space = &doc["keys"]["normal"]["space"];
        assert_eq!(space["x"], ":write");
        assert_eq!(space["w"]["v"], ":vsplit");
        assert_eq!(doc["keys"]["normal"]["C-s"], ":w");
        assert_eq!(space["F12"]["y"], "yank");
        assert!(space["."].as_str().unwrap().contains(" helix do "));
    }

    #[test]
    fn install_adds_the_bindings_to_an_existing_table() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let path = dir.join("config.toml");
        std::fs::write(&path, "# mine\n[keys.normal.space]\nx = \":write\" # save\n").unwrap();
        let opts = KeysOptions { program: "leash", helix_config: None, tag: Some("t".into()) };
        install(&opts, &path, false).unwrap();
        install(&opts, &path, false).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("# mine\n[keys.normal.space]\nx = \":write\" # save\n"), "{text}");
        assert_eq!(text.matches("[keys.normal.space]").count(), 1, "{text}");
        let doc = leash_core::toml_json::parse(&text).unwrap();
        let space = doc.pointer("/keys/normal/space").unwrap();
        assert_eq!(space["."], serde_json::Value::String(bindings(&opts).unwrap().0));
        assert_eq!(space["x"], ":write");
        assert_eq!(space["F12"]["q"], "replay_macro");
        let fresh = dir.join("new.toml");
        install(&opts, &fresh, false).unwrap();
        let text = std::fs::read_to_string(&fresh).unwrap();
        assert!(text.starts_with("[keys.normal.space]\n"), "no empty [keys] or [keys.normal] headers: {text}");
    }
}
