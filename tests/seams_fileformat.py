"""Trace files read across ring changes (issue 27, items 4 and 9;
docs/trace-file.md, "Where runs come from" and "Counters: STATS").

One SMP=2 boot with 4 KiB rings (64 entries): `tracestress rings` begins
a save, then makes getpid calls after each of a bufsize to 64 KiB, a
clear, a bufsize to 8 KiB, a mode change and back and a bufsize to 64
KiB, and writes the save; it runs once under `ttrace stream` to the host
channel (the in-kernel drain) and once under `ttrace stream` to a guest
file (the device's stream file). The four files (two streams, two saves)
begin on 64-entry rings and end on 1024-entry ones: each must verify,
say both (VERSION's 64 entries, STATS naming the last ring's 1024), hold
every index it covers as a record or a declared loss, and decode (text,
stats and an export). Before the fix the saves were refused: 'section
RECORDS: bad count, reason or length' (runs of up to 1000 records in a
file whose version header says rings of 64).
"""
import os
import re

import ttrace_tests as tt
from qemu_run import DEFAULT_EVENTS

CALLS = 2000                    # getpid calls after each ring change
STREAMED = (rb"streamed \d+ bytes of records in \d+ ms; tracestress "
            rb"exited with status 0")


def check_file(path):
    """Why the trace file at path is wrong ("" if it is right)."""
    v = tt.ttdecode("verify", path)
    if v.returncode != 0 or "verify: OK" not in v.stdout:
        return "ttdecode verify: %s%s" % (v.stdout[-800:], v.stderr)
    if ", 64 entries/cpu," not in v.stdout:
        return "the version header does not say 64 entries: " + \
            v.stdout[:400]
    rings = re.findall(r"\(the ring since index (\d+): (\d+) entries, "
                       r"overwrite\)", v.stdout)
    cpus = tt.stream_cpus(v.stdout)
    if not cpus or len(rings) != len(cpus) or \
            any(n != "1024" for _, n in rings):
        return "STATS do not name the last ring (1024 entries) of " \
            "every CPU with records: " + v.stdout[-800:]
    for cpu, (got, lost, lo, hi, _) in cpus.items():
        if got + lost != hi - lo:
            return "cpu%d: %d delivered + %d declared lost != %d covered " \
                "[%d, %d)" % (cpu, got, lost, hi - lo, lo, hi)
    for args in (["text", path], ["stats", path],
                 ["json", path, path + ".json"]):
        d = tt.ttdecode(*args)
        if d.returncode != 0:
            return "ttdecode %s: %s" % (args[0], d.stderr[-400:])
    return ""


def rings_across():
    """See the module's comment."""
    out = tt.fresh_out("fileformat-rings.ttr")
    s = tt.Session(2, hostout=out, cmdline=DEFAULT_EVENTS,
                   name="fileformat-rings")
    small = "echo bufsize 4 > /dev/ttrace/ctl; ttrace clear; echo status=$?"
    try:
        s.say(small, r"status=0")
        s.say("ttrace stream -o /dev/host/out -- tracestress rings %d "
              "/tmp/save1.ttr" % CALLS, STREAMED, timeout=300)
        s.say("cat /tmp/save1.ttr > /dev/host/out; echo copied=$?",
              r"copied=0")
        s.say(small, r"status=0")
        s.say("ttrace stream -o /tmp/stream.ttr -- tracestress rings %d "
              "/tmp/save2.ttr" % CALLS, STREAMED, timeout=300)
        s.say("cat /tmp/stream.ttr /tmp/save2.ttr > /dev/host/out; "
              "echo copied=$?", r"copied=0")
    except TimeoutError as e:
        return s.finish(str(e))
    paths, why = tt.finish_saved(s, out, 4)
    if why:
        return why
    for path, what in zip(paths, ("the drain", "a save under the drain",
                                  "the stream file",
                                  "a save under the stream file")):
        why = check_file(path)
        if why:
            return "%s (%s): %s" % (os.path.basename(path), what, why)
    return ""


def run_all(res, only):
    for name, fn in (("fileformat_rings_across", rings_across),):
        if not only or only in name:
            why = fn()
            res.add(name, not why, why)
