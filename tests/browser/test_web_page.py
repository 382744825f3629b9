"""The page of issue 60 (the IMP subnet in a browser), in headless Chromium.

The page, built by scripts/build-web.sh and opened from disk (file://, as a reader would),
loads the simulation in a Web Worker, runs a short Fig. 3 point and a shipped scenario, and
shows the numbers `nmc run` gives for the same scenario, settings and seed: the explorer's
throughput and round trip to the digits it prints, the scenario panel's summary.json byte
for byte, and the time slices section's frames (slices.json's, as many and the same), played
and stepped. The page stays responsive while the worker runs. Screenshots are kept as
artefacts (NMC_BROWSER_ARTEFACTS, by default target/browser-test/web-page.png and
web-slices.png).

Run by scripts/test.sh after scripts/build-web.sh. NMC_WEB_DIR names the built page (default
target/web), NMC_CLI the `nmc` binary.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
WIDTH, HEIGHT = 1280, 1400
# A generous bound on the page's work, not a timing test: each run below takes well under a
# second natively.
WAIT_S = 300


@pytest.fixture(scope="module")
def web_page() -> Path:
    if os.environ.get("NMC_WEB_SKIP"):
        pytest.skip(f"the page was not built: {os.environ['NMC_WEB_SKIP']}")
    page = Path(os.environ.get("NMC_WEB_DIR", ROOT / "target" / "web")) / "index.html"
    if not page.is_file():
        pytest.fail(f"no built page at {page}: run scripts/build-web.sh first")
    return page


@pytest.fixture(scope="module")
def cli() -> str:
    cli = os.environ.get("NMC_CLI") or shutil.which("nmc")
    assert cli, "set NMC_CLI to the nmc binary"
    return cli


def native_file(cli: str, tmp: Path, name: str, seed: int, sets: list[str], file: str) -> str:
    """`nmc run NAME --seed SEED --set ... --out DIR`: the text of its file `file`."""
    out = tmp / f"{name}-{seed}-{len(sets)}-{file}"
    args = [cli, "run", name, "--seed", str(seed), "--out", str(out)]
    for s in sets:
        args += ["--set", s]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    return (out / file).read_text()


def native_summary(cli: str, tmp: Path, name: str, seed: int, sets: list[str]) -> str:
    return native_file(cli, tmp, name, seed, sets, "summary.json")


@pytest.fixture(scope="module")
def page(browser, web_page):
    browser.get(web_page.as_uri())
    WebDriverWait(browser, WAIT_S).until(
        lambda d: d.execute_script("return document.body.dataset.ready === '1'")
        or "did not load" in d.find_element(By.ID, "status").text
    )
    assert browser.find_element(By.ID, "status").text == "Ready."
    return browser


def test_the_published_points_are_the_targets_file(page):
    """The points drawn as K&O's are those of ko-targets.json (copied from nmc-experiments)."""
    targets = json.loads((ROOT / "web" / "ko-targets.json").read_text())
    drawn = page.execute_script(
        "return {tp: KO.throughput, rtt: [1,2,3,4,5,6,7,8,9].map(KO.rtt)}"
    )
    want = [
        {"from": t["hops_from"], "to": t["hops_to"], "lo": t["lo"], "hi": t["hi"]}
        for t in targets["throughput_kbps"]
    ]
    assert drawn["tp"] == want
    r = targets["rtt_ms"]
    assert drawn["rtt"] == [r["base"] + r["per_hop"] * (n - 1) for n in range(1, 10)]


def fig3_cells(page) -> list[str]:
    """The Fig. 3 table's cells, row after row."""
    return [td.text for td in page.find_elements(By.CSS_SELECTOR, "#fig3-table tbody tr td")]


def two_hop_chain_metrics(cli: str, tmp: Path, numbers: int, *extra: str) -> dict:
    """The metrics of `nmc run ko-v2-chain` as the page's 2-hop, 20 s point asks for it."""
    sets = [
        "duration=20s",
        "network.profile=v2-1974-10",
        f"network.params.message_numbers={numbers}",
        "network.topology.hops=2",
        "network.hosts.1.imp=IMP2",
        *extra,
    ]
    return json.loads(native_summary(cli, tmp, "ko-v2-chain", 1, sets))["metrics"]


def test_a_fig3_point_shows_nmc_runs_numbers(page, cli, tmp_path):
    """Two hops, 8 message numbers, 20 simulated seconds: the row the page shows is the run."""
    Select(page.find_element(By.ID, "f-hops")).select_by_value("2")
    Select(page.find_element(By.ID, "f-numbers")).select_by_value("8")
    Select(page.find_element(By.ID, "f-duration")).select_by_value("20s")
    page.find_element(By.ID, "f-run").click()
    # While the worker runs, the page answers (its script is not blocked).
    assert page.execute_script("return 1 + 1") == 2
    WebDriverWait(page, WAIT_S).until(
        lambda d: d.find_element(By.ID, "fig3").get_attribute("data-done") == "1"
    )
    cells = fig3_cells(page)
    m = two_hop_chain_metrics(cli, tmp_path, 8)
    assert cells[:6] == [
        "2",
        "IMP2",
        f"{m['throughput_kbps']:.2f}",
        "37–38.5",
        f"{m['rtt.mean_ms']:.1f}",
        "290",
    ]
    assert cells[6] == str(int(m["events"]))
    # one blue point on each chart
    assert len(page.find_elements(By.CSS_SELECTOR, "#chart-tp circle.ours")) == 1
    assert len(page.find_elements(By.CSS_SELECTOR, "#chart-rtt circle.ours")) == 1
    # Then 4 message numbers and 16 reassembly buffers (K&O's "reassembly room"): the 8's
    # point stays beside the new one, as an earlier curve, and the new row is that run.
    Select(page.find_element(By.ID, "f-numbers")).select_by_value("4")
    set_input(page, "f-reasm", "16")
    page.find_element(By.ID, "f-run").click()
    WebDriverWait(page, WAIT_S).until(
        lambda d: d.find_element(By.ID, "f-run").is_enabled()
        and d.find_element(By.ID, "fig3").get_attribute("data-done") == "1"
        and len(d.find_elements(By.CSS_SELECTOR, "#chart-tp circle.earlier")) == 1
    )
    assert len(page.find_elements(By.CSS_SELECTOR, "#chart-tp circle.ours")) == 1
    cells = fig3_cells(page)
    m = two_hop_chain_metrics(cli, tmp_path, 4, "network.params.reassembly_buffers=16")
    assert cells[2] == f"{m['throughput_kbps']:.2f}" and cells[6] == str(int(m["events"]))
    set_input(page, "f-reasm", "")


def native_slices(cli: str, tmp: Path, name: str, seed: int, sets: list[str]) -> list:
    """`nmc run`'s slices.json for the same run, parsed."""
    return json.loads(native_file(cli, tmp, name, seed, sets, "slices.json"))


def set_input(page, element_id: str, value: str):
    box = page.find_element(By.ID, element_id)
    box.clear()
    box.send_keys(value)


def test_a_time_slice_window_plays_the_native_runs_slices(page, cli, tmp_path):
    """K&O's 9-hop pair on the 1974 map, 8 message numbers, 40 slices 25 ms apart from 2 s:
    the page shows as many frames as `nmc run` writes to slices.json for the same scenario,
    seed and instants, and the same slices; play advances the clock; a step is one slice."""
    section = page.find_element(By.ID, "slices")
    assert Select(page.find_element(By.ID, "sl-name")).first_selected_option.text == "ko-v2-map"
    Select(page.find_element(By.ID, "sl-numbers")).select_by_value("8")
    set_input(page, "sl-start", "2")
    set_input(page, "sl-step", "25")
    set_input(page, "sl-count", "40")
    page.find_element(By.ID, "sl-run").click()
    WebDriverWait(page, WAIT_S).until(
        lambda d: d.find_element(By.ID, "slices").get_attribute("data-runs") == "1"
    )
    assert page.find_element(By.ID, "sl-error").text == ""
    instants = ", ".join(f'"{2000 + 25 * k}ms"' for k in range(40))
    native = native_slices(
        cli,
        tmp_path,
        "ko-v2-map",
        1,
        [
            "duration=3000ms",
            "network.params.message_numbers=8",
            f"network.slices=[{instants}]",
        ],
    )
    frames = int(section.get_attribute("data-frames"))
    assert frames == len(native) > 1
    assert page.find_element(By.ID, "sl-frames").text == str(frames)
    assert page.execute_script("return SL.data.slices") == native
    # The map: the 9-hop path UCLA..BBN outlined, every line coloured, the marks of slice 1.
    path = page.execute_script("return SL.data.path.map((s) => s.name)")
    assert (path[0], path[-1], len(path)) == ("UCLA", "BBN", 10)
    assert len(page.find_elements(By.CSS_SELECTOR, "#sl-map line.path")) == 9
    marks = page.find_elements(By.CSS_SELECTOR, "#sl-map .mark")
    assert len(marks) == len(native[0]["items"])
    assert len(page.find_elements(By.CSS_SELECTOR, "#sl-line .mark")) == len(marks)

    def clock_s():
        return float(page.find_element(By.ID, "sl-clock").text.removesuffix(" s"))

    def frame():
        return int(section.get_attribute("data-frame"))

    assert frame() == 0 and clock_s() == native[0]["t_ns"] / 1e9
    page.find_element(By.ID, "sl-next").click()
    assert frame() == 1 and clock_s() == native[1]["t_ns"] / 1e9
    page.find_element(By.ID, "sl-prev").click()
    assert frame() == 0 and clock_s() == native[0]["t_ns"] / 1e9
    Select(page.find_element(By.ID, "sl-speed")).select_by_value("10")
    page.find_element(By.ID, "sl-play").click()
    WebDriverWait(page, 60).until(lambda d: frame() >= 3)
    page.find_element(By.ID, "sl-play").click()  # pause
    assert section.get_attribute("data-playing") == "0"
    at = frame()
    assert clock_s() == native[at]["t_ns"] / 1e9 > native[0]["t_ns"] / 1e9
    page.find_element(By.ID, "sl-next").click()
    assert frame() == at + 1
    artefacts = Path(
        os.environ.get("NMC_BROWSER_ARTEFACTS", ROOT / "target" / "browser-test")
    )
    artefacts.mkdir(parents=True, exist_ok=True)
    page.execute_script("document.getElementById('slices').scrollIntoView()")
    page.save_screenshot(str(artefacts / "web-slices.png"))


def test_the_load_and_hold_down_controls_set_the_scenarios_keys(page, cli, tmp_path):
    """Load is offered where the scenario has a background (a multiple of its rate), loop
    prevention where it routes adaptively; the --set lines they give are the scenario's keys
    (`nmc run` takes them and its summary holds the values)."""
    name = Select(page.find_element(By.ID, "sl-name"))
    name.select_by_value("ko-looping")
    assert page.find_element(By.ID, "sl-hold").is_enabled()
    assert not page.find_element(By.ID, "sl-load").is_enabled()
    Select(page.find_element(By.ID, "sl-hold")).select_by_value("none")
    looping = page.execute_script("return slicesRequest().overrides").split("\n")
    assert "network.routing_params.loop_prevention=none" in looping
    name.select_by_value("ko-v2-map")
    assert not page.find_element(By.ID, "sl-hold").is_enabled()
    Select(page.find_element(By.ID, "sl-load")).select_by_value("2")
    sets = page.execute_script("return slicesRequest().overrides").split("\n")
    Select(page.find_element(By.ID, "sl-load")).select_by_value("")
    loads = [s for s in sets if "messages_per_second" in s]
    assert len(loads) == 1
    short = [s for s in sets if not s.startswith("duration=")] + ["duration=1s"]

    def rate(sets):
        config = json.loads(native_summary(cli, tmp_path, "ko-v2-map", 1, sets))["config"]
        (background,) = [t for t in config["traffic"] if t["kind"] == "background"]
        return background["messages_per_second"]

    assert rate(short) == 2 * rate([s for s in short if s not in loads])
    short = [s for s in looping if not s.startswith("duration=")] + ["duration=1s"]
    config = json.loads(native_summary(cli, tmp_path, "ko-looping", 1, short))["config"]
    assert config["network"]["routing_params"]["loop_prevention"] == "none"


def test_too_many_slices_is_one_line_on_the_page(page):
    set_input(page, "sl-count", "5000")
    before = page.find_element(By.ID, "slices").get_attribute("data-runs")
    page.find_element(By.ID, "sl-run").click()
    WebDriverWait(page, WAIT_S).until(
        lambda d: d.find_element(By.ID, "slices").get_attribute("data-runs")
        == str(int(before) + 1)
    )
    err = page.find_element(By.ID, "sl-error").text
    assert err == "time slices: 5000 instants asked for; from 1 to 1000"
    set_input(page, "sl-count", "100")


def run_scenario_panel(page):
    """Clicks the scenario panel's Run and waits until that run is done."""
    before = page.find_element(By.ID, "scenarios").get_attribute("data-done") or "0"
    page.find_element(By.ID, "s-run").click()
    WebDriverWait(page, WAIT_S).until(
        lambda d: d.find_element(By.ID, "scenarios").get_attribute("data-done")
        == str(int(before) + 1)
    )


def test_a_shipped_scenario_gives_summary_json_byte_for_byte(page, cli, tmp_path):
    Select(page.find_element(By.ID, "s-name")).select_by_value("rfc632-moffett-sri")
    page.find_element(By.ID, "s-seed").clear()
    page.find_element(By.ID, "s-seed").send_keys("3")
    sets = page.find_element(By.ID, "s-sets")
    sets.clear()
    sets.send_keys("duration=40s")
    run_scenario_panel(page)
    assert page.find_element(By.ID, "s-error").text == ""
    shown = page.execute_script("return document.getElementById('s-json').textContent")
    assert shown == native_summary(cli, tmp_path, "rfc632-moffett-sri", 3, ["duration=40s"])
    artefacts = Path(
        os.environ.get("NMC_BROWSER_ARTEFACTS", ROOT / "target" / "browser-test")
    )
    artefacts.mkdir(parents=True, exist_ok=True)
    page.execute_script("window.scrollTo(0, 0)")
    page.save_screenshot(str(artefacts / "web-page.png"))


def test_bad_overrides_are_one_line_on_the_page(page):
    sets = page.find_element(By.ID, "s-sets")
    sets.clear()
    sets.send_keys("network.params.message_numbers=-3")
    run_scenario_panel(page)
    err = page.find_element(By.ID, "s-error").text
    assert err and "\n" not in err
