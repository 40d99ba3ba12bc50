//! Option values that decide whether Neovim starts a program: the option's row says what
//! setting it can do in general, the value says what this setting does.
//!
//! `'diffopt'` without `internal` makes every diff run the external `diff` through
//! `'shell'`; `'clipboard'` with `unnamed`/`unnamedplus` makes every yank and delete run
//! the clipboard tool; `'suffixesadd'` with a suffix that a name handler claims (`.gz`)
//! makes `gf` and `:find` open names that run one. The options that *name* a program or
//! an expression (`'diffexpr'`, `'makeprg'`, `'shell'`…) are `code` in the tables already.
//! `'isprint'` covering control characters lets a file's bytes drive the terminal: `code`
//! (see `isprint`). `'autochdir'` on is a `:cd` at every buffer switch: `code` when
//! `$PATH` holds a relative entry, as `:cd` is (see `projects`).
//!
//! Values that make Neovim forget a buffer's unsaved changes are `write`, as `:cquit` is:
//! `'modified'` off, or a `'buftype'` that is never written (`nofile`, `nowrite`), and
//! `:qall`, `:bunload` or the person's own `:q` then throw the text away without the
//! question they would have asked (verified: `:qall` quit with the changes unsaved). So
//! are fewer `'undolevels'` than Neovim's default: an `edit` step is `edit` because it can
//! be undone, and with `-1` a later `:delete` could not be, nor anything before it
//! (verified), and `:Leash undo` could not take the plan back; and `'undoreload'` below
//! its default, after which `:edit` (a reload) clears the undo history (verified).

use crate::entry::SettingValue;
use crate::profile::neovim::name_handlers::{handler_for, NameHandler};
use crate::reach::Reach;

/// The reach `value` gives option `key` beyond its row, with the reason shown beside the
/// step; `None` when the value adds nothing.
pub fn value_reach(key: &str, value: &SettingValue, handlers: &[NameHandler]) -> Option<(Reach, String)> {
    if let Some(note) = forgets_changes(key, value) {
        return Some(note);
    }
    if let ("autochdir", SettingValue::Boolean(true)) = (key, value) {
        return super::projects::autochdir_reach(std::env::var_os("PATH").as_deref());
    }
    let SettingValue::String(value) = value else { return None };
    let items = || value.split(',').map(str::trim).filter(|s| !s.is_empty());
    match key {
        "diffopt" if !items().any(|i| i == "internal") => Some((
            Reach::Shell,
            "without “internal” in 'diffopt', every diff runs the external diff program through 'shell'".into(),
        )),
        "clipboard" if items().any(|i| i == "unnamed" || i == "unnamedplus") => Some((
            Reach::Shell,
            "with this 'clipboard' every yank and delete runs the clipboard tool (xclip, wl-copy, pbcopy…)".into(),
        )),
        "suffixesadd" => items().find_map(|suffix| {
            let handler = handler_for(handlers, &format!("name{suffix}"))?;
            Some((
                Reach::Shell,
                format!(
                    "with “{suffix}” in 'suffixesadd', gf and :find open names that {} reads: that can run a program",
                    handler.describe()
                ),
            ))
        }),
        "isprint" => match super::isprint::printable_controls(value) {
            Ok(None) => None,
            Ok(Some((lo, hi))) => Some((
                Reach::Code,
                format!(
                    "this 'isprint' makes control characters printable ({}): Neovim then sends a file's \
                     control bytes to the terminal as they are, so the file can drive the terminal",
                    if lo == hi { format!("{lo}") } else { format!("{lo}–{hi}") }
                ),
            )),
            Err(()) => Some((
                Reach::Code,
                "leash cannot tell which characters this 'isprint' makes printable; control characters \
                 would let a file's bytes drive the terminal"
                    .into(),
            )),
        },
        _ => None,
    }
}

/// `'buftype'` values whose buffers Neovim never counts as changed.
const UNWRITTEN_BUFTYPES: &[&str] = &["nofile", "nowrite"];

/// Neovim's default `'undolevels'`: fewer levels drop changes that could be undone.
const DEFAULT_UNDOLEVELS: i64 = 1000;

/// Neovim's default `'undoreload'`: a reload of a buffer with at least this many lines
/// (every one, with 0) clears its undo history; -1 keeps it (verified).
const DEFAULT_UNDORELOAD: i64 = 10000;

/// The note for a value after which Neovim quits or unloads a buffer without a word about
/// its unsaved changes.
fn forgets_changes(key: &str, value: &SettingValue) -> Option<(Reach, String)> {
    let why = match (key, value) {
        ("modified", SettingValue::Boolean(false)) => "with 'modified' off".to_string(),
        ("buftype", SettingValue::String(v)) if UNWRITTEN_BUFTYPES.contains(&v.trim()) => {
            format!("with 'buftype' {}", v.trim())
        }
        ("undolevels", SettingValue::Number(n)) if *n < DEFAULT_UNDOLEVELS => {
            return Some((
                Reach::Write,
                format!(
                    "with 'undolevels' {n} (Neovim's default is {DEFAULT_UNDOLEVELS}) the buffer keeps fewer of its \
                     changes, or none: later steps, :Leash undo and your own u can no longer take them back"
                ),
            ));
        }
        ("undoreload", SettingValue::Number(n)) if (0..DEFAULT_UNDORELOAD).contains(n) => {
            return Some((
                Reach::Write,
                format!(
                    "with 'undoreload' {n} (Neovim's default is {DEFAULT_UNDORELOAD}) reloading a file (:edit, a \
                     change on disk) clears its undo history: your earlier changes can no longer be taken back"
                ),
            ));
        }
        _ => return None,
    };
    Some((
        Reach::Write,
        format!(
            "{why}, Neovim no longer asks before it quits or unloads the buffer: :q, :qall or :bunload then throw \
             its unsaved changes away"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> SettingValue {
        SettingValue::String(s.into())
    }

    fn gzip() -> Vec<NameHandler> {
        vec![NameHandler { pattern: "*.gz".into(), event: "BufReadPost".into(), group: "gzip".into() }]
    }

    #[test]
    fn a_value_that_forgets_unsaved_changes_is_write() {
        for (key, value) in [
            ("modified", SettingValue::Boolean(false)),
            ("buftype", text("nofile")),
            ("buftype", text("nowrite")),
            ("undolevels", SettingValue::Number(-1)),
            ("undolevels", SettingValue::Number(0)),
            ("undolevels", SettingValue::Number(999)),
            ("undoreload", SettingValue::Number(0)),
            ("undoreload", SettingValue::Number(9999)),
        ] {
            let (reach, why) = value_reach(key, &value, &[]).unwrap_or_else(|| panic!("{key} = {value}"));
            assert_eq!(reach, Reach::Write, "{key} = {value}");
            assert!(
                why.contains("unsaved changes")
                    || why.contains("can no longer be taken back")
                    || why.contains("can no longer take them back"),
                "{why}"
            );
        }
        for (key, value) in [
            ("modified", SettingValue::Boolean(true)),
            ("buftype", text("")),
            ("buftype", text("help")),
            ("buftype", text("quickfix")),
            ("readonly", SettingValue::Boolean(true)),
            ("undolevels", SettingValue::Number(1000)),
            ("undolevels", SettingValue::Number(5000)),
            ("undoreload", SettingValue::Number(10000)),
            ("undoreload", SettingValue::Number(-1)),
        ] {
            assert_eq!(value_reach(key, &value, &[]), None, "{key} = {value}");
        }
    }

    #[test]
    fn diffopt_without_internal_runs_diff() {
        assert_eq!(value_reach("diffopt", &text("filler,closeoff"), &[]).map(|r| r.0), Some(Reach::Shell));
        assert_eq!(value_reach("diffopt", &text(""), &[]).map(|r| r.0), Some(Reach::Shell));
        assert_eq!(value_reach("diffopt", &text("internal,filler,closeoff"), &[]), None);
        assert_eq!(value_reach("diffopt", &text("filler, internal"), &[]), None);
    }

    #[test]
    fn clipboard_that_runs_the_tool() {
        assert_eq!(value_reach("clipboard", &text("unnamedplus"), &[]).map(|r| r.0), Some(Reach::Shell));
        assert_eq!(value_reach("clipboard", &text("unnamed"), &[]).map(|r| r.0), Some(Reach::Shell));
        assert_eq!(value_reach("clipboard", &text(""), &[]), None);
    }

    #[test]
    fn suffixes_that_a_handler_claims() {
        let (reach, why) = value_reach("suffixesadd", &text(".md,.gz"), &gzip()).expect("raised");
        assert_eq!(reach, Reach::Shell);
        assert!(why.contains("“.gz”") && why.contains("gzip"), "{why}");
        assert_eq!(value_reach("suffixesadd", &text(".md,.lua"), &gzip()), None);
        assert_eq!(value_reach("suffixesadd", &text(".gz"), &[]), None);
    }

    #[test]
    fn isprint_that_prints_control_bytes_is_code() {
        let (reach, why) = value_reach("isprint", &text("1-255"), &[]).expect("raised");
        assert_eq!(reach, Reach::Code);
        assert!(why.contains("(1–159)") && why.contains("terminal"), "{why}");
        assert!(value_reach("isprint", &text("@,27"), &[]).expect("raised").1.contains("(27)"));
        assert_eq!(value_reach("isprint", &text("9999"), &[]).map(|r| r.0), Some(Reach::Code));
        assert_eq!(value_reach("isprint", &text("@,161-255"), &[]), None);
        assert_eq!(value_reach("isprint", &text("@,161-255,^200"), &[]), None);
    }

    #[test]
    fn other_options_and_types_add_nothing() {
        assert_eq!(value_reach("wrap", &SettingValue::Boolean(true), &gzip()), None);
        assert_eq!(value_reach("statusline", &text("filler"), &gzip()), None);
    }
}
