//! Folders Neovim loads code from, and the writes that land in them.
//!
//! A file written into a `plugin/` folder on 'runtimepath' runs at the next start: a
//! chain of `write` steps ('backup' on, 'backupdir' into such a folder, 'backupext'
//! `.lua`, `:write`) or 'verbosefile' pointed there made code the plan window labelled
//! `[write]`. So a write whose target lies in a code folder is `code`, with the reason
//! shown. The frontend lists the folders with the catalog ('runtimepath' and 'packpath'
//! entries, the config folder, the data folder, leash's own state): anything under one of
//! them counts, whatever subfolder Neovim happens to read.
//!
//! Paths are resolved before they are compared: `~` and `$VAR` (as Neovim expands them
//! in option values), relative to the current directory, `.` and `..`, and symbolic links
//! part by part, a link whose target does not exist yet too (writing through it creates
//! the target). A target leash cannot place (an unset variable,
//! `~user`, a folder relative to the file being written) counts as a code folder.

use std::path::{Component, Path, PathBuf};

use crate::item_id::{ItemKind, FILE_RENAME};
use crate::reach::Reach;

/// The folders Neovim loads code from and the current directory relative paths start in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodeDirs {
    cwd: Option<PathBuf>,
    /// As given (made absolute and normalized), each followed by its real path if it differs.
    dirs: Vec<PathBuf>,
    given: Vec<String>,
}

/// Where a target was found to land.
enum Landing {
    /// Inside this code folder.
    In(PathBuf),
    /// A place that runs code wherever it is (a `.git` folder, an `.nvim.lua`), with why.
    Runs(&'static str),
    /// Somewhere leash cannot tell ahead, with why.
    Unknown(&'static str),
}

/// File names Neovim runs from its current directory when 'exrc' is on.
const EXRC_NAMES: &[&str] = &[".nvim.lua", ".nvimrc", ".exrc"];

impl CodeDirs {
    /// The code folders `dirs` (absolute paths; relative ones are taken from `cwd`) and the
    /// current directory `cwd`.
    pub fn new(cwd: Option<&str>, dirs: &[String]) -> CodeDirs {
        let cwd = cwd.filter(|c| !c.is_empty()).map(|c| normalize(Path::new(c)));
        let mut out = CodeDirs { cwd, dirs: Vec::new(), given: dirs.to_vec() };
        for d in dirs.iter().filter(|d| !d.trim().is_empty()) {
            for p in out.candidates(d, None).unwrap_or_default() {
                if !out.dirs.contains(&p) {
                    out.dirs.push(p);
                }
            }
        }
        out
    }

    /// Whether no folder is known (a catalog from another editor): nothing is raised.
    pub fn is_empty(&self) -> bool {
        self.dirs.is_empty()
    }

    /// The folders as the frontend gave them (for the catalog file).
    pub fn given(&self) -> &[String] {
        &self.given
    }

    /// The current directory relative paths start in, as given.
    pub fn cwd(&self) -> Option<&Path> {
        self.cwd.as_deref()
    }

    /// The code folder `path` lies in (resolved from `base`, default the current
    /// directory), if any.
    pub fn containing(&self, path: &str, base: Option<&Path>) -> Option<PathBuf> {
        match self.landing(path, base) {
            Some(Landing::In(dir)) => Some(dir),
            _ => None,
        }
    }

    fn landing(&self, path: &str, base: Option<&Path>) -> Option<Landing> {
        self.landing_of(self.candidates(path, base))
    }

    /// Where one of `candidates` (the absolute forms of a target, `None`: it cannot be
    /// told) lands.
    fn landing_of(&self, candidates: Option<Vec<PathBuf>>) -> Option<Landing> {
        if self.is_empty() {
            return None;
        }
        let Some(candidates) = candidates else {
            return Some(Landing::Unknown("leash cannot tell where it points (an unset variable or ~user)"));
        };
        if let Some(dir) = candidates.iter().find_map(|c| self.dirs.iter().find(|d| c.starts_with(d))) {
            return Some(Landing::In(dir.clone()));
        }
        // Git runs programs its repository's files name (hooks, `core.fsmonitor`,
        // `core.pager`), and the user's own plugins run git all the time.
        if candidates.iter().any(|c| c.components().any(|p| p.as_os_str() == ".git")) {
            return Some(Landing::Runs(
                "inside a .git folder, whose hooks and config name programs Git runs (gitsigns and lualine run git all the time)",
            ));
        }
        if candidates.iter().any(|c| c.file_name().is_some_and(|n| EXRC_NAMES.iter().any(|e| n == *e))) {
            return Some(Landing::Runs("a file Neovim runs at start in its folder when 'exrc' is on"));
        }
        None
    }

    /// The same folders with relative paths starting in `cwd` (the current directory when
    /// a step runs, which an earlier step may have changed).
    pub fn with_cwd(&self, cwd: &str) -> CodeDirs {
        let mut out = self.clone();
        if !cwd.is_empty() {
            out.cwd = Some(normalize(Path::new(cwd)));
        }
        out
    }

    /// The absolute forms of `path`: lexically normalized, and with the symbolic links of
    /// its existing part resolved (both ways of reading `link/..`). `None` if it cannot be
    /// expanded.
    fn candidates(&self, path: &str, base: Option<&Path>) -> Option<Vec<PathBuf>> {
        let expanded = expand(path)?;
        self.candidates_of(Path::new(&expanded), base)
    }

    /// The path `path` (a name as a step gives it: `~` and `$VAR` expanded, relative to
    /// the current directory) stands for, its symbolic links resolved; `None` if leash
    /// cannot tell.
    pub fn resolved(&self, path: &str) -> Option<PathBuf> {
        self.candidates(path, None)?.pop()
    }

    /// The absolute forms of `p`, which is not expanded (a file name the editor has, which
    /// need not be UTF-8).
    fn candidates_of(&self, p: &Path, base: Option<&Path>) -> Option<Vec<PathBuf>> {
        let joined = if p.is_absolute() {
            p.to_path_buf()
        } else {
            base.map(Path::to_path_buf).or_else(|| self.cwd.clone()).or_else(|| std::env::current_dir().ok())?.join(p)
        };
        let lexical = normalize(&joined);
        let mut out = vec![lexical.clone()];
        // `joined` differs only with `.` or `..` in it (then a link before `..` reads two ways).
        let physical = if joined == lexical { None } else { real(&joined) };
        for p in [real(&lexical), physical].into_iter().flatten() {
            if !out.contains(&p) {
                out.push(p);
            }
        }
        Some(out)
    }

    /// Why a write to `path` is `code`: it lands in a code folder (or leash cannot tell).
    fn write_note(&self, path: &str, base: Option<&Path>, what: &str) -> Option<(Reach, String)> {
        self.note(self.landing(path, base)?, Path::new(path), what)
    }

    /// The same for a file the editor names (the current file, a changed buffer's), taken
    /// as it is: no `~` or `$VAR` in it is expanded, and it need not be UTF-8.
    fn file_note(&self, path: &Path, what: &str) -> Option<(Reach, String)> {
        self.note(self.landing_of(self.candidates_of(path, None))?, path, what)
    }

    fn note(&self, landing: Landing, path: &Path, what: &str) -> Option<(Reach, String)> {
        let shown = shown(&home_relative(path));
        match landing {
            Landing::In(dir) => Some((
                Reach::Code,
                format!(
                    "{what} “{shown}”, inside {}, a folder Neovim loads code from (a file there can run at the next start)",
                    home_relative(&dir)
                ),
            )),
            Landing::Runs(why) | Landing::Unknown(why) => Some((Reach::Code, format!("{what} “{shown}”: {why}"))),
        }
    }

    /// The reach option `key` set to `value` adds when it chooses where files are written
    /// ('backupdir', 'verbosefile'…) and points into a code folder; `None` otherwise.
    pub fn option_reach(&self, key: &str, value: &str) -> Option<(Reach, String)> {
        let kind = PATH_OPTIONS.iter().find(|(k, _)| *k == key)?.1;
        let what = format!("'{key}' writes to");
        let entries: Vec<String> = match kind {
            PathKind::DirList | PathKind::FileList => comma_items(value),
            PathKind::File => vec![value.to_string()],
            PathKind::Shada => shada_name(value).into_iter().collect(),
        };
        entries.iter().find_map(|entry| {
            let entry = entry.as_str();
            if entry.is_empty() || (key == "shadafile" && entry == "NONE") {
                return None;
            }
            if kind == PathKind::DirList {
                // `dir//` (or `dir\\`) keeps the whole path in the file name: same folder.
                let dir = entry.trim_end_matches(['/', '\\']);
                let dir = if dir.is_empty() { "/" } else { dir };
                // "." is the written file's own folder: that write is checked itself.
                if dir == "." {
                    return None;
                }
                if dir.starts_with("./") || dir.starts_with(".\\") {
                    let shown = shown(entry);
                    return (!self.is_empty()).then(|| {
                        (
                            Reach::Code,
                            format!(
                                "'{key}' writes to “{shown}”, relative to each written file's folder: leash cannot tell whether that is a folder Neovim loads code from"
                            ),
                        )
                    });
                }
                return self.write_note(dir, None, &what);
            }
            self.write_note(entry, None, &what)
        })
    }

    /// The reach writing with `:name args` adds when a file it names lands in a code
    /// folder. `file` is the current buffer's file and `modified` the changed buffers'
    /// files, where known (at run time); at validation only named files are checked.
    pub fn command_reach(
        &self,
        name: &str,
        args: &[String],
        file: Option<&Path>,
        modified: &[PathBuf],
    ) -> Option<(Reach, String)> {
        let arg = args.join(" ");
        let what = "writes";
        match write_target(name, arg.trim()) {
            Target::Nothing => None,
            Target::Named(target) => self.write_note(&target, None, what),
            Target::Current => file.and_then(|f| self.file_note(f, what)),
            Target::Modified => modified.iter().find_map(|f| self.file_note(f, what)),
        }
    }

    /// The reach item `id` with `args` adds when what it writes lands in a code folder
    /// (write commands, `cmd:…`, and `file:rename`), or when a file it opens or writes, or
    /// a folder it changes into, belongs to another project (`super::projects`). `file`/`modified` as for
    /// [`CodeDirs::command_reach`].
    pub fn item_reach(
        &self,
        id: &str,
        args: &[String],
        file: Option<&Path>,
        modified: &[PathBuf],
    ) -> Option<(Reach, String)> {
        let write = if let Some(name) = ItemKind::Command.name_in(id) {
            self.command_reach(name, args, file, modified)
        } else if id == FILE_RENAME {
            self.rename_reach(args.first()?, file)
        } else {
            None
        };
        write.or_else(|| super::projects::item_reach(self, id, args))
    }

    /// The reach of writing, creating or moving to the file `path` (absolute, a name the
    /// editor was handed, such as a language server's workspace edit): a code folder
    /// (when `code_folders`), or a file of another project (`super::projects`), with the
    /// reason. Editing or deleting a file asks only about the project.
    pub fn path_reach(&self, path: &Path, code_folders: bool) -> Option<(Reach, String)> {
        let code = if code_folders { self.file_note(path, "writes") } else { None };
        code.or_else(|| super::projects::path_reach(self, path, "touches"))
    }

    /// The reach `file:rename new` adds when the new path lands in a code folder: a bare
    /// name stays in the current file's folder (known at run time), a path is relative to
    /// the current directory.
    pub fn rename_reach(&self, new: &str, file: Option<&Path>) -> Option<(Reach, String)> {
        let what = "moves the file to";
        if new.contains(['/', '\\']) {
            return self.write_note(new, None, what);
        }
        let dir = file?.parent()?;
        self.write_note(new, Some(dir), what)
    }
}

/// A step about to run, as [`CodeDirs::write_landing`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PendingStep {
    /// An item and its arguments.
    Item { id: String, args: Vec<String> },
    /// A setting and its new value when that is text (only text names a path).
    Setting { key: String, value: Option<String> },
    /// Any other step (a terminal step): it writes nothing this check can see.
    Other,
}

/// What the editor says when a step is about to run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunState {
    /// The current buffer's file; empty is none. A path, not text: a file name need not
    /// be UTF-8.
    pub file: Option<PathBuf>,
    /// The changed buffers' files (what `:wall` writes).
    pub modified: Vec<PathBuf>,
    /// The values the plan's earlier steps gave options, each when it is text.
    pub settings: Vec<(String, Option<String>)>,
}

impl CodeDirs {
    /// Why `step`, about to run, writes where Neovim loads code from, checked against
    /// these folders as they are now: what the step itself writes, then where each path
    /// option the plan set before it points (checked again: a relative 'backupdir'
    /// follows a later `:cd`). The first reason found, or `None`.
    pub fn write_landing(&self, step: &PendingStep, state: &RunState) -> Option<String> {
        let file = state.file.as_deref().filter(|f| !f.as_os_str().is_empty());
        let own = match step {
            PendingStep::Item { id, args } => self.item_reach(id, args, file, &state.modified),
            PendingStep::Setting { key, value } => value.as_deref().and_then(|v| self.option_reach(key, v)),
            PendingStep::Other => None,
        };
        let earlier =
            || state.settings.iter().find_map(|(key, value)| value.as_deref().and_then(|v| self.option_reach(key, v)));
        own.or_else(earlier).map(|(_, why)| why)
    }
}

/// How an option's value names where files go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PathKind {
    /// A comma list of folders with Neovim's `.`, `./dir` and `dir//` forms.
    DirList,
    /// One file name.
    File,
    /// A comma list of file names.
    FileList,
    /// 'shada': the file is what follows its `n` item.
    Shada,
}

/// The options whose value chooses where Neovim writes files (from doc/reach.md's `fs`
/// and `code` rows that take a path).
const PATH_OPTIONS: &[(&str, PathKind)] = &[
    ("backupdir", PathKind::DirList),
    ("directory", PathKind::DirList),
    ("undodir", PathKind::DirList),
    ("viewdir", PathKind::DirList),
    ("verbosefile", PathKind::File),
    ("shadafile", PathKind::File),
    ("spellfile", PathKind::FileList),
    ("shada", PathKind::Shada),
];

/// The options whose value chooses where Neovim writes files.
pub fn path_options() -> impl Iterator<Item = &'static str> {
    PATH_OPTIONS.iter().map(|(k, _)| *k)
}

/// What a write command writes to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    Nothing,
    Named(String),
    /// The current buffer's file.
    Current,
    /// Every changed buffer's file.
    Modified,
}

/// The file `:name arg` writes (after the argument filter: no `+cmd`, `++opt`, `!cmd`).
fn write_target(name: &str, arg: &str) -> Target {
    let named = |default: Target| if arg.is_empty() { default } else { Target::Named(arg.to_string()) };
    match name {
        // `:write >> file` appends to it; `:write >>` to the current file.
        "write" | "update" => {
            let rest = arg.strip_prefix(">>").map(str::trim_start).unwrap_or(arg);
            if rest.is_empty() {
                Target::Current
            } else {
                Target::Named(rest.to_string())
            }
        }
        "saveas" | "file" | "wundo" | "wshada" | "wviminfo" => named(Target::Nothing),
        "wq" | "xit" | "exit" | "wnext" | "wNext" | "wprevious" => named(Target::Current),
        "wall" | "wqall" | "xall" => Target::Modified,
        "mksession" => Target::Named(if arg.is_empty() { "Session.vim" } else { arg }.to_string()),
        "mkexrc" => Target::Named(if arg.is_empty() { ".exrc" } else { arg }.to_string()),
        "mkvimrc" => Target::Named(if arg.is_empty() { ".nvimrc" } else { arg }.to_string()),
        // `:mkview 1` writes into 'viewdir' (checked as that option); a name is a file.
        "mkview" if arg.is_empty() || arg.chars().all(|c| c.is_ascii_digit()) => Target::Nothing,
        "mkview" => Target::Named(arg.to_string()),
        // `:mkspell [-ascii] {outname} {inname}…`: the output is the first name.
        "mkspell" => {
            let mut words = arg.split_whitespace().filter(|w| *w != "-ascii");
            words.next().map_or(Target::Nothing, |w| Target::Named(w.to_string()))
        }
        // `:redir > file`, `:redir >> file`, `:redir! > file`; registers and variables write nothing.
        "redir" => match arg.strip_prefix('>') {
            Some(rest) => Target::Named(rest.trim_start_matches('>').trim().to_string()),
            None => Target::Nothing,
        },
        // `:profile start {file}`.
        "profile" => match arg.strip_prefix("start") {
            Some(rest) if !rest.trim().is_empty() => Target::Named(rest.trim().to_string()),
            _ => Target::Nothing,
        },
        _ => Target::Nothing,
    }
}

/// The items of a comma list, `\,` kept as a comma and spaces after a comma dropped.
fn comma_items(value: &str) -> Vec<String> {
    let mut items = vec![String::new()];
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&',') => {
                chars.next();
                if let Some(s) = items.last_mut() {
                    s.push(',');
                }
            }
            ',' => {
                items.push(String::new());
                while chars.peek() == Some(&' ') {
                    chars.next();
                }
            }
            c => {
                if let Some(s) = items.last_mut() {
                    s.push(c);
                }
            }
        }
    }
    items
}

/// The file 'shada' names: whatever follows its `n` item (which comes last).
fn shada_name(value: &str) -> Option<String> {
    if let Some(rest) = value.strip_prefix('n') {
        return Some(rest.to_string());
    }
    value.find(",n").map(|i| value[i + 2..].to_string())
}

/// `~` and `$VAR`/`${VAR}` expanded as Neovim does in option values; `None` for what
/// leash cannot expand (`~user`, an unset variable).
fn expand(path: &str) -> Option<String> {
    let mut out = String::new();
    let rest = if let Some(rest) = path.strip_prefix('~') {
        if !(rest.is_empty() || rest.starts_with(['/', '\\'])) {
            return None;
        }
        out.push_str(&std::env::var("HOME").ok()?);
        rest
    } else {
        path
    };
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '$' {
            out.push(c);
            continue;
        }
        let braced = chars.peek() == Some(&'{');
        if braced {
            chars.next();
        }
        let mut name = String::new();
        while let Some(&n) = chars.peek() {
            if n.is_ascii_alphanumeric() || n == '_' {
                name.push(n);
                chars.next();
            } else {
                break;
            }
        }
        if braced && chars.next() != Some('}') {
            return None;
        }
        if name.is_empty() {
            out.push('$');
            continue;
        }
        out.push_str(&std::env::var(&name).ok()?);
    }
    Some(out)
}

/// `path` without `.` components and with `..` applied to what precedes it.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c.as_os_str()),
        }
    }
    out
}

/// `path` with its symbolic links resolved, part by part as the system would when the
/// file is written: a link whose target does not exist yet counts like one whose target
/// does (`notes.txt` → `~/.config/nvim/plugin/notes.lua` writes the target), `..` after
/// a link goes up from the link's target, and parts that do not exist are kept as they
/// are. `None` for a relative path, or one with a loop of links.
pub(super) fn real(path: &Path) -> Option<PathBuf> {
    /// More links than any real path holds (Linux stops at 40).
    const MAX_LINKS: usize = 40;
    if !path.is_absolute() {
        return None;
    }
    let mut out = PathBuf::new();
    let mut pending: Vec<std::ffi::OsString> = path.components().rev().map(|c| c.as_os_str().to_owned()).collect();
    let mut links = 0;
    while let Some(part) = pending.pop() {
        match Path::new(&part).components().next() {
            Some(Component::Prefix(_) | Component::RootDir) => out.push(&part),
            Some(Component::CurDir) | None => {}
            Some(Component::ParentDir) => {
                out.pop();
            }
            Some(Component::Normal(name)) => {
                let next = out.join(name);
                let target = match std::fs::symlink_metadata(&next) {
                    Ok(meta) if meta.file_type().is_symlink() => std::fs::read_link(&next).ok(),
                    _ => None,
                };
                let Some(target) = target else {
                    out = next;
                    continue;
                };
                links += 1;
                if links > MAX_LINKS {
                    return None;
                }
                // The target's parts come next; an absolute one starts again from its root.
                pending.extend(target.components().rev().map(|c| c.as_os_str().to_owned()));
            }
        }
    }
    Some(out)
}

/// A folder for messages, with `~` for the home folder.
pub(super) fn home_relative(dir: &Path) -> String {
    let text = dir.display().to_string();
    match std::env::var("HOME") {
        Ok(home) if !home.is_empty() && text.starts_with(&home) && text[home.len()..].starts_with('/') => {
            format!("~{}", &text[home.len()..])
        }
        _ => text,
    }
}

/// A target for messages: at most 80 characters.
fn shown(path: &str) -> String {
    let mut s: String = path.chars().take(80).collect();
    if path.chars().count() > 80 {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::test_tree::Tree;

    /// `config/plugin`, `project/src` and `project/link -> config`; the code folders are
    /// `config` and `data/site`.
    fn tree() -> Tree {
        let t = Tree::new(&["config/plugin", "project/src"], &["config", "data/site"]);
        #[cfg(unix)]
        std::os::unix::fs::symlink(t.root.join("config"), t.root.join("project/link")).unwrap();
        t
    }

    #[test]
    fn a_path_inside_a_code_folder_is_found_however_it_is_written() {
        let t = tree();
        let d = t.dirs("project");
        let config = t.root.join("config");
        assert_eq!(d.containing(&t.path("config/plugin/x.lua"), None), Some(config.clone()));
        assert_eq!(d.containing(&t.path("config"), None), Some(config.clone()));
        assert_eq!(d.containing(&t.path("config/new/deeper/x.vim"), None), Some(config.clone()), "need not exist");
        assert_eq!(d.containing("../config/plugin/x.lua", None), Some(config.clone()), "relative to cwd");
        assert_eq!(d.containing("src/../../config/x", None), Some(config.clone()), "`..` applied");
        assert!(d.containing(&t.path("data/site/pack/a/start/b/plugin/c.lua"), None).is_some());
        assert_eq!(d.containing("src/main.rs", None), None);
        assert_eq!(d.containing(&t.path("configuration/x"), None), None, "a prefix of a name is not a folder");
        assert_eq!(d.containing(&t.path("project/x"), None), None);
        #[cfg(unix)]
        {
            assert_eq!(d.containing("link/plugin/x.lua", None), Some(config.clone()), "through a symbolic link");
            assert_eq!(
                d.containing("link/plugin/new/x.lua", None),
                Some(config),
                "a link, then names that do not exist"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_link_whose_target_does_not_exist_yet_is_followed_too() {
        use std::os::unix::fs::symlink;
        let t = tree();
        let d = t.dirs("project");
        let config = t.root.join("config");
        // notes.txt -> config/plugin/notes.lua, which does not exist: a write creates it.
        symlink(t.root.join("config/plugin/notes.lua"), t.root.join("project/notes.txt")).unwrap();
        assert_eq!(d.containing("notes.txt", None), Some(config.clone()));
        let (reach, why) = d.command_reach("write", &["notes.txt".into()], None, &[]).expect(":write notes.txt");
        assert_eq!(reach, Reach::Code);
        assert!(why.contains("loads code from"), "{why}");
        assert!(d.command_reach("saveas", &["notes.txt".into()], None, &[]).is_some());
        let current = PathBuf::from(t.path("project/notes.txt"));
        assert!(d.command_reach("write", &[], Some(&current), &[]).is_some(), "the current file");
        // A relative target, a chain of links, and a link to a folder that does not exist.
        symlink("../config/plugin/x.lua", t.root.join("project/rel.txt")).unwrap();
        symlink("rel.txt", t.root.join("project/chain.txt")).unwrap();
        symlink(t.root.join("config/new/deeper"), t.root.join("project/newdir")).unwrap();
        assert_eq!(d.containing("rel.txt", None), Some(config.clone()));
        assert_eq!(d.containing("chain.txt", None), Some(config.clone()));
        assert_eq!(d.containing("newdir/x.lua", None), Some(config.clone()));
        // `..` after a link goes up from its target: project/up/.. is config, not project.
        symlink(t.root.join("config/plugin"), t.root.join("project/up")).unwrap();
        assert_eq!(d.containing("up/../x.lua", None), Some(config));
        // A dangling link that stays in the project, and a loop, are not code folders.
        symlink(t.root.join("project/src/missing.txt"), t.root.join("project/ok.txt")).unwrap();
        assert_eq!(d.containing("ok.txt", None), None);
        symlink("loop2", t.root.join("project/loop1")).unwrap();
        symlink("loop1", t.root.join("project/loop2")).unwrap();
        assert_eq!(d.containing("loop1", None), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_current_file_whose_name_is_not_utf8_is_placed() {
        use std::os::unix::ffi::{OsStrExt, OsStringExt};
        let t = tree();
        let d = t.dirs("project");
        let mut name = t.root.join("config/plugin").into_os_string().into_vec();
        name.extend_from_slice(b"/caf\xe9.lua");
        let file = PathBuf::from(std::ffi::OsStr::from_bytes(&name));
        let (reach, why) = d.command_reach("write", &[], Some(&file), &[]).expect("placed");
        assert_eq!(reach, Reach::Code);
        assert!(why.contains("loads code from"), "{why}");
        let mut outside = t.root.join("project").into_os_string().into_vec();
        outside.extend_from_slice(b"/caf\xe9.txt");
        let outside = PathBuf::from(std::ffi::OsStr::from_bytes(&outside));
        assert!(d.command_reach("write", &[], Some(&outside), &[]).is_none());
    }

    #[test]
    fn home_and_variables_are_expanded() {
        let t = tree();
        let d = t.dirs("project");
        std::env::set_var("LEASH_TEST_CODE_ROOT", t.root.display().to_string());
        assert!(d.containing("$LEASH_TEST_CODE_ROOT/config/plugin/a.lua", None).is_some());
        assert!(d.containing("${LEASH_TEST_CODE_ROOT}/config/a.lua", None).is_some());
        assert!(d.containing("$LEASH_TEST_CODE_ROOT/project/a.lua", None).is_none());
        assert_eq!(expand("~/x"), std::env::var("HOME").ok().map(|h| format!("{h}/x")));
        assert_eq!(expand("~user/x"), None);
        assert_eq!(expand("$LEASH_TEST_UNSET_VARIABLE/x"), None);
        let (reach, why) = d.option_reach("verbosefile", "$LEASH_TEST_UNSET_VARIABLE/log.vim").unwrap();
        assert_eq!(reach, Reach::Code);
        assert!(why.contains("cannot tell"), "{why}");
    }

    #[test]
    fn folder_options_are_checked_entry_by_entry() {
        let t = tree();
        let d = t.dirs("project");
        let plugin = t.path("config/plugin");
        for key in ["backupdir", "directory", "undodir", "viewdir"] {
            let (reach, why) = d.option_reach(key, &format!(".,{plugin}//")).expect(key);
            assert_eq!(reach, Reach::Code);
            assert!(why.contains(&format!("'{key}' writes to")) && why.contains("loads code from"), "{why}");
        }
        assert!(d.option_reach("backupdir", &format!("/tmp, {plugin}")).is_some(), "space after comma");
        assert!(d.option_reach("backupdir", "../config/plugin").is_some(), "relative to cwd");
        assert!(d.option_reach("backupdir", ".,/tmp//,backups").is_none());
        assert!(d.option_reach("backupdir", ".").is_none(), "the file's own folder");
        let (_, why) = d.option_reach("backupdir", "./.config/nvim/plugin").unwrap();
        assert!(why.contains("relative to each written file"), "{why}");
        // An escaped comma is part of a name.
        assert!(d.option_reach("backupdir", &format!("/tmp/a\\,{plugin}")).is_none());
        assert_eq!(comma_items("a\\,b,c, d"), vec!["a,b", "c", "d"]);
    }

    #[test]
    fn file_options_are_checked_by_where_they_point() {
        let t = tree();
        let d = t.dirs("project");
        let log = t.path("config/plugin/log.vim");
        assert!(d.option_reach("verbosefile", &log).is_some());
        assert!(d.option_reach("verbosefile", "/tmp/leash-verbose.log").is_none());
        assert!(d.option_reach("shadafile", &log).is_some());
        assert!(d.option_reach("shadafile", "NONE").is_none());
        assert!(d.option_reach("spellfile", &format!("/tmp/en.utf-8.add,{log}")).is_some());
        assert!(d.option_reach("shada", &format!("'100,<50,n{log}")).is_some());
        assert!(d.option_reach("shada", &format!("n{log}")).is_some());
        assert!(d.option_reach("shada", "'100,<50,s10,h").is_none());
        assert!(d.option_reach("backupext", ".lua").is_none(), "a suffix chooses no folder");
        assert!(d.option_reach("wrap", "true").is_none());
        // A catalog without folders (another editor's) raises nothing.
        assert!(CodeDirs::default().option_reach("verbosefile", &log).is_none());
    }

    #[test]
    fn commands_that_write_a_named_file_are_checked() {
        let t = tree();
        let d = t.dirs("project");
        let a = |s: &str| vec![s.to_string()];
        let target = t.path("config/plugin/notes.lua");
        for name in
            ["write", "saveas", "update", "wq", "xit", "file", "mksession", "mkview", "mkexrc", "wundo", "wshada"]
        {
            let (reach, why) = d.command_reach(name, &a(&target), None, &[]).expect(name);
            assert_eq!(reach, Reach::Code, "{name}");
            assert!(why.starts_with("writes “") && why.contains("loads code from"), "{why}");
            assert!(d.command_reach(name, &a("notes.txt"), None, &[]).is_none(), "{name}");
        }
        assert!(d.command_reach("write", &a(&format!(">> {target}")), None, &[]).is_some());
        assert!(d.command_reach("redir", &a(&format!("> {target}")), None, &[]).is_some());
        assert!(d.command_reach("redir", &a(&format!(">>{target}")), None, &[]).is_some());
        assert!(d.command_reach("redir", &a("@a"), None, &[]).is_none());
        assert!(d.command_reach("profile", &a(&format!("start {target}")), None, &[]).is_some());
        assert!(d.command_reach("mkspell", &a(&format!("-ascii {target} words")), None, &[]).is_some());
        assert!(d.command_reach("mkview", &a("3"), None, &[]).is_none());
        // Without a name: the current file, the changed buffers, a default name in the cwd.
        assert!(d.command_reach("write", &[], None, &[]).is_none(), "unknown at validation");
        let file = PathBuf::from(&target);
        assert!(d.command_reach("write", &[], Some(&file), &[]).is_some());
        assert!(d.command_reach("write", &a(">>"), Some(&file), &[]).is_some());
        let tmp_x = PathBuf::from("/tmp/x");
        assert!(d.command_reach("wall", &[], Some(&tmp_x), &["/tmp/y".into(), file.clone()]).is_some());
        assert!(d.command_reach("wall", &[], None, &["/tmp/y".into()]).is_none());
        let in_config = CodeDirs::new(Some(&t.path("config")), &[t.path("config")]);
        assert!(in_config.command_reach("mksession", &[], None, &[]).is_some(), "Session.vim in the cwd");
        assert!(d.command_reach("mksession", &[], None, &[]).is_none());
        assert!(d.command_reach("edit", &a(&target), None, &[]).is_none(), "reading writes nothing");
    }

    #[test]
    fn git_folders_and_exrc_files_run_code_wherever_they_are() {
        let t = tree();
        let d = t.dirs("project");
        let a = |s: &str| vec![s.to_string()];
        for target in [".git/hooks/pre-commit", ".git/config", "src/../.git/info/x", "sub/.git/config"] {
            let (reach, why) = d.command_reach("write", &a(target), None, &[]).expect(target);
            assert_eq!(reach, Reach::Code);
            assert!(why.contains(".git folder") && why.contains("Git runs"), "{why}");
        }
        for target in [".nvim.lua", "src/.exrc", ".nvimrc"] {
            let (_, why) = d.command_reach("write", &a(target), None, &[]).expect(target);
            assert!(why.contains("'exrc'"), "{why}");
        }
        assert!(d.command_reach("write", &a(".gitignore"), None, &[]).is_none());
        assert!(d.command_reach("write", &a("src/git/config"), None, &[]).is_none());
        assert!(d.command_reach("write", &a("notes.nvim.lua.txt"), None, &[]).is_none());
        assert!(d.option_reach("backupdir", ".git//").is_some(), "a folder option too");
    }

    #[test]
    fn a_later_current_directory_moves_relative_targets() {
        let t = tree();
        let d = t.dirs("project");
        let a = |s: &str| vec![s.to_string()];
        assert!(d.command_reach("write", &a("plugin/x.lua"), None, &[]).is_none(), "project/plugin");
        let moved = d.with_cwd(&t.path("config"));
        assert!(moved.command_reach("write", &a("plugin/x.lua"), None, &[]).is_some(), "after :cd config");
        assert!(moved.option_reach("backupdir", "plugin//").is_some());
        assert_eq!(d.with_cwd(""), d, "no directory given keeps the catalog's");
    }

    #[test]
    fn a_step_about_to_run_is_checked_with_what_the_editor_says_now() {
        let t = tree();
        let d = t.dirs("project");
        let write = |args: &[&str]| PendingStep::Item {
            id: "cmd:write".into(),
            args: args.iter().map(|a| a.to_string()).collect(),
        };
        let none = RunState::default();
        assert_eq!(d.write_landing(&write(&["notes.txt"]), &none), None);
        let why = d.write_landing(&write(&["../config/plugin/x.lua"]), &none).unwrap();
        assert!(why.starts_with("writes “") && why.contains("loads code from"), "{why}");
        // Without a name: the current file, where the editor has one ("" is none).
        assert_eq!(d.write_landing(&write(&[]), &none), None);
        let in_config = RunState { file: Some(t.path("config/x.lua").into()), ..RunState::default() };
        assert!(d.write_landing(&write(&[]), &in_config).is_some());
        let unnamed = RunState { file: Some(PathBuf::new()), ..RunState::default() };
        let in_config_cwd = d.with_cwd(&t.path("config"));
        assert_eq!(in_config_cwd.write_landing(&write(&[]), &unnamed), None, "not the current directory");
        let changed = RunState {
            modified: vec![t.path("project/a").into(), t.path("config/b.vim").into()],
            ..RunState::default()
        };
        let wall = PendingStep::Item { id: "cmd:wall".into(), args: vec![] };
        assert!(d.write_landing(&wall, &changed).unwrap().contains("config/b.vim"));
        // A setting: only a text value names a path.
        let verbose =
            |value: Option<&str>| PendingStep::Setting { key: "verbosefile".into(), value: value.map(str::to_string) };
        assert!(d.write_landing(&verbose(Some("../config/v.vim")), &none).unwrap().contains("'verbosefile'"));
        assert_eq!(d.write_landing(&verbose(None), &none), None);
        assert_eq!(d.write_landing(&PendingStep::Other, &none), None);
        // The plan's earlier settings count, from the directory of now, after the
        // step's own reason.
        let later = d.with_cwd(&t.root.display().to_string());
        let backup = RunState {
            settings: vec![("wrap".into(), None), ("backupdir".into(), Some("config/plugin//".into()))],
            ..RunState::default()
        };
        assert!(later.write_landing(&write(&["notes.txt"]), &backup).unwrap().contains("'backupdir'"));
        assert!(later.write_landing(&PendingStep::Other, &backup).is_some());
        assert_eq!(later.write_landing(&write(&["notes.txt"]), &none), None);
        let own = later.write_landing(&write(&["config/plugin/x.lua"]), &backup).unwrap();
        assert!(own.starts_with("writes “"), "the step's own write first: {own}");
        // No folders known (another editor's catalog): nothing to find.
        assert_eq!(CodeDirs::default().write_landing(&write(&["/x/plugin/a.lua"]), &none), None);
    }

    #[test]
    fn renames_land_where_the_new_name_says() {
        let t = tree();
        let d = t.dirs("project");
        assert!(d.rename_reach("../config/plugin/x.lua", None).is_some());
        assert!(d.rename_reach("src/x.lua", None).is_none());
        assert!(d.rename_reach("x.lua", Some(Path::new(&t.path("config/plugin/x.txt")))).is_some());
        assert!(d.rename_reach("x.lua", Some(Path::new(&t.path("project/x.txt")))).is_none());
        assert!(d.rename_reach("x.lua", None).is_none(), "a bare name is placed at run time");
    }
}
