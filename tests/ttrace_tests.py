"""QEMU scenarios for the #ttrace device, the ttrace tool and getting a
trace to the host: typed into the shell as a person would, checked on the
console, and, for saved traces, checked on the host with ttdecode."""
import os
import re
import subprocess

from qemu_run import QemuRun, panic_text, ROOT

BUILD = os.path.join(ROOT, "build")
TTDECODE = os.path.join(BUILD, "tools", "ttdecode")
OUT = os.path.join(BUILD, "test")


class Session:
    """One boot with the shell; say() types a line and waits for a regex."""

    def __init__(self, smp, hostout=None, timeout=240):
        self.smp = smp
        self.run = QemuRun(cmdline="", smp=smp, timeout=timeout,
                           hostout=hostout)

    def say(self, line, want, timeout=60):
        self.run.expect(r"\$ ", timeout=timeout)
        self.run.send(line + "\r")
        return self.run.expect(want, timeout=timeout)

    def finish(self, why):
        if not why:
            try:
                self.run.expect(r"\$ ", timeout=60)
                self.run.send("poweroff\r")
                code = self.run.wait(timeout=60)
                if code != 0:
                    why = "QEMU exit status %s after poweroff" % code
            except TimeoutError as e:
                why = str(e)
        self.run.close()
        log = self.run.text
        os.makedirs(OUT, exist_ok=True)
        with open(os.path.join(OUT, "session-smp%d.log" % self.smp), "w") as f:
            f.write(log)
        if not why and panic_text(log):
            why = "panic"
        if why:
            why += "\n--- console ---\n" + (panic_text(log) or
                                            "\n".join(log.splitlines()[-30:]))
        return why


def device_scenario(smp):
    """The shell scenario of the #ttrace device; returns why it failed."""
    s = Session(smp)
    try:
        m = s.say("ls /dev/ttrace", r"ctl\r?\n(?:.*\r?\n)*?(?=\$ )")
        cpus = re.findall(rb"\ncpu(\d+)\r?\n", m.group(0))
        if sorted(int(c) for c in cpus) != list(range(smp)):
            return s.finish("ls /dev/ttrace lists cpus %s, want 0..%d" %
                            (cpus, smp - 1))
        # syscalls of a small workload, named, with the right pid
        s.say("ls /bin > /tmp/o; ps > /tmp/ps", r"\n")
        m = s.say("ttrace cat | grep 'sys:ls' | grep syscall_enter | head -n 1",
                  rb"cpu\d+ sys:ls\[(\d+)\]:(\w+) syscall_enter: (\w+)\(")
        if m.group(2) != m.group(3):
            return s.finish("syscall name %r in the context, %r in the "
                            "event" % (m.group(2), m.group(3)))
        # cpu0's own file shows syscalls too (the shell runs everywhere)
        s.say("cat /dev/ttrace/cpu0 | grep -c syscall_", r"\n\s*[1-9]\d*\r?\n")
        # disable stops them, enable brings them back
        s.say("echo disable syscall > /dev/ttrace/ctl", r"\n")
        s.say("ttrace clear; ls /bin > /tmp/o", r"\n")
        s.say("ttrace cat | grep -c syscall_", r"\n0\r?\n")
        s.say("echo enable syscall > /dev/ttrace/ctl; ls /bin > /tmp/o",
              r"\n")
        s.say("ttrace cat | grep 'sys:ls' | grep -c syscall_",
              r"\n\s*[1-9]\d*\r?\n")
        # a bogus command: an error, $? != 0, the state unchanged
        before = s.say("cat /dev/ttrace/ctl",
                       rb"(mask 0x[0-9a-f]+)\r?\n").group(1)
        s.say("echo bogus > /dev/ttrace/ctl", r"unknown command 'bogus'")
        s.say("echo status=$?", r"status=[1-9]")
        after = s.say("cat /dev/ttrace/ctl",
                      rb"(mask 0x[0-9a-f]+)\r?\n").group(1)
        if before != after:
            return s.finish("bogus ctl changed %s to %s" % (before, after))
        # a marker lands in the writer CPU's file (syscall events off
        # meanwhile: reading a full ring makes enough of them to wrap it)
        s.say("echo disable syscall > /dev/ttrace/ctl", r"\n")
        m = s.say("echo hello-marker > /dev/ttrace/marker; ttrace cat | "
                  "grep hello-marker", rb"cpu(\d+) \S+ user_marker: "
                  rb"hello-marker")
        cpu = int(m.group(1))
        s.say("cat /dev/ttrace/cpu%d | grep -c hello-marker" % cpu,
              r"\n1\r?\n")
        s.say("echo enable syscall > /dev/ttrace/ctl", r"\n")
    except TimeoutError as e:
        return s.finish(str(e))
    return s.finish("")


def ttdecode(*args):
    return subprocess.run([TTDECODE] + list(args), capture_output=True,
                          text=True, timeout=300)


def verify_trace(path, ncpus, want_text=None):
    """ttdecode verify, then records from every CPU, then (optionally) a
    regex in the text dump. Returns why it failed, or ""."""
    v = ttdecode("verify", path)
    if v.returncode != 0 or "verify: OK" not in v.stdout:
        return "ttdecode verify %s: %s%s" % (path, v.stdout[-800:], v.stderr)
    counts = dict(re.findall(r"cpu(\d+): (\d+) events", v.stdout))
    empty = [c for c in range(ncpus) if int(counts.get(str(c), 0)) == 0]
    if empty:
        return "no records from cpus %s: %s" % (empty, v.stdout)
    if want_text:
        t = ttdecode("text", path)
        if not re.search(want_text, t.stdout):
            return "ttdecode text: no %r" % want_text
    return ""


def roundtrip():
    """make trace CMD='ls -l /bin': byte-identical on the host, verified,
    records from every CPU, syscall names resolved."""
    os.makedirs(OUT, exist_ok=True)
    out = os.path.join(OUT, "roundtrip.ttr")
    p = subprocess.run(["sh", os.path.join(ROOT, "scripts", "trace.sh"),
                        os.path.join(BUILD, "kernel.bin"),
                        os.path.join(BUILD, "initramfs.cpio"), out,
                        "ls -l /bin"], capture_output=True, text=True,
                       timeout=400, env=dict(os.environ, SMP="4"))
    if p.returncode != 0:
        return "trace.sh: %s %s" % (p.stdout[-1500:], p.stderr[-500:])
    return verify_trace(out, 4, r"sys:ls\[\d+\]:open syscall_enter: open\(")


def panic_dump(via_host):
    """A panic after boot with ttrace.dump_on_panic=1: the trace comes back
    (host channel, or the console) with the boot's events in it."""
    os.makedirs(OUT, exist_ok=True)
    out = os.path.join(OUT, "panic-%s.ttr" % ("host" if via_host else "cons"))
    if os.path.exists(out):
        os.remove(out)
    run = QemuRun(cmdline="ttrace.dump_on_panic=1 fault=panic", smp=2,
                  timeout=300, hostout=out if via_host else None)
    code = run.wait()
    run.close()
    if code != 3:
        return "QEMU exit status %s, want 3 (panic)" % code
    if "ttrace: dump done" not in run.text:
        return "no dump: " + "\n".join(run.text.splitlines()[-10:])
    if not via_host:
        log = out + ".log"
        with open(log, "w") as f:
            f.write(run.text)
        u = ttdecode("unwrap", log, out)
        if u.returncode != 0:
            return "ttdecode unwrap: " + u.stderr
    # CPU 0 booted the machine; an AP may not have traced anything yet
    return verify_trace(out, 1, r"boot_phase: devices")


def split_traces(path):
    """Cuts a stream of trace files written back to back into files, by
    walking each file's sections (docs/trace-file.md): a 48-byte header,
    then {u32 type, u32 cpu, u64 length} + payload + u32 CRC, padded so the
    next header starts at 48 mod 64, up to the END section (type 6)."""
    data = open(path, "rb").read()
    files, pos = [], 0
    while pos + 48 <= len(data):
        off = pos + 48
        while off + 16 <= len(data):
            typ = int.from_bytes(data[off:off + 4], "little")
            length = int.from_bytes(data[off + 8:off + 16], "little")
            end = off + 16 + length + 4
            if typ == 6:
                break
            off = end + (48 - (end - pos)) % 64   # relative to the file
        else:
            break
        if end > len(data):
            break
        files.append(data[pos:end])
        pos = end
    return files, len(data) - pos


def stress(smp, seconds=30):
    """Every CPU busy with tracing-heavy work while one process saves the
    trace to the host every second and another flips groups through ctl:
    no panic, every saved file verifies."""
    os.makedirs(OUT, exist_ok=True)
    out = os.path.join(OUT, "stress.ttr")
    if os.path.exists(out):
        os.remove(out)
    s = Session(smp, hostout=out, timeout=seconds * 6 + 240)
    loads = " | ".join(["tracestress load"] * max(1, smp - 1))
    try:
        m = s.say("%s | tracestress toggle | tracestress save %d" %
                  (loads, seconds), rb"save: (\d+) traces saved",
                  timeout=seconds * 6 + 120)
    except TimeoutError as e:
        return s.finish(str(e))
    why = s.finish("")
    if why:
        return why
    files, rest = split_traces(out)
    if len(files) != int(m.group(1)) or rest:
        return "host got %d whole traces (+%d bytes), guest saved %s" % (
            len(files), rest, m.group(1).decode())
    for i, f in enumerate(files):
        p = os.path.join(OUT, "stress-%d.ttr" % i)
        with open(p, "wb") as fh:
            fh.write(f)
        why = verify_trace(p, smp)
        if why:
            return "trace %d: %s" % (i, why)
        os.remove(p)
    return ""


def run_all(res, only):
    def want(name):
        return not only or only in name

    for smp in (1, 2, 4):
        name = "ttrace_device_smp%d" % smp
        if want(name):
            res.add(name, *(lambda w: (not w, w))(device_scenario(smp)))
    for name, fn in (("ttrace_roundtrip", roundtrip),
                     ("ttrace_panic_dump_host", lambda: panic_dump(True)),
                     ("ttrace_panic_dump_console", lambda: panic_dump(False)),
                     ("ttrace_stress_smp4", lambda: stress(4))):
        if want(name):
            why = fn()
            res.add(name, not why, why)
