//! The experiment registry and the context experiments write into.

use anyhow::{Context as _, Result};
use nmc_report::{Chart, Check, Section, Target, Value};
use serde::Serialize;
use std::path::PathBuf;

/// A published experiment that `nmc reproduce` can run.
pub trait Experiment: Sync {
    /// Short id used on the command line (`golden-chain`, `ko-v2-throughput`).
    fn id(&self) -> &'static str;
    /// One line for people.
    fn title(&self) -> &'static str;
    /// The source document and section.
    fn source(&self) -> &'static str;
    /// Runs the experiment, adding rows, plots and files to `ctx`.
    fn run(&self, ctx: &mut Context) -> Result<()>;
}

/// Runs experiment `e` with its outputs in `out/<id>/` and returns its report section (rows,
/// notes, plots, files): what `nmc reproduce` does for each experiment it is given.
pub fn run_experiment(
    e: &dyn Experiment,
    seed: u64,
    quick: bool,
    out: PathBuf,
    progress: &dyn Fn(f64),
) -> Result<Section> {
    let mut ctx = Context::new(e, seed, quick, out, progress);
    e.run(&mut ctx)
        .with_context(|| format!("experiment {}", e.id()))?;
    Ok(ctx.section)
}

/// Where an experiment puts its results.
pub struct Context<'a> {
    /// The reproduction's seed (`nmc reproduce --seed`): the experiment's runs use it, or seeds
    /// counted from it, unless a shipped scenario fixes its own.
    pub seed: u64,
    /// Shorter runs for a quick look (and for tests); full runs otherwise.
    pub quick: bool,
    /// This experiment's output folder (`OUT/<id>/`).
    pub dir: PathBuf,
    /// The experiment's part of the report page, as built so far: rows, notes, plots, files.
    pub section: Section,
    progress: &'a dyn Fn(f64),
}

impl<'a> Context<'a> {
    /// A context for experiment `e`: its folder is `out/<id>/` (not created here), its section
    /// empty but for the experiment's id, title and source; `progress` is told the fraction
    /// done.
    pub fn new(
        e: &dyn Experiment,
        seed: u64,
        quick: bool,
        out: PathBuf,
        progress: &'a dyn Fn(f64),
    ) -> Self {
        Context {
            seed,
            quick,
            dir: out.join(e.id()),
            section: Section {
                id: e.id().into(),
                title: e.title().into(),
                source: e.source().into(),
                ..Default::default()
            },
            progress,
        }
    }

    /// The seeds of an experiment that repeats its runs over `full` seeds: the reproduction's
    /// seed and the `full - 1` after it, or the first alone under `--quick`.
    pub fn seeds(&self, full: u64) -> Vec<u64> {
        let n = if self.quick { 1 } else { full };
        (0..n).map(|k| self.seed + k).collect()
    }

    /// Reports the fraction done, 0..=1.
    pub fn progress(&self, fraction: f64) {
        (self.progress)(fraction.clamp(0.0, 1.0));
    }

    /// Adds a row: `ours` against the published `target`, with the tolerance it carries. The
    /// row is emergent unless the caller marks it otherwise on the returned row
    /// ([`Check::restated_input`], [`Check::sanity_bound`], with the reason), as issue 17 asks
    /// for every row that restates an input or cannot fail.
    pub fn check(
        &mut self,
        id: &str,
        quantity: &str,
        unit: &str,
        source: &str,
        target: Target,
        ours: Value,
    ) -> &mut Check {
        let c = Check::compare(&self.section.id, id, quantity, unit, source, target, ours);
        self.section.checks.push(c);
        self.section.checks.last_mut().expect("just pushed")
    }

    /// The rows added so far.
    pub fn rows(&self) -> &[Check] {
        &self.section.checks
    }

    /// The rows added so far, to change a row's kind once a later row shows what it is.
    pub fn rows_mut(&mut self) -> &mut [Check] {
        &mut self.section.checks
    }

    /// Adds a paragraph of explanation (plain text) to the experiment's section.
    pub fn note(&mut self, text: impl Into<String>) {
        self.section.notes.push(text.into());
    }

    /// Draws `chart` to `<dir>/<stem>.svg` and puts it on the report page.
    pub fn plot(&mut self, stem: &str, caption: &str, chart: &Chart) -> Result<()> {
        let svg = chart
            .to_svg()
            .map_err(|e| anyhow::anyhow!("drawing {stem}.svg: {e}"))?;
        self.svg(stem, caption, svg)
    }

    /// Writes an SVG document to `<dir>/<stem>.svg` and puts it on the report page.
    pub fn svg(&mut self, stem: &str, caption: &str, svg: String) -> Result<()> {
        let path = self.dir.join(format!("{stem}.svg"));
        std::fs::create_dir_all(&self.dir)
            .with_context(|| format!("creating {}", self.dir.display()))?;
        std::fs::write(&path, &svg).with_context(|| format!("writing {}", path.display()))?;
        self.section
            .files
            .push(format!("{}/{stem}.svg", self.section.id));
        self.section.plots.push((caption.into(), svg));
        Ok(())
    }

    /// Writes rows to `<dir>/<name>.csv` and lists the file on the report page.
    pub fn csv<T: Serialize>(&mut self, name: &str, rows: &[T]) -> Result<()> {
        nmc_report::records::write_csv(&self.dir.join(format!("{name}.csv")), rows)?;
        self.section
            .files
            .push(format!("{}/{name}.csv", self.section.id));
        Ok(())
    }
}

impl Context<'_> {
    /// Writes `text` to `<dir>/<name>` and lists the file on the report page.
    pub fn text(&mut self, name: &str, text: &str) -> Result<()> {
        std::fs::create_dir_all(&self.dir)
            .with_context(|| format!("creating {}", self.dir.display()))?;
        let path = self.dir.join(name);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        self.section
            .files
            .push(format!("{}/{name}", self.section.id));
        Ok(())
    }
}
