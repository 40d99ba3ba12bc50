//! Helix's config.toml: where it is, what a setting holds now, and writing settings into
//! it with the user's comments and formatting kept (`toml_edit`).
//!
//! A file that does not parse is never written: the error says where it is broken and
//! nothing is lost. The new text goes to a temporary file beside the real one (a
//! symlinked config.toml is followed, so a dotfiles link stays a link), then replaces it
//! in one rename. Keys are `:set-option` paths under `[editor]` (`soft-wrap.enable` is
//! `[editor.soft-wrap] enable`); `theme` is the top-level key.

use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, InlineTable, Item, Table, TableLike};

use leash_core::entry::SettingValue;

/// Why a setting cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum HelixConfigError {
    #[error("cannot read {path}: {error}")]
    Read { path: String, error: std::io::Error },
    #[error("{path} does not parse, so leash will not change it (fix it first; nothing was written): {error}")]
    Parse { path: String, error: String },
    #[error("cannot set {key} in {path}: {reason}")]
    Shape { path: String, key: String, reason: ShapeError },
    #[error("cannot write {path}: {error}")]
    Write { path: String, error: std::io::Error },
}

/// Why a value cannot go at a table path of the file: the file's tables are not shaped
/// for it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// The path has no key at all.
    #[error("empty key")]
    EmptyKey,
    /// The last key names a table, where a value should go.
    #[error("“{0}” is a table in the file, not a value")]
    TableNotValue(String),
    /// A table on the path could not be made.
    #[error("cannot create “{0}”")]
    CannotCreate(String),
    /// A key on the path names a value, where a table should be.
    #[error("“{0}” is a value in the file, not a table")]
    ValueNotTable(String),
}

/// The config.toml Helix reads by default: `$XDG_CONFIG_HOME/helix/config.toml`
/// (`~/.config/helix`, also on macOS), `%AppData%\helix` on Windows.
pub fn default_path() -> Option<PathBuf> {
    if cfg!(windows) {
        return std::env::var_os("APPDATA").map(|a| PathBuf::from(a).join("helix").join("config.toml"));
    }
    crate::config_file::config_home().map(|c| c.join("helix").join("config.toml"))
}

/// The project's own config.toml, which Helix merges over the user's whenever it loads
/// or reloads: `.helix/config.toml` in Helix's workspace, the first folder up from the
/// working directory that holds `.git` or `.helix`.
pub enum Workspace {
    /// The project has none.
    None,
    File(ConfigFile),
    /// It does not parse: Helix cannot reload its configuration at all.
    Broken(HelixConfigError),
}

impl Workspace {
    pub fn find(cwd: &Path) -> Workspace {
        let Some(root) = cwd.ancestors().find(|a| a.join(".git").exists() || a.join(".helix").exists()) else {
            return Workspace::None;
        };
        let path = root.join(".helix").join("config.toml");
        if !path.is_file() {
            return Workspace::None;
        }
        match ConfigFile::read(&path) {
            Ok(file) => Workspace::File(file),
            Err(e) => Workspace::Broken(e),
        }
    }

    /// Why a setting written to the user's config.toml would not take effect, if it
    /// would not.
    pub fn overrides(&self, key: &str) -> Option<String> {
        match self {
            Workspace::None => None,
            Workspace::File(f) => f.get(key).map(|v| {
                format!("this project's {} sets {key} = {v}, which wins over your config.toml", f.path().display())
            }),
            Workspace::Broken(e) => Some(format!("Helix cannot reload its settings: {e}")),
        }
    }
}

/// The table path of a setting key: `["editor", "soft-wrap", "enable"]`, `["theme"]`.
pub fn table_path(key: &str) -> Vec<&str> {
    if key == "theme" {
        return vec!["theme"];
    }
    std::iter::once("editor").chain(key.split('.')).collect()
}

/// A parsed config.toml.
pub struct ConfigFile {
    path: PathBuf,
    doc: DocumentMut,
}

impl ConfigFile {
    /// Reads and parses the file; a missing file is an empty configuration.
    pub fn read(path: &Path) -> Result<ConfigFile, HelixConfigError> {
        let shown = path.display().to_string();
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(error) => return Err(HelixConfigError::Read { path: shown, error }),
        };
        let doc: DocumentMut = text
            .parse()
            .map_err(|e: toml_edit::TomlError| HelixConfigError::Parse { path: shown, error: one_line(&e) })?;
        Ok(ConfigFile { path: path.to_path_buf(), doc })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where the file keeps a setting: its table path, except that `gutters = [ … ]` (the
    /// shorthand Helix reads as `gutters.layout`) is where `gutters.layout` lives.
    fn path_of<'k>(&self, key: &'k str) -> Vec<&'k str> {
        let shorthand = self.doc.get("editor").and_then(|e| e.get("gutters")).is_some_and(|g| g.is_array());
        if key == "gutters.layout" && shorthand {
            return vec!["editor", "gutters"];
        }
        table_path(key)
    }

    /// The value the file gives a setting, as JSON (`None` when the file does not set it).
    pub fn get(&self, key: &str) -> Option<serde_json::Value> {
        let mut item: &Item = self.doc.as_item();
        for part in self.path_of(key) {
            item = item.as_table_like()?.get(part)?;
        }
        let v = item.as_value()?;
        let json = leash_core::toml_json::parse(&format!("v = {}", v.clone().decorated("", ""))).ok()?;
        json.get("v").cloned()
    }

    /// The file's `[keys.normal]` table, as JSON.
    pub fn keys_normal(&self) -> Option<serde_json::Value> {
        leash_core::toml_json::parse(&self.text()).ok()?.pointer("/keys/normal").cloned()
    }

    /// Sets a setting, creating the tables it needs and keeping the formatting around an
    /// existing value.
    pub fn set(&mut self, key: &str, value: &SettingValue) -> Result<(), HelixConfigError> {
        let new: toml_edit::Value = match value {
            SettingValue::Boolean(b) => (*b).into(),
            SettingValue::Number(n) => (*n).into(),
            SettingValue::String(s) => match leash_core::profile::helix::list_array(key, s) {
                Some(serde_json::Value::Array(items)) => toml_array(&items).into(),
                _ => s.as_str().into(),
            },
        };
        self.set_path(&self.path_of(key), new)
    }

    /// Sets the value at a table path (`["keys", "normal", "space", "."]`).
    pub fn set_path(&mut self, path: &[&str], value: toml_edit::Value) -> Result<(), HelixConfigError> {
        set_in(self.doc.as_table_mut(), false, path, value).map_err(|reason| HelixConfigError::Shape {
            path: self.path.display().to_string(),
            key: path.join("."),
            reason,
        })
    }

    /// The value at a table path as JSON (`["keys", "normal", "space", "."]`), if any.
    pub fn get_path(&self, path: &[&str]) -> Option<serde_json::Value> {
        let mut json = leash_core::toml_json::parse(&self.text()).ok()?;
        for part in path {
            json = json.get(part)?.clone();
        }
        Some(json)
    }

    /// Turns each inline table along `path` (`space = { x = ":write" }`) into a table of
    /// its own (`[keys.normal.space]`), so keys added there get lines of their own
    /// instead of growing one line by hundreds of characters. The values stay as they
    /// are; a comment inside the braces goes with them.
    pub fn expand_inline(&mut self, path: &[&str]) {
        let mut table: &mut dyn TableLike = self.doc.as_table_mut();
        for part in path {
            let Some(item) = table.get_mut(part) else { return };
            if let Item::Value(toml_edit::Value::InlineTable(inline)) = item {
                // A comment after the braces goes above the new header.
                let comment = inline.decor().suffix().and_then(|s| s.as_str()).map(str::trim).unwrap_or_default();
                let comment = comment.starts_with('#').then(|| format!("\n{comment}\n"));
                let mut expanded = std::mem::take(inline).into_table();
                if let Some(c) = comment {
                    expanded.decor_mut().set_prefix(c);
                }
                *item = Item::Table(expanded);
                // `space = ` left spaces around the key, which would go into the header.
                if let Some(mut key) = table.key_mut(part) {
                    key.fmt();
                }
            }
            let Some(item) = table.get_mut(part) else { return };
            let Some(next) = item.as_table_like_mut() else { return };
            table = next;
        }
    }

    /// The text the file would have.
    pub fn text(&self) -> String {
        self.doc.to_string()
    }

    /// Writes the file: a temporary file beside the real one (after following a symlink),
    /// then one rename, so Helix never reads half a file.
    pub fn write(&self) -> Result<(), HelixConfigError> {
        let err = |error| HelixConfigError::Write { path: self.path.display().to_string(), error };
        let target = std::fs::canonicalize(&self.path).unwrap_or_else(|_| self.path.clone());
        let dir = target.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."));
        std::fs::create_dir_all(&dir).map_err(err)?;
        let name = target.file_name().and_then(|n| n.to_str()).unwrap_or("config.toml");
        let tmp = dir.join(format!(".{name}.leash-{}.tmp", std::process::id()));
        let result = (|| {
            std::fs::write(&tmp, self.text())?;
            if let Ok(meta) = std::fs::metadata(&target) {
                std::fs::set_permissions(&tmp, meta.permissions())?;
            }
            std::fs::File::open(&tmp)?.sync_all()?;
            std::fs::rename(&tmp, &target)
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result.map_err(err)
    }
}

/// A list option's items as a TOML array: numbers stay numbers (`rulers = [80, 100]`).
fn toml_array(items: &[serde_json::Value]) -> toml_edit::Array {
    let mut array = toml_edit::Array::new();
    for item in items {
        match item {
            serde_json::Value::Number(n) => array.push(n.as_i64().unwrap_or_default()),
            other => array.push(other.as_str().unwrap_or_default()),
        }
    }
    array.fmt();
    array
}

fn set_in(table: &mut dyn TableLike, inline: bool, path: &[&str], value: toml_edit::Value) -> Result<(), ShapeError> {
    let Some((first, rest)) = path.split_first() else { return Err(ShapeError::EmptyKey) };
    if rest.is_empty() {
        match table.get_mut(first) {
            Some(Item::Value(old)) => {
                let decor = old.decor().clone();
                *old = value;
                *old.decor_mut() = decor;
            }
            Some(Item::None) | None => {
                table.insert(first, Item::Value(value));
            }
            Some(_) => return Err(ShapeError::TableNotValue(first.to_string())),
        }
        return Ok(());
    }
    if table.get(first).is_none() {
        // Inside `{ … }` a new table must be inline too.
        // An implicit table gets no header of its own while it holds only tables.
        let fresh = if inline {
            Item::Value(toml_edit::Value::InlineTable(InlineTable::new()))
        } else {
            let mut t = Table::new();
            t.set_implicit(true);
            Item::Table(t)
        };
        table.insert(first, fresh);
    }
    let Some(item) = table.get_mut(first) else { return Err(ShapeError::CannotCreate(first.to_string())) };
    let sub_inline = matches!(item, Item::Value(_));
    match item.as_table_like_mut() {
        Some(sub) => set_in(sub, sub_inline, rest, value),
        None => Err(ShapeError::ValueNotTable(first.to_string())),
    }
}

fn one_line(e: &toml_edit::TomlError) -> String {
    e.to_string().split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> (tempfile::TempDir, PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("config.toml");
        std::fs::write(&p, text).unwrap();
        (d, p)
    }

    #[test]
    fn comments_and_formatting_are_kept() {
        let text = "# my theme\ntheme = \"onedark\"\n\n[editor]\n# numbers\nline-number = \"absolute\"  # was relative\nmouse = false\n\n[editor.soft-wrap]\nenable = false\n\n[keys.normal]\nC-s = \":w\"\n";
        let (_d, p) = file(text);
        let mut c = ConfigFile::read(&p).unwrap();
        assert_eq!(c.get("line-number"), Some(serde_json::json!("absolute")));
        assert_eq!(c.get("soft-wrap.enable"), Some(serde_json::json!(false)));
        assert_eq!(c.get("cursorline"), None);
        c.set("line-number", &SettingValue::String("relative".into())).unwrap();
        c.set("soft-wrap.enable", &SettingValue::Boolean(true)).unwrap();
        c.set("cursorline", &SettingValue::Boolean(true)).unwrap();
        c.set("whitespace.render", &SettingValue::String("all".into())).unwrap();
        c.set("theme", &SettingValue::String("gruvbox".into())).unwrap();
        c.write().unwrap();
        let out = std::fs::read_to_string(&p).unwrap();
        assert!(out.contains("# my theme\ntheme = \"gruvbox\"\n"), "{out}");
        assert!(out.contains("# numbers\nline-number = \"relative\"  # was relative\n"), "{out}");
        assert!(out.contains("[editor.soft-wrap]\nenable = true\n"), "{out}");
        assert!(out.contains("[keys.normal]\nC-s = \":w\"\n"), "{out}");
        assert!(out.contains("cursorline = true"), "{out}");
        assert!(out.contains("[editor.whitespace]\nrender = \"all\""), "{out}");
        assert!(!out.contains("[editor]\n\n"), "no empty headers: {out}");
        let again = ConfigFile::read(&p).unwrap();
        assert_eq!(again.get("whitespace.render"), Some(serde_json::json!("all")));
    }

    #[test]
    fn inline_and_dotted_tables_are_written_where_they_are() {
        let (_d, p) = file("[editor]\nsoft-wrap = { enable = false }\nindent-guides.render = false\n");
        let mut c = ConfigFile::read(&p).unwrap();
        c.set("soft-wrap.enable", &SettingValue::Boolean(true)).unwrap();
        c.set("indent-guides.render", &SettingValue::Boolean(true)).unwrap();
        let out = c.text();
        assert!(out.contains("soft-wrap = { enable = true }"), "{out}");
        assert!(out.contains("indent-guides.render = true"), "{out}");
    }

    #[test]
    fn a_broken_file_is_never_written() {
        let text = "[editor\nline-number = \"relative\"\n";
        let (_d, p) = file(text);
        let e = ConfigFile::read(&p).err().unwrap().to_string();
        assert!(e.contains("does not parse") && e.contains("nothing was written"), "{e}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), text);
        let (_d2, p2) = file("[editor]\nsoft-wrap = true\n");
        let mut c = ConfigFile::read(&p2).unwrap();
        let e = c.set("soft-wrap.enable", &SettingValue::Boolean(true)).unwrap_err().to_string();
        assert!(e.contains("“soft-wrap” is a value"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_file_stays_a_link() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("dotfiles-helix.toml");
        std::fs::write(&real, "[editor]\nmouse = true\n").unwrap();
        let link = d.path().join("config.toml");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let mut c = ConfigFile::read(&link).unwrap();
        c.set("mouse", &SettingValue::Boolean(false)).unwrap();
        c.write().unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert!(std::fs::read_to_string(&real).unwrap().contains("mouse = false"));
    }

    #[test]
    fn list_options_are_written_as_arrays() {
        let (_d, path) = file("[editor]\nrulers = [120] # wide\n");
        let mut c = ConfigFile::read(&path).unwrap();
        c.set("rulers", &SettingValue::String("80,100".into())).unwrap();
        c.set("statusline.left", &SettingValue::String("mode,file-name".into())).unwrap();
        c.set("gutters.layout", &SettingValue::String(String::new())).unwrap();
        let text = c.text();
        assert!(text.contains("rulers = [80, 100] # wide"), "{text}");
        let v = leash_core::toml_json::parse(&text).unwrap();
        assert_eq!(v["editor"]["rulers"], serde_json::json!([80, 100]));
        assert_eq!(v["editor"]["statusline"]["left"], serde_json::json!(["mode", "file-name"]));
        assert_eq!(v["editor"]["gutters"]["layout"], serde_json::json!([]));
        // `gutters = [ … ]` is Helix's shorthand for gutters.layout: read and written there.
        let (_d, path) = file("[editor]\ngutters = [\"diff\"]\n");
        let mut c = ConfigFile::read(&path).unwrap();
        assert_eq!(c.get("gutters.layout"), Some(serde_json::json!(["diff"])));
        c.set("gutters.layout", &SettingValue::String("line-numbers,spacer".into())).unwrap();
        assert_eq!(c.text(), "[editor]\ngutters = [\"line-numbers\", \"spacer\"]\n");
    }

    #[test]
    fn the_projects_config_wins_over_the_users() {
        let d = tempfile::tempdir().unwrap();
        let sub = d.path().join("src");
        std::fs::create_dir_all(d.path().join(".helix")).unwrap();
        std::fs::create_dir_all(&sub).unwrap();
        assert!(matches!(Workspace::find(&sub), Workspace::None), "a .helix folder without config.toml");
        std::fs::write(
            d.path().join(".helix/config.toml"),
            "theme = \"nord\"\n[editor]\nsoft-wrap = { enable = false }\n",
        )
        .unwrap();
        let w = Workspace::find(&sub);
        let why = w.overrides("soft-wrap.enable").unwrap();
        assert!(why.contains(".helix/config.toml sets soft-wrap.enable = false"), "{why}");
        assert!(w.overrides("theme").is_some());
        assert!(w.overrides("line-number").is_none());
        std::fs::write(d.path().join(".helix/config.toml"), "[editor\n").unwrap();
        let why = Workspace::find(&sub).overrides("line-number").unwrap();
        assert!(why.contains("cannot reload") && why.contains("does not parse"), "{why}");
    }
}
