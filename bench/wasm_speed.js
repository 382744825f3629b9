// The wasm half of bench/wasm-speed.sh: one shipped scenario run in the wasm build under Node,
// timed, as events per second (the summary's `events` metric over the call's wall time).
//   node bench/wasm_speed.js WASM NAME SEED [KEY=VALUE ...]
const fs = require("node:fs");
const { nmcInstantiate } = require("../web/nmc-wasm.js");

(async () => {
  const [wasm, name, seed, ...sets] = process.argv.slice(2);
  const nmc = await nmcInstantiate(fs.readFileSync(wasm));
  const text = nmc.call({ call: "builtin", name }).ok;
  const t0 = performance.now();
  const reply = nmc.call({ call: "run", origin: name, text, seed, overrides: sets.join("\n") });
  const wall = (performance.now() - t0) / 1000;
  if (reply.error) throw new Error(reply.error);
  const events = JSON.parse(reply.ok).metrics.events;
  console.log(`wasm    ${name}: ${events} events in ${wall.toFixed(3)} s = ${(events / wall).toExponential(3)} events/s`);
  fs.writeFileSync(process.env.WASM_SUMMARY || "/dev/null", reply.ok);
})();
