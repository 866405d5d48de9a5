//! Every example through `loopy apply`: the generated code (snapshotted, so changes in code
//! quality show in review) compiles with `-Wall -Wextra -Werror`, and the transformed
//! program prints exactly what the original prints.

mod common;
use common::examples;
use loopy::driver::{generate_from_script, Kernel, Run};
use loopy::frontend::Options;
use std::path::{Path, PathBuf};
use std::process::Command;

fn compile(src: &Path, exe: &Path, strict: bool) {
    // No floating-point contraction: with it, the compiler may fuse a multiply and an add
    // in one program and not in the other, and the last bits differ.
    let mut flags = vec!["-O2", "-ffp-contract=off", "-lm"];
    if strict {
        flags.extend(["-Wall", "-Wextra", "-Werror"]);
    }
    common::compile(src, exe, &flags, "");
}

fn run(exe: &Path) -> Vec<u8> {
    let out = Command::new(exe).output().unwrap();
    assert!(out.status.success(), "{} failed", exe.display());
    out.stdout
}

#[test]
fn transformed_examples_compile_cleanly_and_print_the_same() {
    let dir: PathBuf = std::env::temp_dir().join(format!("loopy-examples-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in examples() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(&name);
        let c = root.join(format!("{name}.c"));
        let kernel = Kernel::load(&c, &Options::default())
            .unwrap_or_else(|e| panic!("{name}: {}", e.diagnostic.message));
        let script = std::fs::read_to_string(root.join(format!("{name}.loopy"))).unwrap();
        let r = Run::new(&kernel, &script, &format!("{name}.loopy"), &root)
            .unwrap_or_else(|e| panic!("{name}: {}", e.diagnostic.message));
        assert!(r.check().is_empty(), "{name}: script is illegal");
        let g = generate_from_script(&kernel, &r.interp.state, &format!("{name}.loopy"))
            .unwrap_or_else(|e| panic!("{name}: {}", e.diagnostic.message));
        // The region's header names the kernel by its path: keep the snapshot independent
        // of where the repository is checked out.
        let region = g.region.replace(env!("CARGO_MANIFEST_DIR"), "<repo>");
        insta::assert_snapshot!(format!("apply_{name}"), region);
        // Only the region changed.
        let original = std::fs::read_to_string(&c).unwrap();
        let range = kernel.scop.region.range.clone();
        assert!(g.file.starts_with(&original[..range.start]));
        assert!(g.file.ends_with(&original[range.end..]));
        let new_src = dir.join(format!("{name}.c"));
        std::fs::write(&new_src, &g.file).unwrap();
        let (old_exe, new_exe) = (
            dir.join(format!("{name}.old")),
            dir.join(format!("{name}.new")),
        );
        compile(&c, &old_exe, false);
        compile(&new_src, &new_exe, true);
        let (a, b) = (run(&old_exe), run(&new_exe));
        if a != b {
            let (sa, sb) = (String::from_utf8_lossy(&a), String::from_utf8_lossy(&b));
            let line = sa
                .lines()
                .zip(sb.lines())
                .position(|(x, y)| x != y)
                .unwrap_or(0);
            panic!(
                "{name}: outputs differ at line {}:\n  original:    {:?}\n  transformed: {:?}",
                line + 1,
                sa.lines().nth(line),
                sb.lines().nth(line)
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
