//! What a stored model gives the loader, whatever its file layout: the `WeightSource` trait a
//! layout implements (which stored tensors make up each canonical `Slot`, lookups by name),
//! the tensors as the files store them ([`RawTensor`], [`DType`]), the `config.json` fields
//! behind [`GenerationConfig`], and [`SourceError`], what the files can get wrong.
//!
//! The layouts ([`super::ct2`], [`super::hf`]) take their vocabulary from here, and
//! [`super::loader`] takes the layouts: the checks, conversion and assembly written once there
//! work on any `WeightSource`.

use std::io;
use std::path::{Path, PathBuf};
use tch::Kind;

/// A stored tensor or a `config.json` field that is missing or cannot be used; every message
/// names the file. The layouts report these; the loader wraps them in its `LoadError`.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("{}: cannot read: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{}: tensor `{tensor}` is missing", .path.display())]
    MissingTensor { path: PathBuf, tensor: String },
    #[error("{}: tensor `{tensor}` has shape {actual:?}, expected {expected}", .path.display())]
    BadShape {
        path: PathBuf,
        tensor: String,
        expected: String,
        actual: Vec<usize>,
    },
    #[error("{}: tensor `{tensor}` is {dtype}, which cannot be loaded: {reason}", .path.display())]
    BadDtype {
        path: PathBuf,
        tensor: String,
        dtype: String,
        reason: &'static str,
    },
    #[error("{}: {reason}", .path.display())]
    BadDims { path: PathBuf, reason: String },
    #[error("{}: invalid JSON: {source}", .path.display())]
    Json {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{}: field `{field}` {reason}", .path.display())]
    Config {
        path: PathBuf,
        field: String,
        reason: String,
    },
    #[error("{}: missing, but needed for {needed_for}", .path.display())]
    MissingConfig {
        path: PathBuf,
        needed_for: &'static str,
    },
}

/// Decoding facts a model directory ships next to its weights.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GenerationConfig {
    /// Tokens never sampled (CTranslate2 `suppress_ids`, HF `suppress_tokens`); empty if unlisted.
    pub suppress_ids: Vec<u32>,
    /// Tokens suppressed at the first sampled position only (CTranslate2 `suppress_ids_begin`,
    /// HF `begin_suppress_tokens`: blank and end-of-text); empty if unlisted.
    pub suppress_ids_begin: Vec<u32>,
    /// Token ids of the language tokens, in the model's language order (CTranslate2
    /// `lang_ids`; HF `lang_to_id` sorted by id); `None` if the directory does not list them.
    /// English-only directories may list them too: use `ModelDims::is_multilingual` to decide.
    pub lang_ids: Option<Vec<u32>>,
    /// (decoder layer, head) pairs whose cross-attention follows the audio in time. When the
    /// directory lists none, OpenAI's default: every head of the last half of the decoder.
    pub alignment_heads: Vec<(usize, usize)>,
}

/// Element types found in weight files. Data is always little-endian.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DType {
    F32,
    F16,
    BF16,
    F64,
    I8,
    I16,
    I32,
}

impl DType {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::I8 => 1,
            DType::F16 | DType::BF16 | DType::I16 => 2,
            DType::F32 | DType::I32 => 4,
            DType::F64 => 8,
        }
    }

    /// Whether values are stored as-is (not as quantized integers).
    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F16 | DType::BF16 | DType::F64)
    }

    pub(crate) fn kind(self) -> Kind {
        match self {
            DType::F32 => Kind::Float,
            DType::F16 => Kind::Half,
            DType::BF16 => Kind::BFloat16,
            DType::F64 => Kind::Double,
            DType::I8 => Kind::Int8,
            DType::I16 => Kind::Int16,
            DType::I32 => Kind::Int,
        }
    }
}

/// `shape`'s element count times the element size, `None` on overflow.
pub(crate) fn byte_size(shape: &[usize], dtype: DType) -> Option<usize> {
    shape
        .iter()
        .try_fold(dtype.size(), |acc, &d| acc.checked_mul(d))
}

/// A tensor as a file stores it: shape, element type and little-endian bytes, borrowed from a
/// memory map. The byte count always matches the shape (checked on construction), which is
/// what makes handing the bytes to libtorch sound.
#[derive(Debug, Clone, Copy)]
pub struct RawTensor<'a> {
    shape: &'a [usize],
    dtype: DType,
    data: &'a [u8],
}

impl<'a> RawTensor<'a> {
    /// `None` if `data` is not exactly `shape` × `dtype.size()` bytes.
    pub fn new(shape: &'a [usize], dtype: DType, data: &'a [u8]) -> Option<Self> {
        (byte_size(shape, dtype)? == data.len()).then_some(RawTensor { shape, dtype, data })
    }

    pub fn shape(&self) -> &'a [usize] {
        self.shape
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }

    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    pub(crate) fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// The value of a one-element integer tensor (a CTranslate2 scalar such as `num_heads`).
    pub fn int_scalar(&self) -> Option<i64> {
        if self.numel() != 1 {
            return None;
        }
        match self.dtype {
            DType::I8 => Some(i64::from(i8::from_le_bytes(self.data.try_into().ok()?))),
            DType::I16 => Some(i64::from(i16::from_le_bytes(self.data.try_into().ok()?))),
            DType::I32 => Some(i64::from(i32::from_le_bytes(self.data.try_into().ok()?))),
            _ => None,
        }
    }
}

/// A stored tensor found by name: the file it is in, its bytes, and for quantized integer
/// weights the per-row (or single) scale that undoes the quantization (`value = q / scale`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Located<'a> {
    pub path: &'a Path,
    pub raw: RawTensor<'a>,
    pub scale: Option<RawTensor<'a>>,
}

/// Encoder or decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stack {
    Encoder,
    Decoder,
}

impl Stack {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Stack::Encoder => "encoder",
            Stack::Decoder => "decoder",
        }
    }
}

/// The parameter-holding modules of one residual block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    AttnNorm,
    /// q, k, v fused: `[3·d, d]`.
    Qkv,
    AttnOut,
    CrossNorm,
    CrossQuery,
    /// k, v of the cross-attention fused: `[2·d_text, d_audio]`.
    CrossKv,
    CrossOut,
    MlpNorm,
    Fc1,
    Fc2,
}

impl Part {
    pub(crate) fn is_norm(self) -> bool {
        matches!(self, Part::AttnNorm | Part::CrossNorm | Part::MlpNorm)
    }
}

/// A canonical parameter-holding module of [`WhisperWeights`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    Conv1,
    Conv2,
    TokenEmbedding,
    Positions(Stack),
    FinalNorm(Stack),
    Block(Stack, usize, Part),
}

impl Slot {
    pub(crate) fn is_norm(self) -> bool {
        match self {
            Slot::FinalNorm(_) => true,
            Slot::Block(_, _, part) => part.is_norm(),
            _ => false,
        }
    }
}

/// Weight or bias (gamma or beta of a norm; the table itself for embeddings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Param {
    Weight,
    Bias,
}

/// One stored piece of a canonical tensor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    Tensor(String),
    /// A bias the layout may leave out (OpenAI's key projection); zeros when absent.
    ZerosIfAbsent(String),
}

impl Piece {
    pub(crate) fn name(&self) -> &str {
        match self {
            Piece::Tensor(name) | Piece::ZerosIfAbsent(name) => name,
        }
    }
}

/// The stored pieces of a canonical tensor, stacked along the first axis in this order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Recipe(pub Vec<Piece>);

impl Recipe {
    pub(crate) fn single(name: String) -> Self {
        Recipe(vec![Piece::Tensor(name)])
    }

    pub(crate) fn primary_name(&self) -> &str {
        self.0.first().map_or("", Piece::name)
    }
}

/// A file layout as the loader sees it: names for canonical slots, and lookups by name.
pub(crate) trait WeightSource {
    /// The file that errors about the model as a whole name.
    fn path(&self) -> &Path;
    /// The stored tensor called `name`; `Err` if it exists but cannot be represented.
    fn find(&self, name: &str) -> Result<Option<Located<'_>>, SourceError>;
    /// `located` (found here) was copied out: the pages of the file under it need not stay
    /// resident while the rest loads ([`super::mapped::release`]).
    fn copied_out(&self, located: &Located<'_>);
    /// Which stored tensor(s) make up `slot`'s `param`.
    fn recipe(&self, slot: Slot, param: Param) -> Recipe;
    /// Blocks in the encoder or decoder (highest stored index + 1; 0 if none).
    fn layer_count(&self, stack: Stack) -> usize;
    /// Attention heads of the encoder or decoder, as the layout records them.
    fn head_count(&self, stack: Stack) -> Result<usize, SourceError>;
    /// A separately stored output projection, which must equal the token embedding.
    fn untied_projection(&self) -> Option<String>;
}

/// Highest `N` + 1 over names `{prefix}N{sep}…`; 0 if none match.
pub(crate) fn count_layers<'a>(names: impl Iterator<Item = &'a str>, prefix: &str) -> usize {
    names
        .filter_map(|name| name.strip_prefix(prefix))
        .filter_map(|rest| {
            let digits = rest.split(|c: char| !c.is_ascii_digit()).next()?;
            digits.parse::<usize>().ok()
        })
        .map(|n| n.saturating_add(1))
        .max()
        .unwrap_or(0)
}

mod config_json;
pub(crate) use config_json::{
    alignment_heads_or_default, default_alignment_heads, first_defined, JsonFile,
};
