#!/usr/bin/env python3
"""Writes the example measurement traces in examples/traces/.

A trace is what the face estimators would report for a recorded session,
frame by frame at 30 fps. Run from the repository root; the files are
committed, so this only needs running after changing it.
"""
import json
import math
import os

FPS = 30.0


def frame(i, yaw, ear, count=1):
    t = round(i / FPS, 6)
    face = {"count": count}
    if count > 0:
        face.update({"yaw": round(yaw, 3), "pitch": 0.5, "roll": -0.8,
                     "ear_left": round(ear, 4), "ear_right": round(ear * 0.97, 4),
                     "box": {"x": 212, "y": 118, "w": 216, "h": 240}})
    return {"t": t, "frame": i, "face": face}


def liveness(blink_closed_frames, turn=True, seconds=6.0):
    frames = []
    n = int(seconds * FPS)
    blink_start = 45
    for i in range(n):
        count = 0 if i < 6 else 1            # the face appears after 0.2 s
        yaw = 1.5 * math.sin(i / 7.0)        # small natural sway
        ear = 0.31 + 0.01 * math.sin(i / 3.0)
        if blink_start <= i < blink_start + blink_closed_frames:
            ear = 0.08
        if turn and i >= 110:
            yaw = min(32.0, (i - 110) * 2.0)  # turn left at 60 deg/s
        frames.append(frame(i, yaw, ear, count))
    return frames


def write(name, frames):
    path = os.path.join("examples", "traces", name)
    with open(path, "w") as out:
        out.write(json.dumps({"workbench_trace": 1, "source": "scripts/make-example-traces.py",
                              "fps": FPS}, separators=(",", ":")) + "\n")
        for f in frames:
            out.write(json.dumps(f, separators=(",", ":")) + "\n")


write("liveness-pass.jsonl", liveness(blink_closed_frames=5))
# Eyes closed for a whole second: too slow for a blink, so the blink step
# keeps resetting and times out.
write("liveness-slow-blink.jsonl", liveness(blink_closed_frames=30))
