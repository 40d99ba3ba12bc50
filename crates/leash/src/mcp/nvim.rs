//! A client of the person's running Neovim: msgpack-rpc over the address Neovim listens
//! on (`$NVIM` inside its `:terminal`, or `--server`), each request with a deadline.
//!
//! One task reads the socket: it hands each response to the request waiting for it,
//! answers any request Neovim makes with an error (so a plugin that calls `rpcrequest()`
//! on this channel is not left waiting), and ignores notifications. When the socket
//! closes, every waiting request fails with [`NvimError::Gone`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::oneshot;

use super::msgpack::{self, Value};

/// How long connecting may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// How long one request may take: leash's calls answer in milliseconds, but Neovim
/// answers requests only between other work (a long command, a blocking prompt).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// What went wrong talking to Neovim, in words a person can act on.
#[derive(Debug, thiserror::Error)]
pub enum NvimError {
    #[error(
        "no Neovim to reach: leash mcp got no $NVIM and no --server ADDR. Start the agent in Neovim's :terminal \
         (Codex passes an MCP server only some of its environment: add env_vars = [\"NVIM\"] to its \
         [mcp_servers.leash] table), or start Neovim with --listen ADDR and add --server ADDR to leash mcp's \
         arguments"
    )]
    NoAddress,
    #[error(
        "Neovim is not reachable at {addr}: {error} (is it running? `:echo v:servername` in Neovim shows its address)"
    )]
    Unreachable { addr: String, error: std::io::Error },
    #[error("Neovim at {addr} did not answer within {secs} s (it may be busy, or waiting at a prompt)")]
    Timeout { addr: String, secs: u64 },
    #[error("Neovim at {addr} went away (its connection closed)")]
    Gone { addr: String },
    #[error("Neovim at {addr} refused the call: {message}")]
    Remote { addr: String, message: String },
    #[cfg(not(unix))]
    #[error("{addr} is not an address leash can reach on this system: {why}")]
    Unsupported { addr: String, why: &'static str },
}

type Reply = Result<Value, String>;
type Writer = Box<dyn AsyncWrite + Send + Unpin>;

/// A connection to one Neovim.
pub struct Nvim {
    addr: String,
    writer: Arc<tokio::sync::Mutex<Writer>>,
    waiting: Arc<Mutex<HashMap<u32, oneshot::Sender<Reply>>>>,
    closed: Arc<AtomicBool>,
    next_id: AtomicU32,
}

impl Nvim {
    /// Connects to `addr`: a Unix socket path, or `HOST:PORT` for TCP (`nvim --listen
    /// 127.0.0.1:6666`).
    pub async fn connect(addr: &str) -> Result<Nvim, NvimError> {
        let unreachable = |error| NvimError::Unreachable { addr: addr.to_string(), error };
        let timed_out = || NvimError::Timeout { addr: addr.to_string(), secs: CONNECT_TIMEOUT.as_secs() };
        let (reader, writer): (Box<dyn AsyncRead + Send + Unpin>, Writer) = if is_tcp(addr) {
            let stream = tokio::time::timeout(CONNECT_TIMEOUT, tokio::net::TcpStream::connect(addr))
                .await
                .map_err(|_| timed_out())?
                .map_err(unreachable)?;
            let (r, w) = tokio::io::split(stream);
            (Box::new(r), Box::new(w))
        } else {
            connect_local(addr).await?
        };
        let nvim = Nvim {
            addr: addr.to_string(),
            writer: Arc::new(tokio::sync::Mutex::new(writer)),
            waiting: Arc::new(Mutex::new(HashMap::new())),
            closed: Arc::new(AtomicBool::new(false)),
            next_id: AtomicU32::new(1),
        };
        nvim.start_reader(reader);
        Ok(nvim)
    }

    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// Whether the connection closed (Neovim quit): a new one is needed.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Calls API function `method` with `params` and waits for its result, at most
    /// [`REQUEST_TIMEOUT`].
    pub async fn request(&self, method: &str, params: Vec<Value>) -> Result<Value, NvimError> {
        let gone = || NvimError::Gone { addr: self.addr.clone() };
        if self.is_closed() {
            return Err(gone());
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.waiting).insert(id, tx);
        // The reader may have closed between the check above and the insert.
        if self.is_closed() {
            lock(&self.waiting).remove(&id);
            return Err(gone());
        }
        let message =
            Value::Array(vec![Value::Int(0), Value::Int(id as i64), Value::from(method), Value::Array(params)]);
        let mut bytes = Vec::new();
        msgpack::encode(&message, &mut bytes);
        let sent = async {
            let mut w = self.writer.lock().await;
            w.write_all(&bytes).await?;
            w.flush().await
        };
        let outcome = tokio::time::timeout(REQUEST_TIMEOUT, async {
            sent.await.map_err(|_| gone())?;
            rx.await.map_err(|_| gone())
        })
        .await;
        match outcome {
            Ok(Ok(Ok(value))) => Ok(value),
            Ok(Ok(Err(message))) => Err(NvimError::Remote { addr: self.addr.clone(), message }),
            Ok(Err(e)) => Err(e),
            Err(_) => {
                lock(&self.waiting).remove(&id);
                Err(NvimError::Timeout { addr: self.addr.clone(), secs: REQUEST_TIMEOUT.as_secs() })
            }
        }
    }

    /// `nvim_exec_lua(code, args)`: `code` is this program's own text; everything from
    /// outside goes in `args`, as data.
    pub async fn exec_lua(&self, code: &'static str, args: Vec<Value>) -> Result<Value, NvimError> {
        self.request("nvim_exec_lua", vec![Value::from(code), Value::Array(args)]).await
    }

    fn start_reader(&self, mut reader: Box<dyn AsyncRead + Send + Unpin>) {
        let waiting = Arc::clone(&self.waiting);
        let closed = Arc::clone(&self.closed);
        let writer = Arc::clone(&self.writer);
        tokio::spawn(async move {
            let mut buf: Vec<u8> = Vec::new();
            let mut chunk = vec![0u8; 64 * 1024];
            'read: loop {
                match reader.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
                loop {
                    match msgpack::decode(&buf) {
                        Ok(Some((message, used))) => {
                            buf.drain(..used);
                            if let Some(answer) = dispatch(message, &waiting) {
                                // Written on a task of its own: reading never waits for a write.
                                let writer = Arc::clone(&writer);
                                tokio::spawn(async move {
                                    let mut w = writer.lock().await;
                                    let _ = w.write_all(&answer).await;
                                    let _ = w.flush().await;
                                });
                            }
                        }
                        Ok(None) if buf.len() > msgpack::MAX_MESSAGE_BYTES => break 'read,
                        Ok(None) => break,
                        Err(_) => break 'read,
                    }
                }
            }
            closed.store(true, Ordering::SeqCst);
            // Dropping the senders fails every request still waiting.
            lock(&waiting).clear();
        });
    }
}

/// A response to one of our requests goes to whoever waits for it; a request from Neovim
/// gets an error response (returned, to be written); a notification is ignored.
fn dispatch(message: Value, waiting: &Mutex<HashMap<u32, oneshot::Sender<Reply>>>) -> Option<Vec<u8>> {
    let Value::Array(parts) = message else { return None };
    match parts.first().and_then(Value::as_i64) {
        Some(1) if parts.len() == 4 => {
            let id = parts[1].as_i64().and_then(|i| u32::try_from(i).ok())?;
            let tx = lock(waiting).remove(&id)?;
            let reply = match &parts[2] {
                Value::Nil => Ok(parts[3].clone()),
                error => Err(error_text(error)),
            };
            let _ = tx.send(reply);
            None
        }
        Some(0) if parts.len() == 4 => {
            let answer = Value::Array(vec![
                Value::Int(1),
                parts[1].clone(),
                Value::from("leash mcp takes no requests"),
                Value::Nil,
            ]);
            let mut bytes = Vec::new();
            msgpack::encode(&answer, &mut bytes);
            Some(bytes)
        }
        _ => None,
    }
}

/// Neovim's error object (`[type, message]`) as its message.
fn error_text(error: &Value) -> String {
    match error {
        Value::Array(parts) => match parts.get(1) {
            Some(Value::Str(s)) => s.clone(),
            _ => format!("{error:?}"),
        },
        Value::Str(s) => s.clone(),
        other => format!("{other:?}"),
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// `HOST:PORT` (what `nvim --listen 127.0.0.1:6666` takes) rather than a socket path.
pub fn is_tcp(addr: &str) -> bool {
    if addr.contains('/') || addr.contains('\\') {
        return false;
    }
    addr.rsplit_once(':').is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok())
}

#[cfg(unix)]
async fn connect_local(addr: &str) -> Result<(Box<dyn AsyncRead + Send + Unpin>, Writer), NvimError> {
    let stream = tokio::time::timeout(CONNECT_TIMEOUT, tokio::net::UnixStream::connect(addr))
        .await
        .map_err(|_| NvimError::Timeout { addr: addr.to_string(), secs: CONNECT_TIMEOUT.as_secs() })?
        .map_err(|error| NvimError::Unreachable { addr: addr.to_string(), error })?;
    let (r, w) = tokio::io::split(stream);
    Ok((Box::new(r), Box::new(w)))
}

#[cfg(not(unix))]
async fn connect_local(addr: &str) -> Result<(Box<dyn AsyncRead + Send + Unpin>, Writer), NvimError> {
    Err(NvimError::Unsupported {
        addr: addr.to_string(),
        why: "here leash mcp reaches Neovim over TCP only: start it with --listen 127.0.0.1:PORT and pass --server 127.0.0.1:PORT",
    })
}
