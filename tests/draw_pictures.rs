//! `loopy draw` tested as pictures: the SVG is rendered by a real SVG renderer (resvg) and
//! the image is checked for what must be there — a dot of the right colour at every
//! instance, dependence arrows, red arrows exactly when the script breaks a dependence —
//! besides structural checks on the SVG text. Expected counts come from brute force over
//! the kernels' loop bounds, not from loopy.

mod common;
use resvg::{tiny_skia, usvg};

const SEIDEL: &str = "examples/seidel-2d/seidel-2d.c";

fn draw(args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["draw", "--color", "never"];
    all.extend(args);
    common::loopy(&all)
}

fn render(svg: &str) -> tiny_skia::Pixmap {
    let tree = usvg::Tree::from_str(svg, &usvg::Options::default()).expect("valid SVG");
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
    resvg::render(
        &tree,
        tiny_skia::Transform::identity(),
        &mut pixmap.as_mut(),
    );
    if let Ok(dir) = std::env::var("LOOPY_DRAW_PNG_DIR") {
        // For looking at the pictures the tests see.
        let n = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
        let _ = pixmap.save_png(format!("{dir}/picture-{n}.png"));
    }
    pixmap
}

fn pixel(p: &tiny_skia::Pixmap, x: f64, y: f64) -> (u8, u8, u8) {
    let c = p
        .pixel(x.round() as u32, y.round() as u32)
        .expect("inside the image")
        .demultiply();
    (c.red(), c.green(), c.blue())
}

fn parse_hex(s: &str) -> (u8, u8, u8) {
    let v = u32::from_str_radix(s.trim_start_matches('#'), 16).unwrap();
    ((v >> 16) as u8, (v >> 8) as u8, v as u8)
}

fn close(a: (u8, u8, u8), b: (u8, u8, u8)) -> bool {
    let d = |x: u8, y: u8| (x as i32 - y as i32).abs();
    d(a.0, b.0) + d(a.1, b.1) + d(a.2, b.2) <= 12
}

/// An attribute of an SVG element's text.
fn attr(el: &str, name: &str) -> Option<String> {
    let k = el.find(&format!(" {name}=\""))? + name.len() + 3;
    Some(el[k..k + el[k..].find('"')?].to_string())
}

fn num(el: &str, name: &str) -> f64 {
    attr(el, name).unwrap().parse().unwrap()
}

/// The elements (opening tags) of a panel with the given class.
fn elements<'a>(panel: &'a str, class: &str) -> Vec<&'a str> {
    panel
        .split('<')
        .filter(|e| attr(e, "class").as_deref() == Some(class))
        .collect()
}

fn panels(svg: &str) -> Vec<&str> {
    svg.split("<g class=\"panel\"").skip(1).collect()
}

/// Pixels of the broken-dependence red inside a rectangle.
fn red_pixels(p: &tiny_skia::Pixmap, x0: f64, x1: f64) -> usize {
    let red = parse_hex("#e0201b");
    let mut n = 0;
    for y in 0..p.height() {
        for x in (x0.max(0.0) as u32)..(x1.min(p.width() as f64) as u32) {
            if close(pixel(p, x as f64, y as f64), red) {
                n += 1;
            }
        }
    }
    n
}

/// Every instance is drawn as a dot of its fill colour, which the rendered image shows
/// (sampled left of the centre, off the rank number).
fn check_dots(img: &tiny_skia::Pixmap, panel: &str, expected: usize) {
    let dots = elements(panel, "point");
    assert_eq!(dots.len(), expected, "dots in the panel");
    for d in dots {
        let (cx, cy, r) = (num(d, "cx"), num(d, "cy"), num(d, "r"));
        let want = parse_hex(&attr(d, "fill").unwrap());
        let got = pixel(img, cx - 0.6 * r, cy);
        assert!(
            close(got, want),
            "dot at ({cx}, {cy}): {got:?}, want {want:?}"
        );
    }
}

fn is_grey((r, g, b): (u8, u8, u8)) -> bool {
    r.max(g).max(b) < 200 && r.max(g).max(b) - r.min(g).min(b) < 25
}

fn is_red((r, g, b): (u8, u8, u8)) -> bool {
    r > 170 && g < 110 && b < 110
}

/// A dependence arrow is drawn: around the middle of its line a pixel has its colour (grey
/// or red; lines are anti-aliased, so the colour is judged, not matched).
fn check_arrows(img: &tiny_skia::Pixmap, panel: &str, class: &str, colour: &str) -> usize {
    let lines = elements(panel, class);
    let want: fn((u8, u8, u8)) -> bool = if colour == "#e0201b" { is_red } else { is_grey };
    let mut seen = 0;
    for l in &lines {
        let (x, y) = (
            (num(l, "x1") + num(l, "x2")) / 2.0,
            (num(l, "y1") + num(l, "y2")) / 2.0,
        );
        // Arrows cross: at least one pixel around the middle has the colour.
        let hit =
            (-1..=1).any(|dx| (-1..=1).any(|dy| want(pixel(img, x + dx as f64, y + dy as f64))));
        if hit {
            seen += 1;
        } else {
            eprintln!("missing {class} at ({x}, {y}): {:?}", pixel(img, x, y));
        }
    }
    assert!(
        seen == lines.len(),
        "{class}: {seen} of {} arrows visible",
        lines.len()
    );
    lines.len()
}

#[test]
fn seidel_skewed_and_tiled_keeps_every_dependence() {
    let (code, svg, err) = draw(&[
        SEIDEL,
        "docs/pictures/seidel-2d-skewed.loopy",
        "--tag",
        "Loop",
        "--param",
        "tsteps=2",
        "--param",
        "n=10",
        "--at",
        "t=1",
    ]);
    assert_eq!(code, 0, "{err}");
    let img = render(&svg);
    let ps = panels(&svg);
    assert_eq!(ps.len(), 2, "original and after");
    // for (i = 1; i <= n - 2; i++) for (j = 1; j <= n - 2; j++): 8 x 8 at n = 10.
    for p in &ps {
        check_dots(&img, p, 64);
    }
    // Within one time step every (i, j) depends on (i-1, j-1), (i-1, j), (i-1, j+1) and
    // (i, j-1) (reads of values written earlier in the step) and on (i, j+1), (i+1, j-1),
    // (i+1, j), (i+1, j+1) in reverse (anti): the neighbours in the 8 x 8 grid.
    let mut pairs = std::collections::BTreeSet::new();
    for i in 1..=8i32 {
        for j in 1..=8i32 {
            for (di, dj) in [(-1, -1), (-1, 0), (-1, 1), (0, -1)] {
                let (a, b) = (i + di, j + dj);
                if (1..=8).contains(&a) && (1..=8).contains(&b) {
                    pairs.insert(((a, b), (i, j)));
                }
            }
        }
    }
    for p in &ps {
        assert_eq!(check_arrows(&img, p, "dep", "#4d4d4d"), pairs.len());
        assert!(elements(p, "dep broken").is_empty());
    }
    assert_eq!(
        red_pixels(&img, 0.0, img.width() as f64),
        0,
        "no red at all"
    );
    // Tiles of the skewed space: floor((i + t)/4), floor((j + i + t)/4) at t = 1.
    let mut tiles = std::collections::BTreeSet::new();
    for i in 1..=8i32 {
        for j in 1..=8i32 {
            tiles.insert(((i + 1).div_euclid(4), (j + i + 1).div_euclid(4)));
        }
    }
    assert!(elements(ps[0], "tile").is_empty(), "no tiles before");
    assert_eq!(elements(ps[1], "tile").len(), tiles.len());
    // The tiles are shaded in the image: the fill colour shows between dots.
    let tile = elements(ps[1], "tile")[0];
    let first = attr(tile, "points").unwrap();
    let (x, y) = first.split(' ').next().unwrap().split_once(',').unwrap();
    let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
    let fill = parse_hex(&attr(tile, "fill").unwrap());
    let r = num(elements(ps[1], "point")[0], "r");
    assert!(
        (0..8).any(|k| {
            let a = k as f64 * std::f64::consts::PI / 4.0;
            close(
                pixel(&img, x + (r + 4.0) * a.cos(), y + (r + 4.0) * a.sin()),
                fill,
            )
        }),
        "tile shading around ({x}, {y})"
    );
    assert!(svg.contains("loopy check: legal"));
}

#[test]
fn seidel_interchange_draws_the_broken_dependences_in_red() {
    let (code, svg, err) = draw(&[
        SEIDEL,
        "tests/must_fail/seidel_interchange.loopy",
        "--tag",
        "Loop",
        "--param",
        "tsteps=1",
        "--param",
        "n=6",
    ]);
    assert_eq!(code, 1, "an illegal script: {err}");
    assert!(err.contains("breaks"), "{err}");
    let img = render(&svg);
    let ps = panels(&svg);
    for p in &ps {
        check_dots(&img, p, 16);
    }
    // Interchanging i and j breaks exactly the dependences from (i-1, j+1) to (i, j) (flow:
    // written before, now read before) and from (i, j) to (i+1, j-1) (anti, the same pairs
    // seen from the other side): the pairs (a, b) -> (a+1, b-1) of the 4 x 4 grid.
    let broken = 3 * 3;
    assert!(elements(ps[0], "dep broken").is_empty());
    let red = elements(ps[1], "dep broken").len() + elements(ps[1], "dep broken witness").len();
    assert_eq!(red, broken);
    check_arrows(&img, ps[1], "dep broken", "#e0201b");
    // Red is in the second panel (and the legend and notes below), not in the first.
    let x_split = num(elements(ps[1], "frame")[0], "x") - 10.0;
    let panel_bottom =
        num(elements(ps[1], "frame")[0], "y") + num(elements(ps[1], "frame")[0], "height");
    let red_first: usize = {
        let red = parse_hex("#e0201b");
        (0..panel_bottom as u32)
            .flat_map(|y| (0..x_split as u32).map(move |x| (x, y)))
            .filter(|&(x, y)| close(pixel(&img, x as f64, y as f64), red))
            .count()
    };
    assert_eq!(red_first, 0, "no red in the original");
    assert!(red_pixels(&img, x_split, img.width() as f64) > 100);
    // The verifier's witness (found at n = 4, tsteps = 1: Loop[0, 1, 2] then Loop[0, 2, 1])
    // is a broken pair at n = 6 too: the thick arrow, named in the notes.
    assert_eq!(elements(ps[1], "dep broken witness").len(), 1);
    assert!(svg.contains("(the thick red arrow)"), "{svg}");
    assert!(svg.contains("is not preserved"));
}

#[test]
fn the_witness_is_the_thick_red_arrow_at_its_own_sizes() {
    let (code, svg, _) = draw(&[
        SEIDEL,
        "tests/must_fail/seidel_interchange.loopy",
        "--tag",
        "Loop",
        "--param",
        "tsteps=1",
        "--param",
        "n=4",
    ]);
    assert_eq!(code, 1);
    let ps = panels(&svg);
    let w = elements(ps[1], "dep broken witness");
    assert_eq!(w.len(), 1, "{svg}");
    let at = svg.find("dep broken witness").unwrap();
    assert!(
        svg[at..at + 400].contains("Loop[0, 1, 2] → Loop[0, 2, 1]"),
        "{}",
        &svg[at..at + 400]
    );
    let img = render(&svg);
    check_arrows(&img, ps[1], "dep broken witness", "#e0201b");
}

#[test]
fn div_reverse_is_a_row_of_red_arrows() {
    let (code, svg, _) = draw(&[
        "examples/div/div.c",
        "examples/div/div_reverse.loopy",
        "--param",
        "n=9",
    ]);
    assert_eq!(code, 1);
    let img = render(&svg);
    let ps = panels(&svg);
    // for (i = 1; i < n; i++) A[i] = A[i] / A[i-1]: 8 instances, 7 flow dependences.
    for p in &ps {
        check_dots(&img, p, 8);
    }
    assert_eq!(check_arrows(&img, ps[0], "dep", "#4d4d4d"), 7);
    let red = elements(ps[1], "dep broken").len() + elements(ps[1], "dep broken witness").len();
    assert_eq!(red, 7);
}

#[test]
fn matmul_tiles_and_the_original_alone() {
    let (code, svg, err) = draw(&[
        "examples/matmul/matmul.c",
        "docs/pictures/matmul-tiled.loopy",
        "--tag",
        "Mult",
        "--param",
        "n=8",
        "--axes",
        "i,k",
    ]);
    assert_eq!(code, 0, "{err}");
    let img = render(&svg);
    let ps = panels(&svg);
    check_dots(&img, ps[1], 64);
    // 4 x 4 tiles of an 8 x 8 (i, k) plane.
    assert_eq!(elements(ps[1], "tile").len(), 4);
    // k carries C[i][j] += ...: one arrow per (i, k) with k > 0.
    assert_eq!(check_arrows(&img, ps[1], "dep", "#4d4d4d"), 8 * 7);
    // The order: the first tile's 16 instances run first.
    let ranks: Vec<(f64, f64, usize)> = elements(ps[1], "point")
        .iter()
        .map(|d| {
            let rank: usize = attr(d, "data-order").unwrap().parse().unwrap();
            (num(d, "cx"), num(d, "cy"), rank)
        })
        .collect();
    let xs: Vec<f64> = ranks.iter().map(|r| r.0).collect();
    let xmid = (xs.iter().cloned().fold(f64::MAX, f64::min)
        + xs.iter().cloned().fold(f64::MIN, f64::max))
        / 2.0;
    let ys: Vec<f64> = ranks.iter().map(|r| r.1).collect();
    let ymid = (ys.iter().cloned().fold(f64::MAX, f64::min)
        + ys.iter().cloned().fold(f64::MIN, f64::max))
        / 2.0;
    for (x, y, rank) in &ranks {
        // i < 4 (left) and k < 4 (bottom, the vertical axis grows upwards) run first.
        assert_eq!(
            *rank <= 16,
            *x < xmid && *y > ymid,
            "rank {rank} at ({x}, {y})"
        );
    }
    // Without a script: one panel.
    let (code, svg, _) = draw(&[
        "examples/matmul/matmul.c",
        "--tag",
        "Mult",
        "--param",
        "n=4",
    ]);
    assert_eq!(code, 0);
    assert_eq!(panels(&svg).len(), 1);
    let img = render(&svg);
    check_dots(&img, panels(&svg)[0], 16);
}

#[test]
fn mistakes_are_reported() {
    let cases: [(&[&str], &str); 6] = [
        (&[SEIDEL, "--tag", "Nope"], "no tag `Nope`"),
        (&[SEIDEL, "--param", "m=3"], "not a parameter"),
        (&[SEIDEL, "--param", "n"], "expected NAME=VALUE"),
        (&[SEIDEL, "--axes", "i,q"], "not an iterator"),
        (&[SEIDEL, "--param", "n=200"], "too many to draw"),
        (&[SEIDEL, "--param", "n=2"], "no instance to draw"),
    ];
    for (args, needle) in cases {
        let (code, out, err) = draw(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn repl_draws_the_steps_so_far() {
    let dir = common::scratch("draw", "repl");
    let out = dir.join("r.svg");
    let input = format!(
        "interchange(Loop, 2, 3)\n:draw {} --param n=6 --param tsteps=1\n",
        out.display()
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_loopy"))
        .args(["repl", SEIDEL])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let (_, stdout, stderr) = common::outcome(child.wait_with_output().unwrap());
    assert!(stdout.contains("drew 16 instance(s)"), "{stdout}{stderr}");
    assert!(stdout.contains("broken among them"), "{stdout}");
    let svg = std::fs::read_to_string(&out).unwrap();
    let img = render(&svg);
    check_dots(&img, panels(&svg)[1], 16);
    assert!(!elements(panels(&svg)[1], "dep broken").is_empty());
}
