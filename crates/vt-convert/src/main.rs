//! `vt-convert`: one protobuf message from binary, ProtoJSON or the text format to any of
//! them, its type read at run time from a descriptor set (see README.md).

use std::io::{Read, Write};
use std::process::ExitCode;

use vtproto::reflect::{DescriptorPool, DynamicMessage};

const USAGE: &str = "usage: vt-convert --descriptor-set FILE --type FULL.NAME \
[--from binary|json|text] [--to binary|json|text] [--pretty] [--emit-defaults] \
[--proto-names] [--ignore-unknown] < input > output";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Format {
    Binary,
    Json,
    Text,
}

impl Format {
    fn parse(s: &str) -> Result<Format, String> {
        match s {
            "binary" => Ok(Format::Binary),
            "json" => Ok(Format::Json),
            "text" => Ok(Format::Text),
            other => Err(format!("unknown format {other:?} (binary, json or text)")),
        }
    }
}

struct Args {
    descriptor_set: String,
    type_name: String,
    from: Format,
    to: Format,
    pretty: bool,
    emit_defaults: bool,
    proto_names: bool,
    ignore_unknown: bool,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args {
        descriptor_set: String::new(),
        type_name: String::new(),
        from: Format::Binary,
        to: Format::Text,
        pretty: false,
        emit_defaults: false,
        proto_names: false,
        ignore_unknown: false,
    };
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None => (arg, None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match name.as_str() {
            "--descriptor-set" => parsed.descriptor_set = value()?,
            "--type" => parsed.type_name = value()?,
            "--from" => parsed.from = Format::parse(&value()?)?,
            "--to" => parsed.to = Format::parse(&value()?)?,
            "--pretty" => parsed.pretty = true,
            "--emit-defaults" => parsed.emit_defaults = true,
            "--proto-names" => parsed.proto_names = true,
            "--ignore-unknown" => parsed.ignore_unknown = true,
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    if parsed.descriptor_set.is_empty() || parsed.type_name.is_empty() {
        return Err(USAGE.into());
    }
    Ok(parsed)
}

fn run(args: &Args, input: &[u8]) -> Result<Vec<u8>, String> {
    let set =
        std::fs::read(&args.descriptor_set).map_err(|e| format!("{}: {e}", args.descriptor_set))?;
    let pool = DescriptorPool::decode(&set).map_err(|e| format!("{}: {e}", args.descriptor_set))?;
    let desc = pool
        .get_message_by_name(args.type_name.trim_start_matches('.'))
        .ok_or_else(|| {
            format!(
                "no message type {} in {}",
                args.type_name, args.descriptor_set
            )
        })?;
    let text = || std::str::from_utf8(input).map_err(|e| format!("input: {e}"));
    let msg = match args.from {
        Format::Binary => DynamicMessage::decode(desc, input).map_err(|e| e.to_string())?,
        Format::Json => {
            let options = vtproto::json::DecodeOptions {
                ignore_unknown_fields: args.ignore_unknown,
                ..Default::default()
            };
            DynamicMessage::from_json_with(desc, text()?, &options).map_err(|e| e.to_string())?
        }
        Format::Text => {
            let options = vtproto::text::DecodeOptions {
                ignore_unknown_fields: args.ignore_unknown,
                ..Default::default()
            };
            DynamicMessage::from_text_with(desc, text()?, &options).map_err(|e| e.to_string())?
        }
    };
    Ok(match args.to {
        Format::Binary => msg.encode_to_vec(),
        Format::Json => {
            let options = vtproto::json::EncodeOptions {
                emit_unpopulated: args.emit_defaults,
                use_proto_names: args.proto_names,
                indent: if args.pretty { 2 } else { 0 },
                ..Default::default()
            };
            let mut json = msg.to_json_with(&options).map_err(|e| e.to_string())?;
            json.push('\n');
            json.into_bytes()
        }
        Format::Text => {
            let options = vtproto::text::EncodeOptions {
                pretty: args.pretty,
                print_unknown_fields: true,
                ..Default::default()
            };
            let mut text = msg.to_text_with(&options).map_err(|e| e.to_string())?;
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.into_bytes()
        }
    })
}

fn main() -> ExitCode {
    let result = parse_args(std::env::args().skip(1)).and_then(|args| {
        let mut input = Vec::new();
        std::io::stdin()
            .read_to_end(&mut input)
            .map_err(|e| format!("standard input: {e}"))?;
        run(&args, &input)
    });
    match result {
        Ok(out) => match std::io::stdout().write_all(&out) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("vt-convert: standard output: {e}");
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("vt-convert: {e}");
            ExitCode::FAILURE
        }
    }
}
