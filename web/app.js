// The page (issue 60): the Fig. 3 explorer and the shipped scenarios, every run in a Web Worker.
"use strict";

// K&O's published points (ko-targets.json, copied from nmc-experiments' KO-1..KO-3 targets).
// Inlined by value here too so that the page needs no fetch from disk; the browser test checks
// the two agree.
const KO = {
  throughput: [
    { from: 1, to: 5, lo: 37.0, hi: 38.5 }, // KO-1, Fig. 3
    { from: 9, to: 9, lo: 30.0, hi: 30.0 }, // KO-2, Fig. 3
  ],
  rtt: (n) => 200 + 90 * (n - 1), // KO-3, Fig. 4
};
// The fake host's site at 1..9 hops on the June 1974 map: KO_MAP_DESTINATIONS
// (crates/nmc-experiments/src/experiments/ko_sites.rs).
const MAP_SITES = ["SDC", "RAND", "USC-ISI", "STANFORD", "SRI", "MOFFETT", "LBL", "UTAH", "BBN"];

const $ = (id) => document.getElementById(id);

function koThroughput(n) {
  const t = KO.throughput.find((t) => n >= t.from && n <= t.to);
  return t ? (t.lo === t.hi ? `${t.lo}` : `${t.lo}–${t.hi}`) : "";
}

// ---- the worker ----------------------------------------------------------------------------

function base64Bytes(b64) {
  const s = atob(b64);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  return bytes.buffer;
}

const source = `${nmcInstantiate.toString()}\n${nmcWorker.toString()}\nnmcWorker(self);\n`;
const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
const pending = new Map(); // id -> {resolve, onProgress}
let nextId = 1;
let ready;
const readyPromise = new Promise((r) => (ready = r));

worker.onmessage = (e) => {
  const m = e.data;
  if (m.type === "ready") ready(m.version);
  else if (m.type === "failed") $("status").textContent = "The simulation did not load: " + m.error;
  else if (m.type === "progress") pending.get(m.id)?.onProgress(m.fraction);
  else if (m.type === "done") {
    const p = pending.get(m.id);
    pending.delete(m.id);
    p.resolve({ reply: m.reply, ms: m.ms });
  }
};
worker.postMessage({ type: "init", bytes: base64Bytes(NMC_WASM_BASE64) });

function run(request, onProgress) {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, { resolve, onProgress });
    worker.postMessage({ type: "run", id, request });
  });
}

function setProgress(fraction, text) {
  $("bar").style.width = `${(100 * Math.min(1, fraction)).toFixed(1)}%`;
  $("progress-text").textContent = text;
}

let builtins = {};
readyPromise.then(async (version) => {
  $("version").textContent = version;
  const names = (await run({ call: "builtin-names" })).reply.ok.split("\n");
  for (const n of names) {
    builtins[n] = (await run({ call: "builtin", name: n })).reply.ok;
    const o = document.createElement("option");
    o.value = o.textContent = n;
    $("s-name").appendChild(o);
  }
  $("s-name").value = "ko-v2-chain";
  describe();
  $("status").textContent = "Ready.";
  document.body.dataset.ready = "1";
  const bg = backgroundOf(builtins["ko-v2-map"]);
  if (bg) $("f-load").options[0].textContent = `ko-v2-map's (${bg.rate} messages/s)`;
  $("sl-name").value = "ko-v2-map";
  slicesDescribe(); // slices.js
  $("f-run").disabled = $("s-run").disabled = $("sl-run").disabled = false;
});

// ---- the Fig. 3 explorer -------------------------------------------------------------------

function hopsList(v) {
  if (v === "1-9") return [1, 2, 3, 4, 5, 6, 7, 8, 9];
  return v.split(",").map(Number);
}

function fig3Request(net, n, f) {
  const sets = [`duration=${f.duration}`, `network.profile=${f.profile}`,
    `network.params.message_numbers=${f.numbers}`];
  let dest;
  if (net === "chain") {
    dest = `IMP${n}`;
    sets.push(`network.topology.hops=${n}`, `network.hosts.1.imp=${dest}`);
  } else {
    dest = MAP_SITES[n - 1];
    sets.push(`network.hosts.1.imp=${dest}`);
  }
  // The map's own load, a multiple of its background's rate (slices.js: backgroundOf).
  const bg = net === "map" ? backgroundOf(builtins["ko-v2-map"]) : null;
  if (bg && f.load !== "") sets.push(`traffic.${bg.index}.messages_per_second=${+(bg.rate * Number(f.load)).toFixed(4)}`);
  if (f.plt) sets.push(`network.params.plt_entries=${f.plt}`);
  if (f.reasm) sets.push(`network.params.reassembly_buffers=${f.reasm}`);
  if (f.spr) sets.push(`network.params.single_packet_rule="${f.spr}"`);
  const name = net === "chain" ? "ko-v2-chain" : "ko-v2-map";
  return { dest, request: { call: "run", origin: name, text: builtins[name], seed: f.seed, overrides: sets.join("\n") } };
}

let fig3Rows = [];
let fig3Label = "";
// The curves of earlier runs, kept so that one run can be read beside another (4 message
// numbers, then 8): {label, rows}. The Clear button empties it.
let fig3Earlier = [];
const EARLIER = ["#9a9a9a", "#d98b2b", "#3aa17a", "#b05cc4"];

async function runFig3() {
  const f = {
    duration: $("f-duration").value, profile: $("f-profile").value, numbers: $("f-numbers").value,
    load: $("f-load").value, plt: $("f-plt").value.trim(), reasm: $("f-reasm").value.trim(), spr: $("f-spr").value, seed: $("f-seed").value.trim(),
  };
  const net = $("f-net").value;
  const hops = hopsList($("f-hops").value);
  $("f-run").disabled = true;
  if (fig3Rows.length > 0) fig3Earlier = fig3Earlier.concat([{ label: fig3Label, rows: fig3Rows }]).slice(-EARLIER.length);
  fig3Label = `${net === "chain" ? "chain" : "map"}, ${f.numbers} numbers, ${f.profile}` +
    `${f.load ? ", load × " + f.load : ""}${f.plt ? ", PLT " + f.plt : ""}${f.reasm ? ", reassembly " + f.reasm : ""}${f.spr ? ", " + f.spr : ""}, ${f.duration}`;
  fig3Rows = [];
  drawFig3();
  const tbody = $("fig3-table").querySelector("tbody");
  tbody.innerHTML = "";
  for (let k = 0; k < hops.length; k++) {
    const n = hops[k];
    const { dest, request } = fig3Request(net, n, f);
    const label = (x) => `run ${k + 1} of ${hops.length}: ${n} hops to ${dest}, ${(100 * x).toFixed(0)} %`;
    setProgress(k / hops.length, label(0));
    const { reply, ms } = await run(request, (x) => setProgress((k + x) / hops.length, label(x)));
    if (reply.error) {
      setProgress(1, "");
      $("status").textContent = reply.error;
      break;
    }
    const s = JSON.parse(reply.ok);
    const m = s.metrics;
    const row = { hops: n, dest, tp: m["throughput_kbps"], rtt: m["rtt.mean_ms"], events: m["events"], ms };
    fig3Rows.push(row);
    const tr = document.createElement("tr");
    tr.dataset.hops = n;
    for (const v of [n, dest, row.tp.toFixed(2), koThroughput(n),
      row.rtt === undefined ? "–" : row.rtt.toFixed(1), KO.rtt(n).toFixed(0), row.events, (ms / 1000).toFixed(2)]) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.appendChild(td);
    }
    tbody.appendChild(tr);
    drawFig3();
  }
  setProgress(1, `done: ${fig3Rows.length} runs`);
  $("fig3").dataset.done = String(fig3Rows.length);
  $("f-run").disabled = false;
}

// ---- charts: hand-drawn SVG ----------------------------------------------------------------

const W = 460, H = 300, L = 52, R = 12, T = 14, B = 40;
const NS = "http://www.w3.org/2000/svg";

function el(svg, name, attrs, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  svg.appendChild(e);
  return e;
}

function chart(svg, ymax, ylabel, paper, ours, earlier) {
  svg.innerHTML = "";
  const x = (h) => L + ((h - 0.5) / 9) * (W - L - R);
  const y = (v) => H - B - (v / ymax) * (H - T - B);
  el(svg, "line", { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#444" });
  el(svg, "line", { x1: L, y1: T, x2: L, y2: H - B, stroke: "#444" });
  for (let h = 1; h <= 9; h++) el(svg, "text", { x: x(h), y: H - B + 14, "text-anchor": "middle" }, h);
  el(svg, "text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle" }, "hops");
  const step = ymax > 400 ? 200 : 10;
  for (let v = 0; v <= ymax; v += step) {
    el(svg, "text", { x: L - 6, y: y(v) + 4, "text-anchor": "end" }, v);
    el(svg, "line", { x1: L, y1: y(v), x2: W - R, y2: y(v), stroke: "#e4e4e4" });
  }
  el(svg, "text", { x: 12, y: (T + H - B) / 2, transform: `rotate(-90 12 ${(T + H - B) / 2})`, "text-anchor": "middle" }, ylabel);
  paper(x, y);
  earlier.forEach((e, k) => {
    const pts = e.points.filter((p) => p[1] !== undefined);
    const c = EARLIER[k];
    if (pts.length > 1) el(svg, "polyline", { points: pts.map(([h, v]) => `${x(h)},${y(v)}`).join(" "), fill: "none", stroke: c, "stroke-width": 1.2 });
    for (const [h, v] of pts) el(svg, "circle", { cx: x(h), cy: y(v), r: 3, fill: c, class: "earlier" });
    // Their legend at the bottom right, where neither chart has points.
    const ly = H - B - 10 - 12 * (earlier.length - 1 - k);
    el(svg, "circle", { cx: W - R - 195, cy: ly - 3, r: 3, fill: c });
    el(svg, "text", { x: W - R - 187, y: ly, class: "small-note" }, e.label);
  });
  const pts = ours.filter((p) => p[1] !== undefined);
  if (pts.length > 1) {
    el(svg, "polyline", { points: pts.map(([h, v]) => `${x(h)},${y(v)}`).join(" "), fill: "none", stroke: "#2a6fdb", "stroke-width": 1.5 });
  }
  for (const [h, v] of pts) el(svg, "circle", { cx: x(h), cy: y(v), r: 4, fill: "#2a6fdb", class: "ours" });
  el(svg, "rect", { x: W - R - 150, y: T, width: 10, height: 10, fill: "#000" });
  el(svg, "text", { x: W - R - 135, y: T + 9 }, "K&O (1977)");
  el(svg, "circle", { cx: W - R - 145, cy: T + 20, r: 4, fill: "#2a6fdb" });
  el(svg, "text", { x: W - R - 135, y: T + 24 }, earlier.length ? "the last run" : "this page's runs");
}

function drawFig3() {
  chart($("chart-tp"), 50, "throughput (kbit/s)", (x, y) => {
    for (const t of KO.throughput) {
      for (let h = t.from; h <= t.to; h++) {
        el(svg_tp(), "rect", { x: x(h) - 5, y: y(t.hi) - 2, width: 10, height: Math.max(4, y(t.lo) - y(t.hi) + 4), fill: "#000", class: "paper" });
      }
    }
  }, fig3Rows.map((r) => [r.hops, r.tp]), fig3Earlier.map((e) => ({ label: e.label, points: e.rows.map((r) => [r.hops, r.tp]) })));
  chart($("chart-rtt"), 1200, "round trip (ms)", (x, y) => {
    el(svg_rtt(), "polyline", { points: [1, 9].map((h) => `${x(h)},${y(KO.rtt(h))}`).join(" "), stroke: "#000", "stroke-dasharray": "4 3", fill: "none" });
    for (let h = 1; h <= 9; h++) el(svg_rtt(), "rect", { x: x(h) - 4, y: y(KO.rtt(h)) - 4, width: 8, height: 8, fill: "#000", class: "paper" });
  }, fig3Rows.map((r) => [r.hops, r.rtt]), fig3Earlier.map((e) => ({ label: e.label, points: e.rows.map((r) => [r.hops, r.rtt]) })));
}
const svg_tp = () => $("chart-tp");
const svg_rtt = () => $("chart-rtt");

// ---- the shipped scenarios -----------------------------------------------------------------

function describe() {
  const t = builtins[$("s-name").value] || "";
  const d = t.match(/^description\s*=\s*"(.*)"/m);
  $("s-desc").textContent = d ? d[1] : "";
}

async function runScenario() {
  const name = $("s-name").value;
  $("s-run").disabled = true;
  $("s-error").textContent = "";
  const label = (x) => `${name}: ${(100 * x).toFixed(0)} % of simulated time`;
  setProgress(0, label(0));
  const { reply, ms } = await run(
    { call: "run", origin: name, text: builtins[name], seed: $("s-seed").value.trim(), overrides: $("s-sets").value },
    (x) => setProgress(x, label(x)));
  const tbody = $("s-table").querySelector("tbody");
  tbody.innerHTML = "";
  if (reply.error) {
    $("s-error").textContent = reply.error;
    $("s-json").textContent = "";
    setProgress(0, "");
  } else {
    const s = JSON.parse(reply.ok);
    for (const [k, v] of Object.entries(s.metrics)) {
      const tr = document.createElement("tr");
      tr.innerHTML = "<td></td><td></td>";
      tr.children[0].textContent = k;
      tr.children[1].textContent = Number.isInteger(v) ? v : v.toPrecision(6);
      tbody.appendChild(tr);
    }
    $("s-json").textContent = reply.ok;
    setProgress(1, `${name}: done in ${(ms / 1000).toFixed(2)} s of wall time`);
  }
  $("scenarios").dataset.done = String(Number($("scenarios").dataset.done || 0) + 1);
  $("s-run").disabled = false;
}

// Links to the book: its built HTML where scripts/build-web.sh found it (book/), else the
// chapter's source in the repository.
for (const a of document.querySelectorAll("a.book")) {
  const source = "docs/src/" + a.dataset.chapter.replace(/\.html.*/, ".md");
  if (typeof NMC_BOOK !== "undefined" && NMC_BOOK) {
    a.href = "book/" + a.dataset.chapter;
    a.title = source;
  } else {
    a.textContent += ` (${source})`;
  }
}

$("f-run").addEventListener("click", runFig3);
$("f-clear").addEventListener("click", () => { fig3Earlier = []; drawFig3(); });
$("s-run").addEventListener("click", runScenario);
$("s-name").addEventListener("change", describe);
drawFig3();
