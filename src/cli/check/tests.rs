use super::*;

/// A list entry named `..` once wrote to the parent of `--out`, and duplicate names
/// overwrote each other.
#[test]
fn report_subdirectories_stay_inside_and_are_unique() {
    for name in ["..", ".", "", "../../etc", "a/b"] {
        let part = file_name_part(name);
        assert!(
            !part.is_empty() && part != "." && part != "..",
            "{name}: {part}"
        );
        assert!(!part.contains('/'), "{name}: {part}");
    }
}

/// `--timeout 1.8e19` once panicked on an Instant overflow.
#[test]
fn time_limits_are_bounded() {
    assert!(seconds_arg("--timeout", 1.8e19).is_err());
    assert!(seconds_arg("--timeout", f64::NAN).is_err());
    assert!(seconds_arg("--timeout", 0.0).is_err());
    assert!(seconds_arg("--timeout", -1.0).is_err());
    assert_eq!(
        seconds_arg("--timeout", 2.5).unwrap(),
        Duration::from_millis(2500)
    );
}
