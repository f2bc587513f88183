//! How long to wait for the model: the predecessor's smart formula, the adaptive p90 window,
//! the bump after a timeout, and the per-call budget (groundwork of issue 6).
//!
//! - Static: `base + per_1k_chars × chars/1000`, clamped to `[min, max]`, plus `cold_load_extra`
//!   when the model is cold.
//! - Adaptive (on by default): warm call durations go into a window of the last N (8); cold
//!   loads are kept apart and never used. The next warm timeout is `max(2 × p90, min)` plus the
//!   per-1k term, clamped; no samples yet means the static formula.
//! - A MODEL_TIMEOUT never shrinks it: each one multiplies the next timeout by 1.5 (still capped
//!   by `max`) until a success resets the bump.
//! - History is kept in `timing_stats.json` in the sessions directory, written atomically; a
//!   missing or corrupt file means no history.
//! - The call budget caps every wait at what is left of the call; with under 5 s left the call
//!   answers MODEL_TIMEOUT at once.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::Config;

/// The least budget worth a model call, in seconds.
pub const MIN_USEFUL_BUDGET: f64 = 5.0;

/// Timing history, as persisted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TimingStats {
    /// Recent warm call durations, seconds, oldest first.
    #[serde(default)]
    pub warm: Vec<f64>,
    /// Recent cold-load durations, seconds (kept apart, never used for the timeout).
    #[serde(default)]
    pub cold: Vec<f64>,
    /// Timeouts since the last success (each multiplies the next timeout by 1.5).
    #[serde(default)]
    pub timeouts_in_a_row: u32,
}

/// Where a timeout came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The static formula.
    Static,
    /// The adaptive window.
    Adaptive,
    /// Raised after timeouts.
    Bumped,
}

/// One computed timeout, with the `timing` fields answers carry.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Timeout {
    /// Seconds to wait.
    pub timeout_seconds: f64,
    /// Where it came from.
    pub timeout_source: Source,
    /// Warm samples it was based on (left out when none).
    #[serde(skip_serializing_if = "is_zero")]
    pub samples: usize,
    /// The model was cold (extra added); left out when warm.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cold: bool,
    /// The call's budget, when on (shown only when it cut the timeout, to keep answers small).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_seconds: Option<f64>,
    /// The budget cut the timeout (left out when it did not).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub budget_capped: bool,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl TimingStats {
    /// Reads `timing_stats.json`; anything unreadable is no history.
    pub fn load(sessions_dir: &Path) -> TimingStats {
        std::fs::read(path(sessions_dir))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    /// Writes `timing_stats.json` atomically (best effort: history is an optimisation).
    pub fn save(&self, sessions_dir: &Path) {
        let bytes = serde_json::to_vec(self).unwrap_or_default();
        if crate::store::private::ensure_dir(sessions_dir).is_ok() {
            let _ = crate::store::persist::write_atomic(&path(sessions_dir), &bytes);
        }
    }

    /// Records a successful call's duration (resets the bump).
    pub fn record_success(&mut self, seconds: f64, cold: bool, window: usize) {
        let list = if cold { &mut self.cold } else { &mut self.warm };
        list.push(seconds);
        let extra = list.len().saturating_sub(window.max(1));
        list.drain(..extra);
        self.timeouts_in_a_row = 0;
    }

    /// Records a MODEL_TIMEOUT.
    pub fn record_timeout(&mut self) {
        self.timeouts_in_a_row = self.timeouts_in_a_row.saturating_add(1);
    }

    /// The timeout for a call over `chars` characters of input, `elapsed` seconds into the call.
    /// `None` when less than [`MIN_USEFUL_BUDGET`] of the budget is left.
    pub fn timeout(
        &self,
        config: &Config,
        chars: usize,
        cold: bool,
        elapsed: f64,
    ) -> Option<Timeout> {
        let per_1k = config.timeout_per_1k_chars * chars as f64 / 1000.0;
        let clamp = |x: f64| {
            x.clamp(
                config.timeout_min,
                config.timeout_max.max(config.timeout_min),
            )
        };
        let use_adaptive = config.adaptive_timeout && !self.warm.is_empty();
        let (mut seconds, mut source) = if use_adaptive {
            (
                clamp((2.0 * p90(&self.warm)).max(config.timeout_min) + per_1k),
                Source::Adaptive,
            )
        } else {
            (clamp(config.timeout_base + per_1k), Source::Static)
        };
        if self.timeouts_in_a_row > 0 {
            let bumped = seconds * 1.5f64.powi(self.timeouts_in_a_row.min(20) as i32);
            seconds = bumped.min(config.timeout_max.max(seconds));
            source = Source::Bumped;
        }
        if cold {
            seconds += config.cold_load_extra;
        }
        let budget = (config.call_budget_seconds > 0.0).then_some(config.call_budget_seconds);
        let mut capped = false;
        if let Some(budget) = budget {
            let left = budget - elapsed;
            if left < MIN_USEFUL_BUDGET {
                return None;
            }
            if seconds > left {
                seconds = left;
                capped = true;
            }
        }
        Some(Timeout {
            timeout_seconds: (seconds * 10.0).round() / 10.0,
            timeout_source: source,
            samples: if use_adaptive { self.warm.len() } else { 0 },
            cold,
            budget_seconds: budget.filter(|_| capped),
            budget_capped: capped,
        })
    }
}

fn path(sessions_dir: &Path) -> PathBuf {
    sessions_dir.join("timing_stats.json")
}

/// The 90th percentile (nearest rank) of `samples` (non-empty).
pub fn p90(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((0.9 * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        Config::defaults(&|_| None)
    }

    #[test]
    fn the_static_formula_with_cold_extra() {
        let stats = TimingStats::default();
        let t = stats
            .timeout(&config(), 2500, false, 0.0)
            .unwrap_or_else(|| panic!("budget"));
        assert_eq!(
            (t.timeout_seconds, t.timeout_source),
            (40.0, Source::Static)
        ); // 30 + 4 × 2.5
        let cold = stats
            .timeout(&config(), 0, true, 0.0)
            .unwrap_or_else(|| panic!("budget"));
        assert_eq!(cold.timeout_seconds, 75.0); // 30 + 45
        let long = stats
            .timeout(&config(), 100_000, false, 0.0)
            .unwrap_or_else(|| panic!("budget"));
        assert_eq!(long.timeout_seconds, 90.0, "clamped to max");
    }

    #[test]
    fn the_adaptive_window_uses_warm_samples_only() {
        let mut stats = TimingStats::default();
        stats.record_success(60.0, true, 8);
        for s in [5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0] {
            stats.record_success(s, false, 8);
        }
        assert_eq!(stats.warm.len(), 8, "a rolling window of 8");
        assert_eq!(p90(&stats.warm), 14.0);
        let t = stats
            .timeout(&config(), 0, false, 0.0)
            .unwrap_or_else(|| panic!("budget"));
        assert_eq!(
            (t.timeout_seconds, t.timeout_source, t.samples),
            (28.0, Source::Adaptive, 8)
        );
        let mut fast = TimingStats::default();
        fast.record_success(2.0, false, 8);
        let t = fast
            .timeout(&config(), 0, false, 0.0)
            .unwrap_or_else(|| panic!("budget"));
        assert_eq!(t.timeout_seconds, 20.0, "never under min");
        let mut off = config();
        off.adaptive_timeout = false;
        assert_eq!(
            stats.timeout(&off, 0, false, 0.0).map(|t| t.timeout_source),
            Some(Source::Static)
        );
    }

    #[test]
    fn timeouts_bump_until_a_success_and_the_budget_caps() {
        let mut stats = TimingStats::default();
        stats.record_timeout();
        let t = stats
            .timeout(&config(), 0, false, 0.0)
            .unwrap_or_else(|| panic!("budget"));
        assert_eq!(
            (t.timeout_seconds, t.timeout_source),
            (45.0, Source::Bumped)
        );
        stats.record_timeout();
        stats.record_timeout();
        let t = stats
            .timeout(&config(), 0, false, 0.0)
            .unwrap_or_else(|| panic!("budget"));
        assert_eq!(t.timeout_seconds, 90.0, "capped by max");
        stats.record_success(10.0, false, 8);
        assert_eq!(stats.timeouts_in_a_row, 0);
        let t = stats
            .timeout(&config(), 0, true, 100.0)
            .unwrap_or_else(|| panic!("budget"));
        assert!(
            t.budget_capped && (t.timeout_seconds - 10.0).abs() < 1e-9,
            "{t:?}"
        );
        assert!(
            stats.timeout(&config(), 0, false, 106.0).is_none(),
            "under 5 s left"
        );
    }

    #[test]
    fn history_survives_a_restart_and_a_corrupt_file_is_no_history() {
        let dir = tempfile::tempdir().unwrap();
        let mut stats = TimingStats::default();
        stats.record_success(3.5, false, 8);
        stats.save(dir.path());
        assert_eq!(TimingStats::load(dir.path()), stats);
        std::fs::write(dir.path().join("timing_stats.json"), b"{not json").unwrap();
        assert_eq!(TimingStats::load(dir.path()), TimingStats::default());
    }
}
