fn main() -> std::process::ExitCode {
    loopy::main()
}
