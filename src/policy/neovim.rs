//! The Neovim profile (placeholder until the tables land).
use crate::catalog::{Reach, SettingValue};

pub fn withheld(_name: &str) -> Option<&'static str> {
    None
}
pub fn command_reach(_name: &str) -> Option<Reach> {
    None
}
pub fn option_reach(_key: &str) -> Option<Reach> {
    None
}
pub fn check_command_args(_name: &str, _reach: Reach, _args: &[String]) -> Result<(), String> {
    Ok(())
}
pub fn check_option_value(_key: &str, _value: &SettingValue) -> Result<(), String> {
    Ok(())
}
