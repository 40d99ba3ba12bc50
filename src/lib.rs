//! leash: the editor-agnostic core.
//!
//! A request is ranked against the editor's [`catalog`] into a shortlist ([`rank`]); the
//! shortlist becomes a [`prompt`]; the model's answer is parsed into a [`plan`] and checked
//! step by step by [`validate`] under a risk [`policy`], which gives every step a
//! [`reach`]; a dropped step carries a typed [`refusal`]; the user's line [`range`], if the
//! editor gave one, goes to the steps whose command takes a range; [`planner`] runs the
//! whole way, model included ([`llm`]). Neovim loads this crate as a Lua module (`lua`,
//! behind the cdylib); other editors use the `leash` program, Helix through its own
//! frontend ([`helix`]). The project's scripts, Git and file actions are discovered here
//! for every editor ([`sources`]); model text is made safe to show by [`text`]. What an
//! item's id (`cmd:vsplit`, `script:cargo:test`) says is read in one place, [`item_id`].
//! Small helpers with one job each: [`json_repair`], [`paths`], [`toml_json`].
pub mod catalog;
pub mod code_dirs;
pub mod config;
#[cfg(unix)]
pub mod helix;
pub mod item_id;
pub mod json_repair;
pub mod llm;
pub mod lua;
pub mod name_handlers;
pub mod paths;
pub mod plan;
pub mod planner;
pub mod policy;
pub mod present;
pub mod program_config;
pub mod prompt;
pub mod range;
pub mod rank;
pub mod reach;
pub mod refusal;
pub mod runtime;
pub mod sources;
#[cfg(test)]
pub(crate) mod test_catalog;
pub mod text;
pub mod toml_json;
pub mod validate;
