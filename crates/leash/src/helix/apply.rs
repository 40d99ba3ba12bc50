//! How each step of a validated plan runs from Helix.
//!
//! - Settings are written to Helix's config.toml (see [`super::config_toml`]) and Helix
//!   reloads it (`:config-reload`).
//! - Typable commands (`cmd:…`, and the file items that map to one: `:open`, `:move`,
//!   `:buffer-close!`) are handed back to Helix as command lines, and static commands
//!   (`static:…`) as their keys (see [`super::statics`]); the key binding's macro
//!   replays them in plan order after the dialog closes.
//! - Everything that runs a program (terminal steps, `term:run`, scripts, Git, the
//!   user's entries) runs on the terminal, after `y`, with its whole command shown first
//!   and its output left on screen until a key is pressed: inside the dialog, or, when
//!   the plan puts it after a Helix command, after Helix ran that command (the macro
//!   starts `leash helix resume`), so "save, then run the tests" runs in that order.
//!
//! Every step is turned into its action before the plan is shown, so what the dialog
//! shows is exactly what runs; a step that cannot run from Helix is listed as dropped
//! with the reason.

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::commandline::{typable_line, CommandLineError};
use super::config_toml::Workspace;
use super::context::HelixContext;
use super::statics::{self, KeyError, UserKeys, Waits};
use crate::config_file::ProgramConfig;
use leash_core::confirm;
use leash_core::entry::{Args, SettingValue};
use leash_core::item_id::{ItemId, ItemKind, TERM_RUN};
use leash_core::plan::Scope;
use leash_core::project::{git, Discovered};
use leash_core::refusal::{HelixRule, Refusal};
use leash_core::validate::{Action as Step, Dropped, ValidStep, ValidatedPlan};

/// What leash or Helix does for one step.
#[derive(Debug, Clone, PartialEq)]
pub enum HelixAction {
    /// Written to config.toml.
    Setting { key: String, value: SettingValue },
    /// Typed into Helix's command line after the dialog (without the `:`).
    Command { line: String },
    /// A static command, run by typing its key (macro text) after the dialog. One that
    /// `waits` (a picker, a prompt) takes every key after it.
    Keys { name: String, keys: String, waits: bool },
    /// Run on the terminal by leash.
    Program { argv: Vec<String>, cwd: PathBuf, shown: String, env: Vec<(String, String)> },
    /// A file removed by leash, then its buffer closed by Helix.
    Delete { path: PathBuf },
    /// A program started in the background (the system's file manager).
    Detached { argv: Vec<String> },
}

/// A step and how it runs.
#[derive(Debug, Clone)]
pub struct HelixStep {
    pub step: ValidStep,
    pub action: HelixAction,
    /// A program that runs after Helix ran the commands the plan puts before it.
    pub after_helix: bool,
}

impl HelixStep {
    /// Whether Helix runs this step (after the dialog), rather than leash.
    pub fn in_helix(&self) -> bool {
        matches!(self.action, HelixAction::Command { .. } | HelixAction::Keys { .. })
    }

    /// Whether leash runs this step outside Helix: a program, a file delete, a program
    /// in the background.
    pub fn runs_outside(&self) -> bool {
        matches!(self.action, HelixAction::Program { .. } | HelixAction::Delete { .. } | HelixAction::Detached { .. })
    }

    /// Whether the step carries a mark (`[write]`, `[code]`, `[shell]`) and so needs the
    /// user's answer: the core's rule ([`confirm::step_is_marked`]).
    pub fn is_marked(&self) -> bool {
        confirm::step_is_marked(self.step.reach, self.runs_outside())
    }
}

/// A validated plan in Helix's terms.
#[derive(Debug, Clone)]
pub struct HelixPlan {
    pub reply: String,
    pub steps: Vec<HelixStep>,
    pub dropped: Vec<Dropped>,
    /// Whether the plan may skip the dialog's question (see `confirm_before_run`).
    pub may_skip_confirmation: bool,
}

/// What the editor state and the project give the actions.
pub struct Env<'a> {
    pub cwd: &'a Path,
    pub context: &'a HelixContext,
    pub discovered: &'a Discovered,
    pub config: &'a ProgramConfig,
    /// The project's `.helix/config.toml`, which wins over the user's.
    pub workspace: &'a Workspace,
    /// The user's key bindings, which decide the keys of static commands.
    pub keys: &'a UserKeys,
}

impl HelixPlan {
    /// Turns every validated step into its action; a step with none is dropped.
    pub fn new(plan: &ValidatedPlan, env: &Env<'_>) -> HelixPlan {
        let mut steps = Vec::new();
        let mut dropped = plan.dropped.clone();
        for s in &plan.steps {
            match action_for(s, env) {
                Ok(action) => {
                    let mut step = s.clone();
                    // The user's configuration decides what a yank or a paste reaches.
                    if let HelixAction::Keys { name, .. } = &action {
                        if let Some(note) = env.keys.clipboard_note(name) {
                            step.reach = step.reach.max(leash_core::reach::Reach::Shell);
                            step.note = Some(note);
                        }
                    }
                    steps.push(HelixStep { step, action, after_helix: false })
                }
                Err(reason) => {
                    dropped.push(Dropped { index: s.index, refusal: Refusal::CannotRunHere(reason.to_string()) })
                }
            }
        }
        let steps = in_order(steps, &mut dropped);
        dropped.sort_by_key(|d| d.index);
        HelixPlan {
            reply: plan.reply.clone(),
            may_skip_confirmation: confirm::may_run_unseen(
                env.config.core.confirm_before_run,
                plan.confirm,
                steps.iter().map(HelixStep::is_marked),
            ),
            steps,
            dropped,
        }
    }

    pub fn settings(&self) -> impl Iterator<Item = (&str, &SettingValue)> {
        self.steps.iter().filter_map(|s| match &s.action {
            HelixAction::Setting { key, value } => Some((key.as_str(), value)),
            _ => None,
        })
    }
}

/// Keeps the steps that can run in the plan's order. Leash writes settings and runs
/// programs in the dialog, Helix then runs its commands, and the programs the plan puts
/// after a Helix command run after all of Helix's commands. So a Helix command after
/// such a program, or a file deletion after a Helix command, cannot keep its place and
/// is dropped; so is a static command that waits for the user anywhere but last.
fn in_order(steps: Vec<HelixStep>, dropped: &mut Vec<Dropped>) -> Vec<HelixStep> {
    let last = steps.len().saturating_sub(1);
    let mut kept = Vec::new();
    let mut helix_before = false;
    let mut programs_after = false;
    for (i, mut s) in steps.into_iter().enumerate() {
        let refused = match &s.action {
            HelixAction::Keys { waits: true, .. } if i != last => Some(
                "it waits for you (a picker, a prompt or insert mode) and would take the keys of the steps after it; only a plan's last step may"
                    .to_string(),
            ),
            HelixAction::Command { .. } | HelixAction::Keys { .. } if programs_after => Some(
                "Helix runs its commands before the programs that follow them in a plan, so it cannot come after one; ask for it on its own"
                    .to_string(),
            ),
            HelixAction::Delete { .. } if helix_before => Some(
                "leash deletes files before Helix runs its commands, so a deletion cannot follow a Helix command; ask for it on its own"
                    .to_string(),
            ),
            _ => None,
        };
        if let Some(reason) = refused {
            dropped.push(Dropped { index: s.step.index, refusal: Refusal::CannotRunHere(reason) });
            continue;
        }
        match s.action {
            HelixAction::Command { .. } | HelixAction::Keys { .. } => helix_before = true,
            HelixAction::Program { .. } | HelixAction::Detached { .. } if helix_before => {
                s.after_helix = true;
                programs_after = true;
            }
            _ => {}
        }
        kept.push(s);
    }
    kept
}

/// Why a validated step has no action in Helix (the reason of its `cannot_run_here`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApplyError {
    /// A buffer-local setting: Helix has only global ones.
    #[error("Helix settings are not per buffer: “{key}” would change for every buffer")]
    PerBuffer { key: String },
    /// The project's `.helix/config.toml` sets the key (the text says how).
    #[error("{0}")]
    Overridden(String),
    /// The command line cannot be written so Helix reads it as given.
    #[error(transparent)]
    CommandLine(#[from] CommandLineError),
    /// A static command leash does not offer.
    #[error("leash does not run Helix's {0}")]
    NotOffered(String),
    /// A static command Helix does not have.
    #[error("Helix has no {0}")]
    NoStatic(String),
    /// Arguments given to a static command or a script that takes none.
    #[error("{0} takes no arguments")]
    TakesNoArgs(String),
    /// No key of the user's keymap runs the static command.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// The script left the project since the catalog was made.
    #[error("this script is no longer in the project")]
    ScriptGone,
    /// The entry left the configuration since the catalog was made.
    #[error("this entry is no longer configured")]
    EntryGone,
    /// A Git step outside any Git work tree.
    #[error("not inside a Git work tree")]
    NotInGit,
    /// The Git step's arguments do not make a git command line.
    #[error(transparent)]
    Git(#[from] leash_core::project::git::GitError),
    /// An item id with no action in Helix.
    #[error("leash cannot run “{0}” from Helix")]
    CannotRun(String),
    /// A file step without exactly one path.
    #[error("exactly one path is needed")]
    OnePath,
    /// A file step while the current buffer is no file.
    #[error("the current buffer is not a file")]
    NotAFile,
    /// A delete of a path that is no file on disk.
    #[error("{} is not a file on disk", .0.display())]
    NotOnDisk(PathBuf),
    /// An empty path.
    #[error("the path is empty")]
    EmptyPath,
    /// A path starting with `-`, `+` or `!`, which reads as something else.
    #[error("the path {arg:?} starts with {start:?}")]
    PathStart { arg: String, start: String },
    /// A URL where a path should be.
    #[error("{0:?} is a URL, not a path")]
    Url(String),
    /// A file name Helix's command line would expand.
    #[error(transparent)]
    Rule(#[from] HelixRule),
    /// A path with `:`, which Helix reads as a line number.
    #[error("{0:?} holds “:”, which Helix reads as a line number")]
    LineNumber(String),
    /// A path outside the working directory.
    #[error("{arg:?} is outside the working directory {}", .root.display())]
    Outside { arg: String, root: PathBuf },
}

fn action_for(s: &ValidStep, env: &Env<'_>) -> Result<HelixAction, ApplyError> {
    match &s.action {
        Step::Setting { key, value, scope } => {
            if *scope == Some(Scope::Local) {
                return Err(ApplyError::PerBuffer { key: key.clone() });
            }
            if let Some(why) = env.workspace.overrides(key) {
                return Err(ApplyError::Overridden(why));
            }
            Ok(HelixAction::Setting { key: key.clone(), value: value.clone() })
        }
        Step::Terminal { command } => Ok(shell_line(command, env)),
        Step::Item { id, args } => item_action(id, args, env),
    }
}

fn shell_line(command: &str, env: &Env<'_>) -> HelixAction {
    HelixAction::Program {
        argv: vec!["sh".into(), "-c".into(), command.to_string()],
        cwd: env.cwd.to_path_buf(),
        shown: command.to_string(),
        env: Vec::new(),
    }
}

/// A step's arguments as argv words: one string or a list, split on white space (no
/// shell sees them).
fn words(args: &[String]) -> Vec<String> {
    args.iter().flat_map(|a| a.split_whitespace().map(str::to_string)).collect()
}

fn shown(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            if a.is_empty() || a.chars().any(|c| c.is_whitespace() || "'\"\\$`;&|<>(){}*?!#~".contains(c)) {
                format!("'{}'", a.replace('\'', r"'\''"))
            } else {
                a.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn program(argv: Vec<String>, cwd: PathBuf, env: Vec<(String, String)>) -> HelixAction {
    let shown = shown(&argv);
    HelixAction::Program { argv, cwd, shown, env }
}

fn item_action(id: &str, args: &[String], env: &Env<'_>) -> Result<HelixAction, ApplyError> {
    let cannot_run = || ApplyError::CannotRun(id.to_string());
    let parsed = ItemId::parse(id).ok_or_else(cannot_run)?;
    let name = parsed.name;
    match parsed.kind {
        ItemKind::Command => Ok(HelixAction::Command { line: typable_line(name, args)? }),
        ItemKind::Static => {
            let waits = statics::offered(name).ok_or_else(|| ApplyError::NotOffered(name.to_string()))?;
            let cmd = leash_core::profile::helix::static_command(name)
                .ok_or_else(|| ApplyError::NoStatic(name.to_string()))?;
            if !args.is_empty() {
                return Err(ApplyError::TakesNoArgs(name.to_string()));
            }
            let keys = env.keys.key_for(cmd)?;
            Ok(HelixAction::Keys { name: name.to_string(), keys, waits: waits == Waits::Yes })
        }
        ItemKind::Terminal if parsed == TERM_RUN => Ok(shell_line(&args.join(" "), env)),
        ItemKind::Script => {
            let item = env.discovered.scripts.iter().find(|i| i.id == id).ok_or(ApplyError::ScriptGone)?;
            let mut argv = item.cmd.clone().unwrap_or_default();
            let extra = words(args);
            if !extra.is_empty() && item.args == Args::None {
                return Err(ApplyError::TakesNoArgs(id.to_string()));
            }
            argv.extend(extra);
            let cwd = item.cwd.as_deref().map_or_else(|| env.cwd.to_path_buf(), PathBuf::from);
            Ok(program(argv, cwd, Vec::new()))
        }
        ItemKind::Entry => {
            let u = env.config.entries.iter().find(|u| u.id == name).ok_or(ApplyError::EntryGone)?;
            let mut argv = u.cmd.clone();
            argv.extend(words(args));
            let cwd = u.cwd.as_deref().map_or_else(|| env.cwd.to_path_buf(), |c| env.cwd.join(c));
            Ok(program(argv, cwd, Vec::new()))
        }
        ItemKind::Git => {
            let file = current_file(env);
            let start = file.as_deref().and_then(Path::parent).unwrap_or(env.cwd);
            let root = git::root(start).ok_or(ApplyError::NotInGit)?;
            let cx = git::StepContext { file: file.as_deref(), line: env.context.cursor_line, args };
            let mut argv = git::argv(name, &root, &cx).map_err(ApplyError::Git)?;
            argv = if git::is_read_only(name) { git::quiet(argv) } else { [vec!["git".to_string()], argv].concat() };
            let env_vars = [("GIT_PAGER", "cat"), ("PAGER", "cat"), ("GIT_TERMINAL_PROMPT", "0")]
                .map(|(k, v)| (k.into(), v.into()));
            Ok(program(argv, root, env_vars.to_vec()))
        }
        ItemKind::File => file_action(parsed, args, env),
        ItemKind::Terminal | ItemKind::User | ItemKind::Keymap | ItemKind::Lsp | ItemKind::Diagnostic => {
            Err(cannot_run())
        }
    }
}

/// The current file, absolute, when Helix said which it is.
fn current_file(env: &Env<'_>) -> Option<PathBuf> {
    env.context.file.as_deref().map(|f| leash_core::project::absolute(env.cwd, f))
}

/// A `file:` item's action.
fn file_action(id: ItemId<'_>, args: &[String], env: &Env<'_>) -> Result<HelixAction, ApplyError> {
    let arg = || -> Result<&str, ApplyError> {
        match args {
            [a] => Ok(a.as_str()),
            _ => Err(ApplyError::OnePath),
        }
    };
    match id.name {
        "new" => {
            let path = checked_path(arg()?, env.cwd, env.cwd)?;
            Ok(HelixAction::Command { line: typable_line("open", &[relative(&path, env.cwd)])? })
        }
        "rename" => {
            let file = current_file(env).ok_or(ApplyError::NotAFile)?;
            let name = arg()?;
            // A bare name stays in the file's folder.
            let base =
                if name.contains('/') { env.cwd.to_path_buf() } else { file.parent().unwrap_or(env.cwd).to_path_buf() };
            let target = checked_path(name, &base, env.cwd)?;
            Ok(HelixAction::Command { line: typable_line("move", &[relative(&target, env.cwd)])? })
        }
        "delete" => {
            let file = current_file(env).ok_or(ApplyError::NotAFile)?;
            let path = checked_path(&file.to_string_lossy(), env.cwd, env.cwd)?;
            if !path.is_file() {
                return Err(ApplyError::NotOnDisk(path));
            }
            Ok(HelixAction::Delete { path })
        }
        "open_folder" => {
            let file = current_file(env).ok_or(ApplyError::NotAFile)?;
            let dir = file.parent().unwrap_or(env.cwd).to_string_lossy().into_owned();
            let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
            Ok(HelixAction::Detached { argv: vec![opener.into(), dir] })
        }
        _ => Err(ApplyError::CannotRun(id.to_string())),
    }
}

fn relative(path: &Path, cwd: &Path) -> String {
    path.strip_prefix(cwd).unwrap_or(path).to_string_lossy().into_owned()
}

/// A path from the model, resolved against `base`, that must stay inside `root` and must
/// not read as anything but a file name to Helix.
fn checked_path(arg: &str, base: &Path, root: &Path) -> Result<PathBuf, ApplyError> {
    if arg.is_empty() {
        return Err(ApplyError::EmptyPath);
    }
    if arg.starts_with(['-', '+', '!']) {
        return Err(ApplyError::PathStart { arg: arg.to_string(), start: arg[..1].to_string() });
    }
    if arg.contains("://") {
        return Err(ApplyError::Url(arg.to_string()));
    }
    leash_core::profile::helix::check_file_name(arg)?;
    if arg.contains(':') && !cfg!(windows) {
        // `:open a.txt:10` means line 10 of a.txt.
        return Err(ApplyError::LineNumber(arg.to_string()));
    }
    let mut out = PathBuf::new();
    for c in base.join(arg).components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    if !out.starts_with(root) {
        return Err(ApplyError::Outside { arg: arg.to_string(), root: root.to_path_buf() });
    }
    Ok(out)
}

/// What Helix types for one step after the dialog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Typed {
    /// A command line, without the `:`.
    Line(String),
    /// A static command's key, as macro text.
    Keys(String),
}

/// What the key binding's macro runs in Helix after the dialog.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HandOff {
    /// The plan's Helix steps, in order.
    pub typed: Vec<Typed>,
    /// config.toml changed: reload it.
    pub reload: bool,
    /// The last step waits for the user (a picker, a prompt): nothing is typed after it.
    pub waits: bool,
    /// The command line that runs the programs the plan puts after Helix's commands
    /// (`leash helix resume`), without the `:`.
    pub resume: Option<String>,
    /// A fixed status message (never model text: `:echo` expands `%`).
    pub status: String,
}

impl HandOff {
    /// The macro Helix replays: the reload first (Helix queues it until the macro's
    /// commands ran, so no command of the plan may depend on it), the plan's steps, then
    /// the programs after them. leash's own status message comes only when Helix runs
    /// nothing after it: a status set before Helix's commands would hide nothing, and one
    /// set after them would hide what Helix said about them (`:format` without a
    /// formatter). Command lines are typed through leash's own key (see
    /// [`super::keys::helper`]), never through a `:` the user may have rebound.
    pub fn to_macro(&self) -> String {
        let line = |l: &str| super::keys::command_line(l);
        let echo = line(&format!("echo {}", self.status));
        let mut out = String::new();
        if self.reload {
            out.push_str(&line("config-reload"));
        }
        if self.waits || (self.typed.is_empty() && self.resume.is_none()) {
            out.push_str(&echo);
        }
        for t in &self.typed {
            match t {
                Typed::Line(l) => out.push_str(&line(l)),
                Typed::Keys(k) => out.push_str(k),
            }
        }
        if let Some(r) = &self.resume {
            // Helix saves files in its event loop, after the macro, and `%sh{…}`
            // blocks that loop: closing a buffer first is what makes Helix finish
            // every pending write (`:buffer-close` flushes them), so a program after
            // `:write` sees the saved file.
            out.push_str(&line("new"));
            out.push_str(&line("buffer-close!"));
            out.push_str(&line(r));
            out.push_str(&line("redraw"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use leash_core::reach::Reach;

    fn env_with<'a>(cwd: &'a Path, context: &'a HelixContext, d: &'a Discovered, c: &'a ProgramConfig) -> Env<'a> {
        static NO_KEYS: std::sync::OnceLock<UserKeys> = std::sync::OnceLock::new();
        Env {
            cwd,
            context,
            discovered: d,
            config: c,
            workspace: &Workspace::None,
            keys: NO_KEYS.get_or_init(UserKeys::default),
        }
    }

    #[test]
    fn paths_stay_in_the_working_directory_and_read_as_paths() {
        let root = Path::new("/proj");
        assert_eq!(checked_path("src/new.rs", root, root).unwrap(), PathBuf::from("/proj/src/new.rs"));
        assert!(checked_path("../etc/passwd", root, root).is_err());
        assert!(checked_path("/etc/passwd", root, root).is_err());
        assert!(checked_path("a.txt:10", root, root).is_err());
        assert!(checked_path("-rf", root, root).is_err());
        assert!(checked_path("http://x/y", root, root).is_err());
        assert!(checked_path("%sh{touch M}", root, root).unwrap_err().to_string().contains("expands"));
    }

    #[test]
    fn steps_become_actions() {
        let cwd = Path::new("/proj");
        let cx = HelixContext { file: Some("src/main.rs".into()), cursor_line: Some(3), ..HelixContext::default() };
        let d = Discovered::default();
        let cfg = ProgramConfig::default();
        let env = env_with(cwd, &cx, &d, &cfg);
        let item =
            |id: &str, args: &[&str]| item_action(id, &args.iter().map(|s| s.to_string()).collect::<Vec<_>>(), &env);
        assert_eq!(item("cmd:vsplit", &[]).unwrap(), HelixAction::Command { line: "vsplit".into() });
        assert_eq!(item("file:rename", &["lib.rs"]).unwrap(), HelixAction::Command { line: "move src/lib.rs".into() });
        assert_eq!(
            item("file:new", &["notes/a b.md"]).unwrap(),
            HelixAction::Command { line: "open 'notes/a b.md'".into() }
        );
        match item("term:run", &["echo hi; ls"]).unwrap() {
            HelixAction::Program { argv, shown, .. } => {
                assert_eq!(argv, ["sh", "-c", "echo hi; ls"]);
                assert_eq!(shown, "echo hi; ls");
            }
            other => panic!("{other:?}"),
        }
        assert!(item("lsp:rename", &[]).is_err());
        assert!(item("script:make:x", &[]).is_err());
    }

    #[test]
    fn local_settings_cannot_run_in_helix() {
        let step = ValidStep {
            index: 0,
            action: Step::Setting {
                key: "line-number".into(),
                value: SettingValue::String("relative".into()),
                scope: Some(Scope::Local),
            },
            why: String::new(),
            reach: Reach::Safe,
            label: String::new(),
            note: None,
            mark_reason: None,
            range: None,
        };
        let cwd = Path::new("/proj");
        let cx = HelixContext::default();
        let d = Discovered::default();
        let cfg = ProgramConfig::default();
        assert!(action_for(&step, &env_with(cwd, &cx, &d, &cfg)).unwrap_err().to_string().contains("not per buffer"));
    }

    #[test]
    fn settings_the_project_overrides_are_dropped() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        std::fs::create_dir_all(dir.join(".helix")).unwrap();
        std::fs::write(dir.join(".helix/config.toml"), "[editor]\nline-number = \"absolute\"\n").unwrap();
        let workspace = Workspace::find(dir);
        let setting = |key: &str| ValidStep {
            index: 0,
            action: Step::Setting { key: key.into(), value: SettingValue::Boolean(true), scope: None },
            why: String::new(),
            reach: Reach::Safe,
            label: String::new(),
            note: None,
            mark_reason: None,
            range: None,
        };
        let cx = HelixContext::default();
        let d = Discovered::default();
        let cfg = ProgramConfig::default();
        let keys = UserKeys::default();
        let env = Env { cwd: dir, context: &cx, discovered: &d, config: &cfg, workspace: &workspace, keys: &keys };
        let why = action_for(&setting("line-number"), &env).unwrap_err().to_string();
        assert!(why.contains("sets line-number = \"absolute\", which wins over your config.toml"), "{why}");
        assert!(action_for(&setting("cursorline"), &env).is_ok());
    }

    #[test]
    fn the_hand_off_reloads_first_and_leaves_helixs_last_word() {
        let c = super::super::keys::helper("command_mode");
        let mut h = HandOff {
            typed: vec![Typed::Line("vsplit".into()), Typed::Keys("<C-c>".into()), Typed::Line("format".into())],
            reload: true,
            status: "leash: done".into(),
            ..HandOff::default()
        };
        // Nothing after Helix's last command: its error (or message) stays on the status line.
        assert_eq!(h.to_macro(), format!("{c}config-reload<ret>{c}vsplit<ret><C-c>{c}format<ret>"));
        let m = h.to_macro();
        assert!(
            !m.starts_with(':') && !m.contains("<ret>:") && !m.contains("<C-c>:"),
            "a bare : is the user's key: {m}"
        );
        h.typed = vec![Typed::Line("echo a<b>".into())];
        h.resume = Some("noop %sh{leash helix resume}".into());
        assert!(h.to_macro().ends_with(&format!(
            "{c}echo a<lt>b<gt><ret>{c}new<ret>{c}buffer-close!<ret>{c}noop %sh{{leash helix resume}}<ret>{c}redraw<ret>"
        )));
        // No Helix command: leash's status is the last word.
        let settings_only = HandOff { reload: true, status: "leash: done".into(), ..HandOff::default() };
        assert_eq!(settings_only.to_macro(), format!("{c}config-reload<ret>{c}echo leash: done<ret>"));
        let picker = HandOff {
            typed: vec![Typed::Keys("<space>f".into())],
            waits: true,
            status: "leash: done".into(),
            ..HandOff::default()
        };
        assert_eq!(picker.to_macro(), format!("{c}echo leash: done<ret><space>f"), "nothing is typed into the picker");
    }

    #[test]
    fn steps_keep_the_plans_order_or_are_dropped() {
        let step = |index: usize, action: HelixAction| HelixStep {
            step: ValidStep {
                index,
                action: Step::Terminal { command: String::new() },
                why: String::new(),
                reach: Reach::Safe,
                label: String::new(),
                note: None,
                mark_reason: None,
                range: None,
            },
            action,
            after_helix: false,
        };
        let program =
            || HelixAction::Program { argv: vec!["make".into()], cwd: "/".into(), shown: "make".into(), env: vec![] };
        let write = || HelixAction::Command { line: "write".into() };
        let picker = || HelixAction::Keys { name: "file_picker".into(), keys: "<space>f".into(), waits: true };
        let mut dropped = Vec::new();
        // Save, then run the tests: the tests run after Helix saved.
        let kept = in_order(vec![step(0, program()), step(1, write()), step(2, program())], &mut dropped);
        assert_eq!(kept.iter().map(|s| s.after_helix).collect::<Vec<_>>(), [false, false, true]);
        assert!(dropped.is_empty());
        // A Helix command after such a program, a deletion after a Helix command, a picker
        // that is not last: dropped with the reason.
        let kept = in_order(
            vec![
                step(0, picker()),
                step(1, write()),
                step(2, HelixAction::Delete { path: "/x".into() }),
                step(3, program()),
                step(4, write()),
            ],
            &mut dropped,
        );
        assert_eq!(kept.iter().map(|s| s.step.index).collect::<Vec<_>>(), [1, 3]);
        let reasons: Vec<_> = dropped.iter().map(|d| (d.index, d.refusal.to_string())).collect();
        assert!(reasons[0].0 == 0 && reasons[0].1.contains("only a plan's last step"), "{reasons:?}");
        assert!(reasons[1].0 == 2 && reasons[1].1.contains("deletion cannot follow"), "{reasons:?}");
        assert!(reasons[2].0 == 4 && reasons[2].1.contains("cannot come after one"), "{reasons:?}");
        let mut dropped = Vec::new();
        assert_eq!(in_order(vec![step(0, write()), step(1, picker())], &mut dropped).len(), 2, "a picker may be last");
    }
}
