"""The sampling profile read on the host (issue 30, docs/profiling.md
"Reading"): ONE boot, sampled from early boot (ttrace.profile=997), saves
three traces to the host: the boot's, at the prompt; one of profspin
(70% in f1, 30% in f2) under `profile on 997 all offcpu`; one of
profspin in 16 KB rings that wrap past its spawn. Checked on the host:

  prof30h_spin      folded gives f1/f2 = 70/30 +- 3 points; go tool pprof
                    (-traces, samples) and trace_processor_shell's
                    perf_sample table give the same count for every stack
  prof30h_boot      the boot's wall-clock flame graph (each boot phase a
                    root frame, each sample weighing its interval) and
                    `ttdecode boot` agree on CPU 0's time per phase within
                    the intervals of the samples at the phase's two ends,
                    for every phase sampled from its start; the SVG parses
                    as XML
  prof30h_wrap      the wrapped trace has no proc_exec of profspin left,
                    yet its samples' user pcs are named by its ELF (f1,
                    f2; no bare user address): aux keeps each pid's
                    program path
Every sample weighs the interval it stands for (its record's `interval`,
docs/trace-format.md section 8), not 1/hz: under TCG the sampling timer
comes 1 to 12 ms apart at a nominal 997 Hz. The off-CPU profile (profnap:
150 ms +- one period in g) is checked in guest time, under icount:
tests/seams_prof30d.py.
A tool that is not installed (go, trace_processor_shell) is skipped, and
said so."""
import bisect
import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import ttrace_tests as tt

HZ = 997
PERIOD = 10**9 // HZ


def split_saves(path, log):
    """The traces the guest saved to the host channel, back to back in
    path, as files path-0.ttr, path-1.ttr, ...; returns their paths."""
    sizes = [int(n) for n in
             re.findall(r"ttrace: saved /dev/host/out: (\d+) bytes", log)]
    data, pos, out = open(path, "rb").read(), 0, []
    for i, n in enumerate(sizes):
        name = "%s-%d.ttr" % (path[:-4], i)
        with open(name, "wb") as f:
            f.write(data[pos:pos + n])
        pos += n
        out.append(name)
    return out


def td(*args):
    p = subprocess.run([tt.TTDECODE] + list(args), capture_output=True,
                       text=True, timeout=300, cwd=tt.ROOT)
    if p.returncode:
        raise AssertionError("ttdecode %s: %s" % (" ".join(args),
                                                  p.stderr[-600:]))
    return p.stdout


def folded(trace, *opts):
    """{stack (root first, process first): value} of ttdecode folded."""
    out = {}
    for line in td("folded", trace, *opts).splitlines():
        stack, n = line.rsplit(" ", 1)
        out[stack] = out.get(stack, 0) + int(n)
    return out


def pid_of(text, prog):
    m = re.search(r"proc_exec: pid=\S+ filename=/bin/%s pid_nr=(\d+)" %
                  prog, text)
    if not m:
        raise AssertionError("no proc_exec of /bin/%s" % prog)
    return int(m.group(1))


def pprof_stacks(trace, pid):
    """{stack root first: samples} of pid by `go tool pprof -traces`, or
    None when go is not installed."""
    if not shutil.which("go"):
        print("SKIPPED [prof30h_spin_pprof] go (golang-go) is not "
              "installed (scripts/deps.sh installs it)", flush=True)
        return None
    pb = trace[:-4] + ".pb.gz"
    td("pprof", trace, pb, "--pid", str(pid))
    p = subprocess.run(["go", "tool", "pprof", "-sample_index=samples",
                        "-traces", pb], capture_output=True, text=True,
                       timeout=300, env=dict(os.environ, HOME=tt.OUT))
    if p.returncode:
        raise AssertionError("go tool pprof: %s" % p.stderr[-600:])
    out = {}
    for block in p.stdout.split("-----------+")[1:]:
        frames = [l.split()[-1] for l in block.splitlines()
                  if l.strip() and ":" not in l and
                  not l.strip().startswith("-")]
        m = re.search(r"(?m)^\s+(\d+)\s+\S", block)
        if frames and m:
            key = ";".join(reversed(frames))
            out[key] = out.get(key, 0) + int(m.group(1))
    return out


def perfetto_stacks(trace, pid):
    """{stack root first: samples} of pid in trace_processor_shell's
    perf_sample table, or None when it is not there."""
    if not os.path.exists(tt.TRACE_PROCESSOR):
        print("SKIPPED [prof30h_spin_perfetto] trace_processor_shell is "
              "not there", flush=True)
        return None
    pf = trace[:-4] + ".pftrace"
    td("perfetto", trace, pf)
    calls, frames, samples = tt.trace_sql(pf, [
        "select id, coalesce(parent_id, -1), frame_id from "
        "stack_profile_callsite",
        "select id, name from stack_profile_frame",
        "select s.callsite_id, count(*) from perf_sample s join thread t "
        "using(utid) where t.tid = %d group by s.callsite_id" % pid])
    parent = {int(c[0]): (int(c[1]), int(c[2])) for c in calls}
    name = {int(f[0]): f[1] for f in frames}
    out = {}
    for cs, n in samples:
        chain, c = [], int(cs)
        while c >= 0:
            chain.append(name[parent[c][1]])
            c = parent[c][0]
        key = ";".join(reversed(chain))
        out[key] = out.get(key, 0) + int(n)
    return out


def check_spin(trace, text):
    pid = pid_of(text, "profspin")
    f = {k.split(";", 1)[1]: v for k, v in
         folded(trace, "--pid", str(pid)).items()}
    f1 = sum(v for k, v in f.items() if k.endswith(";f1"))
    f2 = sum(v for k, v in f.items() if k.endswith(";f2"))
    if f1 + f2 < 200:
        return "profspin: %d samples in f1 and f2, want >= 200: %s" % (
            f1 + f2, f)
    share = 100.0 * f1 / (f1 + f2)
    if abs(share - 70) > 3:
        return "profspin: f1 %d, f2 %d samples: %.1f%%, want 70 +- 3" % (
            f1, f2, share)
    for tool, got in (("go tool pprof", pprof_stacks(trace, pid)),
                      ("trace_processor", perfetto_stacks(trace, pid))):
        if got is not None and got != f:
            return "%s's stacks differ from folded's:\n%s\n%s" % (
                tool, sorted(got.items()), sorted(f.items()))
    return ""


def samples_of(text, hz, pid=None, cpu=None):
    """[(ns, interval ns)] of the profile_sample records of pid (or every
    one) on cpu (or every one) in ttdecode text, in time order."""
    out = []
    for us, frac, c, p, ticks in re.findall(
            r"(?m)^(\d+)\.(\d{3}) us cpu(\d+) \S+ profile_sample: "
            r"pid=(\d+) tid=\d+ mode=\d+ interval=(\d+)", text):
        if (pid is None or int(p) == pid) and (cpu is None or
                                               int(c) == cpu):
            out.append((int(us) * 1000 + int(frac),
                        int(ticks) * 10**9 // hz))
    return sorted(out)


def check_wrap(trace, text):
    """profspin, profiled in rings that wrapped past its spawn (its
    proc_exec record gone), still has its user pcs named by its ELF: aux
    keeps the path of its program (docs/profiling.md)."""
    if re.search(r"proc_exec: pid=\S+ filename=/bin/profspin", text):
        return "the rings did not wrap past profspin's spawn"
    user = [(k, v) for k, v in folded(trace).items()
            if k.startswith("profspin;")]
    named = sum(v for k, v in user if re.search(r";f[12](;|$)", k))
    bare = [k for k, _ in user if re.search(r";0x[0-9a-f]{1,12}(;|$)", k)]
    if not named or bare:
        return "profspin's user pcs after the wrap: %d samples in f1/f2, " \
               "user addresses no symbol names: %s; its stacks: %s" % (
                   named, bare[:4], [k for k, _ in user][:3])
    return ""


def covering(samples, ns):
    """The interval of the first of samples [(ns, interval)] at or after
    ns: the one whose interval holds ns (0: none)."""
    i = bisect.bisect_left(samples, (ns, 0))
    return samples[i][1] if i < len(samples) else 0


def check_boot(trace):
    prof = json.loads(td("boot", trace, "--json"))
    cpu0 = [ph for ph in prof["phases"] if ph["cpu"] == 0]
    text = td("text", trace)
    samples = samples_of(text, prof["tsc_hz"], cpu=0)
    if folded(trace, "--off-cpu"):
        return "the boot's trace has off-CPU time: --wall is not on-CPU"
    roots = {}
    for stack, ns in folded(trace, "--wall").items():
        m = re.match(r"[^;]*;\[boot\] ([^;]+)", stack)
        if m:
            roots[m.group(1)] = roots.get(m.group(1), 0) + ns
    # the text's clock is the profile's less the time before kmain: a
    # phase's start less the time of its boot_phase record
    base = None
    for ph in cpu0:
        m = re.search(r"(?m)^(\d+)\.(\d{3}) us cpu0 \S+ boot_phase: %s "
                      r"arg=" % re.escape(ph["name"]), text)
        if m:
            base = ph["start_ns"] - int(m.group(1)) * 1000 - int(m.group(2))
            break
    if base is None:
        return "boot: no boot_phase record of CPU 0 in the text"
    want, slack = {}, {}
    for ph in cpu0:
        n, start = ph["name"], ph["start_ns"] - base
        want[n] = want.get(n, 0) + ph["duration_ns"]
        slack[n] = slack.get(n, 0) + covering(samples, start) + covering(
            samples, start + ph["duration_ns"])
    sampled = [n for n in want if n in roots]
    if len(sampled) < 2:
        return "boot: samples in CPU 0's phases %s only (phases %s)" % (
            sorted(roots), sorted(want))
    # every phase from the first sampled one on is checked, sampled or
    # not: under a loaded TCG host the timer may fire less than once in a
    # short phase, and then the sample after it covers its start and end
    # (its slack), so a phase without samples passes only if that is why
    starts = {}
    for ph in cpu0:
        starts.setdefault(ph["name"], ph["start_ns"])
    first = min(starts[n] for n in sampled)
    bad = ["%s: samples weigh %d ns, phase %d ns, want +- %d" % (
               n, roots.get(n, 0), want[n], slack[n]) for n in want
           if starts[n] >= first and abs(roots.get(n, 0) - want[n]) >
           slack[n]]
    if bad:
        return "boot flame graph vs phases: " + "; ".join(bad)
    svg = trace[:-4] + "-flame.svg"
    td("flamegraph", trace, svg, "--wall")
    root = ET.parse(svg).getroot()
    if len(root.findall(".//{http://www.w3.org/2000/svg}g")) < len(sampled):
        return "the boot's flame graph has no frames"
    return ""


def session(path):
    """The one boot; returns (boot trace, programs' trace, wrapped
    trace, why)."""
    s = tt.Session(2, hostout=path, cmdline="ttrace.profile=%d" % HZ,
                   timeout=400, name="prof30h")
    try:
        s.say("ttrace save /dev/host/out", r"ttrace: saved /dev/host/out",
              timeout=120)
        s.say("ttrace clear; echo profile on %d all offcpu > "
              "/dev/ttrace/ctl; profspin 100; echo profile off > "
              "/dev/ttrace/ctl; echo spin-done" % HZ, r"\nspin-done",
              timeout=300)
        s.say("ttrace save /dev/host/out", r"ttrace: saved /dev/host/out",
              timeout=120)
        # rings of 16 KB: profspin's samples overwrite its spawn's records
        s.say("ttrace clear; echo bufsize 16 > /dev/ttrace/ctl; echo "
              "profile on %d all > /dev/ttrace/ctl; profspin 10; echo "
              "profile off > /dev/ttrace/ctl" % HZ, r"profspin: 10 rounds",
              timeout=300)
        s.say("ttrace save /dev/host/out", r"ttrace: saved /dev/host/out",
              timeout=120)
        why = s.finish("")
    except (TimeoutError, AssertionError) as e:
        why = s.finish(str(e))
    if why:
        return None, None, None, why
    saves = split_saves(path, s.run.text)
    if len(saves) != 3:
        return None, None, None, "%d saves, want 3" % len(saves)
    return saves + [""]


def run_all(res, only):
    names = ("prof30h_spin", "prof30h_boot", "prof30h_wrap")
    if only and not any(only in n for n in names):
        return
    os.makedirs(tt.OUT, exist_ok=True)
    boot, progs, wrapped, why = session(os.path.join(tt.OUT, "prof30h.ttr"))
    if why:
        for n in names:
            res.add(n, False, why)
        return
    text = td("text", progs)
    for name, fn in (("prof30h_spin", lambda: check_spin(progs, text)),
                     ("prof30h_boot", lambda: check_boot(boot)),
                     ("prof30h_wrap", lambda: check_wrap(
                         wrapped, td("text", wrapped)))):
        if not only or only in name:
            try:
                why = fn()
            except AssertionError as e:
                why = str(e)
            res.add(name, not why, why)
