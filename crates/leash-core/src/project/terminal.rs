//! `term:run`: one shell command line run in a terminal, the item every editor offers
//! beside the project's scripts. Its id, title, aliases, argument kind and reach are the
//! same in every editor (the validator makes any terminal step `shell` whatever is
//! declared); only where it runs differs, and its description says so.

use super::{Editor, SourceItem};
use crate::entry::Args;
use crate::item_id::TERM_RUN;
use crate::reach::Reach;

/// The `term:run` item as `editor` runs it.
pub fn run_item(editor: Editor) -> SourceItem {
    let runs = match editor {
        Editor::Neovim => "Runs one shell command line in a terminal split below.",
        Editor::Helix => "Runs one shell command line on the terminal, output shown until a key is pressed.",
    };
    SourceItem {
        id: TERM_RUN.to_string(),
        kind: "terminal",
        title: "run a shell command in a terminal".into(),
        aliases: vec!["shell command line".into(), "execute in shell".into()],
        args: Args::Required,
        reach: Reach::Shell,
        description: format!("{runs} Use a project script item instead when one fits."),
        cmd: None,
        cwd: None,
        root: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_editor_offers_the_same_item_and_says_where_it_runs() {
        let (nvim, hx) = (run_item(Editor::Neovim), run_item(Editor::Helix));
        assert_eq!((nvim.id.as_str(), nvim.args, nvim.reach), ("term:run", Args::Required, Reach::Shell));
        assert_eq!((&nvim.title, &nvim.aliases, nvim.kind), (&hx.title, &hx.aliases, hx.kind));
        assert!(nvim.description.contains("split below"), "{}", nvim.description);
        assert!(hx.description.contains("until a key is pressed"), "{}", hx.description);
    }
}
