//! When to (re)create the keystroke sender. On macOS enigo refuses to create one
//! (`NewConError::NoPermission`) while the app lacks the Accessibility permission, so a sender
//! tried once at start, before the person granted it, would be missing for the life of the
//! process and every dictation would only be copied. [`KeyboardSlot`] holds the sender and
//! tries again whenever the permission it is given has changed since its last try, never while
//! the permission is known to be missing (enigo would only fail), and only once per permission
//! state (a sender that fails for another reason is not retried at every dictation). Where no
//! such permission exists (X11: `None`) that is one try at start, as before.
//!
//! Portable: the permission and the sender's constructor are passed in, so tests flip the
//! permission and count the tries.

/// The retry decision alone (see the module doc).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyboardRetry {
    /// The permission at the last look (`None` before the first).
    last_seen: Option<Option<bool>>,
    /// Whether a sender was tried since the permission last changed.
    tried: bool,
}

impl KeyboardRetry {
    /// Whether to try creating the sender now. `have`: one exists; `permission`: macOS's
    /// Accessibility now (`None` where there is no such permission).
    pub fn should_try(&mut self, have: bool, permission: Option<bool>) -> bool {
        if self.last_seen != Some(permission) {
            self.last_seen = Some(permission);
            self.tried = false;
        }
        if have || permission == Some(false) || self.tried {
            return false;
        }
        self.tried = true;
        true
    }
}

/// The keystroke sender, created when the permission allows it.
pub struct KeyboardSlot<K> {
    keyboard: Option<K>,
    retry: KeyboardRetry,
}

impl<K> Default for KeyboardSlot<K> {
    fn default() -> Self {
        KeyboardSlot {
            keyboard: None,
            retry: KeyboardRetry::default(),
        }
    }
}

impl<K> KeyboardSlot<K> {
    /// The sender, after creating it with `create` when [`KeyboardRetry`] says to try; a
    /// failure is logged and leaves the slot empty until the permission changes.
    pub fn get<E: std::fmt::Display>(
        &mut self,
        permission: Option<bool>,
        create: impl FnOnce() -> Result<K, E>,
    ) -> Option<&mut K> {
        if self.retry.should_try(self.keyboard.is_some(), permission) {
            match create() {
                Ok(keyboard) => {
                    tracing::info!(?permission, "keystrokes available");
                    self.keyboard = Some(keyboard);
                }
                Err(e) => tracing::warn!(
                    ?permission,
                    "keystrokes unavailable, text will only be copied: {e}"
                ),
            }
        }
        self.keyboard.as_mut()
    }

    /// The sender if one exists, without trying.
    pub fn current(&mut self) -> Option<&mut K> {
        self.keyboard.as_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A sender that, like enigo on macOS, can be created only while the permission is given.
    struct FakeKeyboard;

    /// Runs `permissions` through a slot one delivery at a time; returns after each delivery
    /// whether a sender was there, and how many times one was created.
    fn deliveries(permissions: &[Option<bool>], fail_always: bool) -> (Vec<bool>, usize) {
        let tries = Cell::new(0);
        let mut slot = KeyboardSlot::default();
        let had = permissions
            .iter()
            .map(|&permission| {
                slot.get(permission, || {
                    tries.set(tries.get() + 1);
                    if fail_always || permission == Some(false) {
                        Err("the application does not have the permission to simulate input")
                    } else {
                        Ok(FakeKeyboard)
                    }
                })
                .is_some()
            })
            .collect();
        (had, tries.get())
    }

    #[test]
    fn pasting_starts_working_once_accessibility_is_granted() {
        // Not trusted at start and for two dictations, then granted in System Settings.
        let (had, tries) = deliveries(
            &[
                Some(false),
                Some(false),
                Some(false),
                Some(true),
                Some(true),
            ],
            false,
        );
        assert_eq!(had, [false, false, false, true, true]);
        assert_eq!(tries, 1, "never tried while the permission was missing");
    }

    #[test]
    fn a_sender_that_fails_with_the_permission_is_retried_only_after_it_changes() {
        let (had, tries) = deliveries(&[Some(true), Some(true), Some(true)], true);
        assert_eq!(had, [false, false, false]);
        assert_eq!(tries, 1, "not retried at every dictation");
        // Revoked and granted again (the person re-added the app): one more try.
        let (_, tries) = deliveries(&[Some(true), Some(true), Some(false), Some(true)], true);
        assert_eq!(tries, 2);
    }

    #[test]
    fn without_such_a_permission_the_sender_is_tried_once() {
        // X11: created at the first look, kept.
        let (had, tries) = deliveries(&[None, None, None], false);
        assert_eq!(had, [true, true, true]);
        assert_eq!(tries, 1);
        // No display: one failed try, as before this existed.
        let (had, tries) = deliveries(&[None, None], true);
        assert_eq!(had, [false, false]);
        assert_eq!(tries, 1);
    }

    #[test]
    fn a_permission_source_that_flips_is_followed() {
        // The permission as the app's poller would read it, flipping on each look.
        let flips = Cell::new(true);
        let source = || {
            flips.set(!flips.get());
            Some(flips.get())
        };
        let mut slot = KeyboardSlot::default();
        let mut created = 0;
        for _ in 0..6 {
            let permission = source();
            slot.get(permission, || {
                created += 1;
                Ok::<_, &str>(FakeKeyboard)
            });
        }
        // Untrusted at the first look, trusted at the second: created then, and kept.
        assert_eq!(
            created, 1,
            "kept once created, whatever the permission does next"
        );
        assert!(slot.current().is_some());
    }
}
