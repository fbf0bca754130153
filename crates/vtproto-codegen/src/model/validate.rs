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
    for file in files {
        let cx = Cx { file: file.name() };
        if !file.package().is_empty() && !file.package().split('.').all(is_proto_ident) {
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
        for f in m.field.iter().chain(&m.extension) {
            self.field(f)?;
        }
        for o in &m.oneof_decl {
            self.type_name("oneof", o.name())?;
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
