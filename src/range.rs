//! The user's line range: the lines `:'<,'>Do …` or `:2,4Do …` was given, which every
//! step whose command takes a range runs on.
//!
//! The range is the user's input, handed over by the editor beside the request; the
//! model never supplies one (the plan parser reads no range from a step). After
//! validation, [`apply`] gives it to each kept item whose catalog entry says it takes a
//! line range, and says so in the step's label ("Run :sort on lines 2–4").

use serde::{Deserialize, Serialize};

use crate::catalog::Catalog;
use crate::refusal::Refusal;
use crate::validate::{Action, Confirm, Dropped, ValidatedPlan};

/// Builtin commands that, given a range, run the buffer's lines in it as code
/// (`:{range}lua` and `:{range}source`; `:@` and `:*` are withheld already). The lines
/// are buffer text the plan window does not show, so such a step is dropped. Commands that
/// run *their argument* on each line (`:luado`, `:global`, `:substitute`) show what runs.
const RUNS_LINES: &[&str] = &["cmd:lua", "cmd:source", "cmd:@", "cmd:*"];

/// Lines `line1` to `line2`, counted from 1, `line1 <= line2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(into = "[u64; 2]")]
pub struct LineRange {
    line1: u64,
    line2: u64,
}

/// Why a range is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RangeError {
    #[error("a line range starts at line 1 or later, not {0}")]
    Zero(u64),
    #[error("a line range runs forward: {0} is after {1}")]
    Backwards(u64, u64),
}

impl LineRange {
    /// The range from `line1` to `line2`.
    pub fn new(line1: u64, line2: u64) -> Result<LineRange, RangeError> {
        if line1 == 0 {
            return Err(RangeError::Zero(line1));
        }
        if line1 > line2 {
            return Err(RangeError::Backwards(line1, line2));
        }
        Ok(LineRange { line1, line2 })
    }

    pub fn line1(self) -> u64 {
        self.line1
    }

    pub fn line2(self) -> u64 {
        self.line2
    }

    /// `line 3` or `lines 2–4`.
    pub fn describe(self) -> String {
        if self.line1 == self.line2 {
            format!("line {}", self.line1)
        } else {
            format!("lines {}–{}", self.line1, self.line2)
        }
    }
}

impl From<LineRange> for [u64; 2] {
    fn from(r: LineRange) -> [u64; 2] {
        [r.line1, r.line2]
    }
}

impl<'de> Deserialize<'de> for LineRange {
    /// `[2, 4]`, checked.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<LineRange, D::Error> {
        let [line1, line2] = <[u64; 2]>::deserialize(d)?;
        LineRange::new(line1, line2).map_err(serde::de::Error::custom)
    }
}

/// Gives `range` to every kept item step whose catalog entry takes a line range, and
/// puts it in the step's label. Steps of other kinds, and items that take no range, are
/// left as they are. A step that would run the lines as code ([`RUNS_LINES`]) is dropped
/// with the reason.
pub fn apply(plan: &mut ValidatedPlan, catalog: &Catalog, range: Option<LineRange>) {
    let Some(range) = range else { return };
    let mut kept = Vec::with_capacity(plan.steps.len());
    for mut step in std::mem::take(&mut plan.steps) {
        if let Action::Item { id, .. } = &step.action {
            if catalog.item(id).is_some_and(|item| item.range) {
                if RUNS_LINES.contains(&id.as_str()) {
                    let refusal = Refusal::CodeOnRange { id: id.clone(), lines: range.describe() };
                    plan.dropped.push(Dropped { index: step.index, refusal });
                    continue;
                }
                step.range = Some(range);
                step.label = format!("{} on {}", step.label, range.describe());
            }
        }
        kept.push(step);
    }
    plan.steps = kept;
    plan.dropped.sort_by_key(|d| d.index);
    if !plan.steps.iter().any(|s| s.reach.needs_confirmation()) {
        plan.confirm = Confirm::Default;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::parse;
    use crate::policy::{Policy, Profile};
    use crate::validate::validate;
    use serde_json::json;

    fn catalog() -> Catalog {
        Catalog::from_value(&json!({"version": 1, "editor": "neovim", "entries": [
            {"id": "cmd:sort", "kind": "command", "title": "sort lines", "args": "optional", "reach": "safe", "range": true},
            {"id": "cmd:nohlsearch", "kind": "command", "title": "stop highlighting", "args": "none", "reach": "safe"},
            {"key": "wrap", "title": "long lines wrap", "type": "boolean"}
        ]}))
        .unwrap()
    }

    fn plan(text: &str, range: Option<LineRange>) -> ValidatedPlan {
        let c = catalog();
        let mut p = validate(&parse(text).unwrap(), &c, &Policy::new(Profile::Neovim));
        apply(&mut p, &c, range);
        p
    }

    #[test]
    fn commands_that_take_a_range_run_on_the_users_lines() {
        let text = r#"{"steps": [{"type": "item", "id": "cmd:sort"}, {"type": "item", "id": "cmd:sort", "args": "n"},
            {"type": "item", "id": "cmd:nohlsearch"}, {"type": "setting", "key": "wrap", "value": true}]}"#;
        let p = plan(text, Some(LineRange::new(2, 4).unwrap()));
        assert_eq!(p.steps[0].range, Some(LineRange::new(2, 4).unwrap()));
        assert_eq!(p.steps[0].label, "Run :sort on lines 2–4");
        assert_eq!(p.steps[1].label, "Run :sort n on lines 2–4");
        assert_eq!((p.steps[2].range, p.steps[2].label.as_str()), (None, "Run :nohlsearch"));
        assert_eq!(p.steps[3].range, None);
        assert_eq!(p.to_json()["steps"][0]["range"], json!([2, 4]));
        assert!(p.to_json()["steps"][2].get("range").is_none());
        let one = plan(text, Some(LineRange::new(3, 3).unwrap()));
        assert_eq!(one.steps[0].label, "Run :sort on line 3");
    }

    #[test]
    fn without_a_user_range_nothing_gets_one_whatever_the_model_writes() {
        let text = r#"{"steps": [{"type": "item", "id": "cmd:sort", "range": [1, 99]},
            {"type": "item", "id": "cmd:sort", "line1": 1, "line2": 99, "args": ""}]}"#;
        let p = plan(text, None);
        assert!(p.steps.iter().all(|s| s.range.is_none()), "{p:?}");
        assert_eq!(p.steps[0].label, "Run :sort");
        assert!(p.to_json()["steps"][0].get("range").is_none());
        // With a user range, the model's own range is still ignored: the user's is used.
        let p = plan(text, Some(LineRange::new(5, 6).unwrap()));
        assert!(p.steps.iter().all(|s| s.range == Some(LineRange::new(5, 6).unwrap())));
    }

    #[test]
    fn commands_that_would_run_the_lines_as_code_are_dropped() {
        let c = Catalog::from_value(&json!({"version": 1, "editor": "neovim", "entries": [
            {"id": "cmd:lua", "kind": "command", "title": "run Lua", "args": "optional", "reach": "code", "range": true},
            {"id": "cmd:source", "kind": "command", "title": "source", "args": "optional", "reach": "code", "range": true},
            {"id": "cmd:luado", "kind": "command", "title": "Lua on each line", "args": "required", "reach": "code", "range": true},
            {"id": "cmd:sort", "kind": "command", "title": "sort lines", "args": "optional", "reach": "safe", "range": true}
        ]}))
        .unwrap();
        let text = r#"{"steps": [{"type": "item", "id": "cmd:lua"}, {"type": "item", "id": "cmd:sort"},
            {"type": "item", "id": "cmd:source"}, {"type": "item", "id": "cmd:lua", "args": "print(1)"},
            {"type": "item", "id": "cmd:luado", "args": "return line:upper()"}]}"#;
        let run = |range| {
            let mut p = validate(&parse(text).unwrap(), &c, &Policy::new(Profile::Neovim));
            apply(&mut p, &c, range);
            p
        };
        let p = run(Some(LineRange::new(2, 3).unwrap()));
        let kept: Vec<_> = p.steps.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(kept, vec!["Run :sort on lines 2–3", "Run :luado return line:upper() on lines 2–3"]);
        assert_eq!(p.dropped.iter().map(|d| d.index).collect::<Vec<_>>(), vec![0, 2, 3]);
        assert!(p.dropped.iter().all(|d| d.code() == "code_on_range"));
        assert_eq!(
            p.dropped[0].refusal.to_string(),
            "“cmd:lua” would run lines 2–3 as code, and the plan window does not show them; leash does not run the lines of a range as code"
        );
        // Without a range `:lua` runs its shown argument as usual.
        let p = run(None);
        assert_eq!((p.steps.len(), p.dropped.len()), (5, 0));
        // Only a safe step left: the window is no longer required.
        let only = r#"{"steps": [{"type": "item", "id": "cmd:lua"}, {"type": "item", "id": "cmd:sort"}]}"#;
        let mut p = validate(&parse(only).unwrap(), &c, &Policy::new(Profile::Neovim));
        assert_eq!(p.confirm, Confirm::Required);
        apply(&mut p, &c, Some(LineRange::new(1, 1).unwrap()));
        assert_eq!(p.confirm, Confirm::Default);
    }

    #[test]
    fn a_range_is_checked_when_it_is_read() {
        assert_eq!(LineRange::new(0, 3), Err(RangeError::Zero(0)));
        assert_eq!(LineRange::new(4, 2), Err(RangeError::Backwards(4, 2)));
        assert_eq!(serde_json::from_value::<LineRange>(json!([2, 4])).unwrap(), LineRange::new(2, 4).unwrap());
        assert!(serde_json::from_value::<LineRange>(json!([4, 2])).is_err());
        assert!(serde_json::from_value::<LineRange>(json!([-1, 2])).is_err());
        assert!(serde_json::from_value::<LineRange>(json!("2,4")).is_err());
    }
}
