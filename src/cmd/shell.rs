//! `nmc completions SHELL` and `nmc man --out DIR` (issue 34): shell completions and man pages
//! generated from the same clap definition the command line parses with, so they cannot drift.

use crate::Outcome;
use anyhow::{Context, Result, bail};
use clap::Args;
use clap_complete::Shell;
use std::path::PathBuf;

#[derive(Args)]
#[command(after_help = "Install, e.g.:\n  \
    nmc completions bash > ~/.local/share/bash-completion/completions/nmc\n  \
    nmc completions zsh  > ~/.zfunc/_nmc        # with fpath+=(~/.zfunc) before compinit\n  \
    nmc completions fish > ~/.config/fish/completions/nmc.fish")]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    pub shell: Shell,
}

#[derive(Args)]
#[command(after_help = "Install, e.g.:\n  \
    nmc man --install && man nmc-pump            # after cargo install: ~/.cargo/share/man/man1\n  \
    nmc man --out ~/.local/share/man/man1 && man nmc-pump")]
pub struct ManArgs {
    /// Folder to write `nmc.1` and one page per subcommand (`nmc-run.1`, `nmc-echo-probe.1`, …)
    /// into; made if missing.
    #[arg(long, required_unless_present = "install", conflicts_with = "install")]
    pub out: Option<PathBuf>,
    /// Write them where `man` looks for this nmc's pages (issue 75 §9): `share/man/man1` beside
    /// the `bin` folder nmc runs from (`~/.cargo/share/man/man1` after `cargo install`), which
    /// man-db searches for every `bin` folder on PATH; then `man nmc-pump` works.
    #[arg(long)]
    pub install: bool,
}

/// `share/man/man1` beside the `bin` folder this nmc runs from, as man-db derives a manpath
/// from each PATH entry; one line when nmc does not run from a folder named `bin`.
fn install_folder() -> Result<PathBuf> {
    let exe = std::env::current_exe().context("--install: where nmc runs from")?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let bin = exe
        .parent()
        .filter(|d| d.file_name().is_some_and(|n| n == "bin"));
    match bin.and_then(|b| b.parent()) {
        Some(prefix) => Ok(prefix.join("share").join("man").join("man1")),
        None => bail!(
            "--install: nmc runs from {}, not from a `bin` folder (as `cargo install` puts it), so man would not look beside it; give --out DIR, e.g. --out ~/.local/share/man/man1",
            super::shown(exe.parent().unwrap_or(&exe))
        ),
    }
}

/// Writes the completion script for `a.shell` on stdout. Made in memory first: clap_complete
/// panics when its writer fails, so a full or closed stdout (`> /dev/full`, `| head -c 10`)
/// was exit 101 (issue 57 §5). Now a full disk is one line and exit 2, and a reader that
/// closed the pipe early ends nmc quietly, as for every subcommand.
pub fn completions(a: CompletionsArgs, mut cli: clap::Command) -> Result<Outcome> {
    use std::io::Write as _;
    let mut script = Vec::new();
    clap_complete::generate(a.shell, &mut cli, "nmc", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script)
        .and_then(|()| out.flush())
        .context("writing the completion script to stdout")?;
    Ok(Outcome::Ok)
}

/// Writes the man pages into `a.out` and names them on stderr. Every page is made first, then
/// every name checked, then each written whole: a planted link (`nmc.1` → a file of the user's)
/// or another user's file among them refuses the whole command before anything is written
/// (issue 57 §1).
pub fn man(a: ManArgs, cli: clap::Command) -> Result<Outcome> {
    let out = match a.out {
        Some(out) => out,
        None => install_folder()?,
    };
    if out.exists() && !out.is_dir() {
        bail!("--out {}: not a folder", out.display());
    }
    let mut pages = Vec::new();
    let mut cli = cli.disable_help_subcommand(true);
    cli.build();
    man_pages(cli, &mut pages)?;
    std::fs::create_dir_all(&out).with_context(|| format!("--out {}", out.display()))?;
    for (name, _) in &pages {
        nmc_report::files::check_target(&out.join(name))?;
    }
    for (name, roff) in &pages {
        nmc_report::files::write_whole(&out.join(name), roff)?;
    }
    let mut names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
    names.sort();
    eprintln!(
        "nmc: wrote {} man pages into {} ({}, …)",
        names.len(),
        super::shown(&out),
        names[..names.len().min(3)].join(", ")
    );
    Ok(Outcome::Ok)
}

/// `cmd`'s page and those of its visible subcommands, as clap_mangen's `generate_to` names
/// them (`nmc.1`, `nmc-echo-probe.1`, …), rendered in memory. `path` is the words after `nmc`.
fn man_pages(cmd: clap::Command, pages: &mut Vec<(String, Vec<u8>)>) -> Result<()> {
    walk(cmd, &mut Vec::new(), pages)
}

fn walk(
    cmd: clap::Command,
    path: &mut Vec<String>,
    pages: &mut Vec<(String, Vec<u8>)>,
) -> Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
        path.push(sub.get_name().to_string());
        walk(sub, path, pages)?;
        path.pop();
    }
    let words: Vec<&str> = path.iter().map(String::as_str).collect();
    let page = man_page(&cmd, &words).context("rendering a man page")?;
    pages.push((clap_mangen::Man::new(cmd).get_filename(), page));
    Ok(())
}

/// One page: clap_mangen's sections (NAME, SYNOPSIS, DESCRIPTION, OPTIONS, SUBCOMMANDS), then
/// the text after the help's "Examples:" as EXAMPLES, the rest of that text as NOTES, EXIT
/// STATUS from the one contract ([`super::exit::statuses`]), SEE ALSO and VERSION (issue 58 §8).
pub(crate) fn man_page(cmd: &clap::Command, path: &[&str]) -> std::io::Result<Vec<u8>> {
    use clap_mangen::roff::{Roff, bold, roman};
    let man = clap_mangen::Man::new(cmd.clone());
    let mut w = Vec::new();
    man.render_title(&mut w)?;
    man.render_name_section(&mut w)?;
    man.render_synopsis_section(&mut w)?;
    man.render_description_section(&mut w)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut w)?;
    }
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(&mut w)?;
    }
    let (examples, notes) = examples_and_notes(cmd);
    let mut roff = Roff::new();
    if !notes.is_empty() {
        roff.control("SH", ["NOTES"]);
        for para in notes.split("\n\n") {
            roff.control("PP", []);
            if para.lines().all(|l| l.starts_with("  ")) {
                // An indented block (a file's lines): kept as it is.
                roff.control("nf", []);
                for l in para.lines() {
                    roff.text([roman(l.to_string())]);
                }
                roff.control("fi", []);
            } else {
                roff.text([roman(para.replace('\n', " "))]);
            }
        }
    }
    if !examples.is_empty() {
        roff.control("SH", ["EXAMPLES"]);
        for e in &examples {
            // An example and its comment, each on its own line, in bold as typed.
            let (line, comment) = match e.split_once("  #") {
                Some((l, c)) => (l.trim_end(), Some(c.trim())),
                None => (e.as_str(), None),
            };
            roff.control("TP", []).text([bold(line)]);
            roff.text([roman(comment.unwrap_or(""))]);
        }
    }
    roff.control("SH", ["EXIT STATUS"]);
    for (code, meaning) in super::exit::statuses(path) {
        roff.control("TP", []).text([bold(code.to_string())]);
        roff.text([roman(meaning)]);
    }
    roff.control("SH", ["SEE ALSO"]);
    let guide = "the user's guide: docs/ in nmc's source (mdbook build docs)";
    if path.is_empty() {
        roff.text([roman(guide)]);
    } else {
        roff.text([bold("nmc"), roman(format!("(1); {guide}"))]);
    }
    roff.to_writer(&mut w)?;
    if cmd.get_version().is_some() {
        man.render_version_section(&mut w)?;
    }
    Ok(w)
}

/// The example command lines of `cmd`'s help text (the indented lines after "Examples:" or
/// "Install, e.g.:"), and the rest of that text.
pub(crate) fn examples_and_notes(cmd: &clap::Command) -> (Vec<String>, String) {
    let text = cmd
        .get_after_help()
        .map(|t| t.to_string())
        .unwrap_or_default();
    let mut examples = Vec::new();
    let mut notes = Vec::new();
    let mut in_examples = false;
    for line in text.lines() {
        if matches!(line, "Examples:" | "Example:" | "Install, e.g.:") {
            in_examples = true;
            continue;
        }
        if in_examples && let Some(e) = line.strip_prefix("  ") {
            examples.push(e.trim().to_string());
            continue;
        }
        in_examples = false;
        notes.push(line);
    }
    (examples, notes.join("\n").trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory as _;

    /// Every visible command: its words after `nmc` and its definition.
    fn commands() -> Vec<(Vec<String>, clap::Command)> {
        fn walk(
            c: &clap::Command,
            path: &mut Vec<String>,
            out: &mut Vec<(Vec<String>, clap::Command)>,
        ) {
            out.push((path.clone(), c.clone()));
            for s in c.get_subcommands().filter(|s| !s.is_hide_set()) {
                path.push(s.get_name().to_string());
                walk(s, path, out);
                path.pop();
            }
        }
        let mut cli = crate::Cli::command().disable_help_subcommand(true);
        cli.build();
        let mut out = Vec::new();
        walk(&cli, &mut Vec::new(), &mut out);
        out
    }

    /// An example's words as a shell would pass them to `nmc`: quotes removed, up to the first
    /// comment, redirection, pipe or `&`.
    fn words(example: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut word = String::new();
        let mut quote = None;
        let mut any = false;
        for ch in example.chars() {
            match (quote, ch) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), c) => word.push(c),
                (None, '\'' | '"') => {
                    quote = Some(ch);
                    any = true;
                }
                (None, '#' | '>' | '|' | '&' | ';') if word.is_empty() => break,
                (None, c) if c.is_whitespace() => {
                    if any || !word.is_empty() {
                        out.push(std::mem::take(&mut word));
                    }
                    any = false;
                }
                (None, c) => word.push(c),
            }
        }
        if any || !word.is_empty() {
            out.push(word);
        }
        out
    }

    /// Issue 58 §8: every page has EXIT STATUS, every command without subcommands EXAMPLES,
    /// and every example is a command line nmc parses (a renamed flag fails here).
    #[test]
    fn every_man_page_has_exit_status_and_parsing_examples() {
        let mut missing = Vec::new();
        let mut parsed = 0;
        for (path, cmd) in commands() {
            let words_of: Vec<&str> = path.iter().map(String::as_str).collect();
            let page = String::from_utf8(man_page(&cmd, &words_of).unwrap()).unwrap();
            assert!(
                page.contains(".SH \"EXIT STATUS\""),
                "nmc {path:?}: no EXIT STATUS"
            );
            assert!(
                page.contains("\n.B 0\n") || page.contains("\\fB0\\fR"),
                "nmc {path:?}: no status 0\n{page}"
            );
            let (examples, _) = examples_and_notes(&cmd);
            let leaf = cmd.get_subcommands().all(|s| s.is_hide_set());
            if leaf && examples.is_empty() {
                missing.push(path.join(" "));
            }
            if !examples.is_empty() {
                assert!(
                    page.contains(".SH EXAMPLES"),
                    "nmc {path:?}: examples not on the page"
                );
            }
            for e in examples {
                let w = words(&e);
                if w.first().map(String::as_str) != Some("nmc") {
                    continue;
                }
                let r = crate::Cli::command().try_get_matches_from(&w);
                assert!(
                    r.is_ok(),
                    "nmc {}: the example `{e}` does not parse: {}",
                    path.join(" "),
                    r.unwrap_err()
                );
                parsed += 1;
            }
        }
        assert!(missing.is_empty(), "commands without examples: {missing:?}");
        assert!(parsed >= 30, "only {parsed} examples parsed");
    }

    #[test]
    fn the_example_words_are_the_shells() {
        assert_eq!(words("nmc serve &   # x"), ["nmc", "serve"]);
        assert_eq!(
            words("nmc run a --set 'x=a b' > f"),
            ["nmc", "run", "a", "--set", "x=a b"]
        );
        assert_eq!(
            words("nmc man --out d && man nmc-pump"),
            ["nmc", "man", "--out", "d"]
        );
    }

    /// Issue 58 §8: a short flag means one thing across every command (`-i` is the report
    /// interval wherever it is given, `-t` the duration, ...), and the instruments share the
    /// ones iperf3, ping and irtt users reach for.
    #[test]
    fn a_short_flag_means_one_thing_everywhere() {
        let mut longs: std::collections::BTreeMap<char, std::collections::BTreeSet<String>> =
            Default::default();
        let mut of = std::collections::BTreeMap::new();
        for (path, cmd) in commands() {
            for a in cmd.get_arguments() {
                if let (Some(s), Some(l)) = (a.get_short(), a.get_long()) {
                    longs.entry(s).or_default().insert(l.to_string());
                    of.insert((path.join(" "), l.to_string()), s);
                }
            }
        }
        let clashes: Vec<_> = longs.iter().filter(|(_, l)| l.len() > 1).collect();
        assert!(
            clashes.is_empty(),
            "one short flag, several long ones: {clashes:?}"
        );
        for (cmd, long, short) in [
            ("pump", "duration", 't'),
            ("stream", "duration", 't'),
            ("pump", "interval", 'i'),
            ("stream", "interval", 'i'),
            ("echo probe", "count", 'c'),
            ("stream", "rate", 'b'),
            ("stream", "udp", 'u'),
            ("pump", "format", 'f'),
            ("pump", "reverse", 'R'),
            ("stream", "reverse", 'R'),
            ("echo probe", "json", 'J'),
            ("pump", "json", 'J'),
            ("stream", "json", 'J'),
            ("cost", "json", 'J'),
            ("pump", "ipv4", '4'),
            ("stream", "ipv6", '6'),
            ("echo probe", "ipv4", '4'),
            ("cost", "ipv6", '6'),
        ] {
            assert_eq!(
                of.get(&(cmd.to_string(), long.to_string())),
                Some(&short),
                "nmc {cmd} --{long} has not -{short}"
            );
        }
    }
}
