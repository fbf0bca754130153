//! A view's `merge_field`: the owned decode's `match` on the whole key, with strings and bytes
//! taken as slices of the input and nested messages merged as views. Map entries are appended
//! in wire order.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::super::codec::{merge_field_with, method, Reads};
use super::super::{fixed_width, key_literal, scalar_wire_type, usize_lit, wire_type, LEN};
use super::Cx;
use crate::model::{BytesRepr, Field, Label, MapField, Message, Scalar, ValueType};

pub(super) fn merge_field_fn(cx: &Cx<'_>, m: &Message) -> TokenStream {
    let reads = Reads {
        lifetime: quote!('a),
        scalar: |s, _| read(s),
        message: merge,
        oneof_message: false,
    };
    merge_field_with(m, &reads, |f| field_arms(cx, f), Vec::new())
}

/// An expression reading one scalar value, borrowing strings and bytes.
fn read(s: Scalar) -> TokenStream {
    match s {
        Scalar::String => quote!(r.read_str()?),
        Scalar::Bytes => quote!(r.read_len_delimited()?),
        _ => {
            let m = method("read", s);
            quote!(r.#m()?)
        }
    }
}

/// Merges a message or group value into the view `dst` (a `&mut V` expression).
fn merge(value: &ValueType, number: u32, dst: &TokenStream) -> TokenStream {
    match value {
        ValueType::Group(_) => {
            let n = Literal::u32_unsuffixed(number);
            quote!(r.merge_group_view(#dst, #n)?;)
        }
        _ => quote!(r.merge_view(#dst)?;),
    }
}

fn field_arms(cx: &Cx<'_>, f: &Field) -> Vec<TokenStream> {
    let ident = &f.ident;
    let key = key_literal(f.number, wire_type(&f.value));
    let default = quote!(::core::default::Default::default);
    match (&f.label, f.value.scalar()) {
        (Label::Implicit | Label::Required, Some(s)) => {
            let read = read(s);
            vec![quote!(#key => { self.#ident = #read; })]
        }
        (Label::Optional, Some(s)) => {
            let read = read(s);
            vec![quote!(#key => { self.#ident = ::core::option::Option::Some(#read); })]
        }
        (Label::Required, None) => {
            let merge = merge(&f.value, f.number, &quote!(&mut self.#ident));
            vec![quote!(#key => { #merge })]
        }
        (Label::Optional | Label::Implicit, None) => {
            let merge = merge(
                &f.value,
                f.number,
                &quote!(self.#ident.get_or_insert_with(#default)),
            );
            vec![quote!(#key => { #merge })]
        }
        (Label::Repeated { .. }, Some(s)) => {
            let read = read(s);
            let mut arms =
                vec![quote!(#key => { r.charge_element(&self.#ident)?; self.#ident.push(#read); })];
            if s.packable() {
                let packed = key_literal(f.number, LEN);
                let width = usize_lit(fixed_width(s).unwrap_or(0));
                let m = method("read", s);
                arms.push(
                    quote!(#packed => { r.merge_packed(&mut self.#ident, #width, |r| r.#m())?; }),
                );
            }
            arms
        }
        (Label::Repeated { .. }, None) => {
            let merge = merge(&f.value, f.number, &quote!(&mut v));
            vec![quote!(#key => {
                r.charge_element(&self.#ident)?;
                let mut v = ::core::default::Default::default();
                #merge
                self.#ident.push(v);
            })]
        }
        (Label::Map(map), _) => vec![map_arm(cx, f, map)],
    }
}

/// A map entry: key and value start at their defaults (an enum's first value), either may be
/// missing; the entry is appended. Unlike the owned decode, the `Vec` is not reserved ahead:
/// counting the entries first measured slower than growing it (`benches/RESULTS.md`).
fn map_arm(cx: &Cx<'_>, f: &Field, map: &MapField) -> TokenStream {
    let ident = &f.ident;
    let key_ty = cx.value_type(&ValueType::Scalar(map.key), BytesRepr::Vec, &[]);
    let value_ty = cx.value_type(&map.value, map.value_bytes, &[]);
    let key_key = key_literal(1, scalar_wire_type(map.key));
    let read_key = read(map.key);
    let value_init = match &map.value {
        ValueType::Enum(e) => {
            let d = Literal::i32_unsuffixed(e.default);
            quote!(let mut v: i32 = #d;)
        }
        _ => quote!(let mut v: #value_ty = ::core::default::Default::default();),
    };
    let (value_key, merge_value) = match map.value.scalar() {
        Some(s) => {
            let read = read(s);
            (
                key_literal(2, scalar_wire_type(s)),
                quote!(|r, v: &mut #value_ty| { *v = #read; ::core::result::Result::Ok(()) }),
            )
        }
        None => (
            key_literal(2, LEN),
            quote!(|r, v: &mut #value_ty| r.merge_view(v)),
        ),
    };
    let map_key = key_literal(f.number, LEN);
    quote!(#map_key => {
        let mut k: #key_ty = ::core::default::Default::default();
        #value_init
        r.merge_map_entry(&mut k, &mut v, #key_key, #value_key,
            |r, k: &mut #key_ty| { *k = #read_key; ::core::result::Result::Ok(()) },
            #merge_value)?;
        self.#ident.push((k, v));
    })
}
