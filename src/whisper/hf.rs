//! The Hugging Face layout (`openai/whisper-*`, `WhisperForConditionalGeneration`): memory-mapped
//! `model.safetensors` (or the shards listed in `model.safetensors.index.json`), the HF name of
//! every canonical Whisper tensor — including which separate q/k/v projections are stacked
//! into the fused ones (keys have no bias; zeros stand in) — the head counts from `config.json`,
//! and the generation fields of `generation_config.json` / `config.json`.
//!
//! Headers are parsed and validated by the `safetensors` crate (`SafeTensors::read_metadata`,
//! the check `SafeTensors::deserialize` runs: offsets inside the file, byte counts matching
//! shapes); the validated metadata is kept next to each map so tensors can be borrowed from it.

use super::dims::ModelDims;
use super::weight_source::{
    self, count_layers, first_defined, DType, GenerationConfig, JsonFile, Located, Param, Part,
    Piece, RawTensor, Recipe, Slot, SourceError, Stack, WeightSource,
};
use memmap2::Mmap;
use safetensors::tensor::Metadata;
use safetensors::{Dtype, SafeTensorError, SafeTensors};
use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::fs::{self, File};
use std::path::{Path, PathBuf};

/// The weights file of an unsharded checkpoint.
pub const MODEL_FILE: &str = "model.safetensors";
/// The shard index of a sharded checkpoint (`weight_map`: tensor name → shard file).
pub const INDEX_FILE: &str = "model.safetensors.index.json";
/// Model hyper-parameters, including the head counts.
const CONFIG_FILE: &str = "config.json";
/// Decoding defaults (suppressed tokens, languages, alignment heads).
const GENERATION_FILE: &str = "generation_config.json";
/// The output projection, tied to `model.decoder.embed_tokens.weight` (often left out).
const PROJECTION: &str = "proj_out.weight";
/// Size of the little-endian header length that starts every safetensors file.
const HEADER_LEN_BYTES: usize = 8;

/// Why the safetensors files of a directory cannot be read; every message names a file.
#[derive(Debug, thiserror::Error)]
pub enum HfError {
    #[error("{}: cannot read: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: not a valid safetensors file: {source}", .path.display())]
    Safetensors {
        path: PathBuf,
        #[source]
        source: SafeTensorError,
    },
    #[error("{}: {reason}", .path.display())]
    Index { path: PathBuf, reason: String },
    /// A tensor or setting the checkpoint needs is missing or wrong (the loader reports it as
    /// its own [`SourceError`]).
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error("{}: tensor `{tensor}` is also in {}", .path.display(), .other.display())]
    Duplicate {
        path: PathBuf,
        tensor: String,
        other: PathBuf,
    },
}

/// One memory-mapped safetensors file and its validated header.
struct Shard {
    path: PathBuf,
    map: Mmap,
    /// Where the tensor bytes start: after the header length and the header.
    data_start: usize,
    metadata: Metadata,
}

impl Shard {
    fn open(path: PathBuf) -> Result<Self, HfError> {
        let io = |source| HfError::Io {
            path: path.clone(),
            source,
        };
        let file = File::open(&path).map_err(io)?;
        // SAFETY: the map is read-only and lives only while the model loads; as with any
        // memory-mapped file, another process truncating it meanwhile is not defended against.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        let (header_len, metadata) =
            SafeTensors::read_metadata(&map).map_err(|source| HfError::Safetensors {
                path: path.clone(),
                source,
            })?;
        let data_start = header_len.saturating_add(HEADER_LEN_BYTES);
        Ok(Shard {
            path,
            map,
            data_start,
            metadata,
        })
    }

    fn raw(&self, name: &str) -> Result<Option<RawTensor<'_>>, SourceError> {
        let Some(info) = self.metadata.info(name) else {
            return Ok(None);
        };
        let dtype = dtype(info.dtype).ok_or_else(|| SourceError::BadDtype {
            path: self.path.clone(),
            tensor: name.to_owned(),
            dtype: format!("{:?}", info.dtype),
            reason: "only F32, F16, BF16 and F64 weights are supported",
        })?;
        let (start, end) = info.data_offsets;
        let data = self
            .data_start
            .checked_add(start)
            .zip(self.data_start.checked_add(end))
            .and_then(|(start, end)| self.map.get(start..end));
        // `read_metadata` validated offsets and sizes, so this only guards against its bugs.
        let raw = data.and_then(|data| RawTensor::new(&info.shape, dtype, data));
        raw.map(Some).ok_or_else(|| SourceError::BadShape {
            path: self.path.clone(),
            tensor: name.to_owned(),
            expected: "data matching the shape".to_owned(),
            actual: info.shape.clone(),
        })
    }
}

fn dtype(dtype: Dtype) -> Option<DType> {
    match dtype {
        Dtype::F32 => Some(DType::F32),
        Dtype::F16 => Some(DType::F16),
        Dtype::BF16 => Some(DType::BF16),
        Dtype::F64 => Some(DType::F64),
        Dtype::I8 => Some(DType::I8),
        Dtype::I16 => Some(DType::I16),
        Dtype::I32 => Some(DType::I32),
        _ => None,
    }
}

/// A Hugging Face Whisper checkpoint: its safetensors file(s) and its head counts.
pub struct HfCheckpoint {
    /// `model.safetensors`, or the index of a sharded checkpoint.
    primary: PathBuf,
    shards: Vec<Shard>,
    /// Tensor name → index into `shards`.
    locate: HashMap<String, usize>,
    /// `model.` for `WhisperForConditionalGeneration`, empty for a bare `WhisperModel`.
    prefix: &'static str,
    encoder_heads: usize,
    decoder_heads: usize,
}

impl fmt::Debug for HfCheckpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HfCheckpoint")
            .field("primary", &self.primary)
            .field(
                "shards",
                &self.shards.iter().map(|s| &s.path).collect::<Vec<_>>(),
            )
            .field("tensors", &self.locate.len())
            .field("prefix", &self.prefix)
            .field("heads", &(self.encoder_heads, self.decoder_heads))
            .finish()
    }
}

impl HfCheckpoint {
    /// Maps the weights of `dir` (`model.safetensors`, else the shards its index lists) and
    /// reads the head counts from `config.json`.
    pub fn open(dir: &Path) -> Result<Self, HfError> {
        let single = dir.join(MODEL_FILE);
        let (primary, files) = if single.is_file() {
            (single.clone(), vec![single])
        } else {
            let index = dir.join(INDEX_FILE);
            let files = shard_files(&index)?;
            (index, files)
        };
        let shards = files
            .into_iter()
            .map(Shard::open)
            .collect::<Result<Vec<_>, _>>()?;
        let locate = locate_tensors(&shards)?;
        let prefix = if locate.contains_key("encoder.conv1.weight") {
            ""
        } else {
            "model."
        };
        let (encoder_heads, decoder_heads) = head_counts(&dir.join(CONFIG_FILE))?;
        Ok(HfCheckpoint {
            primary,
            shards,
            locate,
            prefix,
            encoder_heads,
            decoder_heads,
        })
    }

    /// Names of all stored tensors, in no particular order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.locate.keys().map(String::as_str)
    }
}

/// The shard files an index's `weight_map` names, each once, in name order.
fn shard_files(index: &Path) -> Result<Vec<PathBuf>, HfError> {
    let bad = |reason: String| HfError::Index {
        path: index.to_owned(),
        reason,
    };
    let text = fs::read_to_string(index).map_err(|source| HfError::Io {
        path: index.to_owned(),
        source,
    })?;
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(format!("invalid JSON: {e}")))?;
    let map = json
        .get("weight_map")
        .and_then(serde_json::Value::as_object)
        .ok_or_else(|| bad("no `weight_map` object".to_owned()))?;
    let names = map
        .iter()
        .map(|(tensor, file)| match file.as_str() {
            Some(file) if is_plain_file_name(file) => Ok(file),
            _ => Err(bad(format!(
                "`weight_map` entry `{tensor}` is not a file name: {file}"
            ))),
        })
        .collect::<Result<BTreeSet<_>, _>>()?;
    if names.is_empty() {
        return Err(bad("`weight_map` is empty".to_owned()));
    }
    let dir = index.parent().unwrap_or(Path::new("."));
    Ok(names.into_iter().map(|name| dir.join(name)).collect())
}

/// A shard must sit next to its index: no directories, no `..`.
fn is_plain_file_name(name: &str) -> bool {
    let path = Path::new(name);
    !name.is_empty()
        && path
            .file_name()
            .is_some_and(|file| file == path.as_os_str())
}

fn locate_tensors(shards: &[Shard]) -> Result<HashMap<String, usize>, HfError> {
    let mut locate: HashMap<String, usize> = HashMap::new();
    for (i, shard) in shards.iter().enumerate() {
        for name in shard.metadata.offset_keys() {
            if let Some(&other) = locate.get(&name) {
                let other = shards
                    .get(other)
                    .map_or_else(PathBuf::new, |s| s.path.clone());
                return Err(HfError::Duplicate {
                    path: shard.path.clone(),
                    tensor: name,
                    other,
                });
            }
            locate.insert(name, i);
        }
    }
    Ok(locate)
}

/// `encoder_attention_heads` and `decoder_attention_heads` from `config.json`.
fn head_counts(path: &Path) -> Result<(usize, usize), SourceError> {
    let json = JsonFile::read_optional(path)?.ok_or_else(|| SourceError::MissingConfig {
        path: path.to_owned(),
        needed_for: "the attention head counts",
    })?;
    let read = |field: &str| {
        json.count(field)?.ok_or_else(|| SourceError::Config {
            path: path.to_owned(),
            field: field.to_owned(),
            reason: "is missing (it gives the number of attention heads)".to_owned(),
        })
    };
    Ok((
        read("encoder_attention_heads")?,
        read("decoder_attention_heads")?,
    ))
}

// ---------------------------------------------------------------------------------------------
// The HF names of the canonical tensors.

impl HfCheckpoint {
    fn name(&self, rest: &str) -> String {
        format!("{}{rest}", self.prefix)
    }

    fn block_recipe(&self, stack: Stack, i: usize, part: Part, leaf: &str) -> Recipe {
        let base = self.name(&format!("{}.layers.{i}.", stack.name()));
        let module = match part {
            Part::Qkv => return stacked(&base, "self_attn", &["q_proj", "k_proj", "v_proj"], leaf),
            Part::CrossKv => return stacked(&base, "encoder_attn", &["k_proj", "v_proj"], leaf),
            Part::AttnNorm => "self_attn_layer_norm",
            Part::AttnOut => "self_attn.out_proj",
            Part::CrossNorm => "encoder_attn_layer_norm",
            Part::CrossQuery => "encoder_attn.q_proj",
            Part::CrossOut => "encoder_attn.out_proj",
            Part::MlpNorm => "final_layer_norm",
            Part::Fc1 => "fc1",
            Part::Fc2 => "fc2",
        };
        Recipe::single(format!("{base}{module}.{leaf}"))
    }
}

/// Separate projections of `attention` stacked in order; OpenAI's key projections have no
/// bias, so a missing `k_proj.bias` becomes zeros.
fn stacked(base: &str, attention: &str, projections: &[&str], leaf: &str) -> Recipe {
    let pieces = projections.iter().map(|projection| {
        let name = format!("{base}{attention}.{projection}.{leaf}");
        match (*projection, leaf) {
            ("k_proj", "bias") => Piece::ZerosIfAbsent(name),
            _ => Piece::Tensor(name),
        }
    });
    Recipe(pieces.collect())
}

impl WeightSource for HfCheckpoint {
    fn path(&self) -> &Path {
        &self.primary
    }

    fn copied_out(&self, located: &Located<'_>) {
        for raw in std::iter::once(located.raw).chain(located.scale) {
            // The shard it came from is the one whose map holds it.
            let _ = self
                .shards
                .iter()
                .any(|shard| super::mapped::release(&shard.map, raw.data()));
        }
    }

    fn find(&self, name: &str) -> Result<Option<Located<'_>>, SourceError> {
        let Some(shard) = self.locate.get(name).and_then(|&i| self.shards.get(i)) else {
            return Ok(None);
        };
        let located = shard.raw(name)?.map(|raw| Located {
            path: &shard.path,
            raw,
            scale: None,
        });
        Ok(located)
    }

    fn recipe(&self, slot: Slot, param: Param) -> Recipe {
        let leaf = match param {
            Param::Weight => "weight",
            Param::Bias => "bias",
        };
        match slot {
            Slot::Conv1 => Recipe::single(self.name(&format!("encoder.conv1.{leaf}"))),
            Slot::Conv2 => Recipe::single(self.name(&format!("encoder.conv2.{leaf}"))),
            Slot::TokenEmbedding => Recipe::single(self.name("decoder.embed_tokens.weight")),
            Slot::Positions(stack) => {
                Recipe::single(self.name(&format!("{}.embed_positions.weight", stack.name())))
            }
            Slot::FinalNorm(stack) => {
                Recipe::single(self.name(&format!("{}.layer_norm.{leaf}", stack.name())))
            }
            Slot::Block(stack, i, part) => self.block_recipe(stack, i, part, leaf),
        }
    }

    fn layer_count(&self, stack: Stack) -> usize {
        count_layers(
            self.names(),
            &self.name(&format!("{}.layers.", stack.name())),
        )
    }

    fn head_count(&self, stack: Stack) -> Result<usize, SourceError> {
        Ok(match stack {
            Stack::Encoder => self.encoder_heads,
            Stack::Decoder => self.decoder_heads,
        })
    }

    fn untied_projection(&self) -> Option<String> {
        self.locate
            .contains_key(PROJECTION)
            .then(|| PROJECTION.to_owned())
    }
}

/// The generation fields, each from `generation_config.json` if it has it, else from
/// `config.json`: `suppress_tokens`, `begin_suppress_tokens`, `lang_to_id` (ids in ascending
/// order), `alignment_heads`.
pub(crate) fn generation_config(
    dir: &Path,
    dims: &ModelDims,
) -> Result<GenerationConfig, SourceError> {
    let generation = JsonFile::read_optional(&dir.join(GENERATION_FILE))?;
    let config = JsonFile::read_optional(&dir.join(CONFIG_FILE))?;
    let files: Vec<&JsonFile> = [generation.as_ref(), config.as_ref()]
        .into_iter()
        .flatten()
        .collect();
    let vocab = dims.n_vocab;
    Ok(GenerationConfig {
        suppress_ids: first_defined(&files, |f| f.token_ids("suppress_tokens", vocab))?
            .unwrap_or_default(),
        suppress_ids_begin: first_defined(&files, |f| f.token_ids("begin_suppress_tokens", vocab))?
            .unwrap_or_default(),
        lang_ids: first_defined(&files, |f| f.token_id_map("lang_to_id", vocab))?,
        alignment_heads: weight_source::alignment_heads_or_default(
            first_defined(&files, |f| f.alignment_heads("alignment_heads", dims))?,
            dims,
        ),
    })
}

#[cfg(test)]
pub(crate) mod testing {
    //! A Hugging Face checkpoint writer for tests (via `safetensors::serialize`).

    use super::*;
    use crate::whisper::loader::fixtures::{encode, OpenAi, Tiny, Values};
    use safetensors::tensor::TensorView;

    /// OpenAI names → HF names, module by module (the key projections keep having no bias).
    const RENAMES: &[(&str, &str)] = &[
        (
            "encoder.positional_embedding",
            "encoder.embed_positions.weight",
        ),
        (
            "decoder.positional_embedding",
            "decoder.embed_positions.weight",
        ),
        ("decoder.token_embedding", "decoder.embed_tokens"),
        ("encoder.ln_post", "encoder.layer_norm"),
        ("decoder.ln.", "decoder.layer_norm."),
        (".blocks.", ".layers."),
        (".cross_attn_ln.", ".encoder_attn_layer_norm."),
        (".cross_attn.", ".encoder_attn."),
        (".attn_ln.", ".self_attn_layer_norm."),
        (".attn.", ".self_attn."),
        (".query.", ".q_proj."),
        (".key.", ".k_proj."),
        (".value.", ".v_proj."),
        (".out.", ".out_proj."),
        (".mlp_ln.", ".final_layer_norm."),
        (".mlp.0.", ".fc1."),
        (".mlp.2.", ".fc2."),
    ];

    pub(crate) fn hf_name(openai: &str) -> String {
        RENAMES
            .iter()
            .fold(openai.to_owned(), |name, (from, to)| name.replace(from, to))
    }

    /// The HF tensors of `t` under `prefix` (`model.` or empty).
    pub(crate) fn whisper_tensors(t: &Tiny, prefix: &str) -> Vec<(String, Values)> {
        let o = OpenAi::new(t);
        o.0.iter()
            .map(|(name, v)| (format!("{prefix}{}", hf_name(name)), v.clone()))
            .collect()
    }

    /// Safetensors bytes of `tensors`, each stored as `dtype`.
    pub(crate) fn serialize(tensors: &[(String, Values)], dtype: DType) -> Vec<u8> {
        let st_dtype = match dtype {
            DType::F32 => Dtype::F32,
            DType::F16 => Dtype::F16,
            DType::BF16 => Dtype::BF16,
            other => panic!("no test writer for {other:?}"),
        };
        let encoded: Vec<Encoded> = tensors
            .iter()
            .map(|(name, v)| {
                (
                    name.clone(),
                    st_dtype,
                    v.shape.clone(),
                    encode(&v.data, dtype),
                )
            })
            .collect();
        serialize_encoded(&encoded)
    }

    /// Name, dtype, shape, little-endian bytes.
    pub(crate) type Encoded = (String, Dtype, Vec<usize>, Vec<u8>);

    pub(crate) fn serialize_encoded(tensors: &[Encoded]) -> Vec<u8> {
        let views = tensors.iter().map(|(name, dtype, shape, bytes)| {
            (
                name.clone(),
                TensorView::new(*dtype, shape.clone(), bytes).unwrap(),
            )
        });
        safetensors::serialize(views, None).unwrap()
    }

    pub(crate) fn config_json(t: &Tiny) -> String {
        format!(
            r#"{{"model_type": "whisper", "d_model": {}, "encoder_attention_heads": {},
                "decoder_attention_heads": {}, "num_mel_bins": {},
                "suppress_tokens": [5], "begin_suppress_tokens": [6]}}"#,
            t.d, t.heads, t.heads, t.n_mels
        )
    }

    pub(crate) fn generation_json(t: &Tiny) -> String {
        let last = t.dec_layers - 1;
        format!(
            r#"{{"alignment_heads": [[{last}, 1]],
                "lang_to_id": {{"<|pl|>": 12, "<|en|>": 10, "<|de|>": 11}},
                "suppress_tokens": [1, 2], "begin_suppress_tokens": [3, 4]}}"#
        )
    }

    /// `model.safetensors` of `t`'s tensors, `config.json` and `generation_config.json`.
    pub(crate) fn write_model_dir(dir: &Path, t: &Tiny, dtype: DType, prefix: &str) {
        write_weights(dir, &whisper_tensors(t, prefix), dtype);
        write_configs(dir, t);
    }

    pub(crate) fn write_weights(dir: &Path, tensors: &[(String, Values)], dtype: DType) {
        fs::write(dir.join(MODEL_FILE), serialize(tensors, dtype)).unwrap();
    }

    pub(crate) fn write_configs(dir: &Path, t: &Tiny) {
        fs::write(dir.join(CONFIG_FILE), config_json(t)).unwrap();
        fs::write(dir.join(GENERATION_FILE), generation_json(t)).unwrap();
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;
    use crate::whisper::loader::fixtures::{assert_weights_match, encode, Tiny, Values};
    use crate::whisper::loader::{load_weights, LoadError, LoadOptions, LoadedWeights};
    use tempfile::TempDir;

    fn assert_names(err: &impl std::fmt::Display, needles: &[&str]) {
        let message = err.to_string();
        for needle in needles {
            assert!(
                message.contains(needle),
                "`{message}` does not mention `{needle}`"
            );
        }
    }

    fn load(dir: &TempDir) -> Result<LoadedWeights, LoadError> {
        load_weights(dir.path(), &LoadOptions::default())
    }

    fn dir_with(tensors: &[(String, Values)]) -> TempDir {
        let dir = TempDir::new().unwrap();
        write_weights(dir.path(), tensors, DType::F32);
        write_configs(dir.path(), &Tiny::SMALL);
        dir
    }

    fn without(name: &str) -> Vec<(String, Values)> {
        whisper_tensors(&Tiny::SMALL, "model.")
            .into_iter()
            .filter(|(n, _)| n != name)
            .collect()
    }

    #[test]
    fn hf_names_follow_the_transformers_layout() {
        assert_eq!(
            hf_name("encoder.blocks.3.attn.key.weight"),
            "encoder.layers.3.self_attn.k_proj.weight"
        );
        assert_eq!(
            hf_name("decoder.blocks.0.cross_attn_ln.bias"),
            "decoder.layers.0.encoder_attn_layer_norm.bias"
        );
        assert_eq!(
            hf_name("decoder.blocks.1.cross_attn.out.bias"),
            "decoder.layers.1.encoder_attn.out_proj.bias"
        );
        assert_eq!(
            hf_name("decoder.blocks.1.mlp.2.weight"),
            "decoder.layers.1.fc2.weight"
        );
        assert_eq!(hf_name("decoder.ln.weight"), "decoder.layer_norm.weight");
        assert_eq!(
            hf_name("decoder.token_embedding.weight"),
            "decoder.embed_tokens.weight"
        );
    }

    #[test]
    fn loads_with_inferred_dims_fused_qkv_and_zero_key_bias() {
        for dtype in [DType::F32, DType::F16, DType::BF16] {
            let dir = TempDir::new().unwrap();
            write_model_dir(dir.path(), &Tiny::SMALL, dtype, "model.");
            let loaded = load(&dir).unwrap();
            assert_eq!(loaded.layout, crate::whisper::loader::Layout::HuggingFace);
            assert_weights_match(&loaded.weights, &Tiny::SMALL);
        }
    }

    #[test]
    fn large_v3_like_shapes_load() {
        let t = Tiny::LARGE_V3_LIKE;
        let dir = TempDir::new().unwrap();
        write_model_dir(dir.path(), &t, DType::BF16, "model.");
        let loaded = load(&dir).unwrap();
        assert_weights_match(&loaded.weights, &t);
        assert_eq!(
            (loaded.weights.dims.n_mels, loaded.weights.dims.n_vocab),
            (128, 51866)
        );
    }

    #[test]
    fn a_bare_whisper_model_without_the_model_prefix_loads() {
        let dir = TempDir::new().unwrap();
        write_model_dir(dir.path(), &Tiny::SMALL, DType::F32, "");
        assert_weights_match(&load(&dir).unwrap().weights, &Tiny::SMALL);
    }

    #[test]
    fn generation_config_prefers_generation_config_json() {
        let dir = TempDir::new().unwrap();
        write_model_dir(dir.path(), &Tiny::SMALL, DType::F32, "model.");
        let generation = load(&dir).unwrap().generation;
        assert_eq!(generation.suppress_ids, [1, 2]);
        assert_eq!(generation.suppress_ids_begin, [3, 4]);
        assert_eq!(generation.lang_ids.as_deref(), Some(&[10, 11, 12][..]));
        assert_eq!(generation.alignment_heads, [(1, 1)]);

        fs::remove_file(dir.path().join(GENERATION_FILE)).unwrap();
        let generation = load(&dir).unwrap().generation;
        assert_eq!(
            (generation.suppress_ids, generation.suppress_ids_begin),
            (vec![5], vec![6])
        );
        assert_eq!(generation.lang_ids, None);
        assert_eq!(generation.alignment_heads, [(1, 0), (1, 1)]);
    }

    #[test]
    fn head_counts_come_from_config_json() {
        let dir = TempDir::new().unwrap();
        write_model_dir(dir.path(), &Tiny::SMALL, DType::F32, "model.");
        fs::write(
            dir.path().join(CONFIG_FILE),
            r#"{"encoder_attention_heads": 2}"#,
        )
        .unwrap();
        let err = load(&dir).unwrap_err();
        assert!(
            matches!(err, LoadError::Source(SourceError::Config { .. })),
            "{err}"
        );
        assert_names(&err, &["config.json", "decoder_attention_heads"]);

        fs::remove_file(dir.path().join(CONFIG_FILE)).unwrap();
        let err = load(&dir).unwrap_err();
        assert!(
            matches!(err, LoadError::Source(SourceError::MissingConfig { .. })),
            "{err}"
        );
        assert_names(&err, &["config.json", "head"]);
    }

    #[test]
    fn a_missing_tensor_names_it_and_the_file() {
        let name = "model.decoder.layers.1.encoder_attn.v_proj.weight";
        let err = load(&dir_with(&without(name))).unwrap_err();
        assert!(
            matches!(err, LoadError::Source(SourceError::MissingTensor { .. })),
            "{err}"
        );
        assert_names(&err, &["model.safetensors", name]);
    }

    #[test]
    fn a_misshaped_piece_of_a_fused_tensor_names_the_piece() {
        let name = "model.encoder.layers.0.self_attn.k_proj.weight";
        let mut tensors = without(name);
        tensors.push((
            name.to_owned(),
            Values {
                shape: vec![8, 7],
                data: vec![0.5; 56],
            },
        ));
        let err = load(&dir_with(&tensors)).unwrap_err();
        assert!(
            matches!(err, LoadError::Source(SourceError::BadShape { .. })),
            "{err}"
        );
        assert_names(&err, &["model.safetensors", name, "[8, 8]", "[8, 7]"]);
    }

    #[test]
    fn a_stored_key_bias_is_used_and_a_tied_projection_accepted() {
        let t = Tiny::SMALL;
        let mut tensors = whisper_tensors(&t, "model.");
        let key_bias = "model.encoder.layers.0.self_attn.k_proj.bias";
        tensors.push((
            key_bias.to_owned(),
            Values {
                shape: vec![8],
                data: vec![0.5; 8],
            },
        ));
        let embedding = tensors
            .iter()
            .find(|(n, _)| n == "model.decoder.embed_tokens.weight")
            .unwrap();
        tensors.push((PROJECTION.to_owned(), embedding.1.clone()));
        let loaded = load(&dir_with(&tensors)).unwrap();
        let qkv_bias = &loaded.weights.encoder.blocks[0]
            .attn
            .qkv
            .bias
            .as_ref()
            .unwrap();
        let key: Vec<f32> = Vec::try_from(qkv_bias.narrow(0, 8, 8)).unwrap();
        assert_eq!(key, vec![0.5; 8]);

        let last = tensors.len() - 1;
        tensors[last].1.data[0] += 1.0;
        let err = load(&dir_with(&tensors)).unwrap_err();
        assert!(matches!(err, LoadError::UntiedProjection { .. }), "{err}");
        assert_names(&err, &["model.safetensors", PROJECTION]);
    }

    #[test]
    fn unsupported_dtypes_are_named() {
        let name = "model.encoder.layer_norm.bias";
        let mut encoded: Vec<Encoded> = without(name)
            .into_iter()
            .map(|(n, v)| (n, Dtype::F32, v.shape, encode(&v.data, DType::F32)))
            .collect();
        let longs = (0..8u64).flat_map(u64::to_le_bytes).collect();
        encoded.push((name.to_owned(), Dtype::I64, vec![8], longs));
        let dir = TempDir::new().unwrap();
        fs::write(dir.path().join(MODEL_FILE), serialize_encoded(&encoded)).unwrap();
        write_configs(dir.path(), &Tiny::SMALL);
        let err = load(&dir).unwrap_err();
        assert!(
            matches!(err, LoadError::Source(SourceError::BadDtype { .. })),
            "{err}"
        );
        assert_names(&err, &["model.safetensors", name, "I64"]);
    }

    #[test]
    fn a_truncated_or_corrupt_file_is_an_error_naming_it() {
        let dir = TempDir::new().unwrap();
        write_model_dir(dir.path(), &Tiny::SMALL, DType::F32, "model.");
        let path = dir.path().join(MODEL_FILE);
        let bytes = fs::read(&path).unwrap();
        for cut in [0, 5, 8, 100, bytes.len() / 2, bytes.len() - 1] {
            fs::write(&path, &bytes[..cut]).unwrap();
            let err = load(&dir).unwrap_err();
            assert!(
                matches!(err, LoadError::Hf(HfError::Safetensors { .. })),
                "cut {cut}: {err}"
            );
            assert_names(&err, &["model.safetensors"]);
        }
    }

    fn write_sharded(dir: &Path, index: &str, shards: &[(&str, Vec<(String, Values)>)]) {
        for (file, tensors) in shards {
            fs::write(
                dir.join(file),
                super::testing::serialize(tensors, DType::F16),
            )
            .unwrap();
        }
        fs::write(dir.join(INDEX_FILE), index).unwrap();
        write_configs(dir, &Tiny::SMALL);
    }

    fn index_json(shards: &[(&str, Vec<(String, Values)>)]) -> String {
        let map: serde_json::Map<String, serde_json::Value> = shards
            .iter()
            .flat_map(|(file, tensors)| {
                tensors
                    .iter()
                    .map(move |(n, _)| (n.clone(), (*file).into()))
            })
            .collect();
        serde_json::json!({ "metadata": {}, "weight_map": map }).to_string()
    }

    #[test]
    fn sharded_checkpoints_load_through_their_index() {
        let tensors = whisper_tensors(&Tiny::SMALL, "model.");
        let (first, second) = tensors.split_at(tensors.len() / 2);
        let shards = [
            ("model-00001-of-00002.safetensors", first.to_vec()),
            ("model-00002-of-00002.safetensors", second.to_vec()),
        ];
        let dir = TempDir::new().unwrap();
        write_sharded(dir.path(), &index_json(&shards), &shards);
        assert_weights_match(&load(&dir).unwrap().weights, &Tiny::SMALL);

        fs::remove_file(dir.path().join(shards[1].0)).unwrap();
        let err = load(&dir).unwrap_err();
        assert!(matches!(err, LoadError::Hf(HfError::Io { .. })), "{err}");
        assert_names(&err, &["model-00002-of-00002.safetensors"]);
    }

    #[test]
    fn shard_indexes_are_checked() {
        let tensors = whisper_tensors(&Tiny::SMALL, "model.");
        let shards = [
            ("a.safetensors", tensors.clone()),
            ("b.safetensors", tensors[..1].to_vec()),
        ];
        let dir = TempDir::new().unwrap();
        write_sharded(dir.path(), &index_json(&shards), &shards);
        let err = load(&dir).unwrap_err();
        assert!(
            matches!(err, LoadError::Hf(HfError::Duplicate { .. })),
            "{err}"
        );
        assert_names(&err, &["a.safetensors", "b.safetensors", &tensors[0].0]);

        for index in [
            r#"{"weight_map": {"x": "../outside.safetensors"}}"#,
            r#"{"weight_map": {"x": "/abs.safetensors"}}"#,
            r#"{"weight_map": {}}"#,
            r#"{"metadata": {}}"#,
            "not json",
        ] {
            fs::write(dir.path().join(INDEX_FILE), index).unwrap();
            let err = load(&dir).unwrap_err();
            assert!(
                matches!(err, LoadError::Hf(HfError::Index { .. })),
                "{index}: {err}"
            );
            assert_names(&err, &[INDEX_FILE]);
        }
    }
}
