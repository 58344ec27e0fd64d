//! The loader on generated tiny models in both layouts: what loads, what is refused and how.

use super::fixtures::{canonical, Tiny};
use super::*;
use crate::whisper::weight_source::{
    alignment_heads_or_default, count_layers, default_alignment_heads, DType,
};
use crate::whisper::{ct2, hf};
use tempfile::TempDir;

fn ct2_dir(t: &Tiny) -> TempDir {
    let dir = TempDir::new().unwrap();
    ct2::testing::write_model_dir(dir.path(), t, &|_| DType::F16);
    dir
}

fn hf_dir(t: &Tiny) -> TempDir {
    let dir = TempDir::new().unwrap();
    hf::testing::write_model_dir(dir.path(), t, DType::F32, "model.");
    dir
}

#[test]
fn detects_each_layout_by_its_files() {
    let ct2 = ct2_dir(&Tiny::SMALL);
    assert_eq!(detect_layout(ct2.path()).unwrap(), Layout::CTranslate2);
    let hf = hf_dir(&Tiny::SMALL);
    assert_eq!(detect_layout(hf.path()).unwrap(), Layout::HuggingFace);
}

#[test]
fn empty_directory_names_what_it_expected() {
    let dir = TempDir::new().unwrap();
    let err = detect_layout(dir.path()).unwrap_err();
    assert!(matches!(err, LoadError::NoModel { .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.contains(&dir.path().display().to_string()),
        "{message}"
    );
    assert!(message.contains("model.bin") && message.contains("model.safetensors"));
}

#[test]
fn pickle_checkpoints_are_refused_by_name() {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("pytorch_model.bin"), b"not really").unwrap();
    let err = load_weights(dir.path(), &LoadOptions::default()).unwrap_err();
    assert!(matches!(err, LoadError::PickleUnsupported { .. }), "{err}");
    assert!(err.to_string().contains("pytorch_model.bin"));
}

#[test]
fn a_file_or_a_missing_path_is_not_a_model_directory() {
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("model.bin");
    std::fs::write(&file, b"").unwrap();
    assert!(matches!(
        detect_layout(&file),
        Err(LoadError::NotADirectory { .. })
    ));
    let gone = dir.path().join("nowhere");
    let err = detect_layout(&gone).unwrap_err();
    assert!(matches!(err, LoadError::Io { .. }) && err.to_string().contains("nowhere"));
}

#[test]
fn integer_kinds_are_refused_before_reading_anything() {
    let dir = ct2_dir(&Tiny::SMALL);
    let opts = LoadOptions {
        kind: Kind::Int64,
        ..LoadOptions::default()
    };
    let err = load_weights(dir.path(), &opts).unwrap_err();
    assert!(matches!(err, LoadError::UnsupportedKind { .. }), "{err}");
}

#[test]
fn ct2_and_hf_files_with_the_same_numbers_load_identically() {
    for t in [Tiny::SMALL, Tiny::LARGE_V3_LIKE] {
        let (a, b) = (ct2_dir(&t), hf_dir(&t));
        let ct2 = load_weights(a.path(), &LoadOptions::default()).unwrap();
        let hf = load_weights(b.path(), &LoadOptions::default()).unwrap();
        assert_eq!(ct2.weights.dims, hf.weights.dims);
        let (x, y) = (canonical(&ct2.weights), canonical(&hf.weights));
        assert_eq!(x.len(), y.len());
        for ((name, p), (_, q)) in x.iter().zip(&y) {
            assert_eq!(p.size(), q.size(), "{name}");
            assert_eq!(p.kind(), q.kind(), "{name}");
            assert!(p.equal(q), "{name} differs between the layouts");
        }
    }
}

#[test]
fn layers_are_counted_by_highest_index() {
    let names = [
        "enc/layer_0/a",
        "enc/layer_1/b",
        "enc/layer_10/c",
        "enc/layer_x/d",
        "dec/layer_3/a",
    ];
    assert_eq!(count_layers(names.into_iter(), "enc/layer_"), 11);
    assert_eq!(count_layers(names.into_iter(), "dec/layer_"), 4);
    assert_eq!(count_layers(names.into_iter(), "none/layer_"), 0);
}

#[test]
fn default_alignment_heads_are_the_last_half_of_the_decoder() {
    let mut dims = Tiny::SMALL.dims();
    dims.n_text_layer = 4;
    dims.n_text_head = 2;
    assert_eq!(
        default_alignment_heads(&dims),
        vec![(2, 0), (2, 1), (3, 0), (3, 1)]
    );
    assert_eq!(alignment_heads_or_default(Some(vec![]), &dims).len(), 4);
    assert_eq!(
        alignment_heads_or_default(Some(vec![(0, 1)]), &dims),
        vec![(0, 1)]
    );
}

#[test]
fn raw_tensors_refuse_data_not_matching_their_shape() {
    let data = [0u8; 12];
    assert!(RawTensor::new(&[3], DType::F32, &data).is_some());
    assert!(RawTensor::new(&[2], DType::F32, &data).is_none());
    assert!(RawTensor::new(&[usize::MAX, 2], DType::F32, &data).is_none());
    assert_eq!(
        RawTensor::new(&[], DType::I16, &[6, 0])
            .unwrap()
            .int_scalar(),
        Some(6)
    );
    assert_eq!(
        RawTensor::new(&[1], DType::I32, &[7, 0, 0, 0])
            .unwrap()
            .int_scalar(),
        Some(7)
    );
    assert_eq!(
        RawTensor::new(&[2], DType::I8, &[1, 2])
            .unwrap()
            .int_scalar(),
        None
    );
}

/// The real faster-whisper models, when this machine has them.
#[test]
fn real_models_load_with_their_known_dims() {
    let Some(home) = std::env::var_os("HOME") else {
        eprintln!("note: HOME unset, skipping the real-model check");
        return;
    };
    let root = PathBuf::from(home).join(".local/share/whisper-dictation/models");
    // (model, d, encoder+decoder layers, heads, vocab, mels)
    for (model, d, layers, heads, vocab) in
        [("base", 512, 6, 8, 51865), ("tiny.en", 384, 4, 6, 51864)]
    {
        let dir = root.join(model);
        if !dir.join("model.bin").is_file() {
            eprintln!("note: {} absent, skipping", dir.display());
            continue;
        }
        let started = Instant::now();
        let loaded = load_weights(&dir, &LoadOptions::default()).unwrap();
        eprintln!("loaded {model} in {:?}", started.elapsed());
        let dims = loaded.weights.dims;
        let expected = ModelDims {
            n_mels: 80,
            n_vocab: vocab,
            n_audio_ctx: 1500,
            n_audio_state: d,
            n_audio_head: heads,
            n_audio_layer: layers,
            n_text_ctx: 448,
            n_text_state: d,
            n_text_head: heads,
            n_text_layer: layers,
        };
        assert_eq!(dims, expected, "{model}");
        assert_eq!(loaded.layout, Layout::CTranslate2);
        assert_eq!(loaded.weights.decoder.token_embedding.kind(), Kind::Float);
        let generation = &loaded.generation;
        assert!(!generation.suppress_ids.is_empty() && !generation.alignment_heads.is_empty());
        assert!(
            generation.suppress_ids_begin.contains(&220),
            "{generation:?}"
        );
    }
}
