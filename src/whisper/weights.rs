//! The immutable Whisper weights in one canonical shape, whatever file layout they came from
//! (CTranslate2 `model.bin` or Hugging Face safetensors). Self-attention keeps q, k, v fused in
//! one matrix (one matmul instead of three) and cross-attention keeps k, v fused, as CTranslate2
//! stores them; OpenAI's key projections have no bias, so that slice of the fused bias is zero.
//! All tensors live on one device, in one floating-point kind, except where the device's
//! [`Storage`] keeps the decoder's step layers as int8 or float32 weights as float16 (the CPU's
//! layouts, see `model`). The loader stores each block so as soon as it is read, so that the
//! whole model never exists in float32 at once (a float16 checkpoint's `base` is 290 MB so).

use super::dims::ModelDims;
use super::quant::Int8Rows;
use tch::{Device, Kind, TchError, Tensor};

/// How the decoder's step weights (the token table, the MLPs and, in the float32 layout, the
/// attention projections: read whole at every decoder step) are stored on the CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StepWeights {
    /// In the model's kind: the reference's numbers (the parity tests' layout).
    #[default]
    Float,
    /// As int8 rows ([`Int8Rows`]): a quarter of float32's bytes to read per step, a step
    /// about twice as fast, and English words unchanged on the project's clips (BENCHMARKS.md).
    /// The app's layout on the CPU; bfloat16 on the CPU always uses it. Other devices ignore
    /// it.
    Int8,
}

/// How a model's weights are stored on the device it runs on, decided by the kind and device it
/// was loaded for ([`Storage::for_device`]); applied block by block as the loader reads them
/// ([`EncoderBlock::store`], [`DecoderBlock::store`]) and to the rest when the model is made.
/// Applying it again changes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Storage {
    /// The decoder's step layers as int8 rows ([`DecoderWeights::store`]).
    pub int8_steps: bool,
    /// The kind of the decoder steps' activations ([`decoder_kind_for`]), which its layer
    /// norms, positions and biases take.
    pub decoder_kind: Kind,
    /// The encoder's dense layers and the cross-attention keys/values stored as float16 where
    /// that is exact ([`Weight::Half`]): the float32 layout for CPUs without native bf16.
    pub half_where_exact: bool,
}

impl Storage {
    /// The storage of a model of `kind` on `device` asked for `steps`.
    pub fn for_device(device: Device, kind: Kind, steps: StepWeights) -> Storage {
        let int8_steps = int8_steps_for(device, kind, steps);
        Storage {
            int8_steps,
            decoder_kind: decoder_kind_for(device, kind),
            half_where_exact: int8_steps && kind == Kind::Float,
        }
    }
}

/// The kind of the decoder steps' activations for a model of `kind` on `device`: float32 for
/// bfloat16 on the CPU, whose step weights are then int8 (see `model::Whisper`), else `kind`.
pub fn decoder_kind_for(device: Device, kind: Kind) -> Kind {
    match (device, kind) {
        (Device::Cpu, Kind::BFloat16) => Kind::Float,
        _ => kind,
    }
}

/// Whether a model of `kind` on `device` asked for `steps` stores its step weights as int8
/// rows. Only the CPU does: bfloat16 always (its single-row bf16 products are slow), float32
/// when asked (the app's layout on CPUs without native bf16).
pub fn int8_steps_for(device: Device, kind: Kind, steps: StepWeights) -> bool {
    matches!(
        (device, kind, steps),
        (Device::Cpu, Kind::BFloat16, _) | (Device::Cpu, Kind::Float, StepWeights::Int8)
    )
}

/// A dense layer `y = x Wᵀ + b`.
#[derive(Debug)]
pub struct Linear {
    pub weight: Weight,
    pub bias: Option<Tensor>,
}

/// A weight matrix `[out, in]`: floating point as loaded, float16 storage of float32 values,
/// or int8 rows with per-row scales.
#[derive(Debug)]
pub enum Weight {
    Float(Tensor),
    /// Float32 values that float16 holds exactly (a float16 checkpoint, such as the
    /// CTranslate2 models, widened on load), stored in half the bytes and widened again for
    /// each product: the same numbers, ~1 ms per encoder pass of `base` to widen them.
    Half(Tensor),
    Int8(Int8Rows),
}

impl Weight {
    /// The floating-point matrix as stored, `None` once quantized or halved.
    pub fn float(&self) -> Option<&Tensor> {
        match self {
            Weight::Float(t) => Some(t),
            Weight::Half(_) | Weight::Int8(_) => None,
        }
    }

    /// The float32 matrix stored as float16 when that keeps every value exactly; otherwise
    /// (values float16 cannot hold, another kind, already stored otherwise) unchanged.
    fn store_half_where_exact(&mut self) -> Result<(), TchError> {
        if let Weight::Float(weight) = self {
            if weight.kind() == Kind::Float {
                let half = weight.f_to_kind(Kind::Half)?;
                if half.f_to_kind(Kind::Float)?.f_equal(weight)? {
                    *self = Weight::Half(half);
                }
            }
        }
        Ok(())
    }
}

/// Layer normalisation (OpenAI: `weight`/`bias`; CTranslate2: `gamma`/`beta`).
#[derive(Debug)]
pub struct LayerNorm {
    pub weight: Tensor,
    pub bias: Tensor,
}

/// A 1-d convolution, weight `[out, in, kernel]`.
#[derive(Debug)]
pub struct Conv1d {
    pub weight: Tensor,
    pub bias: Tensor,
}

/// Self-attention with its pre-norm: `qkv` is `[3·d, d]` (q, then k, then v).
#[derive(Debug)]
pub struct SelfAttention {
    pub ln: LayerNorm,
    pub qkv: Linear,
    pub out: Linear,
}

/// Cross-attention with its pre-norm: `query` is `[d, d]`, `kv` is `[2·d, d]` (k, then v).
#[derive(Debug)]
pub struct CrossAttention {
    pub ln: LayerNorm,
    pub query: Linear,
    pub kv: Linear,
    pub out: Linear,
}

/// The feed-forward part of a block with its pre-norm: `d → 4d → d` with GELU between.
#[derive(Debug)]
pub struct Mlp {
    pub ln: LayerNorm,
    pub fc1: Linear,
    pub fc2: Linear,
}

#[derive(Debug)]
pub struct EncoderBlock {
    pub attn: SelfAttention,
    pub mlp: Mlp,
}

#[derive(Debug)]
pub struct DecoderBlock {
    pub attn: SelfAttention,
    pub cross_attn: CrossAttention,
    pub mlp: Mlp,
}

#[derive(Debug)]
pub struct EncoderWeights {
    /// `[n_audio_state, n_mels, 3]`
    pub conv1: Conv1d,
    /// `[n_audio_state, n_audio_state, 3]`, stride 2
    pub conv2: Conv1d,
    /// Sinusoidal positions `[n_audio_ctx, n_audio_state]`.
    pub positional_embedding: Tensor,
    pub blocks: Vec<EncoderBlock>,
    pub ln_post: LayerNorm,
}

#[derive(Debug)]
pub struct DecoderWeights {
    /// `[n_vocab, n_text_state]`, also the (tied) output projection.
    pub token_embedding: Tensor,
    /// Learned positions `[n_text_ctx, n_text_state]`.
    pub positional_embedding: Tensor,
    pub blocks: Vec<DecoderBlock>,
    pub ln: LayerNorm,
}

/// A whole model's weights with the dimensions they imply.
#[derive(Debug)]
pub struct WhisperWeights {
    pub dims: ModelDims,
    pub encoder: EncoderWeights,
    pub decoder: DecoderWeights,
}

impl Linear {
    /// Stores the weight as int8 rows where it [fits](Int8Rows::fits), else in `kind`; the
    /// bias goes to `kind`.
    fn quantize(&mut self, kind: Kind) -> Result<(), TchError> {
        if let Weight::Float(weight) = &self.weight {
            self.weight = if Int8Rows::fits(weight) {
                Weight::Int8(Int8Rows::quantize(weight)?)
            } else {
                Weight::Float(weight.f_to_kind(kind)?)
            };
        }
        self.convert_bias(kind)
    }

    fn convert_bias(&mut self, kind: Kind) -> Result<(), TchError> {
        if let Some(bias) = &mut self.bias {
            *bias = bias.f_to_kind(kind)?;
        }
        Ok(())
    }
}

impl LayerNorm {
    fn convert(&mut self, kind: Kind) -> Result<(), TchError> {
        self.weight = self.weight.f_to_kind(kind)?;
        self.bias = self.bias.f_to_kind(kind)?;
        Ok(())
    }
}

impl EncoderBlock {
    /// Stores the block as `storage` says: its dense layers' float32 weights as float16 where
    /// that is exact (see [`Weight::Half`]; `base`'s encoder 82 → 41 MB from a float16
    /// checkpoint).
    pub fn store(&mut self, storage: &Storage) -> Result<(), TchError> {
        if storage.half_where_exact {
            for layer in [
                &mut self.attn.qkv,
                &mut self.attn.out,
                &mut self.mlp.fc1,
                &mut self.mlp.fc2,
            ] {
                layer.weight.store_half_where_exact()?;
            }
        }
        Ok(())
    }
}

impl EncoderWeights {
    /// Every block stored as `storage` says ([`EncoderBlock::store`]).
    pub fn store(&mut self, storage: &Storage) -> Result<(), TchError> {
        self.blocks.iter_mut().try_for_each(|b| b.store(storage))
    }
}

impl DecoderBlock {
    /// Stores the block as `storage` says. The CPU's decoder steps (`int8_steps`): the MLP's
    /// two layers (60 % of a step's weights) and the attention projections (self-attention
    /// q/k/v and output, cross-attention query and output: the other 40 %) become int8 rows;
    /// the layer norms and biases go to the steps' kind. The cross-attention key/value
    /// projection, run once per window over all audio positions, keeps its kind, as float16
    /// where that is exact in the float32 layout (`half_where_exact`).
    ///
    /// Int8 attention: a `base` step 9 → 6 ms and 28 MB less (the float32 layout, BENCHMARKS.md).
    /// The bf16 layout kept its attention in float32 until 2026-11-30, for one Polish clip on a
    /// decision boundary; measured again with the app's fast encoding, that clip's words are the
    /// same either way, and 17 English clips (1,255 words) give WER 7.57 % against 7.65 %, with
    /// 34 MB less resident and 15 % less time over 36 app-like passes.
    pub fn store(&mut self, storage: &Storage) -> Result<(), TchError> {
        if storage.int8_steps {
            let kind = storage.decoder_kind;
            self.attn.ln.convert(kind)?;
            self.cross_attn.ln.convert(kind)?;
            self.mlp.ln.convert(kind)?;
            for layer in [
                &mut self.attn.qkv,
                &mut self.attn.out,
                &mut self.cross_attn.query,
                &mut self.cross_attn.out,
                &mut self.mlp.fc1,
                &mut self.mlp.fc2,
            ] {
                layer.quantize(kind)?;
            }
        }
        if storage.half_where_exact {
            self.cross_attn.kv.weight.store_half_where_exact()?;
        }
        Ok(())
    }
}

impl DecoderWeights {
    /// Every block stored as `storage` says ([`DecoderBlock::store`]), and with int8 steps the
    /// positions and the final norm in the steps' kind. The token embedding keeps its kind:
    /// `model::Whisper` quantizes it itself.
    pub fn store(&mut self, storage: &Storage) -> Result<(), TchError> {
        if storage.int8_steps {
            self.positional_embedding =
                self.positional_embedding.f_to_kind(storage.decoder_kind)?;
            self.ln.convert(storage.decoder_kind)?;
        }
        self.blocks.iter_mut().try_for_each(|b| b.store(storage))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::Device;

    #[test]
    fn float16_storage_is_used_only_where_it_keeps_every_value() {
        // Values of a float16 checkpoint widened to float32: stored as float16, same numbers.
        let exact = (Tensor::randn([8, 64], (Kind::Float, Device::Cpu)) * 0.05)
            .to_kind(Kind::Half)
            .to_kind(Kind::Float);
        let mut weight = Weight::Float(exact.copy());
        weight.store_half_where_exact().unwrap();
        match &weight {
            Weight::Half(half) => assert!(half.to_kind(Kind::Float).equal(&exact)),
            other => panic!("expected float16 storage, got {other:?}"),
        }
        assert!(weight.float().is_none());
        // Float32 values float16 would round stay float32.
        let mut weight = Weight::Float(Tensor::from_slice(&[0.1f32, 1.0 / 3.0]).view([1, 2]));
        weight.store_half_where_exact().unwrap();
        assert!(matches!(weight, Weight::Float(_)));
        // Another kind is left alone.
        let mut weight = Weight::Float(exact.to_kind(Kind::BFloat16));
        weight.store_half_where_exact().unwrap();
        assert!(matches!(weight, Weight::Float(_)));
    }
}
