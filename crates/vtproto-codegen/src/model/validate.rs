//! Descriptors as protoc guarantees them, checked before anything is named: a request from
//! elsewhere (a hand-made descriptor set, another tool, a fuzzer) gets an error naming the
//! file and element, never a panic on a name that is no Rust identifier.

use crate::descriptor::{
    DescriptorProto, EnumDescriptorProto, FieldDescriptorProto, FileDescriptorProto,
};
use crate::ident::{to_snake, to_upper_camel};
use crate::Error;

/// Checks every name and type reference of `files` (imports included: their names end up in
/// generated paths too).
pub(super) fn validate(files: &[FileDescriptorProto]) -> Result<(), Error> {
    // The Rust names of each package's top-level types, across its files.
    let mut packages: std::collections::HashMap<&str, Names<'_>> = Default::default();
    for file in files {
        let names = packages.entry(file.package()).or_default();
        let types = file
            .message_type
            .iter()
            .map(|m| m.name())
            .chain(file.enum_type.iter().map(|e| e.name()));
        for name in types {
            names.insert(file.name(), "type", name, to_upper_camel(name))?;
        }
    }
    for file in files {
        let cx = Cx { file: file.name() };
        let segment = |s: &str| is_proto_ident(s) && is_rust_ident(&to_snake(s));
        if !file.package().is_empty() && !file.package().split('.').all(segment) {
            return Err(Error::file(
                file.name(),
                format!("invalid package name `{}`", file.package()),
            ));
        }
        for m in &file.message_type {
            cx.message(m)?;
        }
        for e in &file.enum_type {
            cx.enumeration(e)?;
        }
        for f in &file.extension {
            cx.field(f)?;
        }
        for svc in &file.service {
            cx.type_name("service", svc.name())?;
            let mut methods = Names::default();
            for m in &svc.method {
                if !(is_proto_ident(m.name()) && is_rust_ident(&to_snake(m.name()))) {
                    return Err(cx.bad("method", m.name()));
                }
                methods.insert(file.name(), "method", m.name(), to_snake(m.name()))?;
            }
        }
    }
    Ok(())
}

struct Cx<'a> {
    file: &'a str,
}

impl Cx<'_> {
    fn bad(&self, what: &str, name: &str) -> Error {
        Error::file(self.file, format!("invalid {what} name `{name}`"))
    }

    /// A type's name: a proto identifier whose Rust name (UpperCamelCase, and snake_case for
    /// the module of its nested types) is an identifier too.
    fn type_name(&self, what: &str, name: &str) -> Result<(), Error> {
        if is_proto_ident(name)
            && is_rust_ident(&to_upper_camel(name))
            && is_rust_ident(&to_snake(name))
        {
            Ok(())
        } else {
            Err(self.bad(what, name))
        }
    }

    fn message(&self, m: &DescriptorProto) -> Result<(), Error> {
        self.type_name("message", m.name())?;
        let map_entry = m.options.as_ref().is_some_and(|o| o.map_entry());
        if map_entry && !(m.nested_type.is_empty() && m.enum_type.is_empty()) {
            return Err(Error::file(
                self.file,
                format!("map entry `{}` declares types", m.name()),
            ));
        }
        for f in m.field.iter().chain(&m.extension) {
            self.field(f)?;
        }
        for o in &m.oneof_decl {
            self.type_name("oneof", o.name())?;
        }
        // Names that would collide in Rust: struct fields (plain fields, proto3 `optional`
        // ones, and each real oneof in place of its members), the variants of each oneof.
        let real = |i: i32| {
            usize::try_from(i)
                .ok()
                .filter(|i| *i < m.oneof_decl.len())
                .filter(|i| {
                    !m.field
                        .iter()
                        .filter(|f| f.oneof_index == Some(*i as i32))
                        .all(|f| f.proto3_optional())
                })
        };
        let mut fields = Names::default();
        let mut variants: Vec<Names<'_>> = m.oneof_decl.iter().map(|_| Names::default()).collect();
        for f in &m.field {
            let member = f.oneof_index.and_then(real);
            if member.is_some() && f.label.is_some_and(|l| l != 1) {
                return Err(Error::file(
                    self.file,
                    format!("oneof member `{}` is repeated or required", f.name()),
                ));
            }
            match member {
                Some(o) => variants[o].insert(
                    self.file,
                    "oneof member",
                    f.name(),
                    to_upper_camel(f.name()),
                )?,
                None => fields.insert(self.file, "field", f.name(), to_snake(f.name()))?,
            }
        }
        for (i, o) in m.oneof_decl.iter().enumerate() {
            if real(i as i32).is_some() {
                fields.insert(self.file, "oneof", o.name(), to_snake(o.name()))?;
            }
        }
        let mut types = Names::default();
        let nested = m
            .nested_type
            .iter()
            .map(|n| n.name())
            .chain(m.enum_type.iter().map(|e| e.name()));
        for name in nested {
            types.insert(self.file, "type", name, to_upper_camel(name))?;
        }
        for n in &m.nested_type {
            self.message(n)?;
        }
        for e in &m.enum_type {
            self.enumeration(e)?;
        }
        Ok(())
    }

    fn enumeration(&self, e: &EnumDescriptorProto) -> Result<(), Error> {
        self.type_name("enum", e.name())?;
        if e.value.is_empty() {
            return Err(Error::file(
                self.file,
                format!("enum `{}` has no values", e.name()),
            ));
        }
        for v in &e.value {
            self.type_name("enum value", v.name())?;
        }
        // Each number's first value is a variant (aliases name it too): two numbers must not
        // get the same variant once the enum's prefix is stripped.
        let type_name = to_upper_camel(e.name());
        let mut numbers = std::collections::HashSet::new();
        let mut variants = Names::default();
        for v in e.value.iter().filter(|v| numbers.insert(v.number())) {
            let variant = super::build::variant_name(&type_name, v.name());
            variants.insert(self.file, "enum value", v.name(), variant)?;
        }
        Ok(())
    }

    fn field(&self, f: &FieldDescriptorProto) -> Result<(), Error> {
        let name = f.name();
        if !(is_proto_ident(name)
            && is_rust_ident(&to_snake(name))
            && is_rust_ident(&to_upper_camel(name)))
        {
            return Err(self.bad("field", name));
        }
        for reference in [f.type_name.as_deref(), f.extendee.as_deref()]
            .into_iter()
            .flatten()
        {
            let path = reference.strip_prefix('.').unwrap_or(reference);
            if !path
                .split('.')
                .all(|s| is_proto_ident(s) && is_rust_ident(&to_upper_camel(s)))
            {
                return Err(Error::file(
                    self.file,
                    format!("field `{name}` refers to an invalid type name `{reference}`"),
                ));
            }
        }
        Ok(())
    }
}

/// The Rust names given in one scope, with the proto names they come from.
#[derive(Default)]
struct Names<'a> {
    seen: std::collections::HashMap<String, &'a str>,
}

impl<'a> Names<'a> {
    /// Records that proto `name` becomes `rust`; an error when another name already did.
    fn insert(&mut self, file: &str, what: &str, name: &'a str, rust: String) -> Result<(), Error> {
        match self.seen.insert(rust.clone(), name) {
            Some(other) => Err(Error::file(
                file,
                format!("{what} names `{other}` and `{name}` both become `{rust}` in Rust"),
            )),
            None => Ok(()),
        }
    }
}

/// `[A-Za-z_][A-Za-z0-9_]*`, what protoc accepts.
fn is_proto_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A name the generator can emit: an identifier (raw ones included), not `_` alone.
fn is_rust_ident(s: &str) -> bool {
    let s = s.strip_prefix("r#").unwrap_or(s);
    s != "_" && is_proto_ident(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_cannot_be_rust_are_refused() {
        for good in ["Foo", "foo_bar", "_x", "type", "Self", "a1"] {
            assert!(is_proto_ident(good), "{good}");
        }
        for bad in ["", "1a", "a-b", "é", "a b", "a.b"] {
            assert!(!is_proto_ident(bad), "{bad}");
        }
        assert!(!is_rust_ident(&to_upper_camel("_")));
        assert!(is_rust_ident(&to_snake("type")));
        let file = |m: &str, f: &str, t: Option<&str>| FileDescriptorProto {
            name: Some("x.proto".into()),
            message_type: vec![DescriptorProto {
                name: Some(m.into()),
                field: vec![FieldDescriptorProto {
                    name: Some(f.into()),
                    type_name: t.map(String::from),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        assert!(validate(&[file("M", "f", Some(".a.B"))]).is_ok());
        for (m, f, t) in [
            ("M-", "f", None),
            ("M", "f g", None),
            ("M", "f", Some(".a.-")),
            ("_", "f", None),
        ] {
            let err = validate(&[file(m, f, t)]).unwrap_err();
            assert!(err.to_string().contains("x.proto"), "{err}");
        }
    }
}
