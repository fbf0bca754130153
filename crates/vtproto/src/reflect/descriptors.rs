//! The descriptors a [`DescriptorPool`] hands out: each is the pool (shared) and an index, so
//! they are cheap to clone and compare, and answer from data resolved when the file was
//! added. Options are the encoded options messages, custom options included.

use super::features::Syntax;
use super::pool::{DescriptorPool, FieldData, KindData, Symbol, TYPE_GROUP};
use super::raw;
use crate::prelude::*;
use crate::wire::WireType;

macro_rules! handle {
    ($(#[$doc:meta])* $name:ident, $table:ident, $data:ty) => {
        $(#[$doc])*
        #[derive(Clone, PartialEq, Eq)]
        pub struct $name {
            pool: DescriptorPool,
            index: u32,
        }

        impl $name {
            /// The definition at `index` of `pool`'s table of its kind.
            fn at(pool: &DescriptorPool, index: u32) -> Self {
                $name {
                    pool: pool.clone(),
                    index,
                }
            }

            fn data(&self) -> &$data {
                &self.pool.inner.$table[self.index as usize]
            }

            /// The pool it belongs to.
            pub fn parent_pool(&self) -> &DescriptorPool {
                &self.pool
            }

            /// Its position among the pool's definitions of its kind.
            pub fn index(&self) -> usize {
                self.index as usize
            }
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "{}({})", stringify!($name), self.full_name())
            }
        }
    };
}

handle!(
    /// A `.proto` file.
    FileDescriptor,
    files,
    super::pool::FileData
);
handle!(
    /// A message type.
    MessageDescriptor,
    messages,
    super::pool::MessageData
);
handle!(
    /// A field of a message, or an extension.
    FieldDescriptor,
    fields,
    FieldData
);
handle!(
    /// A oneof of a message (a proto3 `optional`'s synthetic one included).
    OneofDescriptor,
    oneofs,
    super::pool::OneofData
);
handle!(
    /// An enum type.
    EnumDescriptor,
    enums,
    super::pool::EnumData
);
handle!(
    /// A value of an enum.
    EnumValueDescriptor,
    values,
    super::pool::EnumValueData
);
handle!(
    /// A service.
    ServiceDescriptor,
    services,
    super::pool::ServiceData
);
handle!(
    /// A method of a service.
    MethodDescriptor,
    methods,
    super::pool::MethodData
);

impl DescriptorPool {
    /// The files, each after its imports.
    pub fn files(&self) -> impl ExactSizeIterator<Item = FileDescriptor> + '_ {
        (0..self.inner.files.len() as u32).map(|i| FileDescriptor::at(self, i))
    }

    /// Every message type, nested ones and map entries included.
    pub fn all_messages(&self) -> impl ExactSizeIterator<Item = MessageDescriptor> + '_ {
        (0..self.inner.messages.len() as u32).map(|i| MessageDescriptor::at(self, i))
    }

    /// Every enum type.
    pub fn all_enums(&self) -> impl ExactSizeIterator<Item = EnumDescriptor> + '_ {
        (0..self.inner.enums.len() as u32).map(|i| EnumDescriptor::at(self, i))
    }

    /// Every extension.
    pub fn all_extensions(&self) -> impl Iterator<Item = FieldDescriptor> + '_ {
        (0..self.inner.fields.len() as u32)
            .filter(|&i| self.inner.fields[i as usize].is_extension)
            .map(|i| FieldDescriptor::at(self, i))
    }

    /// Every service.
    pub fn services(&self) -> impl ExactSizeIterator<Item = ServiceDescriptor> + '_ {
        (0..self.inner.services.len() as u32).map(|i| ServiceDescriptor::at(self, i))
    }

    /// The file of this name (as imports name it).
    pub fn get_file_by_name(&self, name: &str) -> Option<FileDescriptor> {
        let i = *self.inner.file_names.get(name)?;
        Some(FileDescriptor::at(self, i))
    }

    fn symbol(&self, full_name: &str) -> Option<Symbol> {
        self.inner
            .names
            .get(full_name.strip_prefix('.').unwrap_or(full_name))
            .copied()
    }

    /// The message of this full name (`pkg.Outer.Inner`; a leading dot is allowed).
    pub fn get_message_by_name(&self, full_name: &str) -> Option<MessageDescriptor> {
        self.message_index(full_name)
            .map(|i| MessageDescriptor::at(self, i))
    }

    /// The message at `index` of the pool's messages (see [`MessageDescriptor::index`]).
    pub(super) fn message_at(&self, index: u32) -> MessageDescriptor {
        MessageDescriptor::at(self, index)
    }

    /// The index of the message of this full name.
    pub(super) fn message_index(&self, full_name: &str) -> Option<u32> {
        match self.symbol(full_name)? {
            Symbol::Message(i) => Some(i),
            _ => None,
        }
    }

    /// The enum of this full name.
    pub fn get_enum_by_name(&self, full_name: &str) -> Option<EnumDescriptor> {
        match self.symbol(full_name)? {
            Symbol::Enum(i) => Some(EnumDescriptor::at(self, i)),
            _ => None,
        }
    }

    /// The extension of this full name.
    pub fn get_extension_by_name(&self, full_name: &str) -> Option<FieldDescriptor> {
        match self.symbol(full_name)? {
            Symbol::Field(i) if self.inner.fields[i as usize].is_extension => {
                Some(FieldDescriptor::at(self, i))
            }
            _ => None,
        }
    }

    /// The service of this full name.
    pub fn get_service_by_name(&self, full_name: &str) -> Option<ServiceDescriptor> {
        match self.symbol(full_name)? {
            Symbol::Service(i) => Some(ServiceDescriptor::at(self, i)),
            _ => None,
        }
    }

    /// The message of an `Any`'s type URL (`type.googleapis.com/pkg.Msg`: the part after the
    /// last `/`).
    pub fn get_message_by_type_url(&self, type_url: &str) -> Option<MessageDescriptor> {
        let (_, name) = type_url.rsplit_once('/')?;
        self.get_message_by_name(name)
    }
}

impl FileDescriptor {
    /// The file's name, as imports name it.
    pub fn name(&self) -> &str {
        &self.data().name
    }

    /// The same as [`name`](Self::name) (files have no scope).
    pub fn full_name(&self) -> &str {
        self.name()
    }

    /// Its package (empty for none).
    pub fn package_name(&self) -> &str {
        &self.data().package
    }

    /// proto2, proto3 or an edition.
    pub fn syntax(&self) -> Syntax {
        self.data().syntax
    }

    /// The files it imports.
    pub fn dependencies(&self) -> impl ExactSizeIterator<Item = FileDescriptor> + '_ {
        self.data()
            .dependencies
            .iter()
            .map(|&i| FileDescriptor::at(&self.pool, i))
    }

    /// The files it imports publicly.
    pub fn public_dependencies(&self) -> impl ExactSizeIterator<Item = FileDescriptor> + '_ {
        self.data()
            .public_dependencies
            .iter()
            .map(|&i| FileDescriptor::at(&self.pool, i))
    }

    /// Its top-level messages.
    pub fn messages(&self) -> impl ExactSizeIterator<Item = MessageDescriptor> + '_ {
        self.data()
            .messages
            .iter()
            .map(|&i| MessageDescriptor::at(&self.pool, i))
    }

    /// Its top-level enums.
    pub fn enums(&self) -> impl ExactSizeIterator<Item = EnumDescriptor> + '_ {
        self.data()
            .enums
            .iter()
            .map(|&i| EnumDescriptor::at(&self.pool, i))
    }

    /// Its top-level extensions.
    pub fn extensions(&self) -> impl ExactSizeIterator<Item = FieldDescriptor> + '_ {
        self.data()
            .extensions
            .iter()
            .map(|&i| FieldDescriptor::at(&self.pool, i))
    }

    /// Its services.
    pub fn services(&self) -> impl ExactSizeIterator<Item = ServiceDescriptor> + '_ {
        self.data()
            .services
            .iter()
            .map(|&i| ServiceDescriptor::at(&self.pool, i))
    }

    /// Its encoded `FileOptions` (empty when it has none).
    pub fn options(&self) -> &[u8] {
        &self.data().options
    }

    /// The encoded `FileDescriptorProto` it was added from.
    pub fn encoded(&self) -> &[u8] {
        &self.data().encoded
    }
}

/// A field's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `double`.
    Double,
    /// `float`.
    Float,
    /// `int64`.
    Int64,
    /// `uint64`.
    Uint64,
    /// `int32`.
    Int32,
    /// `fixed64`.
    Fixed64,
    /// `fixed32`.
    Fixed32,
    /// `bool`.
    Bool,
    /// `string`.
    String,
    /// `bytes`.
    Bytes,
    /// `uint32`.
    Uint32,
    /// `sfixed32`.
    Sfixed32,
    /// `sfixed64`.
    Sfixed64,
    /// `sint32`.
    Sint32,
    /// `sint64`.
    Sint64,
    /// A message (or a group: see [`FieldDescriptor::is_group`]).
    Message(MessageDescriptor),
    /// An enum.
    Enum(EnumDescriptor),
}

impl Kind {
    /// The wire type of one value of this kind (a group's is `StartGroup`; see
    /// [`FieldDescriptor::wire_type`]).
    pub fn wire_type(&self) -> WireType {
        match self {
            Kind::Double | Kind::Fixed64 | Kind::Sfixed64 => WireType::Fixed64,
            Kind::Float | Kind::Fixed32 | Kind::Sfixed32 => WireType::Fixed32,
            Kind::String | Kind::Bytes | Kind::Message(_) => WireType::LengthDelimited,
            _ => WireType::Varint,
        }
    }

    /// Whether values of this kind may be packed (numbers, bools and enums).
    pub fn is_packable(&self) -> bool {
        !matches!(self, Kind::String | Kind::Bytes | Kind::Message(_))
    }
}

/// [`FieldDescriptor::map_kinds`] of the pool's field at `index`, without a handle on it.
pub(super) fn map_kinds_at(pool: &DescriptorPool, index: u32) -> Option<(Kind, Kind)> {
    let KindData::Message(m) = pool.inner.fields[index as usize].kind else {
        return None;
    };
    let entry = &pool.inner.messages[m as usize];
    let find = |n: u32| {
        let at = entry.by_number.binary_search_by_key(&n, |&(k, _)| k).ok()?;
        Some(entry.by_number[at].1)
    };
    let (k, v) = (find(1)?, find(2)?);
    Some((kind_at(pool, k), kind_at(pool, v)))
}

/// The kind of field `index` of `pool` (the pool is cloned, an atomic count, only for the
/// kinds that hold it).
pub(super) fn kind_at(pool: &DescriptorPool, index: u32) -> Kind {
    match pool.inner.fields[index as usize].kind {
        KindData::Message(i) => Kind::Message(MessageDescriptor::at(pool, i)),
        KindData::Enum(i) => Kind::Enum(EnumDescriptor::at(pool, i)),
        KindData::Scalar(t) => match t {
            1 => Kind::Double,
            2 => Kind::Float,
            3 => Kind::Int64,
            4 => Kind::Uint64,
            5 => Kind::Int32,
            6 => Kind::Fixed64,
            7 => Kind::Fixed32,
            8 => Kind::Bool,
            9 => Kind::String,
            12 => Kind::Bytes,
            13 => Kind::Uint32,
            15 => Kind::Sfixed32,
            16 => Kind::Sfixed64,
            17 => Kind::Sint32,
            _ => Kind::Sint64,
        },
        // Every field of a pool is resolved when its file is added.
        KindData::Unresolved => unreachable!("unresolved field in a pool"),
    }
}

/// Whether a field holds one value (with or without presence), one that must be set, or a
/// list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cardinality {
    /// At most one value.
    Optional,
    /// Exactly one value (proto2 `required`, editions `LEGACY_REQUIRED`).
    Required,
    /// A list (a map too).
    Repeated,
}

impl MessageDescriptor {
    /// The message's name.
    pub fn name(&self) -> &str {
        &self.data().name
    }

    /// Its full name (`pkg.Outer.Inner`).
    pub fn full_name(&self) -> &str {
        &self.data().full_name
    }

    /// The package it is declared in.
    pub fn package_name(&self) -> &str {
        self.parent_file_data_package()
    }

    fn parent_file_data_package(&self) -> &str {
        &self.pool.inner.files[self.data().file as usize].package
    }

    /// The file it is declared in.
    pub fn parent_file(&self) -> FileDescriptor {
        FileDescriptor::at(&self.pool, self.data().file)
    }

    /// The message it is nested in, if any.
    pub fn parent_message(&self) -> Option<MessageDescriptor> {
        self.data()
            .parent
            .map(|i| MessageDescriptor::at(&self.pool, i))
    }

    /// Its fields, in declaration order (extensions are not fields).
    pub fn fields(&self) -> impl ExactSizeIterator<Item = FieldDescriptor> + '_ {
        self.data()
            .fields
            .iter()
            .map(|&i| FieldDescriptor::at(&self.pool, i))
    }

    /// The field of this number.
    pub fn get_field(&self, number: u32) -> Option<FieldDescriptor> {
        let by = &self.data().by_number;
        let at = by.binary_search_by_key(&number, |&(n, _)| n).ok()?;
        Some(FieldDescriptor::at(&self.pool, by[at].1))
    }

    /// Its fields' positions (see [`FieldDescriptor::position`]) in field-number order.
    pub(super) fn positions_by_number(&self) -> impl DoubleEndedIterator<Item = usize> + '_ {
        let fields = &self.pool.inner.fields;
        self.data()
            .by_number
            .iter()
            .map(move |&(_, i)| fields[i as usize].position as usize)
    }

    /// The field at a position (see [`FieldDescriptor::position`]).
    pub(super) fn field_at(&self, position: usize) -> FieldDescriptor {
        FieldDescriptor::at(&self.pool, self.data().fields[position])
    }

    /// What the binary decoder reads of its field numbered `number`, without a handle.
    pub(super) fn decode_field(&self, number: u32) -> Option<super::pool::DecodeField> {
        let table = &self.data().decode;
        // Fields numbered from 1 without gaps (most messages) are found at once.
        if let Some(d) = table.get((number as usize).wrapping_sub(1)) {
            if d.number == number {
                return Some(*d);
            }
        }
        let at = table.binary_search_by_key(&number, |d| d.number).ok()?;
        Some(table[at])
    }

    /// The number of its field at `position`, without a handle.
    #[cfg(feature = "text")]
    pub(super) fn number_at(&self, position: usize) -> u32 {
        self.pool.inner.fields[self.data().fields[position] as usize].number
    }

    /// Its fields' positions in the order ProtoJSON and the text format write them: by
    /// number, a oneof's members at the oneof's lowest number.
    #[cfg(any(feature = "json", feature = "text"))]
    pub(super) fn write_order(&self) -> &[u32] {
        &self.data().write_order
    }

    /// Which well-known type with a form of its own it is (see the pool's `special_form`).
    #[cfg(any(feature = "json", feature = "text"))]
    pub(super) fn special_form(&self) -> u8 {
        self.data().special
    }

    /// Whether a value of it can miss a required field, its own or one in a message it holds.
    pub(super) fn may_miss_required(&self) -> bool {
        self.data().may_miss_required
    }

    /// The JSON name a ProtoJSON reader may compare the next key with after the field at
    /// `index` of [`write_order`](Self::write_order) (that is, the next field's), if any.
    #[cfg(feature = "json")]
    pub(super) fn json_guess(&self, index: usize) -> Option<(usize, &str)> {
        self.data().json_guess_at(&self.pool.inner.fields, index)
    }

    /// The ProtoJSON keys of the field at `position`, quoted, with their colon: its JSON
    /// name's and its proto name's (what [`JsonWriter::key`](crate::json::JsonWriter::key)
    /// takes).
    #[cfg(feature = "json")]
    pub(super) fn quoted_keys(&self, position: usize) -> (&str, &str) {
        let (json, proto) = &self.data().quoted_keys[position];
        (json, proto)
    }

    /// The index in [`write_order`](Self::write_order) of the field at `position`.
    #[cfg(feature = "json")]
    pub(super) fn order_index(&self, position: usize) -> usize {
        self.data().order_index[position] as usize
    }

    /// The position of the field a ProtoJSON key names (its JSON name or its proto name).
    #[cfg(feature = "json")]
    pub(super) fn json_key(&self, key: &str) -> Option<usize> {
        self.data().json_key(key)
    }

    /// The position of the field a text-format name names (its proto name, or a group-like
    /// field's type name).
    #[cfg(feature = "text")]
    pub(super) fn text_key(&self, name: &str) -> Option<usize> {
        let keys = &self.data().text_keys;
        let at = keys.binary_search_by(|(k, _)| k.as_str().cmp(name)).ok()?;
        Some(keys[at].1 as usize)
    }

    /// The field of this name.
    pub fn get_field_by_name(&self, name: &str) -> Option<FieldDescriptor> {
        self.fields().find(|f| f.name() == name)
    }

    /// The field of this JSON name.
    pub fn get_field_by_json_name(&self, json_name: &str) -> Option<FieldDescriptor> {
        self.fields().find(|f| f.json_name() == json_name)
    }

    /// Its oneofs, synthetic ones included.
    pub fn oneofs(&self) -> impl ExactSizeIterator<Item = OneofDescriptor> + '_ {
        self.data()
            .oneofs
            .iter()
            .map(|&i| OneofDescriptor::at(&self.pool, i))
    }

    /// The messages nested in it (map entries included).
    pub fn child_messages(&self) -> impl ExactSizeIterator<Item = MessageDescriptor> + '_ {
        self.data()
            .messages
            .iter()
            .map(|&i| MessageDescriptor::at(&self.pool, i))
    }

    /// The enums nested in it.
    pub fn child_enums(&self) -> impl ExactSizeIterator<Item = EnumDescriptor> + '_ {
        self.data()
            .enums
            .iter()
            .map(|&i| EnumDescriptor::at(&self.pool, i))
    }

    /// The extensions declared inside it (of any message).
    pub fn child_extensions(&self) -> impl ExactSizeIterator<Item = FieldDescriptor> + '_ {
        self.data()
            .scoped_extensions
            .iter()
            .map(|&i| FieldDescriptor::at(&self.pool, i))
    }

    /// The extensions of this message in the pool, wherever declared.
    pub fn extensions(&self) -> impl ExactSizeIterator<Item = FieldDescriptor> + '_ {
        self.data()
            .extensions
            .iter()
            .map(|&i| FieldDescriptor::at(&self.pool, i))
    }

    /// The extension of this message with this number, if the pool has one.
    pub fn get_extension(&self, number: u32) -> Option<FieldDescriptor> {
        self.extensions().find(|x| x.number() == number)
    }

    /// Its extension ranges, `start..end` (end excluded).
    pub fn extension_ranges(&self) -> impl ExactSizeIterator<Item = core::ops::Range<i32>> + '_ {
        self.data().extension_ranges.iter().map(|&(a, b)| a..b)
    }

    /// Its reserved number ranges, `start..end` (end excluded).
    pub fn reserved_ranges(&self) -> impl ExactSizeIterator<Item = core::ops::Range<i32>> + '_ {
        self.data().reserved_ranges.iter().map(|&(a, b)| a..b)
    }

    /// Its reserved field names.
    pub fn reserved_names(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.data().reserved_names.iter().map(String::as_str)
    }

    /// Whether it is a map's entry type (`map_entry` option).
    pub fn is_map_entry(&self) -> bool {
        self.data().map_entry
    }

    /// A map entry's key field (number 1).
    pub fn map_entry_key_field(&self) -> Option<FieldDescriptor> {
        self.is_map_entry().then(|| self.get_field(1)).flatten()
    }

    /// A map entry's value field (number 2).
    pub fn map_entry_value_field(&self) -> Option<FieldDescriptor> {
        self.is_map_entry().then(|| self.get_field(2)).flatten()
    }

    /// Whether it uses the MessageSet wire format.
    pub fn is_message_set(&self) -> bool {
        self.data().message_set
    }

    /// Its encoded `MessageOptions` (empty when it has none).
    pub fn options(&self) -> &[u8] {
        &self.data().options
    }

    /// The type URL of an `Any` holding it (`type.googleapis.com/<full name>`).
    pub fn type_url(&self) -> String {
        format!("type.googleapis.com/{}", self.full_name())
    }
}

impl FieldDescriptor {
    /// The field's name.
    pub fn name(&self) -> &str {
        &self.data().name
    }

    /// Its full name (`pkg.Msg.field`; an extension's is in its scope: `pkg.ext`).
    pub fn full_name(&self) -> &str {
        &self.data().full_name
    }

    /// Its JSON name (`json_name`, or protoc's lowerCamelCase of the name).
    pub fn json_name(&self) -> &str {
        &self.data().json_name
    }

    /// Its number.
    pub fn number(&self) -> u32 {
        self.data().number
    }

    /// Its type.
    pub fn kind(&self) -> Kind {
        kind_at(&self.pool, self.index)
    }

    /// A map field's key and value kinds, without a handle on the entry's fields.
    pub(super) fn map_kinds(&self) -> Option<(Kind, Kind)> {
        map_kinds_at(&self.pool, self.index)
    }

    /// Optional, required or repeated, with editions' features applied.
    pub fn cardinality(&self) -> Cardinality {
        let d = self.data();
        match d.label {
            3 => Cardinality::Repeated,
            2 => Cardinality::Required,
            _ if d.features.field_presence == 3 => Cardinality::Required,
            _ => Cardinality::Optional,
        }
    }

    fn is_message_kind(&self) -> bool {
        matches!(self.data().kind, KindData::Message(_))
    }

    /// Whether it is a list (a repeated field that is not a map).
    pub fn is_list(&self) -> bool {
        self.cardinality() == Cardinality::Repeated && !self.is_map()
    }

    /// Whether it is a map (a repeated field of a map entry type).
    pub fn is_map(&self) -> bool {
        let d = self.data();
        d.label == 3
            && matches!(d.kind, KindData::Message(m) if self.pool.inner.messages[m as usize].map_entry)
    }

    /// Whether it is required.
    pub fn is_required(&self) -> bool {
        self.cardinality() == Cardinality::Required
    }

    /// Whether it tells "set to its default" from "not set" (explicit presence: messages,
    /// oneof members, proto2 and proto3 `optional` fields, editions' `EXPLICIT`).
    pub fn has_presence(&self) -> bool {
        super::pool::has_presence(self.data())
    }

    /// Whether a repeated field of numbers, bools or enums is written packed.
    pub fn is_packed(&self) -> bool {
        let d = self.data();
        if d.label != 3 || !self.kind().is_packable() {
            return false;
        }
        let option = raw::option_varint(&d.options, 2);
        match d.features.syntax {
            Syntax::Proto2 => option == Some(1),
            Syntax::Proto3 => option != Some(0),
            _ => d.features.repeated_field_encoding == 1,
        }
    }

    /// Whether a message field is written as a group (proto2 `group`, editions' `DELIMITED`;
    /// never a map nor a map entry's value).
    pub fn is_group(&self) -> bool {
        let d = self.data();
        match d.features.syntax {
            Syntax::Proto2 | Syntax::Proto3 => d.raw_type == TYPE_GROUP,
            // A map and a map entry's value are length-prefixed whatever the features say.
            _ => {
                let in_entry = d
                    .message
                    .is_some_and(|m| self.pool.inner.messages[m as usize].map_entry);
                self.is_message_kind()
                    && d.features.message_encoding == 2
                    && !self.is_map()
                    && !in_entry
            }
        }
    }

    /// The wire type of one of its values.
    pub fn wire_type(&self) -> WireType {
        match self.data().kind {
            KindData::Message(_) if self.is_group() => WireType::StartGroup,
            KindData::Message(_) | KindData::Scalar(9 | 12) => WireType::LengthDelimited,
            KindData::Scalar(1 | 6 | 16) => WireType::Fixed64,
            KindData::Scalar(2 | 7 | 15) => WireType::Fixed32,
            _ => WireType::Varint,
        }
    }

    /// Whether it is a field (not an extension) of message `index` of the same pool, without
    /// a handle's count.
    pub(super) fn is_field_of(&self, message: &MessageDescriptor) -> bool {
        !self.data().is_extension
            && self.data().message == Some(message.index)
            && self.pool == message.pool
    }

    /// Its oneof's index, without a handle.
    pub(super) fn oneof_index(&self) -> Option<u32> {
        self.data().oneof
    }

    /// Whether a `string` field's values must be valid UTF-8 (proto3, editions' `VERIFY`).
    pub fn validates_utf8(&self) -> bool {
        matches!(self.data().kind, KindData::Scalar(9)) && self.data().features.utf8_validation == 2
    }

    /// The message that holds it; for an extension, the message it extends.
    pub fn containing_message(&self) -> MessageDescriptor {
        MessageDescriptor {
            pool: self.pool.clone(),
            // Set for every field, and for every extension once resolved.
            index: self.data().message.unwrap_or_default(),
        }
    }

    /// The oneof it belongs to (a synthetic one for a proto3 `optional`).
    pub fn containing_oneof(&self) -> Option<OneofDescriptor> {
        self.data()
            .oneof
            .map(|i| OneofDescriptor::at(&self.pool, i))
    }

    /// Its position among its message's fields, in declaration order (0 for an extension).
    pub fn position(&self) -> usize {
        self.data().position as usize
    }

    /// Its name in the text format: a group-like field's type name (a group, or a delimited
    /// field, whose type is declared beside it and named as the field but for case), else its
    /// proto name.
    #[cfg(feature = "text")]
    pub(super) fn text_name(&self) -> &str {
        let d = self.data();
        if let (Kind::Message(t), Some(m), false) = (self.kind(), d.message, d.is_extension) {
            let delimited = match d.features.syntax {
                Syntax::Proto2 | Syntax::Proto3 => d.raw_type == TYPE_GROUP,
                _ => d.features.message_encoding == 2,
            };
            let td = &self.pool.inner.messages[t.index()];
            if delimited && td.parent == Some(m) && td.name.to_ascii_lowercase() == d.name {
                return &td.name;
            }
        }
        &d.name
    }

    /// Whether it is an extension.
    pub fn is_extension(&self) -> bool {
        self.data().is_extension
    }

    /// Where an extension is declared: the message it is nested in (none at file level).
    pub fn extension_scope(&self) -> Option<MessageDescriptor> {
        self.data()
            .scope
            .map(|i| MessageDescriptor::at(&self.pool, i))
    }

    /// The file it is declared in.
    pub fn parent_file(&self) -> FileDescriptor {
        FileDescriptor::at(&self.pool, self.data().file)
    }

    /// Its declared default (`[default = ..]`), as `descriptor.proto` spells it: a number, a
    /// string (C-escaped for `bytes`), an enum value's name.
    pub fn default_value_text(&self) -> Option<&str> {
        self.data().default.as_deref()
    }

    /// Whether it is a proto3 `optional` field.
    pub fn is_proto3_optional(&self) -> bool {
        self.data().proto3_optional
    }

    /// Its encoded `FieldOptions` (empty when it has none).
    pub fn options(&self) -> &[u8] {
        &self.data().options
    }
}

impl OneofDescriptor {
    /// The oneof's name.
    pub fn name(&self) -> &str {
        &self.data().name
    }

    /// Its full name (`pkg.Msg.oneof`).
    pub fn full_name(&self) -> &str {
        &self.data().full_name
    }

    /// Its fields.
    pub fn fields(&self) -> impl ExactSizeIterator<Item = FieldDescriptor> + '_ {
        self.data()
            .fields
            .iter()
            .map(|&i| FieldDescriptor::at(&self.pool, i))
    }

    /// Whether it is the synthetic oneof of a proto3 `optional` field.
    pub fn is_synthetic(&self) -> bool {
        let fields = &self.data().fields;
        fields.len() == 1 && self.pool.inner.fields[fields[0] as usize].proto3_optional
    }

    /// The message it belongs to.
    pub fn parent_message(&self) -> MessageDescriptor {
        MessageDescriptor::at(&self.pool, self.data().message)
    }

    /// Its encoded `OneofOptions` (empty when it has none).
    pub fn options(&self) -> &[u8] {
        &self.data().options
    }
}

impl EnumDescriptor {
    /// The enum's name.
    pub fn name(&self) -> &str {
        &self.data().name
    }

    /// Its full name.
    pub fn full_name(&self) -> &str {
        &self.data().full_name
    }

    /// The file it is declared in.
    pub fn parent_file(&self) -> FileDescriptor {
        FileDescriptor::at(&self.pool, self.data().file)
    }

    /// The message it is nested in, if any.
    pub fn parent_message(&self) -> Option<MessageDescriptor> {
        self.data()
            .parent
            .map(|i| MessageDescriptor::at(&self.pool, i))
    }

    /// Its values, in declaration order (aliases included).
    pub fn values(&self) -> impl ExactSizeIterator<Item = EnumValueDescriptor> + '_ {
        self.data()
            .values
            .iter()
            .map(|&i| EnumValueDescriptor::at(&self.pool, i))
    }

    /// The first value declared with this number.
    pub fn get_value(&self, number: i32) -> Option<EnumValueDescriptor> {
        let values = &self.pool.inner.values;
        let at = self
            .data()
            .values
            .iter()
            .find(|&&i| values[i as usize].number == number)?;
        Some(EnumValueDescriptor::at(&self.pool, *at))
    }

    /// The name of its value numbered `number` (the first declared, where several share it),
    /// without a handle.
    #[cfg(feature = "json")]
    pub(super) fn value_name(pool: &DescriptorPool, index: u32, number: i32) -> Option<&str> {
        let values = &pool.inner.values;
        pool.inner.enums[index as usize]
            .values
            .iter()
            .map(|&i| &values[i as usize])
            .find(|v| v.number == number)
            .map(|v| v.name.as_str())
    }

    /// The value of this name.
    pub fn get_value_by_name(&self, name: &str) -> Option<EnumValueDescriptor> {
        let values = &self.pool.inner.values;
        let at = self
            .data()
            .values
            .iter()
            .find(|&&i| values[i as usize].name == name)?;
        Some(EnumValueDescriptor::at(&self.pool, *at))
    }

    /// Its default: the first value declared.
    pub fn default_value(&self) -> EnumValueDescriptor {
        EnumValueDescriptor::at(&self.pool, self.data().values[0])
    }

    /// Whether it is closed (proto2, editions' `CLOSED`): a number it does not declare is
    /// kept as an unknown field, not as the field's value.
    pub fn is_closed(&self) -> bool {
        self.data().features.enum_type == 2
    }

    /// Its reserved number ranges, `start..=end` (end included, as enums declare them).
    pub fn reserved_ranges(
        &self,
    ) -> impl ExactSizeIterator<Item = core::ops::RangeInclusive<i32>> + '_ {
        self.data().reserved_ranges.iter().map(|&(a, b)| a..=b)
    }

    /// Its reserved value names.
    pub fn reserved_names(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.data().reserved_names.iter().map(String::as_str)
    }

    /// Its encoded `EnumOptions` (empty when it has none).
    pub fn options(&self) -> &[u8] {
        &self.data().options
    }
}

impl EnumValueDescriptor {
    /// The value's name.
    pub fn name(&self) -> &str {
        &self.data().name
    }

    /// Its full name: a sibling of its enum's (`pkg.VALUE`), as protobuf scopes them.
    pub fn full_name(&self) -> &str {
        &self.data().full_name
    }

    /// Its number.
    pub fn number(&self) -> i32 {
        self.data().number
    }

    /// The enum it belongs to.
    pub fn parent_enum(&self) -> EnumDescriptor {
        EnumDescriptor::at(&self.pool, self.data().enumeration)
    }

    /// Its encoded `EnumValueOptions` (empty when it has none).
    pub fn options(&self) -> &[u8] {
        &self.data().options
    }
}

impl ServiceDescriptor {
    /// The service's name.
    pub fn name(&self) -> &str {
        &self.data().name
    }

    /// Its full name.
    pub fn full_name(&self) -> &str {
        &self.data().full_name
    }

    /// The file it is declared in.
    pub fn parent_file(&self) -> FileDescriptor {
        FileDescriptor::at(&self.pool, self.data().file)
    }

    /// Its methods.
    pub fn methods(&self) -> impl ExactSizeIterator<Item = MethodDescriptor> + '_ {
        self.data()
            .methods
            .iter()
            .map(|&i| MethodDescriptor::at(&self.pool, i))
    }

    /// Its encoded `ServiceOptions` (empty when it has none).
    pub fn options(&self) -> &[u8] {
        &self.data().options
    }
}

/// Whether a method has side effects (`MethodOptions.idempotency_level`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdempotencyLevel {
    /// Not said.
    Unknown,
    /// No side effects: safe to retry, and Connect may call it with GET.
    NoSideEffects,
    /// Idempotent, with side effects.
    Idempotent,
}

impl MethodDescriptor {
    /// The method's name.
    pub fn name(&self) -> &str {
        &self.data().name
    }

    /// Its full name (`pkg.Service.Method`).
    pub fn full_name(&self) -> &str {
        &self.data().full_name
    }

    /// The service it belongs to.
    pub fn parent_service(&self) -> ServiceDescriptor {
        ServiceDescriptor::at(&self.pool, self.data().service)
    }

    /// Its request message.
    pub fn input(&self) -> MessageDescriptor {
        MessageDescriptor::at(&self.pool, self.data().input)
    }

    /// Its response message.
    pub fn output(&self) -> MessageDescriptor {
        MessageDescriptor::at(&self.pool, self.data().output)
    }

    /// Whether the client streams requests.
    pub fn is_client_streaming(&self) -> bool {
        self.data().client_streaming
    }

    /// Whether the server streams responses.
    pub fn is_server_streaming(&self) -> bool {
        self.data().server_streaming
    }

    /// Its `idempotency_level` option.
    pub fn idempotency_level(&self) -> IdempotencyLevel {
        match raw::option_varint(&self.data().options, 34) {
            Some(1) => IdempotencyLevel::NoSideEffects,
            Some(2) => IdempotencyLevel::Idempotent,
            _ => IdempotencyLevel::Unknown,
        }
    }

    /// Its encoded `MethodOptions` (empty when it has none).
    pub fn options(&self) -> &[u8] {
        &self.data().options
    }
}
