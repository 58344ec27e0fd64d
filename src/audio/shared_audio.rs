//! A recording held once while it grows and is read: the recorder appends to a
//! [`GrowingAudio`], and every snapshot of it (a pause's, a stride's, key-up's, the whole
//! recording at the end) is a [`SharedAudio`], its first samples, shared instead of copied.
//!
//! A snapshot used to be a copy of the recording so far (7 MB at 2 minutes, 16 kHz float32).
//! While a pass ran, the recorder's own copy, the pass's snapshot and the snapshots queued
//! behind it were all alive, so each pass's peak grew with the dictation's length: sampled in a
//! 110 s dictation without pauses, ~20 MB more at its end than at its start.
//!
//! Safety, in one rule: a sample below the writer's length is never written again. The writer
//! ([`GrowingAudio`], one owner, `&mut self` to append) writes only past its length, and each
//! [`SharedAudio`] reads only below the length it was made with, which is never more than the
//! writer's. A snapshot reaches another thread through a channel, which orders the writes
//! before it. When the block is full the writer copies its samples to a larger one and goes on
//! there; snapshots of the old block keep it alive until they are dropped.

use super::vad::SpeechFrames;
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::Arc;

/// The first block's size: 8 s at 16 kHz. Each later one is twice the last.
const FIRST_BLOCK: usize = 8 * 16_000;

/// Room for `capacity` samples, allocated as a `Vec<f32>`'s (untouched room is not resident).
struct Block {
    start: NonNull<f32>,
    capacity: usize,
}

// SAFETY: the block owns its allocation; the samples below any reader's length are written
// once, before that reader existed, and never again (the module doc), so sharing it between
// threads reads no sample while it is written.
unsafe impl Send for Block {}
// SAFETY: as for `Send`.
unsafe impl Sync for Block {}

impl Block {
    fn from_vec(samples: Vec<f32>) -> (Block, usize) {
        let mut samples = std::mem::ManuallyDrop::new(samples);
        let block = Block {
            start: NonNull::new(samples.as_mut_ptr()).unwrap_or(NonNull::dangling()),
            capacity: samples.capacity(),
        };
        (block, samples.len())
    }

    fn with_capacity(capacity: usize) -> Block {
        Block::from_vec(Vec::with_capacity(capacity)).0
    }

    /// The first `len` samples.
    ///
    /// # Safety
    /// `len` samples were written, and none of them is written while the slice lives.
    unsafe fn prefix(&self, len: usize) -> &[f32] {
        debug_assert!(len <= self.capacity);
        // SAFETY: the caller's promise; the allocation holds `capacity` samples.
        unsafe { std::slice::from_raw_parts(self.start.as_ptr(), len) }
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        // SAFETY: `start` and `capacity` came from a `Vec<f32>` that was not dropped; a
        // length of 0 drops no element (and `f32` needs no drop).
        drop(unsafe { Vec::from_raw_parts(self.start.as_ptr(), 0, self.capacity) });
    }
}

/// Samples at 16 kHz that any number of holders share; derefs to `[f32]`.
#[derive(Clone)]
pub struct SharedAudio {
    block: Arc<Block>,
    len: usize,
    /// What the voice-activity detector heard in these samples, when it ran on them.
    speech: Option<Arc<SpeechFrames>>,
}

impl SharedAudio {
    /// Copies `samples` (see `From<Vec<f32>>` for taking a vector without a copy).
    pub fn copy_of(samples: &[f32]) -> SharedAudio {
        SharedAudio::from(samples.to_vec())
    }

    /// These samples with what the voice-activity detector heard in them (the recorder's
    /// snapshots carry it to the worker).
    pub fn with_speech(mut self, speech: SpeechFrames) -> SharedAudio {
        self.speech = Some(Arc::new(speech));
        self
    }

    /// What the voice-activity detector heard in these samples; `None` when it did not run.
    pub fn speech(&self) -> Option<&SpeechFrames> {
        self.speech.as_deref()
    }
}

impl Deref for SharedAudio {
    type Target = [f32];

    fn deref(&self) -> &[f32] {
        // SAFETY: `len` samples were written before this was made, and no writer writes below
        // the length of a snapshot it made (the module doc).
        unsafe { self.block.prefix(self.len) }
    }
}

impl From<Vec<f32>> for SharedAudio {
    /// Takes the vector's allocation as it is.
    fn from(samples: Vec<f32>) -> SharedAudio {
        let (block, len) = Block::from_vec(samples);
        SharedAudio {
            block: Arc::new(block),
            len,
            speech: None,
        }
    }
}

impl Default for SharedAudio {
    fn default() -> SharedAudio {
        SharedAudio::from(Vec::new())
    }
}

impl std::fmt::Debug for SharedAudio {
    /// The length only: a recording's samples are not a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SharedAudio({} samples)", self.len)
    }
}

impl PartialEq for SharedAudio {
    fn eq(&self, other: &SharedAudio) -> bool {
        **self == **other
    }
}

impl PartialEq<[f32]> for SharedAudio {
    fn eq(&self, other: &[f32]) -> bool {
        **self == *other
    }
}

impl PartialEq<Vec<f32>> for SharedAudio {
    fn eq(&self, other: &Vec<f32>) -> bool {
        **self == other[..]
    }
}

/// A recording being appended to, by its one owner; [`GrowingAudio::share`] hands out its
/// samples so far without copying them.
pub struct GrowingAudio {
    block: Arc<Block>,
    len: usize,
}

impl Default for GrowingAudio {
    fn default() -> GrowingAudio {
        GrowingAudio {
            block: Arc::new(Block::with_capacity(0)),
            len: 0,
        }
    }
}

impl GrowingAudio {
    /// Appends `samples` (moving to a larger block when they do not fit).
    pub fn push(&mut self, samples: &[f32]) {
        if self.block.capacity - self.len < samples.len() {
            self.grow(self.len + samples.len());
        }
        // SAFETY: the room from `len` on is inside the allocation (checked above) and past the
        // length of every snapshot of this block (each was made with a length ≤ `len`), so no
        // reader sees it; `&mut self` makes this the only writer; `samples` is another
        // allocation (a shared slice cannot point into room past every snapshot).
        unsafe {
            self.block
                .start
                .as_ptr()
                .add(self.len)
                .copy_from_nonoverlapping(samples.as_ptr(), samples.len());
        }
        self.len += samples.len();
    }

    /// Moves to a block with room for at least `needed` samples; the old one stays with the
    /// snapshots that hold it.
    fn grow(&mut self, needed: usize) {
        let capacity = needed.max(2 * self.block.capacity).max(FIRST_BLOCK);
        let mut larger = GrowingAudio {
            block: Arc::new(Block::with_capacity(capacity)),
            len: 0,
        };
        larger.push(self.as_slice());
        *self = larger;
    }

    /// The samples so far.
    pub fn as_slice(&self) -> &[f32] {
        // SAFETY: `len` samples were written, and `&self` keeps this writer from writing while
        // the slice lives (it never writes below `len` anyway).
        unsafe { self.block.prefix(self.len) }
    }

    /// The samples so far, shared: later appends do not change them.
    pub fn share(&self) -> SharedAudio {
        SharedAudio {
            block: Arc::clone(&self.block),
            len: self.len,
            speech: None,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ramp(from: usize, len: usize) -> Vec<f32> {
        (from..from + len).map(|i| i as f32).collect()
    }

    #[test]
    fn snapshots_keep_what_they_saw_while_the_recording_grows_past_its_blocks() {
        let mut growing = GrowingAudio::default();
        let mut snapshots = Vec::new();
        let mut written = 0;
        // Pieces as a recorder appends them, over several blocks (8 s, 16 s, 32 s at 16 kHz).
        while written < 40 * 16_000 {
            let piece = ramp(written, 320 + written % 7);
            growing.push(&piece);
            written += piece.len();
            if written % 3 == 0 {
                snapshots.push(growing.share());
            }
        }
        assert_eq!(growing.as_slice(), &ramp(0, written)[..]);
        assert!(snapshots.len() > 100);
        for snapshot in &snapshots {
            assert_eq!(**snapshot, ramp(0, snapshot.len())[..]);
        }
    }

    #[test]
    fn a_snapshot_shares_the_block_instead_of_copying_it() {
        let mut growing = GrowingAudio::default();
        growing.push(&ramp(0, 1_000));
        let (a, b) = (growing.share(), growing.share());
        assert_eq!(a.as_ptr(), b.as_ptr());
        assert_eq!(a.as_ptr(), growing.as_slice().as_ptr());
        growing.push(&ramp(1_000, 10));
        assert_eq!(a.len(), 1_000, "a snapshot does not grow");
        assert_eq!(
            growing.share().as_ptr(),
            a.as_ptr(),
            "room left: same block"
        );
    }

    #[test]
    fn snapshots_read_on_other_threads_while_the_writer_appends() {
        let mut growing = GrowingAudio::default();
        let (send, receive) = std::sync::mpsc::channel::<SharedAudio>();
        let reader = std::thread::spawn(move || {
            let mut checked = 0;
            for snapshot in receive {
                assert_eq!(*snapshot, ramp(0, snapshot.len())[..]);
                checked += 1;
            }
            checked
        });
        let mut written = 0;
        for _ in 0..2_000 {
            growing.push(&ramp(written, 480));
            written += 480;
            send.send(growing.share()).unwrap();
        }
        drop(send);
        assert_eq!(reader.join().unwrap(), 2_000);
    }

    #[test]
    fn a_vector_becomes_shared_audio_without_a_copy() {
        let samples = ramp(0, 5_000);
        let at = samples.as_ptr();
        let shared = SharedAudio::from(samples);
        assert_eq!(shared.as_ptr(), at);
        assert_eq!(shared, ramp(0, 5_000));
        assert!(SharedAudio::default().is_empty());
        assert_eq!(format!("{shared:?}"), "SharedAudio(5000 samples)");
        assert_eq!(SharedAudio::copy_of(&[1.0, 2.0]), vec![1.0, 2.0]);
    }
}
