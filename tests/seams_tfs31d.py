"""QEMU scenario of issue 31's raw side (docs/tracefs.md), one boot:
- tfs31d_synthetic: histogram.rst's wakeup-latency recipe (sched_waking
  to sched_switch, without its prio, which our sched_switch lacks) makes
  wakeup_latency records: its format file names its fields; each record
  in `ttdecode text` carries the latency of the trace's own waking and
  switch, and the histogram counted every one (per key and log2 bucket;
  exactly, for the processes that exited while tracing was on);
  trace-cmd report of the trace.dat made from the same trace shows them.
- tfs31d_pipe_raw: per_cpu/cpuN/trace_pipe_raw consumes and blocks as
  Linux's: three markers read as pages, which Debian's libtraceevent
  (tools/ttrawread) decodes record for record as `ttdecode text` counts
  them, stats' "read events" counting them; a second read finds them
  gone and blocks until ^C."""
import os
import re
import subprocess

import ttrace_tests as tt
from qemu_run import DEFAULT_EVENTS
from seams_tracefs31b import RAWREAD, until, status

T = "/dev/ttrace"
MARKS = 3
# histogram.rst's wakeup-latency example, as typed there (less prio)
SYNTH_RECIPE = [
    "echo 'wakeup_latency u64 lat; pid_t pid' >> %s/synthetic_events" % T,
    "echo 1 > %s/events/synthetic/wakeup_latency/enable" % T,
    "echo 'hist:keys=pid:ts0=common_timestamp.usecs' >> "
    "%s/events/sched/sched_waking/trigger" % T,
    "echo 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:"
    "onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid)' >> "
    "%s/events/sched/sched_switch/trigger" % T,
    "ls /bin | wc -l > /dev/null; sleep 0.2; ls /etc | wc -l > /dev/null",
    "echo 0 > %s/tracing_on" % T,
]
RAW_SETUP = [
    "echo 0 > %s/events/enable" % T,
    "echo 1 > %s/events/user/enable" % T,
    "echo > %s/trace" % T,
    "; ".join("echo raw-%d > %s/trace_marker" % (i, T)
              for i in range(MARKS)),
    "echo 0 > %s/tracing_on" % T,
    "cat %s/trace.ttr > /tmp/p.ttr" % T,
    "cat %s/events/user/user_marker/format > /tmp/pfmt" % T,
]


def capture_synth(s):
    """The recipe, then the histogram (synthetic_events), the format file
    and the trace, frozen. Returns (why, histogram text, sizes)."""
    for cmd in SYNTH_RECIPE:
        out, st = status(s, cmd)
        if st:
            return "%s: status %d %r" % (cmd, st, out), "", {}
    hist = until(s, "cat %s/synthetic_events" % T, "syn")
    fmt = until(s, "cat %s/events/synthetic/wakeup_latency/format" % T,
                "fmt")
    if not re.search(r"name: wakeup_latency\nID: \d+\nformat:\n(.*\n)*"
                     r"\tfield:unsigned long long lat;(.*\n)*"
                     r"\tfield:long long pid;(.*\n)*print fmt: "
                     r'"lat=%llu pid=%lld", REC->lat, REC->pid', fmt):
        return "wakeup_latency's format:\n" + fmt, hist, {}
    files = ["/tmp/s.ttr"]
    until(s, "cat %s/trace.ttr > /tmp/s.ttr; echo 1 > %s/tracing_on"
          % (T, T), "save")
    text = until(s, "ls -l /tmp/s.ttr", "ls")
    sizes = {f: int(n) for n, f in re.findall(r"(\d+) +(/tmp/\S+)", text)}
    return "", hist, {f: sizes.get(f, 0) for f in files}


def hist_buckets(hist):
    """{key: {(low, high): count}} of the probe's histogram, and hits."""
    m = re.search(r"# wakeup_latency: latency histogram \(ns\)\n"
                  r"probe s\.wakeup_latency latency sched_waking "
                  r"sched_switch by pid match next_pid emit wakeup_latency "
                  r"next_pid\n  hits (\d+) ", hist)
    if not m:
        return None, 0
    keys, key = {}, None
    for line in hist[m.end():].split("\n"):
        k = re.match(r"  key (\d+) count", line)
        b = re.match(r"    (\d+) (\d+) (\d+)$", line)
        if k:
            key = int(k.group(1))
            keys[key] = {}
        elif b and key is not None:
            keys[key][(int(b.group(1)), int(b.group(2)))] = int(b.group(3))
    return keys, int(m.group(1))


def text_ns(line):
    """A `ttdecode text` line's time, ns."""
    us, frac = re.match(r"\s*(\d+)\.(\d{3}) us ", line).groups()
    return int(us) * 1000 + int(frac)


def check_records(lines):
    """Each wakeup_latency record: stamped as the sched_switch to its pid
    on its CPU, its latency that switch's time less the last sched_waking
    of the pid before it (to the ns the text shows, 1 us for rounding).
    Returns (why, {pid: {(low, high): records}})."""
    got, wakings = {}, {}
    for i, line in enumerate(lines):
        w = re.search(r"sched_waking: comm=\S* pid=(\d+) ", line)
        if w:
            wakings[int(w.group(1))] = text_ns(line)
        m = re.search(r" cpu(\d+) .*wakeup_latency: lat=(\d+) pid=(\d+)",
                      line)
        if not m:
            continue
        lat, pid, ts = int(m.group(2)), int(m.group(3)), text_ns(line)
        switch = [x for x in lines[max(0, i - 3):i + 4]
                  if re.search(r" cpu%s .*sched_switch: .*next_pid=%d\b"
                               % (m.group(1), pid), x) and text_ns(x) == ts]
        if not switch or pid not in wakings or \
                abs(lat - (ts - wakings[pid])) > 1000:
            return "wakeup_latency %s: switch %s, last waking at %s" % (
                line, switch, wakings.get(pid)), got
        b = lat.bit_length()
        got.setdefault(pid, {}).setdefault((1 << (b - 1), (1 << b) - 1), 0)
        got[pid][(1 << (b - 1), (1 << b) - 1)] += 1
    return "", got


def check_synth(out, hist, sizes):
    """The records carry the latencies the trace's own waking/switch
    pairs have and the histogram counted: per key and log2 bucket, every
    record is in the histogram, and a key whose process exited while
    tracing was on (the probe counts on after tracing stops, as Linux's
    hist triggers do) has as many records as the histogram counts;
    trace-cmd report shows each record."""
    with open(out, "rb") as f:
        data = f.read()
    path = out + ".s.ttr"
    with open(path, "wb") as f:
        f.write(data[:sizes["/tmp/s.ttr"]])
    want, hits = hist_buckets(hist)
    if want is None or not hits:
        return "synthetic_events' histogram:\n" + hist[-2000:]
    lines = tt.ttdecode("text", path).stdout.split("\n")
    why, got = check_records(lines)
    if why:
        return why
    n = sum(sum(b.values()) for b in got.values())
    exited = {int(p) for p in re.findall(r"proc_exit: .*pid_nr=(\d+)",
                                         "\n".join(lines))}
    final = [k for k in want if k in exited]
    print("# wakeup_latency: %d records, histogram hits %d, %d keys, "
          "%d of exited processes: %s" % (n, hits, len(want), len(final),
                                          {k: want[k] for k in final}))
    for key, buckets in got.items():
        for b, c in buckets.items():
            if c > want.get(key, {}).get(b, 0):
                return "pid %d bucket %s: %d records, histogram %s" % (
                    key, b, c, want.get(key))
    if not final or any(got.get(k) != want[k] for k in final):
        return "exited processes' keys %s: records %s, histogram %s" % (
            final, {k: got.get(k) for k in final},
            {k: want[k] for k in final})
    dat = path + ".dat"
    r = tt.ttdecode("tracedat", path, dat)
    rep = subprocess.run(["trace-cmd", "report", "-i", dat],
                         capture_output=True, text=True, timeout=120)
    shown = len(re.findall(r"wakeup_latency: +lat=\d+ pid=\d+",
                           rep.stdout))
    return "" if shown == n else \
        "trace-cmd report shows %d wakeup_latency of %d:\n%s%s%s" % (
            shown, n, r.stderr[-500:], rep.stderr[-500:],
            "\n".join(x for x in rep.stdout.split("\n")
                      if "wakeup_lat" in x)[:1500])


def read_events(s, cpu):
    """per_cpu/cpuN/stats' "read events"."""
    text = until(s, "cat %s/per_cpu/cpu%d/stats" % (T, cpu), "st%d" % cpu)
    m = re.search(r"read events: (\d+)\n", text)
    if not m:
        raise TimeoutError("stats: %r" % text)
    return int(m.group(1))


def interrupt(s):
    """^C until the foreground command is killed and the prompt is back."""
    for _ in range(30):
        s.run.send("\x03")
        try:
            s.run.expect(r"\^C\n(?:.*\n)?\$ ", timeout=2)
            s.run.send("\r")      # a prompt for the next say()
            return
        except TimeoutError:
            pass
    raise TimeoutError("^C did not end the command")


def check_blocks(s, cpu):
    """A second read of cpu's trace_pipe_raw, its pages consumed by the
    first, finds nothing and sleeps (a prompt within 10 s is a read that
    returned) until ^C; it wrote no byte."""
    s.run.expect(r"\$ ", timeout=60)
    s.run.send("cat %s/per_cpu/cpu%d/trace_pipe_raw > /tmp/again\r"
               % (T, cpu))
    try:
        s.run.expect(r"\$ ", timeout=10)
        s.run.send("\r")
        return "a second read of cpu%d's trace_pipe_raw returned at once " \
            "(its pages not consumed, or it did not block)" % cpu
    except TimeoutError:
        pass
    interrupt(s)
    text = until(s, "ls -l /tmp/again", "ag")
    m = re.search(r"(\d+) +/tmp/again", text)
    return "" if m and m.group(1) == "0" else \
        "the blocked read of cpu%d wrote: %r" % (cpu, text)


def capture_raw(s):
    """The markers, frozen; each CPU that holds some read through
    trace_pipe_raw (to its end: tracing is off), then again (blocks).
    Returns (why, the files' sizes, the CPUs read, read events gained)."""
    for cmd in RAW_SETUP:
        out, st = status(s, cmd)
        if st:
            raise TimeoutError("%s: status %d %r" % (cmd, st, out))
    cpus = []
    for cpu in (0, 1):
        n = until(s, "grep -c raw- %s/per_cpu/cpu%d/trace" % (T, cpu),
                  "n%d" % cpu)
        if int(n.split()[0]) > 0:
            cpus.append(cpu)
    before = sum(read_events(s, c) for c in cpus)
    for cpu in cpus:
        out, st = status(s, "cat %s/per_cpu/cpu%d/trace_pipe_raw > "
                         "/tmp/raw%d" % (T, cpu, cpu))
        if st:
            return "trace_pipe_raw cpu%d: %r" % (cpu, out), {}, cpus, 0
    gained = sum(read_events(s, c) for c in cpus) - before
    why = check_blocks(s, cpus[0]) if cpus else "no CPU holds a marker"
    files = ["/tmp/p.ttr", "/tmp/pfmt"] + ["/tmp/raw%d" % c for c in cpus]
    text = until(s, "ls -l %s" % " ".join(files), "ls")
    sizes = {f: int(n) for n, f in re.findall(r"(\d+) +(/tmp/\S+)", text)}
    if not why:
        until(s, "cat %s > /dev/host/out" % " ".join(files), "out")
    return why, {f: sizes.get(f, 0) for f in files}, cpus, gained


def check_raw_pages(out, sizes, cpus, gained):
    """Each CPU's pages decode with libtraceevent: as many user_marker
    records as `ttdecode text` shows on it, and as stats counted."""
    with open(out, "rb") as f:
        data = f.read()
    off = 0
    for name, n in sizes.items():
        with open(out + "." + os.path.basename(name), "wb") as f:
            f.write(data[off:off + n])
        off += n
    text = tt.ttdecode("text", out + ".p.ttr").stdout
    total = 0
    for cpu in cpus:
        want = len(re.findall(r"(?m)^.* cpu%d .*user_marker: raw-" % cpu,
                              text))
        r = subprocess.run([RAWREAD, out + ".pfmt", out + ".raw%d" % cpu,
                            str(cpu)], capture_output=True, text=True,
                           timeout=60)
        m = re.search(r"records (\d+) undecoded (\d+)", r.stdout)
        if r.returncode or not m or m.group(2) != "0" or \
                int(m.group(1)) != want:
            return "cpu%d: ttrawread (want %d user_marker records):\n%s%s" \
                % (cpu, want, r.stdout[-1500:], r.stderr[-500:])
        total += want
    print("# trace_pipe_raw: %d markers read once, read events +%d"
          % (total, gained))
    if total != MARKS:
        return "%d markers in ttdecode text, want %d" % (total, MARKS)
    return "" if gained == total else \
        "stats' read events gained %d for %d records" % (gained, total)


def run_all(res, only):
    """One boot for both: the synthetic recipe first, the raw pages after;
    the trace of the first, then the files of the second, go out in that
    order."""
    names = ("tfs31d_synthetic", "tfs31d_pipe_raw")
    if only and not any(only in n for n in names):
        return
    out = tt.fresh_out("tfs31d.out")
    s = tt.Session(2, hostout=out, cmdline=DEFAULT_EVENTS, name="tfs31d")
    why_s = why_r = "not run"
    try:
        why_s, hist, ssizes = capture_synth(s)
        until(s, "cat /tmp/s.ttr > /dev/host/out", "sout")
        why_r, rsizes, cpus, gained = capture_raw(s)
        why = s.finish("")
    except TimeoutError as e:
        why = s.finish(str(e))
    if not why and not why_s:
        why_s = check_synth(out, hist, ssizes)
    if not why and not why_r:
        with open(out, "rb") as f:
            data = f.read()
        with open(out + ".raw", "wb") as f:
            f.write(data[ssizes.get("/tmp/s.ttr", 0):])
        why_r = check_raw_pages(out + ".raw", rsizes, cpus, gained)
    for name, w in zip(names, (why or why_s, why or why_r)):
        if not only or only in name:
            res.add(name, not w, w)
