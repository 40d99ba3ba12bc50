//! The MCP server's handler (rmcp): `tools/list` gives [`tools::list`], and each tool
//! call is one call to leash in the person's Neovim ([`Editor`]). A plan's call waits
//! until the person decided, asking Neovim for the outcome every [`POLL`] (Neovim itself
//! never waits) and telling the client it is still waiting every [`PROGRESS_EVERY`]
//! when the client gave a progress token. A call the client cancels, or a client that
//! goes away, withdraws its plan.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, ServerConfig,
};
use rmcp::service::{Peer, RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{json, Value as Json};

use super::editor::{Editor, EditorError, VERSION};
use super::nvim::NvimError;
use super::outcome;
use super::tools::{self, ArgError, Call};

/// How often a waiting plan's outcome is asked for.
pub const POLL: Duration = Duration::from_millis(250);
/// How often a client that gave a progress token hears that the plan still waits.
pub const PROGRESS_EVERY: Duration = Duration::from_secs(5);

const INSTRUCTIONS: &str = "\
leash lets you operate the person's Neovim only through plans they see and decide on. Use catalog_search \
to find what Neovim can do (ids of items, keys of settings), editor_state to see where the person is, and \
propose_plan to propose steps: leash checks them, shows them in the person's plan window and returns \
what ran, what it refused and why, or that the person cancelled. Correct refused steps and propose again; \
do not try to run editor commands another way.";

/// The server: where Neovim is, and the connection once made.
#[derive(Clone)]
pub struct LeashServer {
    shared: Arc<Shared>,
}

struct Shared {
    addr: Option<String>,
    /// Set when the client closed standard input: it waits for nothing any more.
    client_gone: Arc<AtomicBool>,
    editor: tokio::sync::Mutex<Option<Arc<Editor>>>,
    /// Plans waiting for the person: withdrawn if this program stops waiting.
    waiting: Mutex<HashSet<u64>>,
}

impl LeashServer {
    /// A server for the Neovim at `addr` (`None`: no address was found; every call says so).
    /// `client_gone` is set when the client closes standard input.
    pub fn new(addr: Option<String>, client_gone: Arc<AtomicBool>) -> LeashServer {
        LeashServer {
            shared: Arc::new(Shared {
                addr,
                client_gone,
                editor: tokio::sync::Mutex::new(None),
                waiting: Mutex::new(HashSet::new()),
            }),
        }
    }

    /// leash in Neovim, connected (and checked) on first use and again after Neovim went away.
    async fn editor(&self, client: &str) -> Result<Arc<Editor>, EditorError> {
        let addr = self.shared.addr.as_deref().ok_or(NvimError::NoAddress)?;
        let mut slot = self.shared.editor.lock().await;
        if let Some(editor) = slot.as_ref().filter(|e| !e.is_closed()) {
            return Ok(Arc::clone(editor));
        }
        let editor = Arc::new(Editor::open(addr, client).await?);
        *slot = Some(Arc::clone(&editor));
        Ok(editor)
    }

    /// A call whose answer goes to the agent as it is.
    async fn answer(&self, client: &str, method: &str, args: Json) -> CallToolResult {
        let editor = match self.editor(client).await {
            Ok(e) => e,
            Err(e) => return failure(e),
        };
        match editor.call(method, args).await {
            Ok(v) => CallToolResult::structured(v),
            Err(e) => failure(e),
        }
    }

    async fn propose(&self, client: &str, plan: String, context: &RequestContext<RoleServer>) -> CallToolResult {
        let editor = match self.editor(client).await {
            Ok(e) => e,
            Err(e) => return failure(e),
        };
        let answer = match editor.call("propose", json!({"plan": plan, "client": client})).await {
            Ok(v) => v,
            Err(e) => return failure(e),
        };
        let Some(id) = answer.get("id").and_then(Json::as_u64) else {
            return failure(format!("leash in Neovim answered a plan without an id: {answer}"));
        };
        if let Some(done) = answer.get("outcome").filter(|o| !o.is_null()) {
            return report(id, done);
        }
        lock(&self.shared.waiting).insert(id);
        let result = self.wait(&editor, id, context).await;
        lock(&self.shared.waiting).remove(&id);
        result
    }

    /// Waits for the person's decision on plan `id`.
    async fn wait(&self, editor: &Editor, id: u64, context: &RequestContext<RoleServer>) -> CallToolResult {
        let token = context.meta.get_progress_token();
        let started = Instant::now();
        let mut told = Instant::now();
        let mut progress = 0.0;
        let mut waiting = String::from("shown");
        loop {
            tokio::select! {
                _ = context.ct.cancelled() => {
                    let withdrawn = editor.call("withdraw", json!({"id": id})).await;
                    return failure(format!(
                        "the call was cancelled; plan {id} {}",
                        match withdrawn {
                            Ok(_) => "was withdrawn from the person's Neovim, nothing of it ran".to_string(),
                            Err(e) => format!("could not be withdrawn: {e}"),
                        }
                    ));
                }
                _ = tokio::time::sleep(POLL) => {}
            }
            if self.shared.client_gone.load(Ordering::SeqCst) {
                let _ = editor.call("withdraw", json!({"id": id})).await;
                return failure(format!("the client went away; plan {id} was withdrawn"));
            }
            match editor.call("outcome", json!({"id": id})).await {
                Ok(v) => match v.get("outcome").filter(|o| !o.is_null()) {
                    Some(done) => return report(id, done),
                    None => waiting = v.get("waiting").and_then(Json::as_str).unwrap_or("shown").to_string(),
                },
                Err(EditorError::Nvim(NvimError::Gone { addr })) => {
                    return failure(format!(
                        "Neovim at {addr} went away while plan {id} waited for the person's decision; \
                         nothing more is known of it"
                    ));
                }
                // Neovim answers between other work: a prompt may hold it for a while.
                Err(EditorError::Nvim(NvimError::Timeout { .. })) => {}
                Err(e) => return failure(e),
            }
            if let Some(token) = &token {
                if told.elapsed() >= PROGRESS_EVERY {
                    told = Instant::now();
                    progress += 1.0;
                    let message = format!(
                        "plan {id}: {} for {} s",
                        if waiting == "held" {
                            "waiting until the person stops typing (or opens it with :Leash show)"
                        } else {
                            "shown to the person, waiting for their decision"
                        },
                        started.elapsed().as_secs()
                    );
                    let note = ProgressNotificationParam::new(token.clone(), progress).with_message(message);
                    let _ = context.peer.notify_progress(note).await;
                }
            }
        }
    }

    /// Withdraws every plan still waiting (the client went away), each within Neovim's
    /// request deadline.
    pub async fn withdraw_all(&self) {
        let ids: Vec<u64> = lock(&self.shared.waiting).drain().collect();
        let editor = self.shared.editor.lock().await.clone();
        if let Some(editor) = editor {
            for id in ids {
                let _ = editor.call("withdraw", json!({"id": id})).await;
            }
        }
    }
}

impl ServerHandler for LeashServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("leash", VERSION))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::list()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let client = client_name(&context.peer);
        let call = match tools::parse(&request.name, request.arguments.as_ref()) {
            Ok(call) => call,
            Err(e @ ArgError::UnknownTool(_)) => return Err(ErrorData::invalid_params(e.to_string(), None)),
            Err(e) => return Ok(failure(e).into()),
        };
        let result = match call {
            Call::Search(args) => self.answer(&client, "search", args).await,
            Call::State => self.answer(&client, "state", json!({})).await,
            Call::Propose(plan) => self.propose(&client, plan, &context).await,
        };
        Ok(result.into())
    }
}

/// The agent's name from the MCP handshake (leash in Neovim shows it in plain characters).
fn client_name(peer: &Peer<RoleServer>) -> String {
    peer.peer_info().map(|info| info.client_info.name.chars().take(200).collect()).unwrap_or_default()
}

/// An error the agent reads (and the person, in the agent's window).
fn failure(e: impl std::fmt::Display) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(e.to_string())])
}

fn report(id: u64, done: &Json) -> CallToolResult {
    match outcome::report(id, done) {
        Ok(r) if r.status.is_error() => {
            let mut result = CallToolResult::structured_error(r.value);
            result.is_error = Some(true);
            result
        }
        Ok(r) => CallToolResult::structured(r.value),
        Err(e) => failure(e),
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
