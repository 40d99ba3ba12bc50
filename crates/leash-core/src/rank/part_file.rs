//! An index part kept in a file, so that a session's first request does not wait for
//! Neovim's own entries to be read again (a few tens of milliseconds on the planner's
//! thread, against one to read the file), nor for the rest of its first catalog (one or
//! two milliseconds, against a few tenths).
//!
//! The file begins with what it was made from: its format, the leash version and a
//! fingerprint of every field of every entry the ranker reads (for a part read on
//! another, combined with that part's). A file that is not the
//! part of these very entries, or that does not read to the end in this format (cut
//! short, or changed by hand), is not used: the part is read from the entries again.
//! What it holds only orders the shortlist; every step a model picks from it is checked
//! against the catalog, as always.

use std::hash::Hasher;
use std::io::Write;
use std::path::Path;

use nucleo::Utf32String;

use super::part::{IndexPart, Posting};
use super::{letters, WordHasher};
use crate::entry::{Entry, ValueType};

/// Bump when the layout below or what the ranker reads of an entry changes.
const FORMAT: u32 = 3;
const MAGIC: &[u8] = b"leash index part\n";

/// A fingerprint of what the ranker reads of `entries`: names, kinds, aliases, titles,
/// documentation, and which settings are on/off.
pub(super) fn fingerprint(entries: &[Entry]) -> u64 {
    let mut h = WordHasher::default();
    h.write_u32(FORMAT);
    h.write_usize(entries.len());
    let mut text = |s: &str| {
        h.write_usize(s.len());
        h.write(s.as_bytes());
    };
    for e in entries {
        text(e.name());
        text(e.kind());
        text(e.title());
        text(e.description());
        for a in e.aliases() {
            text(a);
        }
        text(match e {
            Entry::Setting(s) if s.value_type == ValueType::Boolean => "boolean",
            _ => "",
        });
    }
    h.finish()
}

/// The fingerprint of `entries` read on a part whose entries' fingerprint is `base`: what
/// a part read on another part depends on (their words, names and titles).
pub(super) fn fingerprint_on(entries: &[Entry], base: u64) -> u64 {
    let mut h = WordHasher::default();
    h.write_u64(base);
    h.write_u64(fingerprint(entries));
    h.finish()
}

/// The part kept in `file` when it holds the part of the `len` entries of `fingerprint`;
/// else the part `read` reads from the entries, written to `file`.
pub(super) fn load(file: Option<&Path>, fingerprint: u64, len: usize, read: impl FnOnce() -> IndexPart) -> IndexPart {
    let saved = file.and_then(|f| std::fs::read(f).ok());
    if let Some(part) = saved.and_then(|bytes| self::read(&bytes, fingerprint, len)) {
        return part;
    }
    let part = read();
    if let Some(file) = file {
        // A file that cannot be written costs the next session this reading, no more.
        let _ = save(file, &part, fingerprint);
    }
    part
}

/// Writes `part` to `file` (through a file beside it, renamed: a reader never sees half
/// of it).
pub(super) fn save(file: &Path, part: &IndexPart, fingerprint: u64) -> std::io::Result<()> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = file.with_extension(format!("{}.tmp", std::process::id()));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(&write(part, fingerprint))?;
    drop(f);
    std::fs::rename(&tmp, file).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// The bytes of `part`.
pub(super) fn write(part: &IndexPart, fingerprint: u64) -> Vec<u8> {
    let mut out = Out(Vec::with_capacity(1 << 20));
    out.0.extend_from_slice(MAGIC);
    out.u32(FORMAT);
    out.str(env!("CARGO_PKG_VERSION"));
    out.u64(fingerprint);
    out.u32(part.len() as u32);
    let mut exact: Vec<_> = part.exact.iter().collect();
    exact.sort_unstable_by_key(|(name, _)| name.as_str());
    out.u32(exact.len() as u32);
    for (name, list) in exact {
        out.str(name);
        out.u32(list.len() as u32);
        for &(d, alias) in list {
            out.u32(d);
            out.0.push(alias as u8);
        }
    }
    out.u32(part.fuzzy.len() as u32);
    for (name, _, d) in &part.fuzzy {
        out.str(&name.to_string());
        out.u32(*d);
    }
    let mut words: Vec<&String> = part.words.iter().collect();
    words.sort_unstable();
    out.u32(words.len() as u32);
    for w in words {
        out.str(w);
    }
    out.u32(part.vocabulary.len() as u32);
    out.u32(part.postings.len() as u32);
    let wide = wide_entries(part.len());
    for stem in &part.vocabulary {
        out.str(stem);
        let list = part.postings(stem);
        out.u32(list.len() as u32);
        // Most of the file: 6 bytes a posting where entries fit 16 bits (Neovim's own
        // do), each count a byte, a count of 255 or more followed by its 16 bits.
        for p in list {
            if wide {
                out.u32(p.entry);
            } else {
                out.0.extend_from_slice(&(p.entry as u16).to_le_bytes());
            }
            out.0.extend(p.counts.map(|c| c.min(255) as u8));
            for c in p.counts.into_iter().filter(|&c| c >= 255) {
                out.0.extend_from_slice(&c.to_le_bytes());
            }
        }
    }
    for l in &part.lengths {
        l.iter().for_each(|x| out.u32(x.to_bits()));
    }
    let mut described: Vec<_> = part.described.iter().collect();
    described.sort_unstable_by_key(|(d, _)| **d);
    out.u32(described.len() as u32);
    for (d, stems) in described {
        out.u32(*d);
        out.u32(stems.len() as u32);
        stems.iter().for_each(|s| out.str(s));
    }
    out.0
}

/// The part in `bytes`, if they hold the part of the `len` entries of `fingerprint` in
/// this format, whole.
pub(super) fn read(bytes: &[u8], fingerprint: u64, len: usize) -> Option<IndexPart> {
    let mut r = In(bytes.strip_prefix(MAGIC)?);
    if r.u32()? != FORMAT || r.str()? != env!("CARGO_PKG_VERSION") || r.u64()? != fingerprint {
        return None;
    }
    // Every entry number in the part is checked against this: it must be the catalog's.
    if r.u32()? as usize != len {
        return None;
    }
    let entry = |d: u32| ((d as usize) < len).then_some(d);
    let mut part = IndexPart::default();
    // Maps are sized by the counts the file gives, bounded by the bytes left.
    let names = r.u32()? as usize;
    part.exact.reserve(names.min(r.0.len() / 8));
    for _ in 0..names {
        let name = r.str()?.to_string();
        let list = (0..r.u32()?).map(|_| Some((entry(r.u32()?)?, r.byte()? != 0))).collect::<Option<Vec<_>>>()?;
        part.exact.insert(name, list);
    }
    for _ in 0..r.u32()? {
        let name = r.str()?;
        part.fuzzy.push((Utf32String::from(name), letters(name), entry(r.u32()?)?));
    }
    let words = r.u32()? as usize;
    part.words.reserve(words.min(r.0.len() / 4));
    for _ in 0..words {
        part.words.insert(r.str()?.to_string());
    }
    let stems = r.u32()? as usize;
    // A posting takes 6 bytes or more: no more than the bytes left can hold.
    let postings = r.u32()? as usize;
    part.postings.reserve(postings.min(r.0.len() / 6));
    let wide = wide_entries(len);
    part.vocabulary.reserve(stems.min(r.0.len() / 8));
    part.spans.reserve(stems.min(r.0.len() / 8));
    for _ in 0..stems {
        let stem = r.str()?.to_string();
        // Sorted, as look-ups need.
        if part.vocabulary.last().is_some_and(|last| *last >= stem) {
            return None;
        }
        let start = part.postings.len() as u32;
        for _ in 0..r.u32()? {
            let d = if wide { r.u32()? } else { u16::from_le_bytes(r.array()?).into() };
            let counts: [u8; 4] = r.array()?;
            let mut out = [0; 4];
            for (o, c) in out.iter_mut().zip(counts) {
                // 255 says the count follows, and is 255 or more.
                *o = if c == 255 { Some(u16::from_le_bytes(r.array()?)).filter(|&c| c >= 255)? } else { c.into() };
            }
            part.postings.push(Posting { entry: entry(d)?, counts: out });
        }
        part.spans.push((start, part.postings.len() as u32));
        part.vocabulary.push(stem);
    }
    part.lengths = (0..len).map(|_| Some([r.f32()?, r.f32()?, r.f32()?, r.f32()?])).collect::<Option<Vec<_>>>()?;
    for _ in 0..r.u32()? {
        let d = entry(r.u32()?)?;
        let stems = (0..r.u32()?).map(|_| r.str().map(str::to_string)).collect::<Option<Vec<_>>>()?;
        part.described.insert(d, stems);
    }
    (r.0.is_empty() && part.postings.len() == postings).then_some(part)
}

/// Whether a part of `len` entries writes its entry numbers in 32 bits (else 16).
fn wide_entries(len: usize) -> bool {
    len > usize::from(u16::MAX) + 1
}

/// Bytes being written, little-endian.
struct Out(Vec<u8>);

impl Out {
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
    }
}

/// Bytes being read; every read is checked against what is left.
struct In<'a>(&'a [u8]);

impl<'a> In<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    fn byte(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4)?.try_into().ok().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take(8)?.try_into().ok().map(u64::from_le_bytes)
    }
    fn f32(&mut self) -> Option<f32> {
        self.u32().map(f32::from_bits)
    }
    fn str(&mut self) -> Option<&'a str> {
        let n = self.u32()? as usize;
        std::str::from_utf8(self.take(n)?).ok()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::catalog::Catalog;
    use crate::rank::part::Under;
    use crate::rank::{rank, BaseIndex, Index, IndexCell, Mode};

    /// The 0.12 fixture with Neovim's own commands and options first, as a session builds
    /// its catalogs, and how many those are.
    fn session_catalog() -> (Catalog, usize) {
        let mut v: serde_json::Value =
            serde_json::from_str(include_str!("../../../../tests/data/neovim-0.12-catalog.json")).unwrap();
        let entries = v["entries"].as_array().unwrap().clone();
        let (base, rest): (Vec<_>, Vec<_>) = entries
            .into_iter()
            .partition(|e| e["kind"] == "setting" || e["id"].as_str().is_some_and(|i| i.starts_with("cmd:")));
        let len = base.len();
        assert!(len > 800 && rest.len() > 50, "{len} {}", rest.len());
        v["entries"] = serde_json::Value::Array(base.into_iter().chain(rest).collect());
        (Catalog::from_value(&v).unwrap(), len)
    }

    fn ranked(idx: &Index, c: &Catalog, q: &str) -> Vec<(String, u32)> {
        rank(idx, c, q, 60, Mode::Any).iter().map(|r| (r.entry.name().to_string(), r.score)).collect()
    }

    #[test]
    fn a_part_reads_back_as_it_was_written() {
        let (c, len) = session_catalog();
        let base = &c.entries()[..len];
        let part = IndexPart::new(base, None);
        let bytes = write(&part, fingerprint(base));
        assert_eq!(read(&bytes, fingerprint(base), base.len()).as_ref(), Some(&part));
        // Not for other entries, another format or version, or bytes cut short or added.
        assert!(read(&bytes, fingerprint(&base[1..]), base.len() - 1).is_none());
        let mut other = bytes.clone();
        other[MAGIC.len()] ^= 1;
        assert!(read(&other, fingerprint(base), base.len()).is_none(), "another format");
        assert!(read(&bytes[..bytes.len() - 1], fingerprint(base), base.len()).is_none());
        assert!(read(&[&bytes[..], b"x"].concat(), fingerprint(base), base.len()).is_none());
    }

    #[test]
    fn counts_of_255_and_more_and_entry_numbers_past_16_bits_read_back() {
        // A small part, then the same with counts that need their 16 bits, and with as
        // many entries as need 32-bit numbers.
        let c = crate::test_catalog::neovim();
        let mut part = IndexPart::new(c.entries(), None);
        let last = part.postings.len() - 1;
        part.postings[0].counts = [254, 255, 256, u16::MAX];
        part.postings[last].counts[2] = 1000;
        let bytes = write(&part, 7);
        assert_eq!(read(&bytes, 7, part.len()).as_ref(), Some(&part));
        let len = usize::from(u16::MAX) + 2;
        part.lengths.resize(len, [1.0; 4]);
        part.postings[last].entry = (len - 1) as u32;
        let bytes = write(&part, 7);
        assert_eq!(read(&bytes, 7, len).as_ref(), Some(&part));
        assert!(read(&bytes, 7, len - 1).is_none(), "another entry count");
    }

    #[test]
    fn damaged_bytes_are_refused_or_read_without_a_panic() {
        let c = crate::test_catalog::neovim();
        let part = IndexPart::new(c.entries(), None);
        let fp = fingerprint(c.entries());
        let bytes = write(&part, fp);
        for cut in (0..bytes.len()).step_by(7) {
            assert!(read(&bytes[..cut], fp, c.len()).is_none(), "cut at {cut}");
        }
        // A changed byte past the header may still read (a count, a letter, a length),
        // but the part then names no entry the catalog lacks, and ranks.
        for at in (MAGIC.len()..bytes.len()).step_by(5) {
            let mut b = bytes.clone();
            b[at] = b[at].wrapping_add(0x5d);
            if let Some(p) = read(&b, fp, c.len()) {
                assert!(p.postings.iter().all(|x| (x.entry as usize) < c.len()));
                assert!(p.exact.values().flatten().all(|&(d, _)| (d as usize) < c.len()));
                // And ranks, whatever numbers it holds.
                let idx = Index::with_base(&c, Arc::new(p));
                for q in ["wrap long lines", "show line numbers", "regsiters"] {
                    assert!(rank(&idx, &c, q, 10, Mode::Any).len() <= 10);
                }
            }
        }
    }

    #[test]
    fn a_catalog_built_on_the_base_index_ranks_as_one_indexed_whole() {
        let (c, len) = session_catalog();
        let whole = Index::new(&c);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("runtime-index.bin");
        let cell = IndexCell::on_base(Arc::new(BaseIndex::new(len, Some(file.clone()))));
        let on_base = cell.get(&c);
        let saved = std::fs::read(&file).expect("the base part is saved");
        // A new session reads the file, and ranks the same.
        let read_back = Index::with_base(&c, BaseIndex::new(len, Some(file.clone())).part(c.entries()));
        let requests = include_str!("../../../../tests/data/offline-requests.jsonl")
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()?["request"].as_str().map(String::from))
            .chain(["make the font bigger and turn on word wrap", "find files", "show the regsiters"].map(String::from))
            .collect::<Vec<_>>();
        assert!(requests.len() > 100);
        for q in &requests {
            let want = ranked(&whole, &c, q);
            assert_eq!(ranked(on_base, &c, q), want, "{q}");
            assert_eq!(ranked(&read_back, &c, q), want, "{q}");
        }
        // A damaged file is read again from the entries and written anew.
        std::fs::write(&file, &saved[..saved.len() / 2]).unwrap();
        let again = Index::with_base(&c, BaseIndex::new(len, Some(file.clone())).part(c.entries()));
        assert_eq!(ranked(&again, &c, "turn off line numbers"), ranked(&whole, &c, "turn off line numbers"));
        assert_eq!(std::fs::read(&file).unwrap(), saved);
    }

    #[test]
    fn a_session_s_first_catalog_keeps_its_own_part_beside_the_base_part() {
        let (c, len) = session_catalog();
        // The same catalog with one more user command: a later catalog, or another
        // project's.
        let mut v = c.to_json();
        v["entries"].as_array_mut().unwrap().push(serde_json::json!({"id": "user:SpecMarker", "kind": "user_command",
            "title": "open the spec marker panel", "reach": "plugin", "args": "none"}));
        let more = Catalog::from_value(&v).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("runtime-index.bin");
        let own_file = dir.path().join("runtime-index.own.bin");
        let queries = ["make the font bigger and turn on word wrap", "open the spec marker", "git blame", "find files"];
        let same = |idx: &Index, cat: &Catalog| {
            let whole = Index::new(cat);
            queries.iter().all(|q| ranked(idx, cat, q) == ranked(&whole, cat, q))
        };
        // A session: its first catalog's own part is written; a later one's is not.
        let base = Arc::new(BaseIndex::new(len, Some(file.clone())));
        assert!(same(IndexCell::on_base(Arc::clone(&base)).get(&c), &c));
        let saved = std::fs::read(&own_file).expect("the first catalog's own part is kept");
        assert!(same(IndexCell::on_base(Arc::clone(&base)).get(&more), &more));
        assert_eq!(std::fs::read(&own_file).unwrap(), saved, "a later catalog leaves the file");
        // The next session's first catalog, of the same entries: read from the file, the
        // same ranking (a part made with a marker word shows it is the file's).
        assert!(same(IndexCell::on_base(Arc::new(BaseIndex::new(len, Some(file.clone())))).get(&c), &c));
        let own = &c.entries()[len..];
        let base_part = IndexPart::new(&c.entries()[..len], None);
        let mut fake = IndexPart::new(own, Some(Under { part: &base_part, entries: &c.entries()[..len] }));
        fake.words.insert("leashfilemarker".into());
        let on = fingerprint_on(own, fingerprint(&c.entries()[..len]));
        std::fs::write(&own_file, write(&fake, on)).unwrap();
        let cell = IndexCell::on_base(Arc::new(BaseIndex::new(len, Some(file.clone()))));
        assert!(cell.get(&c).own.words.contains("leashfilemarker"), "read from the file");
        // A session that starts with other entries reads its own and keeps them instead.
        let cell = IndexCell::on_base(Arc::new(BaseIndex::new(len, Some(file.clone()))));
        assert!(same(cell.get(&more), &more));
        assert!(!cell.get(&more).own.words.contains("leashfilemarker"));
        let kept = std::fs::read(&own_file).unwrap();
        assert!(kept != saved && read(&kept, on, own.len()).is_none(), "the file is the new entries'");
        // The same entries on another base part: not used.
        assert!(read(&saved, fingerprint_on(own, 1), own.len()).is_none());
    }

    #[test]
    fn a_base_index_read_from_a_file_is_the_file_s() {
        // The file is what a new session reads: a part saved for these entries (here
        // with a word added) is used as it is, not read from the entries again.
        let (c, len) = session_catalog();
        let base = &c.entries()[..len];
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("runtime-index.bin");
        let mut fake = IndexPart::new(base, None);
        fake.words.insert("leashfilemarker".into());
        std::fs::write(&file, write(&fake, fingerprint(base))).unwrap();
        let part = BaseIndex::new(len, Some(file)).part(c.entries());
        assert!(part.words.contains("leashfilemarker"));
    }
}
