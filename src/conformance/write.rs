//! Writing a conformance report's files: `conformance.json`, `.md` and `.html`, each
//! atomically. Kept apart from [`super::report`] (the data) and [`super::render`] (the
//! Markdown and HTML) so that neither imports the other's user.

use std::path::Path;

use super::render;
use super::report::ConformanceReport;
use crate::report::write_atomically;

impl ConformanceReport {
    /// Writes `conformance.json`, `.md` and `.html` into `directory` (created if needed),
    /// each atomically.
    pub fn write(&self, directory: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(directory)?;
        let json = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        write_atomically(&directory.join("conformance.json"), json.as_bytes())?;
        write_atomically(
            &directory.join("conformance.md"),
            render::markdown(self).as_bytes(),
        )?;
        write_atomically(
            &directory.join("conformance.html"),
            render::html(self).as_bytes(),
        )
    }
}
