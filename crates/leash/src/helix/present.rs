//! Helix's plan dialog in words: each step of a plan in Helix's terms, given to the
//! core's presenter ([`leash_core::present`]), which writes the rows both editors show.
//!
//! A setting says its current value and where it comes from (`4 (config.toml) → 8`), a
//! list option the array config.toml gets; a Helix command is shown whole, with what it
//! does beyond its name; a program shows its whole command line and when it runs
//! (before Helix's commands or after them).

use std::collections::HashMap;

use super::apply::{HelixAction, HelixPlan, HelixStep};
use super::dialog::{labelled, Question};
use leash_core::entry::SettingValue;
use leash_core::item_id::TERM_RUN;
use leash_core::present::{self, mark, shell_mark, value_text, visible, PlanView, Row, StepView, Style};
use leash_core::reach::Reach;

/// The plan's rows. `current` holds the current value of each setting step (by plan
/// index), with where it comes from; `notes` are rows leash adds at the end.
pub fn rows(plan: &HelixPlan, current: &HashMap<usize, (serde_json::Value, &'static str)>, notes: &[Row]) -> Vec<Row> {
    let view = PlanView {
        summary: None,
        reply: plan.reply.clone(),
        steps: plan.steps.iter().map(|s| step_view(s, current)).collect(),
        refused: plan.dropped.iter().map(|d| d.refusal.to_string()).collect(),
    };
    let mut out = present::rows(&view);
    if !notes.is_empty() {
        out.push(Vec::new());
        out.extend(notes.iter().cloned());
    }
    labelled(out)
}

/// One step in Helix's words.
fn step_view(s: &HelixStep, current: &HashMap<usize, (serde_json::Value, &'static str)>) -> StepView {
    let mut view = StepView {
        mark: mark(s.step.reach),
        mark_reason: s.step.mark_reason.clone(),
        note: s.step.note.clone(),
        why: s.step.why.clone(),
        ..Default::default()
    };
    let plain = |t: String| (t, Style::Plain);
    match &s.action {
        HelixAction::Setting { key, value } => {
            // A list option as the array config.toml gets.
            let written = match value {
                SettingValue::String(s) => leash_core::profile::helix::list_array(key, s),
                _ => None,
            };
            let new = value_text(&written.unwrap_or_else(|| serde_json::to_value(value).unwrap_or_default()));
            let change = match current.get(&s.step.index) {
                Some((now, from)) => format!("{}{from} → {new}", value_text(now)),
                None => new,
            };
            view.head = vec![plain(format!("Set {}: {change}", visible(key)))];
        }
        HelixAction::Command { line } => {
            view.head = vec![plain("Run ".into()), (format!(":{}", visible(line)), Style::Command)];
            if let Some(note) = command_note(line) {
                view.body = vec![vec![(note.into(), Style::Note)]];
            }
        }
        HelixAction::Keys { name, keys, .. } => {
            view.head = vec![
                plain(format!("{}: ", visible(&s.step.label))),
                (format!("key {}", super::statics::shown_key(keys)), Style::Command),
                plain(format!(" ({name})")),
            ];
        }
        HelixAction::Program { shown, .. } => {
            view.mark = Some(view.mark.unwrap_or_else(shell_mark));
            let terminal = matches!(s.step.action, leash_core::validate::Action::Terminal { .. })
                || matches!(&s.step.action, leash_core::validate::Action::Item { id, .. } if TERM_RUN == *id);
            let when = if s.after_helix { " after Helix's commands above" } else { "" };
            let head = if terminal {
                format!("Run in a terminal{when}:")
            } else {
                format!("{}, in a terminal{when}:", visible(&s.step.label))
            };
            view.head = vec![plain(head)];
            view.body = vec![vec![(visible(shown), Style::Command)]];
        }
        HelixAction::Delete { path } => {
            view.mark = Some(view.mark.unwrap_or_else(|| ("[write] ".into(), Style::Write)));
            view.head = vec![plain(format!("Delete {} and close its buffer", visible(&path.to_string_lossy())))];
        }
        HelixAction::Detached { argv } => {
            view.mark = Some(view.mark.unwrap_or_else(shell_mark));
            view.head = vec![plain("Start: ".into()), (visible(&argv.join(" ")), Style::Command)];
        }
    }
    view
}

/// What a Helix command does beyond its name, when that changes what the plan can do.
fn command_note(line: &str) -> Option<&'static str> {
    let name = line.split(' ').next().unwrap_or_default();
    let t = leash_core::profile::helix::data().typable(name)?;
    if t.raw_after.is_some() {
        return Some("Helix expands %… in a shell command's tail before the shell sees it; leash lets no % through");
    }
    leash_core::profile::helix::CHANGES_DIRECTORY.contains(&t.name.as_str()).then_some(
        "Helix reloads its configuration after the plan: a .helix/config.toml in the new folder then \
         loads, and its key bindings can run programs",
    )
}

/// The mark a step is shown with (the same as its row's).
fn mark_name(s: &super::apply::HelixStep) -> &'static str {
    match (s.step.reach, &s.action) {
        (Reach::Shell, _) => "shell",
        (Reach::Code, _) => "code",
        (Reach::Write, _) | (_, HelixAction::Delete { .. }) => "write",
        _ => "shell",
    }
}

/// The question for a plan.
pub fn question(plan: &HelixPlan) -> Question {
    let marked: Vec<String> = plan
        .steps
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_marked())
        .map(|(pos, s)| format!("{} [{}]", pos + 1, mark_name(s)))
        .collect();
    let steps = plan.steps.len();
    let summary = if marked.is_empty() {
        vec![(format!("{steps} step(s), none marked"), Style::Note)]
    } else {
        vec![
            (format!("{steps} step(s); marked: "), Style::Heading),
            (
                marked.join(", "),
                if plan.steps.iter().any(|s| mark_name(s) == "shell" && s.is_marked()) {
                    Style::Shell
                } else {
                    Style::Write
                },
            ),
        ]
    };
    Question { summary, marked: !marked.is_empty() }
}
