//! Nothing is lost: every recording is saved as a WAV in the recordings folder before it is
//! transcribed, so a failed or wrong transcription can be retried from the menu. This module
//! owns naming those files (`rec-<unix millis, 15 digits>-<counter>.wav`, so they sort by
//! time), keeping only the newest `keep` of them, and reading them back. It never touches a
//! file that does not match that name pattern.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::audio::wav::{read_wav_16k, write_wav_atomic, AudioError};

/// The rate recordings are stored at: Whisper's input rate.
pub const RECORDING_RATE: u32 = 16_000;

#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    #[error("cannot create the recordings folder {}: {source}", .path.display())]
    CreateDir {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// Writing or reading a recording failed; the message names the file.
    #[error(transparent)]
    Audio(#[from] AudioError),
}

/// The folder of saved recordings and how many to keep.
#[derive(Debug, Clone)]
pub struct RecordingStore {
    dir: PathBuf,
    keep: usize,
}

impl RecordingStore {
    /// A store in `dir` (created on the first save) keeping the newest `keep` recordings; the
    /// one just saved is always kept, even with `keep` 0.
    pub fn new(dir: PathBuf, keep: usize) -> Self {
        RecordingStore { dir, keep }
    }

    /// The recordings folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Saves 16 kHz mono samples as a new 16-bit WAV (atomically), then deletes the oldest
    /// recordings beyond `keep`. A recording that cannot be deleted is logged, not an error:
    /// the new one is safe.
    ///
    /// # Errors
    /// [`RecordingError::CreateDir`] or [`RecordingError::Audio`], naming the folder or file.
    pub fn save(&self, samples_16k_mono: &[f32]) -> Result<PathBuf, RecordingError> {
        std::fs::create_dir_all(&self.dir).map_err(|source| RecordingError::CreateDir {
            path: self.dir.clone(),
            source,
        })?;
        let path = self.dir.join(new_name());
        write_wav_atomic(&path, samples_16k_mono, RECORDING_RATE)?;
        self.prune(&path);
        Ok(path)
    }

    /// Deletes the oldest recordings so that at most `keep` remain, never `just_saved`.
    fn prune(&self, just_saved: &Path) {
        let all = self.list();
        let excess = all.len().saturating_sub(self.keep.max(1));
        for old in all
            .iter()
            .take(excess)
            .filter(|p| p.as_path() != just_saved)
        {
            if let Err(e) = std::fs::remove_file(old) {
                tracing::warn!("cannot delete the old recording {}: {e}", old.display());
            }
        }
    }

    /// The newest recording, if any.
    pub fn latest(&self) -> Option<PathBuf> {
        self.list().pop()
    }

    /// The recordings, oldest first. A missing or unreadable folder is an empty list.
    pub fn list(&self) -> Vec<PathBuf> {
        let mut found: Vec<((u64, u64), PathBuf)> = std::fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| {
                let key = parse_name(entry.file_name().to_str()?)?;
                entry
                    .file_type()
                    .ok()?
                    .is_file()
                    .then(|| (key, entry.path()))
            })
            .collect();
        found.sort();
        found.into_iter().map(|(_, path)| path).collect()
    }

    /// Reads a recording back as 16 kHz mono samples.
    ///
    /// # Errors
    /// [`RecordingError::Audio`] naming the file.
    pub fn load(path: &Path) -> Result<Vec<f32>, RecordingError> {
        Ok(read_wav_16k(path)?)
    }
}

/// `rec-<millis>-<counter>.wav`; the counter (process-wide) orders recordings made within the
/// same millisecond.
fn new_name() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let counter = COUNTER.fetch_add(1, Ordering::Relaxed);
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    format!("rec-{millis:015}-{counter:06}.wav")
}

/// The (millis, counter) of a recording's file name; `None` for any other name.
fn parse_name(name: &str) -> Option<(u64, u64)> {
    let stem = name.strip_prefix("rec-")?.strip_suffix(".wav")?;
    let (millis, counter) = stem.split_once('-')?;
    let number = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().ok())
            .flatten()
    };
    Some((number(millis)?, number(counter)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(seed: usize) -> Vec<f32> {
        (0..1_600)
            .map(|i| 0.3 * ((i * (seed + 1)) as f32 * 0.01).sin())
            .collect()
    }

    #[test]
    fn keeps_the_newest_and_round_trips_them() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("recordings");
        let store = RecordingStore::new(folder.clone(), 3);
        assert!(store.list().is_empty() && store.latest().is_none());

        std::fs::create_dir_all(&folder).unwrap();
        let unrelated = [
            "notes.txt",
            "rec-abc-1.wav",
            "rec-000000000000001.wav",
            "my-rec-000000000000001-000001.wav",
            "rec-000000000000001-000001.wav.partial.1-0",
        ];
        for name in unrelated {
            std::fs::write(folder.join(name), b"keep me").unwrap();
        }

        let saved: Vec<PathBuf> = (0..5).map(|i| store.save(&tone(i)).unwrap()).collect();
        assert_eq!(store.list(), saved[2..].to_vec());
        assert_eq!(store.latest(), Some(saved[4].clone()));
        for (i, path) in saved.iter().enumerate().skip(2) {
            let back = RecordingStore::load(path).unwrap();
            let original = tone(i);
            assert_eq!(back.len(), original.len());
            for (a, b) in back.iter().zip(&original) {
                assert!((a - b).abs() <= 1.0 / 32_768.0, "{a} vs {b}");
            }
        }
        for path in &saved[..2] {
            assert!(!path.exists(), "{}", path.display());
        }
        for name in unrelated {
            assert_eq!(
                std::fs::read(folder.join(name)).unwrap(),
                b"keep me",
                "{name}"
            );
        }
    }

    #[test]
    fn names_sort_by_time_then_counter() {
        let name = new_name();
        let (millis, _) = parse_name(&name).unwrap();
        assert!(millis > 1_600_000_000_000, "{name}");
        assert_eq!(name.len(), "rec-".len() + 15 + 1 + 6 + ".wav".len());
        // Numeric order, not text order, once a counter outgrows its padding.
        assert!(
            parse_name("rec-000000000000005-999999.wav")
                < parse_name("rec-000000000000005-1000000.wav")
        );
        assert!(
            parse_name("rec-000000000000005-000009.wav")
                < parse_name("rec-000000000000006-000000.wav")
        );
        for bad in [
            "rec--1.wav",
            "rec-1-.wav",
            "rec-1-2.WAV",
            "rec-+1-2.wav",
            "rec-1-2-3.wav",
        ] {
            assert_eq!(parse_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn keep_zero_still_keeps_the_new_recording() {
        let dir = tempfile::tempdir().unwrap();
        let store = RecordingStore::new(dir.path().to_path_buf(), 0);
        store.save(&tone(0)).unwrap();
        let last = store.save(&tone(1)).unwrap();
        assert_eq!(store.list(), vec![last]);
    }

    #[test]
    fn errors_name_the_file_or_folder() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("blocker");
        std::fs::write(&blocker, b"x").unwrap();
        let store = RecordingStore::new(blocker.join("recordings"), 3);
        let err = store.save(&tone(0)).unwrap_err();
        assert!(matches!(err, RecordingError::CreateDir { .. }), "{err:?}");
        assert!(err.to_string().contains("recordings"), "{err}");

        let missing = dir.path().join("rec-000000000000001-000000.wav");
        let err = RecordingStore::load(&missing).unwrap_err();
        assert!(
            err.to_string().contains("rec-000000000000001-000000.wav"),
            "{err}"
        );
    }
}
