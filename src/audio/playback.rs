//! Playing a recording back through the system's default output device (`cpal`), for the
//! History window's Play. This module owns the output stream: the file is read whole (every WAV
//! layout [`super::wav`] reads), resampled to the device's rate, copied to each of its
//! channels, and played on a thread of its own that holds the stream (a `cpal::Stream` is not
//! `Send` on every platform) and ends when the audio has been played or the [`Playback`] is
//! dropped, whichever comes first. Nothing of it outlives the [`Playback`]: one recording at a
//! time, stopped by starting another or closing the window.

use super::resample::resample;
use super::wav::{read_wav, AudioError};
use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{FromSample, SampleFormat, SizedSample, StreamConfig};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

/// Why a recording cannot be played.
#[derive(Debug, thiserror::Error)]
pub enum PlaybackError {
    #[error(transparent)]
    Read(#[from] AudioError),
    #[error("no sound output found (no default output device)")]
    NoOutput,
    #[error("sound output '{device}': {detail}")]
    Output { device: String, detail: String },
}

/// A recording being played; dropping it stops it at once.
pub struct Playback {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    /// The recording's length.
    pub seconds: f32,
    /// The output device's name, as the system gives it.
    pub device: String,
}

impl Drop for Playback {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// How often the playback thread looks whether it should end.
const POLL: Duration = Duration::from_millis(20);
/// Kept open this long after the last sample was handed over, so the device's own buffer is
/// heard to its end.
const DRAIN: Duration = Duration::from_millis(250);

/// Starts playing the WAV file at `path`; returns once the device plays (or says why not).
pub fn play(path: &Path) -> Result<Playback, PlaybackError> {
    let audio = read_wav(path)?;
    let seconds = audio.samples.len() as f32 / audio.sample_rate.max(1) as f32;
    let stop = Arc::new(AtomicBool::new(false));
    let finished = Arc::new(AtomicBool::new(false));
    let (started, opened) = mpsc::sync_channel(1);
    let thread = {
        let (stop, finished) = (Arc::clone(&stop), Arc::clone(&finished));
        std::thread::Builder::new()
            .name("playback".into())
            .spawn(move || {
                let stream = match open_output(audio.samples, audio.sample_rate, &finished) {
                    Ok((stream, device)) => {
                        let _ = started.send(Ok(device));
                        stream
                    }
                    Err(e) => {
                        let _ = started.send(Err(e));
                        return;
                    }
                };
                while !stop.load(Ordering::Relaxed) && !finished.load(Ordering::Relaxed) {
                    std::thread::sleep(POLL);
                }
                if !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(DRAIN);
                }
                drop(stream);
            })
            .map_err(|e| PlaybackError::Output {
                device: String::new(),
                detail: format!("cannot start the playback thread: {e}"),
            })?
    };
    let device = match opened.recv() {
        Ok(Ok(device)) => device,
        Ok(Err(e)) => {
            let _ = thread.join();
            return Err(e);
        }
        Err(_) => {
            let _ = thread.join();
            return Err(PlaybackError::Output {
                device: String::new(),
                detail: "the playback thread ended before the device opened".into(),
            });
        }
    };
    Ok(Playback {
        stop,
        thread: Some(thread),
        seconds,
        device,
    })
}

/// Opens the default output device and starts it playing `samples` (mono, at `rate`).
fn open_output(
    samples: Vec<f32>,
    rate: u32,
    finished: &Arc<AtomicBool>,
) -> Result<(cpal::Stream, String), PlaybackError> {
    let host = cpal::default_host();
    let device = host
        .default_output_device()
        .ok_or(PlaybackError::NoOutput)?;
    let name = device
        .description()
        .map(|d| d.name().to_string())
        .unwrap_or_else(|_| "default".into());
    let failed = |detail: String| PlaybackError::Output {
        device: name.clone(),
        detail,
    };
    let supported = device
        .default_output_config()
        .map_err(|e| failed(format!("no usable output format ({e})")))?;
    let format = supported.sample_format();
    let config: StreamConfig = supported.into();
    let source = Source {
        samples: Arc::new(resample(&samples, rate, config.sample_rate)),
        next: Arc::new(AtomicUsize::new(0)),
        finished: Arc::clone(finished),
    };
    let stream = match format {
        SampleFormat::F32 => build::<f32>(&device, &config, source),
        SampleFormat::I16 => build::<i16>(&device, &config, source),
        SampleFormat::I32 => build::<i32>(&device, &config, source),
        SampleFormat::U16 => build::<u16>(&device, &config, source),
        SampleFormat::I8 => build::<i8>(&device, &config, source),
        SampleFormat::U8 => build::<u8>(&device, &config, source),
        SampleFormat::F64 => build::<f64>(&device, &config, source),
        other => return Err(failed(format!("unsupported format {other}"))),
    }
    .map_err(|e| failed(e.to_string()))?;
    stream
        .play()
        .map_err(|e| failed(format!("cannot start ({e})")))?;
    Ok((stream, name))
}

/// The audio the device's callback reads, and how far it has read.
struct Source {
    samples: Arc<Vec<f32>>,
    next: Arc<AtomicUsize>,
    finished: Arc<AtomicBool>,
}

impl Source {
    /// Fills `frames` interleaved frames of `channels` with the next samples (each on every
    /// channel), silence after the end.
    fn fill<T: SizedSample + FromSample<f32>>(&self, data: &mut [T], channels: usize) {
        let start = self.next.load(Ordering::Relaxed);
        let mut at = start;
        for frame in data.chunks_mut(channels) {
            let sample = self.samples.get(at).copied().unwrap_or(0.0);
            frame.fill(T::from_sample(sample.clamp(-1.0, 1.0)));
            at += 1;
        }
        self.next.store(at, Ordering::Relaxed);
        if at >= self.samples.len() {
            self.finished.store(true, Ordering::Relaxed);
        }
    }
}

fn build<T>(
    device: &cpal::Device,
    config: &StreamConfig,
    source: Source,
) -> Result<cpal::Stream, cpal::Error>
where
    T: SizedSample + FromSample<f32>,
{
    let channels = usize::from(config.channels).max(1);
    device.build_output_stream::<T, _, _>(
        *config,
        move |data: &mut [T], _: &cpal::OutputCallbackInfo| source.fill(data, channels),
        |err: cpal::Error| tracing::debug!("sound output: {err}"),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_channel_gets_the_sample_then_silence_and_the_end_is_marked() {
        let source = Source {
            samples: Arc::new(vec![0.5, -0.25, 2.0]),
            next: Arc::new(AtomicUsize::new(0)),
            finished: Arc::new(AtomicBool::new(false)),
        };
        let mut data = [9.0f32; 4];
        source.fill(&mut data, 2);
        assert_eq!(data, [0.5, 0.5, -0.25, -0.25]);
        assert!(!source.finished.load(Ordering::Relaxed));
        let mut data = [9i16; 4];
        source.fill(&mut data, 2);
        // Clipped to full scale, then silence after the last sample.
        assert_eq!(data, [i16::MAX, i16::MAX, 0, 0]);
        assert!(source.finished.load(Ordering::Relaxed));
    }

    #[test]
    fn a_missing_file_is_named() {
        let path = Path::new("/nonexistent/rec-1.wav");
        let error = play(path).err().expect("an error");
        assert!(error.to_string().contains("rec-1.wav"), "{error}");
    }
}
