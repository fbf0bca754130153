//! Error types. Decoding errors carry the path of message and field names where they happened.

#[allow(unused_imports)]
use crate::prelude::*;

use alloc::borrow::Cow;
use core::fmt;

/// What went wrong while decoding.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The input ended inside a value.
    Truncated,
    /// A varint was longer than 10 bytes or overflowed 64 bits.
    InvalidVarint,
    /// A key used the reserved wire type 6 or 7.
    InvalidWireType(u32),
    /// A key had field number 0 or did not fit in 32 bits.
    InvalidKey(u64),
    /// A known field arrived with another wire type than its declaration allows.
    WireTypeMismatch {
        /// Field number of the offending key.
        field_number: u32,
        /// Wire type found on the wire.
        found: u8,
    },
    /// A length prefix pointed past the end of its enclosing message, or past 2 GiB
    /// ([`MAX_MESSAGE_SIZE`](crate::wire::MAX_MESSAGE_SIZE)).
    LengthOutOfBounds(u64),
    /// Messages were nested deeper than the recursion limit.
    RecursionLimit,
    /// A `string` field was not valid UTF-8.
    InvalidUtf8,
    /// An end-group key without a matching start, or with another field number.
    UnexpectedEndGroup(u32),
    /// A required field (proto2 `required`, editions `LEGACY_REQUIRED`) is missing from a
    /// decoded message (`mode=standalone`, as the spec asks).
    MissingRequired {
        /// The message's full name.
        message: Cow<'static, str>,
        /// The field's name.
        field: Cow<'static, str>,
    },
    /// The decode would allocate more than its memory budget allows (see
    /// [`DecodeLimits::memory_budget`](crate::DecodeLimits::memory_budget)): elements, strings,
    /// bytes, map entries and unknown fields are charged before they are allocated.
    MemoryBudget {
        /// The budget the decode started with, in bytes.
        budget: usize,
    },
    /// The input is longer than [`DecodeLimits::max_input_size`](crate::DecodeLimits).
    InputTooLarge {
        /// The input's size, in bytes.
        size: usize,
        /// The limit, in bytes.
        limit: usize,
    },
    /// The decode would keep more unknown fields, or more bytes of them, than
    /// [`DecodeLimits`](crate::DecodeLimits) allow (`usize::MAX`: no limit).
    UnknownFieldLimit {
        /// The most unknown fields one decode keeps.
        max_fields: usize,
        /// The most bytes of unknown fields one decode keeps.
        max_bytes: usize,
    },
    /// An `Any` holds another type than the one asked for.
    UnexpectedTypeUrl {
        /// The type URL of the type asked for.
        expected: String,
        /// The `Any`'s type URL.
        found: String,
    },
}

struct Inner {
    kind: DecodeErrorKind,
    /// Innermost first: (message full name, field name).
    path: Vec<(&'static str, &'static str)>,
}

/// A decoding failure: its [`kind`](DecodeError::kind) and where it happened.
///
/// Boxed so that `Result<(), DecodeError>` stays one word on the hot path.
pub struct DecodeError(Box<Inner>);

impl DecodeError {
    /// A new error of `kind` with an empty path.
    #[cold]
    #[inline(never)]
    pub fn new(kind: DecodeErrorKind) -> Self {
        DecodeError(Box::new(Inner {
            kind,
            path: Vec::new(),
        }))
    }

    /// What went wrong.
    pub fn kind(&self) -> &DecodeErrorKind {
        &self.0.kind
    }

    /// What went wrong, to fill in figures known only further out.
    pub(crate) fn kind_mut(&mut self) -> &mut DecodeErrorKind {
        &mut self.0.kind
    }

    /// Where it went wrong, outermost first: `(message full name, field name)` pairs.
    pub fn path(&self) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
        self.0.path.iter().rev().copied()
    }

    /// Adds the enclosing message and field to the path; called as the error leaves a field.
    #[cold]
    #[inline(never)]
    pub fn push(mut self, message: &'static str, field: &'static str) -> Self {
        self.0.path.push((message, field));
        self
    }
}

/// The name of field `number` in `names` (a message's
/// [`FIELD_NAMES`](crate::Message::FIELD_NAMES): `number:name` pairs separated by spaces), `"?"`
/// for a number not there.
#[cold]
pub(crate) fn field_name(names: &'static str, number: u32) -> &'static str {
    names
        .split(' ')
        .filter_map(|pair| pair.split_once(':'))
        .find(|(n, _)| n.parse() == Ok(number))
        .map_or("?", |(_, name)| name)
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeErrorKind::Truncated => f.write_str("unexpected end of input"),
            DecodeErrorKind::InvalidVarint => f.write_str("invalid varint"),
            DecodeErrorKind::InvalidWireType(w) => write!(f, "invalid wire type {w}"),
            DecodeErrorKind::InvalidKey(k) => write!(f, "invalid key {k}"),
            DecodeErrorKind::WireTypeMismatch {
                field_number,
                found,
            } => write!(f, "field {field_number} has unexpected wire type {found}"),
            DecodeErrorKind::LengthOutOfBounds(n) => {
                write!(f, "length {n} runs past the end of the enclosing message")
            }
            DecodeErrorKind::RecursionLimit => f.write_str("recursion limit reached"),
            DecodeErrorKind::InvalidUtf8 => f.write_str("string field is not valid UTF-8"),
            DecodeErrorKind::UnexpectedEndGroup(n) => {
                write!(f, "unexpected end-group key for field {n}")
            }
            DecodeErrorKind::MissingRequired { message, field } => {
                write!(f, "required field {message}.{field} is missing")
            }
            DecodeErrorKind::UnexpectedTypeUrl { expected, found } => {
                write!(f, "Any holds `{found}`, not `{expected}`")
            }
            DecodeErrorKind::MemoryBudget { budget } => write!(
                f,
                "the decoded value would take more than its memory budget of {budget} bytes"
            ),
            DecodeErrorKind::InputTooLarge { size, limit } => {
                write!(
                    f,
                    "input of {size} bytes is over the limit of {limit} bytes"
                )
            }
            DecodeErrorKind::UnknownFieldLimit {
                max_fields,
                max_bytes,
            } => write!(
                f,
                "more unknown fields than the limits allow ({max_fields} fields, {max_bytes} bytes)"
            ),
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "failed to decode protobuf message: {}", self.0.kind)?;
        let mut sep = " at ";
        for (message, field) in self.path() {
            write!(f, "{sep}{message}.{field}")?;
            sep = " > ";
        }
        Ok(())
    }
}

impl fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecodeError")
            .field("kind", &self.0.kind)
            .field("path", &self.path().collect::<Vec<_>>())
            .finish()
    }
}

impl core::error::Error for DecodeError {}

impl From<DecodeErrorKind> for DecodeError {
    fn from(kind: DecodeErrorKind) -> Self {
        DecodeError::new(kind)
    }
}

/// Encoding failed: the caller's buffer had too little room, or the message is larger than
/// protobuf allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeError {
    /// The buffer had too little room.
    BufferTooSmall {
        /// Bytes the message needs.
        required: usize,
        /// Bytes the buffer had left.
        remaining: usize,
    },
    /// The message is larger than [`MAX_MESSAGE_SIZE`](crate::wire::MAX_MESSAGE_SIZE), the
    /// 2 GiB that protobuf's length prefixes and other implementations allow.
    TooLarge {
        /// Its encoded size.
        size: usize,
    },
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::BufferTooSmall {
                required,
                remaining,
            } => write!(
                f,
                "insufficient buffer capacity (required: {required}, remaining: {remaining})"
            ),
            EncodeError::TooLarge { size } => write!(
                f,
                "message of {size} bytes exceeds protobuf's limit of {} bytes",
                crate::wire::MAX_MESSAGE_SIZE
            ),
        }
    }
}

impl core::error::Error for EncodeError {}

/// A number that a generated enum does not declare (from its `TryFrom<i32>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownEnumValue(pub i32);

impl fmt::Display for UnknownEnumValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown enum value {}", self.0)
    }
}

impl core::error::Error for UnknownEnumValue {}

#[cfg(test)]
mod field_name_tests {
    use super::field_name;

    #[test]
    fn finds_names_by_number() {
        let names = "1:name 2:display_name 17:labels 5:x";
        assert_eq!(field_name(names, 1), "name");
        assert_eq!(field_name(names, 2), "display_name");
        assert_eq!(field_name(names, 17), "labels");
        assert_eq!(field_name(names, 5), "x");
        assert_eq!(field_name(names, 7), "?");
        assert_eq!(field_name(names, 0), "?");
        assert_eq!(field_name("", 1), "?");
    }
}
