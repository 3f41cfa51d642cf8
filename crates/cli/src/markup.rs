//! Markup shared by the HTML page ([`crate::present`]) and the figures of the bench
//! ([`crate::bench`]): escaping, element ids, how wide text is drawn, and [`El`], a small
//! typed builder of SVG elements whose attribute values and text are escaped by
//! construction. It depends on nothing else in this crate, so that both may use it.
//!
//! ```
//! use ozone_ha_check_cli::markup::El;
//! let rect = El::new("rect").attr("x", "1.0").attr("fill", "#fff").empty();
//! assert_eq!(rect, "<rect x=\"1.0\" fill=\"#fff\"/>");
//! let text = El::new("text").attrs(&[("fill", "#222")]).text("a < b & \"c\"");
//! assert_eq!(text, "<text fill=\"#222\">a &lt; b &amp; &quot;c&quot;</text>");
//! ```

use std::fmt::{Display, Write as _};

/// Escape text for HTML and XML: `&`, `<`, `>` and `"` (the same four as the page's
/// templates escape).
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `text` as an element id: letters, digits, `-` and `_` kept, anything else `-`.
///
/// ```
/// assert_eq!(ozone_ha_check_cli::markup::anchor("case-a/b c"), "case-a-b-c");
/// ```
pub fn anchor(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// The width `text` takes at `size` pixels, as the layouts measure it: 0.61 em for an
/// ASCII character (monospace fonts use 0.6 or less), a full em for any other.
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars()
        .map(|c| if c.is_ascii() { 0.61 } else { 1.0 })
        .sum::<f64>()
        * size
}

/// `x` with one decimal, as coordinates are written.
pub fn f1(x: f64) -> String {
    format!("{x:.1}")
}

/// `x` rounded to a whole number, as sizes are written.
pub fn f0(x: f64) -> String {
    format!("{x:.0}")
}

/// An SVG element being built: its name and its attributes in the order given, each value
/// escaped. [`El::empty`], [`El::open`], [`El::text`] and [`El::wrap`] write it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct El {
    name: &'static str,
    attrs: String,
}

impl El {
    /// An element without attributes.
    pub fn new(name: &'static str) -> El {
        El {
            name,
            attrs: String::new(),
        }
    }

    /// With the attribute `name="value"`, the value escaped.
    pub fn attr(mut self, name: &str, value: impl Display) -> El {
        let _ = write!(self.attrs, " {name}=\"{}\"", escape(&value.to_string()));
        self
    }

    /// With each of `attrs`, in order.
    pub fn attrs(self, attrs: &[(&str, &str)]) -> El {
        attrs.iter().fold(self, |el, (n, v)| el.attr(n, v))
    }

    /// With the attribute when `value` is `Some`.
    pub fn attr_if(self, name: &str, value: Option<impl Display>) -> El {
        match value {
            Some(v) => self.attr(name, v),
            None => self,
        }
    }

    /// `<name ...>`.
    pub fn open(&self) -> String {
        format!("<{}{}>", self.name, self.attrs)
    }

    /// `</name>`.
    pub fn close(&self) -> String {
        format!("</{}>", self.name)
    }

    /// `<name .../>`.
    pub fn empty(&self) -> String {
        format!("<{}{}/>", self.name, self.attrs)
    }

    /// `<name ...>text</name>`, the text escaped.
    pub fn text(&self, text: &str) -> String {
        self.wrap(&escape(text))
    }

    /// `<name ...>inner</name>`, `inner` being markup already.
    pub fn wrap(&self, inner: &str) -> String {
        format!("{}{inner}{}", self.open(), self.close())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_and_text_are_escaped() {
        let el = El::new("a").attr("href", "x?a=1&b=\"2\"");
        assert_eq!(el.open(), "<a href=\"x?a=1&amp;b=&quot;2&quot;\">");
        assert_eq!(
            el.text("<&>"),
            "<a href=\"x?a=1&amp;b=&quot;2&quot;\">&lt;&amp;&gt;</a>"
        );
        assert_eq!(
            El::new("g").attr_if("class", None::<&str>).wrap("<x/>"),
            "<g><x/></g>"
        );
    }

    #[test]
    fn widths_count_non_ascii_as_a_full_em() {
        assert!((text_width("ab", 10.0) - 12.2).abs() < 1e-9);
        assert!((text_width("✗", 10.0) - 10.0).abs() < 1e-9);
    }
}
