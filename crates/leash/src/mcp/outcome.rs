//! What became of an agent's plan, as the agent reads it: from what leash in Neovim
//! recorded (the validated plan's kept and dropped steps, how many ran, the error), one
//! status for the plan and one per step of the plan as the agent wrote it, by position:
//! `ran`, `refused` (with the checker's code and reason), `failed` (with the message),
//! `not_run`, or `unchanged`.

use serde_json::{json, Value as Json};

/// The plan's status, as the agent reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The person ran it; every step that passed the checker ran.
    Ran,
    /// A step failed; the steps after it did not run.
    Failed,
    /// The person cancelled it, or it ended before they decided (replaced, withdrawn).
    Cancelled,
    /// The checker refused every step: nothing was shown to the person.
    Refused,
    /// Every step sets what is already set: nothing to run.
    NothingToRun,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ran => "ran",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
            Status::Refused => "refused",
            Status::NothingToRun => "nothing_to_run",
        }
    }

    /// Whether the agent must change something: a refused or failed plan is a tool error.
    pub fn is_error(self) -> bool {
        matches!(self, Status::Failed | Status::Refused)
    }
}

/// The agent's answer for plan `id`.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub status: Status,
    /// `{"plan", "status", "summary", "steps": [...]}`.
    pub value: Json,
}

/// Why an outcome could not be read (leash in Neovim and this program disagree).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the outcome leash in Neovim sent cannot be read: {0}")]
pub struct BadOutcome(String);

/// The report for plan `id` from the outcome lua/leash/agent.lua recorded:
/// `{status, ran, failed_step?, error?, steps: [kept step], dropped: [{index, code, reason}]}`.
pub fn report(id: u64, outcome: &Json) -> Result<Report, BadOutcome> {
    let bad = |what: &str| BadOutcome(format!("{what} in {outcome}"));
    let lua_status = outcome.get("status").and_then(Json::as_str).ok_or_else(|| bad("no status"))?;
    let ran = outcome.get("ran").and_then(Json::as_u64).unwrap_or(0) as usize;
    let failed_step = outcome.get("failed_step").and_then(Json::as_u64).map(|n| n as usize);
    let error = outcome.get("error").and_then(Json::as_str).unwrap_or("");
    let kept = list(outcome, "steps").ok_or_else(|| bad("no steps"))?;
    let dropped = list(outcome, "dropped").ok_or_else(|| bad("no dropped steps"))?;

    let (status, summary) = match lua_status {
        "ran" => (Status::Ran, format!("The person ran the plan: {} ran.", steps(kept.len()))),
        "failed" => match failed_step {
            Some(_) => (Status::Failed, format!("The plan stopped: {error}. {} ran before it.", steps(ran))),
            None => (Status::Failed, format!("The plan failed before any step ran: {error}")),
        },
        // An agent that hears only "cancelled" tends to propose the same plan again.
        "cancelled" => (
            Status::Cancelled,
            "The person cancelled the plan; nothing ran. Ask them what they want before proposing it again."
                .to_string(),
        ),
        "replaced" => {
            (Status::Cancelled, "A newer plan replaced it before the person saw it; nothing ran.".to_string())
        }
        "withdrawn" => (Status::Cancelled, "The plan was withdrawn before the person decided; nothing ran.".into()),
        "nothing to run" if kept.is_empty() && dropped.is_empty() => (
            Status::Refused,
            "The plan has no steps, so the person was shown nothing: propose at least one step (catalog_search \
             finds ids and keys)."
                .to_string(),
        ),
        "nothing to run" if kept.is_empty() => (
            Status::Refused,
            "leash refused every step, so the person was shown nothing: correct the steps (see each code and \
             reason; catalog_search finds ids and keys) and propose again."
                .to_string(),
        ),
        "nothing to run" => {
            (Status::NothingToRun, "Nothing to run: every setting already has the value the plan sets.".into())
        }
        other => return Err(bad(&format!("the status “{other}”"))),
    };

    let mut rows: Vec<(u64, Json)> = Vec::new();
    for (pos, step) in kept.iter().enumerate() {
        let index = step.get("index").and_then(Json::as_u64).ok_or_else(|| bad("a kept step without index"))?;
        let step_status = match status {
            Status::Ran => "ran",
            Status::NothingToRun => "unchanged",
            Status::Failed => match failed_step {
                Some(n) if pos + 1 < n => "ran",
                Some(n) if pos + 1 == n => "failed",
                _ => "not_run",
            },
            Status::Cancelled | Status::Refused => "not_run",
        };
        let mut row = json!({
            "index": index,
            "status": step_status,
            "label": step.get("label").cloned().unwrap_or(Json::Null),
            "reach": step.get("reach").cloned().unwrap_or(Json::Null),
        });
        if step_status == "failed" {
            row["message"] = Json::String(error.to_string());
        }
        rows.push((index, row));
    }
    for d in dropped {
        let index = d.get("index").and_then(Json::as_u64).ok_or_else(|| bad("a dropped step without index"))?;
        rows.push((
            index,
            json!({
                "index": index,
                "status": "refused",
                "code": d.get("code").cloned().unwrap_or(Json::Null),
                "reason": d.get("reason").cloned().unwrap_or(Json::Null),
            }),
        ));
    }
    rows.sort_by_key(|(index, _)| *index);
    let refused = dropped.len();
    let summary = if refused > 0 && status != Status::Refused {
        format!("{summary} {} refused by leash (see each reason).", steps(refused))
    } else {
        summary
    };
    Ok(Report {
        status,
        value: json!({
            "plan": id,
            "status": status.as_str(),
            "summary": summary,
            "steps": rows.into_iter().map(|(_, row)| row).collect::<Vec<_>>(),
        }),
    })
}

/// A list field; an empty Lua table arrives as `[]` or `{}`.
fn list<'a>(v: &'a Json, key: &str) -> Option<&'a [Json]> {
    match v.get(key)? {
        Json::Array(a) => Some(a),
        Json::Object(m) if m.is_empty() => Some(&[]),
        _ => None,
    }
}

fn steps(n: usize) -> String {
    format!("{n} step{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(index: u64, label: &str, reach: &str) -> Json {
        json!({"index": index, "type": "setting", "key": "x", "value": true, "label": label, "reach": reach})
    }

    fn outcome(status: &str, ran: u64, kept: Vec<Json>, dropped: Json) -> Json {
        json!({"status": status, "ran": ran, "error": null, "steps": kept, "dropped": dropped})
    }

    fn statuses(r: &Report) -> Vec<(u64, String)> {
        r.value["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["index"].as_u64().unwrap(), s["status"].as_str().unwrap().to_string()))
            .collect()
    }

    #[test]
    fn a_plan_that_ran_lists_each_step_in_the_agents_order_with_the_refused_ones() {
        let dropped = json!([{"index": 1, "code": "unknown_id", "reason": "“cmd:nope” is not in the catalog"}]);
        let o = outcome("ran", 2, vec![kept(0, "Set number = true", "safe"), kept(2, "Run make", "shell")], dropped);
        let r = report(7, &o).unwrap();
        assert_eq!(r.status, Status::Ran);
        assert!(!r.status.is_error());
        assert_eq!(r.value["plan"], 7);
        assert_eq!(r.value["status"], "ran");
        assert_eq!(statuses(&r), [(0, "ran".into()), (1, "refused".into()), (2, "ran".into())]);
        assert_eq!(r.value["steps"][1]["code"], "unknown_id");
        assert_eq!(r.value["steps"][1]["reason"], "“cmd:nope” is not in the catalog");
        assert_eq!(r.value["steps"][2]["reach"], "shell");
        assert_eq!(r.value["steps"][0]["label"], "Set number = true");
        let summary = r.value["summary"].as_str().unwrap();
        assert!(summary.contains("2 steps ran") && summary.contains("1 step refused"), "{summary}");
    }

    #[test]
    fn a_failed_step_is_named_and_the_rest_did_not_run() {
        let mut o =
            outcome("failed", 1, vec![kept(0, "a", "safe"), kept(1, "b", "safe"), kept(2, "c", "safe")], json!([]));
        o["failed_step"] = json!(2);
        o["error"] = json!("leash: step 2 (b): E21: Cannot make changes");
        let r = report(1, &o).unwrap();
        assert_eq!(r.status, Status::Failed);
        assert!(r.status.is_error());
        assert_eq!(statuses(&r), [(0, "ran".into()), (1, "failed".into()), (2, "not_run".into())]);
        assert_eq!(r.value["steps"][1]["message"], "leash: step 2 (b): E21: Cannot make changes");
        assert!(r.value["summary"].as_str().unwrap().contains("1 step ran before it"));
        // A failure before any step (the window did not open): none ran.
        o["failed_step"] = Json::Null;
        o["ran"] = json!(0);
        let r = report(1, &o).unwrap();
        assert_eq!(statuses(&r), [(0, "not_run".into()), (1, "not_run".into()), (2, "not_run".into())]);
        assert!(r.value["summary"].as_str().unwrap().starts_with("The plan failed before any step ran"));
    }

    #[test]
    fn cancelled_replaced_and_withdrawn_run_nothing() {
        for (lua, words) in [("cancelled", "cancelled"), ("replaced", "replaced"), ("withdrawn", "withdrawn")] {
            let r = report(3, &outcome(lua, 0, vec![kept(0, "a", "safe")], json!({}))).unwrap();
            assert_eq!(r.status, Status::Cancelled, "{lua}");
            assert!(!r.status.is_error());
            assert_eq!(statuses(&r), [(0, "not_run".into())], "{lua}");
            assert!(r.value["summary"].as_str().unwrap().contains(words), "{lua}");
        }
        let r = report(3, &outcome("cancelled", 0, vec![kept(0, "a", "safe")], json!({}))).unwrap();
        assert!(r.value["summary"].as_str().unwrap().ends_with("Ask them what they want before proposing it again."));
    }

    #[test]
    fn every_step_refused_is_an_error_the_agent_can_correct() {
        let dropped = json!([
            {"index": 0, "code": "unknown_id", "reason": "r0"},
            {"index": 1, "code": "too_many_steps", "reason": "r1"}
        ]);
        let r = report(4, &outcome("nothing to run", 0, vec![], dropped)).unwrap();
        assert_eq!(r.status, Status::Refused);
        assert!(r.status.is_error());
        assert_eq!(r.value["status"], "refused");
        assert_eq!(statuses(&r), [(0, "refused".into()), (1, "refused".into())]);
        assert!(r.value["summary"].as_str().unwrap().contains("propose again"));
        // Kept steps that change nothing: not an error.
        let r = report(5, &outcome("nothing to run", 0, vec![kept(0, "a", "safe")], json!([]))).unwrap();
        assert_eq!((r.status, r.value["status"].clone()), (Status::NothingToRun, json!("nothing_to_run")));
        assert_eq!(statuses(&r), [(0, "unchanged".into())]);
    }

    #[test]
    fn a_plan_without_steps_says_so_not_that_steps_were_refused() {
        let r = report(6, &outcome("nothing to run", 0, vec![], json!([]))).unwrap();
        assert_eq!(r.status, Status::Refused);
        assert!(r.status.is_error());
        assert_eq!(r.value["steps"], json!([]));
        let summary = r.value["summary"].as_str().unwrap();
        assert!(summary.starts_with("The plan has no steps") && !summary.contains("refused"), "{summary}");
    }

    #[test]
    fn an_outcome_this_program_does_not_know_is_an_error_not_a_guess() {
        assert!(report(1, &outcome("shown", 0, vec![], json!([]))).unwrap_err().to_string().contains("“shown”"));
        assert!(report(1, &json!({"ran": 0})).is_err());
        assert!(report(1, &json!({"status": "ran", "steps": "x", "dropped": []})).is_err());
        assert!(report(1, &outcome("ran", 1, vec![json!({"label": "no index"})], json!([]))).is_err());
    }
}
