//! Installing a catalogue model: list the repository's files at one commit, check the disk has
//! room, fetch every file into `models/<name>.partial.download/` (resuming what an earlier
//! attempt left there, `Range` requests, never fetching a byte twice), verify each file against
//! the hub's size and hash, check that the engine loads the folder, write the manifest, and
//! only then rename the folder to `models/<name>/`. A model folder is therefore either absent
//! or complete: never partial, never corrupt.
//!
//! Interruptions (network errors, a stalled server, the process killed) keep the partial folder
//! for the next attempt; a cancel removes it (the user said they don't want it). A file that
//! fails verification is deleted so the next attempt fetches it afresh.

use super::catalogue::CatalogueEntry;
use super::disk::{available_space, FileLock};
use super::hub::{HubClient, HubError, RemoteFile, RepoListing};
use super::manifest::{hash_file, Manifest, ManifestFile};
use crate::whisper::{Engine, EngineError, Layout, LoadOptions};
use serde::{Deserialize, Serialize};
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Free space kept on top of the download itself, so a download never fills a disk to the
/// last byte.
pub const SPACE_HEADROOM: u64 = 64 * 1024 * 1024;

/// Suffix of the temporary folder a download fills (`paths::installed_models` skips names
/// with `.partial.`).
pub const PARTIAL_SUFFIX: &str = ".partial.download";

/// Which commit the partial folder's files came from, so a resume never mixes commits.
const STATE_FILE: &str = ".whisper-dictation-download.json";

/// Bytes read per chunk; the cancel flag is looked at between chunks.
const CHUNK: usize = 256 * 1024;

/// What a download reports as it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Asking the hub for the file list.
    Listing,
    /// Fetching bytes; `done`/`total` count bytes of all files (including those an earlier
    /// attempt fetched).
    Downloading,
    /// Hashing the files; `done`/`total` count bytes hashed.
    Verifying,
    /// Loading the folder with the engine once.
    Loading,
    /// Renamed into place.
    Installed,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    pub stage: Stage,
    /// The file being fetched or hashed ("" between files).
    pub file: String,
    pub done: u64,
    pub total: u64,
}

impl Progress {
    /// Whole percent of the current stage, 0..=100 whatever the counts say.
    pub fn percent(&self) -> u8 {
        percent(self.done, self.total)
    }
}

/// `done` of `total` in whole percent, never above 100 (an unknown total counts as 0 %).
pub fn percent(done: u64, total: u64) -> u8 {
    if total == 0 {
        return 0;
    }
    let p = (u128::from(done.min(total)) * 100) / u128::from(total);
    p as u8
}

/// Everything that stops a download; each names the model, file, URL or folder concerned.
#[derive(Debug, thiserror::Error)]
pub enum DownloadError {
    #[error(transparent)]
    Hub(#[from] HubError),
    #[error("a download of '{name}' is already running (lock {})", .lock.display())]
    Busy { name: String, lock: PathBuf },
    #[error("'{name}' is already installed in {}", .dir.display())]
    AlreadyInstalled { name: String, dir: PathBuf },
    #[error(
        "not enough disk space in {}: {} needed, {} free",
        .dir.display(),
        super::catalogue::human_bytes(*.needed),
        super::catalogue::human_bytes(*.available)
    )]
    NotEnoughSpace {
        dir: PathBuf,
        needed: u64,
        available: u64,
    },
    #[error("{repo} at {commit} has no `{file}`, which the {layout} layout needs")]
    MissingFile {
        repo: String,
        commit: String,
        file: String,
        layout: Layout,
    },
    #[error("{url}: the hub does not say how big `{file}` is")]
    UnknownSize { file: String, url: String },
    #[error("{file} ({url}): {actual} bytes, but the hub lists {expected}")]
    SizeMismatch {
        file: String,
        url: String,
        expected: u64,
        actual: u64,
    },
    #[error("{file} ({url}): {kind} is {actual}, but the hub lists {expected}; the file was deleted and will be fetched again")]
    HashMismatch {
        file: String,
        url: String,
        kind: &'static str,
        expected: String,
        actual: String,
    },
    #[error("download of '{name}' cancelled")]
    Cancelled { name: String },
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("the downloaded '{name}' does not load: {source}")]
    Load {
        name: String,
        #[source]
        source: Box<EngineError>,
    },
}

impl DownloadError {
    /// Whether trying again later can help with no change (the partial folder is kept).
    pub fn is_resumable(&self) -> bool {
        matches!(
            self,
            DownloadError::Hub(HubError::Timeout { .. } | HubError::Network { .. })
        )
    }
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> DownloadError + '_ {
    move |source| DownloadError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// How a download runs.
#[derive(Clone)]
pub struct DownloadOptions {
    pub models_dir: PathBuf,
    pub client: HubClient,
    /// Set from anywhere to stop; looked at between chunks and stages.
    pub cancel: Arc<AtomicBool>,
    /// Free bytes at a path ([`available_space`]; tests simulate a full disk).
    pub available_space: fn(&Path) -> io::Result<u64>,
    /// Fetch again over an installed model of that name (re-download of a broken model).
    pub replace: bool,
    /// Times a broken connection or stall is retried within this call, from where it stopped.
    pub retries: u32,
    /// Pause before each retry.
    pub retry_pause: Duration,
}

impl DownloadOptions {
    pub fn new(models_dir: PathBuf, client: HubClient) -> DownloadOptions {
        DownloadOptions {
            models_dir,
            client,
            cancel: Arc::new(AtomicBool::new(false)),
            available_space,
            replace: false,
            retries: 3,
            retry_pause: Duration::from_secs(2),
        }
    }
}

/// What a finished download did.
#[derive(Debug, Clone)]
pub struct Installed {
    pub dir: PathBuf,
    pub manifest: Manifest,
    /// Bytes fetched over the network by this call.
    pub fetched: u64,
    /// Bytes an earlier attempt had already fetched and this one kept.
    pub reused: u64,
}

#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
struct PartialState {
    repo: String,
    commit: String,
}

/// The files of `layout` a model folder needs (`true`) or may use (`false`).
pub fn layout_files(layout: Layout) -> &'static [(&'static str, bool)] {
    match layout {
        Layout::CTranslate2 => &[
            ("config.json", true),
            ("model.bin", true),
            ("tokenizer.json", true),
            ("vocabulary.txt", false),
            ("vocabulary.json", false),
            ("preprocessor_config.json", false),
        ],
        Layout::HuggingFace => &[
            ("config.json", true),
            ("model.safetensors", true),
            ("tokenizer.json", true),
            ("generation_config.json", false),
            ("preprocessor_config.json", false),
        ],
    }
}

/// The temporary folder a download of `name` fills.
pub fn partial_dir(models_dir: &Path, name: &str) -> PathBuf {
    models_dir.join(format!("{name}{PARTIAL_SUFFIX}"))
}

/// The lock file of `name`'s downloads (and removal).
pub fn lock_path(models_dir: &Path, name: &str) -> PathBuf {
    models_dir.join(format!(".{name}.lock"))
}

/// Takes `name`'s lock or says who has it.
pub fn lock_model(models_dir: &Path, name: &str) -> Result<FileLock, DownloadError> {
    let path = lock_path(models_dir, name);
    match FileLock::try_acquire(&path).map_err(io_at(&path))? {
        Some(lock) => Ok(lock),
        None => Err(DownloadError::Busy {
            name: name.to_string(),
            lock: path,
        }),
    }
}

/// Downloads `entry` into `opts.models_dir/<name>/` (see the module comment).
pub fn download(
    entry: &CatalogueEntry,
    opts: &DownloadOptions,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<Installed, DownloadError> {
    let models_dir = &opts.models_dir;
    crate::private_files::create_dir_all(models_dir).map_err(io_at(models_dir))?;
    let _lock = lock_model(models_dir, entry.name)?;
    let target = models_dir.join(entry.name);
    if target.exists() && !opts.replace {
        return Err(DownloadError::AlreadyInstalled {
            name: entry.name.to_string(),
            dir: target,
        });
    }
    sweep_leftovers(models_dir, entry.name);
    let partial = partial_dir(models_dir, entry.name);
    let result = fetch_verify_install(entry, opts, &partial, &target, on_progress);
    match &result {
        Err(DownloadError::Cancelled { .. } | DownloadError::Load { .. }) => {
            let _ = fs::remove_dir_all(&partial);
        }
        Err(e) => tracing::warn!(model = entry.name, "download stopped: {e}"),
        Ok(_) => {}
    }
    result
}

fn fetch_verify_install(
    entry: &CatalogueEntry,
    opts: &DownloadOptions,
    partial: &Path,
    target: &Path,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<Installed, DownloadError> {
    let cancelled = || -> Result<(), DownloadError> {
        if opts.cancel.load(Ordering::Relaxed) {
            Err(DownloadError::Cancelled {
                name: entry.name.to_string(),
            })
        } else {
            Ok(())
        }
    };
    let report = |on_progress: &mut dyn FnMut(&Progress), stage, file: &str, done, total| {
        on_progress(&Progress {
            stage,
            file: file.to_string(),
            done,
            total,
        })
    };
    report(on_progress, Stage::Listing, "", 0, 0);
    let listing = opts.client.list(entry.repo, entry.revision)?;
    cancelled()?;
    let files = select_files(entry, &listing, &opts.client)?;
    prepare_partial(partial, &listing)?;

    let total: u64 = files.iter().map(|(_, size)| size).sum();
    let reused: u64 = files
        .iter()
        .map(|(f, size)| file_len(&partial.join(&f.name)).min(*size))
        .sum();
    let needed = total - reused;
    let available = (opts.available_space)(&opts.models_dir).map_err(io_at(&opts.models_dir))?;
    if available < needed.saturating_add(SPACE_HEADROOM) {
        if reused == 0 {
            // Nothing to resume: leave no empty folder behind.
            let _ = fs::remove_dir_all(partial);
        }
        return Err(DownloadError::NotEnoughSpace {
            dir: opts.models_dir.clone(),
            needed: needed + SPACE_HEADROOM,
            available,
        });
    }

    let mut fetched = 0u64;
    report(on_progress, Stage::Downloading, "", reused, total);
    for (file, size) in &files {
        let path = partial.join(&file.name);
        let mut attempt = 0;
        loop {
            // Bytes of the other files on disk: with this file's length, the total done.
            let others: u64 = files
                .iter()
                .filter(|(f, _)| f.name != file.name)
                .map(|(f, s)| file_len(&partial.join(&f.name)).min(*s))
                .sum();
            let result = fetch_file(opts, &listing, file, *size, &path, &mut |fresh, now_len| {
                fetched += fresh;
                report(
                    on_progress,
                    Stage::Downloading,
                    &file.name,
                    others + now_len,
                    total,
                );
            });
            match result {
                Ok(()) => break,
                Err(e) if e.is_resumable() && attempt < opts.retries => {
                    attempt += 1;
                    tracing::warn!(
                        file = file.name,
                        attempt,
                        "retrying from where it stopped: {e}"
                    );
                    std::thread::sleep(opts.retry_pause);
                    cancelled()?;
                }
                Err(e) => return Err(e),
            }
        }
    }

    // Verify every file against the hub's metadata.
    let mut hashed = 0u64;
    report(on_progress, Stage::Verifying, "", 0, total);
    let mut manifest_files = Vec::with_capacity(files.len());
    for (file, size) in &files {
        cancelled()?;
        let path = partial.join(&file.name);
        let url = opts
            .client
            .file_url(&listing.repo, &listing.commit, &file.name);
        let hashes = hash_file(&path, &mut |n| {
            hashed += n;
            report(on_progress, Stage::Verifying, &file.name, hashed, total);
        })
        .map_err(io_at(&path))?;
        let mismatch = |kind, expected: &str, actual: &str| {
            let _ = fs::remove_file(&path);
            DownloadError::HashMismatch {
                file: file.name.clone(),
                url: url.clone(),
                kind,
                expected: expected.to_string(),
                actual: actual.to_string(),
            }
        };
        if hashes.size != *size {
            let _ = fs::remove_file(&path);
            return Err(DownloadError::SizeMismatch {
                file: file.name.clone(),
                url,
                expected: *size,
                actual: hashes.size,
            });
        }
        if let Some(expected) = &file.sha256 {
            if !expected.eq_ignore_ascii_case(&hashes.sha256) {
                return Err(mismatch("SHA-256", expected, &hashes.sha256));
            }
        } else if let Some(expected) = &file.git_blob {
            if !expected.eq_ignore_ascii_case(&hashes.git_blob) {
                return Err(mismatch("git blob id (SHA-1)", expected, &hashes.git_blob));
            }
        }
        manifest_files.push(ManifestFile {
            name: file.name.clone(),
            size: hashes.size,
            sha256: hashes.sha256,
        });
    }

    // The engine must load it; half precision is enough to check every tensor and costs half
    // the memory of the float32 the app then loads.
    cancelled()?;
    report(on_progress, Stage::Loading, "", 0, 0);
    check_loads(partial).map_err(|source| DownloadError::Load {
        name: entry.name.to_string(),
        source: Box::new(source),
    })?;
    cancelled()?;

    let manifest = Manifest {
        name: entry.name.to_string(),
        repo: listing.repo.clone(),
        revision: entry.revision.to_string(),
        commit: listing.commit.clone(),
        endpoint: opts.client.endpoint().to_string(),
        installed_at: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        files: manifest_files,
    };
    manifest.write(partial).map_err(io_at(partial))?;
    let state = partial.join(STATE_FILE);
    fs::remove_file(&state).map_err(io_at(&state))?;
    install(partial, target)?;
    report(on_progress, Stage::Installed, "", total, total);
    Ok(Installed {
        dir: target.to_path_buf(),
        manifest,
        fetched,
        reused,
    })
}

/// Removes what a replacement or removal of `name` cut short by a crash left behind
/// (`NAME.partial.old-PID`, `NAME.partial.removing-PID`); the caller holds `name`'s lock.
/// The resumable `NAME.partial.download` is kept.
pub fn sweep_leftovers(models_dir: &Path, name: &str) {
    let prefixes = [
        format!("{name}.partial.old-"),
        format!("{name}.partial.removing-"),
    ];
    for entry in fs::read_dir(models_dir).into_iter().flatten().flatten() {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        if prefixes.iter().any(|p| file_name.starts_with(p.as_str())) && entry.path().is_dir() {
            tracing::info!(dir = %entry.path().display(), "removing a leftover model folder");
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// Loads `dir` with the engine on the CPU, as a check (the result is dropped).
pub fn check_loads(dir: &Path) -> Result<(), EngineError> {
    let opts = LoadOptions {
        device: tch::Device::Cpu,
        kind: tch::Kind::Half,
        ..LoadOptions::default()
    };
    Engine::load(dir, &opts).map(drop)
}

/// The files to fetch with their sizes: the layout's required ones (an error if the repository
/// lacks one) and its optional ones that exist.
fn select_files(
    entry: &CatalogueEntry,
    listing: &RepoListing,
    client: &HubClient,
) -> Result<Vec<(RemoteFile, u64)>, DownloadError> {
    let mut chosen = Vec::new();
    for (name, required) in layout_files(entry.layout) {
        match listing.files.iter().find(|f| f.name == *name) {
            Some(file) => {
                let size = file.size.ok_or_else(|| DownloadError::UnknownSize {
                    file: file.name.clone(),
                    url: client.file_url(&listing.repo, &listing.commit, &file.name),
                })?;
                chosen.push((file.clone(), size));
            }
            None if *required => {
                return Err(DownloadError::MissingFile {
                    repo: listing.repo.clone(),
                    commit: listing.commit.clone(),
                    file: name.to_string(),
                    layout: entry.layout,
                })
            }
            None => {}
        }
    }
    Ok(chosen)
}

/// Makes `partial` hold only files of `listing`'s commit: a folder left by an attempt at
/// another commit is emptied first.
fn prepare_partial(partial: &Path, listing: &RepoListing) -> Result<(), DownloadError> {
    let state_path = partial.join(STATE_FILE);
    let wanted = PartialState {
        repo: listing.repo.clone(),
        commit: listing.commit.clone(),
    };
    let existing: Option<PartialState> = fs::read(&state_path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok());
    if partial.exists() && existing.as_ref() != Some(&wanted) {
        tracing::info!(dir = %partial.display(), "discarding a partial download of another commit");
        fs::remove_dir_all(partial).map_err(io_at(partial))?;
    }
    crate::private_files::create_dir_all(partial).map_err(io_at(partial))?;
    if existing.as_ref() != Some(&wanted) {
        let json = serde_json::to_vec(&wanted).map_err(|e| DownloadError::Io {
            path: state_path.clone(),
            source: io::Error::other(e),
        })?;
        crate::atomic_file::write(&state_path, &json).map_err(io_at(&state_path))?;
    }
    Ok(())
}

fn file_len(path: &Path) -> u64 {
    fs::metadata(path).map_or(0, |m| m.len())
}

/// Brings `path` to `size` bytes of `file`, appending from where it stops. `on_bytes(fresh,
/// length now)` after each chunk written.
fn fetch_file(
    opts: &DownloadOptions,
    listing: &RepoListing,
    file: &RemoteFile,
    size: u64,
    path: &Path,
    on_bytes: &mut dyn FnMut(u64, u64),
) -> Result<(), DownloadError> {
    let mut have = file_len(path);
    if have > size {
        // Longer than the file can be: not ours to trust.
        fs::remove_file(path).map_err(io_at(path))?;
        have = 0;
    }
    if have == size {
        if size == 0 {
            // An empty file still has to exist.
            crate::private_files::create_file(path).map_err(io_at(path))?;
        }
        return Ok(());
    }
    let mut body = opts
        .client
        .open(&listing.repo, &listing.commit, &file.name, have)?;
    if let Some(total) = body.total {
        if total != size {
            return Err(DownloadError::SizeMismatch {
                file: file.name.clone(),
                url: body.url.clone(),
                expected: size,
                actual: total,
            });
        }
    }
    if let (Some(expected), Some(etag)) = (&file.sha256, &body.etag) {
        // The hub names LFS content by its SHA-256; other ETags (a CDN's) are not hashes.
        if is_sha256(etag) && !etag.eq_ignore_ascii_case(expected) {
            return Err(DownloadError::HashMismatch {
                file: file.name.clone(),
                url: body.url.clone(),
                kind: "ETag",
                expected: expected.clone(),
                actual: etag.clone(),
            });
        }
    }
    let mut out = crate::private_files::open_options()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io_at(path))?;
    if body.offset != have {
        // The server sent the whole file although a range was asked for: start over.
        out.set_len(0).map_err(io_at(path))?;
        have = 0;
    }
    on_bytes(0, have);
    let mut buf = vec![0u8; CHUNK];
    while have < size {
        if opts.cancel.load(Ordering::Relaxed) {
            out.flush().map_err(io_at(path))?;
            return Err(DownloadError::Cancelled {
                name: file.name.clone(),
            });
        }
        let n = body.read_chunk(&mut buf)?;
        if n == 0 {
            return Err(DownloadError::Hub(HubError::Network {
                url: body.url.clone(),
                detail: format!("the connection closed after {have} of {size} bytes"),
            }));
        }
        let n = n.min(usize::try_from(size - have).unwrap_or(usize::MAX));
        out.write_all(&buf[..n]).map_err(io_at(path))?;
        have += n as u64;
        on_bytes(n as u64, have);
    }
    out.sync_all().map_err(io_at(path))?;
    Ok(())
}

fn is_sha256(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Renames `partial` to `target`; an existing `target` (a re-download) is moved aside first
/// and removed once the new one is in place.
fn install(partial: &Path, target: &Path) -> Result<(), DownloadError> {
    let aside = target.with_file_name(format!(
        "{}.partial.old-{}",
        target
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        std::process::id()
    ));
    let replacing = target.exists();
    if replacing {
        fs::rename(target, &aside).map_err(io_at(target))?;
    }
    if let Err(source) = fs::rename(partial, target) {
        if replacing {
            let _ = fs::rename(&aside, target);
        }
        return Err(DownloadError::Io {
            path: target.to_path_buf(),
            source,
        });
    }
    if replacing {
        let _ = fs::remove_dir_all(&aside);
    }
    if let Some(parent) = target.parent() {
        if let Ok(dir) = File::open(parent) {
            let _ = dir.sync_all();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_never_passes_100() {
        assert_eq!(percent(0, 0), 0);
        assert_eq!(percent(0, 10), 0);
        assert_eq!(percent(5, 10), 50);
        assert_eq!(percent(9_999, 10_000), 99);
        assert_eq!(percent(10, 10), 100);
        assert_eq!(percent(11, 10), 100);
        assert_eq!(percent(u64::MAX, u64::MAX), 100);
        assert_eq!(percent(u64::MAX / 2, u64::MAX), 49);
    }

    #[test]
    fn layouts_need_weights_config_and_tokenizer() {
        for layout in [Layout::CTranslate2, Layout::HuggingFace] {
            let required: Vec<&str> = layout_files(layout)
                .iter()
                .filter(|(_, r)| *r)
                .map(|(n, _)| *n)
                .collect();
            assert!(required.contains(&"config.json") && required.contains(&"tokenizer.json"));
        }
        assert!(layout_files(Layout::CTranslate2).contains(&("model.bin", true)));
        assert!(layout_files(Layout::HuggingFace).contains(&("model.safetensors", true)));
    }

    #[test]
    fn install_replaces_an_old_folder_whole() {
        let dir = tempfile::tempdir().unwrap();
        let partial = dir.path().join("m.partial.download");
        let target = dir.path().join("m");
        fs::create_dir_all(&partial).unwrap();
        fs::write(partial.join("new"), b"n").unwrap();
        fs::create_dir_all(&target).unwrap();
        fs::write(target.join("old"), b"o").unwrap();
        install(&partial, &target).unwrap();
        assert!(target.join("new").is_file() && !target.join("old").exists());
        let left: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(left.len(), 1, "{left:?}");
    }

    #[test]
    fn leftovers_of_a_crash_are_swept_but_a_resumable_download_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "small.partial.old-12",
            "small.partial.removing-7",
            "small.partial.download",
            "small",
            "smaller.partial.old-1",
        ] {
            fs::create_dir_all(dir.path().join(name)).unwrap();
        }
        sweep_leftovers(dir.path(), "small");
        let mut left: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            ["small", "small.partial.download", "smaller.partial.old-1"]
        );
    }
}
