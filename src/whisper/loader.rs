//! Loading a Whisper model directory into [`WhisperWeights`]: the public entry points
//! ([`detect_layout`], [`load_weights`]), what they can fail with ([`LoadError`]), and the work
//! that is the same for every file layout — inferring [`ModelDims`] from tensor shapes,
//! checking every tensor against them, turning raw little-endian bytes into tch tensors of the
//! requested kind on the requested device, and assembling the canonical structs.
//!
//! The layouts themselves live in [`super::ct2`] (CTranslate2 `model.bin`, as faster-whisper
//! uses) and [`super::hf`] (Hugging Face safetensors). Each implements
//! `super::weight_source::WeightSource`, which only says which stored tensor(s) make up each
//! canonical slot; the checks, conversion and q/k/v fusion are written once here, so both
//! layouts fail the same way and load identically.
//!
//! Loading runs in two passes over the same assembly code: the first only looks tensors up and
//! checks shapes and dtypes (cheap, no allocation), the second converts. A broken file is
//! reported before any memory is spent, and a model is only ever returned complete.

use super::ct2::{self, Ct2Error, Ct2Model};
use super::dims::ModelDims;
use super::hf::{self, HfCheckpoint, HfError};
pub use super::weight_source::{GenerationConfig, SourceError};
use super::weight_source::{Located, Param, Part, Piece, RawTensor, Slot, Stack, WeightSource};
use super::weights::{
    Conv1d, CrossAttention, DecoderBlock, DecoderWeights, EncoderBlock, EncoderWeights, LayerNorm,
    Linear, Mlp, SelfAttention, StepWeights, Storage, Weight, WhisperWeights,
};
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tch::{Device, Kind, TchError, Tensor};

/// Which file layout a model directory uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// CTranslate2 `model.bin` + `config.json` (faster-whisper, `Systran/faster-whisper-*`).
    CTranslate2,
    /// Hugging Face `model.safetensors` (or sharded, with `model.safetensors.index.json`)
    /// + `config.json` / `generation_config.json` (`openai/whisper-*`).
    HuggingFace,
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Layout::CTranslate2 => "CTranslate2",
            Layout::HuggingFace => "Hugging Face",
        })
    }
}

/// Where the weights go and in which precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// Device every tensor is moved to.
    pub device: Device,
    /// Floating-point kind of every tensor. Float by default: float16 files are widened on
    /// load because half-precision matmuls on the CPU are ~150x slower than float32 ones.
    /// Half or BFloat16 only pay off on a GPU.
    pub kind: Kind,
    /// How the decoder's step weights are stored on the CPU (exact float by default; the app
    /// uses int8 rows there, see [`StepWeights`]).
    pub steps: StepWeights,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            device: Device::Cpu,
            kind: Kind::Float,
            steps: StepWeights::Float,
        }
    }
}

/// A complete model: the weights, where they came from, and the generation facts.
#[derive(Debug)]
pub struct LoadedWeights {
    pub layout: Layout,
    pub weights: WhisperWeights,
    pub generation: GenerationConfig,
}

/// Everything that can go wrong loading a model directory; every message names a path.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{}: cannot read: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{}: not a directory", .path.display())]
    NotADirectory { path: PathBuf },
    #[error(
        "{}: no Whisper weights found: expected `model.bin` (CTranslate2 / faster-whisper) or \
         `model.safetensors` / `model.safetensors.index.json` (Hugging Face)",
        .dir.display()
    )]
    NoModel { dir: PathBuf },
    #[error(
        "{}: PyTorch pickle checkpoints are not supported; use the safetensors or the \
         CTranslate2 (faster-whisper) version of the model",
        .path.display()
    )]
    PickleUnsupported { path: PathBuf },
    #[error(
        "{}: cannot load weights as {kind:?}: only Float, Double, Half and BFloat16 are supported",
        .dir.display()
    )]
    UnsupportedKind { dir: PathBuf, kind: Kind },
    #[error(transparent)]
    Ct2(#[from] Ct2Error),
    #[error(transparent)]
    Hf(HfError),
    /// A tensor or setting the files hold is missing or wrong (either layout).
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error(
        "{}: the output projection `{tensor}` differs from the token embedding `{embedding}`; \
         Whisper ties them and so does this loader",
        .path.display()
    )]
    UntiedProjection {
        path: PathBuf,
        tensor: String,
        embedding: String,
    },
    #[error("{}: libtorch failed on tensor `{tensor}`: {source}", .path.display())]
    Torch {
        path: PathBuf,
        tensor: String,
        #[source]
        source: TchError,
    },
}

impl From<HfError> for LoadError {
    /// A missing or wrong tensor or setting is the loader's [`SourceError`] whichever layout
    /// found it.
    fn from(error: HfError) -> Self {
        match error {
            HfError::Source(source) => LoadError::Source(source),
            other => LoadError::Hf(other),
        }
    }
}

/// Tells which layout `dir` holds by the files in it (CTranslate2 wins if both are present).
pub fn detect_layout(dir: &Path) -> Result<Layout, LoadError> {
    let meta = fs::metadata(dir).map_err(|source| LoadError::Io {
        path: dir.to_owned(),
        source,
    })?;
    if !meta.is_dir() {
        return Err(LoadError::NotADirectory {
            path: dir.to_owned(),
        });
    }
    if dir.join(ct2::MODEL_FILE).is_file() {
        return Ok(Layout::CTranslate2);
    }
    if dir.join(hf::MODEL_FILE).is_file() || dir.join(hf::INDEX_FILE).is_file() {
        return Ok(Layout::HuggingFace);
    }
    let pickle = dir.join("pytorch_model.bin");
    if pickle.is_file() {
        return Err(LoadError::PickleUnsupported { path: pickle });
    }
    Err(LoadError::NoModel {
        dir: dir.to_owned(),
    })
}

/// Loads the model in `dir` (either layout) into canonical weights of `opts.kind` on
/// `opts.device`, with dimensions inferred from the tensors and every tensor shape-checked.
pub fn load_weights(dir: &Path, opts: &LoadOptions) -> Result<LoadedWeights, LoadError> {
    if !is_supported_kind(opts.kind) {
        return Err(LoadError::UnsupportedKind {
            dir: dir.to_owned(),
            kind: opts.kind,
        });
    }
    let started = Instant::now();
    let layout = detect_layout(dir)?;
    let (weights, generation) = match layout {
        Layout::CTranslate2 => {
            let model = Ct2Model::open(&dir.join(ct2::MODEL_FILE))?;
            let dims = infer_dims(&model)?;
            let generation = ct2::generation_config(dir, &dims)?;
            (build_weights(&model, dims, opts)?, generation)
        }
        Layout::HuggingFace => {
            let checkpoint = HfCheckpoint::open(dir)?;
            let dims = infer_dims(&checkpoint)?;
            let generation = hf::generation_config(dir, &dims)?;
            (build_weights(&checkpoint, dims, opts)?, generation)
        }
    };
    tracing::info!(
        dir = %dir.display(),
        %layout,
        dims = ?weights.dims,
        elapsed_ms = started.elapsed().as_millis() as u64,
        "loaded Whisper weights"
    );
    Ok(LoadedWeights {
        layout,
        weights,
        generation,
    })
}

fn is_supported_kind(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Float | Kind::Double | Kind::Half | Kind::BFloat16
    )
}

// ---------------------------------------------------------------------------------------------
// Dimensions.

/// Infers every dimension from tensor shapes (and the layout's head counts) and checks that
/// they are usable together.
pub(crate) fn infer_dims<S: WeightSource + ?Sized>(src: &S) -> Result<ModelDims, LoadError> {
    let conv1 = stored_shape(src, Slot::Conv1, "[n_audio_state, n_mels, 3]", 3)?;
    let tokens = stored_shape(src, Slot::TokenEmbedding, "[n_vocab, n_text_state]", 2)?;
    let audio_pos = stored_shape(
        src,
        Slot::Positions(Stack::Encoder),
        "[n_audio_ctx, n_audio_state]",
        2,
    )?;
    let text_pos = stored_shape(
        src,
        Slot::Positions(Stack::Decoder),
        "[n_text_ctx, n_text_state]",
        2,
    )?;
    let dims = ModelDims {
        n_mels: conv1[1],
        n_vocab: tokens[0],
        n_audio_ctx: audio_pos[0],
        n_audio_state: conv1[0],
        n_audio_head: src.head_count(Stack::Encoder)?,
        n_audio_layer: src.layer_count(Stack::Encoder),
        n_text_ctx: text_pos[0],
        n_text_state: tokens[1],
        n_text_head: src.head_count(Stack::Decoder)?,
        n_text_layer: src.layer_count(Stack::Decoder),
    };
    check_dims(src.path(), &dims)?;
    Ok(dims)
}

/// The shape of the (unfused) tensor behind `slot`'s weight, which must have rank `rank`.
fn stored_shape<S: WeightSource + ?Sized>(
    src: &S,
    slot: Slot,
    expected: &str,
    rank: usize,
) -> Result<Vec<usize>, SourceError> {
    let recipe = src.recipe(slot, Param::Weight);
    let name = recipe.primary_name();
    let located = src.find(name)?.ok_or_else(|| missing(src.path(), name))?;
    let shape = located.raw.shape();
    if shape.len() != rank {
        return Err(SourceError::BadShape {
            path: located.path.to_owned(),
            tensor: name.to_owned(),
            expected: expected.to_owned(),
            actual: shape.to_vec(),
        });
    }
    Ok(shape.to_vec())
}

fn check_dims(path: &Path, dims: &ModelDims) -> Result<(), SourceError> {
    let bad = |reason: String| {
        Err(SourceError::BadDims {
            path: path.to_owned(),
            reason,
        })
    };
    let sizes = [
        ("n_mels", dims.n_mels),
        ("n_vocab", dims.n_vocab),
        ("n_audio_ctx", dims.n_audio_ctx),
        ("n_audio_state", dims.n_audio_state),
        ("n_text_ctx", dims.n_text_ctx),
        ("n_text_state", dims.n_text_state),
    ];
    if let Some((name, _)) = sizes.iter().find(|(_, size)| *size == 0) {
        return bad(format!("{name} inferred from the tensor shapes is 0"));
    }
    for (stack, layers) in [
        ("encoder", dims.n_audio_layer),
        ("decoder", dims.n_text_layer),
    ] {
        if layers == 0 {
            return bad(format!("no {stack} blocks found"));
        }
    }
    for (stack, heads, width) in [
        ("encoder", dims.n_audio_head, dims.n_audio_state),
        ("decoder", dims.n_text_head, dims.n_text_state),
    ] {
        if heads == 0 || width % heads != 0 {
            return bad(format!(
                "{heads} {stack} heads do not divide its width {width}"
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Assembly.

/// Checks every tensor of `src` against `dims`, then converts them all per `opts`.
pub(crate) fn build_weights<S: WeightSource + ?Sized>(
    src: &S,
    dims: ModelDims,
    opts: &LoadOptions,
) -> Result<WhisperWeights, LoadError> {
    check_tied_projection(src)?;
    Assembler {
        src,
        opts,
        pass: Pass::Validate,
    }
    .weights(dims)?;
    Assembler {
        src,
        opts,
        pass: Pass::Build,
    }
    .weights(dims)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Look up and check only; tensors are empty placeholders.
    Validate,
    /// Convert for real.
    Build,
}

struct Assembler<'a, S: ?Sized> {
    src: &'a S,
    opts: &'a LoadOptions,
    pass: Pass,
}

impl<S: WeightSource + ?Sized> Assembler<'_, S> {
    fn weights(&self, dims: ModelDims) -> Result<WhisperWeights, LoadError> {
        Ok(WhisperWeights {
            dims,
            encoder: self.encoder(&dims)?,
            decoder: self.decoder(&dims)?,
        })
    }

    fn encoder(&self, dims: &ModelDims) -> Result<EncoderWeights, LoadError> {
        let d = dims.n_audio_state;
        let blocks = (0..dims.n_audio_layer)
            .map(|i| {
                let mut block = self.encoder_block(i, d)?;
                self.store(i, "encoder", |s| block.store(s))?;
                Ok(block)
            })
            .collect::<Result<_, LoadError>>()?;
        Ok(EncoderWeights {
            conv1: self.conv(Slot::Conv1, d, dims.n_mels)?,
            conv2: self.conv(Slot::Conv2, d, d)?,
            positional_embedding: self.table(
                Slot::Positions(Stack::Encoder),
                dims.n_audio_ctx,
                d,
            )?,
            blocks,
            ln_post: self.norm(Slot::FinalNorm(Stack::Encoder), d)?,
        })
    }

    fn decoder(&self, dims: &ModelDims) -> Result<DecoderWeights, LoadError> {
        let (d, d_audio) = (dims.n_text_state, dims.n_audio_state);
        let blocks = (0..dims.n_text_layer)
            .map(|i| {
                let mut block = self.decoder_block(i, d, d_audio)?;
                self.store(i, "decoder", |s| block.store(s))?;
                Ok(block)
            })
            .collect::<Result<_, LoadError>>()?;
        Ok(DecoderWeights {
            token_embedding: self.table(Slot::TokenEmbedding, dims.n_vocab, d)?,
            positional_embedding: self.table(
                Slot::Positions(Stack::Decoder),
                dims.n_text_ctx,
                d,
            )?,
            blocks,
            ln: self.norm(Slot::FinalNorm(Stack::Decoder), d)?,
        })
    }

    /// Stores block `i` of `stack` (just read) as the device's [`Storage`] says, so that the
    /// model never exists whole in float32 while it loads; nothing on the checking pass.
    fn store(
        &self,
        i: usize,
        stack: &str,
        store: impl FnOnce(&Storage) -> Result<(), TchError>,
    ) -> Result<(), LoadError> {
        if self.pass == Pass::Validate {
            return Ok(());
        }
        let opts = self.opts;
        store(&Storage::for_device(opts.device, opts.kind, opts.steps)).map_err(|source| {
            LoadError::Torch {
                path: self.src.path().to_owned(),
                tensor: format!("{stack} block {i}"),
                source,
            }
        })
    }

    fn encoder_block(&self, i: usize, d: usize) -> Result<EncoderBlock, LoadError> {
        let at = |part| Slot::Block(Stack::Encoder, i, part);
        Ok(EncoderBlock {
            attn: self.self_attention(&at, d)?,
            mlp: self.mlp(&at, d)?,
        })
    }

    fn decoder_block(&self, i: usize, d: usize, d_audio: usize) -> Result<DecoderBlock, LoadError> {
        let at = |part| Slot::Block(Stack::Decoder, i, part);
        Ok(DecoderBlock {
            attn: self.self_attention(&at, d)?,
            cross_attn: CrossAttention {
                ln: self.norm(at(Part::CrossNorm), d)?,
                query: self.linear(at(Part::CrossQuery), d, d)?,
                kv: self.linear(at(Part::CrossKv), 2 * d, d_audio)?,
                out: self.linear(at(Part::CrossOut), d, d)?,
            },
            mlp: self.mlp(&at, d)?,
        })
    }

    fn self_attention(
        &self,
        at: &dyn Fn(Part) -> Slot,
        d: usize,
    ) -> Result<SelfAttention, LoadError> {
        Ok(SelfAttention {
            ln: self.norm(at(Part::AttnNorm), d)?,
            qkv: self.linear(at(Part::Qkv), 3 * d, d)?,
            out: self.linear(at(Part::AttnOut), d, d)?,
        })
    }

    /// Whisper's MLP is always `d → 4d → d` (OpenAI: `n_mlp = n_state * 4`).
    fn mlp(&self, at: &dyn Fn(Part) -> Slot, d: usize) -> Result<Mlp, LoadError> {
        Ok(Mlp {
            ln: self.norm(at(Part::MlpNorm), d)?,
            fc1: self.linear(at(Part::Fc1), 4 * d, d)?,
            fc2: self.linear(at(Part::Fc2), d, 4 * d)?,
        })
    }

    fn linear(&self, slot: Slot, out: usize, inp: usize) -> Result<Linear, LoadError> {
        Ok(Linear {
            weight: Weight::Float(self.tensor(slot, Param::Weight, &[out, inp])?),
            bias: Some(self.tensor(slot, Param::Bias, &[out])?),
        })
    }

    fn norm(&self, slot: Slot, d: usize) -> Result<LayerNorm, LoadError> {
        debug_assert!(slot.is_norm());
        Ok(LayerNorm {
            weight: self.tensor(slot, Param::Weight, &[d])?,
            bias: self.tensor(slot, Param::Bias, &[d])?,
        })
    }

    /// Conv weights stay `[out, in, kernel]`, kernel 3 in both Whisper convolutions.
    fn conv(&self, slot: Slot, out: usize, inp: usize) -> Result<Conv1d, LoadError> {
        Ok(Conv1d {
            weight: self.tensor(slot, Param::Weight, &[out, inp, 3])?,
            bias: self.tensor(slot, Param::Bias, &[out])?,
        })
    }

    fn table(&self, slot: Slot, rows: usize, width: usize) -> Result<Tensor, LoadError> {
        self.tensor(slot, Param::Weight, &[rows, width])
    }

    /// The canonical tensor of shape `shape`: its pieces (each `shape` with the first axis
    /// divided among them) checked, converted, stacked and moved to the device.
    fn tensor(&self, slot: Slot, param: Param, shape: &[usize]) -> Result<Tensor, LoadError> {
        let recipe = self.src.recipe(slot, param);
        let piece_shape = split_first_axis(shape, recipe.0.len());
        let mut parts = recipe
            .0
            .iter()
            .map(|piece| self.piece(piece, &piece_shape))
            .collect::<Result<Vec<_>, _>>()?;
        if self.pass == Pass::Validate {
            return Ok(Tensor::new());
        }
        let torch = |source| LoadError::Torch {
            path: self.src.path().to_owned(),
            tensor: recipe.primary_name().to_owned(),
            source,
        };
        let stacked = match parts.len() {
            1 => parts
                .pop()
                .ok_or_else(|| missing(self.src.path(), recipe.primary_name()))?,
            _ => Tensor::f_cat(&parts, 0).map_err(torch)?,
        };
        stacked.f_to_device(self.opts.device).map_err(torch)
    }

    fn piece(&self, piece: &Piece, shape: &[usize]) -> Result<Tensor, LoadError> {
        let name = piece.name();
        let Some(located) = self.src.find(name)? else {
            return match piece {
                Piece::Tensor(_) => Err(missing(self.src.path(), name).into()),
                Piece::ZerosIfAbsent(_) => self.zeros(shape, name),
            };
        };
        check_shape(&located, name, shape)?;
        check_dtype(&located, name)?;
        match self.pass {
            Pass::Validate => Ok(Tensor::new()),
            Pass::Build => {
                let tensor = convert(&located, name, self.opts.kind);
                self.src.copied_out(&located);
                tensor
            }
        }
    }

    fn zeros(&self, shape: &[usize], name: &str) -> Result<Tensor, LoadError> {
        if self.pass == Pass::Validate {
            return Ok(Tensor::new());
        }
        Tensor::f_zeros(dims_i64(shape), (self.opts.kind, Device::Cpu)).map_err(|source| {
            LoadError::Torch {
                path: self.src.path().to_owned(),
                tensor: name.to_owned(),
                source,
            }
        })
    }
}

fn split_first_axis(shape: &[usize], pieces: usize) -> Vec<usize> {
    let mut piece = shape.to_vec();
    if let Some(rows) = piece.first_mut() {
        *rows /= pieces.max(1);
    }
    piece
}

fn missing(path: &Path, tensor: &str) -> SourceError {
    SourceError::MissingTensor {
        path: path.to_owned(),
        tensor: tensor.to_owned(),
    }
}

fn format_shape(shape: &[usize]) -> String {
    format!("{shape:?}")
}

fn check_shape(located: &Located<'_>, name: &str, expected: &[usize]) -> Result<(), SourceError> {
    if located.raw.shape() == expected {
        return Ok(());
    }
    Err(SourceError::BadShape {
        path: located.path.to_owned(),
        tensor: name.to_owned(),
        expected: format_shape(expected),
        actual: located.raw.shape().to_vec(),
    })
}

/// Floats load as they are; integers only as quantized weights with a usable scale.
fn check_dtype(located: &Located<'_>, name: &str) -> Result<(), SourceError> {
    let raw = &located.raw;
    if raw.dtype().is_float() {
        return Ok(());
    }
    let bad = |reason| {
        Err(SourceError::BadDtype {
            path: located.path.to_owned(),
            tensor: name.to_owned(),
            dtype: format!("{:?}", raw.dtype()),
            reason,
        })
    };
    let Some(scale) = located.scale else {
        return bad("integer weights need a `_scale` tensor to be dequantized");
    };
    if !scale.dtype().is_float() {
        return bad("its `_scale` tensor is not floating-point");
    }
    let rows = raw.shape().first().copied().unwrap_or(1);
    if scale.numel() != 1 && scale.numel() != rows {
        return bad("its `_scale` tensor has neither one value nor one per row");
    }
    Ok(())
}

/// Bytes → a CPU tensor of `kind` (one copy for same-kind sources, plus the cast otherwise).
fn convert(located: &Located<'_>, name: &str, kind: Kind) -> Result<Tensor, LoadError> {
    let torch = |source| LoadError::Torch {
        path: located.path.to_owned(),
        tensor: name.to_owned(),
        source,
    };
    let stored = tensor_from_raw(&located.raw).map_err(torch)?;
    let value = match located.scale {
        Some(scale) if !located.raw.dtype().is_float() => {
            dequantize(&stored, &scale).map_err(torch)?
        }
        _ => stored,
    };
    if value.kind() == kind {
        return Ok(value);
    }
    value.f_to_kind(kind).map_err(torch)
}

fn tensor_from_raw(raw: &RawTensor<'_>) -> Result<Tensor, TchError> {
    // `RawTensor::new` guaranteed `data` holds exactly the bytes libtorch will copy.
    Tensor::f_from_data_size(raw.data(), &dims_i64(raw.shape()), raw.dtype().kind())
}

/// CTranslate2 quantization: `q = round(w · scale)` with one scale per output row (int8) or
/// one overall (int16), so `w = q / scale`.
fn dequantize(q: &Tensor, scale: &RawTensor<'_>) -> Result<Tensor, TchError> {
    let scale = tensor_from_raw(scale)?.f_to_kind(Kind::Float)?;
    let rank = q.dim();
    let broadcast: Vec<i64> = if scale.numel() == 1 {
        vec![1; rank.max(1)]
    } else {
        std::iter::once(-1)
            .chain(std::iter::repeat_n(1, rank.saturating_sub(1)))
            .collect()
    };
    q.f_to_kind(Kind::Float)?
        .f_div(&scale.f_reshape(broadcast)?)
}

fn dims_i64(shape: &[usize]) -> Vec<i64> {
    // Shapes come from files whose byte counts fit in memory, so each dimension fits in i64.
    shape
        .iter()
        .map(|&d| i64::try_from(d).unwrap_or(i64::MAX))
        .collect()
}

/// A separately stored output projection must be byte-identical to the token embedding,
/// since [`DecoderWeights::token_embedding`] serves as both.
fn check_tied_projection<S: WeightSource + ?Sized>(src: &S) -> Result<(), LoadError> {
    let Some(projection) = src.untied_projection() else {
        return Ok(());
    };
    let recipe = src.recipe(Slot::TokenEmbedding, Param::Weight);
    let embedding = recipe.primary_name();
    let (Some(p), Some(e)) = (src.find(&projection)?, src.find(embedding)?) else {
        return Ok(()); // a missing embedding is reported by the shape checks
    };
    let same = p.raw.shape() == e.raw.shape()
        && p.raw.dtype() == e.raw.dtype()
        && p.raw.data() == e.raw.data();
    if same {
        return Ok(());
    }
    Err(LoadError::UntiedProjection {
        path: p.path.to_owned(),
        tensor: projection,
        embedding: embedding.to_owned(),
    })
}

#[cfg(test)]
pub(crate) mod fixtures;
#[cfg(test)]
mod tests;
