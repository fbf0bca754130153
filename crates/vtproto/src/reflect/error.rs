//! What can go wrong when files are added to a [`DescriptorPool`](super::DescriptorPool).

use core::fmt;

use crate::prelude::*;
use crate::{DecodeError, DecodeErrorKind};

/// What went wrong when files were added to a pool.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DescriptorErrorKind {
    /// The bytes are not an encoded `FileDescriptorSet` or `FileDescriptorProto`.
    Decode(DecodeErrorKind),
    /// A file of this name is in the pool (or the set) with other contents.
    DuplicateFile {
        /// The file's name.
        name: String,
    },
    /// A file imports one that is neither in the pool nor among the files added with it.
    MissingDependency {
        /// The importing file.
        file: String,
        /// The file it imports.
        dependency: String,
    },
    /// Two definitions (or a definition and a package) share a full name.
    DuplicateName {
        /// The full name.
        name: String,
        /// The file of the second definition.
        file: String,
    },
    /// Two fields of a message share a number.
    DuplicateNumber {
        /// The message's full name.
        message: String,
        /// The number.
        number: u32,
    },
    /// A field's type, an extension's extendee or a method's input or output names no
    /// definition of the kind it needs.
    UnresolvedType {
        /// The field's, extension's or method's full name.
        field: String,
        /// The type name as written.
        type_name: String,
        /// Whether the name found a definition of another kind.
        found_other_kind: bool,
    },
    /// A definition breaks a rule of `descriptor.proto`.
    Invalid {
        /// The definition's full name (or file name).
        name: String,
        /// What is wrong.
        reason: &'static str,
    },
}

/// An error adding files to a pool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescriptorError {
    kind: Box<DescriptorErrorKind>,
}

impl DescriptorError {
    pub(super) fn new(kind: DescriptorErrorKind) -> Self {
        DescriptorError {
            kind: Box::new(kind),
        }
    }

    pub(super) fn decode(e: DecodeError) -> Self {
        Self::new(DescriptorErrorKind::Decode(e.kind().clone()))
    }

    /// What went wrong.
    pub fn kind(&self) -> &DescriptorErrorKind {
        &self.kind
    }
}

impl fmt::Display for DescriptorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.kind {
            DescriptorErrorKind::Decode(e) => write!(f, "not an encoded descriptor: {e}"),
            DescriptorErrorKind::DuplicateFile { name } => {
                write!(
                    f,
                    "file `{name}` is already in the pool with other contents"
                )
            }
            DescriptorErrorKind::MissingDependency { file, dependency } => {
                write!(
                    f,
                    "`{file}` imports `{dependency}`, which is not in the pool"
                )
            }
            DescriptorErrorKind::DuplicateName { name, file } => {
                write!(f, "`{name}` (in `{file}`) is already defined")
            }
            DescriptorErrorKind::DuplicateNumber { message, number } => {
                write!(f, "two fields of `{message}` have number {number}")
            }
            DescriptorErrorKind::UnresolvedType {
                field,
                type_name,
                found_other_kind,
            } => {
                let what = if *found_other_kind {
                    "names a definition of another kind"
                } else {
                    "is not defined"
                };
                write!(f, "type `{type_name}` of `{field}` {what}")
            }
            DescriptorErrorKind::Invalid { name, reason } => {
                write!(f, "`{name}` has {reason}")
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for DescriptorError {}
