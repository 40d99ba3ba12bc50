//! Limits that add up over a whole plan: one `:sleep 10` is a pause, ten of them freeze the
//! editor for a minute and a half from a plan that may run without the window. No plan
//! has a reason to wait long, so the whole plan gets a few seconds.
//!
//! Options whose value makes Neovim wait spend the same budget: `'messagesopt'` with
//! `wait:N` pauses N ms, input ignored, after a message that would have asked for Enter
//! (a `wait:9999` froze the editor 13 s from an unconfirmed plan). Its N counts once; the
//! same pause follows every such message later, so no single one can exceed the budget.
//! `'writedelay'` (ms per character drawn) is capped at 0 in the option table, so any
//! delay is refused there. `'matchtime'` (tenths of a second) is how long `'showmatch'`
//! pauses on every typed bracket; a typed key ends that pause unless `'cpoptions'` has
//! `m` (both safe options), so it counts too, whether or not `'showmatch'` is on now.

use crate::entry::SettingValue;
use crate::profile::Profile;
use crate::refusal::Refusal;

/// The longest a whole plan may sleep, in milliseconds.
pub const MAX_PLAN_SLEEP_MS: u64 = 3_000;

/// What the kept steps of a plan have spent so far.
#[derive(Debug, Default, Clone)]
pub struct PlanBudget {
    sleep_ms: u64,
}

impl PlanBudget {
    /// Counts an item step against the plan's limits; refuses the step that would go over.
    pub fn spend(&mut self, profile: Profile, id: &str, args: &[String]) -> Result<(), Refusal> {
        let ms = profile.rules().item_wait_ms(id, args);
        if ms == 0 {
            return Ok(());
        }
        let total = self.sleep_ms.saturating_add(ms);
        if total > MAX_PLAN_SLEEP_MS {
            return Err(Refusal::PlanSleep { max_ms: MAX_PLAN_SLEEP_MS });
        }
        self.sleep_ms = total;
        Ok(())
    }

    /// Counts a setting step against the plan's wait budget; refuses the step that would
    /// go over.
    pub fn spend_setting(&mut self, profile: Profile, key: &str, value: &SettingValue) -> Result<(), Refusal> {
        let Some(ms) = profile.rules().setting_wait_ms(key, value) else { return Ok(()) };
        let total = self.sleep_ms.saturating_add(ms);
        if total > MAX_PLAN_SLEEP_MS {
            return Err(Refusal::PlanSleep { max_ms: MAX_PLAN_SLEEP_MS });
        }
        self.sleep_ms = total;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn sleeps_add_up_to_the_cap() {
        let mut b = PlanBudget::default();
        for _ in 0..3 {
            assert!(b.spend(Profile::Neovim, "cmd:sleep", &args(&["1"])).is_ok());
        }
        let why = b.spend(Profile::Neovim, "cmd:sleep", &args(&["1m"])).unwrap_err();
        assert_eq!(why.code(), "plan_sleep");
        assert!(why.to_string().contains("more than 3 seconds"), "{why}");
        // A refused step spends nothing; other items are free.
        assert!(b.spend(Profile::Neovim, "cmd:vsplit", &[]).is_ok());
        let mut b = PlanBudget::default();
        assert!(b.spend(Profile::Neovim, "cmd:sleep", &args(&["2"])).is_ok());
        assert!(b.spend(Profile::Neovim, "cmd:sleep", &args(&["2"])).is_err());
        assert!(b.spend(Profile::Neovim, "cmd:sleep", &[]).is_ok());
        assert!(b.spend(Profile::Neovim, "cmd:sleep", &args(&["1m"])).is_err());
        assert!(PlanBudget::default().spend(Profile::Generic, "cmd:sleep", &args(&["99"])).is_ok());
    }

    fn text(s: &str) -> SettingValue {
        SettingValue::String(s.into())
    }

    #[test]
    fn messagesopt_wait_spends_the_sleep_budget() {
        let mut b = PlanBudget::default();
        let why = b.spend_setting(Profile::Neovim, "messagesopt", &text("wait:9999,history:500")).unwrap_err();
        assert_eq!(why.code(), "plan_sleep");
        // A short wait passes, and then counts: with it, a 2.5 s :sleep goes over.
        assert!(b.spend_setting(Profile::Neovim, "messagesopt", &text("wait:1000,history:500")).is_ok());
        assert!(b.spend(Profile::Neovim, "cmd:sleep", &args(&["2500m"])).is_err());
        assert!(b.spend(Profile::Neovim, "cmd:sleep", &args(&["2000m"])).is_ok());
        assert!(b.spend_setting(Profile::Neovim, "messagesopt", &text("wait:1,history:500")).is_err());
        assert!(b.spend_setting(Profile::Neovim, "messagesopt", &text("hit-enter,history:500")).is_ok());
        assert!(PlanBudget::default().spend_setting(Profile::Neovim, "matchtime", &SettingValue::Number(31)).is_err());
        assert!(PlanBudget::default().spend_setting(Profile::Neovim, "matchtime", &SettingValue::Number(5)).is_ok());
        // Other profiles have no 'messagesopt'.
        assert!(PlanBudget::default().spend_setting(Profile::Helix, "messagesopt", &text("wait:9999")).is_ok());
    }
}
