"""The scheduler as its traces show it (issue 28, docs/scheduler.md): two
boots run schedtest workloads (user/bin/schedtest.c) with the default
events on, save a trace after each, and read the traces with ttdecode.

sched_smp1, one CPU:
  - a 20 ms nanosleep beside a CPU-bound process blocks once: 2
    sched_switch records involving the sleeper, nothing of it in between;
    and so does each of four 5 ms ones (shorter than the old tick, where
    the old kernel's nanosleep was all yield loop);
  - two CPU-bound processes switch at slice ends only, on deadlines that
    do not drift: 1 s / slice (SLICE_MS) switches per second, give or
    take one, each after a timer interrupt at or after its deadline.
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
GRAN_MS = 1                     # SCHED_WAKEUP_GRAN_NS: the shortest slice
RAN_PAST_MS = 1                 # how long a CPU may run past a deadline
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


def slice_grid(win, pid):
    """schedtest spin 2 1000's window, win: (the TSC time the hogs' first
    slice started at or after, the hog switches [(ns, the last timer
    interrupt since the switch before, or None)], the switch back to
    schedtest's ns, the other switches' texts, the records between as
    (ns, event, text)). The first slice starts when schedtest blocks (at
    its sched_switch, after its last record)."""
    tag = "[%d]" % pid
    start, hog, end, other, timer, last, recs = None, [], None, [], None, \
        None, []
    for ns, cpu, ctx, ev, text in win:
        if start is None:
            if ev == "sched_switch" and text.startswith("prev=schedtest "):
                start = last
            elif tag in ctx:
                last = ns
            continue
        if end is None:
            recs.append((ns, ev, text))
        if ev == "irq_enter" and TIMER_IRQ.match(text):
            timer = ns
        elif ev == "sched_switch" and end is None:
            if text.startswith("prev=schedhog next=schedhog "):
                hog.append((ns, timer))
                timer = None
            elif text.startswith("prev=schedhog next=schedtest "):
                end = ns
            else:
                other.append(text)
    return start, hog, end, other, recs


def next_due(start, after, first):
    """The deadline of the slice that starts at after (a switch's ns) on
    the grid of slices from start: SLICE_MS after start for the first,
    else the first grid point at least GRAN_MS after it (kern/src/sched.c's
    next_deadline())."""
    slice_ns = SLICE_MS * 1000000
    if first:
        return start + slice_ns
    return start + ((after + GRAN_MS * 1000000 - start) // slice_ns + 1) * \
        slice_ns


def check_slices(path):
    """schedtest spin 2 1000 on one CPU: the hogs switch at slice ends
    only, and the slices do not drift. The deadlines are absolute: the
    first slice ends SLICE_MS after schedtest blocks, each next one at the
    first multiple of SLICE_MS from there at least GRAN_MS after the
    switch (docs/scheduler.md, "Slices and preemption"). Each switch comes
    after a timer interrupt at or after its deadline; at each deadline the
    CPU runs on no further than RAN_PAST_MS before the timer interrupt
    (but for at most 1 in 4: QEMU's timer thread is the host's to
    schedule too, and on a host at load 15 on 2 cores ran late for up to
    1 in 9; the old kernel's slices, from the switch, ran past 2 in 5);
    and over the hogs' second (from schedtest's block to
    its wakeup) the switches, with the deadlines lost to the host (those
    passed over when the timer came late by more than a slice less
    GRAN_MS: the host did not run the vCPU), are one per slice of it
    (1 s / slice, 100, per second), give or take one."""
    win, pid = window(events(path))
    if not win:
        return "no sched-begin/sched-end markers in the trace"
    start, hog, end, other, recs = slice_grid(win, pid)
    if start is None or end is None or other or not hog:
        return "not one block of schedtest, hog switches, its wakeup: " \
            "%s %s %d hog switches, others %s" % (start, end, len(hog),
                                                   other[:4])
    slice_ns = SLICE_MS * 1000000
    timers = [r[0] for r in recs if r[1] == "irq_enter" and
              TIMER_IRQ.match(r[2])]
    late, early, past, lost, prev, prev_due = [], [], [], 0, start, None
    for ns, timer in hog + [(end, None)]:
        due = next_due(start, prev, prev_due is None)
        if prev_due is not None:
            lost += (due - prev_due) // slice_ns - 1
        prev_due = due
        if ns == end:
            break
        late.append((timer - due) / 1e6 if timer else None)
        if timer is None or timer < due:
            early.append("%.3f ms (timer %s)" % (
                (ns - start) / 1e6, late[-1]))
        else:
            irq = next(t for t in timers if t >= due)
            ran = [r[0] for r in recs if due < r[0] < irq]
            if ran and ran[-1] - ran[0] > RAN_PAST_MS * 1e6:
                past.append("%.3f..%.3f ms, timer at %.3f ms" % (
                    (ran[0] - start) / 1e6, (ran[-1] - start) / 1e6,
                    (irq - start) / 1e6))
        prev = ns
    per_s = (len(hog) + 1) * 1e9 / (end - start)
    with_lost = (len(hog) + 1 + lost) * 1e9 / (end - start)
    slices = (end - start) / slice_ns   # the hogs' time, in slices
    ok = [x for x in late if x is not None]
    print("# sched slices: %d switches in the hogs' %.1f ms: %.2f per "
          "second, %.2f with the %d deadlines lost to the host (want %d "
          "per second, %.1f +- 1 in all); timer %.3f..%.3f ms after the deadline, %d switches "
          "before it, %d deadlines run past" % (
              len(hog) + 1, (end - start) / 1e6, per_s, with_lost, lost,
              1000 // SLICE_MS, slices, min(ok or [0]), max(ok or [0]), len(early),
              len(past)))
    if abs(len(hog) + 1 + lost - slices) > 1 or early or \
            len(past) * 4 > len(hog):
        return "%.2f switches per second, %.2f with %d deadlines lost " \
            "to the host (a slice is %d ms: want %d, %.1f +- 1 in all); " \
            "switches not after a timer interrupt at or after their " \
            "deadline: %s; deadlines the CPU ran past without the timer: " \
            "%d of %d %s" % (per_s, with_lost, lost, SLICE_MS,
                             1000 // SLICE_MS, slices, early[:4], len(past),
                             len(hog), past[:3])
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
