//! Key-up of a dictation whose speech had no pause to commit at: the last pass's words are
//! committed without a later pass to agree with ([`Stream::settled_at_key_up`]), so that
//! key-up's pass hears only the audio after them (and about 2 s before, as every pass after a
//! commit by words does), and that pass's words are checked against the last pass's after the
//! cut ([`Stream::key_up_rest`]). The worker transcribes from the last commit instead when
//! they disagree.

use super::context::unheard_speech;
use super::{split_at_word, Split, Stream, SAMPLE_RATE};
use crate::app::wording::Wording;
use crate::app::worker::commit::words::{self, WordCommit};
use crate::app::worker::commit::Rule;
use crate::whisper::Transcript;

impl Stream {
    /// At key-up, when audio after the last pass is left to transcribe: this stream with the
    /// last pass's words up to its last quiet word gap at least [`words::KEEP_LAST`] before its
    /// end committed without a pass to agree with ([`words::settle_by_words`]), so that
    /// key-up's pass hears only the audio after that cut (and [`words::CONTEXT`] before it)
    /// instead of all since the last commit. `None` when the last pass gave no such gap.
    /// Whether key-up's pass then agrees with the last pass is [`Self::key_up_rest`]'s to say;
    /// if it does not, the stream as it was is transcribed from its last commit.
    pub fn settled_at_key_up(&self, recording: &[f32], wording: &Wording) -> Option<Stream> {
        let last = self.last_pass.as_ref()?;
        let (start, len) = (last.words.start, last.words.len);
        let audio = recording.get(start..start + len)?;
        let WordCommit::Words { words, cut } =
            words::settle_by_words(&last.words, last.committed, audio)
        else {
            return None;
        };
        let (part, rest) = split_at_word(&last.transcript, words);
        let part = split_at_word(&part, last.committed).1;
        let (from, context) = last.context.after_commit(&last.words, words, cut);
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
