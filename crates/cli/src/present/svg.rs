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

pub use crate::markup::{escape, text_width};
use ozone_ha_check::citation::{self as cite, Links};
use ozone_ha_check::trace::{actors, Broke, Event};

use crate::markup::{f0, f1, El};

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
    let lanes = place_lanes(&names, &widths);
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
        let broken = broke.is_some_and(|b| b.step == e.step);
        let step = step_box(e, lane, &lanes[lane], y, links, broken);
        y += step.rect.h + GAP;
        steps.push(step);
    }
    let lifeline = (header_top + HEADER, y);
    let note = broke.map(|b| {
        let note = break_note(b, trace.len(), inner, y);
        y = note.rect.y + note.rect.h + GAP;
        note
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

/// The lanes side by side, right of the gutter.
fn place_lanes(names: &[&str], widths: &[f64]) -> Vec<Lane> {
    let mut x = MARGIN + GUTTER;
    names
        .iter()
        .zip(widths)
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
        .collect()
}

/// The box of one step in its lane, its top at `y`: the action's lines, cut after
/// [`MAX_LINES`], and the method under them.
fn step_box(e: &Event, lane: usize, at: &Lane, y: f64, links: &Links, broken: bool) -> StepBox {
    let x = at.x + 4.0;
    let text_w = at.width - 8.0 - 2.0 * PAD;
    let (action, cut) = clip(wrap(&e.action, text_w, FONT), MAX_LINES, text_w, FONT);
    let (lines, bottom) = lines_at(action, x + PAD, y + PAD - 2.0, FONT);
    let label = format!("‹{}›", e.java);
    let (method_lines, bottom) = lines_at(wrap(&label, text_w, 11.0), x + PAD, bottom, 11.0);
    let rect = Rect {
        x,
        y,
        w: at.width - 8.0,
        h: bottom - y + PAD,
    };
    StepBox {
        step: e.step,
        lane,
        rect,
        lines,
        method: method(&e.java, method_lines, links),
        cut: cut.then(|| e.action.clone()),
        broken,
    }
}

/// The method a step stands for: its link and tooltip when it is cited, else a model
/// step's tooltip.
fn method(java: &str, lines: Vec<Line>, links: &Links) -> Method {
    let (url, title) = match cite::find(java) {
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
            format!("{java}: a step of the model, no one Java method"),
        ),
    };
    Method { lines, url, title }
}

/// The note under the last step, its top 4 pixels under `y`: which invariant broke, where
/// and why.
fn break_note(b: Broke<'_>, steps: usize, inner: f64, y: f64) -> Note {
    let at = if b.step < steps {
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
    Note {
        rect,
        lines,
        cut: cut.then_some(text),
    }
}

/// Each line as a `<text>` element at `size` with `attrs`, one to a line of output.
fn text_element(out: &mut String, lines: &[Line], size: f64, attrs: &[(&str, &str)]) {
    for l in lines {
        let el = El::new("text")
            .attr("x", f1(l.x))
            .attr("y", f1(l.y))
            .attr("font-size", size)
            .attrs(attrs);
        out.push_str(&el.text(&l.text));
        out.push('\n');
    }
}

/// `el` with a rectangle's position and size as attributes.
fn placed(el: El, r: Rect) -> El {
    el.attr("x", f1(r.x))
        .attr("y", f1(r.y))
        .attr("width", f1(r.w))
        .attr("height", f1(r.h))
}

/// Draw a layout.
pub fn render(l: &Layout, label: &str) -> String {
    let mut out = String::new();
    draw_frame(&mut out, l, label);
    for lane in &l.lanes {
        draw_lane(&mut out, lane, l.lifeline);
    }
    for a in &l.arrows {
        draw_switch(&mut out, a);
    }
    for s in &l.steps {
        draw_step(&mut out, s, &l.lanes[s.lane].actor);
    }
    if let Some(note) = &l.note {
        draw_break_note(&mut out, note);
    }
    out.push_str("</svg>\n");
    out
}

/// The `<svg>` element's opening, its title, the white background and the diagram's title.
fn draw_frame(out: &mut String, l: &Layout, label: &str) {
    let (w, h) = (f0(l.width), f0(l.height));
    let svg = El::new("svg")
        .attr("xmlns", "http://www.w3.org/2000/svg")
        .attr("class", "seq")
        .attr("width", &w)
        .attr("height", &h)
        .attr("viewBox", format!("0 0 {w} {h}"))
        .attr("role", "img")
        .attr("aria-label", label)
        .attr("font-family", FONT_FAMILY);
    out.push_str(&svg.open());
    out.push('\n');
    out.push_str(&El::new("title").text(label));
    out.push('\n');
    let background =
        El::new("rect").attrs(&[("width", "100%"), ("height", "100%"), ("fill", "#ffffff")]);
    out.push_str(&background.empty());
    out.push('\n');
    text_element(
        out,
        &l.title,
        13.0,
        &[("font-weight", "bold"), ("fill", "#222")],
    );
}

/// An actor's heading and its dashed lifeline from `top` to `bottom`.
fn draw_lane(out: &mut String, lane: &Lane, (top, bottom): (f64, f64)) {
    let head = El::new("rect")
        .attr("x", f1(lane.x + 4.0))
        .attr("y", f1(top - HEADER))
        .attr("width", f1(lane.width - 8.0))
        .attr("height", HEADER)
        .attrs(&[("rx", "4"), ("fill", "#e8eef7"), ("stroke", "#6b7c93")]);
    let name = El::new("text")
        .attr("x", f1(lane.center))
        .attr("y", f1(top - HEADER / 2.0 + 4.5))
        .attrs(&[
            ("font-size", "13"),
            ("font-weight", "bold"),
            ("text-anchor", "middle"),
            ("fill", "#1d2b3a"),
        ]);
    let lifeline = El::new("line")
        .attr("class", "lifeline")
        .attr("x1", f1(lane.center))
        .attr("y1", f1(top))
        .attr("x2", f1(lane.center))
        .attr("y2", f1(bottom))
        .attrs(&[
            ("stroke", "#9aa7b8"),
            ("stroke-width", "1.5"),
            ("stroke-dasharray", "5 4"),
        ]);
    let g = El::new("g")
        .attr("class", "lane")
        .attr("data-actor", &lane.actor);
    let inner = head.empty() + &name.text(&lane.actor) + &lifeline.empty();
    out.push_str(&g.wrap(&inner));
    out.push('\n');
}

/// An arrow where control passes from one actor to another.
fn draw_switch(out: &mut String, a: &Arrow) {
    let dir = if a.to > a.from { -1.0 } else { 1.0 };
    let line = El::new("line")
        .attr("x1", f1(a.from))
        .attr("y1", f1(a.y))
        .attr("x2", f1(a.to + dir * 6.0))
        .attr("y2", f1(a.y))
        .attrs(&[("stroke", "#7a8797"), ("stroke-width", "1.2")]);
    let head = El::new("polygon")
        .attr(
            "points",
            format!(
                "{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}",
                a.to,
                a.y,
                a.to + dir * 7.0,
                a.y - 3.5,
                a.to + dir * 7.0,
                a.y + 3.5
            ),
        )
        .attr("fill", "#7a8797");
    out.push_str(
        &El::new("g")
            .attr("class", "switch")
            .wrap(&(line.empty() + &head.empty())),
    );
    out.push('\n');
}

/// One step's box: its number in the gutter, its text, and the method it stands for.
fn draw_step(out: &mut String, s: &StepBox, actor: &str) {
    let (fill, stroke, sw) = if s.broken {
        ("#fde7e7", "#c62828", 3.0)
    } else {
        ("#ffffff", "#5b6b80", 1.0)
    };
    let g = El::new("g")
        .attr("class", if s.broken { "step broken" } else { "step" })
        .attr("data-step", s.step)
        .attr("data-actor", actor);
    out.push_str(&g.open());
    out.push('\n');
    if let Some(full) = &s.cut {
        out.push_str(&El::new("title").text(full));
        out.push('\n');
    }
    let frame = placed(El::new("rect").attr("class", "box"), s.rect)
        .attrs(&[("rx", "3"), ("fill", fill), ("stroke", stroke)])
        .attr("stroke-width", sw);
    out.push_str(&frame.empty());
    out.push('\n');
    draw_step_number(out, s);
    text_element(out, &s.lines, FONT, &[("fill", "#111")]);
    draw_method(out, &s.method);
    out.push_str("</g>\n");
}

/// A step's number in the gutter, with `✗` and in red where the invariant broke.
fn draw_step_number(out: &mut String, s: &StepBox) {
    let number = El::new("text")
        .attr("class", "num")
        .attr("x", f1(MARGIN + GUTTER - 6.0))
        .attr("y", f1(s.rect.y + 14.0))
        .attrs(&[("font-size", "11"), ("text-anchor", "end")])
        .attr("fill", if s.broken { "#c62828" } else { "#6b7c93" })
        .attr_if("font-weight", s.broken.then_some("bold"));
    let text = if s.broken {
        format!("✗ {}", s.step)
    } else {
        s.step.to_string()
    };
    out.push_str(&number.text(&text));
    out.push('\n');
}

/// The method under a step's text: a link to the cited file, or a model step in grey.
fn draw_method(out: &mut String, m: &Method) {
    let (wrapper, attrs): (El, &[(&str, &str)]) = match &m.url {
        Some(url) => (
            El::new("a")
                .attr("class", "java")
                .attr("href", url)
                .attr("target", "_blank"),
            &[("fill", "#0b57d0"), ("text-decoration", "underline")],
        ),
        None => (
            El::new("g").attr("class", "model"),
            &[("fill", "#6b7280"), ("font-style", "italic")],
        ),
    };
    out.push_str(&wrapper.open());
    out.push_str(&El::new("title").text(&m.title));
    out.push('\n');
    text_element(out, &m.lines, 11.0, attrs);
    out.push_str(&wrapper.close());
    out.push('\n');
}

/// The note that says which invariant broke and why.
fn draw_break_note(out: &mut String, note: &Note) {
    let g = El::new("g").attr("class", "break-note");
    out.push_str(&g.open());
    if let Some(full) = &note.cut {
        out.push_str(&El::new("title").text(full));
    }
    let frame = placed(El::new("rect"), note.rect).attrs(&[
        ("rx", "3"),
        ("fill", "#fde7e7"),
        ("stroke", "#c62828"),
        ("stroke-width", "2"),
    ]);
    out.push_str(&frame.empty());
    out.push('\n');
    text_element(
        out,
        &note.lines,
        FONT,
        &[("fill", "#8e1b1b"), ("font-weight", "bold")],
    );
    out.push_str(&g.close());
    out.push('\n');
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
