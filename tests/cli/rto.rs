//! `nmc rto` as a user meets it: synth → evaluate → sweep, on real files; one-line errors, exit 2.

use super::{nmc, text, tmp};

#[test]
fn synth_evaluate_sweep() {
    let dir = tmp("rto-cli");
    let csv = dir.join("foe.csv");
    let o = nmc(&[
        "rto",
        "synth",
        "--preset",
        "FOE",
        "--seed",
        "3",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // Same seed, same bytes.
    let again = nmc(&["rto", "synth", "--preset", "foe", "--seed", "3"]);
    assert_eq!(text(&again.stdout), std::fs::read_to_string(&csv).unwrap());

    let out = dir.join("eval");
    let irtt = "crates/nmc-rto/tests/fixtures/irtt_small.json";
    let o = nmc(&[
        "rto",
        "evaluate",
        csv.to_str().unwrap(),
        irtt,
        "-e",
        "mills:F1=0.9375,F2=0.75,G=2",
        "-e",
        "rsre",
        "-e",
        "rfc6298",
        "-e",
        "quic",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let table = text(&o.stdout);
    assert!(table.starts_with("# time charged:"), "{table}");
    assert!(
        table.contains("Host ID") && table.contains("Eff"),
        "{table}"
    );
    assert!(
        table.contains("foe") && table.contains("irtt_small"),
        "{table}"
    );
    for f in [
        "summary.csv",
        "foe.1-mills.svg",
        "foe.4-quic.csv",
        "irtt_small.2-rsre.svg",
    ] {
        assert!(out.join(f).exists(), "missing {f}");
    }
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert_eq!(summary.lines().count(), 1 + 2 * 4);

    let sweep = dir.join("sweep");
    let o = nmc(&[
        "rto",
        "sweep",
        csv.to_str().unwrap(),
        "--grid",
        "F1=0.875..0.975/0.05,F2=0.5|0.75,G=2",
        "--out",
        sweep.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("best "), "{}", text(&o.stdout));
    let svg = std::fs::read_to_string(sweep.join("sweep.svg")).unwrap();
    assert!(svg.contains("<rect") && svg.contains("<text"));
    let rows = std::fs::read_to_string(sweep.join("sweep.csv")).unwrap();
    assert_eq!(rows.lines().count(), 2 + 3 * 2);
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tmp("rto-cli-bad");
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "send_s,delay_ms\n0,1\n1,oops\n").unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["rto".into(), "evaluate".into(), bad.display().to_string()],
            "bad.csv:3:",
        ),
        (
            vec![
                "rto".into(),
                "evaluate".into(),
                "crates/nmc-rto/tests/fixtures/trace_small.csv".into(),
                "-e".into(),
                "milz".into(),
            ],
            "unknown estimator `milz`",
        ),
        (
            vec![
                "rto".into(),
                "evaluate".into(),
                "crates/nmc-rto/tests/fixtures/trace_small.csv".into(),
                "-e".into(),
                "mills:F3=1".into(),
            ],
            "unknown key `F3`",
        ),
        (
            vec![
                "rto".into(),
                "evaluate".into(),
                "crates/nmc-rto/tests/fixtures/trace_small.csv".into(),
                "-e".into(),
                "rfc6298:min=1".into(),
            ],
            "`1` needs a unit: 1s, 1ms",
        ),
        (
            vec![
                "rto".into(),
                "evaluate".into(),
                "crates/nmc-rto/tests/fixtures/trace_small.csv".into(),
                "--loss-limit".into(),
                "30".into(),
            ],
            "`30` needs a unit: 30s, 30ms",
        ),
        (
            vec![
                "rto".into(),
                "sweep".into(),
                "crates/nmc-rto/tests/fixtures/trace_small.csv".into(),
                "--grid".into(),
                "Q=1".into(),
            ],
            "unknown key `Q`",
        ),
        (
            vec![
                "rto".into(),
                "synth".into(),
                "--preset".into(),
                "MARS".into(),
            ],
            "unknown preset `MARS`",
        ),
        (
            vec!["rto".into(), "evaluate".into(), "/no/such/file.csv".into()],
            "/no/such/file.csv: cannot read",
        ),
    ];
    for (args, want) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = nmc(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
        let err = text(&o.stderr);
        assert!(err.contains(want), "{args:?}: expected `{want}` in {err}");
        let lines = err.lines().filter(|l| !l.trim().is_empty()).count();
        assert!(lines <= 3, "{args:?}: not short: {err}");
    }
}

/// Issue 57 §5: a trace with no volley answered within the loss limit, or `--loss-limit 0s`,
/// leaves nothing to evaluate; each was exit 0 with `Mean 0.0 ms, CoV 0.00, Eff 0.000`.
#[test]
fn nothing_answered_is_refused_not_tabulated() {
    let dir = tmp("rto-cli-nothing");
    let lost = dir.join("lost.csv");
    std::fs::write(&lost, "send_s,delay_ms\n0,lost\n1,\n2,-\n").unwrap();
    let late = dir.join("late.csv");
    std::fs::write(&late, "send_s,delay_ms\n0,5000\n6,4000\n").unwrap();
    let small = "crates/nmc-rto/tests/fixtures/trace_small.csv";
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    let (lost, late) = (lost.to_str().unwrap(), late.to_str().unwrap());
    for (args, want) in [
        (
            &["evaluate", lost, "--out", out][..],
            "lost.csv: none of its 3 volleys was answered within --loss-limit 30000ms: nothing to evaluate",
        ),
        (
            &["evaluate", small, late, "--loss-limit", "1s", "--out", out],
            "late.csv: none of its 2 volleys was answered within --loss-limit 1000ms",
        ),
        (
            &["evaluate", small, "--loss-limit", "0s", "--out", out],
            "--loss-limit 0s: must be positive",
        ),
        (
            &["sweep", lost, "--grid", "G=2", "--out", out],
            "nothing to evaluate",
        ),
        (
            &[
                "sweep",
                small,
                "--grid",
                "G=2",
                "--loss-limit",
                "0s",
                "--out",
                out,
            ],
            "--loss-limit 0s: must be positive",
        ),
    ] {
        let o = crate::command().arg("rto").args(args).output().unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: expected `{want}` in {err}");
        assert!(text(&o.stdout).is_empty(), "{args:?}: no table");
        assert!(
            !std::path::Path::new(out).exists(),
            "{args:?}: nothing written"
        );
    }
}
