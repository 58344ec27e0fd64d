//! The Whisper network's forward passes on libtorch: the audio encoder, and the text decoder
//! with key-value caches for self-attention (grown one token at a time, never re-fed) and
//! cross-attention (computed once per audio window). The weights are immutable and shared;
//! everything that changes during decoding lives in [`DecoderState`], owned by the caller.
//! Short audio can be encoded without its window's padding ([`Whisper::encode_audio_while`]):
//! the padding's states come from one pass over a speech primer, kept with the model.
//!
//! Every tensor operation is the fallible `f_` form so that a device failure (an unsupported
//! operation on MPS, out-of-memory on a GPU) surfaces as a [`ModelError`] the device manager can
//! act on, instead of a panic.

use super::attention::{self as kernels, MaskedAttention};
use super::dims::ModelDims;
use super::gemm::Gemm;
use super::layers::{
    attention, conv1d, cross_attention, encoder_block, layer_norm, linear, merge_heads, mlp,
    qkv_heads, split_heads,
};
use super::padding::{PrimedPadding, WindowCrossKv, PADDING_MARGIN_POSITIONS};
use super::quant::Int8Rows;
use super::step_threads;
pub use super::weights::{decoder_kind_for, int8_steps_for};
use super::weights::{DecoderBlock, SelfAttention, StepWeights, Storage, Weight, WhisperWeights};
use tch::{Device, Kind, TchError, Tensor};

pub use super::model_error::ModelError;
use super::model_error::Stage;

type Result<T> = std::result::Result<T, ModelError>;

/// How the decoder's self-attention cache holds the tokens decoded so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheLayout {
    /// Concatenated one step at a time: the least work, and the reference's numbers, but every
    /// step has a new key length. The CPU's layout.
    Growing,
    /// Preallocated to the text context, written in place and attended through a causal mask:
    /// every step has the same shapes, so backends that plan or compile per shape (cuDNN's
    /// attention on CUDA, MPS graphs) do it once instead of once per token. The GPUs' layout.
    Fixed,
}

impl CacheLayout {
    pub fn for_device(device: Device) -> CacheLayout {
        match device {
            Device::Cpu => CacheLayout::Growing,
            _ => CacheLayout::Fixed,
        }
    }
}

/// A loaded Whisper model: immutable weights on one device, in one floating-point kind, except
/// on the CPU with int8 step weights ([`StepWeights::Int8`]; float32: the float32 layout, for
/// CPUs without native bf16, e.g. an M1's: everything float32 but the token table and the
/// decoder's MLPs and attention projections, int8 rows) and bfloat16 on the CPU, which is a
/// mixed layout. The encoder and the cross-attention key/value
/// projection (products over all 1500 audio positions) are bf16, about twice as fast as float32
/// on AVX-512 BF16. A decoder step multiplies one row by every other decoder weight and by the
/// 51865-row token table, which is bound by memory traffic, and single-row bf16 products are
/// slow there: the table, the MLPs and the attention projections are int8 rows ([`Int8Rows`],
/// a quarter of float32's bytes), and the activations (layer norms, attention, caches)
/// float32. BENCHMARKS.md has the measurements: a `base` step 21 → 13 ms.
#[derive(Debug)]
pub struct Whisper {
    /// All weights except the token embedding, which lives in `embedding`.
    weights: WhisperWeights,
    /// The token embedding, also the output projection (read whole on every decoder step).
    embedding: TokenEmbedding,
    /// How the encoder's dense layers are multiplied on this device and kind.
    gemm: Gemm,
    /// The same for the decoder's layers.
    decoder_gemm: Gemm,
    cache_layout: CacheLayout,
    /// How the fixed cache's masked attention is computed (exact, except on a simulated GPU
    /// told to get it wrong).
    masked_attention: MaskedAttention,
    device: Device,
    /// The encoder's and the token embedding's kind (the model's precision).
    kind: Kind,
    /// The decoder steps' activation kind: `kind`, or float32 in the CPU's bf16 layout.
    decoder_kind: Kind,
    /// The padding's states for [`Whisper::encode_audio_while`], once primed.
    primed: std::cell::OnceCell<PrimedPadding>,
    /// The CPU threads a one-token decoder step runs on (`None`: the caller's), see
    /// [`super::step_threads`].
    one_token_threads: Option<i32>,
}

/// An audio window's encoder output `[1, ctx, d]`, and the position from which it is the primed
/// padding's (see [`Whisper::encode_audio_while`]).
pub struct AudioFeatures {
    states: Tensor,
    primed_from: Option<i64>,
}

impl AudioFeatures {
    /// Features computed for every position.
    pub fn whole(states: Tensor) -> Self {
        AudioFeatures {
            states,
            primed_from: None,
        }
    }

    pub fn states(&self) -> &Tensor {
        &self.states
    }

    /// The position from which the features are the primed padding's (`None`: all computed).
    pub fn primed_from(&self) -> Option<i64> {
        self.primed_from
    }
}

/// One audio window's cross-attention keys and values, `[1, heads, ctx, head_dim]` per decoder
/// layer (see [`Whisper::audio_keys`]).
pub struct AudioKeys {
    layers: Vec<(Tensor, Tensor)>,
    /// Held while the keys view the model's kept window ([`WindowCrossKv`]).
    _lent: Option<std::sync::Arc<()>>,
}

impl AudioKeys {
    /// Per decoder layer: the keys and values.
    pub fn layers(&self) -> &[(Tensor, Tensor)] {
        &self.layers
    }
}

/// Per-call decoder state: cross-attention keys/values of the current audio window, and the
/// self-attention cache of the tokens decoded so far (one row per beam / sequence).
pub struct DecoderState {
    cross: Vec<(Tensor, Tensor)>,
    self_kv: Vec<(Tensor, Tensor)>,
    /// Number of text positions already in `self_kv`.
    len: usize,
    /// With [`CacheLayout::Fixed`]: `[n_text_ctx, n_text_ctx]`, true where position `row` may
    /// see position `col` (`col <= row`); step masks are row slices of it.
    causal: Option<Tensor>,
    /// The model's [`MaskedAttention`] when decoding started.
    kernel: MaskedAttention,
    /// The keys' hold on the model's kept window, if `cross` views it (see [`AudioKeys`]).
    _lent: Option<std::sync::Arc<()>>,
}

impl DecoderState {
    /// Text positions consumed so far.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Forgets every text position from `len` on (a draft's tokens the decoder did not choose,
    /// `decode::decode_window`): the next [`Whisper::decode`] continues after position `len`.
    pub fn truncate(&mut self, len: usize) -> Result<()> {
        if len >= self.len {
            return Ok(());
        }
        if self.causal.is_none() {
            // Growing layout: the cache holds exactly `self.len` positions.
            for (k, v) in &mut self.self_kv {
                *k = k.f_narrow(2, 0, len as i64).stage("truncate cache")?;
                *v = v.f_narrow(2, 0, len as i64).stage("truncate cache")?;
            }
        }
        // Fixed layout: slots from `len` on are masked out until written again.
        self.len = len;
        Ok(())
    }

    /// Keeps the rows named by `indices` (beam search reordering); the self-attention cache of
    /// row `i` becomes a copy of the old row `indices[i]`. The row count must stay the same: the
    /// cross-attention cache is shared by all rows of one audio window.
    pub fn reorder(&mut self, indices: &[i64]) -> Result<()> {
        let Some((first, _)) = self.self_kv.first() else {
            return Ok(());
        };
        let idx = Tensor::from_slice(indices).to_device(first.device());
        for (k, v) in &mut self.self_kv {
            *k = k.f_index_select(0, &idx).stage("reorder cache")?;
            *v = v.f_index_select(0, &idx).stage("reorder cache")?;
        }
        Ok(())
    }
}

impl Whisper {
    /// Takes the weights over (the token embedding moves into the output projection).
    pub fn new(
        mut weights: WhisperWeights,
        device: Device,
        kind: Kind,
        steps: StepWeights,
    ) -> Result<Self> {
        let table = std::mem::replace(&mut weights.decoder.token_embedding, Tensor::new());
        // The loader stored each block so already (the rest, or weights made otherwise, here).
        let storage = Storage::for_device(device, kind, steps);
        let decoder_kind = storage.decoder_kind;
        weights
            .decoder
            .store(&storage)
            .stage("decoder layers to int8")?;
        // The float32 layout's products over many rows are the memory-bound ones: their
        // weights are read from float16 where that is exact.
        weights
            .encoder
            .store(&storage)
            .stage("encoder layers to float16 storage")?;
        let table = if storage.int8_steps && Int8Rows::fits(&table) {
            Weight::Int8(Int8Rows::quantize(&table).stage("token embedding to int8")?)
        } else {
            Weight::Float(table)
        };
        let gemm = Gemm::for_device(device, kind);
        let one_token_threads = step_threads::for_one_token(&weights.dims, device);
        Ok(Self {
            weights,
            embedding: TokenEmbedding { table, gemm },
            gemm,
            decoder_gemm: Gemm::for_device(device, decoder_kind),
            cache_layout: CacheLayout::for_device(device),
            masked_attention: MaskedAttention::Exact,
            device,
            kind,
            decoder_kind,
            primed: std::cell::OnceCell::new(),
            one_token_threads,
        })
    }

    /// Chooses the self-attention cache layout (by default the device's, see [`CacheLayout`]).
    pub fn set_cache_layout(&mut self, layout: CacheLayout) {
        self.cache_layout = layout;
    }

    pub fn cache_layout(&self) -> CacheLayout {
        self.cache_layout
    }

    /// Makes the fixed cache's masked attention compute `kernel` (the simulated GPU's
    /// `wrong=attention` breaks it; see [`MaskedAttention`]).
    pub fn set_masked_attention(&mut self, kernel: MaskedAttention) {
        self.masked_attention = kernel;
    }

    /// The CPU threads a decoder step that feeds one token runs on (`None`: the caller's);
    /// chosen for the model's size and device ([`step_threads::for_one_token`]).
    pub fn one_token_threads(&self) -> Option<i32> {
        self.one_token_threads
    }

    /// Overrides [`Self::one_token_threads`] (the benchmark compares one thread with all).
    pub fn set_one_token_threads(&mut self, threads: Option<i32>) {
        self.one_token_threads = threads;
    }

    pub fn dims(&self) -> &ModelDims {
        &self.weights.dims
    }

    pub fn device(&self) -> Device {
        self.device
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Encodes log-mel frames `[batch, n_mels, frames]` (any float kind, any device) into audio
    /// features `[batch, frames / 2, n_audio_state]`. `frames` is normally 3000 (30 s); fewer
    /// frames encode a shorter context with the leading positional embeddings.
    pub fn encode(&self, mel: &Tensor) -> Result<Tensor> {
        self.encode_while(mel, &mut || true)
    }

    /// [`Self::encode`], asking `keep_going` before each block: [`ModelError::Stopped`] when it
    /// said stop (the rest of the encoder is skipped; a block of `base` is ~60 ms on a 2-core
    /// CPU).
    pub fn encode_while(
        &self,
        mel: &Tensor,
        keep_going: &mut dyn FnMut() -> bool,
    ) -> Result<Tensor> {
        self.check_mel(mel)?;
        let x = self.run_encoder(mel, None, keep_going, None)?;
        layer_norm(&x, &self.weights.encoder.ln_post, "encoder ln_post")
    }

    /// The features of a full window (`mel`: `[1, n_mels, 3000]`) whose audio is its first
    /// `audio_frames` frames, the rest being padding (0.0 in every bin), computing only the
    /// audio's positions and a margin after them: the other positions take the states they
    /// have after the primer's speech ([`Self::prime_padding`]). The computed positions
    /// attend to all 1500 as in [`Self::encode`]; what differs is only what the padding took
    /// from this audio rather than the primer's. A 4.5 s utterance costs about a quarter of a
    /// full window. Without a primer, or when the audio fills the window, this is
    /// [`Self::encode_while`].
    pub fn encode_audio_while(
        &self,
        mel: &Tensor,
        audio_frames: usize,
        keep_going: &mut dyn FnMut() -> bool,
    ) -> Result<AudioFeatures> {
        self.check_mel(mel)?;
        let ctx = self.weights.dims.n_audio_ctx as i64;
        let whole = |keep_going: &mut dyn FnMut() -> bool| {
            self.encode_while(mel, keep_going).map(AudioFeatures::whole)
        };
        let Some(primed) = self.primed.get() else {
            return whole(keep_going);
        };
        let positions = primed.positions_for(audio_frames);
        if mel.size()[0] != 1 || mel.size()[2] != 2 * ctx || positions >= ctx {
            return whole(keep_going);
        }
        let audio = mel.f_narrow(2, 0, 2 * positions).stage("encoder audio")?;
        let x = self.run_encoder(&audio, Some(primed), keep_going, None)?;
        let x = layer_norm(&x, &self.weights.encoder.ln_post, "encoder ln_post")?;
        let padding = primed
            .rows_from(&primed.output, 1, positions)
            .stage("encoder padding")?;
        Ok(AudioFeatures {
            states: Tensor::f_cat(&[x, padding], 1).stage("encoder padding")?,
            primed_from: Some(positions),
        })
    }

    /// Computes the padding's states for [`Self::encode_audio_while`] (once; later calls do
    /// nothing): one full encoder pass over a window holding the primer's `primer_frames`
    /// frames of speech (`mel`: `[1, n_mels, 3000]`, padding after them). Speech, because
    /// the padding's states carry what it heard: after silence they differ enough from those
    /// after real speech to change words (measured in BENCHMARKS.md).
    pub fn prime_padding(&self, mel: &Tensor, primer_frames: usize) -> Result<()> {
        if self.primed.get().is_some() {
            return Ok(());
        }
        self.check_mel(mel)?;
        let ctx = self.weights.dims.n_audio_ctx as i64;
        let floor = primer_frames.div_ceil(2) as i64;
        let first = (floor + PADDING_MARGIN_POSITIONS).min(ctx);
        // Copies of the kept positions: views would hold each whole product alive.
        let kept = |t: Tensor, dim: i64| {
            t.f_narrow(dim, first, ctx - first)
                .and_then(|t| t.f_contiguous())
                .stage("priming the padding")
        };
        let mut keys = Vec::with_capacity(self.weights.encoder.blocks.len());
        let x = self.run_encoder(mel, None, &mut || true, Some(&mut keys))?;
        let keys = keys
            .into_iter()
            .map(|(k, v)| Ok((kept(k, 2)?, kept(v, 2)?)))
            .collect::<Result<Vec<_>>>()?;
        let output = kept(
            layer_norm(&x, &self.weights.encoder.ln_post, "encoder ln_post")?,
            1,
        )?;
        let cross_kv = self.window_cross_kv(&output, first)?;
        let primed = PrimedPadding {
            floor,
            first,
            keys,
            output,
            cross_kv,
        };
        // Set only here, and checked above on the same thread (`Whisper` is not `Sync`).
        let _ = self.primed.set(primed);
        Ok(())
    }

    /// Whether [`Self::prime_padding`] has run.
    pub fn is_primed(&self) -> bool {
        self.primed.get().is_some()
    }

    fn check_mel(&self, mel: &Tensor) -> Result<()> {
        let dims = &self.weights.dims;
        let size = mel.size();
        let max_frames = 2 * dims.n_audio_ctx;
        let shape_ok = size.len() == 3
            && size[1] as usize == dims.n_mels
            && size[2] > 0
            && size[2] % 2 == 0
            && size[2] as usize <= max_frames;
        if shape_ok {
            Ok(())
        } else {
            Err(ModelError::MelShape {
                actual: size,
                n_mels: dims.n_mels,
                max_frames,
            })
        }
    }

    /// The encoder up to its last block (before `ln_post`). With `padding`, `mel`'s positions
    /// also attend to the primed padding's keys/values of the positions after them; with
    /// `record`, each block's keys/values are pushed there.
    fn run_encoder(
        &self,
        mel: &Tensor,
        padding: Option<&PrimedPadding>,
        keep_going: &mut dyn FnMut() -> bool,
        mut record: Option<&mut Vec<(Tensor, Tensor)>>,
    ) -> Result<Tensor> {
        let dims = &self.weights.dims;
        let enc = &self.weights.encoder;
        // The convolutions' outputs (activations in place, the same numbers) are dropped before
        // the blocks run: they were alive through all of them (conv1's is twice the blocks'
        // activations).
        let mut x = {
            let mel = mel
                .f_to_device(self.device)
                .and_then(|x| x.f_to_kind(self.kind))
                .stage("move mel to device")?;
            let mut first = conv1d(&mel, &enc.conv1, 1)?;
            first.f_gelu_("none").map(drop).stage("encoder conv1")?;
            let mut second = conv1d(&first, &enc.conv2, 2)?;
            drop(first);
            second.f_gelu_("none").map(drop).stage("encoder conv2")?;
            let second = second.f_permute([0, 2, 1]).stage("encoder permute")?;
            let pos = enc
                .positional_embedding
                .f_narrow(0, 0, second.size()[1])
                .stage("encoder positions")?;
            second.f_add(&pos).stage("encoder positions")?
        };
        let n_ctx = x.size()[1];
        for (i, block) in enc.blocks.iter().enumerate() {
            if !keep_going() {
                return Err(ModelError::Stopped);
            }
            let after = match padding {
                Some(primed) => Some(primed.keys_after(i, n_ctx).stage("encoder padding")?),
                None => None,
            };
            let (next, keys) = encoder_block(
                self.gemm,
                &x,
                block,
                dims.n_audio_head,
                after.as_ref(),
                record.is_some(),
            )?;
            if let (Some(record), Some(keys)) = (record.as_deref_mut(), keys) {
                record.push(keys);
            }
            x = next;
        }
        Ok(x)
    }

    /// Runs each kind of kernel a transcription uses once, cheaply, so that the first real one
    /// does not pay for their set-up (oneDNN chooses and compiles kernels per shape on first
    /// use): the encoder's convolutions and first block over a silent full window (the other
    /// blocks have the same shapes), the cross-attention keys/values, a first decoder call of
    /// `prompt` tokens and `steps` single-token steps, each with its vocabulary projection.
    pub fn warm_up(&self, prompt: usize, steps: usize) -> Result<()> {
        let dims = &self.weights.dims;
        let mel = Tensor::f_zeros(
            [1, dims.n_mels as i64, 2 * dims.n_audio_ctx as i64],
            (Kind::Float, Device::Cpu),
        )
        .stage("warm-up input")?;
        let mut blocks = 0;
        let first_block_only = self.encode_while(&mel, &mut || {
            blocks += 1;
            blocks <= 1
        });
        match first_block_only {
            Ok(_) | Err(ModelError::Stopped) => {}
            Err(e) => return Err(e),
        }
        let features = Tensor::f_zeros(
            [1, dims.n_audio_ctx as i64, dims.n_audio_state as i64],
            (self.kind, self.device),
        )
        .stage("warm-up features")?;
        let mut state = self.start_decoding(&features, 1)?;
        let ids: Vec<i64> = (0..prompt.max(1) as i64).collect();
        let mut tokens = Tensor::from_slice(&ids).view([1, -1]);
        for _ in 0..=steps {
            let hidden = self.decode(&tokens, &mut state)?;
            let last = hidden.size()[1] - 1;
            let _ = self.logits(&hidden.f_narrow(1, last, 1).stage("warm-up")?)?;
            tokens = Tensor::from_slice(&[state.len() as i64]).view([1, 1]);
        }
        Ok(())
    }

    /// The cross-attention keys/values of every decoder layer for `audio_features`
    /// (`[1 or batch, ctx, d]`): a product over all audio positions per layer, computed once per
    /// window and shared by every decoding against it (language detection, the transcription,
    /// its temperature fallbacks).
    pub fn audio_keys(&self, audio_features: &Tensor) -> Result<AudioKeys> {
        let layers = self
            .weights
            .decoder
            .blocks
            .iter()
            .map(|block| self.cross_kv(block, audio_features))
            .map(|kv| self.split_cross_kv(kv?))
            .collect::<Result<Vec<_>>>()?;
        Ok(AudioKeys {
            layers,
            _lent: None,
        })
    }

    /// [`Self::audio_keys`] of [`Self::encode_audio_while`]'s features: the primed padding's
    /// rows of each product are the primer's, computed when it was primed and kept in the
    /// model's window ([`WindowCrossKv`]), so only the audio's positions are multiplied and
    /// written there, and the keys are views of it. While an earlier pass's keys are alive the
    /// window is theirs, and the keys are computed whole.
    pub fn audio_keys_of(&self, features: &AudioFeatures) -> Result<AudioKeys> {
        let (Some(from), Some(primed)) = (features.primed_from, self.primed.get()) else {
            return self.audio_keys(&features.states);
        };
        let window = &primed.cross_kv;
        if window.is_lent() {
            return self.audio_keys(&features.states);
        }
        let audio = features
            .states
            .f_narrow(1, 0, from)
            .stage("cross-attention kv")?;
        let stale = window.stale_padding(from);
        // Until every block's rows are written, a later pass must treat the rows this one may
        // have touched as stale.
        window.audio_written_before(stale.map_or(from, |(start, count)| start + count));
        let layers = self
            .weights
            .decoder
            .blocks
            .iter()
            .zip(&window.layers)
            .map(|(block, rows)| {
                if let Some((start, count)) = stale {
                    let padding = primed
                        .rows_from(&primed.output, 1, start)
                        .and_then(|p| p.f_narrow(1, 0, count))
                        .stage("encoder padding")?;
                    let products = self.cross_kv(block, &padding)?;
                    rows.f_narrow(1, start, count)
                        .and_then(|mut r| r.f_copy_(&products))
                        .stage("cross-attention kv")?;
                }
                let products = self.cross_kv(block, &audio)?;
                rows.f_narrow(1, 0, from)
                    .and_then(|mut r| r.f_copy_(&products))
                    .stage("cross-attention kv")?;
                self.split_cross_kv(rows.shallow_clone())
            })
            .collect::<Result<Vec<_>>>()?;
        window.audio_written_before(from);
        Ok(AudioKeys {
            layers,
            _lent: Some(window.lend()),
        })
    }

    /// The window [`Self::audio_keys_of`] keeps: per decoder block, zeros in the decoder's kind
    /// but for the padding's products (of `output`, the encoder's states from `first` on).
    fn window_cross_kv(&self, output: &Tensor, first: i64) -> Result<WindowCrossKv> {
        let dims = &self.weights.dims;
        let (ctx, width) = (dims.n_audio_ctx as i64, 2 * dims.n_text_state as i64);
        let layers = self
            .weights
            .decoder
            .blocks
            .iter()
            .map(|block| {
                let rows = Tensor::f_zeros([1, ctx, width], (self.decoder_kind, self.device))
                    .stage("cross-attention kv")?;
                let products = self.cross_kv(block, output)?;
                rows.f_narrow(1, first, ctx - first)
                    .and_then(|mut r| r.f_copy_(&products))
                    .stage("priming the padding")?;
                Ok(rows)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(WindowCrossKv::new(layers, first))
    }

    /// One decoder block's cross-attention key/value product `[b, t, 2·d]`, in the model's
    /// kind (see `Whisper`).
    fn cross_kv(&self, block: &DecoderBlock, audio_features: &Tensor) -> Result<Tensor> {
        let audio_features = audio_features
            .f_to_kind(self.kind)
            .stage("cross-attention kv")?;
        linear(
            self.gemm,
            &audio_features,
            &block.cross_attn.kv,
            "cross-attention kv",
        )
    }

    /// The keys and values of a [`Self::cross_kv`] product, by head, in the steps' kind.
    fn split_cross_kv(&self, kv: Tensor) -> Result<(Tensor, Tensor)> {
        let heads = self.weights.dims.n_text_head;
        let kv = kv
            .f_to_kind(self.decoder_kind)
            .stage("cross-attention kv")?;
        let parts = kv.f_chunk(2, -1).stage("cross-attention kv")?;
        Ok((
            split_heads(&parts[0], heads)?,
            split_heads(&parts[1], heads)?,
        ))
    }

    /// Prepares decoding against `audio_features` (`[1 or batch, ctx, d]`) for `rows` parallel
    /// sequences: computes the cross-attention keys/values and an empty self-attention cache.
    pub fn start_decoding(&self, audio_features: &Tensor, rows: usize) -> Result<DecoderState> {
        self.start_decoding_with(&self.audio_keys(audio_features)?, rows)
    }

    /// [`Self::start_decoding`] with the window's keys/values already computed.
    pub fn start_decoding_with(&self, keys: &AudioKeys, rows: usize) -> Result<DecoderState> {
        let dims = &self.weights.dims;
        let heads = dims.n_text_head;
        let cross = keys
            .layers
            .iter()
            .map(|(k, v)| {
                let (mut ks, mut vs) = (k.size(), v.size());
                ks[0] = rows as i64;
                vs[0] = rows as i64;
                Ok((
                    k.f_expand(&ks, false).stage("cross-attention kv")?,
                    v.f_expand(&vs, false).stage("cross-attention kv")?,
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        let head_dim = (dims.n_text_state / heads) as i64;
        let capacity = match self.cache_layout {
            CacheLayout::Growing => 0,
            CacheLayout::Fixed => dims.n_text_ctx as i64,
        };
        // Separate tensors per layer: the fixed layout writes into them in place.
        let slot = || {
            Tensor::f_zeros(
                [rows as i64, heads as i64, capacity, head_dim],
                (self.decoder_kind, self.device),
            )
            .stage("allocate decoder cache")
        };
        let self_kv = (0..dims.n_text_layer)
            .map(|_| Ok((slot()?, slot()?)))
            .collect::<Result<Vec<_>>>()?;
        let causal = match self.cache_layout {
            CacheLayout::Growing => None,
            CacheLayout::Fixed => Some(causal_mask_after(0, capacity, self.device)?),
        };
        Ok(DecoderState {
            cross,
            self_kv,
            len: 0,
            causal,
            kernel: self.masked_attention,
            _lent: keys._lent.clone(),
        })
    }

    /// Feeds `tokens` (`[rows, n]`, token ids) after what `state` has seen; returns the final
    /// hidden states `[rows, n, n_text_state]` (after the last layer norm). Use [`Self::logits`]
    /// on the positions whose next-token distribution is needed.
    pub fn decode(&self, tokens: &Tensor, state: &mut DecoderState) -> Result<Tensor> {
        self.decode_capturing(tokens, state, &[], 0)
            .map(|(hidden, _)| hidden)
    }

    /// [`Self::decode`], also returning the cross-attention weights before their softmax
    /// (`q·kᵀ/√head_dim`, float32) of the `(layer, head)` pairs in `heads` against the window's
    /// first `frames` audio positions, `[rows, heads.len(), n, frames]` in the order of the
    /// layers (the alignment heads' weights, for word times: see `words`). Computed besides the
    /// attention itself, which stays the fused kernel's.
    pub fn decode_attending(
        &self,
        tokens: &Tensor,
        state: &mut DecoderState,
        heads: &[(usize, usize)],
        frames: i64,
    ) -> Result<(Tensor, Tensor)> {
        let (hidden, weights) = self.decode_capturing(tokens, state, heads, frames)?;
        let weights = Tensor::f_cat(&weights, 1).stage("alignment heads")?;
        Ok((hidden, weights))
    }

    fn decode_capturing(
        &self,
        tokens: &Tensor,
        state: &mut DecoderState,
        heads: &[(usize, usize)],
        frames: i64,
    ) -> Result<(Tensor, Vec<Tensor>)> {
        let dims = &self.weights.dims;
        let dec = &self.weights.decoder;
        let n = tokens.size()[1] as usize;
        let offset = state.len;
        if offset + n > dims.n_text_ctx {
            return Err(ModelError::TextContextExceeded {
                requested: offset + n,
                n_text_ctx: dims.n_text_ctx,
            });
        }
        let tokens = tokens.f_to_device(self.device).stage("move tokens")?;
        let x = self
            .embedding
            .lookup(
                &tokens.f_flatten(0, -1).stage("token embedding")?,
                self.decoder_kind,
            )
            .and_then(|rows| rows.f_reshape([tokens.size()[0], n as i64, dims.n_text_state as i64]))
            .stage("token embedding")?;
        let pos = dec
            .positional_embedding
            .f_narrow(0, offset as i64, n as i64)
            .stage("decoder positions")?;
        let mut x = x.f_add(&pos).stage("decoder positions")?;
        let mut weights = Vec::new();
        for (i, block) in dec.blocks.iter().enumerate() {
            let self_attended = self_attention_cached(
                self.decoder_gemm,
                &x,
                &block.attn,
                dims.n_text_head,
                state,
                i,
            )?;
            let of_layer: Vec<i64> = heads
                .iter()
                .filter(|(layer, _)| *layer == i)
                .map(|&(_, head)| head as i64)
                .collect();
            let (attended, layer_weights) = cross_attention(
                self.decoder_gemm,
                &self_attended,
                &block.cross_attn,
                dims.n_text_head,
                &state.cross[i],
                (&of_layer, frames),
            )?;
            weights.extend(layer_weights);
            x = mlp(self.decoder_gemm, &attended, &block.mlp)?;
        }
        state.len += n;
        Ok((layer_norm(&x, &dec.ln, "decoder ln")?, weights))
    }

    /// Next-token logits (float32) for hidden states `[.., n_text_state]`: the tied output
    /// projection against the token embedding.
    pub fn logits(&self, hidden: &Tensor) -> Result<Tensor> {
        hidden
            .f_to_kind(self.kind)
            .and_then(|h| self.embedding.project(&h))
            .and_then(|l| l.f_to_kind(Kind::Float))
            .stage("logits")
    }
}

/// The token embedding `[n_vocab, d]`, also the (tied) output projection.
#[derive(Debug)]
struct TokenEmbedding {
    table: Weight,
    gemm: Gemm,
}

impl TokenEmbedding {
    /// Rows `[ids.len(), d]` for token ids, in `kind`.
    fn lookup(&self, ids: &Tensor, kind: Kind) -> std::result::Result<Tensor, TchError> {
        match &self.table {
            Weight::Float(table) | Weight::Half(table) => {
                table.f_index_select(0, ids)?.f_to_kind(kind)
            }
            Weight::Int8(table) => table.rows(ids, kind),
        }
    }

    /// Logits `[.., n_vocab]` for hidden states `[.., d]`.
    fn project(&self, hidden: &Tensor) -> std::result::Result<Tensor, TchError> {
        self.gemm.product(hidden, &self.table, None)
    }
}

fn self_attention_cached(
    gemm: Gemm,
    x: &Tensor,
    attn: &SelfAttention,
    heads: usize,
    state: &mut DecoderState,
    layer: usize,
) -> Result<Tensor> {
    let h = layer_norm(x, &attn.ln, "decoder attn ln")?;
    let [q, k, v] = qkv_heads(gemm, &h, attn, heads)?;
    if let Some(causal) = &state.causal {
        // Fixed layout: write the new keys/values into their slots; attend over the whole cache
        // with the mask rows of the new positions (later slots are masked out).
        let (offset, n) = (state.len as i64, q.size()[2]);
        let (cache_k, cache_v) = &state.self_kv[layer];
        cache_k
            .f_narrow(2, offset, n)
            .and_then(|mut slot| slot.f_copy_(&k))
            .and_then(|()| cache_v.f_narrow(2, offset, n))
            .and_then(|mut slot| slot.f_copy_(&v))
            .stage("self-attention cache")?;
        let a = kernels::cached_attention(&q, cache_k, cache_v, causal, offset, state.kernel)
            .stage("attention")?;
        let a = linear(gemm, &merge_heads(&a)?, &attn.out, "decoder attn out")?;
        return x.f_add(&a).stage("decoder attn residual");
    }
    let (past_k, past_v) = &state.self_kv[layer];
    let k = Tensor::f_cat(&[past_k, &k], 2).stage("self-attention cache")?;
    let v = Tensor::f_cat(&[past_v, &v], 2).stage("self-attention cache")?;
    let n = q.size()[2];
    let a = if n == 1 || state.len == 0 {
        // A single new token sees everything; a first chunk is a plain causal square.
        attention(&q, &k, &v, n > 1)?
    } else {
        let mask = causal_mask_after(state.len as i64, n, q.device())?;
        Tensor::f_scaled_dot_product_attention(&q, &k, &v, Some(&mask), 0.0, false, None, false)
            .stage("attention")?
    };
    state.self_kv[layer] = (k, v);
    let a = linear(gemm, &merge_heads(&a)?, &attn.out, "decoder attn out")?;
    x.f_add(&a).stage("decoder attn residual")
}

fn causal_mask_after(past: i64, n: i64, device: Device) -> Result<Tensor> {
    kernels::causal_mask_after(past, n, device).stage("mask")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_cpu_stores_int8_step_weights_and_bfloat16_always_does() {
        use super::StepWeights::{Float, Int8};
        assert!(int8_steps_for(Device::Cpu, Kind::BFloat16, Float));
        assert!(int8_steps_for(Device::Cpu, Kind::Float, Int8));
        assert!(
            !int8_steps_for(Device::Cpu, Kind::Float, Float),
            "the reference layout"
        );
        assert!(!int8_steps_for(Device::Cuda(0), Kind::Float, Int8));
        assert!(!int8_steps_for(Device::Mps, Kind::BFloat16, Int8));
    }

    #[test]
    fn only_bfloat16_on_the_cpu_steps_the_decoder_in_float32() {
        assert_eq!(decoder_kind_for(Device::Cpu, Kind::BFloat16), Kind::Float);
        assert_eq!(decoder_kind_for(Device::Cpu, Kind::Float), Kind::Float);
        assert_eq!(
            decoder_kind_for(Device::Cuda(0), Kind::BFloat16),
            Kind::BFloat16
        );
        assert_eq!(decoder_kind_for(Device::Cuda(0), Kind::Half), Kind::Half);
        assert_eq!(decoder_kind_for(Device::Mps, Kind::Float), Kind::Float);
    }
}
