//! Malformed or unusual input never panics: random edits of valid texts either parse or give
//! an error with a span inside the text; what parses can be printed, simplified and queried.

use loopy::presburger::{parse, Parsed};
use proptest::prelude::*;

const SEEDS: &[&str] = &[
    "[N] -> { [i, j] : 0 <= i < N and 0 <= j <= i }",
    "{ [i] -> [i1, i2] : i1 = [i/32] and i2 = i % 32 }",
    "{ [i] : exists (a : i = 2a) and 0 <= i <= 10 or i = -3 }",
    "{ [i, j, 0] -> [i, j, j] : ceil(i/3) <= floor((j + 1)/2) }",
    "{ S[i] : 0 <= i, 2 < 5; S[i] : i != 7 and i <= 9 and i >= 0 }",
];

const PIECES: &[&str] = &[
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    ",",
    ";",
    ":",
    "->",
    "+",
    "-",
    "*",
    "/",
    "%",
    "<",
    "<=",
    "=",
    "!=",
    "and",
    "or",
    "exists",
    "floor",
    "ceil",
    "i",
    "j",
    "N",
    "0",
    "7",
    "99999999999999999999999",
    " ",
    "true",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_edits_never_panic(seed in 0..SEEDS.len(), edits in prop::collection::vec((0usize..200, 0..PIECES.len(), 0u8..3), 1..6)) {
        let mut text = SEEDS[seed].to_string();
        for (pos, piece, kind) in edits {
            let mut p = pos % (text.len() + 1);
            while !text.is_char_boundary(p) { p -= 1; }
            match kind {
                0 => text.insert_str(p, PIECES[piece]),
                1 => { if p < text.len() { let mut q = p + 1; while !text.is_char_boundary(q) { q += 1; } text.replace_range(p..q, ""); } }
                _ => { if p < text.len() { let mut q = p + 1; while !text.is_char_boundary(q) { q += 1; } text.replace_range(p..q, PIECES[piece]); } }
            }
        }
        match parse(&text, &[]) {
            Err(e) => {
                prop_assert!(e.span.start <= e.span.end && e.span.end <= text.len(), "{text}: {:?}", e.span);
                prop_assert!(!e.message.is_empty());
            }
            Ok(Parsed::Set(s)) => {
                let printed = s.to_string();
                let back = loopy::presburger::parse_set(&printed, &[]);
                prop_assert!(back.is_ok(), "{text} printed as {printed}: {:?}", back.err());
                let _ = s.is_empty();
                let _ = s.simplify().to_string();
            }
            Ok(Parsed::Map(m)) => {
                let printed = m.to_string();
                let back = loopy::presburger::parse_map(&printed, &[]);
                prop_assert!(back.is_ok(), "{text} printed as {printed}: {:?}", back.err());
                let _ = m.is_empty();
                let _ = m.simplify().to_string();
            }
        }
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..60)) {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        if let Err(e) = parse(&text, &[]) {
            prop_assert!(e.span.end <= text.len());
        }
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let text = format!("{{ [i] : {}i = 0{} }}", "(".repeat(5000), ")".repeat(5000));
    // Either answer is fine; overflowing the stack is not.
    let _ = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || parse(&text, &[]).is_ok())
        .unwrap()
        .join()
        .expect("parser must not overflow the stack");
}

#[test]
fn long_prefix_chains_are_errors_not_crashes() {
    for text in [
        format!("{{ [i] : {}i = 0 }}", "-".repeat(100_000)),
        format!(
            "{{ [i] : {}i/2{} = 0 }}",
            "[".repeat(10_000),
            "]".repeat(10_000)
        ),
        format!(
            "{{ [i] : {}i = 0{} }}",
            "exists (a : ".repeat(10_000),
            ")".repeat(10_000)
        ),
    ] {
        let r = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || parse(&text, &[]).is_ok())
            .unwrap()
            .join();
        assert!(r.is_ok(), "parser overflowed the stack");
    }
}
