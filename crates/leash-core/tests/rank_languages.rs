//! Requests in German, Spanish and French (tests/data/ranker-languages-*.jsonl) find
//! their targets: the ranker reads them in English (src/rank/languages.txt).

use leash_core::catalog::Catalog;
use leash_core::rank::{rank, Index, Mode};
use serde_json::Value;

fn catalog() -> Catalog {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/neovim-catalog.json")).unwrap();
    Catalog::from_value(&serde_json::from_str(&text).unwrap()).unwrap()
}

/// Every request of `file` whose target is not in the top `k`.
fn misses(catalog: &Catalog, file: &str, k: usize) -> Vec<String> {
    let path = format!("{}/../../tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let index = Index::new(catalog);
    let mut out = Vec::new();
    for line in std::fs::read_to_string(path).unwrap().lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap();
        let request = v["request"].as_str().unwrap();
        let target = &v["targets"][0];
        let name = target["item"].as_str().or(target["setting"].as_str()).unwrap();
        let top: Vec<&str> = rank(&index, catalog, request, k, Mode::Any).iter().map(|r| r.entry.name()).collect();
        if !top.contains(&name) {
            out.push(format!("{request} → {name} not in {top:?}"));
        }
    }
    out
}

#[test]
fn non_english_requests_find_their_targets() {
    let c = catalog();
    assert_eq!(misses(&c, "ranker-languages-dev.jsonl", 10), Vec::<String>::new());
    assert_eq!(misses(&c, "ranker-languages-heldout.jsonl", 30), Vec::<String>::new());
}
