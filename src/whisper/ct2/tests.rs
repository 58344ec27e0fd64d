use super::testing::*;
use super::*;
use crate::whisper::loader::fixtures::{
    assert_weights_match, encode, to_values, OpenAi, Tiny, Values,
};
use crate::whisper::loader::{load_weights, LoadError, LoadOptions};
use tch::Kind;
use tempfile::TempDir;

const PATH: &str = "/models/tiny/model.bin";

fn parse_bytes(bytes: &[u8]) -> Result<Index, Ct2Error> {
    parse(bytes, Path::new(PATH))
}

/// f16 for weights, bf16 for biases, f32 for the rest: every conversion path at once.
fn mixed(name: &str) -> DType {
    if name.ends_with("/weight") {
        DType::F16
    } else if name.ends_with("/bias") {
        DType::BF16
    } else {
        DType::F32
    }
}

fn tiny_vars() -> Vec<Var> {
    whisper_vars(&Tiny::SMALL, &mixed)
}

fn assert_names(err: &impl std::fmt::Display, needles: &[&str]) {
    let message = err.to_string();
    for needle in needles {
        assert!(
            message.contains(needle),
            "`{message}` does not mention `{needle}`"
        );
    }
}

fn load_dir_with(
    vars: &[Var],
) -> (
    TempDir,
    Result<crate::whisper::loader::LoadedWeights, LoadError>,
) {
    let dir = TempDir::new().unwrap();
    write_model_dir_with(dir.path(), &Tiny::SMALL, vars);
    let result = load_weights(dir.path(), &LoadOptions::default());
    (dir, result)
}

fn replace(vars: &mut [Var], name: &str, var: Var) {
    let slot = vars
        .iter_mut()
        .find(|v| v.name == name)
        .expect("fixture tensor");
    *slot = var;
}

#[test]
fn parses_a_model_and_resolves_the_tied_projection_alias() {
    let dir = TempDir::new().unwrap();
    let path = dir.path().join(MODEL_FILE);
    std::fs::write(&path, whisper_bytes(&tiny_vars())).unwrap();
    let model = Ct2Model::open(&path).unwrap();
    assert_eq!(
        model.header(),
        &Header {
            version: 6,
            spec: WHISPER_SPEC.into(),
            revision: 3
        }
    );
    assert_eq!(model.names().count(), tiny_vars().len());
    let embedding = model.tensor("decoder/embeddings/weight").unwrap();
    let projection = model.tensor(PROJECTION).unwrap();
    assert_eq!(projection.shape(), &[16, 8]);
    assert_eq!(projection.dtype(), DType::F16);
    assert_eq!(projection.data().as_ptr(), embedding.data().as_ptr());
    assert_eq!(
        model.aliases().get(PROJECTION).map(String::as_str),
        Some(TIED.1)
    );
    let heads = model.tensor("encoder/num_heads").unwrap();
    assert_eq!((heads.dtype(), heads.int_scalar()), (DType::I16, Some(2)));
    assert!(model.tensor("decoder/nothing").is_none());
}

#[test]
fn binary_versions_4_to_6_parse_and_others_do_not() {
    let vars = tiny_vars();
    for version in 4..=6 {
        let bytes = serialize(version, WHISPER_SPEC, &vars, &[TIED]);
        assert_eq!(parse_bytes(&bytes).unwrap().header.version, version);
    }
    for version in [0, 1, 3, 7, u32::MAX] {
        let bytes = serialize(version, WHISPER_SPEC, &vars, &[TIED]);
        let err = parse_bytes(&bytes).unwrap_err();
        assert!(matches!(err, Ct2Error::UnsupportedVersion { .. }), "{err}");
        assert_names(&err, &[PATH, &version.to_string()]);
    }
}

#[test]
fn truncation_anywhere_is_an_error_naming_the_file_not_a_panic() {
    let bytes = whisper_bytes(&tiny_vars());
    for cut in 0..bytes.len() {
        match parse_bytes(&bytes[..cut]) {
            Err(err @ (Ct2Error::Truncated { .. } | Ct2Error::AbsurdCount { .. })) => {
                assert_names(&err, &[PATH, "truncated"])
            }
            Err(other) => panic!("cut at {cut}: expected truncation, got {other}"),
            Ok(_) => panic!("cut at {cut} of {} parsed", bytes.len()),
        }
    }
    assert!(parse_bytes(&bytes).is_ok());
}

#[test]
fn truncation_inside_a_tensor_names_it() {
    let vars = tiny_vars();
    let bytes = whisper_bytes(&vars);
    let name = "encoder/conv1/weight";
    let start = bytes
        .windows(name.len())
        .position(|w| w == name.as_bytes())
        .unwrap();
    let inside_name = parse_bytes(&bytes[..start + 3]).unwrap_err();
    assert_names(&inside_name, &[PATH, "after `encoder/conv1/bias`"]);
    for (cut, what) in [
        (name.len() + 1, "rank"),
        (name.len() + 3, "shape"),
        (name.len() + 30, "data"),
    ] {
        assert_names(
            &parse_bytes(&bytes[..start + cut]).unwrap_err(),
            &[PATH, name, what],
        );
    }
}

#[test]
fn a_model_that_is_not_whisper_is_refused_by_spec_name() {
    let bytes = serialize(6, "TransformerSpec", &tiny_vars(), &[TIED]);
    let err = parse_bytes(&bytes).unwrap_err();
    assert!(matches!(err, Ct2Error::WrongSpec { .. }), "{err}");
    assert_names(&err, &[PATH, "TransformerSpec", "WhisperSpec"]);
}

#[test]
fn a_byte_count_not_matching_the_shape_names_the_tensor() {
    let mut vars = tiny_vars();
    let name = "decoder/layer_1/ffn/linear_0/weight";
    let var = vars.iter_mut().find(|v| v.name == name).unwrap();
    var.bytes.truncate(var.bytes.len() - 2);
    let err = parse_bytes(&whisper_bytes(&vars)).unwrap_err();
    assert!(matches!(err, Ct2Error::ByteCount { .. }), "{err}");
    assert_names(&err, &[PATH, name, "[32, 8]"]);
}

#[test]
fn an_unknown_dtype_names_the_tensor() {
    let mut vars = tiny_vars();
    vars[3].dtype = 9;
    let name = vars[3].name.clone();
    let err = parse_bytes(&whisper_bytes(&vars)).unwrap_err();
    assert!(matches!(err, Ct2Error::UnknownDtype { id: 9, .. }), "{err}");
    assert_names(&err, &[PATH, &name]);
}

#[test]
fn absurd_ranks_counts_and_sizes_are_refused_without_allocating() {
    let mut rank = tiny_vars();
    rank[0].shape = vec![1; 200];
    let err = parse_bytes(&whisper_bytes(&rank)).unwrap_err();
    assert!(
        matches!(err, Ct2Error::AbsurdRank { rank: 200, .. }),
        "{err}"
    );
    assert_names(&err, &[PATH, &rank[0].name]);

    let mut count = serialize(6, WHISPER_SPEC, &[], &[]);
    let at = count.len() - 8; // the tensor count, before the alias count
    count[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let err = parse_bytes(&count).unwrap_err();
    assert!(matches!(err, Ct2Error::AbsurdCount { .. }), "{err}");

    let mut aliases = serialize(6, WHISPER_SPEC, &[], &[]);
    let at = aliases.len() - 4;
    aliases[at..].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        parse_bytes(&aliases),
        Err(Ct2Error::AbsurdCount { .. })
    ));

    let huge = Var {
        name: "huge".into(),
        shape: vec![u32::MAX as usize; 8],
        dtype: 0,
        bytes: vec![],
    };
    let err = parse_bytes(&serialize(6, WHISPER_SPEC, &[huge], &[])).unwrap_err();
    assert!(matches!(err, Ct2Error::ShapeOverflow { .. }), "{err}");
    assert_names(&err, &[PATH, "huge"]);
}

#[test]
fn aliases_duplicates_strings_and_trailing_bytes_are_checked() {
    let vars = tiny_vars();
    let err = parse_bytes(&serialize(6, WHISPER_SPEC, &vars, &[("a", "nowhere")])).unwrap_err();
    assert!(matches!(err, Ct2Error::DanglingAlias { .. }), "{err}");
    assert_names(&err, &[PATH, "nowhere"]);

    let twice = [vars[0].clone(), vars[0].clone()];
    let err = parse_bytes(&serialize(6, WHISPER_SPEC, &twice, &[])).unwrap_err();
    assert!(matches!(err, Ct2Error::Duplicate { .. }), "{err}");
    assert_names(&err, &[&vars[0].name]);

    let mut doubled = whisper_bytes(&vars);
    doubled.extend(whisper_bytes(&vars));
    assert!(matches!(
        parse_bytes(&doubled),
        Err(Ct2Error::TrailingBytes { .. })
    ));

    let mut no_nul = serialize(6, WHISPER_SPEC, &vars, &[]);
    no_nul[4 + 2 + WHISPER_SPEC.len()] = b'!';
    assert!(matches!(
        parse_bytes(&no_nul),
        Err(Ct2Error::BadString { .. })
    ));
    let mut not_utf8 = serialize(6, WHISPER_SPEC, &vars, &[]);
    not_utf8[4 + 2] = 0xff;
    assert!(matches!(
        parse_bytes(&not_utf8),
        Err(Ct2Error::BadString { .. })
    ));
}

#[test]
fn empty_and_missing_files_are_errors_naming_them() {
    let dir = TempDir::new().unwrap();
    let empty = dir.path().join(MODEL_FILE);
    std::fs::write(&empty, b"").unwrap();
    let err = Ct2Model::open(&empty).unwrap_err();
    assert!(matches!(err, Ct2Error::Truncated { .. }), "{err}");
    assert_names(&err, &["model.bin"]);
    let err = Ct2Model::open(&dir.path().join("absent.bin")).unwrap_err();
    assert!(matches!(err, Ct2Error::Io { .. }) && err.to_string().contains("absent.bin"));
}

#[test]
fn loads_with_inferred_dims_and_exact_values_from_mixed_precision() {
    let (_dir, loaded) = load_dir_with(&tiny_vars());
    let loaded = loaded.unwrap();
    assert_weights_match(&loaded.weights, &Tiny::SMALL);
    assert_eq!(loaded.weights.encoder.conv1.weight.kind(), Kind::Float);
    let generation = &loaded.generation;
    assert_eq!(generation.suppress_ids, [1, 2]);
    assert_eq!(generation.suppress_ids_begin, [3, 4]);
    assert_eq!(generation.lang_ids.as_deref(), Some(&[12, 10, 11][..]));
    assert_eq!(generation.alignment_heads, [(1, 0), (1, 1)]);
}

#[test]
fn large_v3_like_shapes_load() {
    let t = Tiny::LARGE_V3_LIKE;
    let dir = TempDir::new().unwrap();
    write_model_dir(dir.path(), &t, &|_| DType::F16);
    let loaded = load_weights(dir.path(), &LoadOptions::default()).unwrap();
    assert_weights_match(&loaded.weights, &t);
}

#[test]
fn half_precision_is_kept_when_asked_for() {
    let dir = TempDir::new().unwrap();
    write_model_dir(dir.path(), &Tiny::SMALL, &mixed);
    let opts = LoadOptions {
        kind: Kind::Half,
        ..LoadOptions::default()
    };
    let loaded = load_weights(dir.path(), &opts).unwrap();
    let w = &loaded.weights;
    assert_eq!(
        w.encoder.blocks[1].attn.qkv.weight.float().unwrap().kind(),
        Kind::Half
    );
    assert_eq!(w.decoder.ln.bias.kind(), Kind::Half);
}

#[test]
fn a_missing_tensor_names_it_and_the_file() {
    let name = "decoder/layer_1/attention/linear_1/bias";
    let vars: Vec<Var> = tiny_vars().into_iter().filter(|v| v.name != name).collect();
    let (_dir, result) = load_dir_with(&vars);
    let err = result.unwrap_err();
    assert!(
        matches!(err, LoadError::Source(SourceError::MissingTensor { .. })),
        "{err}"
    );
    assert_names(&err, &["model.bin", name]);
}

#[test]
fn a_missing_layer_is_a_missing_tensor() {
    let vars: Vec<Var> = tiny_vars()
        .into_iter()
        .filter(|v| !v.name.starts_with("encoder/layer_0/"))
        .collect();
    let (_dir, result) = load_dir_with(&vars);
    assert_names(&result.unwrap_err(), &["model.bin", "encoder/layer_0/"]);
}

#[test]
fn a_misshaped_tensor_names_expected_and_actual_shapes() {
    let name = "encoder/layer_0/self_attention/linear_0/weight";
    let mut vars = tiny_vars();
    let bad = OpenAi::new(&Tiny::SMALL)
        .get("encoder.blocks.0.mlp.2.weight")
        .clone();
    replace(&mut vars, name, Var::new(name, &bad, DType::F16));
    let (_dir, result) = load_dir_with(&vars);
    let err = result.unwrap_err();
    assert!(
        matches!(err, LoadError::Source(SourceError::BadShape { .. })),
        "{err}"
    );
    assert_names(&err, &["model.bin", name, "[8, 32]", "[24, 8]"]);
}

#[test]
fn a_conv_of_the_wrong_kernel_is_refused() {
    let name = "encoder/conv2/weight";
    let mut vars = tiny_vars();
    let values = Values {
        shape: vec![8, 8, 5],
        data: vec![0.5; 320],
    };
    replace(&mut vars, name, Var::new(name, &values, DType::F32));
    let (_dir, result) = load_dir_with(&vars);
    assert_names(
        &result.unwrap_err(),
        &["model.bin", name, "[8, 8, 3]", "[8, 8, 5]"],
    );
}

#[test]
fn head_counts_must_be_present_and_divide_the_width() {
    let vars: Vec<Var> = tiny_vars()
        .into_iter()
        .filter(|v| v.name != "decoder/num_heads")
        .collect();
    let (_dir, result) = load_dir_with(&vars);
    assert_names(&result.unwrap_err(), &["model.bin", "decoder/num_heads"]);

    let mut vars = tiny_vars();
    replace(
        &mut vars,
        "encoder/num_heads",
        Var::scalar("encoder/num_heads", 3.0, DType::I32),
    );
    let (_dir, result) = load_dir_with(&vars);
    let err = result.unwrap_err();
    assert!(
        matches!(err, LoadError::Source(SourceError::BadDims { .. })),
        "{err}"
    );
    assert_names(&err, &["model.bin", "3 encoder heads"]);

    for bad in [
        Var::scalar("encoder/num_heads", 0.0, DType::I16),
        Var::scalar("encoder/num_heads", 2.0, DType::F32),
    ] {
        let mut vars = tiny_vars();
        replace(&mut vars, "encoder/num_heads", bad);
        let (_dir, result) = load_dir_with(&vars);
        assert_names(&result.unwrap_err(), &["model.bin", "encoder/num_heads"]);
    }
}

#[test]
fn int8_weights_are_dequantized_with_their_scale() {
    let name = "decoder/layer_0/ffn/linear_0/weight";
    let original = OpenAi::new(&Tiny::SMALL)
        .get("decoder.blocks.0.mlp.0.weight")
        .clone();
    let scale = 64.0; // fixture values are multiples of 1/64, so q = w · 64 is exact
    let mut quantized = original.clone();
    quantized.data.iter_mut().for_each(|v| *v *= scale);
    let mut vars = tiny_vars();
    replace(&mut vars, name, Var::new(name, &quantized, DType::I8));
    let scales = Values {
        shape: vec![32],
        data: vec![scale; 32],
    };
    vars.push(Var::new(&format!("{name}_scale"), &scales, DType::F32));
    let (_dir, loaded) = load_dir_with(&vars);
    let loaded = loaded.unwrap();
    assert_eq!(
        to_values(
            loaded.weights.decoder.blocks[0]
                .mlp
                .fc1
                .weight
                .float()
                .unwrap()
        ),
        original
    );

    let mut unscaled = tiny_vars();
    replace(&mut unscaled, name, Var::new(name, &quantized, DType::I8));
    let (_dir, result) = load_dir_with(&unscaled);
    let err = result.unwrap_err();
    assert!(
        matches!(err, LoadError::Source(SourceError::BadDtype { .. })),
        "{err}"
    );
    assert_names(&err, &["model.bin", name, "_scale"]);
}

#[test]
fn a_separate_output_projection_must_equal_the_embedding() {
    let embedding = tiny_vars().into_iter().find(|v| v.name == TIED.1).unwrap();
    let mut copy = embedding.clone();
    copy.name = PROJECTION.into();
    let mut vars = tiny_vars();
    vars.push(copy.clone());
    let dir = TempDir::new().unwrap();
    std::fs::write(
        dir.path().join(MODEL_FILE),
        serialize(6, WHISPER_SPEC, &vars, &[]),
    )
    .unwrap();
    assert!(load_weights(dir.path(), &LoadOptions::default()).is_ok());

    let last = vars.len() - 1;
    vars[last].bytes = encode(&vec![0.25; 16 * 8], DType::F16);
    std::fs::write(
        dir.path().join(MODEL_FILE),
        serialize(6, WHISPER_SPEC, &vars, &[]),
    )
    .unwrap();
    let err = load_weights(dir.path(), &LoadOptions::default()).unwrap_err();
    assert!(matches!(err, LoadError::UntiedProjection { .. }), "{err}");
    assert_names(&err, &["model.bin", PROJECTION]);
}

#[test]
fn without_config_json_generation_falls_back_to_defaults() {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join(MODEL_FILE), whisper_bytes(&tiny_vars())).unwrap();
    let loaded = load_weights(dir.path(), &LoadOptions::default()).unwrap();
    let generation = loaded.generation;
    assert!(generation.suppress_ids.is_empty() && generation.lang_ids.is_none());
    assert_eq!(generation.alignment_heads, [(1, 0), (1, 1)]);
}

#[test]
fn malformed_config_fields_name_the_file_and_field() {
    let cases = [
        (r#"{"suppress_ids": "1, 2"}"#, "suppress_ids"),
        (r#"{"suppress_ids_begin": [3, -1]}"#, "suppress_ids_begin"),
        (r#"{"lang_ids": [16]}"#, "lang_ids"),
        (r#"{"alignment_heads": [[0, 2]]}"#, "alignment_heads"),
        (r#"{"alignment_heads": [[0]]}"#, "alignment_heads"),
        (r#"[1, 2]"#, "(top level)"),
    ];
    for (json, field) in cases {
        let dir = TempDir::new().unwrap();
        std::fs::write(dir.path().join(MODEL_FILE), whisper_bytes(&tiny_vars())).unwrap();
        std::fs::write(dir.path().join("config.json"), json).unwrap();
        let err = load_weights(dir.path(), &LoadOptions::default()).unwrap_err();
        assert!(
            matches!(err, LoadError::Source(SourceError::Config { .. })),
            "{json}: {err}"
        );
        assert_names(&err, &["config.json", field]);
    }
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join(MODEL_FILE), whisper_bytes(&tiny_vars())).unwrap();
    std::fs::write(dir.path().join("config.json"), "{ not json").unwrap();
    let err = load_weights(dir.path(), &LoadOptions::default()).unwrap_err();
    assert!(
        matches!(err, LoadError::Source(SourceError::Json { .. })),
        "{err}"
    );
    assert_names(&err, &["config.json"]);
}
