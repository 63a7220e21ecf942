#!/usr/bin/env python3
"""The test driver behind `make test`.

Runs the four kinds of test and prints one line per result, then the
summary line `N passed, N failed`:
  1. host unit tests (build/host/test_*), each printing PASSED/FAILED lines;
  2. in-kernel tests, booted with `ktests`, whose lines count one each;
  3. boot scenarios (tests/boot_tests.py), one result each;
  4. user tests (when user space exists), through the boot scenarios.
`make test T=name` runs only the results whose name contains name: whole
scenarios and host test binaries by their names, and single tests inside
them: host tests (the name is passed to the binary), ktests (a boot with
`ktests=name`, which runs those whose name starts with it) and usertests
(`usertests name`, those whose name contains it).
"""
import glob
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import boot_tests  # noqa: E402
import ttrace_tests  # noqa: E402
import abuse_tests  # noqa: E402
import seams_strsafe  # noqa: E402
import seams_drainlife  # noqa: E402
import seams_bootfiles  # noqa: E402
import seams_latstack  # noqa: E402
import seams_fileformat  # noqa: E402
import seams_probelock  # noqa: E402
import seams_sched  # noqa: E402
import seams_tracefs31a  # noqa: E402
import seams_wake29  # noqa: E402
import seams_pack29  # noqa: E402
import seams_exports29  # noqa: E402
import seams_analysis29  # noqa: E402
import seams_tracefs31b  # noqa: E402
import seams_tfs31c  # noqa: E402
import seams_prof30h  # noqa: E402
import seams_prof30k  # noqa: E402
import seams_prof30d  # noqa: E402
import seams_tfs31d  # noqa: E402
import seams_tfs31g  # noqa: E402
import seams_hostile  # noqa: E402
from qemu_run import ROOT  # noqa: E402

LINE = re.compile(r"^(?:\[\s*\d+\.\d+\] )?(PASSED|FAILED) \[([^\]]+)\]\s*(.*)$")


class Results:
    def __init__(self, only):
        self.passed = self.failed = 0
        self.only = only
        self.last = time.monotonic()
        self.took = []          # (seconds since the previous result, name)

    def add(self, name, ok, why=""):
        now = time.monotonic()
        self.took.append((now - self.last, name))
        self.last = now
        if ok:
            self.passed += 1
            print("PASSED [%s]" % name, flush=True)
        else:
            self.failed += 1
            print("FAILED [%s] %s" % (name, why), flush=True)

    def add_lines(self, prefix, text):
        """Counts every PASSED/FAILED line in text; returns how many."""
        n = 0
        for line in text.splitlines():
            m = LINE.match(line.strip())
            if m:
                self.add(prefix + m.group(2), m.group(1) == "PASSED", m.group(3))
                n += 1
        return n


def run_host_tests(res):
    for exe in sorted(glob.glob(os.path.join(ROOT, "build", "host", "test_*"))):
        if exe.endswith(".d"):
            continue
        name = os.path.basename(exe)
        # a T= that names no whole binary may name tests inside one
        aim = [res.only] if res.only and res.only not in name else []
        try:
            p = subprocess.run([exe] + aim, capture_output=True, text=True,
                               timeout=300, cwd=ROOT)
        except subprocess.TimeoutExpired:
            res.add(name, False, "timed out after 300 s")
            continue
        n = res.add_lines(name + ":", p.stdout)
        if p.returncode != 0 and "FAILED" not in p.stdout:
            res.add(name, False, "exit %d after %d results: %s" % (
                p.returncode, n, p.stderr.strip()[-2000:]))


def main():
    only = os.environ.get("T", "")
    res = Results(only)
    start = time.monotonic()
    run_host_tests(res)
    boot_tests.run_all(res, only)
    ttrace_tests.run_all(res, only)
    abuse_tests.run_all(res, only)
    seams_strsafe.run_all(res, only)
    seams_drainlife.run_all(res, only)
    seams_bootfiles.run_all(res, only)
    seams_latstack.run_all(res, only)
    seams_fileformat.run_all(res, only)
    seams_probelock.run_all(res, only)
    seams_sched.run_all(res, only)
    seams_tracefs31a.run_all(res, only)
    seams_wake29.run_all(res, only)
    seams_pack29.run_all(res, only)
    seams_exports29.run_all(res, only)
    seams_analysis29.run_all(res, only)
    seams_tracefs31b.run_all(res, only)
    seams_tfs31c.run_all(res, only)
    seams_prof30h.run_all(res, only)
    seams_prof30k.run_all(res, only)
    seams_prof30d.run_all(res, only)
    seams_tfs31d.run_all(res, only)
    seams_tfs31g.run_all(res, only)
    seams_hostile.run_all(res, only)
    print("tests took %.0f s; the slowest: %s" % (
        time.monotonic() - start, ", ".join(
            "%s %.0f s" % (n, t) for t, n in sorted(res.took)[::-1][:8])))
    print("%d passed, %d failed" % (res.passed, res.failed))
    return 1 if res.failed or res.passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
