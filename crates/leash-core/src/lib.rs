//! leash-core: everything that decides, for every editor.
//!
//! A request is ranked against the editor's [`catalog`] into a shortlist ([`rank`]); the
//! shortlist becomes a [`prompt`]; the model's answer is parsed into a [`plan`] and checked
//! step by step by [`validate`] under a risk [`policy`], which gives every step a
//! [`reach`]; a dropped step carries a typed [`refusal`]; the user's line [`range`], if the
//! editor gave one, goes to the steps whose command takes a range; [`planner`] runs the
//! whole way, model included ([`llm`]); [`present`] turns a validated plan into the rows
//! the person reads. Each editor's own rules (reach tables, value rules, code folders,
//! name handlers, step wording) live in its [`profile`]: `profile::neovim`,
//! `profile::helix`. The project's scripts, Git and file actions are discovered here for
//! every editor ([`project`]); the configuration every frontend reads is checked by one
//! [`schema`]; model text is made safe to show by [`text`]. What an item's id
//! (`cmd:vsplit`, `script:cargo:test`) says is read in one place, [`item_id`]. Small
//! helpers with one job each: [`json_repair`], [`paths`], [`toml_json`]; [`base_entries`]
//! keeps the entries a frontend hands over once (Neovim's builtin commands and options).
//!
//! No Lua and no terminal here: Neovim loads the core through the `leash-nvim` library,
//! Helix and the CLI through the `leash` program.
pub mod base_entries;
pub mod catalog;
pub mod confirm;
pub mod entry;
pub mod item_id;
pub mod json_repair;
pub mod limits;
pub mod llm;
pub mod paths;
pub mod plan;
pub mod planner;
pub mod policy;
pub mod present;
pub mod profile;
pub mod project;
pub mod prompt;
pub mod range;
pub mod rank;
pub mod reach;
pub mod refusal;
pub mod runtime;
pub mod schema;
#[cfg(test)]
pub(crate) mod test_catalog;
pub mod text;
pub mod toml_json;
pub mod validate;
pub mod values;
