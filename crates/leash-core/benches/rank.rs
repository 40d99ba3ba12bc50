//! Ranking latency: `cargo bench --bench rank`.
//!
//! Ranks a 10-word request against the catalog a clean Neovim exports (the fixture in
//! tests/data: ~900 builtin commands and options with their help text), padded with
//! synthetic entries to 2,000 and 10,000, and prints the median time per call over
//! many calls. No framework: std::time::Instant, warm-up, median and 90th percentile.
//!
//! Then the prompt built over a 40-entry shortlist of each request (what a request
//! sends after ranking).
//!
//! Then a session's index, side by side in one run (medians of alternating builds): the
//! 0.12 fixture (Neovim's commands and options first, then mappings and user commands)
//! indexed whole, against its runtime entries' part read from its file plus the rest
//! read now (a session's first request), and the rest alone on the part in memory (a
//! catalog rebuilt later in the session).

use std::hint::black_box;
use std::time::{Duration, Instant};

use leash_core::catalog::Catalog;
use leash_core::rank::{self, BaseIndex, Index, Mode};
use serde_json::{json, Value};

const REQUESTS: &[&str] = &[
    "make the font a little bigger and turn on soft word wrap please",
    "show invisible characters and highlight the line the cursor is on",
    "open a terminal in a vertical split below the current window now",
    "stop creating swap files and backups when i save my files",
];

/// The fixture padded to `n` entries with user commands and mappings whose titles
/// reuse the fixture's words (so the index has realistic postings).
fn catalog(n: Option<usize>) -> Catalog {
    let text = include_str!("../../../tests/data/neovim-catalog.json");
    let mut v: Value = serde_json::from_str(text).unwrap();
    let entries = v["entries"].as_array_mut().unwrap();
    let words: Vec<String> = entries
        .iter()
        .flat_map(|e| e["title"].as_str().unwrap_or("").split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .collect();
    let base = entries.len();
    let n = n.unwrap_or(base);
    for i in 0..n.saturating_sub(base) {
        let w = |k: usize| words[(i * 7 + k * 13) % words.len()].clone();
        let title = format!("{} {} {} {} {}", w(0), w(1), w(2), w(3), w(4));
        let description = (0..40).map(|k| w(k + 5)).collect::<Vec<_>>().join(" ");
        entries.push(
            json!({"id": format!("user:Cmd{i}{}", w(1).chars().filter(|c| c.is_alphanumeric()).collect::<String>()),
            "kind": "user_command", "title": title, "description": description, "args": "optional", "reach": "code"}),
        );
    }
    entries.truncate(n);
    Catalog::from_value(&v).unwrap()
}

fn measure(index: &Index, c: &Catalog, iterations: usize) -> (Duration, Duration) {
    for q in REQUESTS {
        black_box(rank::rank(index, c, q, 60, Mode::Any));
    }
    let mut times = Vec::with_capacity(iterations);
    for i in 0..iterations {
        let q = REQUESTS[i % REQUESTS.len()];
        let t = Instant::now();
        black_box(rank::rank(black_box(index), black_box(c), black_box(q), 60, Mode::Any));
        times.push(t.elapsed());
    }
    times.sort();
    (times[times.len() / 2], times[times.len() * 9 / 10])
}

/// The 0.12 fixture with Neovim's own entries first, as a session's catalogs are built,
/// and how many those are.
fn session_catalog() -> (Catalog, usize) {
    let mut v: Value = serde_json::from_str(include_str!("../../../tests/data/neovim-0.12-catalog.json")).unwrap();
    let entries = v["entries"].as_array().unwrap().clone();
    let (base, rest): (Vec<_>, Vec<_>) = entries
        .into_iter()
        .partition(|e| e["kind"] == "setting" || e["id"].as_str().is_some_and(|i| i.starts_with("cmd:")));
    let len = base.len();
    v["entries"] = Value::Array(base.into_iter().chain(rest).collect());
    (Catalog::from_value(&v).unwrap(), len)
}

fn median_ms(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn session_index(rounds: usize) {
    let (c, len) = session_catalog();
    let dir = std::env::temp_dir().join(format!("leash-bench-rank-{}", std::process::id()));
    let file = dir.join("runtime-index.bin");
    let part = BaseIndex::new(len, Some(file.clone())).part(c.entries());
    let (mut whole, mut first, mut later) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        black_box(Index::new(&c));
        whole.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        black_box(Index::with_base(&c, BaseIndex::new(len, Some(file.clone())).part(c.entries())));
        first.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        black_box(Index::with_base(&c, part.clone()));
        later.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let (whole, first, later) = (median_ms(whole), median_ms(first), median_ms(later));
    println!("index of a session's catalog ({} entries, {len} of them Neovim's own), medians of {rounds}:", c.len());
    println!("  whole                         {whole:>6.2} ms");
    println!("  Neovim's part from its file   {first:>6.2} ms   ({:.2} of whole)", first / whole);
    println!("  Neovim's part in memory       {later:>6.2} ms   ({:.2} of whole)", later / whole);
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` runs it once, quickly.
    let quick = !std::env::args().any(|a| a == "--bench");
    let iterations = if quick { 20 } else { 3000 };
    println!("rank: 10-word requests, limit 60, {iterations} calls each");
    for n in [None, Some(2_000), Some(10_000)] {
        let c = catalog(n);
        let t = Instant::now();
        let index = Index::new(&c);
        let build = t.elapsed();
        let (median, p90) = measure(&index, &c, iterations);
        println!(
            "  {:>6} entries: median {:>8.1} µs   p90 {:>8.1} µs   (index build {:.1} ms)",
            c.len(),
            median.as_secs_f64() * 1e6,
            p90.as_secs_f64() * 1e6,
            build.as_secs_f64() * 1e3
        );
    }
    prompt(if quick { 20 } else { 3000 });
    session_index(if quick { 1 } else { 21 });
}

/// The prompt a request sends after ranking: the user message over a 40-entry shortlist
/// (each entry's line and a gloss of its help) and the two schemas.
fn prompt(iterations: usize) {
    use leash_core::prompt::{build_round, Context, Round};
    let c = catalog(None);
    let index = Index::new(&c);
    let shortlists: Vec<Vec<_>> = REQUESTS
        .iter()
        .map(|q| rank::rank(&index, &c, q, 40, Mode::Any).into_iter().map(|r| r.entry).collect())
        .collect();
    let context = Context::default();
    let mut times = Vec::with_capacity(iterations);
    for i in 0..iterations {
        let k = i % REQUESTS.len();
        let t = Instant::now();
        black_box(build_round(REQUESTS[k], &shortlists[k], &context, Round::First, &[]));
        times.push(t.elapsed());
    }
    times.sort();
    println!(
        "prompt: 40-entry shortlists, {iterations} builds: median {:.1} µs   p90 {:.1} µs",
        times[times.len() / 2].as_secs_f64() * 1e6,
        times[times.len() * 9 / 10].as_secs_f64() * 1e6
    );
}
