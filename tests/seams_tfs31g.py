"""QEMU scenario of issue 31's last point (docs/tracefs.md, "format and
trace_pipe_raw"), one boot:
- tfs31g_format: every static event's events/GROUP/EVENT/format is
  byte for byte the format `ttdecode tracedat` writes for it in the
  trace.dat of a trace saved in the same boot (Linux's text for the events
  Linux has too, kern/trace/lib/ftrace_linux.c; the generic text for the
  others), and events/GROUP/EVENT/id is the ID that format names.
- tfs31g_pipe_raw: with the sched, proc, irq, user and syscall events
  recording, and the function graph of sys_close, every CPU's
  per_cpu/cpuN/trace_pipe_raw pages, read with
  the tree's format files by Debian's libtraceevent (tools/ttrawread),
  decode record for record: per CPU, per event, as many records as
  `ttdecode text` of the saved trace shows (Linux's names for the mapped
  ones), each sched_switch's prev_comm, prev_pid, prev_state, next_comm
  and next_pid (read by name, tep_get_field_raw/_val) those of the
  trace's own sched_switch at the same place, each funcgraph_exit's
  calltime the time of a funcgraph_entry before it on its CPU (or, its
  entry not in the pages, its own time) and its rettime its own, every
  record's time the text's to the ns (a page's first record's time was
  cut to its multiple of 256 ns, the page's others shifted with it:
  seqbuf_init's NUL over the page's timestamp)."""
import collections
import os
import re
import struct
import subprocess

import ttrace_tests as tt
import tracedat_check
from qemu_run import DEFAULT_EVENTS
from seams_tracefs31b import RAWREAD, until, status

T = "/dev/ttrace"
EVENTS_FILE = os.path.join(tt.ROOT, "kern", "trace", "ttrace.events")
RECORDING = ("sched", "proc", "irq", "user", "syscall")
# ours -> Linux's where the names differ (tracedat_check.LINUX reversed)
LINUX_NAME = {ours: linux for linux, ours in tracedat_check.LINUX.items()}
# Linux's prev_state for our state's name (ftrace_linux.c's fl_state)
STATE = {"sleeping": 1, "dead": 0x20}
PREEMPTED = 0x100


def static_events():
    """(group, event) of every event kern/trace/ttrace.events declares."""
    with open(EVENTS_FILE) as f:
        return re.findall(r"(?m)^(\w+) (\w+)\(", f.read())


def capture(s, events):
    """Records while a little work runs, frozen; the trace saved; every
    event's format and id, then each CPU's trace_pipe_raw. Returns the
    files' sizes."""
    setup = ["echo 0 > %s/events/enable" % T] + \
        ["echo 1 > %s/events/%s/enable" % (T, g) for g in RECORDING] + \
        ["echo sys_close > %s/set_graph_function" % T,
         "echo function_graph > %s/current_tracer" % T,
         "echo > %s/trace" % T,
         "ls /bin > /dev/null; echo g-mark > %s/trace_marker; "
         "cat /etc/motd > /dev/null" % T,
         "echo 0 > %s/tracing_on" % T,
         "cat %s/trace.ttr > /tmp/g.ttr" % T,
         "echo -n > /tmp/fmts"]
    for g in sorted({g for g, _ in events}):
        setup.append("cat %s >> /tmp/fmts" % " ".join(
            "%s/events/%s/%s/format %s/events/%s/%s/id" % (T, g, e, T, g, e)
            for gg, e in events if gg == g))
    for cmd in setup:
        out, st = status(s, cmd)
        if st:
            raise TimeoutError("%s: status %d %r" % (cmd, st, out))
    for cpu in (0, 1):          # tracing is off: each read ends
        out, st = status(s, "cat %s/per_cpu/cpu%d/trace_pipe_raw > "
                         "/tmp/raw%d" % (T, cpu, cpu))
        if st:
            raise TimeoutError("raw%d: status %d %r" % (cpu, st, out))
    files = ("/tmp/g.ttr", "/tmp/fmts", "/tmp/raw0", "/tmp/raw1")
    text = until(s, "ls -l %s" % " ".join(files), "ls")
    sizes = {f: int(n) for n, f in re.findall(r"(\d+) +(/tmp/\S+)", text)}
    if set(sizes) != set(files):
        raise TimeoutError("ls -l: %r" % text)
    until(s, "cat %s > /dev/host/out" % " ".join(files), "out")
    return [(f, sizes[f]) for f in files]


def split_out(out, sizes):
    """The files cat wrote to the host, each as out.NAME; their paths."""
    with open(out, "rb") as f:
        data = f.read()
    paths, off = {}, 0
    for name, n in sizes:
        paths[name] = out + "." + os.path.basename(name)
        with open(paths[name], "wb") as f:
            f.write(data[off:off + n])
        off += n
    return paths


def tracedat_formats(dat):
    """{name: format text} of every event format in the trace.dat dat
    (its header: man 5 trace-cmd.dat.v6)."""
    with open(dat, "rb") as f:
        d = f.read()
    at = 10
    at = d.index(b"\0", at) + 1 + 2 + 4     # version, endian, long, page
    for section in (b"header_page\0", b"header_event\0"):
        assert d[at:at + len(section)] == section, section
        at += len(section)
        at += 8 + struct.unpack_from("<Q", d, at)[0]
    formats = {}

    def read_formats(at):
        n, = struct.unpack_from("<I", d, at)
        at += 4
        for _ in range(n):
            size, = struct.unpack_from("<Q", d, at)
            text = d[at + 8:at + 8 + size].decode()
            formats[re.match(r"name: (\S+)\n", text).group(1)] = text
            at += 8 + size
        return at
    at = read_formats(at)                   # ftrace's
    nsys, = struct.unpack_from("<I", d, at)
    at += 4
    for _ in range(nsys):
        at = d.index(b"\0", at) + 1
        at = read_formats(at)
    return formats


def tree_formats(path, events):
    """[(group, event, format text, id)] of the tree's files, in the
    order capture() read them."""
    with open(path) as f:
        text = f.read()
    got = re.findall(r"(name: .*?\nprint fmt: .*?\n)(\d+)\n", text, re.S)
    order = [(g, e) for g in sorted({g for g, _ in events})
             for gg, e in events if gg == g]
    if len(got) != len(order):
        raise AssertionError("%d format+id pairs read, want %d" % (
            len(got), len(order)))
    return [(g, e, fmt, int(i)) for (g, e), (fmt, i) in zip(order, got)]


def check_formats(tree, dat):
    """Each tree format is trace.dat's for the same name, byte for byte;
    its id file says the ID it names."""
    formats = tracedat_formats(dat)
    mapped = 0
    for g, e, fmt, ident in tree:
        name = re.match(r"name: (\S+)\nID: (\d+)\n", fmt)
        if not name or int(name.group(2)) != ident:
            return "events/%s/%s: id %d, format's head %r" % (
                g, e, ident, fmt[:40])
        want = formats.get(name.group(1))
        if want is None:
            return "events/%s/%s: trace.dat has no format %s (it has %s)" \
                % (g, e, name.group(1), sorted(formats))
        if fmt != want:
            return "events/%s/%s/format differs from trace.dat's %s:\n" \
                "--- tree\n%s--- trace.dat\n%s" % (g, e, name.group(1),
                                                   fmt, want)
        mapped += name.group(1) != e
    print("# format: %d events' files equal trace.dat's, %d under Linux's "
          "own name" % (len(tree), mapped))
    return ""


def text_events(ttr):
    """Per CPU, the list of (event, args text, ns) of `ttdecode text`."""
    t = tt.ttdecode("text", ttr)
    per = collections.defaultdict(list)
    for line in t.stdout.split("\n"):
        m = re.match(r"^(\d+)\.(\d{3}) us cpu(\d+) \S+ (\w+): ?(.*)$",
                     line)
        if m:
            per[int(m.group(3))].append((m.group(4), m.group(5), int(
                m.group(1)) * 1000 + int(m.group(2))))
        elif re.search(r"records lost|-- cpu\d+: ", line):
            raise AssertionError("ttdecode text: a loss: " + line)
    return per


def linux_pid(v):
    return 0 if v >= 0x80000000 else v


def want_switch(args):
    """The ttrawread `switch` line a text sched_switch makes; comm is
    checked only for a named process (None)."""
    m = re.match(r"prev=(\S*) next=(\S*) prev_state=(\S+) prev_pid=(\d+) "
                 r"next_pid=(\d+)", args)
    if not m:
        raise AssertionError("sched_switch text: " + args)
    prev, nxt, state, pp, np_ = m.groups()
    return (None if prev.startswith("#") else prev[:15],
            linux_pid(int(pp)), STATE.get(state, PREEMPTED),
            None if nxt.startswith("#") else nxt[:15], linux_pid(int(np_)))


def check_calltimes(cpu, out):
    """Each funcgraph_exit's calltime is an earlier funcgraph_entry's time
    on the CPU, or its own (entry unknown); its rettime its own. Returns
    (why, exits whose entry was known)."""
    entries, known = set(), 0
    for ts, name, info in re.findall(r"(?m)^(\d+) (funcgraph_\w+): (.*)$",
                                     out):
        if name == "funcgraph_entry":
            entries.add(int(ts))
            continue
        m = re.search(r"\(start: ([0-9a-f]+)  end: ([0-9a-f]+)\)", info)
        if not m or int(m.group(2), 16) != int(ts) or \
                int(m.group(1), 16) not in entries | {int(ts)}:
            return "cpu%d: funcgraph_exit at %s: %s" % (cpu, ts, info), 0
        known += int(m.group(1), 16) in entries
    return "", known


def check_cpu(cpu, raw, fmts, events):
    """One CPU's pages: ttrawread decodes every record, its counts per
    event are the text's, its sched_switch fields the text's."""
    r = subprocess.run([RAWREAD, fmts, raw, str(cpu)], capture_output=True,
                       text=True, timeout=120)
    m = re.search(r"records (\d+) undecoded (\d+) missed (\d+)", r.stdout)
    if r.returncode or not m or m.group(2) != "0" or m.group(3) != "0":
        return "cpu%d: ttrawread:\n%s%s" % (cpu, r.stdout[-1500:],
                                            r.stderr[-500:])
    got = {k: int(n) for k, n in re.findall(r"count (\w+) (\d+)", r.stdout)}
    want = collections.Counter(LINUX_NAME.get(e, e) for e, _, _ in events)
    if got != dict(want):
        return "cpu%d: ttrawread counts %s, ttdecode text %s" % (
            cpu, sorted(got.items()), sorted(want.items()))
    switches = [tuple(x) for x in re.findall(
        r"(?m)^switch (\S+) (\d+) (\d+) (\S+) (\d+)$", r.stdout)]
    texts = [want_switch(a) for e, a, _ in events if e == "sched_switch"]
    if len(switches) != len(texts):
        return "cpu%d: %d switch lines for %d sched_switch" % (
            cpu, len(switches), len(texts))
    for (pc, pp, ps, nc, np_), w in zip(switches, texts):
        if (int(pp), int(ps), int(np_)) != (w[1], w[2], w[4]) or \
                (w[0] is not None and pc != w[0]) or \
                (w[3] is not None and nc != w[3]):
            return "cpu%d: sched_switch by name %s, the text's %s" % (
                cpu, (pc, pp, ps, nc, np_), w)
    why, known = check_calltimes(cpu, r.stdout)
    if why:
        return why
    last = 0
    for ts, (e, _, ns) in zip(re.findall(r"(?m)^(\d+) \w+: ", r.stdout),
                              events):
        last = max(last, ns)    # a page's times never go back
        if int(ts) != last:
            return "cpu%d: %s at %s ns in the pages, %d ns in the text" % (
                cpu, e, ts, ns)
    print("# cpu%d: %d records decode, %d sched_switch by name, %d "
          "funcgraph_exit with their entry's time: %s" % (
              cpu, int(m.group(1)), len(switches), known,
              sorted(got.items())))
    return ""


def check_pages(paths, tree):
    """Both CPUs' pages against the trace's own text."""
    fmts = paths["/tmp/fmts"] + ".only"
    with open(fmts, "w") as f:
        f.write("".join(fmt for _, _, fmt, _ in tree))
    per = text_events(paths["/tmp/g.ttr"])
    for cpu in (0, 1):
        why = check_cpu(cpu, paths["/tmp/raw%d" % cpu], fmts, per[cpu])
        if why:
            return why
    return "" if any(e == "func_exit" for c in per for e, _, _ in per[c]) \
        else "no func_exit in the trace"


def run_all(res, only):
    names = ("tfs31g_format", "tfs31g_pipe_raw")
    if only and not any(only in n for n in names):
        return
    out = tt.fresh_out("tfs31g.out")
    events = static_events()
    s = tt.Session(2, hostout=out, cmdline=DEFAULT_EVENTS, name="tfs31g")
    try:
        sizes = capture(s, events)
        why = s.finish("")
    except TimeoutError as e:
        why = s.finish(str(e))
    why_f = why_p = why
    if not why:
        try:
            paths = split_out(out, sizes)
            tree = tree_formats(paths["/tmp/fmts"], events)
            dat = paths["/tmp/g.ttr"] + ".dat"
            r = tt.ttdecode("tracedat", paths["/tmp/g.ttr"], dat)
            why_f = check_formats(tree, dat) if not r.returncode else \
                "ttdecode tracedat: " + r.stderr
        except AssertionError as e:
            why_f = why_p = str(e)
    if not why_p:
        try:
            why_p = check_pages(paths, tree)
        except AssertionError as e:
            why_p = str(e)
    for name, w in zip(names, (why_f, why_p)):
        if not only or only in name:
            res.add(name, not w, w)
