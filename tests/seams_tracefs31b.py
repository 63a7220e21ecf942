"""QEMU scenario of issue 31's second half (docs/tracefs.md): in one boot,
a Linux fprobe definition written to dynamic_events makes an event whose
records carry the string its fetch arg names (checked in `ttdecode text`);
three refused writes leave ftrace's error_log entries (the command, the
caret under the bad token, the reason) with Linux's errno, and change
nothing; a snapshot freezes the rings; stack_trace shows the deepest
stack; a synthetic syscall-latency histogram fills from onmatch()
triggers; per_cpu/cpuN/trace_pipe_raw pages, pulled to the host, decode
with Debian's libtraceevent (tools/ttrawread) under the tree's own format
files, record for record as `ttdecode text` counts them; -:myopen
removes the event."""
import os
import re
import subprocess

import ttrace_tests as tt
from qemu_run import DEFAULT_EVENTS

T = "/dev/ttrace"
RAWREAD = os.path.join(tt.BUILD, "tools", "ttrawread")
DEFINE = "f:myopen ns_open path=+0(%di):string"
# the refused writes: (line, the token the caret points at, errno text)
REFUSED = (
    ("f:bad ns_open path=+8(%di):string", "8(%di)", "invalid argument"),
    ("f:bad2 no_such_function", "no_such_function",
     "no such file or directory"),
    ("-:nosuch", "nosuch", "no such file or directory"),
)
SYNTH = [
    "echo 'syscall_latency u64 lat; pid_t pid' > %s/synthetic_events" % T,
    "echo 'hist:keys=common_pid:ts0=common_timestamp.usecs' >> "
    "%s/events/syscall/syscall_enter/trigger" % T,
    "echo 'hist:keys=common_pid:lat=common_timestamp.usecs-$ts0:"
    "onmatch(syscall.syscall_enter).trace(syscall_latency,$lat,common_pid)'"
    " >> %s/events/syscall/syscall_exit/trigger" % T,
]


def until(s, cmd, tag, timeout=60):
    """The output of cmd, up to the echo of tag after it."""
    m = s.say("%s; echo %s-end" % (cmd, tag),
              r"echo %s-end\r?\n((?:.*\r?\n)*?)%s-end\r?\n" % (tag, tag),
              timeout=timeout)
    return m.group(1).decode(errors="replace").replace("\r", "")


def status(s, cmd):
    """cmd's output and exit status."""
    text = until(s, "%s; echo st=$?" % cmd, "stx")
    m = re.search(r"st=(\d+)\n", text)
    return text, int(m.group(1)) if m else -1


def check_errors(s, before):
    """The three refusals: each fails with its errno, its error_log entry
    has the command and the caret under the bad token, and nothing
    changed."""
    until(s, "echo > %s/error_log" % T, "clr")
    for line, _, errno in REFUSED:
        out, st = status(s, "echo '%s' >> %s/dynamic_events" % (line, T))
        if st == 0 or errno not in out:
            return "%r: status %d, %r (want %s)" % (line, st, out, errno)
    log = until(s, "cat %s/error_log" % T, "log")
    entries = re.findall(r"\[ *\d+\.\d{6}\] trace_fprobe: error: (.*)\n"
                         r"  Command: (.*)\n( *)\^\n", log)
    if len(entries) != len(REFUSED):
        return "error_log has %d entries, want %d:\n%s" % (
            len(entries), len(REFUSED), log)
    for (line, token, _), (why, cmd, pad) in zip(REFUSED, entries):
        col = len(pad) - len("  Command: ")
        if cmd != line or not line[col:].startswith(token):
            return "error_log: %r caret at %d (%r), want under %r" % (
                cmd, col, line[col:], token)
    print("# error_log:\n" + log)
    after = until(s, "cat %s/dynamic_events; ls %s/events/fprobe" % (T, T),
                  "same")
    return "" if after == before else \
        "a refused write changed the tree:\n%s\nvs\n%s" % (before, after)


def check_snapshot(s):
    """echo 1 > snapshot freezes the rings: a marker written before it is
    in the snapshot, one written after is not."""
    until(s, "echo snap-before > %s/trace_marker; echo 1 > %s/snapshot; "
          "echo snap-after > %s/trace_marker" % (T, T, T), "snap")
    text = until(s, "cat %s/snapshot | grep snap-" % T, "snapread")
    if "snap-before" not in text or "snap-after" in text:
        return "snapshot: %r" % text
    return ""


def check_stack(s):
    """stack_trace after the stack tracer ran: Linux's header and the
    deepest chain, stack_max_size its depth, 0 resets it."""
    until(s, "echo stacktracer on > %s/ctl; ls /bin > /dev/null; "
          "echo stacktracer off > %s/ctl" % (T, T), "stk", timeout=180)
    text = until(s, "cat %s/stack_trace; cat %s/stack_max_size" % (T, T),
                 "stkread")
    m = re.search(r"Depth +Size +Location +\((\d+) entries\)\n +-----"
                  r" +---- +--------\n +0\) +(\d+) +\d+ +[\w.]+\+0x[0-9a-f]+\n"
                  r"(?:.*\n)*?(\d+)\n$", text)
    if not m or int(m.group(1)) < 2 or m.group(2) != m.group(3):
        return "stack_trace/stack_max_size: %r" % text
    out, st = status(s, "echo 0 > %s/stack_max_size; cat %s/stack_max_size"
                     % (T, T))
    return "" if st == 0 and out.startswith("0\n") else \
        "stack_max_size reset: %r" % out


def check_synthetic(s):
    """The onmatch() triggers fill syscall_latency's histogram."""
    for cmd in SYNTH:
        out, st = status(s, cmd)
        if st:
            return "%s: %r" % (cmd, out)
    until(s, "ls /bin > /dev/null; cat /etc/motd > /dev/null", "work")
    text = until(s, "cat %s/synthetic_events" % T, "syn")
    m = re.search(r"syscall_latency\tu64 lat; pid_t pid\n\n# syscall_latency"
                  r": latency histogram \(ns\)\n.*latency syscall_enter "
                  r"syscall_exit.*\n  hits (\d+)", text)
    if not m or int(m.group(1)) == 0:
        return "synthetic_events: %r" % text
    print("# synthetic:\n" + text[:1500])
    return ""


CAPTURE = [
    "echo 0 > %s/events/enable" % T,
    "echo 1 > %s/events/fprobe/myopen/enable" % T,
    "echo > %s/trace" % T,
    "cat /etc/motd > /dev/null; cat /etc/motd > /dev/null",
    "echo 0 > %s/tracing_on" % T,
    "cat %s/events/fprobe/myopen/format > /tmp/fmt" % T,
    "cat %s/trace.ttr > /tmp/t.ttr" % T,
]
FILES = ("/tmp/raw0", "/tmp/raw1", "/tmp/fmt", "/tmp/t.ttr")


def capture(s):
    """The records of myopen alone, frozen, as pages and as a trace file:
    their sizes."""
    for cmd in CAPTURE:
        out, st = status(s, cmd)
        if st:
            raise TimeoutError("%s: status %d %r" % (cmd, st, out))
    for cpu in (0, 1):      # trace_pipe_raw of a CPU with nothing blocks
        n = until(s, "grep -c myopen %s/per_cpu/cpu%d/trace" % (T, cpu),
                  "n%d" % cpu)
        out, st = status(s, "cat %s/per_cpu/cpu%d/trace_pipe_raw > /tmp/raw%d"
                         % (T, cpu, cpu) if int(n.split()[0]) else
                         "echo -n > /tmp/raw%d" % cpu)
        if st:
            raise TimeoutError("raw%d: status %d %r" % (cpu, st, out))
    text = until(s, "ls -l %s" % " ".join(FILES), "ls")
    sizes = {f: int(n) for n, f in re.findall(r"(\d+) +(/tmp/\S+)", text)}
    if set(sizes) != set(FILES):
        raise TimeoutError("ls -l: %r" % text)
    until(s, "cat %s > /dev/host/out" % " ".join(FILES), "out")
    return sizes


def check_removed(s):
    """-:myopen removes the definition, and after a clear the event."""
    out, st = status(s, "echo 1 > %s/tracing_on; echo '-:myopen' >> "
                     "%s/dynamic_events" % (T, T))
    if st:
        return "-:myopen: %r" % out
    left = until(s, "cat %s/dynamic_events; echo > %s/trace; ls "
                 "%s/events/fprobe" % (T, T, T), "gone")
    return "" if "myopen" not in left else "-:myopen left %r" % left


def check_pages(out, sizes):
    """trace_pipe_raw's pages decode with libtraceevent, one record per
    myopen line of `ttdecode text` on each CPU, the paths as written."""
    with open(out, "rb") as f:
        data = f.read()
    parts, off = {}, 0
    for name in FILES:
        parts[name] = data[off:off + sizes[name]]
        off += sizes[name]
    for name, blob in parts.items():
        with open(out + "." + os.path.basename(name), "wb") as f:
            f.write(blob)
    text = tt.ttdecode("text", out + ".t.ttr").stdout
    if "path=/etc/motd" not in text:
        return "ttdecode text: no myopen path=/etc/motd:\n" + text[-1500:]
    total, seen = 0, ""
    for cpu in (0, 1):
        paths = re.findall(r"(?m)^.* cpu%d .*myopen: (?:ns_open )?(path=\S*)"
                           % cpu, text)
        want = len(paths)
        r = subprocess.run([RAWREAD, out + ".fmt", out + ".raw%d" % cpu,
                            str(cpu)], capture_output=True, text=True,
                           timeout=60)
        m = re.search(r"records (\d+) undecoded (\d+) missed (\d+)",
                      r.stdout)
        got = re.search(r"count myopen (\d+)", r.stdout)
        if r.returncode or not m or m.group(2) != "0" or \
                (int(got.group(1)) if got else 0) != want or \
                int(m.group(1)) != want:
            return "cpu%d: ttrawread %d (want %d myopen records):\n%s%s" % (
                cpu, r.returncode, want, r.stdout[-1500:], r.stderr[-500:])
        got = re.findall(r"(?m)^\d+ myopen: (?:ns_open )?(path=\S*)",
                         r.stdout)
        if got != paths:
            return "cpu%d: the pages' paths %s, ttdecode text's %s" % (
                cpu, got, paths)
        total += want
        seen += r.stdout
    print("# trace_pipe_raw: %d myopen records decoded by libtraceevent"
          % total)
    if not re.search(r"myopen: (?:ns_open )?path=/etc/motd", seen):
        return "no path=/etc/motd in the pages:\n" + seen[-1500:]
    return "" if total >= 2 else "only %d myopen records" % total


def tracefs31b():
    """See the module's comment."""
    out = tt.fresh_out("tracefs31b.out")
    s = tt.Session(2, hostout=out, cmdline=DEFAULT_EVENTS, name="tracefs31b")
    try:
        text, st = status(s, "echo '%s' > %s/dynamic_events" % (DEFINE, T))
        if st:
            return s.finish("dynamic_events refused %r: %s" % (DEFINE, text))
        defs = until(s, "cat %s/dynamic_events; cat %s/events/fprobe/myopen/"
                     "format" % (T, T), "def")
        if "f:fprobe/myopen ns_open path=+0(%di):string\n" not in defs or \
                "field:__data_loc char[] path_name;" not in defs:
            return s.finish("dynamic_events/format read %r" % defs)
        before = until(s, "cat %s/dynamic_events; ls %s/events/fprobe"
                       % (T, T), "same")
        why = check_errors(s, before) or check_snapshot(s) or \
            check_stack(s) or check_synthetic(s)
        if why:
            return s.finish(why)
        sizes = capture(s)
        why = check_removed(s)
        if why:
            return s.finish(why)
    except TimeoutError as e:
        return s.finish(str(e))
    return s.finish("") or check_pages(out, sizes)


def run_all(res, only):
    for name, fn in (("tracefs31b", tracefs31b),):
        if not only or only in name:
            why = fn()
            res.add(name, not why, why)
