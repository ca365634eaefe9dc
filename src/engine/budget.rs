//! The run budget: how long `utf8conf run` may take, as a duration or an input count.
//!
//! Written on the command line as a number with a unit: `500ms`, `60s`, `2m`, `1h` for a
//! wall-clock budget, or `100000i` (also `100000inputs`, `100k` + `i`, `2M` + `i`) for a
//! number of inputs. Underscores may group digits (`1_000_000i`). A bare number is an error
//! rather than a guess. An input-count budget makes a run fully reproducible (the same
//! inputs every time); a time budget is what people want interactively. Either way the run
//! also ends when the corpus runs out.

use std::time::Duration;

/// A run budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// Stop taking new inputs after this much wall-clock time.
    Time(Duration),
    /// Stop after this many inputs.
    Inputs(u64),
}

/// The default budget of `utf8conf run`: about a minute.
pub const DEFAULT_BUDGET: Budget = Budget::Time(Duration::from_secs(60));

impl Budget {
    /// Parses `60s`, `2m`, `500ms`, `1h`, `100000i`, `100kinputs`, ...
    pub fn parse(text: &str) -> Result<Budget, String> {
        /// The longest time budget: a year.
        const MAX_TIME_BUDGET: Duration = Duration::from_secs(365 * 86_400);
        let text = text.trim();
        let split = text
            .find(|c: char| !(c.is_ascii_digit() || c == '_'))
            .unwrap_or(text.len());
        let (digits, unit) = text.split_at(split);
        let digits: String = digits.chars().filter(|&c| c != '_').collect();
        let number: u64 = digits
            .parse()
            .map_err(|_| format!("budget '{text}' does not start with a number"))?;
        let unit = unit.trim();
        let (multiplier, unit) = match unit.chars().next() {
            Some('k') => (1_000, &unit[1..]),
            Some('M') => (1_000_000, &unit[1..]),
            _ => (1, unit),
        };
        let count = || {
            number
                .checked_mul(multiplier)
                .ok_or_else(|| format!("budget '{text}' is too large"))
        };
        // A time budget is at most MAX_TIME_BUDGET: larger values overflowed (`m`, `h`
        // silently wrapped) or panicked when added to the start time.
        let time = |millis_per_unit: u64| {
            number
                .checked_mul(millis_per_unit)
                .map(Duration::from_millis)
                .filter(|duration| *duration <= MAX_TIME_BUDGET)
                .map(Budget::Time)
                .ok_or_else(|| {
                    format!(
                        "budget '{text}' is longer than the limit of {} days",
                        MAX_TIME_BUDGET.as_secs() / 86_400
                    )
                })
        };
        match (multiplier, unit) {
            (1, "ms") => time(1),
            (1, "s") => time(1_000),
            (1, "m" | "min") => time(60_000),
            (1, "h") => time(3_600_000),
            (_, "i" | "inputs") => Ok(Budget::Inputs(count()?)),
            _ => Err(format!(
                "budget '{text}': give a duration (500ms, 60s, 2m, 1h) or an input count (100000i, 100ki, 2Mi)"
            )),
        }
    }

    /// The budget written the way [`Budget::parse`] reads it.
    pub fn describe(&self) -> String {
        match self {
            Budget::Time(duration) if duration.subsec_millis() != 0 || duration.as_secs() == 0 => {
                format!("{}ms", duration.as_millis())
            }
            Budget::Time(duration) => format!("{}s", duration.as_secs()),
            Budget::Inputs(count) => format!("{count}i"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_durations_and_counts() {
        assert_eq!(
            Budget::parse("60s"),
            Ok(Budget::Time(Duration::from_secs(60)))
        );
        assert_eq!(
            Budget::parse("2m"),
            Ok(Budget::Time(Duration::from_secs(120)))
        );
        assert_eq!(
            Budget::parse("250ms"),
            Ok(Budget::Time(Duration::from_millis(250)))
        );
        assert_eq!(Budget::parse("100000i"), Ok(Budget::Inputs(100_000)));
        assert_eq!(Budget::parse("1_000inputs"), Ok(Budget::Inputs(1_000)));
        assert_eq!(Budget::parse("5ki"), Ok(Budget::Inputs(5_000)));
        assert_eq!(Budget::parse("2Mi"), Ok(Budget::Inputs(2_000_000)));
        assert!(Budget::parse("60").is_err());
        assert!(Budget::parse("s").is_err());
        assert!(Budget::parse("5ks").is_err());
    }

    /// `18446744073709551615s` once panicked and `307445734561825861m` silently became
    /// 44 s: a budget too large to add to the clock is an error.
    #[test]
    fn huge_time_budgets_are_errors_not_panics_or_wraps() {
        for huge in [
            "18446744073709551615s",
            "307445734561825861m",
            "9999999h",
            "99999999999999999ms",
        ] {
            let error = Budget::parse(huge).unwrap_err();
            assert!(error.contains("longer than the limit"), "{huge}: {error}");
        }
        assert!(
            Budget::parse("18446744073709551616s").is_err(),
            "beyond u64"
        );
        assert_eq!(
            Budget::parse("8760h"),
            Ok(Budget::Time(Duration::from_secs(8760 * 3600)))
        );
    }

    #[test]
    fn describe_round_trips() {
        for text in ["60s", "250ms", "100000i"] {
            assert_eq!(Budget::parse(text).unwrap().describe(), text);
        }
    }
}
