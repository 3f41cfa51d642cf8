//! Java methods found by parsing, and their fingerprints.
//!
//! A file is parsed with tree-sitter's Java grammar. Every method and constructor that a
//! named type declares directly (classes, interfaces, enums, records, annotation types,
//! nested ones as `Outer.Inner`) is listed with its parameter types as written, its line
//! range and its fingerprint. Methods of anonymous and local classes belong to no named
//! class and are not listed.
//!
//! The fingerprint is the SHA-256 of the declaration's leaf tokens (the whole
//! `method_declaration` or `constructor_declaration` node: annotations, modifiers such as
//! `synchronized`, the signature and the body), comments left out, joined by `\n`. Whitespace
//! is between tokens, never in one (except inside string literals), so reindenting,
//! rewrapping and editing comments keep the fingerprint, and so does moving the method;
//! changing any token changes it.
//!
//! ```
//! use ozone_ha_check_cite::java::parse;
//! let a = parse("class A { synchronized void f(long x) { x++; } }").unwrap();
//! let b = parse("class A {\n  // moved down, reformatted\n\n  synchronized void f(long x) {\n    x++; /* same */\n  }\n}").unwrap();
//! let c = parse("class A { void f(long x) { x++; } }").unwrap();
//! assert_eq!(a.methods[0].params, vec!["long"]);
//! assert_eq!(a.methods[0].fingerprint, b.methods[0].fingerprint);
//! assert_ne!(a.methods[0].fingerprint, c.methods[0].fingerprint);
//! assert_eq!(b.methods[0].lines, (4, 6));
//! ```

use sha2::{Digest, Sha256};
use tree_sitter::{Node, Parser};

/// One method or constructor declared by a named type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MethodDecl {
    /// The declaring type, nested ones as `Outer.Inner`.
    pub class: String,
    /// The method's name; a constructor's is its class's simple name.
    pub name: String,
    /// Parameter types as written, whitespace removed (`List<String>`, `long[]`, `String...`).
    pub params: Vec<String>,
    /// First and last line (from 1) of the declaration, annotations included.
    pub lines: (usize, usize),
    /// Hex SHA-256 of the declaration's leaf tokens, comments left out.
    pub fingerprint: String,
}

/// What one Java file declares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JavaFile {
    /// Every named type, nested ones as `Outer.Inner`, in source order.
    pub classes: Vec<String>,
    /// Every method and constructor of those types, in source order.
    pub methods: Vec<MethodDecl>,
}

impl JavaFile {
    /// The methods of `class` called `name`, every overload.
    pub fn overloads(&self, class: &str, name: &str) -> Vec<&MethodDecl> {
        self.methods
            .iter()
            .filter(|m| m.class == class && m.name == name)
            .collect()
    }

    /// Whether the file declares `class`.
    pub fn has_class(&self, class: &str) -> bool {
        self.classes.iter().any(|c| c == class)
    }
}

/// Parse Java source. Syntax errors do not fail the parse (tree-sitter recovers); `Err`
/// only means the parser could not run.
pub fn parse(source: &str) -> Result<JavaFile, String> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_java::LANGUAGE.into())
        .map_err(|e| format!("the Java grammar does not load: {e}"))?;
    let tree = parser
        .parse(source, None)
        .ok_or_else(|| "the Java parser gave no tree".to_string())?;
    let mut out = JavaFile::default();
    let bytes = source.as_bytes();
    let root = tree.root_node();
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        visit_type(child, "", bytes, &mut out);
    }
    Ok(out)
}

/// Whether `kind` is a named type declaration.
fn is_type(kind: &str) -> bool {
    matches!(
        kind,
        "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration"
            | "annotation_type_declaration"
    )
}

fn visit_type(node: Node<'_>, outer: &str, src: &[u8], out: &mut JavaFile) {
    if !is_type(node.kind()) {
        return;
    }
    let Some(name) = node.child_by_field_name("name").map(|n| text(n, src)) else {
        return;
    };
    let class = if outer.is_empty() {
        name.to_string()
    } else {
        format!("{outer}.{name}")
    };
    out.classes.push(class.clone());
    let Some(body) = node.child_by_field_name("body") else {
        return;
    };
    let mut members = Vec::new();
    let mut cursor = body.walk();
    for member in body.named_children(&mut cursor) {
        if member.kind() == "enum_body_declarations" {
            let mut inner = member.walk();
            members.extend(member.named_children(&mut inner));
        } else {
            members.push(member);
        }
    }
    for member in members {
        match member.kind() {
            "method_declaration"
            | "constructor_declaration"
            | "compact_constructor_declaration" => {
                let name = member
                    .child_by_field_name("name")
                    .map_or_else(String::new, |n| text(n, src).to_string());
                out.methods.push(MethodDecl {
                    class: class.clone(),
                    name,
                    params: member
                        .child_by_field_name("parameters")
                        .map(|p| params(p, src))
                        .unwrap_or_default(),
                    lines: (
                        member.start_position().row + 1,
                        member.end_position().row + 1,
                    ),
                    fingerprint: fingerprint(member, src),
                });
            }
            kind if is_type(kind) => visit_type(member, &class, src, out),
            _ => {}
        }
    }
}

fn text<'a>(node: Node<'_>, src: &'a [u8]) -> &'a str {
    node.utf8_text(src).unwrap_or("")
}

fn squeeze(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Parameter types as written: `long`, `List<String>`, `byte[]`, `String...`.
fn params(list: Node<'_>, src: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut cursor = list.walk();
    for p in list.named_children(&mut cursor) {
        match p.kind() {
            "formal_parameter" => {
                let mut t = p
                    .child_by_field_name("type")
                    .map_or_else(String::new, |t| squeeze(text(t, src)));
                if let Some(d) = p.child_by_field_name("dimensions") {
                    t.push_str(&squeeze(text(d, src)));
                }
                out.push(t);
            }
            "spread_parameter" => {
                let mut inner = p.walk();
                let t = p
                    .named_children(&mut inner)
                    .find(|c| {
                        !matches!(
                            c.kind(),
                            "modifiers"
                                | "annotation"
                                | "marker_annotation"
                                | "variable_declarator"
                        )
                    })
                    .map_or_else(String::new, |t| squeeze(text(t, src)));
                out.push(format!("{t}..."));
            }
            _ => {}
        }
    }
    out
}

/// Hex SHA-256 of the node's leaf tokens, comments left out, joined by `\n`.
fn fingerprint(node: Node<'_>, src: &[u8]) -> String {
    let mut hasher = Sha256::new();
    let mut first = true;
    let mut cursor = node.walk();
    'walk: loop {
        let n = cursor.node();
        let comment = matches!(n.kind(), "line_comment" | "block_comment");
        if !comment && n.child_count() > 0 && cursor.goto_first_child() {
            continue;
        }
        if !comment && n.child_count() == 0 && n.end_byte() > n.start_byte() {
            if !first {
                hasher.update(b"\n");
            }
            first = false;
            hasher.update(&src[n.start_byte()..n.end_byte()]);
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() || cursor.node() == node {
                break 'walk;
            }
        }
    }
    hex(&hasher.finalize())
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_enum_record_and_constructor() {
        let f = parse(
            "package p;\n@Ann class Outer {\n  Outer(int a) {}\n  static class Inner { void g(String... xs) {} void g(long[] a, java.util.List<String> b) {} }\n  enum E { A { void h() {} }; void e() {} }\n  interface I { void i(); }\n  void anon() { new Runnable() { public void run() {} }; }\n}\nrecord R(int x) { R { } }\n",
        )
        .unwrap();
        let names: Vec<(String, String, Vec<String>)> = f
            .methods
            .iter()
            .map(|m| (m.class.clone(), m.name.clone(), m.params.clone()))
            .collect();
        let s = |x: &str| x.to_string();
        assert_eq!(
            names,
            vec![
                (s("Outer"), s("Outer"), vec![s("int")]),
                (s("Outer.Inner"), s("g"), vec![s("String...")]),
                (
                    s("Outer.Inner"),
                    s("g"),
                    vec![s("long[]"), s("java.util.List<String>")]
                ),
                (s("Outer.E"), s("e"), vec![]),
                (s("Outer.I"), s("i"), vec![]),
                (s("Outer"), s("anon"), vec![]),
                (s("R"), s("R"), vec![]),
            ]
        );
        assert_eq!(
            f.classes,
            vec!["Outer", "Outer.Inner", "Outer.E", "Outer.I", "R"]
        );
    }

    #[test]
    fn comments_do_not_count_but_tokens_do() {
        let fp = |s: &str| parse(s).unwrap().methods[0].fingerprint.clone();
        let base = fp("class A { @Override public void f() { int x = 1; } }");
        assert_eq!(
            base,
            fp("class A {\n/** doc */\n@Override\npublic void f() {\n  // c\n  int x =\n 1; }\n}")
        );
        assert_ne!(base, fp("class A { public void f() { int x = 1; } }"));
        assert_ne!(
            base,
            fp("class A { @Override public void f() { int x = 2; } }")
        );
        assert_ne!(
            fp("class A { void f() { s(\"a b\"); } }"),
            fp("class A { void f() { s(\"a  b\"); } }")
        );
    }
}
