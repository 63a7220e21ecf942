"""QEMU boot scenarios: each boots the kernel, checks the console, and
yields one result (ktests boots yield one result per in-kernel test too).

A scenario fails on a timeout, an unexpected exit status, a missing line, or
any `panic` in the log it did not ask for; the failure shows the panic text.
"""
import os
import time
import re
import subprocess
from functools import partial

from qemu_run import QemuRun, QEMU_STATUS, verdict, accel, ROOT, \
    DEFAULT_EVENTS, KERNEL_ELF, ISO, crc32c


def boot_and_check(res, name, cmdline, smp, expect, status=0, accel=None,
                   timeout=180, want_panic=False, ktests=False, iso=None,
                   typeahead=""):
    """expect: regexes to see in order; a (regex, text) pair sends text
    once regex is seen. typeahead is sent before the kernel even boots."""
    run = QemuRun(cmdline=cmdline, smp=smp, accel=accel, timeout=timeout,
                  iso=iso)
    why = ""
    try:
        if typeahead:
            run.send(typeahead)
        for step in expect:
            pattern, reply = step if isinstance(step, tuple) else (step, None)
            run.expect(pattern, timeout=timeout)
            if reply is not None:
                run.send(reply)
    except TimeoutError as e:
        why = str(e)
    code = run.wait(timeout=timeout)
    run.close()
    log = run.text
    if ktests:
        n = res.add_lines("%s:" % name, log)
        if n == 0 and not why:
            why = "no ktest results"
    if not why and code is None:
        why = "QEMU did not exit by itself within %d s" % timeout
    if not why and status is not None and code != status:
        why = "QEMU exit status %s, expected %s" % (code, status)
    why = verdict(log, why, want_panic)
    res.add(name, not why, why)
    return log


TEXT_CRC = re.compile(r"ttrace_patch_loop: .* text crc32c 0x([0-9a-f]+) over "
                      r"0x([0-9a-f]+) bytes at 0x([0-9a-f]+)")


def image_text_crc(start, size):
    """CRC-32C (scripts/crc32c.py, as the kernel's ttrace_crc32) of size bytes of the
    kernel image from address start, read from the booted kernel's ELF section
    headers and contents (.text, then zeros up to the page-aligned end the
    linker leaves). None when the range is not all .text and padding."""
    elf = KERNEL_ELF
    hdr = subprocess.run(["readelf", "-SW", elf], capture_output=True,
                         text=True).stdout
    m = re.search(r"\]\s+\.text\s+PROGBITS\s+([0-9a-f]+)\s+([0-9a-f]+)\s+"
                  r"([0-9a-f]+)", hdr)
    if not m:
        return None
    addr, off, length = (int(g, 16) for g in m.groups())
    if addr != start or length > size:
        return None
    with open(elf, "rb") as f:
        f.seek(off)
        data = f.read(length)
    return crc32c(data + bytes(size - length))


def check_text_crc(res, name, log):
    """After the ttrace_patch_loop ktest unpatched every site, the kernel's
    text must be byte-identical to the linked image's .text (NOPs in
    place): the CRC it printed against the one computed from kernel.elf."""
    if "[ttrace_patch_loop]" not in log:
        return
    m = TEXT_CRC.search(log)
    if not m:
        res.add(name + ":text_crc", False, "no text crc line from the "
                "ttrace_patch_loop ktest")
        return
    crc, size, start = (int(g, 16) for g in m.groups())
    want = image_text_crc(start, size)
    res.add(name + ":text_crc", crc == want, "" if crc == want else
            "kernel text crc32c %#x after the patch loop, the image's .text "
            "%s" % (crc, "%#x" % want if want is not None else
                    "does not cover %#x bytes at %#x" % (size, start)))


def check_boot_log(res, name, log, smp):
    online = log.count(") online")
    ok = "tsc: " in log and "MHz" in log and online == smp - 1 and \
        ("%d CPUs online" % smp) in log
    res.add(name + ":log", ok, "" if ok else
            "expected %d APs online and the TSC frequency" % (smp - 1))


PHASE = re.compile(r"boot phase (\w+)\s+(\d+) at\s+(\d+) us took\s+(\d+) us")
BOOT_ORDER = ["entry", "kmain", "memory", "ttrace", "tsc", "acpi", "apic", "smp"]


def check_boot_profile(res, log, smp):
    """The boot phases come out of the trace in boot order, each AP's start,
    SIPI and online in turn, with plausible durations."""
    phases = [(m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)))
              for m in PHASE.finditer(log)]
    names = [p[0] for p in phases]
    aps = [(n, a) for n, a, _, _ in phases if n.startswith("ap_")]
    want_aps = [(n, c) for c in range(1, smp)
                for n in ("ap_start", "ap_sipi", "ap_online")]
    why = ""
    if names[:len(BOOT_ORDER)] != BOOT_ORDER:
        why = "phases %s, expected to start with %s" % (names, BOOT_ORDER)
    elif aps != want_aps:
        why = "AP phases %s, expected %s" % (aps, want_aps)
    elif names[-1] != "devices":
        why = "last phase %s, expected devices" % names[-1]
    elif any(b[2] < a[2] for a, b in zip(phases, phases[1:])):
        why = "phase start times go backwards: %s" % phases
    elif any(p[3] > 5000000 for p in phases[:-1]):
        why = "a phase took over 5 s: %s" % phases
    res.add("boot_profile_smp%d" % smp, not why, why)


TSC_MHZ = re.compile(r"tsc: (\d+)\.\d+ MHz")
TSC_OFFSET = re.compile(r"tsc: cpu (\d+) offset (-?\d+) cycles \+- (\d+)")
TSC_WARNING = re.compile(r"tsc: cpu (\d+) TSC differs from cpu 0 by (-?\d+)")
TSC_SKEWED = re.compile(r"tsc: cpu (\d+) tsc\.skew asked for (-?\d+) cycles; "
                        r"writing (\S+) moved its TSC by (-?\d+)")


def tsc_offsets(log):
    """{cpu: (offset, uncertainty)} from the boot's tsc lines."""
    return {int(m.group(1)): (int(m.group(2)), int(m.group(3)))
            for m in TSC_OFFSET.finditer(log)}


def tsc_warned(log):
    return sorted(int(m.group(1)) for m in TSC_WARNING.finditer(log))


def check_tsc_agree(log, smp):
    """Every AP's offset measured once, none beyond the bound: QEMU's
    vCPUs share one clock, so a warning would be a false alarm."""
    offsets = tsc_offsets(log)
    if sorted(offsets) != list(range(1, smp)):
        return "offset lines for cpus %s, expected 1..%d" % (
            sorted(offsets), smp - 1)
    if tsc_warned(log):
        return "warned about cpus %s: %s" % (tsc_warned(log), offsets)
    return ""


def check_tsc_skew(log, cpu, asked):
    """The AP says how far its TSC moved when it wrote the MSR. Where the
    write took (KVM, bare metal), the warning must name cpu and the
    measured offset must be the skew, give or take the uncertainty, the
    write's own cost and the bound's worth of disagreement that was there
    before. Where it did not (QEMU's TCG ignores both TSC MSRs), there is
    no skew, and the kernel must not warn about one."""
    m = TSC_SKEWED.search(log)
    mhz = TSC_MHZ.search(log)
    offsets = tsc_offsets(log)
    if not m or int(m.group(1)) != cpu or int(m.group(2)) != asked:
        return "no line saying cpu %d's TSC was skewed by %d" % (cpu, asked)
    if not mhz or cpu not in offsets:
        return "no TSC frequency or no offset line for cpu %d" % cpu
    moved, (offset, uncertainty) = int(m.group(4)), offsets[cpu]
    if abs(moved - asked) > abs(asked) // 2:
        print("note: tsc_skew: writing %s moved the TSC by %d cycles, not "
              "%d: this CPU ignores the write, so there is no skew to "
              "measure" % (m.group(3), moved, asked), flush=True)
        return ("warned about cpus %s with no skew" % tsc_warned(log)
                if tsc_warned(log) else "")
    if tsc_warned(log) != [cpu]:
        return "warned about cpus %s, expected [%d]" % (tsc_warned(log), cpu)
    slack = uncertainty + abs(moved - asked) + int(mhz.group(1))
    if abs(offset - asked) > slack:
        return "measured %d +- %d cycles for a skew of %d" % (
            offset, uncertainty, asked)
    return ""


def ktest_names():
    """The in-kernel tests' names, from their KTEST_REG lines."""
    names = []
    for d, _, files in os.walk(os.path.join(ROOT, "kern")):
        for f in files:
            if f.endswith(".c"):
                names += re.findall(r"^KTEST_REG\((\w+),",
                                    open(os.path.join(d, f)).read(), re.M)
    return names


def usertest_names():
    """usertests' test names (helpers, starting with '_', are not tests)."""
    text = open(os.path.join(ROOT, "user", "usertests.c")).read()
    return re.findall(r'\{\s*\w+,\s*"([a-z0-9]\w*)"\s*\}', text)


# The debug kernel's checks (docs/debug.md), each made to fire by a
# fault= word (kern/src/init.c's memory_fault) and expected to name the
# kind, the block and its allocating caller, or the source line.
KMEM_PANIC = (r"panic on cpu \d+ at kern/src/kmalloc\.c:\d+: kmem: %s in a "
              r"100-byte block allocated by memory_fault\S*\+0x[0-9a-f]+, "
              r"found by %s")
MEMORY_FAULTS = [
    ("kmem_redzone", "redzone",
     [r"kmem: redzone overwritten: 100-byte block at 0x[0-9a-f]+, found by "
      r"kfree", r"byte at offset 100 is 0x1", r"allocated by memory_fault",
      KMEM_PANIC % ("redzone overwritten", "kfree")]),
    ("kmem_scan", "redzone_scan",
     [r"kmem: redzone overwritten: 100-byte block at 0x[0-9a-f]+, found by "
      r"the scan", r"byte at offset 100 is 0x1",
      KMEM_PANIC % ("redzone overwritten", "the scan")]),
    ("kmem_uaf", "uaf",
     [r"kmem: write after free: 100-byte block at 0x[0-9a-f]+, found by "
      r"kmalloc", r"byte at offset 8 is 0x1", r"allocated by memory_fault",
      r"freed by memory_fault", KMEM_PANIC % ("write after free", "kmalloc")]),
    ("kmem_page_uaf", "page_uaf",
     [r"panic on cpu 0 at kern/src/pmem\.c:\d+: kmem: write after free in "
      r"page 0x[0-9a-f]+ freed by page_uaf\+0x[0-9a-f]+: byte at offset "
      r"100 is 0x1, found by get_cont_pages"]),
    ("kmem_guard", "guard",
     [r"page fault", r"fault address 0xffff804[0-9a-f]{6}000",
      r"at memory_fault\S*\+0x"]),
    ("ubsan_shift", "shift",
     [r"UBSAN: shift-out-of-bounds in kern/src/init\.c:\d+:\d+",
      r"value 1 of type 'int'", r"shift 40 of type 'int'",
      r"panic on cpu 0 at kern/src/ubsan\.c:\d+: UBSAN: shift-out-of-bounds "
      r"in kern/src/init\.c:\d+"]),
]


# A person at the shell: each step waits for the prompt, types a line and
# checks what comes back.
def nprograms():
    """How many programs user/Makefrag puts in /bin (its UPROGS := and
    += lines)."""
    text = open(os.path.join(ROOT, "user", "Makefrag")).read()
    return sum(len(m.group(1).replace("\\\n", " ").split()) for m in
               re.finditer(r"^UPROGS\s*[:+]?=((?:.*\\\n)*.*)", text, re.M))


SHELL_STEPS = [
    ("ls /bin | wc -l", r"\n\s*%d\s*\n" % nprograms()),
    ("echo hello world > /tmp/f; echo again >> /tmp/f; cat < /tmp/f",
     r"hello world\r?\nagain"),
    ("cat /nonexistent; echo status=$?", r"cat: /nonexistent: .*\n.*status=1"),
    ("nosuchprogram", r"sh: nosuchprogram: "),
    ("echo $?", r"\n127"),
    ("false || echo or-ran && echo and-ran", r"or-ran\r?\nand-ran"),
    ("usertests _null_write", r"pid \d+ \(usertests\): page fault .*killed"),
    ("echo still alive", r"\nstill alive"),
    ("cat /dev/kmsg | head -n 2", r"ttrace kernel booting"),
    ("cat /dev/kmsg | head -1", r"head -1\r?\n[^\n]*ttrace kernel booting[^\n]*\r?\n(?=\$ )"),
    # the reader goes first: cat ends quietly, as SIGPIPE would end it
    ("cat /bin/usertests | head -n 1 > /tmp/h1; echo piped",
     r"echo piped\r?\npiped\r?\n"),
    ("cat /proc/1/status", r"1\s+0\s+\w\s+\d+\s+sh"),
]


def shell_session(res, name, smp):
    run = QemuRun(cmdline="", smp=smp, timeout=120)
    why = ""
    try:
        for line, want in SHELL_STEPS:
            run.expect(r"\$ ", timeout=60)
            run.send(line + "\r")
            try:
                run.expect(want, timeout=30)
            except TimeoutError:
                why = "after %r: expected %r" % (line, want)
                break
        if not why and smp > 1:
            why = ps_on_several_cpus(run, smp)
        if not why:
            why = status_key(run, smp)
        if not why:
            run.expect(r"\$ ", timeout=60)
            run.send("poweroff\r")
    except TimeoutError as e:
        why = str(e)
    code = None if why else run.wait(timeout=60)
    run.close()
    log = run.text
    if not why and code != 0:
        why = "QEMU exit status %s after poweroff, expected 0" % code
    res.add(name, not why, verdict(log, why))


def ps_on_several_cpus(run, smp):
    """Two spinning processes and ps in one pipeline: ps must show the
    spinners running on different CPUs; ^C then ends each spinner."""
    run.expect(r"\$ ", timeout=60)
    run.send("usertests _loop | usertests _loop | ps\r")
    # the listing ends with ps's own row
    m = run.expect(r"PID\s+PPID.*NAME\r?\n((?:.*\n)*?.*\sps\r?\n)", timeout=30)
    rows = [r.split() for r in m.group(1).decode().splitlines() if r.strip()]
    # columns: PID PPID STATE CPU NAME
    cpus = {r[3] for r in rows if len(r) >= 5 and r[4] == "usertests"
            and r[2] == "R"}
    # ^C ends the spinner the shell waits on; repeat until the prompt
    for _ in range(20):
        run.send("\x03")
        try:
            run.expect(r"\$ $", timeout=1)
            break
        except TimeoutError:
            pass
    run.send("\r")
    if len(cpus) < 2:
        return "ps did not show the spinners on two CPUs: %s" % rows
    return ""


def status_key(run, smp):
    """^T while `sleep` runs: the dump shows every CPU, the shell waiting
    for its child, and sleep asleep in nanosleep with a backtrace through
    the scheduler (walked on sleep's own kernel stack); each other CPU
    answers the IPI with where it runs."""
    run.expect(r"\$ ", timeout=60)
    run.send("sleep 4; echo slept\r")
    run.expect(r"slept\r?\n", timeout=30)     # the echo of the typing
    time.sleep(0.5)
    run.send("\x14")
    try:
        run.expect(r"cpu0: (?:pid|kernel thread) \d+, irq depth 1", timeout=30)
        run.expect(r"\s+\d+\s+\d+\s+sh\s+sleeping\s+in wait on 0x", timeout=30)
        run.expect(r"\s+\d+\s+\d+\s+sleep\s+sleeping\s+in nanosleep until "
                   r"tsc \d+\r?\n(?:.*\n)*?.*#\d\d [0-9a-f]+ "
                   r"(?:ksleep_ns|k?sleep_until)\+0x", timeout=30)
        start = run.pos
        run.expect(r"\nslept\r?\n", timeout=30)
    except TimeoutError as e:
        return "^T: %s" % e
    answers = run.text[start:]     # the IPI's answers, in any order
    for cpu in range(1, smp):
        if not re.search(r"cpu%d: (?:pid|kernel thread) \d+ (?:at \w+|in "
                         r"user)" % cpu, answers):
            return "^T: cpu%d did not say where it runs" % cpu
    return ""


def ttrace_off():
    """CONFIG_TTRACE=n: the kernel builds with every tracepoint compiled
    out (not one ttrace symbol left) and still passes its ktests (with
    the debug options on, as every kernel a test boots)."""
    build = os.path.join(ROOT, "build", "notrace")
    config = build + ".config"
    os.makedirs(build, exist_ok=True)
    with open(os.path.join(ROOT, "configs", "defconfig")) as f:
        text = f.read().replace("CONFIG_TTRACE=y", "# CONFIG_TTRACE is not set")
    with open(os.path.join(ROOT, "configs", "debug.config")) as f:
        text += f.read()
    with open(config, "w") as f:
        f.write(text)
    env = dict(os.environ, KCONFIG_CONFIG=config)
    env.pop("MAKEFLAGS", None)
    p = subprocess.run(["make", "-s", "BUILD=" + build, build + "/kernel.bin"],
                       cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=900)
    if p.returncode != 0:
        return "build failed: " + (p.stdout + p.stderr)[-2000:]
    syms = subprocess.run(["nm", build + "/kernel.elf"], capture_output=True,
                          text=True).stdout
    left = [l for l in syms.splitlines() if "ttrace" in l]
    if left:
        return "ttrace symbols left: %s" % left[:5]
    run = QemuRun(cmdline="ktests", smp=2, timeout=180,
                  kernel=build + "/kernel.bin")
    code = run.wait()
    run.close()
    if code != 0 or not re.search(r"END KTESTS: \d+ passed, 0 failed", run.text):
        return "ktests without ttrace: exit %s\n%s" % (
            code, "\n".join(run.text.splitlines()[-15:]))
    return ""


# ---- the scenarios: each is fn(res, name), registered in scenarios() ----

def ktests_boot(res, name, smp):
    """boot_smpN: every ktest on N vCPUs, the boot log, and the kernel
    text after the patching ktest."""
    # 8 vCPUs on 2 busy host cores, every site live under
    # TTRACE_MASK=all: the patching ktests took minutes
    log = boot_and_check(res, name, "ktests", smp,
                         [r"END KTESTS: \d+ passed, 0 failed"],
                         ktests=True, timeout=480)
    check_boot_log(res, name, log, smp)
    check_text_crc(res, name, log)


def boot_profile(res, name):
    log = boot_and_check(res, name, "ttrace.bootprof "
                         "ktests=ttrace_continuation " + DEFAULT_EVENTS, 4,
                         [r"boot profile: \d+ phases",
                          r"END KTESTS: 1 passed, 0 failed"])
    check_boot_profile(res, log, 4)


def boot_fault(res, name):
    boot_and_check(res, name, "fault=null", 2,
                   [r"page fault", r"fault address 0x0+8",
                    r"at deliberate_fault\+0x", r"backtrace:",
                    r"kmain\+0x"],
                   status=QEMU_STATUS["PANIC"], want_panic=True)


def memory_fault(res, name, fault, expect):
    """A debug-kernel check made to fire (MEMORY_FAULTS)."""
    boot_and_check(res, name, "fault=" + fault, 2, expect,
                   status=QEMU_STATUS["PANIC"], want_panic=True, timeout=90)


def boot_iso(res, name):
    """GRUB, the ISO's menu entry, the initramfs module, the shell."""
    boot_and_check(res, name, None, 4,
                   [(r"\$ ", "ls /bin\r"), r"usertests",
                    (r"\$ ", "poweroff\r")],
                   iso=ISO, timeout=60)


def boot_typeahead(res, name):
    """Typed before the kernel reads the console: nothing may be lost."""
    # The echo of the typing lands between boot messages, prompts and the
    # commands' output in any order (CI saw "poweroone" / "ff"), so the
    # commands print what no typed text contains: /dev/sysname's "ttrace"
    # on a line of its own, once per command, then the clean poweroff
    boot_and_check(res, name, "", 2, [r"ttrace\r?\n", r"ttrace\r?\n"],
                   typeahead="cat /dev/sysname\rcat /dev/sysname\r"
                   "poweroff\r", timeout=60)


def tsc_sync(res, name):
    log = boot_and_check(res, name, "init=/bin/poweroff", 4,
                         [r"boot: 4 CPUs online"], timeout=120)
    why = check_tsc_agree(log, 4)
    res.add(name + ":offsets", not why, why)


def tsc_skew(res, name):
    log = boot_and_check(res, name, "init=/bin/poweroff tsc.skew=2:500000000",
                         4, [r"boot: 4 CPUs online"], timeout=120)
    why = check_tsc_skew(log, 2, 500000000)
    res.add(name + ":measured", not why, why)


def config_ttrace_off(res, name):
    why = ttrace_off()
    res.add(name, not why, why)


def scaling(res, name):
    """/bin/scaletest: guest-time ratios in one boot (see its header)."""
    log = boot_and_check(res, name, "init=/bin/scaletest", 4,
                         [r"init exited with status 0"], ktests=True,
                         timeout=300)
    print("\n".join(l for l in log.splitlines()
                    if l.startswith("scale_") or "tsc: " in l))


def usertests(res, name, smp, cmdline=""):
    boot_and_check(res, name, "init=/bin/usertests" + cmdline, smp,
                   [r"usertests: \d+ passed, 0 failed"], ktests=True,
                   timeout=600)


def scenarios():
    """Every boot scenario as (name, fn), in the order they run; fn(res,
    name) boots and adds the results. 8 vCPUs only under TCG, whose vCPUs
    are threads (KVM's would need 8 host CPUs)."""
    cpu_counts = [1, 2, 4] + ([8] if accel() == "tcg" else [])
    table = [("boot_smp%d" % n, partial(ktests_boot, smp=n))
             for n in cpu_counts]
    table += [("boot_profile", boot_profile),
              ("boot_fault", boot_fault)]
    table += [(name, partial(memory_fault, fault=fault, expect=expect))
              for name, fault, expect in MEMORY_FAULTS]
    table += [("boot_iso", boot_iso),
              ("boot_typeahead", boot_typeahead),
              ("tsc_sync_smp4", tsc_sync),
              ("tsc_skew_smp4", tsc_skew),
              ("config_ttrace_off", config_ttrace_off),
              ("shell_smp1", partial(shell_session, smp=1)),
              ("shell_smp4", partial(shell_session, smp=4)),
              ("scaling", scaling),
              ("usertests_smp1", partial(usertests, smp=1)),
              ("usertests_smp4", partial(usertests, smp=4)),
              # every event on (every tracepoint and function site live:
              # ~18 s under TCG) and every event off
              ("usertests_mask_all_smp2",
               partial(usertests, smp=2, cmdline=" ttrace.mask=all")),
              ("usertests_mask_none_smp2",
               partial(usertests, smp=2, cmdline=" ttrace.mask=none"))]
    return table


def run_all(res, only):
    """The scenarios whose name contains only (all when it is empty), then,
    when only names ktests or usertests, one boot running just those:
    ktests whose name starts with it, usertests whose name contains it."""
    for name, fn in scenarios():
        if not only or only in name:
            fn(res, name)
    if only and any(n.startswith(only) for n in ktest_names()):
        log = boot_and_check(res, "ktests", "ktests=" + only, 4,
                             [r"END KTESTS: \d+ passed, 0 failed"],
                             ktests=True)
        check_text_crc(res, "ktests", log)
    if only and any(only in n for n in usertest_names()):
        boot_and_check(res, "usertests", 'init="/bin/usertests %s"' % only, 2,
                       [r"usertests: \d+ passed, 0 failed"], ktests=True,
                       timeout=600)
