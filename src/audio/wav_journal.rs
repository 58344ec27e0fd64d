//! A recording written to disk while it is being recorded, so that nothing said is lost when the
//! process dies (an MPS abort in the middle of an encode, a crash, `kill -9`).
//!
//! The file is a plain 16-bit mono PCM WAV with the canonical 44-byte header. Samples are
//! appended as they arrive and the header's two sizes are rewritten after every append, so at any
//! moment the file on disk is a valid WAV of everything appended so far (a crash between the
//! append and the header update leaves a header one append behind: still valid, and
//! [`seal`] recovers the rest). Appends go to the operating system at once (no user-space
//! buffer): a dead process cannot take them with it. They are not fsynced on every append: the
//! failure guarded against is the process dying, not the power.

use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::wav::{temp_path, to_pcm16};

/// The canonical PCM header: RIFF, fmt (16 bytes), data.
const HEADER_LEN: u64 = 44;
/// The header's length in bytes: a shorter file holds no sample.
pub const HEADER_BYTES: usize = HEADER_LEN as usize;
/// Where the RIFF chunk's size is (file length − 8).
const RIFF_SIZE_AT: u64 = 4;
/// Where the data chunk's size is.
const DATA_SIZE_AT: u64 = 40;
/// The largest data chunk a RIFF header can declare.
const MAX_DATA: u64 = u32::MAX as u64 - (HEADER_LEN - 8);

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("cannot write the recording {}: {source}", .path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot repair the recording {}: {source}", .path.display())]
    Seal {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{} is not a recording journal: {reason}", .path.display())]
    NotJournal { path: PathBuf, reason: &'static str },
}

/// A WAV being written as audio arrives.
#[derive(Debug)]
pub struct JournalWriter {
    file: File,
    path: PathBuf,
    /// Bytes of samples written.
    data_len: u64,
}

impl JournalWriter {
    /// Creates `path` (which must not exist) with an empty recording at `sample_rate`.
    ///
    /// # Errors
    /// [`JournalError::Write`] naming the file.
    pub fn create(path: &Path, sample_rate: u32) -> Result<JournalWriter, JournalError> {
        let write_error = |source| JournalError::Write {
            path: path.to_path_buf(),
            source,
        };
        // Owner-only: it is the person's voice.
        let mut file = crate::private_files::open_options()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(write_error)?;
        file.write_all(&header(sample_rate, 0))
            .map_err(write_error)?;
        Ok(JournalWriter {
            file,
            path: path.to_path_buf(),
            data_len: 0,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Samples written so far.
    pub fn samples(&self) -> u64 {
        self.data_len / 2
    }

    /// Appends mono samples (clipped to [-1, 1]) and brings the header up to date. Past the
    /// 4 GiB a WAV can declare (37 hours at 16 kHz) further samples are dropped.
    ///
    /// # Errors
    /// [`JournalError::Write`] naming the file; what was written before stays readable.
    pub fn append(&mut self, samples: &[f32]) -> Result<(), JournalError> {
        let room = ((MAX_DATA - self.data_len) / 2) as usize;
        let samples = &samples[..samples.len().min(room)];
        if samples.is_empty() {
            return Ok(());
        }
        let bytes: Vec<u8> = samples
            .iter()
            .flat_map(|&s| to_pcm16(s).to_le_bytes())
            .collect();
        let write_error = |source| JournalError::Write {
            path: self.path.clone(),
            source,
        };
        self.file
            .seek(SeekFrom::Start(HEADER_LEN + self.data_len))
            .and_then(|_| self.file.write_all(&bytes))
            .map_err(write_error)?;
        self.data_len += bytes.len() as u64;
        write_sizes(&mut self.file, self.data_len).map_err(write_error)
    }
}

/// Replaces the journal at `path` with `samples` at `sample_rate` (the finished recording at
/// Whisper's rate, a third of the size of a 48 kHz journal): written beside it, then renamed
/// over it, so `path` is always one complete journal or the other.
///
/// # Errors
/// [`JournalError::Write`] naming the file; `path` is then left as it was.
pub fn replace(path: &Path, samples: &[f32], sample_rate: u32) -> Result<(), JournalError> {
    let temp = temp_path(path);
    let written = JournalWriter::create(&temp, sample_rate)
        .and_then(|mut writer| writer.append(samples))
        .and_then(|()| {
            std::fs::rename(&temp, path).map_err(|source| JournalError::Write {
                path: path.to_path_buf(),
                source,
            })
        });
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// What a sealed journal holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sealed {
    pub samples: u64,
    pub sample_rate: u32,
}

/// Repairs the header of a journal a dead process left behind so that it declares every whole
/// sample in the file. A journal that was closed normally is left as it is.
///
/// # Errors
/// [`JournalError::NotJournal`] when the file does not start with this module's header,
/// [`JournalError::Seal`] when it cannot be read or written; both name the file.
pub fn seal(path: &Path) -> Result<Sealed, JournalError> {
    let seal_error = |source| JournalError::Seal {
        path: path.to_path_buf(),
        source,
    };
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(seal_error)?;
    let mut head = [0u8; HEADER_LEN as usize];
    let len = file.metadata().map_err(seal_error)?.len();
    if len < HEADER_LEN {
        return Err(JournalError::NotJournal {
            path: path.to_path_buf(),
            reason: "shorter than a WAV header",
        });
    }
    io::Read::read_exact(&mut file, &mut head).map_err(seal_error)?;
    let rate = u32::from_le_bytes([head[24], head[25], head[26], head[27]]);
    if head[..RIFF_SIZE_AT as usize] != header(rate, 0)[..RIFF_SIZE_AT as usize]
        || head[8..DATA_SIZE_AT as usize] != header(rate, 0)[8..DATA_SIZE_AT as usize]
    {
        return Err(JournalError::NotJournal {
            path: path.to_path_buf(),
            reason: "not a 16-bit mono PCM WAV header",
        });
    }
    let data_len = ((len - HEADER_LEN) & !1).min(MAX_DATA);
    let declared = u32::from_le_bytes([head[40], head[41], head[42], head[43]]);
    if u64::from(declared) != data_len {
        write_sizes(&mut file, data_len).map_err(seal_error)?;
    }
    Ok(Sealed {
        samples: data_len / 2,
        sample_rate: rate,
    })
}

/// The canonical header of a 16-bit mono PCM WAV declaring `data_len` bytes of samples.
fn header(sample_rate: u32, data_len: u32) -> [u8; HEADER_LEN as usize] {
    let mut h = [0u8; HEADER_LEN as usize];
    h[0..4].copy_from_slice(b"RIFF");
    h[4..8].copy_from_slice(&(data_len.saturating_add(36)).to_le_bytes());
    h[8..16].copy_from_slice(b"WAVEfmt ");
    h[16..20].copy_from_slice(&16u32.to_le_bytes());
    h[20..22].copy_from_slice(&1u16.to_le_bytes()); // PCM
    h[22..24].copy_from_slice(&1u16.to_le_bytes()); // mono
    h[24..28].copy_from_slice(&sample_rate.to_le_bytes());
    h[28..32].copy_from_slice(&(sample_rate.saturating_mul(2)).to_le_bytes());
    h[32..34].copy_from_slice(&2u16.to_le_bytes()); // block align
    h[34..36].copy_from_slice(&16u16.to_le_bytes()); // bits
    h[36..40].copy_from_slice(b"data");
    h[40..44].copy_from_slice(&data_len.to_le_bytes());
    h
}

/// Rewrites the RIFF and data sizes for `data_len` bytes of samples.
fn write_sizes(file: &mut File, data_len: u64) -> io::Result<()> {
    let data = data_len.min(MAX_DATA) as u32;
    file.seek(SeekFrom::Start(RIFF_SIZE_AT))?;
    file.write_all(&(data + 36).to_le_bytes())?;
    file.seek(SeekFrom::Start(DATA_SIZE_AT))?;
    file.write_all(&data.to_le_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audio::wav::read_wav;

    fn tone(n: usize, start: usize) -> Vec<f32> {
        (start..start + n)
            .map(|i| 0.4 * (i as f32 * 0.05).sin())
            .collect()
    }

    fn assert_close(read: &[f32], written: &[f32]) {
        assert_eq!(read.len(), written.len());
        for (a, b) in read.iter().zip(written) {
            assert!((a - b).abs() <= 1.0 / 32_768.0, "{a} vs {b}");
        }
    }

    #[test]
    fn every_append_leaves_a_valid_wav_of_everything_so_far() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rec.journal.wav");
        let mut journal = JournalWriter::create(&path, 48_000).unwrap();
        let mut written = Vec::new();
        for block in 0..5 {
            let samples = tone(960, block * 960);
            journal.append(&samples).unwrap();
            written.extend_from_slice(&samples);
            // Read while the writer is still open, as a crash would leave it.
            let audio = read_wav(&path).unwrap();
            assert_eq!(audio.sample_rate, 48_000);
            assert_close(&audio.samples, &written);
        }
        assert_eq!(journal.samples(), written.len() as u64);
        // Closed normally: sealing changes nothing.
        drop(journal);
        let before = std::fs::read(&path).unwrap();
        assert_eq!(
            seal(&path).unwrap(),
            Sealed {
                samples: written.len() as u64,
                sample_rate: 48_000
            }
        );
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }

    #[test]
    fn seal_recovers_samples_the_header_had_not_caught_up_with() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rec.journal.wav");
        let mut journal = JournalWriter::create(&path, 16_000).unwrap();
        let first = tone(1_600, 0);
        journal.append(&first).unwrap();
        drop(journal);
        // The process died after appending more samples (and an odd byte) but before the
        // header said so.
        let more = tone(800, 1_600);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.extend(more.iter().flat_map(|&s| to_pcm16(s).to_le_bytes()));
        bytes.push(0x7f);
        std::fs::write(&path, &bytes).unwrap();
        assert_close(&read_wav(&path).unwrap().samples, &first);

        assert_eq!(seal(&path).unwrap().samples, 2_400);
        let mut all = first;
        all.extend(more);
        assert_close(&read_wav(&path).unwrap().samples, &all);
    }

    #[test]
    fn a_header_only_journal_seals_to_no_samples_and_others_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("empty.journal.wav");
        drop(JournalWriter::create(&path, 16_000).unwrap());
        assert_eq!(seal(&path).unwrap().samples, 0);
        // Never over an existing file.
        assert!(matches!(
            JournalWriter::create(&path, 16_000),
            Err(JournalError::Write { .. })
        ));

        let short = dir.path().join("short.wav");
        std::fs::write(&short, b"RIFF").unwrap();
        let err = seal(&short).unwrap_err();
        assert!(matches!(err, JournalError::NotJournal { .. }), "{err}");
        assert!(err.to_string().contains("short.wav"), "{err}");

        let stereo = dir.path().join("stereo.wav");
        let mut head = header(16_000, 0);
        head[22] = 2;
        std::fs::write(&stereo, head).unwrap();
        assert!(matches!(
            seal(&stereo),
            Err(JournalError::NotJournal { .. })
        ));
        // Not changed by the refusal.
        assert_eq!(std::fs::read(&stereo).unwrap(), head);
    }

    #[test]
    fn a_journal_is_replaced_whole_at_another_rate() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rec.journal.wav");
        let mut journal = JournalWriter::create(&path, 48_000).unwrap();
        journal.append(&tone(4_800, 0)).unwrap();
        drop(journal);
        let at_16k = tone(1_600, 7);
        replace(&path, &at_16k, 16_000).unwrap();
        let audio = read_wav(&path).unwrap();
        assert_eq!(audio.sample_rate, 16_000);
        assert_close(&audio.samples, &at_16k);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary left"
        );
        // Into a folder that is gone: an error naming the file, nothing written.
        let gone = dir.path().join("gone").join("rec.journal.wav");
        let err = replace(&gone, &at_16k, 16_000).unwrap_err();
        assert!(err.to_string().contains("rec.journal.wav"), "{err}");
    }

    #[test]
    fn samples_are_clipped_and_nan_is_silence() {
        assert_eq!(to_pcm16(2.0), 32767);
        assert_eq!(to_pcm16(-2.0), -32768);
        assert_eq!(to_pcm16(f32::NAN), 0);
        assert_eq!(to_pcm16(0.5), 16384);
    }
}
