//! What the ranker reads from a list of entries: their names, their words, and how often
//! each term occurs in each field of each entry. An index is made of parts: Neovim's own
//! commands and options make one, read once per session (or from the file it was saved
//! in, [`super::part_file`]) and shared by every catalog built on them; the session's own
//! entries (mappings, user commands, scripts…) make another, read per catalog.
//!
//! An entry's terms depend on words beyond its own text: a name is split into words the
//! catalog uses ("splitbelow"), two adjacent words count as a name the catalog has
//! ("status line"), and the options its help text refers to lend their titles. A part is
//! read with its own words and names and those of the part it is built on, never with a
//! later part's: Neovim's own entries read the same whatever a configuration adds.

use std::borrow::Cow;

use nucleo::Utf32String;

use super::text::{lower_ascii, query_words, split_lowered, split_words, stem, strip_emphasis};
use super::{letters, HashMap, HashSet, DESCRIBED_MAX, MAX_REFS};
use crate::entry::{Entry, ValueType};
use crate::item_id::ItemKind;

/// One entry's counts of one term, in the name, the title, the documentation and the
/// titles its documentation refers to (up to 65,535 each: a text that says a word more
/// often counts it that often).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Posting {
    pub entry: u32,
    pub counts: [u16; 4],
}

/// What the ranker reads from a list of entries; entry numbers count from the part's
/// first entry.
#[derive(Debug, Default, PartialEq)]
pub struct IndexPart {
    /// Lower-cased name (without its source prefix) or alias → (entry, is an alias).
    pub(super) exact: HashMap<String, Vec<(u32, bool)>>,
    /// Names and aliases for fuzzy matching, with the set of letters each contains.
    pub(super) fuzzy: Vec<(Utf32String, u64, u32)>,
    /// The stems (terms), sorted: looked up by binary search, and for prefix and typo
    /// look-ups.
    pub(super) vocabulary: Vec<String>,
    /// Per stem of `vocabulary`, where in `postings` the entries that have it are.
    pub(super) spans: Vec<(u32, u32)>,
    /// Each term's entries, in entry order, one term after the other.
    pub(super) postings: Vec<Posting>,
    /// Whole words of titles and documentation (3 letters or more), for splitting
    /// compound names and compound request words.
    pub(super) words: HashSet<String>,
    /// Per entry, the length of each field in words.
    pub(super) lengths: Vec<[f32; 4]>,
    /// Entry → the stems of its description, for the mappings and user commands whose
    /// description is what people call them (see [`described`]).
    pub(super) described: HashMap<u32, Vec<String>>,
}

/// The part an entry list is read on: its entries, for the titles its references lend.
#[derive(Clone, Copy)]
pub(super) struct Under<'a> {
    pub part: &'a IndexPart,
    pub entries: &'a [Entry],
}

impl IndexPart {
    /// Number of entries.
    pub(super) fn len(&self) -> usize {
        self.lengths.len()
    }

    /// Reads `entries`, on the part `under` (whose words and names they are also read
    /// with) if any.
    pub(super) fn new(entries: &[Entry], under: Option<Under<'_>>) -> IndexPart {
        let n = entries.len();
        let mut exact: HashMap<String, Vec<(u32, bool)>> = HashMap::default();
        let mut fuzzy = Vec::new();
        // Each entry's title and documentation as words, split once (from one lowercased
        // copy of each).
        let lowered: Vec<[Cow<str>; 2]> = entries
            .iter()
            .map(|e| [lower_ascii(strip_emphasis(e.title())), lower_ascii(strip_emphasis(e.description()))])
            .collect();
        let texts: Vec<[Vec<Cow<str>>; 2]> =
            lowered.iter().map(|[t, d]| [split_lowered(t), split_lowered(d)]).collect();
        // Whole words of titles and documentation, for splitting names.
        let mut words: HashSet<String> = HashSet::default();
        for w in texts.iter().flatten().flatten() {
            if w.len() >= 3 && w.bytes().all(|c| c.is_ascii_lowercase()) && !words.contains(w.as_ref()) {
                words.insert(w.to_string());
            }
        }
        for (i, entry) in entries.iter().enumerate() {
            let name = entry.name();
            let bare = name.split_once(':').map_or(name, |(_, rest)| rest).to_lowercase();
            let mut names = vec![bare];
            names.extend(entry.aliases().iter().map(|a| a.to_lowercase()));
            names.dedup();
            for (k, nm) in names.iter().enumerate() {
                let list = exact.entry(nm.clone()).or_default();
                if list.last().map(|l| l.0) != Some(i as u32) {
                    list.push((i as u32, k > 0));
                }
                fuzzy.push((Utf32String::from(nm.as_str()), letters(nm), i as u32));
            }
            // A boolean setting also answers to the names `:set` gives its two other
            // states ("nowrap", "invlist"), as aliases.
            if let Entry::Setting(s) = entry {
                if s.value_type == ValueType::Boolean {
                    for nm in &names {
                        for prefix in ["no", "inv"] {
                            let list = exact.entry(format!("{prefix}{nm}")).or_default();
                            if list.last().map(|l| l.0) != Some(i as u32) {
                                list.push((i as u32, true));
                            }
                        }
                    }
                }
            }
        }
        let known_word = |w: &str| words.contains(w) || under.is_some_and(|u| u.part.words.contains(w));
        let is_name = |w: &str| exact.contains_key(w) || under.is_some_and(|u| u.part.exact.contains_key(w));
        // Per entry and field: (term, count), and field lengths.
        let mut terms_of = Terms::default();
        let mut fields: Vec<[Vec<(u32, u32)>; 4]> = Vec::with_capacity(n);
        let mut lengths: Vec<[f32; 4]> = Vec::with_capacity(n);
        let mut joined = String::new();
        for (i, entry) in entries.iter().enumerate() {
            let name = entry.name();
            let mut f = Fields { entry: i as u32, lists: Default::default(), len: [0f32; 4] };
            // The name: its words ("script:cargo:test", "tab_new"), the parts it is
            // made of ("splitbelow").
            for w in split_words(&name.replace([':', '_'], " ")) {
                terms_of.count(&mut f, 0, &w);
                for part in name_parts(&w, &known_word) {
                    terms_of.count(&mut f, 0, &part);
                }
            }
            // Title, the aliases that are phrases ("who wrote this line": they say
            // what the entry does, like its title) and documentation; two adjacent
            // words that make a name count as that name too ("status line" in
            // 'laststatus' is `statusline`).
            let phrases: Vec<Vec<Cow<str>>> = entry
                .aliases()
                .iter()
                .filter(|a| a.contains(' '))
                .map(|a| split_words(a).map(Cow::Owned).collect())
                .collect();
            let [title, description] = &texts[i];
            for (field, text) in [(1, title), (2, description)].into_iter().chain(phrases.iter().map(|p| (1, p))) {
                let mut prev: &str = "";
                for w in text {
                    terms_of.count(&mut f, field, w);
                    if prev.len() >= 3 && w.len() >= 3 {
                        joined.clear();
                        joined.push_str(prev);
                        joined.push_str(w);
                        if is_name(joined.as_str()) {
                            let j = joined.clone();
                            terms_of.count(&mut f, field, &j);
                        }
                    }
                    prev = w;
                }
            }
            // The titles of the options and commands its documentation refers to
            // ('visualbell' lends "beeping" to 'belloff').
            for r in references(entry.description(), &exact, entries, i as u32, under) {
                match r {
                    Reference::Own(r) => terms_of.lend(&mut f, &texts[r as usize][0]),
                    Reference::Under(title) => {
                        let lower = lower_ascii(strip_emphasis(title));
                        terms_of.lend(&mut f, &split_lowered(&lower));
                    }
                }
            }
            fields.push(f.lists);
            lengths.push(f.len);
        }
        // Term → the entries that have it.
        let mut postings: Vec<Vec<Posting>> = vec![Vec::new(); terms_of.names.len()];
        for (i, f) in fields.iter().enumerate() {
            for (k, list) in f.iter().enumerate() {
                for &(term, c) in list {
                    let list = &mut postings[term as usize];
                    if list.last().map(|p| p.entry) != Some(i as u32) {
                        list.push(Posting { entry: i as u32, counts: [0; 4] });
                    }
                    if let Some(p) = list.last_mut() {
                        p.counts[k] = u16::try_from(c).unwrap_or(u16::MAX);
                    }
                }
            }
        }
        let described = entries.iter().enumerate().filter_map(|(i, e)| Some((i as u32, described(e)?))).collect();
        let mut part = IndexPart { exact, fuzzy, words, lengths, described, ..IndexPart::default() };
        let mut order: Vec<u32> = (0..terms_of.names.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| terms_of.names[a as usize].cmp(&terms_of.names[b as usize]));
        for t in order {
            part.push_term(std::mem::take(&mut terms_of.names[t as usize]), &postings[t as usize]);
        }
        part
    }

    /// Adds a term with its entries, after the terms added so far (in stem order).
    pub(super) fn push_term(&mut self, stem: String, list: &[Posting]) {
        let start = self.postings.len() as u32;
        self.postings.extend_from_slice(list);
        self.spans.push((start, self.postings.len() as u32));
        self.vocabulary.push(stem);
    }

    /// Whether an entry has the term `stem`.
    pub(super) fn has_term(&self, stem: &str) -> bool {
        self.vocabulary.binary_search_by(|v| v.as_str().cmp(stem)).is_ok()
    }

    /// The entries that have the term `stem`.
    pub(super) fn postings(&self, stem: &str) -> &[Posting] {
        match self.vocabulary.binary_search_by(|v| v.as_str().cmp(stem)) {
            Ok(i) => {
                let (start, end) = self.spans[i];
                self.postings.get(start as usize..end as usize).unwrap_or_default()
            }
            Err(_) => &[],
        }
    }
}

/// The terms (stems) of the entries being read, numbered as first met, and each word's
/// term, so that each distinct word is stemmed once and an entry's counts are kept by
/// number, not by a copy of the stem.
#[derive(Default)]
struct Terms {
    /// Term number → stem.
    names: Vec<String>,
    /// Stem → term number.
    numbers: HashMap<String, u32>,
    /// Word → term number.
    of_word: HashMap<String, u32>,
    /// Per term and field: the entry (plus one; zero: none yet) whose list holds it, and
    /// where in that list.
    at: Vec<[(u32, u32); 4]>,
}

/// One entry's terms while it is read: per field, (term, count), and the field's length.
struct Fields {
    entry: u32,
    lists: [Vec<(u32, u32)>; 4],
    len: [f32; 4],
}

impl Terms {
    /// The term number of `word`, if any entry counted it.
    fn known(&self, word: &str) -> Option<u32> {
        match self.of_word.get(word) {
            Some(&t) => Some(t),
            None => self.numbers.get(stem(word).as_str()).copied(),
        }
    }

    /// Counts `word` once more in field `field` of the entry `f`.
    fn count(&mut self, f: &mut Fields, field: usize, word: &str) {
        let term = match self.of_word.get(word) {
            Some(&t) => t,
            None => {
                let s = stem(word);
                let t = match self.numbers.get(s.as_str()) {
                    Some(&t) => t,
                    None => {
                        let t = self.names.len() as u32;
                        self.numbers.insert(s.clone(), t);
                        self.names.push(s);
                        self.at.push([(0, 0); 4]);
                        t
                    }
                };
                self.of_word.insert(word.to_string(), t);
                t
            }
        };
        let at = &mut self.at[term as usize][field];
        if at.0 == f.entry + 1 {
            f.lists[field][at.1 as usize].1 += 1;
        } else {
            *at = (f.entry + 1, f.lists[field].len() as u32);
            f.lists[field].push((term, 1));
        }
        f.len[field] += 1.0;
    }

    /// Counts in the referred titles' field of `f` the words of a title its
    /// documentation refers to that its name and title lack: the field lends
    /// vocabulary, it does not repeat the entry's own.
    fn lend(&mut self, f: &mut Fields, title: &[Cow<str>]) {
        for w in title {
            if !self.in_fields(f, w, [0, 1]) {
                self.count(f, 3, w);
            }
        }
    }

    /// Whether `word`'s term is in any of `fields` of the entry `f`.
    fn in_fields(&self, f: &Fields, word: &str, fields: [usize; 2]) -> bool {
        self.known(word).is_some_and(|t| fields.iter().any(|&k| self.at[t as usize][k].0 == f.entry + 1))
    }
}

/// The words a compound name is made of ("splitbelow" → "split", "below"), from the
/// catalog's own vocabulary (`known`): most letters covered, then fewest pieces.
pub(super) fn name_parts(name: &str, known: &impl Fn(&str) -> bool) -> Vec<String> {
    let b = name.as_bytes();
    let n = b.len();
    if n < 5 || !name.is_ascii() || known(name) {
        return Vec::new();
    }
    // best[i] = (letters covered, -pieces, previous cut, piece started here?)
    let mut best: Vec<(usize, i32, usize, bool)> = vec![(0, 0, 0, false); n + 1];
    for i in 1..=n {
        best[i] = (best[i - 1].0, best[i - 1].1, i - 1, false);
        for j in 0..i.saturating_sub(2) {
            if known(&name[j..i]) {
                let cand = (best[j].0 + (i - j), best[j].1 - 1, j, true);
                if (cand.0, cand.1) > (best[i].0, best[i].1) {
                    best[i] = cand;
                }
            }
        }
    }
    let mut parts = Vec::new();
    let mut i = n;
    while i > 0 {
        let (_, _, j, piece) = best[i];
        if piece {
            parts.push(name[j..i].to_string());
        }
        i = j;
    }
    parts.reverse();
    if parts.len() < 2 {
        Vec::new()
    } else {
        parts
    }
}

/// An entry a documentation text refers to: one of the part being read, or the title of
/// one of the part it is read on.
#[derive(Debug, PartialEq)]
enum Reference<'a> {
    Own(u32),
    Under(&'a str),
}

/// The entries a documentation text refers to by name: `'option'` and `:command`
/// (names and abbreviations known to the catalog), in order, without repeats or `me`;
/// the part's own first, then the part it is read on.
fn references<'a>(
    doc: &str,
    exact: &HashMap<String, Vec<(u32, bool)>>,
    entries: &[Entry],
    me: u32,
    under: Option<Under<'a>>,
) -> Vec<Reference<'a>> {
    let mut out: Vec<Reference<'a>> = Vec::new();
    let mut own: Vec<u32> = Vec::new();
    let mut theirs: Vec<u32> = Vec::new();
    let b = doc.as_bytes();
    let mut i = 0;
    while i < b.len() && out.len() < MAX_REFS {
        let c = b[i];
        i += 1;
        if c != b'\'' && c != b':' {
            continue;
        }
        // An opening quote or colon does not follow a letter ("don't", "e.g.:").
        if i >= 2 && b[i - 2].is_ascii_alphanumeric() {
            continue;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_alphabetic() {
            i += 1;
        }
        let option = c == b'\'';
        if i - start < 2 || (option && b.get(i) != Some(&b'\'')) {
            continue;
        }
        let wanted = |e: &Entry| if option { e.kind() == "setting" } else { ItemKind::Command.holds(e.name()) };
        let name = &doc[start..i];
        if let Some(u) = under {
            for &(d, _) in u.part.exact.get(name).into_iter().flatten() {
                let e = &u.entries[d as usize];
                if wanted(e) && !theirs.contains(&d) && out.len() < MAX_REFS {
                    theirs.push(d);
                    out.push(Reference::Under(e.title()));
                }
            }
        }
        for &(d, _) in exact.get(name).into_iter().flatten() {
            if wanted(&entries[d as usize]) && d != me && !own.contains(&d) && out.len() < MAX_REFS {
                own.push(d);
                out.push(Reference::Own(d));
            }
        }
    }
    out
}

/// The stems of an entry's description when it is named by it: a mapping (whose name
/// is keys) or a user command, described in a few words by whoever defined it; the
/// words of the request as a request would say them (stopwords dropped, each once).
fn described(entry: &Entry) -> Option<Vec<String>> {
    if !matches!(entry.kind(), "keymap" | "user_command") {
        return None;
    }
    let mut stems: Vec<String> = Vec::new();
    for w in query_words(&strip_emphasis(entry.title())) {
        let s = stem(&w);
        if !stems.contains(&s) {
            stems.push(s);
        }
    }
    (!stems.is_empty() && stems.len() <= DESCRIBED_MAX).then_some(stems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documentation_references_lend_their_titles() {
        let c = crate::catalog::Catalog::from_json(include_str!("../../../../tests/data/neovim-catalog.json")).unwrap();
        let entries = c.entries();
        let part = IndexPart::new(entries, None);
        let at = |name: &str| entries.iter().position(|e| e.name() == name).unwrap() as u32;
        let refs = references(entries[at("belloff") as usize].description(), &part.exact, entries, at("belloff"), None);
        assert!(refs.contains(&Reference::Own(at("visualbell"))), "{refs:?}");
        assert!(!refs.contains(&Reference::Own(at("belloff"))));
        assert!(references("don't 'nosuchoption' e.g.: x", &part.exact, entries, 0, None).is_empty());
        // Read on a part, the part's options lend their titles.
        let mut reordered: Vec<Entry> = entries.to_vec();
        let belloff = reordered.remove(at("belloff") as usize);
        let base = IndexPart::new(&reordered, None);
        let under = Under { part: &base, entries: &reordered };
        let rest = [belloff];
        let refs = references(rest[0].description(), &IndexPart::new(&rest, Some(under)).exact, &rest, 0, Some(under));
        assert!(refs.contains(&Reference::Under(entries[at("visualbell") as usize].title())), "{refs:?}");
    }
}
