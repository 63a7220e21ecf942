"""QEMU scenario of issue 30's kernel profiler (docs/profiling.md,
"Recording"), one boot at 4 CPUs:

- ttrace.profile=997 samples from the boot on (the stats line says on,
  with samples, at the first prompt);
- ctl `profile` refuses bad input (a rate of 0, an unknown option, a bad
  word) and changes nothing: still on at 997 with the same options; `profile
  off` turns it off;
- `ttrace profile -F 10000 --off-cpu -- profhostile` (user/bin/profhostile.c:
  rbp set to an odd number, a kernel address, a frame that loops, an
  unmapped page, a frame returning to a kernel address, while sampled)
  saves a trace to the host in which: every CPU has samples; every sample
  in a hostile phase's spin loop (its rbp the hostile one) has the user
  chain that phase allows (the pc, plus for the loop its one good frame),
  and no user chain anywhere has a user pc at or above the user
  address limit anywhere; every kernel pc of every profile record is
  named by a kernel function; the profiler is off after it;
- nothing faults (a panic fails the run).
"""
import collections
import re
import subprocess

from ttrace_tests import Session, fresh_out, ttdecode, kernel_functions
from qemu_run import ROOT

CTL = "/dev/ttrace/ctl"
STATS = "grep profile /dev/ttrace/stats"
HOSTILE = ROOT + "/build/user/profhostile"
ULIM = 0x800000000000
# a hostile phase's user chain: its pc, then (the loop) main
PHASE_FRAMES = {"hostile_garbage": 1, "hostile_kernel": 1, "hostile_loop": 2,
                "hostile_unmapped": 1, "hostile_kernel_pc": 1}


def spin_pcs():
    """The pcs of each hostile phase's spin loop (its dec and jne: where
    rbp is the hostile one), from profhostile's disassembly."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", HOSTILE],
                         capture_output=True, text=True, check=True).stdout
    pcs, fn = {}, None
    for line in out.splitlines():
        m = re.match(r"[0-9a-f]+ <(\w+)>:", line)
        if m:
            fn = m.group(1)
        m = re.match(r"\s+([0-9a-f]+):\s+(dec|jne)\s", line)
        if m and fn in PHASE_FRAMES:
            pcs[int(m.group(1), 16)] = fn
    return pcs


def user_symbols():
    """profhostile's text symbols, sorted: [(address, name)]."""
    out = subprocess.run(["nm", "-n", HOSTILE], capture_output=True,
                         text=True, check=True).stdout
    return [(int(f[0], 16), f[2]) for f in (l.split() for l in out.splitlines())
            if len(f) == 3 and f[1] in "tT"]


def symbol(syms, pc):
    name = None
    for addr, n in syms:
        if addr > pc:
            break
        name = n
    return name


def check_trace(path, ncpus):
    """Why the saved profile is wrong, or ""."""
    t = ttdecode("text", path)
    if t.returncode:
        return "ttdecode text: %s" % t.stderr[-500:]
    per_cpu = collections.defaultdict(list)
    for line in t.stdout.splitlines():
        m = re.match(r"\s*\S+ us cpu(\d+) \S+ (profile_\w+|ustack|proc_exec): "
                     r"(.*?)(?: \[...\])?$", line)  # without the record's flags
        if m:
            per_cpu[int(m.group(1))].append((m.group(2), m.group(3)))
    if sorted(c for c in per_cpu
              if any(e == "profile_sample" for e, _ in per_cpu[c])) != \
            list(range(ncpus)):
        return "samples on CPUs %s, want 0..%d" % (
            sorted(per_cpu), ncpus - 1)
    funcs = kernel_functions()
    syms = user_symbols()
    spins = spin_pcs()
    # profhostile's pid first: its proc_exec may be on a CPU whose
    # records come after those of the CPU it ran on
    pid = next((m.group(1) for recs in per_cpu.values()
                for ev, text in recs if ev == "proc_exec"
                for m in [re.match(r"pid=\S+ filename=/bin/profhostile "
                                   r"pid_nr=(\d+)", text)] if m), None)
    seen = collections.Counter()
    for cpu, recs in per_cpu.items():
        for i, (ev, text) in enumerate(recs):
            if ev == "ustack":
                pcs = [int(x, 16) for x in re.findall(r"0x[0-9a-f]+", text)]
                n = int(re.match(r"frames=(\d+)", text).group(1))
                if any(pc >= ULIM for pc in pcs):
                    return "cpu%d: a user chain with a kernel address: %s" % (
                        cpu, text)
                if i == 0 or not recs[i - 1][0].startswith("profile_"):
                    return "cpu%d: a ustack after no profile record" % cpu
                prev = recs[i - 1][1]
                if pid and re.match(r"pid=%s " % pid, prev):
                    phase = spins.get(pcs[0])   # in a spin: rbp hostile
                    if phase:
                        seen[phase] += 1
                        if n != PHASE_FRAMES[phase] or (
                                n == 2 and symbol(syms, pcs[1]) != "main"):
                            return "cpu%d: %s's user chain: %s" % (
                                cpu, phase, text)
            elif ev in ("profile_sample", "profile_switch",
                        "profile_wakeup"):
                k = text.split(" frames=")[1].split(" ", 1)
                names = k[1].split(" < ")[:int(k[0])] if k[1:] else []
                bad = [x for x in names if x not in funcs]
                if bad:
                    return "cpu%d: kernel pcs %s named by no function: %s" % (
                        cpu, bad, text)
    if pid is None:
        return "no proc_exec of /bin/profhostile"
    missing = [p for p in PHASE_FRAMES if not seen[p]]
    if missing:
        return "no sample of the phases %s (seen %s)" % (missing, dict(seen))
    print("# samples of the hostile phases: %s" % dict(seen))
    return ""


def profile_boot():
    out = fresh_out("prof30k.ttr")
    s = Session(4, hostout=out, cmdline="ttrace.profile=997", timeout=900,
                name="prof30k")
    try:
        s.say(STATS, r"profile on hz 997 kernel user samples [1-9]")
        s.say("cat /dev/ttrace/cpu0 | grep -c profile_sample",
              r"\n[1-9]\d*\r?\n")
        for bad, why in (("profile on 0", "bad rate '0'"),
                         ("profile on 997 wall", "unknown option 'wall'"),
                         ("profile maybe", "on or off, not 'maybe'")):
            s.say("echo %s > %s" % (bad, CTL), re.escape(why))
            s.say(STATS, r"profile on hz 997 kernel user samples")
        s.say("echo profile off > %s; %s" % (CTL, STATS),
              r"profile off hz 0 samples")
        # rings that hold the whole run: profhostile's proc_exec (its
        # pid) is written at its spawn, the run's first record
        s.say("echo bufsize 4096 > %s; echo status=$?" % CTL,
              r"status=0\r?\n")
        s.say("ttrace profile -F 10000 --off-cpu -o /dev/host/out -- "
              "profhostile 20000000",
              r"profhostile exited with status 0", timeout=600)
        s.say(STATS, r"profile off hz 0 samples")
    except TimeoutError as e:
        return s.finish(str(e))
    why = s.finish("")
    return why or check_trace(out, 4)


def run_all(res, only):
    for name, fn in (("prof30k_profile", profile_boot),):
        if not only or only in name:
            why = fn()
            res.add(name, not why, why)
