#!/usr/bin/env python3
"""tracer_calls: the traceable functions the tracer itself calls, derived
from a built kernel (docs/probes.md, "What cannot be probed").

    scripts/tracer_calls.py BUILD        e.g. build/debug

The tracer's own objects (kern/trace and below, but for its ktests and the
benchmark, whose functions keep their fentry sites; and the trampolines of
arch/x86_64/src/ttrace_fgraph.S) are built without fentry sites. Every
function they call or jump to (a call's or a tail call's relocation in the
object, `objdump -dr`) that does have one in BUILD/kernel.elf (its address
in the __patchable_function_entries table that __fentry_sites_start and
__fentry_sites_end bound) can be probed, and runs inside the tracer: its
locks, aux, rings, readers and drain. Prints their names, one a line,
sorted: the list tests/seams_probelock.py puts probes on. Exit status 0,
or 1 with a message (no kernel, no object, no site table).
"""
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fentry_nops  # noqa: E402

# call or jmp to a relocated symbol: objdump -dr puts the relocation on the
# line after the instruction
BRANCH = re.compile(r"\s(call|jmp)\s")
RELOC = re.compile(r"R_X86_64_(?:PLT32|PC32)\s+([A-Za-z_][\w.]*)-0x4$")


def tool(name):
    return os.environ.get(name.upper(), name)


def tracer_objects(build):
    """The tracer's objects under build: kern/trace and below (not its
    ktests, not bench.o, which keeps its sites) and the trampolines."""
    top = os.path.join(build, "kern", "kern", "trace")
    objs = []
    for d, dirs, files in os.walk(top):
        dirs[:] = [x for x in dirs if x != "ktest"]
        objs += [os.path.join(d, f) for f in files
                 if f.endswith(".o") and not (d == top and f == "bench.o")]
    objs.append(os.path.join(build, "kern", "arch", "x86_64", "src",
                             "ttrace_fgraph.o"))
    for o in objs:
        if not os.path.exists(o):
            sys.exit("tracer_calls: no %s (build the kernel first)" % o)
    return objs


def called(obj):
    """The symbols obj's calls and jumps name through a relocation."""
    out = subprocess.run([tool("objdump"), "-dr", obj], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    names = set()
    for i, line in enumerate(out[:-1]):
        if BRANCH.search(line):
            m = RELOC.search(out[i + 1].strip())
            if m:
                names.add(m.group(1))
    return names


def fentry_functions(elf_path):
    """{name} of the functions of elf_path with an fentry site."""
    syms = subprocess.run([tool("nm"), elf_path], capture_output=True,
                          text=True, check=True).stdout.splitlines()
    by_addr, bounds = {}, {}
    for line in syms:
        w = line.split()
        if len(w) != 3:
            continue
        if w[2] in ("__fentry_sites_start", "__fentry_sites_end"):
            bounds[w[2]] = int(w[0], 16)
        elif w[1] in "tTwW":
            by_addr.setdefault(int(w[0], 16), set()).add(w[2])
    if len(bounds) != 2:
        sys.exit("tracer_calls: %s has no fentry site table" % elf_path)
    return {n for site in site_table(elf_path, bounds)
            for n in by_addr.get(site, ())}


def site_table(elf_path, bounds):
    """The addresses in the fentry site table of elf_path (its segments
    as fentry_nops.py, which fills the sites at build time, finds them)."""
    elf = open(elf_path, "rb").read()
    start, end = bounds["__fentry_sites_start"], bounds["__fentry_sites_end"]
    at = fentry_nops.file_offset(fentry_nops.load_segments(elf), start,
                                 end - start)
    return struct.unpack_from("<%dQ" % ((end - start) // 8), elf, at)


def tracer_calls(build):
    """Sorted names of the traceable functions the tracer calls."""
    names = set()
    for obj in tracer_objects(build):
        names |= called(obj)
    return sorted(names & fentry_functions(os.path.join(build, "kernel.elf")))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: tracer_calls.py BUILD")
    for name in tracer_calls(sys.argv[1]):
        print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
