//! Why a `leash helix …` subcommand could not do its job: one error for the frontend's
//! top level. It wraps the typed errors of the parts it calls, whose messages already
//! name the file or key and say what to fix; the rest are its own. Each message is what
//! the user reads, in the dialog, Helix's popup or on stderr.

use std::path::PathBuf;

use super::config_toml::HelixConfigError;
use super::keys::KeysError;
use super::state::StateError;
use crate::config_file::ConfigError;
use leash_core::catalog::CatalogError;
use leash_core::llm::LlmError;

/// What stopped a Helix subcommand, a plan or one of its steps.
#[derive(Debug, thiserror::Error)]
pub enum HelixError {
    /// No folder to look for leash's configuration file in.
    #[error("neither XDG_CONFIG_HOME nor HOME is set")]
    NoConfigHome,
    /// leash's configuration file cannot be read or is wrong (the message names the key).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The model cannot be asked (a missing API key, a bad provider table), or did not
    /// answer with a plan.
    #[error(transparent)]
    Llm(#[from] LlmError),
    /// The thread that asks the model could not be started.
    #[error("{0}")]
    PlanThread(#[source] std::io::Error),
    /// The working directory is gone (removed while Helix runs in it).
    #[error("no working directory: {0}")]
    NoWorkingDirectory(#[source] std::io::Error),
    /// The catalog for this folder could not be built.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// The plan `space ,` showed validates to something else now.
    #[error(
        "the plan space , showed no longer checks out the same (Helix's commands, the project or leash's configuration changed since); ask again"
    )]
    PreviewChanged,
    /// No config.toml to write a setting into.
    #[error("Helix's config.toml was not found")]
    NoHelixConfig,
    /// Helix's config.toml cannot be read, changed or written.
    #[error(transparent)]
    HelixConfig(#[from] HelixConfigError),
    /// No config.toml to install the key bindings into.
    #[error("cannot find Helix's config.toml; pass --helix-config FILE")]
    NoInstallTarget,
    /// The running Helix reads a config.toml that does not exist (leash creates none
    /// on the strength of a command line).
    #[error("the Helix that started leash reads {}, which does not exist; pass --helix-config FILE", .0.display())]
    InstallTargetMissing(PathBuf),
    /// The key bindings cannot be made or installed.
    #[error(transparent)]
    Keys(#[from] KeysError),
    /// The hand-over to the next leash run could not be left.
    #[error(transparent)]
    State(#[from] StateError),
    /// leash's own path, which Helix needs to start it again, is unknown.
    #[error("{0}")]
    OwnPath(#[source] std::io::Error),
    /// The programs a plan puts after Helix's commands cannot wait for them.
    #[error("cannot start leash again after Helix's commands: {0}")]
    Resume(#[source] Box<HelixError>),
    /// A program step with no program (or no terminal to run it on).
    #[error("nothing to run")]
    NothingToRun,
    /// A step's program could not be started (not installed, not executable…).
    #[error("cannot start {program}: {source}")]
    Start { program: String, source: std::io::Error },
    /// Waiting for a step's program failed.
    #[error("{0}")]
    Wait(#[source] std::io::Error),
    /// A step's program ended with a status other than 0.
    #[error("exit status {0}")]
    ExitStatus(i32),
    /// A step's program was ended by a signal (Ctrl-C).
    #[error("stopped by a signal")]
    Signal,
    /// The file a delete step names could not be removed.
    #[error("cannot delete {}: {source}", .path.display())]
    Delete { path: PathBuf, source: std::io::Error },
}
