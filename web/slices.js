// The page's time slices (issue 60): K&O's Figs. 2, 7 and 8 animated over the 1974 map.
// Kleinrock & Opderbeck (1977) draw "time slices" of one pumping pair: at an instant, where
// each of its messages (MSG), RFNMs, REQALLs and ALLs is along the path from the source IMP to
// the destination, labelled from message i, the one most recently launched (i, i-1, ...), and
// which PLT entry and reassembly allocation each holds. The model takes them
// (crates/nmc-imp/src/model/slice.rs); nmc-wasm's "slices" call runs a scenario with
// `network.slices` at the instants asked for and returns them, with the pair's path, the map's
// sites and each line's utilisation. This file draws them: the map (hand-drawn SVG, an
// equirectangular projection) and K&O's own linear path diagram, frame by frame.
// Uses app.js's globals: $, el, run, setProgress, builtins, MAP_SITES.
"use strict";

// The scenarios the section offers: the IMP model with a measured pump.
const SLICE_SCENARIOS = ["ko-v2-map", "ko-v3-map", "ko-looping", "ko-v2-chain"];
// The marks, as nmc-run's slice_diagram and K&O draw them: a message a rectangle, a RFNM an
// oval, a REQALL a diamond, an ALL a dot.
const MARK = {
  MSG: { colour: "#2a6fdb" },
  RFNM: { colour: "#1a8a3a" },
  REQALL: { colour: "#d9822b" },
  ALL: { colour: "#8a3ab9" },
};
// Line utilisation classes (a choice of the page): upper bounds and colours.
const UTIL_CLASSES = [
  [0.1, "#9db4cc", "under 10 %"],
  [0.25, "#f2c94c", "10–25 %"],
  [0.5, "#f2994a", "25–50 %"],
  [0.75, "#eb5757", "50–75 %"],
  [Infinity, "#8b0000", "75 % and over"],
];
const utilColour = (u) => UTIL_CLASSES.find((c) => u < c[0])[1];

// The scenario's background load: the [[traffic]] table of kind "background", its index among
// the scenario's traffic (for a `traffic.N.messages_per_second` override) and its rate.
function backgroundOf(text) {
  const parts = text.split(/^\[\[traffic\]\]\s*$/m).slice(1);
  for (let k = 0; k < parts.length; k++) {
    if (/^kind\s*=\s*"background"/m.test(parts[k])) {
      const r = parts[k].match(/^messages_per_second\s*=\s*([0-9.]+)/m);
      if (r) return { index: k, rate: Number(r[1]) };
    }
  }
  return null;
}

const adaptive = (text) => /^routing\s*=\s*"adaptive"/m.test(text);
const loopPrevention = (text) => (text.match(/^loop_prevention\s*=\s*"([^"]+)"/m) || [])[1];

// Sets the controls that depend on the scenario: its load, its hold-down, its destination.
function slicesDescribe() {
  const name = $("sl-name").value;
  const text = builtins[name] || "";
  const bg = backgroundOf(text);
  const load = $("sl-load");
  load.disabled = !bg;
  load.options[0].textContent = bg ? `scenario's (${bg.rate} messages/s)` : "none in this scenario";
  if (!bg) load.value = "";
  const hd = $("sl-hold");
  hd.disabled = !adaptive(text);
  hd.options[0].textContent = adaptive(text)
    ? `scenario's (${loopPrevention(text) || "hold-down-1974"})` : "static routing: none";
  if (hd.disabled) hd.value = "";
  const dest = $("sl-dest");
  dest.disabled = name !== "ko-v2-map";
  if (dest.disabled) dest.value = "";
  const d = text.match(/^description\s*=\s*"(.*)"/m);
  const profile = (text.match(/^profile\s*=\s*"([^"]+)"/m) || [])[1];
  $("sl-profile").options[0].textContent = profile ? `scenario's (${profile})` : "scenario's";
  $("sl-desc").textContent = d ? d[1] : "";
}

// The fields of the request, from the controls.
function slicesRequest() {
  const name = $("sl-name").value;
  const text = builtins[name];
  const startMs = Math.round(1000 * Number($("sl-start").value));
  const stepMs = Math.round(Number($("sl-step").value));
  const count = Math.round(Number($("sl-count").value));
  // The run ends with the window: one step after its last instant.
  const sets = [`duration=${startMs + stepMs * count}ms`];
  if ($("sl-profile").value) sets.push(`network.profile=${$("sl-profile").value}`);
  if ($("sl-numbers").value) sets.push(`network.params.message_numbers=${$("sl-numbers").value}`);
  const bg = backgroundOf(text);
  if (bg && $("sl-load").value !== "") {
    const rate = +(bg.rate * Number($("sl-load").value)).toFixed(4);
    sets.push(`traffic.${bg.index}.messages_per_second=${rate}`);
  }
  if (adaptive(text) && $("sl-hold").value) {
    sets.push(`network.routing_params.loop_prevention=${$("sl-hold").value}`);
  }
  if (name === "ko-v2-map" && $("sl-dest").value) sets.push(`network.hosts.1.imp=${$("sl-dest").value}`);
  return {
    call: "slices", origin: name, text, seed: $("sl-seed").value.trim(), overrides: sets.join("\n"),
    start_ms: startMs, step_ms: stepMs, count,
  };
}

// ---- the animation's state ------------------------------------------------------------------

const SL = { data: null, frame: 0, timer: null };

async function runSlices() {
  const request = slicesRequest();
  $("sl-run").disabled = true;
  $("sl-error").textContent = "";
  slicesPause();
  const label = (x) => `${request.origin}, time slices: ${(100 * x).toFixed(0)} % of simulated time`;
  setProgress(0, label(0));
  const { reply, ms } = await run(request, (x) => setProgress(x, label(x)));
  if (reply.error) {
    $("sl-error").textContent = reply.error;
    setProgress(0, "");
  } else {
    SL.data = JSON.parse(reply.ok);
    SL.data.overrides = request.overrides;
    SL.frame = 0;
    drawSliceMap();
    showSliceRun();
    showFrame();
    setProgress(1, `${request.origin}: ${SL.data.slices.length} time slices in ${(ms / 1000).toFixed(2)} s of wall time`);
  }
  $("slices").dataset.runs = String(Number($("slices").dataset.runs || 0) + 1);
  $("sl-run").disabled = false;
}

// What the run was: the frame count, the pair, the command that gives the same slices.
function showSliceRun() {
  const d = SL.data;
  const n = d.slices.length;
  $("slices").dataset.frames = String(n);
  $("sl-frames").textContent = n;
  $("sl-scrub").max = Math.max(0, n - 1);
  const tp = d.metrics["throughput_kbps"];
  const first = d.slices[0];
  $("sl-summary").textContent = n === 0
    ? "No slice was taken: the measured pair had nothing under way at these instants."
    : `${first.from} to ${first.to}, ${first.hops} hops; the pump's throughput over the run: ` +
      `${tp === undefined ? "–" : tp.toFixed(2)} kbit/s; ${d.map ? `the ${d.map} map` : "no map (not a map topology)"}.`;
  const q = (s) => (/^[A-Za-z0-9_.,=:/-]+$/.test(s) ? s : `'${s}'`);
  const args = ["nmc run", d.scenario, "--seed", d.seed];
  for (const s of d.overrides.split("\n").concat([d.set])) args.push("--set", q(s));
  $("sl-command").textContent = args.join(" ");
  for (const id of ["sl-play", "sl-prev", "sl-next", "sl-scrub"]) $(id).disabled = n === 0;
}

// ---- the map --------------------------------------------------------------------------------

// The map's width and margins: room above for marks stacked at one place, to the right for
// their labels, below for the legend.
const MW = 720, PAD = { l: 30, r: 90, t: 84, b: 26 }, LEGEND = 34;

// An equirectangular projection fitted to `sites` (the continental US's, and any of the
// path's outside it): longitudes shrunk by the cosine of the middle latitude. Returns the
// projection and the height it needs at the map's width.
function projection(sites) {
  const lats = sites.map((s) => s.lat), lons = sites.map((s) => s.lon);
  const box = { lat0: Math.min(...lats), lat1: Math.max(...lats), lon0: Math.min(...lons), lon1: Math.max(...lons) };
  const k = Math.cos(((box.lat0 + box.lat1) / 2) * Math.PI / 180);
  const w = Math.max(1, (box.lon1 - box.lon0) * k), h = Math.max(1, box.lat1 - box.lat0);
  const scale = Math.min((MW - PAD.l - PAD.r) / w, 600 / h);
  const height = Math.max(200, h * scale + PAD.t + PAD.b);
  const x0 = PAD.l + (MW - PAD.l - PAD.r - w * scale) / 2;
  return { height, xy: (s) => [x0 + (s.lon - box.lon0) * k * scale, PAD.t + (box.lat1 - s.lat) * scale] };
}

const inUS = (s) => s.lat >= 24 && s.lat <= 50 && s.lon >= -125 && s.lon <= -66;

function drawSliceMap() {
  const svg = $("sl-map");
  svg.innerHTML = "";
  const d = SL.data;
  const located = d.sites.filter((s) => s.lat !== null && s.lon !== null);
  if (!d.map || located.length === 0) {
    svg.setAttribute("viewBox", `0 0 ${MW} 80`);
    el(svg, "text", { x: MW / 2, y: 44, "text-anchor": "middle" },
      "This scenario is not on a map: the linear diagram below shows its slices.");
    SL.pos = null;
    return;
  }
  $("sl-map-date").textContent = d.map;
  const onPath = new Set(d.path.map((s) => s.name));
  const drawn = located.filter((s) => inUS(s) || onPath.has(s.name));
  const p = projection(drawn);
  const MH = p.height + LEGEND;
  svg.setAttribute("viewBox", `0 0 ${MW} ${MH}`);
  const at = new Map(drawn.map((s) => [s.name, p.xy(s)]));
  // Each line once, coloured by the busier of its two directions.
  const lines = new Map();
  for (const l of d.lines) {
    const key = [l.from, l.to].sort().join("|");
    const prev = lines.get(key);
    lines.set(key, { a: l.from, b: l.to, u: Math.max(l.utilisation, prev ? prev.u : 0),
      dirs: (prev ? prev.dirs + "; " : "") + `${l.from}→${l.to} ${(100 * l.utilisation).toFixed(1)} %` });
  }
  const pathKeys = new Set();
  for (let k = 0; k + 1 < d.path.length; k++) pathKeys.add([d.path[k].name, d.path[k + 1].name].sort().join("|"));
  const g = el(svg, "g", { class: "lines" });
  for (const [key, l] of lines) {
    if (!at.has(l.a) || !at.has(l.b)) continue;
    const [x1, y1] = at.get(l.a), [x2, y2] = at.get(l.b);
    if (pathKeys.has(key)) el(g, "line", { x1, y1, x2, y2, stroke: "#222", "stroke-width": 8, "stroke-linecap": "round", class: "path" });
    const line = el(g, "line", { x1, y1, x2, y2, stroke: utilColour(l.u), "stroke-width": pathKeys.has(key) ? 4 : 2.5, "data-util": l.u.toFixed(4) });
    el(line, "title", {}, l.dirs);
  }
  // Sites: every one a dot (its name on hover); the path's named where the name has room
  // (Boston's path IMPs lie within a few kilometres of each other: the linear diagram names
  // them all).
  const boxes = [];
  for (const s of drawn) {
    const [x, y] = at.get(s.name);
    const c = el(svg, "circle", { cx: x, cy: y, r: onPath.has(s.name) ? 4 : 2.5, fill: onPath.has(s.name) ? "#000" : "#666", class: "site" });
    el(c, "title", {}, s.name);
  }
  for (const s of d.path) {
    if (!at.has(s.name)) continue;
    const [x, y] = at.get(s.name);
    const box = [x - 7 * s.name.length - 6, y + 4, x - 4, y + 17];
    if (boxes.some((b) => b[0] < box[2] && box[0] < b[2] && b[1] < box[3] && box[1] < b[3])) continue;
    boxes.push(box);
    el(svg, "text", { x: x - 5, y: y + 15, "text-anchor": "end", class: "site-name" }, s.name);
  }
  SL.siteBoxes = boxes; // the marks' labels keep clear of them
  const left = located.filter((s) => !drawn.includes(s)).map((s) => s.name);
  // The legend, in a strip under the map: utilisation classes, the path.
  const ly = MH - LEGEND + 16;
  el(svg, "text", { x: 8, y: ly + 4 }, "utilisation:");
  UTIL_CLASSES.forEach(([, colour, label], k) => {
    const lx = 76 + 98 * k;
    el(svg, "line", { x1: lx, y1: ly, x2: lx + 18, y2: ly, stroke: colour, "stroke-width": 4 });
    el(svg, "text", { x: lx + 22, y: ly + 4 }, label);
  });
  el(svg, "line", { x1: 576, y1: ly, x2: 594, y2: ly, stroke: "#222", "stroke-width": 8 });
  el(svg, "text", { x: 598, y: ly + 4 }, "the pair's path");
  el(svg, "text", { x: MW - 8, y: MH - 4, "text-anchor": "end", class: "small-note" },
    left.length ? `not drawn (off the continental US): ${left.join(", ")}` : "");
  SL.marks = el(svg, "g", { class: "marks" });
  SL.clockMap = el(svg, "text", { x: 10, y: 18, class: "clock" }, "");
  // A position in hops from the source IMP, along the path's lines.
  const pts = d.path.map((s) => at.get(s.name));
  SL.pos = (h) => {
    const k = Math.max(0, Math.min(pts.length - 1, Math.floor(h)));
    const f = Math.max(0, Math.min(1, h - k));
    const a = pts[k], b = pts[Math.min(pts.length - 1, k + 1)];
    return [a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1])];
  };
}

// One mark of K&O's kinds at (x, y); a message spread over the path from its rearmost to its
// foremost packet is a band along the lines.
function mark(svg, what, x, y, size) {
  const c = MARK[what].colour;
  if (what === "MSG") return el(svg, "rect", { x: x - size, y: y - size * 0.7, width: 2 * size, height: 1.4 * size, fill: c, class: "mark msg" });
  if (what === "RFNM") return el(svg, "ellipse", { cx: x, cy: y, rx: size, ry: size * 0.65, fill: c, class: "mark rfnm" });
  if (what === "REQALL") return el(svg, "polygon", { points: `${x},${y - size} ${x + size},${y} ${x},${y + size} ${x - size},${y}`, fill: c, class: "mark reqall" });
  return el(svg, "circle", { cx: x, cy: y, r: size * 0.6, fill: c, class: "mark all" });
}

const itemLabel = (it) => (it.label ? `${it.what} ${it.label}` : it.what);
const held = (it) => [it.plt ? "PLT" : "", it.all ? "ALL" : ""].filter(Boolean).join(" ");

function drawMapFrame(sl) {
  if (!SL.pos) return;
  SL.marks.innerHTML = "";
  SL.clockMap.textContent = `t = ${(sl.t_ns / 1e9).toFixed(3)} s`;
  // Marks stand above the line at their foremost position; a mark whose label would cover
  // another's goes one row higher, so that none hides another.
  const placed = SL.siteBoxes.slice();
  const overlaps = (b) => placed.some((p) => p[0] < b[2] && b[0] < p[2] && p[1] < b[3] && b[1] < p[3]);
  for (const it of sl.items) {
    const [kx, ky] = SL.pos(it.at_to);
    const width = 18 + 6.2 * itemLabel(it).length;
    let dy = -12;
    while (overlaps([kx - 7, ky + dy - 7, kx + width, ky + dy + 7]) && dy > -400) dy -= 14;
    placed.push([kx - 7, ky + dy - 7, kx + width, ky + dy + 7]);
    if (it.at_to > it.at_from) {
      const pts = [];
      for (let h = it.at_from; h < it.at_to; h = Math.min(it.at_to, Math.floor(h) + 1)) pts.push(SL.pos(h));
      pts.push(SL.pos(it.at_to));
      el(SL.marks, "polyline", { points: pts.map(([x, y]) => `${x},${y + dy}`).join(" "), fill: "none",
        stroke: MARK[it.what].colour, "stroke-width": 6, "stroke-opacity": 0.6, "stroke-linecap": "round" });
    }
    const [x, y] = SL.pos(it.at_to);
    const m = mark(SL.marks, it.what, x, y + dy, 6);
    el(m, "title", {}, `${itemLabel(it)}: ${it.doing}${held(it) ? " (holds " + held(it) + ")" : ""}`);
    el(SL.marks, "text", { x: x + 8, y: y + dy + 4, class: "mark-label" }, itemLabel(it));
  }
}

// ---- K&O's linear path diagram: IMPs 0..hops on a line, each item a row ---------------------

const LW = 720, LL = 70, LR = 250;

function drawLinearFrame(sl) {
  const svg = $("sl-line");
  const rows = Math.max(4, sl.items.length);
  const LH = 82 + 22 * rows;
  svg.setAttribute("viewBox", `0 0 ${LW} ${LH}`);
  svg.innerHTML = "";
  const x = (h) => LL + (h / Math.max(1, sl.hops)) * (LW - LL - LR);
  const axis = LH - 46;
  el(svg, "line", { x1: x(0), y1: axis, x2: x(sl.hops), y2: axis, stroke: "#444", "stroke-width": 2 });
  const names = SL.data.path.length === sl.hops + 1 ? SL.data.path.map((s) => s.name) : null;
  for (let h = 0; h <= sl.hops; h++) {
    el(svg, "rect", { x: x(h) - 5, y: axis - 5, width: 10, height: 10, fill: "#fff", stroke: "#000" });
    // Long paths: every other name a line lower, so that neighbours' names do not meet.
    const low = sl.hops > 6 && h % 2 === 1 ? 12 : 0;
    el(svg, "text", { x: x(h), y: axis + 20 + low, "text-anchor": "middle" }, names ? names[h] : h);
  }
  el(svg, "text", { x: 8, y: axis + 4 }, "IMPs:");
  el(svg, "text", { x: 8, y: 18, class: "clock" }, `t = ${(sl.t_ns / 1e9).toFixed(3)} s`);
  el(svg, "text", { x: LW - 8, y: 18, "text-anchor": "end" }, `${sl.from} → ${sl.to}, ${sl.hops} hops`);
  sl.items.forEach((it, k) => {
    const y = 40 + 22 * k;
    if (it.at_to > it.at_from) {
      el(svg, "line", { x1: x(it.at_from), y1: y, x2: x(it.at_to), y2: y, stroke: MARK[it.what].colour, "stroke-width": 6, "stroke-opacity": 0.6 });
    }
    mark(svg, it.what, x(it.at_to), y, 7);
    const t = el(svg, "text", { x: x(it.at_to) + 11, y: y + 4 }, `${itemLabel(it)}${held(it) ? " · " + held(it) : ""} `);
    el(t, "tspan", { class: "small-note" }, it.doing);
  });
}

// ---- frames, clock, controls -----------------------------------------------------------------

function showFrame() {
  const d = SL.data;
  const n = d ? d.slices.length : 0;
  $("slices").dataset.frame = String(SL.frame);
  if (n === 0) {
    $("sl-clock").textContent = "–";
    $("sl-frame").textContent = "0";
    $("sl-items").querySelector("tbody").innerHTML = "";
    return;
  }
  const sl = d.slices[SL.frame];
  $("sl-clock").textContent = `${(sl.t_ns / 1e9).toFixed(3)} s`;
  $("sl-frame").textContent = String(SL.frame + 1);
  $("sl-scrub").value = SL.frame;
  drawMapFrame(sl);
  drawLinearFrame(sl);
  const tbody = $("sl-items").querySelector("tbody");
  tbody.innerHTML = "";
  for (const it of sl.items) {
    const tr = document.createElement("tr");
    const at = it.at_from === it.at_to ? it.at_to.toFixed(1) : `${it.at_from.toFixed(1)}–${it.at_to.toFixed(1)}`;
    for (const v of [it.what, it.label, at, it.plt ? "yes" : "", it.all ? "yes" : "", it.doing]) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.appendChild(td);
    }
    tbody.appendChild(tr);
  }
}

function slicesStep(by) {
  const n = SL.data ? SL.data.slices.length : 0;
  if (n === 0) return;
  SL.frame = Math.max(0, Math.min(n - 1, SL.frame + by));
  showFrame();
}

// Wall time between frames: the step between instants times the slow-motion factor.
function frameInterval() {
  return Math.max(20, Number($("sl-speed").value) * (SL.data ? SL.data.slices.length > 1
    ? (SL.data.slices[1].t_ns - SL.data.slices[0].t_ns) / 1e6 : 20 : 20));
}

function slicesPlay() {
  if (!SL.data || SL.data.slices.length === 0) return;
  if (SL.frame >= SL.data.slices.length - 1) SL.frame = 0;
  $("sl-play").textContent = "Pause";
  $("slices").dataset.playing = "1";
  const tick = () => {
    if (SL.frame >= SL.data.slices.length - 1) return slicesPause();
    slicesStep(1);
    SL.timer = setTimeout(tick, frameInterval());
  };
  SL.timer = setTimeout(tick, frameInterval());
}

function slicesPause() {
  clearTimeout(SL.timer);
  SL.timer = null;
  $("sl-play").textContent = "Play";
  $("slices").dataset.playing = "0";
}

$("sl-run").addEventListener("click", runSlices);
$("sl-name").addEventListener("change", slicesDescribe);
$("sl-play").addEventListener("click", () => (SL.timer ? slicesPause() : slicesPlay()));
$("sl-prev").addEventListener("click", () => { slicesPause(); slicesStep(-1); });
$("sl-next").addEventListener("click", () => { slicesPause(); slicesStep(1); });
$("sl-scrub").addEventListener("input", () => { slicesPause(); SL.frame = Number($("sl-scrub").value); showFrame(); });
for (const n of SLICE_SCENARIOS) {
  const o = document.createElement("option");
  o.value = o.textContent = n;
  $("sl-name").appendChild(o);
}
MAP_SITES.forEach((s, k) => {
  const o = document.createElement("option");
  o.value = s;
  o.textContent = `${s} (${k + 1} hop${k ? "s" : ""})`;
  $("sl-dest").appendChild(o);
});
