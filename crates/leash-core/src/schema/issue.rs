//! What is wrong with a configuration: one [`Issue`] per key, named by its path
//! (`llm.timeout_ms`, `providers.groq.kind`, `raise[2]`), with what was expected and what
//! was given. What one value must be is checked in `super::value`.

use super::value::ValueError;

/// One thing wrong with one key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct Issue {
    /// The key's path, as the user writes it (`sources.git`, `entries[2]`).
    pub path: String,
    /// What is wrong, as the end of a sentence (`should be a boolean, not string`).
    pub message: String,
}

/// Every issue of a configuration, sorted by path; never empty.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", join(.0))]
pub struct Issues(pub Vec<Issue>);

fn join(issues: &[Issue]) -> String {
    issues.iter().map(Issue::to_string).collect::<Vec<_>>().join("; ")
}

/// Collects issues while a configuration is walked.
#[derive(Debug, Default)]
pub(crate) struct Checker {
    issues: Vec<Issue>,
}

impl Checker {
    pub fn bad(&mut self, path: &str, message: impl Into<String>) {
        self.issues.push(Issue { path: path.to_string(), message: message.into() });
    }

    /// Records `result`'s message under `path` when it is an error.
    pub fn check(&mut self, path: &str, result: Result<(), ValueError>) {
        if let Err(e) = result {
            self.bad(path, e.to_string());
        }
    }

    /// `path` is not a key of `known`: names the closest one (under the same parent).
    pub fn unknown(&mut self, parent: &str, key: &str, known: &[&str]) {
        let guess = closest(key, known).map(|g| format!(" (did you mean '{}'?)", at(parent, g))).unwrap_or_default();
        self.bad(&at(parent, key), format!("unknown option{guess}"));
    }

    /// The issues, sorted by path, or `Ok` when there are none.
    pub fn finish(mut self) -> Result<(), Issues> {
        if self.issues.is_empty() {
            return Ok(());
        }
        self.issues.sort_by_key(Issue::to_string);
        Err(Issues(self.issues))
    }
}

/// `parent.key`, or `key` at the top.
pub(crate) fn at(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// The candidate nearest to `word` by edit distance, if it is close enough.
pub(crate) fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let (d, best) = candidates.iter().map(|c| (distance(word, c), *c)).min()?;
    (d <= 2.max(word.chars().count() / 3)).then_some(best)
}

/// Levenshtein distance.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push((prev[j + 1] + 1).min(cur[j] + 1).min(prev[j] + usize::from(ca != *cb)));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_key_is_matched_to_the_closest() {
        assert_eq!(closest("shortlist_limt", &["shortlist_limit", "log"]), Some("shortlist_limit"));
        assert_eq!(closest("zzzzzz", &["log"]), None);
    }
}
