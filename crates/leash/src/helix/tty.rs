//! The terminal under Helix, for the dialog: `/dev/tty` opened directly (Helix gives its
//! commands no terminal on stdin or stdout), the terminal mode saved with `stty -g` and
//! restored on every exit path, keys read on a thread of their own.
//!
//! The mode leash sets keeps signals off (`-isig`): Ctrl-C must never reach Helix's
//! process group, where SIGINT makes Helix quit. Ctrl-C is read as a key instead, and a
//! terminal step it interrupts gets SIGINT in its own process group.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// A key as the dialog sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    Char(char),
    Enter,
    Backspace,
    Esc,
    CtrlC,
    CtrlU,
    CtrlW,
    CtrlD,
    Up,
    Down,
    PageUp,
    PageDown,
    /// An escape sequence or control key the dialog does not use.
    Other,
}

/// Decodes what one read returned. A lone ESC is the Escape key; an ESC that starts a
/// longer chunk begins an escape sequence (terminals send a sequence in one write).
pub fn decode(bytes: &[u8]) -> Vec<Key> {
    let text = String::from_utf8_lossy(bytes);
    let chars: Vec<char> = text.chars().collect();
    let mut keys = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        keys.push(match c {
            '\r' | '\n' => Key::Enter,
            '\u{7f}' | '\u{8}' => Key::Backspace,
            '\u{3}' => Key::CtrlC,
            '\u{15}' => Key::CtrlU,
            '\u{17}' => Key::CtrlW,
            '\u{4}' => Key::CtrlD,
            '\u{1b}' if i >= chars.len() => Key::Esc,
            '\u{1b}' => {
                // CSI or SS3: ESC [ params final, ESC O final.
                let start = i;
                if matches!(chars[i], '[' | 'O') {
                    i += 1;
                    while i < chars.len() && !('\u{40}'..='\u{7e}').contains(&chars[i]) {
                        i += 1;
                    }
                    i = (i + 1).min(chars.len());
                } else {
                    i += 1; // Alt+key
                }
                match chars[start..i].iter().collect::<String>().as_str() {
                    "[A" | "OA" => Key::Up,
                    "[B" | "OB" => Key::Down,
                    "[5~" => Key::PageUp,
                    "[6~" => Key::PageDown,
                    _ => Key::Other,
                }
            }
            c if c.is_control() => Key::Other,
            c => Key::Char(c),
        });
    }
    keys
}

/// The controlling terminal, in the dialog's mode until dropped.
pub struct Tty {
    out: File,
    saved: Option<String>,
    keys: Receiver<(Instant, Vec<Key>)>,
    /// Keys of a read that held several (typed fast, or pasted), not yet handed out.
    queued: RefCell<VecDeque<(Instant, Key)>>,
}

impl Tty {
    /// Opens `/dev/tty`, saves its mode and sets the dialog's: no echo, no line editing,
    /// no signals, one key at a time; output processing stays on.
    pub fn open() -> std::io::Result<Tty> {
        let out = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty")?;
        let saved = stty(&out, &["-g"]).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
        if saved.is_none() {
            return Err(std::io::Error::other("stty -g failed: cannot save the terminal's mode"));
        }
        let mut reader = out.try_clone()?;
        let (tx, rx) = channel();
        std::thread::Builder::new().name("leash-tty".into()).spawn(move || {
            let mut buf = [0u8; 256];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if tx.send((Instant::now(), decode(&buf[..n]))).is_err() {
                            break;
                        }
                    }
                }
            }
        })?;
        let tty = Tty { out, saved, keys: rx, queued: RefCell::new(VecDeque::new()) };
        tty.dialog_mode()?;
        Ok(tty)
    }

    fn dialog_mode(&self) -> std::io::Result<()> {
        stty(
            &self.out,
            &["-icanon", "-echo", "-isig", "-ixon", "-tostop", "icrnl", "opost", "onlcr", "min", "1", "time", "0"],
        )
        .map(|_| ())
    }

    /// Rows and columns (24×80 when the terminal does not say).
    pub fn size(&self) -> (usize, usize) {
        let text = stty(&self.out, &["size"]).unwrap_or_default();
        let mut it = text.split_whitespace().filter_map(|n| n.parse::<usize>().ok());
        match (it.next(), it.next()) {
            (Some(r), Some(c)) if r > 0 && c > 0 => (r, c),
            _ => (24, 80),
        }
    }

    pub fn write(&mut self, s: &str) {
        let _ = self.out.write_all(s.as_bytes());
        let _ = self.out.flush();
    }

    /// The next key, waiting at most `timeout` (forever with `None`).
    pub fn key(&self, timeout: Option<Duration>) -> Option<Key> {
        self.key_after(timeout, None)
    }

    /// The next key typed after `since` (earlier ones are dropped: keys typed ahead must
    /// not answer a question that was not on screen yet).
    pub fn key_after(&self, timeout: Option<Duration>, since: Option<Instant>) -> Option<Key> {
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            let next = self.queued.borrow_mut().pop_front();
            if let Some((at, key)) = next {
                if since.is_some_and(|s| at < s) {
                    continue;
                }
                return Some(key);
            }
            let got = match deadline {
                None => self.keys.recv().map_err(|_| RecvTimeoutError::Disconnected),
                Some(d) => self.keys.recv_timeout(d.saturating_duration_since(Instant::now())),
            };
            match got {
                Ok((at, keys)) => self.queued.borrow_mut().extend(keys.into_iter().map(|k| (at, k))),
                Err(_) => return None,
            }
        }
    }

    /// A handle for a child's stdout/stderr.
    pub fn file(&self) -> std::io::Result<File> {
        self.out.try_clone()
    }

    /// Puts the terminal back as Helix left it.
    pub fn restore(&mut self) {
        if let Some(saved) = self.saved.take() {
            let _ = stty(&self.out, &[saved.as_str()]);
        }
    }
}

impl Drop for Tty {
    fn drop(&mut self) {
        self.restore();
    }
}

/// Runs `stty ARGS` on the terminal and returns what it printed.
fn stty(tty: &File, args: &[&str]) -> std::io::Result<String> {
    let out = Command::new("stty").args(args).stdin(tty.try_clone()?).stderr(Stdio::null()).output()?;
    if !out.status.success() {
        return Err(std::io::Error::other(format!("stty {} failed", args.join(" "))));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Display columns of a string: wide East Asian characters take two, combining marks none.
pub fn width(s: &str) -> usize {
    s.chars().map(char_width).sum()
}

pub fn char_width(c: char) -> usize {
    let u = c as u32;
    if (0x300..=0x36f).contains(&u) || (0x200b..=0x200f).contains(&u) || u == 0xfe0f {
        return 0;
    }
    let wide = (0x1100..=0x115f).contains(&u)
        || (0x2e80..=0xa4cf).contains(&u)
        || (0xac00..=0xd7a3).contains(&u)
        || (0xf900..=0xfaff).contains(&u)
        || (0xfe30..=0xfe4f).contains(&u)
        || (0xff00..=0xff60).contains(&u)
        || (0xffe0..=0xffe6).contains(&u)
        || (0x1f300..=0x1f64f).contains(&u)
        || (0x1f900..=0x1f9ff).contains(&u)
        || (0x20000..=0x3fffd).contains(&u);
    if wide {
        2
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_from_raw_bytes() {
        assert_eq!(decode(b"\x1b"), [Key::Esc]);
        assert_eq!(decode(b"\x1b[A"), [Key::Up]);
        assert_eq!(decode(b"\x1b[6~y"), [Key::PageDown, Key::Char('y')]);
        assert_eq!(decode(b"\x03"), [Key::CtrlC]);
        assert_eq!(decode("é\r".as_bytes()), [Key::Char('é'), Key::Enter]);
        assert_eq!(decode(b"a\x7fb"), [Key::Char('a'), Key::Backspace, Key::Char('b')]);
        assert_eq!(decode(b"\x1b[1;5D"), [Key::Other]);
    }

    #[test]
    fn display_widths() {
        assert_eq!(width("abc"), 3);
        assert_eq!(width("日本"), 4);
        assert_eq!(width("e\u{301}"), 1);
    }
}
