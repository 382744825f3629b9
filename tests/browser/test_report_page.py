"""The report page of `nmc reproduce --all --quick`, in headless Chromium (issue 31).

What a reader meets first is the scoreboard; the contents links land on their sections; the
filter hides every row within its tolerance and leaves the misses; no table is wider than the
page. A screenshot of the top of the page is kept as an artefact (NMC_BROWSER_ARTEFACTS, by
default target/browser-test/).

Run by scripts/test.sh, which installs Chromium and ChromeDriver from the system's packages and
Selenium into the test environment. NMC_CLI names the `nmc` binary; NMC_REPORT_DIR, when set,
names a folder that already holds the report (else the test runs the quick reproduction).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
WIDTH, HEIGHT = 1280, 1000


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    given = os.environ.get("NMC_REPORT_DIR")
    if given:
        page = Path(given) / "index.html"
        assert page.is_file(), f"NMC_REPORT_DIR has no index.html: {page}"
        return page
    cli = os.environ.get("NMC_CLI") or shutil.which("nmc")
    assert cli, "set NMC_CLI to the nmc binary"
    out = tmp_path_factory.mktemp("reproduce")
    subprocess.run(
        [cli, "reproduce", "--all", "--quick", "--out", str(out)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return out / "index.html"


@pytest.fixture(scope="module")
def page(browser, report):
    browser.get(report.as_uri())
    return browser


def visible_rows(driver, css: str) -> int:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]))"
        ".filter(e => e.offsetParent !== null).length",
        css,
    )


def test_the_scoreboard_is_at_the_top(page):
    first = page.find_elements(By.CSS_SELECTOR, "h2")[0]
    assert first.text == "Scoreboard"
    assert first.location["y"] < 200, first.location
    headline = page.find_element(By.CSS_SELECTOR, "#scoreboard .headline").text
    assert headline.startswith("Of the 21 published quantities run (SPEC §3):"), headline
    # Every quantity of SPEC §3 is on it, each with a verdict.
    ids = [e.text for e in page.find_elements(By.CSS_SELECTOR, "#scoreboard table.board td.key")]
    for q in ["KO-1", "KO-10", "R632-2", "R508-3", "R392-3", "R889-3"]:
        assert q in ids, ids
    verdicts = {e.text for e in page.find_elements(By.CSS_SELECTOR, "#scoreboard td.verdict")}
    assert verdicts <= {"reproduced", "partly", "missed", "by construction"}, verdicts
    # The scoreboard comes before the first row of the table.
    rows_top = page.find_element(By.ID, "rows").location["y"]
    assert page.find_element(By.ID, "scoreboard").location["y"] < rows_top


def test_contents_and_every_link_on_the_page_resolve(page):
    contents = page.find_elements(By.CSS_SELECTOR, "nav#contents a")
    assert len(contents) >= 10
    missing = page.execute_script(
        "return Array.from(document.querySelectorAll('a[href^=\"#\"]'))"
        ".map(a => a.getAttribute('href').slice(1))"
        ".filter(id => !document.getElementById(id));"
    )
    assert missing == [], sorted(set(missing))[:10]
    # Following a contents link scrolls its section to the top.
    link = contents[-1]
    target = link.get_attribute("href").split("#", 1)[1]
    link.click()
    top = page.execute_script(
        "return document.getElementById(arguments[0]).getBoundingClientRect().top", target
    )
    assert abs(top) < 5, (target, top)
    page.execute_script("window.scrollTo(0, 0)")


def test_no_table_is_wider_than_the_page(page):
    wide = page.execute_script(
        "var w = document.documentElement.clientWidth;"
        "return Array.from(document.querySelectorAll('table'))"
        ".map((t, i) => [i, Math.round(t.getBoundingClientRect().right), w])"
        ".filter(x => x[1] > x[2]);"
    )
    assert wide == [], wide
    assert page.execute_script(
        "return document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )


def test_the_filter_shows_only_misses(page):
    within = visible_rows(page, "tr.within")
    outside = visible_rows(page, "tr.outside")
    assert within > 0 and outside > 0
    box = page.find_element(By.ID, "only-misses")
    assert not box.is_selected()
    page.execute_script("arguments[0].scrollIntoView()", box)
    box.click()
    assert box.is_selected()
    assert visible_rows(page, "tr.within") == 0
    assert visible_rows(page, "tr.outside") == outside
    box.click()
    assert visible_rows(page, "tr.within") == within
    page.execute_script("window.scrollTo(0, 0)")


def test_the_top_of_the_page_is_kept_as_a_screenshot(page):
    folder = Path(os.environ.get("NMC_BROWSER_ARTEFACTS", ROOT / "target" / "browser-test"))
    folder.mkdir(parents=True, exist_ok=True)
    page.execute_script("window.scrollTo(0, 0)")
    shot = folder / "report-top.png"
    assert page.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000
