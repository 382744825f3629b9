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
    nmc man --out ~/.local/share/man/man1 && man nmc-pump")]
pub struct ManArgs {
    /// Folder to write `nmc.1` and one page per subcommand (`nmc-run.1`, `nmc-echo-probe.1`, …)
    /// into; made if missing.
    #[arg(long)]
    pub out: PathBuf,
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
    if a.out.exists() && !a.out.is_dir() {
        bail!("--out {}: not a folder", a.out.display());
    }
    let mut pages = Vec::new();
    let mut cli = cli.disable_help_subcommand(true);
    cli.build();
    man_pages(cli, &mut pages)?;
    std::fs::create_dir_all(&a.out).with_context(|| format!("--out {}", a.out.display()))?;
    for (name, _) in &pages {
        nmc_report::files::check_target(&a.out.join(name))?;
    }
    for (name, roff) in &pages {
        nmc_report::files::write_whole(&a.out.join(name), roff)?;
    }
    let mut names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
    names.sort();
    eprintln!(
        "nmc: wrote {} man pages into {} ({}, …)",
        names.len(),
        super::shown(&a.out),
        names[..names.len().min(3)].join(", ")
    );
    Ok(Outcome::Ok)
}

/// `cmd`'s page and those of its visible subcommands, as clap_mangen's `generate_to` names
/// them (`nmc.1`, `nmc-echo-probe.1`, …), rendered in memory.
fn man_pages(cmd: clap::Command, pages: &mut Vec<(String, Vec<u8>)>) -> Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
        man_pages(sub, pages)?;
    }
    let man = clap_mangen::Man::new(cmd);
    let mut roff = Vec::new();
    man.render(&mut roff).context("rendering a man page")?;
    pages.push((man.get_filename(), roff));
    Ok(())
}
