//! `Message::encode_reverse`: members last-to-first, each value before its key, each body before
//! its length, so the result reads forward in field-number order.

use proc_macro2::TokenStream;
use quote::quote;

use super::walk::{self, value_ref};
use super::{
    key_literal, nonzero, put_key, put_scalar, put_scalar_place, scalar_wire_type, END_GROUP, LEN,
    START_GROUP,
};
use crate::model::{Field, Label, MapField, Message, Oneof, Scalar, ValueType};

pub(in crate::emit) fn encode_fn(m: &Message) -> TokenStream {
    // Unknown fields follow the known ones, so they are written first.
    let unknown = m
        .unknown_fields
        .as_ref()
        .map(|u| quote!(self.#u.encode_reverse(w);));
    if m.order.is_empty() {
        let w = if unknown.is_some() {
            quote!(w)
        } else {
            quote!(_w)
        };
        return quote! {
            #[inline]
            fn encode_reverse(&self, #w: &mut ::vtproto::ReverseWriter<'_>) {
                #unknown
            }
        };
    }
    let oneof_part = |o: &Oneof, fields: &[&Field]| {
        walk::oneof_part(
            o,
            fields,
            |m| m,
            |f, v| {
                let write = keyed_value_write(f, v, false);
                (true, quote!({ #write }))
            },
        )
    };
    let parts = if m.unknown_fields.is_some() {
        // mode=standalone writes in field-number order as the C++ and upb runtimes do: a oneof
        // whose members interleave with other fields is written in parts.
        canonical_order(m)
            .iter()
            .rev()
            .map(|part| match part {
                Part::Field(f) => field_write(f),
                Part::Oneof(o, fields) => oneof_part(o, fields),
            })
            .collect()
    } else {
        walk::members(m, true, field_write, |o| {
            oneof_part(o, &o.fields.iter().collect::<Vec<_>>())
        })
    };
    let inline = if is_small_leaf(m) {
        quote!(#[inline(always)])
    } else {
        quote!(#[inline])
    };
    quote! {
        #inline
        fn encode_reverse(&self, w: &mut ::vtproto::ReverseWriter<'_>) {
            #unknown
            #(#parts)*
        }
    }
}

/// A unit written in one go: a field, or consecutive (by number) members of a oneof.
enum Part<'a> {
    Field(&'a Field),
    Oneof(&'a Oneof, Vec<&'a Field>),
}

/// Fields and oneof members by field number, a oneof's consecutive members as one part.
fn canonical_order(m: &Message) -> Vec<Part<'_>> {
    let mut all: Vec<(u32, Option<&Oneof>, &Field)> =
        m.all_fields().map(|(o, f)| (f.number, o, f)).collect();
    all.sort_by_key(|(n, _, _)| *n);
    let mut parts: Vec<Part<'_>> = Vec::new();
    for (_, oneof, f) in all {
        match (oneof, parts.last_mut()) {
            (None, _) => parts.push(Part::Field(f)),
            (Some(o), Some(Part::Oneof(last, fields))) if std::ptr::eq(*last, o) => fields.push(f),
            (Some(o), _) => parts.push(Part::Oneof(o, vec![f])),
        }
    }
    parts
}

/// Fields a message may have and still be a small leaf.
const SMALL_LEAF_FIELDS: usize = 16;

/// Whether `m` has at most [`SMALL_LEAF_FIELDS`] fields and calls no other message's
/// `encode_reverse` inline (recursive fields go through an out-of-line call). Such a message's
/// encoder is forced inline: it is small, so the copies cost little, and a call (which the
/// compiler declines to inline on its own) was the difference between a one-level `Node`
/// encoding slower than prost and level with it. Forcing inline on messages with nested fields
/// could multiply code along every path of the message graph, so they keep `#[inline]`.
fn is_small_leaf(m: &Message) -> bool {
    let nests = |f: &Field| {
        let value = match &f.label {
            Label::Map(map) => &map.value,
            _ => &f.value,
        };
        !f.recursive && value.scalar().is_none()
    };
    m.all_fields().count() <= SMALL_LEAF_FIELDS && !m.all_fields().any(|(_, f)| nests(f))
}

/// Writes one value followed (backward: preceded) by its key.
/// `place` says whether `v` names a field (`self.x`) rather than a bound reference.
fn keyed_value_write(f: &Field, v: &TokenStream, place: bool) -> TokenStream {
    let n = f.number;
    if let Some(s) = f.value.scalar() {
        let put = if place {
            put_scalar_place(s, v)
        } else {
            put_scalar(s, v)
        };
        let key = put_key(n, scalar_wire_type(s));
        return quote!(#put #key);
    }
    match &f.value {
        ValueType::Group(_) => {
            let end = put_key(n, END_GROUP);
            let start = put_key(n, START_GROUP);
            let encode = encode_call(f, v);
            quote! {
                #end
                #encode
                #start
            }
        }
        _ if super::helper_message(f) => {
            let key = key_literal(n, LEN);
            let (_, v) = super::via_trait(f, v);
            quote!(w.put_message(#key, #v);)
        }
        _ => {
            let key = put_key(n, LEN);
            let encode = encode_call(f, v);
            quote! {
                let mark = w.written();
                #encode
                w.put_len(mark);
                #key
            }
        }
    }
}

/// `v.encode_reverse(w);` for a message value of `f`; out of line when `f` is recursive.
/// Through its trait, as `size` is (a field can be named `encode_reverse`).
fn encode_call(f: &Field, v: &TokenStream) -> TokenStream {
    if f.recursive {
        quote!(::vtproto::__private::encode_out_of_line(#v, w);)
    } else {
        let (via, v) = super::via_trait(f, v);
        quote!(#via::encode_reverse(#v, w);)
    }
}

fn field_write(f: &Field) -> TokenStream {
    let ident = &f.ident;
    if let (Some(x), Some(s)) = (super::implicit_helper(f), f.value.scalar()) {
        let put = quote::format_ident!("put_{x}_field");
        let key = key_literal(f.number, scalar_wire_type(s));
        return quote!(w.#put(#key, self.#ident););
    }
    match &f.label {
        Label::Implicit if super::is_len_scalar(f) => {
            let key = key_literal(f.number, LEN);
            quote!(w.put_bytes_field(#key, &self.#ident);)
        }
        Label::Optional if super::helper_message(f) => {
            let key = key_literal(f.number, LEN);
            quote!(w.put_message_field(#key, &self.#ident);)
        }
        Label::Repeated { packed: false } if super::helper_message(f) => {
            let key = key_literal(f.number, LEN);
            quote!(w.put_message_fields(#key, &self.#ident);)
        }
        Label::Repeated { packed: false } if super::is_len_scalar(f) => {
            let key = key_literal(f.number, LEN);
            quote!(w.put_bytes_fields(#key, &self.#ident);)
        }
        Label::Implicit | Label::Required | Label::Optional => {
            walk::singular(f, |value| keyed_value_write(f, &value.v, value.place))
        }
        Label::Repeated { packed: false } => {
            let write = keyed_value_write(f, &value_ref(&f.value), false);
            quote! {
                for v in self.#ident.iter().rev() {
                    #write
                }
            }
        }
        Label::Repeated { packed: true } => {
            let s = f.value.scalar().expect("only scalars are packed");
            let put = put_scalar(s, &quote!(*v));
            let key = put_key(f.number, LEN);
            quote! {
                if !self.#ident.is_empty() {
                    let mark = w.written();
                    for v in self.#ident.iter().rev() {
                        #put
                    }
                    w.put_len(mark);
                    #key
                }
            }
        }
        Label::Map(map) => map_write(f, map),
    }
}

fn map_write(f: &Field, map: &MapField) -> TokenStream {
    let ident = &f.ident;
    if super::is_bytes_map(f, map, true) {
        let key = key_literal(f.number, LEN);
        let full = map.full_entries;
        let put = if map.btree {
            quote!(put_bytes_btree_map)
        } else {
            quote!(put_bytes_hash_map)
        };
        return quote!(w.#put(#key, #full, &self.#ident););
    }
    // A `BTreeMap` is written in key order, backward; a `HashMap` in its own order, or sorted
    // when the writer is deterministic.
    let each = |body: TokenStream| {
        if map.btree {
            quote! {
                for (k, v) in self.#ident.iter().rev() {
                    #body
                }
            }
        } else {
            quote! {
                ::vtproto::__private::for_each_entry(&self.#ident, w, |w, k, v| {
                    #body
                });
            }
        }
    };
    if let (Scalar::String, Some(vs @ (Scalar::String | Scalar::Bytes))) =
        (map.key, map.value.scalar())
    {
        let field_key = key_literal(f.number, LEN);
        let v = if vs == Scalar::String {
            quote!(v.as_bytes())
        } else {
            quote!(&v[..])
        };
        let put = if map.full_entries {
            quote!(put_full_bytes_map_entry)
        } else {
            quote!(put_bytes_map_entry)
        };
        return each(quote!(w.#put(#field_key, k.as_bytes(), #v);));
    }
    let k = walk::map_key(map);
    let k_cond = nonzero(map.key, &k);
    let k_put = put_scalar(map.key, &k);
    let k_key = put_key(1, scalar_wire_type(map.key));
    let v_write = map_value_write(f, map);
    let key = put_key(f.number, LEN);
    let k_write = if map.full_entries {
        quote!(#k_put #k_key)
    } else {
        quote!(if #k_cond { #k_put #k_key })
    };
    each(quote! {
        let mark = w.written();
        #v_write
        #k_write
        w.put_len(mark);
        #key
    })
}

/// Writes a map entry's value `v`, unless it is the default.
fn map_value_write(f: &Field, map: &MapField) -> TokenStream {
    if let Some(s) = map.value.scalar() {
        let v = value_ref(&map.value);
        let cond = walk::map_value_nonzero(map, &v);
        let put = put_scalar(s, &v);
        let key = put_key(2, scalar_wire_type(s));
        if map.full_entries {
            return quote!(#put #key);
        }
        return quote!(if #cond { #put #key });
    }
    let key = put_key(2, LEN);
    let encode = encode_call(f, &quote!(v));
    if map.full_entries {
        return quote! {
            let value_mark = w.written();
            #encode
            w.put_len(value_mark);
            #key
        };
    }
    if map.default_value_encodes {
        return quote! {
            if *v != ::core::default::Default::default() {
                let value_mark = w.written();
                #encode
                w.put_len(value_mark);
                #key
            }
        };
    }
    quote! {
        let value_mark = w.written();
        #encode
        if w.written() != value_mark {
            w.put_len(value_mark);
            #key
        }
    }
}
