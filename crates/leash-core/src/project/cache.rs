//! Files parsed once: a parsed value is reused while the file's modification time and
//! size are unchanged, so discovering again costs one `stat` per candidate file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

/// Bumped by [`clear_all`]: every cache forgets what it holds.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Makes every [`FileCache`] read its files again (tests, benchmarks).
pub fn clear_all() {
    GENERATION.fetch_add(1, Ordering::Relaxed);
}

struct Cached<T> {
    generation: u64,
    modified: Option<SystemTime>,
    size: u64,
    /// `None` when the file did not parse: nothing is offered from it.
    value: Option<Arc<T>>,
}

/// A cache of one kind of parsed file, keyed by path.
pub struct FileCache<T> {
    map: OnceLock<Mutex<HashMap<PathBuf, Cached<T>>>>,
}

impl<T> Default for FileCache<T> {
    fn default() -> Self {
        FileCache::new()
    }
}

impl<T> FileCache<T> {
    pub const fn new() -> FileCache<T> {
        FileCache { map: OnceLock::new() }
    }

    /// The parsed `path`, or `None` when it is not a readable file or did not parse.
    /// `parse` sees the text with invalid UTF-8 replaced.
    pub fn read(&self, path: &Path, parse: impl FnOnce(&str) -> Option<T>) -> Option<Arc<T>> {
        let map = self.map.get_or_init(|| Mutex::new(HashMap::new()));
        let meta = match std::fs::metadata(path) {
            Ok(m) if m.is_file() => m,
            _ => {
                map.lock().unwrap_or_else(|e| e.into_inner()).remove(path);
                return None;
            }
        };
        let generation = GENERATION.load(Ordering::Relaxed);
        let modified = meta.modified().ok();
        if let Some(c) = map.lock().unwrap_or_else(|e| e.into_inner()).get(path) {
            if c.generation == generation && c.modified == modified && modified.is_some() && c.size == meta.len() {
                return c.value.clone();
            }
        }
        let bytes = std::fs::read(path).ok()?;
        let value = parse(&String::from_utf8_lossy(&bytes)).map(Arc::new);
        map.lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(path.to_path_buf(), Cached { generation, modified, size: meta.len(), value: value.clone() });
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn a_file_is_parsed_again_only_when_it_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let path = dir.join("f.txt");
        std::fs::write(&path, "one").unwrap();
        let cache: FileCache<String> = FileCache::new();
        let parses = AtomicUsize::new(0);
        let read = || {
            cache.read(&path, |t| {
                parses.fetch_add(1, Ordering::Relaxed);
                Some(t.to_string())
            })
        };
        assert_eq!(read().as_deref().map(String::as_str), Some("one"));
        assert_eq!(read().as_deref().map(String::as_str), Some("one"));
        assert_eq!(parses.load(Ordering::Relaxed), 1);
        std::fs::write(&path, "three").unwrap();
        assert_eq!(read().as_deref().map(String::as_str), Some("three"), "the size changed");
        assert_eq!(parses.load(Ordering::Relaxed), 2);
        std::fs::remove_file(&path).unwrap();
        assert!(read().is_none());
    }
}
