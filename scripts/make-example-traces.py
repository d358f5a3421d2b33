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


def card_flips(axis, first, second, flip_seconds=0.6, start=0.8, ratio=0.5):
    """A card held front-on, flipped one way and back, then the other way and
    back, as the card estimator reports it (docs/card.md)."""
    keys = [(0.0, 0.0), (start, 0.0)]
    t = start
    for angle in (first, second):
        t += flip_seconds
        keys.append((t, angle))
        t += 0.2
        keys.append((t, angle))
        t += flip_seconds
        keys.append((t, 0.0))
        t += 0.6
        keys.append((t, 0.0))
    keys.append((t + 0.5, 0.0))
    frames = []
    n = int(round(keys[-1][0] * FPS)) + 1
    previous = None
    for i in range(n):
        t = i / FPS
        for (t0, a0), (t1, a1) in zip(keys, keys[1:]):
            if t0 <= t <= t1:
                angle = a0 + (a1 - a0) * ((t - t0) / (t1 - t0) if t1 > t0 else 1)
                break
        else:
            angle = keys[-1][1]
        angle += 0.4 * math.sin(i / 5.0)  # a hand is never quite still
        tilt = {"x": 0.3 * math.sin(i / 9.0), "y": 0.3 * math.cos(i / 11.0)}
        tilt[axis] = angle
        speed = 0.0 if previous is None else math.hypot(tilt["x"] - previous["x"], tilt["y"] - previous["y"]) * FPS
        previous = dict(tilt)
        frames.append({"t": round(t, 6), "frame": i, "card": {
            "found": True, "tilt_x": round(tilt["x"], 3), "tilt_y": round(tilt["y"], 3),
            "width_ratio": round(ratio * math.cos(math.radians(tilt[axis])), 4), "size_ratio": ratio,
            "speed": round(speed, 3), "glare": 0.01, "blur": 0.9}})
    return frames


# The HKID flows' example traces: the 2018 card flipped right then left
# (card.tilt_y), the 2003 card flipped up then down (card.tilt_x).
write("hkid-2018-pass.jsonl", card_flips("y", 35, -35))
write("hkid-2003-pass.jsonl", card_flips("x", 35, -35))


def still_face(seconds=7.0):
    """A printed photo held to the camera: a face that never moves and never
    blinks; only the estimator's noise changes the numbers."""
    frames = []
    for i in range(int(seconds * FPS)):
        jitter = 0.004 * math.sin(i * 2.1)
        frames.append(frame(i, 0.8 + 0.3 * math.sin(i * 1.7), 0.30 + jitter))
    return frames


write("face-still-photo.jsonl", still_face())
