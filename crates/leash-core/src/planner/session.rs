//! The catalog an editor session keeps between requests: built from the frontend's
//! entries, narrowed by the editor's profile, indexed for ranking when first ranked, and
//! what each request asks of it (a shortlist, a prompt, a policy, a plan request).

use std::sync::Arc;

use serde_json::Value;

use crate::catalog::{Catalog, CatalogError};
use crate::policy::{narrow_catalog, Policy};
use crate::profile::neovim::code_dirs::CodeDirs;
use crate::profile::neovim::name_handlers::NameHandler;
use crate::profile::{Profile, UnknownProfile};
use crate::prompt::{self, Context, Prompt};
use crate::rank::{self, BaseIndex, IndexCell, Mode, Ranked};
use crate::schema::{self, Issues};

use super::PlanRequest;

/// A catalog and the ranker's index of it, built once for every request ranked against
/// it; a plan request shares both.
#[derive(Debug)]
pub struct SessionCatalog {
    catalog: Arc<Catalog>,
    index: Arc<IndexCell>,
}

/// Why a frontend's policy options name no policy.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error(transparent)]
    Profile(#[from] UnknownProfile),
    #[error("option “raise”: {0}")]
    Raise(Issues),
}

impl SessionCatalog {
    /// The catalog of a frontend's `entries` for `editor`, with the names its handlers
    /// read or write and the folders it loads code from, narrowed by the editor's profile
    /// ([`narrow_catalog`]). The ranker's index is built by the first ranking, on the
    /// planner's thread for a plan request: a thread started beside the editor's would
    /// share its core as often as not (a new thread runs first on its parent's core on
    /// Linux), holding the editor up for the milliseconds the index takes.
    pub fn new(
        editor: &str,
        entries: &[Value],
        handlers: Vec<NameHandler>,
        code_dirs: CodeDirs,
    ) -> Result<SessionCatalog, CatalogError> {
        let catalog =
            Catalog::from_entry_values(editor, entries)?.with_name_handlers(handlers).with_code_dirs(code_dirs);
        Ok(SessionCatalog::from_catalog(catalog))
    }

    /// The session catalog of a catalog built otherwise (e.g. [`Catalog::with_base`], on
    /// entries parsed once per session), narrowed and indexed as [`SessionCatalog::new`]
    /// does.
    pub fn from_catalog(catalog: Catalog) -> SessionCatalog {
        SessionCatalog { catalog: Arc::new(narrow_catalog(catalog)), index: Arc::new(IndexCell::default()) }
    }

    /// [`SessionCatalog::from_catalog`] of a catalog whose first entries are those `base`
    /// indexes (built with [`Catalog::with_base`]): its index reads only the rest.
    pub fn on_base(catalog: Catalog, base: Arc<BaseIndex>) -> SessionCatalog {
        SessionCatalog { catalog: Arc::new(narrow_catalog(catalog)), index: Arc::new(IndexCell::on_base(base)) }
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The best `limit` entries for `request`.
    pub fn rank(&self, request: &str, limit: usize, mode: Mode) -> Vec<Ranked<'_>> {
        rank::rank(self.index.get(&self.catalog), &self.catalog, request, limit, mode)
    }

    /// The prompt a model is sent for `request` over its shortlist.
    pub fn prompt(&self, request: &str, limit: usize, mode: Mode, context: &Context) -> Prompt {
        prompt::build(request, &self.rank(request, limit, mode), context)
    }

    /// The policy a frontend asks for: the profile it names, else the catalog's editor's,
    /// with its `raise` rules (a configuration's `raise` list).
    pub fn policy(&self, profile: Option<&str>, raise: Option<&Value>) -> Result<Policy, PolicyError> {
        let profile = Profile::for_editor(profile.unwrap_or(self.catalog.editor()))?;
        let rules = match raise {
            Some(raise) => schema::parse_raise_rules(raise).map_err(PolicyError::Raise)?,
            None => Vec::new(),
        };
        Ok(Policy::new(profile).with_raise_rules(rules))
    }

    /// A plan request for `request` over this catalog and its index, under `policy`; set
    /// its other fields as needed.
    pub fn plan_request(&self, request: impl Into<String>, policy: Policy) -> PlanRequest {
        let mut req = PlanRequest::new(request, Arc::clone(&self.catalog), policy);
        req.index = Arc::clone(&self.index);
        req
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn session() -> SessionCatalog {
        let entries = json!([
            {"id": "cmd:vsplit", "kind": "command", "title": "split window vertically", "args": "optional", "reach": "safe"},
            {"key": "wrap", "kind": "setting", "title": "long lines wrap", "type": "boolean"},
            {"key": "tabstop", "kind": "setting", "title": "tab width", "type": "number", "aliases": ["ts"]}
        ]);
        SessionCatalog::new("neovim", entries.as_array().unwrap(), Vec::new(), CodeDirs::default()).unwrap()
    }

    #[test]
    fn a_session_catalog_is_narrowed_by_its_editor_and_ranks() {
        let s = session();
        assert_eq!(s.catalog().len(), 3);
        let tabstop = s.catalog().setting("tabstop").unwrap();
        assert_eq!((tabstop.min, tabstop.max), (Some(1), Some(9999)), "the Neovim profile's range");
        let ranked = s.rank("wrap long lines", 2, Mode::Any);
        assert_eq!(ranked[0].entry.name(), "wrap");
        assert!(ranked.len() <= 2);
        let p = s.prompt("turn on word wrap", 1, Mode::Any, &Context::default());
        assert_eq!(p.shortlist, ["wrap"]);
        let bad = json!([{"kind": "command", "title": "neither id nor key"}]);
        let e = SessionCatalog::new("neovim", bad.as_array().unwrap(), Vec::new(), CodeDirs::default());
        assert!(e.unwrap_err().to_string().starts_with("entry 0:"));
    }

    #[test]
    fn the_policy_is_the_named_profile_or_the_catalogs_editor() {
        let s = session();
        assert_eq!(s.policy(None, None).unwrap().profile(), Profile::Neovim);
        assert_eq!(s.policy(Some("helix"), None).unwrap().profile(), Profile::Helix);
        let e = s.policy(Some("emacs"), None).unwrap_err().to_string();
        assert_eq!(e, "unknown profile “emacs” (expected neovim, helix or generic)");
        let raise = json!([{"pattern": "cmd:*", "reach": "shell"}]);
        let raised = s.policy(None, Some(&raise)).unwrap();
        let plan = crate::validate::validate_text(
            r#"{"steps": [{"type": "item", "id": "cmd:vsplit"}]}"#,
            s.catalog(),
            &raised,
            None,
        )
        .unwrap();
        assert_eq!(plan.steps[0].reach, crate::reach::Reach::Shell, "the rule raised it");
        let e = s.policy(None, Some(&json!([{"pattern": "x"}]))).unwrap_err().to_string();
        assert!(e.starts_with("option “raise”: raise[1]: reach should be"), "{e}");
    }

    #[test]
    fn a_plan_request_shares_the_catalog_and_its_index() {
        let s = session();
        let req = s.plan_request("wrap", s.policy(None, None).unwrap());
        assert!(Arc::ptr_eq(&req.catalog, &s.catalog) && Arc::ptr_eq(&req.index, &s.index));
    }
}
