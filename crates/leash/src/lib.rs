//! The `leash` program's parts, on leash-core: its configuration file ([`config_file`])
//! and the Helix frontend ([`helix`]). The command line itself is `main.rs`.
pub mod config_file;
#[cfg(unix)]
pub mod helix;
