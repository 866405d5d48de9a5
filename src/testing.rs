//! Helpers shared by the unit tests that read the examples or write files.

use std::path::{Path, PathBuf};

/// A fresh, empty directory for one test (`group` and `name` keep tests apart).
pub fn scratch(group: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("loopy-{group}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Names of the examples that have a script (`examples/NAME/NAME.loopy`), sorted.
pub fn examples() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut v: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| root.join(n).join(format!("{n}.loopy")).exists())
        .collect();
    v.sort();
    v
}
