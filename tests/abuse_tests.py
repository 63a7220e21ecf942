"""The abuse campaign of issue 11 (docs/reliability.md), in `make test`
and `make soak`:
  sysfuzz_smp4   sysfuzz at 4 CPUs typed into the shell, then the free
                 pages compared with the count before and usertests run
                 in the same boot (SYSFUZZ_TEST_CALLS calls in make test,
                 `make soak` SYSFUZZ_CALLS);
  soak_smp4      every kind of load at once for SOAK seconds of guest time
                 (30 in make test, `make soak` 600), every saved trace
                 verified on the host, pages back, then
  spawn_bomb     spawn to exhaustion, kill all, pages back (scaletest bomb),
                 and usertests, in the same boot;
  fuzz_NAME      a short, fixed-seed libFuzzer run of each parser
                 (scripts/fuzz.py --runs).

    tests/abuse_tests.py soak SECONDS     what `make soak` runs: the
                                          soak, then the long sysfuzz
"""
import os
import re
import subprocess
import sys

from qemu_run import ROOT
from ttrace_tests import OUT, Session, check_saved, free_pages

SYSFUZZ_SEED = 11
SYSFUZZ_CALLS = 100000          # make soak
# make test: each call is a random syscall number (every one, and
# out-of-range ones) with hostile arguments, so 25k calls past the 20k
# warm-up reach every number and argument set many times over, and the
# soak's fuzz stage runs 5k-call seeds all along; the long run finds
# what is rare
SYSFUZZ_TEST_CALLS = 25000
# Pages a first run leaves in kmalloc's caches and grown tables (measured:
# 42-57 pages after 20k-100k calls from a fresh boot); the count is taken
# after a warm-up run, and this much is still allowed.
KMALLOC_SLACK = 64


def settled_pages(s):
    """Free pages with the rings at their default size: the fuzzer's ctl
    writes resize them, which moves thousands of pages."""
    s.say("echo bufsize 1024 > /dev/ttrace/ctl; echo mode overwrite > "
          "/dev/ttrace/ctl", r"\n")
    return free_pages(s)


def sysfuzz(calls=SYSFUZZ_TEST_CALLS):
    """calls calls from 4 processes at 4 CPUs: no panic, no bad
    pointer accepted, every page back, usertests still passes."""
    s = Session(4, timeout=900, name="sysfuzz")
    try:
        s.say("sysfuzz %d 20000 4; echo status=$?" % (SYSFUZZ_SEED + 1),
              r"status=0", timeout=300)
        before = settled_pages(s)
        m = s.say("sysfuzz %d %d 4; echo status=$?" % (SYSFUZZ_SEED,
                                                       calls),
                  r"status=(\d+)", timeout=600)
        if m.group(1) != b"0":
            return s.finish("sysfuzz %d %d 4 exited with %s" % (
                SYSFUZZ_SEED, calls, m.group(1).decode()))
        after = settled_pages(s)
        if after < before - KMALLOC_SLACK:
            return s.finish("sysfuzz: %d pages not given back (%d -> %d)" %
                            (before - after, before, after))
        s.say("usertests; echo status=$?",
              r"usertests: \d+ passed, 0 failed(?:.|\n)*status=0", timeout=600)
    except TimeoutError as e:
        return s.finish(str(e))
    return s.finish("")


# The soak's pipeline (the shell's limit is 8 commands): a load, two of
# the mix of spawn/exit, pipes and /tmp I/O, sysfuzz, readers of every
# cpuN, the toggler of groups, the resizer of bufsize and modes (with
# clear), and the saver, last, whose stdout is the console; the others
# report on stderr (user/bin/tracestress.c).
SOAK_STAGES = ["tracestress load", "tracestress mix",
               "tracestress mix", "tracestress fuzz", "tracestress read",
               "tracestress toggle", "tracestress resize"]
# Pages kmalloc may keep after the soak (its free lists never give pages
# back; measured: see docs/reliability.md).
SOAK_SLACK = 256
SOAK_TRACE_MB = 5               # one save at 4 CPUs, 1 MiB rings, all on
HOSTOUT_MB = 128                # the host channel's window (scripts/qemu.sh)


def soak_interval(seconds):
    """Seconds between saves: as often as every 4 s, as long as the
    traces fit the host channel's window."""
    return max(4, seconds * SOAK_TRACE_MB // (HOSTOUT_MB - 8) + 1)


def soak(seconds, res):
    """Every load at once on 4 CPUs for seconds of guest time with every
    event group on, saving the trace to the host every soak_interval():
    no panic, every load and sysfuzz run reported success, every saved
    trace verifies, the free pages come back, a spawn bomb recovers, and
    usertests passes. Adds soak_smp4 and spawn_bomb to res."""
    os.makedirs(OUT, exist_ok=True)
    name = "soak%d" % seconds  # make soak and make test may run together
    out = os.path.join(OUT, name + ".ttr")
    if os.path.exists(out):
        os.remove(out)
    s = Session(4, hostout=out, timeout=seconds * 5 + 1500, name=name)
    why, bomb, saved = "", "not run: the soak failed", 0
    try:
        before = settled_pages(s)
        s.say("echo enable '*' > /dev/ttrace/ctl; rm /tmp/stress.done "
              "/tmp/stress.log", r"\n")
        start = len(s.run.out)
        m = s.say("%s | tracestress save %d %d" % (
            " | ".join(SOAK_STAGES), seconds, soak_interval(seconds)),
            rb"save: (\d+) traces saved", timeout=seconds * 5 + 300)
        saved = int(m.group(1))
        # the other stages end at their next check of /tmp/stress.done:
        # a sysfuzz run or a save in flight first finishes (minutes on a
        # loaded host under TCG), so the prompt is waited for that long
        text = s.say("cat /tmp/stress.log", rb"(?:.|\n)*?(?=\$ )",
                     timeout=600).group(0)
        text = text.decode("utf-8", "replace")
        mix = re.findall(r"mix: (\d+) rounds", text)
        fz = re.search(r"fuzz: (\d+) runs, (\d+) failed", text)
        errors = re.findall(r"tracestress: .*", s.run.text[start:])
        if len(mix) != 2 or not fz or fz.group(2) != "0" or errors:
            why = "a load failed: %s %s" % (text[-1000:], errors)
        after = settled_pages(s)
        print("# soak: %d s, %d traces saved, mix rounds %s, sysfuzz runs "
              "%s, free pages %d before, %d after" % (
                  seconds, saved, "+".join(mix), fz and fz.group(1),
                  before, after), flush=True)
        if not why and after < before - SOAK_SLACK:
            why = "%d pages not given back (%d -> %d, slack %d)" % (
                before - after, before, after, SOAK_SLACK)
        m = s.say("scaletest bomb", r"(PASSED|FAILED) \[scale_bomb\].*",
                  timeout=900)
        bomb = "" if m.group(1) == b"PASSED" else m.group(0).decode()
        print("# " + "\n# ".join(re.findall(r"scale_bomb: .*", s.run.text)),
              flush=True)
        s.say("usertests; echo status=$?",
              r"usertests: \d+ passed, 0 failed(?:.|\n)*status=0",
              timeout=900)
    except TimeoutError as e:
        why = str(e)
    why = s.finish(why)
    if not why:
        why = check_saved(out, saved)
    res.add("soak_smp4", not why, why)
    res.add("spawn_bomb", not why and not bomb, bomb or why)


# inputs per target in `make test`; export runs every exporter on each
# input the loader accepts (300 inputs/s, where ttload does 1,400), and
# ttload is nearly as slow under load (136-370/s on a loaded host):
# 10,000 from seed 1 reached 771 edges (fuzz.py's cov) where two runs of
# 20,000 reached 781 and 795 and 5,000 745; `make fuzz` searches for the
# rest
FUZZ_RUNS = {"ttload": 10000, "export": 5000, "ctl": 20000, "probe": 20000,
             "cmdline": 20000, "elf": 20000, "cpio": 20000, "sh": 20000}


def fuzz_short(res, only):
    """Each libFuzzer target for FUZZ_RUNS inputs from a fixed seed (the
    same run every time, whatever the host's speed)."""
    for runs in sorted(set(FUZZ_RUNS.values())):
        names = [n for n, r in FUZZ_RUNS.items()
                 if r == runs and (not only or only in "fuzz_" + n)]
        if not names:
            continue
        p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts",
                                                         "fuzz.py"),
                            "--runs", str(runs)] + names,
                           capture_output=True, text=True, timeout=1800,
                           cwd=ROOT)
        if res.add_lines("", p.stdout) != len(names):
            res.add("fuzz_short", False, p.stdout[-1500:] + p.stderr[-1500:])


def run_all(res, only):
    for name, fn in (("sysfuzz_smp4", sysfuzz),):
        if not only or only in name:
            why = fn()
            res.add(name, not why, why)
    if not only or only in "soak_smp4" or only in "spawn_bomb":
        soak(int(os.environ.get("SOAK", "30")), res)
    fuzz_short(res, only)


def main():
    """`make soak`: tests/abuse_tests.py soak SECONDS: the soak, then
    sysfuzz's long run (make test runs both shorter)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from run_tests import Results
    if len(sys.argv) != 3 or sys.argv[1] != "soak":
        sys.exit("usage: abuse_tests.py soak SECONDS")
    res = Results("")
    soak(int(sys.argv[2]), res)
    why = sysfuzz(SYSFUZZ_CALLS)
    res.add("sysfuzz_smp4_long", not why, why)
    print("%d passed, %d failed" % (res.passed, res.failed))
    return 1 if res.failed else 0


if __name__ == "__main__":
    sys.exit(main())
