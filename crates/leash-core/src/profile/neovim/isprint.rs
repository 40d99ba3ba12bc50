//! `'isprint'` values that make control characters printable: Neovim then draws a file's
//! control bytes (ESC, CSI…) by sending them to the terminal as they are, so the file's
//! bytes drive the terminal (its title, a scroll region that hides the next plan window).
//!
//! The value is read the way Neovim builds its character table (`buf_init_chartab()`):
//! parts separated by commas, each a character code, a character, a range `a-b` of
//! either, `@` for the letters, `^` before a part to exclude it, applied in order over the
//! defaults (space to `~` and 160–255 printable). A value this reading cannot follow is
//! taken as one that makes everything printable.

/// The code points of 1–255 that can never be drawn raw: C0 controls, DEL, C1 controls.
fn is_control_byte(c: u32) -> bool {
    c < 0x20 || (0x7f..=0x9f).contains(&c)
}

/// The control characters (first and last) that `value` makes printable, or `None` when
/// it makes none printable. `Err` when the value cannot be read.
pub fn printable_controls(value: &str) -> Result<Option<(u32, u32)>, ()> {
    let mut printable = [false; 256];
    for (c, p) in printable.iter_mut().enumerate() {
        *p = (0x20..=0x7e).contains(&c) || c >= 0xa0;
    }
    if !value.is_empty() {
        for part in value.split(',') {
            let (exclude, part) = match part.strip_prefix('^') {
                Some(rest) if !rest.is_empty() => (true, rest),
                _ => (false, part),
            };
            let (lo, hi, letters) = range(part)?;
            for c in lo..=hi {
                let ch = char::from_u32(c).ok_or(())?;
                if !letters || ch.is_alphabetic() {
                    printable[c as usize] = !exclude;
                }
            }
        }
    }
    let mut hit = (0u32..256).filter(|&c| is_control_byte(c) && printable[c as usize]);
    let Some(first) = hit.next() else { return Ok(None) };
    Ok(Some((first, hit.next_back().unwrap_or(first))))
}

/// One part: its first and last code, and whether only letters count (`@`).
fn range(part: &str) -> Result<(u32, u32, bool), ()> {
    let (lo, rest) = one(part)?;
    let (hi, rest) = match rest.strip_prefix('-') {
        Some(after) if !after.is_empty() => {
            let (hi, rest) = one(after)?;
            (Some(hi), rest)
        }
        _ => (None, rest),
    };
    if !rest.is_empty() || lo == 0 || lo >= 256 {
        return Err(());
    }
    match hi {
        None if lo == u32::from(b'@') => Ok((1, 255, true)),
        None => Ok((lo, lo, false)),
        Some(hi) if hi >= lo && hi < 256 => Ok((lo, hi, false)),
        Some(_) => Err(()),
    }
}

/// A decimal code or one character at the start of `s`, and what follows.
fn one(s: &str) -> Result<(u32, &str), ()> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 {
        // More than three digits is above 255 whatever they say.
        let n = if digits > 3 { 256 } else { s[..digits].parse().map_err(|_| ())? };
        return Ok((n, &s[digits..]));
    }
    let c = s.chars().next().ok_or(())?;
    Ok((u32::from(c), &s[c.len_utf8()..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_and_harmless_values_print_no_control() {
        for v in ["@,161-255", "", "@", "@,161-255,^200", "32-126", "160-255", "@-@", "a-z,A-Z", "^1-31"] {
            assert_eq!(printable_controls(v), Ok(None), "{v:?}");
        }
    }

    #[test]
    fn values_covering_control_bytes_are_found() {
        assert_eq!(printable_controls("1-255"), Ok(Some((1, 0x9f))));
        assert_eq!(printable_controls("@,27"), Ok(Some((27, 27))));
        assert_eq!(printable_controls("@,161-255,1-31"), Ok(Some((1, 31))));
        assert_eq!(printable_controls("127"), Ok(Some((127, 127))));
        assert_eq!(printable_controls("128-159"), Ok(Some((128, 159))));
        assert_eq!(printable_controls("155"), Ok(Some((155, 155))));
        assert_eq!(printable_controls("@,100-160"), Ok(Some((127, 159))));
        // A later exclusion takes it back; an earlier one does not.
        assert_eq!(printable_controls("1-255,^1-31,^127-159"), Ok(None));
        assert_eq!(printable_controls("^1-31,1-31"), Ok(Some((1, 31))));
        // A raw control character as the part (the text checks refuse it earlier anyway).
        assert_eq!(printable_controls("\u{1b}"), Ok(Some((27, 27))));
    }

    #[test]
    fn values_this_reading_cannot_follow_are_errors() {
        for v in ["0", "256", "1-256", "300-1", "9999", "ä-z", "1-", "a,", ",", "1x", "中"] {
            assert_eq!(printable_controls(v), Err(()), "{v:?}");
        }
    }
}
