//! `descriptor.proto`'s messages read straight from their bytes, as far as the pool needs them
//! (names, numbers, labels, types, defaults, oneofs, ranges, services); every options message
//! is kept whole, as bytes, custom options included. Nothing here resolves a name.

use crate::prelude::*;
use crate::{DecodeError, DecodeErrorKind, Reader};

/// Nesting of messages inside messages beyond which a descriptor is refused (each level is a
/// frame of the recursive reader).
const MAX_NESTING: u32 = 100;

#[derive(Clone, Debug, Default)]
pub(super) struct File {
    pub name: String,
    pub package: String,
    pub dependency: Vec<String>,
    pub public_dependency: Vec<i32>,
    pub message_type: Vec<Message>,
    pub enum_type: Vec<Enum>,
    pub service: Vec<Service>,
    pub extension: Vec<Field>,
    pub options: Vec<u8>,
    pub syntax: String,
    pub edition: i32,
}

#[derive(Clone, Debug, Default)]
pub(super) struct Message {
    pub name: String,
    pub field: Vec<Field>,
    pub extension: Vec<Field>,
    pub nested_type: Vec<Message>,
    pub enum_type: Vec<Enum>,
    pub extension_range: Vec<(i32, i32)>,
    pub oneof_decl: Vec<Oneof>,
    pub options: Vec<u8>,
    pub reserved_range: Vec<(i32, i32)>,
    pub reserved_name: Vec<String>,
}

#[derive(Clone, Debug, Default)]
pub(super) struct Field {
    pub name: String,
    pub number: i32,
    pub label: i32,
    pub r#type: i32,
    pub type_name: String,
    pub extendee: String,
    pub default_value: Option<String>,
    pub oneof_index: Option<i32>,
    pub json_name: Option<String>,
    pub options: Vec<u8>,
    pub proto3_optional: bool,
}

#[derive(Clone, Debug, Default)]
pub(super) struct Oneof {
    pub name: String,
    pub options: Vec<u8>,
}

#[derive(Clone, Debug, Default)]
pub(super) struct Enum {
    pub name: String,
    pub value: Vec<EnumValue>,
    pub options: Vec<u8>,
    pub reserved_range: Vec<(i32, i32)>,
    pub reserved_name: Vec<String>,
}

#[derive(Clone, Debug, Default)]
pub(super) struct EnumValue {
    pub name: String,
    pub number: i32,
    pub options: Vec<u8>,
}

#[derive(Clone, Debug, Default)]
pub(super) struct Service {
    pub name: String,
    pub method: Vec<Method>,
    pub options: Vec<u8>,
}

#[derive(Clone, Debug, Default)]
pub(super) struct Method {
    pub name: String,
    pub input_type: String,
    pub output_type: String,
    pub options: Vec<u8>,
    pub client_streaming: bool,
    pub server_streaming: bool,
}

/// Calls `f` with each field number and a reader positioned at its value; skips what `f`
/// does not read (it returns `false`).
fn fields<'a>(
    bytes: &'a [u8],
    mut f: impl FnMut(u32, u32, &mut Reader<'a>) -> Result<bool, DecodeError>,
) -> Result<(), DecodeError> {
    let mut r = Reader::new(bytes);
    while !r.is_empty() {
        let key = r.read_key()?;
        if !f(key >> 3, key & 7, &mut r)? {
            r.skip_field(key)?;
        }
    }
    Ok(())
}

fn string(r: &mut Reader<'_>) -> Result<String, DecodeError> {
    r.read_string()
}

fn int(r: &mut Reader<'_>) -> Result<i32, DecodeError> {
    r.read_int32()
}

/// A `{start, end}` range (reserved or extension range).
fn range(bytes: &[u8]) -> Result<(i32, i32), DecodeError> {
    let (mut start, mut end) = (0, 0);
    fields(bytes, |n, wire, r| match (n, wire) {
        (1, 0) => Ok({
            start = int(r)?;
            true
        }),
        (2, 0) => Ok({
            end = int(r)?;
            true
        }),
        _ => Ok(false),
    })?;
    Ok((start, end))
}

/// Decodes an encoded `FileDescriptorProto`.
pub(super) fn file(bytes: &[u8]) -> Result<File, DecodeError> {
    let mut f = File::default();
    fields(bytes, |n, wire, r| {
        match (n, wire) {
            (1, 2) => f.name = string(r)?,
            (2, 2) => f.package = string(r)?,
            (3, 2) => f.dependency.push(string(r)?),
            (10, 0) => f.public_dependency.push(int(r)?),
            (10, 2) => {
                let mut packed = Reader::new(r.read_len_delimited()?);
                while !packed.is_empty() {
                    f.public_dependency.push(int(&mut packed)?);
                }
            }
            (4, 2) => f.message_type.push(message(r.read_len_delimited()?, 0)?),
            (5, 2) => f.enum_type.push(enumeration(r.read_len_delimited()?)?),
            (6, 2) => f.service.push(service(r.read_len_delimited()?)?),
            (7, 2) => f.extension.push(field(r.read_len_delimited()?)?),
            (8, 2) => f.options = r.read_len_delimited()?.to_vec(),
            (12, 2) => f.syntax = string(r)?,
            (14, 0) => f.edition = int(r)?,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(f)
}

fn message(bytes: &[u8], depth: u32) -> Result<Message, DecodeError> {
    if depth >= MAX_NESTING {
        return Err(DecodeError::new(DecodeErrorKind::RecursionLimit));
    }
    let mut m = Message::default();
    fields(bytes, |n, wire, r| {
        match (n, wire) {
            (1, 2) => m.name = string(r)?,
            (2, 2) => m.field.push(field(r.read_len_delimited()?)?),
            (6, 2) => m.extension.push(field(r.read_len_delimited()?)?),
            (3, 2) => m
                .nested_type
                .push(message(r.read_len_delimited()?, depth + 1)?),
            (4, 2) => m.enum_type.push(enumeration(r.read_len_delimited()?)?),
            (5, 2) => m.extension_range.push(range(r.read_len_delimited()?)?),
            (8, 2) => {
                let mut o = Oneof::default();
                fields(r.read_len_delimited()?, |n, wire, r| {
                    match (n, wire) {
                        (1, 2) => o.name = string(r)?,
                        (2, 2) => o.options = r.read_len_delimited()?.to_vec(),
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
                m.oneof_decl.push(o);
            }
            (7, 2) => m.options = r.read_len_delimited()?.to_vec(),
            (9, 2) => m.reserved_range.push(range(r.read_len_delimited()?)?),
            (10, 2) => m.reserved_name.push(string(r)?),
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(m)
}

fn field(bytes: &[u8]) -> Result<Field, DecodeError> {
    let mut f = Field::default();
    fields(bytes, |n, wire, r| {
        match (n, wire) {
            (1, 2) => f.name = string(r)?,
            (3, 0) => f.number = int(r)?,
            (4, 0) => f.label = int(r)?,
            (5, 0) => f.r#type = int(r)?,
            (6, 2) => f.type_name = string(r)?,
            (2, 2) => f.extendee = string(r)?,
            (7, 2) => f.default_value = Some(string(r)?),
            (9, 0) => f.oneof_index = Some(int(r)?),
            (10, 2) => f.json_name = Some(string(r)?),
            (8, 2) => f.options = r.read_len_delimited()?.to_vec(),
            (17, 0) => f.proto3_optional = r.read_bool()?,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(f)
}

fn enumeration(bytes: &[u8]) -> Result<Enum, DecodeError> {
    let mut e = Enum::default();
    fields(bytes, |n, wire, r| {
        match (n, wire) {
            (1, 2) => e.name = string(r)?,
            (2, 2) => {
                let mut v = EnumValue::default();
                fields(r.read_len_delimited()?, |n, wire, r| {
                    match (n, wire) {
                        (1, 2) => v.name = string(r)?,
                        (2, 0) => v.number = int(r)?,
                        (3, 2) => v.options = r.read_len_delimited()?.to_vec(),
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
                e.value.push(v);
            }
            (3, 2) => e.options = r.read_len_delimited()?.to_vec(),
            (4, 2) => e.reserved_range.push(range(r.read_len_delimited()?)?),
            (5, 2) => e.reserved_name.push(string(r)?),
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(e)
}

fn service(bytes: &[u8]) -> Result<Service, DecodeError> {
    let mut s = Service::default();
    fields(bytes, |n, wire, r| {
        match (n, wire) {
            (1, 2) => s.name = string(r)?,
            (2, 2) => {
                let mut m = Method::default();
                fields(r.read_len_delimited()?, |n, wire, r| {
                    match (n, wire) {
                        (1, 2) => m.name = string(r)?,
                        (2, 2) => m.input_type = string(r)?,
                        (3, 2) => m.output_type = string(r)?,
                        (4, 2) => m.options = r.read_len_delimited()?.to_vec(),
                        (5, 0) => m.client_streaming = r.read_bool()?,
                        (6, 0) => m.server_streaming = r.read_bool()?,
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
                s.method.push(m);
            }
            (3, 2) => s.options = r.read_len_delimited()?.to_vec(),
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(s)
}

/// The varint, bool or enum option `number` of an encoded options message (the last one, as
/// a merge keeps), if set.
pub(super) fn option_varint(options: &[u8], number: u32) -> Option<u64> {
    let mut found = None;
    let _ = fields(options, |n, wire, r| {
        if n == number && wire == 0 {
            found = Some(r.read_varint()?);
            return Ok(true);
        }
        Ok(false)
    });
    found
}

/// The message option `number` of an encoded options message (its records merged), if set.
pub(super) fn option_message(options: &[u8], number: u32) -> Option<Vec<u8>> {
    let mut found: Option<Vec<u8>> = None;
    let _ = fields(options, |n, wire, r| {
        if n == number && wire == 2 {
            found
                .get_or_insert_with(Vec::new)
                .extend_from_slice(r.read_len_delimited()?);
            return Ok(true);
        }
        Ok(false)
    });
    found
}

/// The `FileDescriptorProto`s of an encoded `FileDescriptorSet`, as bytes.
pub(super) fn set(bytes: &[u8]) -> Result<Vec<&[u8]>, DecodeError> {
    let mut files = Vec::new();
    let mut r = Reader::new(bytes);
    while !r.is_empty() {
        let key = r.read_key()?;
        if key == (1 << 3) | 2 {
            files.push(r.read_len_delimited()?);
        } else {
            r.skip_field(key)?;
        }
    }
    Ok(files)
}
