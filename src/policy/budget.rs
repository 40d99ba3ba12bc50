//! Limits that add up over a whole plan: one `:sleep 10` is a pause, ten of them freeze the
//! editor for a minute and a half from a plan that may run without the window. No plan
//! has a reason to wait long, so the whole plan gets a few seconds.

use super::{neovim, Profile};
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
        if profile != Profile::Neovim || id != "cmd:sleep" {
            return Ok(());
        }
        let total = self.sleep_ms.saturating_add(neovim::sleep_millis(args));
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
}
