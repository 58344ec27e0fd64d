//! Waiting until the user has let go of the modifier keys, with a bound: the decision logic,
//! separate from how the keyboard state is read (the platform seam), so it is tested with
//! scripted keyboard states.

use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Released {
    /// No modifier was held, or all were let go within the bound.
    Yes,
    /// Still held when the bound ran out.
    TimedOut,
    /// The keyboard state could not be read.
    Unknown,
}

/// Polls `held` every `interval` until it says no modifier is held, for at most `bound`.
/// `sleep` is `std::thread::sleep` in the app and a recorder in tests.
pub fn wait_until_released(
    mut held: impl FnMut() -> Option<bool>,
    bound: Duration,
    interval: Duration,
    mut sleep: impl FnMut(Duration),
) -> Released {
    let mut waited = Duration::ZERO;
    loop {
        match held() {
            None => return Released::Unknown,
            Some(false) => return Released::Yes,
            Some(true) if waited >= bound => return Released::TimedOut,
            Some(true) => {
                sleep(interval);
                waited += interval;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the wait against a scripted sequence of keyboard states; returns the outcome and
    /// the total time slept.
    fn run(states: &[Option<bool>], bound_ms: u64) -> (Released, Duration) {
        let mut states = states.iter().copied();
        let mut slept = Duration::ZERO;
        let outcome = wait_until_released(
            || states.next().unwrap_or(Some(true)),
            Duration::from_millis(bound_ms),
            Duration::from_millis(10),
            |d| slept += d,
        );
        (outcome, slept)
    }

    #[test]
    fn nothing_held_pastes_at_once() {
        assert_eq!(run(&[Some(false)], 1500), (Released::Yes, Duration::ZERO));
    }

    #[test]
    fn the_hotkey_released_before_its_modifiers_waits_for_them() {
        // Space went up first; Ctrl+Alt are let go 30 ms later.
        let (outcome, slept) = run(&[Some(true), Some(true), Some(true), Some(false)], 1500);
        assert_eq!(outcome, Released::Yes);
        assert_eq!(slept, Duration::from_millis(30));
    }

    #[test]
    fn modifiers_held_forever_give_up_at_the_bound() {
        let (outcome, slept) = run(&[], 100);
        assert_eq!(outcome, Released::TimedOut);
        assert_eq!(slept, Duration::from_millis(100));
    }

    #[test]
    fn an_unreadable_keyboard_does_not_wait() {
        assert_eq!(run(&[None], 1500), (Released::Unknown, Duration::ZERO));
    }
}
