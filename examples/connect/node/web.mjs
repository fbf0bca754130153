// The page headless Chromium loads (bundled by esbuild in browser.mjs): connect-web's clients
// call the Connect example's server, another origin, with the Connect transport (JSON and
// binary, POST and GET) and the gRPC-Web transport, unary and server streaming; the results
// go to `window.__results`.

import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { SayRequestSchema, SayService } from "./gen/connect/say_pb.js";

const baseUrl = new URLSearchParams(location.search).get("server");
const results = [];

async function check(name, body) {
  try {
    await body();
    results.push({ name, ok: true });
  } catch (e) {
    results.push({ name, ok: false, error: String(e && e.stack ? e.stack : e) });
  }
}
function eq(got, want, what) {
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    throw new Error(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
}

const transports = [
  ["connect json", createConnectTransport({ baseUrl })],
  ["connect proto", createConnectTransport({ baseUrl, useBinaryFormat: true })],
  ["connect json GET", createConnectTransport({ baseUrl, useHttpGet: true })],
  ["connect proto GET", createConnectTransport({ baseUrl, useBinaryFormat: true, useHttpGet: true })],
  ["grpc-web proto", createGrpcWebTransport({ baseUrl })],
];

for (const [name, transport] of transports) {
  const client = createClient(SayService, transport);
  await check(`${name}: unary`, async () => {
    const r = await client.say({ sentence: "from a browser" });
    eq([r.sentence, r.number], ["from a browser", 1], "answer");
  });
  await check(`${name}: a header both ways, across origins`, async () => {
    let header;
    await client.say({ sentence: "h" }, { headers: { "x-echo": "hi" }, onHeader: (h) => (header = h) });
    eq(header && header.get("x-echo"), "hi", "echoed header");
  });
  await check(`${name}: server streaming`, async () => {
    const got = [];
    for await (const r of client.words({ sentence: "one two three" })) got.push([r.sentence, r.number]);
    eq(got, [["one", 1], ["two", 2], ["three", 3]], "answers");
  });
  await check(`${name}: an error with details`, async () => {
    try {
      await client.say({ sentence: "s", failWith: "already_exists" });
    } catch (e) {
      const err = ConnectError.from(e);
      eq(Code[err.code], "AlreadyExists", "code");
      eq(err.findDetails(SayRequestSchema).map((d) => d.failWith), ["already_exists"], "details");
      return;
    }
    throw new Error("no error");
  });
  await check(`${name}: an unknown service, answered across origins`, async () => {
    const missing = {
      ...SayService.method.say,
      parent: { ...SayService, typeName: "vt.connect.v1.Missing" },
    };
    const call = createClient(
      { ...SayService, methods: [missing], method: { say: missing } },
      transport,
    ).say;
    try {
      await call({ sentence: "x" });
    } catch (e) {
      eq(Code[ConnectError.from(e).code], "Unimplemented", "code");
      return;
    }
    throw new Error("no error");
  });
  await check(`${name}: a deadline`, async () => {
    try {
      await client.say({ sentence: "late", delayMs: 3000 }, { timeoutMs: 300 });
    } catch (e) {
      // Over gRPC-Web the server's side of the deadline is tonic's, which answers
      // `cancelled` with "Timeout expired"; it races the client's own timer
      // (`deadline_exceeded`), so either may arrive first.
      const err = ConnectError.from(e);
      const tonic = name.startsWith("grpc") && err.code === Code.Canceled;
      if (!(tonic && err.rawMessage === "Timeout expired")) {
        eq(Code[err.code], "DeadlineExceeded", "code");
      }
      return;
    }
    throw new Error("no error");
  });
}

window.__results = results;
window.__done = true;
