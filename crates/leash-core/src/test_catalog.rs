//! The small Neovim catalog the unit tests share, `tests/data/test-catalog.json` (the
//! integration tests read the same file): builtin commands, options and a user command
//! whose names overlap as real ones do (`wrap`, `wrapscan`, `wrapmargin`; the option
//! `number` and the command `:number`; `:bnext` and `:bNext`).

use crate::catalog::Catalog;

/// The catalog as a frontend sends it.
pub fn raw() -> Catalog {
    let value = serde_json::from_str(include_str!("../../../tests/data/test-catalog.json")).expect("test catalog JSON");
    Catalog::from_value(&value).expect("test catalog")
}

/// The catalog as the Neovim profile narrows it (number ranges): what the planner uses.
pub fn neovim() -> Catalog {
    crate::policy::narrow_catalog(raw())
}
