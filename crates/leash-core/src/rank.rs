//! Shortlist ranking: which catalog entries a request is most likely about.
//!
//! A request is split into words (lower-cased, stopwords dropped, stemmed), and the
//! concept vocabulary (`rank/concepts.txt`) adds the editor's words for the people's
//! words it recognises, with a lower weight. Each request word forms a group with the
//! editor words it brought in; per group an entry scores from:
//!
//! - an exact hit on its name or an alias (strongest: exact names come first),
//! - BM25F over three fields: the name and the words it is made of ("splitbelow" is
//!   "split" + "below"), the title, and the documentation (weighted lowest, with
//!   length normalisation so long help texts do not drown short titles),
//! - the titles of the options and commands its documentation refers to
//!   (`'visualbell'` lends "beeping" to `belloff`), weighted lowest of all and only
//!   for words the entry's own name and title lack,
//! - words the request word begins ("indent" → "indentexpr"), at a lower weight,
//! - nucleo's fuzzy match on the name and aliases ("vsp" → `vsplit`).
//!
//! Two adjacent words also count as the name they make together, in a request ("status
//! line" → `statusline`) and in a title or help text (`laststatus` says "status line",
//! so "hide the statusline" finds it). A boolean setting answers to its `:set` names
//! ("nowrap", "invlist"). A word the catalog does not know reads as the known words it
//! is made of ("softwrap"), or else looks up the known stems one typo away
//! ("regsiters").
//!
//! A mapping or a user command is known by its description, not by its name (keys
//! such as `<leader>sf`, or a plugin's word): when every word of the request meets a
//! word of its description, and the request says most of what the description says
//! ("find files" and "[S]earch [F]iles", with "find" meaning "search"), it earns the
//! bonus of an exact name, scaled by how much of the description the request covers.
//!
//! An entry's score is the sum over groups of its best term in each group. A command
//! named by a request word that the rest of a longer request hardly points at keeps
//! only part of its exact-name bonus ("hide the statusline" is not about `:hide`).
//! Ties are broken by name, so a ranking is deterministic.

use std::hash::{BuildHasherDefault, Hasher};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use nucleo::pattern::{Atom, AtomKind, CaseMatching, Normalization};
use nucleo::{Matcher, Utf32Str};

use crate::catalog::Catalog;
use crate::entry::Entry;

mod concepts;
mod languages;
mod part;
mod part_file;
mod text;

pub use languages::to_english;
pub use part::IndexPart;
use part::{name_parts, Under};
pub use text::{query_words, stem};

/// The index's maps are keyed by the catalog's words and the request's: a multiply-rotate
/// hash of the word's bytes, as rustc's own maps use, in place of SipHash, which was a
/// quarter of building the index. Nothing here is a secret, and a catalog written to
/// collide would slow its own ranking, not reach anything.
type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<WordHasher>>;
type HashSet<K> = std::collections::HashSet<K, BuildHasherDefault<WordHasher>>;

/// The hasher of [`HashMap`] and [`HashSet`] above.
#[derive(Default, Clone, Copy)]
struct WordHasher(u64);

impl WordHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Whether every request word must match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// A word may match on its own; scores add up across matching words.
    #[default]
    Any,
    /// Every word must match somewhere.
    All,
}

impl Mode {
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "any" => Some(Mode::Any),
            "all" => Some(Mode::All),
            _ => None,
        }
    }
}

/// One ranked entry.
#[derive(Debug, Clone, Copy)]
pub struct Ranked<'a> {
    pub entry: &'a Entry,
    pub score: u32,
}

/// An exact hit of a request word on a name or alias. A word that is also common in
/// the catalog's text ("window", "list", "no") is as likely part of the sentence as a
/// name: its bonus shrinks with its document frequency, for aliases ("no" is
/// `:noremap`) sooner than for full names.
const EXACT_NAME: f32 = 20.0;
const EXACT_COMMON: f32 = 0.35;
const NAME_DF: (f32, f32) = (0.05, 0.25);
const ALIAS_DF: (f32, f32) = (0.01, 0.05);
/// A few command names that are, in a request, nearly always just part of the
/// sentence ("make the font bigger", "put a > in front").
const EXACT_WEAK: f32 = 4.0;
const WEAK_NAMES: &[&str] = &["make", "put", "open", "change", "print"];
/// Fuzzy name match (scaled by match quality; counts from `FUZZY_MIN` quality on).
const FUZZY_NAME: f32 = 4.0;
const FUZZY_MIN: f32 = 0.6;
/// BM25F field weights and length normalisation, and the saturation constant.
const W_NAME: f32 = 4.0;
const W_TITLE: f32 = 3.0;
const W_DOC: f32 = 0.6;
const W_REL: f32 = 0.3;
const B_TITLE: f32 = 0.5;
const B_DOC: f32 = 0.5;
const B_REL: f32 = 0.75;
/// At most this many entries an entry's documentation refers to lend it their titles.
const MAX_REFS: usize = 8;
const K1: f32 = 1.2;
/// A vocabulary word that the request word only begins counts this much.
const PREFIX: f32 = 0.5;
/// Editor words brought in by a concept count this much of the request's own words,
/// and their exact name hits count `CONCEPT_NAME` of that again: the request's own
/// exact names stay ahead.
const CONCEPT: f32 = 0.6;
/// A word the catalog does not know, of at least `TYPO_MIN` letters, also looks up the
/// known stems one edit away (a letter missing, extra, wrong or two swapped), at this
/// weight.
const TYPO: f32 = 0.8;
const TYPO_MIN: usize = 5;
const CONCEPT_NAME: f32 = 0.5;
/// A description (of a mapping or user command) of at most `DESCRIBED_MAX` words that
/// the request covers: the exact-name bonus, scaled by the covered share, counted from
/// `DESCRIBED_MIN` of it on.
const DESCRIBED_MAX: usize = 8;
const DESCRIBED_MIN: f32 = 0.5;
/// The share of an item's exact name bonus it loses when the other words of a request
/// of two words or more give it less than `LONE_SUPPORT` (a title hit gives more).
const LONE_NAME: f32 = 0.5;
const LONE_SUPPORT: f32 = 3.0;

/// What the ranker precomputes for a catalog: the parts its entries are read in (the
/// shared part of the entries it is built on, if any, then its own) and each entry's
/// field-length normalisation. Term weights (BM25F) are worked out when a request looks
/// a term up, from the counts the parts keep: a part read once serves catalogs of any
/// size.
#[derive(Debug)]
pub struct Index {
    base: Option<Arc<IndexPart>>,
    own: IndexPart,
    /// Per entry, each field's length normalisation.
    norms: Vec<[f32; 4]>,
}

impl Index {
    /// Builds the index of a catalog.
    pub fn new(catalog: &Catalog) -> Index {
        Index::from_parts(None, IndexPart::new(catalog.entries(), None))
    }

    /// Builds the index of a catalog whose first entries are those `base` was read from
    /// (see [`BaseIndex`]): only the rest are read now.
    pub fn with_base(catalog: &Catalog, base: Arc<IndexPart>) -> Index {
        let own = own_part(catalog.entries(), &base);
        Index::from_parts(Some(base), own)
    }

    fn from_parts(base: Option<Arc<IndexPart>>, own: IndexPart) -> Index {
        let lengths = || base.iter().flat_map(|b| &b.lengths).chain(&own.lengths);
        let n = base.as_ref().map_or(0, |b| b.len()) + own.len();
        let mut avg = [0f32; 4];
        for l in lengths() {
            for k in 0..4 {
                avg[k] += l[k];
            }
        }
        for a in &mut avg {
            *a = (*a / n.max(1) as f32).max(1.0);
        }
        let norms = lengths()
            .map(|l| {
                [
                    1.0,
                    1.0 - B_TITLE + B_TITLE * l[1] / avg[1],
                    1.0 - B_DOC + B_DOC * l[2] / avg[2],
                    1.0 - B_REL + B_REL * l[3] / avg[3],
                ]
            })
            .collect();
        Index { base, own, norms }
    }

    /// Number of entries.
    fn len(&self) -> usize {
        self.norms.len()
    }

    /// The parts, each with the number of its first entry in the catalog.
    fn parts(&self) -> impl Iterator<Item = (&IndexPart, u32)> {
        let base = self.base.as_deref().map(|b| (b, 0));
        base.into_iter().chain(std::iter::once((&self.own, self.base.as_ref().map_or(0, |b| b.len() as u32))))
    }

    /// The entries named `key` (lower-cased name or alias), with whether by an alias.
    fn named(&self, key: &str) -> impl Iterator<Item = (u32, bool)> + '_ {
        let key = key.to_string();
        self.parts().flat_map(move |(p, at)| p.exact.get(&key).into_iter().flatten().map(move |&(d, a)| (d + at, a)))
    }

    /// Whether some entry is named `key`.
    fn has_name(&self, key: &str) -> bool {
        self.parts().any(|(p, _)| p.exact.contains_key(key))
    }

    /// Whether some entry has the term `stem`.
    fn has_term(&self, stem: &str) -> bool {
        self.parts().any(|(p, _)| p.has_term(stem))
    }

    /// Whether `word` is a whole word of some entry's title or documentation.
    fn has_word(&self, word: &str) -> bool {
        self.parts().any(|(p, _)| p.words.contains(word))
    }

    /// How many entries have the term `stem`.
    fn df(&self, stem: &str) -> usize {
        self.parts().map(|(p, _)| p.postings(stem).len()).sum()
    }

    /// Each entry that has the term `stem`, with its BM25F weight (rarity included).
    fn weights(&self, stem: &str, mut each: impl FnMut(u32, f32)) {
        let df = self.df(stem) as f32;
        if df == 0.0 {
            return;
        }
        let nf = self.len() as f32;
        let idf = (1.0 + (nf - df + 0.5) / (df + 0.5)).ln();
        for (part, at) in self.parts() {
            for p in part.postings(stem) {
                let d = p.entry + at;
                let norm = &self.norms[d as usize];
                let mut t = 0.0f32;
                for (k, w) in [W_NAME, W_TITLE, W_DOC, W_REL].into_iter().enumerate() {
                    if p.counts[k] > 0 {
                        t += w * p.counts[k] as f32 / norm[k];
                    }
                }
                each(d, idf * t * (K1 + 1.0) / (t + K1));
            }
        }
    }

    /// The stems of every part, each once, in order.
    fn vocabulary(&self) -> Vec<&str> {
        match &self.base {
            None => self.own.vocabulary.iter().map(String::as_str).collect(),
            Some(base) => {
                let mut all: Vec<&str> =
                    base.vocabulary.iter().chain(&self.own.vocabulary).map(String::as_str).collect();
                all.sort_unstable();
                all.dedup();
                all
            }
        }
    }

    /// The stems longer than `stem` that begin with it, each once.
    fn longer(&self, stem: &str) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for (p, _) in self.parts() {
            let start = p.vocabulary.partition_point(|v| v.as_str() < stem);
            for v in p.vocabulary[start..].iter().take_while(|v| v.starts_with(stem)).skip_while(|v| **v == stem) {
                if !out.contains(&v.as_str()) {
                    out.push(v);
                }
            }
        }
        out
    }

    /// The stems of the description of entry `d`, when it is named by it.
    fn described(&self, d: u32) -> Option<&Vec<String>> {
        self.parts().find_map(|(p, at)| d.checked_sub(at).and_then(|d| p.described.get(&d)))
    }

    /// Known stems one edit from `stem` (which is not itself known), at most four: those
    /// equal to it with one letter deleted, then, letter by letter of `stem`, the stem
    /// it makes without that letter and those sharing that one-letter deletion with it
    /// (a substitution or a swap). A stem is a neighbour of a longer or equally long one
    /// only when it is all lowercase letters, of 4 or more, and two entries or more have
    /// it: a word used once is as likely a typo itself.
    fn near(&self, stem: &str) -> Vec<&str> {
        let s = stem.as_bytes();
        let l = s.len();
        let common = |v: &str| v.len() >= 4 && v.bytes().all(|b| b.is_ascii_lowercase()) && self.df(v) >= 2;
        // (letter of `stem` deleted, plus one; 0: none) and 0 for the stem it makes, 1 for
        // a shared deletion; then the stem itself, as ordered.
        let mut found: Vec<((usize, u8), &str)> = Vec::new();
        for v in self.vocabulary() {
            let b = v.as_bytes();
            let key = if b.len() == l + 1 {
                (without_one(b, s).is_some() && common(v)).then_some((0, 0))
            } else if b.len() + 1 == l && b.len() >= 4 {
                without_one(s, b).map(|i| (i + 1, 0))
            } else if b.len() == l && v != stem {
                shared_deletion(s, b).filter(|_| common(v)).map(|i| (i + 1, 1))
            } else {
                None
            };
            if let Some(key) = key {
                found.push((key, v));
            }
        }
        found.sort_unstable();
        // Keep the list short: a long word seldom has more than one neighbour.
        found.into_iter().take(4).map(|(_, v)| v).collect()
    }
}

/// The first position of `long` (one byte longer than `short`) whose byte deleted leaves
/// `short`, if any.
fn without_one(long: &[u8], short: &[u8]) -> Option<usize> {
    let p = long.iter().zip(short).take_while(|(a, b)| a == b).count();
    if long[p + 1..] != short[p..] {
        return None;
    }
    // Deleting any byte of a run of equal bytes leaves the same: the run's first counts.
    let mut i = p;
    while i > 0 && long[i - 1] == long[p] {
        i -= 1;
    }
    Some(i)
}

/// The first position `i` of `a` such that `a` without its `i`-th byte is `b` (as long
/// as `a`) without one of its bytes, if any.
fn shared_deletion(a: &[u8], b: &[u8]) -> Option<usize> {
    let l = a.len();
    if l == 0 {
        return None;
    }
    let p = a.iter().zip(b).take_while(|(x, y)| x == y).count().min(l - 1);
    let q = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count().min(l - 1);
    // Deleting `i` from `a` and `j` from `b`: the bytes before min(i, j) are shared and so
    // are those after max(i, j); between, one is the other shifted by one.
    let mut best: Option<usize> = None;
    for lo in 0..=p {
        for hi in lo.max(l - 1 - q)..l {
            let (i, ok) = if lo == hi {
                (lo, true)
            } else {
                let (left, right) = (a[lo + 1..=hi] == b[lo..hi], a[lo..hi] == b[lo + 1..=hi]);
                // Either `a` loses `lo` (and `b` `hi`) or `b` loses `lo` (and `a` `hi`).
                match (left, right) {
                    (true, _) => (lo, true),
                    (false, true) => (hi, true),
                    _ => (0, false),
                }
            };
            if ok && best.is_none_or(|b| i < b) {
                best = Some(i);
            }
        }
    }
    best
}

/// Letters (a–z, 0–9, `_`) present in a word, one bit each.
fn letters(s: &str) -> u64 {
    s.bytes().fold(0u64, |m, b| {
        m | match b {
            b'a'..=b'z' => 1 << (b - b'a'),
            b'A'..=b'Z' => 1 << (b - b'A'),
            b'0'..=b'9' => 1 << (26 + b - b'0'),
            _ => 1 << 36,
        }
    })
}

/// The index of one catalog, built once, on first use. Whoever ranks a catalog more than
/// once keeps one next to it (the Lua module beside its catalog handle, a plan request
/// beside its catalog); the catalog itself knows nothing of ranking.
#[derive(Debug, Default)]
pub struct IndexCell {
    index: OnceLock<Index>,
    base: Option<Arc<BaseIndex>>,
}

impl IndexCell {
    /// The cell of a catalog whose first entries are those of `base`.
    pub fn on_base(base: Arc<BaseIndex>) -> IndexCell {
        IndexCell { index: OnceLock::new(), base: Some(base) }
    }

    /// The index of `catalog`, the catalog this cell is kept with; built now if it is not
    /// yet (or, while another thread builds it, once that thread is done).
    pub fn get(&self, catalog: &Catalog) -> &Index {
        self.index.get_or_init(|| match &self.base {
            Some(base) => Index::from_parts(Some(base.part(catalog.entries())), base.own_part(catalog.entries())),
            None => Index::new(catalog),
        })
    }
}

/// The part of `entries` after those `base` was read from, read on it.
fn own_part(entries: &[Entry], base: &IndexPart) -> IndexPart {
    let split = base.len().min(entries.len());
    IndexPart::new(&entries[split..], Some(Under { part: base, entries: &entries[..split] }))
}

/// The index part of the entries every catalog of a session is built on first (Neovim's
/// own commands and options): read once, by the first catalog ranked, and shared; kept in
/// a file when one is given, so that a session's first request does not wait for it, and
/// the first catalog's own part beside it ([`BaseIndex::own_part`]).
#[derive(Debug)]
pub struct BaseIndex {
    /// How many entries it covers: the first of each catalog built on them.
    len: usize,
    file: Option<PathBuf>,
    /// The part, and the fingerprint of the entries it was read from.
    part: OnceLock<(Arc<IndexPart>, u64)>,
    /// Whether a catalog's own part was asked for yet: only the first one is kept.
    own_asked: AtomicBool,
}

impl BaseIndex {
    /// The base index of the first `len` entries of the catalogs it serves, kept in `file`.
    pub fn new(len: usize, file: Option<PathBuf>) -> BaseIndex {
        BaseIndex { len, file, part: OnceLock::new(), own_asked: AtomicBool::new(false) }
    }

    /// The part of `entries`' first entries: read from the file when it holds the part of
    /// these very entries, else read from the entries now (and the file written).
    pub fn part(&self, entries: &[Entry]) -> Arc<IndexPart> {
        Arc::clone(&self.part_and_fingerprint(entries).0)
    }

    fn part_and_fingerprint(&self, entries: &[Entry]) -> &(Arc<IndexPart>, u64) {
        let base = &entries[..self.len.min(entries.len())];
        self.part.get_or_init(|| {
            let fingerprint = part_file::fingerprint(base);
            let part = part_file::load(self.file.as_deref(), fingerprint, base.len(), || IndexPart::new(base, None));
            (Arc::new(part), fingerprint)
        })
    }

    /// The part of the entries after the base ones (a catalog's mappings, commands,
    /// scripts…), read on this index's part. The first catalog of a session
    /// keeps it in a file beside the base part's, and reads it from there when that file
    /// holds the part of these very entries on this very base: a session usually starts
    /// with the entries the last one started with. Later catalogs read theirs from their
    /// entries.
    pub fn own_part(&self, entries: &[Entry]) -> IndexPart {
        let (base, base_fingerprint) = self.part_and_fingerprint(entries);
        let first = !self.own_asked.swap(true, Ordering::SeqCst);
        let file = self.file.as_ref().filter(|_| first).map(|f| f.with_extension("own.bin"));
        let Some(file) = file else { return own_part(entries, base) };
        let split = base.len().min(entries.len());
        let fingerprint = part_file::fingerprint_on(&entries[split..], *base_fingerprint);
        part_file::load(Some(&file), fingerprint, entries.len() - split, || own_part(entries, base))
    }
}

thread_local! {
    static MATCHER: std::cell::RefCell<Matcher> = std::cell::RefCell::new(Matcher::new(nucleo::Config::DEFAULT));
}

/// One word to look up: the request's own or one a concept brought in.
struct Term {
    word: String,
    stem: String,
    weight: f32,
    /// The request's own word (names are fuzzy-matched only for these).
    own: bool,
}

/// The request as groups of terms: each request word with the editor words that the
/// concepts ending at it brought in, the compound it makes with the word before it
/// ("status line" → `statusline`), and, for a word the catalog does not know, the
/// known words one typo away ("regsiters" → "registers").
fn groups(idx: &Index, request: &str, skip_concept: Option<usize>) -> Vec<Vec<Term>> {
    let english = languages::to_english(request);
    let request = english.as_deref().unwrap_or(request);
    let words = split_compounds(idx, query_words(request));
    let stems: Vec<String> = words.iter().map(|w| stem(w)).collect();
    let mut out: Vec<Vec<Term>> = words
        .iter()
        .zip(&stems)
        .map(|(w, s)| vec![Term { word: w.clone(), stem: s.clone(), weight: 1.0, own: true }])
        .collect();
    for i in 1..words.len() {
        if words[i - 1].len() < 3 || words[i].len() < 3 {
            continue;
        }
        let joined = format!("{}{}", words[i - 1], words[i]);
        let s = stem(&joined);
        if idx.has_name(&joined) || idx.has_name(singular(&joined)) {
            out[i].push(Term { word: joined, stem: s, weight: 1.0, own: true });
        }
    }
    for (i, (w, s)) in words.iter().zip(&stems).enumerate() {
        if w.len() >= TYPO_MIN && w.bytes().all(|b| b.is_ascii_lowercase()) && !idx.has_term(s) && !idx.has_name(w) {
            for fix in idx.near(s) {
                out[i].push(Term { word: fix.to_string(), stem: fix.to_string(), weight: TYPO, own: false });
            }
        }
    }
    for (c, end) in concepts::matches(&stems, skip_concept) {
        for word in &concepts::all()[c].editor {
            let group = &mut out[end];
            if !group.iter().any(|t| t.word == *word) {
                group.push(Term { word: word.clone(), stem: stem(word), weight: CONCEPT, own: false });
            }
        }
    }
    out
}

/// A request word the catalog does not know but that is made of words it does know,
/// letter for letter, also reads as those words ("softwrap" → "soft", "wrap";
/// "statusbar" → "status", "bar").
fn split_compounds(idx: &Index, words: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(words.len());
    for w in words {
        let unknown = w.len() >= 6 && !idx.has_term(&stem(&w)) && !idx.has_name(&w);
        let parts = if unknown { name_parts(&w, &|w: &str| idx.has_word(w)) } else { Vec::new() };
        let whole = !parts.is_empty() && parts.iter().map(String::len).sum::<usize>() == w.len();
        // The word itself stays: a concept may know it ("workspace").
        if !out.contains(&w) {
            out.push(w);
        }
        for p in parts.into_iter().filter(|_| whole) {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// Scratch space for one ranking: a score per entry and the entries touched.
struct Scores {
    value: Vec<f32>,
    touched: Vec<u32>,
}

impl Scores {
    fn new(n: usize) -> Scores {
        Scores { value: vec![0.0; n], touched: Vec::new() }
    }
    fn max(&mut self, d: u32, v: f32) {
        let slot = &mut self.value[d as usize];
        if *slot == 0.0 {
            self.touched.push(d);
        }
        if v > *slot {
            *slot = v;
        }
    }
    fn add(&mut self, d: u32, v: f32) {
        let slot = &mut self.value[d as usize];
        if *slot == 0.0 {
            self.touched.push(d);
        }
        *slot += v;
    }
    fn clear(&mut self) {
        for &d in &self.touched {
            self.value[d as usize] = 0.0;
        }
        self.touched.clear();
    }
}

/// How many entries a shortlist has when the caller does not say: the one place this
/// number is written (the CLI, the Lua module and, through it, the Neovim config use it).
pub const DEFAULT_SHORTLIST: usize = 60;

/// Ranks the catalog against a request and returns at most `limit` entries, best first.
/// `index` is the catalog's own ([`Index::new`] of this catalog).
pub fn rank<'a>(index: &Index, catalog: &'a Catalog, request: &str, limit: usize, mode: Mode) -> Vec<Ranked<'a>> {
    rank_with(index, catalog, request, limit, mode, None)
}

fn rank_with<'a>(
    idx: &Index,
    catalog: &'a Catalog,
    request: &str,
    limit: usize,
    mode: Mode,
    skip_concept: Option<usize>,
) -> Vec<Ranked<'a>> {
    if limit == 0 {
        return Vec::new();
    }
    let groups = groups(idx, request, skip_concept);
    if groups.is_empty() {
        return Vec::new();
    }
    let n = catalog.len();
    let mut total = Scores::new(n);
    let mut matched = vec![0u16; n];
    let mut group = Scores::new(n);
    let mut term = Scores::new(n);
    let mut bonus = Scores::new(n);
    let mut group_bonus = Scores::new(n);
    // Exact name hits: (entry, the bonus it got, its score from that word).
    let mut named: Vec<(u32, f32, f32)> = Vec::new();
    MATCHER.with(|m| {
        let mut matcher = m.borrow_mut();
        for g in &groups {
            for t in g {
                score_term(idx, t, &mut matcher, &mut term, &mut bonus);
                for &d in &term.touched {
                    group.max(d, t.weight * term.value[d as usize]);
                }
                if t.own {
                    for &d in &bonus.touched {
                        group_bonus.max(d, bonus.value[d as usize]);
                    }
                }
                term.clear();
                bonus.clear();
            }
            for &d in &group.touched {
                total.add(d, group.value[d as usize]);
                matched[d as usize] += 1;
            }
            for &d in &group_bonus.touched {
                named.push((d, group_bonus.value[d as usize], group.value[d as usize]));
            }
            group.clear();
            group_bonus.clear();
        }
    });
    // A command named by a common word ("hide the status line", "stop the cursor
    // blinking") is as likely the request's verb as its subject: when the rest of a
    // longer request hardly points at it, its name counts for less.
    if groups.len() >= 2 {
        let entries = catalog.entries();
        for &(d, b, own) in &named {
            let rest = total.value[d as usize] - own;
            if rest < LONE_SUPPORT && entries[d as usize].kind() != "setting" {
                total.value[d as usize] -= LONE_NAME * b;
            }
        }
    }
    // A mapping or user command whose description the request says.
    for &d in &total.touched {
        if let Some(stems) = idx.described(d) {
            let covered = coverage(&groups, stems);
            if covered >= DESCRIBED_MIN {
                total.value[d as usize] += EXACT_NAME * covered;
            }
        }
    }
    let needed = match mode {
        Mode::Any => 1,
        Mode::All => groups.len() as u16,
    };
    let entries = catalog.entries();
    let mut ranked: Vec<(u32, u32)> = total
        .touched
        .iter()
        .filter(|&&d| matched[d as usize] >= needed)
        .map(|&d| ((total.value[d as usize] * 100.0).round() as u32, d))
        .filter(|&(s, _)| s > 0)
        .collect();
    let order = |a: &(u32, u32), b: &(u32, u32)| {
        b.0.cmp(&a.0).then_with(|| entries[a.1 as usize].name().cmp(entries[b.1 as usize].name()))
    };
    if ranked.len() > limit {
        ranked.select_nth_unstable_by(limit - 1, order);
        ranked.truncate(limit);
    }
    ranked.sort_unstable_by(order);
    ranked.into_iter().map(|(score, d)| Ranked { entry: &entries[d as usize], score }).collect()
}

/// How much of a description (its stems) a request says: 0 unless every group of the
/// request meets one of its words; else the share of its words the request meets, each
/// counted at the weight of the best term meeting it (a concept's word counts less than
/// the request's own).
fn coverage(groups: &[Vec<Term>], stems: &[String]) -> f32 {
    if !groups.iter().all(|g| g.iter().any(|t| stems.contains(&t.stem))) {
        return 0.0;
    }
    let said: f32 = stems
        .iter()
        .map(|s| groups.iter().flatten().filter(|t| t.stem == *s).map(|t| t.weight).fold(0.0, f32::max))
        .sum();
    said / stems.len() as f32
}

/// One term's score for every entry it reaches, into `out` (empty on entry).
fn score_term(idx: &Index, t: &Term, matcher: &mut Matcher, out: &mut Scores, bonus: &mut Scores) {
    // Title, name words and documentation: the stem, or (weaker) words it begins.
    idx.weights(&t.stem, |d, w| out.max(d, w));
    if t.stem.len() >= 3 {
        for v in idx.longer(&t.stem) {
            idx.weights(v, |d, w| out.max(d, w * PREFIX));
        }
    }
    // Names: a fuzzy match of the request's own words.
    if t.own && t.word.len() >= 3 && t.word.is_ascii() {
        let atom = Atom::new(&t.word, CaseMatching::Ignore, Normalization::Smart, AtomKind::Fuzzy, false);
        let perfect = atom.score(Utf32Str::Ascii(t.word.as_bytes()), matcher).unwrap_or(1).max(1) as f32;
        let need = letters(&t.word);
        for (part, at) in idx.parts() {
            for (name, have, d) in &part.fuzzy {
                if need & !have != 0 {
                    continue;
                }
                if let Some(s) = atom.score(name.slice(..), matcher) {
                    let q = (s as f32 / perfect).min(1.0);
                    if q >= FUZZY_MIN {
                        out.max(*d + at, FUZZY_NAME * q);
                    }
                }
            }
        }
    }
    // Exact names and aliases, added on top: the word as typed or in the singular.
    let df = idx.df(&t.stem) as f32 / idx.len().max(1) as f32;
    let common = |(lo, hi): (f32, f32)| 1.0 - (1.0 - EXACT_COMMON) * ((df - lo) / (hi - lo)).clamp(0.0, 1.0);
    let (name_bonus, alias_bonus) = if WEAK_NAMES.contains(&t.word.as_str()) {
        (EXACT_WEAK, EXACT_WEAK)
    } else {
        (EXACT_NAME * common(NAME_DF), EXACT_NAME * common(ALIAS_DF))
    };
    let own = if t.own { 1.0 } else { CONCEPT_NAME };
    let (name_bonus, alias_bonus) = (name_bonus * own, alias_bonus * own);
    let mut hit = |key: &str| {
        for (d, alias) in idx.named(key) {
            let b = if alias { alias_bonus } else { name_bonus };
            out.add(d, b);
            bonus.add(d, b);
        }
    };
    hit(&t.word);
    let one = singular(&t.word);
    if one != t.word {
        hit(one);
    }
}

/// "numbers" → "number", "matches" → "match": the stemmer cuts deeper than names do.
fn singular(word: &str) -> &str {
    if let Some(s) = word.strip_suffix("es") {
        if s.ends_with("ch") || s.ends_with("sh") || s.ends_with('x') || s.ends_with('s') || s.ends_with('z') {
            return s;
        }
    }
    match word.strip_suffix('s') {
        Some(s) if s.len() >= 2 && !s.ends_with('s') && !s.ends_with('u') && !s.ends_with('i') => s,
        _ => word,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn catalog() -> Catalog {
        crate::test_catalog::raw()
    }

    /// The Neovim fixture's index, built once.
    fn neovim_index() -> &'static Index {
        static INDEX: OnceLock<Index> = OnceLock::new();
        INDEX.get_or_init(|| Index::new(neovim()))
    }

    /// Ranks with the catalog's index: the Neovim fixture's built once, any other's now.
    fn rank_skipping<'a>(c: &'a Catalog, q: &str, limit: usize, mode: Mode, skip: Option<usize>) -> Vec<Ranked<'a>> {
        let own;
        let idx = if std::ptr::eq(c, neovim()) {
            neovim_index()
        } else {
            own = Index::new(c);
            &own
        };
        rank_with(idx, c, q, limit, mode, skip)
    }

    /// The entries that have the term `stem`, with its weight in each.
    fn weights(idx: &Index, stem: &str) -> Vec<(u32, f32)> {
        let mut out = Vec::new();
        idx.weights(stem, |d, w| out.push((d, w)));
        out
    }

    fn rank<'a>(c: &'a Catalog, q: &str, limit: usize, mode: Mode) -> Vec<Ranked<'a>> {
        rank_skipping(c, q, limit, mode, None)
    }

    fn ids(c: &Catalog, q: &str, mode: Mode) -> Vec<String> {
        rank(c, q, 10, mode).iter().map(|r| r.entry.name().to_string()).collect()
    }

    #[test]
    fn stopwords_are_dropped_and_words_kept_in_order() {
        assert_eq!(
            query_words("Please make the font bigger and turn on word wrap!"),
            ["make", "font", "bigger", "turn", "on", "word", "wrap"]
        );
        assert!(query_words("the of a to").is_empty());
        assert!(rank(&catalog(), "the of a to", 10, Mode::Any).is_empty());
    }

    #[test]
    fn stems_meet() {
        assert_eq!(stem("wrapping"), "wrap");
        assert_eq!(stem("wraps"), "wrap");
        assert_eq!(stem("wrapped"), "wrap");
        assert_eq!(stem("lines"), stem("line"));
        assert_eq!(stem("closing"), stem("close"));
        assert_eq!(stem("closed"), stem("closes"));
        assert_eq!(stem("searches"), "search");
        assert_eq!(stem("recovery"), "recovery");
        assert_eq!(stem("class"), "class");
    }

    #[test]
    fn an_exact_name_or_alias_hit_beats_a_fuzzy_title_hit() {
        let c = catalog();
        assert_eq!(ids(&c, "wrap", Mode::Any)[0], "wrap");
        assert_eq!(ids(&c, "vs", Mode::Any)[0], "cmd:vsplit");
        assert_eq!(ids(&c, "ts", Mode::Any)[0], "tabstop");
    }

    #[test]
    fn any_mode_adds_up_across_words() {
        let c = catalog();
        let got = ids(&c, "make the font bigger and turn on word wrap", Mode::Any);
        assert!(got.iter().take(4).any(|i| i == "guifont"), "{got:?}");
        assert!(got.iter().take(4).any(|i| i == "wrap"), "{got:?}");
        // The option `number` (an exact name for “numbers”) may come first, as it does in
        // the whole Neovim catalog; both are at the top of the shortlist.
        let rel = ids(&c, "relative line numbers", Mode::Any);
        assert!(
            rel[..2].contains(&"relativenumber".to_string()) && rel[..2].contains(&"number".to_string()),
            "{rel:?}"
        );
    }

    #[test]
    fn all_mode_needs_every_word() {
        let c = catalog();
        let got = ids(&c, "split vertically", Mode::All);
        assert_eq!(got, ["cmd:vsplit"]);
        assert!(ids(&c, "split font", Mode::All).is_empty());
        assert!(ids(&c, "split font", Mode::Any).len() >= 3);
    }

    #[test]
    fn documentation_words_are_searchable_with_a_lower_weight() {
        let c = catalog();
        let got = rank(&c, "crash recovery", 10, Mode::Any);
        assert_eq!(got[0].entry.name(), "swapfile");
    }

    #[test]
    fn ties_are_ordered_by_name_and_ranking_is_deterministic() {
        let c = catalog();
        let a = rank(&c, "line", 20, Mode::Any);
        let b = rank(&c, "line", 20, Mode::Any);
        let pairs = |r: &[Ranked]| r.iter().map(|x| (x.entry.name().to_string(), x.score)).collect::<Vec<_>>();
        assert_eq!(pairs(&a), pairs(&b));
        for w in a.windows(2) {
            assert!(w[0].score > w[1].score || (w[0].score == w[1].score && w[0].entry.name() < w[1].entry.name()));
        }
    }

    #[test]
    fn limit_is_respected() {
        assert_eq!(rank(&catalog(), "line wrap split", 2, Mode::Any).len(), 2);
        assert!(rank(&catalog(), "wrap", 0, Mode::Any).is_empty());
    }

    /// The catalog a clean Neovim exports (builtin commands and options with their
    /// help text), kept as a fixture.
    fn neovim() -> &'static Catalog {
        static CAT: OnceLock<Catalog> = OnceLock::new();
        CAT.get_or_init(|| Catalog::from_json(include_str!("../../../tests/data/neovim-catalog.json")).unwrap())
    }

    fn position(c: &Catalog, q: &str, name: &str, skip: Option<usize>) -> Option<usize> {
        rank_skipping(c, q, 60, Mode::Any, skip).iter().position(|r| r.entry.name() == name)
    }

    /// Every line of the concept vocabulary: its example request (a sentence in no
    /// benchmark set) brings its entry into the top 10, and ranks it higher than the
    /// same vocabulary without that line does.
    #[test]
    fn each_concept_helps_its_example() {
        let c = neovim();
        let mut failures = Vec::new();
        for (i, concept) in concepts::all().iter().enumerate() {
            assert!(
                c.get(&concept.expect).is_some(),
                "line {}: {} is not in the catalog",
                concept.line,
                concept.expect
            );
            let with = position(c, &concept.example, &concept.expect, None);
            let without = position(c, &concept.example, &concept.expect, Some(i));
            let helps = match (with, without) {
                (Some(w), Some(wo)) => w < 10 && w < wo,
                (Some(w), None) => w < 10,
                _ => false,
            };
            if !helps {
                failures.push(format!(
                    "line {}: {:?} => {}: at {:?} with the concept, {:?} without",
                    concept.line, concept.example, concept.expect, with, without
                ));
            }
        }
        assert!(
            failures.is_empty(),
            "{} concept(s) do not help their example:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }

    #[test]
    fn exact_names_come_first_on_the_neovim_catalog() {
        let c = neovim();
        for (q, want) in [
            ("wrap", "wrap"),
            ("vsplit", "cmd:vsplit"),
            ("rnu", "relativenumber"),
            ("set scrolloff to 5", "scrolloff"),
            ("tabonly", "cmd:tabonly"),
        ] {
            let got = rank(c, q, 5, Mode::Any);
            assert_eq!(got[0].entry.name(), want, "{q}: {:?}", got.iter().map(|r| r.entry.name()).collect::<Vec<_>>());
        }
        // A plural still counts as the name (here two entries are named "number"; the
        // command, which nothing else in the request points at, counts for less).
        let got: Vec<&str> = rank(c, "show line numbers", 5, Mode::Any).iter().map(|r| r.entry.name()).collect();
        assert_eq!(got[0], "number", "{got:?}");
        assert!(got.contains(&"cmd:number"), "{got:?}");
    }

    /// The clean Neovim catalog plus the described mappings of a kickstart.nvim config,
    /// whose descriptions bracket the letters of their keys.
    fn kickstart() -> Catalog {
        let mut v: serde_json::Value =
            serde_json::from_str(include_str!("../../../tests/data/neovim-catalog.json")).unwrap();
        let entries = v["entries"].as_array_mut().unwrap();
        for (lhs, desc) in [
            ("gd", "[G]oto [D]efinition"),
            ("gr", "[G]oto [R]eferences"),
            ("gI", "[G]oto [I]mplementation"),
            ("gD", "[G]oto [D]eclaration"),
            ("<leader>D", "Type [D]efinition"),
            ("<leader>ds", "[D]ocument [S]ymbols"),
            ("<leader>ws", "[W]orkspace [S]ymbols"),
            ("<leader>rn", "[R]e[n]ame"),
            ("<leader>ca", "[C]ode [A]ction"),
            ("<leader>th", "[T]oggle Inlay [H]ints"),
            ("<leader>q", "Open diagnostic [Q]uickfix list"),
            ("<leader>sh", "[S]earch [H]elp"),
            ("<leader>sk", "[S]earch [K]eymaps"),
            ("<leader>sf", "[S]earch [F]iles"),
            ("<leader>ss", "[S]earch [S]elect Telescope"),
            ("<leader>sw", "[S]earch current [W]ord"),
            ("<leader>sg", "[S]earch by [G]rep"),
            ("<leader>sd", "[S]earch [D]iagnostics"),
            ("<leader>sr", "[S]earch [R]esume"),
            ("<leader>s.", "[S]earch Recent Files (\".\" for repeat)"),
            ("<leader><leader>", "[ ] Find existing buffers"),
            ("<leader>/", "[/] Fuzzily search in current buffer"),
            ("<leader>sn", "[S]earch [N]eovim files"),
            ("<leader>f", "[F]ormat buffer"),
        ] {
            entries.push(json!({"id": format!("map:n:{lhs}"), "kind": "keymap", "title": desc, "args": "none", "reach": "shell"}));
        }
        Catalog::from_value(&v).unwrap()
    }

    #[test]
    fn kickstart_descriptions_rank_without_their_brackets() {
        let c = kickstart();
        for (q, want) in [
            ("go to definition", "map:n:gd"),
            ("goto references", "map:n:gr"),
            ("list the document symbols", "map:n:<leader>ds"),
            ("search the keymaps", "map:n:<leader>sk"),
            ("rename this variable", "map:n:<leader>rn"),
            ("search the help", "map:n:<leader>sh"),
            ("toggle inlay hints", "map:n:<leader>th"),
            // "find" says "search", "files" the plural of the title's word: the whole
            // description, above :find and the grep family that name one word each.
            ("find files", "map:n:<leader>sf"),
        ] {
            let got: Vec<&str> = rank(&c, q, 5, Mode::Any).iter().map(|r| r.entry.name()).collect();
            assert!(got.contains(&want), "{q}: {want} not in the top 5: {got:?}");
        }
        // A description only part of which the request says earns no name bonus.
        let idx = &Index::new(&c);
        let at = |id: &str| c.entries().iter().position(|e| e.name() == id).unwrap() as u32;
        let groups = groups(idx, "find files", None);
        assert!(coverage(&groups, idx.described(at("map:n:<leader><leader>")).unwrap()) == 0.0);
        assert!(coverage(&groups, idx.described(at("map:n:<leader>sf")).unwrap()) >= DESCRIBED_MIN);
    }

    #[test]
    fn a_typo_finds_the_word_it_misspells() {
        let c = neovim();
        for (q, want) in [
            ("show the regsiters", "cmd:registers"),
            ("open the quickfx window", "cmd:copen"),
            ("clear the jumplsit", "cmd:clearjumps"),
        ] {
            let got: Vec<&str> = rank(c, q, 10, Mode::Any).iter().map(|r| r.entry.name()).collect();
            assert!(got.contains(&want), "{q}: {got:?}");
        }
        // Known words are left alone.
        assert!(neovim_index().near("wrap").iter().all(|w| *w != "wrap"));
    }

    #[test]
    fn two_words_that_make_a_name_count_as_that_name() {
        let c = neovim();
        let got = rank(c, "highlight the cursor line", 3, Mode::Any);
        assert_eq!(got[0].entry.name(), "cursorline", "{:?}", got.iter().map(|r| r.entry.name()).collect::<Vec<_>>());
    }

    #[test]
    fn two_words_of_the_help_text_that_make_a_name_count_as_that_name() {
        let c = Catalog::from_value(&json!({"version": 1, "editor": "neovim", "entries": [
            {"key": "statusline", "title": "custom format for the status line", "type": "string"},
            {"key": "laststatus", "title": "tells when last window has status lines", "type": "number",
             "description": "When the last window will have a status line: 0 never, 2 always."},
            {"key": "ruler", "title": "show cursor line and column", "type": "boolean",
             "description": "Show the line and column number of the cursor position."}
        ]}))
        .unwrap();
        // "statusline" is a word of neither laststatus's title nor its help text.
        let got = ids(&c, "never a statusline", Mode::Any);
        assert_eq!(got[..2], ["statusline", "laststatus"], "{got:?}");
        // Words that make no name stay apart ("line and" is no name).
        assert!(!Index::new(&c).has_term("lineand"));
        let c = neovim();
        let idx = neovim_index();
        let at = |name: &str| c.entries().iter().position(|e| e.name() == name).unwrap() as u32;
        assert!(
            weights(idx, &stem("swapfile")).iter().any(|&(d, _)| d == at("directory")),
            "'directory' mentions the swap file"
        );
    }

    #[test]
    fn aliases_that_are_phrases_are_searched_like_titles() {
        let c = Catalog::from_value(&json!({"version": 1, "editor": "neovim", "entries": [
            {"id": "git:blame_line", "kind": "git", "title": "git blame of the current line",
             "aliases": ["who wrote this line", "last commit of this line"], "args": "none", "reach": "shell"},
            {"id": "cmd:write", "kind": "command", "title": "write to a file", "aliases": ["w"], "args": "optional", "reach": "write"},
            {"id": "cmd:commit", "kind": "command", "title": "commit something", "args": "none", "reach": "safe"}
        ]}))
        .unwrap();
        let idx = &Index::new(&c);
        assert!(weights(idx, &stem("wrote")).iter().any(|&(d, _)| d == 0));
        assert_eq!(ids(&c, "who wrote this code", Mode::Any)[0], "git:blame_line");
        // A one-word alias is a name, not a title word.
        assert!(!idx.has_term("w"));
    }

    #[test]
    fn an_unknown_word_made_of_known_words_reads_as_those_words() {
        let c = neovim();
        let idx = neovim_index();
        let split = |w: &str| split_compounds(idx, vec![w.to_string()]);
        assert_eq!(split("softwrap"), ["softwrap", "soft", "wrap"]);
        assert_eq!(split("linenumbers"), ["linenumbers", "line", "numbers"]);
        // Known words and names stay whole; so does a word that is not all known words.
        assert_eq!(split("statusline"), ["statusline"]);
        assert_eq!(split("numbers"), ["numbers"]);
        assert_eq!(split("kubectl"), ["kubectl"]);
        let got: Vec<&str> = rank(c, "turn off linenumbers", 3, Mode::Any).iter().map(|r| r.entry.name()).collect();
        assert!(got.contains(&"number"), "{got:?}");
    }

    #[test]
    fn a_boolean_setting_answers_to_its_no_and_inv_names() {
        let c = neovim();
        for (q, want) in
            [("set nowrap", "wrap"), ("nonu please", "number"), ("invlist", "list"), ("noswapfile", "swapfile")]
        {
            let got = rank(c, q, 5, Mode::Any);
            assert_eq!(got[0].entry.name(), want, "{q}: {:?}", got.iter().map(|r| r.entry.name()).collect::<Vec<_>>());
        }
        // Only booleans: a number option has no "no" form.
        assert!(!neovim_index().has_name("notabstop"));
        assert!(neovim_index().has_name("nowrap"));
    }

    #[test]
    fn a_command_named_by_a_common_word_yields_when_nothing_else_points_at_it() {
        let c = neovim();
        let top = |q: &str| rank(c, q, 10, Mode::Any).iter().map(|r| r.entry.name().to_string()).collect::<Vec<_>>();
        // The verb names :hide and :stop, but the request is about something else.
        let got = top("hide the statusline");
        assert_eq!(got[0], "statusline", "{got:?}");
        let got = top("stop the blinking of the cursor");
        assert_ne!(got[0], "cmd:stop", "{got:?}");
        assert!(got.contains(&"guicursor".to_string()), "{got:?}");
        // Alone, or when the rest of the request points at it too, the name still wins.
        assert_eq!(top("hide")[0], "cmd:hide");
        assert_eq!(top("sort the lines")[0], "cmd:sort");
    }

    #[test]
    fn wincmd_is_found_by_what_its_window_keys_do() {
        let c = neovim();
        for q in ["go to the bottom window", "go to the last accessed window"] {
            let got: Vec<&str> = rank(c, q, 10, Mode::Any).iter().map(|r| r.entry.name()).collect();
            assert!(got.contains(&"cmd:wincmd"), "{q}: {got:?}");
        }
    }

    #[test]
    fn compound_names_are_split_into_words() {
        let c = neovim();
        let top = |q: &str| rank(c, q, 10, Mode::Any).iter().map(|r| r.entry.name().to_string()).collect::<Vec<_>>();
        assert!(
            top("horizontal splits go below").contains(&"splitbelow".to_string()),
            "{:?}",
            top("horizontal splits go below")
        );
        assert!(top("blend the popup menu").contains(&"pumblend".to_string()));
    }

    #[test]
    fn ranking_the_neovim_catalog_is_deterministic() {
        let c = neovim();
        let q = "make the window wider and turn off line wrapping everywhere";
        let a: Vec<(String, u32)> =
            rank(c, q, 60, Mode::Any).iter().map(|r| (r.entry.name().to_string(), r.score)).collect();
        for _ in 0..3 {
            let b: Vec<(String, u32)> =
                rank(c, q, 60, Mode::Any).iter().map(|r| (r.entry.name().to_string(), r.score)).collect();
            assert_eq!(a, b);
        }
        let fresh = Catalog::from_json(include_str!("../../../tests/data/neovim-catalog.json")).unwrap();
        let b: Vec<(String, u32)> =
            rank(&fresh, q, 60, Mode::Any).iter().map(|r| (r.entry.name().to_string(), r.score)).collect();
        assert_eq!(a, b);
    }

    #[test]
    fn the_base_entries_are_read_with_their_own_words_only() {
        // `quuxbar` is split into "quux" + "bar" when the catalog's text has both words;
        // on the base index, a mapping's description does not change how a base entry
        // reads (the base part is shared by every catalog of the session).
        let c = Catalog::from_value(&json!({"version": 1, "editor": "neovim", "entries": [
            {"key": "quuxbar", "kind": "setting", "title": "a thing", "type": "boolean"},
            {"id": "map:n:<leader>q", "kind": "keymap", "title": "quux the bar", "args": "none", "reach": "safe"}
        ]}))
        .unwrap();
        let whole = Index::new(&c);
        assert!(weights(&whole, &stem("quux")).iter().any(|&(d, _)| d == 0));
        let cell = IndexCell::on_base(Arc::new(BaseIndex::new(1, None)));
        let on_base = cell.get(&c);
        assert!(!weights(on_base, &stem("quux")).iter().any(|&(d, _)| d == 0));
        assert!(weights(on_base, &stem("quux")).iter().any(|&(d, _)| d == 1));
        assert_eq!(on_base.len(), 2);
    }
}
