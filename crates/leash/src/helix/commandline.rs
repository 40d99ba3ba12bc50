//! Helix command lines and the macro text that types them.
//!
//! A typable command runs in Helix as `:name args<ret>`, typed by a macro that Helix
//! replays from a register. Arguments are quoted so Helix reads each as one argument:
//! bare when that is unambiguous, else in single quotes or backticks (both literal in
//! Helix). The shell commands (`:sh`, `:pipe`…) take the rest of the line raw. In macro
//! text `<` and `>` must be written `<lt>` and `<gt>`: everything else is typed as is.

use leash_core::profile::helix::{data, split_flags, SHELL_TAIL_PERCENT};
use leash_core::refusal::HelixRule;

/// Why a step cannot be written as a Helix command line that Helix reads as given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandLineError {
    /// No typable command has this name or alias.
    #[error("Helix has no command “{0}”")]
    NoCommand(String),
    /// A `%` in a shell command's raw tail, which Helix expands.
    #[error("{}", SHELL_TAIL_PERCENT)]
    ShellTailPercent,
    /// An argument that breaks a rule of Helix's command line (an unknown flag…).
    #[error(transparent)]
    Rule(#[from] HelixRule),
    /// An argument holding both quote characters Helix has.
    #[error("the argument {0:?} holds both ' and `, which Helix's command line cannot pass intact")]
    Unquotable(String),
}

/// One typable command line, without the leading `:` (`vsplit`, `open 'a b.txt'`), or
/// why the arguments cannot be written so Helix reads them as given.
pub fn typable_line(name: &str, args: &[String]) -> Result<String, CommandLineError> {
    let t = data().typable(name).ok_or_else(|| CommandLineError::NoCommand(name.to_string()))?;
    let mut line = t.name.clone();
    if args.is_empty() {
        return Ok(line);
    }
    if t.raw_after.is_some() {
        // A shell command line: Helix hands the text to the shell as it is, after
        // expanding `%…` in it.
        if args.iter().any(|a| leash_core::profile::helix::has_expansion(a)) {
            return Err(CommandLineError::ShellTailPercent);
        }
        line.push(' ');
        line.push_str(&args.join(" "));
        return Ok(line);
    }
    let (flags, positionals) = split_flags(t, args)?;
    for f in &flags {
        line.push(' ');
        line.push_str(f);
    }
    if positionals.iter().any(|p| p.starts_with('-')) && !t.flags.is_empty() {
        line.push_str(" --");
    }
    for p in positionals {
        line.push(' ');
        line.push_str(&quote(p)?);
    }
    Ok(line)
}

/// One argument as Helix's command line reads it back unchanged.
pub fn quote(arg: &str) -> Result<String, CommandLineError> {
    let plain = !arg.is_empty() && !arg.chars().any(|c| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | '\\'));
    if plain {
        Ok(arg.to_string())
    } else if !arg.contains('\'') {
        Ok(format!("'{arg}'"))
    } else if !arg.contains('`') {
        Ok(format!("`{arg}`"))
    } else {
        Err(CommandLineError::Unquotable(arg.to_string()))
    }
}

/// Macro text typing `text` as it is (`<` → `<lt>`, `>` → `<gt>`).
pub fn macro_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("<lt>"),
            '>' => out.push_str("<gt>"),
            c => out.push(c),
        }
    }
    out
}

/// The macro that runs these command lines in order, each as `:line<ret>`.
pub fn macro_for(lines: &[String]) -> String {
    lines.iter().map(|l| format!(":{}<ret>", macro_escape(l))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(a: &[&str]) -> Vec<String> {
        a.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn arguments_are_quoted_only_when_needed() {
        assert_eq!(typable_line("vs", &[]).unwrap(), "vsplit");
        assert_eq!(typable_line("open", &s(&["a b.txt"])).unwrap(), "open 'a b.txt'");
        assert_eq!(typable_line("open", &s(&["it's.txt"])).unwrap(), "open `it's.txt`");
        assert!(typable_line("open", &s(&["a'`b"])).is_err());
        assert_eq!(typable_line("write", &s(&["--no-format", "--", "-x.txt"])).unwrap(), "write --no-format -- -x.txt");
        assert!(typable_line("write", &s(&["-x.txt"])).is_err(), "reads as a flag");
        assert_eq!(typable_line("sh", &s(&["echo 'a  b'"])).unwrap(), "run-shell-command echo 'a  b'");
        assert_eq!(typable_line("theme", &s(&["gruvbox"])).unwrap(), "theme gruvbox");
        assert!(typable_line("sh", &s(&["echo %sh{id}"])).unwrap_err().to_string().contains("expands %"));
    }

    #[test]
    fn macros_type_angle_brackets_literally() {
        assert_eq!(macro_for(&s(&["vsplit", "echo a<b>c"])), ":vsplit<ret>:echo a<lt>b<gt>c<ret>");
    }
}
