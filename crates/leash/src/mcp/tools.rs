//! The three tools an agent sees, by these names and shapes (clients rely on them):
//! `catalog_search {request, limit?}`, `propose_plan {plan}` and `editor_state`, and the
//! reading of their arguments. What the arguments must hold beyond their JSON types is
//! checked by leash in Neovim, where the rules live.

use std::sync::Arc;

use leash_core::plan::MAX_INPUT_BYTES;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{json, Map, Value as Json};

pub const CATALOG_SEARCH: &str = "catalog_search";
pub const PROPOSE_PLAN: &str = "propose_plan";
pub const EDITOR_STATE: &str = "editor_state";

/// The longest `request` a search takes. Ranking runs on Neovim's main loop, in time that
/// grows with the request (a megabyte held the person's editor for seconds); a request
/// in words is far shorter.
pub const MAX_REQUEST_CHARS: usize = 4096;

const SEARCH_HELP: &str = "\
Search what the person's Neovim can do (Ex commands, options, user commands, mappings, language server \
and diagnostic actions, the project's scripts, Git and file actions, a terminal command line) for a request \
in words. Each result has what a plan step needs: an item's `id` and whether it takes `args`, or a \
setting's `key`, `type`, allowed `values` and `current` value; its `title`; and its `reach` (safe, edit, \
write, code, plugin or shell): the person is always shown steps that write files, run code or start \
programs before they run. A plan may name only what the catalog has: search first.";

const PROPOSE_HELP: &str = "\
Propose a plan for the person's Neovim. leash checks every step against the live catalog, shows the plan \
in the person's plan window (titled \"plan from\" your name) and returns once they decide: each step \
`ran`, was `refused` by leash (with its `code` and `reason`: correct it and propose again), `failed` (with \
the `message`), or the plan was `cancelled`. Steps, at most 10: \
{\"type\": \"item\", \"id\": \"cmd:vsplit\", \"args\": [\"notes.md\"], \"why\": \"...\"}, \
{\"type\": \"setting\", \"key\": \"wrap\", \"value\": true, \"why\": \"...\"}, \
{\"type\": \"terminal\", \"command\": \"make test\", \"why\": \"...\"}. \
Nothing in the plan changes what must be confirmed. One plan at a time: wait for the outcome.";

const STATE_HELP: &str = "\
Where the person is in Neovim: the mode, the current file and its filetype, the cursor, the Visual \
selection, the windows of the current tab page and the working directory. Never any buffer text.";

/// The tools, as `tools/list` gives them.
pub fn list() -> Vec<Tool> {
    vec![
        Tool::new(CATALOG_SEARCH, SEARCH_HELP, schema(search_schema()))
            .with_title("Search leash's catalog of the person's Neovim")
            .with_annotations(ToolAnnotations::new().read_only(true).open_world(false)),
        Tool::new(PROPOSE_PLAN, PROPOSE_HELP, schema(propose_schema()))
            .with_title("Propose a plan the person decides on")
            .with_annotations(ToolAnnotations::new().read_only(false).destructive(true).open_world(false)),
        Tool::new(EDITOR_STATE, STATE_HELP, schema(json!({"type": "object", "properties": {}})))
            .with_title("Where the person is in Neovim")
            .with_annotations(ToolAnnotations::new().read_only(true).open_world(false)),
    ]
}

fn schema(v: Json) -> Arc<JsonObject> {
    match v {
        Json::Object(m) => Arc::new(m),
        _ => Arc::new(JsonObject::new()),
    }
}

fn search_schema() -> Json {
    json!({
        "type": "object",
        "properties": {
            "request": {"type": "string", "maxLength": MAX_REQUEST_CHARS, "description": "what to do, in words (\"wrap long lines\", \"run the tests\")"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "how many results, 20 when absent"}
        },
        "required": ["request"]
    })
}

fn propose_schema() -> Json {
    json!({
        "type": "object",
        "properties": {
            "plan": {
                "type": "object",
                "description": "leash's plan: a reply for the person and the steps, in order",
                "properties": {
                    "reply": {"type": "string", "description": "one short sentence for the person"},
                    "steps": {
                        "type": "array",
                        "description": "at most 10; later steps are refused",
                        "items": {
                            "type": "object",
                            "properties": {
                                "type": {"type": "string", "enum": ["item", "setting", "terminal"]},
                                "id": {"type": "string", "description": "item: its id from catalog_search"},
                                "args": {"type": "array", "items": {"type": "string"}, "description": "item: its arguments"},
                                "key": {"type": "string", "description": "setting: its key from catalog_search"},
                                "value": {"type": ["string", "number", "boolean"], "description": "setting: a value of its type in catalog_search (true or false, a whole number, or a string)"},
                                "scope": {"type": "string", "enum": ["global", "local"], "description": "setting: local only for this window or buffer"},
                                "command": {"type": "string", "description": "terminal: the command line, run in a terminal"},
                                "why": {"type": "string", "description": "why, for the person"}
                            },
                            "required": ["type"]
                        }
                    }
                },
                "required": ["steps"]
            }
        },
        "required": ["plan"]
    })
}

/// A tool call, its arguments read.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// `{request, limit?}`, passed on as they are.
    Search(Json),
    /// The plan as JSON text, for leash's parser.
    Propose(String),
    State,
}

/// Why a call's arguments cannot be read, said for the agent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgError {
    #[error("no tool named “{0}” (leash has catalog_search, propose_plan and editor_state)")]
    UnknownTool(String),
    #[error("{tool} needs “{field}”: {what}")]
    Missing { tool: &'static str, field: &'static str, what: &'static str },
    #[error("{tool}: “{field}” must be {what}, not {found}")]
    WrongType { tool: &'static str, field: &'static str, what: &'static str, found: &'static str },
    #[error("{tool}: “{field}” is {size}; leash reads at most {max} ({hint})")]
    TooLarge { tool: &'static str, field: &'static str, size: String, max: String, hint: &'static str },
}

/// Reads the arguments of tool `name`.
pub fn parse(name: &str, args: Option<&Map<String, Json>>) -> Result<Call, ArgError> {
    let empty = Map::new();
    let args = args.unwrap_or(&empty);
    match name {
        CATALOG_SEARCH => {
            let what = "a string saying what to do";
            match args.get("request") {
                None | Some(Json::Null) => {
                    return Err(ArgError::Missing { tool: CATALOG_SEARCH, field: "request", what });
                }
                Some(Json::String(r)) if r.chars().count() > MAX_REQUEST_CHARS => {
                    return Err(ArgError::TooLarge {
                        tool: CATALOG_SEARCH,
                        field: "request",
                        size: format!("{} characters", r.chars().count()),
                        max: format!("{MAX_REQUEST_CHARS}"),
                        hint: "say what to do in a few words",
                    });
                }
                Some(Json::String(_)) => {}
                Some(other) => {
                    return Err(ArgError::WrongType {
                        tool: CATALOG_SEARCH,
                        field: "request",
                        what: "a string",
                        found: kind(other),
                    })
                }
            }
            let mut out = Map::new();
            out.insert("request".into(), args["request"].clone());
            if let Some(limit) = args.get("limit").filter(|l| !l.is_null()) {
                out.insert("limit".into(), limit.clone());
            }
            Ok(Call::Search(Json::Object(out)))
        }
        PROPOSE_PLAN => match args.get("plan") {
            None | Some(Json::Null) => Err(ArgError::Missing {
                tool: PROPOSE_PLAN,
                field: "plan",
                what: "an object {\"reply\": \"...\", \"steps\": [...]}",
            }),
            // The core's parser refuses more too, but in words about a model's answer.
            Some(plan @ Json::Object(_)) => match plan.to_string() {
                text if text.len() > MAX_INPUT_BYTES => Err(ArgError::TooLarge {
                    tool: PROPOSE_PLAN,
                    field: "plan",
                    size: format!("{} bytes as JSON", text.len()),
                    max: format!("{MAX_INPUT_BYTES}"),
                    hint: "a plan has at most 10 steps",
                }),
                text => Ok(Call::Propose(text)),
            },
            Some(other) => Err(ArgError::WrongType {
                tool: PROPOSE_PLAN,
                field: "plan",
                what: "an object {\"reply\": \"...\", \"steps\": [...]}",
                found: kind(other),
            }),
        },
        EDITOR_STATE => Ok(Call::State),
        other => Err(ArgError::UnknownTool(other.to_string())),
    }
}

fn kind(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "a list",
        Json::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use leash_core::plan::{parse as parse_plan, ProposedStep};

    fn tool(name: &str) -> Tool {
        list().into_iter().find(|t| t.name == name).unwrap()
    }

    #[test]
    fn the_tools_are_exactly_the_three_the_issue_names() {
        let names: Vec<String> = list().iter().map(|t| t.name.to_string()).collect();
        assert_eq!(names, ["catalog_search", "propose_plan", "editor_state"]);
        for t in list() {
            assert_eq!(t.input_schema["type"], "object", "{}", t.name);
            assert!(t.description.as_deref().is_some_and(|d| d.len() > 80), "{} says what it does", t.name);
        }
        let search = tool(CATALOG_SEARCH);
        assert_eq!(search.input_schema["required"], json!(["request"]));
        assert_eq!(search.input_schema["properties"]["request"]["type"], "string");
        assert_eq!(search.input_schema["properties"]["limit"]["type"], "integer");
        assert_eq!(search.input_schema["properties"]["request"]["maxLength"], MAX_REQUEST_CHARS);
        assert_eq!(tool(PROPOSE_PLAN).input_schema["required"], json!(["plan"]));
        assert_eq!(tool(EDITOR_STATE).input_schema["properties"], json!({}));
        assert_eq!(tool(EDITOR_STATE).annotations.unwrap().read_only_hint, Some(true));
        assert_eq!(tool(PROPOSE_PLAN).annotations.unwrap().read_only_hint, Some(false));
    }

    #[test]
    fn the_plan_schema_is_the_cores_plan_shape() {
        let t = tool(PROPOSE_PLAN);
        let plan = &t.input_schema["properties"]["plan"];
        assert_eq!(plan["required"], json!(["steps"]));
        let step = &plan["properties"]["steps"]["items"];
        assert_eq!(step["properties"]["type"]["enum"], json!(["item", "setting", "terminal"]));
        assert_eq!(step["required"], json!(["type"]));
        // A client that keeps one type of a list keeps the first (Codex): a string, which
        // leash reads losslessly for every setting ("4" → 4, "true" → true).
        assert_eq!(step["properties"]["value"]["type"][0], "string");
        // No field is closed to the agent: what it adds is ignored by leash, never refused
        // by a client before leash could say so.
        assert!(step.get("additionalProperties").is_none());
        // Each step the description shows is a step the core's parser reads as such.
        let help = t.description.unwrap();
        let examples: Vec<&str> =
            help.split("Steps, at most 10: ").nth(1).unwrap().split(". Nothing").next().unwrap().split("}, ").collect();
        assert_eq!(examples.len(), 3, "{help}");
        for (example, kind) in examples.iter().zip(["item", "setting", "terminal"]) {
            let text = format!("{{\"steps\": [{}}}]}}", example.trim_end_matches('}'));
            let parsed = parse_plan(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let got = match &parsed.steps[0] {
                ProposedStep::Item { .. } => "item",
                ProposedStep::Setting { .. } => "setting",
                ProposedStep::Terminal { .. } => "terminal",
                ProposedStep::Malformed(shape) => panic!("{text}: {shape}"),
            };
            assert_eq!(got, kind, "{text}");
        }
    }

    #[test]
    fn arguments_are_read_or_refused_with_what_is_wrong() {
        let args = |v: Json| v.as_object().cloned().unwrap();
        assert_eq!(
            parse(CATALOG_SEARCH, Some(&args(json!({"request": "wrap", "limit": 5, "x": 1})))),
            Ok(Call::Search(json!({"request": "wrap", "limit": 5})))
        );
        assert_eq!(
            parse(CATALOG_SEARCH, Some(&args(json!({"request": "wrap", "limit": null})))),
            Ok(Call::Search(json!({"request": "wrap"})))
        );
        let missing = parse(CATALOG_SEARCH, None).unwrap_err().to_string();
        assert_eq!(missing, "catalog_search needs “request”: a string saying what to do");
        let wrong = parse(CATALOG_SEARCH, Some(&args(json!({"request": ["wrap"]})))).unwrap_err().to_string();
        assert_eq!(wrong, "catalog_search: “request” must be a string, not a list");

        let plan =
            json!({"reply": "ok", "steps": [{"type": "setting", "key": "wrap", "value": true}], "confirm": false});
        let Ok(Call::Propose(text)) = parse(PROPOSE_PLAN, Some(&args(json!({"plan": plan.clone()})))) else { panic!() };
        // The plan goes on whole, extra fields too: leash's validator ignores them.
        assert_eq!(serde_json::from_str::<Json>(&text).unwrap(), plan);
        let as_text = parse(PROPOSE_PLAN, Some(&args(json!({"plan": plan.to_string()})))).unwrap_err().to_string();
        assert!(as_text.contains("“plan” must be an object") && as_text.ends_with("not a string"), "{as_text}");
        assert!(parse(PROPOSE_PLAN, None).unwrap_err().to_string().starts_with("propose_plan needs “plan”"));
        let huge = json!({"reply": "x".repeat(MAX_INPUT_BYTES), "steps": []});
        let too_large = parse(PROPOSE_PLAN, Some(&args(json!({"plan": huge})))).unwrap_err().to_string();
        assert!(
            too_large.starts_with("propose_plan: “plan” is 1048") && too_large.contains("at most 1048576"),
            "{too_large}"
        );
        let long = json!({"request": "wrap ".repeat(1000)});
        assert_eq!(
            parse(CATALOG_SEARCH, Some(&args(long))).unwrap_err().to_string(),
            "catalog_search: “request” is 5000 characters; leash reads at most 4096 (say what to do in a few words)"
        );
        let just = json!({"request": "é".repeat(MAX_REQUEST_CHARS)});
        assert!(parse(CATALOG_SEARCH, Some(&args(just))).is_ok());

        assert_eq!(parse(EDITOR_STATE, None), Ok(Call::State));
        assert_eq!(parse("vim_command", None), Err(ArgError::UnknownTool("vim_command".into())));
    }
}
