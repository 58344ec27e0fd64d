//! Models a user can get: the catalogue of downloadable Whisper models and the default for a
//! machine (`catalogue`), the hub client (`hub`), downloading into a temporary folder with
//! resume, cancel, verification and a load check before the rename into place (`download`),
//! the manifest written at install time (`manifest`), disk space and the download lock
//! (`disk`), and what is installed, removing, verifying (here).

pub mod catalogue;
pub mod disk;
pub mod download;
pub mod hub;
pub mod manifest;

pub use catalogue::{find, larger_for_polish, suggest_default, CatalogueEntry, Machine, CATALOGUE};
pub use download::{download, DownloadError, DownloadOptions, Installed, Progress, Stage};
pub use hub::{HubClient, HubError, Timeouts};
pub use manifest::{Manifest, Mismatch};

use crate::whisper::EngineError;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// One line of `models list` / the Model menu: a catalogue entry or a folder of the user's.
#[derive(Debug, Clone)]
pub struct ModelStatus {
    pub name: String,
    /// `None` for an installed folder that is not in the catalogue.
    pub entry: Option<&'static CatalogueEntry>,
    /// The installed folder, if any.
    pub installed: Option<PathBuf>,
    /// Bytes an interrupted download left (resumable), if any.
    pub partial_bytes: Option<u64>,
}

/// Every catalogue entry with what is installed, then installed folders the catalogue does
/// not name (set-up copies under other names, the user's own).
pub fn statuses(models_dir: &Path) -> Vec<ModelStatus> {
    let installed = crate::paths::installed_models(models_dir);
    let mut list: Vec<ModelStatus> = CATALOGUE
        .iter()
        .map(|entry| {
            let partial = download::partial_dir(models_dir, entry.name);
            ModelStatus {
                name: entry.name.to_string(),
                entry: Some(entry),
                installed: installed
                    .iter()
                    .any(|n| n == entry.name)
                    .then(|| models_dir.join(entry.name)),
                partial_bytes: partial.is_dir().then(|| dir_bytes(&partial)),
            }
        })
        .collect();
    for name in installed {
        if find(&name).is_none() {
            list.push(ModelStatus {
                installed: Some(models_dir.join(&name)),
                name,
                entry: None,
                partial_bytes: None,
            });
        }
    }
    list
}

fn dir_bytes(dir: &Path) -> u64 {
    fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

#[derive(Debug, thiserror::Error)]
pub enum RemoveError {
    #[error("'{name}' is not installed in {}", .models_dir.display())]
    NotInstalled { name: String, models_dir: PathBuf },
    #[error(transparent)]
    Busy(#[from] DownloadError),
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// Removes the installed model `name` and any partial download of it. The folder is first
/// renamed to a `.partial.` name, so a removal cut short never leaves a half model listed.
pub fn remove(models_dir: &Path, name: &str) -> Result<PathBuf, RemoveError> {
    let plain = !name.is_empty() && !name.contains(['/', '\\']) && name != ".." && name != ".";
    let dir = models_dir.join(name);
    if !plain || !dir.is_dir() || name.contains(".partial.") {
        return Err(RemoveError::NotInstalled {
            name: name.to_string(),
            models_dir: models_dir.to_path_buf(),
        });
    }
    let _lock = download::lock_model(models_dir, name)?;
    download::sweep_leftovers(models_dir, name);
    let doomed = models_dir.join(format!("{name}.partial.removing-{}", std::process::id()));
    fs::rename(&dir, &doomed).map_err(|source| RemoveError::Io {
        path: dir.clone(),
        source,
    })?;
    fs::remove_dir_all(&doomed).map_err(|source| RemoveError::Io {
        path: doomed.clone(),
        source,
    })?;
    let partial = download::partial_dir(models_dir, name);
    if partial.is_dir() {
        let _ = fs::remove_dir_all(&partial);
    }
    Ok(dir)
}

/// What `models verify` found.
#[derive(Debug)]
pub struct Verification {
    pub dir: PathBuf,
    /// `None`: no manifest (installed by the set-up, or a folder of the user's own), so only
    /// the load check says anything.
    pub manifest: Option<Manifest>,
    /// Files that differ from the manifest.
    pub mismatches: Vec<Mismatch>,
    /// The engine's verdict on loading the folder.
    pub load: Result<(), EngineError>,
}

impl Verification {
    pub fn is_ok(&self) -> bool {
        self.mismatches.is_empty() && self.load.is_ok()
    }
}

/// Checks `dir` against its manifest (when it has one) and loads it with the engine.
pub fn verify(
    dir: &Path,
    on_bytes: &mut dyn FnMut(u64),
) -> Result<Verification, manifest::ManifestError> {
    let manifest = Manifest::read(dir)?;
    let mismatches = match &manifest {
        Some(m) => m.check(dir, on_bytes)?,
        None => Vec::new(),
    };
    let load = download::check_loads(dir);
    Ok(Verification {
        dir: dir.to_path_buf(),
        manifest,
        mismatches,
        load,
    })
}
