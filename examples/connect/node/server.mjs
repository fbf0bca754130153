// connect-node's own server for the say service, the peer of our Connect client's tests
// (examples/connect/tests/client.rs): HTTP/1.1 and HTTP/2 (h2c) on two loopback ports,
// printed as one JSON line; it stops when its standard input closes.
//
//   node server.mjs

import http from "node:http";
import http2 from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { SayRequestSchema, SayService } from "./gen/connect/say_pb.js";

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// `not_found` -> Code.NotFound.
function codeOf(name) {
  const pascal = name.replace(/(^|_)([a-z])/g, (_, __, c) => c.toUpperCase());
  return Code[pascal] ?? Code.Unknown;
}

function fail(req) {
  return new ConnectError(
    `asked to fail with ${req.failWith}`,
    codeOf(req.failWith),
    { "x-failed": "yes" },
    [{ desc: SayRequestSchema, value: req }],
  );
}

async function answer(req, number) {
  if (req.delayMs > 0) await sleep(req.delayMs);
  if (req.failWith) throw fail(req);
  const times = Math.min(Math.max(req.repeat, 1), 1 << 20);
  return { sentence: Array(times).fill(req.sentence).join(" "), number };
}

function echo(ctx) {
  const v = ctx.requestHeader.get("x-echo");
  if (v !== null) ctx.responseHeader.set("x-echo", v);
}

const routes = (router) =>
  router.service(SayService, {
    async say(req, ctx) {
      echo(ctx);
      return answer(req, 1);
    },
    async *words(req, ctx) {
      echo(ctx);
      if (req.failWith && !req.sentence) throw fail(req);
      let n = 0;
      for (const word of req.sentence.split(/\s+/).filter((w) => w)) {
        yield await answer({ ...req, sentence: word, failWith: "" }, ++n);
      }
      if (req.failWith) throw fail(req);
    },
    async collect(reqs) {
      const sentences = [];
      for await (const r of reqs) {
        if (r.failWith) throw fail(r);
        sentences.push(r.sentence);
      }
      return { sentence: sentences.join(" "), number: sentences.length };
    },
    async *chat(reqs) {
      let n = 0;
      for await (const r of reqs) yield await answer(r, ++n);
    },
  });

const h1 = http.createServer(connectNodeAdapter({ routes }));
const h2 = http2.createServer(connectNodeAdapter({ routes }));
await new Promise((ready) => h1.listen(0, "127.0.0.1", ready));
await new Promise((ready) => h2.listen(0, "127.0.0.1", ready));
console.log(JSON.stringify({ h1: h1.address().port, h2: h2.address().port }));
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
