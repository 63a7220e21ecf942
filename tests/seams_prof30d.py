"""Off-CPU time in guest time (issue 30, docs/profiling.md "Reading"):
ONE boot at 2 CPUs under -icount shift=0,sleep=off (the guest's clock
its instruction count, so a 50 ms sleep is 50 ms of guest time and the
sampling timer is on time, however loaded the host), profnap (3 x 50 ms
asleep in g, computing in h) and profspin (70% in f1, 30% in f2) under
`profile on 997 all offcpu`, the trace saved to the host. Checked there,
as issue 30 words it:

  prof30d_offcpu    the off-CPU profile puts 150 ms +- one period in g's
                    blocking stack, whose chain is whole
                    (main;g;nap;nanosleep: the libc wrapper, a leaf, has a
                    frame); for every thread of the two its on-CPU
                    samples' intervals + its off-CPU time (its
                    profile_offcpu records) = its lifetime (its first
                    profile record to its last) +- one period; and the
                    program's --wall profile is its threads' lifetimes
                    +- one period each

On the host's clock (TCG without icount) the same check fails, as it
should: each nanosleep runs before it blocks and is woken late there."""
import os
import re

import seams_prof30h as h
import ttrace_tests as tt

NAPS_NS = 3 * 50 * 10**6        # profnap's 3 sleeps of 50 ms in g


def tsc_hz(trace):
    m = re.search(r"tsc (\d+) Hz", h.td("verify", trace))
    if not m or not int(m.group(1)):
        raise AssertionError("%s: no TSC rate" % trace)
    return int(m.group(1))


def lifetimes(text, pid):
    """{tid: (first, last) ns} of pid's profile records in ttdecode text."""
    life = {}
    for us, frac, tid in re.findall(
            r"(?m)^(\d+)\.(\d{3}) us \S+ \S+ profile_(?:sample|switch|"
            r"offcpu): pid=%d tid=(\d+)" % pid, text):
        ns = int(us) * 1000 + int(frac)
        a, b = life.get(int(tid), (ns, ns))
        life[int(tid)] = (min(a, ns), max(b, ns))
    return life


def thread_on_ns(text, hz, pid):
    """{tid: ns} of pid's on-CPU samples in ttdecode text, each its
    interval."""
    on = {}
    for tid, ticks in re.findall(r"(?m)profile_sample: pid=%d tid=(\d+) "
                                 r"mode=\d+ interval=(\d+)" % pid, text):
        on[int(tid)] = on.get(int(tid), 0) + int(ticks) * 10**9 // hz
    return on


def thread_off_ns(text, pid):
    """{tid: ns} of pid's profile_offcpu records in ttdecode text."""
    off = {}
    for tid, ns in re.findall(r"(?m)profile_offcpu: pid=%d tid=(\d+) "
                              r"off=(\d+) ns" % pid, text):
        off[int(tid)] = off.get(int(tid), 0) + int(ns)
    return off


def check_lifetimes(trace, text, prog):
    """Why prog's threads' on + off times are not their lifetimes +- one
    period ("" if they are)."""
    bad, pid = [], h.pid_of(text, prog)
    on, off = thread_on_ns(text, tsc_hz(trace), pid), \
        thread_off_ns(text, pid)
    life = lifetimes(text, pid)
    for tid, (a, b) in sorted(life.items()):
        got = on.get(tid, 0) + off.get(tid, 0)
        if abs(got - (b - a)) > h.PERIOD:
            bad.append("%s tid %d: on %d + off %d ns, lifetime %d ns, want "
                       "+- %d" % (prog, tid, on.get(tid, 0),
                                  off.get(tid, 0), b - a, h.PERIOD))
    wall = sum(h.folded(trace, "--wall", "--pid", str(pid)).values())
    span = sum(b - a for a, b in life.values())
    if not life or abs(wall - span) > h.PERIOD * len(life):
        bad.append("%s: --wall %d ns, lifetimes %d ns, want +- %d" % (
            prog, wall, span, h.PERIOD * len(life)))
    return bad


def check_offcpu(trace, text):
    bad = check_lifetimes(trace, text, "profnap") + \
        check_lifetimes(trace, text, "profspin")
    pid = h.pid_of(text, "profnap")
    stacks = h.folded(trace, "--off-cpu", "--pid", str(pid))
    g = sum(v for k, v in stacks.items() if ";g;" in k + ";")
    cut = [k for k in stacks if ";g;" in k + ";" and
           ";main;g;nap;nanosleep;" not in k + ";"]
    if cut:
        bad.append("profnap: g's blocking stacks without its whole chain "
                   "main;g;nap;nanosleep: %s" % cut)
    if abs(g - NAPS_NS) > h.PERIOD:
        bad.append("profnap: %d ns off CPU in g, want %d +- %d: %s" % (
            g, NAPS_NS, h.PERIOD, stacks))
    return "; ".join(bad)


def session(path):
    """The one boot; returns (the trace, why)."""
    s = tt.Session(2, hostout=path, timeout=400, name="prof30d", icount=0)
    try:
        s.say("echo profile on %d all offcpu > /dev/ttrace/ctl; profnap; "
              "profspin 10; echo profile off > /dev/ttrace/ctl" % h.HZ,
              r"profspin: 10 rounds", timeout=300)
        s.say("ttrace save /dev/host/out", r"ttrace: saved /dev/host/out",
              timeout=120)
        why = s.finish("")
    except (TimeoutError, AssertionError) as e:
        why = s.finish(str(e))
    return path, why


def run_all(res, only):
    name = "prof30d_offcpu"
    if only and only not in name:
        return
    os.makedirs(tt.OUT, exist_ok=True)
    trace, why = session(os.path.join(tt.OUT, "prof30d.ttr"))
    if not why:
        try:
            why = check_offcpu(trace, h.td("text", trace))
        except AssertionError as e:
            why = str(e)
    res.add(name, not why, why)
