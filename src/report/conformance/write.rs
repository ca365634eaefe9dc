//! Writing a conformance report's files: `conformance.json`, `.md` and `.html`, each
//! atomically. The report's data is [`crate::conformance::report`]; its Markdown and
//! HTML are this module's parent.

use std::path::Path;

use super as render;
use crate::atomic_file::write_atomically;
use crate::conformance::report::ConformanceReport;

impl ConformanceReport {
    /// Writes `conformance.json`, `.md` and `.html` into `directory` (created if needed),
    /// each atomically. Every file is attempted even when an earlier one fails (a full
    /// disk may still take a smaller file), and the error names each file that could not
    /// be written, so the reader knows exactly which of the three are there.
    pub fn write(&self, directory: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(directory).map_err(|error| {
            std::io::Error::new(
                error.kind(),
                format!("cannot create {}: {error}", directory.display()),
            )
        })?;
        let json = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        let files = [
            ("conformance.json", json.into_bytes()),
            ("conformance.md", render::markdown(self).into_bytes()),
            ("conformance.html", render::html(self).into_bytes()),
        ];
        let mut failures: Vec<std::io::Error> = files
            .iter()
            .filter_map(|(name, contents)| write_atomically(&directory.join(name), contents).err())
            .collect();
        match failures.len() {
            0 => Ok(()),
            1 => Err(failures.remove(0)),
            _ => Err(std::io::Error::new(
                failures[0].kind(),
                failures
                    .iter()
                    .map(|error| error.to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            )),
        }
    }
}
