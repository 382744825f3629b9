//! Output folders that never mix runs (issue 33, class 4).
//!
//! A run writes into a fresh folder beside the one asked for, `<name>.incomplete`, and renames
//! it into place only when every file is written: `--out` holds either the previous complete
//! output or the new one, never a new `summary.json` beside an old run's `packets.csv`. A run
//! that fails or is killed leaves `<name>.incomplete` (its name says what it is) and the
//! previous output untouched; the next run into the same `--out` clears it.
//!
//! A second writer is refused: [`OutLock`] holds an advisory lock (`flock`) on
//! `.<name>.nmc-lock` beside the folder for as long as a run writes there. The kernel drops
//! the lock when the process ends, however it ends, so a killed run never leaves a stale lock.
//!
//! nmc replaces its output folder whole, so it refuses to replace a folder it did not write:
//! an existing `--out` must be empty, carry the [`MARKER`] file nmc writes into every output
//! folder, or be the output of an nmc from before the marker (it holds `summary.json` or
//! `reproduce.json`). `nmc run --out ~` is an error, not a deleted home. A sweep's folder
//! (it holds `sweep.json`) is never replaced either: a sweep adds runs to it and resumes from
//! it, so it can hold hours of runs that no other command would give back.

use std::fs::{self, File};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The file nmc writes into every output folder it makes: a folder holding it may be replaced
/// by the next run. Its text depends on nothing but the version, so reruns stay byte-identical.
pub const MARKER: &str = ".nmc-output";

/// Files that mark an output folder written by an nmc from before [`MARKER`].
const LEGACY_MARKS: &[&str] = &["summary.json", "reproduce.json"];

/// The file that marks a sweep's folder (its plan): a store of runs, not replaced whole.
pub const SWEEP_PLAN: &str = "sweep.json";

/// The folder of a sweep's finished runs, inside the sweep's folder.
pub const SWEEP_RUNS: &str = "runs";

/// Why an output folder cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum OutDirError {
    /// Another process holds the lock: the folder, then the lock file.
    #[error(
        "{0}: another nmc run is writing there (it holds {1}); wait for it to end or choose another --out"
    )]
    Locked(String, String),
    /// The folder exists, is not empty and carries neither [`MARKER`] nor an older nmc's
    /// output: the folder.
    #[error(
        "{0}: exists and holds files nmc did not write; nmc replaces its output folder whole, so choose a new or empty folder"
    )]
    Foreign(String),
    /// The folder is a sweep's (it holds [`SWEEP_PLAN`]): the folder.
    #[error(
        "{0}: holds a sweep's runs and tables (sweep.json), which this command would replace whole; choose another --out"
    )]
    Sweep(String),
    /// A sweep was asked to write into a folder that exists, is not empty and is not a
    /// sweep's (no [`SWEEP_PLAN`]): the folder.
    #[error(
        "{0}: exists and holds files that are not a sweep's (no sweep.json); a sweep adds its runs and tables to its folder, so choose a new or empty one"
    )]
    NotASweep(String),
    /// The path exists and is not a folder: the path.
    #[error("{0}: exists and is not a folder")]
    NotAFolder(String),
    /// The path has no last component to name the folder by (`.`, `..`, `/`): the path.
    #[error("{0}: an output folder needs a name (not `.`, `..` or `/`)")]
    Unnamed(String),
    /// What is at a path nmc would write is a link, another user's file or not a regular
    /// file ([`nmc_records::files`]): the path, and what was found.
    #[error("{0}: {1}")]
    Refused(String, &'static str),
    /// A file-system call failed.
    #[error("{what} {path}: {source}")]
    Io {
        /// What nmc was doing (`creating`, `locking`, `renaming`, ...).
        what: &'static str,
        /// The path it was doing it to.
        path: String,
        /// The error the operating system returned.
        source: std::io::Error,
    },
}

fn io(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> OutDirError + use<> {
    let path = path.display().to_string();
    move |source| OutDirError::Io { what, path, source }
}

/// `dir`'s parent (`.` for a bare name) and its last component.
fn split(dir: &Path) -> Result<(PathBuf, String), OutDirError> {
    nmc_records::parent_and_name(dir).ok_or_else(|| OutDirError::Unnamed(dir.display().to_string()))
}

/// The advisory lock that keeps a second writer out of an output folder while a run writes.
#[derive(Debug)]
pub struct OutLock {
    path: PathBuf,
    _file: File,
}

impl OutLock {
    /// Takes the lock of `dir` (`.<name>.nmc-lock` beside it), making `dir`'s parent if need
    /// be; refused at once, not waited for, when another process holds it.
    pub fn acquire(dir: &Path) -> Result<OutLock, OutDirError> {
        let (parent, name) = split(dir)?;
        fs::create_dir_all(&parent).map_err(io("creating", &parent))?;
        let path = parent.join(format!(".{name}.nmc-lock"));
        loop {
            // Never through a link or over another user's file (issue 57 §1): a link planted
            // as the lock's name in a shared parent would otherwise be emptied below.
            let file = nmc_records::files::open_lock(&path).map_err(from_write)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(fs::TryLockError::WouldBlock) => {
                    return Err(OutDirError::Locked(
                        dir.display().to_string(),
                        path.display().to_string(),
                    ));
                }
                Err(fs::TryLockError::Error(e)) => return Err(io("locking", &path)(e)),
            }
            // The holder before us removes the file as it lets go: if the name no longer
            // leads to the file we locked, a third process may hold a new one. Try again.
            if same_file(&file, &path) {
                let mut file = file;
                let _ = file.set_len(0);
                let _ = writeln!(file, "{}", std::process::id());
                return Ok(OutLock { path, _file: file });
            }
        }
    }
}

#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &File, path: &Path) -> bool {
    path.exists()
}

impl Drop for OutLock {
    fn drop(&mut self) {
        // Removed while still held (the file closes after this), so a waiting process that
        // opened the old file sees it gone and tries again.
        let _ = fs::remove_file(&self.path);
    }
}

/// What is at `dir`: nothing (`None`), or a folder, empty or not (`Some(empty)`); a file there
/// is an error. `follow`: a link to a folder counts as the folder (else as a file).
fn folder_at(dir: &Path, follow: bool) -> Result<Option<bool>, OutDirError> {
    let meta = if follow {
        fs::metadata(dir)
    } else {
        fs::symlink_metadata(dir)
    };
    let meta = match meta {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io("reading", dir)(e)),
    };
    if !meta.is_dir() {
        return Err(OutDirError::NotAFolder(dir.display().to_string()));
    }
    let mut entries = fs::read_dir(dir).map_err(io("reading", dir))?;
    Ok(Some(entries.next().is_none()))
}

/// May nmc replace (or clear) `dir`? It must not exist, be empty, or be nmc's own output.
fn check_replaceable(dir: &Path) -> Result<(), OutDirError> {
    if folder_at(dir, false)?.is_none_or(|empty| empty) {
        return Ok(());
    }
    if dir.join(SWEEP_PLAN).is_file() {
        return Err(OutDirError::Sweep(dir.display().to_string()));
    }
    // A marker is a regular file, not a link to one (issue 57 §1): a planted link does not
    // make a folder nmc's.
    if std::iter::once(MARKER)
        .chain(LEGACY_MARKS.iter().copied())
        .any(|m| fs::symlink_metadata(dir.join(m)).is_ok_and(|meta| meta.is_file()))
    {
        return Ok(());
    }
    Err(OutDirError::Foreign(dir.display().to_string()))
}

/// May a sweep write into `dir`? It must not exist, be empty, or be a sweep's folder: hold
/// [`SWEEP_PLAN`], or only `runs/` (a sweep stopped before it wrote its plan: with
/// `--keep-runs` and named metrics, its first run is kept before the plan is written). A sweep
/// resumes from the runs it finds there and writes beside them, so it must not mix them into
/// a folder of other files, nmc's or not. A link to a folder is followed: a sweep adds to a
/// folder, it never replaces it.
pub fn check_sweep_folder(dir: &Path) -> Result<(), OutDirError> {
    if folder_at(dir, true)?.is_none_or(|empty| empty) || dir.join(SWEEP_PLAN).is_file() {
        return Ok(());
    }
    let only_runs = fs::read_dir(dir)
        .map_err(io("reading", dir))?
        .map(|e| e.map(|e| e.file_name()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(io("reading", dir))?
        == [SWEEP_RUNS];
    if only_runs && dir.join(SWEEP_RUNS).is_dir() {
        Ok(())
    } else {
        Err(OutDirError::NotASweep(dir.display().to_string()))
    }
}

/// Writes [`MARKER`] into `dir`.
pub fn mark(dir: &Path) -> Result<(), OutDirError> {
    write_whole(
        &dir.join(MARKER),
        format!(
            "Written by nmc {}: an output folder, replaced whole by the next run into it.\n",
            env!("CARGO_PKG_VERSION")
        )
        .as_bytes(),
    )
}

/// An output folder being written: files go into [`OutDir::path`] (`<name>.incomplete`),
/// and [`OutDir::commit`] puts them in place as `<name>`.
#[derive(Debug)]
pub struct OutDir {
    target: PathBuf,
    staging: PathBuf,
    committed: bool,
    _lock: OutLock,
}

impl OutDir {
    /// Locks `target`, checks nmc may replace it, and makes a fresh, marked staging folder
    /// beside it (clearing one an interrupted run left).
    pub fn begin(target: &Path) -> Result<OutDir, OutDirError> {
        let lock = OutLock::acquire(target)?;
        check_replaceable(target)?;
        let (parent, name) = split(target)?;
        let staging = parent.join(format!("{name}.incomplete"));
        if fs::symlink_metadata(&staging).is_ok() {
            check_replaceable(&staging)?;
            remove(&staging)?;
        }
        // create_dir, not create_dir_all: a folder (or link) put there since it was cleared
        // is refused, never written into.
        fs::create_dir(&staging).map_err(io("creating", &staging))?;
        mark(&staging)?;
        Ok(OutDir {
            target: target.to_path_buf(),
            staging,
            committed: false,
            _lock: lock,
        })
    }

    /// Where the run writes until it commits.
    pub fn path(&self) -> &Path {
        &self.staging
    }

    /// The folder the output will have once committed (the `--out` asked for).
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Where `file`, written under [`OutDir::path`], will be once committed.
    pub fn final_path(&self, file: &Path) -> PathBuf {
        match file.strip_prefix(&self.staging) {
            Ok(rest) => self.target.join(rest),
            Err(_) => file.to_path_buf(),
        }
    }

    /// Puts the complete output in place of the folder asked for (the previous output, if
    /// any, is removed) and lets go of the lock. Returns the folder.
    pub fn commit(mut self) -> Result<PathBuf, OutDirError> {
        if fs::symlink_metadata(&self.target).is_ok() {
            // Checked again: the folder may have changed since the run began.
            check_replaceable(&self.target)?;
            let (parent, name) = split(&self.target)?;
            let old = parent.join(format!(".{name}.replaced"));
            if fs::symlink_metadata(&old).is_ok() {
                remove(&old)?;
            }
            fs::rename(&self.target, &old).map_err(io("moving aside", &self.target))?;
            fs::rename(&self.staging, &self.target).map_err(io("renaming", &self.staging))?;
            remove(&old)?;
        } else {
            fs::rename(&self.staging, &self.target).map_err(io("renaming", &self.staging))?;
        }
        self.committed = true;
        Ok(self.target.clone())
    }
}

impl Drop for OutDir {
    /// A run that ends before committing leaves `<name>.incomplete` for a look at what it
    /// wrote, unless it wrote nothing (a probe whose peer never answered): then nothing.
    fn drop(&mut self) {
        if self.committed {
            return;
        }
        let only_marker = fs::read_dir(&self.staging).is_ok_and(|entries| {
            entries
                .flatten()
                .all(|e| e.file_name().to_str() == Some(MARKER))
        });
        if only_marker {
            let _ = fs::remove_dir_all(&self.staging);
        }
    }
}

/// Writes one file whole: into a temporary file beside it (`.<name>.<pid>.tmp`), synced, then
/// renamed over it, so a full disk or a killed process leaves the previous file (or none), never
/// a cut one ([`nmc_records::write_whole`], with this module's error). Sweeps' result files go
/// through it too (`nmc_sweep::store::write_atomic`).
pub fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), OutDirError> {
    nmc_records::write_whole(path, bytes).map_err(from_write)
}

fn from_write(e: nmc_records::WriteError) -> OutDirError {
    match e {
        nmc_records::WriteError::Unnamed(p) => OutDirError::Unnamed(p),
        nmc_records::WriteError::Io { what, path, source } => {
            OutDirError::Io { what, path, source }
        }
        nmc_records::WriteError::Refused { path, why } => OutDirError::Refused(path, why),
    }
}

fn remove(dir: &Path) -> Result<(), OutDirError> {
    fs::remove_dir_all(dir).map_err(io("removing", dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_second_run_replaces_the_first_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("run");
        let d = OutDir::begin(&out).unwrap();
        fs::write(d.path().join("packets.csv"), "old").unwrap();
        fs::write(d.path().join("summary.json"), "{}").unwrap();
        assert_eq!(d.final_path(&d.path().join("x.csv")), out.join("x.csv"));
        d.commit().unwrap();
        let d = OutDir::begin(&out).unwrap();
        fs::write(d.path().join("summary.json"), "{\"new\":1}").unwrap();
        // Until the commit, the previous output is whole.
        assert_eq!(files(&out), [MARKER, "packets.csv", "summary.json"]);
        d.commit().unwrap();
        assert_eq!(files(&out), [MARKER, "summary.json"]);
        // Nothing is left beside it: no staging, no lock, no old copy.
        assert_eq!(files(tmp.path()), ["run"]);
    }

    #[test]
    fn an_abandoned_run_leaves_the_previous_output_and_a_marked_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("run");
        let d = OutDir::begin(&out).unwrap();
        fs::write(d.path().join("summary.json"), "first").unwrap();
        d.commit().unwrap();
        let d = OutDir::begin(&out).unwrap();
        fs::write(d.path().join("summary.json"), "cut mid-").unwrap();
        drop(d);
        assert_eq!(
            fs::read_to_string(out.join("summary.json")).unwrap(),
            "first"
        );
        assert_eq!(files(tmp.path()), ["run", "run.incomplete"]);
        // The next run clears it; one that wrote nothing leaves nothing.
        drop(OutDir::begin(&out).unwrap());
        assert_eq!(files(tmp.path()), ["run"]);
        assert_eq!(
            fs::read_to_string(out.join("summary.json")).unwrap(),
            "first"
        );
    }

    #[test]
    fn a_second_writer_is_refused_while_the_first_writes() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("run");
        let first = OutDir::begin(&out).unwrap();
        let e = OutDir::begin(&out).unwrap_err();
        assert!(matches!(e, OutDirError::Locked(..)), "{e}");
        assert!(OutLock::acquire(&out).is_err());
        first.commit().unwrap();
        OutDir::begin(&out).unwrap();
    }

    #[test]
    fn a_file_is_written_whole_or_not_at_all() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("sub/costs.csv");
        write_whole(&f, b"a,b\n1,2\n").unwrap();
        write_whole(&f, b"a,b\n3,4\n").unwrap();
        assert_eq!(fs::read_to_string(&f).unwrap(), "a,b\n3,4\n");
        assert_eq!(files(&tmp.path().join("sub")), ["costs.csv"]);
        // A file that cannot be written (its name is a folder) leaves no temporary behind.
        fs::create_dir_all(tmp.path().join("d/x.csv")).unwrap();
        assert!(write_whole(&tmp.path().join("d/x.csv"), b"").is_err());
        assert_eq!(files(&tmp.path().join("d")), ["x.csv"]);
    }

    #[test]
    fn a_folder_nmc_did_not_write_is_never_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        fs::create_dir_all(&home).unwrap();
        fs::write(home.join("thesis.tex"), "years of work").unwrap();
        let e = OutDir::begin(&home).unwrap_err();
        assert!(matches!(e, OutDirError::Foreign(_)), "{e}");
        assert!(home.join("thesis.tex").exists());
        let file = tmp.path().join("file");
        fs::write(&file, "x").unwrap();
        assert!(matches!(
            OutDir::begin(&file).unwrap_err(),
            OutDirError::NotAFolder(_)
        ));
        assert!(matches!(
            OutDir::begin(Path::new("/")).unwrap_err(),
            OutDirError::Unnamed(_)
        ));
        // An empty folder, or an older nmc's output, may be used.
        let empty = tmp.path().join("empty");
        fs::create_dir_all(&empty).unwrap();
        OutDir::begin(&empty).unwrap().commit().unwrap();
        let legacy = tmp.path().join("legacy");
        fs::create_dir_all(&legacy).unwrap();
        fs::write(legacy.join("summary.json"), "{}").unwrap();
        OutDir::begin(&legacy).unwrap().commit().unwrap();
        assert_eq!(files(&legacy), [MARKER]);
        // A sweep's folder is a store of runs, not an output to replace: even marked.
        let sweep = tmp.path().join("sweep");
        fs::create_dir_all(sweep.join("runs")).unwrap();
        fs::write(sweep.join(SWEEP_PLAN), "{}").unwrap();
        fs::write(sweep.join(MARKER), "").unwrap();
        let e = OutDir::begin(&sweep).unwrap_err();
        assert!(matches!(e, OutDirError::Sweep(_)), "{e}");
        assert_eq!(files(&sweep), [MARKER, "runs", SWEEP_PLAN]);
        // A sweep, for its part, writes only into a new or empty folder or its own.
        check_sweep_folder(&sweep).unwrap();
        check_sweep_folder(&tmp.path().join("new")).unwrap();
        let bare = tmp.path().join("bare");
        fs::create_dir_all(&bare).unwrap();
        check_sweep_folder(&bare).unwrap();
        // `empty` and `legacy` now hold a run's output (the marker), `home` a user's files.
        for other in [&home, &empty, &legacy] {
            let e = check_sweep_folder(other).unwrap_err();
            assert!(matches!(e, OutDirError::NotASweep(_)), "{e}");
        }
        assert!(matches!(
            check_sweep_folder(&file).unwrap_err(),
            OutDirError::NotAFolder(_)
        ));
        // A sweep stopped before its plan (only `runs/`), and a link to a sweep's folder.
        let stopped = tmp.path().join("stopped");
        fs::create_dir_all(stopped.join("runs")).unwrap();
        check_sweep_folder(&stopped).unwrap();
        #[cfg(unix)]
        {
            let link = tmp.path().join("link");
            std::os::unix::fs::symlink(&sweep, &link).unwrap();
            check_sweep_folder(&link).unwrap();
        }
    }
}
