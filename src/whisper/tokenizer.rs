//! Whisper's text tokenizer, read from a Hugging Face `tokenizer.json`.
//!
//! Owns three things:
//! - GPT-2 byte-level BPE: plain text → token ids (`encode`, for prompts) and token ids → text
//!   (`decode`, for transcripts), giving the same ids as the Hugging Face `tokenizers` library and
//!   OpenAI's tiktoken (checked against ids the reference produced, see
//!   `scripts/gen-tokenizer-fixture.py`);
//! - the special tokens that drive Whisper's decoder (`SpecialTokens`), looked up by name in the
//!   file, because their ids differ between English-only and multilingual models;
//! - Whisper's language table (`LANGUAGES`) and the code/name lookup (`lookup_language`).
//!
//! Written here instead of using the `tokenizers` crate: Whisper needs only this one tokenizer
//! type, and the crate would bring a large dependency tree (onig, rayon, esaxx, ...).

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use fancy_regex::Regex;
use serde::Deserialize;
use serde_json::Value;

/// Whisper's languages, code → English name, in OpenAI's order (`LANGUAGES` in
/// whisper/tokenizer.py). This is also the order of the language tokens in the vocabulary:
/// models up to large-v2 know the first 99, large-v3 all 100.
pub const LANGUAGES: &[(&str, &str)] = &[
    ("en", "english"),
    ("zh", "chinese"),
    ("de", "german"),
    ("es", "spanish"),
    ("ru", "russian"),
    ("ko", "korean"),
    ("fr", "french"),
    ("ja", "japanese"),
    ("pt", "portuguese"),
    ("tr", "turkish"),
    ("pl", "polish"),
    ("ca", "catalan"),
    ("nl", "dutch"),
    ("ar", "arabic"),
    ("sv", "swedish"),
    ("it", "italian"),
    ("id", "indonesian"),
    ("hi", "hindi"),
    ("fi", "finnish"),
    ("vi", "vietnamese"),
    ("he", "hebrew"),
    ("uk", "ukrainian"),
    ("el", "greek"),
    ("ms", "malay"),
    ("cs", "czech"),
    ("ro", "romanian"),
    ("da", "danish"),
    ("hu", "hungarian"),
    ("ta", "tamil"),
    ("no", "norwegian"),
    ("th", "thai"),
    ("ur", "urdu"),
    ("hr", "croatian"),
    ("bg", "bulgarian"),
    ("lt", "lithuanian"),
    ("la", "latin"),
    ("mi", "maori"),
    ("ml", "malayalam"),
    ("cy", "welsh"),
    ("sk", "slovak"),
    ("te", "telugu"),
    ("fa", "persian"),
    ("lv", "latvian"),
    ("bn", "bengali"),
    ("sr", "serbian"),
    ("az", "azerbaijani"),
    ("sl", "slovenian"),
    ("kn", "kannada"),
    ("et", "estonian"),
    ("mk", "macedonian"),
    ("br", "breton"),
    ("eu", "basque"),
    ("is", "icelandic"),
    ("hy", "armenian"),
    ("ne", "nepali"),
    ("mn", "mongolian"),
    ("bs", "bosnian"),
    ("kk", "kazakh"),
    ("sq", "albanian"),
    ("sw", "swahili"),
    ("gl", "galician"),
    ("mr", "marathi"),
    ("pa", "punjabi"),
    ("si", "sinhala"),
    ("km", "khmer"),
    ("sn", "shona"),
    ("yo", "yoruba"),
    ("so", "somali"),
    ("af", "afrikaans"),
    ("oc", "occitan"),
    ("ka", "georgian"),
    ("be", "belarusian"),
    ("tg", "tajik"),
    ("sd", "sindhi"),
    ("gu", "gujarati"),
    ("am", "amharic"),
    ("yi", "yiddish"),
    ("lo", "lao"),
    ("uz", "uzbek"),
    ("fo", "faroese"),
    ("ht", "haitian creole"),
    ("ps", "pashto"),
    ("tk", "turkmen"),
    ("nn", "nynorsk"),
    ("mt", "maltese"),
    ("sa", "sanskrit"),
    ("lb", "luxembourgish"),
    ("my", "myanmar"),
    ("bo", "tibetan"),
    ("tl", "tagalog"),
    ("mg", "malagasy"),
    ("as", "assamese"),
    ("tt", "tatar"),
    ("haw", "hawaiian"),
    ("ln", "lingala"),
    ("ha", "hausa"),
    ("ba", "bashkir"),
    ("jw", "javanese"),
    ("su", "sundanese"),
    ("yue", "cantonese"),
];

/// Other names OpenAI accepts for a language (the extra entries of `TO_LANGUAGE_CODE` in
/// whisper/tokenizer.py).
const LANGUAGE_ALIASES: &[(&str, &str)] = &[
    ("burmese", "my"),
    ("valencian", "ca"),
    ("flemish", "nl"),
    ("haitian", "ht"),
    ("letzeburgesch", "lb"),
    ("pushto", "ps"),
    ("panjabi", "pa"),
    ("moldavian", "ro"),
    ("moldovan", "ro"),
    ("sinhalese", "si"),
    ("castilian", "es"),
    ("mandarin", "zh"),
];

/// (legacy code, current code): language tokens some files still spell the old way. tiny.en's
/// tokenizer.json has `<|iw|>` where base's has `<|he|>`.
const LEGACY_LANGUAGE_CODES: &[(&str, &str)] = &[("iw", "he")];

/// The code in `LANGUAGES` for a language code or English name, case-insensitively:
/// `"pl"`, `"PL"`, `"polish"` and `"Polish"` all give `"pl"`; OpenAI's aliases (`"mandarin"`) and
/// legacy codes (`"iw"`) are understood too.
pub fn lookup_language(code_or_name: &str) -> Option<&'static str> {
    let query = code_or_name.trim().to_ascii_lowercase();
    let by_code_or_name = LANGUAGES
        .iter()
        .find(|(code, name)| *code == query || *name == query)
        .map(|(code, _)| *code);
    by_code_or_name.or_else(|| {
        LANGUAGE_ALIASES
            .iter()
            .chain(LEGACY_LANGUAGE_CODES)
            .find(|(alias, _)| *alias == query)
            .map(|(_, code)| *code)
    })
}

/// The English name of a language code (`"pl"` → `"polish"`), legacy codes included.
pub fn language_name(code: &str) -> Option<&'static str> {
    let code = lookup_language(code)?;
    LANGUAGES
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, name)| *name)
}

/// Why a tokenizer.json could not be loaded. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum TokenizerError {
    #[error("cannot read tokenizer {}: {cause}", path.display())]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("{} is not a valid tokenizer.json: {cause}", path.display())]
    Parse {
        path: PathBuf,
        cause: serde_json::Error,
    },
    #[error("{}: `{field}` {problem}", path.display())]
    InvalidField {
        path: PathBuf,
        field: String,
        problem: String,
    },
    #[error(
        "{}: required special token `{token}` is in neither `added_tokens` nor `model.vocab`",
        path.display()
    )]
    MissingSpecialToken { path: PathBuf, token: &'static str },
}

/// Ids of the special tokens Whisper's decoder is driven by, resolved by name from the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecialTokens {
    /// `<|endoftext|>`: ends a transcript. Every id from here up is a special or timestamp token.
    pub eot: u32,
    /// `<|startoftranscript|>`: first token of every decoder prompt.
    pub sot: u32,
    /// `<|startofprev|>`: introduces the previous-text prompt.
    pub sot_prev: u32,
    /// `<|startoflm|>`: never used for transcription; decoding suppresses it.
    pub sot_lm: Option<u32>,
    /// `<|nospeech|>` (older files: `<|nocaptions|>`): its probability after the prompt is the
    /// no-speech probability.
    pub no_speech: Option<u32>,
    /// `<|notimestamps|>`: asks for text without timestamp tokens.
    pub no_timestamps: u32,
    /// `<|0.00|>`, the first timestamp token; each next id is 20 ms later, up to `<|30.00|>`.
    /// Files that don't list the timestamps (faster-whisper's) put it right after `no_timestamps`.
    pub timestamp_begin: u32,
    /// `<|translate|>` task token. English-only files list the task tokens too, but those models
    /// are never prompted with them: check `Tokenizer::is_multilingual` before using them.
    pub translate: Option<u32>,
    /// `<|transcribe|>` task token; see `translate`.
    pub transcribe: Option<u32>,
    /// Language tokens as (code, id), in vocabulary order, codes spelled as in `LANGUAGES` (a
    /// file's legacy `<|iw|>` is listed as `"he"`). Empty for English-only models, which list
    /// language tokens but were never trained with them.
    pub languages: Vec<(String, u32)>,
}

impl SpecialTokens {
    /// The language token for a code (or anything `lookup_language` accepts: `"Polish"`, `"iw"`).
    pub fn language(&self, code: &str) -> Option<u32> {
        let wanted = lookup_language(code).unwrap_or(code);
        self.languages
            .iter()
            .find(|(have, _)| have == wanted)
            .map(|(_, id)| *id)
    }

    /// The language code (spelled as in `LANGUAGES`) of a language token id.
    pub fn language_code(&self, id: u32) -> Option<&str> {
        self.languages
            .iter()
            .find(|(_, have)| *have == id)
            .map(|(code, _)| code.as_str())
    }
}

/// A loaded Whisper tokenizer. Immutable once built; share it behind an `Arc` or a reference.
pub struct Tokenizer {
    /// Exact token text → id: BPE tokens in the byte-level alphabet (`Ġthe`) and added tokens
    /// (`<|en|>`).
    ids_by_text: HashMap<String, u32>,
    /// The raw bytes each BPE token stands for, by id. A map, not a vector indexed by id: the
    /// ids are the file's word, and one absurd id must not size an allocation.
    bytes_by_id: HashMap<u32, Box<[u8]>>,
    /// The single-byte token of every byte value: where BPE starts.
    byte_tokens: [u32; 256],
    /// (left id, right id) → the merge that joins them.
    merges: HashMap<(u32, u32), Merge>,
    specials: SpecialTokens,
    vocab_size: usize,
}

/// One BPE merge rule; lower ranks are applied first.
#[derive(Debug, Clone, Copy)]
struct Merge {
    rank: usize,
    id: u32,
}

/// Whisper's timestamp tokens `<|0.00|>` … `<|30.00|>`: one per 20 ms of the 30-second window.
const TIMESTAMP_TOKENS: u32 = 1501;

/// OpenAI's test for a multilingual model (`is_multilingual` in whisper/model.py): English-only
/// vocabularies have 51,864 tokens, multilingual ones 51,865 (51,866 from large-v3).
const MULTILINGUAL_MIN_VOCAB: usize = 51_865;

/// Token ids above this are rejected as corrupt.
const MAX_TOKEN_ID: u32 = 1 << 24;

/// GPT-2's pre-tokenizer: splits text into contractions, words, numbers, punctuation runs and
/// whitespace before BPE (the same pattern in HF's ByteLevel pre-tokenizer and OpenAI's tiktoken).
const GPT2_SPLIT_PATTERN: &str =
    r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+";

impl Tokenizer {
    /// Reads a Hugging Face `tokenizer.json` (byte-level BPE with Whisper's special tokens).
    ///
    /// # Errors
    /// The file can't be read, or see `from_json_str`.
    pub fn from_file(path: &Path) -> Result<Self, TokenizerError> {
        let json = std::fs::read_to_string(path).map_err(|cause| TokenizerError::Read {
            path: path.to_owned(),
            cause,
        })?;
        Self::from_json_str(&json, path)
    }

    /// Builds the tokenizer from the text of a `tokenizer.json`; `origin` names it in errors.
    ///
    /// # Errors
    /// The text is not JSON of the expected shape, the model is not a byte-level BPE (a merge
    /// names an unknown token, a byte has no token, an id is absurd), or a required special token
    /// (`<|endoftext|>`, `<|startoftranscript|>`, `<|startofprev|>`, `<|notimestamps|>`) is missing.
    pub fn from_json_str(json: &str, origin: &Path) -> Result<Self, TokenizerError> {
        let file: RawFile = serde_json::from_str(json).map_err(|cause| TokenizerError::Parse {
            path: origin.to_owned(),
            cause,
        })?;
        let fail = |field: &str, problem: String| TokenizerError::InvalidField {
            path: origin.to_owned(),
            field: field.to_owned(),
            problem,
        };
        check_model_type(&file.model).map_err(|p| fail("model.type", p))?;
        check_ids(&file).map_err(|(field, p)| fail(&field, p))?;

        let alphabet = ByteAlphabet::new();
        let byte_tokens =
            byte_tokens(&file.model.vocab, &alphabet).map_err(|p| fail("model.vocab", p))?;
        let merges = merges(&file.model).map_err(|(field, p)| fail(&field, p))?;
        let bytes_by_id = bytes_by_id(&file.model.vocab, &alphabet);
        let ids_by_text = ids_by_text(&file);
        let (specials, vocab_size) = resolve_specials(&file, &ids_by_text).map_err(|token| {
            TokenizerError::MissingSpecialToken {
                path: origin.to_owned(),
                token,
            }
        })?;
        Ok(Self {
            ids_by_text,
            bytes_by_id,
            byte_tokens,
            merges,
            specials,
            vocab_size,
        })
    }

    /// Number of ids the model's output covers: max token id + 1, added tokens included, and the
    /// 1,501 timestamp tokens after `<|notimestamps|>` counted even where the file doesn't list
    /// them (base: 51,865, tiny.en: 51,864, as the models' `n_vocab`).
    pub fn vocab_size(&self) -> usize {
        self.vocab_size
    }

    /// The id of a token given its exact text, e.g. `"<|en|>"` or `"Ġthe"` (BPE tokens are spelled
    /// in GPT-2's byte-level alphabet, where a leading space is `Ġ`).
    pub fn token_id(&self, token: &str) -> Option<u32> {
        self.ids_by_text.get(token).copied()
    }

    /// Plain text → token ids, for prompts. Never produces special tokens: text that looks like
    /// one (`"<|en|>"`) is encoded as the characters it is.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut ids = Vec::with_capacity(text.len() / 2 + 1);
        for piece in split_pieces(text) {
            self.encode_piece(piece.as_bytes(), &mut ids);
        }
        ids
    }

    /// Token ids → text. Only text tokens count: ids from `eot` up (special and timestamp tokens)
    /// and unknown ids are skipped; bytes that are not valid UTF-8 (a character cut between
    /// tokens) become U+FFFD.
    pub fn decode(&self, ids: &[u32]) -> String {
        let bytes = self.decode_bytes(ids);
        String::from_utf8(bytes)
            .unwrap_or_else(|invalid| String::from_utf8_lossy(invalid.as_bytes()).into_owned())
    }

    /// Token ids → the raw bytes of their text, skipping the same ids as `decode`.
    pub fn decode_bytes(&self, ids: &[u32]) -> Vec<u8> {
        ids.iter()
            .filter(|&&id| id < self.specials.eot)
            .filter_map(|id| self.bytes_by_id.get(id))
            .flat_map(|bytes| bytes.iter().copied())
            .collect()
    }

    pub fn specials(&self) -> &SpecialTokens {
        &self.specials
    }

    /// Whether the model knows languages and tasks (OpenAI's rule: `n_vocab >= 51865`).
    pub fn is_multilingual(&self) -> bool {
        self.vocab_size >= MULTILINGUAL_MIN_VOCAB
    }

    /// Byte-level BPE of one pre-tokenized piece: start from single bytes, then keep applying the
    /// lowest-ranked merge (leftmost on ties) until none applies.
    fn encode_piece(&self, piece: &[u8], out: &mut Vec<u32>) {
        let mut parts: Vec<u32> = piece
            .iter()
            .map(|&b| self.byte_tokens[usize::from(b)])
            .collect();
        // pair_merges[i] is the merge joining parts[i] and parts[i + 1], if there is one.
        let mut pair_merges: Vec<Option<Merge>> =
            parts.windows(2).map(|p| self.merge(p[0], p[1])).collect();
        while let Some((at, merge)) = lowest_merge(&pair_merges) {
            parts[at] = merge.id;
            parts.remove(at + 1);
            pair_merges.remove(at);
            if at > 0 {
                pair_merges[at - 1] = self.merge(parts[at - 1], parts[at]);
            }
            if at < pair_merges.len() {
                pair_merges[at] = self.merge(parts[at], parts[at + 1]);
            }
        }
        out.extend_from_slice(&parts);
    }

    fn merge(&self, left: u32, right: u32) -> Option<Merge> {
        self.merges.get(&(left, right)).copied()
    }
}

impl fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tokenizer")
            .field("vocab_size", &self.vocab_size)
            .field("merges", &self.merges.len())
            .field("multilingual", &self.is_multilingual())
            .field("specials", &self.specials)
            .finish_non_exhaustive()
    }
}

/// The applicable merge with the lowest rank, leftmost among equals, and where it applies.
fn lowest_merge(pair_merges: &[Option<Merge>]) -> Option<(usize, Merge)> {
    pair_merges
        .iter()
        .enumerate()
        .filter_map(|(at, merge)| merge.map(|m| (at, m)))
        .min_by_key(|(at, merge)| (merge.rank, *at))
}

fn gpt2_split_regex() -> &'static Regex {
    static REGEX: OnceLock<Regex> = OnceLock::new();
    REGEX.get_or_init(|| {
        Regex::new(GPT2_SPLIT_PATTERN).expect("the GPT-2 split pattern is a valid regex (tested)")
    })
}

/// Splits text into the pieces BPE works on. The pattern matches every character, so the pieces
/// cover the text exactly; should the regex engine give up (backtracking limit), the rest of the
/// text becomes one piece rather than being lost.
fn split_pieces(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut end = 0;
    for found in gpt2_split_regex().find_iter(text) {
        let Ok(found) = found else { break };
        if found.start() > end {
            pieces.push(&text[end..found.start()]);
        }
        pieces.push(found.as_str());
        end = found.end();
    }
    if end < text.len() {
        pieces.push(&text[end..]);
    }
    pieces
}

/// GPT-2's reversible byte ↔ printable-character map (`bytes_to_unicode` in OpenAI's GPT-2
/// encoder): printable Latin-1 bytes stand for themselves, the other 68 bytes for U+0100 upward,
/// so a space is `Ġ` and a newline `Ċ`. BPE vocabularies and merges are spelled in it.
struct ByteAlphabet {
    chars: [char; 256],
    bytes: HashMap<char, u8>,
}

impl ByteAlphabet {
    fn new() -> Self {
        let mut chars = ['\0'; 256];
        let mut shifted = 0;
        for byte in 0..=255u8 {
            chars[usize::from(byte)] = if stands_for_itself(byte) {
                char::from(byte)
            } else {
                shifted += 1;
                // U+0100..=U+0143 are all valid scalar values, so the fallback never happens.
                char::from_u32(255 + shifted).unwrap_or(char::REPLACEMENT_CHARACTER)
            };
        }
        let bytes = (0..=255u8).map(|b| (chars[usize::from(b)], b)).collect();
        Self { chars, bytes }
    }

    /// The bytes a token spells, or None if it has a character outside the alphabet.
    fn decode(&self, token: &str) -> Option<Vec<u8>> {
        token.chars().map(|c| self.bytes.get(&c).copied()).collect()
    }
}

fn stands_for_itself(byte: u8) -> bool {
    matches!(byte, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF)
}

/// The parts of tokenizer.json this module reads; everything else (normalizer, post-processor,
/// decoder settings) is fixed for Whisper and ignored.
#[derive(Deserialize)]
struct RawFile {
    model: RawModel,
    #[serde(default)]
    added_tokens: Vec<RawAddedToken>,
}

#[derive(Deserialize)]
struct RawModel {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    vocab: HashMap<String, u32>,
    /// `"a b"` strings (older files) or `["a", "b"]` pairs (tokenizers ≥ 0.20).
    merges: Vec<Value>,
}

#[derive(Deserialize)]
struct RawAddedToken {
    id: u32,
    content: String,
}

fn check_model_type(model: &RawModel) -> Result<(), String> {
    match model.kind.as_deref() {
        None | Some("BPE") => Ok(()),
        Some(other) => Err(format!("is \"{other}\"; only \"BPE\" is supported")),
    }
}

/// Rejects absurd ids (see `MAX_TOKEN_ID`), naming the field they were found in.
fn check_ids(file: &RawFile) -> Result<(), (String, String)> {
    let vocab = file
        .model
        .vocab
        .iter()
        .map(|(t, &id)| ("model.vocab", t, id));
    let added = file
        .added_tokens
        .iter()
        .map(|t| ("added_tokens", &t.content, t.id));
    match vocab.chain(added).find(|(_, _, id)| *id > MAX_TOKEN_ID) {
        Some((field, token, id)) => Err((
            field.to_owned(),
            format!("gives token {token:?} the id {id}, beyond the supported {MAX_TOKEN_ID}"),
        )),
        None => Ok(()),
    }
}

/// The id of every byte's single-byte token; each of the 256 must exist for BPE to start.
fn byte_tokens(
    vocab: &HashMap<String, u32>,
    alphabet: &ByteAlphabet,
) -> Result<[u32; 256], String> {
    let mut ids = [0; 256];
    for (byte, id) in ids.iter_mut().enumerate() {
        let token = alphabet.chars[byte].to_string();
        *id = *vocab.get(&token).ok_or_else(|| {
            format!("lacks the byte-level token {token:?} for byte 0x{byte:02x}; not a byte-level BPE vocabulary")
        })?;
    }
    Ok(ids)
}

/// Merge rules by the ids they join. A rule naming a token missing from the vocabulary is an
/// error, as in Hugging Face `tokenizers`.
fn merges(model: &RawModel) -> Result<HashMap<(u32, u32), Merge>, (String, String)> {
    let mut merges = HashMap::with_capacity(model.merges.len());
    let mut joined = String::new();
    for (rank, rule) in model.merges.iter().enumerate() {
        let field = || format!("model.merges[{rank}]");
        let (left, right) = merge_parts(rule)
            .ok_or_else(|| (field(), r#"is neither "a b" nor ["a", "b"]"#.to_owned()))?;
        joined.clear();
        joined.push_str(left);
        joined.push_str(right);
        let id_of = |token: &str| {
            model.vocab.get(token).copied().ok_or_else(|| {
                (
                    field(),
                    format!("needs token {token:?}, which is not in model.vocab"),
                )
            })
        };
        let pair = (id_of(left)?, id_of(right)?);
        let id = id_of(&joined)?;
        merges.entry(pair).or_insert(Merge { rank, id });
    }
    Ok(merges)
}

fn merge_parts(rule: &Value) -> Option<(&str, &str)> {
    match rule {
        Value::String(joined) => joined.split_once(' '),
        Value::Array(pair) => match pair.as_slice() {
            [Value::String(left), Value::String(right)] => Some((left, right)),
            _ => None,
        },
        _ => None,
    }
}

/// The bytes of every BPE token, by id. A token with characters outside the byte-level
/// alphabet stands for its own UTF-8, as in the Hugging Face ByteLevel decoder.
fn bytes_by_id(vocab: &HashMap<String, u32>, alphabet: &ByteAlphabet) -> HashMap<u32, Box<[u8]>> {
    vocab
        .iter()
        .map(|(token, &id)| {
            let bytes = alphabet
                .decode(token)
                .unwrap_or_else(|| token.as_bytes().to_vec());
            (id, bytes.into_boxed_slice())
        })
        .collect()
}

/// Every token's text → id; added tokens win over a BPE token with the same text.
fn ids_by_text(file: &RawFile) -> HashMap<String, u32> {
    let vocab = file.model.vocab.iter().map(|(t, &id)| (t.clone(), id));
    let added = file.added_tokens.iter().map(|t| (t.content.clone(), t.id));
    vocab.chain(added).collect()
}

/// Resolves the special tokens by name and the vocabulary size they imply; on failure, the name
/// of the missing required token.
fn resolve_specials(
    file: &RawFile,
    ids: &HashMap<String, u32>,
) -> Result<(SpecialTokens, usize), &'static str> {
    let optional = |name: &str| ids.get(name).copied();
    let required = |name: &'static str| optional(name).ok_or(name);
    let eot = required("<|endoftext|>")?;
    let sot = required("<|startoftranscript|>")?;
    let sot_prev = required("<|startofprev|>")?;
    let no_timestamps = required("<|notimestamps|>")?;
    let timestamp_begin = optional("<|0.00|>").unwrap_or(no_timestamps + 1);
    let listed = ids.values().max().map_or(0, |&max| max as usize + 1);
    let vocab_size = listed.max((timestamp_begin + TIMESTAMP_TOKENS) as usize);
    let languages = if vocab_size >= MULTILINGUAL_MIN_VOCAB {
        language_tokens(&file.added_tokens, sot)
    } else {
        Vec::new()
    };
    let specials = SpecialTokens {
        eot,
        sot,
        sot_prev,
        sot_lm: optional("<|startoflm|>"),
        no_speech: optional("<|nospeech|>").or_else(|| optional("<|nocaptions|>")),
        no_timestamps,
        timestamp_begin,
        translate: optional("<|translate|>"),
        transcribe: optional("<|transcribe|>"),
        languages,
    };
    Ok((specials, vocab_size))
}

/// The language tokens: the unbroken run of `<|xx|>`-shaped added tokens right after
/// `<|startoftranscript|>` (they end where `<|translate|>` begins). Codes are spelled as in
/// `LANGUAGES`; a code the table doesn't know is kept as the file has it.
fn language_tokens(added: &[RawAddedToken], sot: u32) -> Vec<(String, u32)> {
    let by_id: HashMap<u32, &str> = added.iter().map(|t| (t.id, t.content.as_str())).collect();
    (sot.saturating_add(1)..)
        .map_while(|id| Some((language_code_of(by_id.get(&id)?)?, id)))
        .map(|(code, id)| (lookup_language(code).unwrap_or(code).to_owned(), id))
        .collect()
}

/// `"<|pl|>"` → `"pl"`: two or three lowercase ASCII letters between `<|` and `|>`.
fn language_code_of(token: &str) -> Option<&str> {
    let code = token.strip_prefix("<|")?.strip_suffix("|>")?;
    let shaped = (2..=3).contains(&code.len()) && code.bytes().all(|b| b.is_ascii_lowercase());
    shaped.then_some(code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ORIGIN: &str = "test/tokenizer.json";

    /// Where `tiny_json` puts `<|endoftext|>` so that, as in the real files, the vocabulary
    /// (with the 1,501 unlisted timestamps after the 11 specials) has 51,865 ids: multilingual.
    const MULTILINGUAL_EOT: u32 = 51_865 - 1501 - 11;
    /// The same for an English-only vocabulary: 51,864 ids.
    const ENGLISH_ONLY_EOT: u32 = MULTILINGUAL_EOT - 1;

    /// A tiny Whisper-shaped tokenizer.json: the 256 byte tokens (ids 0..=255), one token per
    /// merge (ids from 256; merges spelled as in the file, `Ġ` for a space), and the special
    /// tokens from `eot` up in a real model's order, then `extra_added`.
    fn tiny_json(merges: &[(&str, &str)], eot: u32, extra_added: &[&str]) -> serde_json::Value {
        let alphabet = ByteAlphabet::new();
        let mut vocab = serde_json::Map::new();
        for byte in 0..=255u8 {
            vocab.insert(alphabet.chars[usize::from(byte)].to_string(), json!(byte));
        }
        let mut rules = Vec::new();
        for (left, right) in merges {
            let next = vocab.len();
            vocab.entry(format!("{left}{right}")).or_insert(json!(next));
            rules.push(json!(format!("{left} {right}")));
        }
        let names = [
            "<|endoftext|>",
            "<|startoftranscript|>",
            "<|en|>",
            "<|pl|>",
            "<|iw|>",
            "<|translate|>",
            "<|transcribe|>",
            "<|startoflm|>",
            "<|startofprev|>",
            "<|nocaptions|>",
            "<|notimestamps|>",
        ];
        let added: Vec<_> = (names.iter().chain(extra_added).enumerate())
            .map(|(i, name)| json!({"id": eot + i as u32, "content": name, "special": true}))
            .collect();
        json!({
            "version": "1.0",
            "added_tokens": added,
            "model": {"type": "BPE", "vocab": vocab, "merges": rules},
        })
    }

    fn tiny(merges: &[(&str, &str)]) -> Tokenizer {
        let json = tiny_json(merges, MULTILINGUAL_EOT, &[]).to_string();
        Tokenizer::from_json_str(&json, Path::new(ORIGIN)).expect("tiny tokenizer loads")
    }

    fn load_err(json: &serde_json::Value) -> String {
        let err = Tokenizer::from_json_str(&json.to_string(), Path::new(ORIGIN)).unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains(ORIGIN),
            "error doesn't name the file: {message}"
        );
        message
    }

    fn texts(tokenizer: &Tokenizer, ids: &[u32]) -> Vec<String> {
        ids.iter().map(|&id| tokenizer.decode(&[id])).collect()
    }

    /// Found while fuzzing the tokenizer: the token bytes were a vector indexed by id, so a
    /// file of a few KB giving one token the id 16,777,216 made a 268 MB allocation (16 bytes
    /// per id). Memory now follows the entries.
    #[test]
    fn a_huge_token_id_costs_one_entry_not_a_table_that_long() {
        let mut json = tiny_json(&[("Ġ", "t")], MULTILINGUAL_EOT, &[]);
        json["model"]["vocab"]["Ġt"] = json!(MAX_TOKEN_ID);
        let tokenizer = Tokenizer::from_json_str(&json.to_string(), Path::new(ORIGIN)).unwrap();
        assert_eq!(tokenizer.bytes_by_id.len(), 257);
        assert_eq!(tokenizer.decode(&[MAX_TOKEN_ID]), "");
        assert_eq!(
            tokenizer.decode_bytes(&[u32::from(b'h'), u32::from(b'i')]),
            b"hi"
        );
        assert_eq!(tokenizer.vocab_size(), MAX_TOKEN_ID as usize + 1);
    }

    #[test]
    fn byte_alphabet_is_gpt2s() {
        let alphabet = ByteAlphabet::new();
        assert_eq!(alphabet.chars[usize::from(b' ')], 'Ġ');
        assert_eq!(alphabet.chars[usize::from(b'\n')], 'Ċ');
        assert_eq!(alphabet.chars[usize::from(b'a')], 'a');
        assert_eq!(alphabet.chars[0], '\u{100}');
        assert_eq!(alphabet.chars[0xAD], '\u{143}');
        assert_eq!(alphabet.bytes.len(), 256, "the map must be one-to-one");
    }

    #[test]
    fn split_follows_gpt2_pattern() {
        assert_eq!(
            split_pieces("Hello,   world!  "),
            ["Hello", ",", "  ", " world", "!", "  "]
        );
        assert_eq!(
            split_pieces("don't 42x\n\n a"),
            ["don", "'t", " 42", "x", "\n\n", " a"]
        );
        assert_eq!(split_pieces(" Zażółć"), [" Zażółć"]);
        assert!(split_pieces("").is_empty());
    }

    #[test]
    fn long_whitespace_runs_split_without_giving_up() {
        let spaces = " ".repeat(100_000);
        let text = format!("a{spaces}b\n");
        assert_eq!(split_pieces(&text), ["a", &spaces[1..], " b", "\n"]);
    }

    #[test]
    fn bpe_applies_merges_by_rank() {
        let t = tiny(&[
            ("l", "l"),
            ("h", "e"),
            ("he", "ll"),
            ("hell", "o"),
            ("Ġ", "w"),
        ]);
        let ids = t.encode("hello world");
        assert_eq!(texts(&t, &ids), ["hello", " w", "o", "r", "l", "d"]);
    }

    #[test]
    fn bpe_lower_rank_wins_over_position() {
        let ab_first = tiny(&[("a", "b"), ("b", "c")]);
        assert_eq!(texts(&ab_first, &ab_first.encode("abc")), ["ab", "c"]);
        let bc_first = tiny(&[("b", "c"), ("a", "b")]);
        assert_eq!(texts(&bc_first, &bc_first.encode("abc")), ["a", "bc"]);
    }

    #[test]
    fn bpe_ties_merge_leftmost_first() {
        let t = tiny(&[("a", "a")]);
        assert_eq!(texts(&t, &t.encode("aaa")), ["aa", "a"]);
        assert_eq!(texts(&t, &t.encode("aaaa")), ["aa", "aa"]);
    }

    #[test]
    fn merges_may_be_pairs() {
        let mut json = tiny_json(&[("h", "e"), ("he", "y")], MULTILINGUAL_EOT, &[]);
        let pairs: Vec<_> = json["model"]["merges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let (l, r) = m.as_str().unwrap().split_once(' ').unwrap();
                json!([l, r])
            })
            .collect();
        json["model"]["merges"] = json!(pairs);
        let t = Tokenizer::from_json_str(&json.to_string(), Path::new(ORIGIN)).unwrap();
        assert_eq!(texts(&t, &t.encode("hey")), ["hey"]);
    }

    #[test]
    fn encode_decode_round_trips_any_text() {
        // ("Å", "¼") joins the two bytes of "ż".
        let t = tiny(&[("a", "b"), ("Ġ", "t"), ("Å", "¼")]);
        for text in [
            "",
            "ab cd",
            "Zażółć gęślą jaźń",
            "emoji 😀👍🏽\n\ttab  ",
            "\u{0}\u{7f}",
        ] {
            assert_eq!(t.decode(&t.encode(text)), text);
        }
    }

    #[test]
    fn encode_treats_special_looking_text_as_text() {
        let t = tiny(&[]);
        let ids = t.encode("<|endoftext|>");
        assert!(ids.iter().all(|&id| id < t.specials().eot), "{ids:?}");
        assert_eq!(t.decode(&ids), "<|endoftext|>");
    }

    #[test]
    fn decode_skips_special_timestamp_and_unknown_ids() {
        let t = tiny(&[]);
        let s = t.specials().clone();
        let mut ids = vec![
            s.sot,
            s.language("pl").unwrap(),
            s.no_timestamps,
            s.timestamp_begin,
        ];
        ids.extend(t.encode("hi"));
        ids.extend([s.timestamp_begin + 50, 40_000, u32::MAX, s.eot, s.sot_prev]);
        assert_eq!(t.decode(&ids), "hi");
    }

    #[test]
    fn decode_replaces_cut_characters() {
        let t = tiny(&[]);
        let ids = t.encode("ż!");
        assert_eq!(ids.len(), 3, "two bytes of ż, then !");
        assert_eq!(t.decode(&ids[1..]), "\u{FFFD}!");
        assert_eq!(t.decode_bytes(&ids[..1]), "ż".as_bytes()[..1]);
    }

    #[test]
    fn specials_are_found_by_name() {
        let t = tiny(&[]);
        let s = t.specials();
        let eot = MULTILINGUAL_EOT;
        assert_eq!((s.eot, s.sot), (eot, eot + 1));
        assert_eq!((s.translate, s.transcribe), (Some(eot + 5), Some(eot + 6)));
        assert_eq!((s.sot_lm, s.sot_prev), (Some(eot + 7), eot + 8));
        assert_eq!(
            s.no_speech,
            Some(eot + 9),
            "<|nocaptions|> stands in for <|nospeech|>"
        );
        assert_eq!(s.no_timestamps, eot + 10);
        assert_eq!(s.timestamp_begin, eot + 11, "right after <|notimestamps|>");
        assert_eq!(t.vocab_size(), 51865);
        assert!(t.is_multilingual());
        assert_eq!(t.token_id("<|pl|>"), Some(eot + 3));
        assert_eq!(t.token_id("Ġ"), Some(u32::from(b' ')));
        assert_eq!(t.token_id("hello"), None);
    }

    #[test]
    fn listed_timestamps_and_nospeech_are_used() {
        let json = tiny_json(
            &[],
            MULTILINGUAL_EOT,
            &["<|nospeech|>", "<|0.00|>", "<|0.02|>"],
        );
        let t = Tokenizer::from_json_str(&json.to_string(), Path::new(ORIGIN)).unwrap();
        let eot = MULTILINGUAL_EOT;
        assert_eq!(t.specials().no_speech, Some(eot + 11));
        assert_eq!(t.specials().timestamp_begin, eot + 12);
        assert_eq!(t.vocab_size(), (eot + 12 + 1501) as usize);
    }

    #[test]
    fn languages_run_from_sot_to_translate() {
        let t = tiny(&[]);
        let s = t.specials();
        let codes: Vec<_> = s.languages.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(codes, ["en", "pl", "he"], "legacy <|iw|> listed as he");
        let eot = MULTILINGUAL_EOT;
        assert_eq!(s.language("pl"), Some(eot + 3));
        assert_eq!(
            s.language("he"),
            Some(eot + 4),
            "legacy <|iw|> found by the current code"
        );
        assert_eq!(s.language("iw"), Some(eot + 4));
        assert_eq!(s.language("Polish"), Some(eot + 3));
        assert_eq!(s.language("de"), None);
        assert_eq!(s.language_code(eot + 4), Some("he"));
        assert_eq!(s.language_code(eot + 2), Some("en"));
        assert_eq!(s.language_code(s.sot), None);
    }

    #[test]
    fn english_only_vocabulary_has_no_languages() {
        let json = tiny_json(&[], ENGLISH_ONLY_EOT, &[]);
        let t = Tokenizer::from_json_str(&json.to_string(), Path::new(ORIGIN)).unwrap();
        assert!(!t.is_multilingual());
        assert_eq!(t.vocab_size(), 51864);
        assert!(t.specials().languages.is_empty());
        assert_eq!(t.specials().language("en"), None);
        assert_eq!(
            t.token_id("<|en|>"),
            Some(ENGLISH_ONLY_EOT + 2),
            "still listed, just not a language"
        );
    }

    #[test]
    fn missing_required_token_is_named() {
        let mut json = tiny_json(&[], MULTILINGUAL_EOT, &[]);
        let added = json["added_tokens"].as_array_mut().unwrap();
        added.retain(|t| t["content"] != "<|startofprev|>");
        assert!(load_err(&json).contains("<|startofprev|>"));
    }

    #[test]
    fn bad_files_are_errors_naming_the_field() {
        let base = tiny_json(&[("a", "b")], MULTILINGUAL_EOT, &[]);

        assert!(load_err(&json!({"model": {}})).contains("vocab"));
        assert!(load_err(&json!("not an object")).contains("not a valid tokenizer.json"));

        let mut unigram = base.clone();
        unigram["model"]["type"] = json!("Unigram");
        assert!(load_err(&unigram).contains("model.type"));

        let mut unknown = base.clone();
        unknown["model"]["merges"] = json!(["a b", "x yz"]);
        let message = load_err(&unknown);
        assert!(
            message.contains("model.merges[1]") && message.contains("\"yz\""),
            "{message}"
        );

        let mut malformed = base.clone();
        malformed["model"]["merges"] = json!(["a b", 7]);
        assert!(load_err(&malformed).contains("model.merges[1]"));

        let mut no_bytes = base.clone();
        no_bytes["model"]["vocab"]
            .as_object_mut()
            .unwrap()
            .remove("Ġ");
        assert!(load_err(&no_bytes).contains("byte 0x20"));

        let mut huge = base.clone();
        huge["added_tokens"][0]["id"] = json!(4_000_000_000u32);
        assert!(load_err(&huge).contains("added_tokens"));
    }

    #[test]
    fn unreadable_file_is_named() {
        let path = Path::new("/nonexistent/whisper-dictation/tokenizer.json");
        let message = Tokenizer::from_file(path).unwrap_err().to_string();
        assert!(message.contains(&path.display().to_string()), "{message}");
    }

    #[test]
    fn tokenizer_is_shareable_across_threads() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Tokenizer>();
    }

    #[test]
    fn language_table_is_openais() {
        assert_eq!(LANGUAGES.len(), 100);
        assert_eq!(LANGUAGES[0], ("en", "english"));
        assert_eq!(LANGUAGES[10], ("pl", "polish"));
        assert_eq!(LANGUAGES[98], ("su", "sundanese"));
        assert_eq!(LANGUAGES[99], ("yue", "cantonese"));
        let mut codes: Vec<_> = LANGUAGES.iter().map(|(c, _)| *c).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), LANGUAGES.len(), "codes are unique");
        assert!(LANGUAGES
            .iter()
            .all(|(c, _)| language_code_of(&format!("<|{c}|>")) == Some(c)));
    }

    #[test]
    fn languages_are_found_by_code_or_name() {
        assert_eq!(lookup_language("polish"), Some("pl"));
        assert_eq!(lookup_language("Polish"), Some("pl"));
        assert_eq!(lookup_language(" PL "), Some("pl"));
        assert_eq!(lookup_language("haitian creole"), Some("ht"));
        assert_eq!(lookup_language("mandarin"), Some("zh"));
        assert_eq!(lookup_language("iw"), Some("he"));
        assert_eq!(lookup_language("klingon"), None);
        assert_eq!(lookup_language(""), None);
        assert_eq!(language_name("pl"), Some("polish"));
        assert_eq!(language_name("iw"), Some("hebrew"));
        assert_eq!(language_name("xx"), None);
    }

    // ---- Against the real model files and the reference library ----

    #[derive(Deserialize)]
    struct Fixture {
        models: HashMap<String, FixtureModel>,
    }

    #[derive(Deserialize)]
    struct FixtureModel {
        file_bytes: u64,
        vocab_size_with_added: usize,
        specials: HashMap<String, Option<u32>>,
        encode: Vec<EncodeCase>,
        decode: Vec<DecodeCase>,
    }

    #[derive(Deserialize)]
    struct EncodeCase {
        text: String,
        ids: Vec<u32>,
        decoded: String,
    }

    #[derive(Deserialize)]
    struct DecodeCase {
        ids: Vec<u32>,
        text: String,
    }

    fn fixture(model: &str) -> FixtureModel {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tokenizer/expected.json");
        let text = std::fs::read_to_string(&path).expect("committed fixture is readable");
        let mut fixture: Fixture = serde_json::from_str(&text).expect("fixture parses");
        fixture.models.remove(model).expect("fixture has the model")
    }

    /// The installed model's tokenizer, if present and the very file the fixture was made from.
    fn real_tokenizer(model: &str, expected: &FixtureModel) -> Option<Tokenizer> {
        let dirs = directories::ProjectDirs::from("", "", "whisper-dictation")?;
        let path = dirs
            .data_dir()
            .join("models")
            .join(model)
            .join("tokenizer.json");
        let Ok(meta) = std::fs::metadata(&path) else {
            eprintln!(
                "skipping: {} is absent (scripts/setup.sh --test installs it)",
                path.display()
            );
            return None;
        };
        if meta.len() != expected.file_bytes {
            eprintln!(
                "skipping: {} has {} bytes, the fixture was made from {}; rerun scripts/gen-tokenizer-fixture.py",
                path.display(),
                meta.len(),
                expected.file_bytes
            );
            return None;
        }
        let started = std::time::Instant::now();
        let tokenizer = Tokenizer::from_file(&path).expect("real tokenizer.json loads");
        eprintln!("loaded {} in {:?}", path.display(), started.elapsed());
        Some(tokenizer)
    }

    fn check_against_reference(model: &str) -> Option<Tokenizer> {
        let expected = fixture(model);
        let tokenizer = real_tokenizer(model, &expected)?;
        for case in &expected.encode {
            let ids = tokenizer.encode(&case.text);
            assert_eq!(ids, case.ids, "{model}: encode({:?})", case.text);
            assert_eq!(
                tokenizer.decode(&ids),
                case.decoded,
                "{model}: decode of {:?}",
                case.text
            );
            assert_eq!(
                case.decoded, case.text,
                "{model}: the reference round-trips"
            );
        }
        for case in &expected.decode {
            assert_eq!(
                tokenizer.decode(&case.ids),
                case.text,
                "{model}: decode({:?})",
                case.ids
            );
        }
        for (name, id) in &expected.specials {
            assert_eq!(tokenizer.token_id(name), *id, "{model}: token_id({name})");
        }
        assert_eq!(
            tokenizer.vocab_size(),
            expected.vocab_size_with_added + TIMESTAMP_TOKENS as usize,
            "{model}: the file lists no timestamps, the vocabulary size counts them"
        );
        Some(tokenizer)
    }

    #[test]
    fn real_base_matches_reference() {
        let Some(t) = check_against_reference("base") else {
            return;
        };
        let s = t.specials();
        assert_eq!(t.vocab_size(), 51865);
        assert!(t.is_multilingual());
        assert_eq!(
            (s.eot, s.sot, s.sot_prev, s.sot_lm),
            (50257, 50258, 50361, Some(50360))
        );
        assert_eq!(
            (s.no_speech, s.no_timestamps, s.timestamp_begin),
            (Some(50362), 50363, 50364)
        );
        assert_eq!((s.translate, s.transcribe), (Some(50358), Some(50359)));
        assert_eq!(s.languages.len(), 99);
        let codes: Vec<_> = s.languages.iter().map(|(c, _)| c.as_str()).collect();
        let table: Vec<_> = LANGUAGES[..99].iter().map(|(c, _)| *c).collect();
        assert_eq!(codes, table, "the file's languages are OpenAI's, in order");
        assert_eq!(s.language("en"), Some(50259));
        assert_eq!(s.language("pl"), Some(50269));
        assert_eq!(s.language_code(50357), Some("su"));
        assert_eq!(s.language("yue"), None, "Cantonese came with large-v3");
    }

    #[test]
    fn real_tiny_en_matches_reference() {
        let Some(t) = check_against_reference("tiny.en") else {
            return;
        };
        let s = t.specials();
        assert_eq!(t.vocab_size(), 51864);
        assert!(!t.is_multilingual());
        assert_eq!(
            (s.eot, s.sot, s.sot_prev, s.sot_lm),
            (50256, 50257, 50360, Some(50359))
        );
        assert_eq!(
            (s.no_speech, s.no_timestamps, s.timestamp_begin),
            (Some(50361), 50362, 50363)
        );
        assert_eq!((s.translate, s.transcribe), (Some(50357), Some(50358)));
        assert!(s.languages.is_empty());
    }
}
