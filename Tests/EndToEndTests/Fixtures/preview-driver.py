"""Drives the preview page in headless Chromium over the DevTools protocol
(--remote-debugging-pipe: JSON messages ended by NUL on fds 3 and 4), as a
person would: watches frames arrive and the hint change, pauses, breaks the
flow file and fixes it. Prints one JSON object of what it saw.

    preview-driver.py CHROMIUM PROFILE URL FLOW BROKEN_TEXT_FILE
"""
import json
import os
import subprocess
import sys
import time

chromium, profile, url, flow_path, broken_path = sys.argv[1:6]

to_browser_read, to_browser_write = os.pipe()
from_browser_read, from_browser_write = os.pipe()


def child_fds():
    # Through numbers no pipe has, so that neither lands on the other.
    os.dup2(to_browser_read, 100)
    os.dup2(from_browser_write, 101)
    os.dup2(100, 3)
    os.dup2(101, 4)


browser = subprocess.Popen(
    [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + profile,
     "--remote-debugging-pipe", "--window-size=1280,900", url],
    preexec_fn=child_fds, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    close_fds=False)
os.close(to_browser_read)
os.close(from_browser_write)
pending = b""
next_id = 0


def send(method, params=None, session=None):
    global next_id, pending
    next_id += 1
    message = {"id": next_id, "method": method, "params": params or {}}
    if session:
        message["sessionId"] = session
    os.write(to_browser_write, json.dumps(message).encode() + b"\0")
    while True:
        while b"\0" not in pending:
            chunk = os.read(from_browser_read, 65536)
            if not chunk:
                raise SystemExit("the browser closed its pipe")
            pending += chunk
        raw, pending = pending.split(b"\0", 1)
        answer = json.loads(raw)
        if answer.get("id") == next_id:
            if "error" in answer:
                raise SystemExit(method + ": " + json.dumps(answer["error"]))
            return answer["result"]


def find_page():
    for _ in range(200):
        for target in send("Target.getTargets")["targetInfos"]:
            if target["type"] == "page" and target["url"].startswith(url):
                return target["targetId"]
        time.sleep(0.1)
    raise SystemExit("no page for " + url)


session = send("Target.attachToTarget", {"targetId": find_page(), "flatten": True})["sessionId"]


def evaluate(expression):
    result = send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True},
                  session)
    return result["result"].get("value")


seen = {"hints": [], "errors": []}
# A generous safety limit, so that a broken page cannot hang the suite: not a timing check.
LIMIT = 90


def until(condition, what):
    deadline = time.time() + LIMIT
    while time.time() < deadline:
        hint = evaluate("document.getElementById('hint').textContent")
        if hint and hint not in seen["hints"]:
            seen["hints"].append(hint)
        if evaluate(condition):
            return True
        time.sleep(0.1)
    seen["errors"].append("never saw: " + what)
    return False


def state(key):
    return evaluate("window.preview.state && window.preview.state.%s" % key)


try:
    until("window.preview.state && window.preview.state.flow !== ''", "the run's state")
    # The recording may have ended before the page opened: start it over.
    evaluate("document.getElementById('restart').click()")
    until("window.preview.state && window.preview.state.runs >= 2", "the restarted run")
    until("window.preview.framesShown >= 3", "three frames drawn")
    seen["frames_shown"] = evaluate("window.preview.framesShown")
    seen["image_drawn"] = evaluate(
        "(() => { const c = document.getElementById('canvas'), d = c.getContext('2d')"
        ".getImageData(0, 0, c.width, c.height).data; let n = 0;"
        " for (let i = 0; i < d.length; i += 4 * 97) if (d[i] + d[i+1] + d[i+2] > 60) n++; return n; })()")
    seen["plots"] = evaluate("document.querySelectorAll('#plots canvas').length")
    until("window.preview.state && window.preview.state.result !== null", "the flow's result")
    seen["result"] = state("result.reason")
    seen["status_text"] = evaluate("document.getElementById('status').textContent")
    seen["steps_passed"] = evaluate("window.preview.state.steps.filter(s => s.state === 'passed').length")

    # Pause stops the frame counter.
    evaluate("document.getElementById('restart').click()")
    until("window.preview.state && window.preview.state.runs >= 3 && window.preview.state.result === null",
          "the run restarted again")
    until("window.preview.state && window.preview.state.frame > 3", "frames of the restarted run")
    evaluate("document.getElementById('pause').click()")
    until("window.preview.state && window.preview.state.paused", "the run paused")
    time.sleep(0.3)
    paused_at = evaluate("document.getElementById('frame-counter').textContent")
    time.sleep(1.5)
    seen["paused_counter"] = [paused_at, evaluate("document.getElementById('frame-counter').textContent")]
    seen["paused_badge"] = evaluate("document.getElementById('status').textContent")
    evaluate("document.getElementById('resume').click()")
    until("window.preview.state && !window.preview.state.paused", "the run resumed")
    seen["after_resume"] = state("frame")

    # A broken edit shows its error; the fixed edit reloads.
    runs_before = state("runs")
    good = open(flow_path).read()
    with open(broken_path) as broken:
        open(flow_path, "w").write(broken.read())
    until("document.getElementById('error').className === 'shown'", "the reload error")
    seen["error_text"] = evaluate("document.getElementById('error').textContent")
    open(flow_path, "w").write(good)
    until("document.getElementById('error').className === '' && window.preview.state.runs > %d" % runs_before,
          "the reload of the fixed flow")
    seen["runs_after_fix"] = state("runs")
    seen["runs_before_fix"] = runs_before
    seen["frames_not_sent"] = state("preview.frames_not_sent")
finally:
    print(json.dumps(seen))
    browser.kill()
    browser.wait()
