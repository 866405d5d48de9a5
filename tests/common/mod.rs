//! Helpers shared by the integration tests that compile generated C.
#![allow(dead_code)] // each test crate uses its own subset

use std::path::Path;

/// The C compiler the tests build with: `$CC`, else `cc`.
pub fn cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".to_string())
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
