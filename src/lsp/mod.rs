//! `loopy lsp`: a Language Server Protocol server for `.loopy` scripts (docs/editors.md).
//!
//! For each open script it finds the kernel (`locate`), runs the script step by step and
//! checks it as `loopy check` does (`analysis`), and answers an editor's questions from that
//! (`features`): diagnostics with the broken dependence and its witness, hovers with the
//! schedules a step moved, completion, definitions, and `suggest`'s repair as a code action.
//! The work runs on a thread of its own, is cancelled when the text changes, and keeps the
//! integer core's work budget (`server`).
//!
//! Built on `lsp-server` and `lsp-types`, the crates rust-analyzer's own server uses: a
//! synchronous message loop over channels, which suits work that is CPU-bound and runs on
//! one worker thread, without an async runtime.

mod analysis;
mod features;
mod locate;
mod ops;
mod server;
mod text;
mod uri;

pub use server::serve;

use std::path::PathBuf;

/// Serves an editor over standard input and output until it shuts down.
pub fn serve_stdio(budget: u64) -> Result<(), String> {
    let (connection, io) = lsp_server::Connection::stdio();
    serve(connection, budget)?;
    io.join().map_err(|e| e.to_string())
}

/// A file holding the standard library's text, for "go to definition" of its procedures:
/// the source tree's own when it is still there and unchanged, else a copy in the temporary
/// folder.
pub(crate) fn stdlib_path() -> Option<PathBuf> {
    use crate::script::stdlib::STD_TEXT;
    let tree = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/stdlib-scripts/std.loopy"
    ));
    if std::fs::read_to_string(&tree).is_ok_and(|t| t == STD_TEXT) {
        return Some(tree);
    }
    let dir = std::env::temp_dir().join(format!("loopy-{}", env!("CARGO_PKG_VERSION")));
    let copy = dir.join("std.loopy");
    if std::fs::read_to_string(&copy).is_ok_and(|t| t == STD_TEXT) {
        return Some(copy);
    }
    std::fs::create_dir_all(&dir).ok()?;
    std::fs::write(&copy, STD_TEXT).ok()?;
    Some(copy)
}
