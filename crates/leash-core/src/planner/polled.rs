//! A planning job as an editor's main loop polls it: it runs on the runtime thread, keeps
//! its latest progress line and wakes the loop (the completion pipe) when it has one, and
//! ends in one of three ways the editor shows: a plan, cancelled, or an error with its
//! code and log record.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::llm::LlmError;
use crate::runtime::{self, JobResult, RuntimeError};
use crate::validate::ValidatedPlan;

use super::{start, LogRecord, PlanFailure, PlanJob, PlanOutcome, PlanRequest};

/// A planning job started for an editor.
pub struct PolledJob {
    job: PlanJob,
    /// The request, for the log record of a job that panicked (without the context's
    /// current values).
    request: PlanRequest,
    /// The latest progress line not yet taken.
    progress: Arc<Mutex<Option<String>>>,
    started: Instant,
    /// When the local work was done (the request left, or the offline plan was made).
    left: Arc<OnceLock<Instant>>,
}

/// How a planning job ended, as the editor shows it.
#[derive(Debug)]
pub enum Settled {
    /// A validated plan and the log line of how it was made.
    Done { plan: ValidatedPlan, log: String },
    /// Cancelled by the user: not an error.
    Cancelled,
    /// No plan: the message, its code (`LlmError::code`) and the log line.
    Failed { message: String, code: &'static str, log: String },
}

impl PolledJob {
    /// Starts `request` on the runtime and returns at once. Its progress lines (a second
    /// look's `looking up …`) are kept for [`PolledJob::progress`] instead of any the
    /// request had, each waking the editor's loop; so is the moment the request left
    /// ([`PolledJob::left_ms`]).
    pub fn start(mut request: PlanRequest) -> Result<PolledJob, RuntimeError> {
        let started = Instant::now();
        let left = Arc::new(OnceLock::new());
        let at = Arc::clone(&left);
        request.leaving = Some(Arc::new(move || {
            let _ = at.set(Instant::now());
            runtime::wake();
        }));
        let progress = Arc::new(Mutex::new(None));
        let slot = Arc::clone(&progress);
        request.progress = Some(Arc::new(move |line: &str| {
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(line.to_string());
            runtime::wake();
        }));
        // The copy kept for the log record leaves out the current values (hundreds of
        // settings), which that record does not show: copying them cost more than the rest
        // of the request.
        let current = std::mem::take(&mut request.context.current);
        let current_text = request.context.current_text.take();
        let kept = request.clone();
        (request.context.current, request.context.current_text) = (current, current_text);
        let job = start(request)?;
        Ok(PolledJob { job, request: kept, progress, started, left })
    }

    /// A number unique in this process.
    pub fn id(&self) -> u64 {
        self.job.id()
    }

    /// Cancels the job; returns at once.
    pub fn cancel(&self) {
        self.job.cancel();
    }

    /// Whether the job ended (its result may have been taken).
    pub fn is_finished(&self) -> bool {
        self.job.is_finished()
    }

    /// Milliseconds from the start until the local work was done (the request to the
    /// model left, or the offline plan was made); `None` until then.
    pub fn left_ms(&self) -> Option<f64> {
        self.left.get().map(|at| at.duration_since(self.started).as_secs_f64() * 1000.0)
    }

    /// The latest progress line since the last call, if any.
    pub fn progress(&self) -> Option<String> {
        self.progress.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// How the job ended, once: `None` while it runs and after it was taken.
    pub fn take(&self) -> Option<Settled> {
        Some(settle(self.job.try_take()?, &self.request, self.started.elapsed()))
    }
}

/// How a job for `request` that ran `elapsed` ended: a failure that is a cancellation is
/// `Cancelled`; a panic is an internal error, with a log record made for it.
pub fn settle(
    result: JobResult<Result<PlanOutcome, PlanFailure>>,
    request: &PlanRequest,
    elapsed: Duration,
) -> Settled {
    match result {
        JobResult::Finished(Ok(outcome)) => Settled::Done { plan: outcome.plan, log: outcome.log.to_line() },
        JobResult::Finished(Err(f)) if f.error.is_cancelled() => Settled::Cancelled,
        JobResult::Finished(Err(f)) => {
            Settled::Failed { message: f.error.to_string(), code: f.error.code(), log: f.log.to_line() }
        }
        JobResult::Cancelled => Settled::Cancelled,
        JobResult::Panicked(what) => {
            let message = format!("leash: internal error while planning (please report it): {what}");
            let log = LogRecord::failure(request, &LlmError::Internal(message.clone()), elapsed).to_line();
            Settled::Failed { message, code: "internal", log }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Policy;
    use crate::profile::Profile;
    use crate::runtime::CancelToken;

    fn request(words: &str) -> PlanRequest {
        PlanRequest::new(words, Arc::new(crate::test_catalog::neovim()), Policy::new(Profile::Neovim))
    }

    fn failure(req: &PlanRequest, error: LlmError) -> PlanFailure {
        PlanFailure { log: Box::new(LogRecord::failure(req, &error, Duration::ZERO)), error }
    }

    #[test]
    fn each_way_a_job_ends_is_settled() {
        let req = request("turn on word wrap");
        let outcome = super::super::plan_blocking(&req, &CancelToken::new()).unwrap();
        let Settled::Done { plan, log } = settle(JobResult::Finished(Ok(outcome)), &req, Duration::ZERO) else {
            panic!("a plan")
        };
        assert!(matches!(&plan.steps[0].action, crate::validate::Action::Setting { key, .. } if key == "wrap"));
        assert!(log.contains("turn on word wrap"), "{log}");
        let cancelled = failure(&req, LlmError::Cancelled);
        assert!(matches!(settle(JobResult::Finished(Err(cancelled)), &req, Duration::ZERO), Settled::Cancelled));
        assert!(matches!(settle(JobResult::Cancelled, &req, Duration::ZERO), Settled::Cancelled));
        let refused = failure(&req, LlmError::Refused { provider: "p".into(), message: "no".into() });
        let Settled::Failed { message, code, log } = settle(JobResult::Finished(Err(refused)), &req, Duration::ZERO)
        else {
            panic!("a failure")
        };
        assert_eq!((message.as_str(), code), ("p refused to answer: no", "refused"));
        assert!(log.contains("p refused to answer: no"), "{log}");
        let Settled::Failed { message, code, log } =
            settle(JobResult::Panicked("boom at x.rs".into()), &req, Duration::from_millis(5))
        else {
            panic!("a failure")
        };
        assert_eq!(message, "leash: internal error while planning (please report it): boom at x.rs");
        assert_eq!(code, "internal");
        assert!(log.contains("boom at x.rs") && log.contains("\"code\":\"internal\""), "{log}");
    }

    /// Waits (at most 20 s) until `job` ended.
    fn wait(job: &PolledJob) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !job.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(job.is_finished(), "the job ended within 20 s");
    }

    #[test]
    fn a_job_says_when_its_local_work_was_done() {
        // Offline: when the plan was made, within the job's time, and in its log line.
        let job = PolledJob::start(request("turn on word wrap")).unwrap();
        wait(&job);
        let left = job.left_ms().expect("the offline plan was made");
        assert!(left > 0.0 && left <= job.started.elapsed().as_secs_f64() * 1000.0, "{left}");
        let Some(Settled::Done { log, .. }) = job.take() else { panic!("a plan") };
        assert!(log.contains("\"local_ms\":"), "{log}");
        // A model where nothing listens: the request left, then failed.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut req = request("turn on word wrap");
        req.provider = crate::llm::ProviderConfig::from_json(&serde_json::json!({
            "name": "ollama", "url": format!("http://127.0.0.1:{port}"), "model": "m", "retries": 0
        }))
        .unwrap();
        let job = PolledJob::start(req).unwrap();
        wait(&job);
        assert!(job.left_ms().is_some(), "it left");
        assert!(matches!(job.take(), Some(Settled::Failed { .. })));
    }

    #[test]
    fn a_started_job_is_taken_once_and_keeps_its_latest_progress_line() {
        let job = PolledJob::start(request("turn on word wrap")).unwrap();
        let tell = job.request.progress.clone().expect("the job's own progress");
        tell("looking up a");
        tell("looking up b");
        assert_eq!(job.progress().as_deref(), Some("looking up b"));
        assert_eq!(job.progress(), None, "taken");
        let deadline = Instant::now() + Duration::from_secs(20);
        while !job.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(matches!(job.take(), Some(Settled::Done { .. })));
        assert!(job.take().is_none(), "once");
        assert!(job.is_finished());
    }
}
