//! The reordering rewrite of generated C shared by the tests of parallel loops: every
//! `#pragma omp parallel for` loop, and every `#pragma omp for` loop of a parallel region
//! (where the threads allocate their own buffers), becomes a sequential loop whose
//! iterations run in an order chosen at run time (`LOOPY_ORDER`: 0 forward, 1 reverse, 2
//! shuffled). A legal parallel loop gives the same output in every order.

/// What the rewritten file starts with: the order, read once per use.
const PRELUDE: &str = "#include <stdlib.h>\n\
    static int loopy_order(void) { const char *s = getenv(\"LOOPY_ORDER\"); return s ? atoi(s) : 0; }\n\
    #define loopy_at(t, n) (loopy_order() == 1 ? (n) - 1 - (t) : loopy_order() == 2 ? (int)(((long long)(t) * 1000003LL + (n) / 3) % (n)) : (t))\n";

/// Rewrites every `#pragma omp parallel for` and `#pragma omp for` loop of generated C (in the printer's
/// format: `for (int v = LO; v <= HI; INC) {` … `}` at the same indentation) into a
/// sequential loop over `loopy_at(t, n)`, the `t`-th iteration in the chosen order.
/// Returns the text and how many loops it rewrote.
pub fn rewrite(text: &str) -> (String, usize) {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = vec![];
    let mut closers: Vec<String> = vec![];
    let mut k = 0;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if closers.last().is_some_and(|c| c == line) {
            closers.pop();
            out.push(format!("{line}}}"));
            i += 1;
            continue;
        }
        let pragma = line.trim_start();
        if !pragma.starts_with("#pragma omp parallel for") && !pragma.starts_with("#pragma omp for")
        {
            out.push(line.to_string());
            i += 1;
            continue;
        }
        let head = lines[i + 1];
        let pad = &head[..head.len() - head.trim_start().len()];
        let inner = head
            .trim()
            .strip_prefix("for (")
            .and_then(|h| h.strip_suffix(") {"))
            .unwrap_or_else(|| panic!("a loop after the pragma: {head}"));
        let parts: Vec<&str> = inner.split("; ").collect();
        assert_eq!(parts.len(), 3, "{head}");
        let (decl, init) = match parts[0].strip_prefix("int ") {
            Some(r) => ("int ", r),
            None => ("", parts[0]),
        };
        let (v, lo) = init.split_once(" = ").expect("v = lo");
        let hi = parts[1].strip_prefix(&format!("{v} <= ")).expect("v <= hi");
        let step = if parts[2] == format!("{v}++") {
            "1".to_string()
        } else {
            parts[2]
                .strip_prefix(&format!("{v} += "))
                .expect("v += step")
                .to_string()
        };
        out.push(format!(
            "{pad}/* a parallel loop, run in the order LOOPY_ORDER picks */"
        ));
        out.push(format!(
            "{pad}{{ int loopy_lo{k} = {lo}, loopy_hi{k} = {hi};"
        ));
        out.push(format!(
            "{pad}int loopy_n{k} = loopy_hi{k} < loopy_lo{k} ? 0 : (loopy_hi{k} - loopy_lo{k}) / {step} + 1;"
        ));
        out.push(format!(
            "{pad}for (int loopy_t{k} = 0; loopy_t{k} < loopy_n{k}; loopy_t{k}++) {{"
        ));
        out.push(format!(
            "{pad}  {decl}{v} = loopy_lo{k} + loopy_at(loopy_t{k}, loopy_n{k}) * {step};"
        ));
        closers.push(format!("{pad}}}"));
        k += 1;
        i += 2;
    }
    assert!(closers.is_empty(), "unbalanced loops in\n{text}");
    (format!("{PRELUDE}{}\n", out.join("\n")), k)
}
