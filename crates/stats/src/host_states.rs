//! Whether the host ran the canary at more than one speed during a run. Some shared VMs switch
//! between a fast and a slow state for seconds to minutes (one ran md5@16 at 235 or 360 ns a
//! call, nothing between; docs/experiments/host-noise.md). A cell that reached the canary's
//! floor keeps only its bouts there (`crate::canary_floor`); one that did not is judged by its
//! own lower quartile, and keeps whichever state that lies in. Nothing here changes a figure;
//! the run's closing line says when the host moved and from which state the cells' kept bouts
//! came, so a reader knows which figures are of the fast state.

use crate::canary_floor::{has_canary, slower};
use crate::host::slow_canary_bouts;
use cryptospeed_model::{BoutDisturbance, Measurement};

/// A bout whose slower canary reading is within this share of the run's fastest ran in the
/// fast state.
pub const FAST_STATE_BAND: f64 = 0.05;
/// Half the run's bouts had a canary at least this much slower than the fastest: the host ran
/// the canary at more than one speed (quiet runs' canaries sit within 0.1% of each other).
pub const SLOW_STATE_GAP: f64 = 0.15;
/// Fewest bouts with a canary, and fewest in the fast state, before a run is judged: one odd
/// fast reading (a reading 13% under all its cell's others was seen) is not a state.
const MIN_BOUTS: usize = 20;
const MIN_FAST_BOUTS: usize = 3;

/// The canary's two speeds over a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HostStates {
    /// The run's fastest canary: the 2nd percentile of its bouts' slower readings, nanoseconds.
    pub floor_ns: u64,
    /// Bouts with a canary within [`FAST_STATE_BAND`] of the floor, of all bouts with a canary.
    pub fast_bouts: usize,
    pub bouts: usize,
    /// The median slower reading over the floor.
    pub median_ratio: f64,
}

impl HostStates {
    /// Whether bout `d` ran in the fast state.
    pub fn is_fast(&self, d: &BoutDisturbance) -> bool {
        slower(d) as f64 <= self.floor_ns as f64 * (1.0 + FAST_STATE_BAND)
    }

    /// The share of `m`'s kept bouts (those its canary rule did not set aside) that ran in the
    /// fast state; `None` where it kept no bout with a canary.
    pub fn fast_share_kept(&self, m: &Measurement) -> Option<f64> {
        let slow = slow_canary_bouts(&m.disturbances);
        let kept: Vec<&BoutDisturbance> = m
            .disturbances
            .iter()
            .filter(|d| has_canary(d) && !slow.contains(&d.bout))
            .collect();
        let fast = kept.iter().filter(|d| self.is_fast(d)).count();
        (!kept.is_empty()).then(|| fast as f64 / kept.len() as f64)
    }
}

/// The run's host states from every bout's canary, where it ran at more than one speed:
/// at least [`MIN_FAST_BOUTS`] bouts near the floor and the median over [`SLOW_STATE_GAP`]
/// above it. `None` for a run with one speed, or too few bouts to tell.
pub fn host_states<'a>(bouts: impl IntoIterator<Item = &'a BoutDisturbance>) -> Option<HostStates> {
    let mut readings: Vec<u64> = bouts
        .into_iter()
        .filter(|d| has_canary(d))
        .map(slower)
        .collect();
    if readings.len() < MIN_BOUTS {
        return None;
    }
    readings.sort_unstable();
    let n = readings.len();
    let floor_ns = readings[(n - 1) * 2 / 100];
    let median_ratio = readings[(n - 1) / 2] as f64 / floor_ns as f64;
    let limit = floor_ns as f64 * (1.0 + FAST_STATE_BAND);
    let fast_bouts = readings.iter().filter(|r| **r as f64 <= limit).count();
    (fast_bouts >= MIN_FAST_BOUTS && median_ratio >= 1.0 + SLOW_STATE_GAP).then_some(HostStates {
        floor_ns,
        fast_bouts,
        bouts: n,
        median_ratio,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bout(bout: u32, ns: u64) -> BoutDisturbance {
        BoutDisturbance {
            bout,
            canary_ns: [ns - 100, ns],
            nivcsw: 0,
            run_delay_ns: 0,
            steal_ns: 0,
            canary_quiet_ns: 0,
            canary_floor_ns: 0,
        }
    }

    #[test]
    fn a_host_at_two_speeds_is_told_from_a_quiet_one_and_from_one_odd_reading() {
        // Canaries as the two-state VM read them: 65-69 us fast, 90-146 us slow (12:12 UTC).
        let two: Vec<BoutDisturbance> = (0..40)
            .map(|i| {
                bout(
                    i,
                    if i % 8 == 0 {
                        66_000 + i as u64 * 50
                    } else {
                        95_000 + i as u64 * 1000
                    },
                )
            })
            .collect();
        let s = host_states(&two).unwrap();
        assert_eq!((s.fast_bouts, s.bouts), (5, 40));
        assert!(s.median_ratio > 1.5, "{s:?}");
        // Quiet: within 0.1%.
        let quiet: Vec<BoutDisturbance> = (0..40).map(|i| bout(i, 56_200 + i as u64)).collect();
        assert_eq!(host_states(&quiet), None);
        // One reading 13% under the rest is no state; nor are too few bouts.
        let mut odd = quiet.clone();
        odd[7] = bout(7, 48_900);
        assert_eq!(host_states(&odd), None);
        assert_eq!(host_states(&two[..19]), None);
    }

    #[test]
    fn a_cells_kept_bouts_are_counted_by_their_state() {
        let two: Vec<BoutDisturbance> = (0..40)
            .map(|i| bout(i, if i % 8 == 0 { 66_000 } else { 95_000 }))
            .collect();
        let s = host_states(&two).unwrap();
        let cell = |d: &[BoutDisturbance]| {
            let spec = cryptospeed_model::CellSpec {
                primitive: "md5".into(),
                op: cryptospeed_model::Op::Hash,
                bytes: Some(16),
                misalign: 0,
            };
            let mut m = Measurement::not_timed(spec, cryptospeed_model::Status::Ok, "");
            m.disturbances = d.to_vec();
            m
        };
        // Mostly slow: the cell's lower quartile is slow, so it keeps every bout, 1 of 8 fast.
        assert_eq!(s.fast_share_kept(&cell(&two[..8])), Some(1.0 / 8.0));
        // Half fast: its quartile is fast and the slow bouts are set aside.
        let half: Vec<BoutDisturbance> = (0..8)
            .map(|i| bout(i, [66_000, 95_000][i as usize % 2]))
            .collect();
        assert_eq!(s.fast_share_kept(&cell(&half)), Some(1.0));
        assert_eq!(s.fast_share_kept(&cell(&[])), None);
    }
}
