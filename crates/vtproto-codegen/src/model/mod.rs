//! The typed model features read: packages, messages, fields, oneofs, maps and enums, resolved
//! from descriptors once, with every protobuf question (presence, packing, closedness, map
//! shape, recursion, Rust names) already answered. Emitters never look at descriptors; this
//! module never produces tokens beyond the identifiers it names.
//!
//! - `build.rs` walks the descriptors of the files to generate ([`build()`]);
//! - [`features`] resolves the rules of a file's syntax or edition into per-element features;
//! - `index.rs` knows every type of the request, imports included.

mod build;
pub mod features;
mod index;
#[cfg(test)]
mod tests;
mod validate;

use std::fmt;

use proc_macro2::{Ident, TokenStream};
use quote::{quote, ToTokens};

pub use build::{build, build_with};
pub use features::Features;

use crate::ident::ident;

/// A Rust identifier (`r#type` for a keyword), kept as text so that the model can be shared
/// between the threads generating packages; written as an identifier token.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RustIdent(String);

impl RustIdent {
    /// The identifier `name` (`r#`-prefixed when raw).
    pub fn new(name: impl Into<String>) -> Self {
        RustIdent(name.into())
    }

    /// The identifier as tokens.
    pub fn ident(&self) -> Ident {
        ident(&self.0)
    }
}

impl ToTokens for RustIdent {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        self.ident().to_tokens(tokens);
    }
}

impl fmt::Display for RustIdent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<&str> for RustIdent {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

/// A Rust path as identifier segments (`["outer", "Inner"]`, raw identifiers as `r#type`),
/// kept structured until emission.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RustPath {
    /// The segments, outermost first.
    pub segments: Vec<String>,
}

impl RustPath {
    /// A path of the given segments.
    pub fn new(segments: Vec<String>) -> Self {
        RustPath { segments }
    }

    /// This path followed by `segment`.
    pub fn join(&self, segment: impl Into<String>) -> RustPath {
        let mut segments = self.segments.clone();
        segments.push(segment.into());
        RustPath { segments }
    }

    /// The last segment (the item's own name).
    pub fn name(&self) -> &str {
        self.segments.last().map_or("", String::as_str)
    }

    /// The path as tokens, `a::b::C`.
    pub fn tokens(&self) -> TokenStream {
        let idents: Vec<Ident> = self.segments.iter().map(|s| ident(s)).collect();
        quote!(#(#idents)::*)
    }
}

impl fmt::Display for RustPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.segments.join("::"))
    }
}

/// A reference to a message or enum type, wherever it is declared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeRef {
    /// Full proto name without the leading dot (`google.protobuf.Timestamp`).
    pub full_name: String,
    /// The proto package that declares it.
    pub package: String,
    /// Rust path relative to that package's module (`outer::Inner`).
    pub rust_path: RustPath,
}

/// A scalar protobuf type. An enum value is stored as its `int32` number, as prost stores it:
/// [`Scalar::Enum`] is that storage, [`ValueType::Enum`] names the type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Scalar {
    Double,
    Float,
    Int64,
    Uint64,
    Int32,
    Fixed64,
    Fixed32,
    Bool,
    String,
    Bytes,
    Uint32,
    Sfixed32,
    Sfixed64,
    Sint32,
    Sint64,
    Enum,
}

impl Scalar {
    /// Whether the type may be packed in a repeated field.
    pub fn packable(self) -> bool {
        !matches!(self, Scalar::String | Scalar::Bytes)
    }

    /// Whether the type may be a map key.
    pub fn is_map_key(self) -> bool {
        !matches!(
            self,
            Scalar::Double | Scalar::Float | Scalar::Bytes | Scalar::Enum
        )
    }
}

/// An enum field's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnumRef {
    /// The enum.
    pub ty: TypeRef,
    /// Closed (proto2, editions `enum_type = CLOSED`): a number not declared is an unknown
    /// field on decode. Open enums keep any number.
    pub closed: bool,
    /// Its default: the first declared number.
    pub default: i32,
    /// The numbers it declares, each with its Rust variant (an alias names its first value's
    /// variant): what a closed enum accepts.
    pub values: Vec<(i32, String)>,
}

/// The type of one value of a field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueType {
    /// A number, bool, string or bytes.
    Scalar(Scalar),
    /// An enum, stored as [`Scalar::Enum`].
    Enum(EnumRef),
    /// A length-prefixed embedded message.
    Message(TypeRef),
    /// A group, or a message with editions' `message_encoding = DELIMITED`: an embedded
    /// message between start and end keys.
    Group(TypeRef),
}

impl ValueType {
    /// The scalar a value is stored and encoded as; `None` for messages and groups.
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            ValueType::Scalar(s) => Some(*s),
            ValueType::Enum(_) => Some(Scalar::Enum),
            ValueType::Message(_) | ValueType::Group(_) => None,
        }
    }

    /// The message type of a message or group value.
    pub fn message(&self) -> Option<&TypeRef> {
        match self {
            ValueType::Message(t) | ValueType::Group(t) => Some(t),
            _ => None,
        }
    }
}

/// How `bytes` values are stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BytesRepr {
    /// `Vec<u8>`.
    #[default]
    Vec,
    /// `bytes::Bytes`.
    Bytes,
}

/// Field cardinality and resolved presence, as the generated struct stores it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Label {
    /// Implicit presence (proto3 singular scalars, editions `IMPLICIT`): plain `T`, not
    /// written when it equals the default.
    Implicit,
    /// Explicit presence: `Option<T>` (messages, oneof members, proto2 optional, proto3
    /// `optional`, editions `EXPLICIT`).
    Optional,
    /// proto2 `required` (editions `LEGACY_REQUIRED`): plain `T` (messages too), always written.
    Required,
    /// `Vec<T>`, written packed or expanded; both accepted on decode.
    Repeated {
        /// Whether the encoder packs it.
        packed: bool,
    },
    /// `HashMap<K, V>` or `BTreeMap<K, V>`.
    Map(Box<MapField>),
}

/// The key and value of a map field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapField {
    /// Key type (an integral, bool or string scalar).
    pub key: Scalar,
    /// Value type.
    pub value: ValueType,
    /// How a `bytes` value is stored.
    pub value_bytes: BytesRepr,
    /// Whether the map is a `BTreeMap` (iterated in key order, so written in reverse).
    pub btree: bool,
    /// Entries are written with their key and value even when those are defaults, as the C++
    /// and upb runtimes write them (`mode=standalone`); prost omits defaults (`mode=prost`).
    pub full_entries: bool,
    /// Without full entries: the value is a message whose default encodes to some bytes (it
    /// declares required fields, always written), so telling a default value, which prost
    /// omits, takes a comparison with `Default::default()` (prost's own test).
    pub default_value_encodes: bool,
    /// The entry's key and value have explicit presence (proto2, editions' default), so the
    /// text format refuses either twice in one entry; in proto3 only past its default.
    pub entry_presence: bool,
}

/// A field of a message (or one member of a oneof).
#[derive(Clone, Debug)]
pub struct Field {
    /// The proto field name.
    pub name: String,
    /// The JSON name (`json_name`, or the proto name in lowerCamelCase).
    pub json_name: String,
    /// Field number.
    pub number: u32,
    /// Rust field (or, in a oneof, variant) identifier.
    pub ident: RustIdent,
    /// Type of each value.
    pub value: ValueType,
    /// Cardinality and presence.
    pub label: Label,
    /// How a `bytes` value is stored.
    pub bytes: BytesRepr,
    /// Whether a `string` value must be valid UTF-8 (editions `utf8_validation = VERIFY`; prost
    /// checks every string, proto2 included).
    pub utf8_validation: bool,
    /// proto2's `[default = ..]`, parsed; for a `required` enum without one, its first value
    /// (as prost's `Default` sets it). `None` for the type's zero.
    pub default: Option<DefaultValue>,
    /// `mode=standalone`: a required field (stored with presence), which a decoded message
    /// must have.
    pub required: bool,
    /// `mode=standalone`: a message value that can miss a required field, checked after
    /// decoding.
    pub check_nested: bool,
    /// An implicit-presence `float` or `double` is written unless its bits are all zero, so
    /// `-0.0` is written, as C++ and upb do (`mode=standalone`); prost compares with `0.0`.
    pub zero_by_bits: bool,
    /// Marked `[deprecated = true]` (prost then marks the Rust field `#[deprecated]`).
    pub deprecated: bool,
    /// prost-build stores the message as `Box<T>`: a singular (or oneof) message field whose
    /// type leads back to this message through singular message fields.
    pub boxed: bool,
    /// A message (or map value message) type that contains this field's message, directly or
    /// through others: its `size` and `encode_reverse` are called through an out-of-line
    /// trampoline, so the containing message's own methods are not recursive and inline.
    pub recursive: bool,
    /// The field of a view (set by the views feature): a message value is a view, whose
    /// `size` and `encode_reverse` are `vtproto::MessageView`'s, not `vtproto::Message`'s.
    pub in_view: bool,
}

/// A field's declared default value.
#[derive(Clone, Debug, PartialEq)]
pub enum DefaultValue {
    /// A signed integer or enum number.
    Int(i64),
    /// An unsigned integer.
    Uint(u64),
    /// A `float` or `double` (`inf`, `-inf` and `nan` included).
    Float(f64),
    /// A `bool`.
    Bool(bool),
    /// A `string`.
    String(String),
    /// A `bytes` value, unescaped.
    Bytes(Vec<u8>),
}

/// A (non-synthetic) oneof.
#[derive(Clone, Debug)]
pub struct Oneof {
    /// The proto oneof name.
    pub name: String,
    /// Rust field identifier in the message struct.
    pub ident: RustIdent,
    /// Path of the oneof enum, relative to the package module.
    pub enum_path: RustPath,
    /// Members; their `ident` is the enum variant.
    pub fields: Vec<Field>,
}

/// One encoded unit of a message, in field-number order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Member {
    /// Index into [`Message::fields`].
    Field(usize),
    /// Index into [`Message::oneofs`].
    Oneof(usize),
}

/// A [`Member`] resolved: the field or the oneof itself.
#[derive(Clone, Copy, Debug)]
pub enum MemberRef<'a> {
    /// A field outside oneofs.
    Field(&'a Field),
    /// A oneof (written as a unit, at its smallest field number).
    Oneof(&'a Oneof),
}

/// A message to generate code for.
#[derive(Clone, Debug)]
pub struct Message {
    /// Full proto name without the leading dot.
    pub full_name: String,
    /// Rust path of the struct relative to its package module.
    pub rust_path: RustPath,
    /// Fields outside oneofs.
    pub fields: Vec<Field>,
    /// Oneofs.
    pub oneofs: Vec<Oneof>,
    /// Fields and oneofs ordered by (smallest) field number: the order prost writes them in
    /// (see [`Message::members`]).
    pub order: Vec<Member>,
    /// No repeated or map field at any depth: a `size` walk is as cheap as a thread-local
    /// scratch buffer, so encoding sizes exactly, unless a recursive field is set (the walk
    /// then goes as deep as the value).
    pub size_walk_is_cheap: bool,
    /// The struct field keeping unknown fields (`mode=standalone`); `None` when they are
    /// skipped (prost's structs have nowhere to keep them).
    pub unknown_fields: Option<RustIdent>,
    /// Declares extension ranges: its extensions live among its unknown fields.
    pub extendable: bool,
    /// Uses the MessageSet wire format (`message_set_wire_format`).
    pub message_set: bool,
    /// The extensions of this message declared in the generated files, by number
    /// (`mode=standalone`): decoded into their declared types as they arrive.
    pub extensions: Vec<ExtensionRef>,
    /// Field names the message reserves (`reserved "name";`): the text format skips them.
    pub reserved_names: Vec<String>,
}

/// An extension of a message, as the message's decoder names it.
#[derive(Clone, Debug)]
pub struct ExtensionRef {
    /// Its number (a MessageSet extension's type id).
    pub number: u32,
    /// Its full proto name without the leading dot.
    pub full_name: String,
    /// Its constant: the declaring package and the constant's path in it.
    pub constant: TypeRef,
    /// Its number, type and cardinality (`Label::Optional` or `Label::Repeated`).
    pub field: Field,
}

/// An extension (`extend Foo { .. }`) declared in a generated file.
#[derive(Clone, Debug)]
pub struct Extension {
    /// Full proto name without the leading dot.
    pub full_name: String,
    /// The Rust constant's path relative to the package module (`outer::MY_EXT`).
    pub rust_path: RustPath,
    /// The message it extends.
    pub extendee: TypeRef,
    /// Its number, type and cardinality (`Label::Optional` or `Label::Repeated`).
    pub field: Field,
}

impl Message {
    /// The name a decoding error gives a MessageSet's items (field 1) where they are read
    /// into declared extensions.
    pub fn message_set_items_named(&self) -> Option<&'static str> {
        (self.message_set && !self.extensions.is_empty()).then_some("message_set_item")
    }

    /// Fields and oneofs in the order prost writes them in (field number).
    pub fn members(&self) -> impl DoubleEndedIterator<Item = MemberRef<'_>> {
        self.order.iter().map(|m| match *m {
            Member::Field(i) => MemberRef::Field(&self.fields[i]),
            Member::Oneof(i) => MemberRef::Oneof(&self.oneofs[i]),
        })
    }

    /// Every field, oneof members included, with the oneof each belongs to: fields outside
    /// oneofs first, in declaration order, then each oneof's members.
    pub fn all_fields(&self) -> impl Iterator<Item = (Option<&Oneof>, &Field)> {
        let plain = self.fields.iter().map(|f| (None, f));
        let members = self
            .oneofs
            .iter()
            .flat_map(|o| o.fields.iter().map(move |f| (Some(o), f)));
        plain.chain(members)
    }
}

/// A value of an enum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnumValue {
    /// The proto value name.
    pub name: String,
    /// Its number.
    pub number: i32,
    /// The Rust variant as prost-build names it (the enum's name stripped as a prefix).
    pub variant: String,
}

/// An enum declared in a generated file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Enum {
    /// Full proto name without the leading dot.
    pub full_name: String,
    /// Rust path of the enum relative to its package module.
    pub rust_path: RustPath,
    /// Closed (see [`EnumRef::closed`]).
    pub closed: bool,
    /// Values in declaration order, aliases included.
    pub values: Vec<EnumValue>,
}

/// All messages and enums of one proto package.
#[derive(Clone, Debug, Default)]
pub struct Package {
    /// Proto package name ("" for none).
    pub name: String,
    /// The package's Rust module, relative to the crate's root of generated modules.
    pub module: RustPath,
    /// Messages in declaration order (nested ones after their parent).
    pub messages: Vec<Message>,
    /// Enums in declaration order (nested ones after their parent's).
    pub enums: Vec<Enum>,
    /// Extensions in declaration order.
    pub extensions: Vec<Extension>,
    /// Services in declaration order.
    pub services: Vec<Service>,
    /// The package's files and everything they import, imports first, as an encoded
    /// `FileDescriptorSet` (the `descriptors` feature; empty without it).
    pub descriptor_set: Vec<u8>,
}

/// A service (`service Foo { rpc .. }`) declared in a generated file.
#[derive(Clone, Debug)]
pub struct Service {
    /// The proto name (`Greeter`).
    pub name: String,
    /// Its Rust name, UpperCamelCase, as tonic names its modules and traits from.
    pub rust_name: String,
    /// Its leading comment's lines.
    pub comments: Vec<String>,
    /// Its methods in declaration order.
    pub methods: Vec<Method>,
}

/// A method (`rpc Foo(Req) returns (stream Resp)`).
#[derive(Clone, Debug)]
pub struct Method {
    /// The proto name (`SayHello`), which the method's path uses.
    pub name: String,
    /// Its Rust name, snake_case (a keyword raw; `_rpc` appended to a name tonic's clients
    /// declare themselves, such as `connect`).
    pub rust_name: String,
    /// The request's message type.
    pub input: TypeRef,
    /// The response's message type.
    pub output: TypeRef,
    /// The client sends a stream.
    pub client_streaming: bool,
    /// The server sends a stream.
    pub server_streaming: bool,
    /// `option deprecated = true`.
    pub deprecated: bool,
    /// Its leading comment's lines.
    pub comments: Vec<String>,
    /// The server handler takes the request as an owned view (`server_views`).
    pub server_view: bool,
    /// `idempotency_level = NO_SIDE_EFFECTS`: Connect clients may call it with GET.
    pub no_side_effects: bool,
}
