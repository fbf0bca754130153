//! `Message::size`: the exact encoded length, in one walk over the message.

use proc_macro2::TokenStream;
use quote::quote;

use super::walk::{self, value_ref};
use super::{fixed_width, key_len, scalar_size, usize_lit};
use crate::model::{Field, Label, MapField, Message, Scalar, ValueType};

/// `size` as prost's `encoded_len` (`mode=prost`), for a message with a repeated or map field
/// at some depth. Encoding such a message walks no sizes (it goes backward through the
/// per-thread scratch buffer), so `size` runs only off the default path (`encode` into a
/// `BufMut`, `encode_to_bytes_mut`, the exact strategy's fallback), and there prost's derive,
/// which every `mode=prost` struct has and which is compiled anyway, gives the same number
/// (the same bytes: `tests/tests/differential.rs`) for no code of ours: a walk of our own was
/// 0.93-0.95 of its time on such messages, and about a fifth of the metadata our impls add
/// (`benches/RESULTS.md`, "Codegen").
pub(in crate::emit) fn prost_size_fn() -> TokenStream {
    quote! {
        #[inline]
        fn size(&self) -> usize {
            ::prost::Message::encoded_len(self)
        }
    }
}

/// `size` as a walk of its own: in `mode=standalone`, for views, and in `mode=prost` for
/// messages that encoding sizes first (no collection at any depth).
pub(in crate::emit) fn size_fn(m: &Message) -> TokenStream {
    let unknown = m
        .unknown_fields
        .as_ref()
        .map(|u| quote!(n += self.#u.encoded_len();));
    if m.order.is_empty() {
        let n = match &m.unknown_fields {
            Some(u) => quote!(self.#u.encoded_len()),
            None => quote!(0),
        };
        return quote! {
            #[inline]
            fn size(&self) -> usize { #n }
        };
    }
    let parts = walk::members(m, false, field_size, |o| {
        walk::oneof(
            o,
            |m| quote!(n += #m;),
            |f, v| {
                let size = keyed_value_size(f, v);
                (fixed_size(f).is_none(), quote!(#size,))
            },
        )
    });
    quote! {
        #[inline]
        fn size(&self) -> usize {
            let mut n = 0usize;
            #(#parts)*
            #unknown
            n
        }
    }
}

/// `k * count`, without the multiplication when `k` is 1.
fn times(k: usize, count: TokenStream) -> TokenStream {
    if k == 1 {
        count
    } else {
        let k = usize_lit(k);
        quote!(#k * #count)
    }
}

/// Size of one value of `f` without its key.
fn value_size(f: &Field, v: &TokenStream) -> TokenStream {
    match f.value.scalar() {
        Some(s) => scalar_size(s, v),
        None if matches!(f.value, ValueType::Group(_)) => {
            let keys = usize_lit(2 * key_len(f.number));
            let size = size_call(f, v);
            quote!(#keys + #size)
        }
        None => {
            let size = size_call(f, v);
            quote!(::vtproto::wire::len_delimited(#size))
        }
    }
}

/// `v.size()` for a message value of `f`, through its trait (see `via_trait`); out of line
/// when `f` is recursive.
fn size_call(f: &Field, v: &TokenStream) -> TokenStream {
    if f.recursive {
        quote!(::vtproto::__private::size_out_of_line(#v))
    } else {
        let (via, v) = super::via_trait(f, v);
        quote!(#via::size(#v))
    }
}

/// Size of one value with its key when it doesn't depend on the value.
fn fixed_size(f: &Field) -> Option<usize> {
    let width = fixed_width(f.value.scalar()?)?;
    Some(width + key_len(f.number))
}

/// Size of one value with its key.
fn keyed_value_size(f: &Field, v: &TokenStream) -> TokenStream {
    if let Some(n) = fixed_size(f) {
        let n = usize_lit(n);
        return quote!(#n);
    }
    let key = usize_lit(key_len(f.number));
    let size = value_size(f, v);
    match f.value {
        ValueType::Group(_) => size,
        _ => quote!(#key + #size),
    }
}

fn field_size(f: &Field) -> TokenStream {
    let ident = &f.ident;
    let key = usize_lit(key_len(f.number));
    if let Some(x) = super::implicit_helper(f) {
        let size = quote::format_ident!("{x}_size");
        return quote!(n += ::vtproto::field::#size(#key, self.#ident););
    }
    match &f.label {
        Label::Implicit if super::is_len_scalar(f) => {
            quote!(n += ::vtproto::field::len_size(#key, self.#ident.len());)
        }
        Label::Optional if super::helper_message(f) => {
            quote!(n += ::vtproto::field::message_size(#key, &self.#ident);)
        }
        Label::Repeated { packed: false } if super::helper_message(f) => {
            quote!(n += ::vtproto::field::messages_size(#key, &self.#ident);)
        }
        Label::Repeated { packed: false } if super::is_len_scalar(f) => {
            quote!(n += ::vtproto::field::strings_size(#key, &self.#ident);)
        }
        Label::Optional if fixed_size(f).is_some() => {
            let each = usize_lit(fixed_size(f).unwrap_or_default());
            quote!(if self.#ident.is_some() { n += #each; })
        }
        Label::Implicit | Label::Required | Label::Optional => walk::singular(f, |value| {
            let size = keyed_value_size(f, &value.v);
            quote!(n += #size;)
        }),
        Label::Repeated { packed: false } => repeated_size(f),
        Label::Repeated { packed: true } => {
            let s = f.value.scalar().expect("only scalars are packed");
            packed_size(f, s)
        }
        Label::Map(map) => map_size(f, map),
    }
}

fn repeated_size(f: &Field) -> TokenStream {
    let ident = &f.ident;
    let key = key_len(f.number);
    if let Some(each) = fixed_size(f) {
        let total = times(each, quote!(self.#ident.len()));
        return quote!(n += #total;);
    }
    let size = value_size(f, &value_ref(&f.value));
    let keys = match f.value {
        ValueType::Group(_) => quote!(),
        _ => {
            let total = times(key, quote!(self.#ident.len()));
            quote!(n += #total;)
        }
    };
    quote! {
        #keys
        for v in &self.#ident {
            n += #size;
        }
    }
}

fn packed_size(f: &Field, s: Scalar) -> TokenStream {
    let ident = &f.ident;
    let key = usize_lit(key_len(f.number));
    let body = match fixed_width(s) {
        Some(w) => {
            let total = times(w, quote!(self.#ident.len()));
            quote!(let body = #total;)
        }
        None => {
            let size = scalar_size(s, &quote!(*v));
            quote! {
                let mut body = 0usize;
                for v in &self.#ident {
                    body += #size;
                }
            }
        }
    };
    quote! {
        if !self.#ident.is_empty() {
            #body
            n += #key + ::vtproto::wire::len_delimited(body);
        }
    }
}

fn map_size(f: &Field, map: &MapField) -> TokenStream {
    let ident = &f.ident;
    let key = usize_lit(key_len(f.number));
    if super::is_bytes_map(f, map, true) {
        let full = map.full_entries;
        return quote!(n += ::vtproto::field::bytes_map_size(#key, #full, &self.#ident););
    }
    let k = walk::map_key(map);
    let k_nonzero = super::nonzero(map.key, &k);
    let k_size = scalar_size(map.key, &k);
    let v_part = match map.value.scalar() {
        Some(s) => {
            let v = value_ref(&map.value);
            let cond = walk::map_value_nonzero(map, &v);
            let size = scalar_size(s, &v);
            if map.full_entries {
                quote!(1 + #size)
            } else {
                quote!(if #cond { 1 + #size } else { 0 })
            }
        }
        None => {
            let size = size_call(f, &quote!(v));
            if map.full_entries {
                quote!(1 + ::vtproto::wire::len_delimited(#size))
            } else if map.default_value_encodes {
                quote! {
                    if *v != ::core::default::Default::default() {
                        1 + ::vtproto::wire::len_delimited(#size)
                    } else { 0 }
                }
            } else {
                quote! {{
                    let s = #size;
                    if s != 0 { 1 + ::vtproto::wire::len_delimited(s) } else { 0 }
                }}
            }
        }
    };
    let fixed = |s: Option<crate::model::Scalar>| s.and_then(super::fixed_width);
    if let (true, Some(kw), Some(vw)) = (
        map.full_entries,
        fixed(Some(map.key)),
        fixed(map.value.scalar()),
    ) {
        // Every entry has the same size.
        let entry = usize_lit(2 + kw + vw);
        return quote!(n += self.#ident.len() * (#key + ::vtproto::wire::len_delimited(#entry)););
    }
    let k_part = if map.full_entries {
        quote!(1 + #k_size)
    } else {
        quote!((if #k_nonzero { 1 + #k_size } else { 0 }))
    };
    // Fixed-size keys and values of full entries are not looked at.
    let bind = |name: TokenStream, width: Option<usize>| {
        if map.full_entries && width.is_some() {
            quote!(_)
        } else {
            name
        }
    };
    let k_bind = bind(quote!(k), fixed(Some(map.key)));
    let v_bind = bind(quote!(v), fixed(map.value.scalar()));
    quote! {
        for (#k_bind, #v_bind) in &self.#ident {
            let entry = #k_part + #v_part;
            n += #key + ::vtproto::wire::len_delimited(entry);
        }
    }
}
