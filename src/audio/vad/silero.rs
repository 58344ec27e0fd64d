//! The Silero VAD network (v5/v6, 16 kHz), evaluated in plain Rust from the weights of
//! `silero_vad_16k.safetensors` (the `silero-vad` PyPI package's `data/`): one call per
//! [`CHUNK`] of new audio, carrying the LSTM state and the last [`CONTEXT`] samples from call to
//! call, as the package's own ONNX and tinygrad wrappers do.
//!
//! The network per call (the package's `tinygrad_model.py` describes it; its ONNX graph is the
//! reference the tests check against, `scripts/gen-vad-fixture.py`): the
//! [`CONTEXT`] + [`CHUNK`] samples, reflect-padded by 64 on the right, go through a fixed STFT
//! (a 256-tap convolution, stride 128, 129 frequency bins × 4 frames, magnitudes), four 1-D
//! convolutions with ReLU (129→128, 128→64 stride 2, 64→64 stride 2, 64→128), an LSTM cell
//! (128), ReLU, a 1×1 convolution and a sigmoid: the probability that the chunk is speech.
//! The package's `silero_vad.onnx` carries another checkpoint of this network; the
//! safetensors one is used because it is the one published as plain tensors.
//!
//! Why not libtorch: about 0.7 M multiply-adds per 32 ms chunk is far too little work to be
//! worth a TorchScript call (its interpreter's fixed cost per call) or a share of libtorch's
//! thread pool, which belongs to Whisper while it transcribes; in plain Rust it runs on the
//! recorder's own thread, and costs what BENCHMARKS.md says ("Voice-activity detector").

use safetensors::{Dtype, SafeTensors};

/// New samples per call (32 ms at 16 kHz), what the model was trained on.
pub const CHUNK: usize = 512;
/// Samples of the previous chunk each call sees before its own.
pub const CONTEXT: usize = 64;
/// The reflect padding on the right of each call's input.
const PAD: usize = 64;
const N_FFT: usize = 256;
const HOP: usize = 128;
const BINS: usize = N_FFT / 2 + 1;
const HIDDEN: usize = 128;
/// The input of one call, padded: (64 + 512 + 64 − 256) / 128 + 1 = 4 STFT frames.
const PADDED: usize = CONTEXT + CHUNK + PAD;
const FRAMES: usize = (PADDED - N_FFT) / HOP + 1;

/// Why the weights could not be used; every message names the file or the tensor.
#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    #[error("not a valid safetensors file: {0}")]
    Format(#[from] safetensors::SafeTensorError),
    #[error("tensor '{0}' is missing")]
    Missing(&'static str),
    #[error("tensor '{name}' is {dtype:?} {shape:?}; expected F32 {expected:?}")]
    Shape {
        name: &'static str,
        dtype: Dtype,
        shape: Vec<usize>,
        expected: Vec<usize>,
    },
}

/// A 1-D convolution's weights, `[out][in][kernel]` row-major, with its bias.
#[derive(Debug, Clone)]
struct Conv {
    weight: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
    kernel: usize,
    stride: usize,
}

impl Conv {
    /// `input` is `[inputs][frames]`; returns `[outputs][out_frames]` after ReLU, padding 1 on
    /// each side of the time axis (kernel 3).
    fn forward_relu(&self, input: &[f32], frames: usize) -> (Vec<f32>, usize) {
        let pad = self.kernel / 2;
        let out_frames = (frames + 2 * pad - self.kernel) / self.stride + 1;
        let mut column = vec![0.0f32; self.inputs * self.kernel];
        let mut out = vec![0.0f32; self.outputs * out_frames];
        for t in 0..out_frames {
            for i in 0..self.inputs {
                for k in 0..self.kernel {
                    let at = (t * self.stride + k).checked_sub(pad);
                    column[i * self.kernel + k] = at
                        .filter(|&at| at < frames)
                        .map_or(0.0, |at| input[i * frames + at]);
                }
            }
            let span = self.inputs * self.kernel;
            for o in 0..self.outputs {
                let value = self.bias[o] + dot(&self.weight[o * span..(o + 1) * span], &column);
                out[o * out_frames + t] = value.max(0.0);
            }
        }
        (out, out_frames)
    }
}

/// The network's weights.
#[derive(Debug, Clone)]
pub struct SileroWeights {
    /// `[2 × 129][256]`: the real then the imaginary parts of the STFT basis.
    stft: Vec<f32>,
    convs: [Conv; 4],
    /// `[4 × 128][128]` each, gates in PyTorch's order (input, forget, cell, output).
    lstm_input: Vec<f32>,
    lstm_hidden: Vec<f32>,
    /// `bias_ih + bias_hh`.
    lstm_bias: Vec<f32>,
    final_weight: Vec<f32>,
    final_bias: f32,
}

fn tensor(
    file: &SafeTensors<'_>,
    name: &'static str,
    expected: &[usize],
) -> Result<Vec<f32>, WeightsError> {
    let view = file.tensor(name).map_err(|_| WeightsError::Missing(name))?;
    if view.dtype() != Dtype::F32 || view.shape() != expected {
        return Err(WeightsError::Shape {
            name,
            dtype: view.dtype(),
            shape: view.shape().to_vec(),
            expected: expected.to_vec(),
        });
    }
    Ok(view
        .data()
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}

fn conv(
    file: &SafeTensors<'_>,
    (weight, bias): (&'static str, &'static str),
    (inputs, outputs, stride): (usize, usize, usize),
) -> Result<Conv, WeightsError> {
    Ok(Conv {
        weight: tensor(file, weight, &[outputs, inputs, 3])?,
        bias: tensor(file, bias, &[outputs])?,
        inputs,
        outputs,
        kernel: 3,
        stride,
    })
}

impl SileroWeights {
    /// Reads the weights from the bytes of `silero_vad_16k.safetensors`.
    pub fn from_safetensors(bytes: &[u8]) -> Result<SileroWeights, WeightsError> {
        let file = SafeTensors::deserialize(bytes)?;
        let stft = tensor(&file, "stft_conv.weight", &[2 * BINS, 1, N_FFT])?;
        let bias_ih = tensor(&file, "lstm_cell.bias_ih", &[4 * HIDDEN])?;
        let bias_hh = tensor(&file, "lstm_cell.bias_hh", &[4 * HIDDEN])?;
        let final_bias = tensor(&file, "final_conv.bias", &[1])?;
        Ok(SileroWeights {
            stft,
            convs: [
                conv(&file, ("conv1.weight", "conv1.bias"), (BINS, 128, 1))?,
                conv(&file, ("conv2.weight", "conv2.bias"), (128, 64, 2))?,
                conv(&file, ("conv3.weight", "conv3.bias"), (64, 64, 2))?,
                conv(&file, ("conv4.weight", "conv4.bias"), (64, 128, 1))?,
            ],
            lstm_input: tensor(&file, "lstm_cell.weight_ih", &[4 * HIDDEN, HIDDEN])?,
            lstm_hidden: tensor(&file, "lstm_cell.weight_hh", &[4 * HIDDEN, HIDDEN])?,
            lstm_bias: bias_ih.iter().zip(&bias_hh).map(|(a, b)| a + b).collect(),
            final_weight: tensor(&file, "final_conv.weight", &[1, HIDDEN, 1])?,
            final_bias: final_bias[0],
        })
    }
}

/// What one stream of audio carries from chunk to chunk.
#[derive(Debug, Clone)]
pub struct SileroState {
    context: [f32; CONTEXT],
    hidden: [f32; HIDDEN],
    cell: [f32; HIDDEN],
}

impl Default for SileroState {
    fn default() -> Self {
        SileroState {
            context: [0.0; CONTEXT],
            hidden: [0.0; HIDDEN],
            cell: [0.0; HIDDEN],
        }
    }
}

impl SileroWeights {
    /// The probability that `chunk` ([`CHUNK`] samples at 16 kHz, the next of the stream
    /// `state` belongs to) is speech.
    pub fn speech_probability(&self, state: &mut SileroState, chunk: &[f32; CHUNK]) -> f32 {
        let mut padded = [0.0f32; PADDED];
        padded[..CONTEXT].copy_from_slice(&state.context);
        padded[CONTEXT..CONTEXT + CHUNK].copy_from_slice(chunk);
        let n = CONTEXT + CHUNK;
        for i in 0..PAD {
            padded[n + i] = padded[n - 2 - i];
        }
        state.context.copy_from_slice(&chunk[CHUNK - CONTEXT..]);

        let mut magnitudes = vec![0.0f32; BINS * FRAMES];
        for t in 0..FRAMES {
            let window = &padded[t * HOP..t * HOP + N_FFT];
            for f in 0..BINS {
                let re = dot(&self.stft[f * N_FFT..(f + 1) * N_FFT], window);
                let im = dot(
                    &self.stft[(BINS + f) * N_FFT..(BINS + f + 1) * N_FFT],
                    window,
                );
                magnitudes[f * FRAMES + t] = (re * re + im * im).sqrt();
            }
        }
        let (mut x, mut frames) = (magnitudes, FRAMES);
        for conv in &self.convs {
            (x, frames) = conv.forward_relu(&x, frames);
        }
        debug_assert_eq!((x.len(), frames), (HIDDEN, 1));

        let mut gates = [0.0f32; 4 * HIDDEN];
        for (j, gate) in gates.iter_mut().enumerate() {
            let row = j * HIDDEN..(j + 1) * HIDDEN;
            *gate = self.lstm_bias[j]
                + dot(&self.lstm_input[row.clone()], &x)
                + dot(&self.lstm_hidden[row], &state.hidden);
        }
        for h in 0..HIDDEN {
            let input = sigmoid(gates[h]);
            let forget = sigmoid(gates[HIDDEN + h]);
            let candidate = gates[2 * HIDDEN + h].tanh();
            let output = sigmoid(gates[3 * HIDDEN + h]);
            state.cell[h] = forget * state.cell[h] + input * candidate;
            state.hidden[h] = output * state.cell[h].tanh();
        }
        let relu: Vec<f32> = state.hidden.iter().map(|&h| h.max(0.0)).collect();
        sigmoid(self.final_bias + dot(&self.final_weight, &relu))
    }
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The dot product of two equally long slices, in eight lanes (the compiler vectorises it).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    let mut lanes = [0.0f32; 8];
    let (a8, b8) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (a8.remainder(), b8.remainder());
    for (x, y) in a8.zip(b8) {
        for l in 0..8 {
            lanes[l] += x[l] * y[l];
        }
    }
    let rest: f32 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    lanes.iter().sum::<f32>() + rest
}
