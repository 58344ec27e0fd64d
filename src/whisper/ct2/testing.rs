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
