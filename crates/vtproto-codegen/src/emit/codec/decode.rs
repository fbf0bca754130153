//! `Message::merge_field`: one `match` on the whole key, so the wire type is checked by the same
//! comparison that selects the field. Known field numbers with another wire type are errors (as
//! in prost); unknown fields are skipped.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{
    fixed_width, is_copy, key_literal, merge_scalar, read_scalar, scalar_type, scalar_wire_type,
    usize_lit, wire_type, Dst, LEN,
};
use crate::emit::names::Names;
use crate::model::{
    BytesRepr, ExtensionRef, Field, Label, MapField, Message, Oneof, Scalar, ValueType,
};

/// How a decoder reads values: the owned decode's way, or a view's.
pub(in crate::emit) struct Reads {
    /// The reader's lifetime in `merge_field`'s signature (`'_`, or a view's `'a`).
    pub lifetime: TokenStream,
    /// An expression reading one scalar value.
    pub scalar: fn(Scalar, BytesRepr) -> TokenStream,
    /// A statement merging a message or group value into `dst` (a `&mut M` expression).
    pub message: fn(&ValueType, u32, &TokenStream) -> TokenStream,
    /// Whether a oneof member holding a message is merged with one call to
    /// `Reader::merge_oneof_message` (owned messages), rather than spelled out.
    pub oneof_message: bool,
}

pub(super) fn merge_field_fn(m: &Message, names: &Names<'_>) -> TokenStream {
    let owned = Reads {
        lifetime: quote!('_),
        scalar: read_scalar,
        message: merge_message,
        oneof_message: true,
    };
    merge_field_with(m, &owned, |f| field_arms(m, f), extension_arms(m, names))
}

/// The arms reading the message's declared extensions into their types (`mode=standalone`):
/// every key of each extension's number, or, for a MessageSet, its items.
fn extension_arms(m: &Message, names: &Names<'_>) -> Vec<TokenStream> {
    let Some(unknown) = &m.unknown_fields else {
        return Vec::new();
    };
    if m.extensions.is_empty() {
        return Vec::new();
    }
    let constant =
        |x: &ExtensionRef| names.relative(&[], &x.constant.package, &x.constant.rust_path);
    let mut arms = Vec::new();
    if m.message_set {
        let item = key_literal(1, super::START_GROUP);
        let ids = m.extensions.iter().map(|x| {
            let id = Literal::u32_unsuffixed(x.number);
            let c = constant(x);
            quote!(#id => u.merge_set_extension(&#c, r),)
        });
        arms.push(quote! {
            #item => self.#unknown.merge_message_set_item(key, r, |u, id, r| match id {
                #(#ids)*
                _ => ::core::result::Result::Ok(false),
            }),
        });
    }
    // A MessageSet's extensions may also come as plain fields: the same values.
    let merge = if m.message_set {
        quote!(merge_message_set_extension)
    } else {
        quote!(merge_extension)
    };
    m.extensions
        .iter()
        .map(|x| {
            let low = Literal::u32_unsuffixed(x.number << 3);
            let high = Literal::u32_unsuffixed(x.number << 3 | 7);
            let c = constant(x);
            quote!(#low..=#high => self.#unknown.#merge(&#c, key, r),)
        })
        .chain(arms)
        .collect()
}

/// A closed enum's value in a message that keeps unknown fields: `store` (a statement using
/// `v`, the number read) runs for a declared number; an undeclared one becomes an unknown
/// varint field, as the spec asks. `None` for any other value.
pub(super) fn closed_enum_guard(
    m: &Message,
    f: &Field,
    value: &ValueType,
    store: &TokenStream,
) -> Option<TokenStream> {
    let (ValueType::Enum(e), Some(unknown)) = (value, &m.unknown_fields) else {
        return None;
    };
    if !e.closed {
        return None;
    }
    let known = known_numbers(&e.values.iter().map(|(n, _)| *n).collect::<Vec<_>>());
    let key = key_literal(f.number, crate::emit::VARINT);
    Some(quote! {
        let mark = r.mark();
        let v = r.read_int32()?;
        if #known {
            #store
        } else {
            self.#unknown.push_since(#key, mark, r)?;
        }
    })
}

/// The test that `v` is one of `numbers`.
fn known_numbers(numbers: &[i32]) -> TokenStream {
    let mut sorted = numbers.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let pats = sorted.iter().map(|n| Literal::i32_unsuffixed(*n));
    quote!(matches!(v, #(#pats)|*))
}

/// `merge_field` with these reads: an arm per key (`field_arms` for fields outside oneofs),
/// and known numbers with another wire type refused.
pub(in crate::emit) fn merge_field_with(
    m: &Message,
    reads: &Reads,
    field_arms: impl Fn(&Field) -> Vec<TokenStream>,
    extension_arms: Vec<TokenStream>,
) -> TokenStream {
    let lifetime = &reads.lifetime;
    let mut arms = Vec::new();
    for (oneof, f) in m.all_fields() {
        match oneof {
            Some(o) => arms.push(oneof_arm(m, o, f, reads)),
            None => arms.extend(field_arms(f)),
        }
    }
    let arms = arms.into_iter().map(tail_arm);
    let body = match &m.unknown_fields {
        // The spec's rule: anything not matching a declared field and wire type is kept.
        Some(unknown) => quote! {
            match key {
                #(#arms)*
                #(#extension_arms)*
                _ => self.#unknown.merge_field(key, r),
            }
        },
        // prost's rule: a declared number with another wire type is an error.
        None => {
            let (low, high): (Vec<u32>, Vec<u32>) = m
                .all_fields()
                .map(|(_, f)| f.number)
                .partition(|n| *n < 128);
            let low = low.iter().fold(0u128, |bits, n| bits | 1 << n);
            let low = if low == 0 {
                quote!(0)
            } else {
                let hex: TokenStream = format!("{low:#x}").parse().expect("a literal");
                hex
            };
            let patterns = number_patterns(high);
            let high = if patterns.is_empty() {
                quote!(false)
            } else {
                quote!(matches!(key >> 3, #(#patterns)|*))
            };
            quote! {
                match key {
                    #(#arms)*
                    _ => ::vtproto::__private::skip_unknown(r, key, #low, #high),
                }
            }
        }
    };
    quote! {
        #[inline]
        fn merge_field(
            &mut self,
            key: u32,
            r: &mut ::vtproto::Reader<#lifetime>,
        ) -> ::core::result::Result<(), ::vtproto::DecodeError> {
            #body
        }
    }
}

/// An arm `KEY => { statements }` as an arm whose value is the field's result: a lone
/// `r.method(..)?;` becomes `KEY => r.method(..),` (no `?` to expand, the most common arm),
/// anything else `KEY => { statements Ok(()) }`.
fn tail_arm(arm: TokenStream) -> TokenStream {
    use proc_macro2::{Delimiter, TokenTree};
    let mut tokens: Vec<TokenTree> = arm.into_iter().collect();
    let Some(TokenTree::Group(body)) = tokens.pop() else {
        unreachable!("arms end with their block")
    };
    debug_assert_eq!(body.delimiter(), Delimiter::Brace);
    let head: TokenStream = tokens.into_iter().collect();
    let mut stmt: Vec<TokenTree> = body.stream().into_iter().collect();
    let is_punct =
        |t: Option<&TokenTree>, c: char| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c);
    let lone_call = matches!(stmt.first(), Some(TokenTree::Ident(i)) if i == "r")
        && is_punct(stmt.get(1), '.')
        && is_punct(stmt.last(), ';')
        && is_punct(stmt.get(stmt.len().wrapping_sub(2)), '?')
        && stmt.iter().filter(|t| is_punct(Some(t), ';')).count() == 1;
    if lone_call {
        stmt.truncate(stmt.len() - 2);
        let call: TokenStream = stmt.into_iter().collect();
        return quote!(#head #call,);
    }
    // `self.x = r.read_t()?;` becomes `r.set_t(&mut self.x)` for the plain scalars, else
    // `r.set(&mut self.x, ::vtproto::Reader::read_t)`.
    if let [TokenTree::Ident(this), dot, TokenTree::Ident(field), eq, TokenTree::Ident(reader), dot2, TokenTree::Ident(read), TokenTree::Group(args), q, semi] =
        &stmt[..]
    {
        if this == "self"
            && reader == "r"
            && [(dot, '.'), (eq, '='), (dot2, '.'), (q, '?'), (semi, ';')]
                .iter()
                .all(|(t, c)| is_punct(Some(t), *c))
            && args.stream().is_empty()
        {
            if let Some(t) = read
                .to_string()
                .strip_prefix("read_")
                .filter(|t| PLAIN.contains(t))
            {
                let set = quote::format_ident!("set_{}", t);
                return quote!(#head r.#set(&mut self.#field),);
            }
            return quote!(#head r.set(&mut self.#field, ::vtproto::Reader::#read),);
        }
    }
    let body = body.stream();
    quote!(#head { #body ::core::result::Result::Ok(()) })
}

/// The scalars with a `Reader::set_<x>` and `Reader::push_<x>`: those read by value.
const PLAIN: [&str; 13] = [
    "int32", "int64", "uint32", "uint64", "sint32", "sint64", "bool", "fixed32", "fixed64",
    "sfixed32", "sfixed64", "float", "double",
];

/// A oneof member's arm: the last member read wins; a message merges into the same member's
/// value.
fn oneof_arm(m: &Message, o: &Oneof, f: &Field, reads: &Reads) -> TokenStream {
    let ident = &o.ident;
    let path = o.enum_path.tokens();
    let key = key_literal(f.number, wire_type(&f.value));
    let variant = &f.ident;
    let store = quote!(self.#ident = ::core::option::Option::Some(#path::#variant(v)););
    let body = match f.value.scalar() {
        Some(_) if closed_enum_guard(m, f, &f.value, &store).is_some() => {
            closed_enum_guard(m, f, &f.value, &store).unwrap()
        }
        Some(s) => {
            let read = (reads.scalar)(s, f.bytes);
            quote!(self.#ident = ::core::option::Option::Some(#path::#variant(#read));)
        }
        None if reads.oneof_message && matches!(f.value, ValueType::Message(_)) => {
            let some = quote!(::core::option::Option::Some);
            quote! {
                r.merge_oneof_message(
                    &mut self.#ident,
                    |o| match o {
                        #some(#path::#variant(v)) => #some(v),
                        _ => ::core::option::Option::None,
                    },
                    #path::#variant,
                )?;
            }
        }
        None => {
            let merge = (reads.message)(&f.value, f.number, &quote!(v));
            quote! {
                match &mut self.#ident {
                    ::core::option::Option::Some(#path::#variant(v)) => { #merge }
                    _ => {
                        let mut v = ::core::default::Default::default();
                        {
                            let v = &mut v;
                            #merge
                        }
                        self.#ident = ::core::option::Option::Some(#path::#variant(v));
                    }
                }
            }
        }
    };
    quote!(#key => { #body })
}

/// Field numbers as `matches!` patterns, consecutive runs as ranges (`1..=7 | 9`).
pub(in crate::emit) fn number_patterns(mut numbers: Vec<u32>) -> Vec<TokenStream> {
    numbers.sort_unstable();
    numbers.dedup();
    let mut out = Vec::new();
    let mut i = 0;
    while i < numbers.len() {
        let start = numbers[i];
        let mut end = start;
        while i + 1 < numbers.len() && numbers[i + 1] == end + 1 {
            i += 1;
            end = numbers[i];
        }
        let (a, b) = (Literal::u32_unsuffixed(start), Literal::u32_unsuffixed(end));
        out.push(match end - start {
            0 => quote!(#a),
            1 => quote!(#a | #b),
            _ => quote!(#a..=#b),
        });
        i += 1;
    }
    out
}

/// Most entries a map reserves room for: equal keys collapse, so a count of entries is only an
/// upper bound of the final size.
const MAP_CAP: usize = 256;

/// On the first entry of a still empty map, counts the entries ahead in the message and
/// reserves room for them (up to `cap`): one table allocation instead of a growth sequence with
/// rehashing. Lists are not reserved this way: a large early allocation measured slower
/// (`benches/RESULTS.md`), as it makes the allocator consolidate the previous message's frees.
fn reserve_ahead(f: &Field, cap: usize) -> TokenStream {
    let ident = &f.ident;
    let key = key_literal(f.number, LEN);
    let cap = usize_lit(cap);
    quote! {
        if self.#ident.is_empty() {
            ::vtproto::__private::reserve_ahead(&mut self.#ident, r, #key, #cap);
        }
    }
}

/// Merges a message or group value into `dst` (a `&mut M` expression).
pub(super) fn merge_message(value: &ValueType, number: u32, dst: &TokenStream) -> TokenStream {
    match value {
        ValueType::Group(_) => {
            let n = Literal::u32_unsuffixed(number);
            quote!(r.merge_group(#dst, #n)?;)
        }
        _ => quote!(r.merge_message(#dst)?;),
    }
}

fn field_arms(m: &Message, f: &Field) -> Vec<TokenStream> {
    let ident = &f.ident;
    let key = key_literal(f.number, wire_type(&f.value));
    let default = quote!(::core::default::Default::default);
    if let Some(arms) = closed_enum_arms(m, f) {
        return arms;
    }
    match (&f.label, f.value.scalar()) {
        (Label::Implicit | Label::Required, Some(s)) => {
            let merge = merge_scalar(s, f.bytes, Dst::Place(quote!(self.#ident)));
            vec![quote!(#key => { #merge })]
        }
        (Label::Optional, Some(s)) if is_copy(s) => {
            let read = read_scalar(s, f.bytes);
            vec![quote!(#key => { self.#ident = ::core::option::Option::Some(#read); })]
        }
        (Label::Optional, Some(s)) => {
            let merge = merge_scalar(
                s,
                f.bytes,
                Dst::MutRef(quote!(self.#ident.get_or_insert_with(#default))),
            );
            vec![quote!(#key => { #merge })]
        }
        (Label::Required, None) => {
            let merge = merge_message(&f.value, f.number, &quote!(&mut self.#ident));
            vec![quote!(#key => { #merge })]
        }
        (Label::Optional | Label::Implicit, None) if matches!(f.value, ValueType::Message(_)) => {
            vec![quote!(#key => { r.merge_message_field(&mut self.#ident)?; })]
        }
        (Label::Repeated { .. }, None) if matches!(f.value, ValueType::Message(_)) => {
            vec![quote!(#key => { r.push_message(&mut self.#ident)?; })]
        }
        (Label::Repeated { .. }, Some(Scalar::String)) => {
            vec![quote!(#key => { r.push_string(&mut self.#ident)?; })]
        }
        (Label::Optional | Label::Implicit, None) => {
            let merge = merge_message(
                &f.value,
                f.number,
                &quote!(self.#ident.get_or_insert_with(#default)),
            );
            vec![quote!(#key => { #merge })]
        }
        (Label::Repeated { .. }, Some(s)) => repeated_scalar_arms(f, s),
        (Label::Repeated { .. }, None) => vec![repeated_message_arm(f)],
        (Label::Map(map), _) if super::is_bytes_map(f, map, false) && !map.btree => {
            let map_key = key_literal(f.number, LEN);
            let cap = usize_lit(MAP_CAP);
            let full = map.full_entries;
            vec![quote!(#map_key => {
                r.merge_string_map_entry(&mut self.#ident, #map_key, #cap, #full)?;
            })]
        }
        (Label::Map(map), _) => {
            let map_key = key_literal(f.number, LEN);
            let insert = map_insert(f, map);
            vec![quote!(#map_key => { #insert })]
        }
    }
}

/// The arms of a closed enum field outside a oneof, in a message that keeps unknown fields.
fn closed_enum_arms(m: &Message, f: &Field) -> Option<Vec<TokenStream>> {
    let ident = &f.ident;
    let key = key_literal(f.number, wire_type(&f.value));
    let store = match &f.label {
        Label::Implicit | Label::Required => quote!(self.#ident = v;),
        Label::Optional => quote!(self.#ident = ::core::option::Option::Some(v);),
        Label::Repeated { .. } => quote!(r.charge_element(&self.#ident)?; self.#ident.push(v);),
        Label::Map(map) => return closed_enum_map_arm(m, f, map).map(|a| vec![a]),
    };
    let guarded = closed_enum_guard(m, f, &f.value, &store)?;
    let mut arms = vec![quote!(#key => { #guarded })];
    if let (Label::Repeated { .. }, ValueType::Enum(e), Some(unknown)) =
        (&f.label, &f.value, &m.unknown_fields)
    {
        let packed = key_literal(f.number, LEN);
        let known = known_numbers(&e.values.iter().map(|(n, _)| *n).collect::<Vec<_>>());
        let n = Literal::u32_unsuffixed(f.number);
        arms.push(quote!(#packed => {
            r.merge_packed_closed_enum(&mut self.#ident, &mut self.#unknown, #n, |v| #known)?;
        }));
    }
    Some(arms)
}

/// A map whose values are a closed enum: an entry with an undeclared value is kept whole
/// among the unknown fields, as the spec asks.
fn closed_enum_map_arm(m: &Message, f: &Field, map: &MapField) -> Option<TokenStream> {
    let (ValueType::Enum(e), Some(unknown)) = (&map.value, &m.unknown_fields) else {
        return None;
    };
    if !e.closed {
        return None;
    }
    let ident = &f.ident;
    let map_key = key_literal(f.number, LEN);
    let known = known_numbers(&e.values.iter().map(|(n, _)| *n).collect::<Vec<_>>());
    let read = map_entry_read(f, map);
    Some(quote!(#map_key => {
        let mark = r.mark();
        #read
        if #known {
            self.#ident.insert(k, v);
        } else {
            self.#unknown.push_since(#map_key, mark, r)?;
        }
    }))
}

/// A repeated scalar: one value per record, or a packed run of them.
fn repeated_scalar_arms(f: &Field, s: Scalar) -> Vec<TokenStream> {
    let ident = &f.ident;
    let key = key_literal(f.number, wire_type(&f.value));
    let mut arms = if is_copy(s) {
        let push = super::method("push", s);
        vec![quote!(#key => { r.#push(&mut self.#ident)?; })]
    } else {
        let read = read_scalar(s, f.bytes);
        vec![quote!(#key => { r.charge_element(&self.#ident)?; self.#ident.push(#read); })]
    };
    if s.packable() {
        let packed = key_literal(f.number, LEN);
        let width = usize_lit(fixed_width(s).unwrap_or(0));
        let m = super::method("read", s);
        arms.push(quote!(#packed => { r.merge_packed(&mut self.#ident, #width, |r| r.#m())?; }));
    }
    arms
}

fn repeated_message_arm(f: &Field) -> TokenStream {
    let ident = &f.ident;
    let key = key_literal(f.number, wire_type(&f.value));
    if let ValueType::Group(_) = f.value {
        let n = Literal::u32_unsuffixed(f.number);
        return quote!(#key => {
            r.charge_element(&self.#ident)?;
            let mut v = ::core::default::Default::default();
            r.merge_group(&mut v, #n)?;
            self.#ident.push(v);
        });
    }
    quote!(#key => { self.#ident.push(r.read_message()?); })
}

/// Reads one map entry into a new key and value, which start at their defaults (either may
/// be missing), and inserts them: the body of the map's arm.
pub(super) fn map_insert(f: &Field, map: &MapField) -> TokenStream {
    let ident = &f.ident;
    let read = map_entry_read(f, map);
    quote! {
        #read
        self.#ident.insert(k, v);
    }
}

/// Reads one map entry into new locals `k` and `v` (reserving room ahead in the map first).
fn map_entry_read(f: &Field, map: &MapField) -> TokenStream {
    let key_ty = scalar_type(map.key, BytesRepr::Vec);
    let key_key = key_literal(1, scalar_wire_type(map.key));
    let merge_key = merge_scalar(map.key, BytesRepr::Vec, Dst::MutRef(quote!(k)));
    let (value_init, value_key, merge_value) = match map.value.scalar() {
        Some(s) => {
            let ty = scalar_type(s, map.value_bytes);
            let init = if let ValueType::Enum(e) = &map.value {
                let d = Literal::i32_unsuffixed(e.default);
                quote!(let mut v: #ty = #d;)
            } else {
                quote!(let mut v: #ty = ::core::default::Default::default();)
            };
            let merge = merge_scalar(s, map.value_bytes, Dst::MutRef(quote!(v)));
            (
                init,
                key_literal(2, scalar_wire_type(s)),
                quote!(|r, v: &mut #ty| { #merge ::core::result::Result::Ok(()) }),
            )
        }
        None => (
            quote!(let mut v = ::core::default::Default::default();),
            key_literal(2, LEN),
            quote!(|r, v| r.merge_message(v)),
        ),
    };
    // Our own structs read an entry as the spec does; prost's as prost does.
    let entry = if map.full_entries {
        quote!(merge_map_entry_as_spec)
    } else {
        quote!(merge_map_entry)
    };
    // BTreeMap has no capacity to reserve.
    let reserve = if map.btree {
        quote!()
    } else {
        reserve_ahead(f, MAP_CAP)
    };
    quote! {
        #reserve
        let mut k: #key_ty = ::core::default::Default::default();
        #value_init
        r.#entry(&mut k, &mut v, #key_key, #value_key,
            |r, k: &mut #key_ty| { #merge_key ::core::result::Result::Ok(()) },
            #merge_value)?;
    }
}
