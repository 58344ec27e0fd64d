//! Where the recorder's audio comes from: [`InputSource`] opens a device and feeds its audio, as
//! mono samples, into the [`Feed`] the recorder reads. [`CpalSource`] is the system's
//! microphones (through `cpal`); the recorder's tests use a scripted source instead, so that a
//! microphone that changes, fails or stalls in the middle of a recording can be replayed.

use super::{MicrophoneProblem, RecorderConfig, PRE_ROLL};
use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{FromSample, SampleFormat, SizedSample, StreamConfig};
use std::collections::VecDeque;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Opens input devices for the recorder (on the recorder's thread).
pub trait InputSource {
    /// Opens the device `config` names (the system default when empty or not found): from then
    /// on its audio goes to `feed`, until the returned stream is dropped.
    ///
    /// # Errors
    /// What went wrong, in the user's terms, and the technical message.
    fn open(
        &mut self,
        config: &RecorderConfig,
        feed: Feed,
    ) -> Result<OpenStream, (MicrophoneProblem, String)>;
}

/// An open input: dropping it closes the device.
pub struct OpenStream {
    /// Whatever keeps the device open (a `cpal::Stream`).
    pub keep_alive: Box<dyn std::any::Any>,
    /// Samples per second the source feeds.
    pub rate: u32,
    /// The device's name (for the log).
    pub name: String,
}

/// Where an open input delivers: its audio, and the errors that end it.
#[derive(Clone)]
pub struct Feed {
    pub(super) shared: Arc<Mutex<Shared>>,
    pub(super) errors: Sender<String>,
}

impl Feed {
    /// Mono samples as they arrive.
    pub fn push(&self, mono: impl Iterator<Item = f32>) {
        lock(&self.shared).push(mono, None);
    }

    /// Mono samples as they arrive, the first of them captured `captured_ago` before now (the
    /// input's own timestamps): how late the microphone really started is then known.
    pub fn push_captured(&self, mono: impl Iterator<Item = f32>, captured_ago: Duration) {
        lock(&self.shared).push(mono, Some(captured_ago));
    }

    /// The device failed (unplugged, driver error): the recording in progress ends, keeping
    /// what was recorded.
    pub fn fail(&self, message: String) {
        let _ = self.errors.send(message);
    }
}

/// Audio shared between the input's callback and the recorder thread.
#[derive(Default)]
pub(super) struct Shared {
    pub(super) ring: VecDeque<f32>,
    pub(super) ring_capacity: usize,
    pub(super) recording: Option<Vec<f32>>,
    pub(super) last_callback: Option<Instant>,
    pub(super) waiting_first_audio: bool,
    /// When the first audio of the recording arrived (its callback), and when its first sample
    /// was captured (when the input says).
    pub(super) first_audio: Option<(Instant, Option<Instant>)>,
}

impl Shared {
    pub(super) fn push(&mut self, mono: impl Iterator<Item = f32>, captured_ago: Option<Duration>) {
        let now = Instant::now();
        self.last_callback = Some(now);
        if self.waiting_first_audio {
            self.waiting_first_audio = false;
            self.first_audio = Some((now, captured_ago.and_then(|ago| now.checked_sub(ago))));
        }
        match &mut self.recording {
            Some(buffer) => buffer.extend(mono),
            None => {
                self.ring.extend(mono);
                let excess = self.ring.len().saturating_sub(self.ring_capacity);
                self.ring.drain(..excess);
            }
        }
    }

    /// Ready for a newly opened input at `rate` (the recorder calls it once the input is open): the pre-roll ring emptied and sized for it.
    /// A recording in progress is carried over whole (the recorder never opens an input during
    /// one, but if it did, nothing recorded would be lost).
    pub(super) fn reset_for(&mut self, rate: u32) {
        let recording = self.recording.take();
        *self = Shared {
            ring_capacity: (PRE_ROLL.as_secs_f64() * f64::from(rate)) as usize,
            recording,
            ..Shared::default()
        };
    }
}

pub(super) fn lock(shared: &Mutex<Shared>) -> std::sync::MutexGuard<'_, Shared> {
    // A panic inside the audio callback poisons the lock; the audio itself is still usable.
    shared
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The system's microphones, through `cpal`.
pub struct CpalSource;

impl InputSource for CpalSource {
    fn open(
        &mut self,
        config: &RecorderConfig,
        feed: Feed,
    ) -> Result<OpenStream, (MicrophoneProblem, String)> {
        let host = cpal::default_host();
        let device = pick_device(&host, &config.device)
            .map_err(|detail| (MicrophoneProblem::NotFound, detail))?;
        let cannot = |detail: String| (MicrophoneProblem::CannotOpen, detail);
        let name = device
            .description()
            .map(|d| d.name().to_string())
            .unwrap_or_else(|_| "microphone".into());
        let supported = device
            .default_input_config()
            .map_err(|e| cannot(format!("microphone '{name}': no usable input format ({e})")))?;
        let format = supported.sample_format();
        let buffer = callback_frames(supported.buffer_size(), supported.sample_rate());
        let mut stream_config: StreamConfig = supported.into();
        stream_config.buffer_size = buffer;
        let c = &stream_config;
        let stream = match format {
            SampleFormat::F32 => build::<f32>(&device, c, feed),
            SampleFormat::I16 => build::<i16>(&device, c, feed),
            SampleFormat::I32 => build::<i32>(&device, c, feed),
            SampleFormat::U16 => build::<u16>(&device, c, feed),
            SampleFormat::I8 => build::<i8>(&device, c, feed),
            SampleFormat::U8 => build::<u8>(&device, c, feed),
            SampleFormat::F64 => build::<f64>(&device, c, feed),
            other => {
                return Err(cannot(format!(
                    "microphone '{name}': unsupported format {other}"
                )))
            }
        }
        .map_err(|e| cannot(format!("microphone '{name}': {e}")))?;
        stream
            .play()
            .map_err(|e| cannot(format!("microphone '{name}': cannot start ({e})")))?;
        tracing::info!(
            device = %name,
            rate = stream_config.sample_rate,
            channels = stream_config.channels,
            format = %format,
            "microphone open"
        );
        Ok(OpenStream {
            keep_alive: Box::new(stream),
            rate: stream_config.sample_rate,
            name,
        })
    }
}

/// The named input device, or the system default when the name is empty or not found.
fn pick_device(host: &cpal::Host, wanted: &str) -> Result<cpal::Device, String> {
    if !wanted.trim().is_empty() {
        let found = host.input_devices().ok().and_then(|mut devices| {
            devices.find(|d| d.description().is_ok_and(|desc| desc.name() == wanted))
        });
        match found {
            Some(device) => return Ok(device),
            None => tracing::warn!("microphone '{wanted}' not found; using the system default"),
        }
    }
    host.default_input_device()
        .ok_or_else(|| "no microphone found (no default input device)".to_string())
}

/// Audio is handed over in blocks of about this length. The driver's own choice can be tiny
/// periods: through ALSA's PulseAudio plugin the capture thread then spun at half a core while
/// the app sat idle with the stream open (measured on the test desktop).
const CALLBACK_PERIOD: Duration = Duration::from_millis(20);
/// Longer blocks for a stream kept open all day were tried: 50 ms callbacks through the same
/// plugin woke less (208–222 against 350–355 times a second) but cpal's capture thread spun at
/// 40 % of a core (BENCHMARKS.md, "Waiting at no cost").
///
/// The buffer size asking for [`CALLBACK_PERIOD`]-long callbacks, within what the device allows.
fn callback_frames(supported: &cpal::SupportedBufferSize, rate: u32) -> cpal::BufferSize {
    let wanted = (CALLBACK_PERIOD.as_secs_f64() * f64::from(rate)) as u32;
    match supported {
        cpal::SupportedBufferSize::Range { min, max } if min <= max => {
            cpal::BufferSize::Fixed(wanted.clamp(*min, *max))
        }
        _ => cpal::BufferSize::Default,
    }
}

/// Names of the input devices, for the menu.
pub fn input_device_names() -> Vec<String> {
    let host = cpal::default_host();
    let mut names: Vec<String> = host
        .input_devices()
        .map(|devices| {
            devices
                .filter_map(|d| d.description().ok().map(|desc| desc.name().to_string()))
                .collect()
        })
        .unwrap_or_default();
    names.dedup();
    names
}

fn build<T>(
    device: &cpal::Device,
    config: &StreamConfig,
    feed: Feed,
) -> Result<cpal::Stream, cpal::Error>
where
    T: SizedSample,
    f32: FromSample<T>,
{
    let channels = usize::from(config.channels).max(1);
    let errors = feed.clone();
    device.build_input_stream::<T, _, _>(
        *config,
        move |data: &[T], info: &cpal::InputCallbackInfo| {
            let mono = data.chunks(channels).map(|frame| {
                frame.iter().map(|&s| s.to_sample::<f32>()).sum::<f32>() / frame.len() as f32
            });
            let stamp = info.timestamp();
            feed.push_captured(
                mono,
                stamp.callback.saturating_duration_since(stamp.capture),
            );
        },
        move |err: cpal::Error| {
            // Xruns and reroutes are recoverable; anything else ends the recording.
            let fatal = !matches!(
                err.kind(),
                cpal::ErrorKind::Xrun | cpal::ErrorKind::DeviceChanged
            );
            if fatal {
                errors.fail(err.to_string());
            } else {
                tracing::debug!("microphone: {err}");
            }
        },
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callbacks_ask_for_20_ms_within_the_devices_range() {
        use cpal::{BufferSize, SupportedBufferSize};
        let range = |min, max| SupportedBufferSize::Range { min, max };
        assert_eq!(
            callback_frames(&range(64, 8192), 48_000),
            BufferSize::Fixed(960)
        );
        assert_eq!(
            callback_frames(&range(2048, 8192), 48_000),
            BufferSize::Fixed(2048)
        );
        assert_eq!(
            callback_frames(&range(16, 256), 16_000),
            BufferSize::Fixed(256)
        );
        assert_eq!(
            callback_frames(&SupportedBufferSize::Unknown, 48_000),
            BufferSize::Default
        );
    }

    #[test]
    fn the_ring_keeps_only_the_pre_roll_and_a_recording_keeps_everything() {
        let mut shared = Shared {
            ring_capacity: 4,
            ..Shared::default()
        };
        shared.push((0..10).map(|i| i as f32), None);
        assert_eq!(shared.ring, VecDeque::from(vec![6.0, 7.0, 8.0, 9.0]));
        let pre: Vec<f32> = shared.ring.drain(..).collect();
        shared.recording = Some(pre);
        shared.waiting_first_audio = true;
        shared.push([10.0, 11.0].into_iter(), Some(Duration::from_millis(30)));
        assert_eq!(
            shared.recording.as_deref(),
            Some(&[6.0, 7.0, 8.0, 9.0, 10.0, 11.0][..])
        );
        let (arrived, captured) = shared.first_audio.expect("the first audio");
        assert_eq!(
            arrived.checked_sub(Duration::from_millis(30)),
            captured,
            "captured 30 ms before its callback"
        );
        assert!(shared.ring.is_empty());
    }

    #[test]
    fn opening_an_input_keeps_a_recording_in_progress() {
        let mut shared = Shared {
            ring_capacity: 4,
            recording: Some(vec![0.5; 10]),
            ..Shared::default()
        };
        shared.ring.extend([0.1, 0.2]);
        shared.reset_for(16_000);
        assert_eq!(shared.recording.as_deref(), Some(&[0.5; 10][..]));
        assert!(shared.ring.is_empty());
        assert_eq!(shared.ring_capacity, 8_000);
    }
}
