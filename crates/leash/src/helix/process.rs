//! The Helix process that started leash, found through the process tree (Linux `/proc`):
//! its id keys the hand-over between the two leash runs of one key press, and its
//! command line says which config.toml it reads (`hx -c FILE`) and which `hx` it is.
//! Elsewhere none of this is known and the callers fall back to defaults.

use std::path::PathBuf;

/// Programs that sit between Helix and leash (Helix runs commands through its `shell`).
const SHELLS: &[&str] = &["sh", "dash", "bash", "zsh", "ksh", "mksh", "ash", "busybox", "fish", "nu", "env"];

/// The first ancestor of this process that is not a shell: Helix, when leash was started
/// by a key binding.
pub fn helix_pid() -> Option<u32> {
    let mut pid = std::os::unix::process::parent_id();
    for _ in 0..8 {
        let (comm, ppid) = stat(pid)?;
        if !SHELLS.contains(&comm.as_str()) {
            return Some(pid);
        }
        pid = ppid;
    }
    None
}

/// `comm` and the parent id of a process, from `/proc/<pid>/stat`.
fn stat(pid: u32) -> Option<(String, u32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let comm = text[open + 1..close].to_string();
    let mut rest = text[close + 1..].split_whitespace();
    let _state = rest.next()?;
    let ppid = rest.next()?.parse().ok()?;
    Some((comm, ppid))
}

/// The command line of a process.
fn cmdline(pid: u32) -> Option<Vec<String>> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    Some(raw.split(|b| *b == 0).filter(|a| !a.is_empty()).map(|a| String::from_utf8_lossy(a).into_owned()).collect())
}

/// The config file the Helix process was started with (`-c FILE`, `--config FILE`,
/// `--config=FILE`), made absolute against its working directory.
pub fn helix_config_arg(pid: u32) -> Option<PathBuf> {
    let args = cmdline(pid)?;
    let mut it = args.iter().skip(1);
    let mut found = None;
    while let Some(a) = it.next() {
        if a == "--" {
            break;
        }
        if a == "-c" || a == "--config" {
            found = it.next().cloned();
        } else if let Some(v) = a.strip_prefix("--config=") {
            found = Some(v.to_string());
        }
    }
    let path = PathBuf::from(found?);
    if path.is_absolute() {
        return Some(path);
    }
    let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).ok()?;
    Some(cwd.join(path))
}

/// Whether the process is Helix: its `comm` or its executable is named `hx` or `helix`.
/// Only then do its `-c` and its terminal belong to Helix (a `python3 -c CODE` or a
/// `tmux -c DIR` ancestor says nothing about Helix's config).
pub fn is_helix(pid: u32) -> bool {
    let named = |n: &str| matches!(n, "hx" | "helix");
    stat(pid).is_some_and(|(comm, _)| named(&comm))
        || helix_exe(pid).is_some_and(|e| e.file_name().and_then(|n| n.to_str()).is_some_and(named))
}

/// The executable of the Helix process.
pub fn helix_exe(pid: u32) -> Option<PathBuf> {
    std::fs::read_link(format!("/proc/{pid}/exe")).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_can_be_read() {
        if !std::path::Path::new("/proc/self/stat").exists() {
            return; // not Linux: the callers fall back to defaults
        }
        let (comm, ppid) = stat(std::process::id()).unwrap();
        assert!(!comm.is_empty());
        assert_eq!(ppid, std::os::unix::process::parent_id());
        assert!(!cmdline(std::process::id()).unwrap().is_empty());
    }
}
