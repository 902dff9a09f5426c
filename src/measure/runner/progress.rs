//! How far the progress bar moves for a variant: a share for its check, the rest for its
//! timing.

/// Progress-bar units per variant: a variant part-way through its rounds moves the bar.
pub const PROGRESS_UNITS: u64 = 1000;

/// The share of a variant's progress units its build and check run earn (a case's phase 1),
/// so that the bar moves, and the ETA counts the time, while a case's variants are checked
/// (issue 40: "ETA 4m00s" while the checks ran, done at 52 s).
pub const CHECK_UNITS: u64 = 200;

/// A variant's progress in bar units: [`CHECK_UNITS`] once built and checked, the rest by the
/// fraction (0 to 1) of its timing done.
pub fn progress_units(checked: bool, timed: f64) -> u64 {
    if !checked {
        return 0;
    }
    let rest = (PROGRESS_UNITS - CHECK_UNITS) as f64 * timed.clamp(0.0, 1.0);
    CHECK_UNITS + rest as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_phase_moves_the_bar_and_timing_the_rest() {
        assert_eq!(progress_units(false, 0.0), 0);
        // Checked, not timed yet: the ETA has a rate to go by (it said `?`, or counted only
        // the timed variants).
        assert_eq!(progress_units(true, 0.0), CHECK_UNITS);
        assert!(progress_units(true, 0.0) > 0);
        assert_eq!(
            progress_units(true, 0.5),
            CHECK_UNITS + (PROGRESS_UNITS - CHECK_UNITS) / 2
        );
        assert_eq!(progress_units(true, 1.0), PROGRESS_UNITS);
        assert_eq!(progress_units(true, 7.0), PROGRESS_UNITS);
    }
}
