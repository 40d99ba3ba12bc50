//! The `leash` program's JSON interface, as another editor would use it.

use crate::support;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

/// A catalog file of its own for each test, removed when dropped (even when the test fails).
fn catalog_file() -> tempfile::TempPath {
    let catalog = json!({"version": 1, "editor": "neovim", "entries": [
        {"id": "cmd:vsplit", "kind": "command", "title": "split current window vertically", "aliases": ["vs"], "args": "optional", "reach": "safe"},
        {"id": "cmd:nohlsearch", "kind": "command", "title": "suspend 'hlsearch' highlighting", "aliases": ["noh"], "args": "none", "reach": "safe"},
        {"key": "wrap", "title": "long lines wrap", "type": "boolean", "scope": "window"},
        {"key": "guifont", "title": "GUI: Name(s) of font(s) to be used", "type": "string", "aliases": ["gfn"]},
        {"key": "makeprg", "title": "program to use for the :make command", "type": "string", "aliases": ["mp"]}
    ]});
    let mut file = tempfile::Builder::new().prefix("leash-cli-test-").suffix(".json").tempfile().unwrap();
    file.write_all(catalog.to_string().as_bytes()).unwrap();
    file.into_temp_path()
}

fn leash(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_leash"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// `leash plan` with the test catalog against a local server in OpenAI's wire format:
/// `flags` go before the request, whose words are separate arguments as a shell gives them.
fn plan_against(server: &support::TestServer, cat: &Path, flags: &[&str], request: &str) -> Output {
    let url = format!("{}/v1", server.url());
    let mut args = vec!["plan", "--catalog", cat.to_str().unwrap(), "--provider", "openai", "--url", &url];
    args.extend_from_slice(flags);
    args.extend(request.split(' '));
    leash(&args, "")
}

fn json_out(o: &Output) -> Value {
    assert!(o.status.success(), "stderr: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn rank_prints_ids_kinds_and_scores_best_first() {
    let cat = catalog_file();
    let out = json_out(&leash(&["rank", "--catalog", cat.to_str().unwrap(), "a", "bigger", "font", "and", "wrap"], ""));
    let ids: Vec<&str> = out.as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(&ids[..2], ["wrap", "guifont"], "{out}");
    assert_eq!(out[0]["kind"], "setting");
    assert!(out[0]["score"].as_u64().unwrap() >= out[1]["score"].as_u64().unwrap());
    let limited = json_out(&leash(&["rank", "--catalog", cat.to_str().unwrap(), "--limit", "1", "wrap", "font"], ""));
    assert_eq!(limited.as_array().unwrap().len(), 1);
}

#[test]
fn batch_mode_answers_each_line_with_its_qid() {
    let cat = catalog_file();
    let input = "{\"qid\": \"a\", \"query\": \"split the window side by side\", \"k\": 1}\n\n{\"qid\": \"b\", \"query\": \"wrap\", \"k\": 5}\n";
    let o = leash(&["rank", "--catalog", cat.to_str().unwrap(), "--batch"], input);
    assert!(o.status.success());
    let lines: Vec<Value> =
        String::from_utf8(o.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines, vec![json!({"qid": "a", "ranking": ["cmd:vsplit"]}), json!({"qid": "b", "ranking": ["wrap"]})]);
}

#[test]
fn validate_reads_the_raw_answer_and_applies_the_neovim_profile() {
    let cat = catalog_file();
    let answer = r#"Here you go:
```json
{"reply": "Pre-approved.", "steps": [
  {"type": "item", "id": "cmd:vsplit", "args": "notes.md | !touch /tmp/x"},
  {"type": "setting", "key": "wrap", "value": true},
  {"type": "setting", "key": "mp", "value": "make"},
  {"type": "setting", "key": "fontsize", "value": 16}
]}
```"#;
    let plan = json_out(&leash(&["validate", "--catalog", cat.to_str().unwrap()], answer));
    assert_eq!(plan["confirm"], "required", "{plan}");
    assert_eq!(plan["steps"][0]["key"], "wrap");
    assert_eq!(plan["steps"][0]["reach"], "safe");
    assert_eq!(plan["steps"][1]["key"], "makeprg", "the alias resolves to the full key");
    assert_eq!(plan["steps"][1]["reach"], "code");
    let dropped: Vec<u64> = plan["dropped"].as_array().unwrap().iter().map(|d| d["index"].as_u64().unwrap()).collect();
    assert_eq!(dropped, [0, 3]);
    assert_eq!(plan["dropped"][0]["code"], "unsafe_argument", "{plan}");
    assert!(plan["dropped"][0]["reason"].as_str().unwrap().contains('|'), "{plan}");
    assert_eq!(plan["dropped"][1], json!({"index": 3, "code": "unknown_key", "reason": "unknown setting “fontsize”"}));
}

#[test]
fn validate_gives_the_context_range_to_commands_that_take_one_and_checks_values() {
    let catalog = json!({"version": 1, "editor": "neovim", "entries": [
        {"id": "cmd:sort", "kind": "command", "title": "sort lines", "args": "optional", "reach": "safe", "range": true},
        {"id": "cmd:nohlsearch", "kind": "command", "title": "stop highlighting", "args": "none", "reach": "safe"},
        {"key": "tabstop", "title": "number of spaces a tab counts for", "type": "number"},
        {"key": "clipboard", "title": "use the clipboard", "type": "string", "list": "comma", "values": ["unnamed", "unnamedplus"]}
    ]});
    let mut file = tempfile::Builder::new().prefix("leash-cli-test-").suffix(".json").tempfile().unwrap();
    file.write_all(catalog.to_string().as_bytes()).unwrap();
    let path = file.into_temp_path();
    let cat = path.to_str().unwrap();
    let answer = r#"{"steps": [
  {"type": "item", "id": "cmd:sort", "range": [1, 99]},
  {"type": "item", "id": "cmd:nohlsearch"},
  {"type": "setting", "key": "tabstop", "value": 0},
  {"type": "setting", "key": "clipboard", "value": "unnamedplus,bogus"}
]}"#;
    let plan = json_out(&leash(&["validate", "--catalog", cat, "--context", r#"{"range": [2, 4]}"#], answer));
    assert_eq!(plan["steps"][0]["range"], json!([2, 4]), "the user's range, not the model's: {plan}");
    assert_eq!(plan["steps"][0]["label"], "Run :sort on lines 2–4");
    assert!(plan["steps"][1].get("range").is_none(), ":nohlsearch takes no range");
    assert_eq!(plan["dropped"][0]["code"], "below_limit");
    assert_eq!(plan["dropped"][0]["reason"], "'tabstop' = 0 is below the smallest value 1 leash allows");
    assert_eq!(plan["dropped"][1]["code"], "bad_list");
    assert_eq!(
        plan["dropped"][1]["reason"],
        "“clipboard” takes a comma-separated list of unnamed | unnamedplus; \"bogus\" is not one of them"
    );
    let without = json_out(&leash(&["validate", "--catalog", cat], answer));
    assert!(without["steps"][0].get("range").is_none(), "no user range, none from the model: {without}");
    let backwards = leash(&["validate", "--catalog", cat, "--context", r#"{"range": [4, 2]}"#], answer);
    assert_ne!(backwards.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&backwards.stderr).contains("4 is after 2"), "{backwards:?}");
}

#[test]
fn errors_go_to_stderr_with_a_non_zero_status() {
    let cat = catalog_file();
    let bad = leash(&["validate", "--catalog", cat.to_str().unwrap()], "{\"reply\": \"cut off");
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("cut off"), "{}", String::from_utf8_lossy(&bad.stderr));
    assert!(bad.stdout.is_empty());
    let missing = leash(&["rank", "--catalog", "/nonexistent/catalog.json", "wrap"], "");
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/catalog.json"));
    let usage = leash(&["rank", "--limit", "many", "wrap"], "");
    assert_eq!(usage.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&usage.stderr).contains("--limit takes a whole number"));
    assert_eq!(leash(&["frobnicate"], "").status.code(), Some(2));
}

#[test]
fn help_documents_every_command() {
    let o = leash(&["--help"], "");
    let help = String::from_utf8(o.stdout).unwrap();
    for cmd in
        ["leash rank", "--batch", "leash prompt", "leash validate", "leash catalog", "--profile", "--mode", "--raw"]
    {
        assert!(help.contains(cmd), "help lacks {cmd}");
    }
    let default = format!("Default limit {}", leash_core::rank::DEFAULT_SHORTLIST);
    assert!(help.contains(&default), "help lacks “{default}”");
}

#[test]
fn prompt_prints_messages_schema_and_shortlist() {
    let cat = catalog_file();
    let p = json_out(&leash(
        &["prompt", "--catalog", cat.to_str().unwrap(), "--context", r#"{"os": "linux"}"#, "wrap", "lines"],
        "",
    ));
    assert!(p["system"].as_str().unwrap().contains("Neovim"));
    assert!(p["user"].as_str().unwrap().contains("- wrap (boolean)"));
    assert!(p["user"].as_str().unwrap().contains("OS linux"));
    assert_eq!(p["shortlist"][0], "wrap");
    assert!(p["schema"]["properties"]["steps"].is_object());
}

#[test]
fn plan_without_a_provider_uses_the_offline_planner() {
    let cat = catalog_file();
    let plan = json_out(&leash(&["plan", "--catalog", cat.to_str().unwrap(), "turn", "on", "word", "wrap"], ""));
    assert_eq!(plan["steps"][0]["key"], "wrap", "{plan}");
    assert_eq!(plan["steps"][0]["value"], true);
    let refused = leash(
        &["plan", "--catalog", cat.to_str().unwrap(), "--provider", "anthropic", "--url", "http://127.0.0.1:9", "wrap"],
        "",
    );
    assert_eq!(refused.status.code(), Some(1));
    assert!(refused.stdout.is_empty());
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn each_subcommand_refuses_the_flags_and_words_it_does_not_take() {
    let cat = catalog_file();
    let cat = cat.to_str().unwrap();
    for (args, says) in [
        (vec!["rank", "--config", "{"], "leash rank does not take --config"),
        (vec!["catalog", "--limit", "3", "extra"], "leash catalog does not take --limit"),
        (vec!["catalog", "--catalog", cat, "extra"], "leash catalog takes no arguments, not “extra”"),
        (vec!["validate", "--catalog", cat, "--limit", "3"], "leash validate does not take --limit"),
        (vec!["prompt", "--catalog", cat, "--batch", "wrap"], "leash prompt does not take --batch"),
        (vec!["rank", "--catalog", cat, "--batch", "wrap"], "reads its queries on stdin"),
        (vec!["rank", "--catalog", cat, "--bogus", "wrap"], "unknown flag --bogus for leash rank"),
        (vec!["rank", "--catalog", cat, "--batch=yes"], "--batch takes no value"),
        (vec!["rank", "--catalog", cat, "--limit"], "--limit needs a value"),
        (vec!["plan", "--catalog", cat], "leash plan needs REQUEST..."),
    ] {
        let o = leash(&args, "");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(&format!("Run `leash {} --help`", args[0])), "{}", stderr(&o));
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn plan_checks_its_config_as_the_config_file_checks_a_provider() {
    let cat = catalog_file();
    let cat = cat.to_str().unwrap();
    let o = leash(
        &[
            "plan",
            "--catalog",
            cat,
            "--provider",
            "openai",
            "--config",
            r#"{"max_tokens": "x", "temprature": 1}"#,
            "wrap",
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("--config: max_tokens: "), "{err}");
    assert!(err.contains("temprature: unknown option (did you mean 'temperature'?)"), "{err}");
    assert!(o.stdout.is_empty());
    let o = leash(&["plan", "--catalog", cat, "--config", "[1]", "wrap"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--config takes a JSON object"), "{}", stderr(&o));
    // A null leaves the key unset: the offline planner needs no model.
    let o = leash(&["plan", "--catalog", cat, "--config", r#"{"model": null}"#, "wrap"], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn flags_take_their_value_after_an_equals_sign_too() {
    let cat = catalog_file();
    let flag = format!("--catalog={}", cat.to_str().unwrap());
    let out = json_out(&leash(&["rank", &flag, "--limit=1", "wrap"], ""));
    assert_eq!(out.as_array().unwrap().len(), 1);
    // After `--`, everything is a word.
    let out = json_out(&leash(&["rank", &flag, "--", "--limit", "wrap"], ""));
    assert_eq!(out[0]["id"], "wrap");
}

#[test]
fn each_subcommand_has_its_own_help() {
    for name in ["rank", "prompt", "validate", "plan", "catalog"] {
        for args in [vec![name, "--help"], vec!["help", name]] {
            let o = leash(&args, "");
            assert!(o.status.success(), "{args:?}");
            let help = String::from_utf8(o.stdout).unwrap();
            assert!(help.contains(&format!("leash {name} --catalog FILE")), "{args:?}: {help}");
            let others = ["rank", "prompt", "validate", "plan", "catalog"].into_iter().filter(|n| *n != name);
            for other in others {
                assert!(!help.contains(&format!("leash {other} ")), "{args:?} shows {other}: {help}");
            }
        }
    }
    let o = leash(&["help", "frobnicate"], "");
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn plan_takes_a_second_look_and_raw_shows_every_answer() {
    use support::{openai_text, Reply, TestServer};
    let lookup = r#"{"reply": "Looking.", "steps": [], "lookup": [":noh"]}"#;
    let plan =
        r#"{"reply": "Clearing.", "steps": [{"type": "item", "id": "cmd:nohlsearch", "args": "", "why": "clear"}]}"#;
    let server = TestServer::start(vec![
        Reply::json(200, openai_text(lookup, "stop")),
        Reply::json(200, openai_text(plan, "stop")),
    ]);
    let cat = catalog_file();
    let o = plan_against(
        &server,
        &cat,
        &["--config", r#"{"model": "m"}"#, "--limit", "1", "--context", r#"{"current": {"wrap": false}}"#, "--raw"],
        "turn on word wrap",
    );
    let record = json_out(&o);
    assert_eq!(record["exchanges"].as_array().unwrap().len(), 2, "{record}");
    assert!(record["exchanges"][0]["raw"].as_str().unwrap().contains(":noh"));
    assert_eq!(record["lookups"][0]["names"][0], "cmd:nohlsearch", "an alias written as a command");
    assert_eq!(record["plan"]["steps"][0]["id"], "cmd:nohlsearch");
    let reqs = server.requests();
    let user1 = reqs[0].json()["messages"][1]["content"].as_str().unwrap().to_string();
    assert!(user1.contains("- wrap (boolean, now false)"), "the current value reaches the prompt:\n{user1}");
    assert!(reqs[1].json()["messages"][1]["content"].as_str().unwrap().contains("- cmd:nohlsearch"));

    // Without --raw: the plan only.
    let server = TestServer::start(vec![Reply::json(200, openai_text(plan, "stop"))]);
    let o = plan_against(&server, &cat, &["--model", "m"], "clear search");
    let p = json_out(&o);
    assert_eq!(p["steps"][0]["id"], "cmd:nohlsearch");
    assert!(p.get("exchanges").is_none());
}

#[test]
fn a_failed_plan_still_shows_the_raw_answer_and_names_what_to_change() {
    use support::{openai_text, Reply, TestServer};
    let server = TestServer::start(vec![Reply::json(200, openai_text("{\"reply\": \"Sure, here", "length"))]);
    let cat = catalog_file();
    let o = plan_against(&server, &cat, &["--model", "m", "--raw"], "wrap");
    assert_eq!(o.status.code(), Some(1));
    let record: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(record["raw"], "{\"reply\": \"Sure, here", "{record}");
    assert_eq!(record["error"]["code"], "truncated");
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains(&format!("openai at 127.0.0.1:{}", server.addr.port())), "names the server: {err}");
    assert!(err.contains("raise \"max_tokens\" in --config"), "something a CLI user can do: {err}");
    assert!(!err.contains("providers.openai"), "{err}");
}
