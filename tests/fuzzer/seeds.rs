//! Valid inputs to start fuzzing from: tiny Whisper models in both layouts (the same tensors
//! the real ones have, at width 8), tokenizers, WAVs, and the app's own JSON files as its own
//! writers produce them.

use std::collections::BTreeMap;
use std::path::Path;

use safetensors::tensor::{Dtype, TensorView};
use serde_json::{json, Value};

/// A tiny model's dimensions (the loader infers the rest from the tensor shapes).
pub const D: usize = 8;
pub const N_MELS: usize = 4;
pub const N_VOCAB: usize = 16;
pub const AUDIO_CTX: usize = 6;
pub const TEXT_CTX: usize = 5;
pub const LAYERS: usize = 2;
pub const HEADS: usize = 2;

/// Deterministic small values (exact in bfloat16).
fn values(n: usize, salt: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 7 + salt * 13) % 31) as f32 / 16.0 - 1.0)
        .collect()
}

/// One tensor: shape and f32 values.
struct T {
    shape: Vec<usize>,
    data: Vec<f32>,
}

fn t(shape: &[usize], salt: usize) -> T {
    T {
        shape: shape.to_vec(),
        data: values(shape.iter().product(), salt),
    }
}

/// The tensors of a tiny Whisper under OpenAI's `state_dict` names.
fn openai_tensors() -> BTreeMap<String, T> {
    let mut m = BTreeMap::new();
    let mut salt = 0;
    let mut put = |name: String, shape: &[usize]| {
        salt += 1;
        m.insert(name, t(shape, salt));
    };
    put("encoder.conv1.weight".into(), &[D, N_MELS, 3]);
    put("encoder.conv1.bias".into(), &[D]);
    put("encoder.conv2.weight".into(), &[D, D, 3]);
    put("encoder.conv2.bias".into(), &[D]);
    put("encoder.positional_embedding".into(), &[AUDIO_CTX, D]);
    put("decoder.positional_embedding".into(), &[TEXT_CTX, D]);
    put("decoder.token_embedding.weight".into(), &[N_VOCAB, D]);
    for (norm, _) in [("encoder.ln_post", 0), ("decoder.ln", 1)] {
        put(format!("{norm}.weight"), &[D]);
        put(format!("{norm}.bias"), &[D]);
    }
    for stack in ["encoder", "decoder"] {
        for i in 0..LAYERS {
            let b = format!("{stack}.blocks.{i}");
            let mut attns = vec!["attn"];
            if stack == "decoder" {
                attns.push("cross_attn");
            }
            for attn in attns {
                for p in ["query", "key", "value", "out"] {
                    put(format!("{b}.{attn}.{p}.weight"), &[D, D]);
                    if p != "key" {
                        put(format!("{b}.{attn}.{p}.bias"), &[D]);
                    }
                }
                put(format!("{b}.{attn}_ln.weight"), &[D]);
                put(format!("{b}.{attn}_ln.bias"), &[D]);
            }
            put(format!("{b}.mlp.0.weight"), &[4 * D, D]);
            put(format!("{b}.mlp.0.bias"), &[4 * D]);
            put(format!("{b}.mlp.2.weight"), &[D, 4 * D]);
            put(format!("{b}.mlp.2.bias"), &[D]);
            put(format!("{b}.mlp_ln.weight"), &[D]);
            put(format!("{b}.mlp_ln.bias"), &[D]);
        }
    }
    m
}

fn f32_bytes(data: &[f32]) -> Vec<u8> {
    data.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn bf16_bytes(data: &[f32]) -> Vec<u8> {
    data.iter()
        .flat_map(|x| ((x.to_bits() >> 16) as u16).to_le_bytes())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// CTranslate2.

fn put_string(out: &mut Vec<u8>, s: &str) {
    out.extend(((s.len() + 1) as u16).to_le_bytes());
    out.extend(s.as_bytes());
    out.push(0);
}

/// Rows of `parts` stacked along the first axis (q, k, v as CTranslate2 stores them); a
/// missing part (OpenAI's key bias) is zeros of `len`.
fn stack(o: &BTreeMap<String, T>, parts: &[String], len: usize) -> T {
    let mut data = Vec::new();
    let mut rows = 0;
    let mut rest = Vec::new();
    for part in parts {
        match o.get(part) {
            Some(t) => {
                rows += t.shape[0];
                rest = t.shape[1..].to_vec();
                data.extend(&t.data);
            }
            None => {
                rows += len;
                data.extend(std::iter::repeat_n(0.0, len));
            }
        }
    }
    let mut shape = vec![rows];
    shape.extend(rest);
    T { shape, data }
}

/// A CTranslate2 `model.bin` (version 6) of the tiny model: weights f32, biases bf16.
pub fn ct2_model_bin() -> Vec<u8> {
    let o = openai_tensors();
    let get = |n: &str| {
        let t = &o[n];
        T {
            shape: t.shape.clone(),
            data: t.data.clone(),
        }
    };
    let mut vars: BTreeMap<String, T> = BTreeMap::new();
    for conv in ["conv1", "conv2"] {
        for leaf in ["weight", "bias"] {
            vars.insert(
                format!("encoder/{conv}/{leaf}"),
                get(&format!("encoder.{conv}.{leaf}")),
            );
        }
    }
    vars.insert(
        "encoder/position_encodings/encodings".into(),
        get("encoder.positional_embedding"),
    );
    vars.insert(
        "decoder/position_encodings/encodings".into(),
        get("decoder.positional_embedding"),
    );
    vars.insert(
        "decoder/embeddings/weight".into(),
        get("decoder.token_embedding.weight"),
    );
    for (stack_name, ln) in [("encoder", "encoder.ln_post"), ("decoder", "decoder.ln")] {
        vars.insert(
            format!("{stack_name}/layer_norm/gamma"),
            get(&format!("{ln}.weight")),
        );
        vars.insert(
            format!("{stack_name}/layer_norm/beta"),
            get(&format!("{ln}.bias")),
        );
        for i in 0..LAYERS {
            let (to, from) = (
                format!("{stack_name}/layer_{i}"),
                format!("{stack_name}.blocks.{i}"),
            );
            let mut norm = |to: String, from: String| {
                vars.insert(format!("{to}/gamma"), get(&format!("{from}.weight")));
                vars.insert(format!("{to}/beta"), get(&format!("{from}.bias")));
            };
            norm(
                format!("{to}/self_attention/layer_norm"),
                format!("{from}.attn_ln"),
            );
            norm(format!("{to}/ffn/layer_norm"), format!("{from}.mlp_ln"));
            if stack_name == "decoder" {
                norm(
                    format!("{to}/attention/layer_norm"),
                    format!("{from}.cross_attn_ln"),
                );
            }
            let mut linear = |to: String, from: String| {
                vars.insert(format!("{to}/weight"), get(&format!("{from}.weight")));
                vars.insert(format!("{to}/bias"), get(&format!("{from}.bias")));
            };
            linear(
                format!("{to}/self_attention/linear_1"),
                format!("{from}.attn.out"),
            );
            linear(format!("{to}/ffn/linear_0"), format!("{from}.mlp.0"));
            linear(format!("{to}/ffn/linear_1"), format!("{from}.mlp.2"));
            if stack_name == "decoder" {
                linear(
                    format!("{to}/attention/linear_0"),
                    format!("{from}.cross_attn.query"),
                );
                linear(
                    format!("{to}/attention/linear_2"),
                    format!("{from}.cross_attn.out"),
                );
            }
            let mut stacked = |to: String, attn: String, parts: &[&str]| {
                for leaf in ["weight", "bias"] {
                    let names: Vec<String> =
                        parts.iter().map(|p| format!("{attn}.{p}.{leaf}")).collect();
                    vars.insert(format!("{to}/{leaf}"), stack(&o, &names, D));
                }
            };
            stacked(
                format!("{to}/self_attention/linear_0"),
                format!("{from}.attn"),
                &["query", "key", "value"],
            );
            if stack_name == "decoder" {
                stacked(
                    format!("{to}/attention/linear_1"),
                    format!("{from}.cross_attn"),
                    &["key", "value"],
                );
            }
        }
    }
    let mut out = Vec::new();
    out.extend(6u32.to_le_bytes());
    put_string(&mut out, "WhisperSpec");
    out.extend(3u32.to_le_bytes());
    // The scalars: head counts (int16), activation and pre_norm (int8).
    let scalars: [(&str, u8, Vec<u8>); 4] = [
        (
            "encoder/num_heads",
            2,
            (HEADS as i16).to_le_bytes().to_vec(),
        ),
        (
            "decoder/num_heads",
            2,
            (HEADS as i16).to_le_bytes().to_vec(),
        ),
        ("decoder/activation", 1, vec![3]),
        ("decoder/pre_norm", 1, vec![1]),
    ];
    out.extend(((vars.len() + scalars.len()) as u32).to_le_bytes());
    for (name, t) in &vars {
        put_string(&mut out, name);
        out.push(t.shape.len() as u8);
        for &d in &t.shape {
            out.extend((d as u32).to_le_bytes());
        }
        let (dtype, bytes) = if name.ends_with("/bias") {
            (5u8, bf16_bytes(&t.data))
        } else {
            (0u8, f32_bytes(&t.data))
        };
        out.push(dtype);
        out.extend((bytes.len() as u32).to_le_bytes());
        out.extend(bytes);
    }
    for (name, dtype, bytes) in scalars {
        put_string(&mut out, name);
        out.push(0);
        out.push(dtype);
        out.extend((bytes.len() as u32).to_le_bytes());
        out.extend(bytes);
    }
    out.extend(1u32.to_le_bytes());
    put_string(&mut out, "decoder/projection/weight");
    put_string(&mut out, "decoder/embeddings/weight");
    out
}

/// A CTranslate2 `config.json` as the converter writes it (Whisper's generation fields).
pub fn ct2_config_json() -> Vec<u8> {
    let last = LAYERS - 1;
    serde_json::to_vec_pretty(&json!({
        "alignment_heads": [[last, 0], [last, 1]],
        "lang_ids": [12, 10, 11],
        "suppress_ids": [1, 2],
        "suppress_ids_begin": [3, 4],
    }))
    .unwrap()
}

// ---------------------------------------------------------------------------------------------
// Hugging Face.

const HF_RENAMES: &[(&str, &str)] = &[
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

/// The tiny model's tensors under Hugging Face names (`model.` prefix), split in `shards`
/// safetensors files by name order: (tensor names, file bytes) per shard.
pub fn hf_shards(shards: usize) -> Vec<(Vec<String>, Vec<u8>)> {
    let tensors: Vec<(String, Vec<usize>, Vec<u8>)> = openai_tensors()
        .into_iter()
        .map(|(name, t)| {
            let hf = HF_RENAMES
                .iter()
                .fold(name, |n, (from, to)| n.replace(from, to));
            // Biases as bf16, the rest f32.
            let bytes = if hf.ends_with(".bias") {
                bf16_bytes(&t.data)
            } else {
                f32_bytes(&t.data)
            };
            (format!("model.{hf}"), t.shape, bytes)
        })
        .collect();
    let per = tensors.len().div_ceil(shards);
    tensors
        .chunks(per)
        .map(|chunk| {
            let views: Vec<(String, TensorView<'_>)> = chunk
                .iter()
                .map(|(name, shape, bytes)| {
                    let dtype = if name.ends_with(".bias") {
                        Dtype::BF16
                    } else {
                        Dtype::F32
                    };
                    let view = TensorView::new(dtype, shape.clone(), bytes).expect("a view");
                    (name.clone(), view)
                })
                .collect();
            let names = chunk.iter().map(|(n, _, _)| n.clone()).collect();
            (
                names,
                safetensors::serialize(views, None).expect("serialises"),
            )
        })
        .collect()
}

/// `config.json` of a Hugging Face Whisper: head counts and (older exports) generation fields.
pub fn hf_config_json() -> Vec<u8> {
    serde_json::to_vec_pretty(&json!({
        "architectures": ["WhisperForConditionalGeneration"],
        "encoder_attention_heads": HEADS,
        "decoder_attention_heads": HEADS,
        "d_model": D,
        "num_mel_bins": N_MELS,
        "vocab_size": N_VOCAB,
        "suppress_tokens": [1, 2],
        "begin_suppress_tokens": [3],
    }))
    .unwrap()
}

/// `generation_config.json` of a Hugging Face Whisper.
pub fn hf_generation_config_json() -> Vec<u8> {
    serde_json::to_vec_pretty(&json!({
        "alignment_heads": [[LAYERS - 1, 1], [0, 0]],
        "lang_to_id": {"<|pl|>": 12, "<|en|>": 10, "<|de|>": 11},
        "suppress_tokens": [1, 2],
        "begin_suppress_tokens": [3, 4],
        "no_timestamps_token_id": 13,
    }))
    .unwrap()
}

/// `model.safetensors.index.json` for shards named `model-0000i-of-0000n.safetensors`.
pub fn hf_index_json(shards: &[(Vec<String>, Vec<u8>)]) -> Vec<u8> {
    let n = shards.len();
    let mut map = serde_json::Map::new();
    let mut total = 0;
    for (i, (names, bytes)) in shards.iter().enumerate() {
        total += bytes.len();
        for name in names {
            map.insert(name.clone(), Value::from(shard_name(i, n)));
        }
    }
    serde_json::to_vec_pretty(&json!({"metadata": {"total_size": total}, "weight_map": map}))
        .unwrap()
}

pub fn shard_name(i: usize, n: usize) -> String {
    format!("model-{:05}-of-{n:05}.safetensors", i + 1)
}

// ---------------------------------------------------------------------------------------------
// Tokenizers.

/// GPT-2's byte → character table (`bytes_to_unicode`).
fn byte_chars() -> Vec<char> {
    let printable = |b: u32| (33..=126).contains(&b) || (161..=172).contains(&b) || b >= 174;
    let mut extra = 0;
    (0..256u32)
        .map(|b| {
            if printable(b) {
                char::from_u32(b).unwrap()
            } else {
                extra += 1;
                char::from_u32(255 + extra).unwrap()
            }
        })
        .collect()
}

/// A small byte-level BPE `tokenizer.json` with Whisper's special tokens: the 256 byte
/// tokens, a few merges, and the added tokens of a multilingual model's start.
pub fn small_tokenizer_json() -> Vec<u8> {
    let chars = byte_chars();
    let mut vocab = serde_json::Map::new();
    for (id, c) in chars.iter().enumerate() {
        vocab.insert(c.to_string(), Value::from(id));
    }
    let merges = ["Ġ t", "Ġ a", "h e", "i n", "r e", "o n", "Ġt he", "e r"];
    let mut next = 256;
    for m in merges {
        let joined = m.replace(' ', "");
        if !vocab.contains_key(&joined) {
            vocab.insert(joined, Value::from(next));
            next += 1;
        }
    }
    let mut added = Vec::new();
    let mut id = next;
    let mut add = |content: &str| {
        added.push(json!({"id": id, "content": content, "special": true,
                          "single_word": false, "lstrip": false, "rstrip": false,
                          "normalized": false}));
        id += 1;
    };
    add("<|endoftext|>");
    add("<|startoftranscript|>");
    for lang in ["en", "zh", "de", "pl"] {
        add(&format!("<|{lang}|>"));
    }
    add("<|translate|>");
    add("<|transcribe|>");
    add("<|startoflm|>");
    add("<|startofprev|>");
    add("<|nospeech|>");
    add("<|notimestamps|>");
    add("<|0.00|>");
    add("<|0.02|>");
    serde_json::to_vec_pretty(&json!({
        "version": "1.0",
        "added_tokens": added,
        "model": {"type": "BPE", "vocab": vocab, "merges": merges},
    }))
    .unwrap()
}

/// The real `tokenizer.json` of an installed test model, if there is one.
pub fn installed(model: &str, file: &str) -> Option<Vec<u8>> {
    let dir = whisper_dictation::paths::models_dir().ok()?.join(model);
    std::fs::read(dir.join(file)).ok()
}

// ---------------------------------------------------------------------------------------------
// WAV.

/// Short WAVs in every layout the reader takes, written by `hound`.
pub fn wavs() -> Vec<Vec<u8>> {
    use hound::{SampleFormat, WavSpec, WavWriter};
    let layouts = [
        (1, 16_000, 16, SampleFormat::Int),
        (2, 44_100, 16, SampleFormat::Int),
        (1, 8_000, 8, SampleFormat::Int),
        (1, 22_050, 24, SampleFormat::Int),
        (3, 48_000, 32, SampleFormat::Int),
        (2, 16_000, 32, SampleFormat::Float),
    ];
    layouts
        .into_iter()
        .map(|(channels, sample_rate, bits, format)| {
            let spec = WavSpec {
                channels,
                sample_rate,
                bits_per_sample: bits,
                sample_format: format,
            };
            let mut cursor = std::io::Cursor::new(Vec::new());
            let mut w = WavWriter::new(&mut cursor, spec).unwrap();
            let frames = 64;
            for i in 0..frames * usize::from(channels) {
                let x = ((i as f32) * 0.3).sin() * 0.5;
                match format {
                    SampleFormat::Float => w.write_sample(x).unwrap(),
                    SampleFormat::Int => {
                        let scale = (1i64 << (bits - 1)) as f32 - 1.0;
                        w.write_sample((x * scale) as i32).unwrap()
                    }
                }
            }
            w.finalize().unwrap();
            cursor.into_inner()
        })
        .collect()
}

/// The head of a real recording from the committed clips (its first 8 KiB: a valid header
/// and a data chunk cut short, which the reader keeps).
pub fn clip_head(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/clips")
        .join(name);
    let mut bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    bytes.truncate(8192);
    bytes
}
