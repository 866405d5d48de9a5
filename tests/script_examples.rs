//! Every example's script (the Loopy paper's appendix B, and Figure 1) runs on its kernel;
//! the resulting schedules and components are snapshots, so a change in semantics shows up
//! in review. Every script is also legal.

use loopy::driver::{Kernel, Run};
use loopy::model::render::render_state;
use std::path::Path;

fn run(name: &str) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name);
    let c = dir.join(format!("{name}.c"));
    let s = dir.join(format!("{name}.loopy"));
    let k = Kernel::load(&c, &Default::default())
        .unwrap_or_else(|e| panic!("{name}: {}", e.render(false)));
    let text = std::fs::read_to_string(&s).unwrap();
    let run = Run::new(&k, &text, &format!("{name}.loopy"), &dir)
        .unwrap_or_else(|e| panic!("{name}: {}", e.render(false)));
    let v = run.check();
    assert!(
        v.is_empty(),
        "{name}: the script is illegal:\n{}",
        run.reports(&k, &v)
            .iter()
            .map(|r| r.render(false))
            .collect::<String>()
    );
    render_state(&run.interp.state)
}

macro_rules! example {
    ($test:ident, $name:expr) => {
        #[test]
        fn $test() {
            insta::assert_snapshot!($name, run($name));
        }
    };
}

example!(matmul, "matmul");
example!(div, "div");
example!(gemm, "gemm");
example!(gemver, "gemver");
example!(mvt, "mvt");
example!(trmm, "trmm");
example!(two_mm, "2mm");
example!(three_mm, "3mm");
example!(doitgen, "doitgen");
example!(gramschmidt, "gramschmidt");
example!(lu, "lu");
example!(adi, "adi");
example!(covariance, "covariance");
example!(correlation, "correlation");
example!(cholesky_pb, "cholesky-pb");
example!(durbin, "durbin");
example!(ludcmp, "ludcmp");
example!(qr, "qr");
example!(lu_pivot, "lu-pivot");
example!(deriche, "deriche");
example!(floyd_warshall, "floyd-warshall");
example!(nussinov, "nussinov");
example!(fdtd_2d, "fdtd-2d");
example!(heat_3d, "heat-3d");
example!(jacobi_2d, "jacobi-2d");
example!(seidel_2d, "seidel-2d");
example!(atax, "atax");
example!(bicg, "bicg");
example!(gesummv, "gesummv");
example!(trisolv, "trisolv");
example!(syrk, "syrk");
example!(syr2k, "syr2k");
example!(symm, "symm");
example!(jacobi_1d, "jacobi-1d");
