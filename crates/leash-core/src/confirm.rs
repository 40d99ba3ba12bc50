//! When the person must see a plan before it runs: which steps are marked, and which
//! plans may run without the window. The one home of this rule: the validator sets a
//! plan's [`Confirm`] from it, Neovim's plan window asks it through the native module
//! (reading the plan the Lua side holds, [`plan_needs_window`]), and Helix's dialog asks
//! it of its own plan ([`may_run_unseen`]).
//!
//! A step is marked when its reach needs confirmation (`write`, `code`, `plugin`,
//! `shell`) or when the frontend runs it outside the editor whatever its reach says (a
//! terminal step or `term:` item runs a shell; Helix also starts programs and deletes
//! files itself). A plan runs without the window only when the user set
//! `confirm_before_run = false`, the validator said [`Confirm::Default`], and no step is
//! marked. Nothing in the model's text takes part: only the validated fields.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::item_id::ItemKind;
use crate::reach::Reach;

/// Whether the plan window must be shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confirm {
    /// Some step writes files, runs code or runs a program: always shown.
    Required,
    /// Every step is safe or edit: the user's `confirm_before_run` decides.
    Default,
}

/// Whether a step is marked (and so confirmed before the plan runs): its reach needs
/// confirmation, or the frontend runs it outside the editor (`outside`) whatever its
/// reach says.
pub fn step_is_marked(reach: Reach, outside: bool) -> bool {
    outside || reach.needs_confirmation()
}

/// The [`Confirm`] of a plan whose steps are marked as `marked` says.
pub fn plan_confirm(marked: impl IntoIterator<Item = bool>) -> Confirm {
    if marked.into_iter().any(|m| m) {
        Confirm::Required
    } else {
        Confirm::Default
    }
}

/// Whether a plan may run without being shown: the user turned `confirm_before_run`
/// off, the validator said [`Confirm::Default`], and no step is marked.
pub fn may_run_unseen(confirm_before_run: bool, confirm: Confirm, marked: impl IntoIterator<Item = bool>) -> bool {
    !confirm_before_run && confirm == Confirm::Default && !marked.into_iter().any(|m| m)
}

/// Whether a step of a validated plan (as a frontend holds it: JSON-like, its fields
/// possibly of the wrong type) runs a shell whatever its reach says: a terminal step or
/// a `term:` item.
pub fn runs_a_shell(step: &Map<String, Value>) -> bool {
    let text = |key: &str| step.get(key).and_then(Value::as_str).unwrap_or_default();
    match text("type") {
        "terminal" => true,
        "item" => ItemKind::Terminal.holds(text("id")),
        _ => false,
    }
}

/// Whether a step of a plan a frontend holds is marked. A step that is not an object,
/// or whose reach is missing or unknown, is marked (unknown is `shell`).
pub fn step_value_is_marked(step: &Value) -> bool {
    let Some(step) = step.as_object() else { return true };
    match step.get("reach").and_then(Value::as_str).and_then(Reach::parse) {
        Some(reach) => step_is_marked(reach, runs_a_shell(step)),
        None => true,
    }
}

/// Whether a plan a frontend holds has a marked step; a plan without a list of steps
/// counts as marked.
pub fn plan_value_is_marked(plan: &Value) -> bool {
    match plan.get("steps").and_then(Value::as_array) {
        Some(steps) => steps.iter().any(step_value_is_marked),
        // Lua hands an empty list over as an empty object: nothing is marked in it.
        None => !plan.get("steps").and_then(Value::as_object).is_some_and(Map::is_empty),
    }
}

/// Whether a plan a frontend holds must be shown before it runs, read from its
/// validated fields only (`confirm`, each step's `reach`, `type` and `id`): anything
/// missing or of the wrong type shows the window.
pub fn plan_needs_window(plan: &Value, confirm_before_run: bool) -> bool {
    let confirm = match plan.get("confirm").and_then(Value::as_str) {
        Some("default") => Confirm::Default,
        _ => Confirm::Required,
    };
    let has_steps = plan.get("steps").is_some_and(|s| s.is_array() || s.as_object().is_some_and(Map::is_empty));
    !has_steps || !may_run_unseen(confirm_before_run, confirm, [plan_value_is_marked(plan)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn step(reach: &str) -> Value {
        json!({"index": 0, "type": "setting", "key": "wrap", "value": true, "reach": reach})
    }

    fn plan(confirm: &str, steps: Vec<Value>) -> Value {
        json!({"reply": "", "confirm": confirm, "steps": steps, "dropped": []})
    }

    #[test]
    fn only_safe_and_edit_steps_are_unmarked() {
        for reach in Reach::ALL {
            assert_eq!(step_is_marked(reach, false), !matches!(reach, Reach::Safe | Reach::Edit), "{reach}");
            assert!(step_is_marked(reach, true), "{reach} run outside the editor");
        }
    }

    #[test]
    fn a_plan_runs_unseen_only_when_the_user_asked_and_nothing_is_marked() {
        let safe = vec![step("safe"), step("edit")];
        assert!(!plan_needs_window(&plan("default", safe.clone()), false));
        assert!(plan_needs_window(&plan("default", safe.clone()), true), "confirm_before_run is on");
        assert!(plan_needs_window(&plan("required", safe.clone()), false), "the validator said required");
        for reach in ["write", "code", "plugin", "shell", "harmless", ""] {
            assert!(plan_needs_window(&plan("default", vec![step("safe"), step(reach)]), false), "{reach}");
        }
    }

    #[test]
    fn terminal_steps_are_marked_whatever_their_reach_says() {
        let terminal = json!({"type": "terminal", "command": "ls", "reach": "safe"});
        let term_run = json!({"type": "item", "id": "term:run", "args": ["ls"], "reach": "safe"});
        let not_term = json!({"type": "item", "id": "cmd:terminal", "reach": "safe"});
        assert!(step_value_is_marked(&terminal));
        assert!(step_value_is_marked(&term_run));
        assert!(!step_value_is_marked(&not_term), "an Ex command is judged by its reach");
        assert!(plan_needs_window(&plan("default", vec![term_run]), false));
    }

    #[test]
    fn anything_missing_or_mistyped_shows_the_window() {
        assert!(plan_needs_window(&json!({"confirm": "default"}), false), "no steps");
        assert!(plan_needs_window(&json!({"confirm": "default", "steps": "x"}), false));
        assert!(plan_needs_window(&json!({"steps": [step("safe")]}), false), "no confirm");
        assert!(plan_needs_window(&json!({"confirm": true, "steps": [step("safe")]}), false));
        assert!(plan_needs_window(&plan("default", vec![json!("a step that is not a table")]), false));
        assert!(plan_needs_window(&plan("default", vec![json!({"type": "setting", "reach": 1})]), false));
        assert!(plan_needs_window(&json!([]), false));
        // Lua's empty list arrives as an empty object: an empty plan, nothing marked.
        assert!(!plan_needs_window(&json!({"confirm": "default", "steps": {}}), false));
    }

    #[test]
    fn the_plan_confirm_follows_the_marks() {
        assert_eq!(plan_confirm([false, false]), Confirm::Default);
        assert_eq!(plan_confirm([false, true]), Confirm::Required);
        assert_eq!(plan_confirm([]), Confirm::Default);
    }
}
