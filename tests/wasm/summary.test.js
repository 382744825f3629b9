// The wasm build's run is `nmc run`'s run (issue 60): the same scenario, overrides and seed
// give summary.json's bytes, in Node as natively, and the page's time slices are slices.json's. Run by scripts/test.sh with node's test
// runner after scripts/build-web.sh:
//   NMC_CLI=target/debug/nmc NMC_WASM=target/web/nmc_wasm.wasm node --test tests/wasm/
const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const { nmcInstantiate } = require("../../web/nmc-wasm.js");

const cli = process.env.NMC_CLI;
const wasm = process.env.NMC_WASM;

function nativeSummary(name, seed, sets) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "nmc-wasm-node-"));
  const args = ["run", name, "--seed", String(seed), "--out", path.join(out, "run")];
  for (const s of sets) args.push("--set", s);
  execFileSync(cli, args, { stdio: ["ignore", "ignore", "inherit"] });
  const text = fs.readFileSync(path.join(out, "run", "summary.json"), "utf8");
  fs.rmSync(out, { recursive: true });
  return text;
}

const CASES = [
  ["ko-v2-chain", 7, ["duration=20s"]],
  ["ko-v2-chain", 3, ["duration=20s", "network.topology.hops=2", "network.hosts.1.imp=IMP2",
    "network.params.message_numbers=8"]],
  ["ko-v3-map", 1, ["duration=5s"]],
  ["golden-chain", 1, ["duration=10min"]],
];

test("the wasm summary has the bytes of nmc run's summary.json", { skip: !(cli && wasm) && "set NMC_CLI and NMC_WASM" }, async () => {
  let fractions = 0;
  const nmc = await nmcInstantiate(fs.readFileSync(wasm), () => { fractions += 1; });
  for (const [name, seed, sets] of CASES) {
    const text = nmc.call({ call: "builtin", name }).ok;
    assert.ok(text, name);
    const reply = nmc.call({ call: "run", origin: name, text, seed: String(seed), overrides: sets.join("\n") });
    assert.strictEqual(reply.error, undefined, `${name}: ${reply.error}`);
    assert.strictEqual(reply.ok, nativeSummary(name, seed, sets), `${name} ${sets}`);
  }
  assert.ok(fractions > 0, "no progress reported");
});

function nativeSlices(name, seed, sets) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "nmc-wasm-node-"));
  const args = ["run", name, "--seed", String(seed), "--out", path.join(out, "run")];
  for (const s of sets) args.push("--set", s);
  execFileSync(cli, args, { stdio: ["ignore", "ignore", "inherit"] });
  const slices = JSON.parse(fs.readFileSync(path.join(out, "run", "slices.json"), "utf8"));
  fs.rmSync(out, { recursive: true });
  return slices;
}

test("the wasm time slices are nmc run's slices.json", { skip: !(cli && wasm) && "set NMC_CLI and NMC_WASM" }, async () => {
  const nmc = await nmcInstantiate(fs.readFileSync(wasm));
  const name = "ko-v2-map";
  const text = nmc.call({ call: "builtin", name }).ok;
  const sets = ["duration=2s", "network.params.message_numbers=8"];
  const reply = nmc.call({ call: "slices", origin: name, text, seed: "3", overrides: sets.join("\n"),
    start_ms: 1000, step_ms: 50, count: 20 });
  assert.strictEqual(reply.error, undefined, reply.error);
  const got = JSON.parse(reply.ok);
  assert.deepStrictEqual(got.slices, nativeSlices(name, 3, [...sets, got.set]));
  assert.ok(got.slices.length > 0);
  assert.deepStrictEqual(got.path.map((s) => s.name).slice(0, 1).concat(got.path.slice(-1).map((s) => s.name)), ["UCLA", "BBN"]);
});

test("bad input is one line, not a trap", { skip: !wasm && "set NMC_WASM" }, async () => {
  const nmc = await nmcInstantiate(fs.readFileSync(wasm));
  const chain = nmc.call({ call: "builtin", name: "ko-v2-chain" }).ok;
  for (const req of [
    { call: "run", origin: "page", text: "not toml =" },
    { call: "run", origin: "page", text: chain, overrides: "network.params.message_numbers=-3" },
    { call: "run", origin: "page", text: chain, seed: "-1" },
    { call: "run", origin: "page", text: chain, overrides: "model=\"internet-1983\"" },
    { call: "nonsense" },
    { call: "slices", origin: "page", text: chain, start_ms: 0, step_ms: 1, count: 1001 },
    { call: "slices", origin: "page", text: chain, start_ms: 0, step_ms: 1, count: 1e300 },
    { call: "slices", origin: "page", text: "not toml =", start_ms: 0, step_ms: 10, count: 10 },
  ]) {
    const reply = nmc.call(req);
    assert.ok(reply.error && !reply.error.includes("\n"), JSON.stringify(reply));
  }
  // and the module still answers after each
  assert.ok(nmc.call({ call: "version" }).ok);
});
