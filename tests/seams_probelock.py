"""The probe torture (docs/probes.md, "What cannot be probed"): probes on
every traceable function the tracer itself calls, while the tracer works
on every CPU. One boot at 4 CPUs:

  - the lock primitives of issue 27's hangs are refused (`fprobe add fw
    wlock_wait l=arg0:str` overflowed the stack, `runlock` deadlocked every
    CPU): not traceable;
  - the function list is derived from the kernel under test
    (scripts/tracer_calls.py: every function the tracer's objects call
    that has an fentry site), never written by hand;
  - `tracestress probes` puts a `str` probe on the entry (arg0, arg1), a
    `str` probe on the return and a stacktrace probe on each of them, 8
    functions at a time, and saves the trace, reads stats and writes
    markers under them; meanwhile another CPU writes markers and getpids,
    another reads every rawN and aux, and the in-kernel drain streams to
    the host (`ttrace stream -- ...`);
  - no hang, no panic, every command carried out, the strings dropped
    counted (stats' strdropped, summed), every function site back to the
    NOP after, and the funcs file shows the recursions counted.
"""
import os
import re

from qemu_run import KBUILD, DEFAULT_EVENTS, script_module
from ttrace_tests import Session, fresh_out

tracer_calls = script_module("tracer_calls.py")

LIST = "/tmp/tracer_calls"
ROUNDS = 2              # saves (and stats, markers) under each batch
BATCH = 8               # functions a batch (tracestress's PROBE_BATCH)
BATCH_TIMEOUT = 240     # seconds a batch may take on a loaded TCG host
LINE_NAMES = 12         # names per `echo` line typed (the shell's line: 1 KiB)
LOCKS = ("wlock_wait", "runlock", "rlock")


def type_list(s, names):
    """Writes names into the guest's LIST, a few per typed line."""
    for i in range(0, len(names), LINE_NAMES):
        words = " ".join(names[i:i + LINE_NAMES])
        # panic_at typed as pani''c_at: the shell drops the quotes, and
        # the console never shows the word a panic is told by
        s.say("echo %s %s %s; echo status=$?" % (
            words.replace("panic", "pani''c"), ">>" if i else ">", LIST),
            r"status=0\r?\n")


def locks_refused(s):
    """"" if the issue's lock probes are refused as not traceable."""
    for fn in LOCKS:
        m = s.say("echo fprobe add fw %s l=arg0:str > /dev/ttrace/ctl; "
                  "echo status=$?" % fn, r"\n(.*)\r?\n(?:.*\r?\n)?status=(\d+)")
        if m.group(2) == b"0" or b"not traceable" not in m.group(0):
            return "fprobe add on %s: %s" % (fn, m.group(0).decode())
    return ""


def torture():
    names = tracer_calls.tracer_calls(KBUILD)
    if len(names) < 16:
        return "tracer_calls found %d functions only: %s" % (len(names), names)
    out = fresh_out("probelock.ttr")
    s = Session(4, hostout=out, timeout=1500, name="probelock",
                cmdline=DEFAULT_EVENTS + " ttrace.bufsize=128")
    try:
        why = locks_refused(s)
        if why:
            return s.finish(why)
        type_list(s, names)
        s.say("tracestress load | tracestress readraw | ttrace stream -- "
              "tracestress probes %s %d" % (LIST, ROUNDS), r"probes: batch 0 ",
              timeout=BATCH_TIMEOUT)
        for b in range(1, (len(names) + BATCH - 1) // BATCH):
            s.run.expect(r"probes: batch %d " % b, timeout=BATCH_TIMEOUT)
        m = s.run.expect(r"probes: (\d+) functions in (\d+) batches, "
                         r"(\d+) refused, (-?\d+) strings dropped; "
                         r"(\d+) ms adding, (\d+) working, (\d+) removing",
                         timeout=BATCH_TIMEOUT)
        n, batches, refused, dropped, *ms = (int(x) for x in m.groups())
        s.say("echo torture-end", r"torture-end\r?\n")
        funcs = s.say("cat /dev/ttrace/funcs",
                      r"live (\d+)\r?\noverflows \d+\r?\nrecursions (\d+)")
    except TimeoutError as e:
        return s.finish(str(e))
    why = ""
    if n != len(names) or refused:
        why = "%d of %d functions probed, %d commands refused" % (
            n, len(names), refused)
    elif dropped < 0:
        why = "stats counts no dropped strings (no strdropped)"
    elif funcs.group(1) != b"0":
        why = "%s function sites still live after the probes went" % \
            funcs.group(1).decode()
    why = s.finish(why)
    if not why:
        print("# probelock: %d functions (%d batches): str, %%return and "
              "stacktrace probes; %d strings dropped, %s recursions refused; "
              "guest ms adding %d, working %d, removing %d"
              % (n, batches, dropped, funcs.group(2).decode(), *ms))
    return why


def run_all(res, only):
    for name, fn in (("seams_probelock_torture", torture),):
        if not only or only in name:
            why = fn()
            res.add(name, not why, why)
