//! A view's `to_owned_message`: prost's struct, field by field, copying what the view borrows.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{BytesRepr, Field, Label, Message, Scalar, ValueType};

pub(super) fn to_owned_fn(m: &Message, view: &Message) -> TokenStream {
    let owned = m.rust_path.tokens();
    let fields = view.fields.iter().map(|f| {
        let ident = &f.ident;
        let value = field(f);
        quote!(#ident: #value,)
    });
    let oneofs = m.oneofs.iter().zip(&view.oneofs).map(|(o, vo)| {
        let ident = &o.ident;
        let owned_path = o.enum_path.tokens();
        let view_path = vo.enum_path.tokens();
        let arms = o.fields.iter().map(|f| {
            let variant = &f.ident;
            let value = owned_value(&f.value, f.bytes, &quote!(v));
            quote!(#view_path::#variant(v) => #owned_path::#variant(#value),)
        });
        quote!(#ident: self.#ident.as_ref().map(|o| match o { #(#arms)* }),)
    });
    // Views skip unknown fields: the owned message gets none.
    let unknown = m
        .unknown_fields
        .as_ref()
        .map(|u| quote!(#u: ::vtproto::UnknownFields::new(),));
    quote! {
        fn to_owned_message(&self) -> #owned {
            #owned {
                #(#fields)*
                #(#oneofs)*
                #unknown
            }
        }
    }
}

/// The owned value of a field of `self`.
fn field(f: &Field) -> TokenStream {
    let ident = &f.ident;
    let place = quote!(self.#ident);
    match &f.label {
        Label::Implicit | Label::Required => owned_place(&f.value, f.bytes, &place),
        Label::Optional | Label::Repeated { .. } if f.value.scalar().is_none() => {
            let each = if f.label == Label::Optional {
                quote!(as_ref)
            } else {
                quote!(iter)
            };
            let collect = (f.label != Label::Optional).then(|| quote!(.collect()));
            quote!(#place.#each().map(::vtproto::MessageView::to_owned_message) #collect)
        }
        Label::Optional => {
            let v = owned_value(&f.value, f.bytes, &quote!(v));
            quote!(#place.as_ref().map(|v| #v))
        }
        Label::Repeated { .. }
            if !matches!(f.value.scalar(), Some(Scalar::String | Scalar::Bytes)) =>
        {
            quote!(#place.clone())
        }
        Label::Repeated { .. } => {
            let v = owned_value(&f.value, f.bytes, &quote!(v));
            quote!(#place.iter().map(|v| #v).collect())
        }
        Label::Map(map) => {
            let k = owned_value(&ValueType::Scalar(map.key), BytesRepr::Vec, &quote!(k));
            let v = owned_value(&map.value, map.value_bytes, &quote!(v));
            quote!(#place.iter().map(|(k, v)| (#k, #v)).collect())
        }
    }
}

/// The owned value of a view's field `place` (`self.x`).
fn owned_place(value: &ValueType, bytes: BytesRepr, place: &TokenStream) -> TokenStream {
    match value {
        ValueType::Scalar(Scalar::String) => quote!(::std::string::String::from(#place)),
        ValueType::Scalar(Scalar::Bytes) | ValueType::Message(_) | ValueType::Group(_) => {
            owned_value(value, bytes, &quote!(&#place))
        }
        ValueType::Scalar(_) | ValueType::Enum(_) => place.clone(),
    }
}

/// The owned value of one view value, from `v`, a reference to it.
fn owned_value(value: &ValueType, bytes: BytesRepr, v: &TokenStream) -> TokenStream {
    match value {
        ValueType::Scalar(Scalar::String) => quote!(::std::string::String::from(*#v)),
        ValueType::Scalar(Scalar::Bytes) => match bytes {
            BytesRepr::Vec => quote!((#v).to_vec()),
            BytesRepr::Bytes => quote!(::vtproto::bytes::Bytes::copy_from_slice(#v)),
        },
        ValueType::Scalar(_) | ValueType::Enum(_) => quote!(*#v),
        ValueType::Message(_) | ValueType::Group(_) => {
            quote!(::vtproto::MessageView::to_owned_message(#v))
        }
    }
}
