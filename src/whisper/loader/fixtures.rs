//! Generated tiny Whisper models for the loader tests: one set of tensors under OpenAI's
//! `state_dict` names is the ground truth; the CTranslate2 and Hugging Face writers rename
//! and restack it, and [`expected`] restacks it the canonical way to compare against.

use super::*;
use crate::whisper::weight_source::DType;
use std::collections::BTreeMap;

/// Dimensions of a generated model (same width and heads in encoder and decoder).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tiny {
    pub d: usize,
    pub n_mels: usize,
    pub n_vocab: usize,
    pub audio_ctx: usize,
    pub text_ctx: usize,
    pub enc_layers: usize,
    pub dec_layers: usize,
    pub heads: usize,
}

impl Tiny {
    pub(crate) const SMALL: Tiny = Tiny {
        d: 8,
        n_mels: 4,
        n_vocab: 16,
        audio_ctx: 6,
        text_ctx: 5,
        enc_layers: 2,
        dec_layers: 2,
        heads: 2,
    };

    /// large-v3's 128 mels and 51866 tokens at a tiny width, with fewer decoder than
    /// encoder blocks (as large-v3-turbo).
    pub(crate) const LARGE_V3_LIKE: Tiny = Tiny {
        d: 8,
        n_mels: 128,
        n_vocab: 51866,
        audio_ctx: 6,
        text_ctx: 5,
        enc_layers: 3,
        dec_layers: 1,
        heads: 2,
    };

    pub(crate) fn dims(&self) -> ModelDims {
        ModelDims {
            n_mels: self.n_mels,
            n_vocab: self.n_vocab,
            n_audio_ctx: self.audio_ctx,
            n_audio_state: self.d,
            n_audio_head: self.heads,
            n_audio_layer: self.enc_layers,
            n_text_ctx: self.text_ctx,
            n_text_state: self.d,
            n_text_head: self.heads,
            n_text_layer: self.dec_layers,
        }
    }
}

/// Deterministic values for the tensor called `name`, all multiples of 1/64 below 2 in
/// magnitude, hence exact in float16 and bfloat16.
pub(crate) fn values(name: &str, n: usize) -> Vec<f32> {
    let seed = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    (0..n as u64)
        .map(|i| {
            let x = seed.wrapping_add(i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            let x = (x ^ (x >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            ((x >> 40) % 255) as f32 / 64.0 - 127.0 / 64.0
        })
        .collect()
}

/// Little-endian bytes of `values` as `dtype` (floats must be exact in it; integer dtypes
/// take the values as they are, rounded).
pub(crate) fn encode(values: &[f32], dtype: DType) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * dtype.size());
    for &v in values {
        match dtype {
            DType::F32 => out.extend(v.to_le_bytes()),
            DType::F64 => out.extend(f64::from(v).to_le_bytes()),
            DType::F16 => out.extend(f16_bits(v).to_le_bytes()),
            DType::BF16 => out.extend(((v.to_bits() >> 16) as u16).to_le_bytes()),
            DType::I8 => out.extend((v.round() as i8).to_le_bytes()),
            DType::I16 => out.extend((v.round() as i16).to_le_bytes()),
            DType::I32 => out.extend((v.round() as i32).to_le_bytes()),
        }
    }
    out
}

/// float16 bits of a value exactly representable as a normal float16 (or zero).
fn f16_bits(v: f32) -> u16 {
    let bits = v.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    if v == 0.0 {
        return sign;
    }
    let exponent = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    assert!(
        (1..31).contains(&exponent) && bits & 0x1fff == 0,
        "{v} is not exact in f16"
    );
    sign | ((exponent as u16) << 10) | ((bits >> 13) & 0x3ff) as u16
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Values {
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

/// A model under OpenAI's `state_dict` names (key projections without bias).
pub(crate) struct OpenAi(pub BTreeMap<String, Values>);

impl OpenAi {
    pub(crate) fn new(t: &Tiny) -> Self {
        let mut m = OpenAi(BTreeMap::new());
        let d = t.d;
        m.linear("encoder.conv1", &[d, t.n_mels, 3]);
        m.linear("encoder.conv2", &[d, d, 3]);
        m.add("encoder.positional_embedding", &[t.audio_ctx, d]);
        for (stack, layers) in [("encoder", t.enc_layers), ("decoder", t.dec_layers)] {
            for i in 0..layers {
                let block = format!("{stack}.blocks.{i}");
                m.attention(&format!("{block}.attn"), d);
                m.linear(&format!("{block}.attn_ln"), &[d]);
                if stack == "decoder" {
                    m.attention(&format!("{block}.cross_attn"), d);
                    m.linear(&format!("{block}.cross_attn_ln"), &[d]);
                }
                m.linear(&format!("{block}.mlp.0"), &[4 * d, d]);
                m.linear(&format!("{block}.mlp.2"), &[d, 4 * d]);
                m.linear(&format!("{block}.mlp_ln"), &[d]);
            }
        }
        m.linear("encoder.ln_post", &[d]);
        m.add("decoder.token_embedding.weight", &[t.n_vocab, d]);
        m.add("decoder.positional_embedding", &[t.text_ctx, d]);
        m.linear("decoder.ln", &[d]);
        m
    }

    fn add(&mut self, name: &str, shape: &[usize]) {
        let data = values(name, shape.iter().product());
        self.0.insert(
            name.to_owned(),
            Values {
                shape: shape.to_vec(),
                data,
            },
        );
    }

    /// `{name}.weight` of `shape` and `{name}.bias` of `[shape[0]]`.
    fn linear(&mut self, name: &str, shape: &[usize]) {
        self.add(&format!("{name}.weight"), shape);
        self.add(&format!("{name}.bias"), &shape[..1]);
    }

    fn attention(&mut self, name: &str, d: usize) {
        for projection in ["query", "value", "out"] {
            self.linear(&format!("{name}.{projection}"), &[d, d]);
        }
        self.add(&format!("{name}.key.weight"), &[d, d]);
    }

    pub(crate) fn get(&self, name: &str) -> &Values {
        self.0
            .get(name)
            .unwrap_or_else(|| panic!("fixture has no `{name}`"))
    }

    /// The named tensors stacked along the first axis; absent ones (key biases) are zeros.
    pub(crate) fn stack(&self, names: &[String]) -> Values {
        let like = names
            .iter()
            .find_map(|n| self.0.get(n))
            .expect("one stacked tensor exists");
        let mut shape = like.shape.clone();
        shape[0] *= names.len();
        let mut data = Vec::new();
        for name in names {
            match self.0.get(name) {
                Some(v) => data.extend(&v.data),
                None => data.extend(std::iter::repeat_n(0.0, like.data.len())),
            }
        }
        Values { shape, data }
    }

    /// `{prefix}.{query,key,value}.{leaf}` or any other projections.
    pub(crate) fn stack_of(&self, prefix: &str, projections: &[&str], leaf: &str) -> Values {
        let names: Vec<String> = projections
            .iter()
            .map(|p| format!("{prefix}.{p}.{leaf}"))
            .collect();
        self.stack(&names)
    }
}

/// Every tensor of `w` under a canonical name, in a fixed order.
pub(crate) fn canonical(w: &WhisperWeights) -> Vec<(String, &Tensor)> {
    let e = &w.encoder;
    let mut out: Vec<(String, &Tensor)> = vec![
        ("encoder.conv1.weight".into(), &e.conv1.weight),
        ("encoder.conv1.bias".into(), &e.conv1.bias),
        ("encoder.conv2.weight".into(), &e.conv2.weight),
        ("encoder.conv2.bias".into(), &e.conv2.bias),
        (
            "encoder.positional_embedding".into(),
            &e.positional_embedding,
        ),
    ];
    for (i, b) in e.blocks.iter().enumerate() {
        let p = format!("encoder.blocks.{i}");
        self_attention(&mut out, &format!("{p}.attn"), &b.attn);
        mlp(&mut out, &format!("{p}.mlp"), &b.mlp);
    }
    norm(&mut out, "encoder.ln_post", &e.ln_post);
    let dec = &w.decoder;
    out.push(("decoder.token_embedding".into(), &dec.token_embedding));
    out.push((
        "decoder.positional_embedding".into(),
        &dec.positional_embedding,
    ));
    for (i, b) in dec.blocks.iter().enumerate() {
        let p = format!("decoder.blocks.{i}");
        self_attention(&mut out, &format!("{p}.attn"), &b.attn);
        let c = &b.cross_attn;
        norm(&mut out, &format!("{p}.cross_attn.ln"), &c.ln);
        linear(&mut out, &format!("{p}.cross_attn.query"), &c.query);
        linear(&mut out, &format!("{p}.cross_attn.kv"), &c.kv);
        linear(&mut out, &format!("{p}.cross_attn.out"), &c.out);
        mlp(&mut out, &format!("{p}.mlp"), &b.mlp);
    }
    norm(&mut out, "decoder.ln", &dec.ln);
    out
}

fn self_attention<'a>(out: &mut Vec<(String, &'a Tensor)>, p: &str, a: &'a SelfAttention) {
    norm(out, &format!("{p}.ln"), &a.ln);
    linear(out, &format!("{p}.qkv"), &a.qkv);
    linear(out, &format!("{p}.out"), &a.out);
}

fn mlp<'a>(out: &mut Vec<(String, &'a Tensor)>, p: &str, m: &'a Mlp) {
    norm(out, &format!("{p}.ln"), &m.ln);
    linear(out, &format!("{p}.fc1"), &m.fc1);
    linear(out, &format!("{p}.fc2"), &m.fc2);
}

fn linear<'a>(out: &mut Vec<(String, &'a Tensor)>, p: &str, l: &'a Linear) {
    let weight = l.weight.float().expect("loaded weights are floating point");
    out.push((format!("{p}.weight"), weight));
    let bias = l.bias.as_ref().expect("every Whisper linear has a bias");
    out.push((format!("{p}.bias"), bias));
}

fn norm<'a>(out: &mut Vec<(String, &'a Tensor)>, p: &str, n: &'a LayerNorm) {
    out.push((format!("{p}.weight"), &n.weight));
    out.push((format!("{p}.bias"), &n.bias));
}

/// What [`canonical`] must yield for a model built from `o`, in the same order.
pub(crate) fn expected(o: &OpenAi, t: &Tiny) -> Vec<(String, Values)> {
    let mut out = Vec::new();
    let copy = |out: &mut Vec<(String, Values)>, canonical: String, openai: &str| {
        out.push((canonical, o.get(openai).clone()));
    };
    for name in ["conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias"] {
        copy(
            &mut out,
            format!("encoder.{name}"),
            &format!("encoder.{name}"),
        );
    }
    copy(
        &mut out,
        "encoder.positional_embedding".into(),
        "encoder.positional_embedding",
    );
    for i in 0..t.enc_layers {
        expected_block(&mut out, o, &format!("encoder.blocks.{i}"), false);
    }
    copy(
        &mut out,
        "encoder.ln_post.weight".into(),
        "encoder.ln_post.weight",
    );
    copy(
        &mut out,
        "encoder.ln_post.bias".into(),
        "encoder.ln_post.bias",
    );
    copy(
        &mut out,
        "decoder.token_embedding".into(),
        "decoder.token_embedding.weight",
    );
    copy(
        &mut out,
        "decoder.positional_embedding".into(),
        "decoder.positional_embedding",
    );
    for i in 0..t.dec_layers {
        expected_block(&mut out, o, &format!("decoder.blocks.{i}"), true);
    }
    copy(&mut out, "decoder.ln.weight".into(), "decoder.ln.weight");
    copy(&mut out, "decoder.ln.bias".into(), "decoder.ln.bias");
    out
}

fn expected_block(out: &mut Vec<(String, Values)>, o: &OpenAi, b: &str, cross: bool) {
    let mut put = |canonical: &str, v: Values| out.push((format!("{b}.{canonical}"), v));
    let get = |openai: &str| o.get(&format!("{b}.{openai}")).clone();
    let qkv = ["query", "key", "value"];
    put("attn.ln.weight", get("attn_ln.weight"));
    put("attn.ln.bias", get("attn_ln.bias"));
    put(
        "attn.qkv.weight",
        o.stack_of(&format!("{b}.attn"), &qkv, "weight"),
    );
    put(
        "attn.qkv.bias",
        o.stack_of(&format!("{b}.attn"), &qkv, "bias"),
    );
    put("attn.out.weight", get("attn.out.weight"));
    put("attn.out.bias", get("attn.out.bias"));
    if cross {
        let kv = ["key", "value"];
        put("cross_attn.ln.weight", get("cross_attn_ln.weight"));
        put("cross_attn.ln.bias", get("cross_attn_ln.bias"));
        put("cross_attn.query.weight", get("cross_attn.query.weight"));
        put("cross_attn.query.bias", get("cross_attn.query.bias"));
        put(
            "cross_attn.kv.weight",
            o.stack_of(&format!("{b}.cross_attn"), &kv, "weight"),
        );
        put(
            "cross_attn.kv.bias",
            o.stack_of(&format!("{b}.cross_attn"), &kv, "bias"),
        );
        put("cross_attn.out.weight", get("cross_attn.out.weight"));
        put("cross_attn.out.bias", get("cross_attn.out.bias"));
    }
    put("mlp.ln.weight", get("mlp_ln.weight"));
    put("mlp.ln.bias", get("mlp_ln.bias"));
    put("mlp.fc1.weight", get("mlp.0.weight"));
    put("mlp.fc1.bias", get("mlp.0.bias"));
    put("mlp.fc2.weight", get("mlp.2.weight"));
    put("mlp.fc2.bias", get("mlp.2.bias"));
}

pub(crate) fn to_values(t: &Tensor) -> Values {
    let shape = t.size().iter().map(|&d| d as usize).collect();
    let data = Vec::<f32>::try_from(t.to_kind(Kind::Float).reshape([-1])).expect("float data");
    Values { shape, data }
}

/// Asserts `w` holds exactly the numbers of the OpenAI-named fixture for `t`.
pub(crate) fn assert_weights_match(w: &WhisperWeights, t: &Tiny) {
    assert_eq!(w.dims, t.dims());
    let actual = canonical(w);
    let expected = expected(&OpenAi::new(t), t);
    assert_eq!(actual.len(), expected.len(), "tensor count");
    for ((name, tensor), (expected_name, values)) in actual.iter().zip(&expected) {
        assert_eq!(name, expected_name);
        assert_eq!(&to_values(tensor), values, "tensor {name}");
    }
}
