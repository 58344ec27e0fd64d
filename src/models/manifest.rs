//! What was installed: `.whisper-dictation-manifest.json` in a model folder lists every file
//! with its size and SHA-256, and the repository and commit it came from. Written when a
//! download is installed; `models verify` checks the folder against it.

use serde::{Deserialize, Serialize};
use sha1::Digest as _;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

pub const MANIFEST_FILE: &str = ".whisper-dictation-manifest.json";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Catalogue name it was installed as.
    pub name: String,
    pub repo: String,
    /// The revision asked for (`main`).
    pub revision: String,
    /// The commit the files came from.
    pub commit: String,
    /// The hub it came from.
    pub endpoint: String,
    /// Seconds since the Unix epoch.
    pub installed_at: u64,
    pub files: Vec<ManifestFile>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestFile {
    pub name: String,
    pub size: u64,
    pub sha256: String,
}

/// A file that does not match the manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    Missing {
        file: String,
    },
    Size {
        file: String,
        expected: u64,
        actual: u64,
    },
    Sha256 {
        file: String,
        expected: String,
        actual: String,
    },
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mismatch::Missing { file } => write!(f, "{file}: missing"),
            Mismatch::Size {
                file,
                expected,
                actual,
            } => {
                write!(f, "{file}: {actual} bytes, expected {expected}")
            }
            Mismatch::Sha256 {
                file,
                expected,
                actual,
            } => {
                write!(f, "{file}: SHA-256 {actual}, expected {expected}")
            }
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("{}: cannot read: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{}: not a manifest: {detail}", .path.display())]
    Invalid { path: PathBuf, detail: String },
}

impl Manifest {
    /// The manifest of `dir`, `Ok(None)` when it has none (a model the set-up installed, or a
    /// folder of the user's own).
    pub fn read(dir: &Path) -> Result<Option<Manifest>, ManifestError> {
        let path = dir.join(MANIFEST_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(ManifestError::Io { path, source }),
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| ManifestError::Invalid {
                path,
                detail: e.to_string(),
            })
    }

    /// Writes it into `dir` atomically.
    pub fn write(&self, dir: &Path) -> io::Result<()> {
        let json = serde_json::to_vec_pretty(self).map_err(io::Error::other)?;
        crate::atomic_file::write(&dir.join(MANIFEST_FILE), &json)
    }

    pub fn total_bytes(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }

    /// Every file of `dir` checked against the manifest (size first, then the SHA-256 of the
    /// content); an empty list means the folder is as installed. `on_bytes` is told how many
    /// bytes were hashed, for progress.
    pub fn check(
        &self,
        dir: &Path,
        on_bytes: &mut dyn FnMut(u64),
    ) -> Result<Vec<Mismatch>, ManifestError> {
        let mut mismatches = Vec::new();
        for file in &self.files {
            let path = dir.join(&file.name);
            let actual_size = match std::fs::metadata(&path) {
                Ok(meta) => meta.len(),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    mismatches.push(Mismatch::Missing {
                        file: file.name.clone(),
                    });
                    continue;
                }
                Err(source) => return Err(ManifestError::Io { path, source }),
            };
            if actual_size != file.size {
                mismatches.push(Mismatch::Size {
                    file: file.name.clone(),
                    expected: file.size,
                    actual: actual_size,
                });
                continue;
            }
            let hashes = hash_file(&path, on_bytes).map_err(|source| ManifestError::Io {
                path: path.clone(),
                source,
            })?;
            if !hashes.sha256.eq_ignore_ascii_case(&file.sha256) {
                mismatches.push(Mismatch::Sha256 {
                    file: file.name.clone(),
                    expected: file.sha256.clone(),
                    actual: hashes.sha256,
                });
            }
        }
        Ok(mismatches)
    }
}

/// The two digests the hub publishes for a file, computed in one pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHashes {
    /// SHA-256 of the content (what LFS files are named by).
    pub sha256: String,
    /// Git's blob id: SHA-1 of `blob <len>\0` and the content.
    pub git_blob: String,
    pub size: u64,
}

/// Hashes `path` in 1 MiB pieces, telling `on_bytes` after each.
pub fn hash_file(path: &Path, on_bytes: &mut dyn FnMut(u64)) -> io::Result<FileHashes> {
    let mut file = File::open(path)?;
    let size = file.metadata()?.len();
    let mut sha256 = sha2::Sha256::new();
    let mut sha1 = sha1::Sha1::new();
    sha1.update(format!("blob {size}\0").as_bytes());
    let mut buf = vec![0u8; 1 << 20];
    let mut read_total = 0u64;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        sha256.update(&buf[..n]);
        sha1.update(&buf[..n]);
        read_total += n as u64;
        on_bytes(n as u64);
    }
    if read_total != size {
        return Err(io::Error::other(format!(
            "changed while being read ({read_total} bytes read, {size} expected)"
        )));
    }
    Ok(FileHashes {
        sha256: hex(&sha256.finalize()),
        git_blob: hex(&sha1.finalize()),
        size,
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_match_sha256sum_and_git_hash_object() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"hello\n").unwrap();
        let mut seen = 0;
        let hashes = hash_file(&path, &mut |n| seen += n).unwrap();
        // `printf 'hello\n' | sha256sum` and `| git hash-object --stdin`.
        assert_eq!(
            hashes.sha256,
            "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
        );
        assert_eq!(hashes.git_blob, "ce013625030ba8dba906f756967f9e9ca394464a");
        assert_eq!((hashes.size, seen), (6, 6));
    }

    #[test]
    fn a_manifest_round_trips_and_finds_every_kind_of_damage() {
        let dir = tempfile::tempdir().unwrap();
        let write =
            |name: &str, bytes: &[u8]| std::fs::write(dir.path().join(name), bytes).unwrap();
        write("a", b"hello\n");
        write("b", b"12345");
        write("c", b"xyz");
        let entry = |name: &str| {
            let h = hash_file(&dir.path().join(name), &mut |_| {}).unwrap();
            ManifestFile {
                name: name.into(),
                size: h.size,
                sha256: h.sha256,
            }
        };
        let manifest = Manifest {
            name: "tiny".into(),
            repo: "o/r".into(),
            revision: "main".into(),
            commit: "abc".into(),
            endpoint: "http://h".into(),
            installed_at: 1,
            files: vec![entry("a"), entry("b"), entry("c")],
        };
        assert_eq!(Manifest::read(dir.path()).unwrap(), None);
        manifest.write(dir.path()).unwrap();
        assert_eq!(Manifest::read(dir.path()).unwrap(), Some(manifest.clone()));
        assert_eq!(manifest.total_bytes(), 14);
        assert!(manifest.check(dir.path(), &mut |_| {}).unwrap().is_empty());

        write("a", b"hellO\n");
        write("b", b"1234");
        std::fs::remove_file(dir.path().join("c")).unwrap();
        let found = manifest.check(dir.path(), &mut |_| {}).unwrap();
        assert!(
            matches!(&found[0], Mismatch::Sha256 { file, .. } if file == "a"),
            "{found:?}"
        );
        assert_eq!(
            found[1],
            Mismatch::Size {
                file: "b".into(),
                expected: 5,
                actual: 4
            }
        );
        assert_eq!(found[2], Mismatch::Missing { file: "c".into() });
        assert!(found[1].to_string().contains("4 bytes, expected 5"));

        write(MANIFEST_FILE, b"{ nope");
        assert!(matches!(
            Manifest::read(dir.path()),
            Err(ManifestError::Invalid { .. })
        ));
    }
}
