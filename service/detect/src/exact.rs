//! Exact comparison of readings with threshold levels. Thresholds and readings arrive as
//! doubles parsed from decimals, and `8.2 - 1.0` in binary is 7.199999999999999: a reading of
//! exactly 7.2 would miss the release level the spec names. So each double is taken as the
//! shortest decimal that reads back as it (what was written, for up to 15 significant digits)
//! and the level is computed in decimal.

use std::cmp::Ordering;

use rust_decimal::Decimal;

/// Relative distance beyond which doubles already order a value and a level correctly (their
/// rounding errors are a few ulps, about 1e-16 relative).
const NEAR: f64 = 1e-9;

/// `value` against `threshold + offset`, both read as the decimals they were written as.
pub(crate) fn compare(value: f64, threshold: f64, offset: f64) -> Ordering {
    let level = threshold + offset;
    if (value - level).abs() > NEAR * level.abs().max(1.0) {
        return value.total_cmp(&level);
    }
    let exact = decimal(threshold)
        .zip(decimal(offset))
        .and_then(|(t, o)| t.checked_add(o))
        .zip(decimal(value));
    match exact {
        Some((level, value)) => value.cmp(&level),
        // Beyond Decimal's 28 digits: no decimal was written that precisely.
        None => value.partial_cmp(&level).unwrap_or(Ordering::Equal),
    }
}

/// The shortest decimal that parses back to `x` (`Display` of f64 writes it, without exponent).
fn decimal(x: f64) -> Option<Decimal> {
    Decimal::from_str_exact(&x.to_string()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_computed_in_decimal() {
        assert_ne!(8.2 - 1.0, 7.2, "the double arithmetic this module avoids");
        assert_eq!(compare(7.2, 8.2, -1.0), Ordering::Equal);
        assert_eq!(compare(3.3, 3.2, 0.1), Ordering::Equal);
        assert_eq!(compare(4.2, 4.1, 0.1), Ordering::Equal);
        assert_eq!(compare(7.200001, 8.2, -1.0), Ordering::Greater);
        assert_eq!(compare(7.199999, 8.2, -1.0), Ordering::Less);
        assert_eq!(compare(100.0, 8.2, -1.0), Ordering::Greater);
        assert_eq!(compare(-100.0, 8.2, -1.0), Ordering::Less);
    }

    #[test]
    fn values_beyond_decimal_range_fall_back_to_doubles() {
        assert_eq!(compare(1e300, 1e300, 0.0), Ordering::Equal);
        assert_eq!(compare(1e-300, 0.0, 0.0), Ordering::Greater);
        assert_eq!(compare(-1e-300, 0.0, 0.0), Ordering::Less);
    }
}
