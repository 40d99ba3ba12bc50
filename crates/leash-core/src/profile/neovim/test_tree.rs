//! A scratch folder tree for the tests of code folders and projects: made on creation,
//! removed on drop.

use super::code_dirs::CodeDirs;
use std::path::PathBuf;

pub(crate) struct Tree {
    pub(crate) root: PathBuf,
    /// The folders Neovim loads code from, relative to `root`.
    code: Vec<String>,
    _dir: tempfile::TempDir,
}

impl Tree {
    /// A fresh temporary root holding `folders` (relative, made with their parents);
    /// `code` are the code folders of [`Tree::dirs`], relative to it (they need not exist).
    pub(crate) fn new(folders: &[&str], code: &[&str]) -> Tree {
        let dir = tempfile::Builder::new().prefix("leash-tree-").tempdir().unwrap();
        let root = dir.path().to_path_buf();
        for f in folders {
            std::fs::create_dir_all(root.join(f)).unwrap();
        }
        Tree { root, code: code.iter().map(|c| c.to_string()).collect(), _dir: dir }
    }

    /// `rel` under the root, as the string an editor hands over.
    pub(crate) fn path(&self, rel: &str) -> String {
        self.root.join(rel).display().to_string()
    }

    /// The code folders seen from `cwd` (relative to the root).
    pub(crate) fn dirs(&self, cwd: &str) -> CodeDirs {
        let code: Vec<String> = self.code.iter().map(|c| self.path(c)).collect();
        CodeDirs::new(Some(&self.path(cwd)), &code)
    }
}
