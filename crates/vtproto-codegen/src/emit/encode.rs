//! `Message::encode_reverse`: members last-to-first, each value before its key, each body before
//! its length, so the result reads forward in field-number order.

use proc_macro2::TokenStream;
use quote::quote;

use super::{
    is_copy, nonzero, put_key, put_scalar, put_scalar_place, scalar_wire_type, END_GROUP, LEN,
    START_GROUP,
};
use crate::model::{Field, Label, Member, Message, Scalar, ValueType};

pub(super) fn encode_fn(m: &Message) -> TokenStream {
    if m.members.is_empty() {
        return quote! {
            #[inline]
            fn encode_reverse(&self, _w: &mut ::vtproto::ReverseWriter<'_>) {}
        };
    }
    let parts = m.members.iter().rev().map(|member| match *member {
        Member::Field(i) => field_write(&m.fields[i]),
        Member::Oneof(i) => {
            let o = &m.oneofs[i];
            let ident = &o.ident;
            let path = &o.enum_path;
            let arms = o.fields.iter().map(|f| {
                let variant = &f.ident;
                let write = keyed_value_write(f, &value_ref(&f.value), false);
                quote!(#path::#variant(v) => { #write })
            });
            quote! {
                if let ::core::option::Option::Some(o) = &self.#ident {
                    match o { #(#arms)* }
                }
            }
        }
    });
    let inline = if is_small_leaf(m) {
        quote!(#[inline(always)])
    } else {
        quote!(#[inline])
    };
    quote! {
        #inline
        fn encode_reverse(&self, w: &mut ::vtproto::ReverseWriter<'_>) {
            #(#parts)*
        }
    }
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
    let fields = || {
        m.fields
            .iter()
            .chain(m.oneofs.iter().flat_map(|o| &o.fields))
    };
    let nests = |f: &Field| {
        let value = match &f.label {
            Label::Map(map) => &map.value,
            _ => &f.value,
        };
        !f.recursive && !matches!(value, ValueType::Scalar(_))
    };
    fields().count() <= SMALL_LEAF_FIELDS && !fields().any(nests)
}

fn value_ref(value: &ValueType) -> TokenStream {
    match value {
        ValueType::Scalar(s) if is_copy(*s) => quote!(*v),
        _ => quote!(v),
    }
}

/// Writes one value followed (backward: preceded) by its key.
/// `place` says whether `v` names a field (`self.x`) rather than a bound reference.
fn keyed_value_write(f: &Field, v: &TokenStream, place: bool) -> TokenStream {
    let n = f.number;
    match &f.value {
        ValueType::Scalar(s) => {
            let put = if place {
                put_scalar_place(*s, v)
            } else {
                put_scalar(*s, v)
            };
            let key = put_key(n, scalar_wire_type(*s));
            quote!(#put #key)
        }
        ValueType::Message => {
            let key = put_key(n, LEN);
            let encode = encode_call(f, v);
            quote! {
                let mark = w.written();
                #encode
                w.put_len(mark);
                #key
            }
        }
        ValueType::Group => {
            let end = put_key(n, END_GROUP);
            let start = put_key(n, START_GROUP);
            let encode = encode_call(f, v);
            quote! {
                #end
                #encode
                #start
            }
        }
    }
}

/// `v.encode_reverse(w);` for a message value of `f`; out of line when `f` is recursive.
fn encode_call(f: &Field, v: &TokenStream) -> TokenStream {
    if f.recursive {
        quote!(::vtproto::__private::encode_out_of_line(#v, w);)
    } else {
        quote!(#v.encode_reverse(w);)
    }
}

fn field_write(f: &Field) -> TokenStream {
    let ident = &f.ident;
    match &f.label {
        Label::Implicit => {
            let ValueType::Scalar(s) = f.value else {
                unreachable!("implicit presence is for scalars")
            };
            let v = quote!(self.#ident);
            let cond = nonzero(s, &v);
            let write = keyed_value_write(f, &v, true);
            quote!(if #cond { #write })
        }
        Label::Required => {
            // Out-of-line calls take a reference; inline ones auto-reference the place.
            let v = if f.recursive {
                quote!(&self.#ident)
            } else {
                quote!(self.#ident)
            };
            keyed_value_write(f, &v, true)
        }
        Label::Optional => {
            let write = keyed_value_write(f, &value_ref(&f.value), false);
            quote! {
                if let ::core::option::Option::Some(v) = &self.#ident {
                    #write
                }
            }
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
            let ValueType::Scalar(s) = f.value else {
                unreachable!("only scalars are packed")
            };
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
        Label::Map(map) => {
            let iter = if map.btree {
                quote!(self.#ident.iter().rev())
            } else {
                quote!(self.#ident.iter())
            };
            let k = if is_copy(map.key) {
                quote!(*k)
            } else {
                quote!(k)
            };
            let k_cond = nonzero(map.key, &k);
            let k_put = put_scalar(map.key, &k);
            let k_key = put_key(1, scalar_wire_type(map.key));
            let v_write = match &map.value {
                ValueType::Scalar(s) => {
                    let v = value_ref(&map.value);
                    let cond = if *s == Scalar::Enum {
                        let d = proc_macro2::Literal::i32_unsuffixed(map.enum_default);
                        quote!(#v != #d)
                    } else {
                        nonzero(*s, &v)
                    };
                    let put = put_scalar(*s, &v);
                    let key = put_key(2, scalar_wire_type(*s));
                    quote!(if #cond { #put #key })
                }
                _ => {
                    let key = put_key(2, LEN);
                    let encode = encode_call(f, &quote!(v));
                    quote! {
                        let value_mark = w.written();
                        #encode
                        if w.written() != value_mark {
                            w.put_len(value_mark);
                            #key
                        }
                    }
                }
            };
            let key = put_key(f.number, LEN);
            if let (Scalar::String, ValueType::Scalar(vs @ (Scalar::String | Scalar::Bytes))) =
                (map.key, &map.value)
            {
                let field_key = super::key_array(f.number, LEN);
                let v = if *vs == Scalar::String {
                    quote!(v.as_bytes())
                } else {
                    quote!(&v[..])
                };
                return quote! {
                    for (k, v) in #iter {
                        w.put_bytes_map_entry(#field_key, k.as_bytes(), #v);
                    }
                };
            }
            quote! {
                for (k, v) in #iter {
                    let mark = w.written();
                    #v_write
                    if #k_cond { #k_put #k_key }
                    w.put_len(mark);
                    #key
                }
            }
        }
    }
}
