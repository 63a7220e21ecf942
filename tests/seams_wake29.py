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
    cpu_idle enter/exit and named IRQs (irq_enter name=timer);
  - prio: every wakeup carries its thread's prio (120), as Linux's;
  - task_rename: each spawned program starts (task_newtask) under its
    parent's name (sh) and is renamed to its program's at its first run,
    in its own context; trace-cmd report of `ttdecode tracedat` shows
    `task_rename: pid=N oldcomm=sh newcomm=PROG` and the wakeups' prio;
  - Perfetto (trace_processor_shell on `ttdecode perfetto`): each
    program's thread is named by its program once renamed, every
    blocked (S) state has its blocked_function (a kernel function's
    name, from sched_blocked_reason), and the stack records of a
    stacktrace probe on proc_exec are perf samples whose callstacks name
    the record's functions, leaf first.
"""
import os
import re
import shutil

from qemu_run import DEFAULT_EVENTS, KERNEL_ELF
from ttrace_tests import (Session, TRACE_PROCESSOR, fresh_out, run_tool,
                          trace_sql, ttdecode)

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


def common_end(evs):
    """The time (us, as text: the records' own) up to which every CPU's
    records are in the trace: a save copies the CPUs' rings one after the
    other, so a CPU copied later holds records past the others' ends (a
    wakeup on CPU 0 after its copy, the switch on CPU 1 in it)."""
    last = {}
    for line, *_ in evs:
        m = LINE.match(line)
        last[m[3]] = (int(m[1]), int(m[2]))
    return min(last.values()) if last else (0, 0)


def check_wakeups(evs):
    """Each switch to a thread that slept is preceded by its waking and
    wakeup; each sched_wakeup by its sched_waking; up to the CPUs' common
    end (common_end())."""
    asleep, woken, why, checked = set(), {}, [], 0
    end = common_end(evs)
    for line, ctx, ev, f, _ in evs:
        m = LINE.match(line)
        if (int(m[1]), int(m[2])) > end:
            break
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
            f["comm"] == "sh" and int(f["parent"]) > 0,
            "task_rename": lambda f: f["pid"] == pid and
            f["oldcomm"] == "sh" and f["newcomm"] == prog,
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
    recent = {}         # per CPU, its last 8 records (other CPUs' come
    for e in evs:       # between in the merged list: a serial IRQ's)
        line, _, ev, f, _ = e
        cpu = LINE.match(line)[3]
        if ev == "sched_switch" and f["prev_state"] == "sleeping" and \
                int(f["prev_pid"]) < IDLE_PID:
            n += 1
            before = [r for r in recent.get(cpu, []) if
                      r[2] == "sched_blocked_reason" and
                      r[3]["pid"] == f["prev_pid"]]
            if not before or not before[-1][3]["caller"].startswith(
                    "0xffffffff8"):
                why.append("no sched_blocked_reason before " + line)
        recent[cpu] = (recent.get(cpu, []) + [e])[-8:]
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


def check_prio(evs):
    """Every wakeup says its thread's prio: 120 (nice 0) for all here."""
    wakes = [e for e in evs if e[2] in ("sched_waking", "sched_wakeup",
                                        "sched_wakeup_new")]
    bad = [e[0] for e in wakes if e[3]["prio"] != "120"]
    return bad[:3] if wakes else ["no wakeups"]


def check_rename(evs):
    """A program's task_rename comes after its task_newtask, in its own
    context (its first run)."""
    why = []
    for i, (line, ctx, ev, f, _) in enumerate(evs):
        if ev != "task_rename":
            continue
        if not any(e[2] == "task_newtask" and e[3]["pid"] == f["pid"]
                   for e in evs[:i]):
            why.append("task_rename before its task_newtask: " + line)
        if "[%s]" % f["pid"] not in ctx:
            why.append("task_rename not in its thread's context: " + line)
    return why


def check_tracedat(out, evs):
    """trace-cmd report of the trace.dat: a task_rename per program, and
    the wakeups' prio as recorded."""
    dat = out + ".dat"
    p = ttdecode("tracedat", out, dat)
    if p.returncode:
        return ["ttdecode tracedat: " + p.stderr[-300:]]
    rep = run_tool("trace-cmd", "report", "-N", "-i", dat).stdout
    why = []
    for e in evs:
        if e[2] == "task_rename" and not re.search(
                r"task_rename:\s+pid=%s oldcomm=sh newcomm=%s "
                r"oom_score_adj=0" % (e[3]["pid"], e[3]["newcomm"]), rep):
            why.append("trace-cmd report lacks " + e[0])
    waking = re.findall(r"sched_waking:\s+comm=\S+ pid=\d+ prio=(\d+)", rep)
    if not waking or set(waking) != {"120"}:
        why.append("trace-cmd report's sched_waking prios: %s" %
                   sorted(set(waking)))
    return why


def stack_leaves(evs):
    """The innermost function of each stack record, in order."""
    return [e[0].split("frames=", 1)[1].split()[1] for e in evs
            if e[2] == "stack"]


def check_perfetto(out, evs):
    """trace_processor on `ttdecode perfetto`: threads renamed, blocked
    states with their function, stack records as callstacks."""
    pf = out + ".pftrace"
    p = ttdecode("perfetto", "--kernel", KERNEL_ELF, out, pf)
    if p.returncode:
        return ["ttdecode perfetto: " + p.stderr[-300:]]
    renames = {e[3]["pid"]: e[3]["newcomm"] for e in evs
               if e[2] == "task_rename"}
    names, blocked, leaves, stacks = trace_sql(pf, [
        "select tid, name from thread where tid in (%s)" %
        ",".join(renames or ["-1"]),
        "select count(*), sum(blocked_function is null), "
        "sum(blocked_function like '#%') from thread_state where state = 'S' "
        "and utid in (select utid from thread where tid > 0)",
        "select ps.id, f.name from perf_sample ps join "
        "experimental_annotated_callstack(ps.callsite_id) ac join "
        "stack_profile_frame f on f.id = ac.frame_id where ac.depth = "
        "(select max(depth) from experimental_annotated_callstack("
        "ps.callsite_id)) order by ps.ts",
        "select count(*) from perf_sample"])
    why = []
    got = dict((r[0], r[1]) for r in names)
    if not renames or got != renames:
        why.append("thread names %s, renamed to %s" % (got, renames))
    n, unnamed, hex_ = (int(v or 0) for v in blocked[0])
    if not n or unnamed or hex_:
        why.append("%d blocked states: %d without a blocked_function, %d "
                   "not named" % (n, unnamed, hex_))
    want = stack_leaves(evs)
    if not want or int(stacks[0][0]) != len(want) or \
            [r[1] for r in leaves] != want:
        why.append("perf samples' leaves %s, stack records' %s" % (
            [r[1] for r in leaves][:4], want[:4]))
    print("# wake29: %d blocked states named, %d stack records as "
          "callstacks" % (n, len(want)))
    return why


def scenario():
    out = fresh_out("seams_wake29.ttr")
    s = Session(2, hostout=out, cmdline=DEFAULT_EVENTS, name="seams_wake29")
    try:
        s.say("echo sys_open > /dev/ttrace/funcs", r"\n")
        s.say("echo enable func > /dev/ttrace/ctl", r"\n")
        s.say("ttrace clear", r"\n")
        s.say("echo counters 10 > /dev/ttrace/ctl", r"\n")
        s.say("echo probe st stacktrace proc_exec > /dev/ttrace/ctl",
              r"\n")
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
    def tracedat(e):
        return check_tracedat(out, e)

    def perfetto(e):
        return check_perfetto(out, e)
    tools = [tracedat] if shutil.which("trace-cmd") else []
    if os.path.exists(TRACE_PROCESSOR):
        tools.append(perfetto)
    for check in [check_wakeups, check_kthreads, check_lifetimes,
                  check_blocked, check_retval, check_flags, check_prio,
                  check_rename] + tools:
        try:
            found = check(evs)
        except KeyError as e:
            found = ["a record without the field %s" % e]
        except AssertionError as e:
            found = [str(e)]
        fails += ["%s: %s" % (check.__name__, w) for w in found]
    return "\n".join(fails[:20])


def run_all(res, only):
    if not only or only in "seams_wake29":
        why = scenario()
        res.add("seams_wake29", not why, why)
