// connect-node's clients against the Connect example's server: every call shape over the
// Connect, gRPC and gRPC-Web transports, binary and JSON, HTTP/1.1 and HTTP/2 where the
// protocol allows; errors with details, deadlines, gzip, headers and trailers, Connect GET,
// unknown methods and over-limit messages over HTTP/1.1 (an answer, not EPIPE).
//
//   node clients.mjs http://127.0.0.1:PORT
//
// Prints a line per check and exits 1 if one failed.

import http from "node:http";
import {
  Code,
  ConnectError,
  createClient,
} from "@connectrpc/connect";
import {
  compressionGzip,
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
} from "@connectrpc/connect-node";
import { SayRequestSchema, SayService } from "./gen/connect/say_pb.js";

const baseUrl = process.argv[2];
if (!baseUrl) {
  console.error("usage: node clients.mjs http://127.0.0.1:PORT");
  process.exit(2);
}

let failed = 0;
let passed = 0;
async function check(name, body) {
  try {
    await body();
    passed++;
    console.log(`ok   ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack : e}`);
  }
}
function assert(cond, what) {
  if (!cond) throw new Error(`assertion failed: ${what}`);
}
function eq(got, want, what) {
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    throw new Error(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
}
async function expectError(promise, code, what) {
  try {
    await promise;
  } catch (e) {
    const err = ConnectError.from(e);
    if (err.code !== code) {
      throw new Error(`${what}: got code ${Code[err.code]} (${err.message}), want ${Code[code]}`);
    }
    return err;
  }
  throw new Error(`${what}: no error, want ${Code[code]}`);
}
// A call past its deadline: `deadline_exceeded`. Over gRPC and gRPC-Web the server's side of
// the deadline is tonic's (`grpc-timeout`, enforced around every service), which answers
// `cancelled` with "Timeout expired"; it races the client's own timer, which reports
// `deadline_exceeded`, so either may arrive first.
function deadlineError(name, err) {
  if (err.code === Code.DeadlineExceeded) return;
  if (name.startsWith("grpc") && err.code === Code.Canceled && err.rawMessage === "Timeout expired") {
    return;
  }
  throw new Error(`deadline: got code ${Code[err.code]} (${err.message}), want DeadlineExceeded`);
}
async function* requests(...sentences) {
  for (const sentence of sentences) yield { sentence };
}
async function collectStream(iterable) {
  const out = [];
  for await (const r of iterable) out.push(r);
  return out;
}

const transports = [];
for (const httpVersion of ["1.1", "2"]) {
  for (const useBinaryFormat of [true, false]) {
    transports.push({
      name: `connect ${useBinaryFormat ? "proto" : "json"} http/${httpVersion}`,
      protocol: "connect",
      httpVersion,
      transport: createConnectTransport({ baseUrl, httpVersion, useBinaryFormat }),
    });
  }
  transports.push({
    name: `grpc-web proto http/${httpVersion}`,
    protocol: "grpc-web",
    httpVersion,
    transport: createGrpcWebTransport({ baseUrl, httpVersion, useBinaryFormat: true }),
  });
}
transports.push({
  name: "grpc proto http/2",
  protocol: "grpc",
  httpVersion: "2",
  transport: createGrpcTransport({ baseUrl }),
});
// The HTTP methods the GET transports' calls of Say went out with, as Node's HTTP/1.1 client
// sent them.
const getMethods = [];
class MethodSpy extends http.Agent {
  addRequest(req, options) {
    if (/^\/vt\.connect\.v1\.SayService\/Say(\?|$)/.test(req.path)) getMethods.push(req.method);
    return super.addRequest(req, options);
  }
}
for (const useBinaryFormat of [true, false]) {
  transports.push({
    name: `connect ${useBinaryFormat ? "proto" : "json"} http/1.1 GET+gzip`,
    protocol: "connect",
    httpVersion: "1.1",
    get: true,
    transport: createConnectTransport({
      nodeOptions: { agent: new MethodSpy() },
      baseUrl,
      httpVersion: "1.1",
      useBinaryFormat,
      useHttpGet: true,
      sendCompression: compressionGzip,
      acceptCompression: [compressionGzip],
      compressMinBytes: 16,
    }),
  });
}

for (const t of transports) {
  const client = createClient(SayService, t.transport);
  // Client streaming needs a request body streamed up: not gRPC-Web's; bidi needs HTTP/2.
  const clientStreams = t.protocol !== "grpc-web";
  const bidi = t.httpVersion === "2" && t.protocol !== "grpc-web";

  await check(`${t.name}: unary`, async () => {
    const r = await client.say({ sentence: "hello" });
    eq([r.sentence, r.number], ["hello", 1], "answer");
  });
  await check(`${t.name}: unary, a large compressible answer`, async () => {
    const r = await client.say({ sentence: "abcdefgh", repeat: 5000 });
    eq(r.sentence.length, 5000 * 9 - 1, "length");
  });
  await check(`${t.name}: headers both ways`, async () => {
    let header;
    const r = await client.say(
      { sentence: "h" },
      { headers: { "x-echo": "hi there" }, onHeader: (h) => (header = h) },
    );
    eq(r.sentence, "h", "answer");
    eq(header && header.get("x-echo"), "hi there", "echoed header");
  });
  await check(`${t.name}: an error with details and metadata`, async () => {
    const err = await expectError(
      client.say({ sentence: "s", failWith: "not_found" }),
      Code.NotFound,
      "fail",
    );
    assert(err.rawMessage.includes("asked to fail with not_found"), err.rawMessage);
    const details = err.findDetails(SayRequestSchema);
    eq(details.length, 1, "details");
    eq([details[0].sentence, details[0].failWith], ["s", "not_found"], "detail");
    eq(err.metadata.get("x-failed"), "yes", "error metadata");
  });
  await check(`${t.name}: a deadline`, async () => {
    try {
      await client.say({ sentence: "late", delayMs: 3000 }, { timeoutMs: 300 });
    } catch (e) {
      deadlineError(t.name, ConnectError.from(e));
      return;
    }
    throw new Error("deadline: no error");
  });
  await check(`${t.name}: server streaming`, async () => {
    const rs = await collectStream(client.words({ sentence: "one two three" }));
    eq(rs.map((r) => [r.sentence, r.number]), [["one", 1], ["two", 2], ["three", 3]], "answers");
  });
  await check(`${t.name}: server streaming ending in an error, with trailers`, async () => {
    const seen = [];
    let trailer;
    const err = await expectError(
      (async () => {
        for await (const r of client.words(
          { sentence: "a b", failWith: "aborted" },
          { onTrailer: (t) => (trailer = t) },
        )) {
          seen.push(r.sentence);
        }
      })(),
      Code.Aborted,
      "stream error",
    );
    eq(seen, ["a", "b"], "answers before the error");
    eq(err.findDetails(SayRequestSchema).length, 1, "details");
    eq(err.metadata.get("x-failed"), "yes", "error metadata as trailers");
    void trailer;
  });
  await check(`${t.name}: server streaming failing first`, async () => {
    await expectError(
      collectStream(client.words({ failWith: "permission_denied" })),
      Code.PermissionDenied,
      "stream error",
    );
  });
  await check(`${t.name}: server streaming past a deadline`, async () => {
    try {
      await collectStream(client.words({ sentence: "a b c", delayMs: 400 }, { timeoutMs: 600 }));
    } catch (e) {
      deadlineError(t.name, ConnectError.from(e));
      return;
    }
    throw new Error("deadline: no error");
  });
  if (clientStreams) {
    await check(`${t.name}: client streaming`, async () => {
      const r = await client.collect(requests("a", "b", "c"));
      eq([r.sentence, r.number], ["a b c", 3], "answer");
    });
    await check(`${t.name}: client streaming, an error`, async () => {
      const gen = async function* () {
        yield { sentence: "a" };
        yield { failWith: "out_of_range" };
      };
      await expectError(client.collect(gen()), Code.OutOfRange, "error");
    });
  }
  if (bidi) {
    await check(`${t.name}: bidi streaming`, async () => {
      const rs = await collectStream(client.chat(requests("x", "y")));
      eq(rs.map((r) => [r.sentence, r.number]), [["x", 1], ["y", 2]], "answers");
    });
  }

  // A method the service does not have, and a service the server does not have, sent a
  // large body: over HTTP/1.1 the answer must come back, not a reset connection.
  const big = "x".repeat(600 * 1024);
  const nope = { ...SayService.method.say, name: "Nope" };
  const missing = {
    ...SayService.method.say,
    parent: { ...SayService, typeName: "vt.connect.v1.Missing" },
  };
  for (const [what, method] of [["an unknown method", nope], ["an unknown service", missing]]) {
    await check(`${t.name}: ${what}, a large body, five times`, async () => {
      const call = createClient(
        { ...SayService, methods: [method], method: { say: method } },
        t.transport,
      ).say;
      for (let i = 0; i < 5; i++) {
        await expectError(call({ sentence: big }), Code.Unimplemented, `${what} #${i}`);
      }
    });
  }
  // The server takes Connect messages of 1 MiB at most; tonic's gRPC side, 4 MiB.
  const overSize = t.protocol === "connect" ? 2 << 20 : 5 << 20;
  await check(`${t.name}: a message over the limit, three times`, async () => {
    const huge = "y".repeat(overSize);
    for (let i = 0; i < 3; i++) {
      await expectError(client.say({ sentence: huge }), Code.ResourceExhausted, `limit #${i}`);
    }
    const r = await client.say({ sentence: "still here" });
    eq(r.sentence, "still here", "a call after");
  });
}

await check("Connect GET: the idempotent method's calls went out as GET", async () => {
  if (getMethods.length < 10 || getMethods.some((m) => m !== "GET")) {
    throw new Error(`methods: ${getMethods.join(",")}`);
  }
});

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
