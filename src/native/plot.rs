//! An SVG bar chart of speedups: one group of horizontal bars per program, one bar per
//! series (a size, a compiler), a line at 1× (no change).

use std::fmt::Write;

/// One bar: `value` (a speedup) of `series` for `group`.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    pub group: String,
    pub series: String,
    pub value: f64,
}

const COLORS: [&str; 6] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1",
];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A step for the axis ticks: 1, 2 or 5 times a power of ten, about 5 ticks up to `max`.
fn tick_step(max: f64) -> f64 {
    let raw = max / 5.0;
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p)
}

/// The chart as a standalone SVG document. Groups and series keep their first-seen order;
/// bars that are not finite are left out.
pub fn speedup_chart(title: &str, bars: &[Bar]) -> String {
    let mut groups: Vec<&str> = vec![];
    let mut series: Vec<&str> = vec![];
    for b in bars {
        if !groups.contains(&b.group.as_str()) {
            groups.push(&b.group);
        }
        if !series.contains(&b.series.as_str()) {
            series.push(&b.series);
        }
    }
    let max = bars
        .iter()
        .map(|b| b.value)
        .filter(|v| v.is_finite())
        .fold(1.0f64, f64::max);
    let step = tick_step(max * 1.05);
    let top = (max * 1.05 / step).ceil() * step;

    let (bar_h, gap, left, right, head) = (14.0, 10.0, 130.0, 60.0, 56.0);
    let plot_w = 520.0;
    let group_h = bar_h * series.len().max(1) as f64 + gap;
    let legend_h = 20.0 * series.len() as f64;
    let plot_h = group_h * groups.len() as f64;
    let width = left + plot_w + right;
    let height = head + plot_h + 36.0 + legend_h + 10.0;
    let x = |v: f64| left + plot_w * (v.max(0.0) / top);

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        s,
        r##"<rect width="{width}" height="{height}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" font-size="15" font-weight="bold" text-anchor="middle">{}</text>"#,
        width / 2.0,
        esc(title)
    );
    // Grid and axis labels.
    let mut v = 0.0;
    while v <= top + step / 2.0 {
        let gx = x(v);
        let _ = writeln!(
            s,
            r##"<line x1="{gx:.1}" y1="{head}" x2="{gx:.1}" y2="{:.1}" stroke="#dddddd"/>"##,
            head + plot_h
        );
        let _ = writeln!(
            s,
            r#"<text x="{gx:.1}" y="{:.1}" text-anchor="middle">{}×</text>"#,
            head + plot_h + 16.0,
            trim(v)
        );
        v += step;
    }
    let one = x(1.0);
    let _ = writeln!(
        s,
        r##"<line x1="{one:.1}" y1="{:.1}" x2="{one:.1}" y2="{:.1}" stroke="#333333" stroke-dasharray="4 3"/>"##,
        head - 6.0,
        head + plot_h
    );
    let _ = writeln!(
        s,
        r#"<text x="{one:.1}" y="{:.1}" text-anchor="middle" font-size="10">no change</text>"#,
        head - 10.0
    );
    for (gi, g) in groups.iter().enumerate() {
        let gy = head + group_h * gi as f64 + gap / 2.0;
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end" dominant-baseline="middle">{}</text>"#,
            left - 8.0,
            gy + bar_h * series.len() as f64 / 2.0,
            esc(g)
        );
        for (si, se) in series.iter().enumerate() {
            let Some(b) = bars
                .iter()
                .find(|b| b.group == *g && b.series == *se && b.value.is_finite())
            else {
                continue;
            };
            let y = gy + bar_h * si as f64;
            let w = x(b.value) - left;
            let _ = writeln!(
                s,
                r#"<rect x="{left}" y="{y:.1}" width="{w:.1}" height="{:.1}" fill="{}"><title>{} {}: {:.2}×</title></rect>"#,
                bar_h - 2.0,
                COLORS[si % COLORS.len()],
                esc(g),
                esc(se),
                b.value
            );
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" dominant-baseline="middle" font-size="10">{:.2}×</text>"#,
                left + w + 4.0,
                y + (bar_h - 2.0) / 2.0,
                b.value
            );
        }
    }
    let _ = writeln!(
        s,
        r##"<line x1="{left}" y1="{head}" x2="{left}" y2="{:.1}" stroke="#333333"/>"##,
        head + plot_h
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">speedup (original time / transformed time)</text>"#,
        left + plot_w / 2.0,
        head + plot_h + 32.0
    );
    for (si, se) in series.iter().enumerate() {
        let ly = head + plot_h + 44.0 + 20.0 * si as f64;
        let _ = writeln!(
            s,
            r#"<rect x="{left}" y="{ly:.1}" width="12" height="12" fill="{}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
            COLORS[si % COLORS.len()],
            left + 18.0,
            ly + 10.0,
            esc(se)
        );
    }
    s.push_str("</svg>\n");
    s
}

fn trim(v: f64) -> String {
    let t = format!("{v:.2}");
    t.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(g: &str, s: &str, v: f64) -> Bar {
        Bar {
            group: g.into(),
            series: s.into(),
            value: v,
        }
    }

    #[test]
    fn ticks() {
        assert_eq!(tick_step(5.0), 1.0);
        assert_eq!(tick_step(8.0), 2.0);
        assert_eq!(tick_step(1.2), 0.5);
        assert_eq!(tick_step(30.0), 10.0);
        assert_eq!(trim(1.5), "1.5");
        assert_eq!(trim(2.0), "2");
    }

    #[test]
    fn chart_has_a_bar_per_value() {
        let svg = speedup_chart(
            "speedups <gcc>",
            &[
                bar("matmul", "medium", 3.2),
                bar("matmul", "large", 5.0),
                bar("lu", "medium", 0.8),
                bar("lu", "large", f64::NAN),
            ],
        );
        assert!(svg.starts_with("<svg"));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<title>").count(), 3);
        assert!(svg.contains("speedups &lt;gcc&gt;"));
        assert!(svg.contains("matmul large: 5.00×"));
        assert!(svg.contains(">medium</text>") && svg.contains(">large</text>"));
        // Well formed enough: every opened element is closed.
        assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count());
    }
}
