#!/usr/bin/env python3
"""Checks a Chrome Trace Event JSON file as `ttdecode json` writes it:
it parses (python json, times read exactly as decimals), every event has
the fields its phase needs, the tracks are named as docs/exports.md says
(process 0 "kernel": "CPU n", tid 0x80000000 + n, and "CPU n boot", tid
0xc0000000 + n; a process by its own pid: "NAME [pid]", tid = its pid,
holding syscalls and kernel functions only), boot phases are only on boot
tracks, and on every
track the X slices and instants come with rising start times and the X
slices nest: a slice that starts inside another ends inside it; each
wakeup flow has its start (s) and then its end (f) under one id.

    chrome_json_check.py FILE [--syscalls]   exit 0 if it holds, else 1

--syscalls also demands syscall slices named by their syscall (not by
number) with pid and process in their args. check() is the same for
tests/ttrace_tests.py."""
import decimal
import json
import sys

PHASES = {"M", "X", "i", "C", "s", "f"}
CPU_TID = 0x80000000            # + n: "CPU n" (its idle task's trace id)
BOOT_TID = 0xc0000000           # + n: "CPU n boot"


def check_tracks(tracks):
    """tracks: {(pid, tid): [(ts, dur or None, name)]} in file order."""
    for key, evs in tracks.items():
        stack = []
        last = None
        for ts, dur, name in evs:
            if last is not None and ts < last:
                return "track %s: %r at %s starts before %s" % (key, name, ts, last)
            last = ts
            if dur is None:
                continue
            end = ts + dur
            while stack and stack[-1][0] <= ts:
                stack.pop()
            if stack and end > stack[-1][0]:
                return ("track %s: slice %r [%s, %s] overlaps %r ending at %s"
                        % (key, name, ts, end, stack[-1][1], stack[-1][0]))
            stack.append((end, name))
    return ""


def check(path, want_syscalls=False):
    """Returns why the file at path is not right, or ""."""
    try:
        with open(path) as f:
            doc = json.load(f, parse_float=decimal.Decimal)
    except (OSError, ValueError) as e:
        return "%s: does not parse: %s" % (path, e)
    evs = doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(evs, list):
        return "no traceEvents array"
    names, tracks, syscalls, flows = {}, {}, 0, {}
    for e in evs:
        ph = e.get("ph")
        if ph not in PHASES or not isinstance(e.get("name"), str):
            return "bad event %r" % (e,)
        if ph == "M":
            if e["name"] == "thread_name":
                names[(e["pid"], e["tid"])] = e["args"]["name"]
            continue
        if not isinstance(e.get("ts"), decimal.Decimal) or "tid" not in e:
            return "event without ts or tid: %r" % (e,)
        if ph in ("s", "f"):    # a wakeup's flow: its two ends, one id
            flows[e.get("id")] = flows.get(e.get("id"), "") + ph
            continue
        if ph == "C":
            continue
        dur = None
        if ph == "X":
            dur = e.get("dur")
            if not isinstance(dur, decimal.Decimal) or dur < 0:
                return "X without a duration: %r" % (e,)
            if e.get("cat") == "syscall":
                a = e.get("args", {})
                if e["name"].startswith("syscall ") or "pid" not in a or \
                        "process" not in a:
                    return "syscall slice not named or without pid: %r" % (e,)
                syscalls += 1
        elif e.get("s") != "t":
            return "instant without thread scope: %r" % (e,)
        if (e.get("cat") == "boot") != (e["pid"] == 0 and
                                        e["tid"] >= BOOT_TID):
            return "boot phase off the boot tracks, or else on one: %r" % (e,)
        if e["pid"] and e.get("cat") not in ("syscall", "func"):
            return "a process's track holds %r" % (e,)
        tracks.setdefault((e["pid"], e["tid"]), []).append((e["ts"], dur, e["name"]))
    for pid, tid in tracks:
        want = "[%d]" % pid if pid else "CPU %d boot" % (tid - BOOT_TID) \
            if tid >= BOOT_TID else "CPU %d" % (tid - CPU_TID)
        name = names.get((pid, tid)) or ""
        if (not pid and name != want) or (pid and (
                tid != pid or not name.endswith(want))):
            return "track %s/%s is named %r, not %r" % (pid, tid, name, want)
    bad = [k for k, v in flows.items() if v != "sf" or k is None]
    if bad:
        return "flows without their two ends: %s" % bad[:5]
    if want_syscalls and not syscalls:
        return "no syscall slices"
    return check_tracks(tracks)


if __name__ == "__main__":
    why = check(sys.argv[1], "--syscalls" in sys.argv[2:])
    if why:
        print("chrome_json_check: %s: %s" % (sys.argv[1], why))
    sys.exit(1 if why else 0)
