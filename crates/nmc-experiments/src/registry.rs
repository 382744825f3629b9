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
    /// The user's guide's chapter that explains it (issue 59): a page of the book, as its path
    /// from the repository's root. The report's section links to it.
    fn chapter(&self) -> &'static str;
    /// What it runs, as the registry handles it: the seeds of its repeated runs and what
    /// `--quick` changes ([`Plan`]). One seed and nothing shortened, unless it says otherwise.
    fn plan(&self) -> Plan {
        Plan::ONCE
    }
    /// Runs the experiment, adding rows, plots and files to `ctx`.
    fn run(&self, ctx: &mut Context) -> Result<()>;
}

/// What an experiment declares of its runs, for the registry to handle once for all: how many
/// seeds its repeated runs take ([`Context::seeds`]), the overrides `--quick` adds to every
/// scenario it loads ([`Loader::load`]), and in words what else `--quick` shortens. `nmc
/// reproduce --list` shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Seeds of a repeated run: the reproduction's seed and the ones after it (one under
    /// `--quick`).
    pub seeds: u64,
    /// Overrides `--quick` adds, after the experiment's own, to every scenario it loads through
    /// its [`Loader`] (e.g. `duration=2min`).
    pub quick: &'static [&'static str],
    /// What else `--quick` shortens, in words, where the experiment does it itself (fewer runs
    /// or repetitions); empty when nothing.
    pub quick_also: &'static str,
}

impl Plan {
    /// One seed; `--quick` changes nothing.
    pub const ONCE: Plan = Plan {
        seeds: 1,
        quick: &[],
        quick_also: "",
    };

    /// One seed; `--quick` adds these overrides to every scenario the experiment loads.
    pub const fn quick(overrides: &'static [&'static str]) -> Plan {
        Plan {
            quick: overrides,
            ..Plan::ONCE
        }
    }

    /// One seed; `--quick` shortens what these words say, which the experiment does itself.
    pub const fn shortened(words: &'static str) -> Plan {
        Plan {
            quick_also: words,
            ..Plan::ONCE
        }
    }

    /// The same plan with `n` seeds for its repeated runs.
    pub const fn seeds(self, n: u64) -> Plan {
        Plan { seeds: n, ..self }
    }

    /// The same plan, saying in words what else `--quick` shortens.
    pub const fn also(self, words: &'static str) -> Plan {
        Plan {
            quick_also: words,
            ..self
        }
    }

    /// The plan in one line for people (`nmc reproduce --list`).
    pub fn describe(&self) -> String {
        let mut quick: Vec<String> = self.quick.iter().map(|s| s.to_string()).collect();
        if !self.quick_also.is_empty() {
            quick.push(self.quick_also.to_string());
        }
        format!(
            "{}; --quick: {}",
            match self.seeds {
                1 => "one seed".to_string(),
                n => format!("{n} seeds (one with --quick)"),
            },
            if quick.is_empty() {
                "the same runs".to_string()
            } else {
                quick.join(", ")
            }
        )
    }
}

/// Loads an experiment's scenarios, with its [`Plan::quick`] overrides added under `--quick`:
/// a plain value that the experiment's functions take where they load a scenario.
#[derive(Clone, Copy, Debug)]
pub struct Loader {
    /// A quick run (`--quick`).
    pub quick: bool,
    quick_sets: &'static [&'static str],
}

impl Loader {
    /// The loader of an experiment with `plan`, for a quick run or not.
    pub fn of(plan: Plan, quick: bool) -> Loader {
        Loader {
            quick,
            quick_sets: plan.quick,
        }
    }

    /// A loader that adds nothing: the scenario at its full length, whatever `--quick` says.
    pub const FULL: Loader = Loader {
        quick: false,
        quick_sets: &[],
    };

    /// The scenario `text` (named `origin` in errors) with `sets`, and the plan's quick
    /// overrides after them under `--quick`.
    pub fn load<S: serde::de::DeserializeOwned>(
        &self,
        origin: &str,
        text: &str,
        sets: &[String],
    ) -> Result<S> {
        let mut all: Vec<nmc_scenario::Override> =
            sets.iter().map(|s| s.parse()).collect::<Result<_, _>>()?;
        if self.quick {
            for s in self.quick_sets {
                all.push(s.parse()?);
            }
        }
        Ok(nmc_scenario::load(origin, text, &all)?)
    }
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
    /// What the experiment declared of its runs.
    pub plan: Plan,
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
                chapter: Some(e.chapter().into()),
                ..Default::default()
            },
            plan: e.plan(),
            progress,
        }
    }

    /// The seeds of the experiment's repeated runs ([`Plan::seeds`]): the reproduction's seed
    /// and the ones after it, or the first alone under `--quick`.
    pub fn seeds(&self) -> Vec<u64> {
        let n = if self.quick { 1 } else { self.plan.seeds };
        (0..n).map(|k| self.seed + k).collect()
    }

    /// The experiment's scenario loader: its plan's quick overrides under `--quick`.
    pub fn loader(&self) -> Loader {
        Loader::of(self.plan, self.quick)
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
        nmc_report::files::write(&path, &svg)
            .with_context(|| format!("writing {}", path.display()))?;
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
        nmc_report::files::write(&path, text)
            .with_context(|| format!("writing {}", path.display()))?;
        self.section
            .files
            .push(format!("{}/{name}", self.section.id));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: Plan = Plan::quick(&["duration=2min"]).seeds(3);

    /// A quick run takes the first seed alone and adds the plan's overrides after the
    /// experiment's own; a full run takes every seed and adds nothing.
    #[test]
    fn the_registry_carries_out_the_plan() {
        struct E;
        impl Experiment for E {
            fn id(&self) -> &'static str {
                "e"
            }
            fn title(&self) -> &'static str {
                "e"
            }
            fn source(&self) -> &'static str {
                "e"
            }
            fn chapter(&self) -> &'static str {
                "e"
            }
            fn plan(&self) -> Plan {
                PLAN
            }
            fn run(&self, _: &mut Context) -> Result<()> {
                Ok(())
            }
        }
        let progress = |_: f64| {};
        let full = Context::new(&E, 7, false, PathBuf::from("out"), &progress);
        let quick = Context::new(&E, 7, true, PathBuf::from("out"), &progress);
        assert_eq!(full.seeds(), vec![7, 8, 9]);
        assert_eq!(quick.seeds(), vec![7]);
        let text = "duration = \"10min\"\nseed = 1\n";
        #[derive(serde::Deserialize)]
        struct S {
            duration: String,
        }
        let sets = ["duration=5min".to_string()];
        let s: S = full.loader().load("s", text, &sets).unwrap();
        assert_eq!(s.duration, "5min");
        let s: S = quick.loader().load("s", text, &sets).unwrap();
        assert_eq!(s.duration, "2min");
        let s: S = Loader::FULL.load("s", text, &[]).unwrap();
        assert_eq!(s.duration, "10min");
        assert_eq!(
            PLAN.describe(),
            "3 seeds (one with --quick); --quick: duration=2min"
        );
    }
}
