// The integer core allocates and frees many small rows (about a third of `equiv`'s and
// `check`'s time went to the system allocator); mimalloc serves them faster: `check
// --manifest examples/loopy.toml`, `search --no-bench` and `equiv` take about 0.8 of the
// time they took with the system allocator (docs/results.md, "The cost of checking").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    loopy::main()
}
