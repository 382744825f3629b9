//! Every file nmc writes is created here, so that none is written through a link (issue 57 §1).
//!
//! A run's lock file, its outputs, the man pages and a server's log often sit in a folder that
//! other users can write to (`/tmp`). Had nmc opened a path there as `File::create` does, a local
//! user could plant `.<out>.nmc-lock` or `nmc.1` as a link to a file the victim owns (or, for a
//! root run, to a system file) and make nmc truncate it. So, before any byte is written:
//!
//! * **a link is refused**: the last component of the path must not be a symbolic link
//!   (checked first for the message, then enforced by `O_NOFOLLOW` or `O_EXCL` at the open, so
//!   a link planted between the check and the open is refused too);
//! * **only a regular file nmc's user owns is written to or replaced**: a file of another user
//!   or a folder is refused; a file opened in place must have one name (no hard link to a file
//!   elsewhere), checked on the open file before it is emptied. A character device or a pipe
//!   (`/dev/null`, a FIFO) may be written as a stream, never replaced;
//! * **whole files go through a fresh temporary file** ([`write_whole`]): made with `O_EXCL`
//!   beside the target (a planted name is skipped, never opened), then renamed over it; a
//!   rename replaces a name, it never writes through one.
//!
//! Each refusal is one line naming the path and what nmc found there. Folders above the last
//! component are the user's to choose: a link there (`~/out` → `/scratch/out`) is followed.

pub use crate::WriteError;
use std::fs::{self, File, OpenOptions};
use std::io::Write as _;
use std::path::Path;

/// What nmc found at a path it will not write: the reason, as the end of a one-line message.
const LINK: &str =
    "is a symbolic link; nmc does not write through a link (remove it or choose another path)";
const NOT_REGULAR: &str =
    "is not a regular file; nmc writes only regular files (choose another path)";
// Refused only where files have owners and link counts (unix): unused elsewhere (wasm32).
#[cfg_attr(not(unix), allow(dead_code))]
const FOREIGN: &str = "belongs to another user; nmc does not write to a file it does not own (remove it or choose another path)";
#[cfg_attr(not(unix), allow(dead_code))]
const HARD_LINKED: &str = "has other names (hard links); nmc does not write to it in place (remove it or choose another path)";

fn refused(path: &Path, why: &'static str) -> WriteError {
    WriteError::Refused {
        path: path.display().to_string(),
        why,
    }
}

fn io_error(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> WriteError + use<> {
    let path = path.display().to_string();
    move |source| WriteError::Io { what, path, source }
}

/// The effective user, or `None` where files have no owner nmc can compare.
#[cfg(unix)]
fn me() -> Option<u32> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    Some(unsafe { libc::geteuid() })
}

/// May nmc write to or replace what is at `path`? Nothing there, or a regular file its user
/// owns. `in_place`: the file will be written through this name (not replaced by a rename), so
/// a regular file must also have no other name, and a character device or a pipe (`/dev/null`,
/// a FIFO a reader waits on) is taken as it is: writing to one empties nothing.
fn check_meta(path: &Path, meta: &fs::Metadata, in_place: bool) -> Result<(), WriteError> {
    if meta.file_type().is_symlink() {
        return Err(refused(path, LINK));
    }
    if in_place && is_stream(meta) {
        return Ok(());
    }
    if !meta.is_file() {
        return Err(refused(path, NOT_REGULAR));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        if me().is_some_and(|uid| meta.uid() != uid) {
            return Err(refused(path, FOREIGN));
        }
        if in_place && meta.nlink() > 1 {
            return Err(refused(path, HARD_LINKED));
        }
    }
    Ok(())
}

/// A character device or a named pipe: written as a stream, never emptied or replaced.
fn is_stream(meta: &fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        let t = meta.file_type();
        t.is_char_device() || t.is_fifo()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

/// Refuses `path` when something is there that nmc must not write: see the module's rules.
/// Nothing there is fine.
pub fn check_target(path: &Path) -> Result<(), WriteError> {
    check_path(path, false)
}

fn check_path(path: &Path, in_place: bool) -> Result<(), WriteError> {
    match fs::symlink_metadata(path) {
        Ok(meta) => check_meta(path, &meta, in_place),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_error("reading", path)(e)),
    }
}

/// Opens `path` for writing in place, creating it if missing, never through a link, and never
/// a file nmc's user does not own or one with other names; the file is not emptied.
fn open_in_place(path: &Path, append: bool) -> Result<File, WriteError> {
    check_path(path, true)?;
    let mut options = OpenOptions::new();
    options.create(true);
    if append {
        options.append(true);
    } else {
        options.write(true);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    let file = options.open(path).map_err(|e| {
        // A link planted after the check: O_NOFOLLOW answers ELOOP.
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return refused(path, LINK);
        }
        io_error("opening", path)(e)
    })?;
    let meta = file.metadata().map_err(io_error("reading", path))?;
    check_meta(path, &meta, true)?;
    Ok(file)
}

/// Creates `path` (or empties it, if it is a regular file nmc's user owns) to be written in
/// place, row by row or as a stream: refused, before anything is emptied, when the name is a
/// link, another user's file, not a regular file, or one with other names. Its folder must
/// exist.
pub fn create(path: &Path) -> Result<File, WriteError> {
    let file = open_in_place(path, false)?;
    if file.metadata().is_ok_and(|m| m.is_file()) {
        file.set_len(0).map_err(io_error("emptying", path))?;
    }
    Ok(file)
}

/// Opens `path` to add lines at its end (a log), creating it if missing, under
/// [`create`]'s rules.
pub fn append(path: &Path) -> Result<File, WriteError> {
    open_in_place(path, true)
}

/// Opens `path` to hold a lock on it, creating it if missing and not emptying it, under
/// [`create`]'s rules: the lock file beside an output folder (`nmc_report::outdir::OutLock`).
pub fn open_lock(path: &Path) -> Result<File, WriteError> {
    open_in_place(path, false)
}

/// Writes one file whole: into a fresh temporary file beside it (`.<name>.<pid>.<n>.tmp`, made
/// with `O_EXCL`, so a planted name is never opened), synced, then renamed over it, so a full
/// disk or a killed process leaves the previous file (or none), never a cut one. Refused, with
/// nothing written, when `path` is a link, another user's file or not a regular file. Its
/// folder is made if missing. Output folders' files, CSV records written at once and sweeps'
/// result files go through it (`nmc_report::outdir::write_whole`, `nmc_sweep::store`).
pub fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let (parent, name) = crate::parent_and_name(path)
        .ok_or_else(|| WriteError::Unnamed(path.display().to_string()))?;
    fs::create_dir_all(&parent).map_err(io_error("creating", &parent))?;
    check_target(path)?;
    let (tmp, mut file) = temporary(&parent, &name).map_err(io_error("writing", path))?;
    let written = (|| {
        file.write_all(bytes)?;
        file.sync_all()?;
        // Closed before the rename. (On wasm32, where the browser build has no files, `File`
        // has no Drop and clippy would call this drop pointless.)
        #[cfg_attr(target_arch = "wasm32", allow(clippy::drop_non_drop))]
        drop(file);
        // Checked again just before the rename: the name may have changed since.
        check_target(path).map_err(std::io::Error::other)?;
        fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written.map_err(|e| match e.downcast::<WriteError>() {
        Ok(refusal) => refusal,
        Err(e) => io_error("writing", path)(e),
    })
}

/// [`write_whole`] in `std::fs::write`'s shape, for writers whose errors are `std::io::Error`
/// and name the path themselves ([`WriteError::into_io`]).
pub fn write(path: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> std::io::Result<()> {
    write_whole(path.as_ref(), bytes.as_ref()).map_err(WriteError::into_io)
}

/// A new temporary file beside `name` in `dir`, made with `O_EXCL` (`create_new`): a name
/// already taken — by a planted link, or a file another run left — is passed over.
fn temporary(dir: &Path, name: &str) -> std::io::Result<(std::path::PathBuf, File)> {
    let pid = std::process::id();
    let mut last = None;
    for n in 0..64 {
        let tmp = dir.join(format!(".{name}.{pid}.{n}.tmp"));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A file of someone else's that a planted link points at.
    fn victim(dir: &Path) -> std::path::PathBuf {
        let v = dir.join("victim");
        fs::write(&v, "precious").unwrap();
        v
    }

    #[test]
    fn create_refuses_a_link_and_leaves_its_target() {
        let d = tempfile::tempdir().unwrap();
        let v = victim(d.path());
        let planted = d.path().join("out.csv");
        symlink(&v, &planted).unwrap();
        let e = create(&planted).unwrap_err().to_string();
        assert!(e.contains("is a symbolic link"), "{e}");
        assert_eq!(fs::read_to_string(&v).unwrap(), "precious");
    }

    #[test]
    fn a_dangling_link_is_refused_too() {
        let d = tempfile::tempdir().unwrap();
        let planted = d.path().join("nmc.1");
        symlink(d.path().join("would-be-created"), &planted).unwrap();
        assert!(create(&planted).is_err());
        assert!(write_whole(&planted, b"x").is_err());
        assert!(!d.path().join("would-be-created").exists());
    }

    #[test]
    fn write_whole_refuses_a_link_and_leaves_its_target() {
        let d = tempfile::tempdir().unwrap();
        let v = victim(d.path());
        let planted = d.path().join("summary.json");
        symlink(&v, &planted).unwrap();
        let e = write_whole(&planted, b"{}").unwrap_err().to_string();
        assert!(e.contains("is a symbolic link"), "{e}");
        assert_eq!(fs::read_to_string(&v).unwrap(), "precious");
        assert!(
            fs::symlink_metadata(&planted)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[test]
    fn a_planted_temporary_name_is_passed_over() {
        let d = tempfile::tempdir().unwrap();
        let v = victim(d.path());
        let tmp = d
            .path()
            .join(format!(".x.csv.{}.0.tmp", std::process::id()));
        symlink(&v, &tmp).unwrap();
        write_whole(&d.path().join("x.csv"), b"a\n").unwrap();
        assert_eq!(fs::read_to_string(d.path().join("x.csv")).unwrap(), "a\n");
        assert_eq!(fs::read_to_string(&v).unwrap(), "precious");
    }

    #[test]
    fn a_hard_link_is_not_emptied() {
        let d = tempfile::tempdir().unwrap();
        let v = victim(d.path());
        let planted = d.path().join(".out.nmc-lock");
        fs::hard_link(&v, &planted).unwrap();
        let e = create(&planted).unwrap_err().to_string();
        assert!(e.contains("hard links"), "{e}");
        assert!(open_lock(&planted).is_err());
        assert_eq!(fs::read_to_string(&v).unwrap(), "precious");
    }

    #[test]
    fn a_folder_or_device_is_not_a_file_to_replace() {
        let d = tempfile::tempdir().unwrap();
        let e = write_whole(d.path(), b"x").unwrap_err().to_string();
        assert!(e.contains("not a regular file"), "{e}");
        assert!(create(d.path()).is_err());
        // A device is written as a stream, never replaced by a rename.
        let e = write_whole(Path::new("/dev/null"), b"x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a regular file"), "{e}");
        create(Path::new("/dev/null"))
            .unwrap()
            .write_all(b"x")
            .unwrap();
    }

    /// Run as root (as CI runs), a file handed to another user is refused; as anyone else
    /// the chown is not allowed and there is nothing to check.
    #[test]
    fn another_users_file_is_refused() {
        if me() != Some(0) {
            return;
        }
        let d = tempfile::tempdir().unwrap();
        let theirs = d.path().join("theirs.csv");
        fs::write(&theirs, "theirs").unwrap();
        std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
        for e in [
            create(&theirs).unwrap_err(),
            append(&theirs).unwrap_err(),
            write_whole(&theirs, b"mine").unwrap_err(),
        ] {
            assert!(e.to_string().contains("belongs to another user"), "{e}");
        }
        assert_eq!(fs::read_to_string(&theirs).unwrap(), "theirs");
    }

    #[test]
    fn own_files_are_written_replaced_and_appended() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("log");
        append(&p).unwrap().write_all(b"a\n").unwrap();
        append(&p).unwrap().write_all(b"b\n").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "a\nb\n");
        create(&p).unwrap().write_all(b"c\n").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "c\n");
        write_whole(&p, b"d\n").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "d\n");
        let left: Vec<_> = fs::read_dir(d.path()).unwrap().flatten().collect();
        assert_eq!(left.len(), 1, "no temporary file is left behind");
    }
}
