//! Reflection (feature `reflect`, `alloc` only): descriptors known at run time.
//!
//! A [`DescriptorPool`] holds `.proto` files added from their encoded descriptors (the
//! `descriptors` feature's `FILE_DESCRIPTOR_SET`, `protoc --include_imports -o`, or
//! `vtproto_build::Config::load_fds_bytes`), checks them (imports present, names defined once,
//! field numbers unique, every type reference resolved) and resolves what protobuf decides
//! from syntax, editions features and options once, when a file is added: presence,
//! packing, enum closedness, UTF-8 checks, group encoding, JSON names, map entries. Its
//! descriptors are cheap handles into it, answering without a lookup:
//!
//! ```
//! # fn main() -> Result<(), vtproto::reflect::DescriptorError> {
//! # let set: &[u8] = &[];
//! let pool = vtproto::reflect::DescriptorPool::decode(set)?;
//! for message in pool.all_messages() {
//!     for field in message.fields() {
//!         let _ = (field.full_name(), field.number(), field.kind(), field.has_presence());
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! Options stay encoded (`options()` on every descriptor), custom options included, for a
//! tool to read with the options' own types.

mod descriptors;
mod dynamic;
mod error;
mod features;
mod generated;
#[cfg(feature = "json")]
mod json;
mod pool;
mod raw;
#[cfg(feature = "text")]
mod text;

pub use descriptors::{
    Cardinality, EnumDescriptor, EnumValueDescriptor, FieldDescriptor, FileDescriptor,
    IdempotencyLevel, Kind, MessageDescriptor, MethodDescriptor, OneofDescriptor,
    ServiceDescriptor,
};
pub use dynamic::{DynamicMessage, MapKey, Value};
pub use error::{DescriptorError, DescriptorErrorKind};
pub use features::Syntax;
pub use generated::{
    clear_field, merge_checked, merge_dynamic, merge_owned, optional, to_dynamic, FieldMut,
    FieldRef, LazyPool, MapKeyRef, MessageIndex, ReflectKey, ReflectList, ReflectListMut,
    ReflectMap, ReflectMapMut, ReflectMessage, ReflectMessageMut, ReflectOptional, ReflectValue,
    ReflectValueMut, Tables, TypeMismatch, ValueRef,
};
#[cfg(feature = "json")]
pub use generated::{merge_json, write_json};
#[cfg(feature = "text")]
pub use generated::{merge_text, write_text};
pub use pool::DescriptorPool;

/// The largest field number.
pub const MAX_FIELD_NUMBER: u32 = (1 << 29) - 1;
