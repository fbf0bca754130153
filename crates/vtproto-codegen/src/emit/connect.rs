//! The `connect` feature (with `services`): for each `service`, a module `<service>_connect`
//! whose `server(impl)` answers Connect, gRPC and gRPC-Web on one port with the one
//! implementation of the server trait tonic's stubs declare (`vtproto::connect::Server`).
//! The generated part is the Connect side's routing: the service's methods (name, shape,
//! `NO_SIDE_EFFECTS` for GET) and a `match` calling each through the runtime's handler for
//! its shape; ProtoJSON bodies are read and written when `json` is on.

use heck::ToSnakeCase;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::names::Names;
use super::Feature;
use crate::model::{Method, Service};
use crate::Options;

/// The feature's registration.
pub(super) const FEATURE: Feature = Feature {
    name: "connect",
    emit: |package, options, out| {
        let names = Names { package, options };
        for s in &package.services {
            out(service(&names, s, options));
        }
    },
};

fn service(names: &Names<'_>, s: &Service, options: &Options) -> TokenStream {
    let snake = tonic_snake_case(&s.rust_name);
    let module = format_ident!("{snake}_connect");
    let server_module = format_ident!("{snake}_server");
    let trait_name = format_ident!("{}", s.rust_name);
    let tonic_server = format_ident!("{}Server", s.rust_name);
    let dispatch = format_ident!("{}Connect", s.rust_name);
    let alias = format_ident!("{}ConnectServer", s.rust_name);
    let full_name = if names.package.name.is_empty() {
        s.name.clone()
    } else {
        format!("{}.{}", names.package.name, s.name)
    };
    let json = super::is_selected(options, "json");
    let codec = if json {
        quote!(::vtproto::connect::Json)
    } else {
        quote!(::vtproto::connect::Binary)
    };
    let infos = s.methods.iter().map(|m| {
        let name = &m.name;
        let kind = format_ident!("{}", kind(m));
        let get = m.no_side_effects;
        quote! {
            ::vtproto::connect::MethodInfo {
                name: #name,
                kind: ::vtproto::connect::Kind::#kind,
                no_side_effects: #get,
            }
        }
    });
    let from = [module.to_string()];
    let arms = s.methods.iter().enumerate().map(|(i, m)| {
        // A Rust name may be a raw identifier (`r#type`).
        let method: TokenStream = m.rust_name.parse().expect("an identifier");
        let request = if m.server_view {
            let view = super::views::owned_view_path(&m.input.rust_path);
            names.relative(&from, &m.input.package, &view)
        } else {
            names.owned_type(&m.input, &from)
        };
        let request = if m.client_streaming {
            quote!(::tonic::Streaming<#request>)
        } else {
            request
        };
        let shape = format_ident!("{}", kind(m).to_snake_case());
        let i = super::usize_lit(i);
        quote! {
            #i => call.#shape(#codec, move |r: ::tonic::Request<#request>| async move {
                <T as super::#server_module::#trait_name>::#method(&inner, r).await
            }),
        }
    });
    let client = format_ident!("{}ConnectClient", s.rust_name);
    let client_methods = s
        .methods
        .iter()
        .filter(|m| !m.client_streaming)
        .map(|m| {
            let method: TokenStream = m.rust_name.parse().expect("an identifier");
            let request = names.owned_type(&m.input, &from);
            let response = names.owned_type(&m.output, &from);
            let path = format!("/{full_name}/{}", m.name);
            if m.server_streaming {
                quote! {
                    /// A server-streaming call: the answers as a stream.
                    pub async fn #method(
                        &self,
                        request: impl ::tonic::IntoRequest<#request>,
                    ) -> ::core::result::Result<::tonic::Response<::vtproto::connect::ConnectStream<#response>>, ::tonic::Status> {
                        self.0.server_streaming(#codec, #path, request.into_request()).await
                    }
                }
            } else {
                quote! {
                    /// A unary call.
                    pub async fn #method(
                        &self,
                        request: impl ::tonic::IntoRequest<#request>,
                    ) -> ::core::result::Result<::tonic::Response<#response>, ::tonic::Status> {
                        self.0.unary(#codec, #path, request.into_request()).await
                    }
                }
            }
        });
    let doc = format!(
        " `{full_name}` served to Connect, gRPC and gRPC-Web clients by one implementation of \
         [`{trait_name}`](super::{server_module}::{trait_name})."
    );
    quote! {
        #[doc = #doc]
        pub mod #module {
            /// The service's Connect side: its methods, and a call routed to one.
            #[derive(Debug)]
            pub struct #dispatch<T>(::std::sync::Arc<T>);

            impl<T> ::core::clone::Clone for #dispatch<T> {
                fn clone(&self) -> Self {
                    #dispatch(::core::clone::Clone::clone(&self.0))
                }
            }

            impl<T: super::#server_module::#trait_name> ::vtproto::connect::Dispatch for #dispatch<T> {
                const SERVICE: &'static str = #full_name;
                const JSON: bool = #json;
                const METHODS: &'static [::vtproto::connect::MethodInfo] = &[#(#infos),*];

                fn call(&self, method: usize, call: ::vtproto::connect::Call) -> ::vtproto::connect::BoxFuture {
                    let inner = ::core::clone::Clone::clone(&self.0);
                    match method {
                        #(#arms)*
                        _ => call.unimplemented(),
                    }
                }
            }

            /// The server to add to tonic's router: Connect, gRPC and gRPC-Web on one port.
            pub type #alias<T> = ::vtproto::connect::Server<#dispatch<T>, super::#server_module::#tonic_server<T>>;

            /// Serves `service` to Connect, gRPC and gRPC-Web clients.
            pub fn server<T: super::#server_module::#trait_name>(service: T) -> #alias<T> {
                from_arc(::std::sync::Arc::new(service))
            }

            /// A Connect client of the service's unary and server-streaming methods.
            #[derive(Clone, Debug)]
            pub struct #client(pub ::vtproto::connect::Client);

            impl #client {
                /// A client of the server at `base_url` (`http://host:port`), over HTTP/1.1,
                /// binary; [`vtproto::connect::Client`]'s builder chooses HTTP/2, JSON, gzip.
                pub fn new(base_url: impl ::core::convert::Into<::std::string::String>) -> Self {
                    #client(::vtproto::connect::Client::new(base_url))
                }

                #(#client_methods)*
            }

            /// Serves a shared `service` to Connect, gRPC and gRPC-Web clients.
            pub fn from_arc<T: super::#server_module::#trait_name>(service: ::std::sync::Arc<T>) -> #alias<T> {
                ::vtproto::connect::Server::new(
                    #dispatch(::core::clone::Clone::clone(&service)),
                    super::#server_module::#tonic_server::from_arc(service),
                )
            }
        }
    }
}

/// A service's name in the modules tonic-build writes (`echo_server`): a `_` before each
/// upper-case letter, as its own `naive_snake_case` does.
fn tonic_snake_case(name: &str) -> String {
    let mut out = String::new();
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c.to_ascii_lowercase());
        if chars.peek().is_some_and(|n| n.is_uppercase()) {
            out.push('_');
        }
    }
    out
}

/// The runtime's name of a method's shape (`vtproto::connect::Kind`).
fn kind(m: &Method) -> &'static str {
    match (m.client_streaming, m.server_streaming) {
        (false, false) => "Unary",
        (false, true) => "ServerStreaming",
        (true, false) => "ClientStreaming",
        (true, true) => "BidiStreaming",
    }
}
