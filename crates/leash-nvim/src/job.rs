//! The planning job: started on the runtime thread, polled by Lua when the completion
//! pipe says something happened.

use std::sync::{Arc, Mutex};

use mlua::{Lua, LuaSerdeExt, Table, UserData, UserDataMethods, UserDataRef, Value as LuaValue};
use serde_json::Value;

use leash_core::llm::ProviderConfig;
use leash_core::planner::{self, LogRecord, PlanJob, PlanRequest};
use leash_core::runtime::{self, JobResult};

use crate::catalog::LuaCatalog;
use crate::convert::{context, err, limit_and_mode, opt, policy, to_lua};
use crate::method;

/// A planning request running on the runtime thread. Lua holds it and asks for the
/// result (and for progress) when the completion pipe says something happened.
pub struct LuaPlanJob {
    job: PlanJob,
    request: PlanRequest,
    /// The latest progress line not yet taken.
    progress: Arc<Mutex<Option<String>>>,
    started: std::time::Instant,
}

impl UserData for LuaPlanJob {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        method(methods, "id", |_, this, ()| Ok(this.job.id()));
        method(methods, "cancel", |_, this, ()| {
            this.job.cancel();
            Ok(())
        });
        method(methods, "is_finished", |_, this, ()| Ok(this.job.is_finished()));
        // nil while running; then, once, {status = "done"|"error"|"cancelled", …}.
        method(methods, "take", take);
        // The latest progress line since the last call (`looking up …`), or nil.
        method(methods, "progress", |_, this, ()| Ok(this.progress.lock().unwrap_or_else(|e| e.into_inner()).take()));
    }
}

/// `plan_start(catalog, request, opts?)`: starts planning and returns the job at once.
pub fn plan_start(
    lua: &Lua,
    (catalog, request, opts): (UserDataRef<LuaCatalog>, String, Option<Table>),
) -> mlua::Result<LuaPlanJob> {
    let (limit, _) = limit_and_mode(&opts)?;
    let context = context(lua, &opts)?;
    let config = match opt::<LuaValue>(&opts, "provider")? {
        Some(v) => {
            let json: Value = lua.from_value(v).map_err(|e| err(format!("option “provider”: {e}")))?;
            ProviderConfig::from_json(&json).map_err(err)?
        }
        None => ProviderConfig::default(),
    };
    let policy = policy(lua, &catalog.0, &opts)?;
    let mut req = PlanRequest::new(request, Arc::clone(&catalog.0), policy);
    req.index = Arc::clone(&catalog.1);
    req.limit = limit;
    req.context = context;
    req.provider = config;
    let progress = Arc::new(Mutex::new(None));
    let slot = Arc::clone(&progress);
    req.progress = Some(Arc::new(move |line: &str| {
        *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(line.to_string());
        runtime::wake();
    }));
    let job = planner::start(req.clone()).map_err(err)?;
    Ok(LuaPlanJob { job, request: req, progress, started: std::time::Instant::now() })
}

fn take(lua: &Lua, this: &LuaPlanJob, (): ()) -> mlua::Result<LuaValue> {
    let Some(result) = this.job.try_take() else { return Ok(LuaValue::Nil) };
    let out = lua.create_table()?;
    let failure = |out: &Table, message: String, code: &str, log: Option<LogRecord>| -> mlua::Result<()> {
        out.set("status", "error")?;
        out.set("error", message)?;
        out.set("code", code)?;
        if let Some(log) = log {
            out.set("log", log.to_line())?;
        }
        Ok(())
    };
    match result {
        JobResult::Finished(Ok(outcome)) => {
            out.set("status", "done")?;
            out.set("plan", to_lua(lua, &outcome.plan.to_json())?)?;
            out.set("log", outcome.log.to_line())?;
        }
        JobResult::Finished(Err(f)) if f.error.is_cancelled() => out.set("status", "cancelled")?,
        JobResult::Finished(Err(f)) => failure(&out, f.error.to_string(), f.error.code(), Some(*f.log))?,
        JobResult::Cancelled => out.set("status", "cancelled")?,
        JobResult::Panicked(what) => {
            let message = format!("leash: internal error while planning (please report it): {what}");
            let error = leash_core::llm::LlmError::Internal(message.clone());
            let log = LogRecord::failure(&this.request, &error, this.started.elapsed());
            failure(&out, message, "internal", Some(log))?
        }
    }
    Ok(LuaValue::Table(out))
}

/// `notify_fd()`: the read end of the completion pipe, one byte per finished job. Call
/// once.
pub fn notify_fd(_: &Lua, (): ()) -> mlua::Result<i32> {
    runtime::notify_fd().map_err(err)
}
