//! The hyper-parameters that tell one Whisper size from another (OpenAI's `ModelDimensions`).
//! They are inferred from tensor shapes when a model is loaded, never assumed from a model name,
//! so every size — tiny … large-v3, large-v3-turbo — goes through the same code.

/// OpenAI's `ModelDimensions`, field for field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelDims {
    /// Mel bins of the input (80; 128 for large-v3 and turbo).
    pub n_mels: usize,
    /// Vocabulary size (51864 English-only, 51865 multilingual, 51866 large-v3).
    pub n_vocab: usize,
    /// Audio positions after the stride-2 convolution (1500 for a 30 s window).
    pub n_audio_ctx: usize,
    /// Width of the encoder.
    pub n_audio_state: usize,
    /// Attention heads in the encoder.
    pub n_audio_head: usize,
    /// Encoder blocks.
    pub n_audio_layer: usize,
    /// Text positions the decoder can attend to (448).
    pub n_text_ctx: usize,
    /// Width of the decoder.
    pub n_text_state: usize,
    /// Attention heads in the decoder.
    pub n_text_head: usize,
    /// Decoder blocks (4 for large-v3-turbo).
    pub n_text_layer: usize,
}

impl ModelDims {
    /// English-only checkpoints (`*.en`) have 51864 tokens; multilingual ones more.
    pub fn is_multilingual(&self) -> bool {
        self.n_vocab >= 51865
    }

    /// Number of language tokens in the vocabulary (99, or 100 from large-v3 on, which adds
    /// Cantonese), as OpenAI's `Whisper.num_languages`.
    pub fn num_languages(&self) -> usize {
        self.n_vocab
            .saturating_sub(51765 + usize::from(self.is_multilingual()))
    }
}
