//! The `services` feature: for each `service`, tonic's client and server stubs, written by
//! tonic-build's own generator (`tonic_build::CodeGenBuilder`) from our model, with
//! `vtproto::tonic::VtCodec` as their codec. On by default: a package without services gets
//! nothing from it. Methods chosen with `server_views` give their server handler the request
//! as an owned view (`FooOwnedView`); clients always send owned messages.

use proc_macro2::TokenStream;

use super::names::Names;
use super::Feature;
use crate::model::{Service, TypeRef};
use crate::Options;

/// The feature's registration.
pub(super) const FEATURE: Feature = Feature {
    name: "services",
    emit: |package, options, out| {
        let names = Names { package, options };
        for s in &package.services {
            out(stubs(&names, s, options));
        }
    },
};

/// The codec the stubs name.
const CODEC: &str = "::vtproto::tonic::VtCodec";

fn stubs(names: &Names<'_>, s: &Service, options: &Options) -> TokenStream {
    // The stubs live one module below the package's (`greeter_client`, `greeter_server`).
    let from = ["stubs".to_string()];
    let ty = |t: &TypeRef| names.owned_type(t, &from);
    let service = |server: bool| TonicService {
        name: &s.rust_name,
        proto_name: &s.name,
        package: &names.package.name,
        comments: &s.comments,
        methods: s
            .methods
            .iter()
            .map(|m| TonicMethod {
                name: &m.rust_name,
                proto_name: &m.name,
                client_streaming: m.client_streaming,
                server_streaming: m.server_streaming,
                deprecated: m.deprecated,
                comments: &m.comments,
                request: if server && m.server_view {
                    let view = super::views::owned_view_path(&m.input.rust_path);
                    names.relative(&from, &m.input.package, &view)
                } else {
                    ty(&m.input)
                },
                response: ty(&m.output),
            })
            .collect(),
    };
    let mut builder = tonic_build::CodeGenBuilder::new();
    builder
        .emit_package(true)
        .build_transport(options.build_transport)
        .generate_default_stubs(options.default_stubs)
        .compile_well_known_types(options.compile_well_known_types);
    let mut out = builder.generate_client(&service(false), "super");
    out.extend(builder.generate_server(&service(true), "super"));
    out
}

/// A service as tonic-build reads it.
struct TonicService<'a> {
    name: &'a str,
    proto_name: &'a str,
    package: &'a str,
    comments: &'a [String],
    methods: Vec<TonicMethod<'a>>,
}

/// A method as tonic-build reads it: its request and response already named from the stubs'
/// modules.
struct TonicMethod<'a> {
    name: &'a str,
    proto_name: &'a str,
    client_streaming: bool,
    server_streaming: bool,
    deprecated: bool,
    comments: &'a [String],
    request: TokenStream,
    response: TokenStream,
}

impl<'a> tonic_build::Service for TonicService<'a> {
    type Comment = String;
    type Method = TonicMethod<'a>;

    fn name(&self) -> &str {
        self.name
    }
    fn package(&self) -> &str {
        self.package
    }
    fn identifier(&self) -> &str {
        self.proto_name
    }
    fn methods(&self) -> &[Self::Method] {
        &self.methods
    }
    fn comment(&self) -> &[Self::Comment] {
        self.comments
    }
}

impl tonic_build::Method for TonicMethod<'_> {
    type Comment = String;

    fn name(&self) -> &str {
        self.name
    }
    fn identifier(&self) -> &str {
        self.proto_name
    }
    fn codec_path(&self) -> &str {
        CODEC
    }
    fn client_streaming(&self) -> bool {
        self.client_streaming
    }
    fn server_streaming(&self) -> bool {
        self.server_streaming
    }
    fn comment(&self) -> &[Self::Comment] {
        self.comments
    }
    fn deprecated(&self) -> bool {
        self.deprecated
    }
    fn request_response_name(&self, _: &str, _: bool) -> (TokenStream, TokenStream) {
        (self.request.clone(), self.response.clone())
    }
}
