//! The text of the relaxation steps' notes (what each step did or why it did not run), shown in
//! a search's trace.

use super::TOPICAL_FIELDS;
use crate::scope::Scope;
use crate::search::RelaxStep;

/// `x` in decimal with `places` digits after the point, or at most `places` with trailing zeros
/// dropped when `trim` (`2`, `1.5`): the numbers of a step's note. Written with integers, not
/// with `format!`'s float formatting, which would bring Grisu and Dragon into the browser's module
/// (about 9 kB) for these notes alone. `places` is at most 9.
pub(super) fn decimal(x: f64, places: u32, trim: bool) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "NaN"
        } else if x > 0.0 {
            "inf"
        } else {
            "-inf"
        }
        .into();
    }
    let scale = 10u64.pow(places);
    let scaled = (x.abs() * scale as f64).round();
    if scaled >= u64::MAX as f64 {
        // Beyond what the notes ever print: the integer part alone.
        return format!("{}", x.round() as i64);
    }
    let scaled = scaled as u64;
    let sign = if x < 0.0 && scaled > 0 { "-" } else { "" };
    let (int, frac) = (scaled / scale, scaled % scale);
    let mut digits = format!("{frac:0width$}", width = places as usize);
    if trim {
        digits.truncate(digits.trim_end_matches('0').len());
    }
    if digits.is_empty() {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{digits}")
    }
}

/// W1's note when it has nothing to drop: no topical field, or only locked ones.
pub(super) fn skipped_w1(scope: &Scope) -> String {
    let locked: Vec<&str> = TOPICAL_FIELDS
        .iter()
        .filter(|f| scope.get(**f).is_some() && scope.is_locked(**f))
        .map(|f| f.name())
        .collect();
    if locked.is_empty() {
        "skipped: the scope has no topic, chapter or section to drop".into()
    } else {
        format!("skipped: {} locked", locked.join(", "))
    }
}

/// W2's note when strict keys (see [`w2_blockers`]) block it.
pub(super) fn blocked_by_strict(strict: &[String]) -> String {
    format!(
        "blocked: strict key(s) set ({}): another level is not an answer",
        strict.join(", ")
    )
}

/// W3's step record: what the fallback searched (everything, or only the locked fields).
pub(super) fn fallback_step(scope: &Scope, added: usize, why: &str) -> RelaxStep {
    let locks = scope.locks_only();
    RelaxStep::ran(
        "W3",
        vec!["*".into()],
        locks.to_json(),
        added,
        if locks.is_empty() {
            format!(
                "{why}unfiltered lexical fallback over every shard the query could match \
                 (allow_fallback; shards not loaded yet are in pending_shards)"
            )
        } else {
            format!(
                "{why}lexical fallback within the locked fields ({locks}) over every shard the \
                 query could match (allow_fallback; shards not loaded yet are in pending_shards)"
            )
        },
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_notes_numbers_read_as_formats_did() {
        for x in [
            0.0, 0.004, 0.25, 1.0, 1.3, 2.5, 3.25159, 12.0, 999.999, 1000.0,
        ] {
            assert_eq!(super::decimal(x, 2, false), format!("{x:.2}"), "{x}");
            assert_eq!(super::decimal(x, 6, true), format!("{x}"), "{x}");
            assert_eq!(
                super::decimal(-x, 2, false),
                format!("{:.2}", -x).replace("-0.00", "0.00")
            );
        }
        assert_eq!(super::decimal(f64::NAN, 2, false), "NaN");
        assert_eq!(super::decimal(1e300, 2, false), format!("{}", i64::MAX));
    }
}
