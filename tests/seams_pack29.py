"""Issue 29's packed scheduler records (docs/trace-format.md, "Packed
arguments"): one boot (2 CPUs, the default events) streams a pipe and a
sleep to the host channel through the in-kernel drain (`ttrace stream
-o /dev/host/out`, which turns the drain on: its thread made and
started), and reads the streamed trace:

  - the drain's thread is untraced: no task_newtask, wakeup or switch
    names it (its pid, its name ttdrain, or an idle pid as the thread
    made: the old `task_newtask comm=idle/0 pid=2147483648`);
  - sched_switch records prev_prio and next_prio beside the pids
    (`ttdecode text` prints the packed fields by name), and the names
    beside them are the pids' (prev=NAME of prev_pid);
  - trace-cmd report of `ttdecode tracedat` shows the same prev_prio and
    next_prio, switch by switch, and Perfetto's sched table the same
    next prios (trace_processor_shell on `ttdecode perfetto`).
"""
import os
import re
import shutil

from qemu_run import DEFAULT_EVENTS
from seams_wake29 import IDLE_PID, events
from ttrace_tests import (Session, TRACE_PROCESSOR, fresh_out, run_tool,
                          trace_sql, ttdecode)

WORKLOAD = "sh -c 'echo hello | cat; sleep 0.05'"


def check_drain(evs):
    """No record of the drain's thread: its task_newtask, wakeups and
    switches are not made."""
    why = []
    for line, _, ev, f, _ in evs:
        if ev == "task_newtask" and (int(f["pid"]) >= IDLE_PID or
                                     f["comm"].startswith("idle/") or
                                     f["comm"] == "ttdrain"):
            why.append("the drain's thread made: " + line)
        elif ev.startswith("sched_wak") and (int(f["pid"]) >= IDLE_PID or
                                             f["comm"] == "ttdrain"):
            why.append("the drain's thread woken: " + line)
        elif ev == "sched_switch" and "ttdrain" in (f["prev"], f["next"]):
            why.append("a switch of the drain's thread: " + line)
    print("# pack29: %d records, none of the drain's thread" % len(evs))
    return why[:5]


def check_switch(evs):
    """sched_switch carries prev_prio and next_prio; its names are its
    pids' (a task_newtask or an idle pid names each)."""
    sw = [e for e in evs if e[2] == "sched_switch"]
    if not sw:
        return ["no sched_switch"]
    why = []
    names = {f["pid"]: f["comm"] for _, _, ev, f, _ in evs
             if ev.startswith("sched_wak")}
    for line, _, _, f, _ in sw:
        if f["prev_prio"] != "120" or f["next_prio"] != "120":
            why.append("prios not 120: " + line)
        for side in ("prev", "next"):
            pid = f[side + "_pid"]
            if pid in names and names[pid] != f[side]:
                why.append("%s=%s but pid %s is %s: %s" % (
                    side, f[side], pid, names[pid], line))
    return why[:5]


def check_tracedat(out, evs):
    """trace-cmd report's sched_switch prios: the records', in order."""
    dat = out + ".dat"
    p = ttdecode("tracedat", out, dat)
    if p.returncode:
        return ["ttdecode tracedat: " + p.stderr[-300:]]
    rep = run_tool("trace-cmd", "report", "-N", "-i", dat).stdout
    got = re.findall(r"sched_switch:\s+prev_comm=.* prev_pid=(\d+) "
                     r"prev_prio=(\d+) .*==> next_comm=.* next_pid=(\d+) "
                     r"next_prio=(\d+)", rep)
    want = [(f["prev_pid"], f["prev_prio"], f["next_pid"], f["next_prio"])
            for _, _, ev, f, _ in evs if ev == "sched_switch"]
    # trace.dat shows an idle thread as pid 0
    want = [(p if int(p) < IDLE_PID else "0", pp, n if int(n) < IDLE_PID
             else "0", np) for p, pp, n, np in want]
    if sorted(got) != sorted(want):
        return ["trace-cmd report's switches %s, the records' %s" % (
            sorted(set(got) - set(want))[:3],
            sorted(set(want) - set(got))[:3])]
    print("# pack29: trace-cmd report: %d switches, prios as recorded" %
          len(got))
    return []


def check_perfetto(out, evs):
    """Perfetto's sched table: each slice's priority is its switch's
    next_prio."""
    pb = out + ".pftrace"
    p = ttdecode("perfetto", out, pb)
    if p.returncode:
        return ["ttdecode perfetto: " + p.stderr[-300:]]
    rows, = trace_sql(pb, ["select distinct priority from sched "
                           "where utid != 0"])
    want = {f["next_prio"] for _, _, ev, f, _ in evs
            if ev == "sched_switch" and int(f["next_pid"]) < IDLE_PID}
    got = {str(r[0]) for r in rows}
    if not got or got != want:
        return ["Perfetto's sched priorities %s, the records' %s" % (
            sorted(got), sorted(want))]
    return []


def stream(out):
    """The boot: the workload streamed to out through the drain. Returns
    why it failed, or ""."""
    s = Session(2, hostout=out, cmdline=DEFAULT_EVENTS, name="seams_pack29")
    try:
        s.say("ttrace clear", r"\n")
        s.say("ttrace stream -o /dev/host/out -- " + WORKLOAD,
              rb"streamed \d+ bytes of records in \d+ ms; sh exited with "
              rb"status 0", timeout=200)
    except TimeoutError as e:
        return s.finish(str(e))
    return s.finish("")


def scenario():
    out = fresh_out("seams_pack29.ttr")
    checks = [check_drain, check_switch]
    if shutil.which("trace-cmd"):
        checks.append(lambda e: check_tracedat(out, e))
    if os.path.exists(TRACE_PROCESSOR):
        checks.append(lambda e: check_perfetto(out, e))
    fails = [stream(out)]
    evs = [] if fails[0] else events(out)
    if not fails[0] and not evs:
        fails.append("no records in the stream")
    for check in checks if evs else []:
        try:
            fails += check(evs)
        except KeyError as e:
            fails.append("a record without the field %s" % e)
    return "\n".join(f for f in fails[:20] if f)


def run_all(res, only):
    if not only or only in "seams_pack29":
        why = scenario()
        res.add("seams_pack29", not why, why)
