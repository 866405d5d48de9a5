# Sourced by the benches that run the examples at a manifest size.
#
#   polybench30     the 30 PolyBench kernels of examples/ (an array)
#   sizes KERNEL    the manifest's sizes.$size of the first entry for examples/K/K.c, as
#                   NAME=VALUE words (examples/loopy.toml unless $manifest names another)
sizes() {
  awk -v want="\"$1/$1.c\"" -v field="sizes.$size" '
    /^\[\[check\]\]/ { inblock = 1; kern = ""; next }
    inblock && $1 == "kernel" { kern = $3 }
    inblock && kern == want && $1 == field { sub(/^[^=]*= */, ""); print; exit }
  ' "${manifest:-examples/loopy.toml}" | tr -d '[],"'
}
polybench30=(2mm 3mm adi atax bicg cholesky-pb correlation covariance deriche doitgen durbin
  fdtd-2d floyd-warshall gemm gemver gesummv gramschmidt heat-3d jacobi-1d jacobi-2d lu
  ludcmp mvt nussinov seidel-2d symm syr2k syrk trisolv trmm)
