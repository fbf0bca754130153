//! Golden files of generated code, reviewed as diffs: `tests/golden/<feature>/<package>.vt.rs`,
//! one folder per feature, each generated with that feature alone (`features=<name>`; `structs`
//! in `mode=standalone`, the others in `mode=prost`), and `tests/golden/standalone/`, the whole
//! `mode=standalone` output, editions included.
//! Regenerate with `VT_BLESS=1 cargo test -p vtproto-codegen --test golden`.

mod common;

use std::path::PathBuf;

use vtproto_codegen::{Error, Mode, Options};

const PROTOS: &[&str] = &["deep.proto", "candidates.proto", "test/nasty_names.proto"];

/// Editions files, for `mode=standalone` only.
const EDITIONS: &[&str] = &["test/editions/e2023.proto", "test/editions/e2024.proto"];

fn generate(parameter: &str) -> Result<Vec<vtproto_codegen::GeneratedFile>, Error> {
    generate_with(&Options::parse(parameter)?, PROTOS)
}

fn generate_with(
    options: &Options,
    protos: &[&str],
) -> Result<Vec<vtproto_codegen::GeneratedFile>, Error> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let fds = common::descriptors(&root.join("proto"), protos);
    let names: Vec<String> = protos.iter().map(|s| s.to_string()).collect();
    vtproto_codegen::generate(&fds.file, &names, options)
}

#[test]
fn each_feature_matches_its_golden_files() {
    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    for feature in vtproto_codegen::feature_names() {
        // Alone, even where it needs another feature to compile, so its file shows just it.
        let mode = match feature {
            "structs" => Mode::Standalone,
            _ => Mode::Prost,
        };
        // `reuse` adds to the codec's impls: its files show both.
        let features = match feature {
            "reuse" => vec!["codec".to_string(), "reuse".to_string()],
            _ => vec![feature.to_string()],
        };
        let options = Options {
            mode,
            features,
            ..Options::default()
        };
        // Services have a schema of their own.
        let protos: &[&str] = match feature {
            "services" | "descriptors" => &["test/services.proto"],
            "connect" => &["connect/say.proto"],
            _ => PROTOS,
        };
        let files = generate_with(&options, protos).unwrap();
        assert_eq!(files.len(), protos.len());
        common::check_or_bless(&golden.join(feature), &files, "golden");
    }
}

#[test]
fn standalone_mode_matches_its_golden_files() {
    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/standalone");
    let protos: Vec<&str> = PROTOS.iter().chain(EDITIONS).copied().collect();
    let files = generate_with(&Options::parse("mode=standalone").unwrap(), &protos).unwrap();
    assert_eq!(files.len(), 5);
    assert!(files
        .iter()
        .all(|f| f.name.ends_with(".rs") && !f.name.ends_with(".vt.rs")));
    common::check_or_bless(&golden, &files, "golden");
}

#[test]
fn prost_mode_refuses_editions_by_name() {
    let err = generate_with(&Options::default(), EDITIONS).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("e2023.proto") && msg.contains("mode=prost"),
        "{msg}"
    );
}

#[test]
fn the_default_features_are_the_modes() {
    let default = generate("").unwrap();
    let named = generate(&format!(
        "features={}",
        Mode::Prost.default_features().join("+")
    ))
    .unwrap();
    assert_eq!(default, named);
    assert_eq!(Mode::Prost.default_features(), ["codec", "services"]);
}

#[test]
fn an_unknown_feature_lists_the_known_ones() {
    let err = generate("features=codec+nonsense").unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("unknown feature `nonsense`"), "{msg}");
    for known in vtproto_codegen::feature_names() {
        assert!(msg.contains(known), "{msg}");
    }
}

#[test]
fn server_views_give_chosen_handlers_an_owned_view() {
    let protos = &["test/services.proto"];
    let without =
        Options::parse("mode=standalone,server_views=.vt.test.services.Echo.Unary").unwrap();
    let err = generate_with(&without, protos).unwrap_err().to_string();
    assert!(
        err.contains("has no view") && err.contains("Echo.Unary"),
        "{err}"
    );
    let with = Options::parse(
        "mode=standalone,views=.vt.test.services.EchoRequest,\
         server_views=.vt.test.services.Echo.Unary",
    )
    .unwrap();
    let code = &generate_with(&with, protos).unwrap()[0].content;
    let server = &code[code.find("pub mod echo_server").unwrap()..];
    let client =
        &code[code.find("pub mod echo_client").unwrap()..code.find("pub mod echo_server").unwrap()];
    assert!(
        server.contains(
            "async fn unary(&self, request: tonic::Request<super::EchoRequestOwnedView>)"
        ),
        "{server}"
    );
    // Other methods, and the client, keep owned messages.
    assert!(server.contains("async fn r#type(&self, request: tonic::Request<super::EchoRequest>)"));
    assert!(!client.contains("OwnedView"));
}

/// proto2 lets two fields share a JSON name (protoc warns): the JSON reader's lookup gives the
/// key to the first field declared, so a guessed key (`JsonReader::next_key_is`) must never
/// take it for the other; nor guess a name that needs escaping.
#[test]
fn json_keys_two_fields_share_are_never_guessed() {
    let dir = std::env::temp_dir().join(format!("vt-json-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("clash.proto"),
        r#"syntax = "proto2";
package clash;
message M {
  optional int32 a = 1;
  optional int32 x = 2 [json_name = "a"];
  optional int32 y = 3 [json_name = "z"];
  optional int32 z = 4;
  optional int32 b = 5 [json_name = "a\"b"];
  optional int32 d = 6;
}
"#,
    )
    .unwrap();
    let fds = common::descriptors(&dir, &["clash.proto"]);
    let options = Options::parse("features=codec+json").unwrap();
    let files =
        vtproto_codegen::generate(&fds.file, &["clash.proto".to_string()], &options).unwrap();
    let code: String = files.iter().map(|f| f.content.as_str()).collect();
    // `a` claims "a" before `x`, `y` claims "z" before `z`; `b`'s name needs an escape.
    assert!(
        code.contains(r#"const __GUESSES: [&str; 6] = ["a", "", "z", "", "", "d"];"#),
        "{code}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn enum_name_lookups_are_left_out_where_the_tables_serve_every_message() {
    let code = |parameter: &str| -> String {
        let files = generate(parameter).unwrap();
        files.iter().map(|f| f.content.as_str()).collect()
    };
    for features in [
        "codec+reflect+json",
        "codec+reflect+text",
        "codec+reflect+json+text",
    ] {
        let generated = code(&format!("features={features}"));
        assert!(generated.contains("fn from_json_name"), "{features}");
        let tables = code(&format!("features={features},tables=."));
        assert!(!tables.contains("from_json_name"), "{features}, tables=.");
        // Some messages left to generated code: their enums' lookups stay.
        let some = code(&format!("features={features},tables=.vt.deep"));
        assert!(
            some.contains("fn from_json_name"),
            "{features}, tables=.vt.deep"
        );
    }
    // serde's impls read names with them, tables or not.
    let serde = code("features=codec+reflect+json+serde,tables=.");
    assert!(serde.contains("fn from_json_name"));
}
