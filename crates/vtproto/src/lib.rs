//! Runtime for rust-vt generated code.
//!
//! Generated code implements [`Message`] for prost-shaped structs. Encoding writes each message
//! **backward** ([`ReverseWriter`]): a length prefix is written after the bytes it describes, so
//! it costs a subtraction instead of another sizing walk. The buffer is either exactly sized by
//! one `size` walk, or, for messages with repeated or map fields (or a recursive field set), a
//! per-thread growable scratch buffer that needs no walk at all (see
//! [`Message::encode_to_vec`]). Decoding reads from a borrowed slice ([`Reader`]) with a
//! recursion limit and typed errors ([`DecodeError`]).
//!
//! This crate is the only dependency of generated code. It owns the wire format primitives and
//! must not know anything about descriptors or code generation.
//!
//! ```
//! use vtproto::Message;
//! // `f64` is `google.protobuf.DoubleValue` as prost maps it.
//! let bytes = 1.5f64.encode_to_vec();
//! assert_eq!(bytes, [0x09, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f]);
//! assert_eq!(f64::decode(&bytes).unwrap(), 1.5);
//! ```
#![warn(missing_docs)]
#![cfg_attr(not(feature = "std"), no_std)]

extern crate alloc;

/// What `alloc` provides that `std`'s prelude would: the crate builds without `std`.
#[allow(unused_imports)]
mod prelude {
    pub use alloc::boxed::Box;
    pub use alloc::string::{String, ToString};
    pub use alloc::vec::Vec;
    pub use alloc::{format, vec};
}

mod error;
pub mod ext;
pub mod field;
mod impls;
mod limits;
mod message;
mod reader;
mod reuse;
mod unknown;
mod view;
pub mod wire;
mod writer;

#[cfg(feature = "prost-types")]
mod wkt;

#[cfg(feature = "json")]
pub mod json;
#[cfg(feature = "reflect")]
pub mod reflect;
#[cfg(any(feature = "json", feature = "text"))]
mod registry;
#[cfg(any(feature = "json", feature = "text"))]
pub use registry::TypeRegistry;
#[cfg(feature = "text")]
pub mod text;

#[cfg(feature = "connect")]
pub mod connect;
#[cfg(feature = "tonic")]
pub mod tonic;

#[cfg(feature = "types")]
pub mod types;

// Generated impls name the runtime `::vtproto`, also inside this crate.
extern crate self as vtproto;

pub use bytes;
pub use error::{DecodeError, DecodeErrorKind, EncodeError, UnknownEnumValue};
pub use ext::{Extendable, Extension};
pub use limits::{
    DecodeLimits, DEFAULT_MAX_INPUT_SIZE, DEFAULT_MEMORY_BUDGET, DEFAULT_RECURSION_LIMIT,
};
#[cfg(feature = "std")]
pub use message::scratch_bytes_retained;
pub use message::Message;
pub use reader::{Mark, Reader};
pub use unknown::{UnknownField, UnknownFields};
pub use view::{MessageView, Owned, OwnedView, ViewFamily};
pub use writer::ReverseWriter;

/// Items generated code uses that are not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::reader::wire_type_mismatch;
    pub use crate::reuse::{
        clear_retained, finish_str_map, replace_loop, replace_str_map_entry, trim_retained,
        Clearable, MapReuse, Retain, StrMap,
    };

    /// `merge_field`'s last arm in `mode=prost`: a key no field matched is skipped, unless its
    /// number is declared, with another wire type: prost's error. The declared numbers below
    /// 128 are the bits of `low` (bit `n` for number `n`, a literal: cheaper to compile than a
    /// pattern per message); `high` says whether the key's number is a declared one from 128 up.
    /// Out of line: the decode loops stay as small as they were with an inline pattern.
    #[inline(never)]
    pub fn skip_unknown(
        r: &mut crate::Reader<'_>,
        key: u32,
        low: u128,
        high: bool,
    ) -> Result<(), crate::DecodeError> {
        let number = key >> 3;
        let declared = if number < 128 {
            (low >> number) & 1 == 1
        } else {
            high
        };
        if declared {
            return Err(wire_type_mismatch(key));
        }
        r.skip_field(key)
    }

    /// Reserves room in an empty map for the entries of field `key` ahead in `r` (up to
    /// `cap`, and to what the memory budget has left for them).
    #[cfg(feature = "std")]
    #[inline]
    pub fn reserve_ahead<K: Eq + core::hash::Hash, V, S: core::hash::BuildHasher>(
        map: &mut std::collections::HashMap<K, V, S>,
        r: &crate::Reader<'_>,
        key: u32,
        cap: usize,
    ) {
        map.reserve(r.count_ahead_within(key, cap, core::mem::size_of::<(K, V)>()));
    }

    /// `m.size()`, never inlined. Generated code calls a recursive message field through it,
    /// so a self-referencing message's own `size` is not recursive and inlines into callers
    /// (a one-level `Node` otherwise pays two calls that prost's inlined encoder doesn't).
    #[inline(never)]
    pub fn size_out_of_line<M: crate::Message>(m: &M) -> usize {
        m.size()
    }

    /// Runs `f` on each entry of a hash map to write it: in the map's order, or, when the
    /// writer is deterministic, in descending key order (written backward, they read
    /// ascending).
    #[cfg(feature = "std")]
    #[inline(always)]
    pub fn for_each_entry<K: Ord, V, S>(
        map: &std::collections::HashMap<K, V, S>,
        w: &mut crate::ReverseWriter<'_>,
        mut f: impl FnMut(&mut crate::ReverseWriter<'_>, &K, &V),
    ) {
        if w.is_deterministic() {
            let mut entries: crate::prelude::Vec<(&K, &V)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| b.0.cmp(a.0));
            for (k, v) in entries {
                f(w, k, v);
            }
        } else {
            for (k, v) in map {
                f(w, k, v);
            }
        }
    }

    /// The error for a missing required field.
    #[cold]
    #[inline(never)]
    pub fn missing_required(message: &'static str, field: &'static str) -> crate::DecodeError {
        crate::DecodeError::new(crate::DecodeErrorKind::MissingRequired {
            message: message.into(),
            field: field.into(),
        })
    }

    /// `m.encode_reverse(w)`, never inlined; see [`size_out_of_line`].
    #[inline(never)]
    pub fn encode_out_of_line<M: crate::Message>(m: &M, w: &mut crate::ReverseWriter<'_>) {
        m.encode_reverse(w)
    }
}
