//! The JSON error: what went wrong, where in the input (line and column, 1-based, columns in
//! characters), and in which field (the innermost field's full proto name and the path of
//! keys leading to it). One pointer wide, so results stay small on the hot path.

use core::fmt;

use crate::prelude::*;

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum JsonErrorKind {
    /// The input is not JSON: `expected` says what the parser wanted.
    Syntax {
        /// What the parser expected at that point.
        expected: &'static str,
    },
    /// JSON, but not a value of the field's type (a string for a number, `1.5` for an
    /// integer, ...): `expected` names the wanted form.
    Type {
        /// The form the field takes.
        expected: &'static str,
    },
    /// A number outside its type's range.
    OutOfRange,
    /// A string escape that is not JSON's, or a lone surrogate.
    InvalidEscape,
    /// Bytes that are not UTF-8.
    InvalidUtf8,
    /// A key that names no field (and unknown fields are not ignored).
    UnknownField {
        /// The key.
        key: String,
    },
    /// An enum name the enum does not declare (and unknown enum values are not ignored).
    UnknownEnumValue {
        /// The name.
        name: String,
    },
    /// The same field twice in one object (under its JSON name or its proto name), or two
    /// members of one oneof.
    DuplicateField,
    /// Objects and arrays nested deeper than the recursion limit.
    RecursionLimitExceeded,
    /// The value read would take more memory than the decode's budget
    /// ([`DecodeLimits::memory_budget`](crate::DecodeLimits::memory_budget)): elements,
    /// strings, bytes, map entries and messages are charged before they are allocated.
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
    /// A well-known type's string form is malformed or out of range (Timestamp, Duration,
    /// FieldMask), or a value has no JSON form (a Timestamp out of range on encode).
    InvalidValue {
        /// What was wrong.
        reason: &'static str,
    },
    /// An `Any` whose type is not in the type registry (or has no `@type`).
    UnknownAnyType {
        /// The type URL.
        type_url: String,
    },
    /// An `Any`'s or an extension's binary payload does not decode (the binary decoder's
    /// message).
    Decode(String),
    /// Something after the end of the top-level value.
    TrailingCharacters,
}

/// A JSON encode or decode error.
#[derive(Clone, PartialEq, Eq)]
pub struct JsonError(Box<Inner>);

#[derive(Clone, Debug, PartialEq, Eq)]
struct Inner {
    kind: JsonErrorKind,
    /// 1-based line and column of the offending input; `0` when encoding.
    line: u32,
    column: u32,
    /// The innermost field's full proto name (`pkg.Msg.field`), once known.
    field: Option<String>,
    /// Keys from the top-level object down to the offending value, innermost last.
    path: Vec<String>,
}

impl JsonError {
    /// An error of `kind` at no position (an encoding error).
    pub fn new(kind: JsonErrorKind) -> JsonError {
        JsonError(Box::new(Inner {
            kind,
            line: 0,
            column: 0,
            field: None,
            path: Vec::new(),
        }))
    }

    pub(crate) fn at(kind: JsonErrorKind, line: u32, column: u32) -> JsonError {
        let mut e = JsonError::new(kind);
        e.0.line = line;
        e.0.column = column;
        e
    }

    /// What went wrong.
    pub fn kind(&self) -> &JsonErrorKind {
        &self.0.kind
    }

    /// The 1-based line of the input where it went wrong (`0` for an encoding error).
    pub fn line(&self) -> u32 {
        self.0.line
    }

    /// The 1-based column (in characters) of the input where it went wrong.
    pub fn column(&self) -> u32 {
        self.0.column
    }

    /// The full proto name of the innermost field being read or written, if any
    /// (`vt.candidates.Candidate.id`).
    pub fn field(&self) -> Option<&str> {
        self.0.field.as_deref()
    }

    /// The keys from the top-level object down to the offending value (`candidates`, `id`).
    pub fn path(&self) -> impl DoubleEndedIterator<Item = &str> {
        self.0.path.iter().rev().map(String::as_str)
    }

    /// Records that the error happened in field `field` (its proto name) of `message` (its full
    /// name), reached by `key`. Called as the error leaves each message, innermost first.
    #[cold]
    #[inline(never)]
    pub fn in_field(mut self, message: &str, field: &str, key: &str) -> JsonError {
        if self.0.field.is_none() {
            self.0.field = Some(format!("{message}.{field}"));
        }
        self.0.path.push(key.into());
        self
    }

    /// Records the index of a repeated field's element (`[3]`) in the path.
    #[cold]
    #[inline(never)]
    pub fn in_element(mut self, index: usize) -> JsonError {
        self.0.path.push(format!("[{index}]"));
        self
    }
}

impl fmt::Display for JsonErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonErrorKind::Syntax { expected } => write!(f, "invalid JSON: expected {expected}"),
            JsonErrorKind::Type { expected } => write!(f, "expected {expected}"),
            JsonErrorKind::OutOfRange => f.write_str("number out of range"),
            JsonErrorKind::InvalidEscape => f.write_str("invalid string escape"),
            JsonErrorKind::InvalidUtf8 => f.write_str("invalid UTF-8"),
            JsonErrorKind::UnknownField { key } => write!(f, "unknown field {key:?}"),
            JsonErrorKind::UnknownEnumValue { name } => write!(f, "unknown enum value {name:?}"),
            JsonErrorKind::DuplicateField => f.write_str("field set twice"),
            JsonErrorKind::RecursionLimitExceeded => f.write_str("nested too deeply"),
            JsonErrorKind::MemoryBudget { budget } => write!(
                f,
                "the value read would take more than its memory budget of {budget} bytes"
            ),
            JsonErrorKind::InputTooLarge { size, limit } => {
                write!(
                    f,
                    "input of {size} bytes is over the limit of {limit} bytes"
                )
            }
            JsonErrorKind::InvalidValue { reason } => f.write_str(reason),
            JsonErrorKind::UnknownAnyType { type_url } => {
                write!(f, "Any type {type_url:?} is not in the type registry")
            }
            JsonErrorKind::Decode(e) => write!(f, "binary payload: {e}"),
            JsonErrorKind::TrailingCharacters => f.write_str("trailing characters after the value"),
        }
    }
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.kind)?;
        if let Some(field) = &self.0.field {
            write!(f, " for field {field}")?;
        }
        if self.0.line != 0 {
            write!(f, " at line {}, column {}", self.0.line, self.0.column)?;
        }
        if !self.0.path.is_empty() {
            let path: Vec<&str> = self.path().collect();
            write!(f, " (path {})", path.join("."))?;
        }
        Ok(())
    }
}

impl fmt::Debug for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for JsonError {}
