//! The Neovim profile: every rule leash applies to Neovim, in this folder.
//!
//! Why an option or Ex command has its reach, and everything that may raise it:
//!
//! - its row in `neovim-reach.json` (one per option and per command, with its class from
//!   the Neovim reach study, doc/reach.md, and the reason), read by `tables`;
//! - a value that names a program, an expression or a handled file name
//!   (`value_reach`), `'isprint'` values that hide control characters (`isprint`), the
//!   value rules the catalog's vocabulary cannot say (`values`);
//! - an argument the filter refuses (`filter`; the recipe of doc/reach.md, section 4.3),
//!   a file name a plugin reads in Neovim's place (`name_handlers`), a buffer's name that
//!   Neovim runs as a command line (`name_cmdline`, `:sign jump`), `libcall()` and
//!   functions that start programs in code (`foreign_code`), a write into a folder
//!   Neovim loads code from (`code_dirs`);
//! - the waits a plan may spend (`setting_wait_ms` here; the plan-wide sum is the core's
//!   `policy::budget`).
//!
//! `rules` answers the core's policy ([`crate::profile::EditorRules`]) from all of these;
//! the generic rules and the user's raise rules are in `crate::policy`. `present` words
//! each step for the plan window. Nothing here lowers a reach.
//!
//! A table that fails to parse or breaks an invariant (a reach lower than its class, an
//! empty reason) makes every look-up answer "unknown" and every check refuse, so a broken
//! table can only make leash stricter. Commands are classed by what they can do *after*
//! the argument filter in [`check_command_args`]: `:edit` is `safe` only because `+cmd`,
//! `term://`, backticks, `|` and expansion characters are refused before it runs; a name
//! that an autocommand reads or writes in Neovim's place (`*.gz`, `*.zip`) raises the step
//! instead (see `name_handlers`).

pub mod code_dirs;
mod filter;
pub mod foreign_code;
mod isprint;
pub mod name_cmdline;
pub mod name_handlers;
pub mod present;
pub mod preview;
pub mod projects;
pub mod rules;
pub mod substitute;
mod tables;
#[cfg(test)]
mod test_tree;
#[cfg(test)]
mod tests;
pub mod value_reach;
pub mod values;

use self::filter::{check_arg, check_name, check_plain_text, shown, unsafe_arg};
use self::tables::{tables, Flags};
use crate::entry::SettingValue;
use crate::limits::MAX_TEXT_BYTES;
use crate::profile::neovim::name_handlers::{self as names, NameHandler};
use crate::reach::Reach;
use crate::refusal::{Hazard, Refusal};

/// Builtin commands that are never offered as catalog items, with the reason shown.
///
/// Modifiers take another command; through `nvim_cmd` they belong in the `mods` field,
/// which leash fills from the catalog, never from the model. The rest either bypass the
/// settings allowlist, run text as commands, block on input or persist code.
const WITHHELD: &[(&str, &str)] = &[
    ("aboveleft", MODIFIER),
    ("belowright", MODIFIER),
    ("botright", MODIFIER),
    ("browse", MODIFIER),
    ("confirm", MODIFIER),
    ("filter", MODIFIER),
    ("horizontal", MODIFIER),
    ("keepalt", MODIFIER),
    ("keepjumps", MODIFIER),
    ("keepmarks", MODIFIER),
    ("keeppatterns", MODIFIER),
    ("leftabove", MODIFIER),
    ("lockmarks", MODIFIER),
    ("noautocmd", MODIFIER),
    ("noswapfile", MODIFIER),
    ("rightbelow", MODIFIER),
    ("sandbox", MODIFIER),
    ("silent", MODIFIER),
    ("tab", MODIFIER),
    ("topleft", MODIFIER),
    ("unsilent", MODIFIER),
    ("verbose", MODIFIER),
    ("vertical", MODIFIER),
    ("set", "a setting step does this, and :set would bypass the settings allowlist"),
    ("setlocal", "a setting step does this, and :setlocal would bypass the settings allowlist"),
    ("setglobal", "a setting step does this, and :setglobal would bypass the settings allowlist"),
    ("execute", "runs other commands given as text"),
    ("normal", "runs keystrokes, and ':' in them runs any command"),
    ("@", "runs a register's contents as commands"),
    ("*", "runs a register's contents as commands"),
    ("debug", "runs another command in debug mode and waits for input"),
    ("restart", "starts a new Neovim that runs commands given as text"),
    ("connect", "sends your keystrokes to another Neovim server"),
    ("trust", "marks a file trusted so Neovim runs it at every start"),
];

const MODIFIER: &str = "a command modifier takes another command; leash sets modifiers itself";

/// Commands whose only argument is another command in string form. Through `nvim_cmd`
/// `:hide` ignores it (verified), but nothing good can come of passing one.
const NO_ARGS: &[&str] = &["hide"];

/// Commands whose numeric argument sizes work: `:sleep 99999` freezes Neovim, and
/// `:center 99999` (or `:right`, `:left`, `:retab`) pads every line with that many
/// spaces. Every number in their arguments must be at most the cap (`:sleep` counts
/// seconds, or milliseconds with a trailing `m`).
const NUMBER_ARG_CAPS: &[(&str, u64)] =
    &[("sleep", 10), ("center", 1000), ("right", 1000), ("left", 1000), ("retab", 100)];

/// Checks the numbers in the arguments of a command listed in [`NUMBER_ARG_CAPS`].
fn check_number_args(name: &str, args: &[String]) -> Result<(), Refusal> {
    let Some(&(_, cap)) = NUMBER_ARG_CAPS.iter().find(|(n, _)| *n == name) else {
        return Ok(());
    };
    for arg in args {
        let millis = name == "sleep" && arg.trim_end().ends_with('m');
        for run in arg.split(|c: char| !c.is_ascii_digit()).filter(|r| !r.is_empty()) {
            let n: u64 = run.parse().unwrap_or(u64::MAX);
            let n = if millis { n / 1000 } else { n };
            if n > cap {
                let what = format!("argument “{}” for :{name}", shown(arg));
                return Err(Refusal::AboveLimit { what, limit: i64::try_from(cap).unwrap_or(i64::MAX) });
            }
        }
    }
    Ok(())
}

/// Options whose value is a runtime-file name that Neovim sources (`filetype=x` sources
/// `ftplugin/x.vim`…). Neovim validates them too; checking here keeps a traversal out even
/// if it did not.
const NAME_OPTIONS: &[&str] = &["filetype", "syntax", "keymap"];

/// Why `:name` is never offered as an item, or `None` if it may be.
pub fn withheld(name: &str) -> Option<&'static str> {
    WITHHELD.iter().find(|(n, _)| *n == name).map(|(_, why)| *why)
}

/// Every withheld command with its reason (the Lua side's copy comes from here).
pub fn withheld_commands() -> &'static [(&'static str, &'static str)] {
    WITHHELD
}

/// Commands offered without arguments.
pub fn argumentless_commands() -> &'static [&'static str] {
    NO_ARGS
}

/// Commands whose numbers are capped, with the cap (`:sleep` in seconds).
pub fn number_arg_caps() -> &'static [(&'static str, u64)] {
    NUMBER_ARG_CAPS
}

/// Whether `:name` takes file names (its argument is expanded as one, or it opens one):
/// true for a command the tables do not know.
pub fn takes_file_names(name: &str) -> bool {
    match tables().and_then(|t| t.commands.get(name)) {
        Some(row) => row.flags.xfile || row.flags.loads_files,
        None => true,
    }
}

/// How long `:sleep args` sleeps, in milliseconds (`:sleep` alone is one second).
pub fn sleep_millis(args: &[String]) -> u64 {
    let text = args.join(" ");
    let text = text.trim();
    if text.is_empty() {
        return 1000;
    }
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    let n: u64 = if digits.is_empty() { 1 } else { digits.parse().unwrap_or(u64::MAX) };
    if text.ends_with('m') {
        n
    } else {
        n.saturating_mul(1000)
    }
}

/// One command row as the Lua side's filter needs it: raw reach, reach and flag words.
pub struct CommandFacts {
    pub raw: Reach,
    pub reach: Reach,
    pub flags: Vec<&'static str>,
}

/// Every command row, for the Lua side's filter (`None` if the tables are broken).
pub fn command_facts() -> Option<Vec<(&'static str, CommandFacts)>> {
    let tables = tables()?;
    let mut out: Vec<_> = tables
        .commands
        .iter()
        .map(|(name, row)| {
            let f = row.flags;
            let flags = [
                (f.xfile, "xfile"),
                (f.cmdarg, "cmdarg"),
                (f.argopt, "argopt"),
                (f.backticks, "backticks"),
                (f.loads_files, "loads_files"),
                (f.name_arg, "name_arg"),
            ]
            .into_iter()
            .filter_map(|(on, word)| on.then_some(word))
            .collect();
            (name.as_str(), CommandFacts { raw: row.raw.reach(), reach: row.reach, flags })
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(b.0));
    Some(out)
}

/// The reach of the builtin Ex command `name` (full name) once its arguments have passed
/// [`check_command_args`]; `None` if the tables do not know it.
pub fn command_reach(name: &str) -> Option<Reach> {
    tables()?.commands.get(name).map(|row| row.reach)
}

/// The reach of setting the option `key` (full name); `None` if the tables do not know it.
pub fn option_reach(key: &str) -> Option<Reach> {
    tables()?.options.get(key).map(|row| row.class.reach())
}

/// Why `:name` has its reach, for a view of the tables.
pub fn command_reason(name: &str) -> Option<&'static str> {
    tables()?.commands.get(name).map(|row| row.reason.as_str())
}

/// Why setting `key` has its reach, for a view of the tables.
pub fn option_reason(key: &str) -> Option<&'static str> {
    tables()?.options.get(key).map(|row| row.reason.as_str())
}

/// The reach of `:name` and why, in a few words (`a colorscheme is a script that runs`),
/// for the plan window's mark; `None` if the tables do not know it.
pub fn command_words(name: &str) -> Option<(Reach, &'static str)> {
    tables()?.commands.get(name).map(|row| (row.reach, tables::few_words(row.says.as_deref(), &row.reason)))
}

/// The reach of setting `key` and why, in a few words (`may load spell files and
/// scripts`), for the plan window's mark; `None` if the tables do not know it.
pub fn option_words(key: &str) -> Option<(Reach, &'static str)> {
    tables()?.options.get(key).map(|row| (row.class.reach(), tables::few_words(row.says.as_deref(), &row.reason)))
}

/// The numbers option `key` may be set to: the profile's minimum (0 unless the table
/// says otherwise) and cap; `None` if the tables failed to load.
pub fn number_range(key: &str) -> Option<(i64, i64)> {
    let t = tables()?;
    Some((t.mins.get(key).copied().unwrap_or(0), t.caps.get(key).copied().unwrap_or(t.default_cap)))
}

/// Refuses arguments that would make `:name` reach further than `reach` (the step's reach
/// so far) or than its row says.
///
/// The full filter runs when the step would otherwise run unconfirmed or only as a file
/// write (reach `safe`, `edit`, `write`), and also whenever the command's row is lower than
/// what it can do with free arguments (`:edit` raised to `code` by a catalog is still
/// filtered, or `term://` would run a shell under a `code` label). Whatever the reach,
/// name arguments must be plain names and the commands that expand backticks on their own
/// get none.
pub fn check_command_args(name: &str, reach: Reach, args: &[String]) -> Result<(), Refusal> {
    let Some(tables) = tables() else {
        return Err(TABLES_BROKEN);
    };
    // A command the tables do not know gets the strictest filter unless it already counts
    // as a shell (which is what mod.rs makes of it).
    let (flags, raw) = match tables.commands.get(name) {
        Some(row) => (row.flags, row.raw.reach()),
        None => (Flags::STRICTEST, Reach::Shell),
    };
    let full_filter = reach <= Reach::Write || raw > reach;
    if reach < Reach::Code && substitute::COMMANDS.contains(&name) {
        // Below `code` only a substitute that evaluates nothing may run.
        let joined = args.join(" ");
        if let Some(why) = substitute::code_reason(&joined) {
            return Err(unsafe_arg(format!("argument “{}” for :{name}", shown(&joined)), Hazard::Expression { why }));
        }
    }
    if NO_ARGS.contains(&name) && !args.is_empty() {
        let note = Some("its argument would be another command");
        return Err(Refusal::TakesNoArgs { id: format!("cmd:{name}"), note });
    }
    for arg in args {
        if arg.len() > MAX_TEXT_BYTES {
            return Err(Refusal::TooLong { what: "an argument".into(), max: MAX_TEXT_BYTES });
        }
        // These commands expand backticks themselves, even with expansion off.
        if flags.backticks && arg.contains('`') {
            return Err(unsafe_arg(format!("argument “{}” for :{name}", shown(arg)), Hazard::Backtick));
        }
        if flags.name_arg {
            check_name(arg).map_err(|hazard| unsafe_arg(format!("argument “{}” for :{name}", shown(arg)), hazard))?;
        }
        if full_filter {
            check_arg(arg, flags)?;
            if flags.xfile || flags.loads_files {
                check_dash_names(name, arg)?;
            }
        }
    }
    check_shift_args(name, args)?;
    check_number_args(name, args)
}

/// The most `'shiftwidth'`s one `:>` or `:<` step shifts by (the command's own sign
/// and the extra ones of its argument).
pub const MAX_SHIFTS: usize = 20;

/// The largest count of lines a `:>` or `:<` takes (a larger one is cut to the buffer's
/// end by Neovim anyway).
pub const MAX_SHIFT_COUNT: u64 = 1_000_000_000;

/// The argument of `:>` and `:<`, as typed after the command: more of the same sign (one
/// `'shiftwidth'` each), then a count of lines (`>> 3`); nothing else. Returns the extra
/// signs and the count, or the refusal.
pub fn shift_arg(name: &str, arg: &str) -> Result<(usize, Option<u64>), Refusal> {
    let sign = if name == "<" { '<' } else { '>' };
    let what = || format!("argument “{}” for :{name}", shown(arg));
    let rest = arg.trim_start_matches(sign);
    let extra = arg.len() - rest.len();
    let count = rest.trim();
    if !count.chars().all(|c| c.is_ascii_digit()) {
        return Err(unsafe_arg(what(), Hazard::NotShift { sign }));
    }
    if extra + 1 > MAX_SHIFTS {
        return Err(Refusal::AboveLimit {
            what: format!("shifts of {}", what()),
            limit: i64::try_from(MAX_SHIFTS).unwrap_or(i64::MAX),
        });
    }
    let count = if count.is_empty() {
        None
    } else {
        match count.parse::<u64>() {
            Ok(0) => return Err(unsafe_arg(what(), Hazard::NotShift { sign })),
            Ok(n) if n <= MAX_SHIFT_COUNT => Some(n),
            _ => {
                let limit = i64::try_from(MAX_SHIFT_COUNT).unwrap_or(i64::MAX);
                return Err(Refusal::AboveLimit { what: format!("the count of {}", what()), limit });
            }
        }
    };
    Ok((extra, count))
}

/// `:>` and `:<` take at most one argument, [`shift_arg`]'s.
fn check_shift_args(name: &str, args: &[String]) -> Result<(), Refusal> {
    if name != ">" && name != "<" {
        return Ok(());
    }
    if args.len() > 1 {
        let sign = if name == "<" { '<' } else { '>' };
        return Err(unsafe_arg(
            format!("arguments “{}” for :{name}", shown(&args.join(" "))),
            Hazard::NotShift { sign },
        ));
    }
    args.first().map_or(Ok(()), |arg| shift_arg(name, arg).map(|_| ()))
}

/// Commands whose argument may hold one word beginning with `-` that is not a file name:
/// `:cd -` goes back to the previous directory, `:mkspell -ascii` is its flag.
const DASH_WORDS: &[(&str, &str)] =
    &[("cd", "-"), ("chdir", "-"), ("lcd", "-"), ("lchdir", "-"), ("tcd", "-"), ("tchdir", "-"), ("mkspell", "-ascii")];

/// The `:vimgrep` family takes a pattern before its file names.
const PATTERN_FIRST: &[&str] = &["vimgrep", "vimgrepadd", "lvimgrep", "lvimgrepadd"];

/// Refuses a file name in the argument of `:name` with a part beginning with `-`
/// ([`crate::paths::dash_part`]): the user's own hooks hand the opened or written name to
/// programs (`git log <name>` in a `BufEnter` helper), which read it as an option. Each
/// white-space separated word is checked (`:args` splits the argument at white space;
/// a part of `:edit`'s one name that begins with `-` begins a word too).
fn check_dash_names(name: &str, arg: &str) -> Result<(), Refusal> {
    for word in file_words(name, arg) {
        if let Some(part) = crate::paths::dash_part(word) {
            let hazard = Hazard::DashName { part: shown(part) };
            return Err(unsafe_arg(format!("argument “{}” for :{name}", shown(arg)), hazard));
        }
    }
    Ok(())
}

/// The white-space separated words of the argument of `:name` that are file or folder
/// names: not a `:vimgrep` pattern, `:cd -`, `:mkspell -ascii`, or the `>`/`>>` of
/// `:redir`/`:write`.
pub(crate) fn file_words<'a>(name: &'a str, arg: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    let names = if PATTERN_FIRST.contains(&name) { after_pattern(arg) } else { arg };
    let allowed = move |word: &str| DASH_WORDS.iter().any(|(n, w)| *n == name && *w == word);
    names.split_whitespace().filter(move |w| !allowed(w) && !matches!(*w, ">" | ">>"))
}

/// What follows the pattern of a `:vimgrep` argument: `/pat/gj files` (any non-word
/// delimiter) or `pat files`.
fn after_pattern(arg: &str) -> &str {
    let arg = arg.trim_start();
    let Some(first) = arg.chars().next() else { return arg };
    if first.is_alphanumeric() || first == '_' {
        return arg.find(char::is_whitespace).map_or("", |i| &arg[i..]);
    }
    let body = &arg[first.len_utf8()..];
    let mut escaped = false;
    for (i, c) in body.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == first {
            let rest = &body[i + c.len_utf8()..];
            return rest.trim_start_matches(['g', 'j', 'f']);
        }
    }
    // No closing delimiter: all of it is the pattern.
    ""
}

/// Refuses arguments of a user command or a user entry (`user:…`, `entry:…`) that could
/// reach further than the step shows. Whatever reach the item declares, each argument is
/// bounded plain text (no control or invisible character); below `shell` it gets the file
/// argument rules too, because a plugin's command may hand it to `:edit` or `:args`: a
/// `safe` entry must not receive `term://sh`, `+cmd`, `|` or `%`.
pub fn check_item_args(args: &[String], reach: Reach) -> Result<(), Refusal> {
    crate::limits::check_args_text(args)?;
    if reach < Reach::Shell {
        for arg in args {
            check_arg(arg, Flags::FILE_NAMES)?;
            // Below `plugin` the window may not be shown at all (or shows no plugin's
            // name): such an entry must not hand on a name a program reads as an option.
            // A `[plugin]` step shows every argument to the person who confirms it
            // (`:Git log --oneline`).
            if reach < Reach::Plugin {
                check_dash_names("", arg)?;
            }
        }
    }
    Ok(())
}

/// Refuses a path for a `file:` item (`file:new`, `file:rename`) with a part that a
/// program would read as an option, as for a file argument of `:edit` (the rest of its
/// path rules run where the item runs).
pub fn check_file_item_args(args: &[String]) -> Result<(), Refusal> {
    for arg in args {
        check_dash_names("", arg)?;
    }
    Ok(())
}

/// Refuses a file name that leash is about to open although no plan step wrote it (a
/// language server's jump target): plain text, and nothing Neovim would read as a
/// command, an option or a URL a handler opens.
pub fn check_file_name(name: &str) -> Result<(), Refusal> {
    let what = format!("the file name “{}”", shown(name));
    check_plain_text(&what, name)?;
    filter::check_hazards(name, Flags::default()).map_err(|hazard| unsafe_arg(what.clone(), hazard))?;
    match crate::paths::dash_part(name) {
        Some(part) => Err(unsafe_arg(what, Hazard::DashName { part: shown(part) })),
        None => Ok(()),
    }
}

/// The first file name in the arguments of `:name` that an autocommand reads or writes in
/// Neovim's place, with that handler (`None` for a command that takes no file names).
pub fn claimed_name<'a, 'h>(
    name: &str,
    args: &'a [String],
    handlers: &'h [NameHandler],
) -> Option<(&'a str, &'h NameHandler)> {
    if !takes_file_names(name) {
        return None;
    }
    args.iter().flat_map(|a| names::names_in(a)).find_map(|word| Some((word, names::handler_for(handlers, word)?)))
}

/// What the executor checks again just before `:name args` runs in a step of `reach`
/// (defence in depth: the validator applied the same rules when the plan was made, so a
/// step fails here only if it changed after validation). The text rule of every item
/// argument, the argument filter of [`check_command_args`], and below `shell` no file name a handler reads or writes: the
/// validator raises such a step to `shell`, so one that arrives lower was not shown as
/// running a program.
pub fn check_before_run(name: &str, reach: Reach, args: &[String], handlers: &[NameHandler]) -> Result<(), Refusal> {
    crate::limits::check_args_text(args)?;
    check_command_args(name, reach, args)?;
    if reach >= Reach::Shell {
        return Ok(());
    }
    match claimed_name(name, args, handlers) {
        Some((word, handler)) => Err(Refusal::HandledName { name: shown(word), handler: handler.describe() }),
        None => Ok(()),
    }
}

/// Refuses option values that the option's type, caps or text rules do not allow.
pub fn check_option_value(key: &str, value: &SettingValue) -> Result<(), Refusal> {
    let Some(tables) = tables() else {
        return Err(TABLES_BROKEN);
    };
    if let Some(row) = tables.options.get(key) {
        if !row.kind.accepts(value) {
            return Err(Refusal::BadType {
                key: key.to_string(),
                expected: row.kind.described(),
                got: value.to_string(),
            });
        }
    }
    match value {
        SettingValue::Boolean(_) => Ok(()),
        SettingValue::Number(n) => {
            let cap = tables.caps.get(key).copied().unwrap_or(tables.default_cap);
            let min = tables.mins.get(key).copied().unwrap_or(0);
            if *n > cap {
                Err(Refusal::AboveLimit { what: format!("'{key}' = {n}"), limit: cap })
            } else if *n < min {
                Err(Refusal::BelowLimit { what: format!("'{key}' = {n}"), limit: min })
            } else {
                Ok(())
            }
        }
        SettingValue::String(s) => {
            let what = format!("the value of '{key}'");
            check_plain_text(&what, s)?;
            let unsafe_value = |what: String, hazard| Refusal::UnsafeValue { what, hazard };
            if s.contains('`') {
                return Err(unsafe_value(what, Hazard::Backtick));
            }
            if NAME_OPTIONS.contains(&key) && !s.is_empty() {
                check_name(s).map_err(|hazard| unsafe_value(what.clone(), hazard))?;
            }
            if key == "spelllang" {
                // A comma list of language names; never a path.
                for part in s.split(',').filter(|p| !p.is_empty()) {
                    let name = || format!("the name “{}” in {what}", shown(part));
                    check_name(part).map_err(|hazard| unsafe_value(name(), hazard))?;
                }
            }
            Ok(())
        }
    }
}

const TABLES_BROKEN: Refusal = Refusal::TablesBroken { profile: "Neovim" };

/// How long one wait that the Neovim setting makes Neovim do lasts, in milliseconds, or
/// `None` when the value makes it wait for nothing (the Neovim profile's answer).
pub fn setting_wait_ms(key: &str, value: &SettingValue) -> Option<u64> {
    if key == "matchtime" {
        let SettingValue::Number(tenths) = value else { return None };
        return Some(u64::try_from(*tenths).unwrap_or(0).saturating_mul(100));
    }
    let SettingValue::String(value) = value else { return None };
    match key {
        "messagesopt" => value.split(',').map(str::trim).find_map(|item| {
            let n = item.strip_prefix("wait:")?;
            // Digits only reach here (the value rules check `wait:{number}`); anything
            // else counts as the longest wait, so it cannot slip under the budget.
            Some(n.parse::<u64>().unwrap_or(u64::MAX))
        }),
        _ => None,
    }
}
