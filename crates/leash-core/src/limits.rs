//! The limits every step's text obeys, whatever the editor: how long an argument, a
//! value or a terminal command may be, and that nothing in it hides part of it where it
//! is shown (a control character, any other invisible one). The validator applies them
//! to every step; the editor's profile adds its own rules on top; a frontend that checks
//! a step again before it runs asks these (Neovim through the native module), never a
//! copy.

use crate::entry::Args;
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

/// How many arguments an item takes: none for [`Args::None`], at least one for
/// [`Args::Required`].
pub fn check_arg_count(id: &str, takes: Args, args: &[String]) -> Result<(), Refusal> {
    match (takes, args.is_empty()) {
        (Args::None, false) => Err(Refusal::TakesNoArgs { id: id.to_string(), note: None }),
        (Args::Required, true) => Err(Refusal::NeedsArgs { id: id.to_string() }),
        _ => Ok(()),
    }
}

/// The arguments of an item step just before it runs: as many as the item takes, each
/// within the text rule ([`check_args_text`]), as the validator checked them.
pub fn check_item_step_args(id: &str, takes: Args, args: &[String]) -> Result<(), Refusal> {
    check_arg_count(id, takes, args)?;
    check_args_text(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn an_item_gets_the_arguments_it_takes() {
        assert_eq!(check_arg_count("cmd:only", Args::None, &args(&["x"])).unwrap_err().code(), "takes_no_args");
        assert_eq!(check_arg_count("cmd:edit", Args::Required, &[]).unwrap_err().code(), "needs_args");
        assert!(check_arg_count("cmd:only", Args::None, &[]).is_ok());
        assert!(check_arg_count("cmd:tabnew", Args::Optional, &[]).is_ok());
        assert!(check_arg_count("cmd:tabnew", Args::Optional, &args(&["a", "b"])).is_ok());
    }

    #[test]
    fn a_step_about_to_run_is_held_to_the_text_rule() {
        let long = "x".repeat(MAX_TEXT_BYTES + 1);
        let at_cap = "x".repeat(MAX_TEXT_BYTES);
        assert_eq!(check_item_step_args("cmd:edit", Args::Required, &[long]).unwrap_err().code(), "too_long");
        assert!(check_item_step_args("cmd:edit", Args::Required, &[at_cap]).is_ok());
        assert_eq!(
            check_item_step_args("cmd:edit", Args::Required, &args(&["a\u{7}"])).unwrap_err().code(),
            "control_character"
        );
        assert_eq!(check_item_step_args("cmd:only", Args::None, &args(&["x"])).unwrap_err().code(), "takes_no_args");
    }
}
