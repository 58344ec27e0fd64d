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
use super::loader::{
    self, byte_size, count_layers, DType, GenerationConfig, JsonFile, LoadError, Located, Param,
    Part, RawTensor, Recipe, Slot, Stack, WeightSource,
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

    fn find(&self, name: &str) -> Result<Option<Located<'_>>, LoadError> {
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
    fn head_count(&self, stack: Stack) -> Result<usize, LoadError> {
        let name = format!("{}/num_heads", stack.name());
        let Some(raw) = self.tensor(&name) else {
            return Err(LoadError::MissingTensor {
                path: self.path.clone(),
                tensor: name,
            });
        };
        let Some(value) = raw.int_scalar() else {
            return Err(LoadError::BadDtype {
                path: self.path.clone(),
                tensor: name,
                dtype: format!("{:?} of shape {:?}", raw.dtype(), raw.shape()),
                reason: "a head count must be an integer scalar",
            });
        };
        match usize::try_from(value) {
            Ok(heads) if heads > 0 => Ok(heads),
            _ => Err(LoadError::BadDims {
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
) -> Result<GenerationConfig, LoadError> {
    let path = dir.join("config.json");
    let Some(json) = JsonFile::read_optional(&path)? else {
        tracing::warn!(
            path = %path.display(),
            "no config.json: no token suppression, default alignment heads"
        );
        return Ok(GenerationConfig {
            alignment_heads: loader::default_alignment_heads(dims),
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
        alignment_heads: loader::alignment_heads_or_default(
            json.alignment_heads("alignment_heads", dims)?,
            dims,
        ),
    })
}

#[cfg(test)]
pub(crate) mod testing {
    //! A `model.bin` writer for tests, mirroring CTranslate2's `_serialize`.

    use super::*;
    use crate::whisper::loader::fixtures::{encode, OpenAi, Tiny, Values};

    /// One tensor record, with its dtype id as written (so tests can write bad ids).
    #[derive(Debug, Clone)]
    pub(crate) struct Var {
        pub name: String,
        pub shape: Vec<usize>,
        pub dtype: u8,
        pub bytes: Vec<u8>,
    }

    pub(crate) fn dtype_id(dtype: DType) -> u8 {
        (0..=5)
            .find(|&id| dtype_from_id(id) == Some(dtype))
            .expect("a CTranslate2 dtype")
    }

    impl Var {
        pub(crate) fn new(name: &str, values: &Values, dtype: DType) -> Self {
            Var {
                name: name.to_owned(),
                shape: values.shape.clone(),
                dtype: dtype_id(dtype),
                bytes: encode(&values.data, dtype),
            }
        }

        pub(crate) fn scalar(name: &str, value: f32, dtype: DType) -> Self {
            Var::new(
                name,
                &Values {
                    shape: vec![],
                    data: vec![value],
                },
                dtype,
            )
        }
    }

    fn put_string(out: &mut Vec<u8>, s: &str) {
        out.extend(((s.len() + 1) as u16).to_le_bytes());
        out.extend(s.as_bytes());
        out.push(0);
    }

    /// The bytes of a `model.bin` holding `vars` and `aliases` (byte counts taken as given).
    pub(crate) fn serialize(
        version: u32,
        spec: &str,
        vars: &[Var],
        aliases: &[(&str, &str)],
    ) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend(version.to_le_bytes());
        put_string(&mut out, spec);
        out.extend(3u32.to_le_bytes());
        out.extend((vars.len() as u32).to_le_bytes());
        for var in vars {
            put_string(&mut out, &var.name);
            out.push(var.shape.len() as u8);
            for &d in &var.shape {
                out.extend((d as u32).to_le_bytes());
            }
            out.push(var.dtype);
            out.extend((var.bytes.len() as u32).to_le_bytes());
            out.extend(&var.bytes);
        }
        out.extend((aliases.len() as u32).to_le_bytes());
        for (alias, target) in aliases {
            put_string(&mut out, alias);
            put_string(&mut out, target);
        }
        out
    }

    /// The tensors and scalars of a CTranslate2 Whisper model for `t`, renamed and stacked
    /// from the OpenAI-named fixture; each tensor stored as `dtype_of(name)`.
    pub(crate) fn whisper_vars(t: &Tiny, dtype_of: &dyn Fn(&str) -> DType) -> Vec<Var> {
        let o = OpenAi::new(t);
        let mut vars = Vec::new();
        let mut put = |name: String, v: Values| {
            let dtype = dtype_of(&name);
            vars.push(Var::new(&name, &v, dtype));
        };
        let get = |name: &str| o.get(name).clone();
        for leaf in ["weight", "bias"] {
            put(
                format!("encoder/conv1/{leaf}"),
                get(&format!("encoder.conv1.{leaf}")),
            );
            put(
                format!("encoder/conv2/{leaf}"),
                get(&format!("encoder.conv2.{leaf}")),
            );
        }
        put(
            "encoder/position_encodings/encodings".into(),
            get("encoder.positional_embedding"),
        );
        put(
            "decoder/position_encodings/encodings".into(),
            get("decoder.positional_embedding"),
        );
        put(
            "decoder/embeddings/weight".into(),
            get("decoder.token_embedding.weight"),
        );
        for (stack, openai, layers) in [
            ("encoder", "encoder.ln_post", t.enc_layers),
            ("decoder", "decoder.ln", t.dec_layers),
        ] {
            put(
                format!("{stack}/layer_norm/gamma"),
                get(&format!("{openai}.weight")),
            );
            put(
                format!("{stack}/layer_norm/beta"),
                get(&format!("{openai}.bias")),
            );
            for i in 0..layers {
                let (to, from) = (format!("{stack}/layer_{i}"), format!("{stack}.blocks.{i}"));
                let norm = |put: &mut dyn FnMut(String, Values), to: &str, from: &str| {
                    put(format!("{to}/gamma"), get(&format!("{from}.weight")));
                    put(format!("{to}/beta"), get(&format!("{from}.bias")));
                };
                let linear = |put: &mut dyn FnMut(String, Values), to: &str, from: &str| {
                    put(format!("{to}/weight"), get(&format!("{from}.weight")));
                    put(format!("{to}/bias"), get(&format!("{from}.bias")));
                };
                let stacked =
                    |put: &mut dyn FnMut(String, Values), to: &str, from: &str, p: &[&str]| {
                        put(format!("{to}/weight"), o.stack_of(from, p, "weight"));
                        put(format!("{to}/bias"), o.stack_of(from, p, "bias"));
                    };
                let attn = format!("{from}.attn");
                norm(
                    &mut put,
                    &format!("{to}/self_attention/layer_norm"),
                    &format!("{from}.attn_ln"),
                );
                stacked(
                    &mut put,
                    &format!("{to}/self_attention/linear_0"),
                    &attn,
                    &["query", "key", "value"],
                );
                linear(
                    &mut put,
                    &format!("{to}/self_attention/linear_1"),
                    &format!("{attn}.out"),
                );
                if stack == "decoder" {
                    let cross = format!("{from}.cross_attn");
                    norm(
                        &mut put,
                        &format!("{to}/attention/layer_norm"),
                        &format!("{from}.cross_attn_ln"),
                    );
                    linear(
                        &mut put,
                        &format!("{to}/attention/linear_0"),
                        &format!("{cross}.query"),
                    );
                    stacked(
                        &mut put,
                        &format!("{to}/attention/linear_1"),
                        &cross,
                        &["key", "value"],
                    );
                    linear(
                        &mut put,
                        &format!("{to}/attention/linear_2"),
                        &format!("{cross}.out"),
                    );
                }
                norm(
                    &mut put,
                    &format!("{to}/ffn/layer_norm"),
                    &format!("{from}.mlp_ln"),
                );
                linear(
                    &mut put,
                    &format!("{to}/ffn/linear_0"),
                    &format!("{from}.mlp.0"),
                );
                linear(
                    &mut put,
                    &format!("{to}/ffn/linear_1"),
                    &format!("{from}.mlp.2"),
                );
            }
        }
        let heads = t.heads as f32;
        vars.push(Var::scalar("encoder/num_heads", heads, DType::I16));
        vars.push(Var::scalar("decoder/num_heads", heads, DType::I16));
        vars.push(Var::scalar("decoder/activation", 3.0, DType::I8));
        vars.push(Var::scalar("decoder/pre_norm", 1.0, DType::I8));
        vars.sort_by(|a, b| a.name.cmp(&b.name));
        vars
    }

    pub(crate) const TIED: (&str, &str) = (PROJECTION, "decoder/embeddings/weight");

    pub(crate) fn whisper_bytes(vars: &[Var]) -> Vec<u8> {
        serialize(6, WHISPER_SPEC, vars, &[TIED])
    }

    /// A `config.json` like the real ones, valid for `t`.
    pub(crate) fn config_json(t: &Tiny) -> String {
        let last = t.dec_layers - 1;
        format!(
            r#"{{"alignment_heads": [[{last}, 0], [{last}, 1]], "lang_ids": [12, 10, 11],
                "suppress_ids": [1, 2], "suppress_ids_begin": [3, 4]}}"#
        )
    }

    /// Writes `model.bin` (of `whisper_vars`) and `config.json` into `dir`.
    pub(crate) fn write_model_dir(dir: &Path, t: &Tiny, dtype_of: &dyn Fn(&str) -> DType) {
        write_model_dir_with(dir, t, &whisper_vars(t, dtype_of));
    }

    pub(crate) fn write_model_dir_with(dir: &Path, t: &Tiny, vars: &[Var]) {
        std::fs::write(dir.join(MODEL_FILE), whisper_bytes(vars)).unwrap();
        std::fs::write(dir.join("config.json"), config_json(t)).unwrap();
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;
    use crate::whisper::loader::fixtures::{
        assert_weights_match, encode, to_values, OpenAi, Tiny, Values,
    };
    use crate::whisper::loader::{load_weights, LoadOptions};
    use tch::Kind;
    use tempfile::TempDir;

    const PATH: &str = "/models/tiny/model.bin";

    fn parse_bytes(bytes: &[u8]) -> Result<Index, Ct2Error> {
        parse(bytes, Path::new(PATH))
    }

    /// f16 for weights, bf16 for biases, f32 for the rest: every conversion path at once.
    fn mixed(name: &str) -> DType {
        if name.ends_with("/weight") {
            DType::F16
        } else if name.ends_with("/bias") {
            DType::BF16
        } else {
            DType::F32
        }
    }

    fn tiny_vars() -> Vec<Var> {
        whisper_vars(&Tiny::SMALL, &mixed)
    }

    fn assert_names(err: &impl std::fmt::Display, needles: &[&str]) {
        let message = err.to_string();
        for needle in needles {
            assert!(
                message.contains(needle),
                "`{message}` does not mention `{needle}`"
            );
        }
    }

    fn load_dir_with(
        vars: &[Var],
    ) -> (
        TempDir,
        Result<crate::whisper::loader::LoadedWeights, LoadError>,
    ) {
        let dir = TempDir::new().unwrap();
        write_model_dir_with(dir.path(), &Tiny::SMALL, vars);
        let result = load_weights(dir.path(), &LoadOptions::default());
        (dir, result)
    }

    fn replace(vars: &mut [Var], name: &str, var: Var) {
        let slot = vars
            .iter_mut()
            .find(|v| v.name == name)
            .expect("fixture tensor");
        *slot = var;
    }

    #[test]
    fn parses_a_model_and_resolves_the_tied_projection_alias() {
        let dir = TempDir::new().unwrap();
        let path = dir.path().join(MODEL_FILE);
        std::fs::write(&path, whisper_bytes(&tiny_vars())).unwrap();
        let model = Ct2Model::open(&path).unwrap();
        assert_eq!(
            model.header(),
            &Header {
                version: 6,
                spec: WHISPER_SPEC.into(),
                revision: 3
            }
        );
        assert_eq!(model.names().count(), tiny_vars().len());
        let embedding = model.tensor("decoder/embeddings/weight").unwrap();
        let projection = model.tensor(PROJECTION).unwrap();
        assert_eq!(projection.shape(), &[16, 8]);
        assert_eq!(projection.dtype(), DType::F16);
        assert_eq!(projection.data().as_ptr(), embedding.data().as_ptr());
        assert_eq!(
            model.aliases().get(PROJECTION).map(String::as_str),
            Some(TIED.1)
        );
        let heads = model.tensor("encoder/num_heads").unwrap();
        assert_eq!((heads.dtype(), heads.int_scalar()), (DType::I16, Some(2)));
        assert!(model.tensor("decoder/nothing").is_none());
    }

    #[test]
    fn binary_versions_4_to_6_parse_and_others_do_not() {
        let vars = tiny_vars();
        for version in 4..=6 {
            let bytes = serialize(version, WHISPER_SPEC, &vars, &[TIED]);
            assert_eq!(parse_bytes(&bytes).unwrap().header.version, version);
        }
        for version in [0, 1, 3, 7, u32::MAX] {
            let bytes = serialize(version, WHISPER_SPEC, &vars, &[TIED]);
            let err = parse_bytes(&bytes).unwrap_err();
            assert!(matches!(err, Ct2Error::UnsupportedVersion { .. }), "{err}");
            assert_names(&err, &[PATH, &version.to_string()]);
        }
    }

    #[test]
    fn truncation_anywhere_is_an_error_naming_the_file_not_a_panic() {
        let bytes = whisper_bytes(&tiny_vars());
        for cut in 0..bytes.len() {
            match parse_bytes(&bytes[..cut]) {
                Err(err @ (Ct2Error::Truncated { .. } | Ct2Error::AbsurdCount { .. })) => {
                    assert_names(&err, &[PATH, "truncated"])
                }
                Err(other) => panic!("cut at {cut}: expected truncation, got {other}"),
                Ok(_) => panic!("cut at {cut} of {} parsed", bytes.len()),
            }
        }
        assert!(parse_bytes(&bytes).is_ok());
    }

    #[test]
    fn truncation_inside_a_tensor_names_it() {
        let vars = tiny_vars();
        let bytes = whisper_bytes(&vars);
        let name = "encoder/conv1/weight";
        let start = bytes
            .windows(name.len())
            .position(|w| w == name.as_bytes())
            .unwrap();
        let inside_name = parse_bytes(&bytes[..start + 3]).unwrap_err();
        assert_names(&inside_name, &[PATH, "after `encoder/conv1/bias`"]);
        for (cut, what) in [
            (name.len() + 1, "rank"),
            (name.len() + 3, "shape"),
            (name.len() + 30, "data"),
        ] {
            assert_names(
                &parse_bytes(&bytes[..start + cut]).unwrap_err(),
                &[PATH, name, what],
            );
        }
    }

    #[test]
    fn a_model_that_is_not_whisper_is_refused_by_spec_name() {
        let bytes = serialize(6, "TransformerSpec", &tiny_vars(), &[TIED]);
        let err = parse_bytes(&bytes).unwrap_err();
        assert!(matches!(err, Ct2Error::WrongSpec { .. }), "{err}");
        assert_names(&err, &[PATH, "TransformerSpec", "WhisperSpec"]);
    }

    #[test]
    fn a_byte_count_not_matching_the_shape_names_the_tensor() {
        let mut vars = tiny_vars();
        let name = "decoder/layer_1/ffn/linear_0/weight";
        let var = vars.iter_mut().find(|v| v.name == name).unwrap();
        var.bytes.truncate(var.bytes.len() - 2);
        let err = parse_bytes(&whisper_bytes(&vars)).unwrap_err();
        assert!(matches!(err, Ct2Error::ByteCount { .. }), "{err}");
        assert_names(&err, &[PATH, name, "[32, 8]"]);
    }

    #[test]
    fn an_unknown_dtype_names_the_tensor() {
        let mut vars = tiny_vars();
        vars[3].dtype = 9;
        let name = vars[3].name.clone();
        let err = parse_bytes(&whisper_bytes(&vars)).unwrap_err();
        assert!(matches!(err, Ct2Error::UnknownDtype { id: 9, .. }), "{err}");
        assert_names(&err, &[PATH, &name]);
    }

    #[test]
    fn absurd_ranks_counts_and_sizes_are_refused_without_allocating() {
        let mut rank = tiny_vars();
        rank[0].shape = vec![1; 200];
        let err = parse_bytes(&whisper_bytes(&rank)).unwrap_err();
        assert!(
            matches!(err, Ct2Error::AbsurdRank { rank: 200, .. }),
            "{err}"
        );
        assert_names(&err, &[PATH, &rank[0].name]);

        let mut count = serialize(6, WHISPER_SPEC, &[], &[]);
        let at = count.len() - 8; // the tensor count, before the alias count
        count[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let err = parse_bytes(&count).unwrap_err();
        assert!(matches!(err, Ct2Error::AbsurdCount { .. }), "{err}");

        let mut aliases = serialize(6, WHISPER_SPEC, &[], &[]);
        let at = aliases.len() - 4;
        aliases[at..].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            parse_bytes(&aliases),
            Err(Ct2Error::AbsurdCount { .. })
        ));

        let huge = Var {
            name: "huge".into(),
            shape: vec![u32::MAX as usize; 8],
            dtype: 0,
            bytes: vec![],
        };
        let err = parse_bytes(&serialize(6, WHISPER_SPEC, &[huge], &[])).unwrap_err();
        assert!(matches!(err, Ct2Error::ShapeOverflow { .. }), "{err}");
        assert_names(&err, &[PATH, "huge"]);
    }

    #[test]
    fn aliases_duplicates_strings_and_trailing_bytes_are_checked() {
        let vars = tiny_vars();
        let err = parse_bytes(&serialize(6, WHISPER_SPEC, &vars, &[("a", "nowhere")])).unwrap_err();
        assert!(matches!(err, Ct2Error::DanglingAlias { .. }), "{err}");
        assert_names(&err, &[PATH, "nowhere"]);

        let twice = [vars[0].clone(), vars[0].clone()];
        let err = parse_bytes(&serialize(6, WHISPER_SPEC, &twice, &[])).unwrap_err();
        assert!(matches!(err, Ct2Error::Duplicate { .. }), "{err}");
        assert_names(&err, &[&vars[0].name]);

        let mut doubled = whisper_bytes(&vars);
        doubled.extend(whisper_bytes(&vars));
        assert!(matches!(
            parse_bytes(&doubled),
            Err(Ct2Error::TrailingBytes { .. })
        ));

        let mut no_nul = serialize(6, WHISPER_SPEC, &vars, &[]);
        no_nul[4 + 2 + WHISPER_SPEC.len()] = b'!';
        assert!(matches!(
            parse_bytes(&no_nul),
            Err(Ct2Error::BadString { .. })
        ));
        let mut not_utf8 = serialize(6, WHISPER_SPEC, &vars, &[]);
        not_utf8[4 + 2] = 0xff;
        assert!(matches!(
            parse_bytes(&not_utf8),
            Err(Ct2Error::BadString { .. })
        ));
    }

    #[test]
    fn empty_and_missing_files_are_errors_naming_them() {
        let dir = TempDir::new().unwrap();
        let empty = dir.path().join(MODEL_FILE);
        std::fs::write(&empty, b"").unwrap();
        let err = Ct2Model::open(&empty).unwrap_err();
        assert!(matches!(err, Ct2Error::Truncated { .. }), "{err}");
        assert_names(&err, &["model.bin"]);
        let err = Ct2Model::open(&dir.path().join("absent.bin")).unwrap_err();
        assert!(matches!(err, Ct2Error::Io { .. }) && err.to_string().contains("absent.bin"));
    }

    #[test]
    fn loads_with_inferred_dims_and_exact_values_from_mixed_precision() {
        let (_dir, loaded) = load_dir_with(&tiny_vars());
        let loaded = loaded.unwrap();
        assert_weights_match(&loaded.weights, &Tiny::SMALL);
        assert_eq!(loaded.weights.encoder.conv1.weight.kind(), Kind::Float);
        let generation = &loaded.generation;
        assert_eq!(generation.suppress_ids, [1, 2]);
        assert_eq!(generation.suppress_ids_begin, [3, 4]);
        assert_eq!(generation.lang_ids.as_deref(), Some(&[12, 10, 11][..]));
        assert_eq!(generation.alignment_heads, [(1, 0), (1, 1)]);
    }

    #[test]
    fn large_v3_like_shapes_load() {
        let t = Tiny::LARGE_V3_LIKE;
        let dir = TempDir::new().unwrap();
        write_model_dir(dir.path(), &t, &|_| DType::F16);
        let loaded = load_weights(dir.path(), &LoadOptions::default()).unwrap();
        assert_weights_match(&loaded.weights, &t);
    }

    #[test]
    fn half_precision_is_kept_when_asked_for() {
        let dir = TempDir::new().unwrap();
        write_model_dir(dir.path(), &Tiny::SMALL, &mixed);
        let opts = LoadOptions {
            kind: Kind::Half,
            ..LoadOptions::default()
        };
        let loaded = load_weights(dir.path(), &opts).unwrap();
        let w = &loaded.weights;
        assert_eq!(
            w.encoder.blocks[1].attn.qkv.weight.float().unwrap().kind(),
            Kind::Half
        );
        assert_eq!(w.decoder.ln.bias.kind(), Kind::Half);
    }

    #[test]
    fn a_missing_tensor_names_it_and_the_file() {
        let name = "decoder/layer_1/attention/linear_1/bias";
        let vars: Vec<Var> = tiny_vars().into_iter().filter(|v| v.name != name).collect();
        let (_dir, result) = load_dir_with(&vars);
        let err = result.unwrap_err();
        assert!(matches!(err, LoadError::MissingTensor { .. }), "{err}");
        assert_names(&err, &["model.bin", name]);
    }

    #[test]
    fn a_missing_layer_is_a_missing_tensor() {
        let vars: Vec<Var> = tiny_vars()
            .into_iter()
            .filter(|v| !v.name.starts_with("encoder/layer_0/"))
            .collect();
        let (_dir, result) = load_dir_with(&vars);
        assert_names(&result.unwrap_err(), &["model.bin", "encoder/layer_0/"]);
    }

    #[test]
    fn a_misshaped_tensor_names_expected_and_actual_shapes() {
        let name = "encoder/layer_0/self_attention/linear_0/weight";
        let mut vars = tiny_vars();
        let bad = OpenAi::new(&Tiny::SMALL)
            .get("encoder.blocks.0.mlp.2.weight")
            .clone();
        replace(&mut vars, name, Var::new(name, &bad, DType::F16));
        let (_dir, result) = load_dir_with(&vars);
        let err = result.unwrap_err();
        assert!(matches!(err, LoadError::BadShape { .. }), "{err}");
        assert_names(&err, &["model.bin", name, "[8, 32]", "[24, 8]"]);
    }

    #[test]
    fn a_conv_of_the_wrong_kernel_is_refused() {
        let name = "encoder/conv2/weight";
        let mut vars = tiny_vars();
        let values = Values {
            shape: vec![8, 8, 5],
            data: vec![0.5; 320],
        };
        replace(&mut vars, name, Var::new(name, &values, DType::F32));
        let (_dir, result) = load_dir_with(&vars);
        assert_names(
            &result.unwrap_err(),
            &["model.bin", name, "[8, 8, 3]", "[8, 8, 5]"],
        );
    }

    #[test]
    fn head_counts_must_be_present_and_divide_the_width() {
        let vars: Vec<Var> = tiny_vars()
            .into_iter()
            .filter(|v| v.name != "decoder/num_heads")
            .collect();
        let (_dir, result) = load_dir_with(&vars);
        assert_names(&result.unwrap_err(), &["model.bin", "decoder/num_heads"]);

        let mut vars = tiny_vars();
        replace(
            &mut vars,
            "encoder/num_heads",
            Var::scalar("encoder/num_heads", 3.0, DType::I32),
        );
        let (_dir, result) = load_dir_with(&vars);
        let err = result.unwrap_err();
        assert!(matches!(err, LoadError::BadDims { .. }), "{err}");
        assert_names(&err, &["model.bin", "3 encoder heads"]);

        for bad in [
            Var::scalar("encoder/num_heads", 0.0, DType::I16),
            Var::scalar("encoder/num_heads", 2.0, DType::F32),
        ] {
            let mut vars = tiny_vars();
            replace(&mut vars, "encoder/num_heads", bad);
            let (_dir, result) = load_dir_with(&vars);
            assert_names(&result.unwrap_err(), &["model.bin", "encoder/num_heads"]);
        }
    }

    #[test]
    fn int8_weights_are_dequantized_with_their_scale() {
        let name = "decoder/layer_0/ffn/linear_0/weight";
        let original = OpenAi::new(&Tiny::SMALL)
            .get("decoder.blocks.0.mlp.0.weight")
            .clone();
        let scale = 64.0; // fixture values are multiples of 1/64, so q = w · 64 is exact
        let mut quantized = original.clone();
        quantized.data.iter_mut().for_each(|v| *v *= scale);
        let mut vars = tiny_vars();
        replace(&mut vars, name, Var::new(name, &quantized, DType::I8));
        let scales = Values {
            shape: vec![32],
            data: vec![scale; 32],
        };
        vars.push(Var::new(&format!("{name}_scale"), &scales, DType::F32));
        let (_dir, loaded) = load_dir_with(&vars);
        let loaded = loaded.unwrap();
        assert_eq!(
            to_values(
                loaded.weights.decoder.blocks[0]
                    .mlp
                    .fc1
                    .weight
                    .float()
                    .unwrap()
            ),
            original
        );

        let mut unscaled = tiny_vars();
        replace(&mut unscaled, name, Var::new(name, &quantized, DType::I8));
        let (_dir, result) = load_dir_with(&unscaled);
        let err = result.unwrap_err();
        assert!(matches!(err, LoadError::BadDtype { .. }), "{err}");
        assert_names(&err, &["model.bin", name, "_scale"]);
    }

    #[test]
    fn a_separate_output_projection_must_equal_the_embedding() {
        let embedding = tiny_vars().into_iter().find(|v| v.name == TIED.1).unwrap();
        let mut copy = embedding.clone();
        copy.name = PROJECTION.into();
        let mut vars = tiny_vars();
        vars.push(copy.clone());
        let dir = TempDir::new().unwrap();
        std::fs::write(
            dir.path().join(MODEL_FILE),
            serialize(6, WHISPER_SPEC, &vars, &[]),
        )
        .unwrap();
        assert!(load_weights(dir.path(), &LoadOptions::default()).is_ok());

        let last = vars.len() - 1;
        vars[last].bytes = encode(&vec![0.25; 16 * 8], DType::F16);
        std::fs::write(
            dir.path().join(MODEL_FILE),
            serialize(6, WHISPER_SPEC, &vars, &[]),
        )
        .unwrap();
        let err = load_weights(dir.path(), &LoadOptions::default()).unwrap_err();
        assert!(matches!(err, LoadError::UntiedProjection { .. }), "{err}");
        assert_names(&err, &["model.bin", PROJECTION]);
    }

    #[test]
    fn without_config_json_generation_falls_back_to_defaults() {
        let dir = TempDir::new().unwrap();
        std::fs::write(dir.path().join(MODEL_FILE), whisper_bytes(&tiny_vars())).unwrap();
        let loaded = load_weights(dir.path(), &LoadOptions::default()).unwrap();
        let generation = loaded.generation;
        assert!(generation.suppress_ids.is_empty() && generation.lang_ids.is_none());
        assert_eq!(generation.alignment_heads, [(1, 0), (1, 1)]);
    }

    #[test]
    fn malformed_config_fields_name_the_file_and_field() {
        let cases = [
            (r#"{"suppress_ids": "1, 2"}"#, "suppress_ids"),
            (r#"{"suppress_ids_begin": [3, -1]}"#, "suppress_ids_begin"),
            (r#"{"lang_ids": [16]}"#, "lang_ids"),
            (r#"{"alignment_heads": [[0, 2]]}"#, "alignment_heads"),
            (r#"{"alignment_heads": [[0]]}"#, "alignment_heads"),
            (r#"[1, 2]"#, "(top level)"),
        ];
        for (json, field) in cases {
            let dir = TempDir::new().unwrap();
            std::fs::write(dir.path().join(MODEL_FILE), whisper_bytes(&tiny_vars())).unwrap();
            std::fs::write(dir.path().join("config.json"), json).unwrap();
            let err = load_weights(dir.path(), &LoadOptions::default()).unwrap_err();
            assert!(matches!(err, LoadError::Config { .. }), "{json}: {err}");
            assert_names(&err, &["config.json", field]);
        }
        let dir = TempDir::new().unwrap();
        std::fs::write(dir.path().join(MODEL_FILE), whisper_bytes(&tiny_vars())).unwrap();
        std::fs::write(dir.path().join("config.json"), "{ not json").unwrap();
        let err = load_weights(dir.path(), &LoadOptions::default()).unwrap_err();
        assert!(matches!(err, LoadError::Json { .. }), "{err}");
        assert_names(&err, &["config.json"]);
    }
}
