//! The dialog on `/dev/tty`: the request line, the plan with the same content as
//! Neovim's plan window (the reply, each step in plain words with its reason, current →
//! new values, `[write]`/`[code]`/`[shell]` marks, whole commands, dropped steps with
//! their reasons), the `y`/`n` question, and the terminal for programs a plan runs.
//!
//! Everything the model wrote is shown as plain text: control characters appear as
//! `^[`, every other invisible character ([`crate::text`]: format and bidi characters,
//! tag characters, non-ASCII spaces, unassigned code points…) as `<U+202E>`.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::apply::{HelixAction, HelixPlan};
use super::tty::{char_width, width, Key, Tty};
use crate::catalog::Reach;

/// How a piece of text is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Plain,
    Heading,
    Why,
    Dropped,
    Command,
    Write,
    Code,
    Shell,
    Keys,
    Note,
    Error,
}

impl Style {
    fn ansi(self) -> &'static str {
        match self {
            Style::Plain => "",
            Style::Heading => "\x1b[1m",
            Style::Why | Style::Dropped | Style::Note => "\x1b[2m",
            Style::Command => "\x1b[1m",
            Style::Write | Style::Code => "\x1b[1;33m",
            Style::Shell | Style::Error => "\x1b[1;31m",
            Style::Keys => "\x1b[36m",
        }
    }
}

/// One row of the plan: pieces of text with their style.
pub type Row = Vec<(String, Style)>;

/// Text with every invisible character written out: the core's one definition.
pub use crate::text::visible;

fn value_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => format!("\"{}\"", visible(s)),
        serde_json::Value::Null => "(none)".into(),
        other => visible(&other.to_string()),
    }
}

fn mark(reach: Reach) -> Option<(String, Style)> {
    match reach {
        Reach::Write => Some(("[write] ".into(), Style::Write)),
        Reach::Code => Some(("[code] ".into(), Style::Code)),
        Reach::Plugin => Some(("[plugin] ".into(), Style::Shell)),
        Reach::Shell => Some(("[shell] ".into(), Style::Shell)),
        _ => None,
    }
}

/// The plan's rows. `current` holds the current value of each setting step (by plan
/// index), with where it comes from.
pub fn rows(plan: &HelixPlan, current: &HashMap<usize, (serde_json::Value, &'static str)>, notes: &[Row]) -> Vec<Row> {
    let mut out: Vec<Row> = Vec::new();
    let reply = visible(&plan.reply);
    if !reply.is_empty() {
        out.push(vec![(reply, Style::Plain)]);
        out.push(Vec::new());
    }
    if plan.steps.is_empty() {
        out.push(vec![("Nothing to run.".into(), Style::Dropped)]);
    }
    for s in &plan.steps {
        let num = format!("{}. ", s.step.index + 1);
        let indent = " ".repeat(num.len());
        let mut row: Row = vec![(num, Style::Plain)];
        let mark = mark(s.step.reach);
        match &s.action {
            HelixAction::Setting { key, value } => {
                let new = value_text(&serde_json::to_value(value).unwrap_or_default());
                let change = match current.get(&s.step.index) {
                    Some((now, from)) => format!("{}{from} → {new}", value_text(now)),
                    None => new,
                };
                row.extend(mark);
                row.push((format!("Set {}: {change}", visible(key)), Style::Plain));
                out.push(row);
            }
            HelixAction::Command { line } => {
                row.extend(mark);
                row.push(("Run ".into(), Style::Plain));
                row.push((format!(":{}", visible(line)), Style::Command));
                out.push(row);
            }
            HelixAction::Keys { name, keys, .. } => {
                row.extend(mark);
                row.push((format!("{}: ", visible(&s.step.label)), Style::Plain));
                row.push((format!("key {}", super::statics::shown_key(keys)), Style::Command));
                row.push((format!(" ({name})"), Style::Plain));
                out.push(row);
            }
            HelixAction::Program { shown, .. } => {
                row.push(mark.unwrap_or(("[shell] ".into(), Style::Shell)));
                let terminal = matches!(s.step.action, crate::validate::Action::Terminal { .. })
                    || matches!(&s.step.action, crate::validate::Action::Item { id, .. } if id == "term:run");
                let when = if s.after_helix { " after Helix's commands above" } else { "" };
                let head = if terminal {
                    format!("Run in a terminal{when}:")
                } else {
                    format!("{}, in a terminal{when}:", visible(&s.step.label))
                };
                row.push((head, Style::Plain));
                out.push(row);
                out.push(vec![(indent.clone(), Style::Plain), (visible(shown), Style::Command)]);
            }
            HelixAction::Delete { path } => {
                row.push(mark.unwrap_or(("[write] ".into(), Style::Write)));
                row.push((format!("Delete {} and close its buffer", visible(&path.to_string_lossy())), Style::Plain));
                out.push(row);
            }
            HelixAction::Detached { argv } => {
                row.push(mark.unwrap_or(("[shell] ".into(), Style::Shell)));
                row.push(("Start: ".into(), Style::Plain));
                row.push((visible(&argv.join(" ")), Style::Command));
                out.push(row);
            }
        }
        let why = visible(&s.step.why);
        if !why.is_empty() {
            out.push(vec![(indent, Style::Plain), (format!("({why})"), Style::Why)]);
        }
    }
    if !plan.dropped.is_empty() {
        out.push(Vec::new());
        out.push(vec![("Not run (refused by the checker):".into(), Style::Heading)]);
        for d in &plan.dropped {
            out.push(vec![
                (format!("{}. ", d.index + 1), Style::Dropped),
                (visible(&d.refusal.to_string()), Style::Dropped),
            ]);
        }
    }
    if !notes.is_empty() {
        out.push(Vec::new());
        out.extend(notes.iter().cloned());
    }
    out
}

/// Rows as plain text lines (the `:sh` popup of `space ,`).
pub fn plain(rows: &[Row]) -> String {
    rows.iter().map(|r| r.iter().map(|(t, _)| t.as_str()).collect::<String>()).collect::<Vec<_>>().join("\n")
}

/// Wraps rows to `cols` columns at spaces (a word longer than a line is cut); a
/// continuation is indented under the row's text.
fn wrap(rows: &[Row], cols: usize) -> Vec<Row> {
    let cols = cols.max(20);
    let mut lines = Vec::new();
    for row in rows {
        // A step's number or an indent: continuations line up under the text after it.
        let numbered = |t: &str| {
            t.len() <= 6
                && (t.trim().is_empty() || t.trim_end().trim_end_matches('.').chars().all(|c| c.is_ascii_digit()))
        };
        let lead = row.first().filter(|(t, _)| numbered(t)).map_or(0, |(t, _)| width(t));
        let cont = (lead + 2).min(cols / 2);
        let mut line = Line { row: Vec::new(), used: 0, text: false };
        for (text, style) in row {
            for word in text.split_inclusive(' ') {
                let w = width(word.trim_end_matches(' '));
                if line.text && line.used + w > cols {
                    lines.push(line.next(cont));
                }
                for c in word.chars() {
                    let cw = char_width(c);
                    if line.used + cw > cols && c != ' ' {
                        lines.push(line.next(cont));
                    }
                    line.push(c, *style, cw);
                }
            }
        }
        lines.push(line.row);
    }
    lines
}

/// A screen line being filled.
struct Line {
    row: Row,
    used: usize,
    /// Whether it holds more than the continuation indent.
    text: bool,
}

impl Line {
    fn push(&mut self, c: char, style: Style, w: usize) {
        match self.row.last_mut() {
            Some((t, s)) if *s == style => t.push(c),
            _ => self.row.push((c.to_string(), style)),
        }
        self.used += w;
        self.text |= c != ' ';
    }

    /// Ends this line and starts a continuation; returns the full line.
    fn next(&mut self, indent: usize) -> Row {
        let full = std::mem::replace(&mut self.row, vec![(" ".repeat(indent), Style::Plain)]);
        self.used = indent;
        self.text = false;
        full
    }
}

fn draw_line(row: &Row) -> String {
    let mut s = String::from("\x1b[2K");
    for (text, style) in row {
        let code = style.ansi();
        if code.is_empty() {
            s.push_str(text);
        } else {
            s.push_str(code);
            s.push_str(text);
            s.push_str("\x1b[0m");
        }
    }
    s
}

/// The dialog's screen: the alternate screen of the terminal, left when dropped.
pub struct Screen {
    pub tty: Tty,
}

const TITLE: &str = " leash ";

impl Screen {
    pub fn open() -> std::io::Result<Screen> {
        let mut tty = Tty::open()?;
        tty.write("\x1b[?1049h\x1b[H\x1b[2J\x1b[?25h");
        Ok(Screen { tty })
    }

    fn header(&mut self, cols: usize, subtitle: &str) {
        let text = format!("{TITLE}— {subtitle}");
        let pad = cols.saturating_sub(width(&text));
        self.tty.write(&format!("\x1b[H\x1b[2J\x1b[7m{text}{}\x1b[0m\r\n", " ".repeat(pad)));
    }

    /// Reads the request. `None` when the user cancelled (Esc, Ctrl-C, an empty line).
    pub fn ask(&mut self, hint: &[Row]) -> Option<String> {
        let mut input = String::new();
        loop {
            let (_, cols) = self.tty.size();
            self.header(cols, "what should Helix do?");
            for row in wrap(hint, cols) {
                self.tty.write(&format!("{}\r\n", draw_line(&row)));
            }
            self.tty.write(&format!(
                "\r\n{}\r\n\x1b[1m› \x1b[0m{}",
                draw_line(&vec![("Enter asks · Esc cancels".into(), Style::Keys)]),
                visible(&input)
            ));
            match self.tty.key(None)? {
                Key::Enter => {
                    let request = input.trim().to_string();
                    return (!request.is_empty()).then_some(request);
                }
                Key::Esc | Key::CtrlC => return None,
                Key::Backspace => {
                    input.pop();
                }
                Key::CtrlU => input.clear(),
                Key::CtrlW => {
                    let keep = input.trim_end().rfind(' ').map_or(0, |i| i + 1);
                    input.truncate(keep);
                }
                Key::Char(c) if input.len() < 2000 => input.push(c),
                _ => {}
            }
        }
    }

    /// Shows `status` with a spinner until `done` returns a value; Esc or Ctrl-C calls
    /// `cancel` and returns `None`.
    pub fn wait<T>(&mut self, status: &str, mut done: impl FnMut() -> Option<T>, cancel: impl Fn()) -> Option<T> {
        const SPIN: [char; 4] = ['|', '/', '-', '\\'];
        let (_, cols) = self.tty.size();
        self.header(cols, "planning");
        let started = Instant::now();
        let mut n = 0;
        loop {
            if let Some(v) = done() {
                return Some(v);
            }
            let secs = started.elapsed().as_secs();
            self.tty.write(&format!("\r\x1b[2K{} {} ({secs} s · Esc cancels)", SPIN[n % 4], visible(status)));
            n += 1;
            if matches!(self.tty.key(Some(Duration::from_millis(100))), Some(Key::Esc | Key::CtrlC)) {
                cancel();
                return None;
            }
        }
    }

    /// Shows the plan and asks. `true` only for `y` or Enter pressed after the plan was
    /// on screen (keys typed earlier are ignored).
    pub fn confirm(&mut self, rows: &[Row], question: bool) -> bool {
        const ARM: Duration = Duration::from_millis(150);
        let shown_at = Instant::now();
        let mut top = 0usize;
        loop {
            let (lines_avail, cols) = self.tty.size();
            let body = wrap(rows, cols.saturating_sub(2));
            let height = lines_avail.saturating_sub(3).max(1);
            top = top.min(body.len().saturating_sub(height));
            self.header(cols, "plan");
            for row in body.iter().skip(top).take(height) {
                self.tty.write(&format!(" {}\r\n", draw_line(row)));
            }
            let more = if body.len() > height { " · j/k scroll" } else { "" };
            let keys = if question { format!("y run · n/Esc cancel{more}") } else { format!("any key closes{more}") };
            self.tty.write(&format!("\x1b[{lines_avail};1H{}", draw_line(&vec![(keys, Style::Keys)])));
            let Some(key) = self.tty.key_after(None, Some(shown_at)) else { return false };
            match key {
                Key::Char('j') | Key::Down => top += 1,
                Key::Char('k') | Key::Up => top = top.saturating_sub(1),
                Key::CtrlD | Key::PageDown => top += height / 2,
                Key::CtrlU | Key::PageUp => top = top.saturating_sub(height / 2),
                // A y typed before the plan was on screen long enough is ignored.
                Key::Char('y') | Key::Enter if question && shown_at.elapsed() >= ARM => return true,
                Key::Char('y') | Key::Enter if question => {}
                Key::Char('n' | 'q') | Key::Esc | Key::CtrlC if question => return false,
                _ if !question => return false,
                _ => {}
            }
        }
    }

    /// Leaves the dialog's text and prints below it (programs write here).
    pub fn print(&mut self, row: &Row) {
        self.tty.write(&format!("{}\r\n", draw_line(row)));
    }

    /// Clears the screen for the programs a plan runs.
    pub fn terminal(&mut self) {
        let (_, cols) = self.tty.size();
        self.header(cols, "running");
    }

    /// Waits for any key typed after now.
    pub fn any_key(&mut self, text: &str) {
        self.tty.write(&format!("\r\n{}", draw_line(&vec![(text.to_string(), Style::Keys)])));
        let now = Instant::now();
        let _ = self.tty.key_after(None, Some(now));
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        self.tty.write("\x1b[0m\x1b[?1049l");
        self.tty.restore();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_text_is_made_visible() {
        assert_eq!(visible("a\u{1b}[31mb\nc"), "a^[[31mb^Jc");
        assert_eq!(visible("x\u{202e}y\u{200b}"), "x<U+202E>y<U+200B>");
        assert_eq!(visible("ok é 中 😀"), "ok é 中 😀");
        assert_eq!(visible("cd junk;\u{061C} rm\u{E0041}"), "cd junk;<U+061C> rm<U+E0041>");
    }

    #[test]
    fn long_rows_wrap_under_their_text() {
        let rows =
            vec![vec![("1. ".to_string(), Style::Plain), ("abcdefghij klmnopqrstu vwxyz".to_string(), Style::Plain)]];
        let lines: Vec<String> = wrap(&rows, 20).iter().map(|l| l.iter().map(|(t, _)| t.as_str()).collect()).collect();
        assert_eq!(lines, ["1. abcdefghij ", "     klmnopqrstu ", "     vwxyz"], "whole words, indented");
        assert!(lines.iter().all(|l| width(l.trim_end()) <= 20));
    }
}
