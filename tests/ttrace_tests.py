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

    def __init__(self, smp, hostout=None, timeout=240, cmdline="",
                 mem="512M", name=None):
        self.smp = smp
        self.name = name or "session-smp%d" % smp
        self.run = QemuRun(cmdline=cmdline, smp=smp, timeout=timeout,
                           hostout=hostout, mem=mem)

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
        with open(os.path.join(OUT, self.name + ".log"), "w") as f:
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
    """ttdecode verify, then records from at least ncpus CPUs (a CPU that
    ran nothing traced in a short workload legitimately has none), then
    (optionally) a regex in the text dump. Returns why it failed, or ""."""
    v = ttdecode("verify", path)
    if v.returncode != 0 or "verify: OK" not in v.stdout:
        return "ttdecode verify %s: %s%s" % (path, v.stdout[-800:], v.stderr)
    counts = dict(re.findall(r"cpu(\d+): (\d+) events", v.stdout))
    busy = [c for c in counts if int(counts[c]) > 0]
    if len(busy) < ncpus:
        return "records from cpus %s only: %s" % (busy, v.stdout)
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
    return verify_trace(out, 1, r"sys:ls\[\d+\]:open syscall_enter: open\(")


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


def check_saved(out, saved):
    """Every trace the guest saved to the host channel file out arrived
    whole and verifies (no undeclared hole, aux included), has records,
    and the ring size changed between them (the resizes happened)."""
    files, rest = split_traces(out)
    if len(files) != saved or rest:
        return "host got %d whole traces (+%d bytes), guest saved %d" % (
            len(files), rest, saved)
    sizes = set()
    for i, f in enumerate(files):
        p = out + "-%d.ttr" % i
        with open(p, "wb") as fh:
            fh.write(f)
        v = ttdecode("verify", p)
        if v.returncode != 0 or "verify: OK" not in v.stdout:
            return "trace %d: ttdecode verify: %s%s" % (
                i, v.stdout[-800:], v.stderr)
        if not re.search(r"aux: \d+ bytes, [1-9]", v.stdout):
            return "trace %d: no aux records: %s" % (i, v.stdout[-800:])
        if not re.search(r"events: [1-9]", v.stdout):
            return "trace %d: no records: %s" % (i, v.stdout[-800:])
        sizes.add(re.search(r"(\d+) entries/cpu", v.stdout).group(1))
        os.remove(p)
    if len(files) >= 4 and len(sizes) < 2:
        return "every saved trace has rings of %s entries: no resize" % sizes
    return ""


def stress(name, smp, seconds, interval, extra):
    """Every CPU busy with tracing-heavy work while one process saves the
    trace to the host every interval seconds and others flip groups,
    resize the rings and change their mode, and read the device files: no
    panic, every saved file verifies with no undeclared hole."""
    os.makedirs(OUT, exist_ok=True)
    out = os.path.join(OUT, name + ".ttr")
    if os.path.exists(out):
        os.remove(out)
    s = Session(smp, hostout=out, timeout=seconds * 6 + 240, name=name)
    loads = " | ".join(["tracestress load"] * max(1, smp - 1) + extra)
    try:
        s.say("%s | tracestress toggle | tracestress resize | "
              "tracestress save %d %d" % (loads, seconds, interval),
              rb"save: (\d+) traces saved", timeout=seconds * 6 + 120)
    except TimeoutError as e:
        return s.finish(str(e))
    why = s.finish("")
    if why:
        return why
    saved = re.search(r"save: (\d+) traces saved", s.run.text)
    return check_saved(out, int(saved.group(1)))


def free_pages(s):
    m = s.say("cat /dev/memstat", rb"free_pages (\d+)\r?\n")
    return int(m.group(1))


def lifecycle():
    """bufsize limits and resizes, the files after a resize, long lines,
    and open files shared by 8 processes giving every page back."""
    s = Session(2, name="lifecycle")
    try:
        s.say("echo bufsize 16384 > /dev/ttrace/ctl",
              r"bufsize: 16384 KiB is out of range \(4 to 8192 KiB")
        s.say("cat /dev/ttrace/ctl", r"bufsize 1024\r?\n")
        s.say("echo bufsize 64 > /dev/ttrace/ctl; ls -l /dev/ttrace",
              r"65536\s+raw1")
        s.say("echo bufsize 4096 > /dev/ttrace/ctl; "
              "cat /dev/ttrace/cpu0 | wc -l", r"\n\s*\d+\r?\n")
        s.say("echo status=$?", r"status=0")
        long = "L" * 250
        s.say("echo disable syscall > /dev/ttrace/ctl; ttrace mark %s; "
              "ttrace mark after-long" % long, r"\n")
        s.say("ttrace cat | grep -c after-long", r"\n1\r?\n")
        s.say("ttrace cat | grep %s | grep -c after-long" % long,
              r"\n0\r?\n")
        s.say("echo bufsize 1024 > /dev/ttrace/ctl; "
              "echo enable syscall > /dev/ttrace/ctl", r"\n")
        s.say("tracestress share 8", r"\n")
        before = free_pages(s)
        for _ in range(2):
            s.say("tracestress share 8", r"\n")
        after = free_pages(s)
        if after < before:
            return s.finish("8 processes sharing cpu0 and aux: %d pages "
                            "not given back" % (before - after))
    except TimeoutError as e:
        return s.finish(str(e))
    return s.finish("")


def oom_boot():
    """Rings that cannot be allocated at boot: tracing off with a clear
    message, no crash; a smaller bufsize brings it back."""
    # Rings are allocated per CPU as it comes up: in 24M the second 8 MiB
    # ring (the AP's) cannot be had.
    s = Session(2, cmdline="ttrace.bufsize=8192", mem="24M", name="oom")
    try:
        s.run.expect(r"ttrace: out of memory for the rings "
                     r"\(ttrace.bufsize\); tracing is off", timeout=120)
        s.say("ls /bin | wc -l", r"\n\s*\d+\r?\n")
        s.say("cat /dev/ttrace/ctl", r"off out of memory")
        s.say("echo enable syscall > /dev/ttrace/ctl", r"out of memory")
        s.say("echo bufsize 256 > /dev/ttrace/ctl; "
              "echo enable syscall > /dev/ttrace/ctl; echo status=$?",
              r"status=0")
        s.say("ls /bin > /tmp/x; cat /dev/ttrace/cpu0 /dev/ttrace/cpu1 | "
              "grep -c syscall_enter", r"\n\s*[1-9]\d*\r?\n")
    except TimeoutError as e:
        return s.finish(str(e))
    return s.finish("")


STREAM_RING_KB = 256            # 4096 entries per CPU


def stream():
    """ttrace stream of a workload that writes more than 10 times the
    ring: the file declares every record it lacks; delivered + declared
    lost = the index range it covers, on every CPU."""
    os.makedirs(OUT, exist_ok=True)
    out = os.path.join(OUT, "stream.ttr")
    if os.path.exists(out):
        os.remove(out)
    s = Session(2, hostout=out, timeout=400, name="stream")
    try:
        s.say("echo bufsize %d > /dev/ttrace/ctl" % STREAM_RING_KB, r"\n")
        m = s.say("ttrace stream -o /dev/host/out -- tracestress burst "
                  "60000", rb"streamed (\d+) bytes of records in (\d+) ms",
                  timeout=300)
    except TimeoutError as e:
        return s.finish(str(e))
    why = s.finish("")
    if why:
        return why
    v = ttdecode("verify", out)
    if v.returncode != 0 or "verify: OK" not in v.stdout:
        return "ttdecode verify: %s%s" % (v.stdout[-800:], v.stderr)
    ring = STREAM_RING_KB * 1024 // 64
    covered = delivered = lost = 0
    for cpu, firsts, conts, lo, hi in re.findall(
            r"cpu(\d+): \d+ events \((\d+) first \+ (\d+) continuation "
            r"entries\), indices (\d+)-(\d+)", v.stdout):
        lost_here = sum(int(n) for n in re.findall(
            r"cpu%s: lost (\d+) records" % cpu, v.stdout))
        if int(firsts) + int(conts) + lost_here != int(hi) - int(lo):
            return "cpu%s: %s + %s delivered + %d lost != %d covered" % (
                cpu, firsts, conts, lost_here, int(hi) - int(lo))
        covered += int(hi) - int(lo)
        delivered += int(firsts) + int(conts)
        lost += lost_here
    if covered < 10 * ring:
        return "the stream covered %d records, less than 10 rings (%d)" % (
            covered, 10 * ring)
    ms = max(1, int(m.group(2)))
    print("# stream: %d records covered, %d delivered, %d declared lost, "
          "%d ms, %d records/s drained" % (covered, delivered, lost, ms,
                                           delivered * 1000 // ms))
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
                     ("ttrace_lifecycle", lifecycle),
                     ("ttrace_oom_boot", oom_boot),
                     ("ttrace_stream", stream),
                     ("ttrace_stress_smp4",
                      lambda: stress("stress", 4, 24, 2, []))):
        if want(name):
            why = fn()
            res.add(name, not why, why)
