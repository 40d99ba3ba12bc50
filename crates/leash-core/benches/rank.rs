//! Ranking latency: `cargo bench --bench rank`.
//!
//! Ranks a 10-word request against the catalog a clean Neovim exports (the fixture in
//! tests/data: ~900 builtin commands and options with their help text), padded with
//! synthetic entries to 2,000 and 10,000, and prints the median time per call over
//! many calls. No framework: std::time::Instant, warm-up, median and 90th percentile.

use std::hint::black_box;
use std::time::{Duration, Instant};

use leash_core::catalog::Catalog;
use leash_core::rank::{self, Index, Mode};
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
}
