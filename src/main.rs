fn main() -> std::process::ExitCode {
    loopy::cli::main()
}
