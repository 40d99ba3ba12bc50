//! The hand-over between the leash runs of one key press. `leash helix do` (the dialog)
//! leaves what Helix must run; `leash helix take`, started by the same key binding a
//! moment later, prints it once and removes it. Files live in `$XDG_STATE_HOME/leash`
//! (mode 0700, files 0600), keyed by the Helix process (see [`super::process`]), and go
//! stale after [`MAX_AGE`]: a hand-over that was not taken at once is never used later.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use serde::de::DeserializeOwned;
use serde::Serialize;

/// Why a hand-over could not be left in the state folder.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// No folder to put the state in.
    #[error("neither XDG_STATE_HOME nor HOME is set")]
    NoHome,
    /// The state folder could not be created.
    #[error("cannot create {}: {source}", .dir.display())]
    CreateDir { dir: PathBuf, source: std::io::Error },
    /// The value did not encode as JSON.
    #[error("{0}")]
    Encode(#[from] serde_json::Error),
    /// The hand-over file could not be written.
    #[error("cannot write {}: {source}", .path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

/// How long a hand-over stays valid.
pub const MAX_AGE: Duration = Duration::from_secs(120);

/// The state folder, created with mode 0700.
pub fn dir() -> Result<PathBuf, StateError> {
    let base = crate::config_file::state_home().ok_or(StateError::NoHome)?;
    let dir = base.join("leash");
    if let Err(source) = std::fs::create_dir_all(&dir) {
        return Err(StateError::CreateDir { dir, source });
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
    }
    Ok(dir)
}

/// The key of this Helix session: its process id where it can be found, else one slot
/// per user.
pub fn session_key() -> String {
    match super::process::helix_pid() {
        Some(pid) => format!("hx{pid}"),
        None => "hx".to_string(),
    }
}

fn file(kind: &str) -> Result<PathBuf, StateError> {
    Ok(dir()?.join(format!("helix-{}-{kind}.json", session_key())))
}

/// Leaves `value` for the next step of this key press.
pub fn put<T: Serialize>(kind: &str, value: &T) -> Result<(), StateError> {
    let path = file(kind)?;
    let text = serde_json::to_string(value)?;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let write = || -> std::io::Result<()> {
        let mut f = options.open(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)
    };
    write().map_err(|source| StateError::Write { path, source })
}

/// Takes what the previous step left (and removes it); `None` when there is nothing, it
/// is stale, or it does not read.
pub fn take<T: DeserializeOwned>(kind: &str) -> Option<T> {
    let path = file(kind).ok()?;
    let fresh = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|age| age <= MAX_AGE);
    let text = std::fs::read_to_string(&path).ok();
    let _ = std::fs::remove_file(&path);
    if !fresh {
        return None;
    }
    serde_json::from_str(&text?).ok()
}

/// Removes what an earlier key press may have left.
pub fn clear(kind: &str) {
    if let Ok(path) = file(kind) {
        let _ = std::fs::remove_file(path);
    }
}
