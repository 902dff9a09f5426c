//! The launch-order picture of the per-subgroup probes: the group grid, each group coloured
//! by its start rank, as SVG; and the file-name parts of the picture.
use std::fmt::Write as _;

/// Viridis, 9 stops (perceptually uniform, readable in grey and by most colour-blind readers).
const VIRIDIS: [[u8; 3]; 9] = [
    [68, 1, 84],
    [71, 44, 122],
    [59, 81, 139],
    [44, 113, 142],
    [33, 144, 141],
    [39, 173, 129],
    [92, 200, 99],
    [170, 220, 50],
    [253, 231, 37],
];

/// Colour of `t` in [0, 1] on the viridis gradient, as `#rrggbb`.
pub fn viridis(t: f64) -> String {
    let t = t.clamp(0.0, 1.0) * (VIRIDIS.len() - 1) as f64;
    let i = (t.floor() as usize).min(VIRIDIS.len() - 2);
    let f = t - i as f64;
    let c: Vec<u8> = (0..3)
        .map(|k| {
            let a = VIRIDIS[i][k] as f64;
            let b = VIRIDIS[i + 1][k] as f64;
            (a + (b - a) * f).round() as u8
        })
        .collect();
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Most cells drawn in a launch-order picture; bigger grids are drawn in blocks.
pub const MAX_CELLS: u64 = 8192;
/// Pictures of at most this many cells get a tooltip per cell (group and start rank).
pub const TOOLTIP_CELLS: u64 = 2048;
/// A 1-D grid of more groups than this is drawn in rows.
pub const ROW: u32 = 128;

/// The launch-order picture as an SVG document: `grid` is the dispatch's group counts (X, Y, Z),
/// `ranks` each group's start rank in flat index order (None: no record); `title` and `subtitle`
/// head it.
///
/// The group grid is drawn X across, Y down, Z slices stacked downwards, each group a cell
/// coloured by its start rank (dark = first, yellow = last, grey = no record), with the rank
/// written in the cell when cells are large enough.
pub fn svg(grid: [u32; 3], ranks: &[Option<u32>], title: &str, subtitle: &str) -> String {
    // A long 1-D grid is drawn row by row, ROW groups per row (the flat index order), instead of
    // as one line tens of thousands of pixels wide.
    let (grid, row_note) = if grid[1] <= 1 && grid[2] <= 1 && grid[0] > ROW {
        // Rows of a power of two near the square root: a roughly square picture.
        let row = ((grid[0] as f64).sqrt().ceil() as u32).next_power_of_two();
        (
            [row, grid[0].div_ceil(row), 1],
            format!("; 1-D grid drawn in rows of {row} groups"),
        )
    } else {
        (grid, String::new())
    };
    let subtitle = format!("{subtitle}{row_note}");
    let [fx, fy, gz] = [grid[0].max(1), grid[1].max(1), grid[2].max(1)];
    // A big grid is drawn in blocks of b x b groups, each coloured by the mean start rank of
    // its recorded groups, so the file stays small (a 320x180 grid was 9 MB cell by cell).
    let cells = fx as u64 * fy as u64 * gz as u64;
    let b = if cells > MAX_CELLS {
        ((cells as f64 / MAX_CELLS as f64).sqrt().ceil() as u32).max(2)
    } else {
        1
    };
    let (gx, gy) = (fx.div_ceil(b), fy.div_ceil(b));
    let block_rank = |x: u32, y: u32, z: u32| -> Option<u32> {
        let (mut sum, mut n) = (0u64, 0u64);
        for yy in y * b..((y + 1) * b).min(fy) {
            for xx in x * b..((x + 1) * b).min(fx) {
                let i = (xx + fx * (yy + fy * z)) as usize;
                if let Some(r) = ranks.get(i).copied().flatten() {
                    sum += u64::from(r);
                    n += 1;
                }
            }
        }
        (n > 0).then(|| (sum / n) as u32)
    };
    let subtitle = if b > 1 {
        format!("{subtitle}; each cell: mean start rank of {b}x{b} groups")
    } else {
        subtitle
    };
    // Per-cell tooltips only on small pictures: they triple the bytes per cell.
    let tooltips = b == 1 && cells <= TOOLTIP_CELLS;
    let subtitle = subtitle.as_str();
    let cell = (720.0 / gx.max(gy) as f64).clamp(2.0, 40.0);
    let gap = if gz > 1 { cell } else { 0.0 };
    let (left, top, bottom) = (10.0, 46.0, 34.0);
    // Wide enough for the grid and the subtitle (about 6 px per character at 11 px).
    let text_w = left * 2.0 + 6.2 * subtitle.chars().count().max(title.chars().count()) as f64;
    let w = (left * 2.0 + cell * gx as f64).max(text_w).max(360.0);
    let h = top + bottom + (cell * gy as f64 + gap) * gz as f64;
    let max_rank = ranks.iter().flatten().copied().max().unwrap_or(0).max(1) as f64;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="sans-serif">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="18" font-size="14">{}</text>"#,
        esc(title)
    );
    let _ = writeln!(
        s,
        r##"<text x="{left}" y="36" font-size="11" fill="#444">{}</text>"##,
        esc(subtitle)
    );
    let label = tooltips && cell >= 18.0;
    for z in 0..gz {
        let y0 = top + (cell * gy as f64 + gap) * z as f64;
        for y in 0..gy {
            for x in 0..gx {
                let rank = block_rank(x, y, z);
                let fill = match rank {
                    Some(r) => viridis(r as f64 / max_rank),
                    None => "#bbbbbb".into(),
                };
                let (px, py) = (left + cell * x as f64, y0 + cell * y as f64);
                if !tooltips {
                    let _ = writeln!(
                        s,
                        r#"<rect x="{px:.1}" y="{py:.1}" width="{cell:.1}" height="{cell:.1}" fill="{fill}"/>"#
                    );
                } else {
                    let _ = writeln!(
                        s,
                        r#"<rect x="{px:.2}" y="{py:.2}" width="{cell:.2}" height="{cell:.2}" fill="{fill}" stroke="white" stroke-width="{:.2}"><title>group ({x}, {y}, {z}): start rank {}</title></rect>"#,
                        (cell * 0.04).min(1.0),
                        rank.map(|r| r.to_string()).unwrap_or_else(|| "none".into())
                    );
                }
                if let (true, Some(r)) = (label, rank) {
                    let ink = if (r as f64 / max_rank) > 0.6 {
                        "black"
                    } else {
                        "white"
                    };
                    let _ = writeln!(
                        s,
                        r#"<text x="{:.2}" y="{:.2}" font-size="{:.1}" text-anchor="middle" fill="{ink}">{r}</text>"#,
                        px + cell / 2.0,
                        py + cell * 0.62,
                        cell * 0.36
                    );
                }
            }
        }
    }
    // Legend: the gradient from first to last start.
    let ly = h - bottom + 10.0;
    let steps = 32;
    let lw = 200.0;
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="{:.1}" font-size="11">first</text>"#,
        ly + 10.0
    );
    for k in 0..steps {
        let _ = writeln!(
            s,
            r#"<rect x="{:.2}" y="{ly:.1}" width="{:.2}" height="12" fill="{}"/>"#,
            left + 34.0 + lw * k as f64 / steps as f64,
            lw / steps as f64 + 0.5,
            viridis(k as f64 / (steps - 1) as f64)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" font-size="11">last to start</text>"#,
        left + 40.0 + lw,
        ly + 10.0
    );
    s.push_str("</svg>\n");
    s
}

/// FNV-1a of `s`, as 8 hex digits: the params part of the probe picture's file name.
pub fn short_hash(s: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{:08x}", (h ^ (h >> 32)) as u32)
}

/// The longest [`file_part`]: three of them plus a prefix and a hash stay well under the 255
/// bytes a file name may have.
pub const FILE_PART_MAX: usize = 60;

/// A name safe for a file: anything but ASCII letters, digits, `-`, `_` and `.` becomes `_`;
/// a name longer than [`FILE_PART_MAX`] keeps its start and ends in a hash of the whole name,
/// so long names that differ only at the end still get different files.
pub fn file_part(s: &str) -> String {
    let safe: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.len() <= FILE_PART_MAX {
        return safe;
    }
    let hash = short_hash(s);
    // All ASCII, so any byte index is a char boundary.
    format!("{}-{hash}", &safe[..FILE_PART_MAX - hash.len() - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_shortened_with_a_hash() {
        assert_eq!(file_part("a b/c"), "a_b_c");
        let long = "x".repeat(300);
        let f = file_part(&long);
        assert_eq!(f.len(), FILE_PART_MAX);
        assert!(f.starts_with("xxxx") && f.ends_with(&short_hash(&long)));
        let other = format!("{}y", "x".repeat(299));
        assert_ne!(file_part(&other), f, "names differing at the end differ");
        assert_eq!(file_part(&"é".repeat(100)).len(), FILE_PART_MAX);
    }

    #[test]
    fn svg_cells_and_gradient() {
        assert_eq!(viridis(0.0), "#440154");
        assert_eq!(viridis(1.0), "#fde725");
        let s = svg(
            [3, 2, 1],
            &[Some(0), Some(1), None, Some(2), Some(3), Some(4)],
            "t<1>",
            "s",
        );
        assert!(s.starts_with("<svg"));
        assert!(s.trim_end().ends_with("</svg>"));
        assert_eq!(s.matches("<title>group").count(), 6);
        assert!(s.contains("t&lt;1&gt;"));
        assert!(s.contains("#bbbbbb"));
        assert!(s.contains("group (2, 0, 0): start rank none"));
    }

    #[test]
    fn big_grids_are_drawn_in_blocks() {
        // 320x180 groups in row-major order: 57600 cells become 107x60 blocks of 3x3.
        let (gx, gy) = (320u32, 180u32);
        let ranks: Vec<Option<u32>> = (0..gx * gy).map(Some).collect();
        let s = svg([gx, gy, 1], &ranks, "t", "s");
        assert!(s.contains("mean start rank of 3x3 groups"), "{}", &s[..400]);
        let cells = s.matches("<rect").count() - 1 - 32; // background and legend
        assert_eq!(cells, 107 * 60);
        assert!(s.len() < 1_000_000, "{} bytes", s.len());
        // A 1-D grid of 131072 groups: rows of 512 (512 x 256), then blocks of 4x4.
        let ranks: Vec<Option<u32>> = (0..131072).map(Some).collect();
        let s = svg([131072, 1, 1], &ranks, "t", "s");
        assert!(s.contains("rows of 512 groups"));
        assert!(s.contains("mean start rank of 4x4 groups"));
        let w: f64 = s[s.find("width=\"").unwrap() + 7..]
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(w < 2000.0, "{w} px wide");
        assert!(s.len() < 1_000_000, "{} bytes", s.len());
        assert!(!s.contains("<title>"));
        let small = svg([4, 4, 1], &ranks[..16], "t", "s");
        assert!(!small.contains("mean start rank"));
    }

    #[test]
    fn names() {
        assert_eq!(short_hash("width=176").len(), 8);
        assert_ne!(short_hash("width=176"), short_hash("width=177"));
        assert_eq!(file_part("a/b c-1.x"), "a_b_c-1.x");
    }
}
