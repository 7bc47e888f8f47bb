"""Open a page in a real headless Chromium and ask it what it shows, over the DevTools protocol.

Debian's ``chromium`` is started with a fresh profile and nothing that phones home; the page is
loaded from a file:// URL (or a server's http:// URL) while the console, uncaught exceptions,
log entries and every network request are recorded. ``websocket-client`` carries the
protocol.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Sequence

import websocket

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync")


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class PageVisit:
    """What one page load produced: errors, requests that left the machine, image states."""

    def __init__(self):
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.images: list[dict] = []
        self.boxes: dict[str, dict | None] = {}  # CSS selector -> its box on the page, in px
        self.screenshot: bytes = b""
        self.text: str = ""  # the page's visible text, once it showed what was waited for


def visit(page: Path | str, screenshot: Path, timeout_s: float = 60.0,
          boxes: Sequence[str] = (), shows: Sequence[str] = ()) -> PageVisit:
    """Load ``page`` (a file, or a URL); ``boxes``: CSS selectors whose first element's box
    (top, bottom, left, right, from the top of the page) to report, None where nothing
    matches; ``shows``: texts to wait for in the page, in any case (a script-drawn page draws
    after its load event, and CSS may upper-case a heading); TimeoutError naming those still
    missing."""
    executable = chromium_path()
    if executable is None:
        raise RuntimeError("chromium is not installed")
    profile = tempfile.mkdtemp(prefix="contextrot-chromium-")
    process = subprocess.Popen(
        [executable, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
         "--remote-debugging-port=0", "--window-size=1280,2000", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        port = _devtools_port(process, Path(profile), timeout_s)
        target = _page_target(port, timeout_s)
        return _inspect(target, page, screenshot, timeout_s, boxes, shows)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(profile, ignore_errors=True)


def _devtools_port(process: subprocess.Popen, profile: Path, timeout_s: float) -> int:
    # Chromium writes the port it picked to DevToolsActivePort in the profile.
    deadline = time.monotonic() + timeout_s
    marker = profile / "DevToolsActivePort"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"chromium exited: {process.stderr.read()[-2000:]}")
        if marker.exists() and marker.read_text().strip():
            return int(marker.read_text().splitlines()[0])
        time.sleep(0.1)
    raise TimeoutError("chromium did not open its DevTools port")


def _page_target(port: int, timeout_s: float) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as response:
            pages = [t for t in json.load(response) if t.get("type") == "page"]
        if pages:
            return pages[0]["webSocketDebuggerUrl"]
        time.sleep(0.1)
    raise TimeoutError("chromium opened no page")


_IMAGES = """JSON.stringify(Array.from(document.images).map(i => ({
  alt: i.alt, complete: i.complete, width: i.naturalWidth, height: i.naturalHeight,
  shown: i.getBoundingClientRect().width})))"""


_BOX = """(() => {{ const e = document.querySelector({selector}); if (!e) return null;
  const r = e.getBoundingClientRect();
  return JSON.stringify({{top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left,
                          right: r.right}}); }})()"""


def _inspect(target: str, page: Path | str, screenshot: Path, timeout_s: float,
             boxes: Sequence[str], shows: Sequence[str]) -> PageVisit:
    found = PageVisit()
    connection = websocket.create_connection(target, timeout=timeout_s, suppress_origin=True)
    ids = iter(range(1, 1_000_000))

    def call(method: str, **params) -> dict:
        request = next(ids)
        connection.send(json.dumps({"id": request, "method": method, "params": params}))
        while True:
            message = json.loads(connection.recv())
            if message.get("id") == request:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            note(message)

    def note(message: dict) -> None:
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            found.errors.append("console: " + " ".join(
                str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            found.errors.append(" ".join(filter(None, (
                "exception:", details.get("text"),
                details.get("exception", {}).get("description", "")[:500]))))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            found.errors.append("log: " + params["entry"].get("text", ""))
        elif method == "Network.requestWillBeSent":
            url = params["request"]["url"]
            if not url.startswith(("data:", "file:", "about:", "blob:")):
                found.requests.append(url)
        elif method == "Network.responseReceived" and params["response"]["status"] >= 400:
            found.errors.append(f"http {params['response']['status']}: "
                                f"{params['response']['url']}")
        elif method == "Page.loadEventFired":
            loaded.append(True)

    loaded: list[bool] = []
    try:
        for domain in ("Page", "Runtime", "Log", "Network"):
            call(f"{domain}.enable")
        call("Page.navigate", url=page if isinstance(page, str) else page.resolve().as_uri())
        deadline = time.monotonic() + timeout_s
        while not loaded and time.monotonic() < deadline:
            note(json.loads(connection.recv()))
        if not loaded:
            raise TimeoutError(f"{page} did not finish loading")
        while True:
            found.text = call("Runtime.evaluate", expression="document.body.innerText",
                              returnByValue=True)["result"].get("value") or ""
            missing = [text for text in shows if text.lower() not in found.text.lower()]
            if not missing:
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"{page} never showed {missing}; it shows: "
                                   f"{found.text[:1000]!r}; errors: {found.errors}")
            time.sleep(0.2)
        result = call("Runtime.evaluate", expression=_IMAGES, returnByValue=True)
        found.images = json.loads(result["result"]["value"])
        for selector in boxes:
            box = call("Runtime.evaluate", expression=_BOX.format(selector=json.dumps(selector)),
                       returnByValue=True)["result"].get("value")
            found.boxes[selector] = None if box is None else json.loads(box)
        shot = call("Page.captureScreenshot", format="png", captureBeyondViewport=False)
        found.screenshot = base64.b64decode(shot["data"])
        screenshot.write_bytes(found.screenshot)
    finally:
        connection.close()
    return found
