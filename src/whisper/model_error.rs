//! The error of the Whisper network's forward passes ([`ModelError`]), and [`Stage`], which
//! names the operation a libtorch error came from. Shared by the network (`model`) and its
//! stateless layers (`layers`).

use tch::TchError;

type Result<T> = std::result::Result<T, ModelError>;

/// A failure inside a forward pass, with the operation that failed.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("{stage}: {source}")]
    Torch {
        stage: &'static str,
        #[source]
        source: TchError,
    },
    #[error("the mel input has shape {actual:?}, expected [batch, {n_mels}, frames] with frames even and at most {max_frames}")]
    MelShape {
        actual: Vec<i64>,
        n_mels: usize,
        max_frames: usize,
    },
    #[error("{requested} text positions requested, the model has {n_text_ctx}")]
    TextContextExceeded { requested: usize, n_text_ctx: usize },
    /// The caller's `keep_going` said stop (between encoder blocks or decoder steps).
    #[error("asked to stop")]
    Stopped,
}

/// Attaches the stage name to a libtorch error.
pub(super) trait Stage<T> {
    fn stage(self, stage: &'static str) -> Result<T>;
}

impl<T> Stage<T> for std::result::Result<T, TchError> {
    fn stage(self, stage: &'static str) -> Result<T> {
        self.map_err(|source| ModelError::Torch { stage, source })
    }
}
