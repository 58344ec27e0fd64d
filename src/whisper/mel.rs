//! Whisper's log-mel frontend: 16 kHz mono samples → the `[n_mels][frames]` log-mel
//! spectrogram the encoder takes.
//!
//! This module owns the audio hyper-parameters of OpenAI's `whisper/audio.py`, the Slaney mel
//! filterbank (computed here for any `n_mels`, equal to OpenAI's shipped `mel_filters.npz`,
//! which is `librosa.filters.mel(sr=16000, n_fft=400, n_mels=N)`), and
//! [`log_mel_spectrogram`], which reproduces `log_mel_spectrogram(audio, n_mels,
//! padding=N_SAMPLES)` as `transcribe()` calls it:
//!
//! 1. pad the audio with 30 s of zeros, STFT with a periodic Hann window of 400, hop 160,
//!    `center=True` reflect padding, power spectrum, drop the last frame;
//! 2. mel = filters @ power, `log10(max(mel, 1e-10))`;
//! 3. `max(x, x.max() - 8)` with the max taken over ALL frames (content and padding), then
//!    `(x + 4) / 4`.
//!
//! Only the content frames (`samples.len() / 160`) are returned; [`LogMel::window`] then cuts
//! the 3000-frame encoder windows the way OpenAI's `pad_or_trim` does. Frames whose samples are
//! all zero (most of the 30 s padding) are not transformed: their mel energy is exactly 0, so
//! their log is `log10(1e-10) = -10`. The tests compare against fixtures made by
//! `scripts/gen-mel-fixture.py` from OpenAI's own filterbank.

use std::sync::Arc;

use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};

/// `SAMPLE_RATE`: Whisper's input rate in Hz.
pub const SAMPLE_RATE: u32 = 16_000;
/// `N_FFT`: STFT window and FFT length in samples (25 ms).
pub const N_FFT: usize = 400;
/// `HOP_LENGTH`: samples between STFT frames (10 ms).
pub const HOP_LENGTH: usize = 160;
/// `CHUNK_LENGTH`: seconds of audio in one encoder window.
pub const CHUNK_LENGTH: usize = 30;
/// `N_SAMPLES`: samples in one encoder window (480 000).
pub const N_SAMPLES: usize = CHUNK_LENGTH * SAMPLE_RATE as usize;
/// `N_FRAMES`: mel frames in one encoder window (3000).
pub const N_FRAMES: usize = N_SAMPLES / HOP_LENGTH;

/// Frequency bins of the one-sided spectrum (201).
const N_BINS: usize = N_FFT / 2 + 1;
/// `torch.clamp(mel_spec, min=1e-10)`.
const MEL_FLOOR: f64 = 1e-10;
/// The log of a frame with no energy: `log10(MEL_FLOOR)`.
const SILENT_LOG: f32 = -10.0;
/// `log_spec.max() - 8.0`: the dynamic range kept, in decades.
const DYNAMIC_RANGE: f32 = 8.0;
/// Below this many frames one thread does it all; spawning costs more than it saves.
const MIN_FRAMES_PER_THREAD: usize = 256;

/// A log-mel spectrogram of the content frames of some audio.
#[derive(Debug, Clone, PartialEq)]
pub struct LogMel {
    /// Mel bins (80, or 128 for large-v3).
    pub n_mels: usize,
    /// Content frames: `samples.len() / HOP_LENGTH`.
    pub n_frames: usize,
    /// Row-major `[n_mels][n_frames]`.
    pub data: Vec<f32>,
}

impl LogMel {
    /// Frames `[start, start + len)` of every bin, trimmed or padded with 0.0 to [`N_FRAMES`]
    /// as OpenAI's `pad_or_trim(mel[:, start:start + len], N_FRAMES)` does; frames past the
    /// content are 0.0 too. Row-major `[n_mels][N_FRAMES]`.
    pub fn window(&self, start: usize, len: usize) -> Vec<f32> {
        let mut out = vec![0.0; self.n_mels * N_FRAMES];
        let take = len.min(N_FRAMES).min(self.n_frames.saturating_sub(start));
        if take == 0 {
            return out;
        }
        for (row, dst) in self
            .data
            .chunks_exact(self.n_frames)
            .zip(out.chunks_exact_mut(N_FRAMES))
        {
            dst[..take].copy_from_slice(&row[start..start + take]);
        }
        out
    }
}

/// The Slaney-scale mel filterbank for 16 kHz audio and a 400-point FFT, row-major
/// `[n_mels][N_FFT / 2 + 1]`: `librosa.filters.mel(sr=16000, n_fft=400, n_mels=n_mels)`
/// (`htk=False`, `norm="slaney"`, float32), step for step so it equals OpenAI's
/// `mel_filters.npz` for 80 and 128.
pub fn mel_filters(n_mels: usize) -> Vec<f32> {
    let mel_f = mel_band_edges_hz(n_mels);
    let fft_freqs = fft_frequencies();
    let mut weights = Vec::with_capacity(n_mels * N_BINS);
    for i in 0..n_mels {
        let (lo, centre, hi) = (mel_f[i], mel_f[i + 1], mel_f[i + 2]);
        // Slaney normalisation: each triangle has (roughly) unit area.
        let enorm = 2.0 / (hi - lo);
        weights.extend(fft_freqs.iter().map(|&f| {
            let lower = -(lo - f) / (centre - lo);
            let upper = (hi - f) / (hi - centre);
            // librosa stores the triangle in float32, then scales it in place.
            let triangle = lower.min(upper).max(0.0) as f32;
            (f64::from(triangle) * enorm) as f32
        }));
    }
    weights
}

// Slaney's mel scale (librosa `htk=False`): linear below 1 kHz, logarithmic above.

/// Hz per mel in the linear part.
const MEL_F_SP: f64 = 200.0 / 3.0;
/// Where the logarithmic part starts, in Hz and in mels.
const MEL_MIN_LOG_HZ: f64 = 1000.0;
const MEL_MIN_LOG_MEL: f64 = MEL_MIN_LOG_HZ / MEL_F_SP;

/// Mels per natural-log step of frequency in the logarithmic part.
fn mel_log_step() -> f64 {
    6.4f64.ln() / 27.0
}

fn hz_to_mel(hz: f64) -> f64 {
    if hz >= MEL_MIN_LOG_HZ {
        MEL_MIN_LOG_MEL + (hz / MEL_MIN_LOG_HZ).ln() / mel_log_step()
    } else {
        hz / MEL_F_SP
    }
}

fn mel_to_hz(mel: f64) -> f64 {
    if mel >= MEL_MIN_LOG_MEL {
        MEL_MIN_LOG_HZ * (mel_log_step() * (mel - MEL_MIN_LOG_MEL)).exp()
    } else {
        MEL_F_SP * mel
    }
}

/// librosa `mel_frequencies(n_mels + 2, fmin=0, fmax=8000)`: the triangles' edges in Hz,
/// evenly spaced in mels (`np.linspace`, whose last point is exactly the end).
fn mel_band_edges_hz(n_mels: usize) -> Vec<f64> {
    let n = n_mels + 2;
    let (lo, hi) = (hz_to_mel(0.0), hz_to_mel(f64::from(SAMPLE_RATE) / 2.0));
    let step = (hi - lo) / (n - 1) as f64;
    (0..n)
        .map(|i| if i == n - 1 { hi } else { lo + i as f64 * step })
        .map(mel_to_hz)
        .collect()
}

/// `np.fft.rfftfreq(400, 1 / 16000)`: the centre frequency of each FFT bin in Hz.
fn fft_frequencies() -> Vec<f64> {
    let spacing = 1.0 / (N_FFT as f64 * (1.0 / f64::from(SAMPLE_RATE)));
    (0..N_BINS).map(|k| k as f64 * spacing).collect()
}

/// OpenAI's `log_mel_spectrogram(samples, n_mels, padding=N_SAMPLES)`, content frames only.
/// `samples` are 16 kHz mono in [-1, 1]. Any length works, including 0 (no frames).
pub fn log_mel_spectrogram(samples: &[f32], n_mels: usize) -> LogMel {
    let n_content = samples.len() / HOP_LENGTH;
    // With the 30 s of padding the STFT has n_content + N_FRAMES frames (after dropping the
    // last); only the first `n_live` can contain a nonzero sample.
    let n_total = n_content + N_FRAMES;
    let n_live = live_frames(samples.len()).min(n_total);

    let filters = SparseFilters::new(n_mels);
    let logs = frame_logs(&padded_signal(samples, n_live), n_live, &filters);

    let mut max = logs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if n_total > n_live {
        max = max.max(SILENT_LOG);
    }
    LogMel {
        n_mels,
        n_frames: n_content,
        data: normalise_transposed(&logs, n_mels, n_content, max - DYNAMIC_RANGE),
    }
}

/// Frames whose 400-sample window (centred on `t * 160`) reaches a real sample.
fn live_frames(n_samples: usize) -> usize {
    if n_samples == 0 {
        return 0;
    }
    (n_samples + N_FFT / 2).div_ceil(HOP_LENGTH)
}

/// The samples `torch.stft(center=True)` sees for the first `n_frames` frames: 200 samples of
/// reflection, the audio, then the zero padding.
fn padded_signal(samples: &[f32], n_frames: usize) -> Vec<f32> {
    if n_frames == 0 {
        return Vec::new();
    }
    let pad = N_FFT / 2;
    let len = (n_frames - 1) * HOP_LENGTH + N_FFT;
    let at = |i: usize| samples.get(i).copied().unwrap_or(0.0);
    let mut padded = Vec::with_capacity(len);
    // Reflect without repeating the edge: padded[k] = x[pad - k]; past the audio it is zeros.
    padded.extend((0..pad).map(|k| at(pad - k)));
    padded.extend_from_slice(&samples[..samples.len().min(len - pad)]);
    padded.resize(len, 0.0);
    padded
}

/// `log10(max(mel, 1e-10))` of each frame, frame-major `[n_frames][n_mels]`, split across
/// up to two threads.
fn frame_logs(padded: &[f32], n_frames: usize, filters: &SparseFilters) -> Vec<f32> {
    let n_mels = filters.rows.len();
    let mut logs = vec![0.0f32; n_frames * n_mels];
    if n_mels == 0 || n_frames == 0 {
        return logs;
    }
    let fft = FftPlanner::<f64>::new().plan_fft_forward(N_FFT);
    let window = hann_window();
    let threads = thread_count(n_frames);
    let per_thread = n_frames.div_ceil(threads);
    std::thread::scope(|scope| {
        for (i, out) in logs.chunks_mut(per_thread * n_mels).enumerate() {
            let mut stft = FrameStft::new(Arc::clone(&fft), &window, filters);
            let first = i * per_thread;
            let mut job = move || stft.run(padded, first, out);
            if i + 1 == threads {
                job();
            } else {
                scope.spawn(job);
            }
        }
    });
    logs
}

fn thread_count(n_frames: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores.min(2).min(n_frames / MIN_FRAMES_PER_THREAD).max(1)
}

/// `torch.hann_window(400)`: the periodic Hann window.
fn hann_window() -> Vec<f64> {
    (0..N_FFT)
        .map(|n| 0.5 - 0.5 * (2.0 * std::f64::consts::PI * n as f64 / N_FFT as f64).cos())
        .collect()
}

/// Apply the `max - 8` floor and `(x + 4) / 4` to the content frames, transposing the
/// frame-major logs to `[n_mels][n_content]`.
fn normalise_transposed(logs: &[f32], n_mels: usize, n_content: usize, floor: f32) -> Vec<f32> {
    let mut data = vec![0.0f32; n_mels * n_content];
    for (t, frame) in logs.chunks_exact(n_mels.max(1)).take(n_content).enumerate() {
        for (m, &x) in frame.iter().enumerate() {
            data[m * n_content + t] = (x.max(floor) + 4.0) / 4.0;
        }
    }
    data
}

/// One triangle of the filterbank: its nonzero bins only.
struct SparseFilter {
    start: usize,
    weights: Vec<f32>,
}

/// The filterbank without its zeros: each FFT bin feeds at most two filters.
struct SparseFilters {
    rows: Vec<SparseFilter>,
}

impl SparseFilters {
    fn new(n_mels: usize) -> Self {
        let dense = mel_filters(n_mels);
        let rows = dense
            .chunks_exact(N_BINS)
            .map(|row| {
                let start = row.iter().position(|&w| w != 0.0).unwrap_or(0);
                let end = row.iter().rposition(|&w| w != 0.0).map_or(start, |i| i + 1);
                SparseFilter {
                    start,
                    weights: row[start..end].to_vec(),
                }
            })
            .collect();
        SparseFilters { rows }
    }

    /// `log10(max(filters @ power, 1e-10))` for one frame.
    fn apply_log(&self, power: &[f64], out: &mut [f32]) {
        for (row, o) in self.rows.iter().zip(out) {
            let bins = &power[row.start..row.start + row.weights.len()];
            let mel: f64 = row
                .weights
                .iter()
                .zip(bins)
                .map(|(&w, &p)| f64::from(w) * p)
                .sum();
            *o = mel.max(MEL_FLOOR).log10() as f32;
        }
    }
}

/// Per-thread STFT state: the shared FFT plan and this thread's buffers.
struct FrameStft<'a> {
    fft: Arc<dyn Fft<f64>>,
    window: &'a [f64],
    filters: &'a SparseFilters,
    buffer: Vec<Complex<f64>>,
    scratch: Vec<Complex<f64>>,
    power: [Vec<f64>; 2],
}

impl<'a> FrameStft<'a> {
    fn new(fft: Arc<dyn Fft<f64>>, window: &'a [f64], filters: &'a SparseFilters) -> Self {
        let scratch = vec![Complex::default(); fft.get_inplace_scratch_len()];
        FrameStft {
            fft,
            window,
            filters,
            buffer: vec![Complex::default(); N_FFT],
            scratch,
            power: [vec![0.0; N_BINS], vec![0.0; N_BINS]],
        }
    }

    /// Fill `out` (frame-major logs) for the frames starting at `first`, two frames per
    /// complex FFT. All-zero frames skip the FFT: their log is exactly `log10(1e-10)`.
    fn run(&mut self, padded: &[f32], first: usize, out: &mut [f32]) {
        let n_mels = self.filters.rows.len();
        let frame = |t: usize| &padded[t * HOP_LENGTH..t * HOP_LENGTH + N_FFT];
        for (pair, out) in out.chunks_mut(2 * n_mels).enumerate() {
            let t = first + 2 * pair;
            let (out_a, out_b) = out.split_at_mut(n_mels);
            let a = Some(frame(t)).filter(|f| !is_silent(f));
            let b = (!out_b.is_empty())
                .then(|| frame(t + 1))
                .filter(|f| !is_silent(f));
            if a.is_some() || b.is_some() {
                self.pair(a, b);
            }
            self.finish(a.is_some(), 0, out_a);
            self.finish(b.is_some(), 1, out_b);
        }
    }

    /// Power spectra of two real frames with one complex FFT of `a + i·b`:
    /// `A[k] = (Z[k] + conj Z[N-k]) / 2`, `B[k] = (Z[k] - conj Z[N-k]) / 2i`.
    fn pair(&mut self, a: Option<&[f32]>, b: Option<&[f32]>) {
        for (n, z) in self.buffer.iter_mut().enumerate() {
            let w = self.window[n];
            let re = a.map_or(0.0, |a| f64::from(a[n]) * w);
            let im = b.map_or(0.0, |b| f64::from(b[n]) * w);
            *z = Complex::new(re, im);
        }
        self.fft
            .process_with_scratch(&mut self.buffer, &mut self.scratch);
        for k in 0..N_BINS {
            let z = self.buffer[k];
            let zc = self.buffer[(N_FFT - k) % N_FFT].conj();
            self.power[0][k] = (z + zc).norm_sqr() / 4.0;
            self.power[1][k] = (z - zc).norm_sqr() / 4.0;
        }
    }

    /// Log-mel of the frame whose power spectrum is in `power[slot]`, or of a silent frame.
    fn finish(&self, transformed: bool, slot: usize, out: &mut [f32]) {
        if transformed {
            self.filters.apply_log(&self.power[slot], out);
        } else {
            out.fill(SILENT_LOG);
        }
    }
}

fn is_silent(frame: &[f32]) -> bool {
    frame.iter().all(|&x| x == 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    use serde::Deserialize;
    use std::path::{Path, PathBuf};

    fn fixture_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mel")
    }

    fn read_f32(path: &Path) -> Vec<f32> {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    }

    #[derive(Deserialize)]
    struct FilterFixture {
        n_mels: usize,
        n_fft_bins: usize,
        rows: Vec<FilterRow>,
    }

    #[derive(Deserialize)]
    struct FilterRow {
        start: usize,
        values: Vec<f32>,
    }

    #[derive(Deserialize)]
    struct Manifest {
        n_mels: Vec<usize>,
        cases: Vec<Case>,
    }

    #[derive(Deserialize)]
    struct Case {
        name: String,
        n_samples: usize,
        n_frames: usize,
    }

    fn openai_filters(n_mels: usize) -> Vec<f32> {
        let path = fixture_dir().join(format!("filters_{n_mels}.json"));
        let text = std::fs::read_to_string(&path).expect("filter fixture");
        let fixture: FilterFixture = serde_json::from_str(&text).expect("filter fixture JSON");
        assert_eq!((fixture.n_mels, fixture.n_fft_bins), (n_mels, N_BINS));
        let mut dense = vec![0.0; n_mels * N_BINS];
        for (m, row) in fixture.rows.iter().enumerate() {
            let at = m * N_BINS + row.start;
            dense[at..at + row.values.len()].copy_from_slice(&row.values);
        }
        dense
    }

    fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
        assert_eq!(a.len(), b.len());
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f32::max)
    }

    #[test]
    fn filters_match_openai_npz() {
        for n_mels in [80, 128] {
            let diff = max_abs_diff(&mel_filters(n_mels), &openai_filters(n_mels));
            assert!(diff <= 1e-6, "mel_{n_mels} differs by {diff}");
        }
    }

    #[test]
    fn filters_for_other_sizes_are_well_formed() {
        assert!(mel_filters(0).is_empty());
        for n_mels in [1, 40, 64] {
            let f = mel_filters(n_mels);
            assert_eq!(f.len(), n_mels * N_BINS);
            assert!(f.iter().all(|w| w.is_finite() && *w >= 0.0));
            assert!(f
                .chunks_exact(N_BINS)
                .all(|row| row.iter().any(|&w| w > 0.0)));
        }
    }

    #[test]
    fn log_mel_matches_openai_reference_fixtures() {
        let dir = fixture_dir();
        let text = std::fs::read_to_string(dir.join("manifest.json")).expect("manifest");
        let manifest: Manifest = serde_json::from_str(&text).expect("manifest JSON");
        assert!(!manifest.cases.is_empty());
        for case in &manifest.cases {
            let signal = read_f32(&dir.join(format!("{}.signal.f32", case.name)));
            assert_eq!(signal.len(), case.n_samples);
            for &n_mels in &manifest.n_mels {
                let expected = read_f32(&dir.join(format!("{}.mel{n_mels}.f32", case.name)));
                let mel = log_mel_spectrogram(&signal, n_mels);
                assert_eq!((mel.n_mels, mel.n_frames), (n_mels, case.n_frames));
                let diff = max_abs_diff(&mel.data, &expected);
                assert!(diff <= 1e-4, "{} mel{n_mels}: off by {diff}", case.name);
            }
        }
    }

    #[test]
    fn silence_is_minus_one_and_a_half() {
        let mel = log_mel_spectrogram(&vec![0.0; 16_000], 80);
        assert_eq!(mel.n_frames, 100);
        assert!(mel.data.iter().all(|&x| x == -1.5));
    }

    #[test]
    fn global_max_includes_frames_past_the_content() {
        // Silence with a loud burst in the last 100 samples: the loudest frame is one of the
        // padding frames after the content, and it still sets the floor for the content.
        let mut signal = vec![0.0f32; 5_077];
        for (i, x) in signal.iter_mut().rev().take(100).enumerate() {
            *x = 0.9 * (i as f32 * 1.2).sin();
        }
        let mel = log_mel_spectrogram(&signal, 80);
        // With the zeros spelled out the same frames become content; nothing may change.
        signal.resize(5_077 + 4 * HOP_LENGTH, 0.0);
        let longer = log_mel_spectrogram(&signal, 80);
        for m in 0..80 {
            let row = &mel.data[m * mel.n_frames..(m + 1) * mel.n_frames];
            let longer_row = &longer.data[m * longer.n_frames..];
            assert_eq!(row, &longer_row[..mel.n_frames]);
        }
        assert!(mel.data[0] > -1.0, "silent frames sit on the max - 8 floor");
    }

    #[test]
    fn frame_count_is_whole_hops() {
        for (len, frames) in [
            (0, 0),
            (159, 0),
            (160, 1),
            (161, 1),
            (1000, 6),
            (16_000, 100),
        ] {
            let signal: Vec<f32> = (0..len).map(|i| (i as f32 * 0.1).sin()).collect();
            let mel = log_mel_spectrogram(&signal, 80);
            assert_eq!(mel.n_frames, frames, "len {len}");
            assert_eq!(mel.data.len(), 80 * frames);
        }
    }

    #[test]
    fn threaded_frames_equal_single_pass() {
        // Long enough for two threads; an odd frame count exercises the unpaired last frame.
        let signal: Vec<f32> = (0..16_000 * 7 + 321)
            .map(|i| (i as f32 * 0.037).sin() * 0.3 + ((i * 7919) % 101) as f32 / 1000.0)
            .collect();
        let n_live = live_frames(signal.len());
        let filters = SparseFilters::new(80);
        let padded = padded_signal(&signal, n_live);
        let threaded = frame_logs(&padded, n_live, &filters);
        let mut single = vec![0.0; threaded.len()];
        let fft = FftPlanner::<f64>::new().plan_fft_forward(N_FFT);
        FrameStft::new(fft, &hann_window(), &filters).run(&padded, 0, &mut single);
        assert_eq!(threaded, single);
    }

    #[test]
    fn window_pads_and_trims_with_zeros() {
        let mel = LogMel {
            n_mels: 2,
            n_frames: 4,
            data: vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
        };
        let w = mel.window(1, N_FRAMES);
        assert_eq!(w.len(), 2 * N_FRAMES);
        assert_eq!(&w[..4], &[2.0, 3.0, 4.0, 0.0]);
        assert_eq!(&w[N_FRAMES..N_FRAMES + 4], &[6.0, 7.0, 8.0, 0.0]);
        assert!(w[4..N_FRAMES].iter().all(|&x| x == 0.0));

        let w = mel.window(0, 2);
        assert_eq!(&w[..3], &[1.0, 2.0, 0.0]);
        assert_eq!(&w[N_FRAMES..N_FRAMES + 3], &[5.0, 6.0, 0.0]);

        assert!(mel.window(10, 5).iter().all(|&x| x == 0.0));
        assert!(mel.window(usize::MAX, usize::MAX).iter().all(|&x| x == 0.0));
    }

    #[test]
    fn window_trims_long_audio_to_n_frames() {
        let n_frames = N_FRAMES + 10;
        let data: Vec<f32> = (0..n_frames).map(|t| t as f32).collect();
        let mel = LogMel {
            n_mels: 1,
            n_frames,
            data,
        };
        let w = mel.window(5, usize::MAX);
        assert_eq!(w.len(), N_FRAMES);
        assert_eq!(w[0], 5.0);
        assert_eq!(w[N_FRAMES - 1], (N_FRAMES + 4) as f32);
    }

    #[test]
    #[ignore = "timing, not a check: cargo test --release --lib whisper::mel -- --ignored --nocapture"]
    fn time_30_seconds() {
        let signal: Vec<f32> = (0..N_SAMPLES)
            .map(|i| (i as f32 * 0.05).sin() * 0.5)
            .collect();
        for n_mels in [80, 128] {
            let start = std::time::Instant::now();
            let runs = 10;
            for _ in 0..runs {
                std::hint::black_box(log_mel_spectrogram(&signal, n_mels));
            }
            println!(
                "log_mel_spectrogram(30 s, {n_mels} mels): {:.2} ms",
                start.elapsed().as_secs_f64() * 1000.0 / runs as f64
            );
        }
    }
}
