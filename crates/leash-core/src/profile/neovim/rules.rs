//! The Neovim profile as [`EditorRules`]: the reach tables and the argument filter of this
//! module's parent, the value rules (`values`, `value_reach`), the name handlers,
//! functions that start programs or run C code, the folders Neovim loads code from, and
//! the waits of a plan.

use super::{check_command_args, check_file_item_args, check_item_args, check_option_value, command_reach};
use super::{command_words, option_reach, option_words, withheld};
use super::{foreign_code, substitute, value_reach, values as neovim_values};
use crate::entry::{Item, Setting, SettingValue};
use crate::item_id::{ItemId, ItemKind, CMD_SLEEP};
use crate::profile::neovim::code_dirs::CodeDirs;
use crate::profile::neovim::name_handlers::NameHandler;
use crate::profile::CodeWrite;
use crate::profile::EditorRules;
use crate::reach::Reach;
use crate::refusal::Refusal;

/// Neovim's rules.
pub struct Rules;

impl EditorRules for Rules {
    fn withheld(&self, id: &str) -> Option<&'static str> {
        ItemKind::Command.name_in(id).and_then(withheld)
    }

    fn item_reach(&self, item: &Item, args: &[String], reach: Reach) -> Result<Reach, Refusal> {
        let Some(name) = ItemKind::Command.name_in(&item.id) else { return Ok(reach) };
        // A builtin the tables do not know could be anything.
        let mut reach = reach.max(command_reach(name).unwrap_or(Reach::Shell));
        // A substitute changes text unless its replacement is an expression (or may be
        // one: a repeat); it is `edit` only when its argument passes the edit filter.
        if reach < Reach::Code
            && substitute::COMMANDS.contains(&name)
            && (substitute::code_reason(&args.join(" ")).is_some() || check_command_args(name, reach, args).is_err())
        {
            reach = Reach::Code;
        }
        check_command_args(name, reach, args)?;
        Ok(reach)
    }

    fn check_item_args(&self, item: &Item, args: &[String], reach: Reach) -> Result<(), Refusal> {
        match ItemId::parse(&item.id) {
            Some(ItemId { kind: ItemKind::User | ItemKind::Entry, .. }) => check_item_args(args, reach),
            Some(ItemId { kind: ItemKind::File, .. }) => check_file_item_args(args),
            _ => Ok(()),
        }
    }

    fn setting_reach(&self, setting: &Setting, value: &SettingValue, reach: Reach) -> Result<Reach, Refusal> {
        check_option_value(&setting.key, value)?;
        neovim_values::check(&setting.key, setting.list, value)?;
        // An option the tables do not know is treated like the worst kind.
        Ok(reach.max(option_reach(&setting.key).unwrap_or(Reach::Code)))
    }

    fn least_setting_reach(&self, setting: &Setting, reach: Reach) -> Reach {
        reach.max(option_reach(&setting.key).unwrap_or(Reach::Code))
    }

    fn claimed_name(&self, item: &Item, args: &[String], handlers: &[NameHandler]) -> Option<(Reach, String)> {
        let name = ItemKind::Command.name_in(&item.id)?;
        let Some((word, handler)) = super::claimed_name(name, args, handlers) else {
            // No name of the plan's is handled, but a buffer's own name can be run.
            return super::name_cmdline::note(name, args);
        };
        let shown: String = word.chars().take(60).collect();
        Some((
            Reach::Shell,
            format!(
                "“{shown}” is read or written by {}, which can run a program (gzip, tar, unzip…)",
                handler.describe()
            ),
        ))
    }

    fn foreign_code(&self, reach: Reach, texts: &[&str]) -> Option<(Reach, String)> {
        if reach < Reach::Code {
            return None;
        }
        foreign_code::foreign_call(texts.iter().copied())
    }

    fn code_write(&self, code_dirs: &CodeDirs, action: CodeWrite<'_>) -> Option<(Reach, String)> {
        match action {
            CodeWrite::Item(item, args) => code_dirs.item_reach(&item.id, args, None, &[]),
            CodeWrite::Setting(setting, SettingValue::String(value)) => code_dirs.option_reach(&setting.key, value),
            CodeWrite::Setting(..) => None,
        }
    }

    fn setting_value(
        &self,
        setting: &Setting,
        value: &SettingValue,
        handlers: &[NameHandler],
    ) -> Option<(Reach, String)> {
        value_reach::value_reach(&setting.key, value, handlers)
    }

    fn item_words(&self, item: &Item) -> Option<(Reach, &'static str)> {
        ItemKind::Command.name_in(&item.id).and_then(command_words)
    }

    fn setting_words(&self, setting: &Setting) -> Option<(Reach, &'static str)> {
        option_words(&setting.key)
    }

    fn item_wait_ms(&self, id: &str, args: &[String]) -> u64 {
        if id == CMD_SLEEP {
            super::sleep_millis(args)
        } else {
            0
        }
    }

    fn setting_wait_ms(&self, key: &str, value: &SettingValue) -> Option<u64> {
        super::setting_wait_ms(key, value)
    }
}
