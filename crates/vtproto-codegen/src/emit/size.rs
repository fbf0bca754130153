//! `Message::size`: the exact encoded length, in one walk over the message.

use proc_macro2::TokenStream;
use quote::quote;

use super::{fixed_width, is_copy, key_len, nonzero, scalar_size, usize_lit};
use crate::model::{Field, Label, Member, Message, ValueType};

pub(super) fn size_fn(m: &Message) -> TokenStream {
    if m.members.is_empty() {
        return quote! {
            #[inline]
            fn size(&self) -> usize { 0 }
        };
    }
    let parts = m.members.iter().map(|member| match *member {
        Member::Field(i) => field_size(&m.fields[i]),
        Member::Oneof(i) => {
            let o = &m.oneofs[i];
            let ident = &o.ident;
            let path = &o.enum_path;
            let arms = o.fields.iter().map(|f| {
                let variant = &f.ident;
                let size = keyed_value_size(f, &value_ref(&f.value));
                if fixed_size(f).is_some() {
                    quote!(#path::#variant(_) => #size,)
                } else {
                    quote!(#path::#variant(v) => #size,)
                }
            });
            quote! {
                if let ::core::option::Option::Some(o) = &self.#ident {
                    n += match o { #(#arms)* };
                }
            }
        }
    });
    quote! {
        #[inline]
        fn size(&self) -> usize {
            let mut n = 0usize;
            #(#parts)*
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

/// `v` bound by reference (`for v in ..`, `Some(v) = &..`) turned into the value convention.
fn value_ref(value: &ValueType) -> TokenStream {
    match value {
        ValueType::Scalar(s) if is_copy(*s) => quote!(*v),
        _ => quote!(v),
    }
}

/// Size of one value of `f` without its key.
fn value_size(f: &Field, v: &TokenStream) -> TokenStream {
    match f.value {
        ValueType::Scalar(s) => scalar_size(s, v),
        ValueType::Message => {
            let size = size_call(f, v);
            quote!(::vtproto::wire::len_delimited(#size))
        }
        ValueType::Group => {
            let keys = usize_lit(2 * key_len(f.number));
            let size = size_call(f, v);
            quote!(#keys + #size)
        }
    }
}

/// `v.size()` for a message value of `f`; out of line when `f` is recursive.
fn size_call(f: &Field, v: &TokenStream) -> TokenStream {
    if f.recursive {
        quote!(::vtproto::__private::size_out_of_line(#v))
    } else {
        quote!(#v.size())
    }
}

/// Size of one value with its key when it doesn't depend on the value.
fn fixed_size(f: &Field) -> Option<usize> {
    match f.value {
        ValueType::Scalar(s) => fixed_width(s).map(|w| w + key_len(f.number)),
        _ => None,
    }
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
        ValueType::Group => size,
        _ => quote!(#key + #size),
    }
}

fn field_size(f: &Field) -> TokenStream {
    let ident = &f.ident;
    let key = key_len(f.number);
    match &f.label {
        Label::Implicit => {
            let ValueType::Scalar(s) = f.value else {
                unreachable!("implicit presence is for scalars")
            };
            let v = quote!(self.#ident);
            let cond = nonzero(s, &v);
            let size = keyed_value_size(f, &v);
            quote!(if #cond { n += #size; })
        }
        Label::Required => {
            // Out-of-line calls take a reference; inline ones auto-reference the place.
            let v = if f.recursive {
                quote!(&self.#ident)
            } else {
                quote!(self.#ident)
            };
            let size = keyed_value_size(f, &v);
            quote!(n += #size;)
        }
        Label::Optional => {
            if let ValueType::Scalar(s) = f.value {
                if let Some(w) = fixed_width(s) {
                    let each = usize_lit(key + w);
                    return quote!(if self.#ident.is_some() { n += #each; });
                }
            }
            let size = keyed_value_size(f, &value_ref(&f.value));
            quote! {
                if let ::core::option::Option::Some(v) = &self.#ident {
                    n += #size;
                }
            }
        }
        Label::Repeated { packed: false } => {
            let per = match f.value {
                ValueType::Scalar(s) => fixed_width(s),
                _ => None,
            };
            match per {
                Some(w) => {
                    let total = times(key + w, quote!(self.#ident.len()));
                    quote!(n += #total;)
                }
                None => {
                    let size = value_size(f, &value_ref(&f.value));
                    let keys = match f.value {
                        ValueType::Group => quote!(),
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
            }
        }
        Label::Repeated { packed: true } => {
            let ValueType::Scalar(s) = f.value else {
                unreachable!("only scalars are packed")
            };
            let key = usize_lit(key);
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
        Label::Map(map) => {
            let key = usize_lit(key);
            let k = if is_copy(map.key) {
                quote!(*k)
            } else {
                quote!(k)
            };
            let k_nonzero = nonzero(map.key, &k);
            let k_size = scalar_size(map.key, &k);
            let v_part = match &map.value {
                ValueType::Scalar(s) => {
                    let v = value_ref(&map.value);
                    let cond = if *s == crate::model::Scalar::Enum {
                        let d = proc_macro2::Literal::i32_unsuffixed(map.enum_default);
                        quote!(#v != #d)
                    } else {
                        nonzero(*s, &v)
                    };
                    let size = scalar_size(*s, &v);
                    quote!(if #cond { 1 + #size } else { 0 })
                }
                _ => {
                    let size = size_call(f, &quote!(v));
                    quote! {{
                        let s = #size;
                        if s != 0 { 1 + ::vtproto::wire::len_delimited(s) } else { 0 }
                    }}
                }
            };
            quote! {
                for (k, v) in &self.#ident {
                    let entry = (if #k_nonzero { 1 + #k_size } else { 0 }) + #v_part;
                    n += #key + ::vtproto::wire::len_delimited(entry);
                }
            }
        }
    }
}
