//! The text-format error: what went wrong, where in the input (line and column, 1-based,
//! columns in characters), and in which field (the innermost field's full proto name and the
//! names leading to it). One pointer wide, as `JsonError` is.

use core::fmt;

use crate::prelude::*;

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TextErrorKind {
    /// The input is not the text format: `expected` says what the parser wanted.
    Syntax {
        /// What the parser expected at that point.
        expected: &'static str,
    },
    /// A value of another type than the field's (a string for a number, `1.5` for an
    /// integer, ...): `expected` names the wanted form.
    Type {
        /// The form the field takes.
        expected: &'static str,
    },
    /// A number outside its type's range.
    OutOfRange,
    /// A string escape the format does not have.
    InvalidEscape,
    /// A `string` field's value (after unescaping) is not UTF-8.
    InvalidUtf8,
    /// A name that is no field of the message (nor a declared extension).
    UnknownField {
        /// The name as written.
        name: String,
    },
    /// An enum name the enum does not declare, or a number a closed enum does not.
    UnknownEnumValue {
        /// The name or number as written.
        name: String,
    },
    /// A singular field twice in one message, or two members of one oneof.
    DuplicateField,
    /// Messages nested deeper than the recursion limit.
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
    /// An `Any` whose type URL is not in the type registry, or not of the form
    /// `type.googleapis.com/full.Name`.
    UnknownAnyType {
        /// The type URL.
        type_url: String,
    },
    /// An `Any`'s or an extension's binary payload does not decode (the binary decoder's
    /// message).
    Decode(String),
}

/// A text-format encode or decode error.
#[derive(Clone, PartialEq, Eq)]
pub struct TextError(Box<Inner>);

#[derive(Clone, Debug, PartialEq, Eq)]
struct Inner {
    kind: TextErrorKind,
    /// 1-based line and column of the offending input; `0` when encoding.
    line: u32,
    column: u32,
    /// The innermost field's full proto name (`pkg.Msg.field`), once known.
    field: Option<String>,
    /// Field names from the top-level message down to the offending value, innermost last.
    path: Vec<String>,
}

impl TextError {
    /// An error of `kind` at no position (an encoding error).
    pub fn new(kind: TextErrorKind) -> TextError {
        TextError(Box::new(Inner {
            kind,
            line: 0,
            column: 0,
            field: None,
            path: Vec::new(),
        }))
    }

    pub(crate) fn at(kind: TextErrorKind, line: u32, column: u32) -> TextError {
        let mut e = TextError::new(kind);
        e.0.line = line;
        e.0.column = column;
        e
    }

    /// What went wrong.
    pub fn kind(&self) -> &TextErrorKind {
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

    /// The full proto name of the innermost field being read, if any.
    pub fn field(&self) -> Option<&str> {
        self.0.field.as_deref()
    }

    /// The field names from the top-level message down to the offending value.
    pub fn path(&self) -> impl DoubleEndedIterator<Item = &str> {
        self.0.path.iter().rev().map(String::as_str)
    }

    /// Records that the error happened in field `field` (as written) of `message` (its full
    /// name). Called as the error leaves each message, innermost first.
    #[cold]
    #[inline(never)]
    pub fn in_field(mut self, message: &str, field: &str) -> TextError {
        if self.0.field.is_none() {
            self.0.field = Some(format!("{message}.{field}"));
        }
        self.0.path.push(field.into());
        self
    }
}

impl fmt::Display for TextErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextErrorKind::Syntax { expected } => write!(f, "expected {expected}"),
            TextErrorKind::Type { expected } => write!(f, "expected {expected}"),
            TextErrorKind::OutOfRange => f.write_str("number out of range"),
            TextErrorKind::InvalidEscape => f.write_str("invalid string escape"),
            TextErrorKind::InvalidUtf8 => f.write_str("string is not UTF-8"),
            TextErrorKind::UnknownField { name } => write!(f, "unknown field {name:?}"),
            TextErrorKind::UnknownEnumValue { name } => write!(f, "unknown enum value {name:?}"),
            TextErrorKind::DuplicateField => f.write_str("a singular field or a oneof set twice"),
            TextErrorKind::RecursionLimitExceeded => f.write_str("nested too deeply"),
            TextErrorKind::MemoryBudget { budget } => write!(
                f,
                "the value read would take more than its memory budget of {budget} bytes"
            ),
            TextErrorKind::InputTooLarge { size, limit } => {
                write!(
                    f,
                    "input of {size} bytes is over the limit of {limit} bytes"
                )
            }
            TextErrorKind::UnknownAnyType { type_url } => {
                write!(f, "Any type {type_url:?} is not in the type registry")
            }
            TextErrorKind::Decode(e) => write!(f, "binary payload: {e}"),
        }
    }
}

impl fmt::Display for TextError {
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

impl fmt::Debug for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for TextError {}
