//! One tokio runtime on its own thread, started on first use; jobs that return at once;
//! a completion signal the editor's event loop can watch.
//!
//! A job is a future spawned on the runtime. [`spawn_job`] returns a [`JobHandle`] at
//! once; [`JobHandle::try_take`] hands the result over exactly once; [`JobHandle::cancel`]
//! drops the future and makes the result [`JobResult::Cancelled`]. Each finished job
//! writes one byte to a pipe (a Unix socket pair) whose read end [`notify_fd`] gives, so Neovim can watch it
//! with `vim.uv.new_pipe():open(fd)` and `read_start` instead of polling, and take the
//! results on its main thread. Nothing here touches Lua.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use tokio::runtime::{Handle, Runtime};
use tokio::sync::watch;

/// Why the runtime cannot run a job. A failure to start is kept for the life of the
/// process and handed to every caller, so the system's error is shared, not copied.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RuntimeError {
    #[error("the background runtime could not start: {0}")]
    Start(Arc<std::io::Error>),
    #[error("the completion pipe could not be created: {0}")]
    Pipe(Arc<std::io::Error>),
    #[error("block_on was called from inside the runtime")]
    Nested,
    #[error("the completion pipe is not available on this platform")]
    Unsupported,
}

fn runtime() -> Result<&'static Runtime, RuntimeError> {
    static RUNTIME: OnceLock<Result<Runtime, RuntimeError>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .max_blocking_threads(4)
                .thread_name("leash-runtime")
                .enable_all()
                .build()
                .map_err(|e| RuntimeError::Start(Arc::new(e)))
        })
        .as_ref()
        .map_err(RuntimeError::clone)
}

/// The runtime's handle, starting the runtime on first use.
pub fn handle() -> Result<Handle, RuntimeError> {
    runtime().map(|rt| rt.handle().clone())
}

/// Runs a future to completion on the runtime, blocking the calling thread (the CLI's
/// way in). Must not be called from a runtime thread.
pub fn block_on<F: Future>(future: F) -> Result<F::Output, RuntimeError> {
    if Handle::try_current().is_ok() {
        return Err(RuntimeError::Nested);
    }
    Ok(runtime()?.block_on(future))
}

/// A cancellation signal that can be cloned, triggered from any thread, and awaited.
#[derive(Debug, Clone)]
pub struct CancelToken {
    tx: Arc<watch::Sender<bool>>,
    rx: watch::Receiver<bool>,
}

impl Default for CancelToken {
    fn default() -> Self {
        CancelToken::new()
    }
}

impl CancelToken {
    pub fn new() -> CancelToken {
        let (tx, rx) = watch::channel(false);
        CancelToken { tx: Arc::new(tx), rx }
    }

    pub fn cancel(&self) {
        self.tx.send_replace(true);
    }

    pub fn is_cancelled(&self) -> bool {
        *self.rx.borrow()
    }

    /// Completes when the token is cancelled (never, otherwise).
    pub async fn cancelled(&self) {
        let mut rx = self.rx.clone();
        // The sender lives as long as any token, so this only returns on cancellation.
        if rx.wait_for(|c| *c).await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// How a job ended.
#[derive(Debug, Clone, PartialEq)]
pub enum JobResult<T> {
    Finished(T),
    /// Cancelled by [`JobHandle::cancel`]: not an error.
    Cancelled,
    /// The job panicked (a bug); the message says where.
    Panicked(String),
}

struct JobState<T> {
    result: Mutex<Option<JobResult<T>>>,
    /// Set once the result was handed over.
    taken: std::sync::atomic::AtomicBool,
}

impl<T> JobState<T> {
    /// Stores the result unless one is already there; signals completion if stored.
    fn finish(&self, result: JobResult<T>) {
        let mut slot = self.result.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() && !self.taken.load(Ordering::SeqCst) {
            *slot = Some(result);
            drop(slot);
            signal();
        }
    }
}

/// A running or finished job.
pub struct JobHandle<T> {
    id: u64,
    state: Arc<JobState<T>>,
    cancel: CancelToken,
}

impl<T> std::fmt::Debug for JobHandle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobHandle").field("id", &self.id).field("finished", &self.is_finished()).finish()
    }
}

impl<T> JobHandle<T> {
    /// A number unique in this process.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Drops the job's future. The result becomes [`JobResult::Cancelled`] unless the job
    /// had already finished. Returns at once.
    pub fn cancel(&self) {
        self.state.finish(JobResult::Cancelled);
        self.cancel.cancel();
    }

    /// Whether a result is waiting (or was taken).
    pub fn is_finished(&self) -> bool {
        self.state.taken.load(Ordering::SeqCst) || self.state.result.lock().map(|r| r.is_some()).unwrap_or(true)
    }

    /// The result, once: `None` while the job runs and after the result was taken.
    pub fn try_take(&self) -> Option<JobResult<T>> {
        let mut slot = self.state.result.lock().unwrap_or_else(|e| e.into_inner());
        let r = slot.take();
        if r.is_some() {
            self.state.taken.store(true, Ordering::SeqCst);
        }
        r
    }

    /// The job's cancellation token (cancelled by [`JobHandle::cancel`]).
    pub fn cancel_token(&self) -> CancelToken {
        self.cancel.clone()
    }
}

/// Dropping the handle cancels the job: nobody can take its result any more, so its
/// future (and any request it has open) is dropped now instead of running to its deadline.
impl<T> Drop for JobHandle<T> {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

/// Starts `future` on the runtime and returns at once.
pub fn spawn_job<T, F>(future: F) -> Result<JobHandle<T>, RuntimeError>
where
    T: Send + 'static,
    F: Future<Output = T> + Send + 'static,
{
    spawn_cancellable(|_| future)
}

/// Like [`spawn_job`], and hands the job's cancellation token to the code that builds
/// the future.
pub fn spawn_cancellable<T, F, M>(make: M) -> Result<JobHandle<T>, RuntimeError>
where
    T: Send + 'static,
    F: Future<Output = T> + Send + 'static,
    M: FnOnce(CancelToken) -> F,
{
    static NEXT_ID: AtomicU64 = AtomicU64::new(1);
    let rt = runtime()?;
    let cancel = CancelToken::new();
    let state = Arc::new(JobState { result: Mutex::new(None), taken: std::sync::atomic::AtomicBool::new(false) });
    let future = make(cancel.clone());
    let inner = rt.spawn(future);
    let abort = inner.abort_handle();
    let (watch_state, watch_cancel) = (state.clone(), cancel.clone());
    rt.spawn(async move {
        let result = tokio::select! {
            biased;
            _ = watch_cancel.cancelled() => {
                abort.abort();
                JobResult::Cancelled
            }
            joined = inner => match joined {
                Ok(v) => JobResult::Finished(v),
                Err(e) if e.is_cancelled() => JobResult::Cancelled,
                Err(e) => JobResult::Panicked(panic_message(e)),
            },
        };
        watch_state.finish(result);
    });
    Ok(JobHandle { id: NEXT_ID.fetch_add(1, Ordering::Relaxed), state, cancel })
}

fn panic_message(e: tokio::task::JoinError) -> String {
    match e.try_into_panic() {
        Ok(p) => match p.downcast::<String>() {
            Ok(s) => *s,
            Err(p) => p.downcast::<&'static str>().map(|s| s.to_string()).unwrap_or_else(|_| "a panic".into()),
        },
        Err(e) => e.to_string(),
    }
}

struct Notifier {
    #[cfg(unix)]
    writer: std::os::unix::net::UnixStream,
    #[cfg(unix)]
    read_fd: i32,
}

static NOTIFIER: OnceLock<Result<Notifier, RuntimeError>> = OnceLock::new();

#[cfg(unix)]
fn notifier() -> &'static Result<Notifier, RuntimeError> {
    NOTIFIER.get_or_init(|| {
        use std::os::fd::IntoRawFd;
        let failed = |e| RuntimeError::Pipe(Arc::new(e));
        // A socket pair rather than a pipe: the write end can be made non-blocking, so a
        // reader that stops reading can never stall the runtime.
        let (reader, writer) = std::os::unix::net::UnixStream::pair().map_err(failed)?;
        writer.set_nonblocking(true).map_err(failed)?;
        let _ = writer.shutdown(std::net::Shutdown::Read);
        let _ = reader.shutdown(std::net::Shutdown::Write);
        // The editor's event loop owns the read end from now on.
        Ok(Notifier { writer, read_fd: reader.into_raw_fd() })
    })
}

#[cfg(not(unix))]
fn notifier() -> &'static Result<Notifier, RuntimeError> {
    NOTIFIER.get_or_init(|| Err(RuntimeError::Unsupported))
}

/// Writes one byte to the completion pipe without a job finishing: a job has news (its
/// progress) for the editor, which looks at its jobs when a byte arrives.
pub fn wake() {
    signal();
}

/// Writes one byte to the completion pipe, if it was asked for. A full pipe drops the
/// byte (the reader has bytes waiting and will look at every job anyway).
fn signal() {
    #[cfg(unix)]
    if let Some(Ok(n)) = NOTIFIER.get() {
        use std::io::Write;
        let _ = (&n.writer).write(b"!");
    }
}

/// The read end of the completion pipe: one byte arrives per finished job (finished,
/// cancelled or panicked). Call it once, before starting jobs, and hand the descriptor
/// to the event loop (`vim.uv.new_pipe():open(fd)`), which then owns it; later calls
/// return the same number.
#[cfg(unix)]
pub fn notify_fd() -> Result<i32, RuntimeError> {
    notifier().as_ref().map(|n| n.read_fd).map_err(RuntimeError::clone)
}

/// The completion pipe is Unix-only; elsewhere, poll [`JobHandle::is_finished`].
#[cfg(not(unix))]
pub fn notify_fd() -> Result<i32, RuntimeError> {
    let _ = notifier();
    Err(RuntimeError::Unsupported)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn wait<T>(job: &JobHandle<T>) -> JobResult<T> {
        let start = Instant::now();
        loop {
            if let Some(r) = job.try_take() {
                return r;
            }
            assert!(start.elapsed() < Duration::from_secs(5), "job did not finish");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    #[test]
    fn a_job_returns_its_value_once() {
        let job = spawn_job(async { 6 * 7 }).unwrap();
        assert_eq!(wait(&job), JobResult::Finished(42));
        assert!(job.try_take().is_none());
        assert!(job.is_finished());
    }

    /// Sets its flag when dropped: tells whether a job's future was dropped.
    struct Dropped(Arc<std::sync::atomic::AtomicBool>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    /// A job that sleeps a minute, and the flag set when its future is dropped.
    fn sleeping_job() -> (JobHandle<i32>, Arc<std::sync::atomic::AtomicBool>) {
        let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let guard = Dropped(flag.clone());
        let job = spawn_job(async move {
            let _g = guard;
            tokio::time::sleep(Duration::from_secs(60)).await;
            1
        })
        .unwrap();
        std::thread::sleep(Duration::from_millis(20));
        assert!(!flag.load(Ordering::SeqCst), "the job is running");
        (job, flag)
    }

    fn wait_for(flag: &std::sync::atomic::AtomicBool, what: &str) {
        let t = Instant::now();
        while !flag.load(Ordering::SeqCst) {
            assert!(t.elapsed() < Duration::from_secs(2), "{what}");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn cancel_drops_the_future_promptly() {
        let (job, flag) = sleeping_job();
        job.cancel();
        assert_eq!(job.try_take(), Some(JobResult::Cancelled));
        wait_for(&flag, "future not dropped");
    }

    #[test]
    fn dropping_the_handle_cancels_the_job() {
        let (job, flag) = sleeping_job();
        drop(job);
        wait_for(&flag, "the future outlived its handle");
    }

    #[test]
    fn a_panic_is_a_result_not_a_crash() {
        let job = spawn_job(async {
            if std::hint::black_box(true) {
                panic!("boom");
            }
            0
        })
        .unwrap();
        match wait(&job) {
            JobResult::Panicked(m) => assert!(m.contains("boom")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn block_on_runs_on_the_runtime() {
        assert_eq!(
            block_on(async {
                tokio::time::sleep(Duration::from_millis(1)).await;
                5
            })
            .unwrap(),
            5
        );
    }
}
