//! Which of a cell's bouts ran at the host's undisturbed speed, where the host ran the canary at
//! two speeds. Some shared VMs switch between a fast and a slow state for seconds to minutes
//! (md5@16 at 235 or 360 ns a call, nothing between; docs/experiments/host-noise.md). Judged
//! against its own lower quartile, a cell whose quartile lies in the slow state keeps the slow
//! bouts, one whose quartile lies in the fast state the fast ones, so two runs of one build
//! read a cell a state apart (A/A across runs called 21 of 48 cells different at those hours).
//! Judged against the canary's **floor** instead (the fastest the machine has run it, learnt
//! over its runs and stamped on each bout as `canary_floor_ns`, or the cell's own third fastest
//! bout where that is lower), every run keeps the fast state's bouts: replayed on the stored
//! runs of those hours, 10 of 122 cells called different, 1 of 48 at the hour the quartile rule
//! happened to land on the fast state. A cell that never ran at the floor keeps the quartile
//! rule and says so ([`CellFloor::reached`]), rather than passing off the slow state as the
//! speed; that includes a run the host slowed evenly by over [`TWO_SPEEDS_GAP`] throughout.

use cryptospeed_model::BoutDisturbance;

/// A bout whose slower canary reading is within this share of the floor ran at the floor.
pub const FLOOR_BAND: f64 = 0.05;
/// The cell's median slower reading at least this much above the floor: its host ran at two
/// speeds (quiet cells' canaries sit within 0.1% of each other; the two states 1.3–1.5× apart).
pub const TWO_SPEEDS_GAP: f64 = 0.15;
/// Fewest bouts at the floor before only they count: one odd fast bout is not a state.
pub const MIN_FLOOR_BOUTS: usize = 3;

/// Whether the worker timed a canary around the bout (the Rust worker does; others do not).
pub fn has_canary(d: &BoutDisturbance) -> bool {
    d.canary_ns.iter().all(|c| *c > 0)
}

/// The slower of the bout's two canary readings.
pub fn slower(d: &BoutDisturbance) -> u64 {
    d.canary_ns[0].max(d.canary_ns[1])
}

/// How a cell's bouts stand against the canary's floor, where its host ran at two speeds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellFloor {
    /// The floor judged against, nanoseconds: the machine's learnt floor (the latest bout's
    /// stamp), or the cell's third fastest slower reading where that is lower or none is learnt.
    pub floor_ns: u64,
    /// Bouts with a canary whose slower reading is within [`FLOOR_BAND`] of the floor.
    pub at_floor: usize,
    /// Bouts with a canary.
    pub bouts: usize,
}

impl CellFloor {
    /// Whether enough bouts ran at the floor for only them to count.
    pub fn reached(&self) -> bool {
        self.at_floor >= MIN_FLOOR_BOUTS
    }

    fn limit(&self) -> f64 {
        self.floor_ns as f64 * (1.0 + FLOOR_BAND)
    }
}

/// The cell's standing against the floor where its median bout's canary ran over
/// [`TWO_SPEEDS_GAP`] above it (a host at two speeds, or one that slowed the whole cell by that
/// much); `None` where it did not (a quiet host, or one slowed by less, judged by the quartile
/// rule and the quiet reference's shift alone) or with under three bouts timed.
pub fn cell_floor(disturbances: &[BoutDisturbance]) -> Option<CellFloor> {
    let mut readings: Vec<u64> = disturbances
        .iter()
        .filter(|d| has_canary(d))
        .map(slower)
        .collect();
    readings.sort_unstable();
    let own = *readings.get(MIN_FLOOR_BOUTS - 1)?;
    let learnt = disturbances
        .iter()
        .filter(|d| d.canary_floor_ns > 0)
        .max_by_key(|d| d.bout)
        .map_or(u64::MAX, |d| d.canary_floor_ns);
    let floor_ns = own.min(learnt);
    let median = readings[(readings.len() - 1) / 2];
    if (median as f64) < floor_ns as f64 * (1.0 + TWO_SPEEDS_GAP) {
        return None;
    }
    let limit = floor_ns as f64 * (1.0 + FLOOR_BAND);
    Some(CellFloor {
        floor_ns,
        at_floor: readings.iter().filter(|r| **r as f64 <= limit).count(),
        bouts: readings.len(),
    })
}

/// The bouts to set aside for running above the floor: every bout with a canary past
/// [`FLOOR_BAND`] over it, where the cell's host ran at two speeds and enough bouts reached the
/// floor; `None` where the quartile rule judges the cell.
pub fn above_floor_bouts(disturbances: &[BoutDisturbance]) -> Option<Vec<u32>> {
    let floor = cell_floor(disturbances).filter(CellFloor::reached)?;
    Some(
        disturbances
            .iter()
            .filter(|d| has_canary(d) && slower(d) as f64 > floor.limit())
            .map(|d| d.bout)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bout(bout: u32, slower: u64, floor: u64) -> BoutDisturbance {
        BoutDisturbance {
            bout,
            canary_ns: [slower - 200, slower],
            canary_floor_ns: floor,
            ..Default::default()
        }
    }

    /// Slower readings as the two-state VM gave them (2026-11-29 12:12 UTC): 65–69 µs fast,
    /// 80–146 µs slow; `fast` of the 40 bouts in the fast state.
    fn two_speeds(fast: &[u32], floor: u64) -> Vec<BoutDisturbance> {
        (0..40)
            .map(|i| {
                let ns = if fast.contains(&i) {
                    66_000 + 100 * u64::from(i % 5)
                } else {
                    82_000 + 1_500 * u64::from(i)
                };
                bout(i, ns, floor)
            })
            .collect()
    }

    #[test]
    fn at_two_speeds_only_the_bouts_at_the_floor_count() {
        // Four fast bouts of 40: the quartile lies in the slow state, the floor rule keeps the
        // four.
        let d = two_speeds(&[3, 11, 20, 33], 0);
        let f = cell_floor(&d).unwrap();
        assert_eq!((f.floor_ns, f.at_floor, f.bouts), (66_300, 4, 40));
        let aside = above_floor_bouts(&d).unwrap();
        assert_eq!(aside.len(), 36);
        assert!([3, 11, 20, 33].iter().all(|b| !aside.contains(b)));
        // A learnt floor 1% lower still holds them (within 5%); one 10% lower holds none, and
        // the cell is left to the quartile rule, marked as not having reached the floor.
        let d = two_speeds(&[3, 11, 20, 33], 65_600);
        assert_eq!(above_floor_bouts(&d).unwrap().len(), 36);
        let d = two_speeds(&[3, 11, 20, 33], 60_000);
        let f = cell_floor(&d).unwrap();
        assert_eq!((f.floor_ns, f.at_floor, f.reached()), (60_000, 0, false));
        assert_eq!(above_floor_bouts(&d), None);
    }

    #[test]
    fn a_run_that_never_reached_the_learnt_floor_is_not_taken_for_it() {
        // No bout fast (12:12 UTC's run 0: its own fastest bouts were the slow state's): the
        // cell's own third fastest would make a slow bout the floor; the learnt one does not.
        let d = two_speeds(&[], 65_500);
        let f = cell_floor(&d).unwrap();
        assert!(!f.reached());
        assert_eq!(above_floor_bouts(&d), None);
        // Without a learnt floor the cell's own fastest bouts are the floor: here the slow
        // state's least slowed, which is what a machine's first run can do; the learnt floor is
        // there so that later runs are not.
        let d = two_speeds(&[], 0);
        let f = cell_floor(&d).unwrap();
        assert_eq!((f.floor_ns, f.at_floor), (85_000, 5));
    }

    #[test]
    fn a_quiet_or_evenly_slowed_host_is_left_to_the_quartile_rule() {
        // Quiet: within 0.1%.
        let quiet: Vec<_> = (0..40)
            .map(|i| bout(i, 56_200 + u64::from(i), 56_180))
            .collect();
        assert_eq!(cell_floor(&quiet), None);
        // Every bout 10% over the learnt floor: under the gap, so the quiet reference's
        // shift (crate::host::canary_shift) deals with it, not the floor.
        let even: Vec<_> = (0..40)
            .map(|i| bout(i, 61_800 + u64::from(i), 56_180))
            .collect();
        assert_eq!(cell_floor(&even), None);
        // Every bout 20% over the learnt floor: no bout at the floor, so the quartile rule
        // judges it and the cell is marked as the slowed host's (crates/engine's `judged`).
        let slowed: Vec<_> = (0..40)
            .map(|i| bout(i, 67_400 + u64::from(i), 56_180))
            .collect();
        let f = cell_floor(&slowed).unwrap();
        assert_eq!((f.at_floor, f.reached()), (0, false));
        assert_eq!(above_floor_bouts(&slowed), None);
        // Just past the gap with its fast bouts: judged by the floor.
        let mut d: Vec<_> = (0..40).map(|i| bout(i, 64_700, 56_180)).collect();
        for b in [0, 1, 2] {
            d[b] = bout(b as u32, 56_200, 56_180);
        }
        assert_eq!(above_floor_bouts(&d).unwrap().len(), 37);
        // Two bouts timed, or none: nothing to judge.
        assert_eq!(cell_floor(&d[..2]), None);
        assert_eq!(cell_floor(&[]), None);
    }

    #[test]
    fn one_odd_fast_bout_is_not_a_floor() {
        // One bout 30% under the rest: the third fastest is the usual speed, so none is at a
        // floor apart from the rest.
        let mut d: Vec<_> = (0..20).map(|i| bout(i, 90_000 + u64::from(i), 0)).collect();
        d[4] = bout(4, 63_000, 0);
        assert_eq!(cell_floor(&d), None);
    }
}
