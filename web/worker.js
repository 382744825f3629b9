// The page's Web Worker: every run happens here, so the page never waits on one.
// Defined as a function, not a file loaded by URL: app.js turns nmcInstantiate and this
// function into the worker's source (a Blob), which works from disk (file://) as from a server.
//
// Messages in:  {type: "init", bytes: ArrayBuffer}      the wasm module's bytes
//               {type: "run", id, request}              a request for nmcInstantiate's call()
// Messages out: {type: "ready", version} | {type: "failed", error}
//               {type: "progress", id, fraction}
//               {type: "done", id, reply, ms}           reply: {ok} or {error}; ms: wall time
function nmcWorker(scope) {
  let nmc = null;
  let current = null;
  scope.onmessage = async (e) => {
    const m = e.data;
    if (m.type === "init") {
      try {
        nmc = await nmcInstantiate(m.bytes, (f) => {
          if (current !== null) scope.postMessage({ type: "progress", id: current, fraction: f });
        });
        scope.postMessage({ type: "ready", version: nmc.call({ call: "version" }).ok });
      } catch (err) {
        scope.postMessage({ type: "failed", error: String(err) });
      }
    } else if (m.type === "run") {
      current = m.id;
      const t0 = performance.now();
      let reply;
      try {
        reply = nmc.call(m.request);
      } catch (err) {
        // A trap in the module (it does not panic on bad input; this would be a bug).
        reply = { error: "the simulation stopped: " + String(err) };
      }
      current = null;
      scope.postMessage({ type: "done", id: m.id, reply, ms: performance.now() - t0 });
    }
  };
}
