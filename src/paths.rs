//! Where whisper-dictation keeps its files, the same on every OS through `directories`
//! (Linux: `~/.local/share/whisper-dictation`, macOS: `~/Library/Application Support/
//! whisper-dictation`), and how a `--model` argument becomes a model directory.
//! `scripts/setup.sh` computes the same folders; keep the two in step.

use std::path::{Path, PathBuf};

/// The model used when none is named: multilingual (Polish and English), small and fast.
pub const DEFAULT_MODEL: &str = "base";

#[derive(Debug, thiserror::Error)]
pub enum PathError {
    #[error("no home directory could be determined for this user")]
    NoHome,
    #[error(
        "unknown model '{name}': not a directory, and not in {models_dir} (installed: {installed})"
    )]
    UnknownModel {
        name: String,
        models_dir: PathBuf,
        installed: String,
    },
}

fn project_dirs() -> Result<directories::ProjectDirs, PathError> {
    directories::ProjectDirs::from("", "", "whisper-dictation").ok_or(PathError::NoHome)
}

/// The app's data folder (settings, history, models).
pub fn data_dir() -> Result<PathBuf, PathError> {
    Ok(project_dirs()?.data_dir().to_path_buf())
}

/// Overrides where device state (history, crash marker, probe cache) is kept.
pub const STATE_DIR_ENV: &str = "WHISPER_DICTATION_STATE_DIR";

/// Where the app keeps its state files: the data folder, or `$WHISPER_DICTATION_STATE_DIR`
/// (tests and side-by-side experiments use their own).
pub fn state_dir() -> Result<PathBuf, PathError> {
    match std::env::var_os(STATE_DIR_ENV) {
        Some(dir) if !dir.is_empty() => Ok(PathBuf::from(dir)),
        _ => data_dir(),
    }
}

/// Where the rotating log files go: `$WHISPER_DICTATION_STATE_DIR/logs` when that is set;
/// otherwise `~/Library/Logs/whisper-dictation` on macOS (where Console.app looks), the XDG
/// state folder's `logs` on Linux (`~/.local/state/whisper-dictation/logs`), and the data
/// folder's `logs` where the OS has neither.
pub fn log_dir() -> Result<PathBuf, PathError> {
    let overridden = std::env::var_os(STATE_DIR_ENV)
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from);
    let home = directories::BaseDirs::new()
        .ok_or(PathError::NoHome)?
        .home_dir()
        .to_path_buf();
    let project = project_dirs()?;
    Ok(log_dir_for(
        std::env::consts::OS,
        overridden.as_deref(),
        &home,
        project.state_dir(),
        project.data_dir(),
    ))
}

/// [`log_dir`] for a given OS name (`std::env::consts::OS`) and the folders it would use.
pub fn log_dir_for(
    os: &str,
    state_dir_override: Option<&Path>,
    home: &Path,
    xdg_state_dir: Option<&Path>,
    data_dir: &Path,
) -> PathBuf {
    if let Some(dir) = state_dir_override {
        return dir.join("logs");
    }
    if os == "macos" {
        return home.join("Library/Logs/whisper-dictation");
    }
    xdg_state_dir.unwrap_or(data_dir).join("logs")
}

/// Where the last recordings are kept (see `recordings`): the state folder's `recordings`.
pub fn recordings_dir() -> Result<PathBuf, PathError> {
    Ok(state_dir()?.join("recordings"))
}

/// Overrides where models are installed and looked up (tests, a models folder on another
/// disk). `scripts/setup.sh` does not read it: it installs into the default folder.
pub const MODELS_DIR_ENV: &str = "WHISPER_DICTATION_MODELS_DIR";

/// Where installed models live, one folder per model name: `$WHISPER_DICTATION_MODELS_DIR`,
/// else the data folder's `models`.
pub fn models_dir() -> Result<PathBuf, PathError> {
    match std::env::var_os(MODELS_DIR_ENV) {
        Some(dir) if !dir.is_empty() => Ok(PathBuf::from(dir)),
        _ => Ok(data_dir()?.join("models")),
    }
}

/// A `--model` argument: an existing directory is used as is; otherwise a name under
/// [`models_dir`].
pub fn resolve_model(arg: &str) -> Result<PathBuf, PathError> {
    let as_path = Path::new(arg);
    if as_path.is_dir() {
        return Ok(as_path.to_path_buf());
    }
    resolve_model_in(arg, &models_dir()?)
}

/// [`resolve_model`] against a given models folder.
pub fn resolve_model_in(name: &str, models_dir: &Path) -> Result<PathBuf, PathError> {
    let candidate = models_dir.join(name);
    let is_plain_name = !name.is_empty() && !name.contains(['/', '\\']) && name != "..";
    if is_plain_name && candidate.is_dir() {
        return Ok(candidate);
    }
    let installed = installed_models(models_dir);
    Err(PathError::UnknownModel {
        name: name.to_string(),
        models_dir: models_dir.to_path_buf(),
        installed: if installed.is_empty() {
            "none".to_string()
        } else {
            installed.join(", ")
        },
    })
}

/// Names of the model folders under `models_dir` (complete ones: a download in progress has a
/// `.partial.` name).
pub fn installed_models(models_dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(models_dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| !n.contains(".partial."))
        .collect();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_folder_per_os() {
        let home = Path::new("/home/ala");
        let xdg = Path::new("/home/ala/.local/state/whisper-dictation");
        let data = Path::new("/home/ala/.local/share/whisper-dictation");
        assert_eq!(
            log_dir_for("linux", None, home, Some(xdg), data),
            Path::new("/home/ala/.local/state/whisper-dictation/logs")
        );
        assert_eq!(
            log_dir_for("macos", None, Path::new("/Users/ala"), None, data),
            Path::new("/Users/ala/Library/Logs/whisper-dictation")
        );
        assert_eq!(
            log_dir_for("windows", None, home, None, data),
            data.join("logs")
        );
        for os in ["linux", "macos"] {
            assert_eq!(
                log_dir_for(os, Some(Path::new("/tmp/st")), home, Some(xdg), data),
                Path::new("/tmp/st/logs")
            );
        }
    }

    #[test]
    fn model_names_resolve_inside_the_models_folder_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("base")).unwrap();
        std::fs::create_dir(dir.path().join("tiny.partial.12")).unwrap();
        assert_eq!(
            resolve_model_in("base", dir.path()).unwrap(),
            dir.path().join("base")
        );
        let err = resolve_model_in("large-v3", dir.path())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("large-v3") && err.contains("installed: base"),
            "{err}"
        );
        assert!(resolve_model_in("../base", dir.path()).is_err());
    }
}
