//! Issue 34: completions and man pages from the CLI definition, and the short flags iperf3
//! users reach for.

use crate::{nmc, stderr, text, tmp};

/// Issue 57 §5: a full stdout is one line and exit 2, not clap_complete's panic (exit 101).
#[cfg(target_os = "linux")]
#[test]
fn completions_into_a_full_disk_say_so() {
    let full = std::fs::File::options()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let o = crate::command()
        .args(["completions", "bash"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("writing the completion script to stdout"),
        "{}",
        stderr(&o)
    );
    assert_eq!(stderr(&o).trim().lines().count(), 1);
}

/// Issue 57 §5, as a class: every command that writes stdout, and clap's help and version,
/// report a full stdout in one line and exit 2 (each was exit 0 with its output lost); what
/// the command writes to files is still written.
#[cfg(target_os = "linux")]
#[test]
fn a_full_stdout_is_an_error_for_every_command() {
    let dir = tmp("full-stdout");
    let out = dir.join("run");
    let out_arg = out.to_str().unwrap();
    for args in [
        &["--help"][..],
        &["--version"],
        &["help", "run"],
        &["run", "--help"],
        &["scenarios"],
        &["scenarios", "show", "golden-chain"],
        &["reproduce", "--list"],
        &["run", "md1", "--set", "duration=1s", "--out", out_arg],
    ] {
        let full = std::fs::File::options()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = crate::command().args(args).stdout(full).output().unwrap();
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert_eq!(e.trim().lines().count(), 1, "{args:?}: {e}");
        assert!(e.contains("to stdout: No space left"), "{args:?}: {e}");
    }
    assert!(
        out.join("summary.json").is_file(),
        "the run's files are kept"
    );
    // A reader that has closed the pipe is still no error (`| head -1`): exit 0, quietly.
    for args in [&["--help"][..], &["scenarios"]] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let o = crate::command().args(args).stdout(writer).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{args:?}");
    }
}

/// Issue 74 §3: a run that fails with `-J` into a full stdout kept its exit status (3: nothing
/// listens there) without a word that its document was lost; now its one line says both.
#[cfg(target_os = "linux")]
#[test]
fn a_failed_runs_lost_document_is_said() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
        .to_string();
    let target = format!("127.0.0.1:{port}");
    let full = std::fs::File::options()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let o = crate::command()
        .args(["pump", &target, "-J"])
        .stdout(full)
        .output()
        .unwrap();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{e}");
    let last = e.trim().lines().last().unwrap_or_default();
    assert!(
        last.contains("refused the pump") && last.contains("-J document was lost"),
        "{e}"
    );
}

#[test]
fn completions_for_every_shell() {
    for (shell, mark) in [
        ("bash", "_nmc()"),
        ("zsh", "#compdef nmc"),
        ("fish", "complete -c nmc"),
        ("elvish", "nmc"),
        ("powershell", "nmc"),
    ] {
        let o = nmc(&["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let s = String::from_utf8_lossy(&o.stdout);
        assert!(s.contains(mark), "{shell}: no {mark}");
        assert!(s.contains("pump") && s.contains("reproduce"), "{shell}");
    }
    let o = nmc(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("possible values: bash"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn man_pages_for_nmc_and_each_subcommand() {
    let dir = tmp("man");
    let out = dir.join("man1");
    let o = nmc(&["man", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    for page in [
        "nmc.1",
        "nmc-run.1",
        "nmc-pump.1",
        "nmc-echo-probe.1",
        "nmc-rto-sweep.1",
    ] {
        let text =
            std::fs::read_to_string(out.join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(text.contains(".TH"), "{page} is not a man page");
    }
    let pump = std::fs::read_to_string(out.join("nmc-pump.1")).unwrap();
    assert!(pump.contains("outstanding"), "nmc-pump.1 lacks its options");
    // Issue 58 §8: each page has its EXAMPLES and EXIT STATUS, and groff reads every page
    // without a warning (where groff is installed).
    for s in [".SH EXAMPLES", ".SH \"EXIT STATUS\"", "nmc pump 127.0.0.1"] {
        assert!(pump.contains(s), "nmc-pump.1 lacks {s}");
    }
    let mut pages: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    pages.sort();
    assert!(pages.len() >= 20, "{pages:?}");
    if std::process::Command::new("groff")
        .arg("--version")
        .output()
        .is_ok()
    {
        for p in &pages {
            let o = std::process::Command::new("groff")
                .args(["-K", "utf8", "-man", "-ww", "-z"])
                .arg(p)
                .output()
                .unwrap();
            assert!(
                o.status.success() && o.stderr.is_empty(),
                "{}: {}",
                p.display(),
                stderr(&o)
            );
        }
    } else {
        eprintln!("groff not installed: the pages' roff not checked");
    }
    // A file where the folder should be: one line, exit 2.
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let o = nmc(&["man", "--out", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not a folder"), "{}", stderr(&o));
}

#[test]
fn short_flags_as_iperf3_has_them() {
    // -t, -i and -J parse (the far end refuses: the run stops on that, not on the flags).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let target = format!("127.0.0.1:{port}");
    let o = nmc(&["pump", &target, "-t", "1s", "-i", "1s", "-J", "-f", "m"]);
    // Issue 58 §3: refused by the server is exit 3.
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("refused the pump"), "{}", stderr(&o));
    let o = nmc(&["pump", &target, "--format", "KB"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("expected auto, bit, kbit, Mbit or Gbit"),
        "{}",
        stderr(&o)
    );
    for (sub, help) in [
        (
            &["pump", "--help"][..],
            [
                "-t, --duration",
                "-i, --interval",
                "-J, --json",
                "-f, --format",
            ]
            .as_slice(),
        ),
        (
            &["stream", "--help"],
            &["-t, --duration", "-J, --json", "-i, --interval"],
        ),
        (&["echo", "probe", "--help"], &["-J, --json"]),
        (&["cost", "--help"], &["-J, --json"]),
    ] {
        let o = nmc(sub);
        let s = String::from_utf8_lossy(&o.stdout);
        for h in help {
            assert!(s.contains(h), "{sub:?}: no {h}");
        }
    }
}

/// Issue 58 §7: `-4` and `-6` choose the target's address family, as iperf3, ping and irtt
/// do; a name without an address of that family is one line and exit 2, before anything runs.
#[test]
fn minus_4_and_minus_6_choose_the_family() {
    for (args, said) in [
        (
            &["stream", "127.0.0.1", "-6"][..],
            "has no IPv6 address (-6)",
        ),
        (&["pump", "[::1]:9", "-4"], "has no IPv4 address (-4)"),
        (&["echo", "probe", "::1", "-4"], "has no IPv4 address (-4)"),
        (&["cost", "127.0.0.1", "-6"], "has no IPv6 address (-6)"),
        (
            &["echo", "probe", "127.0.0.1", "--icmp", "-6"],
            "has no IPv6 address (-6)",
        ),
        (&["pump", "127.0.0.1", "-4", "-6"], "cannot be used with"),
    ] {
        let o = nmc(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(said), "{args:?}: {}", stderr(&o));
    }
}

/// Issue 58 §7: the socket options path and AQM studies set (`--bind`, `--dscp`,
/// `--congestion`, `-w`) are taken by every client that makes sockets, and a refused one is one
/// line and exit 2 naming it (the options' effect on the socket is `nmc_serve::dial`'s test).
#[test]
fn socket_options_are_taken_and_a_refused_one_is_one_line() {
    let (mut server, addr) = crate::serve_loopback(60);
    let opts = ["--dscp", "46", "-w", "1MiB", "--bind", "127.0.0.1"];
    for run in [
        &["pump", &addr, "-t", "300ms", "--congestion", "cubic"][..],
        &["pump", &addr, "-t", "300ms", "--transport", "udp"],
        &["pump", &addr, "-t", "300ms", "-R"],
        &["stream", &addr, "-t", "500ms", "-u"],
        &["stream", &addr, "-t", "500ms", "--congestion", "reno"],
        &["echo", "probe", &addr, "-c", "5", "--gap", "1ms"],
    ] {
        let out = tmp("socket-options");
        let o = crate::command()
            .args(run)
            .args(opts)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{run:?}: {}", stderr(&o));
    }
    for (extra, said) in [
        (&["--dscp", "64"][..], "a DSCP is 0 to 63"),
        (&["--congestion", "no-such-algorithm"], "no such algorithm"),
        (&["--bind", "192.0.2.1"], "not an address of this host"),
        (&["--bind", "[::1]:0"], "other address family"),
        (&["--bind", "nowhere"], "is not an address"),
        (&["-w", "0"], "give a size"),
    ] {
        let o = nmc(&[&["pump", &addr, "-t", "300ms"][..], extra].concat());
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(said), "{extra:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).trim().lines().count(), 1, "{}", stderr(&o));
    }
    for run in [
        &["stream", &addr, "-u", "-t", "300ms"][..],
        &["echo", "probe", "127.0.0.1", "--icmp", "-c", "2"],
    ] {
        let o = nmc(&[run, &["--congestion", "cubic"]].concat());
        assert_eq!(o.status.code(), Some(2), "{run:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("TCP only"), "{run:?}: {}", stderr(&o));
    }
    // ICMP Echo takes them too; what can be checked is refused before a socket is wanted.
    for (extra, said) in [
        (&["--dscp", "64"][..], "a DSCP is 0 to 63"),
        (&["--bind", "[::1]"], "other address family"),
    ] {
        let o = nmc(&[
            &["echo", "probe", "127.0.0.1", "--icmp", "-c", "2"][..],
            extra,
        ]
        .concat());
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(said), "{extra:?}: {}", stderr(&o));
    }
    let _ = server.kill();
    let _ = server.wait();
}

/// Issue 75 §9: `nmc man --install` writes the pages into `share/man/man1` beside the `bin`
/// folder nmc runs from, where man-db looks for each `bin` folder on PATH, so `man nmc-pump`
/// works after `cargo install` with nothing set; from any other folder it is one line, exit 2.
#[test]
fn man_install_puts_the_pages_where_man_looks() {
    let dir = tmp("man-install");
    let bin = dir.join("prefix").join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let exe = bin.join("nmc");
    if std::fs::hard_link(env!("CARGO_BIN_EXE_nmc"), &exe).is_err() {
        std::fs::copy(env!("CARGO_BIN_EXE_nmc"), &exe).unwrap();
    }
    let o = std::process::Command::new(&exe)
        .args(["man", "--install"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let man1 = dir.join("prefix").join("share").join("man").join("man1");
    let page = std::fs::read_to_string(man1.join("nmc-pump.1")).unwrap();
    assert!(page.contains(".TH"), "not a man page");
    // man-db finds it from PATH alone (where man-db is installed: its manpath.config).
    let man_db = std::path::Path::new("/etc/manpath.config").exists()
        && std::process::Command::new("man")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
    if man_db {
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let o = std::process::Command::new("man")
            .args(["-w", "nmc-pump"])
            .env("PATH", path)
            .env_remove("MANPATH")
            .output()
            .unwrap();
        assert!(
            text(&o.stdout).contains(&man1.join("nmc-pump.1").display().to_string()),
            "man -w nmc-pump: {} {}",
            text(&o.stdout),
            stderr(&o)
        );
    } else {
        eprintln!("man-db not installed: the lookup from PATH not checked");
    }
    // The test binary runs from target/debug, not a `bin` folder: refused in one line.
    let o = nmc(&["man", "--install"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("not from a `bin` folder"),
        "{}",
        stderr(&o)
    );
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    // Neither --out nor --install: a usage error.
    assert_eq!(nmc(&["man"]).status.code(), Some(2));
}
