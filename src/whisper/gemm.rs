//! How the model's dense layers `x·Wᵀ + b` are multiplied on each device: oneDNN's GEMM on the
//! CPU in float32 where it pays, libtorch's default product elsewhere, and each way a weight
//! can be stored (floating point, float16 storage widened per product, int8 rows).

use super::weights::Weight;
use tch::{Device, Kind, TchError, Tensor};

/// How dense layers `x·Wᵀ + b` are multiplied. On the CPU in float32, oneDNN's GEMM is about
/// twice as fast as the default (MKL) path on this project's machines (AMD; measured: encoder
/// fc1 over 1500 frames 10.4 vs 20.8 ms, the logits GEMV 3.1 vs 4.8 ms), with float32 results
/// equal up to summation order. It is used where it pays: many rows (encoder, cross-attention
/// keys/values, prompts) and the vocabulary projection; single-row decoder layers are as fast
/// either way and skip the layout conversions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gemm {
    onednn: bool,
}

impl Gemm {
    /// Rows from which the oneDNN path is worth its two layout conversions.
    const ONEDNN_MIN_ROWS: i64 = 32;
    /// Output width from which even one row gains (the vocabulary projection, 51865 wide).
    const ONEDNN_MIN_OUTPUTS: i64 = 8192;

    pub fn for_device(device: Device, kind: Kind) -> Self {
        let onednn = device == Device::Cpu && kind == Kind::Float && tch::utils::has_mkldnn();
        Gemm { onednn }
    }

    /// `x·Wᵀ + b` for a weight stored any way [`Weight`] allows; the result has `x`'s kind.
    pub fn product(
        &self,
        x: &Tensor,
        weight: &Weight,
        bias: Option<&Tensor>,
    ) -> Result<Tensor, TchError> {
        match weight {
            Weight::Float(weight) => self.linear(x, weight, bias),
            Weight::Half(weight) => self.linear(x, &weight.f_to_kind(x.kind())?, bias),
            Weight::Int8(weight) => {
                let y = weight.matmul(x)?;
                match bias {
                    Some(bias) => y.f_add(bias),
                    None => Ok(y),
                }
            }
        }
    }

    pub fn linear(
        &self,
        x: &Tensor,
        weight: &Tensor,
        bias: Option<&Tensor>,
    ) -> std::result::Result<Tensor, TchError> {
        let size = x.size();
        let features = *size.last().unwrap_or(&0);
        let rows = size[..size.len().saturating_sub(1)].iter().product::<i64>();
        let worth_it =
            rows >= Self::ONEDNN_MIN_ROWS || weight.size()[0] >= Self::ONEDNN_MIN_OUTPUTS;
        if !(self.onednn && worth_it) {
            return x.f_linear(weight, bias);
        }
        let mut out_size = size.clone();
        if let Some(last) = out_size.last_mut() {
            *last = weight.size()[0];
        }
        x.f_reshape([rows, features])?
            .f_contiguous()?
            .f_to_mkldnn(None::<Kind>)?
            .f_mkldnn_linear(weight, bias)?
            .f_to_dense(None::<Kind>, false)?
            .f_reshape(&out_size)
    }
}
