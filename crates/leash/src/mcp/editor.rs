//! leash in the person's Neovim, as `leash mcp` reaches it: the handshake that checks
//! both sides speak the same protocol, and each call (`lua/leash/agent.lua`) with its
//! JSON in and out. The Lua code sent is this program's own constant; what an agent
//! wrote only ever travels as an argument.

use serde_json::{json, Value as Json};

use super::msgpack::Value;
use super::nvim::{Nvim, NvimError};

/// The version of the calls (`M.protocol` of lua/leash/agent.lua).
pub const PROTOCOL: u64 = 1;

/// This program's version, which the library in Neovim must not be older than.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The only code this program runs in Neovim: it hands the call's name and its JSON text
/// to leash's agent module, and says which part of leash is missing when it cannot.
const CALL: &str = r#"
local method, args = ...
local found, agent = pcall(require, 'leash.agent')
if found then return agent.call(method, args) end
local has_leash = pcall(require, 'leash')
return vim.json.encode({ error = {
  code = has_leash and 'old_plugin' or 'no_leash',
  message = tostring(agent),
} })
"#;

/// Why a call to leash in Neovim gave no result, in words the agent and the person can
/// act on.
#[derive(Debug, thiserror::Error)]
pub enum EditorError {
    #[error(transparent)]
    Nvim(#[from] NvimError),
    #[error(
        "leash is not loaded in the Neovim at {addr}: install the leash plugin there (its Lua modules must be \
         on 'runtimepath')"
    )]
    NoLeash { addr: String },
    #[error(
        "the leash plugin in the Neovim at {addr} is older than this leash program: it has no agent support \
         (update the plugin and restart Neovim)"
    )]
    OldPlugin { addr: String },
    #[error(
        "the leash plugin in the Neovim at {addr} speaks agent protocol {theirs}, older than this program's \
         {PROTOCOL}: update the plugin and restart Neovim"
    )]
    PluginOlder { addr: String, theirs: u64 },
    #[error(
        "this leash program ({VERSION}, agent protocol {PROTOCOL}) is older than the leash plugin in the Neovim \
         at {addr} (agent protocol {theirs}): install the program from the same leash release"
    )]
    ProgramOlder { addr: String, theirs: u64 },
    #[error(
        "the leash library in the Neovim at {addr} is version {library}, older than this program ({VERSION}): \
         run :Leash build there and restart Neovim"
    )]
    LibraryOlder { addr: String, library: String },
    #[error("leash in the Neovim at {addr} cannot check plans, so it takes none: {message}")]
    NoLibrary { addr: String, message: String },
    /// What leash in Neovim said about this call (a plan it cannot read, a plan already
    /// waiting, a configuration with errors…): its own sentence.
    #[error("{message}")]
    Call { code: String, message: String },
    #[error("leash in the Neovim at {addr} gave an answer this program cannot read: {message}")]
    BadAnswer { addr: String, message: String },
}

/// leash in one Neovim, checked by the handshake.
pub struct Editor {
    nvim: Nvim,
}

impl Editor {
    /// Connects to the Neovim at `addr` and checks the leash there: loaded, the same
    /// protocol, a library not older than this program and able to check plans.
    pub async fn open(addr: &str, client: &str) -> Result<Editor, EditorError> {
        let editor = Editor { nvim: Nvim::connect(addr).await? };
        let hello = editor.call("hello", json!({"version": VERSION, "protocol": PROTOCOL, "client": client})).await?;
        check_hello(addr, &hello)?;
        Ok(editor)
    }

    /// Whether Neovim went away: the next call needs a new connection.
    pub fn is_closed(&self) -> bool {
        self.nvim.is_closed()
    }

    /// `method` of lua/leash/agent.lua with `args`; its answer, or its error.
    pub async fn call(&self, method: &str, args: Json) -> Result<Json, EditorError> {
        let addr = self.nvim.addr().to_string();
        let answer = self.nvim.exec_lua(CALL, vec![Value::from(method), Value::from(args.to_string())]).await?;
        let bad = |message: String| EditorError::BadAnswer { addr: addr.clone(), message };
        let text = answer.as_str().ok_or_else(|| bad(format!("not JSON text but {answer:?}")))?;
        let value: Json = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        match value.get("error") {
            None | Some(Json::Null) => Ok(value),
            Some(error) => {
                let code = error.get("code").and_then(Json::as_str).unwrap_or("").to_string();
                let message = error.get("message").and_then(Json::as_str).unwrap_or("").to_string();
                Err(match code.as_str() {
                    "no_leash" => EditorError::NoLeash { addr },
                    "old_plugin" => EditorError::OldPlugin { addr },
                    "no_library" => EditorError::NoLibrary { addr, message },
                    _ => EditorError::Call { code, message },
                })
            }
        }
    }
}

/// The handshake's verdict on what leash in Neovim said about itself.
pub fn check_hello(addr: &str, hello: &Json) -> Result<(), EditorError> {
    let addr = addr.to_string();
    let theirs = hello.get("protocol").and_then(Json::as_u64).ok_or_else(|| EditorError::BadAnswer {
        addr: addr.clone(),
        message: format!("hello without a protocol: {hello}"),
    })?;
    if theirs < PROTOCOL {
        return Err(EditorError::PluginOlder { addr, theirs });
    }
    if theirs > PROTOCOL {
        return Err(EditorError::ProgramOlder { addr, theirs });
    }
    if let Some(message) = hello.get("library_error").and_then(Json::as_str) {
        return Err(EditorError::NoLibrary { addr, message: message.to_string() });
    }
    let library = hello.get("library").and_then(Json::as_str).unwrap_or("");
    match (version(library), version(VERSION)) {
        (Some(lib), Some(ours)) if lib < ours => Err(EditorError::LibraryOlder { addr, library: library.to_string() }),
        (Some(_), Some(_)) => Ok(()),
        _ => {
            Err(EditorError::BadAnswer { addr, message: format!("the library's version “{library}” is not x.y.z") })
        }
    }
}

/// `x.y.z` as numbers, compared in order.
fn version(v: &str) -> Option<(u64, u64, u64)> {
    let mut parts = v.split('.').map(|p| p.parse::<u64>().ok());
    let out = (parts.next()??, parts.next()??, parts.next()??);
    parts.next().is_none().then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hello(protocol: u64, library: &str, error: Option<&str>) -> Json {
        json!({"protocol": protocol, "version": "0.1.0", "library": library, "library_error": error})
    }

    #[test]
    fn the_handshake_names_the_side_that_is_older() {
        assert!(check_hello("/s", &hello(PROTOCOL, VERSION, None)).is_ok());
        let older = check_hello("/s", &hello(PROTOCOL - 1, VERSION, None)).unwrap_err().to_string();
        assert!(older.contains("plugin in the Neovim at /s speaks agent protocol 0"), "{older}");
        assert!(older.contains("update the plugin"), "{older}");
        let newer = check_hello("/s", &hello(PROTOCOL + 1, VERSION, None)).unwrap_err().to_string();
        assert!(newer.contains("this leash program") && newer.contains("is older than the leash plugin"), "{newer}");
        let lib = check_hello("/s", &hello(PROTOCOL, "0.0.9", None)).unwrap_err().to_string();
        assert!(lib.contains("library in the Neovim at /s is version 0.0.9, older than this program"), "{lib}");
        assert!(lib.contains(":Leash build"), "{lib}");
        // A newer library of the same protocol is fine.
        assert!(check_hello("/s", &hello(PROTOCOL, "9.0.0", None)).is_ok());
        let missing =
            check_hello("/s", &hello(PROTOCOL, "", Some("leash: native library not found; run :Leash build")))
                .unwrap_err()
                .to_string();
        assert!(missing.contains("cannot check plans, so it takes none: leash: native library not found"), "{missing}");
        assert!(check_hello("/s", &json!({"version": "0.1.0"})).is_err(), "no protocol");
        assert!(check_hello("/s", &hello(PROTOCOL, "one.two", None)).is_err(), "no version");
    }

    #[test]
    fn versions_compare_as_numbers() {
        assert!(version("0.10.0") > version("0.9.9"));
        assert_eq!(version("1.2"), None);
        assert_eq!(version("1.2.3.4"), None);
        assert_eq!(version("1.2.x"), None);
    }
}
