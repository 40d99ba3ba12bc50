//! Vimscript's `libcall()` and `libcallnr()` load a shared library and call a C function
//! in it inside Neovim's own process: no program starts, so the process guard (design
//! rule 7) sees nothing, and the C code can do whatever a program could. A step that
//! evaluates its text (reach `code`) and names either function therefore reaches `shell`.
//!
//! The match is on the text, case-insensitive, anywhere in it (`:call libcall(…)`,
//! `vim.fn.libcall(…)`, `call('libcallnr', …)`). A name built at run time
//! (`'lib' .. 'call'`) is not seen: that is what the `code` confirmation is for.

use crate::reach::Reach;

/// The reach and the reason to show when one of `texts` names `libcall()`/`libcallnr()`.
pub fn foreign_call<'a>(texts: impl IntoIterator<Item = &'a str>) -> Option<(Reach, String)> {
    texts.into_iter().find(|t| t.to_ascii_lowercase().contains("libcall")).map(|_| {
        (
            Reach::Shell,
            "it names libcall()/libcallnr(), which run C code from a library inside Neovim, where the process \
             guard does not see it"
                .into(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libcall_in_any_spelling_is_shell() {
        for text in [
            "libcall('libc.so.6', 'system', 'id')",
            "libcallnr(\"libc.so.6\", \"system\", \"id\")",
            "vim.fn.libcall('libc.so.6', 'system', 'id')",
            "call('LibCallNr', ['libc.so.6', 'system', 'id'])",
            "%{libcall('libc.so.6','getpid','')}",
        ] {
            assert_eq!(foreign_call([text]).map(|r| r.0), Some(Reach::Shell), "{text}");
        }
        assert_eq!(foreign_call(["x", "libcall('a', 'b', 0)"]).map(|r| r.0), Some(Reach::Shell));
    }

    #[test]
    fn other_text_adds_nothing() {
        assert_eq!(foreign_call(["system_name()", "call('strlen', ['lib'])", ""]), None);
        assert_eq!(foreign_call(std::iter::empty()), None);
    }
}
