//! The pure-Rust parser (`protobuf-parse`), with its descriptors brought to what protoc writes
//! for the same files: synthetic oneofs after the real ones and named as protoc names them, no
//! `syntax` for proto2, no options message where protoc has none (and an empty one where it
//! has one: a method written with a `{ }` body), floating-point defaults in protoc's spelling,
//! a MessageSet's `max` extension range, protoc's own copies of the well-known types' files
//! where the parser would use its older embedded ones, and every message in protoc's byte
//! order ([`crate::canonical`]). Custom options are kept, as bytes.

use std::io::{Error, ErrorKind, Result};
use std::path::{Path, PathBuf};

use protobuf::descriptor::{
    DescriptorProto, FieldDescriptorProto, FileDescriptorProto, OneofDescriptorProto,
};
use protobuf::Message as _;

/// protoc 33's encoded `FileDescriptorProto`s of the well-known types and `descriptor.proto`
/// (`tests/tests/descriptor_parity.rs` checks it against protoc; `VT_BLESS=1` rewrites it).
const WELL_KNOWN: &[u8] = include_bytes!("well_known.pb");

/// Parses `protos` with `protobuf-parse`: the encoded files, each after its imports.
pub(crate) fn parse(
    protos: &[impl AsRef<Path>],
    includes: &[impl AsRef<Path>],
) -> Result<Vec<Vec<u8>>> {
    let parsed = protobuf_parse::Parser::new()
        .pure()
        .includes(includes.iter().map(AsRef::as_ref))
        .inputs(protos.iter().map(AsRef::as_ref))
        .parse_and_typecheck()
        .map_err(|e| {
            let mut msg = format!("{e:#}");
            if let Some(site) = crate::missing_import_site(&msg, protos, includes) {
                msg.push_str(&format!(" (imported at {site})"));
            }
            msg.push_str(
                "\n(parsed with the pure-Rust parser, which does not support `edition` files or \
                 the newest descriptor.proto; to use protoc instead, call Config::protoc or set \
                 PROTOC)",
            );
            Error::new(ErrorKind::InvalidInput, msg)
        })?;
    let well_known = well_known();
    parsed
        .file_descriptors
        .into_iter()
        .map(|mut file| {
            let name = file.name().to_string();
            let on_path = includes.iter().any(|i| i.as_ref().join(&name).is_file());
            if !on_path {
                if let Some(bytes) = well_known.iter().find(|(n, _)| *n == name) {
                    return Ok(bytes.1.clone());
                }
            }
            let source = find(&name, includes).and_then(|p| std::fs::read_to_string(p).ok());
            normalize(&mut file, source.as_deref());
            let bytes = file.write_to_bytes().map_err(Error::other)?;
            Ok(crate::canonical::file(&bytes))
        })
        .collect()
}

fn find(name: &str, includes: &[impl AsRef<Path>]) -> Option<PathBuf> {
    includes
        .iter()
        .map(|i| i.as_ref().join(name))
        .find(|p| p.is_file())
}

/// The embedded well-known files, by name.
fn well_known() -> Vec<(String, Vec<u8>)> {
    crate::canonical::files(WELL_KNOWN)
        .into_iter()
        .filter_map(|bytes| {
            let file = FileDescriptorProto::parse_from_bytes(&bytes).ok()?;
            Some((file.name().to_string(), bytes))
        })
        .collect()
}

/// Brings one parsed file to protoc's shape (`source`: its text, when it can be read).
fn normalize(file: &mut FileDescriptorProto, source: Option<&str>) {
    if file.syntax() == "proto2" {
        file.syntax = None;
    }
    drop_empty(&mut file.options);
    for m in &mut file.message_type {
        message(m);
    }
    for f in &mut file.extension {
        field(f);
    }
    for e in &mut file.enum_type {
        enumeration(e);
    }
    let bodies = source.map(method_bodies).unwrap_or_default();
    for s in &mut file.service {
        drop_empty(&mut s.options);
        let service = s.name().to_string();
        for m in &mut s.method {
            let braces = bodies
                .iter()
                .any(|(sv, mv)| *sv == service && mv == m.name());
            if braces && m.options.is_none() {
                m.options = protobuf::MessageField::some(Default::default());
            } else if !braces {
                drop_empty(&mut m.options);
            }
        }
    }
}

fn message(m: &mut DescriptorProto) {
    drop_empty(&mut m.options);
    synthetic_oneofs(m);
    for f in m.field.iter_mut().chain(&mut m.extension) {
        field(f);
    }
    for o in &mut m.oneof_decl {
        drop_empty(&mut o.options);
    }
    // protoc ends a MessageSet's `extensions .. to max` at 2^31 - 1, not at the field limit.
    let message_set = m
        .options
        .as_ref()
        .is_some_and(|o| o.message_set_wire_format());
    for r in &mut m.extension_range {
        drop_empty(&mut r.options);
        if message_set && r.end() == 536_870_912 {
            r.end = Some(i32::MAX);
        }
    }
    for n in &mut m.nested_type {
        message(n);
    }
    for e in &mut m.enum_type {
        enumeration(e);
    }
}

fn enumeration(e: &mut protobuf::descriptor::EnumDescriptorProto) {
    drop_empty(&mut e.options);
    for v in &mut e.value {
        drop_empty(&mut v.options);
    }
}

fn field(f: &mut FieldDescriptorProto) {
    use protobuf::descriptor::field_descriptor_proto::Type;
    // `[default = ..]` and `[json_name = ..]` alone leave the parser an empty options message.
    drop_empty(&mut f.options);
    let Some(text) = f.default_value.as_deref() else {
        return;
    };
    let spelled = match f.type_() {
        Type::TYPE_DOUBLE => parse_float(text).map(simple_dtoa),
        Type::TYPE_FLOAT => parse_float(text).map(|v| simple_ftoa(v as f32)),
        _ => None,
    };
    if let Some(s) = spelled {
        f.default_value = Some(s);
    }
}

/// protoc's synthetic oneofs: one per proto3 `optional` field, after every real oneof, in field
/// order, named `_<field>` (no second `_`), with `X`s in front until no field or oneof has
/// the name.
fn synthetic_oneofs(m: &mut DescriptorProto) {
    let synthetic: Vec<bool> = (0..m.oneof_decl.len() as i32)
        .map(|i| {
            m.field
                .iter()
                .any(|f| f.oneof_index == Some(i) && f.proto3_optional())
        })
        .collect();
    if !synthetic.contains(&true) {
        return;
    }
    let mut renumber = vec![0i32; synthetic.len()];
    let mut oneofs: Vec<OneofDescriptorProto> = Vec::new();
    for (i, o) in m.oneof_decl.iter().enumerate() {
        if !synthetic[i] {
            renumber[i] = oneofs.len() as i32;
            oneofs.push(o.clone());
        }
    }
    let mut names: std::collections::HashSet<String> = m
        .field
        .iter()
        .map(|f| f.name().to_string())
        .chain(oneofs.iter().map(|o| o.name().to_string()))
        .collect();
    for f in &mut m.field {
        match f.oneof_index {
            Some(i) if f.proto3_optional() => {
                let mut name = f.name().to_string();
                if !name.starts_with('_') {
                    name.insert(0, '_');
                }
                while names.contains(&name) {
                    name.insert(0, 'X');
                }
                names.insert(name.clone());
                let mut oneof = m.oneof_decl[i as usize].clone();
                oneof.name = Some(name);
                f.oneof_index = Some(oneofs.len() as i32);
                oneofs.push(oneof);
            }
            Some(i) => f.oneof_index = Some(renumber[i as usize]),
            None => {}
        }
    }
    m.oneof_decl = oneofs;
}

fn drop_empty<M: protobuf::Message>(options: &mut protobuf::MessageField<M>) {
    if options.as_ref().is_some_and(|o| o.compute_size() == 0) {
        *options = protobuf::MessageField::none();
    }
}

/// A default as the parser spelled it (Rust's formatting, or the literal).
fn parse_float(text: &str) -> Option<f64> {
    match text {
        "inf" | "+inf" | "infinity" => Some(f64::INFINITY),
        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
        "nan" | "NaN" | "-nan" => Some(f64::NAN),
        _ => text.parse().ok(),
    }
}

/// protoc's `SimpleDtoa`: `%.15g`, or `%.17g` when that does not read back.
fn simple_dtoa(v: f64) -> String {
    let short = g_format(v, 15);
    if short.parse::<f64>().ok() == Some(v) {
        short
    } else {
        g_format(v, 17)
    }
}

/// protoc's `SimpleFtoa`: `%.6g`, or `%.9g` when that does not read back as the same `f32`.
fn simple_ftoa(v: f32) -> String {
    let short = g_format(f64::from(v), 6);
    if short.parse::<f32>().ok() == Some(v) {
        short
    } else {
        g_format(f64::from(v), 9)
    }
}

/// C's `printf("%.<precision>g", v)`.
fn g_format(v: f64, precision: usize) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    let scientific = format!("{:.*e}", precision - 1, v);
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if exponent < -4 || exponent >= precision as i32 {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!(
            "{}e{sign}{:02}",
            trim_zeros(mantissa),
            exponent.unsigned_abs()
        )
    } else {
        let decimals = (precision as i32 - 1 - exponent) as usize;
        trim_zeros(&format!("{v:.decimals$}")).to_string()
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// The methods written with a `{ .. }` body (for which protoc writes an empty options
/// message): (service, method) pairs found by a scan of the text's tokens.
fn method_bodies(source: &str) -> Vec<(String, String)> {
    let tokens = tokens(source);
    let mut out = Vec::new();
    let mut service = String::new();
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].as_str() {
            "service" if i + 1 < tokens.len() => {
                service = tokens[i + 1].clone();
                i += 2;
            }
            "rpc" if i + 1 < tokens.len() => {
                let method = tokens[i + 1].clone();
                // rpc Name ( .. ) returns ( .. ) then `{` or `;`
                let mut parens = 0;
                let mut j = i + 2;
                while j < tokens.len() {
                    match tokens[j].as_str() {
                        "(" => parens += 1,
                        ")" => {
                            parens -= 1;
                            if parens == 0 && tokens.get(j + 1).is_some_and(|t| t != "returns") {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                if tokens.get(j + 1).is_some_and(|t| t == "{") {
                    out.push((service.clone(), method));
                }
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// Identifiers and single punctuation characters, without comments and string literals.
fn tokens(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            '"' | '\'' => {
                let mut escaped = false;
                for d in chars.by_ref() {
                    if escaped {
                        escaped = false;
                    } else if d == '\\' {
                        escaped = true;
                    } else if d == c {
                        break;
                    }
                }
                out.push("\"".into());
            }
            c if c.is_alphanumeric() || c == '_' || c == '.' => {
                let mut word = String::from(c);
                while let Some(&d) = chars.peek() {
                    if d.is_alphanumeric() || d == '_' || d == '.' {
                        word.push(d);
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push(word);
            }
            c if c.is_whitespace() => {}
            c => out.push(c.to_string()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_spelled_as_protoc_spells_them() {
        for (v, s) in [
            (1e15, "1e+15"),
            (1e-5, "1e-05"),
            (1e10, "10000000000"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (0.0, "0"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
        ] {
            assert_eq!(simple_dtoa(v), s, "{v}");
        }
        assert_eq!(simple_ftoa(std::f32::consts::PI), "3.14159274");
        assert_eq!(simple_ftoa(1.5), "1.5");
        assert_eq!(simple_ftoa(1e20), "1e+20");
        assert_eq!(simple_dtoa(f64::NAN), "nan");
    }

    #[test]
    fn methods_with_bodies_are_found() {
        let text = r#"
            service A { rpc One(X) returns (Y); // rpc Fake(X) returns (Y) {}
              rpc Two(stream X) returns (stream Y) { option deprecated = true; }
              /* rpc Three(X) returns (Y) {} */ rpc Four(.p.X) returns (Y) {}
            }
            service B { rpc One(X) returns (Y) {} }
        "#;
        let found = method_bodies(text);
        let expected = [("A", "Two"), ("A", "Four"), ("B", "One")];
        assert_eq!(found, expected.map(|(s, m)| (s.to_string(), m.to_string())));
    }

    #[test]
    fn synthetic_oneofs_follow_the_real_ones() {
        let mut m = DescriptorProto::new();
        let field = |name: &str, oneof: i32, optional: bool| {
            let mut f = FieldDescriptorProto::new();
            f.name = Some(name.into());
            f.oneof_index = Some(oneof);
            f.proto3_optional = optional.then_some(true);
            f
        };
        let oneof = |name: &str| {
            let mut o = OneofDescriptorProto::new();
            o.name = Some(name.into());
            o
        };
        // As the parser writes them: `_a`, then the real `choice`, then `__b`.
        m.oneof_decl = vec![oneof("_a"), oneof("choice"), oneof("__b")];
        m.field = vec![
            field("a", 0, true),
            field("c", 1, false),
            field("_b", 2, true),
            field("X_b", 1, false),
        ];
        synthetic_oneofs(&mut m);
        let names: Vec<&str> = m.oneof_decl.iter().map(|o| o.name()).collect();
        // `_b` is a field's name, and so is `X_b`.
        assert_eq!(names, ["choice", "_a", "XX_b"]);
        let index: Vec<i32> = m.field.iter().map(|f| f.oneof_index()).collect();
        assert_eq!(index, [1, 0, 2, 0]);
    }
}
