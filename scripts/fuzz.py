#!/usr/bin/env python3
"""Runs the libFuzzer targets of tests/fuzz/ (built by mk/fuzz.mk into
build/fuzz/NAME) and prints one result line per target:

    PASSED [fuzz_ctl] 100.0 s, 1234567 execs (12345/s), cov 456 ft 789, corpus 120

    scripts/fuzz.py --seconds 600 [NAME...]  `make fuzz`: the time split
                                             evenly over the targets
    scripts/fuzz.py --runs 20000 [NAME...]   `make test`: a fixed number
                                             of inputs from a fixed seed,
                                             the same run every time

A timed run starts from the seeds (tests/fuzz/corpus/NAME), the kept
crashes (tests/fuzz/crashes/NAME) and what earlier runs found
(build/fuzz/work/NAME, outside the tree); a counted run from the seeds
and crashes only. Every input that crashes a target, trips a sanitizer,
leaks, runs longer than --timeout seconds (a hang) or allocates over the
memory limit is copied into tests/fuzz/crashes/NAME/, where the replay
test of `make test` (build/host/test_fuzz_NAME) runs it from then on,
and the target fails. To rerun one:  build/fuzz/NAME FILE
"""
import argparse
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build", "fuzz")
TREE = os.path.join(ROOT, "tests", "fuzz")
ARTIFACT = re.compile(r"^(crash|leak|timeout|oom|slow-unit)-")


def targets():
    return sorted(os.path.basename(p)[5:-2] for p in
                  glob.glob(os.path.join(TREE, "fuzz_*.c")))


def keep_artifacts(name, outdir):
    """Copies what libFuzzer wrote to outdir into tests/fuzz/crashes/name
    (named by kind and content hash); returns the kept paths."""
    kept = []
    dest = os.path.join(TREE, "crashes", name)
    for f in sorted(os.listdir(outdir)):
        if not ARTIFACT.match(f) or f.startswith("slow-unit-"):
            continue
        data = open(os.path.join(outdir, f), "rb").read()
        os.makedirs(dest, exist_ok=True)
        path = os.path.join(dest, "%s-%s" % (
            f.split("-")[0], hashlib.sha1(data).hexdigest()[:16]))
        with open(path, "wb") as fh:
            fh.write(data)
        kept.append(os.path.relpath(path, ROOT))
    return kept


def stats(text):
    """The figures libFuzzer printed last: execs, exec/s, cov, ft, corpus."""
    done = re.findall(r"#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/", text)
    execs = re.search(r"stat::number_of_executed_units: (\d+)", text)
    rate = re.search(r"stat::average_exec_per_sec:\s+(\d+)", text)
    last = done[-1] if done else ("0", "0", "0", "0")
    return {"execs": int(execs.group(1)) if execs else int(last[0]),
            "rate": int(rate.group(1)) if rate else 0,
            "cov": int(last[1]), "ft": int(last[2]), "corpus": int(last[3])}


def run(name, seconds, runs, timeout, rss_mb):
    """Fuzzes one target; returns (ok, result line)."""
    exe = os.path.join(BUILD, name)
    if not os.access(exe, os.X_OK):
        return False, "%s not built (make fuzz-build)" % exe
    seeds = os.path.join(TREE, "corpus", name)
    crashes = os.path.join(TREE, "crashes", name)
    out = os.path.join(BUILD, "artifacts", name)
    work = os.path.join(BUILD, "work" if runs is None else "short", name)
    shutil.rmtree(out, ignore_errors=True)
    if runs is not None:
        shutil.rmtree(work, ignore_errors=True)
    os.makedirs(out)
    os.makedirs(work, exist_ok=True)
    args = [exe, "-timeout=%d" % timeout, "-rss_limit_mb=%d" % rss_mb,
            "-malloc_limit_mb=%d" % rss_mb, "-print_final_stats=1",
            "-artifact_prefix=%s/" % out]
    if runs is None:
        args.append("-max_total_time=%d" % seconds)
    else:
        args += ["-runs=%d" % runs, "-seed=1"]
    args += [work, seeds] + ([crashes] if os.path.isdir(crashes) else [])
    # the harness's own limit on top of libFuzzer's: a whole-run hang
    limit = (seconds if runs is None else 0) + 600
    start = time.monotonic()
    try:
        p = subprocess.run(args, capture_output=True, text=True,
                           errors="replace", timeout=limit, cwd=ROOT)
        text, code = p.stderr + p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        text = (e.stderr or b"").decode("utf-8", "replace")
        code = "killed after %d s" % limit
    with open(os.path.join(BUILD, "artifacts", name + ".log"), "w") as f:
        f.write(text)
    s = stats(text)
    if not s["rate"]:       # libFuzzer prints 0 for runs under a second
        s["rate"] = int(s["execs"] / max(time.monotonic() - start, 0.001))
    line = ("%d execs (%d/s), cov %d ft %d, corpus %d" %
            (s["execs"], s["rate"], s["cov"], s["ft"], s["corpus"]))
    if runs is None:
        line = "%d s, %s" % (seconds, line)
    kept = keep_artifacts(name, out)
    if code != 0 or kept:
        why = re.findall(r"^==\d+==\s*ERROR: .*$|^SUMMARY: .*$|"
                         r"^ALARM: .*$", text, re.M)
        return False, "%s; exit %s; %s; kept %s (rerun: build/fuzz/%s FILE)" % (
            line, code, " | ".join(why[:3]) or text[-400:],
            ", ".join(kept) or "nothing", name)
    return True, line


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=int, default=600,
                    help="total time, split evenly over the targets")
    ap.add_argument("--runs", type=int,
                    help="a fixed number of inputs per target instead")
    ap.add_argument("--timeout", type=int, default=10,
                    help="seconds one input may take before it is a hang")
    ap.add_argument("--rss-mb", type=int, default=1024)
    ap.add_argument("names", nargs="*", help="targets (default: all)")
    a = ap.parse_args()
    names = a.names or targets()
    unknown = set(names) - set(targets())
    if unknown:
        sys.exit("fuzz: no target %s (have %s)" % (", ".join(sorted(unknown)),
                                                   " ".join(targets())))
    each = max(1, a.seconds // len(names))
    failed = 0
    for n in names:
        ok, line = run(n, each, a.runs, a.timeout, a.rss_mb)
        print("%s [fuzz_%s] %s" % ("PASSED" if ok else "FAILED", n, line),
              flush=True)
        failed += not ok
    print("fuzz: %d targets, %d failed" % (len(names), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
