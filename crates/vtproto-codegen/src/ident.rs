//! prost-build's naming rules, so that `mode=prost` names exactly the items prost generated.
//!
//! Fields and modules are `snake_case`, types and variants `UpperCamelCase` (both by `heck`);
//! Rust keywords become raw identifiers, and the few that can't be raw get a trailing `_`.

use heck::{ToSnakeCase, ToUpperCamelCase};

/// Makes `ident` usable as a Rust identifier the way prost-build does.
pub fn sanitize(ident: &str) -> String {
    const RAW: &[&str] = &[
        "as", "break", "const", "continue", "else", "enum", "false", "fn", "for", "if", "impl",
        "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
        "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "dyn", "abstract",
        "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized",
        "virtual", "yield", "async", "await", "try", "gen",
    ];
    const SUFFIXED: &[&str] = &["_", "super", "self", "Self", "extern", "crate"];
    if RAW.contains(&ident) {
        format!("r#{ident}")
    } else if SUFFIXED.contains(&ident) {
        format!("{ident}_")
    } else if ident.starts_with(|c: char| c.is_numeric()) {
        format!("_{ident}")
    } else {
        ident.to_string()
    }
}

/// A field or module name: `snake_case`, sanitized.
pub fn to_snake(name: &str) -> String {
    sanitize(&name.to_snake_case())
}

/// A type or variant name: `UpperCamelCase`, sanitized.
pub fn to_upper_camel(name: &str) -> String {
    sanitize(&name.to_upper_camel_case())
}

/// Parses a (possibly raw) identifier produced by this module into tokens.
pub fn ident(name: &str) -> proc_macro2::Ident {
    match name.strip_prefix("r#") {
        Some(raw) => proc_macro2::Ident::new_raw(raw, proc_macro2::Span::call_site()),
        None => proc_macro2::Ident::new(name, proc_macro2::Span::call_site()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prost_names() {
        assert_eq!(to_snake("type"), "r#type");
        assert_eq!(to_snake("self"), "self_");
        assert_eq!(to_snake("fooBar"), "foo_bar");
        assert_eq!(to_snake("FOO_BAR"), "foo_bar");
        assert_eq!(to_upper_camel("Self"), "Self_");
        assert_eq!(to_upper_camel("self"), "Self_");
        assert_eq!(to_upper_camel("foo_bar"), "FooBar");
        assert_eq!(to_upper_camel("fn"), "Fn");
        assert_eq!(to_snake("1st"), "_1st");
        assert_eq!(ident("r#type").to_string(), "r#type");
    }
}
