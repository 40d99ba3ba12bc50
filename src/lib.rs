//! leash: the editor-agnostic core.
//!
//! A request is ranked against the editor's [`catalog`] into a shortlist ([`rank`]); the
//! shortlist becomes a [`prompt`]; the model's answer is parsed into a [`plan`] and checked
//! step by step by [`validate`] under a risk [`policy`]; a dropped step carries a typed
//! [`refusal`]. Neovim loads this crate as a Lua module (`lua`, behind the cdylib); other
//! editors use the `leash` program.
pub mod catalog;
pub mod llm;
pub mod lua;
pub mod plan;
pub mod policy;
pub mod prompt;
pub mod rank;
pub mod refusal;
pub mod runtime;
pub mod validate;
