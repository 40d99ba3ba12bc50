//! The config.toml snippet a Helix user pastes: `space .` asks, confirms and applies;
//! `space ,` shows the plan only.
//!
//! `space .` is a macro (Helix 25.07 has no plugin system and no IPC):
//!
//! 1. `:noop %sh{leash helix do <<'LEASH_CONTEXT_…' …}` runs the dialog on the terminal
//!    while the user's buffer is still current; the here-document carries the file,
//!    language and selected lines as plain text (see [`super::context`]).
//! 2. `:new`, `:insert-output leash helix take`, `"ly`, `:buffer-close!` put what the
//!    dialog decided into register `l`, by way of a scratch buffer that is closed again.
//! 3. `:redraw` clears what the dialog left on screen; `"lq` replays register `l` as a
//!    macro: `:config-reload` when config.toml changed, then the plan's commands.
//!
//! `space ,` asks for the request the same way, then `:sh leash helix plan` shows the
//! plan in Helix's popup and applies nothing.

use std::hash::{BuildHasher, Hasher};
use std::path::Path;

use super::context::heredoc;

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

/// Refuses a path a Helix `%sh{…}` cannot hold.
fn check_program(program: &str) -> Result<(), String> {
    if program.contains(['{', '}', '\n']) {
        return Err(format!(
            "leash's path {program:?} holds a brace or a line break, which a Helix %sh{{…}} cannot hold; put leash on PATH and pass --command leash"
        ));
    }
    Ok(())
}

/// The command line (without the `:`) that starts `leash helix resume` from the hand-off
/// macro: the programs a plan puts after Helix's commands.
pub fn resume_line(program: &str) -> Result<String, String> {
    check_program(program)?;
    Ok(format!("noop %sh{{{} helix resume}}", shell_word(program).replace('%', "%%")))
}

/// The two bindings: the macros for `space .` and `space ,`.
pub fn bindings(opts: &KeysOptions<'_>) -> Result<(String, String), String> {
    check_program(opts.program)?;
    let tag = opts.tag.clone().unwrap_or_else(random_tag);
    let program = helix_text(&shell_word(opts.program));
    let config = match opts.helix_config {
        Some(p) => {
            let p = p.to_str().ok_or("the Helix config path is not text")?;
            if p.contains(['{', '}', '\n']) {
                return Err(format!("the Helix config path {p:?} holds a brace or a line break"));
            }
            format!(" --helix-config {}", helix_text(&shell_word(p)))
        }
        None => String::new(),
    };
    let context = helix_text_keep_expansions(&heredoc(&tag));
    let apply = format!(
        "@:noop %sh{{{program} helix do --tag {tag}{config} {context}}}<ret>:new<ret>:insert-output {program} helix take<ret>\"ly:buffer-close!<ret>:redraw<ret>\"lq"
    );
    let plan = format!(
        "@:noop %sh{{{program} helix ask --tag {tag} {context}}}<ret>:redraw<ret>:run-shell-command {program} helix plan{config}<ret>"
    );
    Ok((apply, plan))
}

/// The snippet to paste.
pub fn snippet(opts: &KeysOptions<'_>) -> Result<String, String> {
    let (apply, plan) = bindings(opts)?;
    Ok(format!(
        "# leash: ask a language model to operate Helix. `space .` asks, shows the plan and\n\
         # applies it after `y`; `space ,` shows the plan only. Made by `leash helix keys`\n\
         # (Helix 25.07 or newer, with a POSIX `shell`: the default sh). Uses register l.\n\
         # If your config.toml has a [keys.normal.space] table already, put the two lines\n\
         # there instead (`leash helix keys --install` does that for you).\n\
         [keys.normal.space]\n\
         \".\" = {}\n\
         \",\" = {}\n",
        toml_string(&apply),
        toml_string(&plan)
    ))
}

/// Writes the two bindings into Helix's config.toml (into `[keys.normal.space]`,
/// created when missing), keeping everything else as it is.
pub fn install(opts: &KeysOptions<'_>, path: &Path) -> Result<(), String> {
    let (apply, plan) = bindings(opts)?;
    let mut file = super::config::ConfigFile::read(path).map_err(|e| e.to_string())?;
    for (key, value) in [(".", apply), (",", plan)] {
        file.set_path(&["keys", "normal", "space", key], value.into()).map_err(|e| e.to_string())?;
    }
    file.write().map_err(|e| e.to_string())
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
        let doc = crate::toml_json::parse(&s).unwrap();
        let space = doc.pointer("/keys/normal/space").unwrap().as_object().unwrap();
        let mut keys: Vec<&String> = space.keys().collect();
        keys.sort();
        assert_eq!(keys, [",", "."]);
        let apply = space["."].as_str().unwrap();
        assert!(
            apply.starts_with(
                "@:noop %sh{'/opt/my tools/leash' helix do --tag abc <lt><lt>'LEASH_CONTEXT_abc'%{line_ending}"
            ),
            "{apply}"
        );
        assert!(apply.contains("%{buffer_name}%{line_ending}LEASH_CONTEXT_abc%{line_ending}}<ret>"), "{apply}");
        assert!(apply
            .ends_with(":insert-output '/opt/my tools/leash' helix take<ret>\"ly:buffer-close!<ret>:redraw<ret>\"lq"));
        let plan = space[","].as_str().unwrap();
        assert!(plan.ends_with(":run-shell-command '/opt/my tools/leash' helix plan<ret>"), "{plan}");
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
    fn install_adds_the_bindings_to_an_existing_table() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let path = dir.join("config.toml");
        std::fs::write(&path, "# mine\n[keys.normal.space]\nx = \":write\" # save\n").unwrap();
        let opts = KeysOptions { program: "leash", helix_config: None, tag: Some("t".into()) };
        install(&opts, &path).unwrap();
        install(&opts, &path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("# mine\n[keys.normal.space]\nx = \":write\" # save\n"), "{text}");
        assert_eq!(text.matches("[keys.normal.space]").count(), 1, "{text}");
        let doc = crate::toml_json::parse(&text).unwrap();
        let space = doc.pointer("/keys/normal/space").unwrap();
        assert_eq!(space["."], serde_json::Value::String(bindings(&opts).unwrap().0));
        assert_eq!(space["x"], ":write");
        let fresh = dir.join("new.toml");
        install(&opts, &fresh).unwrap();
        let text = std::fs::read_to_string(&fresh).unwrap();
        assert!(text.starts_with("[keys.normal.space]\n"), "no empty [keys] or [keys.normal] headers: {text}");
    }
}
