#!/usr/bin/env python3
"""`ttdecode tracedat` read back by the real trace-cmd (docs/exports.md,
"trace-cmd and KernelShark").

check(ttdecode, trace) exports the trace to TRACE.dat, runs `trace-cmd
report` and `trace-cmd report -R` on it and returns "" or why it is wrong:
an error or warning from trace-cmd; a count per event name different from
`ttdecode text`'s (func_entry and func_exit are ftrace's funcgraph_entry
and funcgraph_exit, other events Linux's: LINUX); a CPU whose records go
back in time; a sched_switch or syscall_enter without its fields by name;
EVENTS DROPPED lines that do not add up to the declared losses of
`ttdecode verify`.

Run as a script on traces (the fuzz corpus's by default) it prints one
PASSED/FAILED line per trace; `trace-cmd` missing is a skip, said so.
"""
import collections
import glob
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TTDECODE = os.path.join(ROOT, "build", "tools", "ttdecode")
# traces of the fuzz corpus that ttdecode verify accepts: two boots, a
# save of four CPUs, a save read across ring changes (its runs in 64-entry
# rings' runs, its STATS a 1024-entry ring's) and a stream with declared
# losses
CORPUS = sorted(glob.glob(os.path.join(ROOT, "tests", "fuzz", "corpus",
                                       "export", "*.ttr"))) + \
    [os.path.join(ROOT, "tests", "fuzz", "corpus", "ttload",
                  "stream-smp1-losses.ttr")]

# our events that trace.dat writes as Linux's (tools/export/
# tttracedat_linux.c), when they carry the arguments Linux's record needs
LINUX = {"funcgraph_entry": "func_entry", "funcgraph_exit": "func_exit",
         "print": "user_marker", "irq_handler_entry": "irq_enter",
         "irq_handler_exit": "irq_exit", "sched_process_fork": "proc_create",
         "sched_process_exec": "proc_exec", "sched_process_exit": "proc_exit",
         "sched_process_free": "proc_free"}
TEXT_LINE = re.compile(r"^(\d+\.\d+) us cpu(\d+) \S+ (\w+): ")
REPORT_LINE = re.compile(r"^\s*.+-(\d+)\s+\[(\d+)\]\s+(\d+\.\d+): (\w+):")
DROPPED = re.compile(r"^CPU:(\d+) \[(\d+) EVENTS DROPPED\]$", re.M)


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True,
                          timeout=300)


def text_counts(ttdecode, trace):
    """Events per name in `ttdecode text`, each CPU's event times (us), and
    verify's declared losses."""
    t = run(ttdecode, "text", trace)
    v = run(ttdecode, "verify", trace)
    if t.returncode or v.returncode:
        raise AssertionError("ttdecode text/verify: %s%s" % (
            t.stderr[-400:], v.stdout[-400:]))
    counts = collections.Counter()
    times = collections.defaultdict(list)
    for line in t.stdout.splitlines():
        m = TEXT_LINE.match(line)
        if m:
            counts[m.group(3)] += 1
            times[int(m.group(2))].append(float(m.group(1)))
    declared = int(re.search(r"declared lost: (\d+)", v.stdout).group(1))
    return counts, times, declared


def report(dat, *opts):
    r = run("trace-cmd", "report", *opts, "-i", dat)
    bad = [l for l in r.stderr.splitlines()
           if re.search(r"error|warn|fail|bad|invalid", l, re.I)]
    if r.returncode or bad:
        raise AssertionError("trace-cmd report %s: status %d: %s" % (
            " ".join(opts), r.returncode, "\n".join(bad)[-800:]))
    return r.stdout


def check_report(out, counts, times, declared):
    """The counts per name, and each CPU's times: in order, and those of
    ttdecode text (report rounds them to the microsecond)."""
    got = collections.Counter()
    last = {}
    seen = collections.defaultdict(list)
    for line in out.splitlines():
        m = REPORT_LINE.match(line)
        if not m:
            continue
        cpu, ts = int(m.group(2)), float(m.group(3))
        if ts < last.get(cpu, 0.0):
            raise AssertionError("cpu%d goes back in time at %s" % (cpu,
                                                                    line))
        last[cpu] = ts
        seen[cpu].append(ts * 1e6)
        got[LINUX.get(m.group(4), m.group(4))] += 1
    if got != counts:
        diff = {k: (got[k], counts[k]) for k in set(got) | set(counts)
                if got[k] != counts[k]}
        raise AssertionError("trace-cmd report's counts differ from "
                             "ttdecode text's (report, text): %s" % diff)
    for cpu, want in times.items():
        bad = [(a, b) for a, b in zip(seen[cpu], want) if abs(a - b) > 1.5]
        if bad:
            raise AssertionError("cpu%d: report's time %.1f us is ttdecode "
                                 "text's %.3f us" % (cpu, *bad[0]))
    dropped = sum(int(n) for _, n in DROPPED.findall(out))
    if dropped != declared:
        raise AssertionError("trace-cmd report shows %d events dropped, the "
                             "trace declares %d" % (dropped, declared))


def check_fields(raw, counts):
    want = []
    if counts["sched_switch"]:
        want.append(r"sched_switch:\s+prev_comm=\S+ prev_pid=\d+ "
                    r"prev_prio=120 prev_state=\d+ next_comm=\S+ "
                    r"next_pid=\d+ next_prio=120")
    if counts["syscall_enter"]:     # the number, its name as nr_name
        want.append(r"syscall_enter:\s+nr=(?:0x)?[0-9a-f]+ a0=\S+ a1=\S+ "
                    r"a2=\S+ nr_name=[a-z]\w*")
    for w in want:
        if not re.search(w, raw):
            raise AssertionError("trace-cmd report -R: no line like %s" % w)


def check(ttdecode, trace):
    """Exports trace to TRACE.dat and checks it; returns "" or why."""
    dat = re.sub(r"\.ttr$", "", trace) + ".dat"
    try:
        counts, times, declared = text_counts(ttdecode, trace)
        p = run(ttdecode, "tracedat", trace, dat)
        if p.returncode or "records lost" not in p.stdout:
            raise AssertionError("ttdecode tracedat: %s%s" % (p.stdout,
                                                              p.stderr))
        check_report(report(dat), counts, times, declared)
        check_fields(report(dat, "-R"), counts)
    except AssertionError as e:
        return "%s: %s" % (os.path.basename(trace), e)
    return ""


def main(argv):
    ttdecode = TTDECODE
    traces = argv or CORPUS
    if not shutil.which("trace-cmd"):
        print("SKIPPED [tracedat] trace-cmd is not installed: run "
              "scripts/deps.sh")
        return 0
    failed = 0
    for trace in traces:
        out = os.path.join(ROOT, "build", "test", "tracedat",
                           os.path.basename(trace))
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.copyfile(trace, out)
        why = check(ttdecode, out)
        name = "tracedat_" + os.path.basename(trace)[:-4]
        print("PASSED [%s]" % name if not why else
              "FAILED [%s] %s" % (name, why))
        failed += bool(why)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
