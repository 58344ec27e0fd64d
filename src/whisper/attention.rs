//! The attention calls of the Whisper network, in one place so that the device probe
//! (`device::probe`) runs the very functions the model runs: plain scaled-dot-product attention
//! (encoder, cross-attention, the growing cache's steps) and the fixed cache's masked attention,
//! one query step against a preallocated `n_text_ctx`-slot cache through a boolean causal mask
//! that broadcasts over the rows and heads. The second is the shape in which PyTorch's MPS
//! backend returned silently wrong numbers (boolean masks in its one-pass decode kernel,
//! pytorch/pytorch#182285; partially broadcast masks, #184180).
//!
//! [`MaskedAttention`] lets the simulated GPU (`WHISPER_DICTATION_SIMULATE_GPU=…,wrong=attention`)
//! break the masked call the way such a kernel does, in the real model as in the probe.
//! (Ignoring the mask would not do as a simulation: a fresh window's later slots are zeros, so
//! the words barely change; reading the wrong mask rows loses the context, and the words.)

use tch::{Device, Kind, TchError, Tensor};

type Result<T> = std::result::Result<T, TchError>;

/// How the fixed cache's masked attention is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MaskedAttention {
    /// libtorch's `scaled_dot_product_attention` with the boolean mask: every real device.
    #[default]
    Exact,
    /// A broken kernel that reads the wrong rows of the boolean mask (the first ones, whatever
    /// the queries' position), so every step sees only the cache's first slots: the shape of the
    /// mask-offset fault PyTorch fixed for partially broadcast masks on MPS. Only the simulated
    /// GPU's `wrong=attention` asks for it.
    MisreadsMask,
}

/// Softmax attention; Whisper's q·k scaling by `head_dim^-0.25` on each side is the usual
/// `1/sqrt(head_dim)` scale, which `scaled_dot_product_attention` applies.
pub fn attention(q: &Tensor, k: &Tensor, v: &Tensor, causal: bool) -> Result<Tensor> {
    Tensor::f_scaled_dot_product_attention(q, k, v, None::<Tensor>, 0.0, causal, None, false)
}

/// Boolean mask `[n, past + n]` letting new token `i` see the past and new tokens `0..=i`.
pub fn causal_mask_after(past: i64, n: i64, device: Device) -> Result<Tensor> {
    let cols = Tensor::f_arange(past + n, (Kind::Int64, device))?;
    let rows = Tensor::f_arange(n, (Kind::Int64, device))?
        .f_add_scalar(past)?
        .f_unsqueeze(1)?;
    cols.f_le_tensor(&rows)
}

/// The fixed cache's self-attention: queries `q` `[rows, heads, n, head_dim]` of the positions
/// `offset..offset + n` against the whole preallocated cache `cache_k`/`cache_v`
/// `[rows, heads, capacity, head_dim]`, through rows `offset..offset + n` of `causal` (the
/// `[capacity, capacity]` mask of [`causal_mask_after`]`(0, capacity)`): a 2-D boolean mask that
/// broadcasts over rows and heads, so slots after the new positions (empty, or a previous
/// window's leftovers) are never seen.
pub fn cached_attention(
    q: &Tensor,
    cache_k: &Tensor,
    cache_v: &Tensor,
    causal: &Tensor,
    offset: i64,
    kernel: MaskedAttention,
) -> Result<Tensor> {
    let n = q.size()[2];
    let row = match kernel {
        MaskedAttention::Exact => offset,
        MaskedAttention::MisreadsMask => 0,
    };
    let mask = causal.f_narrow(0, row, n)?;
    Tensor::f_scaled_dot_product_attention(
        q,
        cache_k,
        cache_v,
        Some(&mask),
        0.0,
        false,
        None,
        false,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_causal_mask_lets_each_new_token_see_the_past_and_itself() {
        let mask = causal_mask_after(2, 2, Device::Cpu).unwrap();
        let rows: Vec<Vec<bool>> = (0..2)
            .map(|r| {
                let row = mask.get(r);
                (0..4).map(|c| row.int64_value(&[c]) != 0).collect()
            })
            .collect();
        assert_eq!(
            rows,
            vec![vec![true, true, true, false], vec![true, true, true, true]]
        );
        assert_eq!(mask.kind(), Kind::Bool);
    }

    #[test]
    fn a_kernel_that_misreads_the_mask_sees_the_wrong_slots() {
        // Cache of 6 slots, 2 filled; a step at offset 1 must see slots 0 and 1 only.
        let k = Tensor::from_slice(&[1.0_f32, 0.5, 9.0, -9.0, 3.0, 7.0]).reshape([1, 1, 6, 1]);
        let v =
            Tensor::from_slice(&[1.0_f32, 2.0, 100.0, 100.0, 100.0, 100.0]).reshape([1, 1, 6, 1]);
        let q = Tensor::from_slice(&[0.0_f32]).reshape([1, 1, 1, 1]);
        let causal = causal_mask_after(0, 6, Device::Cpu).unwrap();
        let exact = cached_attention(&q, &k, &v, &causal, 1, MaskedAttention::Exact).unwrap();
        // q = 0: equal weights over the two visible slots.
        assert!((exact.double_value(&[0, 0, 0, 0]) - 1.5).abs() < 1e-6);
        let broken =
            cached_attention(&q, &k, &v, &causal, 1, MaskedAttention::MisreadsMask).unwrap();
        assert!(
            (broken.double_value(&[0, 0, 0, 0]) - 1.0).abs() < 1e-6,
            "slot 0 only"
        );
    }
}
