"""Tests of the seams between boots and of the build (issue 27): every
`make` target README.md shows can be made from a fresh build tree
(`make -n`), and a boot that kept no trace leaves no trace to pass for
the last boot's (docs/ttrace-device.md, the lastboot file). The files
made for a reader (one text per open) are usertests' `text_once`."""
import os
import re
import shlex
import shutil
import socket
import subprocess
import time

from qemu_run import ROOT, DEFAULT_EVENTS, KERNEL_ELF
from ttrace_tests import Session, qmp_execute, fresh_out, OUT

BUILD = os.path.join(ROOT, "build")


def readme_make_commands(text):
    """Every make command README.md shows, as argument lists: the lines of
    its code blocks that start with `make` (up to a `#` comment), the
    inline `make ...` spans, and the targets a span lists after it
    ("`make menuconfig` (also `defconfig`, ...)")."""
    cmds = []
    for line in text.splitlines():
        m = re.match(r"    (make\b[^#]*)", line)
        if m:
            cmds.append(m.group(1).strip())
    for span, also in re.findall(
            r"`(make [^`]+)`(?: \(also ((?:`[\w-]+`(?:,\s+)?)+)\))?", text):
        cmds.append(span)
        cmds += ["make " + t for t in re.findall(r"`([\w-]+)`", also)]
    seen, out = set(), []
    for c in cmds:
        args = shlex.split(c)[1:]
        if args and tuple(args) not in seen:
            seen.add(tuple(args))
            out.append(args)
    return out


def readme_make_targets():
    """`make -n -k` of every target of the make commands in README.md,
    with their variables, in a build tree of its own (as a fresh
    clone's: nothing built, so every file a rule needs must have a rule);
    returns why it failed, or ""."""
    cmds = readme_make_commands(open(os.path.join(ROOT, "README.md")).read())
    targets = sorted({a for c in cmds for a in c if "=" not in a})
    assigns = sorted({a for c in cmds for a in c if "=" in a})
    if len(targets) < 15:
        return "README.md: only %d make targets found: %s" % (len(targets),
                                                               targets)
    fresh = os.path.join(BUILD, "test", "make-n")
    shutil.rmtree(fresh, ignore_errors=True)
    os.makedirs(fresh)
    # the host packages are checked once, by the build that ran the tests
    stamp = os.path.join(BUILD, ".deps-ok")
    extra = ["DEPS_STAMP=" + stamp] if os.path.exists(stamp) else []
    env = dict(os.environ)     # a make of its own, as typed in a shell
    for var in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS"):
        env.pop(var, None)
    p = subprocess.run(["make", "-n", "-k", "BUILD=" + fresh] + extra +
                       assigns + targets, cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=600)
    shutil.rmtree(fresh, ignore_errors=True)
    if p.returncode != 0:
        return "make -n -k %s: %s" % (" ".join(targets),
                                      p.stderr.strip()[-1500:])
    return ""


class Gdbstub:
    """The least of the GDB remote protocol, to QEMU's gdbstub on a unix
    socket: a hardware breakpoint, continue, and the stop that follows.
    Connecting stops the guest."""

    def __init__(self, path, timeout=60):
        end = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > end:
                    raise TimeoutError("no gdbstub at %s" % path)
                time.sleep(0.5)
        self.buf = b""

    def send(self, data):
        """Sends packet data; returns once QEMU acknowledged it."""
        cs = sum(data.encode()) & 0xff
        self.sock.sendall(b"$%s#%02x" % (data.encode(), cs))
        self.reply(timeout=60, ack=True)

    def reply(self, timeout, ack=False):
        """The next packet (or, with ack, the next '+'); acknowledges a
        packet. Raises TimeoutError after timeout seconds."""
        self.sock.settimeout(timeout)
        while True:
            if ack and b"+" in self.buf:
                self.buf = self.buf[self.buf.index(b"+") + 1:]
                return b""
            m = re.search(rb"\$([^#]*)#..", self.buf)
            if m and not ack:
                self.buf = self.buf[m.end():]
                self.sock.sendall(b"+")
                return m.group(1)
            try:
                chunk = self.sock.recv(4096)
            except socket.timeout:
                raise TimeoutError("gdbstub: no reply")
            if not chunk:
                raise TimeoutError("gdbstub: closed")
            self.buf += chunk

    def command(self, data, timeout=60):
        self.send(data)
        return self.reply(timeout)

    def close(self):
        self.sock.close()


def symbol(name):
    """The address of kernel symbol name (nm kernel.elf)."""
    out = subprocess.run(["nm", KERNEL_ELF], capture_output=True, text=True,
                         check=True).stdout
    m = re.search(r"^([0-9a-f]+) [tT] %s$" % re.escape(name), out, re.M)
    return int(m.group(1), 16)


def lastboot_stale():
    """A boot that keeps no trace must not leave the one before passing
    for its own (issue 27, item 13). One QEMU run of three boots: boot 1
    writes a marker; it is reset, and boot 2 is stopped at ttrace_init
    (QEMU's gdbstub), its persistent area stamped but not yet its own,
    and reset there; boot 3 must not serve boot 1's trace as the last
    boot's (lastboot empty, the boot line says why)."""
    sock = os.path.join(OUT, "stale-qmp.sock")
    gdb = os.path.join(OUT, "stale-gdb.sock")
    fresh_out("stale-gdb.sock")
    s = Session(2, timeout=400, name="lastboot-stale", reboot=True,
                cmdline=DEFAULT_EVENTS, qmp=sock,
                extra=("-gdb", "unix:%s,server=on,wait=off" % gdb))
    why, stub = "", None
    try:
        s.say("echo old-words > /dev/ttrace/marker; echo marked=$?",
              r"marked=0")
        stub = Gdbstub(gdb)
        bp = "%x,1" % symbol("ttrace_init")
        if stub.command("Z1," + bp) != b"OK":
            raise TimeoutError("gdbstub refused a hardware breakpoint")
        stub.send("c")
        qmp_execute(sock, "system_reset")
        stop = stub.reply(timeout=180)          # boot 2 at ttrace_init
        if not stop.startswith((b"T05", b"S05")):
            raise TimeoutError("gdbstub: stopped by %r" % stop)
        stub.command("z1," + bp)
        qmp_execute(sock, "system_reset")       # boot 2 dies there
        stub.send("D")
        stub.close()
        stub = None
        m = s.run.expect(r"ttrace: last boot (\d+): (.*)\n", timeout=180)
        line = m.group(0).decode().strip()
        if m.group(1) != b"2" or not m.group(2).startswith(b"none kept: "
                                                           b"the last boot "
                                                           b"kept no trace"):
            why = "boot 3 says %r: want boot 2 kept no trace" % line
        print("# " + line)
        if not why:
            s.say("ls -l /dev/ttrace/lastboot", r"\s0 /dev/ttrace/lastboot")
    except TimeoutError as e:
        why = str(e)
    if stub:
        stub.close()
    why = s.finish(why)
    if not why and s.run.text.count("ttrace kernel booting") != 3:
        why = "not three boots"
    return why


def run_all(res, only):
    def want(name):
        return not only or only in name

    for name, fn in (("readme_make_targets", readme_make_targets),
                     ("ttrace_lastboot_stale", lastboot_stale)):
        if want(name):
            why = fn()
            res.add(name, not why, why)
