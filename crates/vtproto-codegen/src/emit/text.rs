//! The `text` feature: `impl ::vtproto::text::TextMessage` for each message (the protobuf text
//! format), and a `register_text_types` function per package for `Any`. Written the way the
//! `json` feature is: each field's name a literal (a group-like field under its type's name,
//! as the format spells it; an extension as `[full.name]`), values written straight into the
//! output, and on parse one `match` from name to field per message, then straight-line code per
//! field. The runtime (`vtproto::text`) owns the text: tokens, number forms, escapes, lists,
//! unknown fields, `Any`.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::json::{enum_path, extension_const, foreign_enums, message_set_alias, value_ref};
use super::names::Names;
use super::Feature;
use crate::model::{
    BytesRepr, ExtensionRef, Field, Label, MapField, Message, Oneof, Scalar, ValueType,
};

/// The feature's registration.
pub(super) const FEATURE: Feature = Feature {
    name: "text",
    emit: |package, options, out| {
        let names = Names { package, options };
        let mut registered = Vec::new();
        for m in &package.messages {
            if m.full_name == "google.protobuf.Any" {
                // Written by hand in the runtime (expanded `[type.googleapis.com/..] { .. }`).
                continue;
            }
            if !options.uses_tables(&format!(".{}", m.full_name)) {
                out(message_impl(m, &names));
            } else if super::json::SPECIAL_FORMS.contains(&m.full_name.as_str()) {
                // Its JSON is the runtime's: its text only from the tables.
                out(super::reflect::table_impl(m));
            }
            let path = m.rust_path.tokens();
            registered.push(quote!(registry.add_text::<#path>();));
        }
        // With `json` its lookups serve both. The runtime's own well-known types, whose JSON
        // and text impls are generated apart, take these only where its `json` feature, which
        // has the same ones, is off: its text format does not need its JSON.
        let runtime_wkt = options.compile_well_known_types && package.name == "google.protobuf";
        let lookups_elsewhere = super::is_selected(options, super::json::FEATURE.name)
            || foreign_enums(&package.name, options);
        if !lookups_elsewhere && super::reads_enum_names(options) {
            for e in &package.enums {
                let lookup = super::json::enum_lookup(e);
                out(if runtime_wkt {
                    quote!(#[cfg(not(feature = "json"))] #lookup)
                } else {
                    lookup
                });
            }
        }
        out(quote! {
            /// Adds this package's messages to `registry`, so that an `Any` holding one of
            /// them reads and writes expanded in the text format.
            // Inline: compiled only where it is called.
            #[inline]
            pub fn register_text_types(registry: &mut ::vtproto::TypeRegistry) {
                #(#registered)*
                let _ = registry;
            }
        });
    },
};

/// The name a field has in the text format: a group-like field (a group, or a delimited
/// field whose type is declared beside it and named as the field, capitalized) is named by its
/// type.
fn text_name(m: &Message, f: &Field) -> String {
    if let ValueType::Group(t) = &f.value {
        if let Some((scope, name)) = t.full_name.rsplit_once('.') {
            if scope == m.full_name && name.to_ascii_lowercase() == f.name {
                return name.to_string();
            }
        }
    }
    f.name.clone()
}

fn message_impl(m: &Message, names: &Names<'_>) -> TokenStream {
    let path = m.rust_path.tokens();
    let write = write_fn(m, names);
    let merge = merge_fn(m, names);
    let deprecated = m.all_fields().any(|(_, f)| f.deprecated);
    let allow = deprecated.then(|| quote!(#[allow(deprecated)]));
    quote! {
        #allow
        impl ::vtproto::text::TextMessage for #path {
            #write
            #merge
        }
    }
}

/// Writes field `name` with value `v` (the codec's value convention: `Copy` scalars by value,
/// the rest as places or references).
fn write_value(name: &str, value: &ValueType, v: &TokenStream, names: &Names<'_>) -> TokenStream {
    let scalar = |write: TokenStream| quote!(w.field(#name); #write);
    match value {
        ValueType::Scalar(s) => scalar(match s {
            Scalar::Double => quote!(w.f64(#v);),
            Scalar::Float => quote!(w.f32(#v);),
            Scalar::Int32 | Scalar::Sint32 | Scalar::Sfixed32 | Scalar::Enum => quote!(w.i32(#v);),
            Scalar::Uint32 | Scalar::Fixed32 => quote!(w.u32(#v);),
            Scalar::Int64 | Scalar::Sint64 | Scalar::Sfixed64 => quote!(w.i64(#v);),
            Scalar::Uint64 | Scalar::Fixed64 => quote!(w.u64(#v);),
            Scalar::Bool => quote!(w.bool(#v);),
            Scalar::String => quote!(w.str(&#v);),
            Scalar::Bytes => quote!(w.bytes(&#v);),
        }),
        ValueType::Enum(e) => {
            let path = enum_path(&e.ty, names);
            scalar(quote!(w.enum_value(#v, #path::try_from(#v).ok().map(|e| e.as_str_name()));))
        }
        ValueType::Message(_) | ValueType::Group(_) => {
            quote! {
                w.begin_message(#name);
                #v.write_text(w)?;
                w.end_message();
            }
        }
    }
}

fn nonzero(f: &Field, v: &TokenStream) -> TokenStream {
    match f.value.scalar().expect("implicit presence is for scalars") {
        // `-0.0` is printed in both modes (prost's binary encoder skips it; its value is kept).
        Scalar::Double | Scalar::Float => quote!(#v.to_bits() != 0),
        Scalar::Bool => quote!(#v),
        Scalar::String | Scalar::Bytes => quote!(!#v.is_empty()),
        _ => quote!(#v != 0),
    }
}

fn write_fn(m: &Message, names: &Names<'_>) -> TokenStream {
    let members = m.members().map(|member| match member {
        crate::model::MemberRef::Field(f) => write_field(m, f, names),
        crate::model::MemberRef::Oneof(o) => write_oneof(m, o, names),
    });
    let extensions = m.extensions.iter().map(|x| write_extension(m, x, names));
    let unknown = m
        .unknown_fields
        .as_ref()
        .map(|u| quote!(w.unknown_fields(self.#u.as_bytes());));
    quote! {
        #[allow(unused_variables)]
        fn write_text(
            &self,
            w: &mut ::vtproto::text::TextWriter<'_>,
        ) -> ::core::result::Result<(), ::vtproto::text::TextError> {
            #[allow(unused_imports)]
            use ::vtproto::text::TextMessage as _;
            #(#members)*
            #(#extensions)*
            #unknown
            ::core::result::Result::Ok(())
        }
    }
}

fn write_field(m: &Message, f: &Field, names: &Names<'_>) -> TokenStream {
    let ident = &f.ident;
    let name = text_name(m, f);
    match &f.label {
        Label::Implicit => {
            let v = quote!(self.#ident);
            let cond = nonzero(f, &v);
            let write = write_value(&name, &f.value, &v, names);
            quote! {
                if #cond {
                    #write
                }
            }
        }
        Label::Required => write_value(&name, &f.value, &quote!(self.#ident), names),
        Label::Optional => {
            let write = write_value(&name, &f.value, &value_ref(&f.value), names);
            quote! {
                if let ::core::option::Option::Some(v) = &self.#ident {
                    #write
                }
            }
        }
        Label::Repeated { .. } => {
            let write = write_value(&name, &f.value, &value_ref(&f.value), names);
            quote! {
                for v in &self.#ident {
                    #write
                }
            }
        }
        Label::Map(map) => {
            let key = write_value("key", &ValueType::Scalar(map.key), &quote!(*k), names);
            let key = match map.key {
                Scalar::String => {
                    write_value("key", &ValueType::Scalar(map.key), &quote!(k), names)
                }
                _ => key,
            };
            let value = write_value("value", &map.value, &value_ref(&map.value), names);
            // Entries in key order, as C++ prints them: the same value prints the same text
            // (a golden file's need), whatever the `HashMap`'s order.
            let entries = if map.btree {
                quote!(&self.#ident)
            } else {
                quote! {{
                    let mut entries: ::std::vec::Vec<_> = self.#ident.iter().collect();
                    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
                    entries
                }}
            };
            quote! {
                for (k, v) in #entries {
                    w.begin_message(#name);
                    #key
                    #value
                    w.end_message();
                }
            }
        }
    }
}

fn write_oneof(m: &Message, o: &Oneof, names: &Names<'_>) -> TokenStream {
    let ident = &o.ident;
    let path = o.enum_path.tokens();
    let arms = o.fields.iter().map(|f| {
        let variant = &f.ident;
        let write = write_value(&text_name(m, f), &f.value, &value_ref(&f.value), names);
        quote!(#path::#variant(v) => { #write })
    });
    quote! {
        if let ::core::option::Option::Some(o) = &self.#ident {
            match o {
                #(#arms)*
            }
        }
    }
}

/// The name a declared extension is printed under, and the other it is read by: a
/// MessageSet's extension declared in its own message type prints by that type's name, as C++
/// prints it ([`message_set_alias`]).
fn extension_name(m: &Message, x: &ExtensionRef) -> (String, Option<String>) {
    let key = format!("[{}]", x.full_name);
    match message_set_alias(m, x) {
        Some(alias) => (alias, Some(key)),
        None => (key, None),
    }
}

/// A declared extension (`mode=standalone`).
fn write_extension(m: &Message, x: &ExtensionRef, names: &Names<'_>) -> TokenStream {
    let constant = extension_const(x, names);
    let (name, _) = extension_name(m, x);
    let f = &x.field;
    let write = match f.label {
        Label::Repeated { .. } => {
            let one = write_value(&name, &f.value, &value_ref(&f.value), names);
            quote! {
                for v in &v {
                    #one
                }
            }
        }
        _ => write_value(&name, &f.value, &quote!(v), names),
    };
    quote! {
        if let ::core::option::Option::Some(v) = ::vtproto::Extendable::extension(self, &#constant)
            .map_err(|e| ::vtproto::text::TextError::new(
                ::vtproto::text::TextErrorKind::Decode(e.to_string()),
            ))?
        {
            #write
        }
    }
}

/// Reads one scalar value of `value` as an expression (`?` inside).
fn read_value(value: &ValueType, bytes: BytesRepr, names: &Names<'_>) -> TokenStream {
    match value {
        ValueType::Scalar(s) => match s {
            Scalar::Double => quote!(r.f64()?),
            Scalar::Float => quote!(r.f32()?),
            Scalar::Int32 | Scalar::Sint32 | Scalar::Sfixed32 | Scalar::Enum => quote!(r.i32()?),
            Scalar::Uint32 | Scalar::Fixed32 => quote!(r.u32()?),
            Scalar::Int64 | Scalar::Sint64 | Scalar::Sfixed64 => quote!(r.i64()?),
            Scalar::Uint64 | Scalar::Fixed64 => quote!(r.u64()?),
            Scalar::Bool => quote!(r.bool()?),
            Scalar::String => quote!(r.string()?),
            Scalar::Bytes => match bytes {
                BytesRepr::Vec => quote!(r.bytes()?),
                BytesRepr::Bytes => quote!(::vtproto::bytes::Bytes::from(r.bytes()?)),
            },
        },
        ValueType::Enum(e) => {
            let path = enum_path(&e.ty, names);
            let lookup = if names.options.is_extern(&format!(".{}", e.ty.full_name))
                || foreign_enums(&e.ty.package, names.options)
            {
                quote!(|name| #path::from_str_name(name).map(|e| e as i32))
            } else {
                quote!(#path::from_json_name)
            };
            // Our closed enums hold declared numbers only; prost's structs hold any (as
            // prost's binary decoder keeps them), so their text reads any back.
            if e.closed && names.options.mode == crate::Mode::Standalone {
                quote!(r.closed_enum_value(#lookup, |n| #path::try_from(n).is_ok())?)
            } else {
                quote!(r.enum_value(#lookup)?)
            }
        }
        ValueType::Message(_) | ValueType::Group(_) => {
            quote!(::vtproto::text::__private::read_message(r)?)
        }
    }
}

fn is_message(value: &ValueType) -> bool {
    matches!(value, ValueType::Message(_) | ValueType::Group(_))
}

/// The `:` (required before a scalar, optional before a message) and the items of a repeated
/// field.
fn items(value: &ValueType) -> TokenStream {
    if is_message(value) {
        quote!(r.message_items()?)
    } else {
        quote!(r.scalar_items()?)
    }
}

/// The statements reading one occurrence of field `f` into `m` (a `&mut` of the message).
fn read_field(f: &Field, bit: usize, names: &Names<'_>) -> TokenStream {
    let ident = &f.ident;
    let bit = Literal::usize_unsuffixed(bit);
    // A singular field twice is an error, unless the first left an implicit-presence field
    // at its default (as C++ and Python check it: by presence).
    let present = match f.label {
        Label::Implicit => {
            let nonzero = nonzero(f, &quote!(m.#ident));
            quote!(&& #nonzero)
        }
        _ => quote!(),
    };
    let once = quote! {
        if !::vtproto::text::__private::first(seen, #bit) #present {
            return ::core::result::Result::Err(r.duplicate());
        }
    };
    match &f.label {
        Label::Implicit | Label::Required | Label::Optional => {
            if is_message(&f.value) {
                // A boxed field's message itself.
                let target = match (f.label == Label::Optional, f.boxed) {
                    (true, false) => {
                        quote!(m.#ident.get_or_insert_with(::core::default::Default::default))
                    }
                    (true, true) => {
                        quote!(&mut **m.#ident.get_or_insert_with(::core::default::Default::default))
                    }
                    (false, false) => quote!(&mut m.#ident),
                    (false, true) => quote!(&mut *m.#ident),
                };
                let charge = (f.boxed && f.label == Label::Optional)
                    .then(|| quote!(r.charge_boxed(&m.#ident)?;));
                quote! {
                    #once
                    r.message_colon();
                    #charge
                    ::vtproto::text::__private::merge_message(r, #target)?;
                }
            } else {
                let v = read_value(&f.value, f.bytes, names);
                let set = match f.label {
                    Label::Optional => quote!(m.#ident = ::core::option::Option::Some(#v);),
                    _ => quote!(m.#ident = #v;),
                };
                quote! {
                    #once
                    r.colon()?;
                    #set
                }
            }
        }
        Label::Repeated { .. } => {
            let items = items(&f.value);
            let v = read_value(&f.value, f.bytes, names);
            // A message value is charged as it is read.
            let charge = (!is_message(&f.value)).then(|| quote!(r.charge_element(&m.#ident)?;));
            quote! {
                let mut items = #items;
                while items.next(r)? {
                    #charge
                    m.#ident.push(#v);
                }
            }
        }
        Label::Map(map) => read_map(f, map, names),
    }
}

fn read_map(f: &Field, map: &MapField, names: &Names<'_>) -> TokenStream {
    let ident = &f.ident;
    let presence = map.entry_presence;
    // A float's `-0.0` is set (its bits tell), as for an implicit-presence field.
    let (value_init, value_set) = match map.value {
        ValueType::Scalar(Scalar::Float) => (quote!(0f32), quote!(v.to_bits() != 0)),
        ValueType::Scalar(Scalar::Double) => (quote!(0f64), quote!(v.to_bits() != 0)),
        // A message value is set once read, empty or not (C++ and Python refuse a second).
        ValueType::Message(_) | ValueType::Group(_) => {
            (quote!(::core::default::Default::default()), quote!())
        }
        _ => (
            quote!(::core::default::Default::default()),
            quote!(!::vtproto::text::__private::is_default(&v)),
        ),
    };
    // When a second `value` is an error: always for a message, else once it holds more than
    // its default or where the file tracks presence.
    let value_again = if value_set.is_empty() {
        quote!()
    } else {
        quote!(&& (#presence || #value_set))
    };
    let key = read_value(&ValueType::Scalar(map.key), BytesRepr::Vec, names);
    let value = if is_message(&map.value) {
        quote! {
            r.message_colon();
            ::vtproto::text::__private::merge_message(r, &mut v)?;
        }
    } else {
        let v = read_value(&map.value, map.value_bytes, names);
        quote! {
            r.colon()?;
            v = #v;
        }
    };
    quote! {
        let mut items = r.message_items()?;
        while items.next(r)? {
            r.begin_message()?;
            let mut k = ::core::default::Default::default();
            let mut v = #value_init;
            let mut seen = [0u64; 1];
            while let ::core::option::Option::Some(name) = r.next_field()? {
                match &*name {
                    "key" => {
                        if !::vtproto::text::__private::first(&mut seen, 0)
                            && (#presence || !::vtproto::text::__private::is_default(&k))
                        {
                            return ::core::result::Result::Err(r.duplicate());
                        }
                        r.colon()?;
                        k = #key;
                    }
                    "value" => {
                        if !::vtproto::text::__private::first(&mut seen, 1) #value_again {
                            return ::core::result::Result::Err(r.duplicate());
                        }
                        #value
                    }
                    other => {
                        r.skip_unknown_field(other)?;
                        continue;
                    }
                }
                r.end_field();
            }
            r.charge_value(&k)?;
            r.charge_value(&v)?;
            m.#ident.insert(k, v);
        }
    }
}

/// The statements reading oneof member `f` (the oneof's one value).
fn read_oneof_member(o: &Oneof, f: &Field, bit: usize, names: &Names<'_>) -> TokenStream {
    let ident = &o.ident;
    let path = o.enum_path.tokens();
    let variant = &f.ident;
    let bit = Literal::usize_unsuffixed(bit);
    let v = read_value(&f.value, f.bytes, names);
    let v = if f.boxed {
        quote!(::std::boxed::Box::new(#v))
    } else {
        v
    };
    let colon = if is_message(&f.value) {
        quote!(r.message_colon();)
    } else {
        quote!(r.colon()?;)
    };
    quote! {
        if !::vtproto::text::__private::first(seen, #bit) {
            return ::core::result::Result::Err(r.duplicate());
        }
        #colon
        m.#ident = ::core::option::Option::Some(#path::#variant(#v));
    }
}

/// Reads a declared extension into its typed value (a repeated one appends).
/// Reads a singular declared extension into its typed value.
fn read_extension(x: &ExtensionRef, bit: usize, names: &Names<'_>) -> TokenStream {
    let constant = extension_const(x, names);
    let f = &x.field;
    let v = read_value(&f.value, BytesRepr::Vec, names);
    let bit = Literal::usize_unsuffixed(bit);
    let colon = if is_message(&f.value) {
        quote!(r.message_colon();)
    } else {
        quote!(r.colon()?;)
    };
    quote! {
        if !::vtproto::text::__private::first(seen, #bit) {
            return ::core::result::Result::Err(r.duplicate());
        }
        #colon
        let v = #v;
        ::vtproto::Extendable::set_extension(m, &#constant, v);
    }
}

/// A repeated declared extension: its values gather in a local (`pending`, seeded with the
/// values the message had) and are set once after the last field, so that `n` occurrences
/// cost `n` pushes, not `n` copies of the list.
struct RepeatedExtension {
    declare: TokenStream,
    arm: TokenStream,
    set: TokenStream,
}

fn repeated_extension(x: &ExtensionRef, index: usize, names: &Names<'_>) -> RepeatedExtension {
    let constant = extension_const(x, names);
    let f = &x.field;
    let v = read_value(&f.value, BytesRepr::Vec, names);
    let items = items(&f.value);
    let charge = (!is_message(&f.value)).then(|| quote!(r.charge_element(vals)?;));
    let pending = quote::format_ident!("pending_{}", index);
    let index = Literal::usize_unsuffixed(index);
    RepeatedExtension {
        declare: quote!(let mut #pending = ::core::option::Option::None;),
        arm: quote! {
            #index => {
                let vals = #pending.get_or_insert_with(|| {
                    ::vtproto::Extendable::extension(&*self, &#constant)
                        .ok()
                        .flatten()
                        .unwrap_or_default()
                });
                (|r: &mut ::vtproto::text::TextReader<'_, '_>,
                  vals: &mut ::std::vec::Vec<_>|
                 -> ::core::result::Result<(), ::vtproto::text::TextError> {
                    let mut items = #items;
                    while items.next(r)? {
                        #charge
                        vals.push(#v);
                    }
                    ::core::result::Result::Ok(())
                })(r, vals)
            }
        },
        set: quote! {
            if let ::core::option::Option::Some(v) = #pending {
                ::vtproto::Extendable::set_extension(self, &#constant, v);
            }
        },
    }
}

fn merge_fn(m: &Message, names: &Names<'_>) -> TokenStream {
    let path = m.rust_path.tokens();
    let all: Vec<(Option<&Oneof>, &Field)> = m.all_fields().collect();
    let oneof_bit =
        |o: &Oneof| all.len() + m.oneofs.iter().position(|x| x.name == o.name).unwrap_or(0);
    let bits = all.len() + m.oneofs.len() + m.extensions.len();
    let words = Literal::usize_unsuffixed(bits.div_ceil(64).max(1));
    let mut lookup = Vec::new();
    let mut arms = Vec::new();
    let mut field_names = Vec::new();
    let mut taken = std::collections::HashSet::new();
    for (i, (oneof, f)) in all.iter().enumerate() {
        let index = Literal::usize_unsuffixed(i);
        // A group-like field reads under its type's name and its own.
        let name = text_name(m, f);
        if name != f.name && taken.insert(name.clone()) {
            lookup.push(quote!(#name => #index,));
        }
        let proto = &f.name;
        if taken.insert(proto.clone()) {
            lookup.push(quote!(#proto => #index,));
        }
        let body = match oneof {
            Some(o) => read_oneof_member(o, f, oneof_bit(o), names),
            None => read_field(f, i, names),
        };
        arms.push(quote!(#index => { #body }));
        field_names.push(f.name.clone());
    }
    field_names.extend(std::iter::repeat_n(String::new(), m.oneofs.len()));
    let mut repeated = Vec::new();
    for (i, x) in m.extensions.iter().enumerate() {
        let bit = all.len() + m.oneofs.len() + i;
        let index = Literal::usize_unsuffixed(bit);
        let (key, alias) = extension_name(m, x);
        match alias {
            Some(alias) => lookup.push(quote!(#key | #alias => #index,)),
            None => lookup.push(quote!(#key => #index,)),
        }
        if matches!(x.field.label, Label::Repeated { .. }) {
            repeated.push(repeated_extension(x, bit, names));
        } else {
            let body = read_extension(x, bit, names);
            arms.push(quote!(#index => { #body }));
        }
        field_names.push(x.full_name.clone());
    }
    let count = Literal::usize_unsuffixed(field_names.len());
    // Reserved names are skipped, whatever their value.
    let reserved_names: Vec<&String> = m
        .reserved_names
        .iter()
        .filter(|n| !taken.contains(*n))
        .collect();
    let reserved = (!reserved_names.is_empty()).then(|| {
        quote! {
            #(#reserved_names)|* => {
                r.skip_field()?;
                r.end_field();
                continue;
            }
        }
    });
    if all.is_empty() && m.extensions.is_empty() {
        return quote! {
            fn merge_text(
                &mut self,
                r: &mut ::vtproto::text::TextReader<'_, '_>,
            ) -> ::core::result::Result<(), ::vtproto::text::TextError> {
                while let ::core::option::Option::Some(name) = r.next_field()? {
                    match &*name {
                        #reserved
                        _ => r.skip_unknown_field(&name)?,
                    }
                }
                ::core::result::Result::Ok(())
            }
        };
    }
    let declare = repeated.iter().map(|x| &x.declare);
    let repeated_arms = repeated.iter().map(|x| &x.arm);
    let set = repeated.iter().map(|x| &x.set);
    quote! {
        fn merge_text(
            &mut self,
            r: &mut ::vtproto::text::TextReader<'_, '_>,
        ) -> ::core::result::Result<(), ::vtproto::text::TextError> {
            // Not `NAMES`: an extension named `names` has a constant by that name in this scope.
            const __FIELD_NAMES: [&str; #count] = [#(#field_names),*];
            #[allow(unused_variables)]
            fn read(
                m: &mut #path,
                r: &mut ::vtproto::text::TextReader<'_, '_>,
                field: usize,
                seen: &mut [u64],
            ) -> ::core::result::Result<(), ::vtproto::text::TextError> {
                #[allow(unused_imports)]
                use ::vtproto::text::TextMessage as _;
                match field {
                    #(#arms)*
                    _ => {}
                }
                ::core::result::Result::Ok(())
            }
            let mut seen = [0u64; #words];
            #(#declare)*
            while let ::core::option::Option::Some(name) = r.next_field()? {
                let field: usize = match &*name {
                    #(#lookup)*
                    #reserved
                    _ => {
                        r.skip_unknown_field(&name)?;
                        continue;
                    }
                };
                let result = match field {
                    #(#repeated_arms)*
                    _ => read(self, r, field, &mut seen),
                };
                if let ::core::result::Result::Err(e) = result {
                    return ::core::result::Result::Err(
                        e.in_field(<Self as ::vtproto::Message>::NAME, __FIELD_NAMES[field]),
                    );
                }
                r.end_field();
            }
            #(#set)*
            ::core::result::Result::Ok(())
        }
    }
}
