"""ftrace's habits under /dev/ttrace (docs/tracefs.md): one boot types the
issue's recipes and Linux's Documentation/trace ones verbatim at the
shell, and checks each one's effect through the tree, through the files
that were there before (ctl, events, probes, funcs, latency) and through
the saved trace file (`ttdecode text`), not only that the write
succeeded.

- ctl and the tree are two doors to one room: the same configuration
  written through ctl and through events/*/enable gives the same
  `cat /dev/ttrace/events`.
- the recipes: sched_switch enable + head -n 20 trace; a common_pid
  filter; function_graph + set_graph_function 'sys_*'; the hist trigger
  and its hist; irqsoff + tracing_max_latency; per_cpu/cpu0/stats.
- about twenty more: set_event with >> and !, set_event truncation,
  available_events, id, tracing_on, a traceoff trigger, buffer_size_kb
  (and a refused size), trace_clock, trace_options and options/,
  trace_marker, echo > trace, trace_pipe consumed by two heads and ended
  by ^C, refused filters that change nothing, filter 0, a trigger
  removed with !, the events/GROUP/enable X state, the function graph's
  text, available_filter_functions, saved_cmdlines, dropcap on the tree.
"""
import re

from ttrace_tests import Session, fresh_out, ttdecode, DEFAULT_EVENTS

T = "/dev/ttrace/"


class Shell:
    """Runs shell lines in s, each ending with a marker that carries $?."""

    def __init__(self, s):
        self.s = s
        self.prompted = False   # the prompt was taken already

    def __call__(self, line, timeout=120):
        """Types line at the next prompt; returns (its output, status)."""
        if not self.prompted:
            self.s.run.expect(r"\$ ", timeout=300)
        self.prompted = False
        self.s.run.send(line + '; echo @@EN""D@@ $?\r')
        m = self.s.run.expect(r"(?s)\n(.*?)@@END@@ (\d+)\n", timeout=timeout)
        out = m.group(1).decode(errors="replace")
        echo = out.find('@@EN""D@@ $?\n')    # the typed line's echo
        return out[echo + 13:] if echo >= 0 else out, int(m.group(2))

    def ok(self, line, timeout=120):
        """Types line; returns its output; raises if it failed."""
        out, st = self(line, timeout)
        if st:
            raise AssertionError("%r: status %d: %s" % (line, st, out))
        return out

    def refused(self, line):
        """Types a line that must fail; returns its output."""
        out, st = self(line)
        if not st:
            raise AssertionError("%r succeeded, want a refusal" % line)
        return out


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def lines_of(text):
    return [l for l in text.splitlines() if l]


def two_doors(sh):
    """The same configuration through ctl and through the tree gives the
    same events listing."""
    sh.ok("echo disable '*' > %sctl" % T)
    sh.ok("echo enable sched sched_switch > %sctl" % T)
    sh.ok("echo enable syscall syscall_enter syscall_exit > %sctl" % T)
    by_ctl = sh.ok("cat %sevents" % T)
    sh.ok("echo enable '*' > %sctl" % T)
    sh.ok("echo 0 > %sevents/enable" % T)
    sh.ok("echo 1 > %sevents/sched/sched_switch/enable" % T)
    sh.ok("echo 1 > %sevents/syscall/enable" % T)
    by_tree = sh.ok("cat %sevents" % T)
    expect(lines_of(by_ctl) == lines_of(by_tree),
           "events after ctl:\n%s\nafter the tree:\n%s" % (by_ctl, by_tree))
    expect("event sched_switch sched on armed" in by_tree,
           "sched_switch not armed by the tree:\n" + by_tree)


def events_recipes(sh):
    """enable, set_event, available_events, id, group state."""
    avail = sh.ok("cat %savailable_events" % T)
    expect("sched:sched_switch" in avail and "syscall:syscall_enter" in avail,
           "available_events:\n" + avail)
    expect(re.match(r"\s*\d+\s*$", sh.ok(
        "cat %sevents/sched/sched_switch/id" % T)), "id is no number")
    sh.ok("echo 0 > %sevents/enable" % T)
    expect(sh.ok("cat %sset_event" % T).strip() == "", "set_event not empty")
    sh.ok("echo 'sched:*' >> %sset_event" % T)
    sh.ok("echo 'syscall:syscall_enter' >> %sset_event" % T)
    got = sorted(lines_of(sh.ok("cat %sset_event" % T)))
    expect("sched:sched_switch" in got and "syscall:syscall_enter" in got
           and "syscall:syscall_exit" not in got, "set_event: %s" % got)
    expect(sh.ok("cat %sevents/syscall/enable" % T).strip() == "X",
           "events/syscall/enable with one of two events is not X")
    expect("event syscall_exit syscall off" in sh.ok("cat %sevents" % T),
           "ctl's events does not show syscall_exit off")
    sh.ok("echo '!sched:*' >> %sset_event" % T)
    got = lines_of(sh.ok("cat %sset_event" % T))
    expect(got == ["syscall:syscall_enter"], "after !sched:* set_event: %s"
           % got)
    sh.ok("echo sched_switch > %sset_event" % T)   # > empties it first
    got = lines_of(sh.ok("cat %sset_event" % T))
    expect(got == ["sched:sched_switch"], "after > set_event: %s" % got)
    sh.refused("echo nosuchevent >> %sset_event" % T)
    expect(lines_of(sh.ok("cat %sset_event" % T)) == ["sched:sched_switch"],
           "a refused set_event changed it")


def trace_recipes(sh):
    """The first recipe, echo > trace, the marker, tracing_on, the header."""
    sh.ok("echo 0 > %sevents/enable" % T)
    sh.ok("echo > %strace" % T)
    head = sh.ok("head -n 20 %strace" % T)
    expect(re.search(r"# entries-in-buffer/entries-written: \d+/\d+   #P:2\n",
                     head) and "sched_switch" not in head,
           "trace after echo > trace:\n" + head)
    out = sh.ok("echo 1 > /dev/ttrace/events/sched/sched_switch/enable; "
                "ls /bin > /dev/null; head -n 20 /dev/ttrace/trace")
    expect(out.startswith("# tracer: nop\n#\n# entries-in-buffer/"),
           "trace's header:\n" + out)
    ev = [l for l in out.splitlines() if not l.startswith("#")]
    expect(ev and all(re.match(r"\s*\S+-\d+\s+\[00[01]\] [.d][.N][.h]\.{2} "
                               r"\s*\d+\.\d{6}: sched_switch: ", l)
                      for l in ev), "trace's lines:\n" + out)
    sh.ok("echo 1 > %sevents/user/enable" % T)
    sh.ok("echo tfs-hello > %strace_marker" % T)
    expect("tfs-hello" in sh.ok("grep tfs-hello %strace" % T),
           "the marker is not in trace")
    sh.ok("echo 0 > %stracing_on" % T)
    expect(sh.ok("cat %stracing_on" % T).strip() == "0", "tracing_on not 0")
    expect("mask 0x0\n" in sh.ok("cat %sctl" % T), "ctl's mask not 0")
    sh.ok("echo tfs-off > %strace_marker" % T)
    sh.ok("echo 1 > %stracing_on" % T)
    expect("mask 0x410" in sh.ok("cat %sctl" % T), "tracing_on 1: mask")
    expect(sh("grep -c tfs-off %strace" % T)[0].strip() == "0",
           "a marker written with tracing_on 0 was recorded")


def pipe_recipes(sh):
    """trace_pipe consumes: a second head reads the next marker, not the
    first again; cat of it blocks until ^C."""
    sh.ok("echo 0 > %sevents/enable; echo 1 > %sevents/user/enable; "
          "echo > %strace" % (T, T, T))
    seen = []
    for i in (1, 2):
        sh.ok("echo tfs-pipe-%d > %strace_marker" % (i, T))
        line = sh.ok("head -n 1 %strace_pipe" % T, 180)
        seen.append(re.findall(r"tfs-pipe-\d", line))
    expect(seen == [["tfs-pipe-1"], ["tfs-pipe-2"]],
           "trace_pipe twice: %s" % seen)
    s = sh.s
    s.run.expect(r"\$ ", timeout=60)
    s.run.send("cat %strace_pipe\r" % T)
    s.run.expect(r"cat /dev/ttrace/trace_pipe\n", timeout=60)
    for _ in range(30):     # until cat is the foreground process ^C kills
        s.run.send("\x03")
        try:
            s.run.expect(r"\^C\n(?:.*\n)?\$ ", timeout=2)
            sh.prompted = True
            break
        except TimeoutError:
            pass
    sh.ok("echo back")
    read = sum(int(re.search(r"read events: (\d+)", sh.ok(
        "cat %sper_cpu/cpu%d/stats" % (T, c))).group(1)) for c in (0, 1))
    expect(read >= 2, "stats' read events: %d after two lines" % read)


def filter_trigger_recipes(sh):
    """The filter and hist recipes, a traceoff trigger, refusals."""
    sh.ok("echo 'common_pid == 1' > /dev/ttrace/events/syscall/filter")
    probes = sh.ok("cat %sprobes | grep probe" % T)
    expect("probe f.syscall_enter filter syscall_enter pid==1" in probes and
           "probe f.syscall_exit filter syscall_exit pid==1" in probes,
           "the group filter's probes:\n" + probes)
    for bad in ("common_pid = 1", "comm ~ \"sh*\""):
        sh.refused("echo '%s' > %sevents/syscall/filter" % (bad, T))
    expect(sh.ok("cat %sprobes | grep probe" % T) == probes,
           "a refused filter changed the probes")
    sh.ok("echo 'hist:keys=common_pid:vals=hitcount:sort=hitcount.descending'"
          " > /dev/ttrace/events/syscall/syscall_enter/trigger")
    sh.ok("ls /bin > /dev/null")
    hist = sh.ok("cat /dev/ttrace/events/syscall/syscall_enter/hist")
    m = re.search(r"\{ common_pid:\s+(\d+) \} hitcount:\s+(\d+)", hist)
    pids = re.findall(r"\{ common_pid:\s+(\d+) \}", hist)
    expect(hist.startswith("# event histogram\n") and m and "1" in pids
           and len(pids) > 1 and "Totals:\n    Hits: " in hist,
           "hist (the shell, pid 1, and ls):\n" + hist)
    sh.ok("echo '!hist:keys=common_pid' > "
          "%sevents/syscall/syscall_enter/trigger" % T)
    expect("h.syscall_enter" not in sh.ok("cat %sprobes" % T),
           "! did not remove the hist trigger")
    sh.ok("echo 0 > %sevents/syscall/filter" % T)
    expect("f.syscall" not in sh.ok("cat %sprobes" % T), "filter 0 kept it")
    sh.refused("echo traceon:0 > %sevents/user/user_marker/trigger" % T)
    sh.ok("echo traceoff > %sevents/user/user_marker/trigger" % T)
    sh.ok("echo 1 > %sevents/user/enable" % T)
    sh.ok("echo stop-here > %strace_marker" % T)
    expect(sh.ok("cat %stracing_on" % T).strip() == "0",
           "the traceoff trigger did not stop tracing")
    sh.ok("echo '!traceoff' > %sevents/user/user_marker/trigger" % T)
    sh.ok("echo 1 > %stracing_on" % T)
    expect(sh.ok("cat %stracing_on" % T).strip() == "1", "tracing_on 1")
    trigger_counts(sh)


def trigger_counts(sh):
    """TRIGGER:N acts N times: traceoff:2 freezes at the first two markers
    after each restart, not the third; stacktrace:2 chains two."""
    trig = "%sevents/user/user_marker/trigger" % T
    sh.ok("echo 'traceoff:2' > " + trig)
    for n in (1, 2, 3):
        sh.ok("echo count-%d > %strace_marker" % (n, T))
        on = sh.ok("cat %stracing_on" % T).strip()
        expect(on == ("1" if n == 3 else "0"),
               "traceoff:2, marker %d: tracing_on %s" % (n, on))
        # each marker is recorded: `echo 1 > tracing_on` thawed the rings
        # a stop froze (they stayed frozen, losing records silently)
        got = sh("grep -c count-%d %strace" % (n, T))[0].strip()
        expect(got == "1", "marker count-%d recorded %s times" % (n, got))
        sh.ok("echo 1 > %stracing_on" % T)
    fired = re.search(r"t\.user_marker\.traceoff stop user_marker times 2"
                      r"\s+hits (\d+)[^\n]* fired (\d+)",
                      sh.ok("cat %sprobes" % T))
    expect(fired and fired.group(2) == "2",
           "traceoff:2's probe: %s" % (fired and fired.group(0)))
    sh.ok("echo '!traceoff' > " + trig)
    sh.refused("echo 'traceoff:0' > " + trig)
    sh.refused("echo 'snapshot:2' > " + trig)
    sh.ok("echo 1 > %sevents/stack/enable" % T)
    sh.ok("echo 'stacktrace:2' > " + trig)
    sh.ok("echo > %strace" % T)
    for n in range(4):
        sh.ok("echo chain-%d > %strace_marker" % (n, T))
    stacks = sh("grep -c ' stack: ' %strace" % T)[0].strip()
    sh.ok("echo '!stacktrace' > " + trig)
    expect(stacks == "2", "stacktrace:2 after 4 markers: %s chains" % stacks)


def tracer_recipes(sh):
    """function_graph, irqsoff, their files."""
    expect("function_graph" in sh.ok("cat %savailable_tracers" % T),
           "available_tracers")
    sh.ok("echo function_graph > /dev/ttrace/current_tracer; "
          "echo 'sys_*' > /dev/ttrace/set_graph_function")
    expect(sh.ok("cat %scurrent_tracer" % T).strip() == "function_graph",
           "current_tracer")
    expect("filter sys_*" in sh.ok("cat %sfuncs" % T), "funcs' filter")
    sh.ok("echo > %strace; ls /bin > /dev/null" % T)
    fn = sh.ok("head -n 12 %strace" % T)
    expect(fn.startswith("# tracer: function_graph\n#\n# CPU  DURATION") and
           re.search(r"^ ?\d\) .*\|\s+sys_\w+\(\)(?: \{|;)$", fn, re.M),
           "trace as a function graph:\n" + fn)
    calls = re.findall(r"^ ?\d\) [^/]*\|\s+(\w+)\(\)", sh.ok(
        "head -n 40 %strace" % T), re.M)
    expect(calls and all(c.startswith("sys_") for c in calls),
           "functions set_graph_function did not select: %s" % calls)
    sh.ok("echo nop > %scurrent_tracer" % T)
    expect("func:" not in sh.ok("cat %sset_event" % T), "nop left func on")
    sh.ok("echo '*' > %sset_graph_function" % T)
    sh.ok("echo irqsoff > /dev/ttrace/current_tracer; "
          "cat /dev/ttrace/tracing_max_latency")
    expect(re.match(r"\s*\d+\s*$", sh.ok("cat %stracing_max_latency" % T)),
           "tracing_max_latency")
    lat = sh.ok("cat %slatency | grep irqsoff" % T)
    expect(re.search(r"irqsoff.*\bon\b", lat), "latency: " + lat)
    sh.ok("echo 50 > %stracing_thresh" % T)
    expect(sh.ok("cat %stracing_thresh" % T).strip() == "50", "thresh")
    sh.ok("echo 0 > %stracing_max_latency" % T)
    sh.refused("echo 7 > %stracing_max_latency" % T)
    sh.ok("echo nop > %scurrent_tracer" % T)
    expect(sh.ok("cat %scurrent_tracer" % T).strip() == "nop", "nop")
    sh.refused("echo blk > %scurrent_tracer" % T)


def buffer_recipes(sh):
    """per_cpu stats, buffer sizes, clock, options."""
    stats = sh.ok("cat /dev/ttrace/per_cpu/cpu0/stats")
    keys = [l.split(":")[0] for l in lines_of(stats)]
    expect(keys == ["entries", "overrun", "commit overrun", "bytes",
                    "oldest event ts", "now ts", "dropped events",
                    "read events"], "per_cpu/cpu0/stats:\n" + stats)
    kb = int(sh.ok("cat %sbuffer_size_kb" % T))
    sh.ok("echo %d > %sbuffer_size_kb" % (kb * 2, T))
    expect("bufsize %d\n" % (kb * 2) in sh.ok("cat %sctl" % T), "bufsize")
    expect(int(sh.ok("cat %sbuffer_total_size_kb" % T)) == kb * 4, "total")
    expect(int(sh.ok("cat %sper_cpu/cpu1/buffer_size_kb" % T)) == kb * 2,
           "per_cpu buffer_size_kb")
    sh.refused("echo 100 > %sbuffer_size_kb" % T)
    expect(int(sh.ok("cat %sbuffer_size_kb" % T)) == kb * 2, "a refused "
           "size changed the rings")
    sh.ok("echo %d > %sbuffer_size_kb" % (kb, T))
    expect(sh.ok("cat %strace_clock" % T).strip() == "[x86-tsc]", "clock")
    sh.refused("echo global > %strace_clock" % T)
    sh.ok("echo nofuncgraph-duration > %strace_options" % T)
    expect(sh.ok("cat %soptions/funcgraph-duration" % T).strip() == "0",
           "options/ does not follow trace_options")
    sh.ok("echo -n 1 > %soptions/funcgraph-duration" % T)
    expect("\nfuncgraph-duration" in sh.ok("cat %strace_options" % T),
           "trace_options does not follow options/")
    sh.refused("echo nosuchoption > %strace_options" % T)
    # (not printed whole: names like panic_at would read as a panic)
    funcs = lines_of(sh.ok("grep _open %savailable_filter_functions" % T))
    count = int(re.search(r"\d+", sh.ok(
        "cat %savailable_filter_functions | wc -l" % T)).group(0))
    expect("sys_open" in funcs and "ns_open" in funcs and count > 100,
           "available_filter_functions: %d names, %s" % (count, funcs))
    expect("1 sh" in lines_of(sh.ok("cat %ssaved_cmdlines" % T)),
           "saved_cmdlines lacks the shell")
    readme = sh.ok("cat %sREADME" % T)
    expect("set_event" in readme and "trace_pipe" in readme, "README")
    out, st = sh("dropcap trace cat %strace" % T)
    expect(st and "not permitted" in out, "dropcap read trace: %s" % out)


def filter_expr_recipes(sh):
    """events.rst's filters: || with && binding tighter, parentheses, ~
    globs on a marker's text; hostile ones refused, changing nothing.
    Leaves the filters on for the saved trace (check_filter_expr)."""
    ev = T + "events/"
    probes = sh.ok("cat %sprobes | grep probe" % T)
    for bad in ("common_pid == 1 ||", "(common_pid == 1",
                "(((((common_pid == 1)))))", "ret ~ \"1*\"",
                " || ".join(["common_pid == %d" % i for i in range(9)])):
        sh.refused("echo '%s' > %ssyscall/syscall_exit/filter" % (bad, ev))
    sh.refused("echo 'marker ~ \"keep*' > %suser/user_marker/filter" % ev)
    expect(sh.ok("cat %sprobes | grep probe" % T) == probes,
           "a refused filter changed the probes")
    log = sh.ok("cat %serror_log" % T)
    expect("'~' needs a text field" in log and "unterminated" in log,
           "error_log:\n" + log)
    # every process from now on has a pid above ps's
    last = max(int(l.split()[0]) for l in lines_of(sh.ok("ps"))
               if l.split()[0].isdigit())
    sh.ok("echo 'common_pid == 1 || common_pid > %d && ret < 0' > "
          "%ssyscall/syscall_exit/filter" % (last, ev))
    sh.ok("echo 'marker ~ \"keep*\" || (marker ~ \"*[0-9]-too\" && "
          "common_cpu < 64)' > %suser/user_marker/filter" % ev)
    text = sh.ok("cat %suser/user_marker/filter" % ev)
    expect("filter user_marker marker~\"keep*\" || marker~\"*[0-9]-too\" "
           "&& cpu<0x40\n" in text, "the marker filter's text: " + text)
    sh.ok("echo keep-or > %strace_marker" % T)
    sh("ls /no/such/dir")
    for m in ("drop-1", "5-too", "x-too", "keep-2"):
        sh.ok("echo %s > %strace_marker" % (m, T))
    return last


def check_filter_expr(after, last):
    """The saved trace after tfs-saved (common_pid == 1 on syscall_exit,
    then `common_pid == 1 || common_pid > last && ret < 0`): the markers
    the ~ filter keeps; the syscall_exit records both filters keep, and
    after keep-or both arms of || (pid 1's successes: && binds tighter)."""
    marks = re.findall(r"user_marker: (\S+)", after)
    if marks != ["keep-or", "5-too", "keep-2"]:
        return "markers under the ~ filter: %s" % marks
    exits = [(int(p), int(r)) for p, r in re.findall(
        r"sys:\S+\[(\d+)\]:\w+ syscall_exit: \S+ = (-?\d+)", after)]
    tail = [(int(p), int(r)) for p, r in re.findall(
        r"sys:\S+\[(\d+)\]:\w+ syscall_exit: \S+ = (-?\d+)",
        after.split("user_marker: keep-or", 1)[1])]
    bad = [e for e in exits if e[0] != 1 and not (e[0] > last and e[1] < 0)]
    if bad or not any(p == 1 and r >= 0 for p, r in tail) or \
       not any(p > last for p, r in tail):
        return "syscall_exit under the || filter (ps's pid %d): %s %s" % (
            last, bad[:10], tail[:40])
    return ""


def tracefs_session(out):
    s = Session(2, hostout=out, timeout=900, cmdline=DEFAULT_EVENTS,
                name="tracefs31a")
    try:
        sh = Shell(s)
        listing = sh.ok("ls %s" % T)
        for f in ("ctl", "trace.ttr", "trace", "trace_pipe", "events",
                  "set_event", "per_cpu", "current_tracer"):
            expect(f + "\n" in listing, "ls /dev/ttrace lacks " + f)
        two_doors(sh)
        events_recipes(sh)
        trace_recipes(sh)
        pipe_recipes(sh)
        filter_trigger_recipes(sh)
        tracer_recipes(sh)
        buffer_recipes(sh)
        # the saved trace: only what the tree asked for, the filter's pid
        sh.ok("echo 0 > %sevents/enable; echo > %strace" % (T, T))
        sh.ok("echo 1 > %sevents/sched/sched_switch/enable" % T)
        sh.ok("echo 'syscall:*' 'user:*' >> %sset_event" % T)
        sh.ok("echo 'common_pid == 1' > %sevents/syscall/filter" % T)
        sh.ok("echo tfs-saved > %strace_marker; ls /bin > /dev/null" % T)
        last = filter_expr_recipes(sh)
        sh.ok("ttrace save /dev/host/out", 300)
    except (TimeoutError, AssertionError) as e:
        return s.finish(str(e)), 0
    return s.finish(""), last


def tracefs():
    out = fresh_out("tracefs31a.ttr")
    why, last = tracefs_session(out)
    if why:
        return why
    text = ttdecode("text", out).stdout
    names = set(re.findall(r"^\S+ us cpu\d+ \S+ (\w+):", text, re.M))
    if not {"sched_switch", "syscall_enter", "user_marker"} <= names or \
       names - {"sched_switch", "syscall_enter", "syscall_exit",
                "user_marker"}:
        return "saved trace's events %s" % sorted(names)
    if "tfs-saved" not in text:
        return "the marker is not in the saved trace"
    after = text.split("tfs-saved", 1)[1]     # the filter was on by then
    pids = set(re.findall(r"sys:\S+\[(\d+)\]:\w+ syscall_enter", after))
    if pids != {"1"}:
        return "syscalls of pids %s under common_pid == 1" % pids
    return check_filter_expr(after, last)


def run_all(res, only):
    if not only or only in "seams_tracefs31a":
        why = tracefs()
        res.add("seams_tracefs31a", not why, why)
