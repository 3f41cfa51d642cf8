//! A counterexample as an SVG sequence diagram, written by hand: no script, no external
//! file, no font download. One lifeline per actor, one box per domain step on its actor's
//! lifeline with the values it read and wrote and the Java method it stands for (a link to
//! the cited file at the pinned commit; a model step gets no link), an arrow where control
//! passes from one actor to another, and the step where the invariant broke marked in red
//! with a note saying which invariant and why.
//!
//! Text is measured with a monospace font's advance (0.61 em for ASCII, a full em for
//! anything else, which is wider than any monospace glyph), wrapped to its box, and cut
//! with `…` after [`MAX_LINES`] lines; a cut box carries its whole text as a tooltip
//! (`<title>`). The diagram is at most [`MAX_WIDTH`] pixels wide; the lanes share that
//! width by how much text each actor's steps carry.
//!
//! The drawing is computed as a [`Layout`] first, so that tests can check its geometry,
//! then rendered.

use ozone_ha_check::citation::{self as cite, Links};
use ozone_ha_check::trace::{actors, Broke, Event};
use std::fmt::Write as _;

/// The widest a diagram is drawn (lanes are narrowed to fit, down to [`MIN_LANE`]).
pub const MAX_WIDTH: f64 = 1180.0;
/// The narrowest lane (narrower only when the actors cannot all have it).
pub const MIN_LANE: f64 = 180.0;
/// The widest lane.
pub const MAX_LANE: f64 = 440.0;
/// Lines of a step's text before it is cut with `…`.
pub const MAX_LINES: usize = 10;
/// Font size of step text, in pixels.
pub const FONT: f64 = 12.0;
/// Baseline-to-baseline distance.
pub const LINE: f64 = 15.0;

const FONT_FAMILY: &str = "DejaVu Sans Mono, Menlo, Consolas, Liberation Mono, monospace";
const MARGIN: f64 = 12.0;
const GUTTER: f64 = 40.0;
const PAD: f64 = 6.0;
const GAP: f64 = 6.0;
const SWITCH_GAP: f64 = 16.0;
const HEADER: f64 = 26.0;

/// The width `text` takes at `size` pixels, as the layout measures it: 0.61 em for an
/// ASCII character (monospace fonts use 0.6 or less), a full em for any other.
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars()
        .map(|c| if c.is_ascii() { 0.61 } else { 1.0 })
        .sum::<f64>()
        * size
}

/// Split `text` into lines no wider than `max` pixels at `size`: at spaces where it can,
/// inside a long word after `.`, `/`, `,`, `=`, `_` or `(` where it can, else anywhere.
pub fn wrap(text: &str, max: f64, size: f64) -> Vec<String> {
    let fits = |s: &str| text_width(s, size) <= max;
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let joined = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if fits(&joined) {
            line = joined;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        let mut rest: Vec<char> = word.chars().collect();
        while !fits(&rest.iter().collect::<String>()) {
            // The longest head that fits, ending after a break character if one does.
            let mut n = 0;
            while n < rest.len() && fits(&rest[..=n].iter().collect::<String>()) {
                n += 1;
            }
            let n = n.max(1);
            let cut = (1..=n)
                .rev()
                .find(|&i| matches!(rest[i - 1], '.' | '/' | ',' | '=' | '_' | '(' | '{'))
                .filter(|&i| i * 3 >= n)
                .unwrap_or(n);
            lines.push(rest[..cut].iter().collect());
            rest.drain(..cut);
        }
        line = rest.into_iter().collect();
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// At most `max` lines of `lines`, the last one ending in `…` when some were cut; and
/// whether they were.
fn clip(mut lines: Vec<String>, max: usize, width: f64, size: f64) -> (Vec<String>, bool) {
    if lines.len() <= max {
        return (lines, false);
    }
    lines.truncate(max);
    if let Some(last) = lines.last_mut() {
        while !last.is_empty() && text_width(&format!("{last}…"), size) > width {
            last.pop();
        }
        last.push('…');
    }
    (lines, true)
}

/// One line of text placed in the diagram.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// The text.
    pub text: String,
    /// Left end of the baseline.
    pub x: f64,
    /// The baseline.
    pub y: f64,
    /// The width the layout measured for it.
    pub width: f64,
}

/// An actor's lane.
#[derive(Clone, Debug, PartialEq)]
pub struct Lane {
    /// The actor.
    pub actor: String,
    /// Left edge.
    pub x: f64,
    /// Width.
    pub width: f64,
    /// Where its lifeline runs.
    pub center: f64,
}

/// A rectangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

impl Rect {
    /// Whether `line` lies inside, with its measured width.
    pub fn holds(&self, line: &Line) -> bool {
        line.x >= self.x
            && line.x + line.width <= self.x + self.w + 0.01
            && line.y - FONT >= self.y
            && line.y <= self.y + self.h
    }
}

/// The Java method a step stands for, as drawn under its text.
#[derive(Clone, Debug, PartialEq)]
pub struct Method {
    /// The lines of `‹Class.method›`.
    pub lines: Vec<Line>,
    /// The cited file at the pinned commit; `None` for a model step.
    pub url: Option<String>,
    /// The tooltip.
    pub title: String,
}

/// One domain step's box.
#[derive(Clone, Debug, PartialEq)]
pub struct StepBox {
    /// The trace step.
    pub step: usize,
    /// Its actor's lane, by index.
    pub lane: usize,
    /// The box.
    pub rect: Rect,
    /// The action's lines.
    pub lines: Vec<Line>,
    /// The method.
    pub method: Method,
    /// The whole text, when the lines had to be cut.
    pub cut: Option<String>,
    /// Whether the invariant broke at this step.
    pub broken: bool,
}

/// An arrow where control passes from one actor to the next.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arrow {
    /// From this x (the lifeline of the actor that ran before).
    pub from: f64,
    /// To this x (the lifeline of the actor that runs now).
    pub to: f64,
    /// At this height.
    pub y: f64,
}

/// The note that says which invariant broke and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    /// The note's box.
    pub rect: Rect,
    /// Its lines.
    pub lines: Vec<Line>,
    /// The whole text, when the lines had to be cut.
    pub cut: Option<String>,
}

/// A whole diagram, before rendering.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// Total width.
    pub width: f64,
    /// Total height.
    pub height: f64,
    /// The title's lines.
    pub title: Vec<Line>,
    /// One lane per actor, in order of first appearance.
    pub lanes: Vec<Lane>,
    /// Top and bottom of the lifelines.
    pub lifeline: (f64, f64),
    /// One box per step.
    pub steps: Vec<StepBox>,
    /// The switches between actors.
    pub arrows: Vec<Arrow>,
    /// The break note.
    pub note: Option<Note>,
}

fn lines_at(texts: Vec<String>, x: f64, top: f64, size: f64) -> (Vec<Line>, f64) {
    let mut y = top;
    let lines = texts
        .into_iter()
        .map(|text| {
            y += LINE;
            Line {
                width: text_width(&text, size),
                text,
                x,
                y: y - (LINE - size) / 2.0 - 1.0,
            }
        })
        .collect();
    (lines, y)
}

/// The width of each actor's lane: the room of [`MAX_WIDTH`] shared out by how much text
/// the actor's steps carry, each lane between [`MIN_LANE`] (less with many actors) and
/// [`MAX_LANE`].
fn lane_widths(trace: &[Event], names: &[&str]) -> Vec<f64> {
    let n = names.len().max(1) as f64;
    let room = MAX_WIDTH - 2.0 * MARGIN - GUTTER;
    let least = (room / n).min(MIN_LANE);
    let text: Vec<f64> = names
        .iter()
        .map(|a| {
            trace
                .iter()
                .filter(|e| e.actor == *a)
                .map(|e| (e.action.chars().count() + e.java.chars().count()) as f64)
                .sum::<f64>()
                .max(1.0)
        })
        .collect();
    let total: f64 = text.iter().sum();
    let spare = (room - n * least).max(0.0);
    text.iter()
        .map(|t| (least + spare * t / total).min(MAX_LANE))
        .collect()
}

/// Lay out a trace: `title` on top, one lane per actor, one box per step, each cited
/// step's method linked through `links`.
pub fn layout(trace: &[Event], broke: Option<Broke<'_>>, title: &str, links: &Links) -> Layout {
    let names = actors(trace);
    let widths = lane_widths(trace, &names);
    let width = 2.0 * MARGIN + GUTTER + widths.iter().sum::<f64>().max(MIN_LANE);
    let inner = width - 2.0 * MARGIN;
    let (title, mut y) = lines_at(wrap(title, inner, 13.0), MARGIN, MARGIN - 2.0, 13.0);
    y += 8.0;
    let mut x = MARGIN + GUTTER;
    let lanes: Vec<Lane> = names
        .iter()
        .zip(&widths)
        .map(|(a, w)| {
            let lane = Lane {
                actor: (*a).to_string(),
                x,
                width: *w,
                center: x + w / 2.0,
            };
            x += w;
            lane
        })
        .collect();
    let header_top = y;
    y += HEADER + GAP;
    let mut steps = Vec::new();
    let mut arrows = Vec::new();
    let mut previous: Option<usize> = None;
    for e in trace {
        let lane = names.iter().position(|a| *a == e.actor).unwrap_or(0);
        if let Some(p) = previous.filter(|p| *p != lane) {
            y += SWITCH_GAP - GAP;
            arrows.push(Arrow {
                from: lanes[p].center,
                to: lanes[lane].center,
                y: y - SWITCH_GAP / 2.0,
            });
        }
        previous = Some(lane);
        let x = lanes[lane].x + 4.0;
        let lane_w = lanes[lane].width;
        let text_w = lane_w - 8.0 - 2.0 * PAD;
        let (action, cut) = clip(wrap(&e.action, text_w, FONT), MAX_LINES, text_w, FONT);
        let (lines, bottom) = lines_at(action, x + PAD, y + PAD - 2.0, FONT);
        let label = format!("‹{}›", e.java);
        let (method_lines, bottom) = lines_at(wrap(&label, text_w, 11.0), x + PAD, bottom, 11.0);
        let (url, method_title) = match cite::find(&e.java) {
            Some(c) => (
                Some(links.citation_url(c)),
                format!(
                    "{} in {} at {}",
                    c.id,
                    c.file,
                    &c.pinned_commit()[..c.pinned_commit().len().min(11)]
                ),
            ),
            None => (
                None,
                format!("{}: a step of the model, no one Java method", e.java),
            ),
        };
        let rect = Rect {
            x,
            y,
            w: lane_w - 8.0,
            h: bottom - y + PAD,
        };
        y += rect.h + GAP;
        steps.push(StepBox {
            step: e.step,
            lane,
            rect,
            lines,
            method: Method {
                lines: method_lines,
                url,
                title: method_title,
            },
            cut: cut.then(|| e.action.clone()),
            broken: broke.is_some_and(|b| b.step == e.step),
        });
    }
    let lifeline = (header_top + HEADER, y);
    let note = broke.map(|b| {
        let at = if b.step < trace.len() {
            format!("at step {}", b.step)
        } else {
            "at the end".to_string()
        };
        let text = format!("✗ {} broken {at}: {}", b.invariant, b.detail);
        let w = inner - GUTTER;
        let (texts, cut) = clip(wrap(&text, w - 2.0 * PAD, FONT), MAX_LINES, w, FONT);
        let top = y + 4.0;
        let (lines, bottom) = lines_at(texts, MARGIN + GUTTER + PAD, top + PAD - 2.0, FONT);
        let rect = Rect {
            x: MARGIN + GUTTER,
            y: top,
            w,
            h: bottom - top + PAD,
        };
        y = top + rect.h + GAP;
        Note {
            rect,
            lines,
            cut: cut.then_some(text),
        }
    });
    Layout {
        width,
        height: y + MARGIN,
        title,
        lanes,
        lifeline,
        steps,
        arrows,
        note,
    }
}

/// Escape text for XML.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn text_element(out: &mut String, lines: &[Line], size: f64, attrs: &str) {
    for l in lines {
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"{size}\" {attrs}>{}</text>",
            l.x,
            l.y,
            escape(&l.text)
        );
    }
}

/// Draw a layout.
pub fn render(l: &Layout, label: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"seq\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" role=\"img\" aria-label=\"{a}\" font-family=\"{FONT_FAMILY}\">",
        w = l.width,
        h = l.height,
        a = escape(label)
    );
    let _ = writeln!(out, "<title>{}</title>", escape(label));
    let _ = writeln!(
        out,
        "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>"
    );
    text_element(
        &mut out,
        &l.title,
        13.0,
        "font-weight=\"bold\" fill=\"#222\"",
    );
    let (top, bottom) = l.lifeline;
    for lane in &l.lanes {
        let _ = writeln!(
            out,
            "<g class=\"lane\" data-actor=\"{a}\"><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{HEADER}\" rx=\"4\" fill=\"#e8eef7\" stroke=\"#6b7c93\"/><text x=\"{c:.1}\" y=\"{ty:.1}\" font-size=\"13\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#1d2b3a\">{a}</text><line class=\"lifeline\" x1=\"{c:.1}\" y1=\"{top:.1}\" x2=\"{c:.1}\" y2=\"{bottom:.1}\" stroke=\"#9aa7b8\" stroke-width=\"1.5\" stroke-dasharray=\"5 4\"/></g>",
            a = escape(&lane.actor),
            x = lane.x + 4.0,
            y = top - HEADER,
            w = lane.width - 8.0,
            c = lane.center,
            ty = top - HEADER / 2.0 + 4.5,
        );
    }
    for a in &l.arrows {
        let dir = if a.to > a.from { -1.0 } else { 1.0 };
        let _ = writeln!(
            out,
            "<g class=\"switch\"><line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#7a8797\" stroke-width=\"1.2\"/><polygon points=\"{:.1},{y:.1} {:.1},{:.1} {:.1},{:.1}\" fill=\"#7a8797\"/></g>",
            a.from,
            a.to + dir * 6.0,
            a.to,
            a.to + dir * 7.0,
            a.y - 3.5,
            a.to + dir * 7.0,
            a.y + 3.5,
            y = a.y
        );
    }
    for s in &l.steps {
        let r = s.rect;
        let (fill, stroke, sw) = if s.broken {
            ("#fde7e7", "#c62828", 3.0)
        } else {
            ("#ffffff", "#5b6b80", 1.0)
        };
        let _ = writeln!(
            out,
            "<g class=\"step{}\" data-step=\"{}\" data-actor=\"{}\">",
            if s.broken { " broken" } else { "" },
            s.step,
            escape(&l.lanes[s.lane].actor)
        );
        if let Some(full) = &s.cut {
            let _ = writeln!(out, "<title>{}</title>", escape(full));
        }
        let _ = writeln!(
            out,
            "<rect class=\"box\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"3\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"{sw}\"/>",
            r.x, r.y, r.w, r.h
        );
        let _ = writeln!(
            out,
            "<text class=\"num\" x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\" fill=\"{}\"{}>{}{}</text>",
            MARGIN + GUTTER - 6.0,
            r.y + 14.0,
            if s.broken { "#c62828" } else { "#6b7c93" },
            if s.broken { " font-weight=\"bold\"" } else { "" },
            if s.broken { "✗ " } else { "" },
            s.step
        );
        text_element(&mut out, &s.lines, FONT, "fill=\"#111\"");
        match &s.method.url {
            Some(url) => {
                let _ = writeln!(
                    out,
                    "<a class=\"java\" href=\"{u}\" target=\"_blank\"><title>{}</title>",
                    escape(&s.method.title),
                    u = escape(url)
                );
                text_element(
                    &mut out,
                    &s.method.lines,
                    11.0,
                    "fill=\"#0b57d0\" text-decoration=\"underline\"",
                );
                out.push_str("</a>\n");
            }
            None => {
                let _ = writeln!(
                    out,
                    "<g class=\"model\"><title>{}</title>",
                    escape(&s.method.title)
                );
                text_element(
                    &mut out,
                    &s.method.lines,
                    11.0,
                    "fill=\"#6b7280\" font-style=\"italic\"",
                );
                out.push_str("</g>\n");
            }
        }
        out.push_str("</g>\n");
    }
    if let Some(note) = &l.note {
        let r = note.rect;
        out.push_str("<g class=\"break-note\">");
        if let Some(full) = &note.cut {
            let _ = write!(out, "<title>{}</title>", escape(full));
        }
        let _ = writeln!(
            out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"3\" fill=\"#fde7e7\" stroke=\"#c62828\" stroke-width=\"2\"/>",
            r.x, r.y, r.w, r.h
        );
        text_element(
            &mut out,
            &note.lines,
            FONT,
            "fill=\"#8e1b1b\" font-weight=\"bold\"",
        );
        out.push_str("</g>\n");
    }
    out.push_str("</svg>\n");
    out
}

/// A trace as an SVG sequence diagram headed by `title`, each cited step's method a link
/// from `links`.
///
/// ```
/// use ozone_ha_check::citation::Links;
/// use ozone_ha_check_cli::present::svg::sequence_diagram;
/// use ozone_ha_check::trace::{Broke, Event};
/// let trace = vec![
///     Event { step: 0, actor: "flush".into(), java: "OzoneManagerDoubleBuffer.flushTransactions".into(), action: "commit TX 3".into() },
///     Event { step: 1, actor: "ratis".into(), java: "peer OM".into(), action: "put TX 1".into() },
/// ];
/// let svg = sequence_diagram(&trace, Some(Broke { step: 1, invariant: "TxIndexMonotone", detail: "TX 3 -> 1" }), "an example", &Links::files());
/// assert!(svg.starts_with("<svg"));
/// assert_eq!(svg.matches("class=\"lifeline\"").count(), 2);
/// assert!(svg.contains("https://github.com/apache/ozone/blob/"));
/// ```
pub fn sequence_diagram(
    trace: &[Event],
    broke: Option<Broke<'_>>,
    title: &str,
    links: &Links,
) -> String {
    render(&layout(trace, broke, title, links), title)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(step: usize, actor: &str, java: &str, action: &str) -> Event {
        Event {
            step,
            actor: actor.into(),
            java: java.into(),
            action: action.into(),
        }
    }

    fn sample() -> Vec<Event> {
        vec![
            event(0, "ratis", "OzoneManagerStateMachine.notifyTermIndexUpdated", "configuration entry 1: notified -> 1, applied -> 1"),
            event(1, "apply", "OMKeyCreateRequest.validateAndUpdateCache", "index 2 CreateKey k1 (10 bytes): open k1"),
            event(2, "flush", "OzoneManagerDoubleBuffer.flushTransactions", &format!("commit batch {{{}}}", (0..40).map(|i| format!("keyTable/k{i}=key(size {i}, upd 3)")).collect::<Vec<_>>().join(", "))),
            event(3, "ratis", "persistIfNewer of PR #10953", "put transactionInfoTable/#TRANSACTIONINFO=TX 2 (unbatched)"),
            event(4, "restart", "peer OM", "applied 1..3 once, no restart: averyveryveryveryveryveryveryveryveryveryveryveryveryveryveryverylongwordwithoutanybreakatall"),
        ]
    }

    fn broke() -> Broke<'static> {
        Broke {
            step: 3,
            invariant: "TxIndexMonotone",
            detail: "persisted TX went 3 -> 2",
        }
    }

    #[test]
    fn one_lifeline_per_actor_in_order_of_appearance() {
        let l = layout(&sample(), Some(broke()), "title", &Links::files());
        let names: Vec<&str> = l.lanes.iter().map(|a| a.actor.as_str()).collect();
        assert_eq!(names, ["ratis", "apply", "flush", "restart"]);
        let svg = render(&l, "title");
        assert_eq!(svg.matches("class=\"lifeline\"").count(), 4);
        assert!(l.width <= MAX_WIDTH);
        // Every box sits in its actor's lane, one per step, top to bottom.
        for (s, e) in l.steps.iter().zip(sample()) {
            let lane = &l.lanes[s.lane];
            assert_eq!(lane.actor, e.actor);
            assert!(s.rect.x >= lane.x && s.rect.x + s.rect.w <= lane.x + lane.width);
        }
        assert!(l
            .steps
            .windows(2)
            .all(|w| w[0].rect.y + w[0].rect.h < w[1].rect.y));
        assert_eq!(l.arrows.len(), 4, "an arrow at each change of actor");
    }

    #[test]
    fn the_breaking_step_is_marked_and_explained() {
        let l = layout(&sample(), Some(broke()), "title", &Links::files());
        let marked: Vec<usize> = l
            .steps
            .iter()
            .filter(|s| s.broken)
            .map(|s| s.step)
            .collect();
        assert_eq!(marked, [3]);
        let note = l.note.as_ref().unwrap();
        let text: String = note
            .lines
            .iter()
            .map(|l| l.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        assert!(text.contains("TxIndexMonotone broken at step 3: persisted TX went 3 -> 2"));
        let svg = render(&l, "title");
        assert_eq!(svg.matches("class=\"step broken\"").count(), 1);
        // A break after the last step is noted at the end.
        let late = layout(
            &sample(),
            Some(Broke { step: 9, ..broke() }),
            "t",
            &Links::files(),
        );
        assert!(late.steps.iter().all(|s| !s.broken));
        assert!(late.note.unwrap().lines[0].text.contains("at the end"));
    }

    #[test]
    fn a_link_per_cited_step_and_none_for_model_steps() {
        let l = layout(&sample(), None, "title", &Links::files());
        let linked: Vec<usize> = l
            .steps
            .iter()
            .filter(|s| s.method.url.is_some())
            .map(|s| s.step)
            .collect();
        assert_eq!(linked, [0, 1, 2]);
        let url = l.steps[2].method.url.as_deref().unwrap();
        let c = cite::find("OzoneManagerDoubleBuffer.flushTransactions").unwrap();
        assert!(
            url.contains(c.pinned_commit()) && url.ends_with(c.file),
            "{url}"
        );
        // With a line range, the same link with its anchor.
        let lines = Links::with_lines([(c.id.to_string(), (118, 140))]);
        let l2 = layout(&sample(), None, "title", &lines);
        assert_eq!(
            l2.steps[2].method.url.as_deref(),
            Some(format!("{url}#L118-L140").as_str())
        );
        assert_eq!(l2.steps[0].method.url, l.steps[0].method.url);
        let svg = render(&l, "title");
        assert_eq!(svg.matches("<a class=\"java\"").count(), 3);
        assert_eq!(svg.matches("<g class=\"model\">").count(), 2);
        assert!(!svg.contains("<script"));
    }

    #[test]
    fn no_text_is_wider_than_its_box() {
        for actors in 1..=6 {
            let trace: Vec<Event> = sample()
                .into_iter()
                .enumerate()
                .map(|(i, mut e)| {
                    e.actor = format!("actor{}", i % actors);
                    e
                })
                .collect();
            let l = layout(
                &trace,
                Some(broke()),
                &"a long title ".repeat(30),
                &Links::files(),
            );
            for s in &l.steps {
                for line in s.lines.iter().chain(&s.method.lines) {
                    assert!(
                        s.rect.holds(line),
                        "{actors} actors, step {}: {line:?} in {:?}",
                        s.step,
                        s.rect
                    );
                }
                assert!(s.lines.len() <= MAX_LINES);
            }
            let note = l.note.as_ref().unwrap();
            assert!(note.lines.iter().all(|line| note.rect.holds(line)));
            assert!(l.title.iter().all(|t| t.x + t.width <= l.width - MARGIN));
        }
        // The 40-row batch is cut, and its box carries the whole text.
        let l = layout(&sample(), None, "t", &Links::files());
        assert_eq!(l.steps[2].lines.len(), MAX_LINES);
        assert!(l.steps[2].lines[MAX_LINES - 1].text.ends_with('…'));
        assert!(l.steps[2].cut.as_deref().unwrap().contains("keyTable/k39"));
        assert!(render(&l, "t").contains("<title>commit batch {keyTable/k0"));
    }

    #[test]
    fn wrapping_breaks_words_at_separators() {
        let lines = wrap(
            "‹OzoneManagerStateMachine.notifyTermIndexUpdated›",
            200.0,
            11.0,
        );
        assert_eq!(
            lines,
            ["‹OzoneManagerStateMachine.", "notifyTermIndexUpdated›"]
        );
        assert!(wrap("", 100.0, 12.0) == [""]);
        for w in [20.0, 50.0, 120.0] {
            for line in wrap(&"x".repeat(100), w, 12.0) {
                assert!(text_width(&line, 12.0) <= w || line.chars().count() == 1);
            }
        }
    }
}
