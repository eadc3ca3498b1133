//! Label placement for the charts: each label tries positions around its
//! point, nearest first, and takes the first whose box stays inside the
//! plot and clear of every label already placed and every obstacle (the
//! legend, the marks). Past the first ring a leader line joins it to its
//! point. A label with no free place is left out and reported, never drawn
//! over another: the no-overlap promise is this module's whole job.
//! Deterministic: the same input always gives the same page.

/// An axis-aligned box, in SVG pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Rect {
    /// Whether the two boxes share any area once this one is grown by `pad`.
    pub fn overlaps(&self, other: &Rect, pad: f64) -> bool {
        self.x0 - pad < other.x1 && other.x0 < self.x1 + pad && self.y0 - pad < other.y1 && other.y0 < self.y1 + pad
    }

    fn inside(&self, bounds: &Rect) -> bool {
        self.x0 >= bounds.x0 && self.x1 <= bounds.x1 && self.y0 >= bounds.y0 && self.y1 <= bounds.y1
    }
}

/// A label's height above and below its baseline, a little generous.
const ASCENT: f64 = 11.0;
const DESCENT: f64 = 3.5;
/// Space kept between a label and anything else.
const PAD: f64 = 2.0;

/// A label to place: the point it names and its estimated width.
#[derive(Debug, Clone, Copy)]
pub struct Wanted {
    pub x: f64,
    pub y: f64,
    pub width: f64,
}

/// Where a label went: its start-anchored baseline position, and whether
/// it sits away from its point (draw a leader line to `leader_to`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placed {
    pub x: f64,
    pub y: f64,
    pub leader: bool,
    pub rect: Rect,
}

/// How far from its point a label may go, ring by ring; beyond the first
/// it gets a leader line.
const RINGS: [f64; 9] = [7.0, 16.0, 28.0, 42.0, 60.0, 82.0, 110.0, 145.0, 190.0];

/// Places `labels` in order (put the important ones first) inside `bounds`,
/// clear of `obstacles` and of each other. `None` for a label no place fits.
pub fn place(labels: &[Wanted], obstacles: &[Rect], bounds: Rect) -> Vec<Option<Placed>> {
    let mut taken: Vec<Rect> = Vec::new();
    let mut out = Vec::with_capacity(labels.len());
    for label in labels {
        let spot = candidates(label)
            .into_iter()
            .find(|(rect, _)| rect.inside(&bounds) && !taken.iter().chain(obstacles).any(|other| rect.overlaps(other, PAD)));
        out.push(spot.map(|(rect, leader)| {
            taken.push(rect);
            Placed { x: rect.x0, y: rect.y0 + ASCENT, leader, rect }
        }));
    }
    out
}

/// Candidate boxes around a label's point, nearest ring first: right, left,
/// above, below, then the four diagonals.
fn candidates(label: &Wanted) -> Vec<(Rect, bool)> {
    let (w, h) = (label.width, ASCENT + DESCENT);
    let mut out = Vec::new();
    for (ring, d) in RINGS.iter().enumerate() {
        let mid = label.y - h / 2.0;
        let spots = [
            (label.x + d, mid),
            (label.x - d - w, mid),
            (label.x - w / 2.0, label.y - d - h),
            (label.x - w / 2.0, label.y + d),
            (label.x + d * 0.7, label.y - d * 0.7 - h),
            (label.x + d * 0.7, label.y + d * 0.7),
            (label.x - d * 0.7 - w, label.y - d * 0.7 - h),
            (label.x - d * 0.7 - w, label.y + d * 0.7),
        ];
        out.extend(spots.into_iter().map(|(x0, y0)| (Rect { x0, y0, x1: x0 + w, y1: y0 + h }, ring > 0)));
        // Then stacked beside the point, a line apart, up to the ring's reach:
        // a crowd of points at one cost gets a column of labels.
        let steps = (d / h).ceil() as i32;
        for k in (1..=steps).flat_map(|k| [k, -k]) {
            let y0 = mid + f64::from(k) * h;
            for x0 in [label.x + d, label.x - d - w] {
                out.push((Rect { x0, y0, x1: x0 + w, y1: y0 + h }, true));
            }
        }
    }
    out
}

/// The end of a leader line from (`x`, `y`) to the nearest point of `rect`.
pub fn leader_end(x: f64, y: f64, rect: &Rect) -> (f64, f64) {
    (x.clamp(rect.x0, rect.x1), y.clamp(rect.y0 + 2.0, rect.y1 - 2.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUNDS: Rect = Rect { x0: 0.0, y0: 0.0, x1: 600.0, y1: 400.0 };

    #[test]
    fn a_lone_label_sits_right_of_its_point_without_a_leader() {
        let placed = place(&[Wanted { x: 100.0, y: 100.0, width: 50.0 }], &[], BOUNDS);
        let p = placed[0].unwrap();
        assert_eq!((p.x, p.leader), (107.0, false));
    }

    #[test]
    fn sixty_labels_on_one_spot_never_overlap_each_other_or_the_legend() {
        let legend = Rect { x0: 0.0, y0: 0.0, x1: 600.0, y1: 30.0 };
        let labels: Vec<Wanted> =
            (0..60).map(|i| Wanted { x: 300.0 + (i % 3) as f64, y: 60.0, width: 40.0 + (i % 7) as f64 * 12.0 }).collect();
        let placed = place(&labels, &[legend], BOUNDS);
        let boxes: Vec<Rect> = placed.iter().flatten().map(|p| p.rect).collect();
        assert!(boxes.len() >= 30, "{} of 60 placed", boxes.len());
        for (i, a) in boxes.iter().enumerate() {
            assert!(!a.overlaps(&legend, 0.0) && a.inside(&BOUNDS));
            for b in &boxes[i + 1..] {
                assert!(!a.overlaps(b, 0.0), "{a:?} {b:?}");
            }
        }
        assert!(placed.iter().flatten().any(|p| p.leader));
    }

    #[test]
    fn a_label_with_no_room_is_left_out() {
        let full = Rect { x0: -1.0, y0: -1.0, x1: 601.0, y1: 401.0 };
        assert_eq!(place(&[Wanted { x: 10.0, y: 10.0, width: 30.0 }], &[full], BOUNDS), [None]);
    }
}
