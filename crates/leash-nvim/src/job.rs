//! The planning job: started on the runtime thread, polled by Lua when the completion
//! pipe says something happened.

use mlua::{Lua, Table, UserData, UserDataMethods, UserDataRef, Value as LuaValue};

use leash_core::planner::polled::{PolledJob, Settled};
use leash_core::runtime;

use crate::catalog::LuaCatalog;
use crate::convert::{context_deferred, err, limit_and_mode, policy, provider, to_lua};
use crate::method;

/// A planning request running on the runtime thread. Lua holds it and asks for the
/// result (and for progress) when the completion pipe says something happened.
pub struct LuaPlanJob(PolledJob);

impl UserData for LuaPlanJob {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        method(methods, "id", |_, this, ()| Ok(this.0.id()));
        method(methods, "cancel", |_, this, ()| {
            this.0.cancel();
            Ok(())
        });
        method(methods, "is_finished", |_, this, ()| Ok(this.0.is_finished()));
        // nil while running; then, once, {status = "done"|"error"|"cancelled", …}.
        method(methods, "take", take);
        // Milliseconds from the start until the request left (or the offline plan was
        // made), or nil before.
        method(methods, "left_ms", |_, this, ()| Ok(this.0.left_ms()));
        // The latest progress line since the last call (`looking up …`), or nil.
        method(methods, "progress", |_, this, ()| Ok(this.0.progress()));
    }
}

/// `plan_start(catalog, request, opts?)`: starts planning and returns the job at once
/// (`opts`: limit, context, provider, profile, raise).
pub fn plan_start(
    lua: &Lua,
    (catalog, request, opts): (UserDataRef<LuaCatalog>, String, Option<Table>),
) -> mlua::Result<LuaPlanJob> {
    let (limit, _) = limit_and_mode(&opts)?;
    // The current values' text is read on the planner's thread.
    let context = context_deferred(lua, &opts)?;
    let provider = provider(lua, &opts)?;
    let policy = policy(lua, &catalog.0, &opts)?;
    let mut req = catalog.0.plan_request(request, policy);
    req.limit = limit;
    req.context = context;
    req.provider = provider;
    PolledJob::start(req).map(LuaPlanJob).map_err(err)
}

/// `wants_colorschemes(request)`: whether the offline planner may need the installed
/// color schemes for `request` (it names one the way a phrase does). Listing them
/// searches every 'runtimepath' folder, which the other requests need not wait for.
pub fn wants_colorschemes(_: &Lua, request: mlua::String) -> mlua::Result<bool> {
    // A request that is not UTF-8 is read as plan_start reads it, lossily.
    Ok(leash_core::planner::offline::wants_colorschemes(&request.to_string_lossy()))
}

/// `job:take()`: how the job ended as `{ status, plan?, error?, code?, log? }`, once.
fn take(lua: &Lua, this: &LuaPlanJob, (): ()) -> mlua::Result<LuaValue> {
    let Some(settled) = this.0.take() else { return Ok(LuaValue::Nil) };
    let out = lua.create_table()?;
    match settled {
        Settled::Done { plan, log } => {
            out.set("status", "done")?;
            out.set("plan", to_lua(lua, &plan.to_json())?)?;
            out.set("log", log)?;
        }
        Settled::Cancelled => out.set("status", "cancelled")?,
        Settled::Failed { message, code, log } => {
            out.set("status", "error")?;
            out.set("error", message)?;
            out.set("code", code)?;
            out.set("log", log)?;
        }
    }
    Ok(LuaValue::Table(out))
}

/// `notify_fd()`: the read end of the completion pipe, one byte per finished job. Call
/// once.
pub fn notify_fd(_: &Lua, (): ()) -> mlua::Result<i32> {
    runtime::notify_fd().map_err(err)
}
