"""A hostile tester's seams between last round's features (issues 29-31)
and the others, one boot, each item a phase checked through the tree:

- hostile_synth_unprobe: a synthetic event whose onmatch() probe the ctl
  removed (`unprobe *`, the tree's second door) can be removed and given
  its onmatch() again; the tree asks the probes, it keeps no flag of its
  own that ctl cannot see;
- hostile_synth_busy: a synthetic event with a filter (or a trigger) on
  its own event is in use: `!NAME` is refused (EBUSY) and the filter
  keeps meaning its field, as dynamic_events' `-:` refuses an fprobe with
  probes attached; with them removed, `!NAME` works;
- hostile_traceon_thaw: after a `traceoff` trigger froze tracing,
  `echo 1 > tracing_on` (ctl setmask) records again: a marker written
  then is in `trace`, straight away, after a clear, and after a resize;
- hostile_pipe_readers: two `cat trace_pipe` at once while markers come
  (tracestress marks): every marker is shown once, by one of them, with
  its text (never `#N`, an unresolved name), and none is lost;
- hostile_dead_fprobe: a function probe deleted (`-:NAME`, its name kept
  until the next clear) takes no new probe (ctl's `probe`) nor trigger
  (`enable_event:fprobe:NAME`): its id comes free at the clear for
  another function, which would inherit them;
- hostile_raw_names: trace_pipe_raw read on both CPUs while 3000 markers
  come: each marker record in the pages (decoded by libtraceevent,
  tools/ttrawread) carries its text, as docs/tracefs.md says ("a string
  in it always resolves");
- hostile_profile_kill: ^C of `ttrace profile -- CMD` mid-run leaves the
  profiler off (`stats`), as a ^C of `ttrace stream` ends its drain.
"""
import os
import re
import subprocess
import time

import ttrace_tests as tt
from qemu_run import DEFAULT_EVENTS
from seams_tracefs31b import RAWREAD, until, status

T = "/dev/ttrace"
MARKS = 3000           # markers of the raw phase (its check is on the host)
PIPE_MARKS = 300       # of the text phase (read back on the console)
SYNTH_DEF = "echo 'hx_lat u64 lat; pid_t pid' >> %s/synthetic_events" % T
SYNTH_START = ("echo 'hist:keys=pid:ts0=common_timestamp.usecs' >> "
               "%s/events/sched/sched_waking/trigger" % T)
SYNTH_END = ("echo 'hist:keys=next_pid:l=common_timestamp.usecs-$ts0:"
             "onmatch(sched.sched_waking).hx_lat($l,next_pid)' >> "
             "%s/events/sched/sched_switch/trigger" % T)


def must(s, cmd, ok=True):
    """cmd's output; raises unless its status is 0 (ok) or not (ok
    False)."""
    out, st = status(s, cmd)
    if (st == 0) != ok:
        raise AssertionError("%s: status %d (want %s) %r" % (
            cmd, st, "0" if ok else "a refusal", out.strip()))
    return out


def synth_unprobe(s):
    """The onmatch() probe removed through ctl: the definition is free
    again (removable), and a new onmatch() attaches."""
    for cmd in (SYNTH_DEF, SYNTH_START, SYNTH_END,
                "echo 'unprobe *' > %s/ctl" % T):
        must(s, cmd)
    must(s, SYNTH_END)            # its onmatch() again, the probe gone
    must(s, "echo '!hist:keys=next_pid:l=common_timestamp.usecs-$ts0:"
         "onmatch(sched.sched_waking).hx_lat($l,next_pid)' >> "
         "%s/events/sched/sched_switch/trigger" % T)
    must(s, "echo 'unprobe *' > %s/ctl" % T)
    must(s, "echo '!hx_lat' >> %s/synthetic_events" % T)
    must(s, "echo '!hist:keys=pid:ts0=common_timestamp.usecs' >> "
         "%s/events/sched/sched_waking/trigger" % T)
    left = until(s, "cat %s/synthetic_events" % T, "syn")
    return "" if "hx_lat" not in left else \
        "hx_lat still defined:\n" + left


def synth_busy(s):
    """A filter and a trigger on a synthetic event keep it defined; a
    redefinition cannot turn the filter's `lat` into another field."""
    must(s, "echo 'hx_s u64 lat' >> %s/synthetic_events" % T)
    must(s, "echo 'lat > 5' > %s/events/synthetic/hx_s/filter" % T)
    out = must(s, "echo '!hx_s' >> %s/synthetic_events" % T, ok=False)
    if "busy" not in out:
        return "!hx_s with a filter: %r (want EBUSY)" % out
    must(s, "echo '!hx_s' >> %s/synthetic_events" % T, ok=False)
    flt = until(s, "cat %s/events/synthetic/hx_s/filter" % T, "flt")
    if "lat>0x5" not in flt:
        return "hx_s's filter now reads %r" % flt
    must(s, "echo 0 > %s/events/synthetic/hx_s/filter" % T)
    must(s, "echo traceoff > %s/events/synthetic/hx_s/trigger" % T)
    must(s, "echo > %s/synthetic_events" % T, ok=False)
    must(s, "echo '!traceoff' > %s/events/synthetic/hx_s/trigger" % T)
    must(s, "echo '!hx_s' >> %s/synthetic_events" % T)
    return ""


def marked(s, word):
    """Whether a trace_marker of word written now shows in `trace`."""
    must(s, "echo %s > %s/trace_marker" % (word, T))
    n = until(s, "grep -c %s %s/trace" % (word, T), "g" + word)
    return n.split() and n.split()[0] != "0"


def traceon_thaw(s):
    """A traceoff trigger freezes; `echo 1 > tracing_on` restarts the
    recording (straight away, after a clear, then a resize)."""
    trig = "%s/events/syscall/syscall_exit/trigger" % T
    for phase, between in (("direct", None), ("clear", "echo > %s/trace"),
                           ("resize", "echo 2048 > %s/buffer_size_kb")):
        # :1: a traceoff fires on every syscall_exit while tracing is on
        # (ftrace's), the exit of `echo 1 > tracing_on` too
        must(s, "echo traceoff:1 > %s" % trig)
        must(s, "ls / > /dev/null")               # a syscall_exit: frozen
        on = until(s, "cat %s/tracing_on" % T, "on")
        if on.split()[:1] != ["0"]:
            return "%s: tracing_on %r after the traceoff fired" % (
                phase, on)
        if between:
            must(s, between % T)
        must(s, "echo 1 > %s/tracing_on" % T)
        if not marked(s, "hx-" + phase):
            return "%s: a marker after `echo 1 > tracing_on` is not in " \
                "trace (ctl: %r)" % (phase, until(s, "cat %s/ctl" % T,
                                                   "ctl"))
        must(s, "echo '!traceoff' > %s" % trig)
    must(s, "echo 1024 > %s/buffer_size_kb" % T)
    return ""


def interrupt_all(s, n):
    """^C until the prompt is back, at most n times (one per command of
    a pipeline that blocks)."""
    for _ in range(n):
        s.run.send("\x03")
        try:
            s.run.expect(r"\^C\r?\n(?:.*\r?\n)?\$ ", timeout=5)
            s.run.send("\r")
            return
        except TimeoutError:
            pass
    raise TimeoutError("^C did not end the pipeline")


def pipe_readers(s):
    """Two trace_pipe readers at once, PIPE_MARKS markers written
    meanwhile: each marker once over both, named."""
    marks = PIPE_MARKS
    must(s, "echo 0 > %s/events/enable; echo 1 > %s/events/user/enable; "
         "echo > %s/trace" % (T, T, T))
    s.run.expect(r"\$ ", timeout=60)
    s.run.send("cat %s/trace_pipe > /tmp/pa | cat %s/trace_pipe > /tmp/pb | "
               "tracestress marks %d 16\r" % (T, T, marks))
    time.sleep(3)
    interrupt_all(s, 4)
    text = until(s, "cat /tmp/pa /tmp/pb", "pab", timeout=120)
    must(s, "echo 1 > %s/events/enable" % T)
    if "LOST" in text:
        return "the markers' ring wrapped: " + text[:300]
    seen = re.findall(r"user_marker: (\S+)", text)
    named = [m for m in seen if m.startswith("mark-")]
    dups = sorted({m for m in named if named.count(m) > 1})
    if dups or len(named) != marks or len(seen) != marks:
        return "%d markers shown (%d named, %d twice: %s), want %d once " \
            "each; unnamed: %s" % (len(seen), len(named), len(dups),
                                   dups[:4], marks,
                                   [m for m in seen if m not in named][:4])
    return ""


def dead_fprobe(s):
    """Nothing attaches to a deleted function probe's id."""
    must(s, "echo 'f:hxd ns_open' >> %s/dynamic_events" % T)
    must(s, "echo '-:hxd' >> %s/dynamic_events" % T)
    trig = "%s/events/syscall/syscall_enter/trigger" % T
    out, st = status(s, "echo 'probe hxp count hxd' > %s/ctl" % T)
    out2, st2 = status(s, "echo 'enable_event:fprobe:hxd' > %s" % trig)
    status(s, "echo 'unprobe hxp' > %s/ctl" % T)
    status(s, "echo '!enable_event:fprobe:hxd' > %s" % trig)
    if st == 0 or st2 == 0:
        return "a deleted fprobe took %s" % " and ".join(
            w for w, x in (("probe hxp", st), ("an enable_event trigger",
                                               st2)) if x == 0)
    return ""


def raw_names(s):
    """Both CPUs' trace_pipe_raw read while MARKS markers come; the pages
    and the marker's format go to the host (the check is check_raw()).
    Returns the files' sizes."""
    must(s, "echo 0 > %s/events/enable; echo 1 > %s/events/user/enable; "
         "echo 1 > %s/events/sched/enable; echo > %s/trace" % (T, T, T, T))
    must(s, "cat %s/events/user/user_marker/format > /tmp/rf" % T)
    # sched's records give both readers pages; tracing off at the end
    # ends each once it has read everything (docs/tracefs.md)
    must(s, "cat %s/per_cpu/cpu0/trace_pipe_raw > /tmp/r0 | "
         "cat %s/per_cpu/cpu1/trace_pipe_raw > /tmp/r1 | "
         "sh -c 'tracestress marks %d 16; echo 0 > %s/tracing_on'"
         % (T, T, MARKS, T))
    must(s, "echo 1 > %s/tracing_on; echo 1 > %s/events/enable" % (T, T))
    files = ["/tmp/rf", "/tmp/r0", "/tmp/r1"]
    text = until(s, "ls -l %s" % " ".join(files), "rls")
    sizes = {f: int(n) for n, f in re.findall(r"(\d+) +(/tmp/\S+)", text)}
    must(s, "cat %s > /dev/host/out" % " ".join(files))
    return [sizes.get(f, 0) for f in files]


def check_raw(out, sizes):
    """The pages of raw_names(), decoded: every marker named."""
    with open(out, "rb") as f:
        data = f.read()
    parts, off = [], 0
    for i, n in enumerate(sizes):
        parts.append("%s.%d" % (out, i))
        with open(parts[-1], "wb") as f:
            f.write(data[off:off + n])
        off += n
    named = total = 0
    for raw in parts[1:]:
        if os.path.getsize(raw) == 0:
            continue
        r = subprocess.run([RAWREAD, parts[0], raw], capture_output=True,
                           text=True, timeout=60)
        # a marker is Linux's ftrace/print in the pages (its format file)
        total += len(re.findall(r" print: ", r.stdout))
        named += len(re.findall(r" print: .*mark-\d+:", r.stdout))
    return "" if total == MARKS and named == total else \
        "%d marker records in the pages, %d with their text (want %d)" % (
            total, named, MARKS)


def profile_kill(s):
    """^C of `ttrace profile -- profspin ...` while it runs: the
    profiler is off afterwards."""
    s.run.expect(r"\$ ", timeout=60)
    s.run.send("ttrace profile -- profspin 100000\r")
    s.run.expect("profspin", timeout=60)
    time.sleep(2)
    s.run.send("\x03")
    s.run.expect(r"\^C", timeout=30)
    s.run.send("\r")
    line = until(s, "grep profile %s/stats" % T, "prof")
    must(s, "echo profile off > %s/ctl" % T)   # the next phases' state
    # the \r after ^C prompts once more: that "$ " may precede the line
    return "" if re.search(r"(?m)^(?:\$ )*profile off ", line) else \
        "after ^C of ttrace profile: %r" % line.strip()


PHASES = (("hostile_synth_unprobe", synth_unprobe),
          ("hostile_synth_busy", synth_busy),
          ("hostile_traceon_thaw", traceon_thaw),
          ("hostile_pipe_readers", pipe_readers),
          ("hostile_dead_fprobe", dead_fprobe),
          ("hostile_raw_names", raw_names),
          ("hostile_profile_kill", profile_kill))


def run_all(res, only):
    """One boot, the phases in turn (T=seams_hostile: all; T=hostile_X:
    those named so); a phase's assertion fails it alone, a timeout or a
    panic every phase."""
    whole = not only or only in "seams_hostile"
    names = [n for n, _ in PHASES if whole or only in n]
    if not names:
        return
    out = tt.fresh_out("seams_hostile.out")
    s = tt.Session(2, cmdline=DEFAULT_EVENTS, name="seams_hostile",
                   hostout=out)
    got = {}
    why = ""
    try:
        for name, fn in PHASES:
            if name in names:
                try:
                    got[name] = fn(s)
                except AssertionError as e:
                    got[name] = str(e)
        why = s.finish("")
    except TimeoutError as e:
        why = s.finish(str(e))
    if not why and isinstance(got.get("hostile_raw_names"), list):
        got["hostile_raw_names"] = check_raw(out, got["hostile_raw_names"])
    for name in names:
        w = why or got.get(name, "not run")
        res.add(name, not w, w)
