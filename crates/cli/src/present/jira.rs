//! A counterexample as a bug report in Jira's wiki markup (`--trace jira`): what an Ozone
//! developer pastes into an issue.
//!
//! Sections, each an `h3.` heading: Summary, Affected Java methods (each linked at the
//! pinned commit, with line ranges when the links have them), Workload (a generated plan's
//! drawn requests), Interleaving (the steps numbered, each with its thread), Invariant
//! broken and its harm, Reproduce (the `replay` command), Model.

use super::broke;
use ozone_ha_check::citation::Links;
use ozone_ha_check::explore::Report;
use ozone_ha_check::scenarios;
use std::fmt::Write as _;

/// The label of the trace step that holds a generated plan's drawn workload.
const WORKLOAD: &str = "the workload drawn";

/// The headings, in order: a report has each (Workload only for a generated plan).
pub const SECTIONS: [&str; 7] = [
    "Summary",
    "Affected Java methods",
    "Workload",
    "Interleaving",
    "Invariant broken and its harm",
    "Reproduce",
    "Model",
];

/// Text with Jira's markup characters escaped, so a trace's `{…}`, `[…]`, `*`, `_` or
/// `-` print as themselves.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '['
                | ']'
                | '{'
                | '}'
                | '*'
                | '_'
                | '+'
                | '^'
                | '~'
                | '|'
                | '-'
                | '!'
                | '?'
                | '#'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A Java method as a Jira link at the pinned commit, or its label escaped when it has no
/// link (a model step).
fn method(java: &str, links: &Links) -> String {
    match links.url(java) {
        Some(url) => format!("[{}|{url}]", escape(java)),
        None => escape(java),
    }
}

/// The `replay` command that reproduces the report's counterexample, when it has a schedule.
pub fn replay_command(r: &Report) -> Option<String> {
    let schedule = r.schedule.as_ref()?;
    let mut cmd = format!(
        "ozone-ha-check replay {} --variant {} --plan {} --schedule '{schedule}'",
        r.scenario, r.variant, r.plan
    );
    if let Some(invariant) = &r.watched {
        let _ = write!(cmd, " --invariant {invariant}");
    }
    if let Some(size) = r.size {
        let _ = write!(cmd, " --size {size}");
    }
    if let Some(b) = &r.bounds {
        let _ = write!(cmd, " --requests {} --faults {}", b.requests, b.faults);
    }
    Some(cmd)
}

/// The report's counterexample as a Jira bug report; empty when nothing broke.
pub fn counterexample_jira(r: &Report, links: &Links) -> String {
    let mut out = String::new();
    let (Some(invariant), Some(b)) = (&r.invariant, broke(r)) else {
        return out;
    };
    let scenario = scenarios::lookup(&r.scenario).ok();
    let doc_of = |list: Vec<scenarios::Named>, name: &str| {
        list.into_iter()
            .find(|n| n.name == name)
            .map_or(String::new(), |n| format!(": {}", escape(n.doc)))
    };
    let (jira, title) = scenario.map_or((r.scenario.to_uppercase(), String::new()), |s| {
        (s.jira().to_string(), s.title().to_string())
    });

    let _ = writeln!(out, "h3. Summary\n");
    let _ = writeln!(
        out,
        "{jira} model: *{invariant}* broken in variant _{}_, plan _{}_: {}\n",
        escape(&r.variant),
        escape(&r.plan),
        escape(b.detail)
    );
    if let Some(s) = scenario {
        let _ = writeln!(
            out,
            "* Scenario {}: {}",
            escape(&r.scenario),
            escape(&title)
        );
        let _ = writeln!(
            out,
            "* Variant {}{}",
            escape(&r.variant),
            doc_of(s.variants(), &r.variant)
        );
        let _ = writeln!(
            out,
            "* Plan {}{}\n",
            escape(&r.plan),
            doc_of(s.plans(), &r.plan)
        );
    }

    let _ = writeln!(out, "h3. Affected Java methods\n");
    let mut seen: Vec<(&str, Vec<usize>)> = Vec::new();
    for e in r.trace.iter().filter(|e| links.url(&e.java).is_some()) {
        match seen.iter_mut().find(|(j, _)| *j == e.java) {
            Some((_, steps)) => steps.push(e.step + 1),
            None => seen.push((&e.java, vec![e.step + 1])),
        }
    }
    for (java, steps) in &seen {
        let steps: Vec<String> = steps.iter().map(usize::to_string).collect();
        let _ = writeln!(
            out,
            "* {} (step{} {})",
            method(java, links),
            if steps.len() == 1 { "" } else { "s" },
            steps.join(", ")
        );
    }
    out.push('\n');

    if let Some(w) = r.trace.iter().find(|e| e.java == WORKLOAD) {
        let _ = writeln!(
            out,
            "h3. Workload\n\nDrawn by the generated plan: {{noformat}}{}{{noformat}}\n",
            w.action
        );
    }

    // Each step names its method in monospace; the links are in the list above, once each.
    let _ = writeln!(out, "h3. Interleaving\n");
    for e in &r.trace {
        let java = if links.url(&e.java).is_some() {
            format!("{{{{{}}}}}", e.java)
        } else {
            escape(&e.java)
        };
        let mark = if e.step == b.step {
            format!(" *<- {} broken here*", escape(invariant))
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "# *{}* {java}: {}{mark}",
            escape(&e.actor),
            escape(&e.action)
        );
    }
    out.push('\n');

    let _ = writeln!(out, "h3. Invariant broken and its harm\n");
    let property = scenario.and_then(|s| s.invariant(invariant));
    let doc = property.map_or(String::new(), |p| format!(": {}", escape(p.doc)));
    let _ = writeln!(
        out,
        "*{invariant}*{doc}. It breaks at step {}: {}.",
        b.step + 1,
        escape(b.detail)
    );
    if let Some(harm) = property.and_then(|p| p.harm()) {
        let _ = writeln!(out, "Harm: {}", escape(harm));
    }
    let others: Vec<&String> = r.broken.iter().filter(|i| *i != invariant).collect();
    if !others.is_empty() {
        let others: Vec<String> = others
            .iter()
            .map(|i| {
                let doc = scenario
                    .and_then(|s| s.invariant(i))
                    .map_or(String::new(), |p| format!(" ({})", escape(p.doc)));
                format!("*{}*{doc}", escape(i))
            })
            .collect();
        let _ = writeln!(
            out,
            "The same execution also breaks: {}.",
            others.join(", ")
        );
    }
    out.push('\n');

    let _ = writeln!(out, "h3. Reproduce\n");
    match replay_command(r) {
        Some(cmd) => {
            let _ = writeln!(out, "{{code:bash}}\n{cmd}\n{{code}}\n");
        }
        None => {
            let _ = writeln!(
                out,
                "This engine ({}) records no replayable schedule; explore with ozone\\-ha\\-check check {} \\-\\-variant {} \\-\\-plan {}.\n",
                r.engine,
                escape(&r.scenario),
                escape(&r.variant),
                escape(&r.plan)
            );
        }
    }

    let _ = writeln!(out, "h3. Model\n");
    let _ = writeln!(
        out,
        "ozone\\-ha\\-check, {}: the module documentation's Abstractions table says what the model leaves out of the Java.",
        escape(&format!(
            "crates/core/src/scenarios/{}.rs",
            r.scenario.replace('-', "_")
        ))
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_escaped() {
        assert_eq!(
            escape("commit {a=[1]} *x* k-1 a|b"),
            "commit \\{a=\\[1\\]\\} \\*x\\* k\\-1 a\\|b"
        );
    }
}
