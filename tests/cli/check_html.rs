//! The conformance page in a real browser: headless Chromium loads `conformance.html`
//! (self-contained, no network) and the dumped DOM must hold the category table and the
//! 256x256 map, drawn by the page's inline script (which records the cells it drew).
//! Skipped, with a message, when `/usr/bin/chromium` or `python3` is missing
//! (`.ci/browser.sh` installs Chromium for CI).

use std::path::{Path, PathBuf};
use std::process::Command;

const CHROMIUM: &str = "/usr/bin/chromium";

fn chromium(profile: &Path, args: &[&str]) -> std::process::Output {
    Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .output()
        .expect("chromium runs")
}

#[test]
#[ignore = "slow (a whole check of a Python adapter, then Chromium, about 20 s): .ci/run installs Chromium and runs it with --ignored"]
fn the_report_page_renders_its_table_and_map_in_chromium() {
    if !Path::new(CHROMIUM).exists() {
        eprintln!("skipped: {CHROMIUM} not found (install it with .ci/browser.sh)");
        return;
    }
    if utf8conf::adapter::list::find_on_path("python3").is_none() {
        eprintln!("skipped: python3 is not on PATH");
        return;
    }
    let scratch: PathBuf =
        std::env::temp_dir().join(format!("utf8conf-html-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let (code, _, stderr, out) = crate::per_byte_check();
    assert_eq!(*code, 1, "{stderr}");
    let page = format!("file://{}", out.join("conformance.html").display());

    let dump = chromium(
        &scratch.join("profile"),
        &["--window-size=1280,2600", "--dump-dom", &page],
    );
    let dom = String::from_utf8_lossy(&dump.stdout);
    assert!(
        dom.contains("<table id=\"categories\""),
        "no category table"
    );
    assert_eq!(dom.matches("<tr data-category=").count(), 18);
    assert!(dom.contains("<h2>Findings</h2>"), "no findings section");
    assert!(dom.contains("class=\"axis-x\""), "no map axis labels");
    let width: u32 = dom
        .split("data-page-width=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .and_then(|w| w.parse().ok())
        .expect("the width script ran");
    assert!(
        width <= 1280,
        "the page is {width} px wide at a 1280 px window"
    );
    assert!(
        dom.contains("data-cells-drawn=\"65536\""),
        "the map script did not run: {}",
        String::from_utf8_lossy(&dump.stderr)
    );
    assert!(dom.contains("<span id=\"policy\">per-byte</span>"));

    let screenshot = scratch.join("conformance.png");
    let shot = chromium(
        &scratch.join("profile"),
        &[
            &format!("--screenshot={}", screenshot.display()),
            "--window-size=1280,2600",
            &page,
        ],
    );
    let png = std::fs::read(&screenshot)
        .unwrap_or_else(|_| panic!("no screenshot: {}", String::from_utf8_lossy(&shot.stderr)));
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    eprintln!("screenshot: {}", screenshot.display());
}

/// The learned machine's drawing (`utf8conf model --svg`) in the browser: Chromium parses
/// it as XML (a malformed file shows a `parsererror`), keeps a box per state of both
/// machines, and renders it.
#[test]
#[ignore = "slow (Chromium starts, about 5 s): .ci/run installs Chromium and runs it with --ignored"]
fn the_model_drawing_parses_and_renders_in_chromium() {
    if !Path::new(CHROMIUM).exists() {
        eprintln!("skipped: {CHROMIUM} not found (install it with .ci/browser.sh)");
        return;
    }
    let scratch: PathBuf =
        std::env::temp_dir().join(format!("utf8conf-svg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let drawing = scratch.join("model.svg");
    let output = Command::new(env!("CARGO_BIN_EXE_utf8conf"))
        .args(["model", "--decoder", "planted-overlong-3", "--svg"])
        .arg(&drawing)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let states = report["model"]["machine"]["states"]
        .as_array()
        .unwrap()
        .len()
        + report["reference"]["machine"]["states"]
            .as_array()
            .unwrap()
            .len();
    let page = format!("file://{}", drawing.display());
    let dump = chromium(&scratch.join("profile"), &["--dump-dom", &page]);
    let dom = String::from_utf8_lossy(&dump.stdout);
    assert!(!dom.contains("parsererror"), "not well-formed: {dom:.2000}");
    assert_eq!(dom.matches(" data-state=\"").count(), states);
    assert!(dom.contains("t diff primary"), "no difference marked");

    let screenshot = scratch.join("model.png");
    let shot = chromium(
        &scratch.join("profile"),
        &[
            &format!("--screenshot={}", screenshot.display()),
            "--window-size=1280,1400",
            &page,
        ],
    );
    let png = std::fs::read(&screenshot)
        .unwrap_or_else(|_| panic!("no screenshot: {}", String::from_utf8_lossy(&shot.stderr)));
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    eprintln!("screenshot: {}", screenshot.display());
}
