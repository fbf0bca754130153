//! Syntaxes and editions as editions features: each file's defaults (proto2, proto3, 2023,
//! 2024), overridden by the `features` option of the file, then of each enclosing message,
//! oneof, field or enum, as protoc resolves them. Descriptors read the result; proto2's
//! `[packed = true]` and proto3's `[packed = false]` are applied where they are read.

use super::raw;

/// How a file declares its rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Syntax {
    /// `syntax = "proto2"` (or none).
    Proto2,
    /// `syntax = "proto3"`.
    Proto3,
    /// `edition = "2023"`.
    Edition2023,
    /// `edition = "2024"`.
    Edition2024,
}

impl Syntax {
    /// From `FileDescriptorProto.syntax` and `.edition`.
    pub(super) fn of(syntax: &str, edition: i32) -> Option<Syntax> {
        match (syntax, edition) {
            ("" | "proto2", _) => Some(Syntax::Proto2),
            ("proto3", _) => Some(Syntax::Proto3),
            ("editions", 1000) => Some(Syntax::Edition2023),
            ("editions", 1001) => Some(Syntax::Edition2024),
            _ => None,
        }
    }

    /// The name protobuf gives it (`proto2`, `proto3`, `2023`, `2024`).
    pub fn name(self) -> &'static str {
        match self {
            Syntax::Proto2 => "proto2",
            Syntax::Proto3 => "proto3",
            Syntax::Edition2023 => "2023",
            Syntax::Edition2024 => "2024",
        }
    }
}

/// The resolved features of one definition (`FeatureSet`'s values, as numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Features {
    /// 1 explicit, 2 implicit, 3 legacy required.
    pub field_presence: u8,
    /// 1 open, 2 closed.
    pub enum_type: u8,
    /// 1 packed, 2 expanded.
    pub repeated_field_encoding: u8,
    /// 2 verify, 3 none.
    pub utf8_validation: u8,
    /// 1 length-prefixed, 2 delimited.
    pub message_encoding: u8,
    /// 1 allow, 2 legacy best effort.
    pub json_format: u8,
    pub syntax: Syntax,
}

impl Features {
    /// A file's features: its syntax's defaults and its own `features` option.
    pub(super) fn for_file(syntax: Syntax, options: &[u8]) -> Features {
        let defaults = match syntax {
            Syntax::Proto2 => Features {
                field_presence: 1,
                enum_type: 2,
                repeated_field_encoding: 2,
                utf8_validation: 3,
                message_encoding: 1,
                json_format: 2,
                syntax,
            },
            Syntax::Proto3 => Features {
                field_presence: 2,
                enum_type: 1,
                repeated_field_encoding: 1,
                utf8_validation: 2,
                message_encoding: 1,
                json_format: 1,
                syntax,
            },
            Syntax::Edition2023 | Syntax::Edition2024 => Features {
                field_presence: 1,
                enum_type: 1,
                repeated_field_encoding: 1,
                utf8_validation: 2,
                message_encoding: 1,
                json_format: 1,
                syntax,
            },
        };
        defaults.merge(raw::option_message(options, 50).as_deref())
    }

    /// These features overridden by an encoded `FeatureSet` (a definition's own), if any.
    /// Only editions files may set features.
    pub(super) fn merge(mut self, set: Option<&[u8]>) -> Features {
        let Some(set) = set else { return self };
        if matches!(self.syntax, Syntax::Proto2 | Syntax::Proto3) {
            return self;
        }
        let get = |n| raw::option_varint(set, n).and_then(|v| u8::try_from(v).ok());
        let slots = [
            (1, &mut self.field_presence),
            (2, &mut self.enum_type),
            (3, &mut self.repeated_field_encoding),
            (4, &mut self.utf8_validation),
            (5, &mut self.message_encoding),
            (6, &mut self.json_format),
        ];
        for (n, slot) in slots {
            if let Some(v) = get(n).filter(|&v| v != 0) {
                *slot = v;
            }
        }
        self
    }
}
