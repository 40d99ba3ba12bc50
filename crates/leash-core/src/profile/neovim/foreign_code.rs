//! Code that starts programs, or runs code the process guard cannot see, is `shell`.
//!
//! A step that evaluates its text (reach `code`: `:lua`, `:call`, an expression option)
//! runs inside the process guard, which refuses a shell command line and a program the
//! plan chose. But design rule 7 says a program the plan chose runs only in a step
//! confirmed as `[shell]`, and the guard cannot see every start (a Vimscript
//! `system(['sh', '-c', …])` has ended before the step does). So a code step whose text
//! names a function that starts programs (`system()`, `systemlist()`, `jobstart()`,
//! `termopen()`, `vim.system()`, `vim.uv.spawn()`, `io.popen()`, `os.execute()`) is
//! `shell`, shown as what it is. `libcall()`/`libcallnr()` load a shared library and call
//! a C function in it inside Neovim's own process, and LuaJIT's `ffi` calls C directly:
//! no program starts, so the guard sees nothing, and the C code can do whatever a program
//! could; those are `shell` too.
//!
//! The match is on the text, case-insensitive, on whole words (`filesystem` is not
//! `system`), anywhere in it (`:call system(…)`, `vim.fn.systemlist(…)`,
//! `call('jobstart', …)`, `%{system('id')}` in 'statusline'). A name built at run time
//! (`'sys' .. 'tem'`) is not seen: that is what the `code` confirmation and the guard
//! are for.

use crate::reach::Reach;

/// Function names that run C code or start a program when called, with what they do
/// (C code first: `libcall('libc.so.6', 'system', …)` is named for what it is).
const STARTERS: &[(&str, &str)] = &[
    ("libcall", "runs C code from a library inside Neovim, where the process guard does not see it"),
    ("libcallnr", "runs C code from a library inside Neovim, where the process guard does not see it"),
    ("ffi", "calls C code inside Neovim, where the process guard does not see it"),
    ("system", "starts a program"),
    ("systemlist", "starts a program"),
    ("jobstart", "starts a program"),
    ("termopen", "starts a program in a terminal"),
    ("spawn", "starts a program"),
    ("popen", "runs a shell command line"),
    ("os.execute", "runs a shell command line"),
];

/// The reach and the reason to show when one of `texts` names a function that starts a
/// program or runs C code.
pub fn foreign_call<'a>(texts: impl IntoIterator<Item = &'a str>) -> Option<(Reach, String)> {
    texts.into_iter().find_map(|t| {
        let lower = t.to_ascii_lowercase();
        let (name, what) = STARTERS.iter().find(|(name, _)| names(&lower, name))?;
        Some((Reach::Shell, format!("it names {name}(), which {what}")))
    })
}

/// Whether `text` holds `name` as a whole word (not inside a longer identifier).
fn names(text: &str, name: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(text: &str) -> bool {
        foreign_call([text]).map(|r| r.0) == Some(Reach::Shell)
    }

    #[test]
    fn libcall_in_any_spelling_is_shell() {
        for text in [
            "libcall('libc.so.6', 'system', 'id')",
            "libcallnr(\"libc.so.6\", \"system\", \"id\")",
            "vim.fn.libcall('libc.so.6', 'system', 'id')",
            "call('LibCallNr', ['libc.so.6', 'system', 'id'])",
            "%{libcall('libc.so.6','getpid','')}",
        ] {
            assert!(shell(text), "{text}");
        }
        assert_eq!(foreign_call(["x", "libcall('a', 'b', 0)"]).map(|r| r.0), Some(Reach::Shell));
    }

    #[test]
    fn functions_that_start_programs_are_shell() {
        for text in [
            "call system(['sh', '-c', 'touch x'])",
            "echo systemlist(['sh', '-c', 'id'])",
            "vim.fn.system({'sh', '-c', 'id'})",
            "vim.fn.jobstart({'sh'})",
            "call termopen('sh')",
            "vim.system({'id'}):wait()",
            "vim.uv.spawn('sh', {})",
            "vim.loop.spawn('sh', {})",
            "io.popen('id')",
            "os.execute('id')",
            "call call('jobstart', [['id']])",
            "%{System('id')}",
            "require('ffi').C.system('id')",
        ] {
            assert!(shell(text), "{text}");
        }
        let (_, why) = foreign_call(["call system(['sh'])"]).unwrap();
        assert_eq!(why, "it names system(), which starts a program");
    }

    #[test]
    fn other_text_adds_nothing() {
        assert_eq!(foreign_call(["system_name()", "call('strlen', ['lib'])", ""]), None);
        assert_eq!(foreign_call(["print(vim.o.filesystem)", "echo 'ecosystems'", "x.systematic"]), None);
        assert_eq!(foreign_call(["execute 'set wrap'", "respawned", "buffer"]), None);
        assert_eq!(foreign_call(std::iter::empty()), None);
    }
}
