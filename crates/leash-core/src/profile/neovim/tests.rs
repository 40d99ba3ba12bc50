use super::filter::*;
use super::tables::*;
use super::*;

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// `:name args` as a step whose reach is the table's.
fn check(name: &str, list: &[&str]) -> Result<(), Refusal> {
    let reach = command_reach(name).unwrap_or(Reach::Shell);
    check_command_args(name, reach, &args(list))
}

fn refused(name: &str, arg: &str) -> Refusal {
    match check(name, &[arg]) {
        Err(why) => why,
        Ok(()) => panic!(":{name} {arg:?} was accepted"),
    }
}

/// The rule of the argument filter that refused `:name arg`.
fn hazard(name: &str, arg: &str) -> Hazard {
    match refused(name, arg) {
        Refusal::UnsafeArgument { hazard, .. } => hazard,
        other => panic!(":{name} {arg:?} was refused as {}, not unsafe_argument: {other}", other.code()),
    }
}

/// The code of the refusal of `'key' = value`, or `None` if it is accepted.
fn value_code(key: &str, value: &SettingValue) -> Option<&'static str> {
    check_option_value(key, value).err().map(|r| r.code())
}

fn accepted(name: &str, arg: &str) {
    if let Err(why) = check(name, &[arg]) {
        panic!(":{name} {arg:?} was refused: {why}");
    }
}

fn table() -> &'static Tables {
    tables().expect("the embedded tables parse")
}

fn count<T: PartialEq>(items: impl Iterator<Item = T>, want: T) -> usize {
    items.filter(|x| *x == want).count()
}

// --- the data file ------------------------------------------------------------------

#[test]
fn embedded_tables_parse() {
    if let Err(e) = load(DATA) {
        panic!("{e}");
    }
    assert!(tables().is_some());
}

#[test]
fn broken_tables_fail_closed() {
    assert!(load("{").is_err());
    assert!(load("").is_err());
    // Unknown fields and flags are errors, not ignored.
    let lowered = DATA.replacen(r#""reach": "shell""#, r#""reach": "safe""#, 1);
    assert!(load(&lowered).is_err(), "a row below its class must reject the file");
    let bad_flag = DATA.replacen(r#""xfile""#, r#""xfiles""#, 1);
    assert!(load(&bad_flag).is_err());
    let no_reason =
        DATA.replacen(r#""reason": "removed or hidden in Nvim: setting it does nothing""#, r#""reason": " ""#, 1);
    assert_ne!(no_reason, DATA);
    assert!(load(&no_reason).is_err());
}

#[test]
fn option_class_counts_match_the_study() {
    let t = table();
    assert_eq!(t.options.len(), 375);
    let classes = || t.options.values().map(|r| r.class);
    assert_eq!(count(classes(), OptionClass::Code), 61);
    assert_eq!(count(classes(), OptionClass::Fs), 27);
    assert_eq!(count(classes(), OptionClass::Safe), 287);
}

#[test]
fn command_class_counts_match_the_study() {
    let t = table();
    assert_eq!(t.commands.len(), 559);
    let classes = || t.commands.values().map(|r| r.class);
    assert_eq!(count(classes(), CommandClass::Shell), 11);
    assert_eq!(count(classes(), CommandClass::Code), 175); // the study's 178 less the three substitutes
    assert_eq!(count(classes(), CommandClass::Meta), 41);
    assert_eq!(count(classes(), CommandClass::Write), 29);
    assert_eq!(count(classes(), CommandClass::Safe), 303);
    let reaches = || t.commands.values().map(|r| r.reach);
    assert_eq!(count(reaches(), Reach::Shell), 14); // the study's 11, plus :suspend, :stop and :detach
    assert_eq!(count(reaches(), Reach::Code), 218); // 175 code + 41 meta, plus :& and :~ (repeat a '\=' substitute)
    assert_eq!(count(reaches(), Reach::Write), 30); // the study's 29, plus :cquit raised from safe
    assert_eq!(count(reaches(), Reach::Edit), 28); // with the three substitutes, raised to code by an expression
    assert_eq!(count(reaches(), Reach::Safe), 269);
}

#[test]
fn every_row_has_a_reach_and_a_reason() {
    let t = table();
    for (key, row) in &t.options {
        assert_eq!(option_reach(key), Some(row.class.reach()), "{key}");
        assert!(option_reason(key).is_some_and(|r| !r.trim().is_empty()), "{key}");
    }
    for (name, row) in &t.commands {
        let reach = command_reach(name).unwrap_or_else(|| panic!("{name}"));
        assert!(reach >= row.class.reach(), "{name} is below its class");
        assert!(command_reason(name).is_some_and(|r| !r.trim().is_empty()), "{name}");
    }
}

#[test]
fn every_marked_row_says_why_in_a_few_plain_words() {
    // What the plan window shows beside a mark: short, and none of the study's notation
    // (`colors/<name>`, `'%{}'`, `(verified)`, `P_SECURE`).
    let t = table();
    let check = |what: String, reach: Reach, words: Option<(Reach, &str)>| {
        let (row, words) = words.unwrap_or_else(|| panic!("{what}"));
        assert_eq!(row, reach, "{what}");
        if !reach.needs_confirmation() {
            return;
        }
        assert!(!words.is_empty() && words.chars().count() <= 60, "{what}: {words:?}");
        for jargon in ["verified", "P_SECURE", "nvim_cmd", "{", "}", "<", ">", "|", "(", ";"] {
            assert!(!words.contains(jargon), "{what}: {words:?} has {jargon:?}");
        }
    };
    for (key, row) in &t.options {
        check(format!("option {key}"), row.class.reach(), option_words(key));
    }
    for (name, row) in &t.commands {
        check(format!("command {name}"), row.reach, command_words(name));
    }
    assert_eq!(command_words("colorscheme"), Some((Reach::Code, "a colorscheme is a script that runs")));
    // Without `says`, the reason's first clause.
    assert_eq!(command_words("lua"), Some((Reach::Code, "executes Lua")));
    assert_eq!(option_words("makeprg"), Some((Reach::Code, "program run by :make through 'shell'")));
    assert_eq!(few_words(None, "a; b (verified)"), "a");
    assert_eq!(few_words(Some(" said "), "a; b"), "said");
    assert_eq!(command_words("Git"), None);
}

#[test]
fn unknown_names_are_unknown() {
    assert_eq!(option_reach("no-such-option"), None);
    assert_eq!(option_reach("ts"), None, "short names are not keys");
    assert_eq!(command_reach("vs"), None, "abbreviations are not names");
    assert_eq!(command_reach("Git"), None);
    assert_eq!(command_reason("Git"), None);
    assert_eq!(option_reason("sw"), None);
}

// --- classes by example ---------------------------------------------------------------

#[test]
fn code_options() {
    for key in [
        "shell",
        "shellcmdflag",
        "shellxquote",
        "makeprg",
        "grepprg",
        "makeef",
        "statusline",
        "tabline",
        "winbar",
        "statuscolumn",
        "foldexpr",
        "indentexpr",
        "formatexpr",
        "complete",
        "completefunc",
        "runtimepath",
        "packpath",
        "path",
        "filetype",
        "syntax",
        "modeline",
        "modelineexpr",
        "exrc",
        "eventignore",
        "spellsuggest",
        "keywordprg",
        "viewdir",
    ] {
        assert_eq!(option_reach(key), Some(Reach::Code), "{key}");
    }
}

#[test]
fn fs_options_are_write() {
    for key in [
        "backup",
        "backupdir",
        "backupext",
        "backupskip",
        "directory",
        "undodir",
        "undofile",
        "shada",
        "shadafile",
        "spellfile",
        "verbosefile",
        "write",
        "writeany",
        "autowrite",
        "swapfile",
        "tags",
        "dictionary",
    ] {
        assert_eq!(option_reach(key), Some(Reach::Write), "{key}");
    }
}

#[test]
fn safe_options() {
    for key in [
        "tabstop",
        "shiftwidth",
        "expandtab",
        "number",
        "relativenumber",
        "wrap",
        "list",
        "clipboard",
        "guifont",
        "fileformat",
        "mouse",
        "ignorecase",
        "hlsearch",
        "colorcolumn",
        "cursorline",
        "spell",
        "textwidth",
        "scrolloff",
        "writedelay",
        "compatible",
    ] {
        assert_eq!(option_reach(key), Some(Reach::Safe), "{key}");
    }
}

#[test]
fn shell_commands() {
    for name in ["!", "make", "lmake", "grep", "lgrepadd", "terminal", "checkhealth", "diffpatch", "restart"] {
        assert_eq!(command_reach(name), Some(Reach::Shell), "{name}");
    }
}

#[test]
fn code_commands() {
    for name in [
        "lua",
        "=",
        "luafile",
        "python3",
        "call",
        "echo",
        "let",
        "source",
        "runtime",
        "packadd",
        "put",
        "iput",
        "cexpr",
        "colorscheme",
        "compiler",
        "setfiletype",
        "syntax",
        "autocmd",
        "command",
        "nnoremap",
        "iabbrev",
        "menu",
        "doautocmd",
        "breakadd",
        "rshada",
        "loadview", // meta commands count as code
        "global",
        "vglobal",
        "windo",
        "bufdo",
        "argdo",
        "cdo",
        "emenu",
        "folddoopen",
    ] {
        assert_eq!(command_reach(name), Some(Reach::Code), "{name}");
    }
}

#[test]
fn write_commands() {
    for name in [
        "write",
        "saveas",
        "update",
        "wall",
        "wq",
        "xit",
        "file",
        "mksession",
        "mkview",
        "wshada",
        "wundo",
        "redir",
        "profile",
        "helptags",
        "spellgood",
        "preserve",
        "cquit",
    ] {
        assert_eq!(command_reach(name), Some(Reach::Write), "{name}");
    }
}

#[test]
fn edit_commands() {
    for name in [
        "delete",
        "move",
        "copy",
        "t",
        "join",
        ">",
        "<",
        "sort",
        "uniq",
        "retab",
        "left",
        "right",
        "center",
        "append",
        "insert",
        "change",
        "undo",
        "redo",
        "earlier",
        "later",
        "read",
        "diffget",
        "diffput",
        "recover",
        "spellrepall",
    ] {
        assert_eq!(command_reach(name), Some(Reach::Edit), "{name}");
    }
}

#[test]
fn safe_commands() {
    for name in [
        "vsplit",
        "edit",
        "split",
        "tabedit",
        "buffer",
        "bnext",
        "yank",
        "mark",
        "help",
        "nohlsearch",
        "cd",
        "cnext",
        "copen",
        "tag",
        "only",
        "quit",
        "redraw",
        "args",
        "argadd",
        "vimgrep",
        "hide",
        "undojoin",
        "ls",
    ] {
        assert_eq!(command_reach(name), Some(Reach::Safe), "{name}");
    }
}

#[test]
fn withheld_commands() {
    for name in [
        "silent",
        "vertical",
        "horizontal",
        "tab",
        "keepjumps",
        "keepmarks",
        "keepalt",
        "keeppatterns",
        "lockmarks",
        "noautocmd",
        "noswapfile",
        "sandbox",
        "unsilent",
        "verbose",
        "topleft",
        "botright",
        "aboveleft",
        "belowright",
        "leftabove",
        "rightbelow",
        "browse",
        "confirm",
        "filter",
        "set",
        "setlocal",
        "setglobal",
        "execute",
        "normal",
        "@",
        "*",
        "debug",
        "restart",
        "connect",
        "trust",
    ] {
        assert!(withheld(name).is_some_and(|r| !r.is_empty()), "{name}");
    }
    for name in ["windo", "bufdo", "global", "hide", "vsplit", "lua", "write"] {
        assert_eq!(withheld(name), None, "{name}");
    }
    assert_eq!(withheld("set").map(|r| r.starts_with("a setting step does this")), Some(true));
    assert_eq!(withheld("execute"), Some("runs other commands given as text"));
    // Every withheld name is a real command (a typo would withhold nothing).
    for (name, _) in WITHHELD {
        assert!(table().commands.contains_key(*name), "{name}");
    }
}

// --- argument filter ----------------------------------------------------------------

#[test]
fn bar_is_refused() {
    assert_eq!(hazard("vsplit", "notes.md | !touch /tmp/x"), Hazard::Bar);
    accepted("vsplit", "notes.md");
    accepted("vsplit", "src/policy/neovim.rs");
}

#[test]
fn plus_cmd_and_opt_are_refused() {
    assert_eq!(hazard("edit", "+!touch x"), Hazard::Plus { reading: "a command to run (+cmd)" });
    assert!(matches!(hazard("edit", "  +call writefile([], 'x')"), Hazard::Plus { .. }));
    assert!(matches!(hazard("write", "++p /tmp/deep/dir/f"), Hazard::Plus { .. }));
    assert!(matches!(hazard("buffer", "+call\\ writefile([],'x')"), Hazard::Plus { .. }));
    accepted("edit", "notes+draft.md");
}

#[test]
fn bang_form_is_refused() {
    assert_eq!(hazard("read", "!touch x"), Hazard::Bang);
    assert_eq!(hazard("write", " !sh"), Hazard::Bang);
    accepted("read", "header.txt");
    accepted("write", "out.txt");
}

#[test]
fn url_schemes_are_refused() {
    for (arg, scheme) in [
        ("term://sh", "term:"),
        ("scp://host/file", "scp:"),
        ("https://example.com/x", "https:"),
        ("zipfile:a.zip::b", "zipfile:"),
        ("C:notes.txt", "C:"),
    ] {
        assert_eq!(hazard("edit", arg), Hazard::UrlScheme { scheme: scheme.into() }, "{arg}");
    }
    assert!(matches!(hazard("vsplit", "scp://host/file"), Hazard::UrlScheme { .. }));
    accepted("edit", "dir/term-notes.md");
    accepted("help", "options");
}

#[test]
fn backticks_are_refused() {
    assert_eq!(hazard("args", "`touch x`"), Hazard::Backtick);
    assert_eq!(hazard("edit", "`touch x`"), Hazard::Backtick);
    assert_eq!(hazard("vimgrep", "`touch x`"), Hazard::Backtick);
    accepted("args", "a.txt");
    // The 13 self-expanding commands refuse backticks whatever the step's reach.
    let shell = Reach::Shell;
    for name in [
        "argadd",
        "argedit",
        "argglobal",
        "arglocal",
        "args",
        "drop",
        "next",
        "snext",
        "vimgrep",
        "vimgrepadd",
        "lvimgrep",
        "lvimgrepadd",
        "helptags",
    ] {
        assert!(table().commands[name].flags.backticks, "{name}");
        let refusal = check_command_args(name, shell, &args(&["`touch x`"])).unwrap_err();
        assert_eq!(refusal.hazard(), Some(&Hazard::Backtick), "{name}");
        assert!(check_command_args(name, shell, &args(&["x.txt"])).is_ok(), "{name}");
    }
    assert_eq!(table().commands.values().filter(|r| r.flags.backticks).count(), 13);
}

#[test]
fn control_and_invisible_characters_are_refused() {
    for arg in ["notes.md\ncall writefile([], 'x')", "notes\r.md", "notes\u{1b}[2J.md"] {
        assert_eq!(refused("vsplit", arg).code(), "control_character", "{arg:?}");
    }
    let why = refused("vsplit", "evil\u{202E}dm.txt");
    assert_eq!(why.code(), "invisible_character");
    assert!(why.to_string().contains("U+202E"), "{why}");
    // Characters the old hand list missed: the Arabic letter mark, tag characters, the
    // Mongolian vowel separator, musical and hieroglyph format controls, a no-break space.
    for c in ['\u{061C}', '\u{E0001}', '\u{E0041}', '\u{180F}', '\u{1D173}', '\u{13430}', '\u{00A0}'] {
        let why = refused("vsplit", &format!("junk{c}.md"));
        assert_eq!(why.code(), "invisible_character", "{c:?}");
        // The message quotes the argument with the character written out, not raw.
        assert!(!why.to_string().contains(c), "{why}");
        assert!(why.to_string().contains(&format!("<U+{:04X}>", u32::from(c))), "{why}");
    }
    accepted("vsplit", "notes with spaces.md");
    accepted("vsplit", "café-中文.md");
}

#[test]
fn expansion_characters_are_refused_for_file_arguments() {
    for (attack, c) in [
        ("%.bak", '%'),
        ("#", '#'),
        ("*.rs", '*'),
        ("a?.md", '?'),
        ("[ab].md", '['),
        ("{a,b}.md", '{'),
        ("$HOME/.bashrc", '$'),
    ] {
        assert_eq!(hazard("edit", attack), Hazard::Expansion { c }, "{attack}");
    }
    assert_eq!(hazard("edit", "~/.bashrc"), Hazard::Home);
    assert_eq!(hazard("edit", "<cfile>"), Hazard::EditorText { word: "<cfile>".into() });
    assert_eq!(hazard("edit", "x<cword>y"), Hazard::EditorText { word: "<cword>".into() });
    accepted("edit", "a~b.md");
    accepted("edit", "a<b.md");
    // Not a file command: a help tag may contain these.
    accepted("help", "'tabstop'");
    accepted("help", "*pattern*");
}

#[test]
fn every_name_in_a_multi_name_argument_is_checked() {
    // :argadd/:next/:drop/:argedit/:args split one argument at white space: the
    // second name must pass the same rules as the first (it ran a shell before).
    let url = || Hazard::UrlScheme { scheme: "term:".into() };
    let plus = || Hazard::Plus { reading: "+cmd or ++opt" };
    for name in ["args", "argadd", "argedit", "next", "drop", "vimgrep", "edit", "vsplit", "badd", "first"] {
        for (attack, want) in [
            ("a.txt term://touch\\ x", url()),
            ("a.txt term://sh", url()),
            ("a.txt\\ term://sh", url()),
            ("a.txt scp://host/f", Hazard::UrlScheme { scheme: "scp:".into() }),
            ("a.txt ~/.bashrc", Hazard::Home),
            ("a.txt +call\\ x()", plus()),
            ("a.txt ++p", plus()),
            ("a.txt !sh", Hazard::Bang),
        ] {
            assert_eq!(hazard(name, attack), want, ":{name} {attack}");
        }
        assert!(check(name, &["a.txt b.txt"]).is_ok(), ":{name}");
        assert!(check(name, &["notes with spaces.md"]).is_ok(), ":{name}");
    }
    assert!(check("vimgrep", &["/hello/", "a.txt b.txt"]).is_ok());
    assert!(check("vimgrep", &["/hello/", "a.txt term://sh"]).is_err());
    assert!(check("vimgrep", &["/hello/ a.txt term://sh"]).is_err());
    assert_eq!(
        refused("args", "a.txt term://sh").to_string(),
        "the name “term://sh” in argument “a.txt term://sh” starts with “term:”, a URL-like name that a handler \
         opens (term:// runs a shell, scp:// and https:// run curl or scp)"
    );
}

#[test]
fn file_names_with_a_part_beginning_with_a_dash_are_refused() {
    // A BufEnter helper running `git log -1 <basename>` took `--output=x` as an option:
    // `./` in front does not help, so every part of every name counts.
    let dash = |part: &str| Hazard::DashName { part: part.into() };
    for name in ["edit", "split", "write", "saveas", "argadd", "badd", "drop", "diffsplit", "read", "cd", "mkspell"] {
        for (attack, part) in [
            ("./--output=precious.md", "--output=precious.md"),
            ("docs/--output=x", "--output=x"),
            ("-x", "-x"),
            ("a.txt ./-rf", "-rf"),
        ] {
            assert_eq!(hazard(name, attack), dash(part), ":{name} {attack}");
        }
        accepted(name, "notes-2024/a-b.md");
    }
    assert_eq!(hazard("vimgrep", "/x/ ./--output=y"), dash("--output=y"));
    assert_eq!(hazard("vimgrep", "pat -y"), dash("-y"));
    // What is not a file name: a pattern, `:cd -` (the previous folder), `:mkspell -ascii`.
    accepted("vimgrep", "/--help/ notes.md");
    accepted("vimgrep", "/a b/gj notes.md");
    accepted("cd", "-");
    accepted("tcd", "-");
    accepted("mkspell", "-ascii out.add words.txt");
    assert_eq!(hazard("mkspell", "-ascii ./-o words.txt"), dash("-o"));
    // Not a command that takes file names.
    accepted("echo", "--output=x");
    // User entries below [plugin], file: items, and names that come from elsewhere.
    assert!(check_item_args(&args(&["./--output=x"]), Reach::Safe).is_err());
    assert!(check_item_args(&args(&["log --oneline"]), Reach::Plugin).is_ok(), "shown with the plugin");
    assert!(check_file_item_args(&args(&["src/-x.py"])).is_err());
    assert!(check_file_item_args(&args(&["src/x-y.py"])).is_ok());
    assert!(check_file_name("/tmp/p/--output=x").is_err());
    assert_eq!(
        refused("edit", "./--output=x.md").to_string(),
        "argument “./--output=x.md” for :edit has a part beginning with “-” (“--output=x.md”), which a program \
         your setup hands the file name to (git, a formatter) would read as an option"
    );
}

#[test]
fn handled_names_are_left_to_the_name_handlers() {
    // Which names a handler reads (gzip, tar, zip…) is reported with the catalog
    // (name_handlers); the argument filter alone has no list of them.
    accepted("edit", "x.gz");
    accepted("write", "backup.lz4");
    assert!(takes_file_names("edit") && takes_file_names("write") && takes_file_names("args"));
    assert!(takes_file_names("NoSuchCommand"));
    assert!(!takes_file_names("help") && !takes_file_names("sleep"));
}

#[test]
fn sleep_durations() {
    assert_eq!(sleep_millis(&[]), 1000);
    assert_eq!(sleep_millis(&args(&["2"])), 2000);
    assert_eq!(sleep_millis(&args(&["500m"])), 500);
    assert_eq!(sleep_millis(&args(&["99999999999999999999"])), u64::MAX);
}

#[test]
fn lists_for_the_lua_side() {
    assert!(super::withheld_commands().iter().any(|(n, _)| *n == "normal"));
    assert_eq!(argumentless_commands(), &["hide"]);
    assert!(number_arg_caps().contains(&("sleep", 10)));
    let facts = command_facts().expect("tables");
    assert_eq!(facts.len(), table().commands.len());
    let (_, edit) = facts.iter().find(|(n, _)| *n == "edit").expect("edit");
    assert_eq!((edit.raw, edit.reach), (Reach::Shell, Reach::Safe));
    assert_eq!(edit.flags, vec!["xfile", "cmdarg", "argopt", "loads_files"]);
}

#[test]
fn names_must_be_plain() {
    assert_eq!(hazard("colorscheme", "../../x"), Hazard::NotPlainName);
    assert_eq!(hazard("colorscheme", "/tmp/x"), Hazard::NotPlainName);
    assert_eq!(hazard("compiler", ".."), Hazard::ParentDir);
    assert_eq!(hazard("packadd", "a/b"), Hazard::NotPlainName);
    assert_eq!(hazard("setfiletype", "x y"), Hazard::NotPlainName);
    accepted("colorscheme", "desert");
    accepted("compiler", "gcc");
    accepted("packadd", "nvim.undotree");
    accepted("setfiletype", "c.doxygen");
    // The name rule holds even when the step is already confirmed as code.
    let refusal = check_command_args("colorscheme", Reach::Shell, &args(&["../../x"])).unwrap_err();
    assert_eq!(refusal.hazard(), Some(&Hazard::NotPlainName));
}

#[test]
fn long_arguments_are_refused() {
    let long = "a".repeat(MAX_TEXT_BYTES + 1);
    assert_eq!(check("vsplit", &[&long]).unwrap_err().code(), "too_long");
    assert_eq!(check("lua", &[&long]).unwrap_err().code(), "too_long");
    accepted("vsplit", &"a".repeat(200));
}

#[test]
fn code_commands_keep_their_text() {
    // Confirmed as code anyway: the filter would only break them.
    assert!(check("lua", &["print(vim.fn.line('.')) -- a | b"]).is_ok());
    assert!(check("global", &["/x/d"]).is_ok());
    assert!(check("substitute", &["/a/b/g"]).is_ok());
}

#[test]
fn filter_follows_the_command_not_the_label() {
    // :edit raised to code by a catalog still cannot open term:// under a code label.
    let refusal = check_command_args("edit", Reach::Code, &args(&["term://sh"])).unwrap_err();
    assert_eq!(refusal.hazard(), Some(&Hazard::UrlScheme { scheme: "term:".into() }));
    // An unknown command gets the strictest filter unless it already counts as shell.
    let refusal = check_command_args("Frobnicate", Reach::Safe, &args(&["%"])).unwrap_err();
    assert_eq!(refusal.hazard(), Some(&Hazard::Expansion { c: '%' }));
    assert!(check_command_args("Frobnicate", Reach::Shell, &args(&["%"])).is_ok());
}

#[test]
fn hide_takes_no_command() {
    assert_eq!(check("hide", &["edit term://sh"]).unwrap_err().code(), "takes_no_args");
    assert!(check("hide", &[]).is_ok());
}

#[test]
fn messages_show_the_argument() {
    let why = refused("vsplit", "notes.md | !touch x").to_string();
    assert_eq!(why, "argument “notes.md | !touch x” contains “|”, which could start a second command");
    let why = refused("vsplit", &format!("{}|", "a".repeat(100))).to_string();
    assert!(why.contains('…') && why.len() < 200, "{why}");
    assert!(refused("vsplit", "a\nb").to_string().contains("a^Jb"));
}

#[test]
fn url_scheme_and_angle_word_helpers() {
    assert_eq!(url_scheme("term://sh"), Some("term:"));
    assert_eq!(url_scheme("svn+ssh://x"), Some("svn+ssh:"));
    assert_eq!(url_scheme("notes.md"), None);
    assert_eq!(url_scheme("1x:"), None);
    assert_eq!(url_scheme("a b:c"), None);
    assert_eq!(angle_word("a<cfile>"), Some("<cfile>"));
    assert_eq!(angle_word("a<b <sfile>"), Some("<sfile>"));
    assert_eq!(angle_word("<>"), None);
}

// --- option values ------------------------------------------------------------------

fn num(n: i64) -> SettingValue {
    SettingValue::Number(n)
}

fn text(s: &str) -> SettingValue {
    SettingValue::String(s.to_string())
}

#[test]
fn numbers_are_capped() {
    let above = Some("above_limit");
    assert_eq!(value_code("tabstop", &num(99_999_999)), above);
    assert_eq!(value_code("shiftwidth", &num(200_000_000)), above);
    assert_eq!(value_code("tabstop", &num(4)), None);
    assert_eq!(value_code("tabstop", &num(9_999)), None);
    assert_eq!(value_code("tabstop", &num(10_000)), above, "Neovim's own limit is 9999");
    assert_eq!(value_code("tabstop", &num(0)), Some("below_limit"), "E487");
    assert_eq!(number_range("tabstop"), Some((1, 9999)));
    assert_eq!(number_range("textwidth"), Some((0, 10_000)));
    assert_eq!(value_code("undolevels", &num(100_000)), None);
    assert_eq!(value_code("undolevels", &num(2_147_483_647)), above);
    assert_eq!(value_code("verbose", &num(16)), above);
    assert_eq!(value_code("writedelay", &num(5)), above);
    assert_eq!(value_code("writedelay", &num(0)), None);
    let why = check_option_value("tabstop", &num(99_999_999)).unwrap_err();
    assert_eq!(why, Refusal::AboveLimit { what: "'tabstop' = 99999999".into(), limit: 9_999 });
    assert_eq!(why.to_string(), "'tabstop' = 99999999 is above the limit 9999 leash allows");
}

#[test]
fn negative_numbers_only_where_neovim_takes_them() {
    let below = Some("below_limit");
    assert_eq!(value_code("tabstop", &num(-1)), below);
    assert_eq!(value_code("shiftwidth", &num(-1)), below);
    assert_eq!(value_code("scrolloff", &num(-1)), None);
    assert_eq!(value_code("scrolloff", &num(-2)), below);
    assert_eq!(value_code("sidescrolloff", &num(-1)), None);
    assert_eq!(value_code("softtabstop", &num(-1)), None);
    assert_eq!(value_code("undolevels", &num(-1)), None);
    assert_eq!(value_code("scrolljump", &num(-50)), None);
    assert_eq!(value_code("scrolljump", &num(-101)), below);
    // Every minimum belongs to a number option.
    for key in table().mins.keys() {
        assert_eq!(table().options[key].kind, OptionType::Number, "{key}");
    }
    for key in table().caps.keys().filter(|k| *k != "_default") {
        assert_eq!(table().options[key].kind, OptionType::Number, "{key}");
    }
}

#[test]
fn strings_are_checked() {
    assert_eq!(value_code("statusline", &text("%f %m")), None);
    assert_eq!(value_code("runtimepath", &text("~/x,`touch M`")), Some("unsafe_value"));
    assert_eq!(value_code("titlestring", &text("a\u{1b}]52;c;x\u{7}")), Some("control_character"));
    assert_eq!(value_code("titlestring", &text("a\u{200B}b")), Some("invisible_character"));
    assert_eq!(value_code("titlestring", &text("a\u{061C}b")), Some("invisible_character"));
    assert_eq!(value_code("makeprg", &text("make\u{E0020}x")), Some("invisible_character"));
    assert_eq!(value_code("statusline", &text(&"x".repeat(MAX_TEXT_BYTES + 1))), Some("too_long"));
    let hazard = |key: &str, s: &str| check_option_value(key, &text(s)).unwrap_err().hazard().cloned();
    assert_eq!(hazard("filetype", "../../x"), Some(Hazard::NotPlainName));
    assert_eq!(value_code("filetype", &text("c.doxygen")), None);
    assert_eq!(value_code("filetype", &text("")), None);
    assert_eq!(hazard("syntax", "/tmp/x"), Some(Hazard::NotPlainName));
    assert_eq!(value_code("spelllang", &text("en_us,de")), None);
    assert_eq!(hazard("spelllang", "en,../x"), Some(Hazard::NotPlainName));
    assert_eq!(hazard("spelllang", "en,.."), Some(Hazard::ParentDir));
}

#[test]
fn values_must_have_the_option_type() {
    let bad_type = Some("bad_type");
    assert_eq!(value_code("wrap", &text("false")), bad_type);
    assert_eq!(value_code("tabstop", &text("4")), bad_type);
    assert_eq!(value_code("statusline", &num(1)), bad_type);
    assert_eq!(value_code("wrap", &SettingValue::Boolean(false)), None);
}

#[test]
fn unknown_options_get_the_default_rules() {
    assert_eq!(value_code("notanoption", &num(20_000)), Some("above_limit"));
    assert_eq!(value_code("notanoption", &num(3)), None);
    assert_eq!(value_code("notanoption", &text("`x`")), Some("unsafe_value"));
}

#[test]
fn numbers_that_size_work_are_capped() {
    let code =
        |name: &str, arg: &str| check_command_args(name, Reach::Safe, &[arg.to_string()]).err().map(|r| r.code());
    let above = Some("above_limit");
    assert_eq!(code("sleep", "99999"), above);
    assert_eq!(code("sleep", "20000m"), above);
    assert_eq!(code("sleep", "2"), None);
    assert_eq!(code("sleep", "500m"), None);
    assert_eq!(code("center", "99999"), above);
    assert_eq!(code("center", "80"), None);
    assert_eq!(code("right", "5000"), above);
    assert_eq!(code("retab", "4,99999"), above);
    assert_eq!(code("retab", "4"), None);
}

#[test]
fn repeating_the_last_substitute_is_code() {
    assert_eq!(command_reach("&"), Some(Reach::Code));
    assert_eq!(command_reach("~"), Some(Reach::Code));
}

#[test]
fn item_arguments_get_the_file_rules_below_shell() {
    for reach in [Reach::Safe, Reach::Edit, Reach::Write, Reach::Code, Reach::Plugin] {
        let refusal = check_item_args(&args(&["term://touch x"]), reach).unwrap_err();
        assert_eq!(refusal.hazard(), Some(&Hazard::UrlScheme { scheme: "term:".into() }), "{reach:?}");
        let refusal = check_item_args(&args(&["notes.md", "a | b"]), reach).unwrap_err();
        assert_eq!(refusal.hazard(), Some(&Hazard::Bar), "{reach:?}");
        assert!(check_item_args(&args(&["notes.md", "src/main.rs"]), reach).is_ok(), "{reach:?}");
    }
    assert!(check_item_args(&args(&["term://sh", "a | b"]), Reach::Shell).is_ok());
    // Hidden text is refused whatever the reach.
    assert_eq!(check_item_args(&args(&["a\nb"]), Reach::Shell).unwrap_err().code(), "control_character");
    assert_eq!(check_item_args(&args(&["a\u{202E}b"]), Reach::Shell).unwrap_err().code(), "invisible_character");
}

#[test]
fn before_a_command_runs_hidden_text_and_handled_names_are_refused() {
    let gzip = [NameHandler { pattern: "*.gz".into(), event: "BufReadPost".into(), group: "gzip".into() }];
    // :lua at its own reach skips the file rules, never the text rule the validator applies.
    assert!(check_command_args("lua", Reach::Code, &args(&["x()\nos.exit()"])).is_ok());
    let refusal = check_before_run("lua", Reach::Code, &args(&["x()\nos.exit()"]), &[]).unwrap_err();
    assert_eq!(refusal.code(), "control_character");
    let refusal = check_before_run("edit", Reach::Safe, &args(&["notes.GZ"]), &gzip).unwrap_err();
    assert_eq!(refusal.code(), "handled_name");
    assert!(refusal.to_string().contains("“notes.GZ” is read or written by an autocommand of “gzip”"), "{refusal}");
    assert!(check_before_run("edit", Reach::Shell, &args(&["notes.gz"]), &gzip).is_ok());
    assert!(check_before_run("help", Reach::Safe, &args(&["notes.gz"]), &gzip).is_ok(), ":help names no file");
    assert!(check_before_run("edit", Reach::Safe, &args(&["notes.md"]), &gzip).is_ok());
}

#[test]
fn a_file_name_from_elsewhere_is_plain_and_no_command() {
    assert!(check_file_name("/home/u/src/main.rs").is_ok());
    assert!(check_file_name("a file with spaces.md").is_ok());
    for (name, code) in [("+cmd", "unsafe_argument"), ("term://sh", "unsafe_argument"), ("a|b", "unsafe_argument")] {
        assert_eq!(check_file_name(name).unwrap_err().code(), code, "{name}");
    }
    assert_eq!(check_file_name("a\u{200B}.rs").unwrap_err().code(), "invisible_character");
}

/// How long a setting makes Neovim wait: what the plan's wait budget counts
/// (`policy::budget`).
#[test]
fn settings_that_make_neovim_wait() {
    let text = |s: &str| SettingValue::String(s.into());
    assert_eq!(setting_wait_ms("messagesopt", &text("wait:9999,history:500")), Some(9999));
    assert_eq!(setting_wait_ms("messagesopt", &text("history:500, wait:20")), Some(20));
    assert_eq!(setting_wait_ms("messagesopt", &text("hit-enter,history:500")), None);
    assert_eq!(setting_wait_ms("messagesopt", &text("wait:99999999999999999999999")), Some(u64::MAX));
    assert_eq!(setting_wait_ms("statusline", &text("wait:9999")), None);
    assert_eq!(setting_wait_ms("messagesopt", &SettingValue::Number(9999)), None);
    assert_eq!(setting_wait_ms("matchtime", &SettingValue::Number(5)), Some(500));
    assert_eq!(setting_wait_ms("matchtime", &SettingValue::Number(600)), Some(60_000));
    assert_eq!(setting_wait_ms("matchtime", &SettingValue::Number(-1)), Some(0));
}

/// The reach the Neovim rules give a `cmd:name` step with `list` as its arguments.
fn item_reach(name: &str, list: &[&str]) -> Result<Reach, Refusal> {
    use crate::profile::EditorRules;
    let item = crate::entry::Item {
        id: format!("cmd:{name}"),
        kind: "command".into(),
        title: name.into(),
        aliases: Vec::new(),
        args: crate::entry::Args::Optional,
        reach: Reach::Safe,
        range: true,
        description: String::new(),
        plugin: String::new(),
        loads: false,
    };
    rules::Rules.item_reach(&item, &args(list), Reach::Safe)
}

#[test]
fn a_substitute_is_code_only_when_its_replacement_is_an_expression() {
    for name in substitute::COMMANDS {
        for edit in ["/apple/APPLE/g", "#a#b#", "/colou\\=r/color/", "/\\(\\w\\+\\) \\(\\w\\+\\)/\\2 \\1/"] {
            assert_eq!(item_reach(name, &[edit]), Ok(Reach::Edit), ":{name} {edit}");
        }
        for code in ["/x/\\=system('id')/", "#x#\\=system('id')#", "//\\=1/", "", "g", "/a/~/"] {
            assert_eq!(item_reach(name, &[code]), Ok(Reach::Code), ":{name} {code:?}");
        }
        // What the edit filter refuses (a bar) stays code, as every substitute was.
        assert_eq!(item_reach(name, &["/a\\|b/c/"]), Ok(Reach::Code), ":{name}");
    }
    // Arguments are joined as nvim_cmd joins them: a second one cannot hide an expression.
    assert_eq!(item_reach("substitute", &["/x", "/\\=1/"]), Ok(Reach::Code));
    // :& and :~ repeat the last substitute: code whatever their arguments.
    assert_eq!(item_reach("&", &["&"]), Ok(Reach::Code));
}

#[test]
fn a_substitute_below_code_is_refused_when_it_evaluates_an_expression() {
    // What the executor checks again before the step runs.
    for arg in ["/x/\\=system('id')/", "", "3"] {
        let refusal = check_command_args("substitute", Reach::Edit, &args(&[arg])).unwrap_err();
        assert!(matches!(refusal.hazard(), Some(Hazard::Expression { .. })), "{arg:?}: {refusal}");
    }
    assert!(check_command_args("substitute", Reach::Code, &args(&["/x/\\=1/"])).is_ok());
    assert!(check_command_args("substitute", Reach::Edit, &args(&["/x/y/g"])).is_ok());
}

#[test]
fn a_shift_takes_more_signs_and_a_count_only() {
    assert_eq!(shift_arg(">", ""), Ok((0, None)));
    assert_eq!(shift_arg(">", ">>"), Ok((2, None)));
    assert_eq!(shift_arg(">", "> 3"), Ok((1, Some(3))));
    assert_eq!(shift_arg("<", "4"), Ok((0, Some(4))));
    assert!(check(">", &[">> 3"]).is_ok());
    assert!(check("<", &[]).is_ok());
    for (name, arg) in [(">", "<"), ("<", ">"), (">", "x"), (">", "3 >"), (">", "0"), (">", "2x"), (">", "-1")] {
        assert!(matches!(hazard(name, arg), Hazard::NotShift { .. }), ":{name} {arg}");
    }
    assert!(matches!(check(">", &[">", "2"]), Err(Refusal::UnsafeArgument { hazard: Hazard::NotShift { .. }, .. })));
    let many = ">".repeat(MAX_SHIFTS);
    assert!(matches!(refused(">", &many), Refusal::AboveLimit { .. }));
    assert!(check(">", &[&">".repeat(MAX_SHIFTS - 1)]).is_ok());
    assert!(matches!(refused(">", "99999999999999999999999"), Refusal::AboveLimit { .. }));
    assert_eq!(shift_arg(">", &MAX_SHIFT_COUNT.to_string()), Ok((0, Some(MAX_SHIFT_COUNT))));
}

#[test]
fn a_shift_with_a_command_in_its_argument_is_refused() {
    assert!(check(">", &["| !id"]).is_err());
}
