//! Int8 weight-only quantization, the CPU decoder's storage: each output row of a weight matrix
//! is scaled so its largest magnitude is 127, stored as int8, with one bfloat16 scale per row.
//! Products run in libtorch's int8-weight kernel (`_weight_int8pack_mm`) on bfloat16
//! activations with float32 accumulation; activations stay in whatever kind the caller keeps.
//!
//! bfloat16 here is storage, not arithmetic: the kernel widens it to float32 with a shift and
//! multiplies in float32, in vector forms for AVX-512, AVX2 and Arm NEON, so it is as fast on
//! CPUs without native bf16 (an M1, AVX2 machines) and the same layout serves them. On x86 its
//! float32-activation form is scalar: measured on an AMD EPYC with AVX2 only, the 51865 × 512
//! vocabulary projection of one row takes 1.4 ms with bf16 activations, 12.6 ms with float32
//! ones, and 7.9 ms as a float32 product (`x.linear`).
//!
//! Why: a decoder step multiplies one row by every weight once, so it is bound by memory
//! traffic, not arithmetic. Int8 reads a quarter of float32's bytes (BENCHMARKS.md: base's step
//! 21 → 8 ms, the 51865-wide vocabulary projection 10 → 1.3 ms), and on the project's clips the
//! words are the same as float32's (`tests/transcribe.rs`).

use tch::{Kind, TchError, Tensor};

/// A `[out, in]` matrix as int8 values with one scale per output row: `w ≈ values · scale`.
#[derive(Debug)]
pub struct Int8Rows {
    /// `[out, in]` int8.
    pub values: Tensor,
    /// `[out]` bfloat16 (the kernel wants the activations' kind).
    pub scales: Tensor,
}

impl Int8Rows {
    /// Input widths the kernel handles: its vector loops read whole blocks of the input row
    /// and crash on a ragged one (seen with 4). Every Whisper width is a multiple of 64.
    const INPUT_MULTIPLE: i64 = 64;
    /// Rows quantized at a time: 8192 × 512 float32 is 16 MB, inside a 32 MB last-level cache.
    /// Smaller chunks were faster on a quiet machine but much slower with another process on a
    /// core (each chunk is a few parallel passes that wait for both threads).
    const CHUNK_ROWS: i64 = 8192;

    /// Whether a `[out, in]` matrix can be stored as int8 rows (else keep it in floating point).
    pub fn fits(weight: &Tensor) -> bool {
        matches!(weight.size().as_slice(), [out, inp] if *out > 0 && *inp > 0 && inp % Self::INPUT_MULTIPLE == 0)
    }

    /// Quantizes a floating-point `[out, in]` matrix, symmetric per row. The scale is rounded
    /// to bfloat16 before the values are, so `values · scale` is the best int8 approximation
    /// under the scale the kernel actually uses. Only for matrices that [`Self::fits`].
    pub fn quantize(weight: &Tensor) -> Result<Self, TchError> {
        // This runs at every model load (the token table is 26.5 M values for `base`), and
        // start-up time is on the user's clock: a few rows at a time, so the float32 working
        // copy stays in the cache and is written in place.
        let rows = weight.size().first().copied().unwrap_or(0);
        let dim = [1i64];
        let largest = weight
            .f_amax(dim.as_slice(), false)?
            .f_maximum(&weight.f_amin(dim.as_slice(), false)?.f_neg()?)?;
        let scales = largest
            .f_to_kind(Kind::Float)?
            .f_div_scalar(127.0)?
            // An all-zero row gets a tiny scale instead of a division by zero; its values are 0.
            .f_clamp_min(f64::from(f32::MIN_POSITIVE))?
            .f_to_kind(Kind::BFloat16)?;
        let divisors = scales.f_to_kind(Kind::Float)?.f_unsqueeze(1)?;
        let values = Tensor::f_empty(weight.size(), (Kind::Int8, weight.device()))?;
        let mut start = 0;
        while start < rows {
            let n = Self::CHUNK_ROWS.min(rows - start);
            // A copy even when `weight` is float32 already: the passes below work in place.
            let mut chunk = weight
                .f_narrow(0, start, n)?
                .f_to_dtype(Kind::Float, false, true)?;
            let _ = chunk.f_div_(&divisors.f_narrow(0, start, n)?)?;
            let _ = chunk.f_round_()?;
            let _ = chunk.f_clamp_(-127, 127)?;
            values.f_narrow(0, start, n)?.f_copy_(&chunk)?;
            start += n;
        }
        Ok(Self { values, scales })
    }

    /// `x · wᵀ` for `x` of shape `[.., in]` in any floating kind; the result `[.., out]` has
    /// `x`'s kind.
    pub fn matmul(&self, x: &Tensor) -> Result<Tensor, TchError> {
        let size = x.size();
        let (features, lead) = size.split_last().unwrap_or((&0, &[]));
        let rows: i64 = lead.iter().product();
        let mut out_size = lead.to_vec();
        out_size.push(self.values.size()[0]);
        x.f_to_kind(Kind::BFloat16)?
            .f_reshape([rows, *features])?
            .f_internal_weight_int8pack_mm(&self.values, &self.scales)?
            .f_to_kind(x.kind())?
            .f_reshape(&out_size)
    }

    /// Rows `ids` of `w`, dequantized to `kind` (`[ids.len(), in]`): the token embedding's
    /// lookup when the table doubles as the output projection.
    pub fn rows(&self, ids: &Tensor, kind: Kind) -> Result<Tensor, TchError> {
        let values = self.values.f_index_select(0, ids)?.f_to_kind(kind)?;
        let scales = self
            .scales
            .f_index_select(0, ids)?
            .f_to_kind(kind)?
            .f_unsqueeze(1)?;
        values.f_mul(&scales)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::Device;

    fn max_abs(t: &Tensor) -> f64 {
        t.abs().max().double_value(&[])
    }

    #[test]
    fn products_match_float32_within_int8_resolution() {
        tch::manual_seed(7);
        let w = Tensor::randn([96, 64], (Kind::Float, Device::Cpu)) * 0.05;
        let x = Tensor::randn([3, 64], (Kind::Float, Device::Cpu));
        let q = Int8Rows::quantize(&w).unwrap();
        assert_eq!(q.values.kind(), Kind::Int8);
        let exact = x.linear(&w, None::<Tensor>);
        let approx = q.matmul(&x).unwrap();
        assert_eq!(approx.size(), vec![3, 96]);
        assert_eq!(approx.kind(), Kind::Float);
        let error = max_abs(&(approx - &exact)) / max_abs(&exact);
        assert!(error < 0.02, "relative error {error}");
    }

    #[test]
    fn keeps_leading_dimensions_and_the_callers_kind() {
        let w = Tensor::randn([8, 64], (Kind::Float, Device::Cpu));
        let q = Int8Rows::quantize(&w).unwrap();
        let x = Tensor::randn([2, 5, 64], (Kind::BFloat16, Device::Cpu));
        let y = q.matmul(&x).unwrap();
        assert_eq!(y.size(), vec![2, 5, 8]);
        assert_eq!(y.kind(), Kind::BFloat16);
    }

    #[test]
    fn an_all_zero_row_stays_zero_and_finite() {
        let w = Tensor::cat(
            &[
                Tensor::zeros([1, 64], (Kind::Float, Device::Cpu)),
                Tensor::ones([1, 64], (Kind::Float, Device::Cpu)),
            ],
            0,
        );
        let q = Int8Rows::quantize(&w).unwrap();
        let y = q
            .matmul(&Tensor::ones([1, 64], (Kind::Float, Device::Cpu)))
            .unwrap();
        let values: Vec<f32> = Vec::try_from(y.view([-1])).unwrap();
        assert_eq!(values[0], 0.0);
        assert!((values[1] - 64.0).abs() < 0.5, "{values:?}");
    }

    #[test]
    fn rows_past_the_first_chunk_are_quantized_alike() {
        let rows = 2 * Int8Rows::CHUNK_ROWS + 5;
        let w = Tensor::randn([rows, 64], (Kind::Float, Device::Cpu));
        let q = Int8Rows::quantize(&w).unwrap();
        let scales = q.scales.to_kind(Kind::Float).unsqueeze(1);
        let direct = (&w / &scales).round().clamp(-127, 127).to_kind(Kind::Int8);
        assert!(q.values.equal(&direct));
        let rebuilt = q.values.to_kind(Kind::Float) * &scales;
        let worst_row = (rebuilt - &w).abs().amax([1i64].as_slice(), false);
        let error = max_abs(&(worst_row / scales.squeeze()));
        assert!(error <= 0.5 + 1e-3, "off by {error} steps");
    }

    #[test]
    fn only_whole_blocks_of_inputs_fit_the_kernel() {
        let f = |shape: &[i64]| Int8Rows::fits(&Tensor::zeros(shape, (Kind::Float, Device::Cpu)));
        assert!(f(&[51865, 512]));
        assert!(f(&[2048, 384]));
        assert!(!f(&[8, 4]));
        assert!(!f(&[8, 100]));
        assert!(!f(&[64]));
    }

    #[test]
    fn dequantized_rows_approximate_the_table() {
        let w = Tensor::randn([10, 64], (Kind::Float, Device::Cpu));
        let q = Int8Rows::quantize(&w).unwrap();
        let ids = Tensor::from_slice(&[3i64, 7]);
        let rows = q.rows(&ids, Kind::Float).unwrap();
        let exact = w.index_select(0, &ids);
        let error = max_abs(&(rows - &exact)) / max_abs(&exact);
        assert!(error < 0.01, "relative error {error}");
        // One byte per value and a bf16 scale per row.
        let bytes = |t: &Tensor| t.numel() * t.kind().elt_size_in_bytes();
        assert_eq!(bytes(&q.values) + bytes(&q.scales), 10 * 64 + 10 * 2);
    }
}
