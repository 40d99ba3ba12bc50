//! The `leash` program's parts, on leash-core: its configuration file ([`config_file`]),
//! the Helix frontend ([`helix`]) and the MCP server for agents ([`mcp`]). The command
//! line itself is `main.rs`.
pub mod config_file;
#[cfg(unix)]
pub mod helix;
pub mod mcp;
