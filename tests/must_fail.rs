//! Scripts that must be rejected, each with its expected report (see tests/must_fail/).

use std::path::Path;
use std::process::Command;

fn check(kernel: &str, script: &str) -> (i32, String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO_BIN_EXE_loopy"))
        .args(["check", "--color", "never", kernel, script])
        .current_dir(root)
        .output()
        .expect("run loopy");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

macro_rules! must_fail {
    ($name:ident, $kernel:expr, $needle:expr) => {
        #[test]
        fn $name() {
            let script = concat!("tests/must_fail/", stringify!($name), ".loopy");
            let (code, out, err) = check($kernel, script);
            assert_eq!(code, 1, "{script} must be illegal:\n{out}{err}");
            assert!(
                err.contains($needle),
                "{script}: report lacks {:?}:\n{err}",
                $needle
            );
            insta::assert_snapshot!(stringify!($name), format!("{err}{out}"));
        }
    };
}

must_fail!(div_reverse, "examples/div/div.c", "flow dependence on `A`");
must_fail!(
    seidel_interchange,
    "examples/seidel-2d/seidel-2d.c",
    "dependence on `A`"
);
must_fail!(
    fuse_backward_shift,
    "tests/must_fail/producer_consumer.c",
    "flow dependence on `B`"
);
must_fail!(
    tile_floor_no_mod,
    "examples/matmul/matmul.c",
    "not one-to-one"
);
must_fail!(
    isplit_second_first,
    "tests/must_fail/recurrence.c",
    "flow dependence on `A`"
);
