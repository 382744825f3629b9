//! The plots `nmc run` draws of what a run recorded.

use anyhow::Result;
use nmc_imp::ImpParams;
use nmc_imp::observe::{Occupancy, SliceKind, TimeSlice};
use nmc_report::diagram::{Item, PathDiagram, Shape};
use nmc_report::{Chart, Series, SeriesStyle};
use std::collections::BTreeMap;

/// The resources the measured pair holds over its first `seconds` (`occupancy.csv`): message
/// numbers, PLT entries and reassembly buffers, each labelled with how many the profile
/// `params` gives (K&O Fig. 7's three curves).
pub fn occupancy_chart(occ: &[Occupancy], seconds: f64, params: &ImpParams) -> Chart {
    let pick = |f: fn(&Occupancy) -> u32| -> Vec<(f64, f64)> {
        occ.iter()
            .map(|o| (o.t_ns as f64 / 1e9, f(o) as f64))
            .take_while(|p| p.0 <= seconds)
            .collect()
    };
    Chart::new(
        "Resources held by the pumped pair",
        "time (s)",
        "resources held (count)",
    )
    .with(Series::new(
        format!("message numbers (of {})", params.message_numbers),
        SeriesStyle::Line,
        pick(|o| o.message_numbers),
    ))
    .with(Series::new(
        format!("PLT entries (of {})", params.plt_entries),
        SeriesStyle::Line,
        pick(|o| o.plt_entries),
    ))
    .with(Series::new(
        format!(
            "reassembly buffers at destination (of {})",
            params.reassembly_buffers
        ),
        SeriesStyle::Line,
        pick(|o| o.reassembly_buffers),
    ))
}

/// A histogram of `values` in about 40 equal bins.
pub fn histogram(title: &str, x_label: &str, values: &[f64]) -> Chart {
    histogram_passes(title, x_label, || Ok(values.iter().map(|&v| Ok(v))))
        .expect("values in memory read without error")
}

/// [`histogram`] of values that `values` yields afresh each time it is called, read twice (for
/// the range, then to count) and never held: for the rows of a long run's CSV file.
pub fn histogram_passes<I: Iterator<Item = Result<f64>>>(
    title: &str,
    x_label: &str,
    mut values: impl FnMut() -> Result<I>,
) -> Result<Chart> {
    let (mut lo, mut hi) = (f64::MAX, f64::MIN);
    for v in values()? {
        let v = v?;
        (lo, hi) = (lo.min(v), hi.max(v));
    }
    let bins = 40usize;
    let width = if hi > lo {
        (hi - lo) / bins as f64
    } else {
        1.0
    };
    let mut counts: BTreeMap<usize, u64> = BTreeMap::new();
    for v in values()? {
        let k = (((v? - lo) / width) as usize).min(bins - 1);
        *counts.entry(k).or_default() += 1;
    }
    let pts = counts
        .into_iter()
        .map(|(k, n)| (lo + (k as f64 + 0.5) * width, n as f64))
        .collect();
    Ok(
        Chart::new(title, x_label, "occurrences (count per bin)").with(Series::new(
            "",
            SeriesStyle::Bars { width: width * 0.9 },
            pts,
        )),
    )
}

/// A time slice of the measured pair drawn as K&O draw them (Figs. 2, 7, 8): the path from its
/// source IMP to its destination IMP, each message a rectangle, each RFNM an oval, each REQALL a
/// diamond and each ALL a dot, with the PLT entry and allocation it holds and what it is doing.
/// `title` gets the slice's instant appended.
pub fn slice_diagram(sl: &TimeSlice, title: &str) -> PathDiagram {
    let items = sl
        .items
        .iter()
        .map(|it| {
            let mut held = Vec::new();
            if it.plt {
                held.push("PLT");
            }
            if it.all {
                held.push("ALL");
            }
            Item {
                shape: match it.what {
                    SliceKind::Msg => Shape::Rect,
                    SliceKind::Rfnm => Shape::Oval,
                    SliceKind::Reqall => Shape::Diamond,
                    SliceKind::All => Shape::Dot,
                },
                label: if it.label.is_empty() {
                    it.what.to_string()
                } else {
                    format!("{} {}", it.what, it.label)
                },
                from: it.at_from,
                to: it.at_to,
                note: format!("{} · {}", held.join(" "), it.doing)
                    .trim_start_matches(" · ")
                    .to_string(),
            }
        })
        .collect();
    PathDiagram {
        title: format!("{title}, t = {:.1} s", sl.t_ns as f64 / 1e9),
        hops: sl.hops,
        ends: (sl.from.clone(), sl.to.clone()),
        items,
    }
}
