//! The CTranslate2 layout (faster-whisper, `Systran/faster-whisper-*`): a bounds-checked parser
//! for `model.bin` over a memory map, yielding a name → raw tensor table with aliases resolved;
//! the CTranslate2 name of every canonical Whisper tensor (the [`WeightSource`] the loader
//! assembles from); and the generation fields of the directory's `config.json`.
//!
//! `model.bin`, binary versions 4 to 6 (CTranslate2's `specs/model_spec.py` writes it; all
//! integers little-endian; a string is a u16 length counting a trailing NUL, the bytes, the NUL):
//! 1. u32 binary version, string spec name (`WhisperSpec`), u32 spec revision, u32 tensor count;
//! 2. per tensor: string name, u8 rank, rank × u32 dims, u8 dtype id, u32 byte count, the bytes;
//! 3. u32 alias count, then (alias, target) string pairs — Whisper has one,
//!    `decoder/projection/weight -> decoder/embeddings/weight` (the tied output projection).
//!
//! Every length read from the file is checked against what is left of it before it is used,
//! so a corrupt or truncated file is an error naming the file and the tensor, never a panic.

use super::dims::ModelDims;
use super::weight_source::{
    self, byte_size, count_layers, DType, GenerationConfig, JsonFile, Located, Param, Part,
    RawTensor, Recipe, Slot, SourceError, Stack, WeightSource,
};
use memmap2::Mmap;
use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

/// The weights file of a CTranslate2 model directory.
pub const MODEL_FILE: &str = "model.bin";
/// The spec name of a Whisper model.
pub const WHISPER_SPEC: &str = "WhisperSpec";
/// Binary versions whose tensor records carry a dtype id and a byte count (4+) and which are
/// followed by aliases (3+); CTranslate2 4.x writes 6.
const SUPPORTED_VERSIONS: RangeInclusive<u32> = 4..=6;
/// Ranks above this are corruption (Whisper's tensors have rank ≤ 3).
const MAX_RANK: usize = 8;
/// The smallest tensor record: a 1-byte name with its NUL, rank 0, dtype, byte count.
const MIN_TENSOR_RECORD: usize = 2 + 2 + 1 + 1 + 4;
/// The smallest alias record: two 1-byte names with their NULs.
const MIN_ALIAS_RECORD: usize = 2 * (2 + 2);
/// The tied output projection, stored as an alias of the token embedding.
const PROJECTION: &str = "decoder/projection/weight";

/// Why a `model.bin` cannot be parsed; every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum Ct2Error {
    #[error("{}: cannot read: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: truncated: the file ends (at {len} bytes) inside {what}", .path.display())]
    Truncated {
        path: PathBuf,
        len: usize,
        what: String,
    },
    #[error(
        "{}: unsupported CTranslate2 binary version {version} (supported: {} to {})",
        .path.display(), SUPPORTED_VERSIONS.start(), SUPPORTED_VERSIONS.end()
    )]
    UnsupportedVersion { path: PathBuf, version: u32 },
    #[error(
        "{}: the model spec is `{spec}`, not `{WHISPER_SPEC}`: not a Whisper model",
        .path.display()
    )]
    WrongSpec { path: PathBuf, spec: String },
    #[error("{}: malformed string at byte {offset} ({what}): {reason}", .path.display())]
    BadString {
        path: PathBuf,
        offset: usize,
        what: String,
        reason: &'static str,
    },
    #[error("{}: tensor `{tensor}` has unknown dtype id {id}", .path.display())]
    UnknownDtype {
        path: PathBuf,
        tensor: String,
        id: u8,
    },
    #[error(
        "{}: tensor `{tensor}` has rank {rank}, more than {MAX_RANK}: the file is corrupt",
        .path.display()
    )]
    AbsurdRank {
        path: PathBuf,
        tensor: String,
        rank: u8,
    },
    #[error(
        "{}: {what} is {count}, more than the {remaining} bytes left could hold: \
         the file is truncated or corrupt",
        .path.display()
    )]
    AbsurdCount {
        path: PathBuf,
        what: &'static str,
        count: u32,
        remaining: usize,
    },
    #[error(
        "{}: tensor `{tensor}` has shape {shape:?}, whose byte size overflows",
        .path.display()
    )]
    ShapeOverflow {
        path: PathBuf,
        tensor: String,
        shape: Vec<usize>,
    },
    #[error(
        "{}: tensor `{tensor}` declares {actual} bytes, \
         but shape {shape:?} of {dtype:?} needs {expected}",
        .path.display()
    )]
    ByteCount {
        path: PathBuf,
        tensor: String,
        shape: Vec<usize>,
        dtype: DType,
        expected: usize,
        actual: usize,
    },
    #[error("{}: `{tensor}` is defined twice", .path.display())]
    Duplicate { path: PathBuf, tensor: String },
    #[error(
        "{}: alias `{alias}` points to `{target}`, which is not a tensor in the file",
        .path.display()
    )]
    DanglingAlias {
        path: PathBuf,
        alias: String,
        target: String,
    },
    #[error(
        "{}: {count} unexpected bytes after the end of the model (from byte {offset}); \
         is the file concatenated from the wrong parts?",
        .path.display()
    )]
    TrailingBytes {
        path: PathBuf,
        offset: usize,
        count: usize,
    },
}

/// The dtype of a CTranslate2 dtype id (`DataType` in CTranslate2's `types.h`).
pub fn dtype_from_id(id: u8) -> Option<DType> {
    match id {
        0 => Some(DType::F32),
        1 => Some(DType::I8),
        2 => Some(DType::I16),
        3 => Some(DType::I32),
        4 => Some(DType::F16),
        5 => Some(DType::BF16),
        _ => None,
    }
}

/// The header of a `model.bin`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub version: u32,
    pub spec: String,
    pub revision: u32,
}

/// Where one tensor lies in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    shape: Vec<usize>,
    dtype: DType,
    offset: usize,
    len: usize,
}

/// The parsed table of contents of a `model.bin`.
#[derive(Debug)]
struct Index {
    header: Header,
    tensors: HashMap<String, Entry>,
    aliases: HashMap<String, String>,
}

/// A memory-mapped, fully validated `model.bin`.
pub struct Ct2Model {
    path: PathBuf,
    map: Mmap,
    index: Index,
}

impl fmt::Debug for Ct2Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ct2Model")
            .field("path", &self.path)
            .field("header", &self.index.header)
            .field("tensors", &self.index.tensors.len())
            .field("aliases", &self.index.aliases)
            .finish()
    }
}

impl Ct2Model {
    /// Maps and parses `path`, checking every record against the file's size.
    pub fn open(path: &Path) -> Result<Self, Ct2Error> {
        let io = |source| Ct2Error::Io {
            path: path.to_owned(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        // SAFETY: the map is read-only and lives only while the model loads; as with any
        // memory-mapped file, another process truncating it meanwhile is not defended against.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        let index = parse(&map, path)?;
        Ok(Ct2Model {
            path: path.to_owned(),
            map,
            index,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn header(&self) -> &Header {
        &self.index.header
    }

    /// Names of the stored tensors (aliases not included), in no particular order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.index.tensors.keys().map(String::as_str)
    }

    /// The aliases, alias → target.
    pub fn aliases(&self) -> &HashMap<String, String> {
        &self.index.aliases
    }

    /// The tensor called `name`, or the tensor an alias of that name points to.
    pub fn tensor(&self, name: &str) -> Option<RawTensor<'_>> {
        let entry = match self.index.tensors.get(name) {
            Some(entry) => entry,
            None => self.index.tensors.get(self.index.aliases.get(name)?)?,
        };
        let end = entry.offset.checked_add(entry.len)?;
        RawTensor::new(&entry.shape, entry.dtype, self.map.get(entry.offset..end)?)
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing.

/// What is being read, for truncation messages.
#[derive(Debug, Clone, Copy)]
enum What<'a> {
    Version,
    Spec,
    Revision,
    TensorCount,
    Name {
        index: usize,
        after: Option<&'a str>,
    },
    Rank(&'a str),
    Shape(&'a str),
    Dtype(&'a str),
    ByteCount(&'a str),
    Data(&'a str),
    AliasCount,
    Alias(usize),
    AliasTarget(&'a str),
}

impl fmt::Display for What<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            What::Version => write!(f, "the binary version"),
            What::Spec => write!(f, "the spec name"),
            What::Revision => write!(f, "the spec revision"),
            What::TensorCount => write!(f, "the tensor count"),
            What::Name { index, after: None } => write!(f, "the name of tensor #{index}"),
            What::Name {
                index,
                after: Some(previous),
            } => {
                write!(f, "the name of tensor #{index} (after `{previous}`)")
            }
            What::Rank(name) => write!(f, "the rank of tensor `{name}`"),
            What::Shape(name) => write!(f, "the shape of tensor `{name}`"),
            What::Dtype(name) => write!(f, "the dtype of tensor `{name}`"),
            What::ByteCount(name) => write!(f, "the byte count of tensor `{name}`"),
            What::Data(name) => write!(f, "the data of tensor `{name}`"),
            What::AliasCount => write!(f, "the alias count"),
            What::Alias(index) => write!(f, "alias #{index}"),
            What::AliasTarget(alias) => write!(f, "the target of alias `{alias}`"),
        }
    }
}

/// A cursor over the file that never reads past its end.
struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
    path: &'a Path,
}

impl<'a> Parser<'a> {
    fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    fn take(&mut self, n: usize, what: What<'_>) -> Result<&'a [u8], Ct2Error> {
        let slice = self
            .pos
            .checked_add(n)
            .and_then(|end| self.bytes.get(self.pos..end))
            .ok_or_else(|| Ct2Error::Truncated {
                path: self.path.to_owned(),
                len: self.bytes.len(),
                what: what.to_string(),
            })?;
        self.pos += n;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self, what: What<'_>) -> Result<[u8; N], Ct2Error> {
        let slice = self.take(N, what)?;
        let mut array = [0; N];
        array.copy_from_slice(slice);
        Ok(array)
    }

    fn u8(&mut self, what: What<'_>) -> Result<u8, Ct2Error> {
        self.array::<1>(what).map(u8::from_le_bytes)
    }

    fn u16(&mut self, what: What<'_>) -> Result<u16, Ct2Error> {
        self.array(what).map(u16::from_le_bytes)
    }

    fn u32(&mut self, what: What<'_>) -> Result<u32, Ct2Error> {
        self.array(what).map(u32::from_le_bytes)
    }

    /// A u16 length (counting the NUL), the UTF-8 bytes, the NUL.
    fn string(&mut self, what: What<'_>) -> Result<String, Ct2Error> {
        let offset = self.pos;
        let len = self.u16(what)?;
        let bytes = self.take(usize::from(len), what)?;
        let bad = |reason| Ct2Error::BadString {
            path: self.path.to_owned(),
            offset,
            what: what.to_string(),
            reason,
        };
        let Some((0, text)) = bytes.split_last() else {
            return Err(bad("it does not end with a NUL byte"));
        };
        let text = std::str::from_utf8(text).map_err(|_| bad("it is not UTF-8"))?;
        Ok(text.to_owned())
    }

    /// A u32 count of records at least `record` bytes long each.
    fn count(
        &mut self,
        what: What<'_>,
        label: &'static str,
        record: usize,
    ) -> Result<usize, Ct2Error> {
        let count = self.u32(what)?;
        let remaining = self.remaining();
        if count as usize > remaining / record {
            return Err(Ct2Error::AbsurdCount {
                path: self.path.to_owned(),
                what: label,
                count,
                remaining,
            });
        }
        Ok(count as usize)
    }
}

/// Parses a whole `model.bin` held in `bytes` (read from `path`, named in errors).
fn parse(bytes: &[u8], path: &Path) -> Result<Index, Ct2Error> {
    let mut parser = Parser {
        bytes,
        pos: 0,
        path,
    };
    let header = parse_header(&mut parser)?;
    let tensors = parse_tensors(&mut parser)?;
    let aliases = parse_aliases(&mut parser, &tensors)?;
    if parser.remaining() > 0 {
        return Err(Ct2Error::TrailingBytes {
            path: path.to_owned(),
            offset: parser.pos,
            count: parser.remaining(),
        });
    }
    Ok(Index {
        header,
        tensors,
        aliases,
    })
}

fn parse_header(parser: &mut Parser<'_>) -> Result<Header, Ct2Error> {
    let version = parser.u32(What::Version)?;
    if !SUPPORTED_VERSIONS.contains(&version) {
        return Err(Ct2Error::UnsupportedVersion {
            path: parser.path.to_owned(),
            version,
        });
    }
    let spec = parser.string(What::Spec)?;
    if spec != WHISPER_SPEC {
        return Err(Ct2Error::WrongSpec {
            path: parser.path.to_owned(),
            spec,
        });
    }
    let revision = parser.u32(What::Revision)?;
    Ok(Header {
        version,
        spec,
        revision,
    })
}

fn parse_tensors(parser: &mut Parser<'_>) -> Result<HashMap<String, Entry>, Ct2Error> {
    let count = parser.count(What::TensorCount, "the tensor count", MIN_TENSOR_RECORD)?;
    let mut tensors = HashMap::with_capacity(count);
    let mut previous: Option<String> = None;
    for index in 0..count {
        let name = parser.string(What::Name {
            index,
            after: previous.as_deref(),
        })?;
        let entry = parse_tensor(parser, &name)?;
        if tensors.insert(name.clone(), entry).is_some() {
            return Err(Ct2Error::Duplicate {
                path: parser.path.to_owned(),
                tensor: name,
            });
        }
        previous = Some(name);
    }
    Ok(tensors)
}

/// The record of tensor `name` after its name: rank, dims, dtype, byte count, bytes.
fn parse_tensor(parser: &mut Parser<'_>, name: &str) -> Result<Entry, Ct2Error> {
    let rank = parser.u8(What::Rank(name))?;
    if usize::from(rank) > MAX_RANK {
        return Err(Ct2Error::AbsurdRank {
            path: parser.path.to_owned(),
            tensor: name.to_owned(),
            rank,
        });
    }
    let shape = (0..rank)
        .map(|_| parser.u32(What::Shape(name)).map(|d| d as usize))
        .collect::<Result<Vec<_>, _>>()?;
    let id = parser.u8(What::Dtype(name))?;
    let dtype = dtype_from_id(id).ok_or_else(|| Ct2Error::UnknownDtype {
        path: parser.path.to_owned(),
        tensor: name.to_owned(),
        id,
    })?;
    let len = parser.u32(What::ByteCount(name))? as usize;
    let expected = byte_size(&shape, dtype).ok_or_else(|| Ct2Error::ShapeOverflow {
        path: parser.path.to_owned(),
        tensor: name.to_owned(),
        shape: shape.clone(),
    })?;
    if expected != len {
        return Err(Ct2Error::ByteCount {
            path: parser.path.to_owned(),
            tensor: name.to_owned(),
            shape,
            dtype,
            expected,
            actual: len,
        });
    }
    let offset = parser.pos;
    parser.take(len, What::Data(name))?;
    Ok(Entry {
        shape,
        dtype,
        offset,
        len,
    })
}

fn parse_aliases(
    parser: &mut Parser<'_>,
    tensors: &HashMap<String, Entry>,
) -> Result<HashMap<String, String>, Ct2Error> {
    let count = parser.count(What::AliasCount, "the alias count", MIN_ALIAS_RECORD)?;
    let mut aliases = HashMap::with_capacity(count);
    for index in 0..count {
        let alias = parser.string(What::Alias(index))?;
        let target = parser.string(What::AliasTarget(&alias))?;
        if !tensors.contains_key(&target) {
            return Err(Ct2Error::DanglingAlias {
                path: parser.path.to_owned(),
                alias,
                target,
            });
        }
        if tensors.contains_key(&alias) || aliases.contains_key(&alias) {
            return Err(Ct2Error::Duplicate {
                path: parser.path.to_owned(),
                tensor: alias,
            });
        }
        aliases.insert(alias, target);
    }
    Ok(aliases)
}

// ---------------------------------------------------------------------------------------------
// The CTranslate2 names of the canonical tensors.

/// `encoder/…`, `decoder/…`: the CTranslate2 name of `slot`'s `param`. Layer norms store
/// `gamma`/`beta`; q/k/v and the cross-attention k/v are already stacked as the canonical
/// structs want them.
fn tensor_name(slot: Slot, param: Param) -> String {
    let leaf = match (slot.is_norm(), param) {
        (true, Param::Weight) => "gamma",
        (true, Param::Bias) => "beta",
        (false, Param::Weight) => "weight",
        (false, Param::Bias) => "bias",
    };
    match slot {
        Slot::Conv1 => format!("encoder/conv1/{leaf}"),
        Slot::Conv2 => format!("encoder/conv2/{leaf}"),
        Slot::TokenEmbedding => "decoder/embeddings/weight".to_owned(),
        Slot::Positions(stack) => format!("{}/position_encodings/encodings", stack.name()),
        Slot::FinalNorm(stack) => format!("{}/layer_norm/{leaf}", stack.name()),
        Slot::Block(stack, i, part) => {
            format!("{}/layer_{i}/{}/{leaf}", stack.name(), module(part))
        }
    }
}

fn module(part: Part) -> &'static str {
    match part {
        Part::AttnNorm => "self_attention/layer_norm",
        Part::Qkv => "self_attention/linear_0",
        Part::AttnOut => "self_attention/linear_1",
        Part::CrossNorm => "attention/layer_norm",
        Part::CrossQuery => "attention/linear_0",
        Part::CrossKv => "attention/linear_1",
        Part::CrossOut => "attention/linear_2",
        Part::MlpNorm => "ffn/layer_norm",
        Part::Fc1 => "ffn/linear_0",
        Part::Fc2 => "ffn/linear_1",
    }
}

impl WeightSource for Ct2Model {
    fn path(&self) -> &Path {
        &self.path
    }

    /// Quantized weights (int8/int16) come with a `{name}_scale` tensor.
    fn copied_out(&self, located: &Located<'_>) {
        for raw in std::iter::once(located.raw).chain(located.scale) {
            super::mapped::release(&self.map, raw.data());
        }
    }

    fn find(&self, name: &str) -> Result<Option<Located<'_>>, SourceError> {
        let Some(raw) = self.tensor(name) else {
            return Ok(None);
        };
        let scale = self.tensor(&format!("{name}_scale"));
        Ok(Some(Located {
            path: &self.path,
            raw,
            scale,
        }))
    }

    fn recipe(&self, slot: Slot, param: Param) -> Recipe {
        Recipe::single(tensor_name(slot, param))
    }

    fn layer_count(&self, stack: Stack) -> usize {
        count_layers(self.names(), &format!("{}/layer_", stack.name()))
    }

    /// The scalar `encoder/num_heads` / `decoder/num_heads` (int16 in current files).
    fn head_count(&self, stack: Stack) -> Result<usize, SourceError> {
        let name = format!("{}/num_heads", stack.name());
        let Some(raw) = self.tensor(&name) else {
            return Err(SourceError::MissingTensor {
                path: self.path.clone(),
                tensor: name,
            });
        };
        let Some(value) = raw.int_scalar() else {
            return Err(SourceError::BadDtype {
                path: self.path.clone(),
                tensor: name,
                dtype: format!("{:?} of shape {:?}", raw.dtype(), raw.shape()),
                reason: "a head count must be an integer scalar",
            });
        };
        match usize::try_from(value) {
            Ok(heads) if heads > 0 => Ok(heads),
            _ => Err(SourceError::BadDims {
                path: self.path.clone(),
                reason: format!("`{name}` is {value}, not a head count"),
            }),
        }
    }

    /// Only if the projection is a tensor of its own rather than the usual alias.
    fn untied_projection(&self) -> Option<String> {
        self.index
            .tensors
            .contains_key(PROJECTION)
            .then(|| PROJECTION.to_owned())
    }
}

/// The generation fields of `dir/config.json` (`suppress_ids`, `suppress_ids_begin`,
/// `lang_ids`, `alignment_heads`); all defaults if the file is absent.
pub(crate) fn generation_config(
    dir: &Path,
    dims: &ModelDims,
) -> Result<GenerationConfig, SourceError> {
    let path = dir.join("config.json");
    let Some(json) = JsonFile::read_optional(&path)? else {
        tracing::warn!(
            path = %path.display(),
            "no config.json: no token suppression, default alignment heads"
        );
        return Ok(GenerationConfig {
            alignment_heads: weight_source::default_alignment_heads(dims),
            ..GenerationConfig::default()
        });
    };
    Ok(GenerationConfig {
        suppress_ids: json
            .token_ids("suppress_ids", dims.n_vocab)?
            .unwrap_or_default(),
        suppress_ids_begin: json
            .token_ids("suppress_ids_begin", dims.n_vocab)?
            .unwrap_or_default(),
        lang_ids: json.token_ids("lang_ids", dims.n_vocab)?,
        alignment_heads: weight_source::alignment_heads_or_default(
            json.alignment_heads("alignment_heads", dims)?,
            dims,
        ),
    })
}

#[cfg(test)]
pub(crate) mod testing;

#[cfg(test)]
mod tests;
