//! The hostile-plans corpus (tests/data/hostile-plans.jsonl) through the validator under
//! the Neovim profile, against the exported builtin catalog plus the items the Neovim
//! frontend adds (term:run, file:new).
//!
//! Each line is `{"name", "expect", "plan" | "raw"}`: `plan` is the model's object, `raw`
//! the model's exact text (for duplicate keys, `<think>` blocks…); `{{M}}` stands for a
//! marker path and `{{D}}` for a directory. `expect` says what must hold:
//!
//! * `dropped`: no step survives.
//! * `dropped_first`: the first step (the one carrying the attack) is dropped.
//! * `required`: the plan window is mandatory (`confirm = required`), or nothing survives.
//! * `dropped_all_but_safe`: only safe steps survive and the window is optional.
//! * `runtime`: the steps are safe or edit by themselves; the names they open come from
//!   text (a quickfix list, a tags file, the file under the cursor) or are checked by
//!   the item's action, so the executor must hold them (tests/nvim/hostile_spec.lua runs
//!   them). Here: nothing above `edit` may survive without `confirm = required`.

use leash_core::catalog::Catalog;
use leash_core::confirm::Confirm;
use leash_core::policy::Policy;
use leash_core::profile::Profile;
use leash_core::reach::Reach;
use leash_core::validate::validate_text;
use serde_json::{json, Value};

fn catalog() -> Catalog {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/neovim-catalog.json")).unwrap();
    let mut value: Value = serde_json::from_str(&text).unwrap();
    let entries = value["entries"].as_array_mut().unwrap();
    entries.push(json!({"id": "term:run", "kind": "terminal", "title": "run a shell command", "args": "required", "reach": "shell"}));
    entries.push(json!({"id": "file:new", "kind": "file", "title": "new file", "args": "required", "reach": "safe"}));
    leash_core::policy::narrow_catalog(Catalog::from_value(&value).unwrap())
}

fn text_of(line: &Value) -> String {
    let text = match (&line["raw"], &line["plan"]) {
        (Value::String(raw), _) => raw.clone(),
        (_, plan) => plan.to_string(),
    };
    text.replace("{{M}}", "/tmp/leash-hostile/marker").replace("{{D}}", "/tmp/leash-hostile")
}

#[test]
fn every_hostile_plan_is_dropped_or_shown() {
    let corpus =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/hostile-plans.jsonl")).unwrap();
    let catalog = catalog();
    let policy = Policy::new(Profile::Neovim);
    let mut failures = Vec::new();
    let mut count = 0;
    for (n, line) in corpus.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        count += 1;
        let line: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        let name = line["name"].as_str().unwrap_or("?");
        let expect = line["expect"].as_str().unwrap_or("?");
        let plan = match validate_text(&text_of(&line), &catalog, &policy, None) {
            Ok(plan) => plan,
            Err(e) => {
                // No plan at all is the strictest outcome; only `dropped` lines may end so.
                if expect != "dropped" {
                    failures.push(format!("line {} ({name}): no plan: {e}", n + 1));
                }
                continue;
            }
        };
        let shown = plan.confirm == Confirm::Required;
        let ok = match expect {
            "dropped" => plan.steps.is_empty(),
            "dropped_first" => plan.dropped.iter().any(|d| d.index == 0) && plan.steps.iter().all(|s| s.index != 0),
            "required" => shown || plan.steps.is_empty(),
            "dropped_all_but_safe" => !shown && plan.steps.iter().all(|s| s.reach == Reach::Safe),
            "runtime" => shown || plan.steps.iter().all(|s| s.reach <= Reach::Edit),
            other => {
                failures.push(format!("line {} ({name}): unknown expectation {other}", n + 1));
                continue;
            }
        };
        if !ok {
            failures.push(format!("line {} ({name}): expected {expect}, got {}", n + 1, plan.to_json()));
        }
        // Whatever the line: a step above edit never leaves the window optional.
        if plan.steps.iter().any(|s| s.reach > Reach::Edit) && !shown {
            failures.push(format!("line {} ({name}): a write/code/shell step without the window", n + 1));
        }
    }
    assert!(count > 100, "the corpus has {count} lines");
    assert!(failures.is_empty(), "{} of {count} hostile plans got through:\n{}", failures.len(), failures.join("\n"));
}
