//! Item ids: what an item's id says about it, in one place.
//!
//! Every catalog item has an id `<prefix>:<name>`. The prefix names the source that made
//! the item, its [`ItemKind`] (`cmd` for a builtin command, `user` for a user command,
//! `script` for a project script…); the name is everything after the first `:` and may
//! itself hold colons (`script:cargo:test`, `map:n:<leader>f`). Setting keys (`wrap`,
//! `soft-wrap.enable`) are not item ids.
//!
//! On the wire (the catalog JSON, plans, the Lua frontend) an id is a plain string, and
//! [`crate::entry::Item::id`] keeps it so. The core reads an id's kind and name with
//! [`ItemId::parse`] (or [`ItemKind::name_in`]), builds ids with the constructors here
//! and [`fmt::Display`], and names the fixed ids it treats specially ([`TERM_RUN`],
//! [`FILE_RENAME`], [`CMD_SLEEP`]) by the constants below, so the rest of the core need
//! not spell a prefix. The Lua sources spell the same prefixes (`M.prefix` in
//! `lua/leash/sources/`).

use std::fmt;

/// The source an item comes from, as its id's prefix says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ItemKind {
    /// A builtin command: Neovim's Ex commands, Helix's typable commands (`cmd:vsplit`).
    Command,
    /// A Helix static command, run by typing its key (`static:move_char_left`).
    Static,
    /// A Neovim user command (`user:Telescope`).
    User,
    /// One of the user's own entries from the config (`entry:deploy`).
    Entry,
    /// A Neovim keymap: the mode, then the keys (`map:n:<leader>f`).
    Keymap,
    /// A language server action (`lsp:rename`).
    Lsp,
    /// A diagnostics action (`diag:next`).
    Diagnostic,
    /// A Git action (`git:blame_line`).
    Git,
    /// A file action (`file:rename`).
    File,
    /// A terminal action (`term:run`).
    Terminal,
    /// A project script: the runner, then the script (`script:cargo:test`).
    Script,
}

impl ItemKind {
    /// Every kind.
    pub const ALL: [ItemKind; 11] = [
        ItemKind::Command,
        ItemKind::Static,
        ItemKind::User,
        ItemKind::Entry,
        ItemKind::Keymap,
        ItemKind::Lsp,
        ItemKind::Diagnostic,
        ItemKind::Git,
        ItemKind::File,
        ItemKind::Terminal,
        ItemKind::Script,
    ];

    /// The prefix ids of this kind start with, without the `:`.
    pub const fn prefix(self) -> &'static str {
        match self {
            ItemKind::Command => "cmd",
            ItemKind::Static => "static",
            ItemKind::User => "user",
            ItemKind::Entry => "entry",
            ItemKind::Keymap => "map",
            ItemKind::Lsp => "lsp",
            ItemKind::Diagnostic => "diag",
            ItemKind::Git => "git",
            ItemKind::File => "file",
            ItemKind::Terminal => "term",
            ItemKind::Script => "script",
        }
    }

    /// The kind whose prefix this is, exactly (`cmd`, not `CMD` or `cmd:`).
    pub fn from_prefix(prefix: &str) -> Option<ItemKind> {
        ItemKind::ALL.into_iter().find(|k| k.prefix() == prefix)
    }

    /// The name in `id` when `id` is of this kind: `vsplit` for `cmd:vsplit` and
    /// [`ItemKind::Command`], `None` for `user:Format`.
    pub fn name_in(self, id: &str) -> Option<&str> {
        id.strip_prefix(self.prefix())?.strip_prefix(':')
    }

    /// Whether `id` is of this kind.
    pub fn holds(self, id: &str) -> bool {
        self.name_in(id).is_some()
    }
}

/// An item id read into its kind and name: `cmd:vsplit` is `(Command, "vsplit")`. The
/// name may be empty (`cmd:`) or hold colons; every kind and name make an id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ItemId<'a> {
    pub kind: ItemKind,
    pub name: &'a str,
}

/// `term:run`: the argument is a shell command line, run in a terminal.
pub const TERM_RUN: ItemId<'static> = ItemId::new(ItemKind::Terminal, "run");
/// `file:rename`: moves the current file to the argument's path.
pub const FILE_RENAME: ItemId<'static> = ItemId::new(ItemKind::File, "rename");
/// `cmd:sleep`: Neovim waits the argument's time.
pub const CMD_SLEEP: ItemId<'static> = ItemId::command("sleep");

impl<'a> ItemId<'a> {
    pub const fn new(kind: ItemKind, name: &'a str) -> ItemId<'a> {
        ItemId { kind, name }
    }

    /// Reads `id`: a known prefix, `:`, then the name. `None` for a setting key, an id
    /// without a `:` or with a prefix no source uses.
    pub fn parse(id: &'a str) -> Option<ItemId<'a>> {
        let (prefix, name) = id.split_once(':')?;
        Some(ItemId { kind: ItemKind::from_prefix(prefix)?, name })
    }

    /// A builtin command's id, `cmd:<name>`.
    pub const fn command(name: &'a str) -> ItemId<'a> {
        ItemId::new(ItemKind::Command, name)
    }

    /// A Helix static command's id, `static:<name>`.
    pub const fn static_command(name: &'a str) -> ItemId<'a> {
        ItemId::new(ItemKind::Static, name)
    }

    /// A user command's id, `user:<name>`.
    pub const fn user(name: &'a str) -> ItemId<'a> {
        ItemId::new(ItemKind::User, name)
    }

    /// A config entry's id, `entry:<name>`.
    pub const fn entry(name: &'a str) -> ItemId<'a> {
        ItemId::new(ItemKind::Entry, name)
    }

    /// A Git action's id, `git:<action>`.
    pub const fn git(action: &'a str) -> ItemId<'a> {
        ItemId::new(ItemKind::Git, action)
    }

    /// A file action's id, `file:<action>`.
    pub const fn file(action: &'a str) -> ItemId<'a> {
        ItemId::new(ItemKind::File, action)
    }
}

impl fmt::Display for ItemId<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.kind.prefix(), self.name)
    }
}

/// An id string is this id when it spells it exactly (no allocation).
impl PartialEq<str> for ItemId<'_> {
    fn eq(&self, id: &str) -> bool {
        id.strip_prefix(self.kind.prefix()).and_then(|rest| rest.strip_prefix(':')) == Some(self.name)
    }
}

impl PartialEq<&str> for ItemId<'_> {
    fn eq(&self, id: &&str) -> bool {
        *self == **id
    }
}

impl PartialEq<String> for ItemId<'_> {
    fn eq(&self, id: &String) -> bool {
        *self == *id.as_str()
    }
}

impl PartialEq<ItemId<'_>> for str {
    fn eq(&self, id: &ItemId<'_>) -> bool {
        id == self
    }
}

impl PartialEq<ItemId<'_>> for &str {
    fn eq(&self, id: &ItemId<'_>) -> bool {
        id == *self
    }
}

impl PartialEq<ItemId<'_>> for String {
    fn eq(&self, id: &ItemId<'_>) -> bool {
        id == self.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips() {
        let ids = [
            ("cmd:vsplit", ItemKind::Command, "vsplit"),
            ("static:move_char_left", ItemKind::Static, "move_char_left"),
            ("user:Telescope", ItemKind::User, "Telescope"),
            ("entry:deploy", ItemKind::Entry, "deploy"),
            ("map:n:<leader>f", ItemKind::Keymap, "n:<leader>f"),
            ("lsp:rename", ItemKind::Lsp, "rename"),
            ("diag:next", ItemKind::Diagnostic, "next"),
            ("git:blame_line", ItemKind::Git, "blame_line"),
            ("file:delete", ItemKind::File, "delete"),
            ("term:run", ItemKind::Terminal, "run"),
            ("script:cargo:test", ItemKind::Script, "cargo:test"),
        ];
        assert_eq!(ids.len(), ItemKind::ALL.len(), "one case per kind");
        for (text, kind, name) in ids {
            let id = ItemId::parse(text).unwrap();
            assert_eq!(id, ItemId::new(kind, name), "{text}");
            assert_eq!(id.to_string(), text);
            assert_eq!(ItemKind::from_prefix(kind.prefix()), Some(kind));
            assert_eq!(kind.name_in(text), Some(name));
            let owned = text.to_string();
            assert!(id == text, "{text}");
            assert!(text == id, "{text}");
            assert!(id == owned, "{text}");
            assert!(owned == id, "{text}");
        }
    }

    #[test]
    fn prefixes_are_distinct() {
        for a in ItemKind::ALL {
            assert!(!a.prefix().contains(':') && !a.prefix().is_empty());
            assert_eq!(ItemKind::ALL.iter().filter(|b| b.prefix() == a.prefix()).count(), 1, "{a:?}");
        }
    }

    #[test]
    fn not_item_ids() {
        for text in
            ["wrap", "soft-wrap.enable", "", ":", "vsplit:", "opt:wrap", "CMD:write", "cmd", " cmd:write", "cmdx:w"]
        {
            assert_eq!(ItemId::parse(text), None, "{text:?}");
            assert!(ItemKind::ALL.iter().all(|k| k.name_in(text).is_none()), "{text:?}");
        }
        assert_eq!(ItemKind::from_prefix("cmd:"), None);
    }

    #[test]
    fn the_name_is_all_after_the_first_colon() {
        assert_eq!(ItemId::parse("map:n:a:b"), Some(ItemId::new(ItemKind::Keymap, "n:a:b")));
        assert_eq!(ItemId::parse("cmd::"), Some(ItemId::command(":")));
        assert_eq!(ItemId::parse("cmd:"), Some(ItemId::command("")), "as strip_prefix read it");
        assert_eq!(ItemId::parse("user:Git log"), Some(ItemId::user("Git log")));
        assert_eq!(ItemId::new(ItemKind::Script, "npm:build:prod").to_string(), "script:npm:build:prod");
    }

    #[test]
    fn kinds_do_not_mix() {
        assert!(!ItemKind::User.holds("cmd:write") && ItemKind::Command.holds("cmd:write"));
        assert!(ItemId::command("run") != "term:run" && TERM_RUN == "term:run");
        assert!(TERM_RUN != "term:run2" && TERM_RUN != "term:ru" && TERM_RUN != "term:run:x");
        assert_eq!(FILE_RENAME.to_string(), "file:rename");
        assert_eq!(CMD_SLEEP.to_string(), "cmd:sleep");
        assert_eq!(ItemId::entry("a").to_string(), "entry:a");
        assert_eq!(ItemId::git("push").to_string(), "git:push");
        assert_eq!(ItemId::file("new").to_string(), "file:new");
        assert_eq!(ItemId::static_command("undo").to_string(), "static:undo");
    }
}
