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

/// Writes the completion script for `a.shell` on stdout.
pub fn completions(a: CompletionsArgs, mut cli: clap::Command) -> Result<Outcome> {
    clap_complete::generate(a.shell, &mut cli, "nmc", &mut std::io::stdout());
    Ok(Outcome::Ok)
}

/// Writes the man pages into `a.out` and names them on stderr.
pub fn man(a: ManArgs, cli: clap::Command) -> Result<Outcome> {
    if a.out.exists() && !a.out.is_dir() {
        bail!("--out {}: not a folder", a.out.display());
    }
    std::fs::create_dir_all(&a.out).with_context(|| format!("--out {}", a.out.display()))?;
    clap_mangen::generate_to(cli, &a.out)
        .with_context(|| format!("writing man pages into {}", a.out.display()))?;
    let mut pages: Vec<String> = std::fs::read_dir(&a.out)?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("nmc") && n.ends_with(".1"))
        .collect();
    pages.sort();
    eprintln!(
        "nmc: wrote {} man pages into {} ({}, …)",
        pages.len(),
        a.out.display(),
        pages.iter().take(3).cloned().collect::<Vec<_>>().join(", ")
    );
    Ok(Outcome::Ok)
}
