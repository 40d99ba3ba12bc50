//! Files, id `file:<action>`.
//!
//! Reach: renaming and deleting change the disk, so they are `write` (in Helix, renaming
//! runs `:move`, which can start language servers: `shell`). Opening a new file is `safe`
//! in Neovim (nothing is written until the user writes) and `shell` in Helix, whose
//! `:open` starts the language servers configured for the file. `file:copy_path` (Neovim
//! only) sets registers and is `safe`. `file:open_folder` hands the folder to the
//! operating system's opener (xdg-open, open, start): that runs a program, so it is
//! `shell`. Paths from the model are checked before anything runs. `file:reveal` drives a
//! Neovim file explorer plugin and is added by the Neovim frontend.

use super::{Editor, SourceItem};
use crate::entry::Args;
use crate::item_id::ItemId;
use crate::reach::Reach;

struct Action {
    name: &'static str,
    title: &'static str,
    args: Args,
    neovim: Option<Reach>,
    helix: Option<Reach>,
    aliases: &'static [&'static str],
    description: &'static str,
}

const ACTIONS: &[Action] = &[
    Action {
        name: "new",
        title: "new file: create a file at a path and open it",
        args: Args::Required,
        neovim: Some(Reach::Safe),
        helix: Some(Reach::Shell),
        aliases: &["create file", "make a new file", "touch"],
        description: "Opens a buffer for a new file at the given path (relative to the current directory). Nothing is written until you save.",
    },
    Action {
        name: "rename",
        title: "rename or move the current file",
        args: Args::Required,
        neovim: Some(Reach::Write),
        helix: Some(Reach::Shell),
        aliases: &["rename this file", "move this file", "mv", "change file name"],
        description: "Renames or moves the current file on disk to the new path (a bare name stays in the same folder) and points the buffer at it.",
    },
    Action {
        name: "copy_path",
        title: "copy the path of the current file",
        args: Args::Optional,
        neovim: Some(Reach::Safe),
        helix: None,
        aliases: &["yank file path", "copy file name", "clipboard path"],
        description: "Copies the current file path to the clipboard and the unnamed register. Argument: absolute (default), relative or name.",
    },
    Action {
        name: "delete",
        title: "delete the current file from disk",
        args: Args::None,
        neovim: Some(Reach::Write),
        helix: Some(Reach::Write),
        aliases: &["remove this file", "rm", "trash file"],
        description: "Deletes the current file from disk and closes its buffer.",
    },
    Action {
        name: "open_folder",
        title: "open the folder containing the current file in the system file manager",
        args: Args::None,
        neovim: Some(Reach::Shell),
        helix: Some(Reach::Shell),
        aliases: &["show in finder", "open containing folder", "open directory"],
        description: "Opens the directory of the current file with the operating system (xdg-open, open, start).",
    },
];

/// The file items an editor offers.
pub fn entries(editor: Editor) -> Vec<SourceItem> {
    ACTIONS
        .iter()
        .filter_map(|a| {
            let reach = match editor {
                Editor::Neovim => a.neovim,
                Editor::Helix => a.helix,
            }?;
            Some(SourceItem {
                id: ItemId::file(a.name).to_string(),
                kind: "file",
                title: a.title.to_string(),
                aliases: a.aliases.iter().map(|s| s.to_string()).collect(),
                args: a.args,
                reach,
                description: a.description.to_string(),
                cmd: None,
                cwd: None,
                root: None,
            })
        })
        .collect()
}
