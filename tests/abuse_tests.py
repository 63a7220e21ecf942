"""The abuse campaign of issue 11 in `make test` (docs/reliability.md):
sysfuzz at 4 CPUs typed into the shell, then the free pages compared with
the count before and usertests run in the same boot."""
import re

from ttrace_tests import Session, free_pages

SYSFUZZ_SEED = 11
SYSFUZZ_CALLS = 100000
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


def sysfuzz():
    """SYSFUZZ_CALLS calls from 4 processes at 4 CPUs: no panic, no bad
    pointer accepted, every page back, usertests still passes."""
    s = Session(4, timeout=900, name="sysfuzz")
    try:
        s.say("sysfuzz %d 20000 4; echo status=$?" % (SYSFUZZ_SEED + 1),
              r"status=0", timeout=300)
        before = settled_pages(s)
        m = s.say("sysfuzz %d %d 4; echo status=$?" % (SYSFUZZ_SEED,
                                                       SYSFUZZ_CALLS),
                  r"status=(\d+)", timeout=600)
        if m.group(1) != b"0":
            return s.finish("sysfuzz %d %d 4 exited with %s" % (
                SYSFUZZ_SEED, SYSFUZZ_CALLS, m.group(1).decode()))
        after = settled_pages(s)
        if after < before - KMALLOC_SLACK:
            return s.finish("sysfuzz: %d pages not given back (%d -> %d)" %
                            (before - after, before, after))
        s.say("usertests; echo status=$?",
              r"usertests: \d+ passed, 0 failed(?:.|\n)*status=0", timeout=600)
    except TimeoutError as e:
        return s.finish(str(e))
    return s.finish("")


def run_all(res, only):
    for name, fn in (("sysfuzz_smp4", sysfuzz),):
        if not only or only in name:
            why = fn()
            res.add(name, not why, why)
