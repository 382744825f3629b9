//! Estimator parameters as serde structs, and the `key=value` overrides that go through them.
//!
//! Each estimator keeps its parameters in one `#[derive(Serialize, Deserialize)]
//! #[serde(deny_unknown_fields)]` struct whose field names (after `rename`) are the spec keys.
//! The field types say how a value is read and written:
//!
//! | type | reads | writes |
//! | --- | --- | --- |
//! | [`Gain`] | a number in `[0, 1]`: `0.875`, `7/8` | `0.875` |
//! | [`Factor`] | a positive number: `2`, `3/2` | `1.5` |
//! | [`Nanos`] (with [`duration`]) | a duration with its unit: `200ms`, `1.5s` | `200ms`, `1s` |
//! | `Option<Nanos>` (with [`opt_duration`]) | as above, or `none`/`off` | `none` |
//! | `bool` (with [`flag`]) | `true`/`false`/`1`/`0`/`yes`/`no`/`on`/`off` | `true` |
//!
//! Every field writes itself as a string, so the serialized struct *is* the spec text: the keys
//! come from serde's own field list ([`keys`]), a value from the serialized struct ([`get`]), and
//! an override is the serialized struct with one string replaced, deserialized again ([`set`]),
//! so a bad value is refused by the same code that reads a scenario or JSON file.

use super::SpecError;
use crate::time::Nanos;
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// A gain or weight in `[0, 1]`; reads fractions such as `15/16`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gain(pub f64);

/// A positive finite factor; reads fractions such as `3/2`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Factor(pub f64);

const GAIN: &str = "expected a number in [0, 1], e.g. 0.875 or 7/8";
const FACTOR: &str = "expected a positive number";

/// `1.5`, `15/16`: [`nmc_sim::parse_fraction`].
fn number(v: &str) -> Option<f64> {
    nmc_sim::parse_fraction(v)
}

/// Reads a number from a string (with fractions) or from a number.
struct NumberVisitor(fn(f64) -> Option<f64>, &'static str);

impl Visitor<'_> for NumberVisitor {
    type Value = f64;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.1.trim_start_matches("expected "))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
        number(v).and_then(self.0).ok_or_else(|| E::custom(self.1))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
        self.0(v).ok_or_else(|| E::custom(self.1))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
        self.visit_f64(v as f64)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
        self.visit_f64(v as f64)
    }
}

impl Serialize for Gain {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Gain {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Gain, D::Error> {
        let ok = |x: f64| (0.0..=1.0).contains(&x).then_some(x);
        d.deserialize_any(NumberVisitor(ok, GAIN)).map(Gain)
    }
}

impl Serialize for Factor {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Factor {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Factor, D::Error> {
        let ok = |x: f64| (x > 0.0 && x.is_finite()).then_some(x);
        d.deserialize_any(NumberVisitor(ok, FACTOR)).map(Factor)
    }
}

/// The shortest exact text of a duration in `s`, `ms`, `us` or `ns` (`200ms`, `1s`, `1500ms`).
pub(crate) fn duration_text(d: Nanos) -> String {
    let ns = d.0;
    if ns.is_multiple_of(1_000_000_000) {
        format!("{}s", ns / 1_000_000_000)
    } else if ns.is_multiple_of(1_000_000) {
        format!("{}ms", ns / 1_000_000)
    } else if ns.is_multiple_of(1000) {
        format!("{}us", ns / 1000)
    } else {
        format!("{ns}ns")
    }
}

/// Reads a duration from a string with its unit (`200ms`); `none`/`off` too when `optional`.
struct DurationVisitor {
    optional: bool,
}

impl Visitor<'_> for DurationVisitor {
    type Value = Option<Nanos>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a duration with its unit, such as 200ms or 1.5s")?;
        if self.optional {
            f.write_str(", or none")?;
        }
        Ok(())
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<Nanos>, E> {
        let v = v.trim();
        if self.optional && (v.eq_ignore_ascii_case("none") || v.eq_ignore_ascii_case("off")) {
            return Ok(None);
        }
        v.parse::<Nanos>().map(Some).map_err(E::custom)
    }
}

/// Serde for a duration parameter: `"200ms"`, the shortest exact text in `s`, `ms`, `us` or `ns`.
pub mod duration {
    use super::*;

    /// Writes the duration as its shortest exact text with a unit (`200ms`, `1s`).
    pub fn serialize<S: Serializer>(d: &Nanos, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&duration_text(*d))
    }

    /// Reads a duration string with its unit (`200ms`, `1.5s`); a bare number is refused.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Nanos, D::Error> {
        d.deserialize_str(DurationVisitor { optional: false })
            .map(|v| v.expect("not optional"))
    }
}

/// Serde for an optional duration parameter: `"200ms"` or `"none"`.
pub mod opt_duration {
    use super::*;

    /// Writes the duration as its shortest exact text with a unit, or `none` when absent.
    pub fn serialize<S: Serializer>(d: &Option<Nanos>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.serialize_str(&duration_text(*d)),
            None => s.serialize_str("none"),
        }
    }

    /// Reads a duration string with its unit, or `none`/`off` (any case) as `None`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Nanos>, D::Error> {
        d.deserialize_str(DurationVisitor { optional: true })
    }
}

/// Serde for a switch: writes `"true"`/`"false"`, reads those, `1`/`0`, `yes`/`no`, `on`/`off`
/// and booleans.
pub mod flag {
    use super::*;

    /// Writes the switch as the string `"true"` or `"false"`.
    pub fn serialize<S: Serializer>(b: &bool, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(if *b { "true" } else { "false" })
    }

    /// Reads a boolean, or the strings `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off` in any
    /// case.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = bool;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("true or false")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<bool, E> {
                Ok(v)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
                match v.to_ascii_lowercase().as_str() {
                    "true" | "1" | "yes" | "on" => Ok(true),
                    "false" | "0" | "no" | "off" => Ok(false),
                    _ => Err(E::custom("expected true or false")),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// The keys of a parameter struct, in declaration order, as serde names them: read from the
/// field list the derived `Deserialize` hands to `deserialize_struct`.
pub fn keys<P: DeserializeOwned>() -> &'static [&'static str] {
    struct Fields(&'static [&'static str]);
    #[derive(Debug)]
    struct Stop;
    impl fmt::Display for Stop {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("field list read")
        }
    }
    impl std::error::Error for Stop {}
    impl de::Error for Stop {
        fn custom<T: fmt::Display>(_: T) -> Stop {
            Stop
        }
    }
    impl<'de> Deserializer<'de> for &mut Fields {
        type Error = Stop;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
            Err(Stop)
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Stop> {
            self.0 = fields;
            Err(Stop)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    let mut f = Fields(&[]);
    let _ = P::deserialize(&mut f);
    f.0
}

/// The serialized struct: every key with its text.
fn as_map<P: Serialize>(p: &P) -> serde_json::Map<String, serde_json::Value> {
    match serde_json::to_value(p) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => unreachable!("parameter structs serialize to a map of strings"),
    }
}

/// The text of parameter `key` (matched case-insensitively), as [`set`] reads it.
pub fn get<P: Serialize + DeserializeOwned>(p: &P, key: &str) -> Option<String> {
    let key = keys::<P>().iter().find(|k| k.eq_ignore_ascii_case(key))?;
    as_map(p)
        .get(*key)
        .and_then(|v| v.as_str())
        .map(str::to_string)
}

/// `p` with parameter `key` (matched case-insensitively) set from its text, and the key's
/// canonical spelling. An unknown key or a bad value is a one-line [`SpecError`] naming the key
/// and the estimator.
pub fn set<P: Serialize + DeserializeOwned>(
    estimator: &'static str,
    p: &P,
    key: &str,
    value: &str,
) -> Result<(P, &'static str), SpecError> {
    let known = keys::<P>();
    let canonical = known
        .iter()
        .copied()
        .find(|k| k.eq_ignore_ascii_case(key))
        .ok_or_else(|| SpecError::UnknownKey {
            estimator,
            key: key.to_string(),
            known,
        })?;
    let mut m = as_map(p);
    m.insert(canonical.to_string(), value.into());
    let p = serde_json::from_value(m.into()).map_err(|e| SpecError::BadValue {
        estimator,
        key: canonical,
        value: value.to_string(),
        reason: e.to_string(),
    })?;
    Ok((p, canonical))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct P {
        #[serde(rename = "F")]
        f: Gain,
        g: Factor,
        #[serde(with = "duration")]
        init: Nanos,
        #[serde(with = "opt_duration")]
        lbound: Option<Nanos>,
        #[serde(with = "flag")]
        karn: bool,
    }

    fn p() -> P {
        P {
            f: Gain(0.875),
            g: Factor(2.0),
            init: Nanos::from_secs(3),
            lbound: None,
            karn: false,
        }
    }

    #[test]
    fn keys_get_and_set_go_through_serde() {
        assert_eq!(keys::<P>(), ["F", "g", "init", "lbound", "karn"]);
        assert_eq!(get(&p(), "f").as_deref(), Some("0.875"));
        assert_eq!(get(&p(), "init").as_deref(), Some("3s"));
        assert_eq!(get(&p(), "lbound").as_deref(), Some("none"));
        let (q, k) = set("x", &p(), "f", "15/16").unwrap();
        assert_eq!((q.f, k), (Gain(0.9375), "F"));
        let (q, _) = set("x", &q, "lbound", "1.5s").unwrap();
        assert_eq!(q.lbound, Some(Nanos(1_500_000_000)));
        assert_eq!(get(&q, "lbound").as_deref(), Some("1500ms"));
        let (q, _) = set("x", &q, "karn", "yes").unwrap();
        assert!(q.karn);
    }

    #[test]
    fn errors_name_the_key_and_the_estimator() {
        let e = set("x", &p(), "h", "1").unwrap_err().to_string();
        assert!(e.contains("unknown key `h` for estimator `x`"), "{e}");
        let e = set("x", &p(), "F", "1.5").unwrap_err().to_string();
        assert!(e.contains("x key F") && e.contains("[0, 1]"), "{e}");
        let e = set("x", &p(), "init", "3").unwrap_err().to_string();
        assert!(
            e.contains("x key init") && e.contains("`3` needs a unit"),
            "{e}"
        );
        let e = set("x", &p(), "karn", "maybe").unwrap_err().to_string();
        assert!(e.contains("true or false") && !e.contains('\n'), "{e}");
    }

    #[test]
    fn a_file_may_give_numbers_and_booleans() {
        let q: P = serde_json::from_str(
            r#"{"F": 0.5, "g": 3, "init": "1s", "lbound": "none", "karn": true}"#,
        )
        .unwrap();
        assert_eq!((q.f, q.g, q.karn), (Gain(0.5), Factor(3.0), true));
        let e = serde_json::from_str::<P>(
            r#"{"F": 0.5, "g": 3, "init": "1s", "lbound": "none", "karn": true, "zz": 1}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("unknown field `zz`"), "{e}");
    }
}
