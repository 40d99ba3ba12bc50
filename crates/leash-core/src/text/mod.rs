//! Model text made safe to show: the one definition of the characters nobody sees.
//!
//! A character is invisible when Unicode says it draws nothing, or nothing a reader can
//! tell from something else: controls, format characters (bidi controls, zero-width
//! marks, tag characters), default-ignorable code points, variation selectors,
//! surrogates, private-use and unassigned code points, line and paragraph separators,
//! and every space other than U+0020. The table is generated from the Unicode database
//! (`invisible_table.rs`, see its header), never written by hand. The plan window, the
//! progress messages and notifications (through the Lua module `leash.text`, which calls
//! this), the Helix dialog and the policy's argument checks all use it.

mod invisible_table;

use invisible_table::INVISIBLE;
pub use invisible_table::UNICODE_VERSION;

/// Whether `c` is one leash never shows raw (see the module doc).
pub fn is_invisible(c: char) -> bool {
    let c = u32::from(c);
    // The table is sorted and disjoint: the last range starting at or before `c`.
    let i = INVISIBLE.partition_point(|&(lo, _)| lo <= c);
    i > 0 && c <= INVISIBLE[i - 1].1
}

/// `s` with every invisible character written out: C0 controls and DEL as `^X` (`^[`
/// for ESC, `^J` for a newline, `^?` for DEL), as Neovim draws them; every other
/// invisible character as `<U+XXXX>` (`<U+202E>`). What remains can be shown as is and
/// reads the same as what runs.
pub fn visible(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let u = u32::from(c);
        match u {
            0x7f => out.push_str("^?"),
            0..=0x1f => {
                out.push('^');
                out.push(char::from(b'@' + u as u8));
            }
            _ if is_invisible(c) => out.push_str(&format!("<U+{u:04X}>")),
            _ => out.push(c),
        }
    }
    out
}

/// Bytes that need not be UTF-8 (text from the editor) with every invisible character of
/// their valid runs written out as [`visible`] does; bytes that are not UTF-8 are kept as
/// they are (Neovim draws them as `<xx>` itself).
pub fn visible_bytes(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.extend_from_slice(visible(chunk.valid()).as_bytes());
        out.extend_from_slice(chunk.invalid());
    }
    out
}

/// Bytes that need not be UTF-8 as text, written as Neovim draws them: the valid runs as
/// [`visible`] writes them, each byte that is not UTF-8 as `<ff>`.
pub fn shown_bytes(bytes: &[u8]) -> String {
    let mut shown = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        shown.push_str(&visible(chunk.valid()));
        for b in chunk.invalid() {
            shown.push_str(&format!("<{b:02x}>"));
        }
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_that_are_not_utf8_are_kept_or_written_as_neovim_draws_them() {
        assert_eq!(visible_bytes(b"a\x1bb\xff\xe2\x80\xaec"), b"a^[b\xff<U+202E>c".to_vec());
        assert_eq!(visible_bytes("中文 café".as_bytes()), "中文 café".as_bytes());
        assert_eq!(shown_bytes(b"a\x1bb\xff\xfe\xe2\x80\xaec"), "a^[b<ff><fe><U+202E>c");
        assert_eq!(shown_bytes("中文".as_bytes()), "中文");
    }

    #[test]
    fn named_code_points_are_invisible() {
        for u in [
            0x061C, 0xE0001, 0xE0041, 0xE007F, 0x180F, 0x1D173, 0x1D17A, 0x13430, 0x1343F, 0x202E, 0x2066, 0x200B,
            0xFEFF, 0x00AD, 0xFE0F, 0xE0100, 0x00A0, 0x3000, 0x2028, 0x2029, 0xE000, 0x1B, 0x85,
            // Unassigned in every Unicode version so far.
            0x2FFFD, 0x0378,
        ] {
            let c = char::from_u32(u).unwrap();
            assert!(is_invisible(c), "U+{u:04X}");
            assert_eq!(visible(&format!("a{c}b")).contains(&format!("<U+{u:04X}>")), u > 0x1f, "U+{u:04X}");
        }
    }

    #[test]
    fn letters_cjk_and_emoji_are_not() {
        for c in ['a', 'Z', '0', ' ', '~', 'é', 'ß', 'Ж', 'ع', 'अ', '中', '日', 'ㄱ', '😀', '🦀', '€', '—', '…']
        {
            assert!(!is_invisible(c), "{c:?} U+{:04X}", u32::from(c));
        }
        let s = "cd junk; rm -f x 中文 😀 é";
        assert_eq!(visible(s), s);
    }

    #[test]
    fn visible_writes_controls_like_neovim_and_the_rest_as_code_points() {
        assert_eq!(visible("a\u{1b}[31mb\nc\u{7f}"), "a^[[31mb^Jc^?");
        assert_eq!(visible("cd junk;\u{061C} rm -f x"), "cd junk;<U+061C> rm -f x");
        assert_eq!(visible("x\u{202e}y\u{200b}\u{E0041}"), "x<U+202E>y<U+200B><U+E0041>");
        // What the docs promise about emoji: joiners and selectors written out; a code
        // point assigned after the table's Unicode version counts as unassigned.
        assert_eq!(
            visible("\u{2764}\u{FE0F} \u{1F469}\u{200D}\u{1F4BB}"),
            "\u{2764}<U+FE0F> \u{1F469}<U+200D>\u{1F4BB}"
        );
        // doc/leash.txt and doc/security.md name this version: regenerating the table
        // updates them.
        assert_eq!(UNICODE_VERSION, "14.0.0");
        assert_eq!(visible("\u{1FAE8}"), "<U+1FAE8>", "U+1FAE8 is assigned in Unicode 15");
    }

    #[test]
    fn table_is_sorted_disjoint_and_in_range() {
        assert!(!INVISIBLE.is_empty());
        for &(lo, hi) in INVISIBLE {
            assert!(lo <= hi && hi <= 0x10FFFF, "({lo:#X}, {hi:#X})");
        }
        for w in INVISIBLE.windows(2) {
            // Sorted, disjoint and merged: a gap of at least one code point between ranges.
            assert!(w[0].1 + 1 < w[1].0, "{:X?} {:X?}", w[0], w[1]);
        }
        assert!(!UNICODE_VERSION.is_empty());
    }

    #[test]
    fn lookup_finds_every_range_edge_and_nothing_just_outside() {
        for &(lo, hi) in INVISIBLE {
            for (u, want) in [(lo, true), (hi, true), (lo.wrapping_sub(1), false), (hi + 1, false)] {
                let Some(c) = char::from_u32(u) else { continue };
                // Outside one range is outside all: the ranges are merged (tested above).
                assert_eq!(is_invisible(c), want, "U+{u:04X}");
            }
        }
    }
}
