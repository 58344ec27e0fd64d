//! Sample-rate conversion: band-limited windowed-sinc resampling between any two rates.
//!
//! This module owns [`resample`]. It uses a Kaiser-windowed sinc kernel, laid out as a
//! polyphase table for the reduced ratio `to/from = L/M` (44.1 kHz → 16 kHz is 160/441, 48 kHz
//! → 16 kHz is 1/3). When downsampling the kernel's cutoff follows the new Nyquist frequency,
//! so content the new rate cannot represent is removed rather than aliased.
//!
//! Design, in units of the lower of the two Nyquist frequencies: flat passband to 0.9,
//! transition 0.9–1.0, at least 80 dB of attenuation from 1.0 on. Whisper never looks
//! above 8 kHz at its 16 kHz rate, and speech has little energy that high, so the last 10 % are
//! spent on the transition rather than on a much longer kernel.

use super::shared_audio::{GrowingAudio, SharedAudio};
use std::f64::consts::PI;

/// Stopband attenuation the Kaiser window is designed for, in dB.
const STOPBAND_DB: f64 = 80.0;
/// Passband edge as a fraction of the lower Nyquist frequency; the stopband starts at 1.0.
const PASSBAND_EDGE: f64 = 0.9;
/// Ratios with more phases than this (nearly coprime rates, e.g. 44 101 → 16 000) share one
/// table of this many phases and interpolate linearly between neighbouring phases.
const MAX_PHASES: usize = 1024;

/// Resample `samples` from `from_hz` to `to_hz`.
///
/// Returns `ceil(len * to_hz / from_hz)` samples; output sample `n` is the band-limited signal
/// at time `n / to_hz`, so there is no delay. Samples outside the input are taken as zero.
/// Equal rates return the input unchanged; a zero rate returns no samples.
pub fn resample(samples: &[f32], from_hz: u32, to_hz: u32) -> Vec<f32> {
    match Conversion::between(from_hz, to_hz) {
        Conversion::Nothing => Vec::new(),
        Conversion::Same => samples.to_vec(),
        Conversion::Sinc(mut sinc) => {
            let mut out = Vec::new();
            sinc.run(samples, 0, 0, &mut out, false);
            out
        }
    }
}

/// [`resample`] of a recording that arrives in pieces ([`Resampler::push`]): each output
/// sample is computed once, as soon as the input it depends on has arrived, and the input is
/// kept only while an output still to come reads it (the kernel's width, a few milliseconds),
/// so a long recording is held once, at the new rate, and shared by its snapshots
/// ([`Resampler::converted_shared`]) rather than copied. The whole of it at the end
/// ([`Resampler::finish`]) equals [`resample`] of everything pushed, sample for sample, and so
/// does every snapshot as far as it goes.
pub struct Resampler {
    conversion: Conversion,
    /// The input an output still to come may read: the pushed samples from [`Self::kept_from`]
    /// on.
    input: Vec<f32>,
    /// How many pushed samples came before `input`'s first.
    kept_from: usize,
    /// The output samples no later input can change.
    out: GrowingAudio,
    /// Room for the outputs of one push on their way to `out`.
    fresh: Vec<f32>,
}

enum Conversion {
    /// A zero rate: no samples.
    Nothing,
    /// Equal rates: the input itself.
    Same,
    Sinc(Sinc),
}

impl Conversion {
    fn between(from_hz: u32, to_hz: u32) -> Conversion {
        if from_hz == 0 || to_hz == 0 {
            Conversion::Nothing
        } else if from_hz == to_hz {
            Conversion::Same
        } else {
            let g = gcd(from_hz, to_hz);
            Conversion::Sinc(Sinc::new((to_hz / g) as usize, (from_hz / g) as usize))
        }
    }
}

/// The windowed-sinc conversion and where its next output sample lies in the input.
struct Sinc {
    up: usize,
    down: usize,
    half_taps: usize,
    table: PhaseTable,
    taps: Vec<f32>,
    /// The next output sits at input time `index + phase / up`.
    index: usize,
    phase: usize,
}

impl Sinc {
    fn new(up: usize, down: usize) -> Sinc {
        let kernel = Kernel::design(up, down);
        let table = PhaseTable::new(&kernel, up.min(MAX_PHASES));
        Sinc {
            up,
            down,
            half_taps: kernel.half_taps,
            taps: vec![0.0f32; table.taps],
            table,
            index: 0,
            phase: 0,
        }
    }

    /// How many output samples an input of `len` samples gives.
    fn out_len(&self, len: usize) -> usize {
        (len as u64 * self.up as u64).div_ceil(self.down as u64) as usize
    }

    /// Appends to `out` the outputs of the input up to its [`Sinc::out_len`], after the
    /// `done` outputs before them; with `complete_only`, only those whose taps all lie inside
    /// it. `input` is the input from its sample `offset` on: the samples before it are
    /// no longer read (the first tap of the next output lies at or after `offset`), unless
    /// `offset` is 0 (samples before the input's start are zero).
    fn run(
        &mut self,
        input: &[f32],
        offset: usize,
        done: usize,
        out: &mut Vec<f32>,
        complete_only: bool,
    ) {
        let total = offset + input.len();
        let out_len = self.out_len(total);
        while done + out.len() < out_len {
            if complete_only && self.index + 1 + self.half_taps > total {
                break;
            }
            let row = self.table.taps_at(self.phase, self.up, &mut self.taps);
            out.push(convolve(input, self.index - offset, self.half_taps, row));
            // Output n sits at input time n * down / up = index + phase / up.
            self.phase += self.down % self.up;
            self.index += self.down / self.up;
            if self.phase >= self.up {
                self.phase -= self.up;
                self.index += 1;
            }
        }
    }
}

impl Resampler {
    pub fn new(from_hz: u32, to_hz: u32) -> Resampler {
        Resampler {
            conversion: Conversion::between(from_hz, to_hz),
            input: Vec::new(),
            kept_from: 0,
            out: GrowingAudio::default(),
            fresh: Vec::new(),
        }
    }

    /// Takes the next samples of the recording and converts those no later sample can change.
    pub fn push(&mut self, new: &[f32]) {
        match &mut self.conversion {
            Conversion::Nothing => {}
            Conversion::Same => self.out.push(new),
            Conversion::Sinc(sinc) => {
                self.input.extend_from_slice(new);
                self.fresh.clear();
                let done = self.out.len();
                sinc.run(&self.input, self.kept_from, done, &mut self.fresh, true);
                self.out.push(&self.fresh);
                // The next output's first tap; nothing before it is read again. Dropped in
                // batches, not on every push.
                let needed = (sinc.index + 1).saturating_sub(sinc.half_taps);
                let unread = needed.saturating_sub(self.kept_from).min(self.input.len());
                if unread > self.input.len() / 2 {
                    self.input.drain(..unread);
                    self.kept_from += unread;
                }
            }
        }
    }

    /// How many samples were pushed.
    pub fn pushed(&self) -> usize {
        match self.conversion {
            Conversion::Same => self.out.len(),
            _ => self.kept_from + self.input.len(),
        }
    }

    /// The output samples no later input can change: the recording at the new rate up to a few
    /// milliseconds (the kernel's half width) before its end.
    pub fn converted(&self) -> &[f32] {
        self.out.as_slice()
    }

    /// [`Self::converted`], shared without a copy: a snapshot of the recording so far.
    pub fn converted_shared(&self) -> SharedAudio {
        self.out.share()
    }

    /// The whole recording (ended) at the new rate.
    pub fn finish(mut self) -> SharedAudio {
        if let Conversion::Sinc(sinc) = &mut self.conversion {
            self.fresh.clear();
            let done = self.out.len();
            sinc.run(&self.input, self.kept_from, done, &mut self.fresh, false);
            self.out.push(&self.fresh);
        }
        self.out.share()
    }
}

fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The continuous kernel, in units of input samples.
struct Kernel {
    /// Cutoff in cycles per input sample (the middle of the transition band).
    cutoff: f64,
    /// Taps on each side of the output time; the kernel spans `(-half_taps, half_taps]`.
    half_taps: usize,
    /// Kaiser window shape parameter.
    beta: f64,
}

impl Kernel {
    fn design(up: usize, down: usize) -> Self {
        // The lower Nyquist frequency, in cycles per input sample.
        let nyquist = 0.5 * (up as f64 / down as f64).min(1.0);
        let transition = (1.0 - PASSBAND_EDGE) * nyquist;
        // Kaiser's formulas for the window length and shape.
        let length = (STOPBAND_DB - 7.95) / (2.285 * 2.0 * PI * transition);
        let beta = 0.1102 * (STOPBAND_DB - 8.7);
        Kernel {
            cutoff: nyquist - transition / 2.0,
            half_taps: (length / 2.0).ceil() as usize,
            beta,
        }
    }

    /// The kernel at `t` input samples from the output time.
    fn at(&self, t: f64) -> f64 {
        let half = self.half_taps as f64;
        if t.abs() >= half {
            return 0.0;
        }
        let x = 2.0 * self.cutoff * t;
        let sinc = if x == 0.0 {
            1.0
        } else {
            (PI * x).sin() / (PI * x)
        };
        let r = t / half;
        2.0 * self.cutoff * sinc * bessel_i0(self.beta * (1.0 - r * r).sqrt())
            / bessel_i0(self.beta)
    }
}

/// Modified Bessel function of the first kind, order 0 (power series; converges fast for the
/// arguments a Kaiser window uses).
fn bessel_i0(x: f64) -> f64 {
    let (mut sum, mut term, mut k) = (1.0, 1.0, 1.0);
    let q = x * x / 4.0;
    while term > sum * 1e-17 {
        term *= q / (k * k);
        sum += term;
        k += 1.0;
    }
    sum
}

/// The kernel sampled at each fractional output time `phase / phases`, one row per phase plus
/// one for `phase = phases` (used when interpolating), each row normalised to unit DC gain.
struct PhaseTable {
    phases: usize,
    taps: usize,
    rows: Vec<f32>,
}

impl PhaseTable {
    fn new(kernel: &Kernel, phases: usize) -> Self {
        let taps = 2 * kernel.half_taps;
        let mut rows = Vec::with_capacity((phases + 1) * taps);
        for p in 0..=phases {
            let frac = p as f64 / phases as f64;
            // Tap j multiplies input[index + j + 1 - half_taps]: t = frac + half_taps - 1 - j.
            let row: Vec<f64> = (0..taps)
                .map(|j| kernel.at(frac + kernel.half_taps as f64 - 1.0 - j as f64))
                .collect();
            let gain: f64 = row.iter().sum();
            rows.extend(row.iter().map(|&h| (h / gain) as f32));
        }
        PhaseTable { phases, taps, rows }
    }

    fn row(&self, p: usize) -> &[f32] {
        &self.rows[p * self.taps..(p + 1) * self.taps]
    }

    /// Taps for output phase `phase` of `up`: the table row itself when the table has one row
    /// per phase, else a linear blend of the two nearest rows written into `buf`.
    fn taps_at<'a>(&'a self, phase: usize, up: usize, buf: &'a mut [f32]) -> &'a [f32] {
        if self.phases == up {
            return self.row(phase);
        }
        let pos = phase as f64 * self.phases as f64 / up as f64;
        let p = (pos as usize).min(self.phases - 1);
        let w = (pos - p as f64) as f32;
        for ((b, &lo), &hi) in buf.iter_mut().zip(self.row(p)).zip(self.row(p + 1)) {
            *b = lo + w * (hi - lo);
        }
        buf
    }
}

/// Sum of `taps[j] * samples[index + 1 + j - half_taps]`, with zeros outside the input.
fn convolve(samples: &[f32], index: usize, half_taps: usize, taps: &[f32]) -> f32 {
    let first = (index + 1) as isize - half_taps as isize;
    if first >= 0 && first as usize + taps.len() <= samples.len() {
        return dot(&samples[first as usize..first as usize + taps.len()], taps);
    }
    let skip = (-first).max(0) as usize;
    let start = first.max(0) as usize;
    let end = (first + taps.len() as isize).clamp(0, samples.len() as isize) as usize;
    if start >= end {
        return 0.0;
    }
    dot(&samples[start..end], &taps[skip..skip + end - start])
}

/// A dot product with eight independent accumulators, which the compiler vectorises.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let (a_chunks, b_chunks) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sine(freq: f64, rate: u32, seconds: f64, amplitude: f64) -> Vec<f32> {
        let n = (seconds * rate as f64) as usize;
        (0..n)
            .map(|i| (amplitude * (2.0 * PI * freq * i as f64 / rate as f64).sin()) as f32)
            .collect()
    }

    /// RMS of the middle half, away from the zero-padded edges.
    fn middle_rms(x: &[f32]) -> f64 {
        let mid = &x[x.len() / 4..3 * x.len() / 4];
        (mid.iter().map(|&v| f64::from(v).powi(2)).sum::<f64>() / mid.len() as f64).sqrt()
    }

    fn db(ratio: f64) -> f64 {
        20.0 * ratio.log10()
    }

    /// Amplitude of `freq` in `x` (sampled at `rate`) by correlating the middle half.
    fn tone_amplitude(x: &[f32], rate: u32, freq: f64) -> f64 {
        let (lo, hi) = (x.len() / 4, 3 * x.len() / 4);
        let (mut re, mut im) = (0.0, 0.0);
        for (i, &v) in x.iter().enumerate().take(hi).skip(lo) {
            let phase = 2.0 * PI * freq * i as f64 / rate as f64;
            re += f64::from(v) * phase.cos();
            im += f64::from(v) * phase.sin();
        }
        2.0 * (re * re + im * im).sqrt() / (hi - lo) as f64
    }

    /// Speech-like test input: a few tones and a click, so every tap matters.
    fn signal(rate: u32, seconds: f64) -> Vec<f32> {
        let mut x = sine(220.0, rate, seconds, 0.3);
        for (v, w) in x.iter_mut().zip(sine(3_100.0, rate, seconds, 0.2)) {
            *v += w;
        }
        let click = x.len() / 3;
        if let Some(v) = x.get_mut(click) {
            *v += 0.5;
        }
        x
    }

    #[test]
    fn a_recording_converted_as_it_comes_equals_converting_it_whole() {
        // 48 kHz (one phase), 44.1 kHz (441 phases), an odd rate (the interpolated table),
        // upsampling and equal rates; chunks as a microphone delivers them, and odd ones.
        for (from, chunk) in [
            (48_000, 960),
            (44_100, 441),
            (44_101, 1_000),
            (8_000, 160),
            (16_000, 320),
            (48_000, 7),
        ] {
            let input = signal(from, 0.35);
            let mut resampler = Resampler::new(from, 16_000);
            let mut len = 0;
            let mut most_kept = 0;
            while len < input.len() {
                let next = (len + chunk).min(input.len());
                resampler.push(&input[len..next]);
                len = next;
                assert_eq!(resampler.pushed(), len);
                most_kept = most_kept.max(resampler.input.len());
                let whole = resample(&input[..len], from, 16_000);
                let converted = resampler.converted();
                assert_eq!(converted, &whole[..converted.len()], "{from} Hz at {len}");
                if len % (3 * chunk) == 0 || len < 2 * chunk {
                    // A snapshot mid-recording: the converted part, shared.
                    let snapshot = resampler.converted_shared();
                    assert_eq!(*snapshot, whole[..snapshot.len()], "{from} Hz at {len}");
                    assert_eq!(snapshot.as_ptr(), resampler.converted().as_ptr());
                }
            }
            // The input is held for the kernel's width and a batch, not whole.
            assert!(
                most_kept < 2 * chunk.max(200) + 400,
                "{from} Hz: {most_kept} of {} input samples held",
                input.len()
            );
            assert_eq!(
                resampler.finish(),
                resample(&input, from, 16_000),
                "{from} Hz whole"
            );
        }
    }

    #[test]
    fn a_snapshot_keeps_its_samples_while_the_conversion_goes_on() {
        let input = signal(48_000, 0.2);
        let mut resampler = Resampler::new(48_000, 16_000);
        resampler.push(&input[..3_000]);
        let first = resampler.converted_shared();
        let kept = first.to_vec();
        assert!(!first.is_empty());
        resampler.push(&input[3_000..]);
        assert_eq!(first, kept);
        let whole = resampler.finish();
        assert_eq!(whole, resample(&input, 48_000, 16_000));
        assert_eq!(*first, whole[..first.len()]);
        // Nothing recorded, or a zero rate: nothing.
        assert!(Resampler::new(48_000, 16_000).finish().is_empty());
        let mut zero = Resampler::new(0, 16_000);
        zero.push(&input);
        assert!(zero.converted_shared().is_empty());
    }

    #[test]
    fn equal_rates_are_identity() {
        let x = sine(440.0, 16_000, 0.1, 0.5);
        assert_eq!(resample(&x, 16_000, 16_000), x);
    }

    #[test]
    fn zero_rate_or_empty_input_gives_nothing() {
        assert!(resample(&[0.1, 0.2], 0, 16_000).is_empty());
        assert!(resample(&[0.1, 0.2], 16_000, 0).is_empty());
        assert!(resample(&[], 48_000, 16_000).is_empty());
    }

    #[test]
    fn output_length_is_ceil_of_ratio() {
        for (len, from, to, expected) in [
            (48_000, 48_000, 16_000, 16_000),
            (48_001, 48_000, 16_000, 16_001),
            (44_100, 44_100, 16_000, 16_000),
            (100, 44_100, 16_000, 37),
            (8_000, 8_000, 16_000, 16_000),
            (1, 22_050, 16_000, 1),
            (44_101, 44_101, 16_000, 16_000),
        ] {
            let x = vec![0.1f32; len];
            assert_eq!(resample(&x, from, to).len(), expected, "{from}->{to}");
        }
    }

    #[test]
    fn in_band_sine_keeps_frequency_and_amplitude() {
        for from in [8_000, 22_050, 44_100, 48_000, 44_101] {
            for freq in [100.0, 440.0, 1_000.0, 3_000.0, 3_500.0] {
                let y = resample(&sine(freq, from, 0.5, 0.5), from, 16_000);
                let amp = tone_amplitude(&y, 16_000, freq);
                let gain_db = db(amp / 0.5);
                assert!(
                    gain_db.abs() < 0.5,
                    "{from} Hz, {freq} Hz tone: {gain_db:.3} dB"
                );
                // All of the energy is at that frequency: nothing else was made.
                let rms_db = db(middle_rms(&y) / (0.5 / 2f64.sqrt()));
                assert!(
                    rms_db.abs() < 0.5,
                    "{from} Hz, {freq} Hz tone: rms {rms_db:.3} dB"
                );
            }
        }
        // Downsampling keeps its passband up to 0.9 of the new Nyquist (7.2 kHz here).
        for freq in [5_000.0, 7_000.0] {
            let y = resample(&sine(freq, 48_000, 0.5, 0.5), 48_000, 16_000);
            let gain_db = db(tone_amplitude(&y, 16_000, freq) / 0.5);
            assert!(gain_db.abs() < 0.5, "{freq} Hz: {gain_db:.3} dB");
        }
    }

    #[test]
    fn energy_above_new_nyquist_is_removed() {
        for from in [44_100, 48_000, 32_000, 44_101] {
            for freq in [8_000.0, 8_500.0, 10_000.0, 15_000.0, 15_900.0] {
                let y = resample(&sine(freq, from, 0.5, 0.5), from, 16_000);
                let level = db(middle_rms(&y) / (0.5 / 2f64.sqrt()));
                assert!(level < -50.0, "{from} Hz, {freq} Hz tone: {level:.1} dB");
            }
        }
    }

    #[test]
    fn upsampling_keeps_tone_without_images() {
        let y = resample(&sine(1_000.0, 8_000, 0.5, 0.5), 8_000, 16_000);
        assert!(db(tone_amplitude(&y, 16_000, 1_000.0) / 0.5).abs() < 0.5);
        // The image of 1 kHz at 8 kHz − 1 kHz = 7 kHz must be gone.
        assert!(db(tone_amplitude(&y, 16_000, 7_000.0) / 0.5) < -50.0);
    }

    #[test]
    fn dc_passes_unchanged_away_from_edges() {
        let x = vec![0.25f32; 44_100];
        let y = resample(&x, 44_100, 16_000);
        let mid = &y[1_000..15_000];
        assert!(mid.iter().all(|&v| (v - 0.25).abs() < 1e-5));
    }

    #[test]
    fn phase_table_interpolation_matches_exact_kernel() {
        // 44 101 → 16 000 has 16 000 phases and uses the interpolated table.
        let kernel = Kernel::design(16_000, 44_101);
        let table = PhaseTable::new(&kernel, MAX_PHASES);
        let mut buf = vec![0.0; table.taps];
        let phase = 12_345;
        let taps = table.taps_at(phase, 16_000, &mut buf).to_vec();
        let frac = phase as f64 / 16_000.0;
        let exact: Vec<f64> = (0..table.taps)
            .map(|j| kernel.at(frac + kernel.half_taps as f64 - 1.0 - j as f64))
            .collect();
        let gain: f64 = exact.iter().sum();
        for (t, e) in taps.iter().zip(&exact) {
            assert!((f64::from(*t) - e / gain).abs() < 1e-6);
        }
    }

    #[test]
    #[ignore = "timing, not a check: cargo test --release --lib audio::resample -- --ignored --nocapture"]
    fn time_60_seconds() {
        for from in [48_000, 44_100] {
            let x = sine(440.0, from, 60.0, 0.5);
            let start = std::time::Instant::now();
            let y = resample(&x, from, 16_000);
            println!(
                "resample 60 s {from} -> 16000: {:.1} ms ({} samples)",
                start.elapsed().as_secs_f64() * 1000.0,
                y.len()
            );
        }
    }
}
