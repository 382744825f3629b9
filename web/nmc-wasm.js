// The loader of nmc's wasm build (crates/nmc-wasm): JSON through linear memory.
// A classic script, not a module, so that the page works opened from disk (file://), where
// browsers refuse module scripts and workers loaded by URL; Node loads it with require().
//
//   const nmc = await nmcInstantiate(bytes, (fraction) => ...);
//   nmc.call({call: "run", origin, text, seed: "7", overrides: "key=value\n..."})
//     -> {ok: "<summary.json text>"} or {error: "one line"}
//
// The exports (crates/nmc-wasm/src/lib.rs, mod abi): nmc_alloc(len) -> ptr;
// nmc_call(ptr, len) -> reply length (takes the buffer back); nmc_reply_ptr() -> ptr.
// The import: nmc.progress(fraction).
async function nmcInstantiate(bytes, onProgress) {
  const module = await WebAssembly.compile(bytes);
  const imports = { nmc: { progress: (f) => { if (onProgress) onProgress(f); } } };
  // plotters (nmc-report's charts) brings wasm-bindgen's placeholder imports into the build;
  // no run calls them (the page draws no chart in Rust). Each is a function that throws, so a
  // call would be one clear error, not a failure to load.
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.module === "nmc" || imp.kind !== "function") continue;
    imports[imp.module] = imports[imp.module] || {};
    imports[imp.module][imp.name] = () => {
      throw new Error(`nmc-wasm: ${imp.module}.${imp.name} is not available in this page`);
    };
  }
  const instance = await WebAssembly.instantiate(module, imports);
  const x = instance.exports;
  const encoder = new TextEncoder();
  const decoder = new TextDecoder("utf-8", { fatal: true });
  return {
    call(request) {
      const input = encoder.encode(JSON.stringify(request));
      const ptr = x.nmc_alloc(input.length);
      new Uint8Array(x.memory.buffer, ptr, input.length).set(input);
      const len = x.nmc_call(ptr, input.length);
      // The memory may have grown during the call: take its buffer afresh.
      const out = new Uint8Array(x.memory.buffer, x.nmc_reply_ptr(), len);
      return JSON.parse(decoder.decode(out.slice()));
    },
  };
}

if (typeof module !== "undefined" && module.exports) {
  module.exports = { nmcInstantiate };
}
