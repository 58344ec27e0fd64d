//! The deletions the person asks for, as opposed to pruning: one finished recording whose text
//! was delivered while "Keep recordings" is off ([`RecordingStore::discard`]), and every
//! recording at once, "Forget everything" ([`RecordingStore::forget`]). Both touch only the
//! folder's own files (the names in the parent module's doc), and never a journal still in use
//! (being recorded, or transcribed): its dictation finishes it as usual.

use super::{parse_name, parse_stem, RecordingStore, ATTEMPTS, FINISHED, HELD, JOURNAL, PARTIAL};
use std::io;
use std::path::{Path, PathBuf};

/// Why a recording was not deleted.
#[derive(Debug, thiserror::Error)]
pub enum DiscardError {
    /// Not a finished recording of this folder (a journal, or another file): left alone.
    #[error("{} is not a finished recording of {}", .path.display(), .dir.display())]
    NotAFinishedRecording { path: PathBuf, dir: PathBuf },
    #[error("cannot delete {}: {source}", .path.display())]
    Delete {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// What [`RecordingStore::forget`] did.
#[derive(Debug, Default)]
pub struct Forgotten {
    /// Files deleted: recordings, journals, their attempt counts and held marks, leftovers.
    pub deleted: usize,
    /// Journals left because they are in use (with their attempt counts).
    pub in_use: usize,
    /// Files that could not be deleted, each with why.
    pub failed: Vec<DiscardError>,
}

impl RecordingStore {
    /// Deletes the finished recording at `path` (and its held mark): its text was delivered
    /// and the person keeps no recordings. A journal, or any file that is not one of this
    /// folder's finished recordings, is refused.
    pub fn discard(&self, path: &Path) -> Result<(), DiscardError> {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.parent() != Some(self.dir.as_path()) || parse_name(name).is_none() {
            return Err(DiscardError::NotAFinishedRecording {
                path: path.to_path_buf(),
                dir: self.dir.clone(),
            });
        }
        let delete = |path: &Path| {
            super::remove_if_present(path).map_err(|source| DiscardError::Delete {
                path: path.to_path_buf(),
                source,
            })
        };
        delete(path)?;
        match super::held_path(path) {
            Some(mark) => delete(&mark),
            None => Ok(()),
        }
    }

    /// "Forget everything": deletes every recording of the folder — finished, held, journals
    /// of previous runs, attempt counts, the leftovers of interrupted saves — except the
    /// journals in `in_use` (a dictation being recorded or transcribed now) and what belongs
    /// to them. Files of other names are not touched. A file that cannot be deleted is
    /// reported, and the rest are deleted all the same.
    pub fn forget(&self, in_use: &[PathBuf]) -> Forgotten {
        let in_use_stems: Vec<&str> = in_use
            .iter()
            .filter_map(|path| path.file_name()?.to_str())
            .filter_map(|name| {
                name.strip_suffix(JOURNAL)
                    .or_else(|| name.strip_suffix(FINISHED))
            })
            .collect();
        let mut forgotten = Forgotten::default();
        for (name, path) in self.entries().collect::<Vec<_>>() {
            let Some(stem) = own_stem(&name) else {
                continue;
            };
            if in_use_stems.contains(&stem) {
                forgotten.in_use += usize::from(name.ends_with(JOURNAL));
                continue;
            }
            match std::fs::remove_file(&path) {
                Ok(()) => forgotten.deleted += 1,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(source) => forgotten.failed.push(DiscardError::Delete { path, source }),
            }
        }
        forgotten
    }
}

/// The `rec-<millis>-<counter>` of one of the folder's own file names: a finished recording, a
/// journal, an attempt count, a held mark, or a temporary file of a save of one of them.
fn own_stem(name: &str) -> Option<&str> {
    let saved_as = name
        .split_once(PARTIAL)
        .map_or(name, |(saved_as, _)| saved_as);
    let stem = [JOURNAL, FINISHED, ATTEMPTS, HELD]
        .iter()
        .find_map(|suffix| saved_as.strip_suffix(suffix))?;
    parse_stem(stem).map(|_| stem)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    const SETTINGS: &str = "{\n  \"output\": \"copy\"\n}\n";

    /// Every file under `dir`, as paths relative to it, sorted.
    fn files_under(dir: &Path) -> Vec<String> {
        let mut found = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(at) = stack.pop() {
            for entry in fs::read_dir(&at).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    let relative = path.strip_prefix(dir).unwrap();
                    found.push(relative.to_string_lossy().into_owned());
                }
            }
        }
        found.sort();
        found
    }

    #[test]
    fn forgetting_leaves_only_the_settings_and_the_recording_in_use() {
        let state = tempfile::tempdir().unwrap();
        fs::write(state.path().join("settings.json"), SETTINGS).unwrap();
        let store = RecordingStore::new(state.path().join("recordings"), 10);
        let samples = vec![0.25f32; 1600];
        // Two finished recordings, one of them held for Retry (never transcribed).
        let done = store.save(&samples).unwrap();
        let failed = store.save(&samples).unwrap();
        let failed = store.finish(&failed, false);
        assert!(RecordingStore::is_held(&failed));
        // A journal a previous run left, with its attempt count, and an interrupted save.
        let old_journal = store.save_unfinished(&samples, 16_000).unwrap();
        assert_eq!(RecordingStore::count_attempt(&old_journal), 1);
        let stem = old_journal.file_name().unwrap().to_str().unwrap();
        let partial = store.dir().join(format!("{stem}.partial.123-4"));
        fs::write(&partial, b"RIFF").unwrap();
        // The journal of the dictation being transcribed now, with its attempt count.
        let in_use = store.save_unfinished(&samples, 16_000).unwrap();
        RecordingStore::count_attempt(&in_use);
        // A file the store never wrote: not its to delete.
        fs::write(store.dir().join("notes.txt"), b"mine").unwrap();

        let forgotten = store.forget(std::slice::from_ref(&in_use));
        assert!(forgotten.failed.is_empty(), "{:?}", forgotten.failed);
        // done.wav, failed.wav + .held, the old journal + .attempts, the partial.
        assert_eq!((forgotten.deleted, forgotten.in_use), (6, 1));
        let in_use_name = in_use.file_name().unwrap().to_str().unwrap();
        let in_use_stem = in_use_name.strip_suffix(JOURNAL).unwrap();
        assert_eq!(
            files_under(state.path()),
            vec![
                "recordings/notes.txt".to_string(),
                format!("recordings/{in_use_stem}{ATTEMPTS}"),
                format!("recordings/{in_use_name}"),
                "settings.json".to_string(),
            ]
        );
        assert_eq!(
            fs::read_to_string(state.path().join("settings.json")).unwrap(),
            SETTINGS
        );
        assert!(!done.exists() && store.list().is_empty());
        assert_eq!(store.retry_at_start(), None);
        // Nothing in use any more: the rest goes too.
        let forgotten = store.forget(&[]);
        assert_eq!((forgotten.deleted, forgotten.in_use), (2, 0));
        assert_eq!(
            files_under(state.path()),
            ["recordings/notes.txt", "settings.json"]
        );
    }

    #[test]
    fn forgetting_a_folder_never_made_deletes_nothing() {
        let state = tempfile::tempdir().unwrap();
        let store = RecordingStore::new(state.path().join("recordings"), 10);
        let forgotten = store.forget(&[]);
        assert_eq!((forgotten.deleted, forgotten.in_use), (0, 0));
        assert!(forgotten.failed.is_empty());
    }

    #[test]
    fn a_delivered_recording_is_discarded_with_its_mark_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let store = RecordingStore::new(dir.path().join("recordings"), 10);
        let samples = vec![0.25f32; 1600];
        let kept = store.save(&samples).unwrap();
        let retried = store.save(&samples).unwrap();
        // Held, then retried: a stale mark would outlive its recording.
        let retried = store.finish(&retried, false);
        fs::write(super::super::held_path(&retried).unwrap(), b"").unwrap();
        store.discard(&retried).unwrap();
        assert_eq!(store.list(), vec![kept.clone()]);
        assert_eq!(fs::read_dir(store.dir()).unwrap().count(), 1);
        // A journal (a dictation not finished) and files elsewhere are refused.
        let journal = store.new_journal().unwrap();
        fs::write(&journal, b"RIFF").unwrap();
        assert!(matches!(
            store.discard(&journal),
            Err(DiscardError::NotAFinishedRecording { .. })
        ));
        let elsewhere = dir.path().join(kept.file_name().unwrap());
        fs::write(&elsewhere, b"RIFF").unwrap();
        assert!(matches!(
            store.discard(&elsewhere),
            Err(DiscardError::NotAFinishedRecording { .. })
        ));
        assert!(journal.exists() && elsewhere.exists() && kept.exists());
    }
}
