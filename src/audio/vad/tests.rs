use super::*;
use std::path::Path;

fn fixtures() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures"))
}

/// The installed weights (`scripts/setup.sh --test` puts them in place).
fn detector() -> VoiceDetector {
    let path = model_path().expect("a data folder");
    VoiceDetector::load(&path)
        .unwrap_or_else(|e| panic!("{e} (scripts/setup.sh --test installs the model)"))
}

fn clip(name: &str) -> Vec<f32> {
    crate::audio::wav::read_wav_16k(&fixtures().join("clips").join(name)).expect("fixture clip")
}

/// Silero's own ONNX model's probabilities for the clips (scripts/gen-vad-fixture.py).
fn reference() -> std::collections::BTreeMap<String, Vec<f32>> {
    let text = std::fs::read_to_string(fixtures().join("vad/silero_reference.json"))
        .expect("tests/fixtures/vad/silero_reference.json");
    serde_json::from_str(&text).expect("reference JSON")
}

#[test]
fn the_port_gives_silero_s_own_probabilities() {
    let detector = detector();
    for (name, expected) in reference() {
        let ours = detector.probabilities(&clip(&name));
        assert_eq!(ours.len(), expected.len(), "{name}: frames");
        let worst = ours
            .iter()
            .zip(&expected)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(
            worst < 2e-3,
            "{name}: off by up to {worst} from the ONNX model"
        );
    }
}

#[test]
fn a_stream_labels_speech_through_noise_and_nothing_in_silence() {
    let detector = detector();
    // Pink noise at 10 dB SNR around one spoken sentence: the noise before it is not speech,
    // most of the sentence is.
    let noisy = clip("en_noisy_pink10db.wav");
    let mut stream = detector.stream();
    for piece in noisy.chunks(333) {
        stream.push(piece);
    }
    let frames = stream.frames().clone();
    assert_eq!(frames.covered(), noisy.len() / FRAME * FRAME);
    assert!(frames.quiet_in(0..8_000), "the noise before the speech");
    assert!(frames.speech_in(16_000..32_000));
    assert!(
        frames.speech_frames() * FRAME > 16_000 * 2,
        "{} frames of speech",
        frames.speech_frames()
    );
    // The same in one push as in pieces.
    let mut whole = detector.stream();
    whole.push(&noisy);
    assert_eq!(whole.frames(), &frames);
    // Silence holds no speech; finishing labels the last partial frame.
    let mut silent = detector.stream();
    silent.push(&clip("silence_5s.wav")[..8_100]);
    silent.finish();
    assert_eq!(silent.frames().covered(), 8_192);
    assert_eq!(silent.frames().speech_frames(), 0);
}

#[test]
fn speech_frames_answer_for_the_frames_a_range_overlaps() {
    let frames = SpeechFrames::from_labels(vec![false, true, false, false]);
    assert!(frames.speech_in(FRAME - 1..FRAME + 1));
    assert!(frames.quiet_in(2 * FRAME..4 * FRAME));
    assert!(!frames.quiet_in(FRAME..2 * FRAME));
    // Nothing judged there yet: neither speech nor quiet.
    assert!(!frames.quiet_in(4 * FRAME..5 * FRAME));
    assert!(!frames.speech_in(4 * FRAME..5 * FRAME));
    assert!(!frames.quiet_in(3..3));
    // One speech frame, and what is not judged yet counts as speech.
    let seconds = FRAME as f32 / 16_000.0;
    assert_eq!(frames.speech_seconds_in(0..4 * FRAME), seconds);
    assert_eq!(
        frames.speech_seconds_in(2 * FRAME..6 * FRAME),
        2.0 * seconds
    );
}

#[test]
fn unusable_weights_name_the_file_and_the_tensor() {
    let missing = Path::new("/nonexistent/silero_vad_16k.safetensors");
    let e = VoiceDetector::load(missing).unwrap_err().to_string();
    assert!(e.contains("/nonexistent/silero_vad_16k.safetensors"), "{e}");

    let dir = tempfile::tempdir().unwrap();
    let wrong = dir.path().join(MODEL_FILE);
    let tensors = [(
        "stft_conv.weight",
        safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![2, 2], &[0u8; 16])
            .unwrap(),
    )];
    std::fs::write(
        &wrong,
        safetensors::tensor::serialize(tensors, None).unwrap(),
    )
    .unwrap();
    let e = VoiceDetector::load(&wrong).unwrap_err().to_string();
    assert!(
        e.contains(MODEL_FILE) && e.contains("stft_conv.weight"),
        "{e}"
    );
    std::fs::write(&wrong, b"not weights").unwrap();
    let e = VoiceDetector::load(&wrong).unwrap_err().to_string();
    assert!(e.contains("not a valid safetensors file"), "{e}");
}
