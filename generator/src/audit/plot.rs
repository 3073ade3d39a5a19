//! The audit's picture (`damka audit --plot`, and the explorer's audit
//! view): per slice, how many wins take how many plies, against the limit.
//!
//! Counts are drawn on a log scale: the long wins near the limit, the ones
//! arbiters care about, are a handful of positions beside thousands of
//! short ones and would not show on a linear scale. Each ply has two bars:
//! pure wins by plies to conversion (grey, with the cursed ones among them
//! in orange) and wins under the rules by plies to the counter's reset
//! (blue). The limit is a red dashed line. A cursed win may be shorter
//! than the limit: its conversion can lead into a position the rules draw.

use std::fmt::Write;

use super::{Audit, SliceAudit};

const PURE: &str = "#b8b8b8";
const CURSED: &str = "#e8590c";
const RULES: &str = "#1c64c8";
const LIMIT: &str = "#d00000";

/// One chart's size, and the margins that hold its axes' numbers.
const WIDTH: f64 = 520.0;
const HEIGHT: f64 = 250.0;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 14.0;
const TOP: f64 = 34.0;
const BOTTOM: f64 = 40.0;
/// Room for the picture's title and legend.
const HEADER: f64 = 66.0;
const COLUMNS: usize = 2;

/// Every slice that has wins, two charts a row.
pub fn plot(audit: &Audit) -> String {
    let charts: Vec<&SliceAudit> = audit.slices.iter().filter(|s| s.pure_wins > 0).collect();
    let columns = COLUMNS.min(charts.len()).max(1);
    let rows = charts.len().div_ceil(columns);
    let mut svg = open(audit, columns as f64 * WIDTH, HEADER + rows as f64 * HEIGHT);
    if charts.is_empty() {
        svg += "<text x=\"10\" y=\"80\">No slice has a win.</text>\n";
    }
    for (n, s) in charts.iter().enumerate() {
        chart(&mut svg, s, (n % columns) as f64 * WIDTH, HEADER + (n / columns) as f64 * HEIGHT);
    }
    svg + "</svg>\n"
}

/// One slice's chart, with the title and legend.
pub fn plot_slice(audit: &Audit, slice: &SliceAudit) -> String {
    let mut svg = open(audit, WIDTH, HEADER + HEIGHT);
    if slice.pure_wins == 0 {
        let _ = writeln!(svg, "<text x=\"10\" y=\"{}\">{}: no position is won.</text>", HEADER + 20.0, slice.material);
    } else {
        chart(&mut svg, slice, 0.0, HEADER);
    }
    svg + "</svg>\n"
}

/// The SVG element, the title and the legend.
fn open(audit: &Audit, width: f64, height: f64) -> String {
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" \
         font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">Win lengths: {}, rule set {}</text>\n",
        audit.variant, audit.rules
    );
    // Two rows of two: the legend fits the width of one chart.
    let legend = [
        (PURE, "pure wins, by plies to conversion"),
        (CURSED, "cursed wins among them"),
        (RULES, "wins under the rules, by plies to reset"),
    ];
    for (n, (color, text)) in legend.into_iter().enumerate() {
        let (x, y) = (10.0 + (n % 2) as f64 * 250.0, 30.0 + (n / 2) as f64 * 16.0);
        let _ = writeln!(
            svg,
            "<rect x=\"{x}\" y=\"{y}\" width=\"12\" height=\"12\" fill=\"{color}\"/><text x=\"{}\" y=\"{}\">{text}</text>",
            x + 16.0,
            y + 10.0
        );
    }
    let _ = writeln!(
        svg,
        "<line x1=\"260\" y1=\"52\" x2=\"272\" y2=\"52\" stroke=\"{LIMIT}\" stroke-width=\"2\" stroke-dasharray=\"4 2\"/>\
         <text x=\"276\" y=\"56\">the limit; counts on a log scale</text>"
    );
    svg
}

/// The chart of slice `s` in the box at (`x0`, `y0`).
fn chart(svg: &mut String, s: &SliceAudit, x0: f64, y0: f64) {
    let (px, py) = (x0 + LEFT, y0 + TOP);
    let (pw, ph) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
    let longest = u32::from(s.longest_pure_win.max(s.longest_rule_win)).max(s.limit_plies.unwrap_or(0));
    // One slot a ply, 0 to the longest, with a little room after the limit.
    let slots = f64::from(longest + 1);
    let slot = pw / slots;
    let x_of = |plies: f64| px + plies * slot;
    let most = [&s.pure_win_lengths, &s.rule_win_lengths].iter().flat_map(|l| l.iter().map(|(_, c)| *c)).max().unwrap_or(1);
    // Powers of ten up to the largest count; a bar of 1 still shows.
    let decades = (most as f64).log10().ceil().max(1.0);
    let floor = -0.3;
    let y_of = |count: f64| py + ph - ph * (count.log10() - floor) / (decades - floor);
    let share = 100.0 * s.cursed_wins as f64 / s.pure_wins.max(1) as f64;
    let _ = writeln!(
        svg,
        "<text x=\"{px}\" y=\"{}\" font-size=\"12\"><tspan font-weight=\"bold\">{}</tspan>: {} pure wins, \
         <tspan fill=\"{CURSED}\">{} cursed ({share:.2}%)</tspan>, longest {} plies</text>",
        y0 + 18.0,
        s.material,
        thousands(s.pure_wins),
        thousands(s.cursed_wins),
        s.longest_pure_win
    );
    // The count axis: a grid line and a number at each power of ten.
    for d in 0..=decades as u32 {
        let y = y_of(10f64.powi(d as i32));
        let _ = writeln!(
            svg,
            "<line x1=\"{px}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#e4e4e4\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            px + pw,
            px - 4.0,
            y + 4.0,
            power_of_ten(d)
        );
    }
    let _ = writeln!(
        svg,
        "<text transform=\"translate({:.1} {:.1}) rotate(-90)\" text-anchor=\"middle\">positions</text>",
        x0 + 12.0,
        py + ph / 2.0
    );
    // Two half-width bars a ply: pure (cursed over it) left, rules right.
    // (win lengths and their counts, colour, offset within the ply)
    type Bar<'a> = (&'a [(u16, u64)], &'a str, f64);
    let bars: [Bar; 3] =
        [(&s.pure_win_lengths, PURE, 0.0), (&s.cursed_win_lengths, CURSED, 0.0), (&s.rule_win_lengths, RULES, 0.5)];
    let width = (slot * 0.45).max(0.6);
    for (lengths, color, offset) in bars {
        for &(plies, count) in lengths {
            let y = y_of(count as f64);
            let _ = writeln!(
                svg,
                "<rect x=\"{:.2}\" y=\"{y:.1}\" width=\"{width:.2}\" height=\"{:.1}\" fill=\"{color}\"><title>{plies} plies: {count}</title></rect>",
                x_of(f64::from(plies) + offset * 0.9 + 0.05),
                py + ph - y
            );
        }
    }
    // The ply axis: a tick and a number at round steps.
    let step = tick_step(longest + 1);
    let mut plies = 0;
    while plies <= longest {
        let x = x_of(f64::from(plies) + 0.5);
        let _ = writeln!(
            svg,
            "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#666\"/>\
             <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{plies}</text>",
            py + ph,
            py + ph + 4.0,
            py + ph + 15.0
        );
        plies += step;
    }
    let _ = writeln!(
        svg,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">plies</text>\
         <rect x=\"{px}\" y=\"{py}\" width=\"{pw:.1}\" height=\"{ph:.1}\" fill=\"none\" stroke=\"#888\"/>",
        px + pw / 2.0,
        py + ph + 30.0
    );
    if let Some(l) = s.limit_plies {
        // A win of exactly the limit's plies is still a win.
        let x = x_of(f64::from(l) + 1.0);
        let _ = writeln!(
            svg,
            "<line x1=\"{x:.1}\" y1=\"{py}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"{LIMIT}\" stroke-width=\"2\" stroke-dasharray=\"4 2\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" fill=\"{LIMIT}\" text-anchor=\"end\">limit {l} plies ({} moves)</text>",
            py + ph,
            x - 3.0,
            py + 12.0,
            l.div_ceil(2)
        );
    }
}

/// A round step between numbered ticks: at most about ten numbers.
fn tick_step(span: u32) -> u32 {
    [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000].into_iter().find(|s| span / s <= 10).unwrap_or(10_000)
}

/// 1, 10, 100, 1k, 10k, 100k, 1M, ...
fn power_of_ten(d: u32) -> String {
    match d {
        0..=2 => 10u64.pow(d).to_string(),
        3..=5 => format!("{}k", 10u64.pow(d - 3)),
        6..=8 => format!("{}M", 10u64.pow(d - 6)),
        _ => format!("1e{d}"),
    }
}

/// 1234567 as 1,234,567.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice() -> SliceAudit {
        SliceAudit {
            material: "KKMvK".into(),
            positions: 100_000,
            pure_wins: 50_123,
            rule_wins: 50_000,
            cursed_wins: 123,
            blessed_losses: 0,
            longest_pure_win: 75,
            longest_pure_win_fen: None,
            longest_rule_win: 58,
            longest_rule_win_fen: None,
            cursed_win_fen: None,
            limit_plies: Some(60),
            rules: Vec::new(),
            pure_win_lengths: vec![(1, 40_000), (30, 10_000), (75, 123)],
            rule_win_lengths: vec![(1, 40_000), (58, 10_000)],
            cursed_win_lengths: vec![(75, 123)],
            counter_states: 0,
            ambiguous_states: 0,
        }
    }

    #[test]
    fn a_chart_has_numbered_axes_the_limit_and_its_cursed_wins() {
        let audit = Audit { variant: "russian".into(), rules: "russian".into(), rules_hash: "0".into(), slices: vec![slice()] };
        let svg = plot_slice(&audit, &audit.slices[0]);
        // Plies every 10 (76 slots), counts at every power of ten to 100k.
        for tick in ["0", "10", "70", "1", "10", "100", "1k", "10k", "100k"] {
            assert!(svg.contains(&format!(">{tick}</text>")), "no tick {tick}");
        }
        assert!(!svg.contains(">80</text>") && !svg.contains(">1M</text>"));
        assert!(svg.contains("limit 60 plies (30 moves)"));
        assert!(svg.contains("123 cursed (0.25%)"));
        // The cursed bar of 123 at 75 plies, on the log scale: as tall as
        // the pure bar it lies over, about 2.1 decades of 5.3.
        let cursed: Vec<&str> = svg.lines().filter(|l| l.contains(&format!("fill=\"{CURSED}\"><title>"))).collect();
        assert_eq!(cursed.len(), 1);
        assert!(cursed[0].contains("<title>75 plies: 123</title>"));
        let height = |line: &str| -> f64 {
            let h = line.split("height=\"").nth(1).unwrap();
            h[..h.find('"').unwrap()].parse().unwrap()
        };
        let plot_height = HEIGHT - TOP - BOTTOM;
        let share = height(cursed[0]) / plot_height;
        assert!((share - (2.09 + 0.3) / 5.3).abs() < 0.01, "{share}");
        assert_eq!(plot(&audit).matches("<rect x=").count(), svg.matches("<rect x=").count());
    }

    #[test]
    fn axis_numbers_read_as_people_write_them() {
        assert_eq!([0, 1, 3, 4, 6].map(power_of_ten), ["1", "10", "1k", "10k", "1M"]);
        assert_eq!([0, 999, 1000, 1234567].map(thousands), ["0", "999", "1,000", "1,234,567"]);
        assert_eq!([5, 10, 11, 60, 121, 1000].map(tick_step), [1, 1, 2, 10, 20, 100]);
    }
}
