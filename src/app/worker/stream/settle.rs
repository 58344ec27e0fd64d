//! Words committed without a later pass agreeing on all of them: the last pass's words up to
//! its last quiet word gap a second before its end ([`words::settle_by_words`]), and the check
//! that the pass after them agrees where they end.
//!
//! While the key is held ([`Stream::settle_while_held`]), a pass that commits nothing by
//! agreement (or commits only up to an earlier sentence end) settles its words that far for
//! the next pass, which starts about 2 s before that cut ([`words::CONTEXT`]) instead of at the
//! last commit: the settled words stay tentative on screen until that pass confirms them
//! ([`Context::confirms`](super::context::Context::confirms): the words it heard again written
//! as they were, no speech after the cut left out, the same first two words after it), or are
//! taken back, and the next pass starts where it did before. So the words committed are those
//! two passes agree on, as with agreement over the whole prefix, but a pass hears about 5 s
//! instead of the 8–12 s since a sentence end both passes had heard the end of.
//!
//! At key-up ([`Stream::key_up_candidates`]) the settled words, or those of the last pass,
//! are committed so that key-up's pass hears only the audio after them and 2 s before; it is
//! checked the same way ([`Stream::key_up_rest`]), and when it disagrees the worker
//! transcribes from the last confirmed commit instead.

use super::context::unheard_speech;
use super::{split_at_word, Split, Stream, Tentative, SAMPLE_RATE};
use crate::app::wording::Wording;
use crate::app::worker::commit::words::{self, WordCommit, WordPass};
use crate::app::worker::commit::Rule;
use crate::audio::level::{GateConfig, Level};
use crate::whisper::Transcript;

impl Stream {
    /// What [`words::settle_by_words`] commits of the last pass, whose audio is `audio`; with
    /// `confirmed_later`, the next pass hears all the settled words again (and 2 s before
    /// them), not only the last 2 s, so that each is confirmed by a second pass
    /// ([`Context::hear_before`](super::context::Context::hear_before)).
    fn settle_split(&self, audio: &[f32], confirmed_later: bool) -> Option<Split> {
        let last = self.last_pass.as_ref()?;
        let WordCommit::Words { words, cut } =
            words::settle_by_words(&last.words, last.committed, audio)
        else {
            return None;
        };
        let (part, rest) = split_at_word(&last.transcript, words);
        let part = split_at_word(&part, last.committed).1;
        let (mut from, mut context) = last.context.after_commit(&last.words, words, cut);
        if confirmed_later {
            let first = &last.words.words[last.committed];
            let at = last.words.start + (first.start.max(0.0) * SAMPLE_RATE as f32) as usize;
            from = context.hear_before(at, from);
        }
        Some(Split {
            part,
            rest,
            cut,
            rule: Rule::Words,
            hypothesis: Some(heard_after(&last.words, words, from)),
            context: Some((from, context)),
        })
    }

    /// After a pass over the recording from `start` (its `audio`; `peak`: the recording's
    /// loudest frame) that committed nothing by agreement past the words it settles: its words
    /// up to its last quiet gap a second before its end are committed for the next pass to
    /// confirm ([`Self::awaits_confirmation`]), and the next pass starts about 2 s before that
    /// cut. Returns whether it settled.
    pub(super) fn settle_while_held(
        &mut self,
        start: usize,
        audio: &[f32],
        peak: f32,
        wording: &Wording,
    ) -> bool {
        let Some(split) = self.settle_split(audio, true) else {
            return false;
        };
        let before = self.clone();
        let language = split.part.language.clone();
        let Some((rest, cut)) = self.commit_split(split, start, audio, wording) else {
            return false;
        };
        let level = Level::measure(&audio[cut..], SAMPLE_RATE as u32, &GateConfig::default());
        let ends_in_pause = self.tentative.as_ref().is_some_and(|t| t.ends_in_pause);
        self.tentative = Some(Tentative {
            start: self.committed_to,
            end: start + audio.len(),
            peak,
            result: wording.words(&rest, &level),
            raw: rest.text.clone(),
            language,
            ends_in_pause,
        });
        self.last_pass = None;
        self.before_settle = Some(Box::new(before));
        true
    }

    /// Whether the last piece of the committed text was settled by the last pass and waits for
    /// the next to confirm it ([`Self::settle_while_held`]).
    pub fn awaits_confirmation(&self) -> bool {
        self.before_settle.is_some()
    }

    /// The settled words are confirmed: they are committed text from now on.
    pub(super) fn confirm(&mut self) {
        self.before_settle = None;
    }

    /// The settled words are taken back: the stream is as it was before the pass that settled
    /// them did so (but for the passes counted and the last pass's tokens, the next draft).
    pub(super) fn take_back(&mut self) {
        if let Some(before) = self.before_settle.take() {
            let passes = self.passes;
            let last_tokens = self.last_tokens.take();
            *self = *before;
            self.passes = passes;
            self.last_tokens = last_tokens;
        }
    }

    /// At key-up, when audio after the last pass is left to transcribe: a stream whose key-up
    /// pass hears only the audio after words committed without agreement, and the stream to
    /// transcribe from if that pass disagrees ([`Self::key_up_rest`]). The words are those
    /// settled while the key was held and not yet confirmed, or else the last pass's up to its
    /// last quiet word gap a second before its end ([`words::settle_by_words`]). `None` when
    /// there are none.
    pub fn key_up_candidates(
        &self,
        recording: &[f32],
        wording: &Wording,
    ) -> Option<(Stream, Stream)> {
        if let Some(before) = &self.before_settle {
            let mut settled = self.clone();
            settled.before_settle = None;
            return Some((settled, (**before).clone()));
        }
        self.settled_at_key_up(recording, wording)
            .map(|settled| (settled, self.clone()))
    }

    /// This stream with the last pass's words settled ([`Self::key_up_candidates`]).
    pub fn settled_at_key_up(&self, recording: &[f32], wording: &Wording) -> Option<Stream> {
        let last = self.last_pass.as_ref()?;
        let (start, len) = (last.words.start, last.words.len);
        let audio = recording.get(start..start + len)?;
        let split = self.settle_split(audio, false)?;
        let mut settled = self.clone();
        settled.commit_split(split, start, audio, wording)?;
        settled.last_pass = None;
        settled.tentative = None;
        Some(settled)
    }
    /// Key-up's `transcript` of `audio` (the recording from [`Self::pass_from`] on, with word
    /// times) after [`Self::settled_at_key_up`]: without the committed words it heard again,
    /// when it agrees with the last pass after the cut: no stretch of speech after the cut left
    /// out ([`unheard_speech`]) and the same first words there ([`Context::follows_the_cut`]).
    /// `None` when it does not: the cut may have lost or repeated words.
    pub fn key_up_rest(&self, transcript: &Transcript, audio: &[f32]) -> Option<Transcript> {
        let cut = self.committed_to.saturating_sub(self.pass_from) as f32 / SAMPLE_RATE as f32;
        let (rest, dropped, by) = self.context.strip(transcript.clone(), cut);
        let unheard = unheard_speech(&rest, audio, cut);
        let agrees = unheard.is_none() && self.context.follows_the_cut(&rest);
        tracing::info!(
            id = self.id,
            words = dropped,
            by,
            agrees,
            "key-up's pass after a commit at key-up"
        );
        agrees.then_some(rest)
    }
}

/// What `pass` heard after its first `words` words, as a pass from `from` (samples of the
/// recording, before or after its start): what the next pass, from there, is compared with.
fn heard_after(pass: &WordPass, words: usize, from: usize) -> WordPass {
    if from >= pass.start {
        return pass.after(words, from - pass.start);
    }
    let earlier = pass.start - from;
    let shift = earlier as f32 / SAMPLE_RATE as f32;
    let mut after = pass.after(words, 0);
    for word in &mut after.words {
        word.start += shift;
        word.end += shift;
    }
    after.start = from;
    after.len += earlier;
    after
}
