//! Dictating in a noisy room through the real app on the virtual desktop (issue 53): the clips
//! of `scripts/make-noisy-clips.sh` (two sentences of the project's TTS speech with 0.8 s of
//! noise before them, the noise going on under them, and 1.2 s of it after the last word before
//! key-up; white, pink and brown noise, babble of six other voices and plucked music, at 10, 5
//! and 0 dB SNR; the same speech clean; the noises alone) are each held and spoken into the
//! fake microphone, each into its own new text box, with the app's default settings (`base`,
//! language `auto:pl,en`, paste).
//!
//! Asserts, per dictation:
//! - (a) no repeated phrase: no run of [`MIN_REPEAT_WORDS`] normalised words pasted more often
//!   than the clip's text says it (a pass over the noisy tail that writes the committed
//!   sentence again, the first bug of issue 53);
//! - (b) the words: no more word errors than `whisper-dictation transcribe --as-app` makes on
//!   the app's own recording of the dictation (the same audio, as the fake microphone gave it;
//!   copied from its `recordings/` to `target/desktop-noisy-room/heard/`) plus
//!   [`MARGIN_WORDS`] (the noise costs words the app cannot be blamed for; the app must not
//!   lose more than the whole-file transcription does), and over all the speech dictations
//!   together a WER at most [`SET_MARGIN_POINTS`] over `transcribe`'s;
//! - (c) a clip of noise alone pastes nothing (`dictation empty`, the box stays empty).
//!
//! Prints a table: clip, kind, SNR, key-up → pasted (the app's `dictation done` line), key-up
//! → the recording handed over and → its text, whether the early pass was used, the passes the worker started, WER of the app
//! and of `transcribe`, repeats, and whether the text was joined to an earlier one (a leading
//! space: every box here is new, so it never should be; printed, the window-identity part of
//! issue 53 asserts it); then key-up → pasted of the noisy clips next to the clean ones'.
//! Latency is printed, never asserted.
//!
//! `WHISPER_DICTATION_NOISY_CLIPS=pink_5db,music_0db` (or `all`) chooses the clips (names as in
//! `target/noisy-clips/index.json`, without `.wav`). `WHISPER_DICTATION_NOISY_RUNS=20` dictates
//! each chosen clip that many times (by hand, for issue 53's "no phrase pasted twice in 20
//! runs"): a second table gives, per clip, the runs with a repeated phrase and the median and
//! largest key-up → pasted. Needs the desktop tools, sox and python3 (`scripts/setup.sh
//! --test`) and the `base` model; run under `flock /tmp/desktop.lock cargo test --release
//! --test desktop_noisy_room -- --nocapture`. Logs in `target/desktop-noisy-room/`, clips in
//! `target/noisy-clips/`.

// Linux only: an X11 desktop (Xvfb, xdotool, PulseAudio); on macOS this file is empty.
#![cfg(target_os = "linux")]

mod app_rig;
mod common;
mod rig;

use app_rig::{
    fresh_desktop, hold_hotkey_while_playing, start_app, target_dir, wait_ready, write_settings,
    TRANSCRIBE_TIMEOUT,
};
use rig::{AppProcess, Desktop, TextBox};
use std::fs;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::Duration;
use whisper_dictation::wer::{normalised_words, wer_percent};

/// The clips dictated by default (10 dictations): each noise at 5 dB (white at 10 dB: at 5 dB
/// `transcribe` itself hears no words in it, so there would be nothing to compare), the two
/// hardest at 0 dB, their speech clean for comparison, and one noise alone: white, the one of
/// the five that the app (before issue 53's detector) pasted a sentence for, three times over
/// ("I'm not sure if I can get it right." ×3, in 5 of 6 runs; `transcribe` gives nothing; pink,
/// brown, babble and music alone paste nothing).
const DEFAULT_CLIPS: &[&str] = &[
    "pink_clean",
    "music_clean",
    "white_10db",
    "pink_5db",
    "brown_5db",
    "babble_5db",
    "music_5db",
    "pink_0db",
    "music_0db",
    "white_only",
];

/// The shortest run of normalised words that counts as a repeated phrase (a word or two said
/// twice is speech; four in the same order is a pass that wrote a stretch again).
const MIN_REPEAT_WORDS: usize = 4;

/// How many more word errors than `transcribe --as-app` of its own recording (before issue 53's
/// detector: of the clip file) the app may make on one clip. The app
/// transcribes in parts (a pass per stretch, the tail after key-up, each prompted with the text
/// before it) where `transcribe` takes the file whole, and in noise a word comes out differently
/// from one segmentation to another. Measured (2026-12-03, the app before issue 53's detector,
/// up to 4 runs a clip), app minus `transcribe`: +2 words on pink_clean every run ("NDS 2 at
/// clock" for "NDSD at 2 o'clock"), +1 to +3 on pink_5db, +2 to +5 on pink_0db, −7 to +4 on
/// the other clips whenever every sentence was there; a sentence lost or withheld: +8
/// (babble_5db lost most of its first sentence) and +12 (music_0db, nothing pasted). Five words
/// (19–24 % of these 21–26-word clips) let the first through and not the second, nor a
/// sentence written twice (≥ 9 words, and the repeat check (a) catches it anyway).
const MARGIN_WORDS: usize = 5;

/// How many WER points the app may be over `transcribe --as-app` of its own recordings on all
/// the speech dictations together (their errors over their words, ~210 words a run). Against
/// `transcribe` of the clip files the app was +2.8 to +7.4 points with the detector
/// (2026-12-03; before it +1.9 on a run where every sentence was pasted, +12.6 and +14.9 on
/// runs that withheld music_0db and lost a babble_5db sentence), but `transcribe` of the app's
/// own recordings made the same errors within a word or two (10 recordings of a 20-dictation
/// run: 0 to +2 words, +1.3 points over the set): at 5 dB SNR, the fake microphone's path
/// (PulseAudio's resampling, its levels) changes Whisper's words as much as anything the app
/// does. Issue 53 aims at 1 point; 3 leaves room for one run's luck and still fails a lost
/// sentence (+4 to +5 points on its own).
const SET_MARGIN_POINTS: f64 = 3.0;

/// At 0 dB SNR (music as loud as the voice) Whisper's own log-probability threshold holds back
/// the text of some runs, and the app then pastes nothing and tells the person "nothing
/// recognised", keeping the recording for Retry: its rule against pasting what Whisper was
/// unsure of (`app::heard`), which `transcribe` does not apply. Measured on music_0db: withheld
/// in 3 of 6 runs before issue 53's detector, and in 1 of 2 with it. Such a dictation is
/// reported, and left out of the word counts; at 5 dB and above, nothing may be withheld.
const WITHHELD_AT_0DB: &str = "withheld at 0 dB: told, kept for Retry";

/// A built clip and what it says (its JSON beside it).
struct NoisyClip {
    name: String,
    wav: PathBuf,
    kind: String,
    /// None for a clean clip and for noise alone.
    snr_db: Option<f64>,
    /// The reference text; empty for noise alone.
    text: String,
}

impl NoisyClip {
    fn noise_only(&self) -> bool {
        self.text.is_empty()
    }

    fn snr(&self) -> String {
        match (self.snr_db, self.noise_only()) {
            (Some(snr), _) => format!("{snr} dB"),
            (None, true) => "no speech".into(),
            (None, false) => "clean".into(),
        }
    }
}

/// Builds the clips (idempotent) with scripts/make-noisy-clips.sh into `<target>/noisy-clips/`
/// and returns that folder.
fn noisy_clips_dir() -> PathBuf {
    common::clips_built_by("make-noisy-clips.sh", &target_dir().join("noisy-clips"))
}

/// The clips chosen by `WHISPER_DICTATION_NOISY_CLIPS` (comma-separated names, or `all`), else
/// [`DEFAULT_CLIPS`].
fn chosen_clips() -> Vec<NoisyClip> {
    let dir = noisy_clips_dir();
    let wanted = std::env::var("WHISPER_DICTATION_NOISY_CLIPS").unwrap_or_default();
    let names: Vec<String> = match wanted.trim() {
        "" => DEFAULT_CLIPS.iter().map(|n| n.to_string()).collect(),
        "all" => {
            let index: serde_json::Value = serde_json::from_str(
                &fs::read_to_string(dir.join("index.json")).expect("index.json"),
            )
            .expect("index.json is JSON");
            index
                .as_array()
                .expect("a list")
                .iter()
                .map(|c| {
                    c["clip"]
                        .as_str()
                        .expect("a clip name")
                        .trim_end_matches(".wav")
                        .to_string()
                })
                .collect()
        }
        list => list
            .split(',')
            .map(|n| n.trim().trim_end_matches(".wav").to_string())
            .filter(|n| !n.is_empty())
            .collect(),
    };
    names
        .into_iter()
        .map(|name| {
            let json_path = dir.join(format!("{name}.json"));
            let json: serde_json::Value = serde_json::from_str(
                &fs::read_to_string(&json_path)
                    .unwrap_or_else(|e| panic!("{} (no such clip?): {e}", json_path.display())),
            )
            .unwrap_or_else(|e| panic!("{}: {e}", json_path.display()));
            NoisyClip {
                wav: dir.join(format!("{name}.wav")),
                kind: json["kind"].as_str().expect("a kind").to_string(),
                snr_db: json["snr_db"].as_f64(),
                text: json["text"].as_str().expect("a text").to_string(),
                name,
            }
        })
        .collect()
}

/// How many times each clip is dictated (`WHISPER_DICTATION_NOISY_RUNS`, default 1).
fn runs() -> usize {
    std::env::var("WHISPER_DICTATION_NOISY_RUNS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .filter(|&n| n >= 1)
        .unwrap_or(1)
}

/// What `whisper-dictation transcribe --as-app` (the app's decoding, language and threads)
/// makes of each clip, in one process (the model loaded once); empty text when it withholds
/// everything.
fn transcribe_whole(clips: &[NoisyClip]) -> Vec<String> {
    let files: Vec<&Path> = clips.iter().map(|c| c.wav.as_path()).collect();
    transcribe_files(&files)
}

/// `whisper-dictation transcribe --as-app` of `files`, whole, one text each.
fn transcribe_files(files: &[&Path]) -> Vec<String> {
    if files.is_empty() {
        return Vec::new();
    }
    let clips = files;
    let out = std::process::Command::new(app_rig::BIN)
        .args(["transcribe", "--as-app", "--language", "auto"])
        .args(["--detect-among", "pl,en", "--threads", "2", "--json"])
        .args(clips)
        .output()
        .expect("whisper-dictation transcribe runs");
    assert!(out.status.success(), "transcribe: {out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let texts: Vec<String> = stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let json: serde_json::Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            json["text"].as_str().unwrap_or("").trim().to_string()
        })
        .collect();
    assert_eq!(texts.len(), clips.len(), "one result per file: {stdout}");
    texts
}

/// The phrases of at least [`MIN_REPEAT_WORDS`] normalised words that `pasted` holds more
/// often than `reference` does (a phrase the person said twice may be pasted twice), each
/// repeated stretch once, as its words.
fn repeated_phrases(reference: &str, pasted: &str) -> Vec<String> {
    let n = MIN_REPEAT_WORDS;
    let said = normalised_words(reference);
    let got = normalised_words(pasted);
    if got.len() < n {
        return Vec::new();
    }
    let count = |words: &[String], gram: &[String]| words.windows(n).filter(|w| *w == gram).count();
    // Position i starts a repeat when its words came earlier too, more often than said.
    let repeat: Vec<bool> = (0..=got.len() - n)
        .map(|i| {
            let gram = &got[i..i + n];
            got[..i + n - 1].windows(n).any(|w| w == gram) && count(&got, gram) > count(&said, gram)
        })
        .collect();
    let mut phrases = Vec::new();
    let mut i = 0;
    while i < repeat.len() {
        if !repeat[i] {
            i += 1;
            continue;
        }
        let start = i;
        while i + 1 < repeat.len() && repeat[i + 1] {
            i += 1;
        }
        phrases.push(got[start..i + n].join(" "));
        i += 1;
    }
    phrases
}

/// The worker's transcription passes of dictation `id`: its `transcribing … part=` lines
/// between `recording started id=N` and the dictation's end (`dictation done|empty id=N`).
fn passes_of(log: &str, id: u64) -> usize {
    let is_id =
        |line: &str| rig::log_field(line, "id").and_then(|v| v.parse::<u64>().ok()) == Some(id);
    let lines: Vec<&str> = log.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.contains("recording started") && is_id(l))
        .unwrap_or(0);
    let end = lines
        .iter()
        .position(|l| (l.contains("dictation done") || l.contains("dictation empty")) && is_id(l))
        .unwrap_or(lines.len());
    lines[start..end]
        .iter()
        .filter(|l| l.contains(" transcribing ") && rig::log_field(l, "part").is_some())
        .filter(|l| rig::log_field(l, "id").is_none() || is_id(l))
        .count()
}

/// One dictation of one clip.
struct Row {
    clip: String,
    kind: String,
    snr: String,
    clean: bool,
    noise_only: bool,
    /// key-up → pasted (ms); None when nothing was pasted.
    pasted_ms: Option<u64>,
    /// key-up → the recording's end handed to the worker, and → its text (ms).
    audio_ms: Option<u64>,
    text_ms: Option<u64>,
    early: String,
    passes: usize,
    wer: f64,
    transcribe_wer: f64,
    /// Normalised reference words, the app's and `transcribe`'s word errors (0 for noise).
    words: usize,
    errors: usize,
    transcribe_errors: usize,
    /// The app's own recording of the dictation (copied from its `recordings/`), and the word
    /// errors of `transcribe --as-app` on it: the same audio the app heard, through the fake
    /// microphone.
    heard_wav: Option<PathBuf>,
    heard_errors: Option<usize>,
    repeats: Vec<String>,
    joined: String,
    in_box: String,
    /// Nothing pasted at 0 dB SNR because Whisper itself was not sure of its text (below its
    /// log-probability threshold): the person is told "nothing recognised" and the recording is
    /// kept for Retry ([`WITHHELD_AT_0DB`]).
    withheld_at_0db: bool,
}

impl Row {
    /// The word errors the app is held to: `transcribe`'s on the app's own recording (the
    /// same audio), or on the clip when the recording could not be had.
    fn compared_errors(&self) -> usize {
        self.heard_errors.unwrap_or(self.transcribe_errors)
    }
}

/// Holds the hotkey over `clip` into a new text box, until key-up right as the clip ends (the
/// noise heard up to key-up); returns what it gave.
fn dictate(
    desktop: &Desktop,
    app: &mut AppProcess,
    (clip, run): (&NoisyClip, usize),
    whole: &str,
    (recordings, kept): (&Path, &Path),
) -> Row {
    let text_box =
        TextBox::open(desktop, &format!("{}-{run}", clip.name)).unwrap_or_else(|e| panic!("{e}"));
    text_box.focus().unwrap_or_else(|e| panic!("{e}"));
    hold_hotkey_while_playing(desktop, app, &clip.wav, Duration::ZERO);
    app.wait_for_log("recording stopped", Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}"));
    let end = app
        .wait_for_log("dictation ", TRANSCRIBE_TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    // The paste lands a moment after the app logs it.
    thread::sleep(Duration::from_millis(300));
    let in_box = text_box.submit().unwrap_or_else(|e| panic!("{e}"));
    println!("{} #{run}: box {in_box:?}\n    {end}", clip.name);
    let number = |key: &str| rig::log_field(&end, key).and_then(|v| v.parse::<u64>().ok());
    let done = end.contains("dictation done");
    if done {
        let logged = rig::log_field(&end, "text").unwrap_or_default();
        assert_eq!(
            rig::words(&in_box),
            rig::words(&logged),
            "{}: the text box does not hold the text the app pasted",
            clip.name
        );
    }
    let id = number("id").unwrap_or_else(|| panic!("no id= in {end:?}"));
    // The app's newest recording is this dictation's (names sort by time).
    let heard_wav = fs::read_dir(recordings)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "wav"))
        .max()
        .map(|newest| {
            let copy = kept.join(format!("{}-{run}.wav", clip.name));
            fs::copy(&newest, &copy).unwrap_or_else(|e| panic!("{}: {e}", newest.display()));
            copy
        })
        .filter(|_| !clip.noise_only());
    Row {
        clip: clip.name.clone(),
        kind: clip.kind.clone(),
        snr: clip.snr(),
        clean: clip.snr_db.is_none() && !clip.noise_only(),
        noise_only: clip.noise_only(),
        pasted_ms: number("key_up_to_pasted_ms").filter(|_| done),
        audio_ms: number("key_up_to_audio_ms").filter(|_| done),
        text_ms: number("key_up_to_text_ms").filter(|_| done),
        early: rig::log_field(&end, "early").unwrap_or_else(|| "-".into()),
        passes: passes_of(&app.log(), id),
        wer: if clip.noise_only() {
            0.0
        } else {
            wer_percent(&clip.text, &in_box)
        },
        transcribe_wer: if clip.noise_only() {
            0.0
        } else {
            wer_percent(&clip.text, whole)
        },
        words: normalised_words(&clip.text).len(),
        errors: word_errors(&clip.text, &in_box),
        transcribe_errors: word_errors(&clip.text, whole),
        repeats: repeated_phrases(&clip.text, &in_box),
        joined: if done {
            rig::log_field(&end, "joined").unwrap_or_else(|| "-".into())
        } else {
            "-".into()
        },
        in_box,
        heard_wav,
        heard_errors: None,
        withheld_at_0db: !done
            && clip.snr_db == Some(0.0)
            && rig::log_field(&end, "reason").as_deref() == Some("unrecognised"),
    }
}

/// What is wrong with `row` (empty when nothing).
fn faults(row: &Row) -> Vec<String> {
    let mut faults = Vec::new();
    if !row.repeats.is_empty() {
        faults.push(format!(
            "{}: a phrase pasted twice {:?}: {:?}",
            row.clip, row.repeats, row.in_box
        ));
    }
    if row.noise_only {
        if !row.in_box.is_empty() || row.pasted_ms.is_some() {
            faults.push(format!("{}: noise alone pasted {:?}", row.clip, row.in_box));
        }
    } else if row.withheld_at_0db {
        println!("{}: {WITHHELD_AT_0DB}", row.clip);
    } else if row.errors > row.compared_errors() + MARGIN_WORDS {
        faults.push(format!(
            "{}: {} word errors (WER {:.1} %) > transcribe's {} on the app's recording + \
             {MARGIN_WORDS}: {:?}",
            row.clip,
            row.errors,
            row.wer,
            row.compared_errors(),
            row.in_box
        ));
    }
    faults
}

/// Word errors of `hypothesis` against `reference`, both normalised as `wer` does.
fn word_errors(reference: &str, hypothesis: &str) -> usize {
    whisper_dictation::wer::word_errors(&normalised_words(reference), &normalised_words(hypothesis))
}

/// WER (%) of all the speech dictations of `rows` together: the app's and `transcribe`'s.
fn set_wer(rows: &[Row]) -> Option<(f64, f64)> {
    let rows: Vec<&Row> = rows
        .iter()
        .filter(|r| !r.noise_only && !r.withheld_at_0db)
        .collect();
    let words: usize = rows.iter().map(|r| r.words).sum();
    if words == 0 {
        return None;
    }
    let percent = |errors: usize| 100.0 * errors as f64 / words as f64;
    Some((
        percent(rows.iter().map(|r| r.errors).sum()),
        percent(rows.iter().map(|r| r.compared_errors()).sum()),
    ))
}

fn ms(value: Option<u64>) -> String {
    value.map_or_else(|| "nothing pasted".into(), |v| v.to_string())
}

fn median(values: &[u64]) -> String {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    match sorted.len() {
        0 => "-".into(),
        n => sorted[(n - 1) / 2].to_string(),
    }
}

fn print_table(rows: &[Row]) {
    println!(
        "\n| clip | kind | SNR | key-up → pasted ms | → audio ms | → text ms | early | passes | WER app % (errors) | transcribe of the app's recording (errors) | WER transcribe of the clip % (errors) | repeated phrase | joined |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        let wer = |v: f64, errors: usize| {
            if r.noise_only {
                "-".to_string()
            } else {
                format!("{v:.1} ({errors})")
            }
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.clip,
            r.kind,
            r.snr,
            ms(r.pasted_ms),
            ms(r.audio_ms),
            ms(r.text_ms),
            r.early,
            r.passes,
            wer(r.wer, r.errors),
            r.heard_errors.map_or("-".into(), |e| e.to_string()),
            wer(r.transcribe_wer, r.transcribe_errors),
            if r.repeats.is_empty() {
                "none".to_string()
            } else {
                format!("{:?}", r.repeats)
            },
            r.joined
        );
    }
    let latencies = |clean: bool| -> Vec<u64> {
        rows.iter()
            .filter(|r| r.clean == clean && !r.noise_only)
            .filter_map(|r| r.pasted_ms)
            .collect()
    };
    let (clean, noisy) = (latencies(true), latencies(false));
    println!(
        "\nkey-up → pasted: clean speech median {} ms, max {} ms ({} dictations); in noise median {} ms, max {} ms ({} dictations)",
        median(&clean),
        clean.iter().max().map_or("-".into(), u64::to_string),
        clean.len(),
        median(&noisy),
        noisy.iter().max().map_or("-".into(), u64::to_string),
        noisy.len()
    );
    // All speech dictations' words together (the "WER within 1 point" is over a set).
    if let Some((app, whole)) = set_wer(rows) {
        println!(
            "WER over all the speech dictations: app {app:.1} %, transcribe of its recordings {whole:.1} % ({:+.1} points)",
            app - whole
        );
    }
    // Every box is a new window: a text joined to the one before it (a leading space) is the
    // recycled-window-id case of issue 53 (asserted by its own test, printed here).
    let pasted = rows.iter().filter(|r| r.pasted_ms.is_some()).count();
    let joined = rows.iter().filter(|r| r.joined == "true").count();
    println!(
        "joined to the text before (a leading space in a new box): {joined} of {pasted} pasted"
    );
}

/// Per clip over its runs: runs with a repeated phrase, median and largest key-up → pasted.
fn print_runs_table(rows: &[Row]) {
    println!(
        "\n| clip | kind | SNR | runs | runs with a repeated phrase | pasted | key-up → pasted median ms | max ms | WER app median % |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut names: Vec<&str> = Vec::new();
    for r in rows {
        if !names.contains(&r.clip.as_str()) {
            names.push(&r.clip);
        }
    }
    for name in names {
        let of: Vec<&Row> = rows.iter().filter(|r| r.clip == name).collect();
        let pasted: Vec<u64> = of.iter().filter_map(|r| r.pasted_ms).collect();
        let mut wers: Vec<f64> = of.iter().map(|r| r.wer).collect();
        wers.sort_by(f64::total_cmp);
        let wer = if of[0].noise_only {
            "-".to_string()
        } else {
            format!("{:.1}", common::percentile(&wers, 0.5))
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            name,
            of[0].kind,
            of[0].snr,
            of.len(),
            of.iter().filter(|r| !r.repeats.is_empty()).count(),
            pasted.len(),
            median(&pasted),
            pasted.iter().max().map_or("-".into(), u64::to_string),
            wer
        );
    }
}

#[test]
fn noisy_room_dictations_paste_each_phrase_once() {
    let clips = chosen_clips();
    let runs = runs();
    // Before the app starts: the two would only fight over the cores.
    let whole = transcribe_whole(&clips);
    for (clip, text) in clips.iter().zip(&whole) {
        println!("{}: transcribe --as-app: {text:?}", clip.name);
    }
    let (desktop, _out, state) = fresh_desktop("desktop-noisy-room");
    write_settings(&state, "paste", "auto:pl,en");
    let mut app = start_app(&desktop, &state, &[("WHISPER_DICTATION_UI_LANG", "en")]);
    let ready = wait_ready(&mut app);
    println!("app ready after {:.1} s", ready.as_secs_f64());

    let kept = target_dir().join("desktop-noisy-room/heard");
    let _ = fs::remove_dir_all(&kept);
    fs::create_dir_all(&kept).unwrap();
    let mut rows = Vec::new();
    for run in 1..=runs {
        for (clip, text) in clips.iter().zip(&whole) {
            rows.push(dictate(
                &desktop,
                &mut app,
                (clip, run),
                text,
                (&state.join("recordings"), &kept),
            ));
        }
    }
    app.stop().unwrap_or_else(|e| panic!("{e}"));
    // The app's own recordings, transcribed whole once the app has stopped.
    let heard: Vec<&Path> = rows.iter().filter_map(|r| r.heard_wav.as_deref()).collect();
    let mut texts = transcribe_files(&heard).into_iter();
    for row in rows.iter_mut().filter(|r| r.heard_wav.is_some()) {
        let text = texts.next().unwrap_or_default();
        let reference = clips.iter().find(|c| c.name == row.clip).map(|c| &c.text);
        row.heard_errors = reference.map(|reference| word_errors(reference, &text));
    }
    print_table(&rows);
    if runs > 1 {
        print_runs_table(&rows);
    }
    let mut failures: Vec<String> = rows.iter().flat_map(faults).collect();
    if let Some((app, whole)) = set_wer(&rows) {
        if app > whole + SET_MARGIN_POINTS {
            failures.push(format!(
                "WER over all the speech dictations {app:.1} % > transcribe's {whole:.1} % + {SET_MARGIN_POINTS}"
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The repeat check on made-up pastes (no desktop needed).
#[test]
fn the_repeat_check_finds_a_phrase_written_twice() {
    let said = "The invoice total is $420 due on the 15th.";
    // Once: nothing.
    assert!(repeated_phrases(said, "The invoice total is $420, due on the 15th.").is_empty());
    // An exact copy.
    assert_eq!(
        repeated_phrases(
            said,
            "The invoice total is $420 due on the 15th. The invoice total is $420 due on the 15th."
        ),
        ["the invoice total is 420 due on the 15th"]
    );
    // A copy with a word fewer (issue 53's paste): its longest stretch is found.
    assert_eq!(
        repeated_phrases(
            said,
            "The invoice total is $420 due on the 15th. The invoice is $420 due on the 15th."
        ),
        ["is 420 due on the 15th"]
    );
    // A phrase the person said twice may be pasted twice; a third time is a repeat.
    let twice = "Call me back, please call me back later.";
    assert!(repeated_phrases(twice, "Call me back, please call me back later.").is_empty());
    assert_eq!(
        repeated_phrases(
            twice,
            "Call me back, please call me back later, call me back later."
        )
        .len(),
        1
    );
    // A word or three said twice is speech, not a repeat.
    assert!(repeated_phrases("", "No, no, no. I said the red one, the red one.").is_empty());
    // Four words the same over and over (a decoder loop).
    assert_eq!(
        repeated_phrases("", "thank you thank you thank you"),
        ["thank you thank you"]
    );
    // Too short to hold one.
    assert!(repeated_phrases("a b c", "a b c").is_empty());
}
