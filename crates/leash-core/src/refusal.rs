//! Why a step was dropped: one typed [`Refusal`] per rule, each with a stable
//! [`code`](Refusal::code) that tests and frontends match on, and a message a user can
//! act on (the `reason` the plan window shows).
//!
//! The details a refusal carries are typed here too, beside it: the [`Hazard`] of the
//! argument filter, the [`ValueError`] of the setting-value check, the [`RuleError`] of
//! Neovim's option rules and the [`HelixRule`] of Helix's command line; the policy
//! produces them, this module only says what they mean.
//!
//! A validated plan lists every dropped step as `{index, code, reason}` (doc/design.md,
//! "Contracts"). Codes are part of the plan's contract: never rename one; a new rule gets
//! a new variant, its code in [`Refusal::code`] and an example in the tests below.

use crate::plan::StepShape;

/// Why the validator or the policy refused a step.
///
/// `what` fields name the text being checked in the user's words (“argument “notes.md |
/// x””, “the value of 'statusline'”, “the terminal command”), with any model text in them
/// already made visible and short.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// `too_many_steps`: past the plan's step cap; not even checked. `step` names it in a
    /// few words (`:vsplit notes.md`, `wrap = true`), each refused step once.
    #[error("“{step}” not considered: a plan has at most {max} steps")]
    TooManySteps { max: usize, step: String },
    /// `malformed_step`: the step does not have the shape of any step kind.
    #[error("{0}")]
    MalformedStep(#[from] StepShape),
    /// `unknown_id`: an item id the catalog does not have.
    #[error("unknown item “{0}”")]
    UnknownId(String),
    /// `unknown_key`: a setting key the catalog does not have.
    #[error("unknown setting “{0}”")]
    UnknownKey(String),
    /// `withheld`: the item exists but is never offered (command modifiers, `:set`, `:execute`…).
    #[error("“{id}” is not offered: {why}")]
    Withheld { id: String, why: &'static str },
    /// `takes_no_args`: arguments given to an item that takes none.
    #[error("“{id}” takes no arguments{}", because(.note))]
    TakesNoArgs { id: String, note: Option<&'static str> },
    /// `needs_args`: no argument given to an item that requires one.
    #[error("“{id}” needs an argument")]
    NeedsArgs { id: String },
    /// `bad_type`: a setting value of the wrong type (a string for a number…).
    #[error("“{key}” takes {expected}, not {got}")]
    BadType { key: String, expected: &'static str, got: String },
    /// `bad_value`: a value of the right type outside the setting's allowed values.
    #[error("“{key}” takes one of {allowed}, not {got}")]
    BadValue { key: String, allowed: String, got: String },
    /// `bad_list`: a list or flag value with an item or flag the setting does not take.
    #[error("{0}")]
    BadList(ValueError),
    /// `list_rule`: list items that Neovim refuses together (or a list it refuses empty).
    #[error("{0}")]
    ListRule(RuleError),
    /// `above_limit`: a number above what leash allows (an option's cap, `:sleep 99999`).
    #[error("{what} is above the limit {limit} leash allows")]
    AboveLimit { what: String, limit: i64 },
    /// `below_limit`: a number below what leash allows.
    #[error("{what} is below the smallest value {limit} leash allows")]
    BelowLimit { what: String, limit: i64 },
    /// `too_long`: an argument, value or command longer than the policy allows (`MAX_TEXT_BYTES`).
    #[error("{what} is longer than {max} bytes")]
    TooLong { what: String, max: usize },
    /// `control_character`: a control character, which could hide part of the text or end a line.
    #[error("{what} contains the control character {c:?}, which could hide part of it")]
    ControlCharacter { what: String, c: char },
    /// `invisible_character`: a character that draws nothing or looks like another one
    /// (format, bidi and tag characters, non-ASCII spaces, unassigned code points;
    /// [`crate::text::is_invisible`]).
    #[error("{what} contains the invisible character U+{:04X}, which could hide part of it", u32::from(*.c))]
    InvisibleCharacter { what: String, c: char },
    /// `empty_command`: a terminal step with nothing to run.
    #[error("the terminal command is empty")]
    EmptyCommand,
    /// `unsafe_argument`: an item argument that would make the step reach further than it shows.
    #[error("{what} {hazard}")]
    UnsafeArgument { what: String, hazard: Hazard },
    /// `unsafe_value`: a setting value that would make the step reach further than it shows.
    #[error("{what} {hazard}")]
    UnsafeValue { what: String, hazard: Hazard },
    /// `tables_broken`: the editor profile's tables failed to load, so nothing is accepted.
    #[error("the {profile} profile tables failed to load, so nothing is accepted")]
    TablesBroken { profile: &'static str },
    /// `plan_sleep`: with this step the plan's waits (`:sleep`, `'messagesopt'` `wait:N`,
    /// `'matchtime'`) would pause the editor too long.
    #[error(
        "the plan's waits (:sleep, 'messagesopt' wait:, 'matchtime') would pause the editor for more than {} seconds in all",
        .max_ms / 1000
    )]
    PlanSleep { max_ms: u64 },
    /// `helix_rule`: a rule of Helix's command-line tables (a flag the command does not
    /// have, too many arguments, a theme name that is a path, a number outside Helix's bounds).
    #[error("{0}")]
    HelixRule(#[from] HelixRule),
    /// `cannot_run_here`: a valid step the editor's frontend cannot run as planned (Helix:
    /// a setting the project's config overrides, a step that cannot keep its place).
    #[error("{0}")]
    CannotRunHere(String),
    /// `handled_name`: at run time, a step below `shell` names a file that an autocommand
    /// reads or writes in the editor's place (gzip.vim runs `gzip` for `*.gz`); the
    /// validator would have shown such a step as `shell`, so it changed after validation.
    #[error(
        "“{name}” is read or written by {handler}, which can run a program; the plan did not show this step as [shell]"
    )]
    HandledName { name: String, handler: String },
    /// `code_on_range`: a command that would run the user's lines as code (`:'<,'>lua`,
    /// `:'<,'>source`), which the plan window does not show.
    #[error("“{id}” would run {lines} as code, and the plan window does not show them; leash does not run the lines of a range as code")]
    CodeOnRange { id: String, lines: String },
}

impl Refusal {
    /// The stable, snake_case code of this refusal (the `code` of a dropped step).
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::TooManySteps { .. } => "too_many_steps",
            Refusal::MalformedStep(_) => "malformed_step",
            Refusal::UnknownId(_) => "unknown_id",
            Refusal::UnknownKey(_) => "unknown_key",
            Refusal::Withheld { .. } => "withheld",
            Refusal::TakesNoArgs { .. } => "takes_no_args",
            Refusal::NeedsArgs { .. } => "needs_args",
            Refusal::BadType { .. } => "bad_type",
            Refusal::BadValue { .. } => "bad_value",
            Refusal::BadList(_) => "bad_list",
            Refusal::ListRule(_) => "list_rule",
            Refusal::AboveLimit { .. } => "above_limit",
            Refusal::BelowLimit { .. } => "below_limit",
            Refusal::TooLong { .. } => "too_long",
            Refusal::ControlCharacter { .. } => "control_character",
            Refusal::InvisibleCharacter { .. } => "invisible_character",
            Refusal::EmptyCommand => "empty_command",
            Refusal::UnsafeArgument { .. } => "unsafe_argument",
            Refusal::UnsafeValue { .. } => "unsafe_value",
            Refusal::TablesBroken { .. } => "tables_broken",
            Refusal::PlanSleep { .. } => "plan_sleep",
            Refusal::HelixRule(_) => "helix_rule",
            Refusal::CannotRunHere(_) => "cannot_run_here",
            Refusal::CodeOnRange { .. } => "code_on_range",
            Refusal::HandledName { .. } => "handled_name",
        }
    }

    /// The hazard behind an `unsafe_argument` or `unsafe_value` refusal.
    pub fn hazard(&self) -> Option<&Hazard> {
        match self {
            Refusal::UnsafeArgument { hazard, .. } | Refusal::UnsafeValue { hazard, .. } => Some(hazard),
            _ => None,
        }
    }
}

fn because(note: &Option<&'static str>) -> String {
    note.map(|n| format!(" ({n})")).unwrap_or_default()
}

/// What in an argument or value would let a step reach further than the plan window
/// shows: the rule of the argument filter that fired (doc/reach.md, section 4.3).
///
/// The message completes a sentence whose subject is the text (“argument “x” …”).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Hazard {
    /// `` ` ``: Neovim hands backticks to the shell.
    #[error("contains a backtick, which can run a shell command")]
    Backtick,
    /// A leading `+`: `+cmd` or `++opt`.
    #[error("starts with “+”, which Neovim can read as {reading}")]
    Plus { reading: &'static str },
    /// A leading `!`: the form of a command that runs a shell.
    #[error("starts with “!”, which is the form that runs a shell command")]
    Bang,
    /// `|`: a second command.
    #[error("contains “|”, which could start a second command")]
    Bar,
    /// `term://`, `scp://`, `C:`…: a name that a handler opens.
    #[error(
        "starts with “{scheme}”, a URL-like name that a handler opens (term:// runs a shell, scp:// and https:// run curl or scp)"
    )]
    UrlScheme { scheme: String },
    /// `%`, `#`, wildcards, `$VAR`: file-name expansion.
    #[error("contains “{c}”, which Neovim may expand into other file names")]
    Expansion { c: char },
    /// A leading `~`.
    #[error("starts with “~”, which Neovim expands to a home directory")]
    Home,
    /// `<cword>`, `<cfile>`, `<sfile>`…
    #[error("contains “{word}”, which Neovim replaces with text from the editor")]
    EditorText { word: String },
    /// Not a plain runtime-file name (`desert`, `c.doxygen`).
    #[error("must be a plain name (letters, digits, “_”, “.”, “-”)")]
    NotPlainName,
    /// A `:substitute` that evaluates an expression, or may (a repeat of the last one).
    #[error("runs only as a step shown as [code]: {why}")]
    Expression { why: &'static str },
    /// `..` in a runtime-file name.
    #[error("contains “..”, which could reach outside the runtime directories")]
    ParentDir,
    /// A part of a file name beginning with `-` ([`crate::paths::dash_part`]).
    #[error(
        "has a part beginning with “-” (“{part}”), which a program your setup hands the file name to (git, a formatter) would read as an option"
    )]
    DashName { part: String },
    /// Not the argument of `:>`/`:<`: more of the same sign, then a count of lines.
    #[error("takes only more “{sign}” signs (one 'shiftwidth' each) and a count of lines, such as “{sign}{sign} 3”")]
    NotShift { sign: char },
}

/// Why a value is not one the setting takes (the setting-value check of
/// `policy::values`). Each message names the setting and the value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    #[error("“{key}” takes a number from {min} to {max}, not {value}")]
    OutOfRange { key: String, value: i64, min: i64, max: i64 },
    #[error("“{key}” takes one of {allowed}, not {value}")]
    NotOneOf { key: String, value: String, allowed: String },
    #[error("“{key}” takes a comma-separated list of {allowed}; {item} is not one of them")]
    UnknownItem { key: String, item: String, allowed: String },
    #[error("“{key}” takes a comma-separated list; {value} has an empty item")]
    EmptyItem { key: String, value: String },
    #[error("“{key}” takes flags from {allowed}; {flag} is not one of them")]
    UnknownFlag { key: String, flag: String, allowed: String },
}

impl From<ValueError> for Refusal {
    /// A number out of range is `above_limit`/`below_limit` and a single choice `bad_value`,
    /// as for every other setting; a list item or flag is `bad_list`.
    fn from(e: ValueError) -> Refusal {
        match e {
            ValueError::OutOfRange { key, value, max, .. } if value > max => {
                Refusal::AboveLimit { what: format!("'{key}' = {value}"), limit: max }
            }
            ValueError::OutOfRange { key, value, min, .. } => {
                Refusal::BelowLimit { what: format!("'{key}' = {value}"), limit: min }
            }
            ValueError::NotOneOf { key, value, allowed } => Refusal::BadValue { key, allowed, got: value },
            e => Refusal::BadList(e),
        }
    }
}

/// Why a value breaks one of Neovim's rules for its option (`policy::neovim_values`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("'{key}' is read-only: Neovim sets it, a plan cannot")]
    ReadOnly { key: String },
    #[error("'{key}' cannot be empty")]
    Empty { key: String },
    #[error("'{key}' takes exactly one of {items}")]
    NotExactlyOne { key: String, items: String },
    #[error("'{key}' takes at most one of {items}")]
    MoreThanOne { key: String, items: String },
    #[error("'{key}' takes {items} only on its own")]
    NotAlone { key: String, items: String },
    #[error("'{key}' takes at most {max} items")]
    TooMany { key: String, max: usize },
}

impl From<RuleError> for Refusal {
    /// A read-only option is `withheld` like any item never offered; the rest `list_rule`.
    fn from(e: RuleError) -> Refusal {
        match e {
            RuleError::ReadOnly { key } => Refusal::Withheld { id: key, why: "Neovim sets it, a plan cannot" },
            e => Refusal::ListRule(e),
        }
    }
}

/// Why Helix's command line would read a step otherwise than the plan shows it, or
/// Helix would refuse it (`policy::helix`): a flag the command does not have, a number of
/// arguments it does not take, a value outside what Helix loads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HelixRule {
    /// A `%` in the raw tail of a shell command (`:sh`, `:pipe`…).
    #[error(":{command}: {}", SHELL_TAIL_PERCENT)]
    ShellTailPercent { command: String },
    /// Fewer or more positional arguments than the command takes (`max`: `None`, no limit).
    #[error("{}", argument_count(.command, *.min, *.max, *.got))]
    ArgumentCount { command: String, min: usize, max: Option<usize>, got: usize },
    /// An argument that looks like a flag the command does not have.
    #[error("“{flag}” is not a flag of :{command}")]
    UnknownFlag { flag: String, command: String },
    /// A theme name that is not a plain file name of Helix's theme folders.
    #[error("“{name}” is not a theme name (letters, digits, “_” and “-” only)")]
    NotAThemeName { name: String },
    /// A number outside the option's bounds (`None`: no bound on that side).
    #[error("“{key}” takes a number from {} to {}, not {got}", bound(*.lo), bound(*.hi))]
    NumberOutOfRange { key: String, lo: Option<i64>, hi: Option<i64>, got: i64 },
    /// A ruler that is not a column number Helix reads (a `u16` above 0).
    #[error("“rulers” takes column numbers from 1 to 65535, not {got:?}")]
    Rulers { got: String },
    /// An option Helix reads as one `char` given another number of characters.
    #[error("“{key}” takes exactly one character (Helix reads it as a char), not {got:?}")]
    OneCharacter { key: String, got: String },
    /// A jump-label alphabet of fewer than two characters.
    #[error("“{key}” needs at least two characters, not {got:?}")]
    AlphabetTooShort { key: String, got: String },
    /// A jump-label alphabet with a character one cannot type as a label (a space, a control).
    #[error("“{key}” takes letters to type, not {c:?}")]
    AlphabetUntypable { key: String, c: char },
    /// A jump-label alphabet with a character twice.
    #[error("“{key}”: Helix refuses an alphabet with {c:?} twice")]
    AlphabetRepeats { key: String, c: char },
    /// A file name holding `%`, which Helix's command line expands.
    #[error(
        "the file name {:?} holds “%”, which Helix's command line expands (%sh{{…}} runs a program)",
        .name.chars().take(60).collect::<String>()
    )]
    FileNameExpansion { name: String },
    /// A file name with a part beginning with `-` ([`crate::paths::dash_part`]).
    #[error(
        "the file name {:?} has a part beginning with “-”, which a program the name is handed to (git, a formatter, a language server) would read as an option",
        .name.chars().take(60).collect::<String>()
    )]
    DashName { name: String },
}

/// Why a `%` in a shell command's tail is refused: Helix expands it before the shell
/// sees the line, and Helix's quoting does not apply in that tail.
pub const SHELL_TAIL_PERCENT: &str =
    "Helix expands %… (%sh{…}, %{…}) in a shell command's tail before the shell sees it, and no quoting stops it there; ask for a terminal step instead";

fn argument_count(command: &str, min: usize, max: Option<usize>, got: usize) -> String {
    match max {
        Some(m) if m == min => format!(":{command} takes {min} argument(s), not {got}"),
        Some(m) => format!(":{command} takes {min} to {m} arguments, not {got}"),
        None => format!(":{command} takes at least {min} argument(s)"),
    }
}

fn bound(b: Option<i64>) -> String {
    b.map_or("…".to_string(), |b| b.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One refusal of every variant. Adding a variant breaks [`variant`] until it is
    /// listed there, and this test until it has an example here.
    fn examples() -> Vec<Refusal> {
        let what = || "argument “x”".to_string();
        vec![
            Refusal::TooManySteps { max: 10, step: "wrap = true".into() },
            Refusal::MalformedStep(StepShape::NotAnObject),
            Refusal::UnknownId("cmd:vs".into()),
            Refusal::UnknownKey("fontsize".into()),
            Refusal::Withheld { id: "cmd:set".into(), why: "a setting step does this" },
            Refusal::TakesNoArgs { id: "cmd:hide".into(), note: None },
            Refusal::NeedsArgs { id: "cmd:colorscheme".into() },
            Refusal::BadType { key: "tabstop".into(), expected: "a number", got: "true".into() },
            Refusal::BadValue { key: "signcolumn".into(), allowed: "yes | no".into(), got: "\"x\"".into() },
            Refusal::BadList(ValueError::UnknownFlag {
                key: "mouse".into(),
                flag: "\"x\"".into(),
                allowed: "a n v i".into(),
            }),
            Refusal::ListRule(RuleError::Empty { key: "cursorlineopt".into() }),
            Refusal::AboveLimit { what: what(), limit: 10 },
            Refusal::BelowLimit { what: what(), limit: -1 },
            Refusal::TooLong { what: what(), max: 4096 },
            Refusal::ControlCharacter { what: what(), c: '\n' },
            Refusal::InvisibleCharacter { what: what(), c: '\u{202E}' },
            Refusal::EmptyCommand,
            Refusal::UnsafeArgument { what: what(), hazard: Hazard::Bar },
            Refusal::UnsafeValue { what: what(), hazard: Hazard::Backtick },
            Refusal::TablesBroken { profile: "Neovim" },
            Refusal::PlanSleep { max_ms: 3000 },
            Refusal::HelixRule(HelixRule::UnknownFlag { flag: "--force".into(), command: "write".into() }),
            Refusal::CannotRunHere("the project's .helix/config.toml sets it".into()),
            Refusal::CodeOnRange { id: "cmd:lua".into(), lines: "lines 2–3".into() },
            Refusal::HandledName {
                name: "a.gz".into(), handler: "an autocommand of “gzip” (BufReadPost *.gz)".into()
            },
        ]
    }

    fn variant(r: &Refusal) -> usize {
        match r {
            Refusal::TooManySteps { .. } => 0,
            Refusal::MalformedStep(_) => 1,
            Refusal::UnknownId(_) => 2,
            Refusal::UnknownKey(_) => 3,
            Refusal::Withheld { .. } => 4,
            Refusal::TakesNoArgs { .. } => 5,
            Refusal::NeedsArgs { .. } => 6,
            Refusal::BadType { .. } => 7,
            Refusal::BadValue { .. } => 8,
            Refusal::AboveLimit { .. } => 9,
            Refusal::BelowLimit { .. } => 10,
            Refusal::TooLong { .. } => 11,
            Refusal::ControlCharacter { .. } => 12,
            Refusal::InvisibleCharacter { .. } => 13,
            Refusal::EmptyCommand => 14,
            Refusal::UnsafeArgument { .. } => 15,
            Refusal::UnsafeValue { .. } => 16,
            Refusal::TablesBroken { .. } => 17,
            Refusal::BadList(_) => 18,
            Refusal::ListRule(_) => 19,
            Refusal::PlanSleep { .. } => 20,
            Refusal::HelixRule(_) => 21,
            Refusal::CannotRunHere(_) => 22,
            Refusal::CodeOnRange { .. } => 23,
            Refusal::HandledName { .. } => 24,
        }
    }

    #[test]
    fn every_variant_has_its_own_snake_case_code_and_a_message() {
        let examples = examples();
        let mut seen: Vec<usize> = examples.iter().map(variant).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..examples.len()).collect::<Vec<_>>(), "one example per variant");
        let mut codes: Vec<&str> = examples.iter().map(Refusal::code).collect();
        for code in &codes {
            assert!(!code.is_empty() && code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{code}");
        }
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), examples.len(), "codes are unique");
        for r in &examples {
            assert!(!r.to_string().trim().is_empty(), "{r:?}");
        }
    }

    #[test]
    fn every_code_is_listed_in_the_help() {
        let help = include_str!("../../../doc/leash.txt");
        for r in examples() {
            let code = r.code();
            let listed = help.lines().any(|l| l.starts_with("  ") && l.split_whitespace().next() == Some(code));
            assert!(listed, "doc/leash.txt does not list the code {code}");
        }
    }

    #[test]
    fn messages_read_as_before() {
        assert_eq!(Refusal::UnknownKey("fontsize".into()).to_string(), "unknown setting “fontsize”");
        assert_eq!(
            Refusal::TakesNoArgs { id: "cmd:hide".into(), note: Some("its argument would be another command") }
                .to_string(),
            "“cmd:hide” takes no arguments (its argument would be another command)"
        );
        assert_eq!(
            Refusal::InvisibleCharacter { what: "the value".into(), c: '\u{202E}' }.to_string(),
            "the value contains the invisible character U+202E, which could hide part of it"
        );
        assert_eq!(
            Refusal::UnsafeArgument { what: "argument “a | b”".into(), hazard: Hazard::Bar }.to_string(),
            "argument “a | b” contains “|”, which could start a second command"
        );
        let count = |max| {
            Refusal::HelixRule(HelixRule::ArgumentCount { command: "goto".into(), min: 1, max, got: 0 }).to_string()
        };
        assert_eq!(count(Some(1)), ":goto takes 1 argument(s), not 0");
        assert_eq!(count(Some(2)), ":goto takes 1 to 2 arguments, not 0");
        assert_eq!(count(None), ":goto takes at least 1 argument(s)");
        let range = HelixRule::NumberOutOfRange { key: "scrolloff".into(), lo: Some(0), hi: None, got: -1 };
        assert_eq!(range.to_string(), "“scrolloff” takes a number from 0 to …, not -1");
        let name = HelixRule::FileNameExpansion { name: format!("%sh{{x}}{}", "a".repeat(80)) }.to_string();
        let shown = format!("%sh{{x}}{}", "a".repeat(54));
        assert_eq!(
            name,
            format!(
                "the file name \"{shown}\" holds “%”, which Helix's command line expands (%sh{{…}} runs a program)"
            ),
            "the name is cut to 60 characters"
        );
    }
}
