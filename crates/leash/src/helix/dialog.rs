//! The dialog on `/dev/tty`: the request line, the plan with the same content as
//! Neovim's plan window (the reply, each step in plain words with its reason, current →
//! new values, `[write]`/`[code]`/`[shell]` marks, whole commands, dropped steps with
//! their reasons), the `y`/`n` question, and the terminal for programs a plan runs.
//!
//! Everything the model wrote is shown as plain text: control characters appear as
//! `^[`, every other invisible character ([`leash_core::text`]: format and bidi characters,
//! tag characters, non-ASCII spaces, unassigned code points…) as `<U+202E>`.

use std::time::{Duration, Instant};

use super::tty::{char_width, width, Key, Tty};

pub use leash_core::present::{Row, Style};

/// The terminal colour of a style.
fn ansi(style: Style) -> &'static str {
    match style {
        Style::Plain | Style::Reply => "",
        Style::Heading | Style::Command => "\x1b[1m",
        Style::Why | Style::Dropped | Style::Note | Style::Unchanged => "\x1b[2m",
        Style::Write | Style::Code => "\x1b[1;33m",
        Style::Plugin | Style::Shell | Style::Error => "\x1b[1;31m",
        Style::Keys => "\x1b[36m",
        Style::Added => "\x1b[32m",
        Style::Removed => "\x1b[31m",
    }
}

/// Text with every invisible character written out: the core's one definition.
pub use leash_core::text::visible;

/// Characters that draw as blank space but are not an ASCII space: the core's invisible
/// characters ([`leash_core::text::is_invisible`]: rows hold them written out already, text
/// handed over raw may not) and the Braille blank, which Unicode counts as a visible
/// symbol. Each is labelled, so none can pass for nothing.
fn blank_other(c: char) -> bool {
    c == '\u{2800}' || (c != ' ' && leash_core::text::is_invisible(c))
}

/// The shortest run of ASCII spaces that is labelled rather than drawn: two spaces can
/// sit between sentences, three never carry meaning a reader would miss.
const SPACE_RUN: usize = 3;

/// Pieces of `text` with every long run of spaces and every other blank character
/// replaced by a label (`␠×4000`, `<U+3000>×2`); `true` marks a label. A padded command
/// therefore takes as many columns as it has visible characters, and the words after
/// the padding stay next to the words before it.
pub fn label_blanks(text: &str) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut plain = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let run = chars[i..].iter().take_while(|&&d| d == c).count();
        let label = if c == ' ' && run >= SPACE_RUN {
            Some(format!("␠×{run}"))
        } else if blank_other(c) {
            Some(if run > 1 { format!("<U+{:04X}>×{run}", c as u32) } else { format!("<U+{:04X}>", c as u32) })
        } else {
            None
        };
        match label {
            Some(l) => {
                if !plain.is_empty() {
                    out.push((std::mem::take(&mut plain), false));
                }
                out.push((l, true));
                i += run;
            }
            None => {
                plain.push(c);
                i += 1;
            }
        }
    }
    if !plain.is_empty() {
        out.push((plain, false));
    }
    out
}

/// Rows with their blank runs labelled (see [`label_blanks`]). A row's leading indent
/// (a piece of spaces only, first in the row) is leash's own and stays as it is.
pub(super) fn labelled(rows: Vec<Row>) -> Vec<Row> {
    rows.into_iter()
        .map(|row| {
            let mut out: Row = Vec::new();
            for (i, (text, style)) in row.into_iter().enumerate() {
                if i == 0 && !text.is_empty() && text.len() <= 8 && text.chars().all(|c| c == ' ') {
                    out.push((text, style));
                    continue;
                }
                for (piece, is_label) in label_blanks(&text) {
                    out.push((piece, if is_label { Style::Note } else { style }));
                }
            }
            out
        })
        .collect()
}

/// What the plan's question needs: the summary pinned beside the keys (the marked steps
/// by number) and whether only `y` runs it.
#[derive(Debug, Clone)]
pub struct Question {
    pub summary: Row,
    /// A plan with a marked step runs on `y` only; Enter runs an all-safe plan too.
    pub marked: bool,
}

/// Rows as plain text lines (the `:sh` popup of `space ,`).
pub fn plain(rows: &[Row]) -> String {
    rows.iter().map(|r| r.iter().map(|(t, _)| t.as_str()).collect::<String>()).collect::<Vec<_>>().join("\n")
}

/// Wraps rows to `cols` columns at spaces (a word longer than a line is cut); a
/// continuation is indented under the row's text. Every column is counted, spaces and
/// wide characters (two columns) included: no line is wider than `cols` (at least 20).
/// A space where a line breaks is the break itself; the spaces after it stay, on the
/// next line.
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
                if line.text && w > 0 && line.used + w > cols {
                    lines.push(line.next(cont));
                }
                let mut broke_here = false;
                for c in word.chars() {
                    let cw = char_width(c);
                    if line.used + cw > cols {
                        lines.push(line.next(cont));
                        if c == ' ' && !broke_here {
                            // The break stands for this one space.
                            broke_here = true;
                            continue;
                        }
                    }
                    line.push(c, *style, cw);
                }
            }
        }
        lines.push(line.row);
    }
    lines
}

/// The row cut to `cols` display columns (a wide character that does not fit is left
/// out whole).
fn cut(row: &Row, cols: usize) -> Row {
    let mut used = 0;
    let mut out: Row = Vec::new();
    for (text, style) in row {
        let mut piece = String::new();
        for c in text.chars() {
            let w = char_width(c);
            if used + w > cols {
                if !piece.is_empty() {
                    out.push((piece, *style));
                }
                return out;
            }
            used += w;
            piece.push(c);
        }
        if !piece.is_empty() {
            out.push((piece, *style));
        }
    }
    out
}

/// The end of `text` that fits in `cols` columns (the request line shows what is typed last).
fn tail(text: &str, cols: usize) -> String {
    let mut used = 0;
    let mut keep: Vec<char> = Vec::new();
    for c in text.chars().rev() {
        used += char_width(c);
        if used > cols {
            break;
        }
        keep.push(c);
    }
    keep.into_iter().rev().collect()
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
        let code = ansi(*style);
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

/// Autowrap off (DECAWM): a row that reached the last column must not push the rest of
/// the screen down. Every frame the dialog draws turns it off first and back on after
/// ([`AUTOWRAP_ON`]), so the programs a plan runs print as on any terminal.
const AUTOWRAP_OFF: &str = "\x1b[?7l";
const AUTOWRAP_ON: &str = "\x1b[?7h";

/// The dialog's screen. Helix already holds the terminal's alternate screen, so the
/// dialog draws there and leaves it to Helix's `:redraw`: switching it off and on again
/// (`\x1b[?1049l`) would leave Helix on the normal screen, and its last frame would
/// stay there after Helix quit. Run from a shell, the dialog takes the alternate screen
/// itself and gives it back.
pub struct Screen {
    pub tty: Tty,
    /// Whether the dialog switched to the alternate screen (and so switches back).
    alternate: bool,
}

const TITLE: &str = " leash ";

impl Screen {
    pub fn open() -> std::io::Result<Screen> {
        let mut tty = Tty::open()?;
        let alternate = !super::process::helix_pid().is_some_and(super::process::is_helix);
        if alternate {
            tty.write("\x1b[?1049h");
        }
        tty.write("\x1b[H\x1b[2J\x1b[?25h");
        Ok(Screen { tty, alternate })
    }

    /// Writes one frame with autowrap off.
    fn frame(&mut self, text: &str) {
        self.tty.write(&format!("{AUTOWRAP_OFF}{text}{AUTOWRAP_ON}"));
    }

    fn header_text(cols: usize, subtitle: &str) -> String {
        let text = format!("{TITLE}— {}", visible(subtitle));
        let row = cut(&vec![(text, Style::Plain)], cols);
        let text: String = row.iter().map(|(t, _)| t.as_str()).collect();
        let pad = cols.saturating_sub(width(&text));
        format!("\x1b[H\x1b[2J\x1b[7m{text}{}\x1b[0m\r\n", " ".repeat(pad))
    }

    fn header(&mut self, cols: usize, subtitle: &str) {
        let text = Self::header_text(cols, subtitle);
        self.frame(&text);
    }

    /// Reads the request. `None` when the user cancelled (Esc, Ctrl-C, an empty line).
    pub fn ask(&mut self, hint: &[Row]) -> Option<String> {
        self.ask_or_empty(hint, false)
    }

    /// [`Screen::ask`]; with `empty_ok`, Enter on an empty line answers `""` (the hint says
    /// what that means) instead of nothing.
    pub fn ask_or_empty(&mut self, hint: &[Row], empty_ok: bool) -> Option<String> {
        let mut input = String::new();
        let hint = labelled(hint.to_vec());
        loop {
            let (_, cols) = self.tty.size();
            let mut f = Self::header_text(cols, "what should Helix do?");
            for row in wrap(&hint, cols) {
                f.push_str(&format!("{}\r\n", draw_line(&cut(&row, cols))));
            }
            f.push_str(&format!(
                "\r\n{}\r\n\x1b[1m› \x1b[0m{}",
                draw_line(&cut(&vec![("Enter asks · Esc cancels".into(), Style::Keys)], cols)),
                tail(&visible(&input), cols.saturating_sub(3))
            ));
            self.frame(&f);
            match self.tty.key(None)? {
                Key::Enter => {
                    let request = input.trim().to_string();
                    return (empty_ok || !request.is_empty()).then_some(request);
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
            let line = format!("{} {} ({secs} s · Esc cancels)", SPIN[n % 4], visible(status));
            self.frame(&format!("\r{}", draw_line(&cut(&vec![(line, Style::Plain)], cols))));
            n += 1;
            if matches!(self.tty.key(Some(Duration::from_millis(100))), Some(Key::Esc | Key::CtrlC)) {
                cancel();
                return None;
            }
        }
    }

    /// Shows the plan and, with a [`Question`], asks (see [`Pager`]). `true` only for a
    /// key that runs the plan, pressed after the plan was on screen (keys typed earlier
    /// are ignored) and after every one of its rows was.
    pub fn confirm(&mut self, rows: &[Row], question: Option<&Question>) -> bool {
        const ARM: Duration = Duration::from_millis(150);
        let shown_at = Instant::now();
        let mut pager = Pager::new(rows, question);
        loop {
            let (lines, cols) = self.tty.size();
            let f = pager.frame(lines, cols);
            self.frame(&f);
            let Some(key) = self.tty.key_after(None, Some(shown_at)) else { return false };
            if let Some(answer) = pager.key(key, shown_at.elapsed() >= ARM) {
                return answer;
            }
        }
    }

    /// Offers the offline planner's candidates (`rows` says what it is not sure of, then
    /// one numbered row each) and returns the index of the one picked by its number;
    /// `None` for Esc or Ctrl-C. Keys typed before the list was on screen are ignored.
    pub fn choose(&mut self, rows: &[Row], count: usize) -> Option<usize> {
        let shown_at = Instant::now();
        loop {
            let (_, cols) = self.tty.size();
            let mut f = Self::header_text(cols, "which one?");
            for row in wrap(&labelled(rows.to_vec()), cols) {
                f.push_str(&format!("{}\r\n", draw_line(&cut(&row, cols))));
            }
            let keys = format!("1–{count} picks · Esc cancels");
            f.push_str(&format!("\r\n{}", draw_line(&cut(&vec![(keys, Style::Keys)], cols))));
            self.frame(&f);
            match self.tty.key_after(None, Some(shown_at))? {
                Key::Esc | Key::CtrlC => return None,
                Key::Char(c) => match c.to_digit(10).map(|d| d as usize) {
                    Some(n) if (1..=count).contains(&n) => return Some(n - 1),
                    _ => {}
                },
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
        let (_, cols) = self.tty.size();
        self.frame(&format!("\r\n{}", draw_line(&cut(&vec![(text.to_string(), Style::Keys)], cols))));
        let now = Instant::now();
        let _ = self.tty.key_after(None, Some(now));
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        if self.alternate {
            self.tty.write("\x1b[0m\x1b[?7h\x1b[?1049l");
        } else {
            // Helix's `:redraw` paints over what is left.
            self.tty.write("\x1b[0m\x1b[?7h\x1b[H\x1b[2J");
        }
        self.tty.restore();
    }
}

/// Which rows of the plan were on screen, for the current terminal size (a resize
/// wraps the rows anew, so what was seen is counted again).
#[derive(Default)]
struct Seen {
    size: (usize, usize),
    rows: Vec<bool>,
}

impl Seen {
    fn show(&mut self, size: (usize, usize), total: usize, top: usize, height: usize) {
        if self.size != size || self.rows.len() != total {
            self.size = size;
            self.rows = vec![false; total];
        }
        for r in self.rows.iter_mut().skip(top).take(height) {
            *r = true;
        }
    }

    fn all(&self) -> bool {
        self.rows.iter().all(|&r| r)
    }
}

/// The plan on screen and what its keys do, apart from the terminal. `y` runs the plan
/// only after every row was on screen; Enter runs it too when no step is marked; the
/// summary of the marked steps is pinned above the keys at every scroll position.
/// Without a question any key but a scroll key closes.
struct Pager<'a> {
    rows: &'a [Row],
    question: Option<&'a Question>,
    top: usize,
    height: usize,
    seen: Seen,
    /// Why the last key did nothing, shown instead of the keys until the next key.
    said: Option<&'static str>,
}

impl<'a> Pager<'a> {
    fn new(rows: &'a [Row], question: Option<&'a Question>) -> Pager<'a> {
        Pager { rows, question, top: 0, height: 1, seen: Seen::default(), said: None }
    }

    /// The whole screen for a terminal of `lines` × `cols`; no line wider than `cols`.
    fn frame(&mut self, lines: usize, cols: usize) -> String {
        let body = wrap(self.rows, cols.saturating_sub(2));
        let pinned = if self.question.is_some() { 2 } else { 1 };
        let height = lines.saturating_sub(1 + pinned).max(1);
        self.height = height;
        self.top = self.top.min(body.len().saturating_sub(height));
        self.seen.show((lines, cols), body.len(), self.top, height);
        let mut f = Screen::header_text(cols, "plan");
        for row in body.iter().skip(self.top).take(height) {
            f.push_str(&format!(" {}\r\n", draw_line(&cut(row, cols.saturating_sub(1)))));
        }
        let more = body.len() > height;
        let keys = match self.question {
            None if more => "any key closes · j/k scroll".to_string(),
            None => "any key closes".to_string(),
            Some(q) => {
                let run = if q.marked { "y run" } else { "y/Enter run" };
                let scroll = match (more, self.seen.all()) {
                    (false, _) => "",
                    (true, true) => " · j/k scroll",
                    (true, false) => " · j/k scroll: y after the last row",
                };
                format!("{run} · n/Esc cancel{scroll}")
            }
        };
        if let Some(q) = self.question {
            f.push_str(&format!("\x1b[{};1H{}", lines.saturating_sub(1).max(1), draw_line(&cut(&q.summary, cols))));
        }
        let keys_row = match self.said {
            Some(msg) => vec![(msg.to_string(), Style::Error)],
            None => vec![(keys, Style::Keys)],
        };
        f.push_str(&format!("\x1b[{lines};1H{}", draw_line(&cut(&keys_row, cols))));
        f
    }

    /// Takes a key; `Some(answer)` ends the dialog. `armed`: the plan was on screen long
    /// enough for a key to be an answer to it.
    fn key(&mut self, key: Key, armed: bool) -> Option<bool> {
        self.said = None;
        let half = (self.height / 2).max(1);
        match key {
            Key::Char('j') | Key::Down => self.top += 1,
            Key::Char('k') | Key::Up => self.top = self.top.saturating_sub(1),
            Key::CtrlD | Key::PageDown => self.top += half,
            Key::CtrlU | Key::PageUp => self.top = self.top.saturating_sub(half),
            _ if self.question.is_none() => return Some(false),
            Key::Char('y') | Key::Enter if !armed => {}
            Key::Enter if self.question.is_some_and(|q| q.marked) => {
                self.said = Some("Enter does not run a plan with marked steps: y runs it")
            }
            Key::Char('y') | Key::Enter if !self.seen.all() => {
                self.said = Some("y runs once every row was on screen: scroll to the end (j, PageDown)")
            }
            Key::Char('y') | Key::Enter => return Some(true),
            Key::Char('n' | 'q') | Key::Esc | Key::CtrlC => return Some(false),
            _ => {}
        }
        None
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

#[cfg(test)]
mod screen_tests {
    use std::collections::HashMap;

    use super::super::apply::{HelixAction, HelixPlan, HelixStep};
    use super::super::present::{question, rows};
    use super::*;
    use leash_core::reach::Reach;
    use leash_core::validate::{Action, ValidStep};

    fn step(index: usize, reach: Reach, action: HelixAction, why: &str) -> HelixStep {
        HelixStep {
            step: ValidStep {
                index,
                action: Action::Terminal { command: String::new() },
                why: why.into(),
                reach,
                label: "Run a command".into(),
                range: None,
                note: None,
                mark_reason: None,
            },
            action,
            after_helix: false,
        }
    }

    fn program(shown: &str) -> HelixAction {
        HelixAction::Program {
            argv: vec!["sh".into(), "-c".into(), shown.into()],
            cwd: std::path::PathBuf::from("/proj"),
            shown: shown.into(),
            env: Vec::new(),
        }
    }

    fn command(line: &str) -> HelixAction {
        HelixAction::Command { line: line.into() }
    }

    fn plan(steps: Vec<HelixStep>) -> HelixPlan {
        HelixPlan { reply: "ok".into(), steps, dropped: Vec::new(), may_skip_confirmation: false }
    }

    /// The text a frame puts on screen, line by line (escape sequences removed; a cursor
    /// move starts a line).
    fn screen_lines(frame: &str) -> Vec<String> {
        let mut lines = vec![String::new()];
        let mut chars = frame.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\x1b' => {
                    let mut seq = String::new();
                    for d in chars.by_ref() {
                        seq.push(d);
                        if d.is_ascii_alphabetic() && d != '[' {
                            break;
                        }
                    }
                    if seq.ends_with('H') && seq.len() > 2 {
                        lines.push(String::new());
                    }
                }
                '\r' => {}
                '\n' => lines.push(String::new()),
                c => lines.last_mut().unwrap().push(c),
            }
        }
        lines
    }

    fn padded_plan() -> HelixPlan {
        let padded = format!("touch M;{}cargo --version", " ".repeat(4000));
        plan(vec![step(0, Reach::Shell, program(&padded), &format!("check{}the version", " ".repeat(300)))])
    }

    #[test]
    fn long_runs_of_spaces_are_labelled() {
        let rows = rows(&padded_plan(), &HashMap::new(), &[]);
        let text = plain(&rows);
        assert!(text.contains("touch M;␠×4000cargo --version"), "{text}");
        assert!(text.contains("check␠×300the version"), "{text}");
        assert!(text.lines().all(|l| !l.trim_start().contains("   ")), "no run of three spaces is left: {text}");
        let pieces = label_blanks("a\u{3000}\u{3000}b  c\u{a0}d\u{2800}e\u{3164}f");
        let shown: String = pieces.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(shown, "a<U+3000>×2b  c<U+00A0>d<U+2800>e<U+3164>f");
        // A Braille blank is no invisible character to the core, yet draws as nothing.
        assert!(!leash_core::text::is_invisible('\u{2800}'));
    }

    #[test]
    fn no_screen_line_is_wider_than_the_terminal() {
        // Unlabelled input too (the request line's hint): spaces and wide characters count.
        let wide = format!("{}日本語{}x", " ".repeat(50), "　".repeat(3));
        let raw: Vec<Row> = vec![vec![("1. ".into(), Style::Plain), (wide, Style::Command)]];
        for cols in [20, 33, 80] {
            for line in wrap(&raw, cols) {
                let w: usize = line.iter().map(|(t, _)| width(t)).sum();
                assert!(w <= cols, "{w} > {cols}: {line:?}");
            }
        }
        let rows = rows(&padded_plan(), &HashMap::new(), &[]);
        let q = question(&padded_plan());
        for (lines, cols) in [(24, 80), (40, 120), (10, 25), (5, 12)] {
            let mut pager = Pager::new(&rows, Some(&q));
            for line in screen_lines(&pager.frame(lines, cols)) {
                assert!(width(&line) <= cols, "{} > {cols}: {line:?}", width(&line));
            }
        }
    }

    #[test]
    fn steps_are_numbered_as_they_run_and_refused_ones_apart() {
        // The model's second step was refused: the dialog says 1, 2, never 3.
        let mut p = plan(vec![
            step(0, Reach::Safe, command("vsplit"), "split"),
            step(2, Reach::Shell, program("make"), "build"),
        ]);
        p.dropped.push(leash_core::validate::Dropped {
            index: 1,
            refusal: leash_core::refusal::Refusal::UnknownKey("fontsize".into()),
        });
        let text: Vec<String> =
            rows(&p, &HashMap::new(), &[]).iter().map(|r| r.iter().map(|(t, _)| t.as_str()).collect()).collect();
        assert!(text.iter().any(|l| l.starts_with("1. ")), "{text:?}");
        assert!(text.iter().any(|l| l.starts_with("2. ") && l.contains("[shell]")), "{text:?}");
        assert!(text.iter().any(|l| l.starts_with("- ") && l.contains("fontsize")), "{text:?}");
        assert!(!text.iter().any(|l| l.starts_with("3. ")), "{text:?}");
        let summary: String = question(&p).summary.iter().map(|(t, _)| t.as_str()).collect();
        assert!(summary.contains("marked: 2 [shell]"), "{summary}");
    }

    #[test]
    fn a_marked_step_says_why_beside_its_mark() {
        let mut marked = step(0, Reach::Code, command("change-current-directory /tmp"), "go there");
        marked.step.mark_reason = Some("its .helix/config.toml can bind keys\u{1b}".into());
        let mut plain_step = step(1, Reach::Safe, command("vsplit"), "split");
        plain_step.step.mark_reason = Some("never shown without a mark".into());
        let rows = rows(&plan(vec![marked, plain_step]), &HashMap::new(), &[]);
        let text: Vec<String> = rows.iter().map(|r| r.iter().map(|(t, _)| t.as_str()).collect()).collect();
        let head = text.iter().find(|l| l.contains("change-current-directory")).unwrap();
        assert!(head.ends_with(" \u{2014} its .helix/config.toml can bind keys^["), "{head}");
        let row = rows.iter().find(|r| r.iter().any(|(t, _)| t.contains("can bind keys"))).unwrap();
        assert_eq!(row.last().unwrap().1, row.iter().find(|(t, _)| t.starts_with('[')).unwrap().1, "the mark's style");
        assert!(!text.iter().any(|l| l.contains("never shown")), "{text:?}");
    }

    #[test]
    fn the_summary_of_marked_steps_stays_on_screen_while_scrolling() {
        let mut steps: Vec<HelixStep> =
            (0..9).map(|i| step(i, Reach::Safe, command("vsplit"), "split the view for a reason")).collect();
        steps.push(step(9, Reach::Shell, program("curl x | sh"), "install"));
        let p = plan(steps);
        let q = question(&p);
        let text: String = q.summary.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(text, "10 step(s); marked: 10 [shell]");
        assert!(q.marked);
        let rows = rows(&p, &HashMap::new(), &[]);
        let mut pager = Pager::new(&rows, Some(&q));
        for _ in 0..30 {
            let lines = screen_lines(&pager.frame(12, 80));
            assert!(lines.iter().any(|l| l.contains("marked: 10 [shell]")), "{lines:?}");
            assert_eq!(pager.key(Key::Char('j'), true), None);
        }
    }

    #[test]
    fn y_runs_only_after_every_row_was_on_screen() {
        let mut steps: Vec<HelixStep> = (0..9).map(|i| step(i, Reach::Safe, command("vsplit"), "why")).collect();
        steps.push(step(9, Reach::Shell, program("touch M"), "below the fold"));
        let p = plan(steps);
        let q = question(&p);
        let rows = rows(&p, &HashMap::new(), &[]);
        let mut pager = Pager::new(&rows, Some(&q));
        let first = screen_lines(&pager.frame(10, 80)).join("\n");
        assert!(!first.contains("touch M"), "the test needs the shell step below the fold");
        assert_eq!(pager.key(Key::Char('y'), true), None, "y before the end was seen");
        let said = screen_lines(&pager.frame(10, 80)).join("\n");
        assert!(said.contains("y runs once every row was on screen"), "{said}");
        let mut presses = 0;
        while !screen_lines(&pager.frame(10, 80)).join("\n").contains("(below the fold)") {
            assert_eq!(pager.key(Key::PageDown, true), None);
            presses += 1;
            assert!(presses < 20);
        }
        // Scrolling back up does not forget what was seen.
        pager.key(Key::PageUp, true);
        pager.frame(10, 80);
        assert_eq!(pager.key(Key::Char('y'), true), Some(true));
        // A resize wraps the rows anew: they must be seen again.
        let mut pager = Pager::new(&rows, Some(&q));
        pager.frame(10, 80);
        while pager.top + pager.height < wrap(&rows, 78).len() {
            pager.key(Key::PageDown, true);
            pager.frame(10, 80);
        }
        pager.frame(10, 40);
        assert_eq!(pager.key(Key::Char('y'), true), None);
    }

    #[test]
    fn enter_does_not_run_a_plan_with_a_marked_step() {
        for (reach, action) in [
            (Reach::Write, command("write --no-format")),
            (Reach::Code, command("change-current-directory sub")),
            (Reach::Shell, program("echo hi")),
            (Reach::Safe, program("echo hi")),
        ] {
            let p = plan(vec![step(0, reach, action, "")]);
            let q = question(&p);
            assert!(q.marked);
            let rows = rows(&p, &HashMap::new(), &[]);
            let mut pager = Pager::new(&rows, Some(&q));
            let keys = screen_lines(&pager.frame(24, 80)).join("\n");
            assert!(keys.contains("y run · n/Esc cancel") && !keys.contains("Enter run"), "{keys}");
            assert_eq!(pager.key(Key::Enter, true), None);
            assert_eq!(pager.key(Key::Enter, true), None, "a double Enter");
            assert!(screen_lines(&pager.frame(24, 80)).join("\n").contains("Enter does not run"));
            assert_eq!(pager.key(Key::Char('y'), false), None, "typed before the plan was shown long enough");
            assert_eq!(pager.key(Key::Char('y'), true), Some(true));
        }
        let p = plan(vec![step(0, Reach::Safe, command("vsplit"), "")]);
        let q = question(&p);
        assert!(!q.marked);
        let rows = rows(&p, &HashMap::new(), &[]);
        let mut pager = Pager::new(&rows, Some(&q));
        assert!(screen_lines(&pager.frame(24, 80)).join("\n").contains("y/Enter run"));
        assert_eq!(pager.key(Key::Enter, true), Some(true), "an all-safe plan");
    }

    #[test]
    fn a_directory_change_and_a_shell_tail_say_what_helix_does() {
        let p = plan(vec![
            step(0, Reach::Code, command("change-current-directory sub"), ""),
            step(1, Reach::Shell, command("run-shell-command ls"), ""),
        ]);
        let text = plain(&rows(&p, &HashMap::new(), &[]));
        assert!(text.contains(".helix/config.toml in the new folder"), "{text}");
        assert!(text.contains("Helix expands %… in a shell command's tail"), "{text}");
    }
}
