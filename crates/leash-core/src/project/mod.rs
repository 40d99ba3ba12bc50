//! Editor-agnostic catalog sources: the project's scripts, Git and file actions.
//!
//! Neovim (through the Lua module) and Helix (through the `leash` program) get these
//! items from here; each editor adds only its own sources. Discovery reads files and
//! nothing else: it never starts a program (`cargo metadata`, `make -pn`, `just --list`,
//! `git`…), because listing what a project can do must not run the project's code. Every
//! file read is cached by path, modification time and size ([`cache`]), so discovering
//! again costs one `stat` per candidate file.

pub mod cache;
pub mod files;
pub mod git;
pub mod scripts;
pub mod stack;
pub mod terminal;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::entry::{Args, Entry, Item};
use crate::reach::Reach;

/// The editor the items are for: a few file actions exist in one editor only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Editor {
    Neovim,
    Helix,
}

impl Editor {
    pub fn parse(name: &str) -> Option<Editor> {
        match name {
            "neovim" | "nvim" => Some(Editor::Neovim),
            "helix" | "hx" => Some(Editor::Helix),
            _ => None,
        }
    }
}

/// One discovered item: a catalog item plus what running it needs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceItem {
    pub id: String,
    pub kind: &'static str,
    pub title: String,
    pub aliases: Vec<String>,
    pub args: Args,
    pub reach: Reach,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The argv a script runs (scripts only); it comes from the project's files, never
    /// from the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cmd: Option<Vec<String>>,
    /// The directory the argv runs in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The project root the script was found in (scripts only): the folder whose
    /// definition files ([`scripts::definition_files`]) the runner reads again when it starts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
}

impl SourceItem {
    /// The catalog entry (what the core ranks and validates against).
    pub fn to_entry(&self) -> Entry {
        Entry::Item(Item {
            id: self.id.clone(),
            kind: self.kind.to_string(),
            title: self.title.clone(),
            aliases: self.aliases.clone(),
            args: self.args,
            reach: self.reach,
            // Scripts, Git and file actions never run on the user's lines.
            range: false,
            description: self.description.clone(),
            plugin: String::new(),
            loads: false,
        })
    }
}

/// Where to look.
#[derive(Debug, Clone)]
pub struct Options {
    /// The working directory: scripts are found from here upward.
    pub cwd: PathBuf,
    /// The current file, when the editor has one: Git is found from its folder upward
    /// (else from `cwd`).
    pub file: Option<PathBuf>,
    pub editor: Editor,
}

/// Why a frontend's options name no place to look.
#[derive(Debug, thiserror::Error)]
pub enum OptionsError {
    #[error("option “editor” is neovim or helix, not “{0}”")]
    Editor(String),
    #[error("leash: no current directory: {0}")]
    NoCwd(std::io::Error),
}

impl Options {
    /// The options as a frontend gives them: the working directory (none: this
    /// process's), the current file (none or empty: no file) and the editor by name.
    pub fn for_frontend(cwd: Option<&Path>, file: Option<&Path>, editor: &str) -> Result<Options, OptionsError> {
        let cwd = match cwd {
            Some(c) => c.to_path_buf(),
            None => std::env::current_dir().map_err(OptionsError::NoCwd)?,
        };
        let file = file.filter(|f| !f.as_os_str().is_empty()).map(Path::to_path_buf);
        let editor = Editor::parse(editor).ok_or_else(|| OptionsError::Editor(editor.to_string()))?;
        Ok(Options { cwd, file, editor })
    }
}

/// Every item of the three sources, by source.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Discovered {
    pub scripts: Vec<SourceItem>,
    pub git: Vec<SourceItem>,
    pub files: Vec<SourceItem>,
}

impl Discovered {
    /// All items, scripts first.
    pub fn all(&self) -> impl Iterator<Item = &SourceItem> {
        self.scripts.iter().chain(&self.git).chain(&self.files)
    }
}

/// Discovers the scripts, Git and file items for `opts`.
pub fn discover(opts: &Options) -> Discovered {
    let git_start = opts
        .file
        .as_deref()
        .and_then(|f| absolute(&opts.cwd, f).parent().map(Path::to_path_buf))
        .unwrap_or_else(|| opts.cwd.clone());
    Discovered {
        scripts: scripts::entries(&opts.cwd),
        git: if git::root(&git_start).is_some() { git::entries() } else { Vec::new() },
        files: files::entries(opts.editor),
    }
}

/// `path` made absolute against `base`.
pub fn absolute(base: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

/// The nearest directory at or above `dir` holding any of `markers` (a file or folder).
pub(crate) fn root_with(dir: &Path, markers: &[&str]) -> Option<PathBuf> {
    dir.ancestors().find(|d| markers.iter().any(|m| d.join(m).exists())).map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frontends_options_name_where_to_look() {
        let o = Options::for_frontend(Some(Path::new("/p")), Some(Path::new("")), "nvim").unwrap();
        assert_eq!((o.cwd, o.file, o.editor), (PathBuf::from("/p"), None, Editor::Neovim), "empty is no file");
        let o = Options::for_frontend(None, Some(Path::new("src/a.rs")), "helix").unwrap();
        assert_eq!(o.cwd, std::env::current_dir().unwrap(), "this process's directory");
        assert_eq!((o.file, o.editor), (Some(PathBuf::from("src/a.rs")), Editor::Helix));
        let e = Options::for_frontend(Some(Path::new("/p")), None, "emacs").unwrap_err().to_string();
        assert_eq!(e, "option “editor” is neovim or helix, not “emacs”");
    }
}
