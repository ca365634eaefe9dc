//! The list of ready adapters (`adapters/list.json`) that `utf8conf check --all` runs.
//!
//! Each entry names an adapter, its argv relative to the repository root, and the
//! executables it needs on `PATH` (`requires`, all of them; `requires_one_of`, at least
//! one). An adapter whose toolchain is absent is skipped, with the missing executable
//! named, rather than failing the whole matrix.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The `schema` value the list must carry.
pub const LIST_SCHEMA: &str = "utf8conf/adapters/1";

/// The list file.
#[derive(Debug, Clone, Deserialize)]
pub struct AdapterList {
    /// Must be [`LIST_SCHEMA`].
    pub schema: String,
    /// The adapters, in listing order.
    pub adapters: Vec<AdapterEntry>,
}

/// One adapter of the list.
#[derive(Debug, Clone, Deserialize)]
pub struct AdapterEntry {
    /// The name it is reported under.
    pub name: String,
    /// Its argv, relative to the repository root.
    pub cmd: Vec<String>,
    /// Executables that must all be on `PATH`.
    #[serde(default)]
    pub requires: Vec<String>,
    /// Executables of which at least one must be on `PATH` (empty: no such condition).
    #[serde(default)]
    pub requires_one_of: Vec<String>,
    /// One line about what it runs.
    #[serde(default)]
    pub description: String,
}

impl AdapterList {
    /// Reads and checks a list file.
    pub fn load(path: &Path) -> Result<AdapterList, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let list: AdapterList = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not an adapter list: {e}", path.display()))?;
        if list.schema != LIST_SCHEMA {
            return Err(format!(
                "{}: schema \"{}\", expected \"{LIST_SCHEMA}\"",
                path.display(),
                list.schema
            ));
        }
        if let Some(entry) = list.adapters.iter().find(|entry| entry.cmd.is_empty()) {
            return Err(format!(
                "{}: adapter {} has an empty cmd",
                path.display(),
                entry.name
            ));
        }
        Ok(list)
    }
}

impl AdapterEntry {
    /// The executables this adapter needs that are not on `PATH` (empty when it can run).
    pub fn missing_tools(&self) -> Vec<String> {
        let mut missing: Vec<String> = self
            .requires
            .iter()
            .filter(|tool| find_on_path(tool).is_none())
            .cloned()
            .collect();
        if !self.requires_one_of.is_empty()
            && self
                .requires_one_of
                .iter()
                .all(|tool| find_on_path(tool).is_none())
        {
            missing.push(format!("one of {}", self.requires_one_of.join("/")));
        }
        missing
    }

    /// Its argv with the program resolved against `root` when it is a path inside the
    /// repository (`adapters/java/run.sh`), and left to `PATH` otherwise (`python3`).
    /// Arguments that name files in the repository are resolved the same way.
    pub fn argv_in(&self, root: &Path) -> Vec<String> {
        self.cmd
            .iter()
            .map(|word| {
                let candidate = root.join(word);
                if word.contains('/') && candidate.exists() {
                    candidate.to_string_lossy().into_owned()
                } else {
                    word.clone()
                }
            })
            .collect()
    }
}

/// The full path of an executable found on `PATH`.
pub fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}
