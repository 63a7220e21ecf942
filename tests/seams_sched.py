"""The scheduler as its traces show it (issue 28, docs/scheduler.md): two
boots run schedtest workloads (user/bin/schedtest.c) with the default
events on, save a trace after each, and read the traces with ttdecode.

sched_smp1, one CPU:
  - a 20 ms nanosleep beside a CPU-bound process blocks once: 2
    sched_switch records involving the sleeper, nothing of it in between;
    and so does each of four 5 ms ones (shorter than the old tick, where
    the old kernel's nanosleep was all yield loop);
  - two CPU-bound processes switch at slice ends only: every switch
    between them at least a slice after the one before, and over the
    second one per slice (SLICE_MS), give or take one.
sched_smp4, four CPUs:
  - an idle CPU for 1 s takes no timer interrupt;
  - 4 CPU-bound processes on 4 CPUs, beside a process napping 20 ms at a
    time, each run >= 95% of the second;
  - under schedtest kids (forkkids-style: 8 children, each 1000 getpid
    and two 20 ms sleeps) no lock shared by all CPUs is contended on the
    tick, switch or wakeup path: no spin_contended names sched_lock (a
    lock the old kernel had, and this one has not), and the scheduler
    locks contended are per CPU (runq, timerq) or per wait-queue bucket.
"""
import re
import subprocess

from qemu_run import DEFAULT_EVENTS, KERNEL_ELF
from ttrace_tests import Session, fresh_out, ttdecode, split_saved

SLICE_MS = 10                   # SCHED_SLICE_NS in kern/src/sched.c
# a record's line; its context flags (` [dNh]`, when any is set) are not
# part of its text
LINE = re.compile(r"^(\d+)\.(\d{3}) us cpu(\d+) (\S+) (\w+): ?(.*?)"
                  r"(?: \[...\])?$")
PID = re.compile(r"\[(\d+)\]")
# the LAPIC timer's irq_enter (its handler's name and flags may follow)
TIMER_IRQ = re.compile(r"vector=32\b")


def events(path):
    """[(ns, cpu, context, event, text)] of ttdecode text of path."""
    out = []
    for line in ttdecode("text", path).stdout.splitlines():
        m = LINE.match(line)
        if m:
            out.append((int(m[1]) * 1000 + int(m[2]), int(m[3]), m[4],
                        m[5], m[6]))
    return out


def window(evs):
    """The events from schedtest's sched-begin marker to its sched-end,
    and the marker writer's pid; ([], None) without them."""
    marks = [i for i, e in enumerate(evs) if e[3] == "user_marker" and
             e[4] in ("sched-begin", "sched-end")]
    if len(marks) != 2:
        return [], None
    return evs[marks[0]:marks[1] + 1], int(PID.search(evs[marks[0]][2])[1])


def switches(evs):
    """(ns, cpu, prev, next, pid of next) of each sched_switch in evs: the
    record is written in the context of the thread switched to."""
    out = []
    for ns, cpu, ctx, ev, text in evs:
        if ev == "sched_switch":
            m = re.match(r"prev=(\S+) next=(\S+)", text)
            pid = PID.search(ctx)
            out.append((ns, cpu, m[1], m[2], int(pid[1]) if pid else None))
    return out


def check_nap(path):
    """schedtest spin 1 MS [NAP_MS]: each of its nanosleeps switches it
    out once and in once, and nothing of it runs in between."""
    win, pid = window(events(path))
    if not win:
        return "no sched-begin/sched-end markers in the trace"
    mine = [e for e in win if "[%d]" % pid in e[2]]
    enters = [i for i, e in enumerate(mine) if e[3] == "syscall_enter" and
              e[4].startswith("nanosleep")]
    if not enters:
        return "no nanosleep of pid %d" % pid
    for enter in enters:
        leave = next((i for i, e in enumerate(mine) if i > enter and
                      e[3] == "syscall_exit" and
                      e[4].startswith("nanosleep")), None)
        if leave is None:
            return "a nanosleep of pid %d without its exit" % pid
        t0, t1 = mine[enter][0], mine[leave][0]
        sw = [s for s in switches(win) if t0 <= s[0] <= t1 and
              "schedtest" in (s[2], s[3])]
        between = [e[3] + ": " + e[4] for e in mine[enter + 1:leave] if
                   e[3] in ("syscall_exit", "syscall_enter")]
        print("# sched nap: %s took %.3f ms, %d switches" % (
            mine[enter][4], (t1 - t0) / 1e6, len(sw)))
        if len(sw) != 2 or between:
            return "%s: %d sched_switch records of schedtest (want 2), " \
                "%d syscall records of it inside (want 0): %s" % (
                    mine[enter][4], len(sw), len(between), between[:4])
    return ""


def check_slices(path):
    """schedtest spin 2 1000 on one CPU: the hogs switch at slice ends
    only: each switch between them comes a slice or more after the one
    before, with a timer interrupt (the slice's end) in between, so the
    second holds at most 1 s / slice + 1 of them. (TCG delivers the one-shot
    timer late, by up to a slice under load: the slices run long, never
    short.)"""
    win, pid = window(events(path))
    if not win:
        return "no sched-begin/sched-end markers in the trace"
    t0, t1 = win[0][0], win[-1][0]
    hog, timer = [], False
    for ns, cpu, ctx, ev, text in win:
        if ev == "irq_enter" and TIMER_IRQ.match(text):
            timer = True
        elif ev == "sched_switch" and re.match(
                r"prev=schedhog next=schedhog ", text):
            hog.append((ns, timer))
            timer = False
    gaps = [b[0] - a[0] for a, b in zip(hog, hog[1:])]
    untimed = sum(1 for h in hog[1:] if not h[1])
    most = (t1 - t0) / (SLICE_MS * 1e6) + 1
    print("# sched slices: %d hog switches in %.1f ms (at most %.1f), "
          "%.2f..%.2f ms apart, %d without a timer interrupt before" % (
              len(hog), (t1 - t0) / 1e6, most,
              min(gaps) / 1e6 if gaps else 0,
              max(gaps) / 1e6 if gaps else 0, untimed))
    if not gaps or min(gaps) < (SLICE_MS - 0.2) * 1e6 or untimed or \
            len(hog) > most:
        return "%d switches between the hogs in %.1f ms, the closest " \
            "%.3f ms apart (a slice is %d ms), %d without a timer " \
            "interrupt since the one before" % (
                len(hog), (t1 - t0) / 1e6, min(gaps or [0]) / 1e6,
                SLICE_MS, untimed)
    return ""


def check_idle(path, ncpus):
    """schedtest spin 0 1000: the CPUs that switch nothing in the second
    take no timer interrupt (vector 32) in it."""
    win, pid = window(events(path))
    if not win:
        return "no sched-begin/sched-end markers in the trace"
    busy = {s[1] for s in switches(win)} | {win[0][1], win[-1][1]}
    ticks = {c: 0 for c in range(ncpus)}
    for e in win:
        if e[3] == "irq_enter" and TIMER_IRQ.match(e[4]):
            ticks[e[1]] += 1
    idle = [c for c in range(ncpus) if c not in busy]
    print("# sched idle: timer interrupts per CPU over %.1f ms %s, idle "
          "CPUs %s" % ((win[-1][0] - win[0][0]) / 1e6, ticks, idle))
    if not idle or any(ticks[c] for c in idle):
        return "timer interrupts on the idle CPUs %s in 1 s: %s" % (
            idle, ticks)
    return ""


def check_share(path):
    """schedtest spin 4 1000 20 on 4 CPUs: each hog runs >= 95% of the
    window, from the sched_switch records (a CPU runs the thread each
    switch names next until its next switch)."""
    evs = events(path)
    win, pid = window(evs)
    if not win:
        return "no sched-begin/sched-end markers in the trace"
    t0, t1 = win[0][0], win[-1][0]
    ran, last = {}, {}
    for ns, cpu, prev, nxt, npid in switches(evs):
        if cpu in last:
            a, who = last[cpu]
            if who is not None:
                ran[who] = ran.get(who, 0) + max(0, min(ns, t1) - max(a, t0))
        last[cpu] = (ns, npid if nxt == "schedhog" else None)
    for a, who in last.values():
        if who is not None:
            ran[who] = ran.get(who, 0) + max(0, t1 - max(a, t0))
    share = {p: round(100.0 * t / (t1 - t0), 1) for p, t in ran.items()}
    print("# sched share: each hog's %% of %.1f ms: %s" % (
        (t1 - t0) / 1e6, share))
    if len(share) != 4 or min(share.values()) < 95:
        return "4 hogs on 4 CPUs: %% of the second each ran: %s" % share
    return ""


def check_locks(path):
    """schedtest kids 8: no spin_contended names a global scheduler lock
    (sched_lock); which locks are contended, by symbol, is printed."""
    syms = {}
    nm = subprocess.run(["nm", "-S", KERNEL_ELF], capture_output=True,
                        text=True).stdout
    for line in nm.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "bBdD":
            syms[(int(f[0], 16), int(f[1], 16))] = f[3]

    def name(addr):
        for (a, n), s in syms.items():
            if a <= addr < a + n:
                return s
        return "heap"

    counts = {}
    for e in events(path):
        if e[3] == "spin_contended":
            s = name(int(re.match(r"lock=(?:0x)?([0-9a-f]+)", e[4])[1], 16))
            counts[s] = counts.get(s, 0) + 1
    print("# sched locks: spin_contended by lock under kids 8: %s" % counts)
    if "sched_lock" in counts:
        return "the global sched_lock contended %d times" % \
            counts["sched_lock"]
    return ""


def traces(name, smp, cmds):
    """One boot: each schedtest command of cmds between a ttrace clear and
    a save to the host. Returns (the traces' paths, "") or ([], why not).
    (scripts/bench.py's sched figures use it too.)"""
    out = fresh_out(name + ".ttr")
    s = Session(smp, hostout=out, cmdline=DEFAULT_EVENTS, name=name)
    try:
        for cmd in cmds:
            s.say("ttrace clear", r"\n")
            s.say(cmd, r"schedtest: done", timeout=180)
            s.say("ttrace save /dev/host/out", r"saved /dev/host/out",
                  timeout=180)
    except TimeoutError as e:
        return [], s.finish(str(e))
    why = s.finish("")
    return split_saved(out, len(cmds)) if not why else ([], why)


def session(name, smp, steps):
    """traces() of each (command, check) of steps, then each check of its
    own trace. Returns why it failed, or ""."""
    paths, why = traces(name, smp, [cmd for cmd, _ in steps])
    for (cmd, check), path in zip(steps, paths):
        w = check(path)
        if w:
            why += "%s: %s\n" % (cmd, w)
    return why


def run_all(res, only):
    boots = (
        ("sched_smp1", 1, [("schedtest spin 1 20", check_nap),
                           ("schedtest spin 1 20 5", check_nap),
                           ("schedtest spin 2 1000", check_slices)]),
        ("sched_smp4", 4, [("schedtest spin 0 1000",
                            lambda p: check_idle(p, 4)),
                           ("schedtest spin 4 1000 20", check_share),
                           ("schedtest kids 8", check_locks)]),
    )
    for name, smp, steps in boots:
        if not only or only in name:
            why = session(name, smp, steps)
            res.add(name, not why, why)
