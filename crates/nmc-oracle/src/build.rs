//! Building SIMH's `h316` with the project's patches, from the user's SIMH checkout.
//!
//! The checkout is only read: the files the H316 simulator needs (the top-level `scp*` and
//! `sim_*` sources and headers, `H316/`, the licence) are copied to a build folder, their line
//! ends made LF (upstream keeps CRLF in `H316/`), the patches in `patches/` applied in order
//! with `patch -p1`, `h316_nmc.c` added, and the whole compiled with one `cc` command (the one
//! SIMH's makefile would run for `h316`, without its questions about optional libraries).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

/// The project's patches to SIMH, in the order they apply (see `patches/README.md`).
pub const PATCHES: [(&str, &str); 4] = [
    (
        "0001-hi-eom-with-last-word.diff",
        include_str!("../patches/0001-hi-eom-with-last-word.diff"),
    ),
    (
        "0002-udp-peer-not-listening.diff",
        include_str!("../patches/0002-udp-peer-not-listening.diff"),
    ),
    (
        "0003-cycle-clock.diff",
        include_str!("../patches/0003-cycle-clock.diff"),
    ),
    (
        "0004-lines-on-the-cycle-clock.diff",
        include_str!("../patches/0004-lines-on-the-cycle-clock.diff"),
    ),
];

/// The project's own file compiled into `h316`: the cycle clock.
pub const NMC_C: &str = include_str!("../simh/h316_nmc.c");
/// Its header.
pub const NMC_H: &str = include_str!("../simh/h316_nmc.h");

/// SIMH's generic sources the H316 simulator links (SIMH makefile, `SIM =`).
const SIM_SOURCES: [&str; 13] = [
    "scp.c",
    "sim_console.c",
    "sim_fio.c",
    "sim_timer.c",
    "sim_sock.c",
    "sim_tmxr.c",
    "sim_ether.c",
    "sim_tape.c",
    "sim_disk.c",
    "sim_serial.c",
    "sim_video.c",
    "sim_imd.c",
    "sim_card.c",
];

/// What a build produced.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct BuildInfo {
    /// The checkout built from.
    pub simh: PathBuf,
    /// Its commit (`git rev-parse HEAD`), or `unknown`.
    pub simh_commit: String,
    /// sha256 of each patch and of `h316_nmc.c`/`.h`, in order.
    pub patches_sha256: Vec<(String, String)>,
    /// The compiler command.
    pub cc_command: Vec<String>,
    /// The binary.
    pub h316: PathBuf,
}

/// sha256 of bytes, hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let d = Sha256::digest(bytes);
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// sha256 of a file, hex.
pub fn sha256_file(p: &Path) -> Result<String> {
    Ok(sha256_hex(
        &fs::read(p).with_context(|| format!("cannot read {}", p.display()))?,
    ))
}

fn our_sources_sha256() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = PATCHES
        .iter()
        .map(|(n, t)| (n.to_string(), sha256_hex(t.as_bytes())))
        .collect();
    v.push(("h316_nmc.c".into(), sha256_hex(NMC_C.as_bytes())));
    v.push(("h316_nmc.h".into(), sha256_hex(NMC_H.as_bytes())));
    v
}

/// The commit of a SIMH checkout, or `unknown` when it is not a git work tree.
pub fn simh_commit(simh: &Path) -> String {
    Command::new("git")
        .arg("-C")
        .arg(simh)
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// Checks that `simh` looks like a SIMH checkout with the IMP program.
pub fn check_checkout(simh: &Path) -> Result<()> {
    for f in [
        "scp.c",
        "H316/h316_cpu.c",
        "H316/h316_hi.c",
        "H316/tests/impcode.cmd",
    ] {
        if !simh.join(f).is_file() {
            bail!(
                "{} is not a SIMH checkout with the IMP program: {} is missing",
                simh.display(),
                f
            );
        }
    }
    Ok(())
}

/// Clones SIMH from `url` into `dest` (a shallow clone) and returns its path.
pub fn clone(url: &str, dest: &Path) -> Result<PathBuf> {
    if dest.join("H316").is_dir() {
        return Ok(dest.to_path_buf());
    }
    let st = Command::new("git")
        .args(["clone", "--depth", "1", url])
        .arg(dest)
        .status()
        .context("cannot run git (needed for --clone)")?;
    if !st.success() {
        bail!("git clone {url} failed ({st})");
    }
    Ok(dest.to_path_buf())
}

fn copy_lf(from: &Path, to: &Path) -> Result<()> {
    let bytes = fs::read(from).with_context(|| format!("cannot read {}", from.display()))?;
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
            i += 1;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    fs::write(to, out).with_context(|| format!("cannot write {}", to.display()))
}

/// Builds `h316` from `simh` into `dir` (reusing a build of the same commit and patches).
pub fn build(simh: &Path, dir: &Path, cc: &str) -> Result<BuildInfo> {
    check_checkout(simh)?;
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let dir = &dir
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", dir.display()))?;
    let commit = simh_commit(simh);
    let info_path = dir.join("build.json");
    let h316 = dir.join("h316");
    let patches_sha256 = our_sources_sha256();
    if let Ok(text) = fs::read_to_string(&info_path)
        && let Ok(old) = serde_json::from_str::<BuildInfo>(&text)
        && old.simh_commit == commit
        && commit != "unknown"
        && old.patches_sha256 == patches_sha256
        && old.simh == simh
        && h316.is_file()
    {
        return Ok(old);
    }
    let src = dir.join("src");
    if src.exists() {
        fs::remove_dir_all(&src).with_context(|| format!("cannot clear {}", src.display()))?;
    }
    fs::create_dir_all(src.join("H316"))
        .with_context(|| format!("cannot create {}", src.display()))?;
    for entry in fs::read_dir(simh).with_context(|| format!("cannot list {}", simh.display()))? {
        let p = entry?.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let wanted = (name.starts_with("scp") || name.starts_with("sim_"))
            && (name.ends_with(".c") || name.ends_with(".h"))
            || name.starts_with("LICENSE");
        if wanted && p.is_file() {
            copy_lf(&p, &src.join(name))?;
        }
    }
    for entry in fs::read_dir(simh.join("H316"))? {
        let p = entry?.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if (name.ends_with(".c") || name.ends_with(".h")) && p.is_file() {
            copy_lf(&p, &src.join("H316").join(name))?;
        }
    }
    let pdir = dir.join("patches");
    fs::create_dir_all(&pdir)?;
    for (name, text) in PATCHES {
        let pf = pdir.join(name);
        fs::write(&pf, text)?;
        let out = Command::new("patch")
            .args(["-p1", "--forward", "--batch", "--quiet", "-d"])
            .arg(&src)
            .arg("-i")
            .arg(&pf)
            .output()
            .context("cannot run `patch` (needed to apply the project's patches)")?;
        if !out.status.success() {
            let msg = String::from_utf8_lossy(&out.stdout);
            bail!(
                "patch {name} does not apply to SIMH {commit}: {}",
                msg.lines().next().unwrap_or("(no message)")
            );
        }
    }
    fs::write(src.join("H316/h316_nmc.c"), NMC_C)?;
    fs::write(src.join("H316/h316_nmc.h"), NMC_H)?;
    let mut args: Vec<String> = [
        "-O2",
        "-std=gnu99",
        "-U__STRICT_ANSI__",
        "-D_GNU_SOURCE",
        "-I",
        ".",
        "-I",
        "H316",
        "-DVM_IMPTIP",
        "-DHAVE_DLOPEN=so",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(SIM_SOURCES.iter().map(|s| s.to_string()));
    let mut h316_sources: Vec<String> = fs::read_dir(src.join("H316"))?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".c"))
        .map(|n| format!("H316/{n}"))
        .collect();
    h316_sources.sort();
    args.extend(h316_sources);
    args.extend(
        ["-o", "../h316", "-lm", "-lrt", "-lpthread", "-ldl"]
            .iter()
            .map(|s| s.to_string()),
    );
    let out = Command::new(cc)
        .args(&args)
        .current_dir(&src)
        .output()
        .with_context(|| format!("cannot run the C compiler `{cc}`"))?;
    fs::write(
        dir.join("build.log"),
        [out.stdout.as_slice(), out.stderr.as_slice()].concat(),
    )?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let first = err
            .lines()
            .find(|l| l.contains("error"))
            .unwrap_or("(see build.log)");
        bail!(
            "compiling h316 failed: {first} (full log: {})",
            dir.join("build.log").display()
        );
    }
    let mut cc_command = vec![cc.to_string()];
    cc_command.extend(args);
    let info = BuildInfo {
        simh: simh.to_path_buf(),
        simh_commit: commit,
        patches_sha256,
        cc_command,
        h316,
    };
    fs::write(&info_path, serde_json::to_string_pretty(&info)?)?;
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_patch_says_it_applies_to_simh_under_its_licence() {
        for (name, text) in PATCHES {
            assert!(
                text.contains("SIMH") && text.contains("MIT") && text.contains("Armstrong"),
                "{name} lacks its licence note"
            );
            assert!(
                text.contains("--- a/H316/"),
                "{name} is not a -p1 diff of H316/"
            );
        }
    }

    #[test]
    fn a_folder_without_simh_is_refused_in_one_line() {
        let e = check_checkout(Path::new("/nonexistent"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a SIMH checkout"));
        assert!(!e.contains('\n'));
    }
}
