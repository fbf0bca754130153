//! Protobuf's rules as editions features: the wire-, presence- and validation-relevant features
//! of a file's syntax or edition, and their inheritance from file to message to field.
//!
//! proto2 and proto3 are editions with fixed features (the spec's "legacy" defaults); editions
//! 2023 and 2024 start from their defaults and let a file, a message (for its fields and nested
//! types), an enum or a field override each feature. [`build`](super::build) reads the result,
//! never the syntax: a new edition is a new row of defaults here.

/// Whether a singular field tracks presence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldPresence {
    /// `has_x`: `Option<T>`.
    Explicit,
    /// No presence: the default value is not written.
    Implicit,
    /// proto2 `required`.
    LegacyRequired,
}

/// Whether an enum accepts numbers it does not declare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnumType {
    /// Any number is kept.
    Open,
    /// Undeclared numbers go to unknown fields.
    Closed,
}

/// How repeated scalars are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepeatedFieldEncoding {
    /// One length-delimited record.
    Packed,
    /// One record per value.
    Expanded,
}

/// How message fields are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageEncoding {
    /// Length-prefixed.
    LengthPrefixed,
    /// Between start- and end-group keys.
    Delimited,
}

/// The resolved features of one element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// Presence of singular fields.
    pub field_presence: FieldPresence,
    /// Closedness of enums.
    pub enum_type: EnumType,
    /// Encoding of repeated scalars.
    pub repeated_field_encoding: RepeatedFieldEncoding,
    /// Whether strings are checked for UTF-8 on decode (`VERIFY`) or not (`NONE`).
    pub utf8_validation: bool,
    /// Encoding of message fields.
    pub message_encoding: MessageEncoding,
}

/// A file's syntax or edition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edition {
    /// `syntax = "proto2"` (or none).
    Proto2,
    /// `syntax = "proto3"`.
    Proto3,
    /// `edition = "2023"`.
    Edition2023,
    /// `edition = "2024"`.
    Edition2024,
}

impl Edition {
    /// The features every element of a file of this edition starts from.
    ///
    /// proto2's strings are not required to be UTF-8 by the spec; prost checks them anyway, and
    /// `mode=prost` follows prost (the field's `utf8_validation` is then overridden by the
    /// mode, not here).
    pub fn defaults(self) -> Features {
        use FieldPresence::*;
        match self {
            Edition::Proto2 => Features {
                field_presence: Explicit,
                enum_type: EnumType::Closed,
                repeated_field_encoding: RepeatedFieldEncoding::Expanded,
                utf8_validation: false,
                message_encoding: MessageEncoding::LengthPrefixed,
            },
            Edition::Proto3 => Features {
                field_presence: Implicit,
                enum_type: EnumType::Open,
                repeated_field_encoding: RepeatedFieldEncoding::Packed,
                utf8_validation: true,
                message_encoding: MessageEncoding::LengthPrefixed,
            },
            Edition::Edition2023 | Edition::Edition2024 => Features {
                field_presence: Explicit,
                enum_type: EnumType::Open,
                repeated_field_encoding: RepeatedFieldEncoding::Packed,
                utf8_validation: true,
                message_encoding: MessageEncoding::LengthPrefixed,
            },
        }
    }
}

/// Features an element sets for itself and what it declares below it; `None` inherits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    /// `features.field_presence`.
    pub field_presence: Option<FieldPresence>,
    /// `features.enum_type`.
    pub enum_type: Option<EnumType>,
    /// `features.repeated_field_encoding`.
    pub repeated_field_encoding: Option<RepeatedFieldEncoding>,
    /// `features.utf8_validation` (`true` for `VERIFY`).
    pub utf8_validation: Option<bool>,
    /// `features.message_encoding`.
    pub message_encoding: Option<MessageEncoding>,
}

impl Features {
    /// These features with `o`'s overrides applied: the features of a child element.
    pub fn with(self, o: &Overrides) -> Features {
        Features {
            field_presence: o.field_presence.unwrap_or(self.field_presence),
            enum_type: o.enum_type.unwrap_or(self.enum_type),
            repeated_field_encoding: o
                .repeated_field_encoding
                .unwrap_or(self.repeated_field_encoding),
            utf8_validation: o.utf8_validation.unwrap_or(self.utf8_validation),
            message_encoding: o.message_encoding.unwrap_or(self.message_encoding),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_syntaxes_as_features() {
        let p2 = Edition::Proto2.defaults();
        assert_eq!(p2.field_presence, FieldPresence::Explicit);
        assert_eq!(p2.enum_type, EnumType::Closed);
        assert_eq!(p2.repeated_field_encoding, RepeatedFieldEncoding::Expanded);
        let p3 = Edition::Proto3.defaults();
        assert_eq!(p3.field_presence, FieldPresence::Implicit);
        assert_eq!(p3.enum_type, EnumType::Open);
        assert_eq!(p3.repeated_field_encoding, RepeatedFieldEncoding::Packed);
        assert!(p3.utf8_validation);
    }

    #[test]
    fn inheritance_from_file_to_message_to_field() {
        let file = Edition::Edition2023.defaults().with(&Overrides {
            field_presence: Some(FieldPresence::Implicit),
            ..Overrides::default()
        });
        let message = file.with(&Overrides {
            repeated_field_encoding: Some(RepeatedFieldEncoding::Expanded),
            ..Overrides::default()
        });
        let field = message.with(&Overrides {
            message_encoding: Some(MessageEncoding::Delimited),
            ..Overrides::default()
        });
        assert_eq!(field.field_presence, FieldPresence::Implicit);
        assert_eq!(
            field.repeated_field_encoding,
            RepeatedFieldEncoding::Expanded
        );
        assert_eq!(field.message_encoding, MessageEncoding::Delimited);
        assert_eq!(field.enum_type, EnumType::Open);
        assert_eq!(
            message.with(&Overrides::default()),
            message,
            "no overrides inherit everything"
        );
    }
}
