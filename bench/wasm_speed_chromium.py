"""The Chromium half of bench/wasm-speed.sh (issue 60 §4: speed in the browser): the page built
by scripts/build-web.sh, opened from disk in headless Chromium, runs one shipped scenario in its
Web Worker as a reader's run does; the worker times the call. Prints events per second as the
native and Node halves do, and writes the summary (CHROMIUM_SUMMARY) for the byte comparison.

    python bench/wasm_speed_chromium.py WEB_DIR NAME SEED [KEY=VALUE ...]

Needs selenium (wasm-speed.sh makes target/bench-venv), Chromium and ChromeDriver (CHROMIUM,
CHROMEDRIVER name them; /usr/bin/chromium and /usr/bin/chromedriver by default).
"""

import json
import os
import pathlib
import sys

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

web, name, seed, *sets = sys.argv[1:]
opts = Options()
for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files"):
    opts.add_argument(a)
opts.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
driver = webdriver.Chrome(service=service, options=opts)
try:
    driver.set_script_timeout(1800)
    driver.get(pathlib.Path(web, "index.html").resolve().as_uri())
    # The page's own worker and request (web/app.js: readyPromise, run); the call's wall time
    # is the worker's, around nmc_call.
    got = driver.execute_async_script(
        """
        const [name, seed, sets, done] = arguments;
        readyPromise.then(async () => {
          const text = (await run({ call: "builtin", name })).reply.ok;
          const r = await run({ call: "run", origin: name, text, seed, overrides: sets }, () => {});
          done({ reply: r.reply, ms: r.ms, agent: navigator.userAgent });
        }).catch((e) => done({ reply: { error: String(e) }, ms: 0 }));
        """,
        name,
        seed,
        "\n".join(sets),
    )
finally:
    driver.quit()
reply = got["reply"]
if "error" in reply:
    sys.exit(f"chromium: {reply['error']}")
events = json.loads(reply["ok"])["metrics"]["events"]
wall = got["ms"] / 1000
agent = next((w for w in got.get("agent", "").split() if w.startswith(("HeadlessChrome/", "Chrome/"))), "")
print(f"chromium {name}: {int(events)} events in {wall:.3f} s = {events / wall:.3e} events/s ({agent})")
out = os.environ.get("CHROMIUM_SUMMARY")
if out:
    pathlib.Path(out).write_text(reply["ok"])
