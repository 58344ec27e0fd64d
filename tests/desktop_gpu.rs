//! A GPU that computes wrong numbers, on a real (virtual) X11 desktop: the simulated M1
//! (`WHISPER_DICTATION_SIMULATE_GPU=mps,name=M1,wrong=attention`) reads the wrong rows of the
//! decoder's boolean attention mask, in the real model and in the probe alike — the kind of
//! silently wrong result PyTorch fixed in MPS's decode kernels. Twice the app must end up on the
//! CPU, say so in a Polish notification ("GPU M1 zwraca błędne wyniki…"), and paste the right
//! words:
//!
//! (a) the probe's `masked_attention` check (the decoder's own call: one step against the
//!     448-slot cache through a partially broadcast boolean mask) catches it before the model
//!     goes near the GPU;
//! (b) with a probe report that passed already cached (as on a GPU whose fault the probe's
//!     small shapes miss), the model loads on the GPU and the warm-up's words on the built-in
//!     sample are wrong: the model moves to the CPU before "ready", and the next start keeps
//!     it there.
//!
//! Needs what `tests/desktop.rs` needs (`scripts/setup.sh --test`, the `base` model). Logs are
//! left in `target/desktop-gpu/`.

// Linux only: an X11 desktop (Xvfb, xdotool, PulseAudio) and /proc; on macOS this file is empty.
#![cfg(target_os = "linux")]

mod app_rig;
mod rig;

use app_rig::{
    clip, clip_text, fresh_desktop, hold_hotkey_while_playing, ready_on_cpu, start_app, wait_ready,
    write_settings, TRANSCRIBE_TIMEOUT,
};
use rig::{AppProcess, Desktop, TextBox};
use std::path::Path;
use std::thread;
use std::time::Duration;
use tch::Kind;
use whisper_dictation::device::probe::{run_probe, ProbeCache, ProbeKey, ProbeTarget};
use whisper_dictation::device::simulated::SimulatedGpu;

const WRONG_M1: &str = "mps,name=M1,wrong=attention";
const WRONG_RESULTS_PL: &str = "GPU M1 zwraca błędne wyniki. Przełączam na CPU.";

/// Starts the app with the wrongly computing M1 and the Polish UI, waits for "ready".
fn start(desktop: &Desktop, state: &Path) -> AppProcess {
    write_settings(state, "paste", "en");
    let mut app = start_app(
        desktop,
        state,
        &[
            ("WHISPER_DICTATION_SIMULATE_GPU", WRONG_M1),
            ("WHISPER_DICTATION_UI_LANG", "pl"),
        ],
    );
    let ready = wait_ready(&mut app);
    println!("app ready after {:.1} s", ready.as_secs_f64());
    app
}

/// Dictates `clip_name` into a fresh text box and returns what was pasted there.
fn dictate_into_box(
    desktop: &Desktop,
    app: &mut AppProcess,
    clip_name: &str,
    title: &str,
) -> String {
    let text_box = TextBox::open(desktop, title).unwrap_or_else(|e| panic!("{e}"));
    text_box.focus().unwrap_or_else(|e| panic!("{e}"));
    hold_hotkey_while_playing(desktop, app, &clip(clip_name), Duration::ZERO);
    let done = app
        .wait_for_log("dictation done", TRANSCRIBE_TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    println!("{done}");
    thread::sleep(Duration::from_millis(500));
    text_box.submit().unwrap_or_else(|e| panic!("{e}"))
}

fn assert_right_words(pasted: &str, clip_name: &str, what: &str) {
    let expected = clip_text(clip_name);
    let recall = rig::word_recall(&expected, pasted);
    assert!(
        recall >= 0.8,
        "{what}: only {:.0} % of {expected:?} in {pasted:?}",
        recall * 100.0
    );
}

/// The notices the app showed that say the GPU gives wrong results.
fn wrong_results_notices(desktop: &Desktop) -> usize {
    let notices = desktop.notifications().unwrap_or_else(|e| panic!("{e}"));
    notices.matches(WRONG_RESULTS_PL).count()
}

/// Caches, for the wrongly computing M1, the report of a probe that passed (that of an M1 without
/// the fault): what a GPU whose wrong numbers the probe's shapes miss leaves behind.
fn cache_a_passed_probe(state: &Path) {
    let wrong = SimulatedGpu::parse(WRONG_M1).unwrap();
    let right = SimulatedGpu::parse("mps,name=M1").unwrap();
    let report = run_probe(&ProbeTarget::simulated(right, Kind::Float));
    assert!(report.passed(), "{report:#?}");
    let mut cache = ProbeCache::load(state);
    cache.insert(
        ProbeKey::for_target(&ProbeTarget::simulated(wrong, Kind::Float)),
        report,
    );
    cache.save().unwrap();
}

#[test]
fn a_gpu_that_computes_wrong_numbers_is_caught_and_the_cpu_pastes_the_right_words() {
    let (desktop, _out, state) = fresh_desktop("desktop-gpu");

    // (a) The probe catches it: the model never goes to the GPU.
    let mut app = start(&desktop, &state);
    desktop
        .wait_for_notification(WRONG_RESULTS_PL, Duration::from_secs(30))
        .unwrap_or_else(|e| panic!("no notice that the GPU computes wrong numbers: {e}"));
    let ready = ready_on_cpu(&app);
    assert!(
        ready.contains("MPS") && !ready.contains("fastest"),
        "the CPU because the GPU failed its self-test: {ready}"
    );
    let probe = std::fs::read_to_string(state.join("probe-cache.json")).unwrap();
    assert!(probe.contains("masked_attention"), "{probe}");
    assert!(
        !app.logged("GPU warm-up words"),
        "the model must not have run on the GPU:\n{}",
        app.log()
    );
    let pasted = dictate_into_box(&desktop, &mut app, "en_kal.wav", "gpu-a");
    assert_right_words(&pasted, "en_kal.wav", "after the probe caught the GPU");
    println!("(a) probe caught the wrong GPU; pasted {pasted:?}");
    app.stop().unwrap_or_else(|e| panic!("{e}"));
    drop(app);

    // (b) The probe passed (cached): the warm-up's words catch it, before "ready".
    std::fs::remove_dir_all(&state).unwrap();
    std::fs::create_dir_all(&state).unwrap();
    cache_a_passed_probe(&state);
    let told_before = wrong_results_notices(&desktop);
    let mut app = start(&desktop, &state);
    let log = app.log();
    let words = log
        .lines()
        .find(|l| l.contains("GPU warm-up words"))
        .unwrap_or_else(|| panic!("the model did not warm up on the GPU:\n{log}"));
    assert!(words.contains("Wrong"), "{words}");
    let ready = ready_on_cpu(&app);
    println!("(b) warm-up: {words}\n    {ready}");
    thread::sleep(Duration::from_secs(2));
    assert_eq!(
        wrong_results_notices(&desktop),
        told_before + 1,
        "one notice that the GPU computes wrong numbers"
    );
    let pasted = dictate_into_box(&desktop, &mut app, "en_slt.wav", "gpu-b");
    assert_right_words(&pasted, "en_slt.wav", "after the warm-up caught the GPU");
    println!("(b) warm-up words caught the wrong GPU; pasted {pasted:?}");
    app.stop().unwrap_or_else(|e| panic!("{e}"));
    drop(app);

    // The next start remembers it: the CPU from the start, the model never on the GPU.
    let mut app = start(&desktop, &state);
    ready_on_cpu(&app);
    assert!(
        !app.logged("GPU warm-up words"),
        "the next start must not try the GPU again:\n{}",
        app.log()
    );
    let pasted = dictate_into_box(&desktop, &mut app, "en_kal.wav", "gpu-c");
    assert_right_words(&pasted, "en_kal.wav", "at the next start");
    app.stop().unwrap_or_else(|e| panic!("{e}"));
    drop(app);
    let mut desktop = desktop;
    desktop.stop().unwrap_or_else(|e| panic!("{e}"));
}
