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
    quote! {
        #[inline]
        fn encode_reverse(&self, w: &mut ::vtproto::ReverseWriter<'_>) {
            #(#parts)*
        }
    }
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
            quote! {
                let mark = w.written();
                #v.encode_reverse(w);
                w.put_len(mark);
                #key
            }
        }
        ValueType::Group => {
            let end = put_key(n, END_GROUP);
            let start = put_key(n, START_GROUP);
            quote! {
                #end
                #v.encode_reverse(w);
                #start
            }
        }
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
            let v = quote!(self.#ident);
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
                    quote! {
                        let value_mark = w.written();
                        v.encode_reverse(w);
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
