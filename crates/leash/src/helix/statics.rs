//! Static commands (keymap-only actions such as `toggle_comments`) in plans.
//!
//! Released Helix runs a static command only from a key binding, so a plan's static
//! command runs by typing one of its default keys in the key binding's macro, after the
//! typable commands before it. Two rules keep what runs exactly what the plan shows:
//!
//! - Only the commands listed here are offered. [`ACTS`] act on the selections or the
//!   views and leave Helix in normal mode without asking anything; [`WAITS`] open a
//!   picker, a prompt, a popup or insert mode, which would take every key typed after
//!   them, so only a plan's last step may be one of those.
//! - A key runs the command only when the user's keymap leaves it alone: Helix merges
//!   `[keys.normal]` of config.toml, then of the project's `.helix/config.toml`, over
//!   its defaults, table into table, and a value replaces whatever it lands on. A key
//!   whose path the user rebound (the key itself or a prefix of it) would run their
//!   binding instead, so it is not used; with no default key left the step is dropped.

use serde_json::Value;

use leash_core::profile::helix::StaticCommand;

/// Static commands that act and return to normal mode at once.
pub const ACTS: &[&str] = &[
    "toggle_comments",
    "toggle_line_comments",
    "toggle_block_comments",
    "indent",
    "unindent",
    "join_selections",
    "switch_case",
    "switch_to_uppercase",
    "switch_to_lowercase",
    "align_selections",
    "trim_selections",
    "format_selections",
    "undo",
    "redo",
    "add_newline_above",
    "add_newline_below",
    "increment",
    "decrement",
    "delete_selection",
    "yank",
    "paste_after",
    "paste_before",
    "replace_with_yanked",
    "rotate_selection_contents_forward",
    "rotate_selection_contents_backward",
    "select_all",
    "extend_line_below",
    "extend_to_line_bounds",
    "shrink_to_line_bounds",
    "split_selection_on_newline",
    "merge_selections",
    "merge_consecutive_selections",
    "keep_primary_selection",
    "remove_primary_selection",
    "collapse_selection",
    "flip_selections",
    "copy_selection_on_next_line",
    "copy_selection_on_prev_line",
    "rotate_selections_forward",
    "rotate_selections_backward",
    "expand_selection",
    "shrink_selection",
    "select_next_sibling",
    "select_prev_sibling",
    "select_all_siblings",
    "select_all_children",
    "goto_file_start",
    "goto_last_line",
    "goto_line_start",
    "goto_line_end",
    "goto_first_nonwhitespace",
    "goto_window_top",
    "goto_window_center",
    "goto_window_bottom",
    "goto_last_modification",
    "goto_last_accessed_file",
    "goto_last_modified_file",
    "goto_next_buffer",
    "goto_previous_buffer",
    "goto_first_diag",
    "goto_last_diag",
    "goto_next_diag",
    "goto_prev_diag",
    "goto_next_change",
    "goto_prev_change",
    "goto_first_change",
    "goto_last_change",
    "goto_next_function",
    "goto_prev_function",
    "goto_next_class",
    "goto_prev_class",
    "goto_next_parameter",
    "goto_prev_parameter",
    "goto_next_comment",
    "goto_prev_comment",
    "goto_next_test",
    "goto_prev_test",
    "goto_next_paragraph",
    "goto_prev_paragraph",
    "match_brackets",
    "search_next",
    "search_prev",
    "search_selection",
    "search_selection_detect_word_boundaries",
    "jump_forward",
    "jump_backward",
    "save_selection",
    "page_up",
    "page_down",
    "page_cursor_half_up",
    "page_cursor_half_down",
    "align_view_center",
    "align_view_top",
    "align_view_bottom",
    "jump_view_right",
    "jump_view_left",
    "jump_view_up",
    "jump_view_down",
    "swap_view_right",
    "swap_view_left",
    "swap_view_up",
    "swap_view_down",
    "transpose_view",
    "rotate_view",
    "wonly",
    "hsplit_new",
    "vsplit_new",
];

/// Static commands that wait for the user (a picker, a prompt, a popup, insert mode):
/// a plan's last step only.
pub const WAITS: &[&str] = &[
    "file_picker",
    "file_picker_in_current_directory",
    "file_explorer",
    "file_explorer_in_current_buffer_directory",
    "buffer_picker",
    "jumplist_picker",
    "symbol_picker",
    "workspace_symbol_picker",
    "diagnostics_picker",
    "workspace_diagnostics_picker",
    "changed_file_picker",
    "last_picker",
    "command_palette",
    "global_search",
    "search",
    "rsearch",
    "select_regex",
    "split_selection",
    "keep_selections",
    "remove_selections",
    "goto_definition",
    "goto_declaration",
    "goto_type_definition",
    "goto_implementation",
    "goto_reference",
    "hover",
    "goto_word",
    "insert_mode",
    "append_mode",
    "insert_at_line_start",
    "insert_at_line_end",
    "open_below",
    "open_above",
    "change_selection",
];

/// Whether a static command is offered, and whether it waits for the user.
pub fn offered(name: &str) -> Option<Waits> {
    if ACTS.contains(&name) {
        Some(Waits::No)
    } else if WAITS.contains(&name) {
        Some(Waits::Yes)
    } else {
        None
    }
}

/// Whether a static command takes the keys typed after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waits {
    No,
    Yes,
}

/// A key in one spelling for both sides: Helix's key names (`C-c`, `space`, `A-minus`,
/// `gt`) with modifiers in a fixed order, single characters as themselves.
fn normalize(key: &str) -> Option<String> {
    let single = |c: char| match c {
        ' ' => "space".to_string(),
        '-' => "minus".to_string(),
        '<' => "lt".to_string(),
        '>' => "gt".to_string(),
        c => c.to_string(),
    };
    if key.chars().count() == 1 {
        return key.chars().next().map(single);
    }
    let mut tokens: Vec<&str> = key.split('-').collect();
    let code = tokens.pop()?;
    let mut mods = Vec::new();
    for t in tokens {
        let m = match t {
            "S" | "A" | "C" => t,
            _ => return None,
        };
        if mods.contains(&m) {
            return None;
        }
        mods.push(m);
    }
    let mut code = match code.chars().count() {
        1 => code.chars().next().map(single)?,
        _ if NAMED.contains(&code) => code.to_string(),
        _ if code.starts_with('F') && code[1..].parse::<u8>().is_ok_and(|n| (1..=24).contains(&n)) => code.to_string(),
        _ => return None,
    };
    // Shift with a letter is the capital letter (Helix reads both the same way).
    if let Some(i) = mods.iter().position(|m| *m == "S") {
        if code.len() == 1 && code.chars().all(|c| c.is_ascii_lowercase()) {
            code = code.to_ascii_uppercase();
            mods.remove(i);
        }
    }
    mods.sort_unstable();
    Some(mods.iter().map(|m| format!("{m}-")).collect::<String>() + &code)
}

/// Helix's names of keys that are not one character.
const NAMED: &[&str] = &[
    "backspace",
    "ret",
    "left",
    "right",
    "up",
    "down",
    "home",
    "end",
    "pageup",
    "pagedown",
    "tab",
    "del",
    "ins",
    "null",
    "esc",
    "space",
    "minus",
    "lt",
    "gt",
];

/// The keys of a macro string (`<space>c`, `<C-w>v`, `gd`), normalized.
fn macro_keys(text: &str) -> Option<Vec<String>> {
    let mut keys = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '<' {
            let end = rest.find('>')?;
            keys.push(normalize(&rest[1..end])?);
            rest = &rest[end + 1..];
        } else {
            keys.push(normalize(&c.to_string())?);
            rest = &rest[c.len_utf8()..];
        }
    }
    (!keys.is_empty()).then_some(keys)
}

/// The user's key bindings for normal mode, from the files Helix merges over its defaults.
#[derive(Debug, Default)]
pub struct UserKeys {
    /// `[keys.normal]` of each file, with the file's name for messages.
    tables: Vec<(String, Value)>,
    /// Why a file could not be read: then no key is known to be left alone.
    unknown: Option<String>,
    /// `default-yank-register` when a file sets it to a clipboard register (`+`, `*`),
    /// with the file's name: yanks and pastes then run the clipboard program.
    clipboard_register: Option<(String, String)>,
}

/// Static commands that read or write the default yank register.
const USE_THE_YANK_REGISTER: &[&str] =
    &["yank", "paste_after", "paste_before", "replace_with_yanked", "delete_selection", "change_selection"];

impl UserKeys {
    /// Adds one file's `[keys.normal]` (in Helix's merge order).
    pub fn add(&mut self, file: &str, normal: Option<Value>) {
        if let Some(t) = normal {
            self.tables.push((file.to_string(), t));
        }
    }

    /// Notes the file's `default-yank-register` (the later file wins, as in Helix).
    pub fn yank_register(&mut self, file: &str, register: Option<serde_json::Value>) {
        match register.as_ref().and_then(Value::as_str) {
            Some(r @ ("+" | "*")) => self.clipboard_register = Some((file.to_string(), r.to_string())),
            Some(_) => self.clipboard_register = None,
            None => {}
        }
    }

    /// Why the static command `name` runs the user's clipboard program, if it does
    /// under the user's configuration.
    pub fn clipboard_note(&self, name: &str) -> Option<String> {
        let (file, register) = self.clipboard_register.as_ref()?;
        USE_THE_YANK_REGISTER.contains(&name).then(|| {
            format!(
                "{file} sets default-yank-register = \"{register}\": {name} uses the system clipboard, which runs your clipboard program"
            )
        })
    }

    /// A file that could not be read: no static command runs.
    pub fn unreadable(&mut self, why: String) {
        self.unknown.get_or_insert(why);
    }

    /// What the user bound on the path of `keys` (the key or a prefix), if anything:
    /// the file that does it, or why the file cannot be read.
    fn rebound(&self, keys: &[String]) -> Option<String> {
        for (file, table) in &self.tables {
            let mut node = table;
            for (depth, key) in keys.iter().enumerate() {
                let Some(map) = node.as_object() else { return Some(file.clone()) };
                let mut found = None;
                for (name, value) in map {
                    if name == "sticky" && value.is_boolean() {
                        continue; // a minor mode's option, not a key
                    }
                    match normalize(name) {
                        Some(n) if n == *key => found = Some(value),
                        Some(_) => {}
                        // A key leash cannot read might be this one.
                        None => return Some(format!("{file} (the key “{name}”)")),
                    }
                }
                match found {
                    None => break,
                    Some(v) if v.is_object() && depth + 1 < keys.len() => node = v,
                    Some(_) => return Some(file.clone()),
                }
            }
        }
        None
    }

    /// The macro text of the first default normal-mode key of `cmd` that the user's
    /// bindings leave alone, or why there is none.
    pub fn key_for(&self, cmd: &StaticCommand) -> Result<String, KeyError> {
        if let Some(why) = &self.unknown {
            return Err(KeyError::UnknownKeymap(why.clone()));
        }
        let defaults =
            cmd.keys.get("normal").filter(|k| !k.is_empty()).ok_or_else(|| KeyError::NoNormalKey(cmd.name.clone()))?;
        let mut rebound_in = Vec::new();
        for key in defaults {
            match macro_keys(key) {
                Some(keys) => match self.rebound(&keys) {
                    None => return Ok(key.clone()),
                    Some(file) => rebound_in.push(format!("{} in {file}", shown_key(key))),
                },
                None => rebound_in.push(format!("{key} (unreadable)")),
            }
        }
        Err(KeyError::Rebound { command: cmd.name.clone(), rebound_in })
    }
}

/// Why leash cannot type a static command's key: which key runs it is unknown, or no
/// default key of it is left to the command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The user's keymap did not read, so any key may be rebound.
    #[error("leash cannot tell which keys your keymap rebinds: {0}")]
    UnknownKeymap(String),
    /// The command has no default key in normal mode.
    #[error("Helix's {0} has no key in normal mode, and released Helix runs it no other way")]
    NoNormalKey(String),
    /// Every default key of the command is rebound (each shown with where).
    #[error("{command} runs only from its default keys, and your keymap rebinds them: {}", .rebound_in.join(", "))]
    Rebound { command: String, rebound_in: Vec<String> },
}

/// A macro key string as the dialog shows it (`<space>c` → `space c`).
pub fn shown_key(key: &str) -> String {
    match macro_keys(key) {
        Some(keys) => keys.join(" "),
        None => key.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use leash_core::profile::helix::data;

    fn cmd(name: &str) -> &'static StaticCommand {
        data().static_commands.iter().find(|s| s.name == name).unwrap()
    }

    fn keys(toml: &str) -> UserKeys {
        let mut u = UserKeys::default();
        let doc = leash_core::toml_json::parse(toml).unwrap();
        u.add("config.toml", doc.pointer("/keys/normal").cloned());
        u
    }

    #[test]
    fn a_clipboard_yank_register_makes_yanks_and_pastes_shell() {
        let mut u = UserKeys::default();
        assert!(u.clipboard_note("yank").is_none());
        u.yank_register("config.toml", Some(serde_json::json!("+")));
        assert!(u.clipboard_note("paste_after").unwrap().contains("default-yank-register = \"+\""));
        assert!(u.clipboard_note("toggle_comments").is_none());
        u.yank_register(".helix/config.toml", Some(serde_json::json!("a")));
        assert!(u.clipboard_note("yank").is_none(), "the project's file wins");
    }

    #[test]
    fn every_offered_command_exists_and_has_a_normal_key() {
        for name in ACTS.iter().chain(WAITS) {
            let c = data().static_commands.iter().find(|s| s.name == *name);
            let c = c.unwrap_or_else(|| panic!("{name} is not a static command of Helix"));
            assert!(UserKeys::default().key_for(c).is_ok(), "{name}");
        }
        for name in ["replay_macro", "shell_pipe", "wclose", "suspend", "record_macro", "code_action", "rename_symbol"]
        {
            assert_eq!(offered(name), None, "{name}");
        }
    }

    #[test]
    fn keys_in_both_spellings() {
        assert_eq!(normalize("C-c"), Some("C-c".into()));
        assert_eq!(normalize("A-C-x"), normalize("C-A-x"));
        assert_eq!(normalize(">"), Some("gt".into()));
        assert_eq!(normalize("S-a"), Some("A".into()));
        assert_eq!(normalize("space"), normalize(" "));
        assert_eq!(normalize("F12"), Some("F12".into()));
        assert_eq!(normalize("Space"), None, "Helix's names are lower case");
        assert_eq!(macro_keys("<space>c"), Some(vec!["space".into(), "c".into()]));
        assert_eq!(macro_keys("<gt>"), Some(vec!["gt".into()]));
        assert_eq!(shown_key("<C-w>v"), "C-w v");
    }

    #[test]
    fn a_key_the_user_rebound_is_not_typed() {
        let toggle = cmd("toggle_comments");
        assert_eq!(UserKeys::default().key_for(toggle).unwrap(), "<C-c>");
        assert_eq!(keys("[keys.normal]\nC-c = \":write\"\n").key_for(toggle).unwrap(), "<space>c");
        // A table on the path merges: its other keys keep Helix's bindings.
        let space = keys("[keys.normal.space]\n\".\" = \":noop\"\n");
        assert_eq!(space.key_for(cmd("file_picker")).unwrap(), "<space>f");
        let both = keys("[keys.normal]\nC-c = \"no_op\"\nspace = \"no_op\"\n");
        let why = both.key_for(toggle).unwrap_err().to_string();
        assert!(why.contains("C-c in config.toml") && why.contains("space c in config.toml"), "{why}");
        // A value on a prefix replaces the whole minor mode.
        assert!(keys("[keys.normal]\ng = \"goto_file_start\"\n").key_for(cmd("goto_last_line")).is_err());
        // A key leash cannot read could be the one.
        assert!(keys("[keys.normal]\n\"C-Q-x\" = \"no_op\"\n").key_for(cmd("select_all")).is_err());
        let mut broken = UserKeys::default();
        broken.unreadable("config.toml does not parse".into());
        assert!(broken.key_for(toggle).unwrap_err().to_string().contains("does not parse"));
    }
}
