//! The `reflect` feature: `impl ::vtproto::reflect::ReflectMessage` (reading) and
//! `ReflectMessageMut` (writing) for each message, a `match` from field number to the field's
//! storage (the runtime's `FieldRef` and `FieldMut` do the rest, once for every Rust field
//! type), and per package a lazily decoded
//! `descriptor_pool()` of the package's files and their imports. Opt-in
//! (`features=..+reflect`, with `codec`): a `&T` is then walked by descriptor, converted to
//! and from `DynamicMessage` without bytes, and served JSON and text by the runtime's walker
//! (`tables=`).

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, ToTokens};

use super::Feature;
use crate::model::{Field, Label, Message, Oneof, Scalar};

/// The feature's registration.
pub(super) const FEATURE: Feature = Feature {
    name: "reflect",
    emit: |package, options, out| {
        let set = if super::is_selected(options, "descriptors") {
            quote!(FILE_DESCRIPTOR_SET)
        } else {
            Literal::byte_string(&package.descriptor_set).into_token_stream()
        };
        let doc = format!(
            " The descriptors of package `{}`'s files and their imports, decoded on first use.",
            package.name
        );
        out(quote! {
            #[doc(hidden)]
            pub static DESCRIPTOR_POOL: ::vtproto::reflect::LazyPool =
                ::vtproto::reflect::LazyPool::new(#set);
            #[doc = #doc]
            pub fn descriptor_pool() -> &'static ::vtproto::reflect::DescriptorPool {
                DESCRIPTOR_POOL.get()
            }
        });
        for m in &package.messages {
            out(message_impl(m, options.mode == crate::Mode::Prost));
        }
    },
};

fn message_impl(m: &Message, prost: bool) -> TokenStream {
    let path = m.rust_path.tokens();
    let name = &m.full_name;
    let mut get = Vec::new();
    let mut get_mut = Vec::new();
    for f in &m.fields {
        let n = Literal::u32_unsuffixed(f.number);
        let ident = &f.ident;
        let (r, w) = match &f.label {
            // prost's zero test (`== 0.0`) where the codec and JSON use it: `-0.0` is not
            // written either.
            Label::Implicit
                if !f.zero_by_bits
                    && matches!(f.value.scalar(), Some(Scalar::Float | Scalar::Double)) =>
            {
                (
                    quote!(Optional(if self.#ident != 0.0 {
                        ::core::option::Option::Some(&self.#ident as _)
                    } else {
                        ::core::option::Option::None
                    })),
                    quote!(Single(&mut self.#ident)),
                )
            }
            Label::Implicit | Label::Required => (
                quote!(Single(&self.#ident)),
                quote!(Single(&mut self.#ident)),
            ),
            Label::Optional => (
                quote!(Optional(::vtproto::reflect::optional(&self.#ident))),
                quote!(Optional(&mut self.#ident)),
            ),
            Label::Repeated { .. } => (quote!(List(&self.#ident)), quote!(List(&mut self.#ident))),
            Label::Map(_) => (quote!(Map(&self.#ident)), quote!(Map(&mut self.#ident))),
        };
        get.push(quote!(#n => ::vtproto::reflect::FieldRef::#r,));
        get_mut.push(quote!(#n => ::vtproto::reflect::FieldMut::#w,));
    }
    for o in &m.oneofs {
        for f in &o.fields {
            let (r, w) = oneof_arms(o, f);
            get.push(r);
            get_mut.push(w);
        }
    }
    let unknown = m.unknown_fields.as_ref().map(|u| {
        quote! {
            fn unknown_fields(&self) -> ::core::option::Option<&::vtproto::UnknownFields> {
                ::core::option::Option::Some(&self.#u)
            }
        }
    });
    let merge_unknown = m.unknown_fields.as_ref().map(|_| {
        quote! {
            fn merge_unknown(&mut self, bytes: &[u8]) -> ::core::result::Result<(), ::vtproto::DecodeError> {
                ::vtproto::Message::merge(self, &mut ::vtproto::Reader::new(bytes))
            }
        }
    });
    // prost's structs hold any number in a closed enum's field.
    let any_enum = prost.then(|| {
        quote! {
            fn holds_any_enum_number(&self) -> bool {
                true
            }
        }
    });
    // A oneof's members by number, to set it to none.
    let clear_oneof = (!m.oneofs.is_empty()).then(|| {
        let arms = m.oneofs.iter().map(|o| {
            let ident = &o.ident;
            let numbers = o.fields.iter().map(|f| Literal::u32_unsuffixed(f.number));
            quote!(#(#numbers)|* => self.#ident = ::core::option::Option::None,)
        });
        quote! {
            #[inline]
            fn clear_oneof(&mut self, number: u32) -> bool {
                match number {
                    #(#arms)*
                    _ => return false,
                }
                true
            }
        }
    });
    let deprecated = m.all_fields().any(|(_, f)| f.deprecated);
    let allow = deprecated.then(|| quote!(#[allow(deprecated)]));
    let (get, get_mut) = if get.is_empty() {
        let none = quote! {
            let _ = number;
            ::core::option::Option::None
        };
        (none.clone(), none)
    } else {
        let body = |arms: &[TokenStream]| {
            quote! {
                ::core::option::Option::Some(match number {
                    #(#arms)*
                    _ => return ::core::option::Option::None,
                })
            }
        };
        (body(&get), body(&get_mut))
    };
    // Inline: the tables are compiled where a program uses them (a trait object made, a
    // method called), not up front in the crate of the generated code for every type
    // (`scripts/codegen-scale.sh --count`).
    quote! {
        #allow
        impl ::vtproto::reflect::ReflectMessage for #path {
            #[inline]
            fn descriptor(&self) -> ::vtproto::reflect::MessageDescriptor {
                static INDEX: ::vtproto::reflect::MessageIndex = ::vtproto::reflect::MessageIndex::new();
                DESCRIPTOR_POOL.message(&INDEX, #name)
            }
            #[inline]
            fn field(&self, number: u32) -> ::core::option::Option<::vtproto::reflect::FieldRef<'_>> {
                #get
            }
            #unknown
            #any_enum
        }
        #allow
        impl ::vtproto::reflect::ReflectMessageMut for #path {
            #[inline]
            fn field_mut(&mut self, number: u32) -> ::core::option::Option<::vtproto::reflect::FieldMut<'_>> {
                #get_mut
            }
            #clear_oneof
            #merge_unknown
        }
    }
}

/// A oneof member's arms: read only when the oneof holds it; made the oneof's value (at its
/// default) to be changed.
fn oneof_arms(o: &Oneof, f: &Field) -> (TokenStream, TokenStream) {
    let n = Literal::u32_unsuffixed(f.number);
    let field = &o.ident;
    let enum_path = o.enum_path.tokens();
    let variant = &f.ident;
    let read = quote! {
        #n => ::vtproto::reflect::FieldRef::Optional(match &self.#field {
            ::core::option::Option::Some(#enum_path::#variant(v)) => ::core::option::Option::Some(v as _),
            _ => ::core::option::Option::None,
        }),
    };
    let write = quote! {
        #n => {
            if !::core::matches!(self.#field, ::core::option::Option::Some(#enum_path::#variant(_))) {
                self.#field = ::core::option::Option::Some(#enum_path::#variant(::core::default::Default::default()));
            }
            match &mut self.#field {
                ::core::option::Option::Some(#enum_path::#variant(v)) => ::vtproto::reflect::FieldMut::Single(v),
                _ => return ::core::option::Option::None,
            }
        }
    };
    (read, write)
}

/// The `JsonMessage` (`json`) or `TextMessage` (`text`) impl of a message served by its
/// reflection tables (`tables=`): two calls into the runtime's walker.
pub(super) fn table_impl(m: &Message, format: &str) -> TokenStream {
    let path = m.rust_path.tokens();
    let module = format_ident!("{format}");
    let upper = if format == "json" { "Json" } else { "Text" };
    let tr = format_ident!("{upper}Message");
    let writer = format_ident!("{upper}Writer");
    let reader = format_ident!("{upper}Reader");
    let error = format_ident!("{upper}Error");
    let write = format_ident!("write_{format}");
    let merge = format_ident!("merge_{format}");
    // Inline: compiled where a program calls them, not in the crate of the generated code
    // (where they would make each type's tables and their trait objects compiled up front,
    // `scripts/codegen-scale.sh --count`), as serde's generic impls are.
    quote! {
        impl ::vtproto::#module::#tr for #path {
            #[inline]
            fn #write(&self, w: &mut ::vtproto::#module::#writer<'_>) -> ::core::result::Result<(), ::vtproto::#module::#error> {
                ::vtproto::reflect::#write(self, w)
            }
            #[inline]
            fn #merge(&mut self, r: &mut ::vtproto::#module::#reader<'_, '_>) -> ::core::result::Result<(), ::vtproto::#module::#error> {
                ::vtproto::reflect::#merge(self, r)
            }
        }
    }
}
