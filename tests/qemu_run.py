"""Boot the kernel under QEMU, talk to its serial console, collect the log.

One QemuRun is one boot: it starts scripts/qemu.sh (so tests use exactly the
flags `make run` uses), reads the console on a thread, and offers expect() /
send() for scripted sessions. Every run has a deadline and is killed when it
passes it; a test never hangs.
"""
import importlib.machinery
import importlib.util
import os
import signal
import re
import subprocess
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def script_module(file):
    """scripts/FILE imported as a module (FILE may lack .py: scripts/pull)."""
    name = os.path.splitext(file)[0]
    loader = importlib.machinery.SourceFileLoader(
        name, os.path.join(ROOT, "scripts", file))
    mod = importlib.util.module_from_spec(
        importlib.util.spec_from_loader(name, loader))
    loader.exec_module(mod)
    return mod


# The trace file's CRC (docs/trace-file.md), for tests that check one.
crc32c = script_module("crc32c.py").crc32c
# The kernel every test boots: the debug build (docs/debug.md; the
# Makefile's DEBUG_BUILD), with the allocators' checks and UBSAN on.
# TEST_KBUILD=build boots the release kernel instead, to compare.
KBUILD = os.path.join(ROOT, os.environ.get("TEST_KBUILD", "build/debug"))
KERNEL = os.path.join(KBUILD, "kernel.bin")
KERNEL_ELF = os.path.join(KBUILD, "kernel.elf")
ISO = os.path.join(KBUILD, "ttrace.iso")
INITRAMFS = os.path.join(ROOT, "build", "initramfs.cpio")


# On the command line of a test that checks the records of the events on
# by default (kern/trace/ttrace.events): `TTRACE_MASK=all|none make test` leaves
# its boot at the defaults, since with every function traced the rings wrap
# many times a second, and with nothing on there is nothing to check.
DEFAULT_EVENTS = "ttrace.mask=default"


class QemuRun:
    def __init__(self, cmdline="", smp=4, mem="512M", accel=None, timeout=120,
                 iso=None, initrd=None, extra=(), hostout=None, kernel=None,
                 qmp=None, ramfile=None, reboot=False, icount=None):
        env = dict(os.environ, SMP=str(smp), MEM=mem)
        if accel:
            env["ACCEL"] = accel
        # icount=N: TCG with -icount shift=N,sleep=off (qemu.sh ICOUNT):
        # the guest's clock follows its instruction count, not the host's
        if icount is not None:
            env["ICOUNT"] = str(icount)
        # make test TTRACE_MASK=all|none: every boot with every event on,
        # or off (docs/function-graph.md), unless the test sets its own
        if os.environ.get("TTRACE_MASK") and cmdline is not None and \
                "ttrace.mask=" not in cmdline:
            cmdline += " ttrace.mask=" + os.environ["TTRACE_MASK"]
        if iso:
            args = ["--iso", iso]
        else:
            args = ["--kernel", kernel or KERNEL, "--cmdline", cmdline,
                    "--initrd", initrd or INITRAMFS]
        args += ["--timeout", str(timeout)]
        if hostout:
            args += ["--hostout", hostout]
        if qmp:
            args += ["--qmp", qmp]
        if ramfile:     # the guest's RAM shared with the host (make live)
            args += ["--ram-file", ramfile]
        if reboot:      # a reset boots again (qemu.sh --reboot)
            args += ["--reboot"]
        if extra:
            args += ["--"] + list(extra)
        self.deadline = time.monotonic() + timeout
        # its own process group: killing it must reach QEMU, which runs
        # under timeout(1) under sh (a killed sh left a hung guest spinning
        # until its timeout, loading the host for the tests after it)
        self.proc = subprocess.Popen(
            ["sh", os.path.join(ROOT, "scripts", "qemu.sh")] + args,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, env=env, cwd=ROOT,
            start_new_session=True)
        self.out = b""
        self.pos = 0
        self.cond = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        while True:
            chunk = self.proc.stdout.read1(65536)
            with self.cond:
                if not chunk:
                    self.eof = True
                    self.cond.notify_all()
                    return
                self.out += chunk
                self.cond.notify_all()

    @property
    def text(self):
        return self.out.decode("utf-8", "replace").replace("\r", "")

    def expect(self, pattern, timeout=60):
        """Waits for pattern (a regex) after the last match; returns the
        match or raises TimeoutError naming what it waited for."""
        rx = re.compile(pattern.encode() if isinstance(pattern, str) else pattern)
        end = min(time.monotonic() + timeout, self.deadline)
        with self.cond:
            while True:
                m = rx.search(self.out.replace(b"\r", b""), self.pos)
                if m:
                    self.pos = m.end()
                    return m
                left = end - time.monotonic()
                if left <= 0 or getattr(self, "eof", False):
                    raise TimeoutError("waited for %r" % pattern)
                self.cond.wait(min(left, 0.5))

    def send(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def status_dump(self, limit=10):
        """^T to a guest still running (kern/include/console.h): its CPUs
        and processes with where each sleeps land in the log, for a run
        that timed out. Waits until the output has been quiet for a second
        (at most limit seconds). Returns the dump's lines, or ""."""
        if self.proc.poll() is not None:
            return ""
        start = len(self.out)
        self.send("\x14")
        end, seen = time.monotonic() + limit, -1
        while time.monotonic() < end and seen != len(self.out):
            seen = len(self.out)
            time.sleep(1)
        return self.out[start:].decode("utf-8", "replace").replace("\r", "")

    def wait(self, timeout=None):
        """Waits for QEMU to exit (killing it at the deadline); returns its
        exit status, or None when it had to be killed."""
        left = self.deadline - time.monotonic()
        if timeout is not None:
            left = min(left, timeout)
        try:
            return self.proc.wait(max(left, 0.1))
        except subprocess.TimeoutExpired:
            self.kill()
            return None
        finally:
            self.reader.join(5)

    def kill(self):
        """Kills sh, timeout(1) and QEMU: the whole process group."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()

    def close(self):
        if self.proc.poll() is None:
            self.kill()
        self.reader.join(5)


def _qemu_statuses():
    """QEMU's exit statuses by name, from kern/include/exit_status.h."""
    text = open(os.path.join(ROOT, "kern", "include", "exit_status.h")).read()
    return {m.group(1): int(m.group(2)) for m in
            re.finditer(r"#define QEMU_STATUS_(\w+)\s+(\d+)", text)}


QEMU_STATUS = _qemu_statuses()


def panic_text(log):
    """The panic report in log (from the panic line on), or None."""
    i = log.find("panic")
    if i < 0:
        return None
    trap = re.search(r"trap \d+ \(", log)
    if trap and trap.start() < i:
        i = trap.start()
    start = log.rfind("\n", 0, i) + 1
    return "\n".join(log[start:].splitlines()[:40])


def verdict(log, why, want_panic=False, lines=30):
    """The failure reason of a run whose console log is log: why (what the
    scenario found wrong, "" if nothing), or "panic" if the log holds one
    it did not want; with the panic text or the console's last lines
    appended. "" if the run passed."""
    pt = panic_text(log)
    if not why and pt and not want_panic:
        why = "panic"
    if why:
        why += "\n--- console ---\n" + (
            pt or "\n".join(log.splitlines()[-lines:]))
    return why


def accel():
    """kvm or tcg: what scripts/qemu.sh picks on this machine."""
    return subprocess.run(["sh", os.path.join(ROOT, "scripts", "qemu.sh"),
                           "--print-accel"], capture_output=True,
                          text=True).stdout.strip()
