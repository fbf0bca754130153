//! The `codec` feature: `impl ::vtproto::Message` for each message — `size`,
//! `encode_reverse` and `merge_field` (one file each), plus the constants and small methods
//! beside them. This module assembles the impl and holds what the three share: how a value is
//! reached ([`walk`]), and the per-scalar operations of the runtime's writer and reader.
//!
//! Value expressions follow one convention: for `Copy` scalars a `v` token stream is the value
//! itself (`self.x`, `*v`); for strings, bytes and messages it is a place or a reference that
//! method calls auto-reference (`self.x`, `v`).

mod decode;
mod encode;
mod reuse;
mod size;
mod walk;

pub(super) use decode::{merge_field_with, Reads};
pub(super) use encode::encode_fn;
pub(super) use size::size_fn;

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{
    default_expr, fixed_width, is_copy, key_bytes, key_len, key_literal, scalar_type,
    scalar_wire_type, usize_lit, wire_type, Feature, END_GROUP, LEN, START_GROUP,
};
use crate::model::{BytesRepr, Label, Message, Scalar};

/// The feature's registration.
pub(super) const FEATURE: Feature = Feature {
    name: "codec",
    emit: |package, options, out| {
        let reuse = super::is_selected(options, REUSE.name);
        let prost = options.mode == crate::Mode::Prost;
        let names = super::names::Names { package, options };
        for m in &package.messages {
            out(message_impl(m, reuse, prost, &names));
        }
    },
};

/// The `reuse` feature: `merge_replace` in the codec's impls (`reuse.rs`), so that
/// `decode_into` keeps the value's allocations. Without it `decode_into` clears the value and
/// merges: the same result, for about half the decoder's generated code.
pub(super) const REUSE: Feature = Feature {
    name: "reuse",
    emit: |_, _, _| {},
};

/// The trait whose `size` and `encode_reverse` a message value of `f` has, and the value as a
/// reference to pass it (a place, `self.x`, is borrowed; a bound `v` already is one). Called
/// through the trait: prost gives a message with a field `size` an inherent `size()` accessor,
/// which a method call would pick.
fn via_trait(f: &crate::model::Field, v: &TokenStream) -> (TokenStream, TokenStream) {
    let via = if f.in_view {
        quote!(::vtproto::MessageView)
    } else {
        quote!(::vtproto::Message)
    };
    let v = match v.clone().into_iter().next() {
        Some(proc_macro2::TokenTree::Ident(i)) if i == "self" => quote!(&#v),
        _ => v.clone(),
    };
    (via, v)
}

/// Whether `f`'s values are length-delimited messages that the runtime's per-field helpers
/// (`::vtproto::field`) write and size: not groups, not recursive (those go out of line), not
/// views (the helpers take `Message`s).
fn helper_message(f: &crate::model::Field) -> bool {
    matches!(f.value, crate::model::ValueType::Message(_)) && !f.recursive && !f.in_view
}

/// The runtime's helpers for an implicit-presence field of integer or `bool` type
/// (`field::<x>_size`, `ReverseWriter::put_<x>_field`), as `<x>`. Floats are spelled out: which
/// zero they skip depends on the mode.
fn implicit_helper(f: &crate::model::Field) -> Option<&'static str> {
    match (&f.label, f.value.scalar()?) {
        (
            crate::model::Label::Implicit,
            Scalar::Float | Scalar::Double | Scalar::String | Scalar::Bytes,
        ) => None,
        (crate::model::Label::Implicit, s) => Some(scalar_method(s)),
        _ => None,
    }
}

/// Whether `f` is a map the runtime's `bytes` map helpers handle: `string` keys, `string` (or,
/// with `bytes_values`, `bytes`) values, outside views.
fn is_bytes_map(f: &crate::model::Field, map: &crate::model::MapField, bytes_values: bool) -> bool {
    let value = match map.value.scalar() {
        Some(Scalar::String) => true,
        Some(Scalar::Bytes) => bytes_values,
        _ => false,
    };
    map.key == Scalar::String && value && !f.in_view
}

/// Whether `f`'s values are `string` or `bytes`.
fn is_len_scalar(f: &crate::model::Field) -> bool {
    matches!(f.value.scalar(), Some(Scalar::String | Scalar::Bytes))
}

/// `impl ::vtproto::Message for <message>`; `prost` for `mode=prost`, where prost's derive
/// gives each struct its `encoded_len` (see [`size::prost_size_fn`]).
fn message_impl(
    m: &Message,
    reuse: bool,
    prost: bool,
    names: &super::names::Names<'_>,
) -> TokenStream {
    let path = m.rust_path.tokens();
    let name = &m.full_name;
    let size = if prost && !m.size_walk_is_cheap {
        size::prost_size_fn()
    } else {
        size::size_fn(m)
    };
    let encode = encode::encode_fn(m);
    let merge = decode::merge_field_fn(m, names);
    let replace = reuse.then(|| reuse::merge_replace_fn(m));
    let names = field_name_fn(m);
    let deprecated = m.all_fields().any(|(_, f)| f.deprecated);
    let allow = deprecated.then(|| quote!(#[allow(deprecated)]));
    let cheap = m.size_walk_is_cheap.then(|| size_walk_is_cheap_fn(m));
    let check = check_initialized_fn(m);
    quote! {
        #allow
        impl ::vtproto::Message for #path {
            const NAME: &'static str = #name;
            #cheap
            #size
            #encode
            #merge
            #replace
            #check
            #names
        }
    }
}

/// `check_initialized` (`mode=standalone`): each required field is set, and each message value
/// that can miss one is checked in turn. Nothing for messages that can't miss one.
fn check_initialized_fn(m: &Message) -> TokenStream {
    if !m.all_fields().any(|(_, f)| f.required || f.check_nested) {
        return TokenStream::new();
    }
    let check = quote!(::vtproto::Message::check_initialized(v)?;);
    let fields = m.fields.iter().map(|f| {
        let ident = &f.ident;
        let name = &f.name;
        let missing = f.required.then(|| {
            quote! {
                if self.#ident.is_none() {
                    return ::core::result::Result::Err(::vtproto::__private::missing_required(
                        <Self as ::vtproto::Message>::NAME, #name,
                    ));
                }
            }
        });
        let nested = f.check_nested.then(|| match &f.label {
            Label::Repeated { .. } => quote!(for v in &self.#ident { #check }),
            Label::Map(_) => quote!(for v in self.#ident.values() { #check }),
            Label::Implicit | Label::Required => quote!({ let v = &self.#ident; #check }),
            Label::Optional => {
                quote!(if let ::core::option::Option::Some(v) = &self.#ident { #check })
            }
        });
        quote!(#missing #nested)
    });
    let oneofs = m
        .oneofs
        .iter()
        .filter(|o| o.fields.iter().any(|f| f.check_nested))
        .map(|o| {
            let ident = &o.ident;
            let path = o.enum_path.tokens();
            let arms = o.fields.iter().filter(|f| f.check_nested).map(|f| {
                let variant = &f.ident;
                quote!(::core::option::Option::Some(#path::#variant(v)) => { #check })
            });
            quote! {
                match &self.#ident {
                    #(#arms)*
                    _ => {}
                }
            }
        });
    quote! {
        fn check_initialized(&self) -> ::core::result::Result<(), ::vtproto::DecodeError> {
            #(#fields)*
            #(#oneofs)*
            ::core::result::Result::Ok(())
        }
    }
}

/// `SIZE_WALK_IS_CHEAP` of a message with no repeated or map field at any depth; when it has
/// recursive fields, its `size_walk_is_cheap`, true while they are empty one level down: a value and its
/// direct children size exactly (a 20-byte node with one child: 0.99 of prost's time through
/// the scratch buffer, 0.85 sized, `benches/RESULTS.md`); a deeper chain goes to the scratch
/// buffer rather than walk every level twice.
fn size_walk_is_cheap_fn(m: &Message) -> TokenStream {
    // The test that `v`'s recursive fields are all empty; `None` if one can't be (required).
    // `deeper` allows a set field of this message's own type whose child passes the test.
    let empty = |v: &TokenStream, deeper: Option<&[TokenStream]>| -> Option<Vec<TokenStream>> {
        let fields = m.fields.iter().filter(|f| f.recursive).map(|f| {
            let ident = &f.ident;
            let own_type = f
                .value
                .message()
                .is_some_and(|t| t.full_name == m.full_name);
            match deeper {
                _ if f.label != Label::Optional => None,
                Some(child) if own_type => Some(quote! {
                    match &#v.#ident {
                        ::core::option::Option::None => true,
                        ::core::option::Option::Some(c) => #(#child)&&*,
                    }
                }),
                _ => Some(quote!(#v.#ident.is_none())),
            }
        });
        let oneofs = m
            .oneofs
            .iter()
            .filter(|o| o.fields.iter().any(|f| f.recursive))
            .map(|o| {
                let ident = &o.ident;
                Some(quote!(#v.#ident.is_none()))
            });
        fields.chain(oneofs).collect()
    };
    let child = empty(&quote!(c), None);
    let body = match empty(&quote!(self), child.as_deref()) {
        // The trait's default.
        None => return TokenStream::new(),
        Some(all) if all.is_empty() => {
            return quote!(
                const SIZE_WALK_IS_CHEAP: bool = true;
            )
        }
        Some(mut all) => {
            // A `match` opening a body's `&&` chain would be read as a statement.
            let opens_with_match =
                all[0].clone().into_iter().next().is_some_and(
                    |t| matches!(&t, proc_macro2::TokenTree::Ident(i) if i == "match"),
                );
            if all.len() > 1 && opens_with_match {
                let first = &all[0];
                all[0] = quote!((#first));
            }
            quote!(#(#all)&&*)
        }
    };
    quote! {
        #[inline]
        fn size_walk_is_cheap(&self) -> bool {
            #body
        }
    }
}

/// `FIELD_NAMES`, for error messages: one string literal (`"1:name 2:display_name"`), no code.
fn field_name_fn(m: &Message) -> TokenStream {
    if m.all_fields().next().is_none() && m.extensions.is_empty() {
        // The trait's default is empty.
        return TokenStream::new();
    }
    let names = m
        .all_fields()
        .map(|(_, f)| format!("{}:{}", f.number, f.name))
        .chain(m.message_set_items_named().map(|n| format!("1:[{n}]")))
        .chain(
            m.extensions
                .iter()
                .map(|x| format!("{}:[{}]", x.number, x.full_name)),
        )
        .collect::<Vec<_>>()
        .join(" ");
    quote! {
        const FIELD_NAMES: &'static str = #names;
    }
}

/// Writes a key: one `put_u8`, or `put_key` with its value for a longer one.
fn put_key(number: u32, wire_type: u32) -> TokenStream {
    if let [b] = key_bytes(number, wire_type)[..] {
        let b = Literal::u8_unsuffixed(b);
        quote!(w.put_u8(#b);)
    } else {
        let key = key_literal(number, wire_type);
        quote!(w.put_key(#key);)
    }
}

/// Name suffix of the writer's and reader's method for a scalar (`put_<x>`, `read_<x>`).
fn scalar_method(s: Scalar) -> &'static str {
    match s {
        Scalar::Double => "double",
        Scalar::Float => "float",
        Scalar::Int64 => "int64",
        Scalar::Uint64 => "uint64",
        Scalar::Int32 | Scalar::Enum => "int32",
        Scalar::Fixed64 => "fixed64",
        Scalar::Fixed32 => "fixed32",
        Scalar::Bool => "bool",
        Scalar::String => "string",
        Scalar::Bytes => "bytes",
        Scalar::Uint32 => "uint32",
        Scalar::Sfixed32 => "sfixed32",
        Scalar::Sfixed64 => "sfixed64",
        Scalar::Sint32 => "sint32",
        Scalar::Sint64 => "sint64",
    }
}

pub(super) fn method(prefix: &str, s: Scalar) -> proc_macro2::Ident {
    quote::format_ident!("{}_{}", prefix, scalar_method(s))
}

/// Whether a value differs from the type's default (proto3 implicit presence, map entries).
fn nonzero(s: Scalar, v: &TokenStream) -> TokenStream {
    match s {
        Scalar::Double | Scalar::Float => quote!(#v != 0.0),
        Scalar::Bool => quote!(#v),
        Scalar::String | Scalar::Bytes => quote!(!#v.is_empty()),
        _ => quote!(#v != 0),
    }
}

/// Encoded size of one scalar value, without its key.
fn scalar_size(s: Scalar, v: &TokenStream) -> TokenStream {
    if let Some(w) = fixed_width(s) {
        let w = usize_lit(w);
        return quote!(#w);
    }
    match s {
        Scalar::String | Scalar::Bytes => quote!(::vtproto::wire::len_delimited(#v.len())),
        _ => {
            let f = quote::format_ident!("{}", scalar_method(s));
            quote!(::vtproto::wire::#f(#v))
        }
    }
}

/// Writes one scalar value, without its key.
fn put_scalar(s: Scalar, v: &TokenStream) -> TokenStream {
    let m = method("put", s);
    quote!(w.#m(#v);)
}

/// Like [`put_scalar`] for a value named by a place (`self.x`), borrowed if not `Copy`.
fn put_scalar_place(s: Scalar, place: &TokenStream) -> TokenStream {
    if is_copy(s) {
        put_scalar(s, place)
    } else {
        put_scalar(s, &quote!(&#place))
    }
}

/// Where a decoded value goes.
enum Dst {
    /// A place expression of type `T` (`self.x`).
    Place(TokenStream),
    /// An expression of type `&mut T`.
    MutRef(TokenStream),
}

/// An expression reading one scalar value as a new owned value.
fn read_scalar(s: Scalar, bytes: BytesRepr) -> TokenStream {
    match (s, bytes) {
        (Scalar::Bytes, BytesRepr::Vec) => quote!(r.read_byte_vec()?),
        (Scalar::Bytes, BytesRepr::Bytes) => quote!(r.read_bytes()?),
        _ => {
            let m = method("read", s);
            quote!(r.#m()?)
        }
    }
}

/// A statement reading one scalar value into `dst`.
fn merge_scalar(s: Scalar, bytes: BytesRepr, dst: Dst) -> TokenStream {
    if is_copy(s) {
        let read = read_scalar(s, bytes);
        return match dst {
            Dst::Place(p) => quote!(#p = #read;),
            Dst::MutRef(p) => quote!(*#p = #read;),
        };
    }
    let dst = match dst {
        Dst::Place(p) => quote!(&mut #p),
        Dst::MutRef(p) => p,
    };
    match (s, bytes) {
        (Scalar::String, _) => quote!(r.merge_string(#dst)?;),
        (Scalar::Bytes, BytesRepr::Vec) => quote!(r.merge_byte_vec(#dst)?;),
        _ => quote!(r.merge_bytes(#dst)?;),
    }
}
