//! The Hugging Face layout on the real weights. No HF checkpoint is installed (no hub access), so
//! one is built here from the installed CTranslate2 `base` model: every tensor of its `model.bin`
//! renamed (and the stacked q/k/v and cross-attention k/v split) into an
//! `openai/whisper-base`-style `model.safetensors`, float16 kept, next to HF `config.json` and
//! `generation_config.json` and the same `tokenizer.json`. Both directories must then load into
//! bit-identical weights and generation settings, and transcribe real speech identically.

mod common;

use safetensors::tensor::TensorView;
use safetensors::Dtype;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::fs;
use std::path::Path;
use tch::{Kind, Tensor};
use tempfile::TempDir;
use whisper_dictation::audio::wav::read_wav_16k;
use whisper_dictation::whisper::ct2::Ct2Model;
use whisper_dictation::whisper::loader::{detect_layout, load_weights};
use whisper_dictation::whisper::weight_source::{DType, RawTensor};
use whisper_dictation::whisper::weights::{LayerNorm, Linear, SelfAttention, WhisperWeights};
use whisper_dictation::whisper::{Engine, Layout, LoadOptions, TranscribeParams, Transcript};

/// CTranslate2 scalars that are hyper-parameters, not weights. `num_heads` becomes
/// `encoder_attention_heads` / `decoder_attention_heads`; the rest describe what Whisper always
/// is (GELU, pre-norm, unscaled embeddings, no ALiBi), which HF spells as fixed config fields.
const CT2_SCALARS: &[&str] = &[
    "num_heads",
    "activation",
    "alibi",
    "alignment_heads",
    "alignment_layer",
    "pre_norm",
    "scale_embeddings",
    "start_from_zero_embedding",
];

/// The HF names of the tensors a CTranslate2 tensor holds, stacked along its first axis in this
/// order. `None` marks a piece HF does not store: OpenAI's key projections have no bias, and
/// CTranslate2 stacks zeros in its place. `None` overall for a scalar of [`CT2_SCALARS`].
fn hf_pieces(ct2: &str) -> Option<Vec<Option<String>>> {
    let parts: Vec<&str> = ct2.split('/').collect();
    let unknown = || -> ! { panic!("no Hugging Face name for CTranslate2 tensor `{ct2}`") };
    let [stack @ ("encoder" | "decoder"), rest @ ..] = parts.as_slice() else {
        unknown()
    };
    let model = format!("model.{stack}");
    let hf = |leaf: &str| {
        match leaf {
            "gamma" => "weight",
            "beta" => "bias",
            other => other,
        }
        .to_owned()
    };
    let one = |name: String| Some(vec![Some(name)]);
    match rest {
        [scalar] if CT2_SCALARS.contains(scalar) => None,
        [conv @ ("conv1" | "conv2"), leaf] => one(format!("{model}.{conv}.{}", hf(leaf))),
        ["position_encodings", "encodings"] => one(format!("{model}.embed_positions.weight")),
        ["embeddings", "weight"] => one(format!("{model}.embed_tokens.weight")),
        ["layer_norm", leaf] => one(format!("{model}.layer_norm.{}", hf(leaf))),
        [layer, attention, module, leaf] => {
            let i = layer.strip_prefix("layer_").unwrap_or_else(|| unknown());
            let modules: &[&str] = match (*attention, *module) {
                ("self_attention", "layer_norm") => &["self_attn_layer_norm"],
                ("self_attention", "linear_0") => {
                    &["self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj"]
                }
                ("self_attention", "linear_1") => &["self_attn.out_proj"],
                ("attention", "layer_norm") => &["encoder_attn_layer_norm"],
                ("attention", "linear_0") => &["encoder_attn.q_proj"],
                ("attention", "linear_1") => &["encoder_attn.k_proj", "encoder_attn.v_proj"],
                ("attention", "linear_2") => &["encoder_attn.out_proj"],
                ("ffn", "layer_norm") => &["final_layer_norm"],
                ("ffn", "linear_0") => &["fc1"],
                ("ffn", "linear_1") => &["fc2"],
                _ => unknown(),
            };
            let leaf = hf(leaf);
            let piece = |m: &&str| {
                let keyless = m.ends_with("k_proj") && leaf == "bias";
                (!keyless).then(|| format!("{model}.layers.{i}.{m}.{leaf}"))
            };
            Some(modules.iter().map(piece).collect())
        }
        _ => unknown(),
    }
}

fn safetensors_dtype(dtype: DType) -> Dtype {
    match dtype {
        DType::F32 => Dtype::F32,
        DType::F16 => Dtype::F16,
        DType::BF16 => Dtype::BF16,
        other => panic!("{other:?} weights (quantized?) have no plain HF equivalent"),
    }
}

/// `raw` cut into `parts` equal slices along its first axis: (shape, bytes) each.
fn split_rows<'a>(raw: &RawTensor<'a>, parts: usize) -> Vec<(Vec<usize>, &'a [u8])> {
    let mut shape = raw.shape().to_vec();
    assert_eq!(shape[0] % parts, 0, "{shape:?} does not split in {parts}");
    shape[0] /= parts;
    let bytes = raw.data().len() / parts;
    raw.data()
        .chunks_exact(bytes)
        .map(|data| (shape.clone(), data))
        .collect()
}

/// Token ids by content, from the added (special) tokens of a `tokenizer.json`.
fn special_tokens(tokenizer_json: &Path) -> HashMap<String, u64> {
    let json: Value = serde_json::from_str(&fs::read_to_string(tokenizer_json).unwrap()).unwrap();
    json["added_tokens"]
        .as_array()
        .expect("added_tokens")
        .iter()
        .map(|t| {
            (
                t["content"].as_str().unwrap().to_owned(),
                t["id"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn scalar(model: &Ct2Model, name: &str) -> i64 {
    model.tensor(name).and_then(|t| t.int_scalar()).unwrap()
}

fn shape(model: &Ct2Model, name: &str) -> Vec<usize> {
    model.tensor(name).unwrap().shape().to_vec()
}

fn layer_count(model: &Ct2Model, stack: &str) -> usize {
    (0..)
        .take_while(|i| {
            let prefix = format!("{stack}/layer_{i}/");
            model.names().any(|n| n.starts_with(&prefix))
        })
        .count()
}

/// Writes an `openai/whisper-base`-style checkpoint of the CTranslate2 model in `ct2_dir` into
/// `out`; returns how many tensors `model.safetensors` holds.
fn write_hf_checkpoint(ct2_dir: &Path, out: &Path) -> usize {
    let model = Ct2Model::open(&ct2_dir.join("model.bin")).unwrap();
    let mut names: Vec<&str> = model.names().collect();
    names.sort_unstable();
    let mut tensors = Vec::new();
    for name in names {
        let Some(pieces) = hf_pieces(name) else {
            continue;
        };
        let raw = model.tensor(name).unwrap();
        for (hf, (shape, data)) in pieces.iter().zip(split_rows(&raw, pieces.len())) {
            match hf {
                Some(hf) => {
                    let dtype = safetensors_dtype(raw.dtype());
                    tensors.push((hf.clone(), TensorView::new(dtype, shape, data).unwrap()));
                }
                None => assert!(
                    data.iter().all(|&b| b == 0),
                    "`{name}` holds a key bias that is not +0.0, which HF cannot store"
                ),
            }
        }
    }
    let count = tensors.len();
    let metadata = HashMap::from([("format".to_owned(), "pt".to_owned())]);
    safetensors::serialize_to_file(tensors, Some(metadata), &out.join("model.safetensors"))
        .unwrap();

    fs::copy(ct2_dir.join("tokenizer.json"), out.join("tokenizer.json")).unwrap();
    let ct2_config: Value =
        serde_json::from_str(&fs::read_to_string(ct2_dir.join("config.json")).unwrap()).unwrap();
    let (config, generation) = hf_configs(
        &model,
        &ct2_config,
        &special_tokens(&out.join("tokenizer.json")),
    );
    for (file, json) in [
        ("config.json", config),
        ("generation_config.json", generation),
    ] {
        fs::write(out.join(file), serde_json::to_string_pretty(&json).unwrap()).unwrap();
    }
    count
}

/// `config.json` and `generation_config.json` as `openai/whisper-base` ships them, with the
/// numbers taken from the CTranslate2 model and its `config.json`, the ids from the tokenizer.
fn hf_configs(model: &Ct2Model, ct2: &Value, tokens: &HashMap<String, u64>) -> (Value, Value) {
    let id = |token: &str| tokens[token];
    let [vocab, d_model] = shape(model, "decoder/embeddings/weight")[..] else {
        panic!("embedding rank")
    };
    let suppress = &ct2["suppress_ids"];
    let begin_suppress = &ct2["suppress_ids_begin"];
    let (eot, sot) = (id("<|endoftext|>"), id("<|startoftranscript|>"));
    let config = json!({
        "_name_or_path": "openai/whisper-base",
        "activation_dropout": 0.0,
        "activation_function": "gelu",
        "architectures": ["WhisperForConditionalGeneration"],
        "attention_dropout": 0.0,
        "begin_suppress_tokens": begin_suppress,
        "bos_token_id": eot,
        "d_model": d_model,
        "decoder_attention_heads": scalar(model, "decoder/num_heads"),
        "decoder_ffn_dim": shape(model, "decoder/layer_0/ffn/linear_0/weight")[0],
        "decoder_layerdrop": 0.0,
        "decoder_layers": layer_count(model, "decoder"),
        "decoder_start_token_id": sot,
        "dropout": 0.0,
        "encoder_attention_heads": scalar(model, "encoder/num_heads"),
        "encoder_ffn_dim": shape(model, "encoder/layer_0/ffn/linear_0/weight")[0],
        "encoder_layerdrop": 0.0,
        "encoder_layers": layer_count(model, "encoder"),
        "eos_token_id": eot,
        "forced_decoder_ids": [[1, id("<|en|>")], [2, id("<|transcribe|>")],
                               [3, id("<|notimestamps|>")]],
        "init_std": 0.02,
        "is_encoder_decoder": true,
        "max_length": 448,
        "max_source_positions": shape(model, "encoder/position_encodings/encodings")[0],
        "max_target_positions": shape(model, "decoder/position_encodings/encodings")[0],
        "model_type": "whisper",
        "num_hidden_layers": layer_count(model, "encoder"),
        "num_mel_bins": shape(model, "encoder/conv1/weight")[1],
        "pad_token_id": eot,
        "scale_embedding": false,
        "suppress_tokens": suppress,
        "torch_dtype": "float16",
        "transformers_version": "4.27.0.dev0",
        "use_cache": true,
        "use_weighted_layer_sum": false,
        "vocab_size": vocab,
    });
    let by_id: HashMap<u64, &str> = tokens.iter().map(|(t, &i)| (i, t.as_str())).collect();
    let lang_to_id: Map<String, Value> = ct2["lang_ids"]
        .as_array()
        .expect("lang_ids")
        .iter()
        .map(|i| (by_id[&i.as_u64().unwrap()].to_owned(), i.clone()))
        .collect();
    let generation = json!({
        "alignment_heads": ct2["alignment_heads"],
        "begin_suppress_tokens": begin_suppress,
        "bos_token_id": eot,
        "decoder_start_token_id": sot,
        "eos_token_id": eot,
        "forced_decoder_ids": [[1, null], [2, id("<|transcribe|>")]],
        "is_multilingual": true,
        "lang_to_id": lang_to_id,
        "max_initial_timestamp_index": 50,
        "max_length": 448,
        "no_timestamps_token_id": id("<|notimestamps|>"),
        "pad_token_id": eot,
        "prev_sot_token_id": id("<|startofprev|>"),
        "return_timestamps": false,
        "suppress_tokens": suppress,
        "task_to_id": {"transcribe": id("<|transcribe|>"), "translate": id("<|translate|>")},
        "transformers_version": "4.31.0.dev0",
    });
    (config, generation)
}

/// The installed CTranslate2 `base` and a temp dir holding its HF twin.
fn both_layouts() -> (std::path::PathBuf, TempDir) {
    let ct2 = common::model_dir("base");
    let hf = TempDir::new().unwrap();
    let model = Ct2Model::open(&ct2.join("model.bin")).unwrap();
    // Per layer: its norm, q, k (no bias), v, out of the self-attention (9), two more norms and
    // fc1, fc2 (6), and in the decoder 9 more for the cross-attention; then convs 4, positions
    // 2, token embedding 1, final norms 4.
    let expected = 15 * layer_count(&model, "encoder") + 24 * layer_count(&model, "decoder") + 11;
    assert_eq!(write_hf_checkpoint(&ct2, hf.path()), expected);
    (ct2, hf)
}

// ---------------------------------------------------------------------------------------------
// Comparing loaded weights.

fn linear<'a>(out: &mut Vec<(String, &'a Tensor)>, name: &str, l: &'a Linear) {
    let weight = l.weight.float().expect("loaded weights are floating point");
    out.push((format!("{name}.weight"), weight));
    if let Some(bias) = &l.bias {
        out.push((format!("{name}.bias"), bias));
    }
}

fn norm<'a>(out: &mut Vec<(String, &'a Tensor)>, name: &str, n: &'a LayerNorm) {
    out.push((format!("{name}.weight"), &n.weight));
    out.push((format!("{name}.bias"), &n.bias));
}

fn self_attention<'a>(out: &mut Vec<(String, &'a Tensor)>, name: &str, a: &'a SelfAttention) {
    norm(out, &format!("{name}.ln"), &a.ln);
    linear(out, &format!("{name}.qkv"), &a.qkv);
    linear(out, &format!("{name}.out"), &a.out);
}

/// Every tensor of `w`, named by its field path, in a fixed order.
fn all_tensors(w: &WhisperWeights) -> Vec<(String, &Tensor)> {
    let (e, d) = (&w.encoder, &w.decoder);
    let mut out = vec![
        ("encoder.conv1.weight".to_owned(), &e.conv1.weight),
        ("encoder.conv1.bias".to_owned(), &e.conv1.bias),
        ("encoder.conv2.weight".to_owned(), &e.conv2.weight),
        ("encoder.conv2.bias".to_owned(), &e.conv2.bias),
        (
            "encoder.positional_embedding".to_owned(),
            &e.positional_embedding,
        ),
    ];
    for (i, b) in e.blocks.iter().enumerate() {
        self_attention(&mut out, &format!("encoder.blocks.{i}.attn"), &b.attn);
        norm(&mut out, &format!("encoder.blocks.{i}.mlp.ln"), &b.mlp.ln);
        linear(&mut out, &format!("encoder.blocks.{i}.mlp.fc1"), &b.mlp.fc1);
        linear(&mut out, &format!("encoder.blocks.{i}.mlp.fc2"), &b.mlp.fc2);
    }
    norm(&mut out, "encoder.ln_post", &e.ln_post);
    out.push(("decoder.token_embedding".to_owned(), &d.token_embedding));
    out.push((
        "decoder.positional_embedding".to_owned(),
        &d.positional_embedding,
    ));
    for (i, b) in d.blocks.iter().enumerate() {
        let p = format!("decoder.blocks.{i}");
        self_attention(&mut out, &format!("{p}.attn"), &b.attn);
        norm(&mut out, &format!("{p}.cross_attn.ln"), &b.cross_attn.ln);
        linear(
            &mut out,
            &format!("{p}.cross_attn.query"),
            &b.cross_attn.query,
        );
        linear(&mut out, &format!("{p}.cross_attn.kv"), &b.cross_attn.kv);
        linear(&mut out, &format!("{p}.cross_attn.out"), &b.cross_attn.out);
        norm(&mut out, &format!("{p}.mlp.ln"), &b.mlp.ln);
        linear(&mut out, &format!("{p}.mlp.fc1"), &b.mlp.fc1);
        linear(&mut out, &format!("{p}.mlp.fc2"), &b.mlp.fc2);
    }
    norm(&mut out, "decoder.ln", &d.ln);
    out
}

/// Same shape, kind and bits (unlike `equal`, which calls -0.0 and 0.0 equal and NaN unequal).
fn same_bits(a: &Tensor, b: &Tensor) -> bool {
    let as_int = match a.kind() {
        Kind::Float => Kind::Int,
        Kind::Half | Kind::BFloat16 => Kind::Int16,
        Kind::Double => Kind::Int64,
        other => panic!("unexpected weight kind {other:?}"),
    };
    a.size() == b.size()
        && a.kind() == b.kind()
        && a.view_dtype(as_int).equal(&b.view_dtype(as_int))
}

#[test]
fn both_layouts_load_into_bit_identical_weights_and_generation_settings() {
    let (ct2_dir, hf_dir) = both_layouts();
    assert_eq!(detect_layout(&ct2_dir).unwrap(), Layout::CTranslate2);
    assert_eq!(detect_layout(hf_dir.path()).unwrap(), Layout::HuggingFace);
    let ct2 = load_weights(&ct2_dir, &LoadOptions::default()).unwrap();
    let hf = load_weights(hf_dir.path(), &LoadOptions::default()).unwrap();
    assert_eq!(
        (ct2.layout, hf.layout),
        (Layout::CTranslate2, Layout::HuggingFace)
    );
    assert_eq!(ct2.weights.dims, hf.weights.dims);
    assert_eq!(ct2.generation, hf.generation);
    assert!(!hf.generation.suppress_ids.is_empty() && hf.generation.lang_ids.is_some());

    let (a, b) = (all_tensors(&ct2.weights), all_tensors(&hf.weights));
    let names = |v: &[(String, &Tensor)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b), "the same tensors, biases included");
    let dims = ct2.weights.dims;
    // Convs 4 + positions 1, per encoder block 12 (attention ln, qkv, out; mlp ln, fc1, fc2),
    // ln_post 2, token and position tables 2, per decoder block 12 + 8 (cross ln, q, kv, out),
    // final ln 2: every Linear has its bias.
    assert_eq!(
        a.len(),
        5 + 12 * dims.n_audio_layer + 2 + 2 + 20 * dims.n_text_layer + 2
    );
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert_eq!(x.kind(), Kind::Float, "{name}");
        assert!(same_bits(x, y), "{name} differs between the layouts");
    }
}

// ---------------------------------------------------------------------------------------------
// Transcribing with both.

fn transcribe(engine: &Engine, clip: &str, language: Option<&str>) -> Transcript {
    let samples = read_wav_16k(&common::fixtures().join("clips").join(clip)).unwrap();
    let params = TranscribeParams {
        language: language.map(str::to_owned),
        temperatures: vec![0.0],
        ..TranscribeParams::default()
    };
    engine.transcribe(&samples, &params).unwrap()
}

#[test]
fn both_layouts_transcribe_real_speech_identically() {
    let (ct2_dir, hf_dir) = both_layouts();
    let ct2 = Engine::load(&ct2_dir, &LoadOptions::default()).unwrap();
    let hf = Engine::load(hf_dir.path(), &LoadOptions::default()).unwrap();
    assert_eq!(ct2.layout(), Layout::CTranslate2);
    assert_eq!(hf.layout(), Layout::HuggingFace);
    assert_eq!(ct2.generation(), hf.generation());
    for (clip, language) in [("en_slt.wav", None), ("pl_espeak.wav", Some("pl"))] {
        let (x, y) = (
            transcribe(&ct2, clip, language),
            transcribe(&hf, clip, language),
        );
        eprintln!("{clip}: {:?} ({})", x.text, x.language);
        assert!(
            !x.segments.is_empty() && !x.text.trim().is_empty(),
            "{clip}: {x:?}"
        );
        let tokens = |t: &Transcript| {
            t.segments
                .iter()
                .map(|s| s.tokens.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(tokens(&x), tokens(&y), "{clip}: tokens");
        assert_eq!(x.text, y.text, "{clip}: text");
        assert_eq!(x.language, y.language, "{clip}: language");
        // Same weights, same arithmetic: timestamps and scores agree exactly too.
        assert_eq!(x.segments, y.segments, "{clip}: segments");
        assert_eq!(x.language_probability, y.language_probability, "{clip}");
    }
}
