# SPDX-License-Identifier: MIT
# File: tests/pictures/browser.py
#
# Debian's chromium, headless, driven over the DevTools protocol on a pipe (--remote-debugging-pipe: file
# descriptors 3 and 4, NUL-terminated JSON), with the standard library only. A Page loads a file, reports
# what its console said (console.error, uncaught exceptions, failed loads: Log and Runtime events), where
# its elements are (getBoundingClientRect, CSS pixels), and screenshots any part of it as PNG, which
# png.py reads. No network: the machine's is closed, and the flags below keep chromium from trying.
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--force-device-scale-factor=1", "--remote-debugging-pipe"]


def find_chromium():
    """The chromium binary (Debian's wrapper script starts the real one with its own flags; the real
    one, /usr/lib/chromium/chromium, is started directly so that the pipe's descriptors reach it)."""
    for path in (os.environ.get("LWC_CHROMIUM"), "/usr/lib/chromium/chromium", shutil.which("chromium"),
                 shutil.which("chromium-browser")):
        if path and os.path.exists(path):
            return path
    return None


class BrowserError(Exception):
    pass


class Browser:
    def __init__(self, binary=None, timeout=60):
        self.binary = binary or find_chromium()
        if not self.binary:
            raise BrowserError("chromium not found (Debian: apt-get install chromium; or set LWC_CHROMIUM)")
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="lwc-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire():  # runs in the child: the pipe on descriptors 3 (commands) and 4 (replies)
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([self.binary, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
                                     preexec_fn=wire, pass_fds=(3, 4), stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=self.log)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self._id += 1
        message = {"id": self._id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        return self._wait(self._id)

    def _wait(self, wanted):
        deadline = time.monotonic() + self.timeout
        while True:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                message = json.loads(raw)
                if message.get("id") == wanted:
                    if "error" in message:
                        raise BrowserError(f"DevTools: {message['error']}")
                    return message.get("result", {})
                self.events.append(message)
            if time.monotonic() > deadline:
                raise BrowserError("chromium did not answer in time")
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                self.log.seek(0)
                raise BrowserError("chromium exited: " + self.log.read().decode(errors="replace")[-2000:])
            self._buffer += chunk

    def page(self, path, width=1200, height=900):
        return Page(self, path, width, height)

    def close(self):
        try:
            self.send("Browser.close")
        except (BrowserError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._to_child)
        os.close(self._from_child)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()


class Page:
    """One file loaded in a fresh tab, fully laid out."""

    def __init__(self, browser, path, width, height):
        self.b = browser
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page.enable", "Runtime.enable", "Log.enable"):
            browser.send(domain, session=self.session)
        browser.send("Emulation.setDeviceMetricsOverride",
                     {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, self.session)
        first = len(browser.events)
        browser.send("Page.navigate", {"url": "file://" + os.path.abspath(path)}, self.session)
        deadline = time.monotonic() + browser.timeout
        while not any(e.get("method") == "Page.loadEventFired" and e.get("sessionId") == self.session
                      for e in browser.events[first:]):
            if time.monotonic() > deadline:
                raise BrowserError(f"{path}: no load event")
            self.eval("1")
            time.sleep(0.02)
        self.eval("document.fonts.ready.then(() => 1)", await_promise=True)
        self._first = first

    def eval(self, expression, await_promise=False):
        r = self.b.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                             "awaitPromise": await_promise}, self.session)
        if "exceptionDetails" in r:
            raise BrowserError(f"script failed: {r['exceptionDetails']}")
        return r["result"].get("value")

    def console_errors(self):
        """Every console error, uncaught exception and error log entry of this page."""
        out = []
        for e in self.b.events[self._first:]:
            if e.get("sessionId") != self.session:
                continue
            p = e.get("params", {})
            if e.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console." + p["type"] + ": " + " ".join(str(a.get("value", a.get("description")))
                                                                     for a in p.get("args", [])))
            elif e.get("method") == "Runtime.exceptionThrown":
                out.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:500])
            elif e.get("method") == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append("log: " + p["entry"].get("text", ""))
        return out

    def rects(self, selector):
        """[{x, y, width, height, data: {data-* attributes}}] of every element matching `selector`, in page
        coordinates (CSS pixels)."""
        return json.loads(self.eval(
            "JSON.stringify([...document.querySelectorAll(%s)].map(e => { const r = e.getBoundingClientRect();"
            " return {x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height,"
            " data: Object.assign({}, e.dataset)}; }))" % json.dumps(selector)))

    def screenshot(self, x, y, width, height):
        """PNG bytes of the page region (CSS pixels, page coordinates), beyond the viewport if need be."""
        r = self.b.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                  "clip": {"x": x, "y": y, "width": width, "height": height,
                                                           "scale": 1}}, self.session)
        return base64.b64decode(r["data"])

    def full_height(self):
        return self.eval("Math.ceil(document.documentElement.scrollHeight)")

    def full_width(self):
        return self.eval("Math.ceil(document.documentElement.scrollWidth)")
