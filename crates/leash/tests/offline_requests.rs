//! The offline planner against the request sets of `tests/data/offline-requests*.jsonl`:
//! every request plans exactly its steps, in Neovim's catalog and in the catalog `leash
//! helix` builds (which is why the sets run here, beside the Helix frontend).

use leash_core::planner;
use leash_core::runtime::CancelToken;
use serde_json::{json, Value};

/// The catalog a clean Neovim 0.12 exports (`:Leash catalog`, without this checkout's
/// scripts and Git actions), narrowed as the editor narrows it.
fn neovim_catalog() -> std::sync::Arc<leash_core::catalog::Catalog> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/neovim-0.12-catalog.json"))
            .unwrap();
    std::sync::Arc::new(leash_core::policy::narrow_catalog(leash_core::catalog::Catalog::from_json(&text).unwrap()))
}

/// The catalog `leash helix` builds for Helix 25.07.1 in an empty folder.
fn helix_catalog() -> std::sync::Arc<leash_core::catalog::Catalog> {
    let dir = tempfile::tempdir().unwrap();
    let cfg = leash::config_file::ProgramConfig::default();
    leash::helix::catalog::build(leash::helix::catalog::Version(25, 7, 1), dir.path(), None, &cfg).unwrap().catalog
}

/// The color schemes Neovim 0.12 ships (`getcompletion('', 'color')` in a clean Neovim).
const NEOVIM_COLORSCHEMES: &[&str] = &[
    "blue",
    "darkblue",
    "default",
    "delek",
    "desert",
    "elflord",
    "evening",
    "habamax",
    "industry",
    "koehler",
    "lunaperche",
    "morning",
    "murphy",
    "pablo",
    "peachpuff",
    "quiet",
    "retrobox",
    "ron",
    "shine",
    "slate",
    "sorbet",
    "torte",
    "unokai",
    "vim",
    "wildcharm",
    "zaibatsu",
    "zellner",
];

/// A validated step as the request sets compare it.
fn step_of(s: &Value) -> Value {
    match s["type"].as_str() {
        Some("setting") => json!({"key": s["key"], "value": s["value"]}),
        Some("item") => {
            let args: Vec<&str> =
                s["args"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
            json!({"id": s["id"], "args": args.join(" ")})
        }
        _ => s.clone(),
    }
}

fn expected(row: &Value) -> Vec<Value> {
    row["steps"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| {
                    if e.get("id").is_some() {
                        json!({"id": e["id"], "args": e.get("args").cloned().unwrap_or(json!(""))})
                    } else {
                        e.clone()
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Plans every request of a set offline and says what went wrong with each one that did
/// not plan exactly its steps (or, for "expect": "no plan", that got a plan; or, for
/// "open": true, that got any plan or the right one).
fn run_set(file: &str) -> (usize, Vec<String>) {
    let text = std::fs::read_to_string(format!("{}/../../tests/data/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let catalogs = [("neovim", neovim_catalog()), ("helix", helix_catalog())];
    let indexes: Vec<std::sync::Arc<leash_core::rank::IndexCell>> =
        catalogs.iter().map(|_| Default::default()).collect();
    let mut failures = Vec::new();
    let mut n = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        n += 1;
        let row: Value = serde_json::from_str(line).unwrap();
        let request = row["request"].as_str().unwrap();
        let editor = row["editor"].as_str().unwrap_or("neovim");
        let at = catalogs.iter().position(|(e, _)| *e == editor).unwrap();
        let profile =
            if editor == "helix" { leash_core::profile::Profile::Helix } else { leash_core::profile::Profile::Neovim };
        let mut req =
            planner::PlanRequest::new(request, catalogs[at].1.clone(), leash_core::policy::Policy::new(profile));
        req.index = indexes[at].clone();
        if let Some(current) = row["current"].as_object() {
            req.context.current = current.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        }
        // As Neovim does: the installed color schemes only for a request that may name one.
        if editor == "neovim" && planner::offline::wants_colorschemes(request) {
            req.context.colorschemes = NEOVIM_COLORSCHEMES.iter().map(|s| s.to_string()).collect();
        }
        let plan = planner::plan_blocking(&req, &CancelToken::new()).unwrap().plan.to_json();
        let got: Vec<Value> = plan["steps"].as_array().unwrap().iter().map(step_of).collect();
        let right = if row["expect"] == json!("no plan") { got.is_empty() } else { got == expected(&row) };
        // An open request (one the planner does not plan yet) must get no plan rather
        // than a wrong one; once it is planned right, its mark goes.
        let open = row["open"] == json!(true);
        if open && right {
            failures.push(format!("{request:?} [{editor}]: planned right now: drop its \"open\" mark"));
            continue;
        }
        let verdict = if open { got.is_empty() } else { right };
        if !verdict {
            let choices: Vec<&str> = plan["choices"]
                .as_array()
                .map(|c| c.iter().filter_map(|c| c["label"].as_str()).collect())
                .unwrap_or_default();
            failures.push(format!("{request:?} [{editor}]: got {got:?}, reply {}, choices {choices:?}", plan["reply"]));
        }
    }
    (n, failures)
}

#[test]
fn everyday_requests_plan_their_steps() {
    for file in [
        "offline-requests.jsonl",
        "offline-requests-2.jsonl",
        "offline-requests-3.jsonl",
        "offline-requests-4.jsonl",
        "offline-requests-5.jsonl",
        "offline-requests-6.jsonl",
        "offline-requests-7.jsonl",
        "offline-requests-8.jsonl",
    ] {
        let (n, failures) = run_set(file);
        assert!(n >= 60, "{file}: {n} requests");
        assert!(failures.is_empty(), "{file}: {} of {n} not right:\n{}", failures.len(), failures.join("\n"));
    }
}

#[test]
fn candidates_the_checker_refuses_are_not_offered() {
    // The only candidate would set a level below the setting's minimum: nothing is left to
    // pick, and the reply says a model is needed instead of offering nothing.
    let catalog = leash_core::catalog::Catalog::from_json(
        r#"{"version": 1, "editor": "neovim", "entries": [
            {"key": "foolevel", "kind": "setting", "type": "number", "min": 10, "title": "how foo the level is"}]}"#,
    )
    .unwrap();
    let req = planner::PlanRequest::new(
        "foolevel 5 hmm",
        std::sync::Arc::new(catalog),
        leash_core::policy::Policy::new(leash_core::profile::Profile::Neovim),
    );
    let plan = planner::plan_blocking(&req, &CancelToken::new()).unwrap().plan;
    assert!(plan.steps.is_empty() && plan.choices.is_empty(), "{plan:?}");
    assert_eq!(plan.reply, planner::offline::NEEDS_MODEL);
    // With a level the setting takes, the same request is offered to pick.
    let catalog = leash_core::catalog::Catalog::from_json(
        r#"{"version": 1, "editor": "neovim", "entries": [
            {"key": "foolevel", "kind": "setting", "type": "number", "min": 1, "title": "how foo the level is"}]}"#,
    )
    .unwrap();
    let req = planner::PlanRequest::new(
        "foolevel 5 hmm",
        std::sync::Arc::new(catalog),
        leash_core::policy::Policy::new(leash_core::profile::Profile::Neovim),
    );
    let plan = planner::plan_blocking(&req, &CancelToken::new()).unwrap().plan;
    assert_eq!(plan.reply, planner::offline::NOT_SURE);
    assert_eq!(plan.choices.len(), 1);
    assert_eq!(plan.choices[0].label, "foolevel → 5 (how foo the level is)");
    assert_eq!(plan.choices[0].plan.steps.len(), 1);
}
