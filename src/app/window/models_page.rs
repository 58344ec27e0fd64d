//! The Models page's side of the window: its commands (`model_list`, `download`,
//! `cancel_download`, `verify`, `remove_model`, `use_model`) turned into [`ModelRequest`]s for
//! the app ([`ModelsSession`]; the app owns the running download and the model in use, so every
//! one goes through the event loop to `models_side.rs`), and the pure parts of the answers: the
//! list ([`rows`]: the catalogue and the installed folders, with sizes, memory, languages,
//! advice, the model in use and the machine's suggestion), the checks before a removal, a
//! choice or a download ([`check_remove`], [`check_installed`], [`check_download`]), the removal
//! itself (only a folder directly inside the models folder, through [`models::remove`]) and a
//! model's verification in words ([`verify_installed`]). Nothing here touches the app's state:
//! tested without a window.

use super::ipc::{Command, DownloadShown, ModelRow, Reply};
use super::models_texts::{self, Refusal};
use crate::i18n::UiLang;
use crate::models::{self, CatalogueEntry, ModelStatus};
use std::path::{Path, PathBuf};

/// What the page asks of the app (through the event loop's proxy).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelRequest {
    /// The list as it is now.
    List,
    /// Download a catalogue model (the page's button is the confirmation the menu asks a
    /// second click for).
    Download(String),
    /// Cancel the running download.
    Cancel,
    /// Check an installed model's files against its manifest and load it.
    Verify(String),
    /// Delete an installed model (never the one in use).
    Remove(String),
    /// Dictate with an installed model (the menu's Model choice).
    Use(String),
}

/// The page's rows: every catalogue model (smallest first), then installed folders the
/// catalogue does not name; `current` is the model dictations use, `suggested` the machine's.
pub fn rows(
    statuses: &[ModelStatus],
    current: &str,
    suggested: &str,
    lang: UiLang,
) -> Vec<ModelRow> {
    let human = models::catalogue::human_bytes;
    statuses
        .iter()
        .map(|status| {
            let entry = status.entry;
            ModelRow {
                name: status.name.clone(),
                installed: status.installed.is_some(),
                downloadable: entry.is_some(),
                size: entry.map(|e| human(e.download_bytes)),
                memory: entry.map(|e| human(e.memory_bytes())),
                languages: entry.map(|e| models_texts::languages(lang, e.english_only, e.n_mels)),
                advice: entry.map(|e| e.advice(lang == UiLang::Pl)),
                partial: status.partial_bytes.filter(|b| *b > 0).map(human),
                current: status.name == current,
                suggested: status.name == suggested,
            }
        })
        .collect()
}

/// The list reply for the models in `models_dir` (none listed as installed when the folder
/// is unknown).
pub fn list_reply(
    models_dir: Option<&Path>,
    current: &str,
    suggested: &str,
    downloading: Option<DownloadShown>,
    lang: UiLang,
) -> Reply {
    let statuses = match models_dir {
        Some(dir) => models::statuses(dir),
        None => models::statuses(Path::new("")),
    };
    Reply::ModelList {
        models: rows(&statuses, current, suggested, lang),
        folder: models_dir.map_or_else(String::new, |d| d.display().to_string()),
        downloading,
    }
}

/// `name` is one of the installed folders (exactly: no path, no partial download).
pub fn check_installed(name: &str, installed: &[String]) -> Result<(), Refusal> {
    if installed.iter().any(|n| n == name) {
        Ok(())
    } else {
        Err(Refusal::Unknown {
            model: name.to_string(),
        })
    }
}

/// `name` may be removed: installed, not the model in use, not downloading now.
pub fn check_remove(
    name: &str,
    installed: &[String],
    current: &str,
    downloading: Option<&str>,
) -> Result<(), Refusal> {
    check_installed(name, installed)?;
    if name == current {
        return Err(Refusal::InUse {
            model: name.to_string(),
        });
    }
    if downloading == Some(name) {
        return Err(Refusal::Busy {
            model: name.to_string(),
        });
    }
    Ok(())
}

/// `name` may be downloaded: a catalogue model, and no download running.
pub fn check_download(
    name: &str,
    downloading: Option<&str>,
) -> Result<&'static CatalogueEntry, Refusal> {
    let entry = models::find(name).ok_or_else(|| Refusal::Unknown {
        model: name.to_string(),
    })?;
    match downloading {
        Some(running) => Err(Refusal::Busy {
            model: running.to_string(),
        }),
        None => Ok(entry),
    }
}

/// Removes the installed model `name` from `models_dir` after [`check_remove`]: its folder is
/// renamed to a partial name inside the models folder and deleted there
/// ([`models::remove`]; a link to a folder elsewhere is removed as a link, its target kept).
pub fn remove_installed(
    models_dir: &Path,
    name: &str,
    current: &str,
    downloading: Option<&str>,
) -> Result<PathBuf, Refusal> {
    let installed = crate::paths::installed_models(models_dir);
    check_remove(name, &installed, current, downloading)?;
    models::remove(models_dir, name).map_err(|e| Refusal::Other {
        detail: e.to_string(),
    })
}

/// Verifies the installed model `name` (its files against the manifest written when it was
/// downloaded, then a load with the engine): `Ok(words)` when both hold, `Err(words)` when not.
/// Reads every byte of the model and loads it: run it off the event loop.
pub fn verify_installed(models_dir: &Path, name: &str, lang: UiLang) -> Result<String, String> {
    let installed = crate::paths::installed_models(models_dir);
    check_installed(name, &installed).map_err(|r| r.text(lang))?;
    let report = models::verify(&models_dir.join(name), &mut |_| {}).map_err(|e| e.to_string())?;
    let mismatches: Vec<String> = report.mismatches.iter().map(|m| m.to_string()).collect();
    let words = models_texts::verification(
        lang,
        report.manifest.as_ref().map(|m| m.files.len()),
        &mismatches,
        report.load.as_ref().map(|_| ()).map_err(|e| e.to_string()),
    );
    if report.is_ok() {
        Ok(words)
    } else {
        Err(words)
    }
}

/// What the Models page's commands need while the window is open: the way to the app.
pub struct ModelsSession {
    pub request: Box<dyn FnMut(ModelRequest)>,
}

impl ModelsSession {
    /// Whether `command` is one of the Models page's.
    pub fn owns(command: &Command) -> bool {
        matches!(
            command,
            Command::ModelList {}
                | Command::Download { .. }
                | Command::CancelDownload {}
                | Command::Verify { .. }
                | Command::RemoveModel { .. }
                | Command::UseModel { .. }
        )
    }

    /// Hands the page's command to the app, which answers ([`Reply::ModelList`],
    /// [`Reply::ModelProgress`], [`Reply::ModelDone`]) once it has done it.
    pub fn handle(&mut self, command: &Command) {
        let request = match command {
            Command::ModelList {} => ModelRequest::List,
            Command::Download { model } => ModelRequest::Download(model.clone()),
            Command::CancelDownload {} => ModelRequest::Cancel,
            Command::Verify { model } => ModelRequest::Verify(model.clone()),
            Command::RemoveModel { model } => ModelRequest::Remove(model.clone()),
            Command::UseModel { model } => ModelRequest::Use(model.clone()),
            _ => return,
        };
        (self.request)(request);
    }
}

/// One log line per Models answer (a tenth of the progress answers: every 10 %).
pub fn log_reply(reply: &Reply) {
    match reply {
        Reply::ModelList {
            models,
            downloading,
            ..
        } => tracing::info!(
            models = models.len(),
            installed = models.iter().filter(|m| m.installed).count(),
            current = models
                .iter()
                .find(|m| m.current)
                .map_or("", |m| m.name.as_str()),
            downloading = downloading.as_ref().map_or("", |d| d.model.as_str()),
            "models page: list shown"
        ),
        Reply::ModelProgress {
            model,
            stage,
            percent,
        } if percent % 10 == 0 => {
            tracing::info!(model, stage, percent, "models page: progress shown");
        }
        Reply::ModelDone {
            model,
            action,
            ok,
            detail,
        } => tracing::info!(
            model,
            action = action.name(),
            ok,
            detail,
            "models page: done"
        ),
        _ => {}
    }
}

#[cfg(test)]
mod tests;
