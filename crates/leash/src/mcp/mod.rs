//! `leash mcp`: an MCP server on standard input and output through which a coding agent
//! (Claude Code, Codex, opencode…) operates the person's running Neovim only by
//! proposing plans that leash checks and the person decides on. It reaches Neovim by its
//! RPC address (`$NVIM` in Neovim's `:terminal`, or `--server ADDR`) and opens no socket
//! of its own.

mod editor;
mod msgpack;
mod nvim;
mod outcome;
mod server;
mod tools;

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use rmcp::ServiceExt;
use tokio::io::{AsyncRead, ReadBuf};

/// How `leash mcp` was started.
#[derive(Debug, Default, Clone)]
pub struct Options {
    /// `--server ADDR`; `$NVIM` when absent.
    pub server: Option<String>,
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("cannot start the MCP server's runtime: {0}")]
    Runtime(std::io::Error),
    #[error("the MCP handshake on standard input failed: {0}")]
    Handshake(String),
}

/// Serves MCP on standard input and output until the client closes them. Without an
/// address the server still starts: each tool call then says how to give one.
pub fn run(opts: Options) -> Result<(), McpError> {
    let addr = opts.server.or_else(|| std::env::var("NVIM").ok()).filter(|a| !a.is_empty());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(McpError::Runtime)?;
    runtime.block_on(async move {
        let gone = Arc::new(AtomicBool::new(false));
        let server = server::LeashServer::new(addr, Arc::clone(&gone));
        let (stdin, stdout) = rmcp::transport::stdio();
        let service = server
            .clone()
            .serve((WatchedStdin { inner: stdin, gone }, stdout))
            .await
            .map_err(|e| McpError::Handshake(e.to_string()))?;
        let _ = service.waiting().await;
        // The client went away: a plan still shown to the person is taken back.
        let _ = tokio::time::timeout(Duration::from_secs(5), server.withdraw_all()).await;
        Ok(())
    })
}

/// Standard input that notes when the client closed it. The SDK lets handlers run on for a
/// while after that, and a client may kill the server soon after closing: a plan still
/// waiting for the person is withdrawn at once instead.
struct WatchedStdin {
    inner: tokio::io::Stdin,
    gone: Arc<AtomicBool>,
}

impl AsyncRead for WatchedStdin {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        match &polled {
            Poll::Ready(Ok(())) if buf.filled().len() == before && buf.remaining() > 0 => {
                self.gone.store(true, Ordering::SeqCst)
            }
            Poll::Ready(Err(_)) => self.gone.store(true, Ordering::SeqCst),
            _ => {}
        }
        polled
    }
}
