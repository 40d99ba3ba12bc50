//! Git, id `git:<action>`: offered only inside a Git work tree, found by looking for
//! `.git` upward (a folder, or the file a worktree or submodule has). Finding it runs no
//! program.
//!
//! Reach: every Git item is `shell`, the read-only ones included. Running git is running
//! a program, and a repository's own `.git/config` can name further programs that even
//! `git status` or `git log` start: `core.fsmonitor` (a hook run on every index refresh),
//! filter drivers (`filter.<name>.clean`), `gpg.program` through `log.showSignature`,
//! pagers, `diff.external` and textconv drivers. A checkout is untrusted input, so the
//! plan must show these steps. The read-only actions still run with every override the
//! command line can name ([`quiet`]); filter drivers cannot be switched off that way,
//! which is why they stay `shell`. A commit message or branch name is one argv element,
//! never shell text.

use std::path::{Path, PathBuf};

use super::SourceItem;
use crate::entry::Args;
use crate::item_id::ItemId;
use crate::reach::Reach;

/// The work tree root for a folder: the nearest one at or above it holding `.git`.
pub fn root(start: &Path) -> Option<PathBuf> {
    super::root_with(start, &[".git"])
}

struct Action {
    name: &'static str,
    title: &'static str,
    args: Args,
    aliases: &'static [&'static str],
    description: &'static str,
}

const ACTIONS: &[Action] = &[
    Action {
        name: "status",
        title: "git status: show changed files",
        args: Args::None,
        aliases: &["what changed", "modified files", "working tree status"],
        description: "Shows the working tree status (git status).",
    },
    Action {
        name: "diff",
        title: "git diff: show the changes in the repository",
        args: Args::None,
        aliases: &["what changed", "show me what changed", "unstaged changes"],
        description: "Shows every unstaged change in the repository (git diff).",
    },
    Action {
        name: "diff_file",
        title: "git diff of the current file",
        args: Args::None,
        aliases: &["changes in this file", "what changed in this file"],
        description: "Shows the unstaged changes of the current file (git diff -- file).",
    },
    Action {
        name: "log_file",
        title: "git log of the current file: its history",
        args: Args::None,
        aliases: &["file history", "commits touching this file"],
        description: "Shows the commit history of the current file (git log --follow).",
    },
    Action {
        name: "blame_line",
        title: "git blame of the current line: who changed it",
        args: Args::None,
        aliases: &["who wrote this line", "last commit of this line"],
        description: "Shows which commit last changed the line under the cursor (git blame -L) and that commit.",
    },
    Action {
        name: "stage_file",
        title: "git add the current file: stage it",
        args: Args::None,
        aliases: &["stage this file", "add file to index"],
        description: "Stages the current file (git add -- file).",
    },
    Action {
        name: "stage_all",
        title: "git add -A: stage all changes",
        args: Args::None,
        aliases: &["stage everything", "add all"],
        description: "Stages every change in the work tree, new files included (git add -A).",
    },
    Action {
        name: "commit",
        title: "git commit -m MESSAGE: commit the staged changes",
        args: Args::Required,
        aliases: &["commit changes", "commit everything", "save a commit"],
        description: "Commits what is staged with the given message (the argument). Stage first to commit everything.",
    },
    Action {
        name: "pull",
        title: "git pull: fetch and merge from the remote",
        args: Args::None,
        aliases: &["update from remote"],
        description: "Runs git pull.",
    },
    Action {
        name: "push",
        title: "git push: upload commits to the remote",
        args: Args::None,
        aliases: &["publish commits"],
        description: "Runs git push.",
    },
    Action {
        name: "switch",
        title: "git switch BRANCH: switch to another branch",
        args: Args::Required,
        aliases: &["checkout branch", "change branch"],
        description: "Switches the work tree to an existing branch (the argument).",
    },
    Action {
        name: "branch_create",
        title: "git switch -c NAME: create a new branch",
        args: Args::Required,
        aliases: &["new branch", "make a branch"],
        description: "Creates a branch with the given name from HEAD and switches to it.",
    },
    Action {
        name: "stash",
        title: "git stash: set the changes aside",
        args: Args::None,
        aliases: &["stash changes", "shelve"],
        description: "Saves uncommitted changes on the stash and cleans the work tree (git stash push).",
    },
    Action {
        name: "stash_pop",
        title: "git stash pop: bring back stashed changes",
        args: Args::None,
        aliases: &["unstash", "restore stash"],
        description: "Applies the latest stash entry and drops it (git stash pop).",
    },
];

/// The Git items (the caller checks that there is a work tree).
pub fn entries() -> Vec<SourceItem> {
    ACTIONS
        .iter()
        .map(|a| SourceItem {
            id: ItemId::git(a.name).to_string(),
            kind: "git",
            title: a.title.to_string(),
            aliases: a.aliases.iter().map(|s| s.to_string()).collect(),
            args: a.args,
            reach: Reach::Shell, // see the module header
            description: a.description.to_string(),
            cmd: None,
            cwd: None,
            root: None,
        })
        .collect()
}

/// Whether an action only reads the repository (its output is shown, nothing changes).
pub fn is_read_only(action: &str) -> bool {
    matches!(action, "status" | "diff" | "diff_file" | "log_file" | "blame_line")
}

/// What a Git step needs from the editor.
#[derive(Debug, Clone, Default)]
pub struct StepContext<'a> {
    /// The current file, absolute.
    pub file: Option<&'a Path>,
    /// The cursor's line, from 1.
    pub line: Option<usize>,
    pub args: &'a [String],
}

/// Why a Git step cannot be turned into a command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GitError {
    /// The step acts on the current file and there is none.
    #[error("the current buffer is not a file")]
    NoFile,
    /// The current file is not in the repository.
    #[error("the current file is outside the Git work tree")]
    OutsideWorkTree,
    /// The current file's name cannot be passed as text.
    #[error("the current file's name is not text")]
    FileNameNotText,
    /// The step needs the cursor's line and the editor did not give it.
    #[error("the cursor's line is not known")]
    NoCursorLine,
    /// Not exactly one argument.
    #[error("exactly one argument is needed")]
    OneArgument,
    /// An action leash does not offer.
    #[error("unknown Git action “{0}”")]
    UnknownAction(String),
    /// No branch name.
    #[error("a branch name is needed")]
    NoBranchName,
    /// A branch name over 200 bytes.
    #[error("the branch name is too long")]
    BranchNameTooLong,
    /// A character outside the ones a branch name may hold.
    #[error("a branch name may hold only letters, digits, \".\", \"_\", \"/\" and \"-\"")]
    BranchNameCharacter,
    /// A name Git or a revision expression would read otherwise (`-x`, `a..b`, `x.lock`).
    #[error("“{0}” is not a valid branch name")]
    BadBranchName(String),
    /// No commit message.
    #[error("a commit message is needed")]
    NoMessage,
    /// A commit message over 4096 bytes.
    #[error("the commit message is too long")]
    MessageTooLong,
    /// A control character other than a tab or a line break.
    #[error("the commit message contains a control character")]
    MessageControlCharacter,
}

/// The git arguments (after `git` and [`quiet`]'s overrides) for an action, or why not.
pub fn argv(action: &str, root: &Path, cx: &StepContext<'_>) -> Result<Vec<String>, GitError> {
    let file = || -> Result<String, GitError> {
        let f = cx.file.ok_or(GitError::NoFile)?;
        if !f.starts_with(root) {
            return Err(GitError::OutsideWorkTree);
        }
        f.to_str().map(str::to_string).ok_or(GitError::FileNameNotText)
    };
    let one = |check: fn(&str) -> Result<(), GitError>| -> Result<String, GitError> {
        match cx.args {
            [a] => check(a).map(|()| a.clone()),
            _ => Err(GitError::OneArgument),
        }
    };
    let v = |parts: &[&str]| parts.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    Ok(match action {
        "status" => v(&["status"]),
        "diff" => v(&["diff", "--no-ext-diff", "--no-textconv"]),
        "diff_file" => [v(&["diff", "--no-ext-diff", "--no-textconv", "--"]), vec![file()?]].concat(),
        "log_file" => {
            [v(&["log", "--no-show-signature", "--follow", "-n", "200", "--stat", "--"]), vec![file()?]].concat()
        }
        "blame_line" => {
            let line = cx.line.ok_or(GitError::NoCursorLine)?;
            [v(&["blame", "-L", &format!("{line},{line}"), "--"]), vec![file()?]].concat()
        }
        "stage_file" => [v(&["add", "--"]), vec![file()?]].concat(),
        "stage_all" => v(&["add", "-A"]),
        "commit" => [v(&["commit", "-m"]), vec![one(check_message)?]].concat(),
        "pull" => v(&["pull"]),
        "push" => v(&["push"]),
        "switch" => [v(&["switch"]), vec![one(check_branch)?]].concat(),
        "branch_create" => [v(&["switch", "-c"]), vec![one(check_branch)?]].concat(),
        "stash" => v(&["stash", "push"]),
        "stash_pop" => v(&["stash", "pop"]),
        other => return Err(GitError::UnknownAction(other.to_string())),
    })
}

/// The full argv of a read-only command: overrides first, so the repository's config
/// cannot point a pager, fsmonitor hook or signature program at us.
pub fn quiet(args: Vec<String>) -> Vec<String> {
    let head = [
        "git",
        "--no-pager",
        "-c",
        "core.fsmonitor=false",
        "-c",
        "core.pager=cat",
        "-c",
        "log.showSignature=false",
        "-c",
        "color.ui=false",
        "-c",
        "diff.external=",
    ];
    head.iter().map(|s| s.to_string()).chain(args).collect()
}

/// Why `text` cannot be what a Git action takes: a branch name when `what` is
/// `"branch"`, else a commit message.
pub fn check_text(what: &str, text: &str) -> Result<(), GitError> {
    match what {
        "branch" => check_branch(text),
        _ => check_message(text),
    }
}

/// Why `name` cannot be a branch name. Stricter than git-check-ref-format: the name must
/// not read as an option or a revision expression.
pub fn check_branch(name: &str) -> Result<(), GitError> {
    if name.is_empty() {
        return Err(GitError::NoBranchName);
    }
    if name.len() > 200 {
        return Err(GitError::BranchNameTooLong);
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || "._/-".contains(c)) {
        return Err(GitError::BranchNameCharacter);
    }
    let bad = name.starts_with(['-', '.'])
        || name.contains("..")
        || name.contains("//")
        || name.ends_with('/')
        || name.ends_with(".lock")
        || name.ends_with('.');
    if bad {
        return Err(GitError::BadBranchName(name.to_string()));
    }
    Ok(())
}

/// Why `msg` cannot be a commit message.
pub fn check_message(msg: &str) -> Result<(), GitError> {
    if msg.trim().is_empty() {
        return Err(GitError::NoMessage);
    }
    if msg.len() > 4096 {
        return Err(GitError::MessageTooLong);
    }
    if msg.chars().any(|c| c.is_control() && c != '\t' && c != '\n') {
        return Err(GitError::MessageControlCharacter);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_one_argv_element_after_checks() {
        let root = Path::new("/repo");
        let msg = vec!["fix: a; rm -rf ~ $(x)".to_string()];
        let cx = StepContext { args: &msg, ..StepContext::default() };
        assert_eq!(argv("commit", root, &cx).unwrap(), ["commit", "-m", "fix: a; rm -rf ~ $(x)"]);
        let dash = vec!["-D".to_string()];
        assert!(argv("switch", root, &StepContext { args: &dash, ..StepContext::default() }).is_err());
        for bad in ["a..b", "x.lock", "a b", "-x", "a/", ""] {
            assert!(check_branch(bad).is_err(), "{bad}");
        }
        assert!(check_branch("feature/x-1").is_ok());
        let file = Path::new("/repo/src/a.rs");
        let cx = StepContext { file: Some(file), line: Some(7), args: &[] };
        assert_eq!(argv("blame_line", root, &cx).unwrap(), ["blame", "-L", "7,7", "--", "/repo/src/a.rs"]);
        let outside = StepContext { file: Some(Path::new("/elsewhere/a.rs")), line: Some(1), args: &[] };
        assert_eq!(argv("stage_file", root, &outside).unwrap_err(), GitError::OutsideWorkTree);
    }

    #[test]
    fn refusals_read_as_the_user_sees_them() {
        assert_eq!(check_branch("a..b").unwrap_err().to_string(), "“a..b” is not a valid branch name");
        assert_eq!(
            check_branch("a b").unwrap_err().to_string(),
            "a branch name may hold only letters, digits, \".\", \"_\", \"/\" and \"-\""
        );
        assert_eq!(
            check_message("a\u{1b}[2J").unwrap_err().to_string(),
            "the commit message contains a control character"
        );
        let cx = StepContext::default();
        assert_eq!(argv("rebase", Path::new("/repo"), &cx).unwrap_err().to_string(), "unknown Git action “rebase”");
    }

    #[test]
    fn text_is_checked_as_a_branch_name_or_else_a_commit_message() {
        assert_eq!(check_text("branch", "a b"), Err(GitError::BranchNameCharacter));
        assert_eq!(check_text("branch", "feature/x"), Ok(()));
        assert_eq!(check_text("message", "a b"), Ok(()), "a message may have spaces");
        assert_eq!(check_text("anything", ""), Err(GitError::NoMessage));
        assert_eq!(check_text("message", "x\u{1b}[2J"), Err(GitError::MessageControlCharacter));
    }
}
