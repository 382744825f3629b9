//! The sweep's tables: `results` (one row per run × metric) and `summary` (mean and 95 %
//! Student-t confidence interval across seeds, per configuration × metric), each written as
//! CSV and as Parquet from the same columns.

use crate::plan::Plan;
use crate::store::RunResult;
use anyhow::{Result, bail};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A column's values, one per row, of one type.
pub enum Values {
    /// Text (swept values, `config_hash`, `metric`); `None` is an absent value.
    Str(Vec<Option<String>>),
    /// Whole numbers, never absent (`seed`, `runs`, `n`).
    U64(Vec<u64>),
    /// Numbers (`value`, `mean`, `sd`, the interval); `None` is an absent value.
    F64(Vec<Option<f64>>),
}

/// A column of a table: its header and its values.
pub struct Column {
    /// The header: a swept key, or a fixed name such as `seed` or `mean`.
    pub name: String,
    /// The values, one per row.
    pub values: Values,
}

/// Columns of equal length.
pub struct Table {
    /// The columns, left to right.
    pub columns: Vec<Column>,
}

/// A float as CSV text: the shortest text that reads back as the same number (`0.1`, `1e-7`,
/// `NaN`, `inf`).
pub fn fmt_f64(v: f64) -> String {
    format!("{v:?}")
}

impl Table {
    /// Rows in the table: the first column's length (0 with no columns).
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| match &c.values {
            Values::Str(v) => v.len(),
            Values::U64(v) => v.len(),
            Values::F64(v) => v.len(),
        })
    }

    /// The table as CSV: a header, then one line per row; an absent value is an empty field.
    pub fn to_csv(&self) -> Result<Vec<u8>> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(self.columns.iter().map(|c| c.name.as_str()))?;
        for i in 0..self.rows() {
            w.write_record(self.columns.iter().map(|c| match &c.values {
                Values::Str(v) => v[i].clone().unwrap_or_default(),
                Values::U64(v) => v[i].to_string(),
                Values::F64(v) => v[i].map(fmt_f64).unwrap_or_default(),
            }))?;
        }
        w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))
    }

    /// The table as a Parquet file (one row group, uncompressed): strings as UTF-8, `seed` and
    /// counts as unsigned 64-bit, values as 64-bit floats; absent values are nulls.
    pub fn to_parquet(&self) -> Result<Vec<u8>> {
        use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray, UInt64Array};
        use arrow_schema::{DataType, Field, Schema};
        let fields: Vec<Field> = self
            .columns
            .iter()
            .map(|c| match &c.values {
                Values::Str(_) => Field::new(&c.name, DataType::Utf8, true),
                Values::U64(_) => Field::new(&c.name, DataType::UInt64, false),
                Values::F64(_) => Field::new(&c.name, DataType::Float64, true),
            })
            .collect();
        let arrays: Vec<ArrayRef> = self
            .columns
            .iter()
            .map(|c| -> ArrayRef {
                match &c.values {
                    Values::Str(v) => Arc::new(StringArray::from(v.clone())),
                    Values::U64(v) => Arc::new(UInt64Array::from(v.clone())),
                    Values::F64(v) => Arc::new(Float64Array::from(v.clone())),
                }
            })
            .collect();
        let schema = Arc::new(Schema::new(fields));
        let batch = RecordBatch::try_new(schema.clone(), arrays)?;
        let mut bytes = Vec::new();
        let mut w = parquet::arrow::ArrowWriter::try_new(&mut bytes, schema, None)?;
        w.write(&batch)?;
        w.close()?;
        Ok(bytes)
    }
}

/// The metrics of `r` to tabulate, in order: the plan's selection (each must be there), or
/// every metric of the run by name.
fn chosen<'a>(plan: &'a Plan, r: &'a RunResult, what: &str) -> Result<Vec<(&'a str, f64)>> {
    match &plan.metrics {
        None => Ok(r.metrics.iter().map(|(k, v)| (k.as_str(), *v)).collect()),
        Some(names) => names
            .iter()
            .map(|n| match r.metrics.get(n) {
                Some(v) => Ok((n.as_str(), *v)),
                None => bail!(
                    "{what} has no metric `{n}` (it has: {})",
                    r.metrics.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            })
            .collect(),
    }
}

/// `results`: one row per run × metric, runs in plan order, then metrics in order. `done`
/// holds the results of the runs to tabulate, by plan index.
pub fn results(plan: &Plan, done: &BTreeMap<usize, RunResult>) -> Result<Table> {
    let mut keys: Vec<Vec<Option<String>>> = vec![Vec::new(); plan.keys.len()];
    let (mut seed, mut hash, mut metric, mut value) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (&i, r) in done {
        let run = &plan.runs[i];
        let what = format!(
            "run {} (configuration {}, seed {})",
            i + 1,
            run.config + 1,
            run.seed
        );
        for (m, v) in chosen(plan, r, &what)? {
            for (k, col) in keys.iter_mut().enumerate() {
                col.push(plan.configs[run.config].values[k].clone());
            }
            seed.push(run.seed);
            hash.push(Some(run.config_hash.clone()));
            metric.push(Some(m.to_string()));
            value.push(Some(v));
        }
    }
    let mut columns: Vec<Column> = plan
        .keys
        .iter()
        .zip(keys)
        .map(|(k, v)| Column {
            name: k.clone(),
            values: Values::Str(v),
        })
        .collect();
    columns.extend([
        Column {
            name: "seed".into(),
            values: Values::U64(seed),
        },
        Column {
            name: "config_hash".into(),
            values: Values::Str(hash),
        },
        Column {
            name: "metric".into(),
            values: Values::Str(metric),
        },
        Column {
            name: "value".into(),
            values: Values::F64(value),
        },
    ]);
    Ok(Table { columns })
}

/// Mean, sample standard deviation and the 95 % Student-t confidence interval of the mean of
/// `xs`; `None` for what needs more values (the spread of one value is not known).
pub struct Stats {
    /// How many values.
    pub n: usize,
    /// Their mean; `None` for no values.
    pub mean: Option<f64>,
    /// Their sample standard deviation (divisor `n - 1`); `None` for fewer than 2 values.
    pub sd: Option<f64>,
    /// The 95 % Student-t confidence interval of the mean, (low, high), with `n - 1` degrees of
    /// freedom; `None` for fewer than 2 values.
    pub ci95: Option<(f64, f64)>,
}

/// The [`Stats`] of `xs`, taken as they are (the caller leaves out what is not finite).
pub fn stats(xs: &[f64]) -> Stats {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    let n = xs.len();
    if n == 0 {
        return Stats {
            n,
            mean: None,
            sd: None,
            ci95: None,
        };
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return Stats {
            n,
            mean: Some(mean),
            sd: None,
            ci95: None,
        };
    }
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
    let sd = var.sqrt();
    let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
        .expect("n - 1 >= 1 degrees of freedom")
        .inverse_cdf(0.975);
    let half = t * sd / (n as f64).sqrt();
    Stats {
        n,
        mean: Some(mean),
        sd: Some(sd),
        ci95: Some((mean - half, mean + half)),
    }
}

/// `summary`: per configuration (plan order) × metric, over the seeds tabulated: `runs` (how
/// many runs), `n` (how many of them had a finite value; the statistics use those), `mean`,
/// `sd`, `ci95_low`, `ci95_high`.
pub fn summary(plan: &Plan, done: &BTreeMap<usize, RunResult>) -> Result<Table> {
    // configuration → metric (first-seen order) → values in seed order.
    let mut groups: BTreeMap<usize, Vec<(String, Vec<f64>)>> = BTreeMap::new();
    for (&i, r) in done {
        let run = &plan.runs[i];
        let what = format!(
            "run {} (configuration {}, seed {})",
            i + 1,
            run.config + 1,
            run.seed
        );
        let g = groups.entry(run.config).or_default();
        for (m, v) in chosen(plan, r, &what)? {
            match g.iter_mut().find(|(name, _)| name == m) {
                Some((_, vs)) => vs.push(v),
                None => g.push((m.to_string(), vec![v])),
            }
        }
    }
    let mut keys: Vec<Vec<Option<String>>> = vec![Vec::new(); plan.keys.len()];
    let mut metric = Vec::new();
    let (mut runs, mut n) = (Vec::new(), Vec::new());
    let (mut mean, mut sd, mut lo, mut hi) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (config, metrics) in &groups {
        for (m, vs) in metrics {
            for (k, col) in keys.iter_mut().enumerate() {
                col.push(plan.configs[*config].values[k].clone());
            }
            let finite: Vec<f64> = vs.iter().copied().filter(|v| v.is_finite()).collect();
            let s = stats(&finite);
            metric.push(Some(m.clone()));
            runs.push(vs.len() as u64);
            n.push(s.n as u64);
            mean.push(s.mean);
            sd.push(s.sd);
            lo.push(s.ci95.map(|c| c.0));
            hi.push(s.ci95.map(|c| c.1));
        }
    }
    let mut columns: Vec<Column> = plan
        .keys
        .iter()
        .zip(keys)
        .map(|(k, v)| Column {
            name: k.clone(),
            values: Values::Str(v),
        })
        .collect();
    let f = |name: &str, v: Vec<Option<f64>>| Column {
        name: name.into(),
        values: Values::F64(v),
    };
    columns.push(Column {
        name: "metric".into(),
        values: Values::Str(metric),
    });
    columns.push(Column {
        name: "runs".into(),
        values: Values::U64(runs),
    });
    columns.push(Column {
        name: "n".into(),
        values: Values::U64(n),
    });
    columns.extend([
        f("mean", mean),
        f("sd", sd),
        f("ci95_low", lo),
        f("ci95_high", hi),
    ]);
    Ok(Table { columns })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn student_t_interval() {
        // 10 values 1..=10: mean 5.5, sd 3.02765, t(0.975, 9) = 2.262157.
        let xs: Vec<f64> = (1..=10).map(f64::from).collect();
        let s = stats(&xs);
        assert_eq!(s.mean, Some(5.5));
        let sd = s.sd.unwrap();
        assert!((sd - 3.0276503540974917).abs() < 1e-12, "{sd}");
        let (lo, hi) = s.ci95.unwrap();
        let half = 2.2621571627982 * sd / 10f64.sqrt();
        assert!(
            (lo - (5.5 - half)).abs() < 1e-9 && (hi - (5.5 + half)).abs() < 1e-9,
            "{lo} {hi}"
        );
        // Two values: t(0.975, 1) = 12.7062.
        let s = stats(&[1.0, 3.0]);
        let (lo, _) = s.ci95.unwrap();
        assert!(
            (lo - (2.0 - 12.706204736 * 2f64.sqrt() / 2f64.sqrt())).abs() < 1e-6,
            "{lo}"
        );
        let one = stats(&[4.0]);
        assert_eq!(
            (one.mean, one.sd.is_none(), one.ci95.is_none()),
            (Some(4.0), true, true)
        );
        assert_eq!(stats(&[]).mean, None);
    }

    #[test]
    fn csv_cells() {
        let t = Table {
            columns: vec![
                Column {
                    name: "k".into(),
                    values: Values::Str(vec![Some("a,b".into()), None]),
                },
                Column {
                    name: "v".into(),
                    values: Values::F64(vec![Some(0.1), Some(f64::NAN)]),
                },
            ],
        };
        let csv = String::from_utf8(t.to_csv().unwrap()).unwrap();
        assert_eq!(csv, "k,v\n\"a,b\",0.1\n,NaN\n");
        // The Parquet file reads back as the same columns, with nulls where CSV is empty.
        use arrow_array::{Array, Float64Array, StringArray};
        let path = std::env::temp_dir().join(format!("nmc-sweep-t-{}.parquet", std::process::id()));
        std::fs::write(&path, t.to_parquet().unwrap()).unwrap();
        let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
            std::fs::File::open(&path).unwrap(),
        )
        .unwrap()
        .build()
        .unwrap();
        let batches: Vec<_> = reader.map(|b| b.unwrap()).collect();
        let _ = std::fs::remove_file(&path);
        assert_eq!(batches.len(), 1);
        let b = &batches[0];
        let schema = b.schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["k", "v"]);
        let k = b.column(0).as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!((k.value(0), k.is_null(1)), ("a,b", true));
        let v = b.column(1).as_any().downcast_ref::<Float64Array>().unwrap();
        assert!(v.value(0) == 0.1 && v.value(1).is_nan());
    }
}
