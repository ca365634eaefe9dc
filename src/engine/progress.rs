//! The progress display of a run, on stderr.
//!
//! On a terminal: one line redrawn in place a few times a second, with a bar when the end
//! is known (time budget, input budget, or a corpus of known size), the input count, the
//! rate in inputs per second and the number of distinct departures so far. Elsewhere (a CI
//! log, a pipe): one plain line every few seconds, so that logs stay readable.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use super::budget::Budget;

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressMode {
    /// Nothing.
    Off,
    /// A line redrawn in place (stderr is a terminal).
    Redraw,
    /// A plain line every few seconds.
    Lines,
}

impl ProgressMode {
    /// `Redraw` when stderr is a terminal, else `Lines`.
    pub fn for_stderr() -> ProgressMode {
        if std::io::stderr().is_terminal() {
            ProgressMode::Redraw
        } else {
            ProgressMode::Lines
        }
    }

    /// How often the display is refreshed.
    pub fn interval(self) -> Duration {
        match self {
            ProgressMode::Redraw => Duration::from_millis(200),
            _ => Duration::from_secs(5),
        }
    }
}

/// The progress display of one run.
pub struct Progress {
    mode: ProgressMode,
    started: Instant,
    budget: Budget,
    expected_inputs: Option<u64>,
    last_drawn: Instant,
    drew_anything: bool,
}

const BAR_WIDTH: usize = 24;

impl Progress {
    /// Starts the display.
    pub fn new(mode: ProgressMode, budget: Budget, expected_inputs: Option<u64>) -> Self {
        let now = Instant::now();
        Progress {
            mode,
            started: now,
            budget,
            expected_inputs,
            last_drawn: now,
            drew_anything: false,
        }
    }

    /// Refreshes the display if it is due.
    pub fn update(&mut self, inputs: u64, departures: usize) {
        if self.mode == ProgressMode::Off || self.last_drawn.elapsed() < self.mode.interval() {
            return;
        }
        self.last_drawn = Instant::now();
        self.draw(inputs, departures);
    }

    fn fraction(&self, inputs: u64) -> Option<f64> {
        let by_budget = match self.budget {
            Budget::Time(limit) => self.started.elapsed().as_secs_f64() / limit.as_secs_f64(),
            Budget::Inputs(limit) => inputs as f64 / limit.max(1) as f64,
        };
        let by_corpus = self
            .expected_inputs
            .map(|total| inputs as f64 / total.max(1) as f64);
        Some(by_corpus.map_or(by_budget, |c| c.max(by_budget)).min(1.0))
    }

    fn draw(&mut self, inputs: u64, departures: usize) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let rate = if elapsed > 0.0 {
            inputs as f64 / elapsed
        } else {
            0.0
        };
        let text = format!(
            "{:>7.1}s  {} inputs  {}/s  {} departure{}",
            elapsed,
            group_digits(inputs),
            group_digits(rate as u64),
            departures,
            if departures == 1 { "" } else { "s" }
        );
        let mut stderr = std::io::stderr().lock();
        match self.mode {
            ProgressMode::Redraw => {
                let filled = self
                    .fraction(inputs)
                    .map_or(0, |f| (f * BAR_WIDTH as f64) as usize);
                let bar = format!("[{}{}]", "#".repeat(filled), "-".repeat(BAR_WIDTH - filled));
                let _ = write!(stderr, "\r\x1b[2K{bar} {text}");
            }
            ProgressMode::Lines => {
                let _ = writeln!(stderr, "utf8conf: {text}");
            }
            ProgressMode::Off => return,
        }
        let _ = stderr.flush();
        self.drew_anything = true;
    }

    /// Draws the final state and ends the line.
    pub fn finish(&mut self, inputs: u64, departures: usize) {
        if self.mode == ProgressMode::Off {
            return;
        }
        self.draw(inputs, departures);
        if self.mode == ProgressMode::Redraw && self.drew_anything {
            let _ = writeln!(std::io::stderr());
        }
    }
}

/// `1234567` as `1,234,567`.
pub fn group_digits(number: u64) -> String {
    let digits = number.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_digits_by_three() {
        assert_eq!(group_digits(0), "0");
        assert_eq!(group_digits(999), "999");
        assert_eq!(group_digits(1000), "1,000");
        assert_eq!(group_digits(1234567), "1,234,567");
    }
}
