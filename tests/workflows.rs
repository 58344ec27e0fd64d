//! The GitHub Actions workflows in `.github/workflows` (macOS: build, tests, bundle, smoke on
//! an Apple Silicon runner; Linux: `.ci/run`) pass actionlint, which checks their syntax,
//! expressions, runner labels and action inputs, and, with ShellCheck on PATH (`scripts/setup.sh
//! --test` installs both), the shell of their `run:` steps. actionlint is the one setup.sh
//! installed into the app's cache folder (or, failing that, one on PATH).

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Where `scripts/setup.sh --test` installs actionlint: `<cache>/actionlint/bin/actionlint`,
/// `<cache>` being the app's cache folder (`src/paths.rs`, the same folder as setup.sh's).
fn installed_actionlint() -> Option<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "whisper-dictation")?;
    let path = dirs.cache_dir().join("actionlint/bin/actionlint");
    path.is_file().then_some(path)
}

fn on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

fn actionlint() -> PathBuf {
    installed_actionlint()
        .or_else(|| on_path("actionlint"))
        .expect("actionlint is not installed: run scripts/setup.sh --test")
}

fn workflows() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(".github/workflows"))
        .expect(".github/workflows")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .collect();
    files.sort();
    files
}

/// Runs actionlint on `files`; (success, what it said).
fn lint(files: &[PathBuf]) -> (bool, String) {
    let out = Command::new(actionlint())
        .arg("-no-color")
        .args(files)
        .current_dir(root())
        .output()
        .expect("actionlint runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), said)
}

#[test]
fn the_workflows_pass_actionlint() {
    let files = workflows();
    let names: Vec<_> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for expected in ["linux.yml", "macos.yml"] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} in {names:?}"
        );
    }
    let (ok, said) = lint(&files);
    assert!(ok, "actionlint found problems:\n{said}");
    if on_path("shellcheck").is_none() {
        eprintln!("note: no shellcheck on PATH, so the run: scripts were not checked");
    }
}

/// The linter really lints: a workflow with an unknown runner label fails, and the message
/// names the label (so a green run above is not a linter that checks nothing).
#[test]
fn actionlint_rejects_a_broken_workflow() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.yml");
    std::fs::write(
        &broken,
        "on: push\njobs:\n  a:\n    runs-on: macos-99\n    steps:\n      - run: echo hi\n",
    )
    .unwrap();
    let (ok, said) = lint(&[broken]);
    assert!(!ok, "{said}");
    assert!(said.contains("macos-99"), "{said}");
}

/// What the macOS workflow promises (issue 24): an Apple Silicon runner, the README's set-up,
/// the test suite, the bundle, the smoke test on both binaries, and caches keyed on the set-up
/// script; the Linux workflow runs `.ci/run` on Debian.
#[test]
fn the_workflows_run_what_they_say() {
    let read = |name: &str| std::fs::read_to_string(root().join(".github/workflows").join(name));
    let macos = read("macos.yml").unwrap();
    for step in [
        "runs-on: macos-15",
        "bash scripts/setup.sh --test",
        "cargo test --release",
        "bash scripts/bundle-macos.sh",
        "codesign --verify --deep --strict",
        "bash scripts/ci-smoke.sh target/release/whisper-dictation",
        "bash scripts/ci-smoke.sh \"$app/Contents/MacOS/whisper-dictation\"",
        "~/Library/Caches/whisper-dictation",
        "~/Library/Application Support/whisper-dictation/models",
        "hashFiles('scripts/setup.sh')",
    ] {
        assert!(macos.contains(step), "macos.yml lacks {step}");
    }
    let linux = read("linux.yml").unwrap();
    for step in ["container: rust:1-bookworm", "run: bash .ci/run"] {
        assert!(linux.contains(step), "linux.yml lacks {step}");
    }
    assert!(Path::new(&root().join("scripts/ci-smoke.sh")).is_file());
}
