//! The prompt over a real Neovim catalog: for every request of the model benchmark, at
//! the default shortlist size, the user message stays under 8 KB (help words give way
//! first) and the schema gives every shortlisted setting its own value type.

use leash_core::catalog::Catalog;
use leash_core::entry::{Entry, ValueType};
use leash_core::planner::DEFAULT_SHORTLIST;
use leash_core::prompt::{self, Context};
use leash_core::rank::{self, Mode};
use serde_json::{json, Value};

fn catalog() -> Catalog {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/neovim-catalog.json")).unwrap();
    leash_core::policy::narrow_catalog(Catalog::from_value(&serde_json::from_str(&text).unwrap()).unwrap())
}

fn requests() -> Vec<String> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/model-requests.jsonl")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["request"].as_str().unwrap().to_string())
        .collect()
}

/// A context as large as it gets: every setting has a current value as long as the
/// prompt quotes (longer ones are described in a few words).
fn full_context(c: &Catalog) -> Context {
    let mut ctx =
        Context { os: "linux".into(), filetype: "rust".into(), editor: "Neovim".into(), ..Context::default() };
    for e in c.entries() {
        if let Entry::Setting(s) = e {
            let v = match s.value_type {
                ValueType::Boolean => json!(true),
                ValueType::Number => json!(12345678),
                ValueType::String => json!("x".repeat(40)),
            };
            ctx.current.insert(s.key.clone(), v);
        }
    }
    ctx
}

#[test]
fn the_user_message_stays_under_8_kb_at_the_default_shortlist() {
    let c = catalog();
    let index = rank::Index::new(&c);
    let ctx = full_context(&c);
    let (mut largest, mut full) = (0, 0);
    let requests = requests();
    for request in &requests {
        let shortlist = rank::rank(&index, &c, request, DEFAULT_SHORTLIST, Mode::Any);
        // The ranker may find fewer than K entries worth showing for a request.
        full += usize::from(shortlist.len() == DEFAULT_SHORTLIST);
        let p = prompt::build(request, &shortlist, &ctx);
        assert!(p.user.len() < 8 * 1024, "{request}: {} bytes\n{}", p.user.len(), p.user);
        largest = largest.max(p.user.len());
        // Every shortlisted entry is still listed, help words or not.
        for r in &shortlist {
            assert!(
                p.user.contains(&format!("- {} ", r.entry.name()))
                    || p.user.contains(&format!("- {}:", r.entry.name()))
            );
        }
    }
    // The budget is tested at K = 60 for most requests, not only on short lists.
    assert!(full * 2 > requests.len(), "{full} of {} shortlists are full", requests.len());
    // Help words are there while the budget allows: the budget is used, not left empty.
    assert!(largest > 6 * 1024, "largest user message {largest} bytes");
}

#[test]
fn every_shortlisted_setting_gets_a_branch_with_its_own_value_type() {
    let c = catalog();
    let index = rank::Index::new(&c);
    for request in requests() {
        let shortlist = rank::rank(&index, &c, &request, DEFAULT_SHORTLIST, Mode::Any);
        let p = prompt::build(&request, &shortlist, &Context::default());
        let variants = p.schema["properties"]["steps"]["items"]["anyOf"].as_array().unwrap();
        for r in &shortlist {
            let Entry::Setting(s) = r.entry else { continue };
            let branch = variants
                .iter()
                .find(|v| v["properties"]["key"]["enum"] == json!([s.key]))
                .unwrap_or_else(|| panic!("{request}: no branch for {}", s.key));
            let want = match s.value_type {
                ValueType::Boolean => "boolean",
                ValueType::Number => "integer",
                ValueType::String => "string",
            };
            assert_eq!(branch["properties"]["value"]["type"], json!(want), "{}", s.key);
            let keys: Vec<&String> = branch["properties"].as_object().unwrap().keys().collect();
            assert_eq!(keys.first().map(|k| k.as_str()), Some("type"), "{}: {keys:?}", s.key);
        }
    }
}
