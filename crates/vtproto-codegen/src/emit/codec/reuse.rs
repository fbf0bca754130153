//! `Message::merge_replace`, behind `decode_into`: the decode loop of `merge_field`, with the
//! value's allocations reused instead of dropped. Scalars and strings are reset in place
//! (strings keep their capacity); repeated strings and messages are overwritten element by
//! element and the surplus truncated; a set optional string or message is kept aside and
//! reused when the field comes again; a string-keyed map whose keys are unchanged (checked by
//! a scan of the entries ahead) has its values overwritten in place, any other map is cleared
//! (keeping its table). Every other key goes to `merge_field`.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::decode::merge_message;
use super::{
    default_expr, is_copy, key_literal, merge_scalar, read_scalar, scalar_type, scalar_wire_type,
    wire_type, Dst, LEN,
};
use crate::model::{BytesRepr, Field, Label, MapField, Message, Scalar, ValueType};

/// What one field adds to `merge_replace`.
#[derive(Default)]
struct Plan {
    /// Statements before the loop: resets and the locals arms use.
    before: Vec<TokenStream>,
    /// Arms of the key `match`.
    arms: Vec<TokenStream>,
    /// Statements after the loop.
    after: Vec<TokenStream>,
    /// Fields whose spare capacity is trimmed after the loop (see `vtproto::__private::Retain`).
    trim: Vec<TokenStream>,
}

pub(super) fn merge_replace_fn(m: &Message) -> TokenStream {
    let mut plan = Plan::default();
    if let Some(u) = &m.unknown_fields {
        plan.before.push(quote!(self.#u.clear();));
    }
    for o in &m.oneofs {
        let ident = &o.ident;
        plan.before
            .push(quote!(self.#ident = ::core::option::Option::None;));
    }
    for f in &m.fields {
        field(f, &mut plan);
    }
    let Plan {
        before,
        arms,
        mut after,
        trim,
    } = plan;
    after.extend(
        trim.iter()
            .map(|f| quote!(::vtproto::__private::trim_retained(&mut self.#f);)),
    );
    // Nothing to reuse beyond the resets: the plain merge loop.
    let body = if arms.is_empty() && after.is_empty() {
        quote!(self.merge(r))
    } else {
        quote! {
            ::vtproto::__private::replace_loop::<Self>(r, |key, r| {
                match key {
                    #(#arms)*
                    _ => self.merge_field(key, r)?,
                }
                ::core::result::Result::Ok(())
            })?;
            #(#after)*
            ::core::result::Result::Ok(())
        }
    };
    quote! {
        #[inline]
        fn merge_replace(
            &mut self,
            r: &mut ::vtproto::Reader<'_>,
        ) -> ::core::result::Result<(), ::vtproto::DecodeError> {
            #(#before)*
            #body
        }
    }
}

/// A local of the generated function for field `f` (named by number: idents may be raw).
fn local(what: &str, f: &Field) -> Ident {
    format_ident!("{}_{}", what, f.number)
}

fn field(f: &Field, plan: &mut Plan) {
    let ident = &f.ident;
    let key = key_literal(f.number, wire_type(&f.value));
    match (&f.label, f.value.scalar()) {
        (Label::Required, Some(_)) if f.default.is_some() => {
            let value = default_expr(f, false);
            plan.before.push(quote!(self.#ident = #value;));
        }
        (Label::Implicit | Label::Required, Some(s)) if is_copy(s) => {
            plan.before
                .push(quote!(self.#ident = ::core::default::Default::default();));
        }
        (Label::Implicit | Label::Required, Some(s)) => {
            // A string or bytes value far larger than `RETAIN_SLACK` is given back: reading
            // a value reuses the capacity only up to twice its length (`merge_string`).
            if s == Scalar::String || f.bytes == BytesRepr::Vec {
                plan.before
                    .push(quote!(::vtproto::__private::clear_retained(&mut self.#ident);));
            } else {
                plan.before.push(quote!(self.#ident.clear();));
            }
        }
        (Label::Repeated { .. }, Some(s)) if is_copy(s) => {
            plan.before.push(quote!(self.#ident.clear();));
            plan.trim.push(quote!(#ident));
        }
        (Label::Optional, Some(s)) if is_copy(s) => {
            plan.before
                .push(quote!(self.#ident = ::core::option::Option::None;));
        }
        (Label::Optional, Some(s)) => {
            // Reading a string or bytes value replaces the old contents, keeping capacity.
            let merge = merge_scalar(s, f.bytes, Dst::MutRef(quote!(v)));
            spare(f, &merge, &merge, plan);
        }
        (Label::Required, None) => {
            let seen = local("seen", f);
            let merge = merge_message(&f.value, f.number, &quote!(&mut self.#ident));
            let replace = replace(&f.value, f.number, &quote!(&mut self.#ident));
            plan.before.push(quote!(let mut #seen = false;));
            plan.arms.push(quote!(#key => {
                if #seen { #merge } else { #seen = true; #replace }
            }));
            // A boxed field keeps its box.
            let place = if f.boxed {
                quote!(*self.#ident)
            } else {
                quote!(self.#ident)
            };
            plan.after
                .push(quote!(if !#seen { #place = ::core::default::Default::default(); }));
        }
        (Label::Optional | Label::Implicit, None) => {
            let merge = merge_message(&f.value, f.number, &quote!(v));
            let replace = replace(&f.value, f.number, &quote!(v));
            spare(f, &merge, &replace, plan);
        }
        (Label::Repeated { .. }, value) => repeated(f, value, plan),
        (Label::Map(map), _) => map_field(f, map, plan),
    }
}

/// An optional string or message set before the input is kept aside: the first occurrence
/// refills it (`fill`, into `v: &mut T`), later ones merge into it (`merge`); left unused, it is
/// dropped at the end.
fn spare(f: &Field, merge: &TokenStream, fill: &TokenStream, plan: &mut Plan) {
    let ident = &f.ident;
    let key = key_literal(f.number, wire_type(&f.value));
    let spare = local("spare", f);
    plan.before
        .push(quote!(let mut #spare = self.#ident.take();));
    plan.arms.push(quote!(#key => {
        match &mut self.#ident {
            ::core::option::Option::Some(v) => { #merge }
            ::core::option::Option::None => {
                let mut owned = #spare.take().unwrap_or_default();
                {
                    let v = &mut owned;
                    #fill
                }
                self.#ident = ::core::option::Option::Some(owned);
            }
        }
    }));
}

/// Replaces the message or group value `dst` (a `&mut M` expression) with the one read.
fn replace(value: &ValueType, number: u32, dst: &TokenStream) -> TokenStream {
    match value {
        ValueType::Group(_) => {
            let n = Literal::u32_unsuffixed(number);
            quote!(r.replace_group(#dst, #n)?;)
        }
        _ => quote!(r.replace_message(#dst)?;),
    }
}

/// Repeated strings, bytes and messages: element `count` is overwritten while there is one.
fn repeated(f: &Field, scalar: Option<Scalar>, plan: &mut Plan) {
    let ident = &f.ident;
    let count = local("count", f);
    let key = key_literal(f.number, wire_type(&f.value));
    let (reuse, push) = match scalar {
        Some(s) => (
            merge_scalar(s, f.bytes, Dst::MutRef(quote!(&mut self.#ident[#count]))),
            {
                let read = read_scalar(s, f.bytes);
                quote!(r.charge_element(&self.#ident)?; self.#ident.push(#read);)
            },
        ),
        None => {
            let reuse = replace(&f.value, f.number, &quote!(&mut self.#ident[#count]));
            let push = match f.value {
                ValueType::Group(_) => {
                    let n = Literal::u32_unsuffixed(f.number);
                    quote! {
                        r.charge_element(&self.#ident)?;
                        let mut v = ::core::default::Default::default();
                        r.merge_group(&mut v, #n)?;
                        self.#ident.push(v);
                    }
                }
                _ => quote!(self.#ident.push(r.read_message()?);),
            };
            (reuse, push)
        }
    };
    plan.before.push(quote!(let mut #count = 0usize;));
    plan.arms.push(quote!(#key => {
        if #count < self.#ident.len() { #reuse } else { #push }
        #count += 1;
    }));
    plan.after.push(quote!(self.#ident.truncate(#count);));
    plan.trim.push(quote!(#ident));
}

/// A string-keyed map is overwritten in place while the input names keys it has (see
/// `vtproto::__private::MapReuse`); any other map is cleared (keeping its table) and filled.
fn map_field(f: &Field, map: &MapField, plan: &mut Plan) {
    let ident = &f.ident;
    // A closed enum value decides between the map and the unknown fields: `merge_field` does.
    // So does mode=standalone, whose entries are read as the spec reads them.
    let closed = matches!(&map.value, ValueType::Enum(e) if e.closed);
    // A hash map gives back the table an earlier input grew past twice what it holds now
    // (an in-place string map does when it loses entries: `finish_str_map`).
    if map.key != Scalar::String || closed || map.full_entries {
        plan.before.push(quote!(self.#ident.clear();));
        if !map.btree {
            plan.trim.push(quote!(#ident));
        }
        return;
    }
    let state = local("map", f);
    let map_key = key_literal(f.number, LEN);
    let key_key = key_literal(1, scalar_wire_type(map.key));
    let (value_key, reset, merge, after_merge) = map_value(map);
    plan.before
        .push(quote!(let mut #state = ::vtproto::__private::MapReuse::default();));
    let value_ty = match map.value.scalar() {
        Some(s) => scalar_type(s, map.value_bytes),
        None => quote!(_),
    };
    plan.arms.push(quote!(#map_key => {
        let fill = |entry: &mut ::vtproto::Reader<'_>, v: &mut #value_ty| {
            #reset
            let found = entry.merge_map_value(#key_key, #value_key, v, #merge)?;
            #after_merge
            ::core::result::Result::Ok(())
        };
        if !::vtproto::__private::replace_str_map_entry(&mut self.#ident, &mut #state, r, #key_key, fill)? {
            self.merge_field(key, r)?;
        }
    }));
    plan.after
        .push(quote!(::vtproto::__private::finish_str_map(&mut self.#ident, &#state);));
}

/// For an in-place map entry with value `v`: the value's key, the reset before merging, the
/// merge closure, and what follows it (`found` says whether the entry had a value).
fn map_value(map: &MapField) -> (Literal, TokenStream, TokenStream, TokenStream) {
    match map.value.scalar() {
        Some(s) => {
            let merge = merge_scalar(s, map.value_bytes, Dst::MutRef(quote!(v)));
            let reset = match (s, map.value_bytes) {
                (Scalar::String, _) | (Scalar::Bytes, BytesRepr::Vec) => quote!(v.clear();),
                _ => {
                    let default = map_value_default(map);
                    quote!(*v = #default;)
                }
            };
            (
                key_literal(2, scalar_wire_type(s)),
                reset,
                quote!(|r, v| { #merge ::core::result::Result::Ok(()) }),
                quote!(let _ = found;),
            )
        }
        None => (
            key_literal(2, LEN),
            quote!(let mut first = true;),
            quote! {
                |r, v| {
                    if first {
                        first = false;
                        r.replace_message(v)
                    } else {
                        r.merge_message(v)
                    }
                }
            },
            quote!(if !found {
                *v = ::core::default::Default::default();
            }),
        ),
    }
}

/// A map value's default: an enum's first value, the type's zero otherwise.
fn map_value_default(map: &MapField) -> TokenStream {
    match &map.value {
        ValueType::Enum(e) => {
            let d = Literal::i32_unsuffixed(e.default);
            quote!(#d)
        }
        _ => quote!(::core::default::Default::default()),
    }
}
