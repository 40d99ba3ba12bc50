//! What Helix tells leash about where the request was made: the file, its language and
//! the selected lines.
//!
//! The key binding hands these over on standard input, in a here-document whose
//! delimiter is quoted (`<<'LEASH_CONTEXT_…'`), so the shell reads the body as plain
//! text: a file named `a;$(rm -rf ~).txt` is never pasted into a shell command line. The
//! delimiter carries a random tail chosen when the snippet is made, so a file name
//! cannot end the here-document early. The file name comes last: whatever it holds,
//! the lines before it are Helix's own numbers and language name.

use std::path::PathBuf;

/// The first line of the context block, naming its format.
pub const MAGIC: &str = "leash-context-1";

/// The editor state around a request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HelixContext {
    /// The current buffer's path as Helix shows it (relative to the working directory),
    /// `None` for a scratch buffer.
    pub file: Option<PathBuf>,
    /// Helix's language name (`rust`, `text`).
    pub language: String,
    /// First and last selected line, from 1.
    pub selection: Option<(usize, usize)>,
    /// The primary cursor's line, from 1.
    pub cursor_line: Option<usize>,
}

impl HelixContext {
    /// Reads the block the key binding sends: the magic line, the language, the
    /// selection's first and last line, the cursor line, then the buffer name (to the
    /// end). Anything else (no block, a terminal on stdin) is an empty context. `tag` is
    /// the delimiter's random tail, when the key binding passes it.
    pub fn parse(text: &str, tag: Option<&str>) -> HelixContext {
        let text = text.replace("\r\n", "\n");
        let mut lines = text.splitn(6, '\n');
        if lines.next().map(str::trim_end) != Some(MAGIC) {
            return HelixContext::default();
        }
        let language = lines.next().unwrap_or("").trim().to_string();
        let number = |s: Option<&str>| s.and_then(|s| s.trim().parse::<usize>().ok()).filter(|n| *n > 0);
        let start = number(lines.next());
        let end = number(lines.next());
        let cursor_line = number(lines.next());
        let mut name = lines.next().unwrap_or("").to_string();
        // The here-document ends with one newline, and a shell that did not find the
        // delimiter (a CRLF document) leaves the delimiter line in the body.
        if let Some(tag) = tag {
            let delimiter = format!("LEASH_CONTEXT_{tag}\n");
            if let Some(rest) = name.strip_suffix(&delimiter) {
                name = rest.to_string();
            }
        }
        let name = name.strip_suffix('\n').unwrap_or(&name);
        let file = (!name.is_empty() && name != "[scratch]").then(|| PathBuf::from(name));
        let selection = match (start, end) {
            (Some(a), Some(b)) => Some((a.min(b), a.max(b))),
            _ => None,
        };
        HelixContext {
            file,
            language: if language.chars().all(|c| !c.is_control()) { language } else { String::new() },
            selection,
            cursor_line,
        }
    }

    /// The selection in words for the model (`3 lines`), empty for a single line.
    pub fn selection_words(&self) -> String {
        match self.selection {
            Some((a, b)) if b > a => format!("{} lines", b - a + 1),
            _ => String::new(),
        }
    }
}

/// The shell text that sends the context block, for the key binding: a quoted
/// here-document built from Helix's own variables, one per line (`%{line_ending}` is
/// the only way to put a line break into a macro's command line).
pub fn heredoc(nonce: &str) -> String {
    let nl = "%{line_ending}";
    let delimiter = format!("LEASH_CONTEXT_{nonce}");
    format!(
        "<<'{delimiter}'{nl}{MAGIC}{nl}%{{language}}{nl}%{{selection_line_start}}{nl}%{{selection_line_end}}{nl}%{{cursor_line}}{nl}%{{buffer_name}}{nl}{delimiter}{nl}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_is_read_whatever_the_file_name_holds() {
        let c = HelixContext::parse("leash-context-1\nrust\n3\n7\n5\nsrc/a b;$(x)\n\nLEASH_CONTEXT_1.rs\n", Some("ab"));
        assert_eq!(c.file.as_deref(), Some(std::path::Path::new("src/a b;$(x)\n\nLEASH_CONTEXT_1.rs")));
        assert_eq!((c.language.as_str(), c.selection, c.cursor_line), ("rust", Some((3, 7)), Some(5)));
        assert_eq!(c.selection_words(), "5 lines");
        let scratch = HelixContext::parse("leash-context-1\ntext\n1\n1\n1\n[scratch]\n", None);
        assert_eq!(scratch.file, None);
        assert_eq!(scratch.selection_words(), "");
        let crlf = HelixContext::parse(
            "leash-context-1\r\nrust\r\n1\r\n2\r\n1\r\nmain.rs\r\nLEASH_CONTEXT_ab\r\n",
            Some("ab"),
        );
        assert_eq!(crlf.file.as_deref(), Some(std::path::Path::new("main.rs")));
        assert_eq!(HelixContext::parse("", None), HelixContext::default());
        assert_eq!(HelixContext::parse("rm -rf ~\n", None), HelixContext::default());
    }
}
