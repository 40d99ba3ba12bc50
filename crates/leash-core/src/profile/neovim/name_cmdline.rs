//! Commands that open a buffer by running its name as part of a command line.
//!
//! The argument filter keeps `|`, `+cmd` and backticks out of what a plan writes, but a
//! buffer's name is not plan text: an error file read by `:cgetfile`, a tags file or a
//! language server can name a buffer `x|lua …`. Most commands open such a buffer with
//! the name as data. `:sign jump` does not: when no window shows the sign's buffer,
//! Neovim runs `e +{line} {name}` as a command line (`sign_jump()` in sign.c), so a `|`
//! in the name ends the `:edit` and what follows runs as Ex commands (verified: a buffer
//! named `x|lua vim.fn.writefile(…)` from an error file wrote the file). Which buffer it
//! jumps to is only known when the step runs, so such a step is `code` whatever its
//! arguments say, shown with the reason.

use crate::reach::Reach;

/// A command, the first word of its argument that makes it run a buffer's name as a
/// command line, and why.
const NAME_AS_COMMAND_LINE: &[(&str, &str, &str)] = &[(
    "sign",
    "jump",
    "“:sign jump” opens a buffer no window shows by running “:edit +N {its name}” as a command line: a name from an error file, a tags file or a language server that holds “|” runs the commands after it",
)];

/// The reach `:name args` adds because it runs a buffer's name as a command line, with
/// the reason; `None` for any other command or subcommand.
pub fn note(name: &str, args: &[String]) -> Option<(Reach, String)> {
    let (_, sub, why) = NAME_AS_COMMAND_LINE.iter().find(|(n, _, _)| *n == name)?;
    // `["jump", "1"]` and `["jump 1"]` are the same command line.
    let joined = args.join(" ");
    let first = joined.split_whitespace().next()?;
    (first == *sub).then(|| (Reach::Code, (*why).to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_sign_jump_is_code_however_its_words_are_split() {
        for list in [&["jump 1 buffer=3"][..], &["jump", "1", "buffer=3"], &["  jump", "1"], &["jump\t1 file=x"]] {
            let (reach, why) = note("sign", &args(list)).unwrap_or_else(|| panic!("{list:?} was not raised"));
            assert_eq!(reach, Reach::Code, "{list:?}");
            assert!(why.contains("as a command line") && why.contains("“|”"), "{why}");
        }
    }

    #[test]
    fn other_sign_commands_and_other_commands_are_not_raised() {
        for list in [&["place 1 line=1 name=s buffer=3"][..], &["define s text=>>"], &["list"], &["jumps"], &[]] {
            assert_eq!(note("sign", &args(list)), None, "{list:?}");
        }
        assert_eq!(note("edit", &args(&["jump"])), None);
    }
}
