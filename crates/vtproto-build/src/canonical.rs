//! Encoded descriptors in protoc's byte order: every message of `descriptor.proto` with its
//! records sorted by field number (repeated fields keep their order), as protoc's C++
//! serializer writes them, custom options included (they sort among the known options by
//! number, where protoc, which reads them as extensions, writes them). The pure parser's
//! encoder writes fields in declaration order and unknown fields last; after this pass its
//! bytes are protoc's.
//!
//! Only the descriptor messages are walked; a custom option's value is kept as written, as is
//! `source_code_info`. Input that does not parse as records is returned unchanged. Also here:
//! a `FileDescriptorSet` split into its encoded files and joined again.

/// What a length-delimited record holds, by the message it sits in and its field number.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    File,
    Message,
    Field,
    Oneof,
    Enum,
    EnumValue,
    Service,
    Method,
    ExtensionRange,
    /// Options and ranges: sorted, their fields' values left as they are.
    Leaf,
    /// Kept as it is (strings, bytes, `source_code_info`).
    Opaque,
}

fn child(parent: Kind, number: u64) -> Kind {
    use Kind::*;
    match (parent, number) {
        (File, 4) => Message,
        (File, 5) => Enum,
        (File, 6) => Service,
        (File, 7) => Field,
        (File, 8) => Leaf,
        (Message, 2 | 6) => Field,
        (Message, 3) => Message,
        (Message, 4) => Enum,
        (Message, 5) => ExtensionRange,
        (Message, 7 | 9) => Leaf,
        (Message, 8) => Oneof,
        (Field | Oneof | EnumValue | ExtensionRange, n) if n == options_field(parent) => Leaf,
        (Enum, 2) => EnumValue,
        (Enum, 3 | 4) => Leaf,
        (Service, 2) => Method,
        (Service, 3) | (Method, 4) => Leaf,
        _ => Opaque,
    }
}

/// The number of the `options` field of the descriptor messages that have one.
fn options_field(kind: Kind) -> u64 {
    match kind {
        Kind::Field => 8,
        Kind::Oneof => 2,
        Kind::EnumValue | Kind::ExtensionRange => 3,
        _ => 0,
    }
}

/// An encoded `FileDescriptorProto` in protoc's order.
pub(crate) fn file(bytes: &[u8]) -> Vec<u8> {
    rewrite(bytes, Kind::File).unwrap_or_else(|| bytes.to_vec())
}

fn rewrite(bytes: &[u8], kind: Kind) -> Option<Vec<u8>> {
    let mut records: Vec<(u64, Vec<u8>)> = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let (key, n) = varint(rest)?;
        let number = key >> 3;
        let mut record = rest[..n].to_vec();
        rest = &rest[n..];
        let child = child(kind, number);
        if key & 7 == 2 && child != Kind::Opaque {
            let (len, n) = varint(rest)?;
            let len = usize::try_from(len).ok()?;
            let body = rest.get(n..n.checked_add(len)?)?;
            rest = &rest[n + len..];
            put_len(&mut record, &rewrite(body, child)?);
        } else {
            let len = value_len(key, rest)?;
            record.extend_from_slice(rest.get(..len)?);
            rest = &rest[len..];
        }
        records.push((number, record));
    }
    records.sort_by_key(|(number, _)| *number);
    Some(records.into_iter().flat_map(|(_, r)| r).collect())
}

/// The encoded files of a `FileDescriptorSet` (its field-1 records), as they are.
pub(crate) fn files(set: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = set;
    while let Some((key, n)) = varint(rest) {
        let Some(len) = value_len(key, &rest[n..]) else {
            break;
        };
        let value = &rest[n..n + len];
        if key == 0x0a {
            // The value is a length prefix and the file.
            let (_, prefix) = varint(value).unwrap_or((0, value.len()));
            out.push(value[prefix..].to_vec());
        }
        rest = &rest[n + len..];
    }
    out
}

/// An encoded `FileDescriptorSet` of `files`.
pub(crate) fn set(files: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for f in files {
        out.push(0x0a);
        put_len(&mut out, f);
    }
    out
}

fn put_len(out: &mut Vec<u8>, body: &[u8]) {
    let mut len = body.len() as u64;
    while len >= 0x80 {
        out.push(len as u8 | 0x80);
        len >>= 7;
    }
    out.push(len as u8);
    out.extend_from_slice(body);
}

/// The length of the value of a record with `key` at the start of `rest` (a group's: its
/// fields and end key), within `rest`.
fn value_len(key: u64, rest: &[u8]) -> Option<usize> {
    let len = match key & 7 {
        0 => varint(rest)?.1,
        1 => 8,
        5 => 4,
        2 => {
            let (len, n) = varint(rest)?;
            n.checked_add(usize::try_from(len).ok()?)?
        }
        3 => group_len(rest, key >> 3)?,
        _ => return None,
    };
    (len <= rest.len()).then_some(len)
}

/// The length of a group's fields and end key, its start key read.
fn group_len(data: &[u8], number: u64) -> Option<usize> {
    let mut at = 0usize;
    loop {
        let (key, n) = varint(data.get(at..)?)?;
        at += n;
        if key & 7 == 4 {
            return (key >> 3 == number).then_some(at);
        }
        at += value_len(key, &data[at..])?;
    }
}

fn varint(data: &[u8]) -> Option<(u64, usize)> {
    let mut v = 0u64;
    for (i, &b) in data.iter().take(10).enumerate() {
        v |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            return Some((v, i + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_by_number_at_every_level_and_keeps_repeated_order() {
        // File { options(8) { 1000: 1, java_package(1): "a" }, name(1): "f",
        //        message_type(4) { field(2) { number(3): 1, name(1): "x" } }, dependency(3) "b", (3) "a" }
        let input = [
            0x42, 0x06, 0xc0, 0x3e, 0x01, 0x0a, 0x01, b'a', // options
            0x0a, 0x01, b'f', // name
            0x22, 0x07, 0x12, 0x05, 0x18, 0x01, 0x0a, 0x01, b'x', // message
            0x1a, 0x01, b'b', 0x1a, 0x01, b'a', // dependencies
        ];
        let expected = [
            0x0a, 0x01, b'f', // name
            0x1a, 0x01, b'b', 0x1a, 0x01, b'a', // dependencies, in order
            0x22, 0x07, 0x12, 0x05, 0x0a, 0x01, b'x', 0x18, 0x01, // message
            0x42, 0x06, 0x0a, 0x01, b'a', 0xc0, 0x3e, 0x01, // options, custom one last
        ];
        assert_eq!(file(&input), expected);
        assert_eq!(file(&expected), expected, "a fixed point");
        // Not records: unchanged.
        assert_eq!(file(&[0x0a, 0x05, 1]), [0x0a, 0x05, 1]);
    }

    #[test]
    fn sets_split_into_files_and_join_again() {
        let files = vec![vec![0x0a, 0x01, b'a'], vec![0u8; 200], Vec::new()];
        let joined = set(&files);
        assert_eq!(super::files(&joined), files);
        // Another field of the set is skipped; a record cut short ends the list.
        let mut with_other = vec![0x10, 0x07];
        with_other.extend_from_slice(&joined);
        assert_eq!(super::files(&with_other), files);
        assert_eq!(super::files(&joined[..joined.len() - 1]).len(), 2);
    }
}
