"""QEMU boot scenarios: each boots the kernel, checks the console, and
yields one result (ktests boots yield one result per in-kernel test too).

A scenario fails on a timeout, an unexpected exit status, a missing line, or
any `panic` in the log it did not ask for; the failure shows the panic text.
"""
import os

from qemu_run import QemuRun, panic_text, accel, ROOT


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
    pt = panic_text(log)
    if not why and code is None:
        why = "QEMU did not exit by itself within %d s" % timeout
    if not why and status is not None and code != status:
        why = "QEMU exit status %s, expected %s" % (code, status)
    if not why and pt and not want_panic:
        why = "panic"
    if why:
        tail = pt or "\n".join(log.splitlines()[-25:])
        why += "\n--- console ---\n" + tail
    res.add(name, not why, why)
    return log


def check_boot_log(res, name, log, smp):
    online = log.count(") online")
    ok = "tsc: " in log and "MHz" in log and online == smp - 1 and \
        ("%d CPUs online" % smp) in log
    res.add(name + ":log", ok, "" if ok else
            "expected %d APs online and the TSC frequency" % (smp - 1))


def run_all(res, only):
    def want(name):
        return not only or only in name

    cpu_counts = [1, 2, 4] + ([8] if accel() == "tcg" else [])
    for smp in cpu_counts:
        name = "boot_smp%d" % smp
        if want(name):
            log = boot_and_check(res, name, "ktests", smp,
                                 [r"END KTESTS: \d+ passed, 0 failed"],
                                 ktests=True)
            check_boot_log(res, name, log, smp)
    if want("boot_fault"):
        log = boot_and_check(res, "boot_fault", "fault=null", 2,
                             [r"page fault", r"fault address 0x0+8",
                              r"at deliberate_fault\+0x", r"backtrace:",
                              r"kmain\+0x"],
                             status=3, want_panic=True)
    if want("boot_iso"):
        boot_and_check(res, "boot_iso", None, 4,
                       [r"4 CPUs online", (r"K> ", "cpus\r"),
                        r"cpu 3: apic", (r"K> ", "poweroff\r")],
                       iso=os.path.join(ROOT, "build", "ttrace.iso"),
                       timeout=60)
    if want("boot_typeahead"):
        # typed before the kernel reads the console: nothing may be lost
        boot_and_check(res, "boot_typeahead", "", 2,
                       [r"K> cpus", r"cpu 1: apic", r"K> mem",
                        r"pages free", r"K> poweroff"],
                       typeahead="cpus\rmem\rpoweroff\r", timeout=60)
