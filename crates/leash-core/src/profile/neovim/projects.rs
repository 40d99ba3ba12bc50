//! Which project a file or folder belongs to: a step that opens or writes a file of
//! another project, or changes into one, lets that project's configuration reach the
//! user's tools.
//!
//! The user's own setup reacts to a buffer it enters: gitsigns and statusline plugins run
//! `git` in the file's repository, language servers start at the file's project root.
//! Git runs programs the repository's `.git/config` names (`core.fsmonitor`, hooks,
//! filter and diff drivers), and language servers read their project's settings. An
//! unconfirmed `:edit vendor/lib/util.txt` into a nested repository made git run that
//! repository's fsmonitor command. The process guard switches off Git's settings that run
//! commands by a fixed name while a step runs (`lua/leash/guard.lua`), but a driver named
//! by the other project cannot be switched off by name. So such a step is `code`, shown
//! with the project named: the window says that its configuration will be read.
//!
//! The working directory's project is the Git work tree around the current directory
//! (the nearest folder above it holding `.git`), or the current directory itself outside
//! any. A target belongs to another project when the work tree around it is another one
//! (a nested repository, a submodule, a sibling checkout), or when it lies in no work
//! tree and outside the working directory's project. Paths are resolved as the code
//! folder check resolves them (symbolic links included).
//!
//! `:cd` and its kin also change which program a name starts when `$PATH` holds a
//! relative entry (`.`, `bin`): such a step is `code` too, with the entry named. So is
//! turning `'autochdir'` on, which makes every later buffer switch a `:cd`.

use std::path::{Path, PathBuf};

use super::code_dirs::{home_relative, real, CodeDirs};
use crate::item_id::{ItemId, ItemKind};
use crate::reach::Reach;

/// Commands that change the current directory.
const CD_COMMANDS: &[&str] = &["cd", "chdir", "lcd", "lchdir", "tcd", "tchdir"];

/// The reach item `id` with `args` adds when a file it opens or writes, or a folder it
/// changes into, belongs to another project, with the reason; `None` otherwise (and for a
/// catalog without code folders, another editor's).
pub fn item_reach(dirs: &CodeDirs, id: &str, args: &[String]) -> Option<(Reach, String)> {
    if dirs.is_empty() {
        return None;
    }
    let (names, cd): (Vec<&str>, bool) = match ItemId::parse(id)? {
        ItemId { kind: ItemKind::Command, name } => {
            if !super::takes_file_names(name) {
                return None;
            }
            let cd = CD_COMMANDS.contains(&name);
            (args.iter().flat_map(|a| super::file_words(name, a)).collect(), cd)
        }
        ItemId { kind: ItemKind::File, name: "new" | "rename" } => (args.iter().map(String::as_str).collect(), false),
        _ => return None,
    };
    let verb = if cd { "changes into" } else { "opens" };
    if cd && args.iter().any(|a| a.trim() == "-") {
        return Some((Reach::Code, format!("{verb} the previous folder, which leash cannot tell ahead: {READS}")));
    }
    let home;
    let names = if cd && names.is_empty() {
        // `:cd` alone goes to the home folder.
        home = std::env::var("HOME").unwrap_or_default();
        vec![home.as_str()]
    } else {
        names
    };
    let ours = working_project(dirs)?;
    for name in names {
        let shown: String = name.chars().take(80).collect();
        let Some(target) = dirs.resolved(name) else {
            return Some((Reach::Code, format!("{verb} “{shown}”, a place leash cannot tell ahead: {READS}")));
        };
        if let Some(note) = landing(&ours, &target, &shown, verb) {
            return Some(note);
        }
    }
    if cd {
        if let Some(entry) = std::env::var_os("PATH").and_then(|p| relative_entry(&p)) {
            return Some((
                Reach::Code,
                format!(
                    "your $PATH has the relative entry “{entry}”: after a change of folder, a program your setup starts by name can come from the new folder"
                ),
            ));
        }
    }
    None
}

/// The reach a step adds when it `verb`s the file `target` (absolute, a name the editor
/// has, e.g. a language server's edit), if that belongs to another project.
pub fn path_reach(dirs: &CodeDirs, target: &Path, verb: &str) -> Option<(Reach, String)> {
    if dirs.is_empty() {
        return None;
    }
    let ours = working_project(dirs)?;
    let target = real(target).unwrap_or_else(|| target.to_path_buf());
    let shown = match target.strip_prefix(&ours) {
        Ok(rel) => rel.display().to_string(),
        Err(_) => home_relative(&target),
    };
    landing(&ours, &target, &shown, verb)
}

/// The note for `target` when it lies outside the working directory's project `ours`.
fn landing(ours: &Path, target: &Path, shown: &str, verb: &str) -> Option<(Reach, String)> {
    match project_of(target) {
        Some(root) if root != ours => Some((
            Reach::Code,
            format!(
                "{verb} “{shown}” in another project ({}, a Git repository of its own): {READS}",
                shown_dir(&root, ours)
            ),
        )),
        None if !target.starts_with(ours) => {
            Some((Reach::Code, format!("{verb} “{shown}”, outside this project ({}): {READS}", home_relative(ours))))
        }
        _ => None,
    }
}

/// What the note says a project's configuration can do.
const READS: &str =
    "your git, language servers and other tools read that project's configuration there, which can name programs they run";

/// The working directory's project: the Git work tree around it, or the folder itself.
fn working_project(dirs: &CodeDirs) -> Option<PathBuf> {
    let cwd = dirs.cwd().map(Path::to_path_buf).or_else(|| std::env::current_dir().ok())?;
    let cwd = real(&cwd).unwrap_or(cwd);
    Some(work_tree(&cwd).unwrap_or(cwd))
}

/// The Git work tree `target` belongs to (from the nearest folder of it that exists).
fn project_of(target: &Path) -> Option<PathBuf> {
    let start = target.ancestors().find(|d| d.is_dir())?;
    work_tree(start)
}

/// The nearest folder at or above `dir` holding `.git` (a folder, or a file for a
/// worktree or submodule).
fn work_tree(dir: &Path) -> Option<PathBuf> {
    dir.ancestors().find(|d| d.join(".git").symlink_metadata().is_ok()).map(Path::to_path_buf)
}

/// A project's folder for a note: relative to the working directory's project when it
/// lies inside it (`vendor/lib`), else with `~` for the home folder.
fn shown_dir(root: &Path, ours: &Path) -> String {
    match root.strip_prefix(ours) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => home_relative(root),
    }
}

/// The note for turning `'autochdir'` on while `path` (the `$PATH` value) holds a
/// relative entry: every buffer switch after it changes the current folder, as a `:cd`
/// into the file's folder would, and the plan's own `:edit`s are not shown as one.
pub fn autochdir_reach(path: Option<&std::ffi::OsStr>) -> Option<(Reach, String)> {
    let entry = relative_entry(path?)?;
    Some((
        Reach::Code,
        format!(
            "with 'autochdir' every buffer switch changes the current folder, and your $PATH has the relative entry “{entry}”: a program your setup starts by name can then come from the folder of any file opened"
        ),
    ))
}

/// The first entry of a `$PATH` value that is not an absolute folder (an empty one is
/// the current directory), if any.
fn relative_entry(path: &std::ffi::OsStr) -> Option<String> {
    std::env::split_paths(path).find(|p| !p.is_absolute()).map(|p| {
        let s = p.display().to_string();
        if s.is_empty() {
            "(empty: the current folder)".to_string()
        } else {
            s
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::test_tree::Tree;

    /// `project` (a Git work tree) with `vendor/lib` (a repository of its own) and `src`,
    /// `other` (no Git), `config` (a code folder).
    fn tree() -> Tree {
        Tree::new(&["project/.git", "project/src", "project/vendor/lib/.git", "other/sub", "config"], &["config"])
    }

    fn reach(d: &CodeDirs, id: &str, arg: &str) -> Option<String> {
        let args = if arg.is_empty() { Vec::new() } else { vec![arg.to_string()] };
        item_reach(d, id, &args).map(|(r, why)| {
            assert_eq!(r, Reach::Code, "{id} {arg}");
            why
        })
    }

    #[test]
    fn a_file_of_another_project_is_code_and_named() {
        let t = tree();
        let d = t.dirs("project");
        let why = reach(&d, "cmd:edit", "vendor/lib/util.txt").expect("a nested repository");
        assert!(why.starts_with("opens “vendor/lib/util.txt” in another project (vendor/lib,"), "{why}");
        assert!(why.contains("read that project's configuration"), "{why}");
        assert!(reach(&d, "cmd:split", "vendor/lib/deeper/new.txt").is_some(), "need not exist");
        assert!(reach(&d, "file:new", "vendor/lib/x.txt").is_some());
        assert!(reach(&d, "cmd:saveas", "vendor/lib/x.txt").is_some());
        assert!(reach(&d, "cmd:argadd", "src/a.rs vendor/lib/b.rs").is_some(), "every name");
        let why = reach(&d, "cmd:edit", "../other/x.txt").expect("outside the work tree");
        assert!(why.contains("outside this project"), "{why}");
        let why = reach(&d, "cmd:cd", "vendor/lib").expect("a change of folder");
        assert!(why.starts_with("changes into “vendor/lib” in another project"), "{why}");
        assert!(reach(&d, "cmd:lcd", "..").is_some());
        assert!(reach(&d, "cmd:cd", "-").unwrap().contains("previous folder"));
        // The project's own files, and what names no file.
        for (id, arg) in [
            ("cmd:edit", "src/main.rs"),
            ("cmd:edit", "notes.md"),
            ("cmd:cd", "src"),
            ("cmd:vimgrep", "/../ src/main.rs"),
            ("cmd:help", "../other"),
            ("cmd:write", ">> src/log.txt"),
            ("file:rename", "src/b.rs"),
        ] {
            if id == "cmd:cd" && std::env::var_os("PATH").and_then(|p| relative_entry(&p)).is_some() {
                continue; // this machine's $PATH has a relative entry: the note is right
            }
            assert_eq!(reach(&d, id, arg), None, "{id} {arg}");
        }
        // From a folder inside the work tree, the work tree is still this project.
        assert_eq!(reach(&t.dirs("project/src"), "cmd:edit", "../notes.md"), None);
    }

    #[cfg(unix)]
    #[test]
    fn links_are_followed_and_a_folder_outside_git_is_its_own_project() {
        let t = tree();
        std::os::unix::fs::symlink(t.root.join("other/sub"), t.root.join("project/src/elsewhere")).unwrap();
        let d = t.dirs("project");
        assert!(reach(&d, "cmd:edit", "src/elsewhere/x.txt").unwrap().contains("outside this project"));
        // Outside any work tree, the current folder is the project.
        let d = t.dirs("other");
        assert_eq!(reach(&d, "cmd:edit", "sub/x.txt"), None);
        assert!(reach(&d, "cmd:edit", "../project/src/a.rs").unwrap().contains("in another project"));
    }

    #[test]
    fn a_path_an_editor_was_handed_is_placed() {
        let t = tree();
        let d = t.dirs("project");
        let why = path_reach(&d, &t.root.join("project/vendor/lib/a.rs"), "touches").unwrap().1;
        assert!(why.starts_with("touches “vendor/lib/a.rs” in another project (vendor/lib"), "{why}");
        assert_eq!(path_reach(&d, &t.root.join("project/src/new dir/a b.rs"), "touches"), None, "spaces are a name");
        assert!(path_reach(&d, &t.root.join("other/x"), "touches").unwrap().1.contains("outside this project"));
        let (reach, why) = d.path_reach(&t.root.join("config/plugin/x.lua"), true).unwrap();
        assert_eq!(reach, Reach::Code);
        assert!(why.contains("loads code from"), "{why}");
        let (_, why) = d.path_reach(&t.root.join("config/plugin/x.lua"), false).unwrap();
        assert!(why.contains("outside this project"), "{why}");
        assert_eq!(d.path_reach(&t.root.join("project/src/b.rs"), true), None);
    }

    #[test]
    fn autochdir_is_code_only_with_a_relative_path_entry() {
        let path = |entries: &[&str]| std::env::join_paths(entries).unwrap();
        let (reach, why) = autochdir_reach(Some(&path(&["/usr/bin", "bin"]))).expect("a relative entry");
        assert_eq!(reach, Reach::Code);
        assert!(why.contains("“bin”") && why.contains("'autochdir'"), "{why}");
        assert_eq!(autochdir_reach(Some(&path(&["/usr/bin", "/bin"]))), None);
        assert_eq!(autochdir_reach(None), None);
    }

    #[test]
    fn a_relative_path_entry_is_found() {
        let path = |entries: &[&str]| std::env::join_paths(entries).unwrap();
        assert_eq!(relative_entry(&path(&["/usr/bin", "/bin"])), None);
        assert_eq!(relative_entry(&path(&["/usr/bin", ".", "/bin"])), Some(".".into()));
        assert_eq!(relative_entry(&path(&["bin", "/bin"])), Some("bin".into()));
        assert!(relative_entry(&path(&["/usr/bin", "", "/bin"])).unwrap().contains("current folder"));
    }
}
