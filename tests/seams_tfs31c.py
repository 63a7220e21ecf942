"""Issue 31's files that narrow the trace (docs/tracefs.md): one boot types
Linux's recipes (ftrace.rst, events.rst) verbatim at the shell and checks
each one's effect through the tree and through the saved trace
(`ttdecode text`), phases of it between trace_marker lines:

- set_event_pid: `echo $$ > set_event_pid` records events of the shell
  only (its children's syscalls are not recorded), `>>` adds, a pid that
  is no process is refused and changes nothing, `echo > set_event_pid`
  empties it;
- set_ftrace_pid: the function graph of the shell only;
- max_graph_depth: `echo 2 > max_graph_depth` records calls at depth 0
  and 1 only;
- set_graph_notrace: `echo 'sys_*' > set_graph_notrace` records no
  syscall function nor anything one calls (ns_open);
- set_ftrace_notrace: `echo sys_read > set_ftrace_notrace` records no
  sys_read, and what it calls still;
and in every phase the graph's entries and exits still pair per thread;
- the enable_event trigger (events.rst section 6): a target armed
  soft-off by a trigger whose `if` never holds records nothing, and is
  off again once `!` removes the trigger; `enable_event:...:1` starts
  sched_switch records at the first syscall_enter and fires once
  (count=0); unknown events and bad counts are refused, logged in
  error_log, and change nothing; `disable_event:...:1` stops an enabled
  sched_switch, and its removal leaves it enabled and recording;
  `traceon` on sched_switch undoes a `traceoff` trigger's freeze
  (tracing_on reads 1 again, a later marker is in the trace).
"""
import re

from ttrace_tests import (Session, fresh_out, ttdecode, DEFAULT_EVENTS,
                          FUNC_LINE, thread_of, func_step)
from seams_tracefs31a import Shell, expect

T = "/dev/ttrace/"
LINE = re.compile(r"^\S+ us cpu\d+ (\S+) (\w+): (.*)$")


def pid_files(sh):
    """set_event_pid and set_ftrace_pid in the tree; returns the shell's
    pid. Between the markers the children (ls, cat) run while only the
    shell is listed."""
    pid = sh.ok("echo $$").strip()
    expect(pid.isdigit(), "echo $$ printed %r" % pid)
    sh.ok("echo 0 > %sevents/enable; echo 1 > %sevents/syscall/enable; "
          "echo 1 > %sevents/user/enable" % (T, T, T))
    sh.ok("echo tfs-pid-on > %strace_marker" % T)
    sh.ok("echo $$ > /dev/ttrace/set_event_pid")
    expect(sh.ok("cat %sset_event_pid" % T).split() == [pid],
           "set_event_pid does not list the shell")
    sh.ok("ls /bin > /dev/null; cat /dev/ttrace/README > /dev/null")
    sh.ok("echo $$ >> /dev/ttrace/set_event_pid")
    out = sh.refused("echo 99999 >> %sset_event_pid" % T)
    expect("no such process" in out, "refusal: " + out)
    sh.refused("echo 1x >> %sset_event_pid" % T)
    expect(sh.ok("cat %sset_event_pid" % T).split() == [pid],
           "a refused write changed set_event_pid")
    expect("no such process" in sh.ok("cat %serror_log" % T),
           "error_log lacks the refusal")
    sh.ok("echo > %sset_event_pid" % T)
    sh.ok("echo tfs-pid-off > %strace_marker" % T)
    expect(sh.ok("cat %sset_event_pid" % T).strip() == "",
           "echo > set_event_pid left pids")
    sh.ok("echo 0 > %sevents/syscall/enable" % T)
    expect(sh.ok("cat %sset_ftrace_pid" % T).strip() == "no pid",
           "set_ftrace_pid empty")
    sh.ok("echo $$ > /dev/ttrace/set_ftrace_pid")
    expect(sh.ok("cat %sset_ftrace_pid" % T).split() == [pid],
           "set_ftrace_pid does not list the shell")
    return pid


def graph_phase(sh, name, setup, undo):
    """One phase of the function graph of the shell: setup, a few
    commands, undo, between markers tfs-NAME-on and tfs-NAME-off."""
    sh.ok("echo tfs-%s-on > %strace_marker" % (name, T))
    sh.ok(setup)
    sh.ok("echo function_graph > %scurrent_tracer" % T)
    sh.ok("ls / > /dev/null; cat /dev/ttrace/README > /dev/null")
    sh.ok("echo nop > %scurrent_tracer" % T)
    sh.ok(undo)
    sh.ok("echo tfs-%s-off > %strace_marker" % (name, T))


def graph_files(sh):
    """max_graph_depth, set_graph_notrace, set_ftrace_notrace."""
    graph_phase(sh, "depth", "echo 2 > /dev/ttrace/max_graph_depth",
                "echo 0 > %smax_graph_depth" % T)
    sh.ok("echo 3 > %smax_graph_depth" % T)
    expect(sh.ok("cat %smax_graph_depth" % T).strip() == "3", "depth")
    sh.ok("echo 0 > %smax_graph_depth" % T)
    sh.refused("echo -1 > %smax_graph_depth" % T)
    graph_phase(sh, "gnotrace", "echo 'sys_*' > /dev/ttrace/set_graph_notrace",
                "echo > %sset_graph_notrace" % T)
    sh.ok("echo 'sys_open*' > %sset_graph_notrace" % T)
    listed = sh.ok("cat %sset_graph_notrace" % T).split()
    expect("sys_open" in listed and all(f.startswith("sys_open")
                                        for f in listed),
           "set_graph_notrace lists %s" % listed)
    out = sh.refused("echo 'sys_open* no_such_fn' >> %sset_graph_notrace" % T)
    expect("matches no function" in out, "refusal: " + out)
    expect(sh.ok("cat %sset_graph_notrace" % T).split() == listed,
           "a refused write changed set_graph_notrace")
    sh.ok("echo > %sset_graph_notrace" % T)
    expect(sh.ok("cat %sset_graph_notrace" % T).strip() == "", "emptied")
    selected = int(re.search(r"selected (\d+)", sh.ok("cat %sfuncs" % T))
                   .group(1))
    graph_phase(sh, "notrace", "echo sys_read > /dev/ttrace/set_ftrace_notrace",
                "true")
    expect(sh.ok("cat %sset_ftrace_notrace" % T).split() == ["sys_read"],
           "set_ftrace_notrace")
    now = int(re.search(r"selected (\d+)", sh.ok("cat %sfuncs" % T))
              .group(1))
    expect(now == selected - 1, "funcs selected %d, was %d" % (now, selected))
    sh.ok("echo > %sset_ftrace_notrace; echo > %sset_ftrace_pid" % (T, T))
    expect(sh.ok("cat %sset_ftrace_pid" % T).strip() == "no pid",
           "echo > set_ftrace_pid")


def trigger_files(sh):
    """The enable_event trigger on syscall_enter, sched_switch its
    target, in phases gate (armed, soft-off), once and after (removed)."""
    trig = T + "events/syscall/syscall_enter/trigger"
    switch = T + "events/sched/sched_switch/enable"
    sh.ok("echo 1 > %sevents/syscall/syscall_enter/enable" % T)
    expect(sh.ok("cat " + switch).strip() == "0", "sched_switch on")
    sh.ok("echo tfs-gate-on > %strace_marker" % T)
    sh.ok("echo 'enable_event:sched:sched_switch if a0 == 123456789' > "
          "/dev/ttrace/events/syscall/syscall_enter/trigger")
    expect(sh.ok("cat " + switch).strip() == "1", "target not armed")
    sh.ok("ls /bin > /dev/null")
    listed = sh.ok("cat " + trig)
    expect("enable_event:sched:sched_switch:unlimited if a0 == 123456789"
           in listed, "trigger lists " + listed)
    sh.ok("echo '!enable_event:sched:sched_switch' > "
          "/dev/ttrace/events/syscall/syscall_enter/trigger")
    expect(sh.ok("cat " + switch).strip() == "0", "removal left it armed")
    sh.ok("echo tfs-gate-off > %strace_marker" % T)
    sh.ok("echo tfs-once-on > %strace_marker" % T)
    sh.ok("echo 'enable_event:sched:sched_switch:1' > "
          "/dev/ttrace/events/syscall/syscall_enter/trigger")
    sh.ok("ls /bin > /dev/null")
    listed = sh.ok("cat " + trig)
    expect("enable_event:sched:sched_switch:count=0\n" in listed,
           "trigger lists " + listed)
    out = sh.refused("echo 'enable_event:sched:no_such' >> " + trig)
    expect("no such event" in out, "refusal: " + out)
    out = sh.refused("echo 'disable_event:sched:sched_switch:x' >> " + trig)
    expect("count" in out, "refusal: " + out)
    expect(sh.ok("cat " + trig) == listed, "a refusal changed the trigger")
    expect("no such event" in sh.ok("cat %serror_log" % T),
           "error_log lacks the refusal")
    sh.ok("echo tfs-once-off > %strace_marker" % T)
    sh.ok("echo '!enable_event:sched:sched_switch:1' > "
          "/dev/ttrace/events/syscall/syscall_enter/trigger")
    expect(sh.ok("cat " + switch).strip() == "0", "removal left it armed")
    expect("enable_event:" not in sh.ok("cat " + trig), "not removed")
    sh.ok("echo tfs-after-on > %strace_marker" % T)
    sh.ok("ls /bin > /dev/null")
    sh.ok("echo tfs-after-off > %strace_marker" % T)
    sh.ok("echo 1 > " + switch)
    sh.ok("echo 'disable_event:sched:sched_switch:1' > "
          "/dev/ttrace/events/syscall/syscall_enter/trigger")
    expect("disable_event:sched:sched_switch:count=0\n" in
           sh.ok("cat " + trig), "disable_event did not fire")
    sh.ok("echo tfs-dis-on > %strace_marker" % T)
    sh.ok("ls /bin > /dev/null")
    sh.ok("echo tfs-dis-off > %strace_marker" % T)
    sh.ok("echo '!disable_event:sched:sched_switch:1' > " + trig)
    expect(sh.ok("cat " + switch).strip() == "1", "removal disabled it")
    sh.ok("echo tfs-undis-on > %strace_marker" % T)
    sh.ok("ls /bin > /dev/null")
    sh.ok("echo tfs-undis-off > %strace_marker" % T)
    sh.ok("echo 0 > " + switch)
    sh.ok("echo traceon > /dev/ttrace/events/sched/sched_switch/trigger")
    expect("traceon:unlimited\n" in
           sh.ok("cat %sevents/sched/sched_switch/trigger" % T),
           "traceon not listed")
    # traceoff fires on every syscall_exit while tracing is on (ftrace's):
    # :1 makes the traceon after it the last word
    sh.ok("echo traceoff:1 > /dev/ttrace/events/syscall/syscall_exit/trigger")
    hits = re.search(r"t\.syscall_exit\.traceoff[^\n]*\n\s+hits (\d+)",
                     sh.ok("cat %sprobes" % T))
    expect(hits and int(hits.group(1)) > 0, "traceoff did not fire")
    expect(sh.ok("cat %stracing_on" % T).strip() == "1",
           "traceon did not undo traceoff")
    sh.ok("echo tfs-traceon-mark > %strace_marker" % T)
    sh.ok("echo '!traceoff' > %sevents/syscall/syscall_exit/trigger; "
          "echo '!traceon' > %sevents/sched/sched_switch/trigger" % (T, T))
    expect("traceon:" not in
           sh.ok("cat %sevents/sched/sched_switch/trigger" % T),
           "traceon not removed")


def check_triggers(text):
    """The trigger phases in the saved trace."""
    events = {}
    for name in ("gate", "once", "after", "dis", "undis"):
        lines = phase(text, name)
        if lines is None:
            return "no tfs-%s markers in the trace" % name
        events[name] = [m.group(2) for m in map(LINE.match, lines) if m]
    if "sched_switch" in events["gate"] + events["after"] + events["dis"]:
        return "sched_switch while soft-off or removed"
    once = events["once"]
    if "sched_switch" not in once:
        return "no sched_switch after enable_event:sched:sched_switch:1"
    if "syscall_enter" not in once[:once.index("sched_switch")]:
        return "sched_switch before any syscall_enter"
    if "sched_switch" not in events["undis"]:
        return "no sched_switch once disable_event was removed"
    if "tfs-traceon-mark" not in text:
        return "nothing recorded after traceoff then traceon"
    return ""


def phase(text, name):
    """The lines of text between markers tfs-NAME-on and tfs-NAME-off."""
    m = re.search(r"tfs-%s-on\n(.*?)\n[^\n]*tfs-%s-off" % (name, name),
                  text, re.S)
    return m.group(1).splitlines() if m else None


def calls(lines, pid):
    """The func_entry matches of lines; checks that every call made in a
    process's context is pid's, and that its entries and exits pair (an
    interrupt's calls nest on the thread it interrupted, and pair among
    themselves). Returns (why, entries)."""
    stack, entries = [None], []
    for line in lines:
        m = FUNC_LINE.match(line)
        if not m:
            continue
        if m.group(3) == "func_entry":
            entries.append(m)
        key = thread_of(m.group(2), 0, {})
        if not key.startswith("pid"):
            continue
        if key != "pid" + pid:
            return "a call of %s, set_ftrace_pid %s: %s" % (key, pid,
                                                            line), []
        why = func_step(stack, m)
        if why:
            return "%s: %s" % (why, line), []
    return "", entries


def check_trace(text, pid):
    """Each phase's effect in the saved trace."""
    lines = phase(text, "pid")
    if lines is None:
        return "no tfs-pid markers in the trace"
    comms = set()
    for line in lines:
        m = LINE.match(line)
        c = m and re.match(r"(?:sys|trap):([^\[]*)\[(\d+)\]", m.group(1))
        if c and m.group(2).startswith("syscall_"):
            comms.add("shell" if c.group(2) == pid else c.group(1))
    comms.discard("echo")   # the ones that changed the list, around it
    if comms != {"shell"}:
        return "syscalls of %s under set_event_pid %s" % (comms, pid)
    for name, test in (
            ("depth", lambda fs: all(int(f.group(6)) < 2 for f in fs) and
             any(f.group(6) == "1" for f in fs)),
            ("gnotrace", lambda fs: not any(
                f.group(5).startswith("sys_") or f.group(5) == "ns_open"
                for f in fs)),
            ("notrace", lambda fs: "sys_read" not in {f.group(5) for f in fs}
             and "sys_write" in {f.group(5) for f in fs})):
        lines = phase(text, name)
        if lines is None:
            return "no tfs-%s markers in the trace" % name
        why, entries = calls(lines, pid)
        if why:
            return "%s: %s" % (name, why)
        if not entries or not test(entries):
            return "%s: calls %s" % (name, sorted({
                (f.group(5), f.group(6)) for f in entries})[:40])
    return ""


def narrow_session(out):
    s = Session(2, hostout=out, timeout=900, cmdline=DEFAULT_EVENTS,
                name="tfs31c")
    try:
        sh = Shell(s)
        sh.ok("echo 4096 > %sbuffer_size_kb" % T)
        pid = pid_files(sh)
        graph_files(sh)
        trigger_files(sh)
        sh.ok("ttrace save /dev/host/out", 300)
    except (TimeoutError, AssertionError) as e:
        return s.finish(str(e)), None
    return s.finish(""), pid


def narrow():
    out = fresh_out("tfs31c.ttr")
    why, pid = narrow_session(out)
    if why:
        return why
    text = ttdecode("text", out).stdout
    return check_trace(text, pid) or check_triggers(text)


def run_all(res, only):
    if not only or only in "seams_tfs31c":
        why = narrow()
        res.add("seams_tfs31c", not why, why)
