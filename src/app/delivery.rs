//! Whether a dictation's text joins the one delivered before it (a space in front), decided at
//! the moment it is delivered, from what was delivered last and where. Owned by the output
//! thread, which delivers one text at a time: "last" is the last in delivery order, whatever
//! order the transcriptions finished in.
//!
//! A text joins only a text that went into the same window as the one that has the focus now
//! ([`Focus::same_window`]), not long ago ([`verdict::CONTINUATION_WINDOW`]), and that was
//! really inserted (pasted or typed, not only copied). A new, empty text box in another window
//! never starts with a space, also when that window got the id of one that has just closed (an
//! X server gives a program started after another one closed the same window ids; the focus
//! tells the two windows apart by the life of the id, `platform::focus`). Where the focus
//! cannot be read, or only in part (a Mac app whose window is not known), texts are not joined.

use super::verdict;
use crate::inject::Delivered;
use crate::platform::Focus;
use std::time::{Duration, Instant};

/// The last text inserted, where and when.
#[derive(Debug, Clone, PartialEq)]
struct Inserted {
    /// As sent (with its own joining space).
    text: String,
    focus: Focus,
    at: Instant,
}

/// What the output thread remembers of its last delivery.
#[derive(Debug, Default)]
pub struct LastDelivery(Option<Inserted>);

impl LastDelivery {
    /// The previous text `text` joins when it goes to `focus` at `now`, with how long ago it
    /// was delivered: only one inserted into the same window or app.
    fn previous_for(&self, focus: Option<Focus>, now: Instant) -> Option<(&str, Duration)> {
        let last = self.0.as_ref()?;
        focus
            .is_some_and(|focus| focus.same_window(&last.focus))
            .then(|| (last.text.as_str(), now.saturating_duration_since(last.at)))
    }

    /// `text` as it is sent to `focus` at `now`: with a space in front when it continues the
    /// previous text there ([`verdict::join_with_previous`]).
    pub fn join(&self, focus: Option<Focus>, now: Instant, text: &str) -> String {
        verdict::join_with_previous(self.previous_for(focus, now), text)
    }

    /// Records a delivery. One that was not inserted where the focus is known (copied only,
    /// not pasted, focus unreadable) leaves nothing to join: the next text starts afresh.
    pub fn record(&mut self, delivered: &Delivered) {
        self.0 = match delivered.focus {
            Some(focus) if delivered.inserted() => Some(Inserted {
                text: delivered.sent.clone(),
                focus,
                at: delivered.at,
            }),
            _ => None,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inject::{NotPasted, OutputMode};

    const BOX_A: Focus = Focus::Window {
        id: 0x0120_0003,
        life: 1,
    };
    const BOX_B: Focus = Focus::Window {
        id: 0x0140_0003,
        life: 2,
    };

    /// Delivers `text` to `focus` at `at` the way the output thread does: joined against the
    /// last delivery, then recorded. Returns what was sent.
    fn deliver(last: &mut LastDelivery, focus: Option<Focus>, at: Instant, text: &str) -> String {
        let sent = last.join(focus, at, text);
        last.record(&Delivered {
            mode: OutputMode::Paste,
            at,
            waited_for_modifiers: Duration::ZERO,
            waited_for_hotkey: false,
            restored_clipboard: true,
            focus,
            sent: sent.clone(),
            not_pasted: None,
            pressed_after: None,
        });
        sent
    }

    #[test]
    fn a_text_into_another_window_never_starts_with_a_space() {
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let mut last = LastDelivery::default();
        assert_eq!(deliver(&mut last, Some(BOX_A), t0, "First."), "First.");
        // Five seconds later, into a new, empty text box elsewhere.
        assert_eq!(
            deliver(&mut last, Some(BOX_B), t0 + s(5), "Second."),
            "Second."
        );
        // Then more into that box: it continues there.
        assert_eq!(
            deliver(&mut last, Some(BOX_B), t0 + s(8), "Third."),
            " Third."
        );
    }

    #[test]
    fn texts_into_the_same_window_are_joined_in_delivery_order() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut last = LastDelivery::default();
        let sent: Vec<String> = ["One.", "Two.", "Three."]
            .iter()
            .enumerate()
            .map(|(i, text)| deliver(&mut last, Some(BOX_A), t0 + ms(500 * i as u64), text))
            .collect();
        assert_eq!(sent, ["One.", " Two.", " Three."]);
        // Back to box A after a text into box B: the text before it went elsewhere.
        deliver(&mut last, Some(BOX_B), t0 + ms(2000), "Elsewhere.");
        assert_eq!(
            deliver(&mut last, Some(BOX_A), t0 + ms(2500), "Back."),
            "Back."
        );
    }

    #[test]
    fn the_previous_text_is_the_last_delivered_not_the_last_transcribed() {
        // Dictation 2 was transcribed while dictation 1 waited to be pasted: the joining is
        // decided at delivery, against dictation 1, not the text before it.
        let t0 = Instant::now();
        let mut last = LastDelivery::default();
        deliver(&mut last, Some(BOX_A), t0, "Earlier text,");
        let one = deliver(&mut last, Some(BOX_B), t0 + Duration::from_secs(2), "one");
        let two = deliver(&mut last, Some(BOX_B), t0 + Duration::from_secs(3), "two");
        assert_eq!((one.as_str(), two.as_str()), ("one", " two"));
    }

    #[test]
    fn an_unknown_focus_or_a_copy_joins_nothing() {
        let t0 = Instant::now();
        let mut last = LastDelivery::default();
        deliver(&mut last, None, t0, "Focus unreadable.");
        assert_eq!(last.join(None, t0, "Next."), "Next.");
        deliver(&mut last, Some(BOX_A), t0, "Pasted.");
        assert_eq!(last.join(None, t0, "Next."), "Next.");
        // A text left on the clipboard (keys held) was not inserted: the next starts afresh.
        last.record(&Delivered {
            mode: OutputMode::Copy,
            at: t0,
            waited_for_modifiers: Duration::from_millis(1500),
            waited_for_hotkey: false,
            restored_clipboard: false,
            focus: None,
            sent: "Kept.".into(),
            not_pasted: Some(NotPasted::KeysHeld),
            pressed_after: None,
        });
        assert_eq!(last.join(Some(BOX_A), t0, "Next."), "Next.");
    }

    #[test]
    fn long_ago_in_the_same_window_is_not_joined() {
        let t0 = Instant::now();
        let mut last = LastDelivery::default();
        let app = Some(Focus::App {
            pid: 412,
            window: Some(9_001),
        });
        deliver(&mut last, app, t0, "Hours ago.");
        let later = t0 + verdict::CONTINUATION_WINDOW + Duration::from_secs(1);
        assert_eq!(last.join(app, later, "Now."), "Now.");
        assert_eq!(
            last.join(app, t0 + Duration::from_secs(30), "Now."),
            " Now."
        );
    }

    #[test]
    fn a_new_window_with_a_recycled_id_gets_no_leading_space() {
        // Issue 53: a box closed, a new program's box opened with the same X window id (the
        // server gave the new client the old one's slot), five seconds later. The probe gave
        // the id a new life when it saw the old window destroyed.
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let mut last = LastDelivery::default();
        let old_box = Focus::Window {
            id: 0x0060_0003,
            life: 4,
        };
        let new_box = Focus::Window {
            id: 0x0060_0003,
            life: 5,
        };
        assert_eq!(deliver(&mut last, Some(old_box), t0, "First."), "First.");
        assert_eq!(
            deliver(&mut last, Some(new_box), t0 + s(5), "Second."),
            "Second."
        );
        // More into the new box: it continues there.
        assert_eq!(
            deliver(&mut last, Some(new_box), t0 + s(8), "Third."),
            " Third."
        );
    }

    #[test]
    fn on_a_mac_the_same_app_in_another_window_or_an_unknown_one_is_not_joined() {
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let mac = |window| Some(Focus::App { pid: 412, window });
        let mut last = LastDelivery::default();
        deliver(&mut last, mac(Some(9_001)), t0, "In one window.");
        // The same app, a new document window: a new box.
        assert_eq!(
            deliver(&mut last, mac(Some(9_002)), t0 + s(2), "In another."),
            "In another."
        );
        assert_eq!(
            deliver(&mut last, mac(Some(9_002)), t0 + s(4), "More."),
            " More."
        );
        // Its window could not be read: in doubt, no space, and nothing to join after it.
        assert_eq!(
            deliver(&mut last, mac(None), t0 + s(6), "Unknown."),
            "Unknown."
        );
        assert_eq!(deliver(&mut last, mac(None), t0 + s(8), "Again."), "Again.");
    }
}
