//! The fast encoding's bookkeeping ([`Whisper::encode_audio_while`](super::model::Whisper::encode_audio_while)):
//! the padding's states after the built-in speech primer, which positions a dictation of a
//! given length computes (few shapes: libtorch keeps kernels per shape), and the rows taken
//! from the primed padding. The forward passes that fill and use it live in `model`.

use tch::{TchError, Tensor};

/// Audio positions computed after the audio's own by [`Whisper::encode_audio_while`](super::model::Whisper::encode_audio_while) (1 s):
/// the convolutions there still see the audio's last frames, and the first positions of the
/// padding are the ones whose states depend most on what came before.
pub const PADDING_MARGIN_POSITIONS: i64 = 50;

/// The steps in which [`Whisper::encode_audio_while`](super::model::Whisper::encode_audio_while) grows the positions it computes (2.56 s):
/// libtorch keeps kernels set up per shape (oneDNN's primitive cache and more), ~3.4 MB each
/// for `base`. Measured over 60 transcriptions of distinct lengths from 5 to 27 s: resident
/// memory grew from 305 to 497 MB with a shape per length, 305 to 363 MB in steps of 64
/// positions; whole windows stay at 271 MB. In steps of 128 (after the first
/// [`FINE_POSITION_STEPS`]) a model has at most 12 shapes.
const POSITION_STEP: i64 = 128;

/// The first steps past the primer's positions are half as long (1.28 s): most dictations end
/// there (4.5–10 s), and a dictation just longer than the primer (4.6–5.1 s, half the
/// benchmark's clips) computed 403 positions instead of 339 with whole steps, 30 ms more of a
/// ~0.35 s transcription on a CPU without native bf16. Two shapes more (~7 MB).
const FINE_POSITION_STEPS: i64 = 4;

/// The encoder's states in a window holding the primer's speech and then padding, for
/// [`Whisper::encode_audio_while`](super::model::Whisper::encode_audio_while). Only the positions that can be taken from here are kept:
/// from `first` on.
pub struct PrimedPadding {
    /// Positions the primer's speech covers: those are always computed, so that every
    /// position taken from here is padding in the primer's window too.
    pub floor: i64,
    /// The first position kept: `floor` and the margin.
    pub first: i64,
    /// Per block: the keys and values `[1, heads, ctx - first, head_dim]`.
    pub keys: Vec<(Tensor, Tensor)>,
    /// The encoder's output `[1, ctx - first, d]`.
    pub output: Tensor,
    /// The cross-attention keys/values of a whole window, whose padding rows are the output's
    /// (see [`Whisper::audio_keys_of`](super::model::Whisper::audio_keys_of)).
    pub cross_kv: WindowCrossKv,
}

impl PrimedPadding {
    /// Positions computed for audio of `audio_frames` mel frames: the audio's, at least the
    /// primer's, and the margin, rounded up to `first` plus [`FINE_POSITION_STEPS`] half steps, then whole
    /// [`POSITION_STEP`]s.
    pub fn positions_for(&self, audio_frames: usize) -> i64 {
        let needed = (audio_frames.div_ceil(2) as i64).max(self.floor) + PADDING_MARGIN_POSITIONS;
        let beyond_first = (needed - self.first).max(0) as u64;
        let fine = (POSITION_STEP / 2) as u64;
        let fine_span = fine * FINE_POSITION_STEPS as u64;
        let beyond = if beyond_first <= fine_span {
            beyond_first.next_multiple_of(fine)
        } else {
            fine_span + (beyond_first - fine_span).next_multiple_of(POSITION_STEP as u64)
        };
        self.first + beyond as i64
    }

    /// The rows of `kept` (a tensor of positions `first..` along `dim`) from position `from` on.
    pub fn rows_from(&self, kept: &Tensor, dim: i64, from: i64) -> Result<Tensor, TchError> {
        let skip = from - self.first;
        kept.f_narrow(dim, skip, kept.size()[dim as usize] - skip)
    }

    /// Block `block`'s keys and values of the positions from `from` on.
    pub fn keys_after(&self, block: usize, from: i64) -> Result<(Tensor, Tensor), TchError> {
        let (k, v) = &self.keys[block];
        Ok((self.rows_from(k, 2, from)?, self.rows_from(v, 2, from)?))
    }
}

/// Per decoder block, the cross-attention key/value product `[1, ctx, 2·d]` of a whole window,
/// in the decoder's kind, kept from pass to pass: its rows from `first` on are the primed
/// padding's, written once, but for the rows a pass's audio took (`first..audio_end`, put back
/// by the next shorter pass). A pass writes only its audio's rows into it, and its keys are
/// views of it: each pass used to join the padding's rows to its audio's in a new window
/// (6 × 1500 × 1024 float32 for `base`, 37 MB on every pass's peak).
pub struct WindowCrossKv {
    /// Per decoder block: `[1, ctx, 2·d]`.
    pub layers: Vec<Tensor>,
    /// The end of the rows past `first` that hold the last pass's audio, not the padding's.
    audio_end: std::cell::Cell<i64>,
    /// Held by every [`AudioKeys`](super::model::AudioKeys) that views the rows: while one is
    /// alive, a new pass must not write them.
    lent: std::sync::Arc<()>,
}

impl WindowCrossKv {
    /// `layers` whose rows from `first` on are the padding's.
    pub fn new(layers: Vec<Tensor>, first: i64) -> Self {
        WindowCrossKv {
            layers,
            audio_end: std::cell::Cell::new(first),
            lent: std::sync::Arc::new(()),
        }
    }

    /// Whether keys of an earlier pass still view the rows.
    pub fn is_lent(&self) -> bool {
        std::sync::Arc::strong_count(&self.lent) > 1
    }

    /// A token for keys that view the rows (see [`Self::is_lent`]).
    pub fn lend(&self) -> std::sync::Arc<()> {
        self.lent.clone()
    }

    /// The padding rows a pass whose audio takes the rows before `from` must put back first
    /// (the last pass's audio took them): `(from, count)`, or `None`.
    pub fn stale_padding(&self, from: i64) -> Option<(i64, i64)> {
        let end = self.audio_end.get();
        (end > from).then_some((from, end - from))
    }

    /// Records that the rows before `from` now hold a pass's audio, and the rest the padding.
    pub fn audio_written_before(&self, from: i64) {
        self.audio_end.set(from);
    }
}

impl std::fmt::Debug for PrimedPadding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrimedPadding")
            .field("floor", &self.floor)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_encoding_computes_few_shapes_covering_the_audio_and_the_margin() {
        // A 4.48 s primer: 224 positions, kept from 274 on.
        let primed = PrimedPadding {
            floor: 224,
            first: 274,
            keys: Vec::new(),
            output: Tensor::new(),
            cross_kv: WindowCrossKv::new(Vec::new(), 274),
        };
        // Up to the primer's length: the primer's positions and the margin.
        assert_eq!(primed.positions_for(0), 274);
        assert_eq!(primed.positions_for(418), 274);
        assert_eq!(primed.positions_for(448), 274);
        // Longer: the audio's and the margin, rounded up to a half step past `first` for the
        // first four, then to whole steps.
        assert_eq!(primed.positions_for(450), 274 + 64);
        assert_eq!(primed.positions_for(576), 274 + 64);
        assert_eq!(primed.positions_for(578), 274 + 128);
        assert_eq!(primed.positions_for(960), 274 + 4 * 64);
        assert_eq!(primed.positions_for(962), 274 + 4 * 64 + 128);
        assert_eq!(primed.positions_for(1500), 274 + 4 * 64 + 3 * 128);
        let shapes: std::collections::BTreeSet<i64> = (0..=3000)
            .map(|frames| primed.positions_for(frames))
            .filter(|&positions| positions < 1500)
            .collect();
        assert_eq!(shapes.len(), 12, "{shapes:?}");
        for frames in 0..=3000 {
            let positions = primed.positions_for(frames);
            assert!(positions >= frames.div_ceil(2) as i64 + PADDING_MARGIN_POSITIONS);
        }
    }
}

#[cfg(test)]
mod window_tests {
    use super::*;

    #[test]
    fn a_shorter_pass_puts_back_the_padding_rows_the_last_pass_took() {
        let window = WindowCrossKv::new(Vec::new(), 274);
        // Fresh: every row from `first` on is the padding's.
        assert_eq!(window.stale_padding(274), None);
        assert_eq!(window.stale_padding(402), None);
        window.audio_written_before(530);
        // Longer or as long: the pass overwrites all it took.
        assert_eq!(window.stale_padding(530), None);
        assert_eq!(window.stale_padding(658), None);
        // Shorter: rows 338..530 are the last pass's audio, not padding.
        assert_eq!(window.stale_padding(338), Some((338, 192)));
        window.audio_written_before(338);
        assert_eq!(window.stale_padding(274), Some((274, 64)));
    }

    #[test]
    fn rows_are_lent_while_keys_view_them() {
        let window = WindowCrossKv::new(Vec::new(), 274);
        assert!(!window.is_lent());
        let token = window.lend();
        assert!(window.is_lent());
        drop(token);
        assert!(!window.is_lent());
    }
}
