//! The `reflect` feature: `impl ::vtproto::reflect::ReflectMessage` (reading) and
//! `ReflectMessageMut` (writing) for each message, a `match` from field number to the field's
//! storage (the runtime's `FieldRef` and `FieldMut` do the rest, once for every Rust field
//! type), and per package a lazily decoded
//! `descriptor_pool()` of the package's files and their imports. Opt-in
//! (`features=..+reflect`, with `codec`): a `&T` is then walked by descriptor, converted to
//! and from `DynamicMessage` without bytes, and served JSON and text by the runtime's walker
//! (`tables=`).

use proc_macro2::{Literal, TokenStream};
use quote::{quote, ToTokens};

use super::Feature;
use crate::model::{Field, Label, Message, Oneof, Scalar};

/// The feature's registration.
pub(super) const FEATURE: Feature = Feature {
    name: "reflect",
    emit: |package, options, out| {
        let set = if super::is_selected(options, "descriptors") {
            quote!(FILE_DESCRIPTOR_SET)
        } else {
            Literal::byte_string(&without_source_info(&package.descriptor_set)).into_token_stream()
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
        let formats = super::is_selected(options, super::json::FEATURE.name)
            || super::is_selected(options, super::text::FEATURE.name);
        for m in &package.messages {
            out(message_impl(m));
            let special = super::json::SPECIAL_FORMS.contains(&m.full_name.as_str());
            if formats && !special && options.uses_tables(&format!(".{}", m.full_name)) {
                // Its JSON and text from the tables, through the runtime's blanket impls.
                let path = m.rust_path.tokens();
                out(quote!(impl ::vtproto::reflect::Tables for #path {}));
            }
        }
    },
};

/// `set`, an encoded `FileDescriptorSet`, without its files' `source_code_info`: the pool
/// reads no comments, and they are most of the bytes of googleapis' files, each one
/// lexed by rustc from an escaped literal. Every other record is kept as it came (custom
/// options among them). With `descriptors`, the pool shares its `FILE_DESCRIPTOR_SET` whole.
fn without_source_info(set: &[u8]) -> Vec<u8> {
    /// A record: its field number, its bytes, and a length-delimited one's body.
    type Record<'a> = (u64, &'a [u8], Option<&'a [u8]>);
    // Each record of `buf`.
    fn records(mut buf: &[u8]) -> Option<Vec<Record<'_>>> {
        use prost::encoding::decode_varint;
        let mut out = Vec::new();
        while !buf.is_empty() {
            let start = buf;
            let key = decode_varint(&mut buf).ok()?;
            let body = match key & 7 {
                0 => {
                    decode_varint(&mut buf).ok()?;
                    None
                }
                1 | 5 => {
                    buf = buf.get(if key & 7 == 1 { 8 } else { 4 }..)?;
                    None
                }
                2 => {
                    let len = usize::try_from(decode_varint(&mut buf).ok()?).ok()?;
                    let (body, rest) = (buf.get(..len)?, &buf[len..]);
                    buf = rest;
                    Some(body)
                }
                _ => return None,
            };
            out.push((key >> 3, &start[..start.len() - buf.len()], body));
        }
        Some(out)
    }
    let strip = || {
        let mut out = Vec::with_capacity(set.len());
        for (number, record, body) in records(set)? {
            let Some(file) = body.filter(|_| number == 1) else {
                out.extend_from_slice(record);
                continue;
            };
            let mut kept = Vec::with_capacity(file.len());
            for (n, r, _) in records(file)? {
                if n != 9 {
                    kept.extend_from_slice(r);
                }
            }
            prost::encoding::encode_varint(10, &mut out);
            prost::encoding::encode_varint(kept.len() as u64, &mut out);
            out.extend_from_slice(&kept);
        }
        Some(out)
    };
    strip().unwrap_or_else(|| set.to_vec())
}

fn message_impl(m: &Message) -> TokenStream {
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
                        ::core::option::Option::Some(::vtproto::reflect::ReflectValue::as_ref(&self.#ident))
                    } else {
                        ::core::option::Option::None
                    })),
                    quote!(Single(&mut self.#ident)),
                )
            }
            // A value is handed out as its `ValueRef`: the walker reads it without a call.
            Label::Implicit | Label::Required => (
                quote!(Single(::vtproto::reflect::ReflectValue::as_ref(&self.#ident))),
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
            ::core::option::Option::Some(#enum_path::#variant(v)) => ::core::option::Option::Some(::vtproto::reflect::ReflectValue::as_ref(v)),
            _ => ::core::option::Option::None,
        }),
    };
    // A boxed member is handed out unboxed: a reader charges its size to a memory budget, as
    // generated code does.
    let v = if f.boxed { quote!(&mut **v) } else { quote!(v) };
    let write = quote! {
        #n => {
            if !::core::matches!(self.#field, ::core::option::Option::Some(#enum_path::#variant(_))) {
                self.#field = ::core::option::Option::Some(#enum_path::#variant(::core::default::Default::default()));
            }
            match &mut self.#field {
                ::core::option::Option::Some(#enum_path::#variant(v)) => ::vtproto::reflect::FieldMut::Single(#v),
                _ => return ::core::option::Option::None,
            }
        }
    };
    (read, write)
}

/// The text format of a well-known type with a JSON form of its own (the runtime's) served by
/// the tables: its `TextMessage` impl alone (the other types take both formats' from
/// `vtproto::reflect::Tables`, one empty impl).
pub(super) fn table_impl(m: &Message) -> TokenStream {
    let path = m.rust_path.tokens();
    // Inline: compiled where a program calls them, not in the crate of the generated code.
    quote! {
        impl ::vtproto::text::TextMessage for #path {
            #[inline]
            fn write_text(&self, w: &mut ::vtproto::text::TextWriter<'_>) -> ::core::result::Result<(), ::vtproto::text::TextError> {
                ::vtproto::reflect::write_text(self, w)
            }
            #[inline]
            fn merge_text(&mut self, r: &mut ::vtproto::text::TextReader<'_, '_>) -> ::core::result::Result<(), ::vtproto::text::TextError> {
                ::vtproto::reflect::merge_text(self, r)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::without_source_info;

    /// A length-delimited record of field `n`.
    fn record(n: u8, body: &[u8]) -> Vec<u8> {
        let mut out = vec![n << 3 | 2, body.len() as u8];
        out.extend_from_slice(body);
        out
    }

    #[test]
    fn source_info_goes_and_every_other_record_stays_as_it_came() {
        // name, options holding a custom option (field 50000, not known to prost), syntax, a
        // varint and a fixed64 of unknown numbers, and the source info between them.
        let options = [0x80, 0xB5, 0x18, 0x01];
        let file = |with_info: bool| {
            let mut f = record(1, b"a.proto");
            if with_info {
                f.extend(record(9, &record(1, &[0x08, 0x01, 0x12, 0x02, b'/', b'/'])));
            }
            f.extend(record(8, &options));
            f.extend([0xF8, 0x01, 0x07]);
            f.extend([0xF9, 0x01, 1, 2, 3, 4, 5, 6, 7, 8]);
            f.extend(record(12, b"proto3"));
            f
        };
        let set = |with_info: bool| [record(1, &file(with_info)), record(1, &file(false))].concat();
        assert_eq!(without_source_info(&set(true)), set(false));
        assert_ne!(set(true), set(false));
    }

    #[test]
    fn a_set_it_cannot_read_is_kept_whole() {
        for bad in [&[0x0A, 0x05, 0x01][..], &[0x0B], &[0x0A, 0x02, 0x4A, 0x09]] {
            assert_eq!(without_source_info(bad), bad);
        }
    }
}
