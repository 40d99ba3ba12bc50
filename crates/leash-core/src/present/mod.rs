//! How a validated plan is shown to the person who decides whether it runs: one
//! presenter for Neovim's plan window and Helix's dialog.
//!
//! The rows say, in order: a summary line (when the editor shows one), the model's
//! reply, each step numbered 1…n as it runs with its mark (`[write]`, `[code]`,
//! `[plugin]`, `[shell]`), the checker's note and the model's reason under it, and the
//! steps the checker refused, with their reasons. An editor gives each step's own words
//! (a [`StepView`]: [`crate::profile::neovim::present`] for Neovim, the `leash` program's
//! `helix::present` for Helix); the editors only
//! draw the rows, mapping each [`Style`] to a highlight group or a terminal colour.
//!
//! Everything the model wrote goes through [`visible`] before it reaches a row, and a
//! row's style comes from the step's fields (its reach, its kind), never from its text.

use serde::Serialize;
use serde_json::Value;

use crate::reach::Reach;
pub use crate::text::visible;

/// What a piece of text is, for the editor to colour it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Style {
    Plain,
    /// The summary and the heading of the refused steps.
    Heading,
    /// The model's reply.
    Reply,
    /// A whole command line or program, as it runs.
    Command,
    /// The model's reason for a step.
    Why,
    /// What leash adds to explain a step (a label for blank characters, what a command
    /// does beyond its name).
    Note,
    /// A refused step, "Nothing to run."
    Dropped,
    /// A setting that already has its value.
    Unchanged,
    /// Keys the user presses.
    Keys,
    Error,
    /// A line a step adds or removes, in the effect a dry run showed.
    Added,
    Removed,
    /// The marks, by reach.
    Write,
    Code,
    Plugin,
    Shell,
}

impl Style {
    /// Every style (a test holds each to a name of its own).
    pub const ALL: [Style; 16] = [
        Style::Plain,
        Style::Heading,
        Style::Reply,
        Style::Command,
        Style::Why,
        Style::Note,
        Style::Dropped,
        Style::Unchanged,
        Style::Keys,
        Style::Error,
        Style::Added,
        Style::Removed,
        Style::Write,
        Style::Code,
        Style::Plugin,
        Style::Shell,
    ];

    /// The style's name, as Neovim's side receives it (`"shell"`, `"why"`…).
    pub fn name(self) -> &'static str {
        match self {
            Style::Plain => "plain",
            Style::Heading => "heading",
            Style::Reply => "reply",
            Style::Command => "command",
            Style::Why => "why",
            Style::Note => "note",
            Style::Dropped => "dropped",
            Style::Unchanged => "unchanged",
            Style::Keys => "keys",
            Style::Error => "error",
            Style::Added => "added",
            Style::Removed => "removed",
            Style::Write => "write",
            Style::Code => "code",
            Style::Plugin => "plugin",
            Style::Shell => "shell",
        }
    }
}

/// One row: pieces of text with their style.
pub type Row = Vec<(String, Style)>;

/// A mark before a step's words: its text (`"[shell] "`) and style.
pub type Mark = (String, Style);

/// The mark a step of `reach` carries: every reach the user must confirm has one.
pub fn mark(reach: Reach) -> Option<Mark> {
    let style = match reach {
        Reach::Safe | Reach::Edit => return None,
        Reach::Write => Style::Write,
        Reach::Code => Style::Code,
        Reach::Plugin => Style::Plugin,
        Reach::Shell => Style::Shell,
    };
    Some((format!("[{reach}] "), style))
}

/// The mark of a step that runs a shell whatever its reach says (a terminal step).
pub fn shell_mark() -> Mark {
    ("[shell] ".into(), Style::Shell)
}

/// One step in the editor's words.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepView {
    /// Its mark, if it has one.
    pub mark: Option<Mark>,
    /// The first row's words, after the number and the mark.
    pub head: Row,
    /// Why the step is marked, in a few words, from the rule that decided its reach (the
    /// validator's `mark_reason`): at the end of the first row, in the mark's style, and
    /// only when there is a mark.
    pub mark_reason: Option<String>,
    /// Rows under the head, indented under its words (a whole command, the file a step
    /// acts on).
    pub body: Vec<Row>,
    /// What the checker found that the words alone do not say (why a step reaches
    /// further, the folder a script runs in); drawn in the mark's style.
    pub note: Option<String>,
    /// The model's reason.
    pub why: String,
    /// What a dry run showed the step does (a diff, or why there is none), under the
    /// reason, indented like it.
    pub effect: Vec<Row>,
}

/// A plan in the editor's words, ready to become rows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlanView {
    /// The first line (Neovim's window); Helix says it beside its question instead.
    pub summary: Option<String>,
    pub reply: String,
    pub steps: Vec<StepView>,
    /// Why each refused step was refused.
    pub refused: Vec<String>,
}

/// The plan's rows.
pub fn rows(plan: &PlanView) -> Vec<Row> {
    let mut out: Vec<Row> = Vec::new();
    if let Some(summary) = &plan.summary {
        out.push(vec![(summary.clone(), Style::Heading)]);
        out.push(Vec::new());
    }
    let reply = visible(&plan.reply);
    if !reply.is_empty() {
        out.push(vec![(reply, Style::Reply)]);
        out.push(Vec::new());
    }
    if plan.steps.is_empty() {
        out.push(vec![("Nothing to run.".into(), Style::Dropped)]);
    }
    for (pos, step) in plan.steps.iter().enumerate() {
        // The steps that run are numbered 1…n as they run (the model's own numbering,
        // with refused steps in it, is not the user's business).
        let num = format!("{}. ", pos + 1);
        let indent = " ".repeat(num.len());
        let mut head: Row = vec![(num, Style::Plain)];
        head.extend(step.mark.clone());
        head.extend(step.head.iter().cloned());
        let reason = step.mark_reason.as_deref().map(visible).unwrap_or_default();
        if let (Some((_, style)), false) = (&step.mark, reason.is_empty()) {
            head.push((format!(" \u{2014} {reason}"), *style));
        }
        out.push(head);
        for body in &step.body {
            let mut row: Row = vec![(indent.clone(), Style::Plain)];
            row.extend(body.iter().cloned());
            out.push(row);
        }
        let note = step.note.as_deref().map(visible).unwrap_or_default();
        if !note.is_empty() {
            let style = step.mark.as_ref().map_or(Style::Why, |(_, s)| *s);
            out.push(vec![(indent.clone(), Style::Plain), (note, style)]);
        }
        let why = visible(&step.why);
        if !why.is_empty() {
            out.push(vec![(indent.clone(), Style::Plain), (format!("({why})"), Style::Why)]);
        }
        for effect in &step.effect {
            let mut row: Row = vec![(indent.clone(), Style::Plain)];
            row.extend(effect.iter().cloned());
            out.push(row);
        }
    }
    if !plan.refused.is_empty() {
        out.push(Vec::new());
        out.push(vec![("Not run (refused by the checker):".into(), Style::Heading)]);
        for reason in &plan.refused {
            out.push(vec![("- ".into(), Style::Dropped), (visible(reason), Style::Dropped)]);
        }
    }
    out
}

/// What a plan's steps reach, counted for its summary line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub steps: usize,
    pub shell: usize,
    pub plugin: usize,
    pub code: usize,
    pub write: usize,
    /// Steps whose reach the editor's side did not know (shown and confirmed as shell).
    pub unknown: usize,
    /// Settings that change nothing.
    pub same: usize,
}

impl Counts {
    /// Counts one step: its reach (`None`: unknown), whether it runs a shell whatever its
    /// reach says, whether it changes nothing.
    pub fn add(&mut self, reach: Option<Reach>, terminal: bool, same: bool) {
        self.steps += 1;
        match reach {
            _ if terminal => self.shell += 1,
            Some(Reach::Shell) => self.shell += 1,
            Some(Reach::Plugin) => self.plugin += 1,
            Some(Reach::Code) => self.code += 1,
            Some(Reach::Write) => self.write += 1,
            Some(Reach::Safe | Reach::Edit) => {}
            None => self.unknown += 1,
        }
        self.same += usize::from(same);
    }
}

/// The summary line: how many steps, how many of them run a shell command, run code or
/// write files, and how many change nothing (`2 steps: 1 runs a shell command.`).
/// Static words and numbers only.
pub fn summary(n: &Counts) -> String {
    fn count(n: usize, one: &str, many: &str) -> String {
        format!("{n} {}", if n == 1 { one } else { many })
    }
    let mut parts = Vec::new();
    if n.shell > 0 {
        parts.push(count(n.shell, "runs a shell command", "run shell commands"));
    }
    if n.plugin > 0 {
        parts.push(count(n.plugin, "runs plugin code", "run plugin code"));
    }
    if n.code > 0 {
        parts.push(count(n.code, "runs code", "run code"));
    }
    if n.write > 0 {
        parts.push(count(n.write, "writes files", "write files"));
    }
    if n.unknown > 0 {
        parts.push(count(n.unknown, "has an unknown reach", "have an unknown reach"));
    }
    if parts.is_empty() {
        parts.push("no shell command, no code, no file writes".into());
    }
    let mut text = format!("{} step{}: {}", n.steps, if n.steps == 1 { "" } else { "s" }, parts.join(", "));
    if n.steps > 0 && n.same == n.steps {
        text.push_str("; nothing changes, every setting already has its value");
    } else if n.same > 0 {
        text.push_str("; ");
        text.push_str(&count(n.same, "changes nothing", "change nothing"));
    }
    text.push('.');
    text
}

/// A value as shown: a string quoted, none as `(none)`, a whole number without a
/// fraction (`4.0` as `4`, as Lua writes it), all made visible.
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => format!("\"{}\"", visible(s)),
        Value::Null => "(none)".into(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
            _ => n.to_string(),
        },
        Value::Object(_) if text_of(v).is_some() => format!("\"{}\"", visible(text_of(v).unwrap_or_default())),
        other => visible(&other.to_string()),
    }
}

/// The text of a string value, or of a string that is not UTF-8 as the Lua side hands
/// it over (`{"bytes": "<its visible form>"}`: a file name, a folder in a note).
pub fn text_of(v: &Value) -> Option<&str> {
    match v {
        Value::String(s) => Some(s),
        Value::Object(m) if m.len() == 1 => m.get("bytes").and_then(Value::as_str),
        _ => None,
    }
}

/// Whether two values are the same setting value (`4` and `4.0` are).
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// ` on lines 2–4` for a step that runs on the user's lines, `""` for none.
pub fn range_text(range: Option<(u64, u64)>) -> String {
    match range {
        Some((a, b)) if a == b => format!(" on line {a}"),
        Some((a, b)) => format!(" on lines {a}–{b}"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(rows: &[Row]) -> Vec<String> {
        rows.iter().map(|r| r.iter().map(|(t, _)| t.as_str()).collect()).collect()
    }

    #[test]
    fn numbers_steps_as_they_run_and_indents_what_belongs_to_each() {
        let plan = PlanView {
            summary: Some("2 steps: 1 runs a shell command.".into()),
            reply: "Sure.".into(),
            steps: vec![
                StepView {
                    head: vec![("Set wrap: true".into(), Style::Plain)],
                    why: "wrap".into(),
                    ..Default::default()
                },
                StepView {
                    mark: Some(shell_mark()),
                    head: vec![("Run in a terminal:".into(), Style::Plain)],
                    body: vec![vec![("make".into(), Style::Command)]],
                    note: Some("runs in ~/src".into()),
                    ..Default::default()
                },
            ],
            refused: vec!["step 2: unknown id".into()],
        };
        let rows = rows(&plan);
        assert_eq!(
            text(&rows),
            [
                "2 steps: 1 runs a shell command.",
                "",
                "Sure.",
                "",
                "1. Set wrap: true",
                "   (wrap)",
                "2. [shell] Run in a terminal:",
                "   make",
                "   runs in ~/src",
                "",
                "Not run (refused by the checker):",
                "- step 2: unknown id",
            ]
        );
        // The note takes its step's mark style; a reason is always a reason.
        assert_eq!(rows[8][1].1, Style::Shell);
        assert_eq!(rows[5][1].1, Style::Why);
        assert_eq!(rows[2][0].1, Style::Reply);
    }

    #[test]
    fn model_text_is_made_visible_everywhere_it_lands() {
        let plan = PlanView {
            reply: "ok\u{202e}".into(),
            steps: vec![StepView { note: Some("n\x1b".into()), why: "w\u{200b}".into(), ..Default::default() }],
            refused: vec!["r\u{e0041}".into()],
            ..Default::default()
        };
        let all = text(&rows(&plan)).join("\n");
        for hidden in ['\u{202e}', '\x1b', '\u{200b}', '\u{e0041}'] {
            assert!(!all.contains(hidden), "{hidden:?} in {all:?}");
        }
        assert!(all.contains("<U+202E>") && all.contains("^["), "{all}");
    }

    #[test]
    fn an_empty_plan_says_so() {
        assert_eq!(text(&rows(&PlanView::default())), ["Nothing to run."]);
    }

    #[test]
    fn marks_every_reach_that_needs_the_user() {
        for reach in [Reach::Safe, Reach::Edit, Reach::Write, Reach::Code, Reach::Plugin, Reach::Shell] {
            assert_eq!(mark(reach).is_some(), reach.needs_confirmation(), "{reach}");
        }
        assert_eq!(mark(Reach::Plugin), Some(("[plugin] ".into(), Style::Plugin)));
    }

    #[test]
    fn summary_counts_terminals_as_shell_and_says_what_changes_nothing() {
        let mut n = Counts::default();
        n.add(Some(Reach::Safe), true, false);
        n.add(Some(Reach::Code), false, false);
        n.add(None, false, false);
        n.add(Some(Reach::Safe), false, true);
        assert_eq!(
            summary(&n),
            "4 steps: 1 runs a shell command, 1 runs code, 1 has an unknown reach; 1 changes nothing."
        );
        let mut all_same = Counts::default();
        all_same.add(Some(Reach::Safe), false, true);
        assert_eq!(
            summary(&all_same),
            "1 step: no shell command, no code, no file writes; nothing changes, every setting already has its value."
        );
    }

    #[test]
    fn values_read_as_the_editor_writes_them() {
        assert_eq!(value_text(&serde_json::json!(4.0)), "4");
        assert_eq!(value_text(&serde_json::json!(0.5)), "0.5");
        assert_eq!(value_text(&serde_json::json!("a\u{202e}")), "\"a<U+202E>\"");
        assert_eq!(value_text(&Value::Null), "(none)");
        assert!(same_value(&serde_json::json!(4), &serde_json::json!(4.0)));
        assert!(!same_value(&serde_json::json!("4"), &serde_json::json!(4)));
        assert_eq!(range_text(Some((3, 3))), " on line 3");
        assert_eq!(range_text(Some((2, 4))), " on lines 2–4");
    }

    #[test]
    fn every_style_has_its_own_name() {
        let names: std::collections::HashSet<_> = Style::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(names.len(), Style::ALL.len());
        for s in Style::ALL {
            assert_eq!(serde_json::to_value(s).ok(), Some(Value::String(s.name().into())));
        }
    }
}
