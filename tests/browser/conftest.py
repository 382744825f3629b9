"""What both browser tests share: headless Chromium through Selenium, one per test module.

Each module sets the window it wants as module-level WIDTH and HEIGHT. Chromium and
ChromeDriver are the system's (CHROMIUM, CHROMEDRIVER name them; scripts/test.sh installs them).
"""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="module")
def browser(request):
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    width, height = request.module.WIDTH, request.module.HEIGHT
    options = Options()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    # As the machine's notes ask: no sandbox as root, no background connections to a closed
    # network, a fresh profile.
    for flag in [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
    ]:
        options.add_argument(flag)
    service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    yield driver
    driver.quit()
