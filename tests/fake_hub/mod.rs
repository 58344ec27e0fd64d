//! A model hub on 127.0.0.1 for the download tests: the hub's URL layout and headers, serving
//! real model files from a folder, with faults on demand. Routes, as on the hub:
//! - `GET /api/models/{owner}/{name}/revision/{rev}?blobs=true`: JSON with `sha` (the commit)
//!   and `siblings` (`rfilename`, `size`, `blobId`, and `lfs { sha256, size }` for big files);
//! - `GET|HEAD /{owner}/{name}/resolve/{rev}/{file}`: small files answered directly (`ETag` =
//!   git blob id); LFS files answered with a 302 to `/cdn-lfs/{sha256}` carrying
//!   `X-Linked-Etag`, `X-Linked-Size`, `X-Repo-Commit`; both with `X-Repo-Commit`;
//! - `GET /cdn-lfs/{sha256}`: the bytes, honouring `Range: bytes=N-` with 206 + `Content-Range`.
//!
//! It counts the body bytes it sends per file, so a test can tell that nothing was fetched twice.
#![allow(dead_code)]

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use whisper_dictation::models::manifest::hash_file;

pub const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

/// Files above this size are "LFS" files (the hub's threshold is about 10 MB).
const LFS_THRESHOLD: u64 = 1_000_000;

#[derive(Debug, Clone)]
pub struct HubFile {
    pub name: String,
    pub path: PathBuf,
    pub size: u64,
    pub sha256: String,
    pub git_blob: String,
}

impl HubFile {
    pub fn is_lfs(&self) -> bool {
        self.size > LFS_THRESHOLD
    }
}

/// The files of a model folder with their hashes, computed once per test binary.
pub fn model_files(dir: &Path) -> Vec<HubFile> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Vec<HubFile>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap();
    cache
        .entry(dir.to_path_buf())
        .or_insert_with(|| {
            let mut files: Vec<HubFile> = std::fs::read_dir(dir)
                .unwrap()
                .flatten()
                .filter(|e| e.path().is_file())
                .filter_map(|e| e.file_name().into_string().ok().map(|n| (n, e.path())))
                // The set-up's own marker is not part of a repository.
                .filter(|(n, _)| !n.starts_with('.'))
                .map(|(name, path)| {
                    let h = hash_file(&path, &mut |_| {}).unwrap();
                    HubFile {
                        name,
                        path,
                        size: h.size,
                        sha256: h.sha256,
                        git_blob: h.git_blob,
                    }
                })
                .collect();
            files.sort_by(|a, b| a.name.cmp(&b.name));
            files
        })
        .clone()
}

/// Faults and counters, shared with the server threads.
#[derive(Debug, Default)]
pub struct Behaviour {
    /// The next GET of this file's bytes sends this many body bytes, then closes (once).
    pub drop_after: Option<(String, u64)>,
    /// Every GET of this file's bytes sends this many body bytes, then stops sending while
    /// keeping the connection open for the duration.
    pub stall_after: Option<(String, u64, Duration)>,
    /// Serve this file with one byte changed at this offset (the metadata stays the original).
    pub corrupt: Option<(String, u64)>,
    /// Answer ranged requests with the whole file (200), as a server without range support.
    pub ignore_range: bool,
    /// Sleep before answering the file list.
    pub api_delay: Duration,
    /// Body bytes sent per file name.
    pub served: HashMap<String, u64>,
    /// `Range` headers received per file name (None = whole file).
    pub ranges: Vec<(String, Option<String>)>,
    /// Every request line.
    pub requests: Vec<String>,
}

pub struct FakeHub {
    pub url: String,
    pub repo: String,
    pub files: Vec<HubFile>,
    pub behaviour: Arc<Mutex<Behaviour>>,
}

impl FakeHub {
    /// Serves `dir`'s files as repository `repo` at [`COMMIT`] (branch `main`).
    pub fn start(repo: &str, dir: &Path) -> FakeHub {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let files = model_files(dir);
        let behaviour = Arc::new(Mutex::new(Behaviour::default()));
        let shared = Arc::new(Shared {
            url: url.clone(),
            repo: repo.to_string(),
            files: files.clone(),
            behaviour: behaviour.clone(),
        });
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let shared = shared.clone();
                std::thread::spawn(move || {
                    let _ = serve_connection(stream, &shared);
                });
            }
        });
        FakeHub {
            url,
            repo: repo.to_string(),
            files,
            behaviour,
        }
    }

    pub fn with<T>(&self, f: impl FnOnce(&mut Behaviour) -> T) -> T {
        f(&mut self.behaviour.lock().unwrap())
    }

    pub fn served(&self, file: &str) -> u64 {
        self.with(|b| b.served.get(file).copied().unwrap_or(0))
    }

    pub fn file(&self, name: &str) -> &HubFile {
        self.files.iter().find(|f| f.name == name).unwrap()
    }
}

struct Shared {
    url: String,
    repo: String,
    files: Vec<HubFile>,
    behaviour: Arc<Mutex<Behaviour>>,
}

struct Request {
    method: String,
    path: String,
    range: Option<String>,
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut range = None;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("range") {
                range = Some(value.trim().to_string());
            }
        }
    }
    Some(Request {
        method,
        path,
        range,
    })
}

fn serve_connection(stream: TcpStream, shared: &Shared) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut out = stream;
    while let Some(request) = read_request(&mut reader) {
        shared
            .behaviour
            .lock()
            .unwrap()
            .requests
            .push(format!("{} {}", request.method, request.path));
        if !respond(&mut out, &request, shared)? {
            return Ok(());
        }
    }
    Ok(())
}

fn head(out: &mut TcpStream, status: &str, headers: &[(&str, String)]) -> std::io::Result<()> {
    let mut text = format!("HTTP/1.1 {status}\r\n");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    out.write_all(text.as_bytes())
}

fn not_found(out: &mut TcpStream) -> std::io::Result<bool> {
    let body = b"{\"error\":\"Repository not found\"}";
    head(
        out,
        "404 Not Found",
        &[
            ("Content-Type", "application/json".into()),
            ("Content-Length", body.len().to_string()),
            ("X-Error-Code", "RepoNotFound".into()),
        ],
    )?;
    out.write_all(body)?;
    Ok(true)
}

/// Answers one request; `false` closes the connection.
fn respond(out: &mut TcpStream, req: &Request, shared: &Shared) -> std::io::Result<bool> {
    let path = req.path.split('?').next().unwrap_or("");
    let api_prefix = format!("/api/models/{}/revision/", shared.repo);
    if let Some(rev) = path.strip_prefix(&api_prefix) {
        if rev != "main" && rev != COMMIT {
            return not_found(out);
        }
        let delay = shared.behaviour.lock().unwrap().api_delay;
        std::thread::sleep(delay);
        let siblings: Vec<serde_json::Value> = shared
            .files
            .iter()
            .map(|f| {
                let mut s = serde_json::json!({
                    "rfilename": f.name,
                    "size": f.size,
                    "blobId": if f.is_lfs() { "0".repeat(40) } else { f.git_blob.clone() },
                });
                if f.is_lfs() {
                    s["lfs"] = serde_json::json!({
                        "sha256": f.sha256, "size": f.size, "pointerSize": 134
                    });
                }
                s
            })
            .collect();
        let body = serde_json::json!({
            "_id": "6500000000000000000000aa",
            "id": shared.repo,
            "modelId": shared.repo,
            "sha": COMMIT,
            "private": false,
            "gated": false,
            "siblings": siblings,
        })
        .to_string();
        head(
            out,
            "200 OK",
            &[
                ("Content-Type", "application/json; charset=utf-8".into()),
                ("Content-Length", body.len().to_string()),
            ],
        )?;
        out.write_all(body.as_bytes())?;
        return Ok(true);
    }
    let resolve_prefix = format!("/{}/resolve/", shared.repo);
    if let Some(rest) = path.strip_prefix(&resolve_prefix) {
        let Some((rev, name)) = rest.split_once('/') else {
            return not_found(out);
        };
        let Some(file) = shared.files.iter().find(|f| f.name == name) else {
            return not_found(out);
        };
        if rev != "main" && rev != COMMIT {
            return not_found(out);
        }
        if file.is_lfs() {
            let location = format!("{}/cdn-lfs/{}?x-id=GetObject", shared.url, file.sha256);
            head(
                out,
                "302 Found",
                &[
                    ("Location", location),
                    ("X-Repo-Commit", COMMIT.into()),
                    ("X-Linked-Etag", format!("\"{}\"", file.sha256)),
                    ("X-Linked-Size", file.size.to_string()),
                    ("ETag", format!("\"{}\"", file.git_blob)),
                    ("Content-Length", "0".into()),
                ],
            )?;
            return Ok(true);
        }
        let etag = format!("\"{}\"", file.git_blob);
        return send_file(
            out,
            req,
            shared,
            file,
            &[("X-Repo-Commit", COMMIT.into()), ("ETag", etag)],
        );
    }
    if let Some(rest) = path.strip_prefix("/cdn-lfs/") {
        let Some(file) = shared.files.iter().find(|f| f.sha256 == rest) else {
            return not_found(out);
        };
        // A storage ETag, not the content hash (as S3's are).
        let etag = format!("\"cdn-{}\"", &file.sha256[..8]);
        return send_file(out, req, shared, file, &[("ETag", etag)]);
    }
    not_found(out)
}

fn send_file(
    out: &mut TcpStream,
    req: &Request,
    shared: &Shared,
    file: &HubFile,
    extra: &[(&str, String)],
) -> std::io::Result<bool> {
    let (ignore_range, drop_after, stall_after, corrupt) = {
        let mut b = shared.behaviour.lock().unwrap();
        b.ranges.push((file.name.clone(), req.range.clone()));
        let drop_after = match &b.drop_after {
            Some((name, n)) if *name == file.name && req.method == "GET" => {
                let n = *n;
                b.drop_after = None;
                Some(n)
            }
            _ => None,
        };
        let stall = b
            .stall_after
            .as_ref()
            .filter(|(name, ..)| *name == file.name)
            .map(|(_, n, d)| (*n, *d));
        let corrupt = b
            .corrupt
            .as_ref()
            .filter(|(name, _)| *name == file.name)
            .map(|(_, at)| *at);
        (b.ignore_range, drop_after, stall, corrupt)
    };
    let start = req
        .range
        .as_deref()
        .filter(|_| !ignore_range)
        .and_then(|r| r.strip_prefix("bytes="))
        .and_then(|r| r.strip_suffix('-'))
        .and_then(|n| n.parse::<u64>().ok());
    let mut headers: Vec<(&str, String)> = extra.to_vec();
    headers.push(("Accept-Ranges", "bytes".into()));
    headers.push(("Content-Type", "application/octet-stream".into()));
    let start = match start {
        Some(s) if s >= file.size => {
            headers.push(("Content-Range", format!("bytes */{}", file.size)));
            headers.push(("Content-Length", "0".into()));
            head(out, "416 Range Not Satisfiable", &headers)?;
            return Ok(true);
        }
        Some(s) => {
            headers.push((
                "Content-Range",
                format!("bytes {s}-{}/{}", file.size - 1, file.size),
            ));
            headers.push(("Content-Length", (file.size - s).to_string()));
            head(out, "206 Partial Content", &headers)?;
            s
        }
        None => {
            headers.push(("Content-Length", file.size.to_string()));
            head(out, "200 OK", &headers)?;
            0
        }
    };
    if req.method == "HEAD" {
        return Ok(true);
    }
    let mut source = File::open(&file.path)?;
    source.seek(SeekFrom::Start(start))?;
    let mut position = start;
    let mut sent_now = 0u64;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let limit = [drop_after, stall_after.map(|(n, _)| n)]
            .into_iter()
            .flatten()
            .min();
        let mut want = buf.len() as u64;
        if let Some(limit) = limit {
            if sent_now >= limit {
                if let Some((_, pause)) = stall_after {
                    std::thread::sleep(pause);
                }
                return Ok(false);
            }
            want = want.min(limit - sent_now);
        }
        let n = source.read(&mut buf[..want as usize])?;
        if n == 0 {
            return Ok(true);
        }
        if let Some(at) = corrupt {
            if (position..position + n as u64).contains(&at) {
                buf[(at - position) as usize] ^= 0xff;
            }
        }
        let written = out.write_all(&buf[..n]);
        // Count what was handed to the socket, even when the client hangs up afterwards.
        *shared
            .behaviour
            .lock()
            .unwrap()
            .served
            .entry(file.name.clone())
            .or_default() += n as u64;
        written?;
        position += n as u64;
        sent_now += n as u64;
    }
}
