//! The `views` feature: for each selected message `Foo`, a `FooView<'a>` struct shaped like
//! prost's `Foo` whose strings and bytes borrow the input, and its `::vtproto::MessageView`
//! impl (size and encode from the codec feature's writers, a borrowing `merge_field`, and
//! `to_owned_message`).
//!
//! Where views live: a top-level message's view is beside it, in the package module. prost owns
//! the module of a message's nested types (`outer::Inner`), and an `include!`d file can't add
//! to it, so nested views, and the oneof enums of views, go in a module of ours named after it
//! with `_views` (`outer_views::InnerView`, `outer_views::Kind`).

mod decode;
mod owned;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::codec;
use super::names::{nest, Modules, Names};
use super::{default_expr, scalar_type, Feature};
use crate::ident::ident;
use crate::model::{
    BytesRepr, Field, Label, Message, Oneof, Package, RustPath, Scalar, TypeRef, ValueType,
};
use crate::Options;

/// The feature's registration.
pub(super) const FEATURE: Feature = Feature {
    name: "views",
    emit: |package, options, out| out(emit(package, options)),
};

fn emit(package: &Package, options: &Options) -> TokenStream {
    let cx = Cx {
        package,
        options,
        names: Names { package, options },
    };
    // Items by the module (below the package's) they are declared in.
    let mut modules = Modules::new();
    let mut impls = Vec::new();
    for m in &package.messages {
        if !options.has_view(&format!(".{}", m.full_name)) {
            continue;
        }
        let view = cx.view_message(m);
        let path = view_path(&m.rust_path);
        let module = path.segments[..path.segments.len() - 1].to_vec();
        modules
            .entry(module.clone())
            .or_default()
            .push(cx.view_struct(m, &view, &module));
        for o in &view.oneofs {
            let oneof_module = o.enum_path.segments[..o.enum_path.segments.len() - 1].to_vec();
            let item = cx.oneof_enum(o, &oneof_module);
            modules.entry(oneof_module).or_default().push(item);
        }
        impls.push(cx.view_impl(m, &view));
    }
    let mut out = nest(&modules, &[], &|_| {
        "Views of nested messages, and oneof enums of views (see `MessageView`).".to_string()
    });
    out.extend(impls);
    out
}

/// Where the `views` feature puts the view of the message at `rust_path` (relative to the
/// package module): `Outer` -> `OuterView`, `outer::Inner` -> `outer_views::InnerView`.
pub fn view_path(rust_path: &RustPath) -> RustPath {
    beside(rust_path, format!("{}View", rust_path.name()))
}

/// The path of the owned view of the message at `rust_path` (`FooOwnedView`, beside the
/// view).
pub(crate) fn owned_view_path(rust_path: &RustPath) -> RustPath {
    beside(
        rust_path,
        format!("{}OwnedView", rust_path.name().trim_start_matches("r#")),
    )
}

/// An item `name` of ours for the item at `path`: in the module of ours beside each of prost's
/// modules on the path (`outer` -> `outer_views`), since an included file can't add to those.
fn beside(path: &RustPath, name: String) -> RustPath {
    let modules = &path.segments[..path.segments.len() - 1];
    let mut segments: Vec<String> = modules
        .iter()
        .map(|m| format!("{}_views", m.trim_start_matches("r#")))
        .collect();
    segments.push(name);
    RustPath::new(segments)
}

struct Cx<'a> {
    package: &'a Package,
    options: &'a Options,
    names: Names<'a>,
}

impl Cx<'_> {
    /// The message as the codec's writers see the view: oneof enums at their view paths, maps
    /// in order, and no out-of-line calls (those take `vtproto::Message`s).
    fn view_message(&self, m: &Message) -> Message {
        let mut view = m.clone();
        // Views skip unknown fields.
        view.unknown_fields = None;
        for f in &mut view.fields {
            f.recursive = false;
            f.in_view = true;
            // Map entries are kept in wire order, duplicates included: written backward, they
            // must be walked in reverse (as a `BTreeMap` is) to come out in order, last wins.
            if let Label::Map(map) = &mut f.label {
                map.btree = true;
            }
        }
        for o in &mut view.oneofs {
            o.enum_path = beside(&o.enum_path, o.enum_path.name().to_string());
            for f in &mut o.fields {
                f.recursive = false;
                f.in_view = true;
            }
        }
        view
    }

    fn has_view(&self, t: &TypeRef) -> bool {
        self.options.has_view(&format!(".{}", t.full_name))
    }

    /// The Rust type of one value of a view's field, named from module `from`.
    fn value_type(&self, value: &ValueType, bytes: BytesRepr, from: &[String]) -> TokenStream {
        match value {
            ValueType::Scalar(Scalar::String) => quote!(&'a str),
            ValueType::Scalar(Scalar::Bytes) => quote!(&'a [u8]),
            ValueType::Scalar(s) => scalar_type(*s, bytes),
            ValueType::Enum(_) => quote!(i32),
            ValueType::Message(t) | ValueType::Group(t) if self.has_view(t) => {
                let path = self
                    .names
                    .relative(from, &t.package, &view_path(&t.rust_path));
                quote!(#path<'a>)
            }
            ValueType::Message(t) | ValueType::Group(t) => {
                let owned = self.names.owned_type(t, from);
                quote!(::vtproto::Owned<#owned>)
            }
        }
    }

    /// Whether values of this type name the lifetime: strings, bytes and views.
    fn names_lifetime(&self, value: &ValueType) -> bool {
        match value {
            ValueType::Message(t) | ValueType::Group(t) => self.has_view(t),
            _ => borrows(value),
        }
    }

    /// The type of a view's field (or oneof variant), as prost shapes the owned one.
    fn field_type(&self, f: &Field, from: &[String]) -> TokenStream {
        let value = self.value_type(&f.value, f.bytes, from);
        let value = if f.boxed {
            quote!(::std::boxed::Box<#value>)
        } else {
            value
        };
        match &f.label {
            Label::Implicit | Label::Required => value,
            Label::Optional => quote!(::core::option::Option<#value>),
            Label::Repeated { .. } => quote!(::std::vec::Vec<#value>),
            Label::Map(map) => {
                let k = self.value_type(&ValueType::Scalar(map.key), BytesRepr::Vec, from);
                let v = self.value_type(&map.value, map.value_bytes, from);
                quote!(::std::vec::Vec<(#k, #v)>)
            }
        }
    }

    /// Whether a view's oneof enum takes the lifetime.
    fn oneof_lifetime(&self, o: &Oneof) -> bool {
        o.fields.iter().any(|f| self.names_lifetime(&f.value))
    }

    fn view_struct(&self, m: &Message, view: &Message, module: &[String]) -> TokenStream {
        let name = format_ident!("{}View", m.rust_path.name().trim_start_matches("r#"));
        let doc = format!(
            "A view of `{}` whose strings and bytes borrow the input (see `vtproto::MessageView`).",
            m.full_name
        );
        let owned_name = format_ident!("{}OwnedView", m.rust_path.name().trim_start_matches("r#"));
        let family = format_ident!("{}ViewFamily", m.rust_path.name().trim_start_matches("r#"));
        let family_doc = format!(
            "`{name}` for every lifetime of its input (a `vtproto::ViewFamily`), for `{owned_name}`."
        );
        let owned_doc = format!(
            "A view of `{}` that owns its input, a `bytes::Bytes` (see `vtproto::OwnedView`).",
            m.full_name
        );
        let fields = view.fields.iter().map(|f| {
            let ident = &f.ident;
            let ty = self.field_type(f, module);
            quote!(pub #ident: #ty,)
        });
        let oneofs = view.oneofs.iter().map(|o| {
            let ident = &o.ident;
            let path = self
                .names
                .relative(module, &self.package.name, &o.enum_path);
            let lifetime = self.oneof_lifetime(o).then(|| quote!(<'a>));
            quote!(pub #ident: ::core::option::Option<#path #lifetime>,)
        });
        // The lifetime must be used by a field of the struct's own: a view that holds only
        // other views (perhaps of itself) gets a marker.
        let borrows = view.all_fields().any(|(_, f)| match &f.label {
            Label::Map(map) => borrows(&ValueType::Scalar(map.key)) || borrows(&map.value),
            _ => borrows(&f.value),
        });
        let marker = (!borrows).then(|| {
            quote! {
                #[doc(hidden)]
                pub _input: ::core::marker::PhantomData<&'a [u8]>,
            }
        });
        let allow = m
            .all_fields()
            .any(|(_, f)| f.deprecated)
            .then(|| quote!(#[allow(deprecated)]));
        // prost's `Self_` gives `Self_View`.
        let camel = name
            .to_string()
            .contains('_')
            .then(|| quote!(#[allow(non_camel_case_types)]));
        // proto2 `required` fields start at their declared defaults, as prost's do.
        let default_of = |f: &Field| {
            (f.label == Label::Required)
                .then(|| default_expr(f, true))
                .flatten()
        };
        let (derive_default, default_impl) = if view.fields.iter().all(|f| default_of(f).is_none())
        {
            (Some(quote!(Default,)), None)
        } else {
            let fields = view.fields.iter().map(|f| {
                let ident = &f.ident;
                let value =
                    default_of(f).unwrap_or_else(|| quote!(::core::default::Default::default()));
                quote!(#ident: #value,)
            });
            let oneofs = view.oneofs.iter().map(|o| {
                let ident = &o.ident;
                quote!(#ident: ::core::option::Option::None,)
            });
            let marker = (!borrows).then(|| quote!(_input: ::core::marker::PhantomData,));
            let impl_ = quote! {
                impl<'a> ::core::default::Default for #name<'a> {
                    fn default() -> Self {
                        #name {
                            #(#fields)*
                            #(#oneofs)*
                            #marker
                        }
                    }
                }
            };
            (None, Some(impl_))
        };
        quote! {
            #[doc = #doc]
            #allow
            #camel
            #[derive(Clone, Debug, #derive_default PartialEq)]
            pub struct #name<'a> {
                #(#fields)*
                #(#oneofs)*
                #marker
            }
            #default_impl
            #[doc = #family_doc]
            #camel
            pub enum #family {}
            #[doc = #owned_doc]
            #camel
            pub type #owned_name = ::vtproto::OwnedView<#family>;
        }
    }

    fn oneof_enum(&self, o: &Oneof, module: &[String]) -> TokenStream {
        let name = ident(o.enum_path.name());
        let lifetime = self.oneof_lifetime(o).then(|| quote!(<'a>));
        let variants = o.fields.iter().map(|f| {
            let variant = &f.ident;
            let value = self.value_type(&f.value, f.bytes, module);
            let ty = if f.boxed {
                quote!(::std::boxed::Box<#value>)
            } else {
                value
            };
            quote!(#variant(#ty),)
        });
        let doc = format!("The oneof `{}` of a view.", o.name);
        quote! {
            #[doc = #doc]
            #[derive(Clone, Debug, PartialEq)]
            pub enum #name #lifetime {
                #(#variants)*
            }
        }
    }

    fn view_impl(&self, m: &Message, view: &Message) -> TokenStream {
        let path = view_path(&m.rust_path).tokens();
        let family = beside(&m.rust_path, format!("{}ViewFamily", m.rust_path.name())).tokens();
        let owned = m.rust_path.tokens();
        let size = codec::size_fn(view);
        let encode = codec::encode_fn(view);
        let merge = decode::merge_field_fn(self, view);
        let to_owned = owned::to_owned_fn(m, view);
        let allow = m
            .all_fields()
            .any(|(_, f)| f.deprecated)
            .then(|| quote!(#[allow(deprecated)]));
        quote! {
            #allow
            // The codec's writers borrow strings and bytes, which views already hold borrowed.
            #[allow(clippy::needless_borrow)]
            impl<'a> ::vtproto::MessageView<'a> for #path<'a> {
                type Owned = #owned;
                #size
                #encode
                #merge
                #to_owned
            }
            impl ::vtproto::ViewFamily for #family {
                type View<'a> = #path<'a>;
                fn shorten<'a, 'b: 'a>(view: &'a #path<'b>) -> &'a #path<'a> {
                    view
                }
            }
        }
    }
}

/// Whether values of this type borrow the input: strings and bytes.
fn borrows(value: &ValueType) -> bool {
    matches!(value, ValueType::Scalar(Scalar::String | Scalar::Bytes))
}
