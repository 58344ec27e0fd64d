//! The `config.json` (and `generation_config.json`) fields a model directory ships: a JSON
//! object with typed, range-checked readers, and the alignment heads' defaults.

use super::SourceError;
use crate::whisper::dims::ModelDims;
use serde_json::{Map, Value};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// A JSON object read from a model directory, with typed, range-checked field readers.
/// A field that is absent or `null` reads as `None`; a field of the wrong type is an error
/// naming the file and the field.
pub(crate) struct JsonFile {
    path: PathBuf,
    root: Map<String, Value>,
}

impl JsonFile {
    /// `Ok(None)` if the file does not exist.
    pub(crate) fn read_optional(path: &Path) -> Result<Option<Self>, SourceError> {
        let text = match fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(SourceError::Io {
                    path: path.to_owned(),
                    source,
                })
            }
        };
        let value = serde_json::from_str(&text).map_err(|source| SourceError::Json {
            path: path.to_owned(),
            source,
        })?;
        match value {
            Value::Object(root) => Ok(Some(JsonFile {
                path: path.to_owned(),
                root,
            })),
            _ => Err(SourceError::Config {
                path: path.to_owned(),
                field: "(top level)".to_owned(),
                reason: "is not a JSON object".to_owned(),
            }),
        }
    }

    fn get(&self, field: &str) -> Option<&Value> {
        self.root.get(field).filter(|v| !v.is_null())
    }

    fn error(&self, field: &str, reason: impl Into<String>) -> SourceError {
        SourceError::Config {
            path: self.path.clone(),
            field: field.to_owned(),
            reason: reason.into(),
        }
    }

    /// A positive integer (a head count).
    pub(crate) fn count(&self, field: &str) -> Result<Option<usize>, SourceError> {
        let Some(value) = self.get(field) else {
            return Ok(None);
        };
        match value.as_u64().and_then(|n| usize::try_from(n).ok()) {
            Some(n) if n > 0 => Ok(Some(n)),
            _ => Err(self.error(field, format!("must be a positive integer, found {value}"))),
        }
    }

    /// A list of token ids below `n_vocab`.
    pub(crate) fn token_ids(
        &self,
        field: &str,
        n_vocab: usize,
    ) -> Result<Option<Vec<u32>>, SourceError> {
        let Some(value) = self.get(field) else {
            return Ok(None);
        };
        let items = value
            .as_array()
            .ok_or_else(|| self.error(field, "must be a list of token ids"))?;
        let ids = items
            .iter()
            .map(|item| self.token_id(field, item, n_vocab))
            .collect::<Result<_, _>>()?;
        Ok(Some(ids))
    }

    /// An object mapping names to token ids (HF `lang_to_id`); the ids in ascending order.
    pub(crate) fn token_id_map(
        &self,
        field: &str,
        n_vocab: usize,
    ) -> Result<Option<Vec<u32>>, SourceError> {
        let Some(value) = self.get(field) else {
            return Ok(None);
        };
        let entries = value
            .as_object()
            .ok_or_else(|| self.error(field, "must be an object mapping names to token ids"))?;
        let mut ids = entries
            .values()
            .map(|item| self.token_id(field, item, n_vocab))
            .collect::<Result<Vec<_>, _>>()?;
        ids.sort_unstable();
        Ok(Some(ids))
    }

    fn token_id(&self, field: &str, item: &Value, n_vocab: usize) -> Result<u32, SourceError> {
        match item.as_u64().and_then(|id| u32::try_from(id).ok()) {
            Some(id) if (id as usize) < n_vocab => Ok(id),
            Some(id) => Err(self.error(
                field,
                format!("holds token id {id}, beyond the model's {n_vocab} tokens"),
            )),
            None => Err(self.error(field, format!("holds {item}, which is not a token id"))),
        }
    }

    /// A list of `[layer, head]` pairs inside the decoder of `dims`.
    pub(crate) fn alignment_heads(
        &self,
        field: &str,
        dims: &ModelDims,
    ) -> Result<Option<Vec<(usize, usize)>>, SourceError> {
        let Some(value) = self.get(field) else {
            return Ok(None);
        };
        let items = value
            .as_array()
            .ok_or_else(|| self.error(field, "must be a list of [layer, head] pairs"))?;
        let heads = items
            .iter()
            .map(|item| self.alignment_head(field, item, dims))
            .collect::<Result<_, _>>()?;
        Ok(Some(heads))
    }

    fn alignment_head(
        &self,
        field: &str,
        item: &Value,
        dims: &ModelDims,
    ) -> Result<(usize, usize), SourceError> {
        let index = |v: &Value| v.as_u64().and_then(|n| usize::try_from(n).ok());
        let pair = match item.as_array().map(Vec::as_slice) {
            Some([layer, head]) => index(layer).zip(index(head)),
            _ => None,
        };
        match pair {
            Some((layer, head)) if layer < dims.n_text_layer && head < dims.n_text_head => {
                Ok((layer, head))
            }
            Some((layer, head)) => Err(self.error(
                field,
                format!(
                    "names layer {layer} head {head}, outside the decoder's {} layers × {} heads",
                    dims.n_text_layer, dims.n_text_head
                ),
            )),
            None => Err(self.error(
                field,
                format!("holds {item}, which is not a [layer, head] pair"),
            )),
        }
    }
}

/// The first `Some` that `read` finds in `files`, in order (earlier files take precedence).
pub(crate) fn first_defined<T>(
    files: &[&JsonFile],
    read: impl Fn(&JsonFile) -> Result<Option<T>, SourceError>,
) -> Result<Option<T>, SourceError> {
    for file in files {
        if let Some(value) = read(file)? {
            return Ok(Some(value));
        }
    }
    Ok(None)
}

/// OpenAI's default when a checkpoint names no alignment heads: every head of the last half of
/// the decoder layers (`all_heads[n_text_layer // 2:] = True` in `whisper/model.py`).
pub(crate) fn default_alignment_heads(dims: &ModelDims) -> Vec<(usize, usize)> {
    (dims.n_text_layer / 2..dims.n_text_layer)
        .flat_map(|layer| (0..dims.n_text_head).map(move |head| (layer, head)))
        .collect()
}

/// An explicit, non-empty list of alignment heads, else OpenAI's default.
pub(crate) fn alignment_heads_or_default(
    listed: Option<Vec<(usize, usize)>>,
    dims: &ModelDims,
) -> Vec<(usize, usize)> {
    match listed {
        Some(heads) if !heads.is_empty() => heads,
        _ => default_alignment_heads(dims),
    }
}
