//! The model hub over HTTP: the file list of a repository at a revision, with sizes and hashes
//! (`GET {endpoint}/api/models/{repo}/revision/{revision}?blobs=true`), and one file's bytes
//! from an offset (`GET {endpoint}/{repo}/resolve/{commit}/{file}`, following the hub's
//! redirect to its storage, `Range: bytes=N-` to resume).
//!
//! Why not the `hf-hub` crate: version 1.0 (read at `hf-hub-1.0.0/src/repository/download.rs`)
//! is async (tokio + reqwest + the Xet storage client; its `blocking` feature wraps a tokio
//! runtime), restarts an interrupted file from byte 0 (its `.incomplete` blob is overwritten,
//! no `Range` on retry), writes straight into its cache or the target folder rather than a
//! folder we rename into place, has no way to stop a transfer from the progress handler (it
//! returns nothing), and does not check a downloaded file against the SHA-256 the hub
//! publishes. Resume, cancel and verification are what this feature is for, so this module is a
//! small client on `ureq` (blocking, rustls): per-read timeouts catch a stalled server, which
//! is why `ureq` 2 (whose read timeout applies to each socket read) rather than 3 (a deadline
//! for the whole body, wrong for a 3 GB file).

use serde::Deserialize;
use std::io::Read;
use std::time::Duration;

/// Where the hub is when nothing else says: `HF_ENDPOINT` overrides it, as in every hub
/// client.
pub const DEFAULT_ENDPOINT: &str = "https://huggingface.co";
pub const ENDPOINT_ENV: &str = "HF_ENDPOINT";

/// The endpoint to use: `explicit` (a `--endpoint` flag), else `$HF_ENDPOINT`, else the hub.
pub fn endpoint(explicit: Option<&str>) -> String {
    let chosen = explicit
        .map(str::to_string)
        .or_else(|| std::env::var(ENDPOINT_ENV).ok())
        .filter(|e| !e.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_ENDPOINT.to_string());
    chosen.trim().trim_end_matches('/').to_string()
}

/// How long to wait before calling a server stalled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Establishing the connection.
    pub connect: Duration,
    /// Any one read (response headers or a piece of the body): no byte for this long means the
    /// server stalled. A transfer of any length is fine as long as bytes keep coming.
    pub read: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(15),
            read: Duration::from_secs(30),
        }
    }
}

/// What went wrong talking to the hub; every message names the URL.
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    #[error("{url}: not found (HTTP 404){hint}")]
    NotFound { url: String, hint: &'static str },
    #[error("{url}: the server answered HTTP {status} {reason}")]
    Status {
        url: String,
        status: u16,
        reason: String,
    },
    #[error("{url}: the server stopped sending for more than {} s", .timeout.as_secs_f32())]
    Timeout { url: String, timeout: Duration },
    #[error("{url}: {detail}")]
    Network { url: String, detail: String },
    #[error("{url}: unexpected answer: {detail}")]
    BadResponse { url: String, detail: String },
}

/// One file of a repository, as the hub's metadata describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteFile {
    /// Path in the repository (`model.bin`).
    pub name: String,
    /// Size in bytes; `None` when the hub did not say.
    pub size: Option<u64>,
    /// SHA-256 of the content, for files stored in LFS (the big ones).
    pub sha256: Option<String>,
    /// Git blob id (SHA-1 of `blob <len>\0<content>`) for files stored in git itself.
    pub git_blob: Option<String>,
}

/// A repository at one commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoListing {
    pub repo: String,
    /// The commit the revision resolved to; files are then fetched from it, so one download
    /// never mixes two commits.
    pub commit: String,
    pub files: Vec<RemoteFile>,
}

#[derive(Deserialize)]
struct ApiModel {
    sha: Option<String>,
    #[serde(default)]
    siblings: Vec<ApiSibling>,
}

#[derive(Deserialize)]
struct ApiSibling {
    rfilename: String,
    size: Option<u64>,
    #[serde(rename = "blobId")]
    blob_id: Option<String>,
    lfs: Option<ApiLfs>,
}

#[derive(Deserialize)]
struct ApiLfs {
    sha256: Option<String>,
    size: Option<u64>,
}

/// A response whose body is being read.
pub struct Body {
    pub url: String,
    /// Offset of the first byte of `reader` in the file (0, or the resume offset when the
    /// server honoured the range).
    pub offset: u64,
    /// The file's full size when the headers say (`Content-Range` total, `X-Linked-Size`, or
    /// `Content-Length` of a whole-file answer).
    pub total: Option<u64>,
    /// `X-Linked-Etag` / `ETag` without quotes: the SHA-256 for LFS files on the hub.
    pub etag: Option<String>,
    reader: Box<dyn Read + Send>,
    timeout: Duration,
}

impl Body {
    /// Reads like `Read::read`, with errors as [`HubError`] (a timeout named as such).
    pub fn read_chunk(&mut self, buf: &mut [u8]) -> Result<usize, HubError> {
        self.reader.read(buf).map_err(|e| match e.kind() {
            std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => HubError::Timeout {
                url: self.url.clone(),
                timeout: self.timeout,
            },
            _ => HubError::Network {
                url: self.url.clone(),
                detail: format!("connection broken while reading: {e}"),
            },
        })
    }
}

/// A blocking hub client.
#[derive(Clone)]
pub struct HubClient {
    endpoint: String,
    agent: ureq::Agent,
    timeouts: Timeouts,
    token: Option<String>,
}

impl HubClient {
    /// A client for `endpoint` (see [`endpoint`]). `HF_TOKEN`, when set, is sent as a bearer
    /// token (gated or private repositories); the catalogue's need none.
    pub fn new(endpoint: &str, timeouts: Timeouts) -> HubClient {
        let agent = ureq::AgentBuilder::new()
            .timeout_connect(timeouts.connect)
            .timeout_read(timeouts.read)
            .user_agent(concat!("whisper-dictation/", env!("CARGO_PKG_VERSION")))
            // Redirects are followed by `get`, which keeps the hub's own headers from the
            // first answer (the storage the hub redirects to does not repeat them).
            .redirects(0)
            .build();
        HubClient {
            endpoint: endpoint.trim_end_matches('/').to_string(),
            agent,
            timeouts,
            token: std::env::var("HF_TOKEN").ok().filter(|t| !t.is_empty()),
        }
    }

    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The files of `repo` at `revision`, with sizes and hashes.
    pub fn list(&self, repo: &str, revision: &str) -> Result<RepoListing, HubError> {
        let url = format!(
            "{}/api/models/{repo}/revision/{}?blobs=true",
            self.endpoint,
            encode_path(revision)
        );
        let (response, _) = self.get(&url, None).map_err(|e| match e {
            HubError::NotFound { url, .. } => HubError::NotFound {
                url,
                hint: " (no such repository or revision)",
            },
            other => other,
        })?;
        let text = response.into_string().map_err(|e| HubError::Network {
            url: url.clone(),
            detail: format!("reading the answer: {e}"),
        })?;
        parse_listing(&text, &url, repo)
    }

    /// The URL of one file at one commit (the hub's `resolve` route).
    pub fn file_url(&self, repo: &str, commit: &str, file: &str) -> String {
        format!(
            "{}/{repo}/resolve/{}/{}",
            self.endpoint,
            encode_path(commit),
            encode_path(file)
        )
    }

    /// Starts reading `file` from byte `offset` (0 = the whole file).
    pub fn open(
        &self,
        repo: &str,
        commit: &str,
        file: &str,
        offset: u64,
    ) -> Result<Body, HubError> {
        let url = self.file_url(repo, commit, file);
        let range = (offset > 0).then(|| format!("bytes={offset}-"));
        let (response, hub) = match self.get(&url, range.as_deref()) {
            // Asked from the very end: nothing left to send.
            Err(HubError::Status { status: 416, .. }) if offset > 0 => {
                return Ok(Body {
                    url,
                    offset,
                    total: Some(offset),
                    etag: None,
                    reader: Box::new(std::io::empty()),
                    timeout: self.timeouts.read,
                })
            }
            other => other?,
        };
        if let Some(served) = &hub.repo_commit {
            if served != commit {
                return Err(HubError::BadResponse {
                    url,
                    detail: format!("asked for commit {commit}, the hub answered for {served}"),
                });
            }
        }
        let header_u64 = |name: &str| {
            response
                .header(name)
                .and_then(|v| v.trim().parse::<u64>().ok())
        };
        let etag = hub
            .linked_etag
            .or_else(|| response.header("ETag").map(unquote));
        let (start, total) = match response.status() {
            206 => {
                let content_range = response.header("Content-Range").unwrap_or("");
                let parsed =
                    parse_content_range(content_range).ok_or_else(|| HubError::BadResponse {
                        url: url.clone(),
                        detail: format!("206 with an unreadable Content-Range `{content_range}`"),
                    })?;
                (parsed.0, parsed.1.or(hub.linked_size))
            }
            // The whole file (a server that ignores ranges): the caller starts over.
            _ => (0, header_u64("Content-Length").or(hub.linked_size)),
        };
        if range.is_some() && response.status() == 206 && start != offset {
            return Err(HubError::BadResponse {
                url,
                detail: format!("asked for bytes from {offset}, got from {start}"),
            });
        }
        Ok(Body {
            url,
            offset: start,
            total,
            etag,
            reader: Box::new(response.into_reader()),
            timeout: self.timeouts.read,
        })
    }

    /// GET with the hub's redirects followed (at most 5): a file stored in LFS answers with a
    /// redirect to its storage, carrying `X-Linked-Etag` (the SHA-256), `X-Linked-Size` and
    /// `X-Repo-Commit`, which are kept from the first answer that has them.
    fn get(
        &self,
        url: &str,
        range: Option<&str>,
    ) -> Result<(ureq::Response, HubHeaders), HubError> {
        let mut hub = HubHeaders::default();
        let mut current = url.to_string();
        for _ in 0..=5 {
            let mut request = self.agent.get(&current);
            if let Some(range) = range {
                request = request.set("Range", range);
            }
            // The token goes to the hub only, never to the storage it redirects to.
            if let Some(token) = self
                .token
                .as_ref()
                .filter(|_| current.starts_with(&self.endpoint))
            {
                request = request.set("Authorization", &format!("Bearer {token}"));
            }
            let response = request.call().map_err(|e| self.error(&current, e))?;
            hub.take_from(&response);
            if !(300..400).contains(&response.status()) {
                return Ok((response, hub));
            }
            let location = response
                .header("Location")
                .ok_or_else(|| HubError::BadResponse {
                    url: current.clone(),
                    detail: format!("HTTP {} without a Location", response.status()),
                })?;
            current = join_location(&current, location);
        }
        Err(HubError::BadResponse {
            url: url.to_string(),
            detail: "more than 5 redirects".into(),
        })
    }

    fn error(&self, url: &str, error: ureq::Error) -> HubError {
        match error {
            ureq::Error::Status(404, _) => HubError::NotFound {
                url: url.to_string(),
                hint: "",
            },
            ureq::Error::Status(status, response) => HubError::Status {
                url: url.to_string(),
                status,
                reason: match status {
                    // The hub answers 401 for a repository that does not exist, too.
                    401 | 403 => format!(
                        "{} (no such repository, or a private or gated one: set HF_TOKEN)",
                        response.status_text()
                    ),
                    _ => response.status_text().to_string(),
                },
            },
            ureq::Error::Transport(t) => {
                let timed_out = std::error::Error::source(&t)
                    .and_then(|s| s.downcast_ref::<std::io::Error>())
                    .is_some_and(|io| {
                        matches!(
                            io.kind(),
                            std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
                        )
                    });
                if timed_out {
                    HubError::Timeout {
                        url: url.to_string(),
                        timeout: self.timeouts.read,
                    }
                } else {
                    HubError::Network {
                        url: url.to_string(),
                        detail: t.to_string(),
                    }
                }
            }
        }
    }
}

/// The hub's answer to the listing route (`/api/models/{repo}/revision/{rev}?blobs=true`),
/// fetched from `url`, as the files of `repo` at one commit.
///
/// # Errors
/// [`HubError::BadResponse`] naming `url` when `text` is not the hub's model JSON or has no
/// commit.
pub fn parse_listing(text: &str, url: &str, repo: &str) -> Result<RepoListing, HubError> {
    let api: ApiModel = serde_json::from_str(text).map_err(|e| HubError::BadResponse {
        url: url.to_string(),
        detail: format!("not the hub's model JSON: {e}"),
    })?;
    let commit = api
        .sha
        .filter(|s| !s.is_empty())
        .ok_or_else(|| HubError::BadResponse {
            url: url.to_string(),
            detail: "no commit (`sha`) in the answer".into(),
        })?;
    let files = api
        .siblings
        .into_iter()
        .map(|s| {
            let lfs = s.lfs;
            RemoteFile {
                name: s.rfilename,
                size: lfs.as_ref().and_then(|l| l.size).or(s.size),
                sha256: lfs.as_ref().and_then(|l| l.sha256.clone()),
                // For an LFS file the blob id is the pointer's, not the content's.
                git_blob: if lfs.is_some() { None } else { s.blob_id },
            }
        })
        .collect();
    Ok(RepoListing {
        repo: repo.to_string(),
        commit,
        files,
    })
}

/// The hub's headers about a file, from whichever answer (the redirect or the file) has them.
#[derive(Debug, Default)]
struct HubHeaders {
    linked_etag: Option<String>,
    linked_size: Option<u64>,
    repo_commit: Option<String>,
}

impl HubHeaders {
    fn take_from(&mut self, response: &ureq::Response) {
        if self.linked_etag.is_none() {
            self.linked_etag = response.header("X-Linked-Etag").map(unquote);
        }
        if self.linked_size.is_none() {
            self.linked_size = response
                .header("X-Linked-Size")
                .and_then(|v| v.trim().parse().ok());
        }
        if self.repo_commit.is_none() {
            self.repo_commit = response
                .header("X-Repo-Commit")
                .map(|v| v.trim().to_string());
        }
    }
}

/// `"abc"` or `W/"abc"` → `abc`.
fn unquote(value: &str) -> String {
    value
        .trim()
        .trim_start_matches("W/")
        .trim_matches('"')
        .to_string()
}

/// A redirect's target: absolute, or a path on the same host.
fn join_location(current: &str, location: &str) -> String {
    if location.contains("://") {
        return location.to_string();
    }
    let after_scheme = current.find("://").map_or(0, |i| i + 3);
    let host_end = current[after_scheme..]
        .find('/')
        .map_or(current.len(), |i| after_scheme + i);
    if location.starts_with('/') {
        format!("{}{location}", &current[..host_end])
    } else {
        let base = current
            .rfind('/')
            .filter(|i| *i >= host_end)
            .map_or(current.len(), |i| i + 1);
        format!("{}{location}", &current[..base])
    }
}

/// `bytes 100-199/1000` → (100, Some(1000)); `bytes 100-199/*` → (100, None).
pub fn parse_content_range(value: &str) -> Option<(u64, Option<u64>)> {
    let rest = value.trim().strip_prefix("bytes")?.trim();
    let (span, total) = rest.split_once('/')?;
    let (start, _end) = span.split_once('-')?;
    let total = match total.trim() {
        "*" => None,
        t => Some(t.parse().ok()?),
    };
    Some((start.trim().parse().ok()?, total))
}

/// Percent-encodes what a path segment cannot hold, keeping `/` (files in subfolders).
fn encode_path(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_ranges_parse() {
        assert_eq!(
            parse_content_range("bytes 100-199/1000"),
            Some((100, Some(1000)))
        );
        assert_eq!(parse_content_range("bytes 5-9/*"), Some((5, None)));
        assert_eq!(parse_content_range("bytes */1000"), None);
        assert_eq!(parse_content_range("nonsense"), None);
    }

    #[test]
    fn redirects_resolve_like_a_browser() {
        let here = "http://127.0.0.1:8/o/r/resolve/c/model.bin";
        assert_eq!(
            join_location(here, "https://cdn/x?y=1"),
            "https://cdn/x?y=1"
        );
        assert_eq!(
            join_location(here, "/cdn-lfs/abc"),
            "http://127.0.0.1:8/cdn-lfs/abc"
        );
        assert_eq!(
            join_location(here, "other.bin"),
            "http://127.0.0.1:8/o/r/resolve/c/other.bin"
        );
        assert_eq!(unquote("W/\"abc\""), "abc");
    }

    #[test]
    fn endpoints_and_paths() {
        assert_eq!(endpoint(Some("http://127.0.0.1:9/ ")), "http://127.0.0.1:9");
        assert_eq!(encode_path("refs/pr/1"), "refs/pr/1");
        assert_eq!(encode_path("a b#"), "a%20b%23");
        let client = HubClient::new("http://h/", Timeouts::default());
        assert_eq!(
            client.file_url("o/r", "abc", "model.bin"),
            "http://h/o/r/resolve/abc/model.bin"
        );
    }
}
