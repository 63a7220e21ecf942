"""The host analyses of issue 29 (docs/analysis.md) on traces of programs
whose answers are known (user/bin/critchain.c), from ONE boot at 1 CPU
that saves three traces. One CPU: a thread woken onto an idle CPU's
queue waits there for the CPU to wake from its halt, up to 10 ms under
TCG on a loaded host (critpath shows it), which is B's time, not C's,
and would make the chain's share depend on the host's load.

analysis29_chain: `critchain chain 300`: A waits on a pipe for B, B for
  C, C computes 300 ms. `ttdecode critpath --pid A` between A's markers
  tiles the window to the nanosecond and gives >= 99% of A's wait to C's
  computing and C's waits for a CPU.
analysis29_perfetto: the same trace through `ttdecode perfetto` and the
  trace processor's `_thread_executing_span_critical_path` gives the same
  threads over the same intervals (skipped, with a message, without
  /work/shared/tools/trace_processor_shell).
analysis29_starve: `critchain starve 1`: a hog on the CPU, a thread
  napping 2 ms five times: its critical path has it runnable behind the
  hog.
analysis29_errno: `ttrace graph -- critchain errors`: `ttdecode errno`
  names, for each of the five seeded failing calls, the kernel function
  that made its error (ERRNO_ORIGIN).
"""
import os
import re
import subprocess

from qemu_run import DEFAULT_EVENTS, ROOT
from ttrace_tests import Session, fresh_out, ttdecode, split_saved

TRACE_PROCESSOR = os.environ.get(
    "TRACE_PROCESSOR", os.path.join(os.path.dirname(ROOT), "shared", "tools",
                                    "trace_processor_shell"))
# to the line's end: pexpect matches as soon as it can, so a `\d+` at the
# pattern's end would take the first digit of a pid still arriving
DONE = re.compile(rb"critchain: done ([A-Z]=\d+(?: [A-Z]=\d+)*)\r?\n")
# a marker's line, the record's context flags (` [.N.]`) after it if set
MARK = re.compile(r"^(\d+)\.(\d{3}) us cpu\d+ \S+ user_marker: (\S+)"
                  r"(?: \[...\])?$")
PIECE = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)  ( *)(.+?) "
                   r"(running|runnable|blocked|not yet created|exited|"
                   r"untraced)\b(.*)$")
PIDOF = re.compile(r"\[(\d+)\]$")

# The function that first returns each seeded error (docs/analysis.md,
# "errno"): the initramfs tree's lookup for the missing file (under
# chan_walk > root_walk), copyinstr for the bad pointer and for the path
# without a NUL in reach; for the bad descriptor and the refused ctl
# command the helpers that record the error's text and return the value
# their caller chose (fd_err under sys_read; errstr_device under
# chan_write, called by the ttrace ctl file's parser, tracer code that
# the graph does not trace).
ERRNO_ORIGIN = {
    -2: "cpio_tree_child",
    -9: "fd_err",
    -14: "copyinstr",
    -36: "copyinstr",
    -22: "errstr_device",
}


def markers(path, begin, end):
    """The ns of user markers begin and end in the trace at path."""
    at = {}
    for line in ttdecode("text", "--event", "user_marker", path
                         ).stdout.splitlines():
        m = MARK.match(line)
        if m and m[3] in (begin, end):
            at[m[3]] = int(m[1]) * 1000 + int(m[2])
    return at.get(begin), at.get(end)


def parse_pieces(text):
    """[(start, end, depth, name, pid, state, rest)] of each line of
    ttdecode critpath's text (a WAIT line's rest ends with ':')."""
    pieces = []
    for line in text.splitlines():
        m = PIECE.match(line)
        if m:
            who = PIDOF.search(m[5])
            pieces.append((int(m[1]), int(m[2]), len(m[4]) // 2, m[5],
                           int(who[1]) if who else None, m[6], m[7]))
    return pieces


def critpath(path, pid, t0, t1):
    """(pieces (parse_pieces), the sum line's (pieces, wall), the output)
    of ttdecode critpath."""
    r = ttdecode("critpath", "--pid", str(pid), "--from", str(t0), "--to",
                 str(t1), path)
    s = re.search(r"^pieces: (\d+) ns = wall (\d+) ns$", r.stdout, re.M)
    return parse_pieces(r.stdout), (int(s[1]), int(s[2])) if s else None, \
        r.stdout + r.stderr


def tiled(pieces, sums, t0, t1):
    """Why the pieces at depth 0.. do not tile [t0, t1), or "". A WAIT
    line is not a piece (it ends with ':'), so depth alone orders them."""
    if not sums or sums[0] != sums[1] or sums[1] != t1 - t0:
        return "pieces sum %s, window %d ns" % (sums, t1 - t0)
    t = t0
    for p in pieces:
        if p[6].endswith(":"):
            continue
        if p[0] != t:
            return "a piece starts at %d, the one before ended at %d" % (
                p[0], t)
        t = p[1]
    return "" if t == t1 else "the pieces end at %d, not %d" % (t, t1)


def check_chain(path, pids):
    t0, t1 = markers(path, "crit-begin", "crit-end")
    if t0 is None or t1 is None:
        return "no crit-begin/crit-end markers", None
    pieces, sums, out = critpath(path, pids["A"], t0, t1)
    why = tiled(pieces, sums, t0, t1)
    if why:
        return why + "\n" + out[-3000:], None
    wait = sum(p[1] - p[0] for p in pieces if not p[6].endswith(":") and
               (p[2] > 0 or p[5] == "blocked"))
    by_c = sum(p[1] - p[0] for p in pieces if not p[6].endswith(":") and
               p[2] > 0 and p[4] == pids["C"] and
               p[5] in ("running", "runnable"))
    print("# analysis29 chain: A waited %d ns, C computed or waited for a "
          "CPU %d ns of it (%.3f%%)" % (wait, by_c,
                                       100.0 * by_c / max(wait, 1)))
    if wait < (t1 - t0) // 2 or by_c < 0.99 * wait:
        return "A's wait %d ns of %d, C's part %d ns (want >= 99%%)\n%s" % (
            wait, t1 - t0, by_c, out[-3000:]), None
    return "", (t0, t1, pieces)


def critical_path_sql(pid, t0, t1):
    """The trace processor's critical path of thread pid over [t0, t1)
    (the thread of that tid with states in the window: a tid reused, or
    renamed by an exec, has several)."""
    return ("INCLUDE PERFETTO MODULE sched.thread_executing_span;\n"
            "select cp.ts, cp.dur, t.tid from "
            "_thread_executing_span_critical_path((select utid from "
            "thread_state join thread using(utid) where tid = %d and "
            "ts < %d order by ts desc limit 1), %d, %d) cp join thread t "
            "using(utid) order by cp.ts;\n" % (pid, t1, t0, t1 - t0))


def critical_path_rows(text):
    """[(ts, end, tid)] of the trace processor's output of that query."""
    return [(int(a), int(a) + int(b), int(c)) for a, b, c in
            re.findall(r"^(\d+),(\d+),(\d+)$", text, re.M)]


def trace_processor(pf, sql):
    """The trace processor's output of sql on the Perfetto trace pf."""
    return subprocess.run([TRACE_PROCESSOR, "-q", "/dev/stdin", pf],
                          input=sql, capture_output=True, text=True,
                          timeout=300)


def perfetto_path(path, pid, t0, t1):
    """critical_path_rows() on `ttdecode perfetto` of path: (rows, ""),
    (None, why it failed), or ([], why it cannot be asked: the export
    carries no waker)."""
    pf = path + ".pftrace"
    r = ttdecode("perfetto", path, pf)
    if r.returncode:
        return None, "ttdecode perfetto: " + r.stderr
    r = trace_processor(pf, "select count(*) from thread_state where "
                        "waker_utid is not null;\n")
    if re.search(r"^0$", r.stdout, re.M):
        return [], "ttdecode perfetto exports no wakeup (no thread_state " \
            "has a waker_utid): nothing to compare"
    r = trace_processor(pf, critical_path_sql(pid, t0, t1))
    rows = critical_path_rows(r.stdout)
    if r.returncode or not rows:
        return None, "trace processor: %s%s" % (r.stdout[-1500:],
                                                r.stderr[-1500:])
    return rows, ""


def merged(spans):
    """Adjacent spans of one thread joined: [(start, end, pid)]."""
    out = []
    for s, e, pid in spans:
        if out and out[-1][2] == pid and out[-1][1] == s:
            out[-1] = (out[-1][0], e, pid)
        else:
            out.append((s, e, pid))
    return out


def same_answer(ours, theirs):
    """Whether critpath's merged pieces, from where Perfetto's path begins
    (its walk starts at the root's first executing span), are theirs."""
    lo = theirs[0][0]
    return [(max(s, lo), e, pid) for s, e, pid in ours if e > lo] == theirs


def check_perfetto(path, pids, chain):
    """The trace processor's attribution of A's window, thread by thread
    and interval by interval, against critpath's (where Perfetto's walk
    has pieces)."""
    if not os.access(TRACE_PROCESSOR, os.X_OK):
        print("# analysis29 perfetto: skipped: no %s" % TRACE_PROCESSOR)
        return ""
    t0, t1, pieces = chain
    theirs, why = perfetto_path(path, pids["A"], t0, t1)
    if theirs is None:
        return why
    if not theirs:
        print("# analysis29 perfetto: skipped: %s" % why)
        return ""
    ours = merged([(p[0], p[1], p[4]) for p in pieces
                   if not p[6].endswith(":")])
    theirs = merged(theirs)
    print("# analysis29 perfetto: %d intervals: %s" % (len(theirs),
                                                      theirs[:6]))
    if not same_answer(ours, theirs):
        return "critpath %s\nperfetto %s" % (ours[:12], theirs[:12])
    return ""


def check_starve(path, pids):
    t0, t1 = markers(path, "starve-begin", "starve-end")
    if t0 is None or t1 is None:
        return "no starve-begin/starve-end markers"
    pieces, sums, out = critpath(path, pids["S"], t0, t1)
    why = tiled(pieces, sums, t0, t1)
    if why:
        return why + "\n" + out[-3000:]
    behind = [p for p in pieces if p[2] == 0 and p[5] == "runnable" and
              re.search(r"behind critchain\[(\d+)\]", p[6]) and
              int(re.search(r"\[(\d+)\]", p[6])[1]) != pids["S"]]
    print("# analysis29 starve: %d runnable pieces behind a hog, %d ns" % (
        len(behind), sum(p[1] - p[0] for p in behind)))
    if not behind:
        return "no runnable piece behind a hog\n" + out[-3000:]
    return ""


def check_errno(path, pids):
    r = ttdecode("errno", path)
    got = re.findall(r"^\d+ ns critchain\[%d\] \S+ = (-\d+) \([^)]*\): "
                     r"(?:first returned by (\S+) at \d+ ns|(.*))$" %
                     pids["E"], r.stdout, re.M)
    print("# analysis29 errno: %s" % got)
    want = sorted(ERRNO_ORIGIN.items())
    have = sorted((int(e), f or why) for e, f, why in got)
    if have != want:
        return "critchain errors: origins %s, want %s\n%s" % (
            have, want, r.stdout[-3000:] + r.stderr)
    return ""


def run_all(res, only):
    names = ("analysis29_chain", "analysis29_perfetto", "analysis29_starve",
             "analysis29_errno")
    if only and not any(only in n for n in names):
        return
    out = fresh_out("analysis29.ttr")
    s = Session(1, hostout=out, cmdline=DEFAULT_EVENTS, name="analysis29")
    pids = {}
    try:
        for cmd in ("critchain chain 300", "critchain starve 1"):
            s.say("ttrace clear", r"\n")
            m = s.say(cmd, DONE, timeout=180)
            pids.update((k, int(v)) for k, v in
                        (kv.split("=") for kv in m[1].decode().split()))
            s.say("ttrace save /dev/host/out", r"saved /dev/host/out",
                  timeout=180)
        m = s.say("ttrace graph -- critchain errors", DONE, timeout=180)
        pids.update((k, int(v)) for k, v in
                    (kv.split("=") for kv in m[1].decode().split()))
        s.run.expect(r"graph saved to /dev/host/out", timeout=180)
        why = s.finish("")
    except TimeoutError as e:
        why = s.finish(str(e))
    paths = []
    if not why:
        paths, why = split_saved(out, 3)
    if why:
        for n in names:
            res.add(n, False, why)
        return
    why, chain = check_chain(paths[0], pids)
    res.add(names[0], not why, why)
    why = check_perfetto(paths[0], pids, chain) if chain else \
        "no chain to compare"
    res.add(names[1], not why, why)
    why = check_starve(paths[1], pids)
    res.add(names[2], not why, why)
    why = check_errno(paths[2], pids)
    res.add(names[3], not why, why)
