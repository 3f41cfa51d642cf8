//! Turns `citations.toml` into one Rust constant per cited Java method:
//! `citation::java::Class::method` (nested classes as nested modules, overloads with a suffix
//! made from their parameter types), so a model that names a method the manifest lacks
//! does not compile.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

#[path = "src/citation/manifest.rs"]
#[allow(dead_code)]
mod manifest;

/// Rust keywords that Java allows as identifiers.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "become", "box", "dyn", "extern", "fn", "gen", "impl", "in", "let",
    "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "struct",
    "trait", "type", "typeof", "unsafe", "unsized", "use", "virtual", "where", "yield",
];

fn ident(name: &str) -> String {
    if matches!(name, "self" | "Self" | "super" | "crate") {
        format!("{name}_")
    } else if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_string()
    }
}

/// `flushTransactions` or, for an overload, `flushTransactions__long_TermIndex`.
fn const_name(method: &str, params: Option<&[String]>) -> String {
    let Some(params) = params else {
        return ident(method);
    };
    if params.is_empty() {
        return format!("{method}__void");
    }
    let mangled: Vec<String> = params
        .iter()
        .map(|p| {
            let p = p.replace("...", "Varargs").replace("[]", "Array");
            let mut out = String::new();
            for c in p.chars() {
                if c.is_alphanumeric() {
                    out.push(c);
                } else if !out.ends_with('_') {
                    out.push('_');
                }
            }
            out.trim_matches('_').to_string()
        })
        .collect();
    format!("{method}__{}", mangled.join("_"))
}

#[derive(Default)]
struct Module {
    doc: Option<String>,
    file: Option<String>,
    consts: Vec<(String, String)>,
    children: BTreeMap<String, Module>,
}

fn emit(name: &str, path: &str, m: &Module, depth: usize, out: &mut String) {
    let pad = "    ".repeat(depth);
    let file = m
        .file
        .as_deref()
        .map_or(String::new(), |f| format!(" (`{f}`)"));
    match &m.doc {
        Some(doc) => writeln!(out, "{pad}/// {doc}"),
        None => writeln!(out, "{pad}/// Cited methods of `{path}`{file}."),
    }
    .unwrap_or_default();
    let _ = writeln!(out, "{pad}#[allow(non_snake_case)]");
    let _ = writeln!(out, "{pad}pub mod {} {{", ident(name));
    for (_, code) in &m.consts {
        for line in code.lines() {
            let _ = writeln!(out, "{pad}    {line}");
        }
    }
    for (child, cm) in &m.children {
        emit(child, &format!("{path}.{child}"), cm, depth + 1, out);
    }
    let _ = writeln!(out, "{pad}}}");
}

fn main() {
    println!("cargo:rerun-if-changed=../../citations.toml");
    println!("cargo:rerun-if-changed=src/citation/manifest.rs");
    let text = match std::fs::read_to_string("../../citations.toml") {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read citations.toml: {e}");
            std::process::exit(1);
        }
    };
    let m = match manifest::Manifest::parse(&text) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: citations.toml: {e}");
            std::process::exit(1);
        }
    };
    let mut root: BTreeMap<String, Module> = BTreeMap::new();
    let mut all = Vec::new();
    for e in &m.citations {
        // A historical source's citations live in a module of their own, named after it.
        let mut segments: Vec<String> = Vec::new();
        let mut node = if manifest::is_historical(&e.source) {
            let module = e.source.replace('-', "_");
            segments.push(module.clone());
            let node = root.entry(module).or_default();
            let pin = &m.sources[&e.source];
            node.doc = Some(format!(
                "Cited methods at `{}` {}: {}.",
                e.source,
                &pin.commit[..11],
                pin.about.as_deref().unwrap_or_default()
            ));
            node.children
                .entry(e.class.split('.').next().unwrap_or_default().to_string())
                .or_default()
        } else {
            root.entry(e.class.split('.').next().unwrap_or_default().to_string())
                .or_default()
        };
        let classes: Vec<&str> = e.class.split('.').collect();
        segments.extend(classes.iter().map(|s| (*s).to_string()));
        for s in &classes[1..] {
            node = node.children.entry((*s).to_string()).or_default();
        }
        node.file = Some(e.file.clone());
        let name = const_name(&e.method, e.params.as_deref());
        let source = match m.sources[&e.source].repository_name() {
            Some("ratis") => "Ratis",
            _ => "Ozone",
        };
        let params = match &e.params {
            None => "None".to_string(),
            Some(p) => format!("Some(&{p:?})"),
        };
        let code = format!(
            "/// `{id}`.\n#[allow(non_upper_case_globals)]\npub const {name}: crate::citation::Citation = crate::citation::Citation {{\n    id: {id:?},\n    source: crate::citation::Source::{source},\n    pin: {pin:?},\n    file: {file:?},\n    class: {class:?},\n    method: {method:?},\n    params: {params},\n}};",
            id = e.id,
            pin = e.source,
            file = e.file,
            class = e.class,
            method = e.method,
        );
        if node.consts.iter().any(|(n, _)| *n == name) {
            eprintln!(
                "error: citations.toml: two citations make the constant {}::{name}",
                e.class
            );
            std::process::exit(1);
        }
        node.consts.push((name.clone(), code));
        let path: Vec<String> = segments.iter().map(|s| ident(s)).collect();
        all.push(format!("&{}::{name}", path.join("::")));
    }
    let mut out = String::from("// Generated by build.rs from citations.toml.\n\n");
    let _ = writeln!(
        out,
        "/// The commit each source is pinned at in the manifest this build was made from.\npub const PINNED: &[(&str, &str)] = &{:?};\n",
        m.sources
            .iter()
            .map(|(n, p)| (n.as_str(), p.commit.as_str()))
            .collect::<Vec<_>>()
    );
    let _ = writeln!(
        out,
        "/// Every citation of the manifest, in its order.\npub static ALL: &[&crate::citation::Citation] = &[{}];\n",
        all.join(", ")
    );
    for (name, module) in &root {
        emit(name, name, module, 0, &mut out);
    }
    let Some(dir) = std::env::var_os("OUT_DIR") else {
        eprintln!("error: OUT_DIR is not set");
        std::process::exit(1);
    };
    if let Err(e) = std::fs::write(Path::new(&dir).join("citations.rs"), out) {
        eprintln!("error: cannot write the citation constants: {e}");
        std::process::exit(1);
    }
}
