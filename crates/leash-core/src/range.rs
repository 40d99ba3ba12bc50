//! The user's line range: the lines `:'<,'>Do …` or `:2,4Do …` was given, which every
//! step whose command takes a range runs on.
//!
//! The range is the user's input, handed over by the editor beside the request; the
//! model never supplies one (the plan parser reads no range from a step). The validator
//! takes it and gives it to each kept item whose catalog entry says it takes a line
//! range, saying so in the step's label ("Run :sort on lines 2–4").

use serde::{Deserialize, Serialize};

use crate::item_id::ItemKind;

/// The builtin commands (by name) that, given a range, run the buffer's lines in it as
/// code (`:{range}lua` and `:{range}source`; `:@` and `:*` are withheld already). The
/// lines are buffer text the plan window does not show, so such a step is dropped.
/// Commands that run *their argument* on each line (`:luado`, `:global`, `:substitute`)
/// show what runs.
const RUNS_LINES: &[&str] = &["lua", "source", "@", "*"];

/// Lines `line1` to `line2`, counted from 1, `line1 <= line2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(into = "[u64; 2]")]
pub struct LineRange {
    line1: u64,
    line2: u64,
}

/// Why a range is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RangeError {
    #[error("a line range starts at line 1 or later, not {0}")]
    Zero(u64),
    #[error("a line range runs forward: {0} is after {1}")]
    Backwards(u64, u64),
}

impl LineRange {
    /// The range from `line1` to `line2`.
    pub fn new(line1: u64, line2: u64) -> Result<LineRange, RangeError> {
        if line1 == 0 {
            return Err(RangeError::Zero(line1));
        }
        if line1 > line2 {
            return Err(RangeError::Backwards(line1, line2));
        }
        Ok(LineRange { line1, line2 })
    }

    pub fn line1(self) -> u64 {
        self.line1
    }

    pub fn line2(self) -> u64 {
        self.line2
    }

    /// `line 3` or `lines 2–4`.
    pub fn describe(self) -> String {
        if self.line1 == self.line2 {
            format!("line {}", self.line1)
        } else {
            format!("lines {}–{}", self.line1, self.line2)
        }
    }
}

impl From<LineRange> for [u64; 2] {
    fn from(r: LineRange) -> [u64; 2] {
        [r.line1, r.line2]
    }
}

impl<'de> Deserialize<'de> for LineRange {
    /// `[2, 4]`, checked.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<LineRange, D::Error> {
        let [line1, line2] = <[u64; 2]>::deserialize(d)?;
        LineRange::new(line1, line2).map_err(serde::de::Error::custom)
    }
}

/// Whether the builtin command `id`, given a range, would run the lines in it as code
/// (`RUNS_LINES`): such a step is dropped rather than run on the user's range.
pub fn runs_lines_as_code(id: &str) -> bool {
    ItemKind::Command.name_in(id).is_some_and(|name| RUNS_LINES.contains(&name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_range_is_checked_when_it_is_read() {
        assert_eq!(LineRange::new(0, 3), Err(RangeError::Zero(0)));
        assert_eq!(LineRange::new(4, 2), Err(RangeError::Backwards(4, 2)));
        assert_eq!(serde_json::from_value::<LineRange>(json!([2, 4])).unwrap(), LineRange::new(2, 4).unwrap());
        assert!(serde_json::from_value::<LineRange>(json!([4, 2])).is_err());
        assert!(serde_json::from_value::<LineRange>(json!([-1, 2])).is_err());
        assert!(serde_json::from_value::<LineRange>(json!("2,4")).is_err());
    }
}
