//! The stateless forward functions of the network's layers, shared by the encoder and the
//! decoder in `model`: dense products, layer norms, splitting and merging heads, attention, the
//! MLP, an encoder block, and the decoder's cross-attention (which can also hand out the
//! alignment heads' weights, for word times). What keeps state between calls (the decoder's
//! self-attention cache) stays in `model`.

use super::attention as kernels;
use super::gemm::Gemm;
use super::model_error::{ModelError, Stage};
use super::weights::{Conv1d, CrossAttention, EncoderBlock, LayerNorm, Linear, Mlp, SelfAttention};
use tch::{Kind, Tensor};

/// OpenAI's layer-norm epsilon.
const LN_EPS: f64 = 1e-5;

type Result<T> = std::result::Result<T, ModelError>;

pub(super) fn conv1d(x: &Tensor, conv: &Conv1d, stride: i64) -> Result<Tensor> {
    x.f_conv1d(&conv.weight, Some(&conv.bias), [stride], [1], [1], 1)
        .stage("conv1d")
}

pub(super) fn linear(
    gemm: Gemm,
    x: &Tensor,
    layer: &Linear,
    stage: &'static str,
) -> Result<Tensor> {
    gemm.product(x, &layer.weight, layer.bias.as_ref())
        .stage(stage)
}

pub(super) fn layer_norm(x: &Tensor, ln: &LayerNorm, stage: &'static str) -> Result<Tensor> {
    let d = ln.weight.size()[0];
    x.f_layer_norm([d], Some(&ln.weight), Some(&ln.bias), LN_EPS, true)
        .stage(stage)
}

/// `[b, t, h·hd]` → `[b, h, t, hd]`
pub(super) fn split_heads(x: &Tensor, heads: usize) -> Result<Tensor> {
    let s = x.size();
    x.f_view([s[0], s[1], heads as i64, s[2] / heads as i64])
        .and_then(|x| x.f_transpose(1, 2))
        .stage("split heads")
}

/// `[b, h, t, hd]` → `[b, t, h·hd]`
pub(super) fn merge_heads(x: &Tensor) -> Result<Tensor> {
    let s = x.size();
    x.f_transpose(1, 2)
        .and_then(|x| x.f_reshape([s[0], s[2], s[1] * s[3]]))
        .stage("merge heads")
}

pub(super) fn attention(q: &Tensor, k: &Tensor, v: &Tensor, causal: bool) -> Result<Tensor> {
    kernels::attention(q, k, v, causal).stage("attention")
}

pub(super) fn qkv_heads(
    gemm: Gemm,
    x: &Tensor,
    attn: &SelfAttention,
    heads: usize,
) -> Result<[Tensor; 3]> {
    let qkv = linear(gemm, x, &attn.qkv, "self-attention qkv")?;
    let parts = qkv.f_chunk(3, -1).stage("self-attention qkv")?;
    Ok([
        split_heads(&parts[0], heads)?,
        split_heads(&parts[1], heads)?,
        split_heads(&parts[2], heads)?,
    ])
}

/// The feed-forward part, `x + fc2(gelu(fc1(ln(x))))`. Each intermediate is dropped as soon
/// as the next is made and the activation and the residual are applied in place (the same
/// numbers): the working memory is the hidden layer once (`[positions, 4d]`, 8 MB for a 20 s
/// pass of `base` in float32), not twice beside the norm's.
pub(super) fn mlp(gemm: Gemm, x: &Tensor, mlp: &Mlp) -> Result<Tensor> {
    let mut hidden = {
        let normed = layer_norm(x, &mlp.ln, "mlp ln")?;
        linear(gemm, &normed, &mlp.fc1, "mlp fc1")?
    };
    hidden.f_gelu_("none").map(drop).stage("mlp gelu")?;
    let mut out = linear(gemm, &hidden, &mlp.fc2, "mlp fc2")?;
    drop(hidden);
    out.f_add_(x).map(drop).stage("mlp residual")?;
    Ok(out)
}

/// One encoder block over `x`; its queries also attend to `after`'s keys/values (of the
/// positions after `x`'s). Returns the block's output and, with `keep_keys`, `x`'s keys and
/// values. The attention's intermediates (the norm, the fused q/k/v product the keys are views
/// of, the heads' output) are dropped before the feed-forward part runs.
pub(super) fn encoder_block(
    gemm: Gemm,
    x: &Tensor,
    block: &EncoderBlock,
    heads: usize,
    after: Option<&(Tensor, Tensor)>,
    keep_keys: bool,
) -> Result<(Tensor, Option<(Tensor, Tensor)>)> {
    let (attended, keys) = self_attention_part(gemm, x, block, heads, after)?;
    Ok((mlp(gemm, &attended, &block.mlp)?, keep_keys.then_some(keys)))
}

/// `x` plus its self-attention (against `after`'s keys/values too), and `x`'s keys and values.
fn self_attention_part(
    gemm: Gemm,
    x: &Tensor,
    block: &EncoderBlock,
    heads: usize,
    after: Option<&(Tensor, Tensor)>,
) -> Result<(Tensor, (Tensor, Tensor))> {
    let [q, k, v] = {
        let normed = layer_norm(x, &block.attn.ln, "encoder attn ln")?;
        qkv_heads(gemm, &normed, &block.attn, heads)?
    };
    let heads_out = match after {
        Some((more_k, more_v)) => {
            let all_k = Tensor::f_cat(&[&k, more_k], 2).stage("encoder padding")?;
            let all_v = Tensor::f_cat(&[&v, more_v], 2).stage("encoder padding")?;
            attention(&q, &all_k, &all_v, false)?
        }
        None => attention(&q, &k, &v, false)?,
    };
    drop(q);
    let mut out = linear(
        gemm,
        &merge_heads(&heads_out)?,
        &block.attn.out,
        "encoder attn out",
    )?;
    drop(heads_out);
    out.f_add_(x).map(drop).stage("encoder attn residual")?;
    Ok((out, (k, v)))
}

/// The cross-attention block; with `kept` heads, also their weights before the softmax against
/// the first `frames` audio positions (see [`Whisper::decode_attending`]).
pub(super) fn cross_attention(
    gemm: Gemm,
    x: &Tensor,
    attn: &CrossAttention,
    heads: usize,
    (k, v): &(Tensor, Tensor),
    (kept, frames): (&[i64], i64),
) -> Result<(Tensor, Option<Tensor>)> {
    let h = layer_norm(x, &attn.ln, "cross-attention ln")?;
    let q = split_heads(
        &linear(gemm, &h, &attn.query, "cross-attention query")?,
        heads,
    )?;
    let weights = if kept.is_empty() {
        None
    } else {
        let scale = (q.size()[3] as f64).powf(-0.5);
        let index = Tensor::from_slice(kept).to_device(q.device());
        let of_heads = |t: &Tensor| t.f_index_select(1, &index)?.f_to_kind(Kind::Float);
        let keys = of_heads(k)
            .and_then(|k| k.f_narrow(2, 0, frames.min(k.size()[2])))
            .stage("alignment heads")?;
        let scores = of_heads(&q)
            .and_then(|q| q.f_matmul(&keys.f_transpose(2, 3)?))
            .and_then(|s| s.f_mul_scalar(scale))
            .stage("alignment heads")?;
        Some(scores)
    };
    let a = merge_heads(&attention(&q, k, v, false)?)?;
    let a = linear(gemm, &a, &attn.out, "cross-attention out")?;
    Ok((x.f_add(&a).stage("cross-attention residual")?, weights))
}
