//! What `bloom info` and `bloom size` print: named fields, as text or as JSON.

use std::io::{self, Write};

use bloom_core::math;
use serde_json::{Map, Value, json};

use crate::filter::{AnyFilter, HashInfo, Kind};
use crate::key;

/// Named values in the order the text form prints them.
pub(crate) type Fields = Vec<(&'static str, Value)>;

/// The fields `bloom info` prints for a filter: its variant, whether it is keyed and its
/// seed or key fingerprint (`hash`, as the file says), parameters, memory, fill, estimated
/// keys and estimated false-positive rate at that fill.
pub(crate) fn info(filter: &AnyFilter, hash: HashInfo) -> Fields {
    let mut fields: Fields = vec![
        ("variant", json!(filter.kind().name())),
        ("keyed", json!(matches!(hash, HashInfo::Keyed { .. }))),
    ];
    match hash {
        // Parquet's seed is fixed: nothing to show.
        HashInfo::Parquet => {}
        HashInfo::Seeded(seed) => fields.push(("seed", json!(seed))),
        HashInfo::Keyed { fingerprint } => {
            fields.push(("key_fingerprint", json!(key::fingerprint_hex(fingerprint))))
        }
    }
    match filter {
        AnyFilter::Classic(f) => fields.extend([
            ("num_bits", json!(f.num_bits())),
            ("num_hashes", json!(f.num_hashes())),
        ]),
        AnyFilter::Blocked(f) => fields.extend([
            ("num_bits", json!(f.num_bits())),
            ("num_blocks", json!(f.num_blocks())),
            ("num_hashes", json!(f.num_hashes())),
        ]),
        AnyFilter::Multiblock(f) => fields.extend([
            ("num_bits", json!(f.num_bits())),
            ("num_blocks", json!(f.num_blocks())),
            ("num_hashes", json!(f.num_hashes())),
        ]),
        AnyFilter::Multiblock32(f) => fields.extend([
            ("num_bits", json!(f.num_bits())),
            ("num_blocks", json!(f.num_blocks())),
            ("num_hashes", json!(f.num_hashes())),
        ]),
        AnyFilter::SplitBlock(f) => fields.extend([
            ("num_bits", json!(f.num_bytes() as u64 * 8)),
            ("num_blocks", json!(f.num_blocks())),
            ("num_hashes", json!(SPLIT_BLOCK_HASHES)),
        ]),
        AnyFilter::Counting(f) => fields.extend([
            ("num_counters", json!(f.num_counters())),
            ("num_hashes", json!(f.num_hashes())),
            ("saturated_counters", json!(f.saturated_counters())),
        ]),
        AnyFilter::Scalable(f) => {
            let layers = f.layers();
            let bits: u64 = layers.iter().map(|l| l.filter().num_bits()).sum();
            fields.extend([
                ("target_fpr", json!(f.target_fpr())),
                ("initial_capacity", json!(f.initial_capacity())),
                ("growth_factor", json!(f.growth_factor())),
                ("tightening_ratio", json!(f.tightening_ratio())),
                ("capacity", json!(f.capacity())),
                ("keys_added", json!(f.len())),
                ("num_layers", json!(f.num_layers())),
                ("num_bits", json!(bits)),
                (
                    "layers",
                    Value::Array(
                        layers
                            .iter()
                            .map(|l| {
                                json!({
                                    "capacity": l.capacity(),
                                    "keys_added": l.len(),
                                    "num_bits": l.filter().num_bits(),
                                    "num_hashes": l.filter().num_hashes(),
                                })
                            })
                            .collect(),
                    ),
                ),
            ]);
        }
    }
    fields.extend([
        ("fill_ratio", json!(filter.fill_ratio())),
        ("memory_bytes", json!(filter.memory_usage())),
        ("estimated_keys", json!(filter.estimated_len())),
        ("estimated_fpr", json!(filter.estimated_fpr())),
    ]);
    fields
}

/// The probes of a split-block filter: one bit in each of a block's eight 32-bit words
/// (Parquet's format specification, "Split Block Bloom Filters").
const SPLIT_BLOCK_HASHES: u32 = 8;

/// One line of `bloom size`: what `new(n, p)` of a variant builds, and the false-positive
/// rate theory expects of it once it holds `n` keys.
pub(crate) fn size(kind: Kind, n: u64, p: f64) -> Fields {
    let mut fields: Fields = vec![("variant", json!(kind.name()))];
    // The filter is built for real: its words are zeroed lazily by the allocator, so even a
    // large one costs address space, not time or memory, and the figures are exactly what
    // `new` does.
    let filter = match AnyFilter::new(kind, n, p) {
        Ok(filter) => filter,
        Err(e) => {
            fields.push(("error", json!(e.to_string())));
            return fields;
        }
    };
    let (num_bits, num_hashes, expected_fpr) = match &filter {
        AnyFilter::Classic(f) => {
            let (m, k) = (f.num_bits(), f.num_hashes());
            (m, k, math::paired_fpr(m, k, n))
        }
        AnyFilter::Blocked(f) => (f.num_bits(), f.num_hashes(), f.expected_fpr(n)),
        AnyFilter::Multiblock(f) => (f.num_bits(), f.num_hashes(), f.expected_fpr(n)),
        AnyFilter::Multiblock32(f) => (f.num_bits(), f.num_hashes(), f.expected_fpr(n)),
        AnyFilter::SplitBlock(f) => (
            f.num_bytes() as u64 * 8,
            SPLIT_BLOCK_HASHES,
            split_block_fpr(f.num_blocks() as u64, n),
        ),
        AnyFilter::Counting(f) => {
            // The counters' non-zero pattern is a classic filter's bits (docs/format.md).
            let (m, k) = (f.num_counters(), f.num_hashes());
            (m * 4, k, math::paired_fpr(m, k, n))
        }
        AnyFilter::Scalable(f) => {
            // n keys fill exactly the first layer, whose rate is P (1 - r): the later
            // layers' share of P is kept for growth.
            let first = f.layers()[0].filter();
            let (m, k) = (first.num_bits(), first.num_hashes());
            (m, k, math::paired_fpr(m, k, n))
        }
    };
    fields.extend([
        ("memory_bytes", json!(filter.memory_usage())),
        ("bits_per_key", json!(num_bits as f64 / n as f64)),
        ("num_hashes", json!(num_hashes)),
        ("expected_fpr", json!(expected_fpr)),
    ]);
    fields
}

/// The false-positive rate of a split-block filter of `num_blocks` blocks holding
/// `num_items` keys.
///
/// A key picks a uniform block and sets one uniform bit in each of its eight 32-bit words,
/// so with `J ~ Pois(λ = n / z)` keys in the queried block (the Poisson limit of the
/// binomial, as for every blocked filter: Putze, Sanders, Singler, "Cache-, Hash- and
/// Space-Efficient Bloom Filters", 2007) and `q = 31/32`, the rate is
/// `E[(1 - q^J)^8]`. Expanding the eighth power and using `E[x^J] = exp(λ (x - 1))`
/// gives the closed form `sum_i C(8, i) (-1)^i exp(λ (q^i - 1))`, with no series to cut.
pub(crate) fn split_block_fpr(num_blocks: u64, num_items: u64) -> f64 {
    if num_blocks == 0 {
        return 1.0;
    }
    let lambda = num_items as f64 / num_blocks as f64;
    let q = 31.0 / 32.0_f64;
    let mut binomial = 1.0;
    let mut sum = 0.0;
    for i in 0..=SPLIT_BLOCK_HASHES {
        if i > 0 {
            binomial = binomial * f64::from(SPLIT_BLOCK_HASHES - i + 1) / f64::from(i);
        }
        let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
        sum += sign * binomial * (lambda * (q.powi(i as i32) - 1.0)).exp();
    }
    // The alternating sum cancels to about 1e-14 at worst: never below zero.
    sum.max(0.0)
}

/// Prints `fields` as one JSON object.
///
/// # Errors
///
/// The error of writing to `out`.
pub(crate) fn write_json(out: &mut impl Write, fields: Fields) -> io::Result<()> {
    let object: Map<String, Value> = fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    writeln!(out, "{}", Value::Object(object))
}

/// Prints `fields` as `name: value` lines, strings without quotes.
///
/// # Errors
///
/// The error of writing to `out`.
pub(crate) fn write_text(out: &mut impl Write, fields: &Fields) -> io::Result<()> {
    for (name, value) in fields {
        match value {
            Value::String(s) => writeln!(out, "{name}: {s}")?,
            Value::Array(items) => {
                writeln!(out, "{name}:")?;
                for item in items {
                    writeln!(out, "  {item}")?;
                }
            }
            other => writeln!(out, "{name}: {other}")?,
        }
    }
    Ok(())
}

/// Prints the rows of `bloom size` as an aligned table, or a variant's error in place of
/// its figures.
///
/// # Errors
///
/// The error of writing to `out`.
pub(crate) fn write_size_table(out: &mut impl Write, rows: &[Fields]) -> io::Result<()> {
    writeln!(
        out,
        "{:<12} {:>16} {:>12} {:>6} {:>14}",
        "variant", "memory (bytes)", "bits/key", "k", "expected FPR"
    )?;
    for row in rows {
        let get = |name: &str| row.iter().find(|(n, _)| *n == name).map(|(_, v)| v);
        let variant = get("variant").and_then(Value::as_str).unwrap_or("");
        if let Some(error) = get("error").and_then(Value::as_str) {
            writeln!(out, "{variant:<12} {error}")?;
            continue;
        }
        let number = |name: &str| get(name).and_then(Value::as_f64).unwrap_or(f64::NAN);
        writeln!(
            out,
            "{variant:<12} {:>16} {:>12.3} {:>6} {:>14.3e}",
            number("memory_bytes"),
            number("bits_per_key"),
            number("num_hashes"),
            number("expected_fpr"),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_block_fpr_matches_the_poisson_series() {
        // The series summed term by term, far past where its terms vanish.
        let series = |lambda: f64| {
            let mut pmf = (-lambda).exp();
            let mut total = 0.0;
            for j in 0..2000 {
                if j > 0 {
                    pmf *= lambda / f64::from(j);
                }
                total += pmf * (1.0 - (31.0f64 / 32.0).powi(j)).powi(8);
            }
            total
        };
        for (blocks, items) in [(1000, 1000), (1000, 16_000), (65_536, 1_000_000)] {
            let closed = split_block_fpr(blocks, items);
            let summed = series(items as f64 / blocks as f64);
            assert!((closed - summed).abs() <= 1e-12, "{closed} vs {summed}");
        }
        assert_eq!(split_block_fpr(10, 0), 0.0);
    }
}
