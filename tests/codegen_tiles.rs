//! Full and partial tiles: a 2-d loop tiled by 32 and split into whole tiles and the rest
//! (`isplit` on the tile coordinates). The partial tiles are the last row and the last column
//! of tiles; where both meet, the two parts of the statement are one conjunction once
//! restricted to the last row, so that row is one loop nest (snapshot), and the program
//! prints bit for bit what the original prints, at sizes with and without partial tiles.

mod common;
use common::loopy;
use std::path::Path;
use std::process::Command;

const KERNEL: &str = "tests/data/codegen/tiles/tiles.c";
const SCRIPT: &str = "tests/data/codegen/tiles/full_partial.loopy";

#[test]
fn partial_tiles_code() {
    let (code, out, err) = loopy(&["apply", KERNEL, SCRIPT, "--region-only"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("full_partial", out);
    // Whole tiles (4 loops); the last column of tiles above the last row (4); the last row
    // of tiles, every column at once (4). Without merging the two parts of the statement in
    // the last row, the loop over that row holds two nests of 3 loops (15 loops in all).
    assert_eq!(out.matches("for (").count(), 12, "{out}");
}

fn run(exe: &Path) -> String {
    let out = Command::new(exe).output().unwrap();
    assert!(out.status.success(), "{} failed", exe.display());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn partial_tiles_print_what_the_original_prints() {
    let dir = common::scratch("tiles", "partial");
    let new_src = dir.join("tiles.c");
    let (code, _, err) = loopy(&["apply", KERNEL, SCRIPT, "-o", new_src.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&new_src).unwrap();
    let old_src = Path::new(env!("CARGO_MANIFEST_DIR")).join(KERNEL);
    // Rows by columns: partial tiles in both directions, in one, in none, smaller than a
    // tile, one row or column.
    for (n, m) in [
        (70, 45),
        (64, 64),
        (64, 45),
        (70, 64),
        (31, 33),
        (32, 1),
        (1, 1),
        (95, 97),
    ] {
        let flags = [
            "-O2".to_string(),
            "-ffp-contract=off".to_string(),
            format!("-DN={n}"),
            format!("-DM={m}"),
        ];
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let (old_exe, new_exe) = (
            dir.join(format!("old{n}x{m}")),
            dir.join(format!("new{n}x{m}")),
        );
        common::compile(&old_src, &old_exe, &flags, "");
        // Warnings as errors at the default size only: with constant sizes smaller than a
        // tile, the compiler warns about the whole-tile loops it sees never run.
        let mut strict = flags.clone();
        if (n, m) == (70, 45) {
            strict.extend(["-Wall", "-Wextra", "-Werror"]);
        }
        common::compile(&new_src, &new_exe, &strict, &text);
        assert_eq!(run(&old_exe), run(&new_exe), "N={n} M={m}:\n{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
