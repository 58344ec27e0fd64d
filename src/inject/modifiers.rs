//! Keystrokes only with the person's hands off the modifier keys: waiting until they let go
//! (longer while the hotkey is held for the next recording), and whether keystrokes sent
//! arrived as sent. The decisions, separate from how the keyboard state is read (the platform
//! seam), so they are tested with scripted keyboard states.
//!
//! A paste shortcut sent while the person holds Ctrl+Alt (the hotkey of the next dictation)
//! arrives as Ctrl+Alt+V, which pastes nothing: such keystrokes never count as delivered.

use crate::platform::Modifiers;
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

/// How long to wait for the modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// The longest wait once the hotkey is up (the person letting go of a chord).
    pub released: Duration,
    /// The longest wait while the hotkey is held (a recording in progress: its key-up comes).
    pub hotkey_held: Duration,
    pub interval: Duration,
}

/// Polls every `bounds.interval` until the hotkey is up and `held` says no modifier is held.
/// While `hotkey_held` says the hotkey is down (the next dictation is being recorded) the wait
/// lasts up to `bounds.hotkey_held`, whatever the modifiers say: on X11 the hotkey's key grabs
/// the keyboard until it goes up, so a paste sent with only its letter key still down goes to
/// the app itself. Once it is up, up to `bounds.released` more for the modifiers. `sleep` is
/// `std::thread::sleep` in the app and a recorder in tests.
pub fn wait_until_released(
    mut held: impl FnMut() -> Option<bool>,
    mut hotkey_held: impl FnMut() -> bool,
    bounds: Bounds,
    mut sleep: impl FnMut(Duration),
) -> Released {
    let mut waited = Duration::ZERO;
    let mut since_hotkey_up = Duration::ZERO;
    loop {
        let hotkey = hotkey_held();
        match (hotkey, held()) {
            (false, None) => return Released::Unknown,
            (false, Some(false)) => return Released::Yes,
            _ => {}
        }
        let out_of_time = if hotkey {
            waited >= bounds.hotkey_held
        } else {
            since_hotkey_up >= bounds.released
        };
        if out_of_time {
            return Released::TimedOut;
        }
        sleep(bounds.interval);
        waited += bounds.interval;
        if !hotkey {
            since_hotkey_up += bounds.interval;
        }
    }
}

/// Whether keystrokes sent between two readings of the modifiers did what they say: no
/// modifier held before them, and none but their own (`own`, e.g. Control of Ctrl+V, which a
/// reading right after may still see) after them, nor the hotkey down (`hotkey_after`; on X11
/// its key grabs the keyboard). A key pressed meanwhile may have turned Ctrl+V into Ctrl+Alt+V
/// or sent it to the hotkey's grab: not delivered. Where the modifiers cannot be read (`None`)
/// nothing better is known and they do not count against the keystrokes.
pub fn sent_as_is(
    before: Option<Modifiers>,
    after: Option<Modifiers>,
    own: Modifiers,
    hotkey_after: bool,
) -> bool {
    let clean_before = before.is_none_or(|m| !m.any());
    let clean_after = after.is_none_or(|m| !m.any_besides(own));
    clean_before && clean_after && !hotkey_after
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the wait against a scripted sequence of keyboard states; returns the outcome and
    /// the total time slept.
    fn run(states: &[Option<bool>], bound_ms: u64) -> (Released, Duration) {
        run_with_hotkey(states, &[], bound_ms, 60_000)
    }

    /// As [`run`], with the hotkey's state at each poll of held modifiers (up after the list).
    fn run_with_hotkey(
        states: &[Option<bool>],
        hotkey: &[bool],
        bound_ms: u64,
        hotkey_bound_ms: u64,
    ) -> (Released, Duration) {
        let mut states = states.iter().copied();
        let mut hotkey = hotkey.iter().copied();
        let mut slept = Duration::ZERO;
        let outcome = wait_until_released(
            || states.next().unwrap_or(Some(true)),
            || hotkey.next().unwrap_or(false),
            Bounds {
                released: Duration::from_millis(bound_ms),
                hotkey_held: Duration::from_millis(hotkey_bound_ms),
                interval: Duration::from_millis(10),
            },
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

    #[test]
    fn a_paste_waits_for_the_next_dictations_key_up_beyond_the_usual_bound() {
        // Sentence after sentence: the next dictation's hotkey is held for 3 s (300 polls),
        // then let go; the modifiers go up with it. The 1.5 s bound does not cut it short.
        let mut states = vec![Some(true); 301];
        states.push(Some(false));
        let hotkey = vec![true; 300];
        let (outcome, slept) = run_with_hotkey(&states, &hotkey, 1500, 3_600_000);
        assert_eq!(outcome, Released::Yes);
        assert_eq!(slept, Duration::from_millis(3010));
    }

    #[test]
    fn after_the_hotkey_goes_up_the_usual_bound_applies_again() {
        // Hotkey held for 1 s, then up, but a modifier stays down: 1.5 s more, then give up.
        let hotkey = vec![true; 100];
        let (outcome, slept) = run_with_hotkey(&[], &hotkey, 1500, 3_600_000);
        assert_eq!(outcome, Released::TimedOut);
        assert_eq!(slept, Duration::from_millis(2500));
        // A hotkey held past its own bound (a stuck key) gives up too.
        let (outcome, slept) = run_with_hotkey(&[], &[true; 1000], 1500, 200);
        assert_eq!(outcome, Released::TimedOut);
        assert_eq!(slept, Duration::from_millis(200));
    }

    fn keys(shift: bool, control: bool, alt: bool, command: bool) -> Option<Modifiers> {
        Some(Modifiers {
            shift,
            control,
            alt,
            command,
        })
    }

    #[test]
    fn keystrokes_sent_with_foreign_modifiers_held_are_not_delivered() {
        let ctrl = Modifiers {
            control: true,
            ..Modifiers::NONE
        };
        let none = keys(false, false, false, false);
        // Hands off the keys before and after: delivered.
        assert!(sent_as_is(none, none, ctrl, false));
        // Ctrl+Alt went down for the next dictation while Ctrl+V was sent: Ctrl+Alt+V.
        assert!(!sent_as_is(
            none,
            keys(false, true, true, false),
            ctrl,
            false
        ));
        assert!(!sent_as_is(
            none,
            keys(false, false, true, false),
            ctrl,
            false
        ));
        assert!(!sent_as_is(
            none,
            keys(true, false, false, false),
            ctrl,
            false
        ));
        // Held already before sending (never sent so by the injector, refused all the same).
        assert!(!sent_as_is(
            keys(false, true, false, false),
            none,
            ctrl,
            false
        ));
        // The shortcut's own Control, still seen right after it: its own, not foreign.
        assert!(sent_as_is(
            none,
            keys(false, true, false, false),
            ctrl,
            false
        ));
        // macOS: Command is the paste's own modifier, Control is foreign there.
        let cmd = Modifiers {
            command: true,
            ..Modifiers::NONE
        };
        assert!(sent_as_is(
            none,
            keys(false, false, false, true),
            cmd,
            false
        ));
        assert!(!sent_as_is(
            none,
            keys(false, true, false, true),
            cmd,
            false
        ));
        // Unreadable state: nothing better is known.
        assert!(sent_as_is(None, None, ctrl, false));
        // The next dictation's hotkey went down meanwhile (on X11 it grabs the keyboard).
        assert!(!sent_as_is(none, none, ctrl, true));
        assert!(!sent_as_is(None, None, ctrl, true));
    }

    #[test]
    fn a_hotkey_still_down_without_its_modifiers_is_waited_for() {
        // Ctrl and Alt went up first; Space, the key that grabs the keyboard, 50 ms later.
        let (outcome, slept) = run_with_hotkey(&[Some(false); 10], &[true; 5], 1500, 3_600_000);
        assert_eq!(outcome, Released::Yes);
        assert_eq!(slept, Duration::from_millis(50));
        // With the modifiers unreadable, the hotkey's key-up is still waited for.
        let (outcome, slept) = run_with_hotkey(&[None; 10], &[true; 3], 1500, 3_600_000);
        assert_eq!(outcome, Released::Unknown);
        assert_eq!(slept, Duration::from_millis(30));
    }
}
