//! WAV files in and out, and turning audio into what Whisper takes (16 kHz mono f32).
//!
//! This module owns reading every WAV layout `hound` decodes — 8/16/24/32-bit integer PCM and
//! 32-bit float, any rate, any number of channels — into mono f32 in [-1, 1], scaled the way
//! OpenAI's ffmpeg path does (integers divide by 2^(bits-1); floats are clipped to [-1, 1]);
//! converting the live recorder's interleaved buffers with [`to_whisper_input`]; and writing
//! recordings as 16-bit PCM with [`write_wav_atomic`] so a crash never leaves half a file
//! under the real name. Bad input is an [`AudioError`] naming the file, never a panic.

use std::fs;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use hound::{SampleFormat, WavReader, WavSpec, WavWriter};

use super::resample::resample;

/// Whisper's input sample rate (`whisper/audio.py` `SAMPLE_RATE`).
const WHISPER_RATE: u32 = 16_000;

/// The sample rates a WAV file may declare. Resampling to 16 kHz costs memory in proportion
/// to the ratio (the output grows with 16 kHz / rate, the filter with rate / 16 kHz), so a
/// damaged header's 1 Hz or 4 GHz would ask for gigabytes; real recordings are 8–384 kHz.
pub const SUPPORTED_RATES: std::ops::RangeInclusive<u32> = 1_000..=768_000;

/// Mono audio at some sample rate.
#[derive(Debug, Clone, PartialEq)]
pub struct Audio {
    /// Samples in [-1, 1].
    pub samples: Vec<f32>,
    /// Samples per second.
    pub sample_rate: u32,
}

/// Why audio could not be read, converted or written.
#[derive(Debug, thiserror::Error)]
pub enum AudioError {
    #[error("audio file {} does not exist", .path.display())]
    NotFound { path: PathBuf },
    #[error("cannot read audio file {}: {source}", .path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{} is not a valid WAV file: {reason}", .path.display())]
    NotWav { path: PathBuf, reason: String },
    #[error("{} uses an unsupported WAV format: {format}", .path.display())]
    Unsupported { path: PathBuf, format: String },
    #[error(
        "{} declares a sample rate of {sample_rate} Hz; WAV files from {} to {} Hz are supported",
        .path.display(), SUPPORTED_RATES.start(), SUPPORTED_RATES.end()
    )]
    UnsupportedRate { path: PathBuf, sample_rate: u32 },
    #[error("{} contains no audio samples", .path.display())]
    Empty { path: PathBuf },
    #[error("{} declares {channels} channels at {sample_rate} Hz", .path.display())]
    BadSpec {
        path: PathBuf,
        channels: u16,
        sample_rate: u32,
    },
    #[error("cannot convert audio with {channels} channels at {sample_rate} Hz")]
    BadStream { channels: u16, sample_rate: u32 },
    #[error("cannot write audio file {}: {source}", .path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// Read a WAV file, downmixed to mono by averaging the channels.
///
/// # Errors
/// [`AudioError::NotFound`], [`AudioError::Read`], [`AudioError::NotWav`],
/// [`AudioError::Unsupported`] (e.g. 12-bit or 64-bit float), [`AudioError::BadSpec`] (zero
/// rate), [`AudioError::UnsupportedRate`] (outside [`SUPPORTED_RATES`]) or
/// [`AudioError::Empty`] (no samples), each naming the file.
pub fn read_wav(path: &Path) -> Result<Audio, AudioError> {
    let reader = WavReader::open(path).map_err(|e| open_error(path, e))?;
    // The data chunk's declared length is the file's word; its size on disk bounds it.
    let on_disk = fs::metadata(path).map_or(0, |m| m.len());
    decode(path, reader, on_disk)
}

/// [`read_wav`] of a WAV held in memory (e.g. embedded in the binary); `origin` names it in
/// errors.
pub fn read_wav_bytes(bytes: &[u8], origin: &Path) -> Result<Audio, AudioError> {
    let reader = WavReader::new(io::Cursor::new(bytes)).map_err(|e| open_error(origin, e))?;
    decode(origin, reader, bytes.len() as u64)
}

/// Decodes the samples of a WAV whose whole file is `file_len` bytes long.
fn decode<R: io::Read>(
    path: &Path,
    mut reader: WavReader<R>,
    file_len: u64,
) -> Result<Audio, AudioError> {
    let spec = reader.spec();
    check_spec(path, &spec)?;
    let interleaved = read_samples(path, &mut reader, &spec, file_len)?;
    let samples = downmix(&interleaved, spec.channels);
    if samples.is_empty() {
        return Err(AudioError::Empty { path: path.into() });
    }
    Ok(Audio {
        samples,
        sample_rate: spec.sample_rate,
    })
}

/// Read a WAV file as Whisper's input: mono, resampled to 16 kHz.
///
/// # Errors
/// As [`read_wav`].
pub fn read_wav_16k(path: &Path) -> Result<Vec<f32>, AudioError> {
    let audio = read_wav(path)?;
    Ok(resample(&audio.samples, audio.sample_rate, WHISPER_RATE))
}

/// Turn the recorder's interleaved f32 buffer into Whisper's input: channels averaged, then
/// resampled to 16 kHz. A trailing partial frame is dropped. An empty buffer (a tap too short
/// to record anything) gives an empty result, not an error.
///
/// # Errors
/// [`AudioError::BadStream`] when `channels` or `sample_rate` is 0.
pub fn to_whisper_input(
    samples: &[f32],
    sample_rate: u32,
    channels: u16,
) -> Result<Vec<f32>, AudioError> {
    if channels == 0 || sample_rate == 0 {
        return Err(AudioError::BadStream {
            channels,
            sample_rate,
        });
    }
    let mono = downmix(samples, channels);
    Ok(resample(&mono, sample_rate, WHISPER_RATE))
}

/// Write mono `samples` as a 16-bit PCM WAV. The data goes to a temporary file in the same
/// folder, is flushed to disk, and is then renamed over `path`, so `path` is either the old
/// file or the complete new one. Samples are clipped to [-1, 1].
///
/// # Errors
/// [`AudioError::Write`] naming `path` (the temporary file is removed), or
/// [`AudioError::BadSpec`] for a zero sample rate.
pub fn write_wav_atomic(path: &Path, samples: &[f32], sample_rate: u32) -> Result<(), AudioError> {
    if sample_rate == 0 {
        return Err(AudioError::BadSpec {
            path: path.into(),
            channels: 1,
            sample_rate,
        });
    }
    let temp = temp_path(path);
    let result = write_pcm16(&temp, samples, sample_rate)
        .and_then(|()| fs::rename(&temp, path).map_err(|e| write_error(path, e)));
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// Reject layouts hound opens but we cannot scale correctly (e.g. 12-bit in 16-bit
/// containers, 20-bit in 24-bit ones) and nonsense rates.
fn check_spec(path: &Path, spec: &WavSpec) -> Result<(), AudioError> {
    let supported = match spec.sample_format {
        SampleFormat::Int => matches!(spec.bits_per_sample, 8 | 16 | 24 | 32),
        SampleFormat::Float => spec.bits_per_sample == 32,
    };
    if !supported {
        return Err(AudioError::Unsupported {
            path: path.into(),
            format: format!("{}-bit {}", spec.bits_per_sample, format_name(spec)),
        });
    }
    if spec.channels == 0 || spec.sample_rate == 0 {
        return Err(AudioError::BadSpec {
            path: path.into(),
            channels: spec.channels,
            sample_rate: spec.sample_rate,
        });
    }
    if !SUPPORTED_RATES.contains(&spec.sample_rate) {
        return Err(AudioError::UnsupportedRate {
            path: path.into(),
            sample_rate: spec.sample_rate,
        });
    }
    Ok(())
}

fn format_name(spec: &WavSpec) -> &'static str {
    match spec.sample_format {
        SampleFormat::Int => "integer PCM",
        SampleFormat::Float => "float",
    }
}

/// All samples, interleaved, as f32 in [-1, 1]. A data chunk cut short (a recording that was
/// interrupted) keeps what was there, as ffmpeg does.
fn read_samples<R: io::Read>(
    path: &Path,
    reader: &mut WavReader<R>,
    spec: &WavSpec,
    file_len: u64,
) -> Result<Vec<f32>, AudioError> {
    let mut out = Vec::with_capacity(preallocation(reader.len(), spec, file_len));
    let outcome = match spec.sample_format {
        SampleFormat::Float => collect(reader.samples::<f32>(), &mut out, clip),
        SampleFormat::Int => {
            let scale = 1.0 / (1u64 << (spec.bits_per_sample - 1)) as f64;
            collect(reader.samples::<i32>(), &mut out, |s| {
                (f64::from(s) * scale) as f32
            })
        }
    };
    match outcome {
        Ok(()) => Ok(out),
        Err(hound::Error::IoError(e)) if is_short_read(&e) => {
            tracing::warn!(
                "{}: data ends early; using the {} samples before the cut",
                path.display(),
                out.len()
            );
            Ok(out)
        }
        Err(e) => Err(open_error(path, e)),
    }
}

/// How many samples to make room for up front: the data chunk's declared count, but never
/// more than the file's bytes can hold (a damaged header may declare 4 GiB of samples in a
/// file of a few bytes; the vector still grows if the file really has more).
fn preallocation(declared: u32, spec: &WavSpec, file_len: u64) -> usize {
    let bytes_per_sample = u64::from(spec.bits_per_sample.div_ceil(8).max(1));
    let can_hold = file_len / bytes_per_sample;
    usize::try_from(u64::from(declared).min(can_hold)).unwrap_or(0)
}

fn collect<S>(
    samples: impl Iterator<Item = hound::Result<S>>,
    out: &mut Vec<f32>,
    convert: impl Fn(S) -> f32,
) -> hound::Result<()> {
    for sample in samples {
        out.push(convert(sample?));
    }
    Ok(())
}

/// Float WAVs may exceed full scale; ffmpeg's conversion to 16-bit clips them. NaN becomes 0.
fn clip(x: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(-1.0, 1.0)
    }
}

/// Average interleaved channels into mono, dropping a trailing partial frame.
fn downmix(interleaved: &[f32], channels: u16) -> Vec<f32> {
    match channels {
        0 => Vec::new(),
        1 => interleaved.to_vec(),
        n => interleaved
            .chunks_exact(usize::from(n))
            .map(|frame| frame.iter().sum::<f32>() / f32::from(n))
            .collect(),
    }
}

fn open_error(path: &Path, error: hound::Error) -> AudioError {
    let path = path.to_path_buf();
    match error {
        hound::Error::IoError(e) if e.kind() == io::ErrorKind::NotFound => {
            AudioError::NotFound { path }
        }
        hound::Error::IoError(e) if is_short_read(&e) => AudioError::NotWav {
            path,
            reason: "file ends inside the header".into(),
        },
        hound::Error::IoError(source) => AudioError::Read { path, source },
        // hound reports sample sizes it cannot decode (12-bit, 64-bit float) as format errors.
        hound::Error::FormatError(reason) if reason.contains("bits") => AudioError::Unsupported {
            path,
            format: reason.into(),
        },
        hound::Error::FormatError(reason) => AudioError::NotWav {
            path,
            reason: reason.into(),
        },
        other => AudioError::Unsupported {
            path,
            format: other.to_string(),
        },
    }
}

/// The file ended before the bytes hound asked for. hound 3.5 reports that as
/// `ErrorKind::Other` with this message rather than `UnexpectedEof`; both are accepted.
fn is_short_read(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::UnexpectedEof
        || (error.kind() == io::ErrorKind::Other
            && error.to_string() == "Failed to read enough bytes.")
}

fn write_error(path: &Path, source: io::Error) -> AudioError {
    AudioError::Write {
        path: path.into(),
        source,
    }
}

fn hound_write_error(path: &Path, error: hound::Error) -> AudioError {
    let source = match error {
        hound::Error::IoError(e) => e,
        other => io::Error::other(other.to_string()),
    };
    write_error(path, source)
}

/// `<name>.partial.<pid>-<n>` beside `path` (the project's pattern for files being written).
pub(crate) fn temp_path(path: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".partial.{}-{n}", std::process::id()));
    path.with_file_name(name)
}

fn write_pcm16(path: &Path, samples: &[f32], sample_rate: u32) -> Result<(), AudioError> {
    let spec = WavSpec {
        channels: 1,
        sample_rate,
        bits_per_sample: 16,
        sample_format: SampleFormat::Int,
    };
    let mut file = crate::private_files::create_file(path).map_err(|e| write_error(path, e))?;
    let mut writer =
        WavWriter::new(BufWriter::new(&mut file), spec).map_err(|e| hound_write_error(path, e))?;
    for &s in samples {
        writer
            .write_sample(to_pcm16(s))
            .map_err(|e| hound_write_error(path, e))?;
    }
    writer.finalize().map_err(|e| hound_write_error(path, e))?;
    file.sync_all().map_err(|e| write_error(path, e))
}

/// The inverse of reading: `round(x * 32768)`, clipped to the i16 range (NaN is silence).
pub(crate) fn to_pcm16(x: f32) -> i16 {
    (clip(x) * 32768.0).round().clamp(-32768.0, 32767.0) as i16
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::io::Write;

    fn write_int(path: &Path, bits: u16, channels: u16, rate: u32, samples: &[i32]) {
        let spec = WavSpec {
            channels,
            sample_rate: rate,
            bits_per_sample: bits,
            sample_format: SampleFormat::Int,
        };
        let mut w = WavWriter::create(path, spec).unwrap();
        for &s in samples {
            match bits {
                8 => w.write_sample(s as i8).unwrap(),
                16 => w.write_sample(s as i16).unwrap(),
                _ => w.write_sample(s).unwrap(),
            }
        }
        w.finalize().unwrap();
    }

    fn write_float(path: &Path, channels: u16, rate: u32, samples: &[f32]) {
        let spec = WavSpec {
            channels,
            sample_rate: rate,
            bits_per_sample: 32,
            sample_format: SampleFormat::Float,
        };
        let mut w = WavWriter::create(path, spec).unwrap();
        for &s in samples {
            w.write_sample(s).unwrap();
        }
        w.finalize().unwrap();
    }

    /// A canonical 44-byte PCM header with arbitrary fields, for formats hound won't write.
    fn raw_wav(format_tag: u16, channels: u16, rate: u32, bits: u16, data: &[u8]) -> Vec<u8> {
        let block_align = channels * bits.div_ceil(8);
        let mut v = Vec::new();
        v.extend_from_slice(b"RIFF");
        v.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
        v.extend_from_slice(b"WAVEfmt ");
        v.extend_from_slice(&16u32.to_le_bytes());
        v.extend_from_slice(&format_tag.to_le_bytes());
        v.extend_from_slice(&channels.to_le_bytes());
        v.extend_from_slice(&rate.to_le_bytes());
        v.extend_from_slice(&rate.wrapping_mul(u32::from(block_align)).to_le_bytes());
        v.extend_from_slice(&block_align.to_le_bytes());
        v.extend_from_slice(&bits.to_le_bytes());
        v.extend_from_slice(b"data");
        v.extend_from_slice(&(data.len() as u32).to_le_bytes());
        v.extend_from_slice(data);
        v
    }

    fn write_bytes(path: &Path, bytes: &[u8]) {
        fs::File::create(path).unwrap().write_all(bytes).unwrap();
    }

    #[test]
    fn reads_each_int_depth_with_openai_scaling() {
        let dir = tempfile::tempdir().unwrap();
        for bits in [8u16, 16, 24, 32] {
            let full = 1i64 << (bits - 1);
            let values = [-full, -full / 2, 0, full / 4, full - 1];
            let path = dir.path().join(format!("int{bits}.wav"));
            let ints: Vec<i32> = values.iter().map(|&v| v as i32).collect();
            write_int(&path, bits, 1, 8_000, &ints);
            let audio = read_wav(&path).unwrap();
            assert_eq!(audio.sample_rate, 8_000);
            let expected: Vec<f32> = values
                .iter()
                .map(|&v| (v as f64 / full as f64) as f32)
                .collect();
            assert_eq!(audio.samples, expected, "{bits}-bit");
        }
    }

    #[test]
    fn eight_bit_is_unsigned_on_disk_and_centred_when_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("u8.wav");
        // Unsigned bytes 0, 128, 255 are -128, 0, 127 centred.
        write_bytes(&path, &raw_wav(1, 1, 8_000, 8, &[0, 128, 255]));
        let audio = read_wav(&path).unwrap();
        assert_eq!(audio.samples, vec![-1.0, 0.0, 127.0 / 128.0]);
    }

    #[test]
    fn reads_float_and_clips_out_of_range() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f32.wav");
        write_float(&path, 1, 22_050, &[0.5, -0.25, 1.5, -2.0, f32::NAN]);
        let audio = read_wav(&path).unwrap();
        assert_eq!(audio.sample_rate, 22_050);
        assert_eq!(audio.samples, vec![0.5, -0.25, 1.0, -1.0, 0.0]);
    }

    #[test]
    fn multichannel_is_averaged_to_mono() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stereo.wav");
        write_int(
            &path,
            16,
            2,
            48_000,
            &[16_384, 0, -32_768, 32_767, 100, 100],
        );
        let audio = read_wav(&path).unwrap();
        let expected = [0.25, (-32_768.0 + 32_767.0) / 65_536.0, 100.0 / 32_768.0];
        assert_eq!(audio.samples.len(), 3);
        for (a, e) in audio.samples.iter().zip(expected) {
            assert!((a - e).abs() < 1e-7);
        }

        let path = dir.path().join("six.wav");
        write_float(&path, 6, 16_000, &[0.6, 0.0, 0.0, 0.0, 0.0, 0.0]);
        let mono = read_wav(&path).unwrap().samples;
        assert_eq!(mono.len(), 1);
        assert!((mono[0] - 0.1).abs() < 1e-7);
    }

    #[test]
    fn read_wav_16k_resamples() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("48k.wav");
        let tone: Vec<f32> = (0..48_000)
            .map(|i| 0.5 * (2.0 * std::f32::consts::PI * 440.0 * i as f32 / 48_000.0).sin())
            .collect();
        write_float(&path, 1, 48_000, &tone);
        let samples = read_wav_16k(&path).unwrap();
        assert_eq!(samples.len(), 16_000);
        let peak = samples[4_000..12_000]
            .iter()
            .fold(0.0f32, |m, x| m.max(x.abs()));
        assert!((peak - 0.5).abs() < 0.01, "peak {peak}");

        let path = dir.path().join("16k.wav");
        write_float(&path, 1, 16_000, &tone[..100]);
        assert_eq!(read_wav_16k(&path).unwrap(), tone[..100].to_vec());
    }

    #[test]
    fn missing_file_is_not_found_and_named() {
        let path = Path::new("/nonexistent/dir/recording.wav");
        let err = read_wav(path).unwrap_err();
        assert!(matches!(err, AudioError::NotFound { .. }), "{err:?}");
        assert!(err.to_string().contains("recording.wav"));
    }

    #[test]
    fn non_wav_files_are_rejected() {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in [
            ("text.wav", b"hello, this is not audio at all".to_vec()),
            ("empty-file.wav", Vec::new()),
            ("short.wav", b"RIFF".to_vec()),
        ] {
            let path = dir.path().join(name);
            write_bytes(&path, &bytes);
            let err = read_wav(&path).unwrap_err();
            assert!(matches!(err, AudioError::NotWav { .. }), "{name}: {err:?}");
            assert!(err.to_string().contains(name), "{err}");
        }
    }

    #[test]
    fn unsupported_formats_are_rejected() {
        let dir = tempfile::tempdir().unwrap();
        for (name, tag, bits) in [
            ("float64.wav", 3u16, 64u16),
            ("adpcm.wav", 2, 4),
            ("alaw.wav", 6, 8),
            ("int12.wav", 1, 12),
        ] {
            let path = dir.path().join(name);
            write_bytes(&path, &raw_wav(tag, 1, 16_000, bits, &[0; 16]));
            let err = read_wav(&path).unwrap_err();
            assert!(
                matches!(err, AudioError::Unsupported { .. }),
                "{name}: {err:?}"
            );
            assert!(err.to_string().contains(name), "{err}");
        }
    }

    #[test]
    fn twelve_bit_extensible_is_unsupported() {
        // WAVE_FORMAT_EXTENSIBLE with 12 valid bits in 16-bit containers: hound opens it.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("int12x.wav");
        let mut v = Vec::new();
        v.extend_from_slice(b"RIFF");
        v.extend_from_slice(&(4 + 8 + 40 + 8 + 4u32).to_le_bytes());
        v.extend_from_slice(b"WAVEfmt ");
        v.extend_from_slice(&40u32.to_le_bytes());
        v.extend_from_slice(&0xfffeu16.to_le_bytes());
        v.extend_from_slice(&1u16.to_le_bytes());
        v.extend_from_slice(&16_000u32.to_le_bytes());
        v.extend_from_slice(&32_000u32.to_le_bytes());
        v.extend_from_slice(&2u16.to_le_bytes());
        v.extend_from_slice(&16u16.to_le_bytes());
        v.extend_from_slice(&22u16.to_le_bytes());
        v.extend_from_slice(&12u16.to_le_bytes());
        v.extend_from_slice(&4u32.to_le_bytes());
        // KSDATAFORMAT_SUBTYPE_PCM
        v.extend_from_slice(&[
            0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38,
            0x9b, 0x71,
        ]);
        v.extend_from_slice(b"data");
        v.extend_from_slice(&4u32.to_le_bytes());
        v.extend_from_slice(&[0, 0, 0x10, 0]);
        write_bytes(&path, &v);
        let err = read_wav(&path).unwrap_err();
        assert!(matches!(err, AudioError::Unsupported { .. }), "{err:?}");
        assert!(err.to_string().contains("12-bit"), "{err}");
    }

    #[test]
    fn empty_data_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("silent.wav");
        write_int(&path, 16, 1, 16_000, &[]);
        let err = read_wav(&path).unwrap_err();
        assert!(matches!(err, AudioError::Empty { .. }), "{err:?}");
        assert!(err.to_string().contains("silent.wav"));
    }

    #[test]
    fn zero_channels_or_rate_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("zero-channels.wav");
        write_bytes(&path, &raw_wav(1, 0, 16_000, 16, &[0; 4]));
        let err = read_wav(&path).unwrap_err();
        assert!(matches!(err, AudioError::NotWav { .. }), "{err:?}");

        let path = dir.path().join("zero-rate.wav");
        write_bytes(&path, &raw_wav(1, 1, 0, 16, &[0; 4]));
        let err = read_wav(&path).unwrap_err();
        assert!(matches!(err, AudioError::BadSpec { .. }), "{err:?}");
        assert!(err.to_string().contains("zero-rate.wav"));
    }

    #[test]
    fn truncated_data_keeps_what_is_there() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut.wav");
        let mut bytes = raw_wav(1, 1, 16_000, 16, &[0x00, 0x40, 0x00, 0xc0, 0, 0, 0, 0]);
        bytes.truncate(bytes.len() - 4);
        write_bytes(&path, &bytes);
        assert_eq!(read_wav(&path).unwrap().samples, vec![0.5, -0.5]);
    }

    /// Found by fuzzing: the data chunk's size field was trusted for the sample buffer's
    /// capacity, so a 48-byte file declaring 4 GiB of data asked for 8 GiB up front.
    #[test]
    fn a_data_size_beyond_the_file_does_not_size_the_buffer() {
        let mut bytes = raw_wav(1, 1, 16_000, 16, &[0x00, 0x40, 0x00, 0xc0]);
        let at = bytes.len() - 8;
        bytes[at..at + 4].copy_from_slice(&(u32::MAX - 1).to_le_bytes());
        let spec = WavReader::new(io::Cursor::new(&bytes)).unwrap().spec();
        assert_eq!(preallocation(u32::MAX / 2, &spec, bytes.len() as u64), 24);
        let audio = read_wav_bytes(&bytes, Path::new("huge.wav")).unwrap();
        assert_eq!(audio.samples, vec![0.5, -0.5]);
        assert!(audio.samples.capacity() <= bytes.len());
    }

    /// Found by fuzzing: a header declaring 4,294,967,295 Hz made the resampler to 16 kHz
    /// design a filter of 110 GB; 1 Hz would make 16,000 output samples per input sample.
    #[test]
    fn absurd_sample_rates_are_errors_naming_the_file() {
        for rate in [1, 999, 768_001, u32::MAX] {
            // 8-bit mono, so the header's byte rate (rate × 1) is consistent.
            let bytes = raw_wav(1, 1, rate, 8, &[0x00, 0x40, 0x00, 0xc0]);
            let err = read_wav_bytes(&bytes, Path::new("odd-rate.wav")).unwrap_err();
            assert!(matches!(err, AudioError::UnsupportedRate { .. }), "{err:?}");
            let message = err.to_string();
            assert!(message.contains("odd-rate.wav") && message.contains(&rate.to_string()));
        }
        for rate in [1_000, 8_000, 768_000] {
            let bytes = raw_wav(1, 1, rate, 8, &[0x00, 0x40, 0x00, 0xc0]);
            assert_eq!(
                read_wav_bytes(&bytes, Path::new("ok.wav"))
                    .unwrap()
                    .sample_rate,
                rate
            );
        }
    }

    #[test]
    fn to_whisper_input_downmixes_and_resamples() {
        let stereo: Vec<f32> = (0..48_000).flat_map(|_| [0.5f32, 0.1]).collect();
        let out = to_whisper_input(&stereo, 48_000, 2).unwrap();
        assert_eq!(out.len(), 16_000);
        assert!((out[8_000] - 0.3).abs() < 1e-5);

        assert_eq!(
            to_whisper_input(&[0.1, 0.2, 0.3], 16_000, 2).unwrap(),
            vec![0.15f32]
        );
        assert!(to_whisper_input(&[], 44_100, 1).unwrap().is_empty());
        assert!(matches!(
            to_whisper_input(&[0.1], 16_000, 0),
            Err(AudioError::BadStream { .. })
        ));
        assert!(matches!(
            to_whisper_input(&[0.1], 0, 1),
            Err(AudioError::BadStream { .. })
        ));
    }

    #[test]
    fn write_then_read_round_trips_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("take.wav");
        let samples = [0.0, 0.5, -0.5, -1.0, 32_767.0 / 32_768.0, 1.0 / 32_768.0];
        write_wav_atomic(&path, &samples, 16_000).unwrap();
        let audio = read_wav(&path).unwrap();
        assert_eq!(audio.sample_rate, 16_000);
        assert_eq!(audio.samples, samples.to_vec());
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "{names:?}");

        // Overwriting replaces the old file; out-of-range values clip.
        write_wav_atomic(&path, &[2.0, -3.0], 8_000).unwrap();
        let audio = read_wav(&path).unwrap();
        assert_eq!(audio.sample_rate, 8_000);
        assert_eq!(audio.samples, vec![32_767.0 / 32_768.0, -1.0]);
    }

    #[test]
    fn failed_write_names_the_file_and_keeps_the_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-such-dir").join("take.wav");
        let err = write_wav_atomic(&missing, &[0.1], 16_000).unwrap_err();
        assert!(matches!(err, AudioError::Write { .. }), "{err:?}");
        assert!(err.to_string().contains("take.wav"), "{err}");

        // Renaming onto a directory fails after the temp file was written: it is removed.
        let blocker = dir.path().join("blocker.wav");
        fs::create_dir(&blocker).unwrap();
        fs::write(blocker.join("keep"), b"x").unwrap();
        assert!(write_wav_atomic(&blocker, &[0.1], 16_000).is_err());
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "{names:?}");

        let path = dir.path().join("zero.wav");
        assert!(matches!(
            write_wav_atomic(&path, &[0.1], 0),
            Err(AudioError::BadSpec { .. })
        ));
    }
}
