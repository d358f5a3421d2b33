"""Runs a command in a pseudo-terminal, as a person at a terminal would, and
presses keys once it says it takes them: each argument after `--` is a key,
pressed after the previous one's answer line. Prints what the terminal showed.

    keys-driver.py KEYS -- COMMAND...
"""
import os
import pty
import select
import sys
import time

split = sys.argv.index("--")
keys = sys.argv[1:split]
command = sys.argv[split + 1:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(command[0], command)
shown = b""
# A generous safety limit, so that a hung run cannot hang the suite: not a timing check.
deadline = time.time() + 120


def read_some():
    global shown
    ready, _, _ = select.select([fd], [], [], 0.1)
    if ready:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            return False
        if not chunk:
            return False
        shown += chunk
    return True


def read_until(predicate):
    while time.time() < deadline:
        if predicate():
            return True
        if not read_some():
            return predicate()
    return False


read_until(lambda: b"keys:" in shown)
answers = {"p": b"pause:", "r": b"restart:", "b": b"command:", "q": b"close:"}
for key in keys:
    marker = answers[key]
    before = shown.count(marker)
    os.write(fd, key.encode())
    read_until(lambda: shown.count(marker) > before)
read_until(lambda: False)
_, status = os.waitpid(pid, 0)
sys.stdout.write(shown.decode("utf-8", "replace"))
sys.stdout.write("\nexit %d\n" % os.waitstatus_to_exitcode(status))
