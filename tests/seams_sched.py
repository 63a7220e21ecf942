"""The scheduler as its traces show it (issue 28, docs/scheduler.md): two
boots run schedtest workloads (user/bin/schedtest.c) with the default
events on, save a trace after each, and read the traces with ttdecode.

sched_smp1, one CPU:
  - a 20 ms nanosleep beside a CPU-bound process blocks once: 2
    sched_switch records involving the sleeper, nothing of it in between;
    and so does each of four 5 ms ones (shorter than the old tick, where
    the old kernel's nanosleep was all yield loop);
  - two CPU-bound processes switch at slice ends only, on deadlines that
    do not drift: each switch after a timer interrupt at or after its
    deadline, 1 s / slice (SLICE_MS) switches per second, give or take
    one (with the deadlines a loaded host made the timer miss), and the
    slice after a late timer shorter, back on its deadline.
sched_smp4, four CPUs:
  - an idle CPU for 1 s takes no timer interrupt;
  - 4 CPU-bound processes on 4 CPUs, beside a process napping 20 ms at a
    time, each run >= 95% of the second;
  - under schedtest kids (forkkids-style: 8 children, each 1000 getpid
    and two 20 ms sleeps) no lock shared by all CPUs is contended on the
    tick, switch or wakeup path: no spin_contended names sched_lock (a
    lock the old kernel had, and this one has not), and the scheduler
    locks contended are per CPU (runq, timerq) or per wait-queue bucket.
sched_smp1_icount, one CPU under QEMU's -icount shift=0,sleep=off (the
guest's clock, TSC and LAPIC timer follow its instruction count, so its
timers fire on time in guest time however loaded the host is):
  - two CPU-bound processes switch exactly 1 s / slice (100) times in
    the second, give or take one, each hog switch on the slice grid:
    the k-th within GRID_US of k x SLICE_MS after schedtest blocks.
"""
import re
import subprocess

from qemu_run import DEFAULT_EVENTS, KERNEL_ELF
from ttrace_tests import Session, fresh_out, ttdecode, split_saved

SLICE_MS = 10                   # SCHED_SLICE_NS in kern/src/sched.c
GRAN_MS = 1                     # SCHED_WAKEUP_GRAN_NS: the shortest slice
SHORT_MS = 1                    # a slice that came back to its deadline
# a hog switch's distance from the slice grid under icount: the timer is
# on time there, and the switch comes after its interrupt and the return
# to user mode, ~2 us (2,000 instructions at 1 ns each); slices timed
# from the switch drift by that each (~1 us a slice, 95 us in the second:
# a 100 us bound would not tell them apart)
GRID_US = 20
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
    switch (docs/scheduler.md, "Slices and preemption"). So:
      - each switch comes after a timer interrupt at or after its
        deadline, and no slice is shorter than GRAN_MS;
      - over the hogs' second (from schedtest's block to its wakeup) the
        switches are 1 s / slice (100) per second, give or take one; when
        the host lost deadlines (the timer came a slice late or more, less
        GRAN_MS: under load the host stops QEMU's vCPU or its timer thread
        for tens of ms), the switches and the deadlines passed over are
        one per slice of it, give or take one;
      - where a timer came over 2 x SHORT_MS late, a slice after it ends
        sooner than a slice less SHORT_MS after its switch, back on its
        deadline, in at least one case (slices timed from the switch, as
        the old kernel's, never do: their lateness only grows). The margin:
        the slice after a timer L late is a slice - L + the next timer's
        own lateness, so one just over SHORT_MS late need not leave a
        slice SHORT_MS short (CI's quiet host: 1.007 ms)."""
    win, pid = window(events(path))
    if not win:
        return "no sched-begin/sched-end markers in the trace"
    start, hog, end, other, recs = slice_grid(win, pid)
    if start is None or end is None or other or not hog:
        return "not one block of schedtest, hog switches, its wakeup: " \
            "%s %s %d hog switches, others %s" % (start, end, len(hog),
                                                   other[:4])
    slice_ns, short_ns = SLICE_MS * 1000000, SHORT_MS * 1000000
    late, bad, lost, short = [], [], 0, 0
    prev, prev_due = start, None
    lo = hi = next_due(start, start, True)
    for ns, timer in hog:
        # the switch before read its clock between its timer interrupt
        # and its record: its deadline is one of lo, hi
        due = hi if timer and timer >= hi else lo
        if timer is None or timer < due or timer - prev < GRAN_MS * 5e5:
            bad.append("%.3f ms (timer %s)" % (
                (ns - start) / 1e6, timer and (timer - due) / 1e6))
            timer = due
        late.append((timer - due) / 1e6)
        lost += (due - prev_due) // slice_ns - 1 if prev_due else 0
        short += timer - prev < slice_ns - short_ns
        prev, prev_due = ns, due
        lo, hi = next_due(start, timer, False), next_due(start, ns, False)
    # the deadlines passed over by the last hog switch, and those up to the
    # end but the one the switch to schedtest meets
    lost += (hi - prev_due) // slice_ns - 1 + \
        max(0, -(-(end - hi) // slice_ns) - 1)
    switches = len(hog) + 1         # and the one to schedtest at its end
    slices = (end - start) / slice_ns
    print("# sched slices: %d switches in the hogs' %.1f ms (%.1f slices): "
          "%.2f per second, %d deadlines lost to the host; timer %.3f.."
          "%.3f ms after the deadline, %d slices %d+ ms short, %d switches "
          "not at a deadline" % (
              switches, (end - start) / 1e6, slices,
              switches * 1e9 / (end - start), lost, min(late), max(late),
              short, SHORT_MS, len(bad)))
    if abs(switches + lost - slices) > 1 or bad or \
            (not lost and abs(switches * 1e9 / (end - start) -
                              1000 / SLICE_MS) > 1) or \
            (max(late) > 2 * SHORT_MS and not short):
        return "%d switches and %d deadlines lost in %.1f slices (want " \
            "one a slice, +- 1); switches not after a timer interrupt at " \
            "or after their deadline: %s; the latest timer %.3f ms late, " \
            "%d slices after it %d+ ms short (want some past %d ms late)" \
            % (switches, lost, slices, bad[:4], max(late), short, SHORT_MS,
               2 * SHORT_MS)
    return ""


def check_grid(path):
    """schedtest spin 2 1000 on one CPU under icount: the hogs' switches
    and the one to schedtest at its end are 1 s / slice, +- 1, per second
    of the hogs' window, and the k-th hog switch is within GRID_US of the
    k-th deadline, k x SLICE_MS after schedtest blocked: none lost,
    none extra, none late, and no drift (slices timed from the switch
    drift by the interrupt-to-switch time each)."""
    win, pid = window(events(path))
    if not win:
        return "no sched-begin/sched-end markers in the trace"
    start, hog, end, other, _ = slice_grid(win, pid)
    if start is None or end is None or other or not hog:
        return "not one block of schedtest, hog switches, its wakeup: " \
            "%s %s %d hog switches, others %s" % (start, end, len(hog),
                                                   other[:4])
    slice_ns = SLICE_MS * 1000000
    off = [(ns - start - (k + 1) * slice_ns) / 1e6 for k, (ns, _) in
           enumerate(hog)]
    far = ["switch %d at %.3f ms: %+.3f ms" % (k + 1, (hog[k][0] - start) /
                                               1e6, o)
           for k, o in enumerate(off) if abs(o) * 1000 > GRID_US]
    switches = len(hog) + 1         # and the one to schedtest at its end
    rate = switches * 1e9 / (end - start)
    print("# sched grid (icount): %d switches in the hogs' %.3f ms: %.2f "
          "per second; hog switches %+.3f..%+.3f ms from the k x %d ms "
          "grid, %d beyond %d us" % (
              switches, (end - start) / 1e6, rate, min(off), max(off),
              SLICE_MS, len(far), GRID_US))
    if abs(rate - 1000 / SLICE_MS) > 1 or far:
        return "%d switches in %.3f ms: %.2f per second (want %d +- 1); " \
            "%d hog switches off the grid by more than %d us: %s" % (
                switches, (end - start) / 1e6, rate, 1000 / SLICE_MS,
                len(far), GRID_US, far[:4])
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


def traces(name, smp, cmds, icount=None):
    """One boot (under -icount shift=icount if given): each schedtest
    command of cmds between a ttrace clear and a save to the host. Returns
    (the traces' paths, "") or ([], why not). (scripts/bench.py's sched
    figures use it too.)"""
    out = fresh_out(name + ".ttr")
    s = Session(smp, hostout=out, cmdline=DEFAULT_EVENTS, name=name,
                icount=icount)
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


def session(name, smp, steps, icount=None):
    """traces() of each (command, check) of steps, then each check of its
    own trace. Returns why it failed, or ""."""
    paths, why = traces(name, smp, [cmd for cmd, _ in steps], icount)
    for (cmd, check), path in zip(steps, paths):
        w = check(path)
        if w:
            why += "%s: %s\n" % (cmd, w)
    return why


def run_all(res, only):
    boots = (
        ("sched_smp1", 1, None, [("schedtest spin 1 20", check_nap),
                                 ("schedtest spin 1 20 5", check_nap),
                                 ("schedtest spin 2 1000", check_slices)]),
        ("sched_smp1_icount", 1, 0, [("schedtest spin 2 1000",
                                      check_grid)]),
        ("sched_smp4", 4, None, [("schedtest spin 0 1000",
                                  lambda p: check_idle(p, 4)),
                                 ("schedtest spin 4 1000 20", check_share),
                                 ("schedtest kids 8", check_locks)]),
    )
    for name, smp, icount, steps in boots:
        if not only or only in name:
            why = session(name, smp, steps, icount)
            res.add(name, not why, why)
