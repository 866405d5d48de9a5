//! A [`Picture`] as plain SVG (no scripts, no external files): panels side by side, each a
//! grid of instances coloured by execution order and numbered, dependences as arrows, tiles
//! as shaded hulls, broken dependences in red; a legend and the notes below.

use super::{Arrow, Panel, Picture};
use std::fmt::Write;

/// Dependence arrows.
pub const ARROW: &str = "#4d4d4d";
/// Broken dependences.
pub const RED: &str = "#e0201b";
const TILE_FILLS: [&str; 2] = ["#dce6f2", "#f2e4cf"];
const TILE_STROKE: &str = "#9aa9bd";
/// Stops of the execution-order ramp (first to last).
const RAMP: [(u8, u8, u8); 5] = [
    (0x44, 0x01, 0x54),
    (0x3b, 0x52, 0x8b),
    (0x21, 0x91, 0x8c),
    (0x5e, 0xc9, 0x62),
    (0xfd, 0xe7, 0x25),
];

/// The ramp colour of position `rank` among `n`.
pub fn ramp(rank: usize, n: usize) -> (u8, u8, u8) {
    let t = if n <= 1 {
        0.0
    } else {
        rank as f64 / (n - 1) as f64
    };
    let x = t * (RAMP.len() - 1) as f64;
    let k = (x.floor() as usize).min(RAMP.len() - 2);
    let f = x - k as f64;
    let (a, b) = (RAMP[k], RAMP[k + 1]);
    let mix = |p: u8, q: u8| (p as f64 + (q as f64 - p as f64) * f).round() as u8;
    (mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

fn hex((r, g, b): (u8, u8, u8)) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

struct Frame {
    x0: f64,
    y0: f64,
    xmin: i64,
    ymin: i64,
    ymax: i64,
    cell: f64,
}

impl Frame {
    fn at(&self, x: i64, y: i64) -> (f64, f64) {
        (
            self.x0 + (x - self.xmin) as f64 * self.cell,
            // The vertical axis grows upwards.
            self.y0 + (self.ymax - y) as f64 * self.cell,
        )
    }
}

const MARGIN_LEFT: f64 = 56.0;
const MARGIN_TOP: f64 = 74.0;
const GAP: f64 = 40.0;

/// The SVG text of a picture.
pub fn svg(p: &Picture) -> String {
    let dots = &p.panels[0].dots;
    let xmin = dots.iter().map(|d| d.x).min().unwrap_or(0);
    let xmax = dots.iter().map(|d| d.x).max().unwrap_or(0);
    let ymin = dots.iter().map(|d| d.y).min().unwrap_or(0);
    let ymax = dots.iter().map(|d| d.y).max().unwrap_or(0);
    let (nx, ny) = ((xmax - xmin + 1) as f64, (ymax - ymin + 1) as f64);
    let cell = (380.0 / nx.max(ny)).clamp(12.0, 44.0);
    let pw = nx * cell + 30.0;
    let ph = ny * cell;
    let width = MARGIN_LEFT + p.panels.len() as f64 * (pw + GAP) + 10.0;
    let legend_y = MARGIN_TOP + ph + 50.0;
    let height = legend_y + 60.0 + 16.0 * p.notes.len() as f64 + 10.0;
    // Room for the title, the legend and the notes (about 0.6 em per character).
    let text_width = |chars: usize, size: f64| 24.0 + chars as f64 * size * 0.6;
    let width = p
        .notes
        .iter()
        .map(|n| text_width(n.chars().count(), 12.0))
        .chain([text_width(p.title.chars().count(), 15.0), 640.0])
        .fold(width, f64::max);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">"##,
        w = width,
        h = height
    );
    let _ = writeln!(s, "<title>{}</title>", esc(&p.title));
    let _ = writeln!(
        s,
        r##"<defs><marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{ARROW}"/></marker><marker id="head-broken" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{RED}"/></marker></defs>"##
    );
    let _ = writeln!(
        s,
        r##"<rect class="background" x="0" y="0" width="{width:.0}" height="{height:.0}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        s,
        r##"<text class="title" x="12" y="24" font-size="15" font-weight="bold">{}</text>"##,
        esc(&p.title)
    );
    for (k, panel) in p.panels.iter().enumerate() {
        let f = Frame {
            x0: MARGIN_LEFT + k as f64 * (pw + GAP) + cell / 2.0,
            y0: MARGIN_TOP + cell / 2.0,
            xmin,
            ymin,
            ymax,
            cell,
        };
        draw_panel(&mut s, p, panel, &f, k, (nx, ny));
    }
    legend(&mut s, p, legend_y, dots.len());
    let mut y = legend_y + 62.0;
    for n in &p.notes {
        let colour = if n.contains("illegal") || n.starts_with("  ") && p.broken > 0 {
            RED
        } else {
            "#222222"
        };
        // SVG collapses leading spaces: indent by position instead.
        let x = if n.starts_with("  ") { 28 } else { 12 };
        let _ = writeln!(
            s,
            r##"<text class="note" x="{x}" y="{y:.0}" font-size="12" fill="{colour}">{}</text>"##,
            esc(n.trim_start())
        );
        y += 16.0;
    }
    s.push_str("</svg>\n");
    s
}

fn draw_panel(
    s: &mut String,
    p: &Picture,
    panel: &Panel,
    f: &Frame,
    k: usize,
    (nx, ny): (f64, f64),
) {
    let _ = writeln!(s, r##"<g class="panel" id="panel-{k}">"##);
    draw_axes(s, p, panel, f, k, (nx, ny));
    let r = (f.cell * 0.3).max(3.0);
    draw_tiles(s, panel, f, r);
    draw_arrows(s, p, panel, f, r);
    draw_points(s, p, panel, f, r);
    let _ = writeln!(s, "</g>");
}

/// The panel's title and subtitle, frame, ticks and axis names.
fn draw_axes(
    s: &mut String,
    p: &Picture,
    panel: &Panel,
    f: &Frame,
    k: usize,
    (nx, ny): (f64, f64),
) {
    let left = f.x0 - f.cell / 2.0;
    let top = f.y0 - f.cell / 2.0;
    let _ = writeln!(
        s,
        r##"<text class="panel-title" x="{left:.1}" y="{:.1}" font-size="14" font-weight="bold">{}</text>"##,
        top - 26.0,
        esc(&panel.title)
    );
    let sub = if k == 0 {
        "order of the original program"
    } else {
        "new order (colour and number); same instances"
    };
    let _ = writeln!(
        s,
        r##"<text x="{left:.1}" y="{:.1}" font-size="11" fill="#555555">{sub}</text>"##,
        top - 10.0
    );
    // Frame and axes.
    let (w, h) = (nx * f.cell, ny * f.cell);
    let _ = writeln!(
        s,
        r##"<rect class="frame" x="{left:.1}" y="{top:.1}" width="{w:.1}" height="{h:.1}" fill="none" stroke="#cccccc"/>"##
    );
    let step = ((nx.max(ny) / 10.0).ceil() as i64).max(1);
    for x in (f.xmin..f.xmin + nx as i64).filter(|x| (x - f.xmin) % step == 0) {
        let (px, _) = f.at(x, f.ymin);
        let _ = writeln!(
            s,
            r##"<text class="tick" x="{px:.1}" y="{:.1}" font-size="10" text-anchor="middle" fill="#555555">{x}</text>"##,
            top + h + 13.0
        );
    }
    let _ = writeln!(
        s,
        r##"<text class="axis" x="{:.1}" y="{:.1}" font-size="13" text-anchor="middle" font-style="italic">{} →</text>"##,
        left + w / 2.0,
        top + h + 30.0,
        esc(&p.axes[0])
    );
    if p.axes.len() > 1 {
        for y in (f.ymin..f.ymin + ny as i64).filter(|y| (y - f.ymin) % step == 0) {
            let (_, py) = f.at(f.xmin, y);
            let _ = writeln!(
                s,
                r##"<text class="tick" x="{:.1}" y="{:.1}" font-size="10" text-anchor="end" fill="#555555">{y}</text>"##,
                left - 4.0,
                py + 3.5
            );
        }
        let (ax, ay) = (left - 32.0, top + h / 2.0);
        let _ = writeln!(
            s,
            r##"<text class="axis" x="{ax:.1}" y="{ay:.1}" font-size="13" text-anchor="middle" font-style="italic" transform="rotate(-90 {ax:.1} {ay:.1})">{} →</text>"##,
            esc(&p.axes[1])
        );
    }
}

/// Tiles: the hull of each tile's instances, padded by a round stroke.
fn draw_tiles(s: &mut String, panel: &Panel, f: &Frame, r: f64) {
    if !panel.tiles.is_empty() {
        let _ = writeln!(s, r##"<g class="tiles">"##);
        for (t, members) in panel.tiles.iter().enumerate() {
            let pts: Vec<(f64, f64)> = members
                .iter()
                .map(|&d| f.at(panel.dots[d].x, panel.dots[d].y))
                .collect();
            let hull = convex_hull(&pts);
            let fill = TILE_FILLS[t % 2];
            let pad = 2.0 * r + 6.0;
            let path: Vec<String> = hull.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
            let _ = writeln!(
                s,
                r##"<polygon class="tile" points="{}" fill="{fill}" stroke="{fill}" stroke-width="{pad:.1}" stroke-linejoin="round"/>"##,
                path.join(" ")
            );
            let _ = writeln!(
                s,
                r##"<polygon class="tile-outline" points="{}" fill="none" stroke="{TILE_STROKE}" stroke-width="1" stroke-dasharray="3,3"/>"##,
                path.join(" ")
            );
        }
        let _ = writeln!(s, "</g>");
    }
}

/// The dependences, kept ones first so broken ones are on top.
fn draw_arrows(s: &mut String, p: &Picture, panel: &Panel, f: &Frame, r: f64) {
    let _ = writeln!(s, r##"<g class="dependences">"##);
    let mut arrows: Vec<&Arrow> = panel.arrows.iter().collect();
    arrows.sort_by_key(|a| a.broken);
    for a in arrows {
        let (x1, y1) = f.at(panel.dots[a.from].x, panel.dots[a.from].y);
        let (x2, y2) = f.at(panel.dots[a.to].x, panel.dots[a.to].y);
        let (dx, dy) = (x2 - x1, y2 - y1);
        let len = (dx * dx + dy * dy).sqrt();
        if len <= 2.0 * r {
            continue;
        }
        let (ux, uy) = (dx / len, dy / len);
        let (sx, sy) = (x1 + ux * r, y1 + uy * r);
        let (ex, ey) = (x2 - ux * (r + 1.0), y2 - uy * (r + 1.0));
        let (class, colour, width, head) = if a.broken {
            (
                if a.witness {
                    "dep broken witness"
                } else {
                    "dep broken"
                },
                RED,
                if a.witness { 3.5 } else { 2.2 },
                "head-broken",
            )
        } else {
            ("dep", ARROW, 1.2, "head")
        };
        let from = &panel.dots[a.from];
        let to = &panel.dots[a.to];
        let _ = writeln!(
            s,
            r##"<line class="{class}" x1="{sx:.1}" y1="{sy:.1}" x2="{ex:.1}" y2="{ey:.1}" stroke="{colour}" stroke-width="{width}" marker-end="url(#{head})"><title>{} dependence {}[{}] → {}[{}]{}</title></line>"##,
            a.kinds,
            esc(&p.stmts[from.stmt]),
            join(&from.iters),
            esc(&p.stmts[to.stmt]),
            join(&to.iters),
            if a.broken {
                " — broken by the script"
            } else {
                ""
            }
        );
    }
    let _ = writeln!(s, "</g>");
}

/// The instances, coloured and numbered by their rank in the panel's order.
fn draw_points(s: &mut String, p: &Picture, panel: &Panel, f: &Frame, r: f64) {
    let n = panel.dots.len();
    let numbers = f.cell >= 20.0 && n <= 400;
    let _ = writeln!(s, r##"<g class="points">"##);
    for d in &panel.dots {
        let (x, y) = f.at(d.x, d.y);
        // Statements after the first are drawn as squares, shifted a little.
        let (x, y) = (x + d.stmt as f64 * r * 0.5, y - d.stmt as f64 * r * 0.5);
        let c = ramp(d.rank, n);
        let title = format!(
            "{}[{}]: #{} in this order",
            p.stmts[d.stmt],
            join(&d.iters),
            d.rank + 1
        );
        if d.stmt == 0 {
            let _ = writeln!(
                s,
                r##"<circle class="point" data-order="{}" cx="{x:.1}" cy="{y:.1}" r="{r:.1}" fill="{}" stroke="#ffffff" stroke-width="1"><title>{}</title></circle>"##,
                d.rank + 1,
                hex(c),
                esc(&title)
            );
        } else {
            let _ = writeln!(
                s,
                r##"<rect class="point" data-order="{}" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}" stroke="#ffffff" stroke-width="1"><title>{}</title></rect>"##,
                d.rank + 1,
                x - r,
                y - r,
                2.0 * r,
                2.0 * r,
                hex(c),
                esc(&title)
            );
        }
        if numbers {
            let light = (c.0 as u32 * 299 + c.1 as u32 * 587 + c.2 as u32 * 114) / 1000 > 140;
            let _ = writeln!(
                s,
                r##"<text class="rank" x="{x:.1}" y="{:.1}" font-size="{:.1}" text-anchor="middle" fill="{}">{}</text>"##,
                y + r * 0.42,
                (r * 1.05).min(11.0),
                if light { "#000000" } else { "#ffffff" },
                d.rank + 1
            );
        }
    }
    let _ = writeln!(s, "</g>");
}

fn legend(s: &mut String, p: &Picture, y: f64, n: usize) {
    let _ = writeln!(s, r##"<g class="legend" font-size="12">"##);
    // The order ramp.
    let mut x = 12.0;
    let _ = writeln!(s, r##"<text x="{x}" y="{:.1}">order:</text>"##, y + 4.0);
    x += 46.0;
    let steps = 12;
    for k in 0..steps {
        let _ = writeln!(
            s,
            r##"<rect x="{:.1}" y="{:.1}" width="10" height="12" fill="{}"/>"##,
            x + k as f64 * 10.0,
            y - 6.0,
            hex(ramp(k, steps))
        );
    }
    let _ = writeln!(
        s,
        r##"<text x="{:.1}" y="{:.1}" font-size="11">first … last (#1 … #{n})</text>"##,
        x + steps as f64 * 10.0 + 6.0,
        y + 4.0
    );
    x += steps as f64 * 10.0 + 170.0;
    let _ = writeln!(
        s,
        r##"<line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{ARROW}" stroke-width="1.2" marker-end="url(#head)"/><text x="{:.1}" y="{:.1}">dependence (nearest source)</text>"##,
        x + 28.0,
        x + 34.0,
        y + 4.0
    );
    let y2 = y + 22.0;
    let mut x = 12.0;
    if p.broken > 0 {
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{y2:.1}" x2="{:.1}" y2="{y2:.1}" stroke="{RED}" stroke-width="2.2" marker-end="url(#head-broken)"/><text x="{:.1}" y="{:.1}" fill="{RED}">broken by the script ({})</text>"##,
            x + 28.0,
            x + 34.0,
            y2 + 4.0,
            p.broken
        );
        x += 200.0;
    }
    if p.panels.iter().any(|q| !q.tiles.is_empty()) {
        let _ = writeln!(
            s,
            r##"<rect x="{x}" y="{:.1}" width="22" height="14" rx="5" fill="{}" stroke="{TILE_STROKE}" stroke-dasharray="3,3"/><text x="{:.1}" y="{:.1}">a tile of the new schedule</text>"##,
            y2 - 8.0,
            TILE_FILLS[0],
            x + 28.0,
            y2 + 4.0
        );
        x += 200.0;
    }
    let shapes: Vec<String> = p
        .stmts
        .iter()
        .enumerate()
        .map(|(k, n)| format!("{} {n}", if k == 0 { "●" } else { "■" }))
        .collect();
    let _ = writeln!(
        s,
        r##"<text x="{x:.1}" y="{:.1}">{}; fixed: {}</text>"##,
        y2 + 4.0,
        esc(&shapes.join(", ")),
        esc(&p.fixed)
    );
    let _ = writeln!(s, "</g>");
}

fn join(v: &[crate::presburger::Int]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The convex hull (Andrew's monotone chain), counter-clockwise; collinear and repeated
/// points dropped. One or two points are returned as they are.
fn convex_hull(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut p: Vec<(f64, f64)> = points.to_vec();
    p.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
    p.dedup();
    if p.len() <= 2 {
        return p;
    }
    let cross = |o: (f64, f64), a: (f64, f64), b: (f64, f64)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let mut lower: Vec<(f64, f64)> = vec![];
    for &q in &p {
        while lower.len() >= 2 && cross(lower[lower.len() - 2], lower[lower.len() - 1], q) <= 0.0 {
            lower.pop();
        }
        lower.push(q);
    }
    let mut upper: Vec<(f64, f64)> = vec![];
    for &q in p.iter().rev() {
        while upper.len() >= 2 && cross(upper[upper.len() - 2], upper[upper.len() - 1], q) <= 0.0 {
            upper.pop();
        }
        upper.push(q);
    }
    lower.pop();
    upper.pop();
    lower.extend(upper);
    lower
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hull_of_a_square_with_inner_points() {
        let pts = [
            (0.0, 0.0),
            (2.0, 0.0),
            (2.0, 2.0),
            (0.0, 2.0),
            (1.0, 1.0),
            (1.0, 0.0),
        ];
        let h = convex_hull(&pts);
        assert_eq!(h.len(), 4);
        for c in [(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0)] {
            assert!(h.contains(&c));
        }
        assert_eq!(convex_hull(&[(1.0, 1.0), (1.0, 1.0)]), vec![(1.0, 1.0)]);
        assert_eq!(convex_hull(&[(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)]).len(), 2);
    }

    #[test]
    fn ramp_ends_and_escaping() {
        assert_eq!(ramp(0, 10), RAMP[0]);
        assert_eq!(ramp(9, 10), RAMP[4]);
        assert_eq!(ramp(0, 1), RAMP[0]);
        assert_eq!(esc("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
