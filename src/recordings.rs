//! Nothing is lost: every recording is on disk from its first fraction of a second until it is
//! deleted as one of the oldest, so a crash, a failed or a wrong transcription can be recovered
//! or retried from the menu. This module owns the recordings folder:
//!
//! - `rec-<unix millis, 15 digits>-<counter>.journal.wav`: a recording being made or not yet
//!   finished, written while it is recorded ([`crate::audio::wav_journal`]). One left by a
//!   previous run is [`RecordingStore::unfinished`]: the app recovers it at start.
//! - `rec-<millis>-<counter>.attempts`: beside a journal, how many runs began transcribing it,
//!   so that a recording that crashes the process is not retried at every start.
//! - `rec-<millis>-<counter>.wav`: a finished recording (its dictation ended: text delivered,
//!   nothing recognised, or failed), kept for "Retry last recording"; only the newest `keep` of
//!   these are kept.
//! - `rec-<millis>-<counter>.held`: beside a finished recording that was never transcribed (its
//!   transcription failed, crashed, or stopped the app twice): it is not pruned until a
//!   transcription of it (a Retry) has finished.
//!
//! A recording's life, and who owns it at each step:
//!
//! 1. **Key-down**: the app asks here for a journal's name ([`RecordingStore::new_journal`]);
//!    the recorder (`audio::capture`) creates it and writes it as the person speaks.
//! 2. **Key-up, or the microphone failing**: the recorder closes the journal and hands it on;
//!    a recording the recorder could not journal is written as one here by the worker
//!    ([`RecordingStore::save_unfinished`]) before it is transcribed. A tap (the person's
//!    cancel) is the only end at which the recorder deletes it.
//! 3. **Transcribed, delivered or failed**: the app's coordinator marks it finished
//!    ([`RecordingStore::finish`]); never transcribed, it is held. Quitting or crashing before
//!    this leaves it a journal, recovered at the next start (`app::recovery`).
//! 4. **Pruned**: only here, only finished recordings that are not held, the oldest first,
//!    beyond `keep`.
//! 5. **Deleted at the person's asking** ([`forget`]): a finished recording once its text was
//!    delivered, when they keep no recordings; every recording not in use, when they ask the
//!    app to forget everything.
//!
//! Names sort by time. It never touches a file that does not match these patterns, except its
//! own leftovers ([`RecordingStore::unfinished`]): a journal cut off before its header was
//! written, and the `.partial.*` temporary files of a save that a crash interrupted.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::audio::wav::{read_wav_16k, write_wav_atomic, AudioError};
use crate::audio::wav_journal;

mod forget;
pub use forget::{DiscardError, Forgotten};

/// A finished recording's name ends so.
const FINISHED: &str = ".wav";
/// An unfinished recording's (a journal's) name ends so.
const JOURNAL: &str = ".journal.wav";
/// The attempt count beside a journal ends so.
const ATTEMPTS: &str = ".attempts";
/// The mark beside a finished recording never transcribed ends so.
const HELD: &str = ".held";
/// What a temporary file of a save adds to the name it is saved as (`audio::wav::temp_path`).
const PARTIAL: &str = ".partial.";

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

/// A recording a previous run left unfinished: it was being recorded or transcribed when the
/// process died.
#[derive(Debug, Clone, PartialEq)]
pub struct Unfinished {
    pub path: PathBuf,
    /// When it was started (from its name).
    pub recorded_at: SystemTime,
    /// How many runs began transcribing it (and did not finish).
    pub attempts: u32,
    /// Its length.
    pub duration: Duration,
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
        crate::private_files::create_dir_all(&self.dir).map_err(|source| {
            RecordingError::CreateDir {
                path: self.dir.clone(),
                source,
            }
        })?;
        let path = self.dir.join(new_name());
        write_wav_atomic(&path, samples_16k_mono, RECORDING_RATE)?;
        self.prune(&path);
        Ok(path)
    }

    /// The path for a new recording's journal (creating the folder), to be written with
    /// [`wav_journal::JournalWriter`] while it is recorded and then [`Self::finish`]ed.
    ///
    /// # Errors
    /// [`RecordingError::CreateDir`] naming the folder.
    pub fn new_journal(&self) -> Result<PathBuf, RecordingError> {
        crate::private_files::create_dir_all(&self.dir).map_err(|source| {
            RecordingError::CreateDir {
                path: self.dir.clone(),
                source,
            }
        })?;
        let name = new_name();
        let stem = name.strip_suffix(FINISHED).unwrap_or(&name);
        Ok(self.dir.join(format!("{stem}{JOURNAL}")))
    }

    /// Saves 16 kHz mono samples (a recording the recorder could not journal) as a new
    /// journal, atomically: unfinished until its dictation ends, like any recording.
    ///
    /// # Errors
    /// [`RecordingError::CreateDir`] or [`RecordingError::Audio`], naming the folder or file.
    pub fn save_unfinished(
        &self,
        samples: &[f32],
        sample_rate: u32,
    ) -> Result<PathBuf, RecordingError> {
        let path = self.new_journal()?;
        write_wav_atomic(&path, samples, sample_rate)?;
        Ok(path)
    }

    /// Whether `path` is an unfinished recording (a journal).
    pub fn is_journal(path: &Path) -> bool {
        journal_stem(path).is_some()
    }

    /// Notes on disk that one more run began transcribing the journal at `path`, and returns
    /// how many have; nothing for a finished recording. Not fsynced: it guards against the
    /// process dying, which leaves the written count with the system.
    pub fn count_attempt(path: &Path) -> u32 {
        let Some(sidecar) = attempts_path(path) else {
            return 0;
        };
        let attempts = read_attempts(&sidecar).saturating_add(1);
        if let Err(e) = crate::private_files::write(&sidecar, attempts.to_string().as_bytes()) {
            tracing::warn!("{}: {e}", sidecar.display());
        }
        attempts
    }

    /// Takes back one [`Self::count_attempt`]: the transcription was stopped on purpose (the
    /// app quit), which says nothing about the recording.
    pub fn uncount_attempt(path: &Path) {
        let Some(sidecar) = attempts_path(path) else {
            return;
        };
        let result = match read_attempts(&sidecar) {
            0 | 1 => std::fs::remove_file(&sidecar),
            n => crate::private_files::write(&sidecar, (n - 1).to_string().as_bytes()),
        };
        // No count left to take back (the recording was finished or discarded meanwhile).
        let result = result.or_else(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Ok(()),
            _ => Err(e),
        });
        if let Err(e) = result {
            tracing::warn!("{}: {e}", sidecar.display());
        }
    }

    /// Marks the recording at `path` finished (its dictation ended) and returns where it is
    /// kept now: a journal becomes a finished recording; any other path stays as it is. A
    /// recording that was never `transcribed` is held (not pruned) until a later finish says
    /// it was; then the oldest beyond `keep` are deleted. A journal that cannot be renamed
    /// stays a journal (logged): it is recovered at the next start rather than lost.
    pub fn finish(&self, path: &Path, transcribed: bool) -> PathBuf {
        let finished = match journal_stem(path) {
            Some(stem) => {
                let finished = path.with_file_name(format!("{stem}{FINISHED}"));
                if let Err(e) = std::fs::rename(path, &finished) {
                    tracing::warn!("cannot mark the recording {} finished: {e}", path.display());
                    return path.to_path_buf();
                }
                if let Some(sidecar) = attempts_path(path) {
                    let _ = std::fs::remove_file(sidecar);
                }
                finished
            }
            None => path.to_path_buf(),
        };
        if let Some(mark) = held_path(&finished) {
            let marked = if transcribed {
                remove_if_present(&mark)
            } else {
                crate::private_files::write(&mark, b"")
            };
            if let Err(e) = marked {
                tracing::warn!("{}: {e}", mark.display());
            }
        }
        self.prune(&finished);
        finished
    }

    /// Whether the finished recording at `path` was never transcribed (see [`Self::finish`]).
    pub fn is_held(path: &Path) -> bool {
        held_path(path).is_some_and(|mark| mark.exists())
    }

    /// The recording "Retry last recording" takes at start: the newest held one (a notice
    /// named it for Retry), else the newest.
    pub fn retry_at_start(&self) -> Option<PathBuf> {
        let all = self.list();
        all.iter()
            .rev()
            .find(|p| Self::is_held(p))
            .or(all.last())
            .cloned()
    }

    /// The recordings a previous run left unfinished, oldest first, each with its header
    /// repaired so that it holds everything that reached the disk. A journal without a single
    /// sample (the process died at key-down) is deleted; one that cannot be read is logged and
    /// left alone. Call it before this run starts recording.
    pub fn unfinished(&self) -> Vec<Unfinished> {
        self.clean_leftovers();
        let entries: Vec<(String, PathBuf)> = self.entries().collect();
        // An attempt count whose journal is gone (the process died between finishing one and
        // deleting its count) counts nothing.
        for (name, path) in &entries {
            let Some(stem) = name.strip_suffix(ATTEMPTS) else {
                continue;
            };
            if parse_stem(stem).is_some() && !self.dir.join(format!("{stem}{JOURNAL}")).exists() {
                let _ = std::fs::remove_file(path);
            }
        }
        let mut found: Vec<((u64, u64), PathBuf)> = entries
            .into_iter()
            .filter_map(|(name, path)| {
                let stem = name.strip_suffix(JOURNAL)?;
                Some((parse_stem(stem)?, path))
            })
            .collect();
        found.sort();
        found
            .into_iter()
            .filter_map(|((millis, _), path)| {
                let sealed = match wav_journal::seal(&path) {
                    Ok(sealed) => sealed,
                    Err(_) if cut_before_the_header(&path) => {
                        // Created, and nothing more (a full disk at key-down): nothing to keep.
                        tracing::info!(path = %path.display(), "empty journal removed");
                        let _ = std::fs::remove_file(&path);
                        if let Some(sidecar) = attempts_path(&path) {
                            let _ = std::fs::remove_file(sidecar);
                        }
                        return None;
                    }
                    Err(e) => {
                        tracing::warn!("unfinished recording not recoverable: {e}");
                        return None;
                    }
                };
                if sealed.samples == 0 {
                    let _ = std::fs::remove_file(&path);
                    if let Some(sidecar) = attempts_path(&path) {
                        let _ = std::fs::remove_file(sidecar);
                    }
                    return None;
                }
                let rate = f64::from(sealed.sample_rate.max(1));
                Some(Unfinished {
                    attempts: attempts_path(&path).map_or(0, |p| read_attempts(&p)),
                    recorded_at: UNIX_EPOCH + Duration::from_millis(millis),
                    duration: Duration::from_secs_f64(sealed.samples as f64 / rate),
                    path,
                })
            })
            .collect()
    }

    /// Removes what a crash left behind: the temporary file of a save that never got renamed
    /// (a recording the save had not finished is recovered from it when it holds audio), and
    /// held marks whose recording is gone.
    fn clean_leftovers(&self) {
        for (name, path) in self.entries().collect::<Vec<_>>() {
            if let Some(stem) = name.strip_suffix(HELD) {
                if parse_stem(stem).is_some()
                    && !self.dir.join(format!("{stem}{FINISHED}")).exists()
                {
                    let _ = std::fs::remove_file(&path);
                }
                continue;
            }
            let Some((saved_as, _)) = name.split_once(PARTIAL) else {
                continue;
            };
            let stem = saved_as
                .strip_suffix(JOURNAL)
                .or_else(|| saved_as.strip_suffix(FINISHED));
            let Some(stem) = stem.filter(|stem| parse_stem(stem).is_some()) else {
                continue;
            };
            let journal = self.dir.join(format!("{stem}{JOURNAL}"));
            let finished = self.dir.join(format!("{stem}{FINISHED}"));
            let whole_elsewhere = journal.exists() || finished.exists();
            let holds_audio = || wav_journal::seal(&path).is_ok_and(|sealed| sealed.samples > 0);
            if !whole_elsewhere && holds_audio() {
                match std::fs::rename(&path, &journal) {
                    Ok(()) => tracing::info!(
                        path = %journal.display(),
                        "an interrupted save recovered as an unfinished recording"
                    ),
                    Err(e) => tracing::warn!("{}: {e}", path.display()),
                }
            } else if let Err(e) = std::fs::remove_file(&path) {
                tracing::warn!("{}: {e}", path.display());
            } else {
                tracing::info!(path = %path.display(), "leftover of an interrupted save removed");
            }
        }
    }

    /// Deletes the oldest recordings that are not held so that at most `keep` of them remain,
    /// never `just_saved`.
    fn prune(&self, just_saved: &Path) {
        let all: Vec<PathBuf> = self
            .list()
            .into_iter()
            .filter(|p| !Self::is_held(p))
            .collect();
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
        let mut found: Vec<((u64, u64), PathBuf)> = self
            .entries()
            .filter_map(|(name, path)| Some((parse_name(&name)?, path)))
            .collect();
        found.sort();
        found.into_iter().map(|(_, path)| path).collect()
    }

    /// The folder's plain files with UTF-8 names. A missing or unreadable folder has none.
    fn entries(&self) -> impl Iterator<Item = (String, PathBuf)> {
        std::fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                entry
                    .file_type()
                    .ok()?
                    .is_file()
                    .then(|| (name, entry.path()))
            })
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

/// When the finished recording named `name` (`rec-<millis>-<counter>.wav`) was started, in
/// unix milliseconds; `None` for any other name (a journal, a mark, another file). For the
/// history's one-time import of the recordings made before it existed.
pub fn finished_recording_millis(name: &str) -> Option<u64> {
    parse_name(name).map(|(millis, _)| millis)
}

/// The (millis, counter) of a finished recording's file name; `None` for any other name.
fn parse_name(name: &str) -> Option<(u64, u64)> {
    parse_stem(name.strip_suffix(FINISHED)?)
}

/// The `rec-<millis>-<counter>` of a journal's path.
fn journal_stem(path: &Path) -> Option<&str> {
    let stem = path.file_name()?.to_str()?.strip_suffix(JOURNAL)?;
    parse_stem(stem).map(|_| stem)
}

/// The attempt count's file beside a journal.
fn attempts_path(journal: &Path) -> Option<PathBuf> {
    let stem = journal_stem(journal)?;
    Some(journal.with_file_name(format!("{stem}{ATTEMPTS}")))
}

/// The held mark beside a finished recording.
fn held_path(finished: &Path) -> Option<PathBuf> {
    let stem = finished.file_name()?.to_str()?.strip_suffix(FINISHED)?;
    parse_stem(stem)?;
    Some(finished.with_file_name(format!("{stem}{HELD}")))
}

fn remove_if_present(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Whether the journal at `path` holds at most a beginning of its own header: it was created
/// and the process died (or the disk was full) before a single sample was written.
fn cut_before_the_header(path: &Path) -> bool {
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    bytes.len() < wav_journal::HEADER_BYTES && b"RIFF".starts_with(&bytes[..bytes.len().min(4)])
}

/// The count in an attempts file; 0 when it is missing or not a number.
fn read_attempts(sidecar: &Path) -> u32 {
    std::fs::read_to_string(sidecar)
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(0)
}

/// The (millis, counter) of `rec-<millis>-<counter>`.
fn parse_stem(stem: &str) -> Option<(u64, u64)> {
    let stem = stem.strip_prefix("rec-")?;
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
    fn a_journal_is_unfinished_until_finished_then_kept_like_any_recording() {
        use crate::audio::wav_journal::JournalWriter;
        let dir = tempfile::tempdir().unwrap();
        let store = RecordingStore::new(dir.path().join("recordings"), 2);
        let older: Vec<PathBuf> = (0..2).map(|i| store.save(&tone(i)).unwrap()).collect();

        let journal = store.new_journal().unwrap();
        assert!(
            RecordingStore::is_journal(&journal),
            "{}",
            journal.display()
        );
        assert!(!RecordingStore::is_journal(&older[0]));
        let mut writer = JournalWriter::create(&journal, 48_000).unwrap();
        writer.append(&vec![0.25; 24_000]).unwrap();
        // A journal is not a finished recording: Retry and pruning do not see it.
        assert_eq!(store.list(), older);

        // The process dies with the writer open, while it was being transcribed for the second
        // time.
        std::mem::forget(writer);
        assert_eq!(RecordingStore::count_attempt(&journal), 1);
        assert_eq!(RecordingStore::count_attempt(&journal), 2);
        let found = store.unfinished();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].path, journal);
        assert_eq!(found[0].attempts, 2);
        assert_eq!(found[0].duration, Duration::from_millis(500));
        let age = SystemTime::now()
            .duration_since(found[0].recorded_at)
            .unwrap();
        assert!(age < Duration::from_secs(60), "{age:?}");
        assert_eq!(RecordingStore::load(&journal).unwrap().len(), 8_000);

        let finished = store.finish(&journal, true);
        assert!(!journal.exists() && finished.exists());
        assert!(parse_name(finished.file_name().unwrap().to_str().unwrap()).is_some());
        assert!(store.unfinished().is_empty());
        // Attempts are forgotten with the journal; the oldest finished recording goes.
        assert!(attempts_path(&journal).is_some_and(|p| !p.exists()));
        assert_eq!(store.list(), vec![older[1].clone(), finished.clone()]);
        assert_eq!(store.latest(), Some(finished.clone()));
        // Finishing a finished recording (a retry) changes nothing.
        assert_eq!(store.finish(&finished, true), finished);
        assert_eq!(RecordingStore::count_attempt(&finished), 0);
    }

    #[test]
    fn a_journal_without_samples_is_dropped_and_a_foreign_one_left_alone() {
        use crate::audio::wav_journal::JournalWriter;
        let dir = tempfile::tempdir().unwrap();
        let store = RecordingStore::new(dir.path().to_path_buf(), 3);
        let empty = store.new_journal().unwrap();
        drop(JournalWriter::create(&empty, 16_000).unwrap());
        RecordingStore::count_attempt(&empty);
        let foreign = dir.path().join("rec-000000000000001-000001.journal.wav");
        std::fs::write(&foreign, b"not a wav").unwrap();
        let orphan = dir.path().join("rec-000000000000002-000001.attempts");
        std::fs::write(&orphan, b"1").unwrap();
        let unrelated = dir.path().join("notes.attempts");
        std::fs::write(&unrelated, b"1").unwrap();
        assert!(store.unfinished().is_empty());
        assert!(!orphan.exists() && unrelated.exists());
        assert!(!empty.exists());
        assert!(attempts_path(&empty).is_some_and(|p| !p.exists()));
        assert_eq!(std::fs::read(&foreign).unwrap(), b"not a wav");
    }

    #[test]
    fn a_recording_never_transcribed_is_held_until_a_retry_transcribes_it() {
        use crate::audio::wav_journal::JournalWriter;
        let dir = tempfile::tempdir().unwrap();
        let store = RecordingStore::new(dir.path().to_path_buf(), 2);
        // Recorded first (the oldest name), its transcription stopped the app twice: kept for
        // Retry by the third start.
        let journal = store.new_journal().unwrap();
        JournalWriter::create(&journal, 16_000)
            .unwrap()
            .append(&tone(9))
            .unwrap();
        let newer: Vec<PathBuf> = (0..2).map(|i| store.save(&tone(i)).unwrap()).collect();
        let held = store.finish(&journal, false);
        assert!(RecordingStore::is_held(&held));
        assert_eq!(store.retry_at_start(), Some(held.clone()));
        // Ten dictations later it is still there; the others are pruned to `keep`.
        let mut last = newer[1].clone();
        for i in 0..10 {
            let j = store.save_unfinished(&tone(i), RECORDING_RATE).unwrap();
            last = store.finish(&j, true);
        }
        assert!(held.exists(), "a recording never transcribed is not pruned");
        let list = store.list();
        assert_eq!(list.len(), 3, "{list:?}");
        assert_eq!(list[0], held);
        assert_eq!(list[2], last);
        // Still the one Retry takes at start, though older than every other.
        assert_eq!(store.retry_at_start(), Some(held.clone()));
        // A Retry that transcribed it: an ordinary recording again (kept while it is the one
        // just retried), the oldest, pruned at the next dictation.
        assert_eq!(store.finish(&held, true), held);
        assert!(!RecordingStore::is_held(&held) && held.exists());
        let j = store.save_unfinished(&tone(11), RECORDING_RATE).unwrap();
        let newest = store.finish(&j, true);
        assert!(!held.exists(), "pruned as the oldest beyond keep");
        assert_eq!(store.retry_at_start(), Some(newest));
    }

    #[test]
    fn a_stopped_transcription_takes_its_attempt_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = RecordingStore::new(dir.path().to_path_buf(), 2);
        let journal = store.save_unfinished(&tone(0), RECORDING_RATE).unwrap();
        assert_eq!(RecordingStore::count_attempt(&journal), 1);
        assert_eq!(RecordingStore::count_attempt(&journal), 2);
        RecordingStore::uncount_attempt(&journal);
        assert_eq!(store.unfinished()[0].attempts, 1);
        RecordingStore::uncount_attempt(&journal);
        assert_eq!(store.unfinished()[0].attempts, 0);
        assert!(attempts_path(&journal).is_some_and(|p| !p.exists()));
    }

    #[test]
    fn leftovers_of_a_crash_are_cleaned_and_an_interrupted_save_is_recovered() {
        use crate::audio::wav::write_wav_atomic;
        let dir = tempfile::tempdir().unwrap();
        let store = RecordingStore::new(dir.path().to_path_buf(), 3);
        let at = |name: &str| dir.path().join(name);
        // A journal created on a full disk: no byte, or part of its header.
        std::fs::write(at("rec-000000000000001-000000.journal.wav"), b"").unwrap();
        std::fs::write(at("rec-000000000000002-000000.journal.wav"), b"RIFF\x24\0").unwrap();
        // A save cut off before its rename, with the recording in it and nowhere else.
        let whole = at("rec-000000000000003-000000.wav");
        write_wav_atomic(&whole, &tone(3), RECORDING_RATE).unwrap();
        let cut = at("rec-000000000000003-000000.wav.partial.4242-0");
        std::fs::rename(&whole, &cut).unwrap();
        // The 16 kHz rewrite of a journal, cut off: the journal itself is whole.
        let journal = store.save_unfinished(&tone(4), RECORDING_RATE).unwrap();
        let rewrite = journal.with_file_name(format!(
            "{}.partial.4242-1",
            journal.file_name().unwrap().to_str().unwrap()
        ));
        std::fs::write(&rewrite, b"RIFF").unwrap();
        // A held mark whose recording the person deleted.
        std::fs::write(at("rec-000000000000005-000000.held"), b"").unwrap();
        // Not ours: left alone.
        std::fs::write(at("rec-000000000000006-000000.journal.wav"), b"not a wav").unwrap();
        std::fs::write(at("notes.wav.partial.1-0"), b"keep").unwrap();

        let found = store.unfinished();
        let paths: Vec<&Path> = found.iter().map(|u| u.path.as_path()).collect();
        let recovered = at("rec-000000000000003-000000.journal.wav");
        assert_eq!(paths, vec![recovered.as_path(), journal.as_path()]);
        assert_eq!(
            RecordingStore::load(&recovered).unwrap().len(),
            tone(3).len()
        );
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let journal_name = journal.file_name().unwrap().to_string_lossy().into_owned();
        let mut expected = vec![
            "notes.wav.partial.1-0".to_string(),
            "rec-000000000000003-000000.journal.wav".to_string(),
            "rec-000000000000006-000000.journal.wav".to_string(),
            journal_name,
        ];
        expected.sort();
        assert_eq!(left, expected);
        // The next start finds the same, and warns about nothing new.
        assert_eq!(store.unfinished().len(), 2);
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
