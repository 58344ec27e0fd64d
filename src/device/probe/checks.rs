//! The probe's checks: for each, how to make its seeded inputs (on the CPU, in f32), the
//! operation under test — the call the model makes, on Whisper-like shapes — and, where the CPU's
//! own answer must not come from the same kernel, a float64 reference computed without it.
//! [`super::run_probe`] runs them on the device and judges the numbers.

use super::{CHECKS, FLOAT16_CHECKS};
use crate::whisper::attention::{attention, cached_attention, causal_mask_after, MaskedAttention};
use tch::{Kind, TchError, Tensor};

pub(super) type Tensors = Vec<Tensor>;
pub(super) type TorchResult<T> = Result<T, TchError>;

/// Whisper's layer-norm epsilon.
const LN_EPS: f64 = 1e-5;

/// The operation under test.
pub(super) enum Op {
    /// A libtorch operation, called with the model's arguments.
    Torch(fn(&[Tensor]) -> TorchResult<Tensors>),
    /// One of the model's own functions, with the masked-attention kernel the target computes
    /// (a simulated GPU's `wrong=attention` breaks it here exactly as in the model).
    Model(fn(&[Tensor], MaskedAttention) -> TorchResult<Tensors>),
}

/// One check: how to make its CPU f32 inputs, the operation under test (run on the device
/// inputs, and on the CPU inputs unless a reference is given). An operation may return several
/// outputs.
pub(super) struct CheckSpec {
    pub(super) name: &'static str,
    inputs: fn(&mut SplitMix64) -> TorchResult<Tensors>,
    op: Op,
    /// The CPU's answer computed another way (float64, without the kernel under test); `None`:
    /// the operation itself on the CPU in f32.
    reference: Option<TorchOp>,
}

/// An operation on tensors that may fail.
type TorchOp = fn(&[Tensor]) -> TorchResult<Tensors>;

impl CheckSpec {
    /// The check's inputs, the same at every run (seeded by its name).
    pub(super) fn inputs(&self) -> TorchResult<Tensors> {
        (self.inputs)(&mut SplitMix64::for_check(self.name))
    }

    /// The operation on `inputs`, with `kernel` for the model's masked attention.
    pub(super) fn run(&self, inputs: &[Tensor], kernel: MaskedAttention) -> TorchResult<Tensors> {
        match self.op {
            Op::Torch(op) => op(inputs),
            Op::Model(op) => op(inputs, kernel),
        }
    }

    /// What the device must compute, on the CPU.
    pub(super) fn expected(&self, inputs: &[Tensor]) -> TorchResult<Tensors> {
        match self.reference {
            Some(reference) => reference(inputs),
            None => self.run(inputs, MaskedAttention::Exact),
        }
    }
}

const fn spec(
    name: &'static str,
    inputs: fn(&mut SplitMix64) -> TorchResult<Tensors>,
    op: fn(&[Tensor]) -> TorchResult<Tensors>,
) -> CheckSpec {
    CheckSpec {
        name,
        inputs,
        op: Op::Torch(op),
        reference: None,
    }
}

const CHECK_SPECS: [CheckSpec; 11] = [
    spec(CHECKS[0], inputs_basic, op_basic),
    spec(CHECKS[1], inputs_to_device, op_identity),
    spec(CHECKS[2], inputs_conv1d, op_conv1d),
    spec(CHECKS[3], inputs_linear, op_linear),
    spec(CHECKS[4], inputs_layer_norm, op_layer_norm),
    spec(CHECKS[5], inputs_gelu, op_gelu),
    spec(CHECKS[6], inputs_softmax, op_softmax),
    spec(CHECKS[7], inputs_attention, op_attention),
    spec(CHECKS[8], inputs_embedding, op_embedding),
    spec(CHECKS[9], inputs_cat, op_cat),
    CheckSpec {
        name: CHECKS[10],
        inputs: inputs_masked_attention,
        op: Op::Model(op_masked_attention),
        reference: Some(reference_masked_attention),
    },
];

const FLOAT16_SPECS: [CheckSpec; 2] = [
    spec(FLOAT16_CHECKS[0], inputs_linear_f16, op_linear),
    spec(FLOAT16_CHECKS[1], inputs_attention_f16, op_attention_f16),
];

/// The checks a probe at `precision` runs, in order.
pub(super) fn check_specs(precision: Kind) -> Vec<&'static CheckSpec> {
    let extra: &'static [CheckSpec] = match precision {
        Kind::Half => &FLOAT16_SPECS,
        _ => &[],
    };
    CHECK_SPECS.iter().chain(extra).collect()
}

// ---------------------------------------------------------------------------------------------
// Inputs: seeded, made on the CPU in f32

/// SplitMix64: a tiny deterministic generator, so inputs depend on nothing but the check name
/// (not on libtorch's global seed, which the decoder's sampling owns).
struct SplitMix64(u64);

impl SplitMix64 {
    fn for_check(name: &str) -> Self {
        // FNV-1a of the name.
        let seed = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        SplitMix64(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// A `shape` tensor uniform in [low, high).
    fn uniform(&mut self, shape: &[i64], low: f32, high: f32) -> TorchResult<Tensor> {
        let count = shape.iter().product::<i64>().max(0) as usize;
        let data: Vec<f32> = (0..count)
            .map(|_| low + (high - low) * self.unit())
            .collect();
        Tensor::f_from_slice(&data)?.f_reshape(shape)
    }

    /// A `shape` tensor uniform in [-scale, scale).
    fn symmetric(&mut self, shape: &[i64], scale: f32) -> TorchResult<Tensor> {
        self.uniform(shape, -scale, scale)
    }

    /// A weight matrix `[out, fan_in]` scaled like a trained layer's (1/sqrt(fan_in)).
    fn weight(&mut self, shape: &[i64], fan_in: i64) -> TorchResult<Tensor> {
        self.symmetric(shape, 1.0 / (fan_in as f32).sqrt())
    }
}

fn inputs_basic(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![
        rng.symmetric(&[32, 48], 1.0)?,
        rng.symmetric(&[32, 48], 1.0)?,
        rng.symmetric(&[48, 24], 1.0)?,
    ])
}

fn inputs_to_device(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![rng.symmetric(&[4, 80, 100], 4.0)?])
}

/// A log-mel-like input `[1, 80, 200]` and the first encoder conv's `[64, 80, 3]` kernel.
fn inputs_conv1d(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![
        rng.symmetric(&[1, 80, 200], 1.0)?,
        rng.weight(&[64, 80, 3], 80 * 3)?,
        rng.symmetric(&[64], 0.1)?,
    ])
}

fn inputs_linear(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![
        rng.symmetric(&[1, 24, 384], 1.0)?,
        rng.weight(&[256, 384], 384)?,
        rng.symmetric(&[256], 0.1)?,
    ])
}

fn inputs_layer_norm(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![
        rng.uniform(&[1, 24, 384], -2.0, 4.0)?,
        rng.uniform(&[384], 0.5, 1.5)?,
        rng.symmetric(&[384], 0.2)?,
    ])
}

fn inputs_gelu(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![rng.symmetric(&[1, 24, 384], 4.0)?])
}

/// Attention-like scores over 1500 audio frames, and logits over Whisper's multilingual
/// vocabulary.
fn inputs_softmax(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![
        rng.symmetric(&[1, 6, 24, 1500], 4.0)?,
        rng.symmetric(&[1, 4, 51865], 10.0)?,
    ])
}

/// Query, key, value `[batch, heads, positions, head_dim]`, plus a longer key/value pair as in
/// cross-attention.
fn inputs_attention(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![
        rng.symmetric(&[1, 6, 24, 64], 1.0)?,
        rng.symmetric(&[1, 6, 24, 64], 1.0)?,
        rng.symmetric(&[1, 6, 24, 64], 1.0)?,
        rng.symmetric(&[1, 6, 40, 64], 1.0)?,
        rng.symmetric(&[1, 6, 40, 64], 1.0)?,
    ])
}

/// An embedding table and token ids (int64, never converted), including the first and last row.
fn inputs_embedding(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    let rows = 1000_u64;
    let mut ids: Vec<i64> = (0..14).map(|_| (rng.next_u64() % rows) as i64).collect();
    ids.extend([0, rows as i64 - 1]);
    Ok(vec![
        rng.symmetric(&[rows as i64, 64], 1.0)?,
        Tensor::f_from_slice(&ids)?,
    ])
}

fn inputs_cat(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![
        rng.symmetric(&[1, 24, 64], 1.0)?,
        rng.symmetric(&[1, 16, 64], 1.0)?,
        rng.symmetric(&[1, 24, 32], 1.0)?,
    ])
}

/// Positive activations and weights over large-v3's MLP width: each output sums 5120 products
/// to about 2500, far past where f16 accumulation stops resolving the next term.
fn inputs_linear_f16(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![
        rng.uniform(&[4, 5120], 0.0, 2.0)?,
        rng.uniform(&[64, 5120], 0.0, 1.0)?,
        rng.symmetric(&[64], 1.0)?,
    ])
}

/// Query and key large enough that the scaled logits reach 20 and more: exp() overflows f16
/// unless the implementation subtracts the maximum first.
fn inputs_attention_f16(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    Ok(vec![
        rng.symmetric(&[1, 8, 128, 64], 4.0)?,
        rng.symmetric(&[1, 8, 128, 64], 4.0)?,
        rng.symmetric(&[1, 8, 128, 64], 1.0)?,
    ])
}

/// The decoder's text context: its fixed self-attention cache has this many slots.
const CACHE_SLOTS: i64 = 448;
/// The decoder's first call: the start-of-transcript prompt (start, language, task, no
/// timestamps) at position 0.
const PROMPT_TOKENS: i64 = 4;
/// A later single-token step, at this position.
const STEP_OFFSET: i64 = 37;

/// The fixed decoder cache as `self_attention_cached` sees it: queries `[rows, heads, n, 64]`
/// for the prompt and for one step, and a `[rows, heads, 448, 64]` key and value cache whose
/// every slot holds numbers (slots after the current position are a previous window's
/// leftovers), so a kernel that lets them through the mask is off by a lot. Two rows (beam
/// search), four heads, every model's head width.
fn inputs_masked_attention(rng: &mut SplitMix64) -> TorchResult<Tensors> {
    let (rows, heads, width) = (2, 4, 64);
    Ok(vec![
        rng.symmetric(&[rows, heads, PROMPT_TOKENS, width], 1.5)?,
        rng.symmetric(&[rows, heads, 1, width], 1.5)?,
        rng.symmetric(&[rows, heads, CACHE_SLOTS, width], 1.5)?,
        rng.symmetric(&[rows, heads, CACHE_SLOTS, width], 1.0)?,
    ])
}

// ---------------------------------------------------------------------------------------------
// Operations under test (the ones src/whisper/model.rs uses, with the same arguments)

fn wrong_inputs(check: &str) -> TchError {
    TchError::Shape(format!("{check}: unexpected number of probe inputs"))
}

fn op_basic(t: &[Tensor]) -> TorchResult<Tensors> {
    let [a, b, c] = t else {
        return Err(wrong_inputs("basic"));
    };
    let product = a.f_matmul(c)?;
    let row_sums = product.f_sum_dim_intlist(Some([1_i64].as_slice()), false, None::<Kind>)?;
    Ok(vec![a.f_add(b)?, a.f_mul(b)?, product, row_sums])
}

fn op_identity(t: &[Tensor]) -> TorchResult<Tensors> {
    Ok(t.iter().map(Tensor::shallow_clone).collect())
}

fn op_conv1d(t: &[Tensor]) -> TorchResult<Tensors> {
    let [x, weight, bias] = t else {
        return Err(wrong_inputs("conv1d"));
    };
    let conv = |stride: i64| x.f_conv1d(weight, Some(bias), [stride], [1], [1], 1);
    Ok(vec![conv(1)?, conv(2)?])
}

fn op_linear(t: &[Tensor]) -> TorchResult<Tensors> {
    let [x, weight, bias] = t else {
        return Err(wrong_inputs("linear"));
    };
    Ok(vec![x.f_linear(weight, Some(bias))?])
}

fn op_layer_norm(t: &[Tensor]) -> TorchResult<Tensors> {
    let [x, weight, bias] = t else {
        return Err(wrong_inputs("layer_norm"));
    };
    let width = weight.size();
    Ok(vec![x.f_layer_norm(
        width,
        Some(weight),
        Some(bias),
        LN_EPS,
        true,
    )?])
}

fn op_gelu(t: &[Tensor]) -> TorchResult<Tensors> {
    let [x] = t else {
        return Err(wrong_inputs("gelu"));
    };
    Ok(vec![x.f_gelu("none")?])
}

/// Softmax in the target precision, and log-softmax over the vocabulary after converting the
/// logits to f32, as the model does before they leave the device (in bf16, the rounding of
/// logits near 10 alone moves probabilities by 3%, so a bf16 log-softmax would be unjudgeable).
fn op_softmax(t: &[Tensor]) -> TorchResult<Tensors> {
    let [scores, logits] = t else {
        return Err(wrong_inputs("softmax"));
    };
    Ok(vec![
        scores.f_softmax(-1, None::<Kind>)?,
        logits
            .f_to_kind(Kind::Float)?
            .f_log_softmax(-1, None::<Kind>)?,
    ])
}

fn op_attention(t: &[Tensor]) -> TorchResult<Tensors> {
    let [q, k, v, cross_k, cross_v] = t else {
        return Err(wrong_inputs("attention"));
    };
    Ok(vec![
        attention(q, k, v, false)?,
        attention(q, k, v, true)?,
        attention(q, cross_k, cross_v, false)?,
    ])
}

fn op_attention_f16(t: &[Tensor]) -> TorchResult<Tensors> {
    let [q, k, v] = t else {
        return Err(wrong_inputs("attention_f16"));
    };
    Ok(vec![attention(q, k, v, false)?, attention(q, k, v, true)?])
}

fn op_embedding(t: &[Tensor]) -> TorchResult<Tensors> {
    let [table, ids] = t else {
        return Err(wrong_inputs("embedding"));
    };
    Ok(vec![table.f_index_select(0, ids)?])
}

fn op_cat(t: &[Tensor]) -> TorchResult<Tensors> {
    let [a, b, c] = t else {
        return Err(wrong_inputs("cat"));
    };
    Ok(vec![Tensor::f_cat(&[a, b], 1)?, Tensor::f_cat(&[a, c], 2)?])
}

/// The decoder's fixed-cache attention, by the model's own function: the causal mask built on
/// the device as the decoder builds it (`[448, 448]` boolean, its rows broadcast over rows and
/// heads), the prompt at position 0 and a single-token step at [`STEP_OFFSET`].
fn op_masked_attention(t: &[Tensor], kernel: MaskedAttention) -> TorchResult<Tensors> {
    let [prompt, step, cache_k, cache_v] = t else {
        return Err(wrong_inputs("masked_attention"));
    };
    let causal = causal_mask_after(0, CACHE_SLOTS, cache_k.device())?;
    Ok(vec![
        cached_attention(prompt, cache_k, cache_v, &causal, 0, kernel)?,
        cached_attention(step, cache_k, cache_v, &causal, STEP_OFFSET, kernel)?,
    ])
}

/// What [`op_masked_attention`] must give, in float64 without scaled-dot-product attention:
/// `softmax(q·kᵀ/√d)·v` over the slots up to each query's position.
fn reference_masked_attention(t: &[Tensor]) -> TorchResult<Tensors> {
    let [prompt, step, cache_k, cache_v] = t else {
        return Err(wrong_inputs("masked_attention"));
    };
    Ok(vec![
        softmax_attention_f64(prompt, cache_k, cache_v, 0)?,
        softmax_attention_f64(step, cache_k, cache_v, STEP_OFFSET)?,
    ])
}

/// Attention of queries at positions `offset..offset + n` over the slots `0..=position`, in
/// float64, written out.
fn softmax_attention_f64(q: &Tensor, k: &Tensor, v: &Tensor, offset: i64) -> TorchResult<Tensor> {
    let (n, slots) = (q.size()[2], k.size()[2]);
    let width = q.size()[3] as f64;
    let hidden: Vec<bool> = (0..n)
        .flat_map(|row| (0..slots).map(move |slot| slot > offset + row))
        .collect();
    let hidden = Tensor::f_from_slice(&hidden)?.f_reshape([n, slots])?;
    let (q, k, v) = (
        q.f_to_kind(Kind::Double)?,
        k.f_to_kind(Kind::Double)?,
        v.f_to_kind(Kind::Double)?,
    );
    let scores = q
        .f_matmul(&k.f_transpose(-2, -1)?)?
        .f_div_scalar(width.sqrt())?
        .f_masked_fill(&hidden, f64::NEG_INFINITY)?;
    scores.f_softmax(-1, Kind::Double)?.f_matmul(&v)
}
