//! Following a draft while decoding one window: which of the tokens a window is expected to
//! decode to ([`super::decode::WindowOptions::draft`], the previous pass's over mostly the same
//! audio) to feed the decoder next, unchecked, and where the draft picks up again after the
//! decoder chose another token. Pure bookkeeping; `decode` feeds the proposals and checks them.
//!
//! A pass 2 s longer than the one before, or starting a few seconds later, decodes mostly the
//! same words: the draft differs from the new decoding in a word or two (a word the new audio
//! made clearer, the sentence that was cut off at the old audio's end) and in its timestamps
//! when the start moved. So the draft is not given up at the first difference:
//! - a **timestamp** where the decoder chose another timestamp: the draft goes on after it
//!   (the same segment boundary at another time);
//! - any other token: the draft is dropped until the last two tokens decoded are found in it
//!   again after where it was left (the first words after a changed word, or after a moved
//!   timestamp), and goes on from there.
//!
//! Whatever the draft holds, the decoding is the decoder's own: a proposed token stays only if
//! it is the one the decoder chooses after the tokens before it.

/// Tokens proposed in one decoder call after a miss: a wrong guess costs a call over all of
/// them (a first call with the whole draft is usually right, so it is not capped).
pub const RESUMED_PROPOSAL: usize = 32;

/// A draft being followed through one window's decoding.
#[derive(Debug)]
pub struct Draft<'a> {
    tokens: &'a [u32],
    timestamp_begin: u32,
    /// The draft token expected next; `None` while the draft is lost.
    next: Option<usize>,
    /// Where a lost draft is searched from.
    lost_at: usize,
    /// Whether a proposal was already made (the first one is not capped).
    proposed: bool,
    /// Draft tokens the decoder chose.
    kept: usize,
}

impl<'a> Draft<'a> {
    /// A draft of the window's audio, or (`elsewhere`) of audio that starts before or after
    /// it: that one is lost from the start, and found after the first two tokens it holds.
    pub fn new(tokens: &'a [u32], timestamp_begin: u32, elsewhere: bool) -> Self {
        Draft {
            tokens,
            timestamp_begin,
            next: (!elsewhere).then_some(0),
            lost_at: 0,
            proposed: false,
            kept: 0,
        }
    }

    /// The tokens to feed after the last decoded one, at most `room`; empty when the draft is
    /// lost or used up.
    pub fn propose(&mut self, room: usize) -> &'a [u32] {
        let Some(next) = self.next else {
            return &[];
        };
        let cap = if self.proposed {
            RESUMED_PROPOSAL.min(room)
        } else {
            room
        };
        self.proposed = true;
        let rest = &self.tokens[next.min(self.tokens.len())..];
        &rest[..rest.len().min(cap)]
    }

    /// The decoder chose `chosen` where the draft proposed `proposed` (fed, unchecked): true
    /// when they are the same (the tokens fed after it stay valid).
    pub fn check(&mut self, proposed: u32, chosen: u32) -> bool {
        let Some(next) = self.next else {
            return false;
        };
        if proposed == chosen {
            self.kept += 1;
            self.next = Some(next + 1);
            return true;
        }
        let is_time = |t: u32| t >= self.timestamp_begin;
        if is_time(proposed) && is_time(chosen) {
            self.next = Some(next + 1);
        } else {
            self.next = None;
            self.lost_at = next;
        }
        false
    }

    /// After a token the decoder chose with no proposal: a lost draft picks up after the first
    /// place from where it was left that holds the last two `decoded` tokens.
    pub fn follow(&mut self, decoded: &[u32]) {
        if self.next.is_some() {
            return;
        }
        let [.., a, b] = decoded else {
            return;
        };
        let from = self.lost_at.saturating_sub(1);
        let found = self.tokens[from.min(self.tokens.len())..]
            .windows(2)
            .position(|pair| pair == [*a, *b]);
        if let Some(i) = found {
            self.next = Some(from + i + 2);
            self.lost_at = from + i + 2;
        }
    }

    /// Draft tokens the decoder chose.
    pub fn kept(&self) -> usize {
        self.kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TS: u32 = 1000;

    /// Runs the bookkeeping as `decode` does against a decoder that chooses `truth`: each
    /// call feeds the proposal after the last decoded token and gives one choice per position
    /// fed, kept while the proposal's token is the one chosen. The draft tokens kept and the
    /// decoder calls made.
    fn follow(draft: &[u32], truth: &[u32]) -> (usize, usize) {
        let mut d = Draft::new(draft, TS, false);
        let mut decoded: Vec<u32> = Vec::new();
        let mut calls = 0;
        while decoded.len() < truth.len() {
            calls += 1;
            let mut in_flight = d.propose(usize::MAX).iter().copied();
            loop {
                let chosen = truth[decoded.len()];
                decoded.push(chosen);
                let valid = match in_flight.next() {
                    Some(proposed) => d.check(proposed, chosen),
                    None => false,
                };
                d.follow(&decoded);
                if !valid || decoded.len() == truth.len() {
                    break;
                }
            }
        }
        (d.kept(), calls)
    }

    #[test]
    fn a_right_draft_is_decoded_in_one_call() {
        let truth = [TS, 1, 2, 3, 4, TS + 50];
        assert_eq!(follow(&truth, &truth), (6, 1));
    }

    #[test]
    fn a_moved_timestamp_keeps_the_draft() {
        let truth = [TS, 1, 2, TS + 40, TS + 40, 3, 4, TS + 90];
        let draft = [TS, 1, 2, TS + 45, TS + 45, 3, 4, TS + 95];
        // The decoder's timestamps, the draft's words: a call after each moved timestamp.
        assert_eq!(follow(&draft, &truth), (5, 3));
    }

    #[test]
    fn a_changed_word_loses_the_draft_until_two_tokens_agree_again() {
        let truth = [TS, 1, 2, 77, 4, 5, 6, 7, 8];
        let draft = [TS, 1, 2, 3, 4, 5, 6, 7, 8];
        // TS 1 2 kept; 77 (the miss), 4 and 5 decoded a call each; "4 5" is found in the
        // draft, so 6 7 8 are kept in one call.
        assert_eq!(follow(&draft, &truth), (6, 4));
    }

    #[test]
    fn a_draft_of_other_words_keeps_nothing() {
        let truth = [TS, 1, 2, 3, 4, 5];
        let draft = [9, 8, 7, 6];
        assert_eq!(follow(&draft, &truth).0, 0);
    }

    #[test]
    fn the_draft_is_found_again_only_after_where_it_was_left() {
        let mut d = Draft::new(&[1, 2, 3, 1, 2, 5, 6], TS, false);
        assert_eq!(d.propose(99), &[1, 2, 3, 1, 2, 5, 6]);
        assert!(d.check(1, 1));
        assert!(d.check(2, 2));
        assert!(d.check(3, 3));
        assert!(!d.check(1, 9), "lost at index 3");
        d.follow(&[1, 2]);
        assert_eq!(d.propose(99), &[5, 6], "the later 1 2, not the first");
    }

    #[test]
    fn a_draft_of_audio_elsewhere_is_found_after_two_tokens() {
        let draft = [TS, 5, 6, 7, TS + 60, TS + 60, 1, 2, 3, TS + 90];
        let mut d = Draft::new(&draft, TS, true);
        assert!(
            d.propose(99).is_empty(),
            "nothing proposed before it is found"
        );
        // The pass before heard "5 6 7", this one starts at "6".
        d.follow(&[TS]);
        d.follow(&[TS, 6]);
        assert!(d.propose(99).is_empty(), "one token of it is not enough");
        d.follow(&[TS, 6, 7]);
        assert_eq!(d.propose(99), &[TS + 60, TS + 60, 1, 2, 3, TS + 90]);
    }

    #[test]
    fn proposals_after_the_first_are_capped() {
        let long: Vec<u32> = (0..100).collect();
        let mut d = Draft::new(&long, TS, false);
        assert_eq!(d.propose(usize::MAX).len(), 100);
        assert!(!d.check(0, 500));
        d.follow(&[10, 11]);
        assert_eq!(d.propose(usize::MAX).len(), RESUMED_PROPOSAL);
        assert_eq!(d.propose(5).len(), 5, "never past the room");
    }
}
