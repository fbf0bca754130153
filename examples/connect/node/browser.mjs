// connect-web in a real browser: bundles web.mjs with esbuild, serves the page from another
// loopback origin than the server's, and loads it in headless Chromium (puppeteer-core, the
// system's Chromium: VT_CHROMIUM, /usr/bin/chromium by default).
//
//   node browser.mjs http://127.0.0.1:PORT
//
// Prints a line per check and exits 1 if one failed.

import http from "node:http";
import * as esbuild from "esbuild";
import puppeteer from "puppeteer-core";

const server = process.argv[2];
if (!server) {
  console.error("usage: node browser.mjs http://127.0.0.1:PORT");
  process.exit(2);
}
const bundle = await esbuild.build({
  entryPoints: [new URL("./web.mjs", import.meta.url).pathname],
  bundle: true,
  write: false,
  format: "esm",
  platform: "browser",
  logLevel: "error",
});
const script = bundle.outputFiles[0].text;
const html = '<!doctype html><meta charset="utf-8"><script type="module" src="/web.js"></script>';
const origin = http.createServer((req, res) => {
  const js = req.url.startsWith("/web.js");
  res.writeHead(200, { "content-type": js ? "text/javascript" : "text/html" });
  res.end(js ? script : html);
});
await new Promise((ready) => origin.listen(0, "127.0.0.1", ready));
// `localhost` and another port: another origin than the server's `127.0.0.1`.
const page = `http://localhost:${origin.address().port}/?server=${encodeURIComponent(server)}`;

const browser = await puppeteer.launch({
  executablePath: process.env.VT_CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
let failed = 0;
try {
  const tab = await browser.newPage();
  tab.on("console", (m) => console.log(`page: ${m.text()}`));
  tab.on("pageerror", (e) => console.log(`page error: ${e}`));
  await tab.goto(page);
  await tab.waitForFunction("window.__done === true", { timeout: 60000 });
  const results = await tab.evaluate(() => window.__results);
  console.log(`${await browser.version()}, page at ${page}`);
  for (const r of results) {
    console.log(`${r.ok ? "ok  " : "FAIL"} browser ${r.name}${r.ok ? "" : `: ${r.error}`}`);
    if (!r.ok) failed++;
  }
  console.log(`${results.length - failed} passed, ${failed} failed`);
  if (results.length === 0) failed++;
} finally {
  await browser.close();
  origin.close();
}
process.exit(failed === 0 ? 0 : 1);
