//! The limits every step's text obeys, whatever the editor: how long an argument, a
//! value or a terminal command may be, and that nothing in it hides part of it where it
//! is shown (a control character, any other invisible one). The validator applies them
//! to every step; the editor's profile adds its own rules on top; a frontend that checks
//! a step again before it runs asks these (Neovim through the native module), never a
//! copy.

use crate::refusal::{Hazard, Refusal};

/// The longest argument, value or terminal command accepted, in bytes.
pub const MAX_TEXT_BYTES: usize = 4096;

/// The first character of `s` that would hide part of it where it is shown: a control
/// character (a tab allowed when `tab`), then any other invisible one
/// ([`crate::text::is_invisible`]).
pub fn hidden_character(what: &str, s: &str, tab: bool) -> Result<(), Refusal> {
    if let Some(c) = s.chars().find(|&c| c.is_control() && !(tab && c == '\t')) {
        return Err(Refusal::ControlCharacter { what: what.to_string(), c });
    }
    if let Some(c) = s.chars().find(|&c| !c.is_control() && crate::text::is_invisible(c)) {
        return Err(Refusal::InvisibleCharacter { what: what.to_string(), c });
    }
    Ok(())
}

/// The rule for the arguments of every item, whatever its reach: bounded, and no control
/// character, which could hide part of the argument in the plan window (or end a line
/// where the program expects one), nor any other invisible character (U+061C, a tag
/// character, a no-break space).
pub fn check_args_text(args: &[String]) -> Result<(), Refusal> {
    for arg in args {
        let what = || "an argument".to_string();
        if arg.len() > MAX_TEXT_BYTES {
            return Err(Refusal::TooLong { what: what(), max: MAX_TEXT_BYTES });
        }
        hidden_character(&what(), arg, false)?;
    }
    Ok(())
}

/// Strings that reach an option: bounded, no control or other invisible characters, no
/// backticks.
pub fn check_text(what: &str, s: &str) -> Result<(), Refusal> {
    if s.len() > MAX_TEXT_BYTES {
        return Err(Refusal::TooLong { what: what.to_string(), max: MAX_TEXT_BYTES });
    }
    hidden_character(what, s, false)?;
    if s.contains('`') {
        return Err(Refusal::UnsafeValue { what: what.to_string(), hazard: Hazard::Backtick });
    }
    Ok(())
}
