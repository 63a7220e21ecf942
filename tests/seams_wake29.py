"""Issue 29's kernel records (docs/trace-format.md, "Threads in records"):
one boot (2 CPUs, the default events, the function graph on sys_open, the
counters kernel thread started) runs a pipe, a sleep and a failing open,
saves the trace and reads `ttdecode text` of it:

  - wakeups: every sched_switch to a thread that switched out sleeping
    earlier in the trace is preceded, since then, by a sched_waking and a
    sched_wakeup of its pid; every wakeup has its waking just before;
  - kernel threads have pids and names of their own: the counters
    thread's task_newtask names it with a pid in TTRACE_KTHREAD_PID's
    range, and a sched_switch runs it under that pid and name, never as
    an idle thread;
  - life cycles carry numbers: each spawned program has proc_create,
    task_newtask and sched_wakeup_new, proc_exec with its path and
    pid_nr, proc_exit and proc_free with its pid_nr;
  - a blocked thread says why: a sched_blocked_reason before its
    switch-out, with a caller address in the kernel;
  - the graph's exits carry return values: `cat /nonexistent`'s sys_open
    returns -2 (-ENOENT);
  - context flags: every irq_enter shows interrupts off and hardirq
    ([d?h], ? need resched or not), and a wakeup made by the sleep's
    timer interrupt does too;
    cpu_idle enter/exit and named IRQs (irq_enter name=timer).
"""
import re

from qemu_run import DEFAULT_EVENTS
from ttrace_tests import Session, fresh_out, ttdecode

LINE = re.compile(r"^(\d+)\.(\d{3}) us cpu(\d+) (\S+) (\w+): ?(.*)$")
KTHREAD_PID = 0x40000000        # TTRACE_KTHREAD_PID(0), ttrace_format.h
IDLE_PID = 0x80000000           # TTRACE_IDLE_PID(0)
WORKLOAD = ("echo hello | cat", "sleep 0.05", "cat /nonexistent")


def fields(text):
    """name=value pairs of a record's text."""
    return dict(re.findall(r"(\w+)=(\S+)", text))


def events(path):
    """[(line, ctx, event, fields, flags)] of ttdecode text of path."""
    out = []
    for line in ttdecode("text", path).stdout.splitlines():
        m = LINE.match(line)
        if m:
            flags = re.search(r" \[([d.][N.][h.])\]$", m[6])
            out.append((line, m[4], m[5], fields(m[6]),
                        flags[1] if flags else "..."))
    return out


def check_wakeups(evs):
    """Each switch to a thread that slept is preceded by its waking and
    wakeup; each sched_wakeup by its sched_waking."""
    asleep, woken, why, checked = set(), {}, [], 0
    for line, ctx, ev, f, _ in evs:
        if ev == "sched_switch":
            prev, nxt = int(f["prev_pid"]), int(f["next_pid"])
            if f["prev_state"] == "sleeping":
                asleep.add(prev)
                woken[prev] = set()
            if nxt in asleep:
                checked += 1
                if woken[nxt] != {"sched_waking", "sched_wakeup"}:
                    why.append("switched to %d without %s: %s" % (
                        nxt, {"sched_waking", "sched_wakeup"} - woken[nxt],
                        line))
                asleep.discard(nxt)
        elif ev in ("sched_waking", "sched_wakeup"):
            pid = int(f["pid"])
            if ev == "sched_wakeup" and "sched_waking" not in \
                    woken.get(pid, {"sched_waking"}):
                why.append("sched_wakeup without sched_waking: " + line)
            if pid in woken:
                woken[pid].add(ev)
    if not checked:
        why.append("no switch to a thread that had slept")
    print("# wake29: %d switches to a thread that slept, each woken" %
          checked)
    return why


def check_kthreads(evs):
    """The counters thread: its own pid and name, run under them."""
    new = [f for _, _, ev, f in (e[:4] for e in evs)
           if ev == "task_newtask" and f.get("comm") == "counters"]
    if not new:
        return ["no task_newtask of the counters kernel thread"]
    pid = int(new[0]["pid"])
    why = []
    if not KTHREAD_PID < pid < IDLE_PID:
        why.append("counters has pid %d, not a kernel thread's" % pid)
    runs = [e for e in evs if e[2] == "sched_switch" and
            int(e[3]["next_pid"]) == pid]
    if not runs or any(e[3]["next"] != "counters" for e in runs):
        why.append("no switch to counters as pid %d: %s" % (
            pid, [e[0] for e in runs[:2]]))
    return why


def check_lifetimes(evs):
    """Each spawned program of the workload: spawn, start, exec, exit,
    free, by number."""
    why = []
    for prog in ("echo", "cat", "sleep"):
        made = [e[3] for e in evs if e[2] == "proc_create" and
                e[3]["name"] == prog]
        if not made:
            why.append("no proc_create of %s" % prog)
            continue
        pid = made[0]["pid"]
        want = {
            "task_newtask": lambda f: f["pid"] == pid and
            f["comm"] == prog and int(f["parent"]) > 0,
            "sched_wakeup_new": lambda f: f["pid"] == pid,
            "proc_exec": lambda f: f["pid_nr"] == pid and
            f["filename"] == "/bin/" + prog,
            "proc_exit": lambda f: f["pid_nr"] == pid and
            f["status"] in ("0", "1"),
            "proc_free": lambda f: f["pid_nr"] == pid,
        }
        for ev, ok in want.items():
            if not any(e[2] == ev and ok(e[3]) for e in evs):
                why.append("%s (pid %s): no %s" % (prog, pid, ev))
    return why


def check_blocked(evs):
    """A thread switching out to sleep said why, just before."""
    why, n = [], 0
    for i, (line, _, ev, f, _) in enumerate(evs):
        if ev == "sched_switch" and f["prev_state"] == "sleeping" and \
                int(f["prev_pid"]) < IDLE_PID:
            n += 1
            before = [e for e in evs[max(0, i - 8):i] if
                      e[2] == "sched_blocked_reason" and
                      e[3]["pid"] == f["prev_pid"]]
            if not before or not before[-1][3]["caller"].startswith(
                    "0xffffffff8"):
                why.append("no sched_blocked_reason before " + line)
    return why if n else ["no thread blocked"]


def check_retval(evs):
    """cat /nonexistent: sys_open's exit returns -2."""
    exits = [e for e in evs if e[2] == "func_exit" and
             e[0].split(": ", 1)[1].lstrip().startswith("sys_open ")]
    if not exits:
        return ["no func_exit of sys_open"]
    if not any(e[3].get("retval") == "-2" for e in exits):
        return ["no sys_open returning -2: %s" % [e[0] for e in exits[:4]]]
    return []


def check_flags(evs):
    """IRQ records: interrupts off and hardirq; the sleep's timer wakes it
    from the interrupt; a switch with interrupts off; cpu_idle; the timer
    named."""
    why = []
    irqs = [e for e in evs if e[2] == "irq_enter"]
    off_h = lambda e: e[4][0] == "d" and e[4][2] == "h"
    if not irqs or not all(off_h(e) for e in irqs):
        why.append("irq_enter flags: %s" % [e[0] for e in irqs
                                            if not off_h(e)][:3])
    if not any(e[3].get("name") == "timer" for e in irqs):
        why.append("no irq_enter name=timer")
    if not any(e[2] == "sched_waking" and e[1].startswith("irq:") and
               off_h(e) for e in evs):
        why.append("no sched_waking from an interrupt with flags d.h")
    if not any(e[2] == "sched_switch" and e[4][0] == "d" for e in evs):
        why.append("no sched_switch with interrupts off")
    states = {e[3]["state"] for e in evs if e[2] == "cpu_idle"}
    if states != {"1", "4294967295"}:
        why.append("cpu_idle states %s" % states)
    return why


def scenario():
    out = fresh_out("seams_wake29.ttr")
    s = Session(2, hostout=out, cmdline=DEFAULT_EVENTS, name="seams_wake29")
    try:
        s.say("echo sys_open > /dev/ttrace/funcs", r"\n")
        s.say("echo enable func > /dev/ttrace/ctl", r"\n")
        s.say("ttrace clear", r"\n")
        s.say("echo counters 10 > /dev/ttrace/ctl", r"\n")
        for cmd in WORKLOAD:
            s.say(cmd, r"\n")
        s.say("echo counters 0 > /dev/ttrace/ctl", r"\n")
        s.say("ttrace save /dev/host/out", r"saved /dev/host/out",
              timeout=180)
    except TimeoutError as e:
        return s.finish(str(e))
    why = s.finish("")
    if why:
        return why
    evs = events(out)
    fails = []
    for check in (check_wakeups, check_kthreads, check_lifetimes,
                  check_blocked, check_retval, check_flags):
        try:
            found = check(evs)
        except KeyError as e:
            found = ["a record without the field %s" % e]
        fails += ["%s: %s" % (check.__name__, w) for w in found]
    return "\n".join(fails[:20])


def run_all(res, only):
    if not only or only in "seams_wake29":
        why = scenario()
        res.add("seams_wake29", not why, why)
