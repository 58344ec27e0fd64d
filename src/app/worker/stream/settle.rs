//! Settling: the last pass's words committed without a later pass to agree with
//! ([`Stream::settled_by_last_pass`]), so that the next pass hears only the audio after them
//! (and about 2 s before, as every pass after a commit by words does); that pass's words are
//! then checked against the last pass's after the cut ([`Stream::rest_after_settling`]).
//! Every pass settles: key-up's, when audio after the last pass is left to transcribe; the
//! pass at the pause that ends a stretch of speech that had none to commit at
//! ([`Stream::take_settled_pass`]): without it that pass heard everything since the last
//! commit (10–15 s, 1.5–2.2 s of a 2-core CPU) and key-up waited for it; and any other pass
//! (a stride's, or a short one at a pause): without it the pass that commits by agreement
//! hears everything since the last commit again (the worker's `SETTLING_SAVES` says what it
//! saves). When they disagree, the worker transcribes from the last commit instead.

use super::context::{first_words, unheard_speech, AGREEING_FIRSTS};
use super::{split_at_word, Progress, Split, Stream, SAMPLE_RATE};
use crate::app::wording::Wording;
use crate::app::worker::commit::words::{self, WordCommit};
use crate::app::worker::commit::Rule;
use crate::whisper::Transcript;

impl Stream {
    /// This stream with the last pass's words up to its last quiet word gap at least [`words::KEEP_LAST`] before its
    /// end committed without a pass to agree with ([`words::settle_by_words`]), so that
    /// the next pass (key-up's, or one at a pause) hears only the audio after that cut (and
    /// [`words::CONTEXT`] before it) instead of all since the last commit. `None` when the last
    /// pass gave no such gap. Whether that pass then agrees with the last pass is
    /// [`Self::rest_after_settling`]'s to say; if it does not, the stream as it was is
    /// transcribed from its last commit.
    pub fn settled_by_last_pass(&self, recording: &[f32], wording: &Wording) -> Option<Stream> {
        let last = self
            .last_pass
            .as_ref()
            .filter(|last| self.language_told_by(&last.transcript))?;
        let (start, len) = (last.words.start, last.words.len);
        let audio = recording.get(start..start + len)?;
        let WordCommit::Words { words, cut } =
            words::settle_by_words(&last.words, last.committed, audio)
        else {
            return None;
        };
        let (part, rest) = split_at_word(&last.transcript, words);
        let part = split_at_word(&part, last.committed).1;
        let (from, context) = last.context.after_commit(&last.words, words, cut, None);
        let split = Split {
            part,
            rest,
            cut,
            rule: Rule::Words,
            hypothesis: None,
            context: Some((from, context)),
        };
        let mut settled = self.clone();
        settled.commit_split(split, start, audio, wording)?;
        settled.last_pass = None;
        settled.tentative = None;
        settled.since_commit.clear();
        Some(settled)
    }

    /// The `transcript` of `audio` (the recording from [`Self::pass_from`] on, with word
    /// times) by the pass after [`Self::settled_by_last_pass`]: without the committed words it heard again,
    /// when it agrees with the last pass after the cut: no stretch of speech after the cut left
    /// out ([`unheard_speech`]) and its first words there where the last pass's start, each in
    /// its place ([`super::context::Context::follows_the_cut`]). `None` when it does not: the
    /// cut may have lost or repeated words.
    pub fn rest_after_settling(
        &self,
        transcript: &Transcript,
        audio: &[f32],
    ) -> Option<Transcript> {
        let cut = self.committed_to.saturating_sub(self.pass_from) as f32 / SAMPLE_RATE as f32;
        let (rest, dropped, by) = self.context.strip(transcript.clone(), cut);
        let unheard = unheard_speech(&rest, audio, cut);
        let agrees = unheard.is_none() && self.context.follows_the_cut(&rest);
        tracing::info!(
            id = self.id,
            words = dropped,
            by,
            agrees,
            "the pass after a commit by the last pass's words alone"
        );
        if !agrees {
            // Why, for the next look at these cuts (the words only where the log may keep them).
            let expected = self.context.expected_after_cut().join(" ");
            let heard = first_words(&rest, AGREEING_FIRSTS + 2).join(" ");
            tracing::info!(
                id = self.id,
                unheard_at_s = unheard.map(|(at, _)| at),
                unheard_speech_s = unheard.map(|(_, speech)| speech),
                expected = ?crate::logging::dictated(&expected),
                heard = ?crate::logging::dictated(&heard),
                "it disagreed with the last pass after the cut"
            );
        }
        agrees.then_some(rest)
    }

    /// A pass over the recording's `range` (its `audio`, with word times; `peak`: the loudest
    /// frame so far) made after `settled` ([`Self::settled_by_last_pass`] of this stream): when
    /// it agrees with the last pass after the cut ([`Self::rest_after_settling`]), this stream
    /// becomes `settled` and takes the pass as any other; returns where the settling cut (s)
    /// and what the pass did. `None`, and this stream unchanged, when it does not agree.
    pub fn take_settled_pass(
        &mut self,
        settled: Stream,
        (range, audio, peak): (std::ops::Range<usize>, &[f32], f32),
        transcript: &Transcript,
        wording: &Wording,
    ) -> Option<(f32, Progress)> {
        settled.rest_after_settling(transcript, audio)?;
        *self = settled;
        let cut_s = self.committed_to as f32 / SAMPLE_RATE as f32;
        Some((
            cut_s,
            self.take_pass((range, audio, peak), transcript, wording),
        ))
    }
}
