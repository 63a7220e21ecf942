"""QEMU scenarios for the #ttrace device, the ttrace tool and getting a
trace to the host: typed into the shell as a person would, checked on the
console, and, for saved traces, checked on the host with ttdecode."""
import decimal
import json
import os
import re
import socket
import struct
import shutil
import subprocess
import time

import tracedat_check
from qemu_run import QemuRun, QEMU_STATUS, verdict, ROOT, DEFAULT_EVENTS, \
    KERNEL, KERNEL_ELF, crc32c, script_module

BUILD = os.path.join(ROOT, "build")
TTDECODE = os.path.join(BUILD, "tools", "ttdecode")
OUT = os.path.join(BUILD, "test")


class Session:
    """One boot with the shell; say() types a line and waits for a regex."""

    def __init__(self, smp, hostout=None, timeout=240, cmdline="",
                 mem="512M", name=None, qmp=None, ramfile=None,
                 reboot=False, extra=(), icount=None):
        self.smp = smp
        self.name = name or "session-smp%d" % smp
        self.run = QemuRun(cmdline=cmdline, smp=smp, timeout=timeout,
                           hostout=hostout, mem=mem, qmp=qmp,
                           ramfile=ramfile, reboot=reboot, extra=extra,
                           icount=icount)

    def say(self, line, want, timeout=60):
        self.run.expect(r"\$ ", timeout=timeout)
        self.run.send(line + "\r")
        return self.run.expect(want, timeout=timeout)

    def finish(self, why, want_panic=False):
        """Powers off a run that passed; a run that failed while the guest
        still runs gets a ^T dump (what each process sleeps on) after its
        reason. Returns verdict()'s reason, "" if it passed (a panic on
        the console fails it unless want_panic)."""
        if not why:
            try:
                self.run.expect(r"\$ ", timeout=60)
                self.run.send("poweroff\r")
                code = self.run.wait(timeout=60)
                if code != 0:
                    why = "QEMU exit status %s after poweroff" % code
            except TimeoutError as e:
                why = str(e)
        if why:
            dump = self.run.status_dump()
            if dump.strip():
                why += "\n--- ^T ---\n" + dump[-6000:]
        self.run.close()
        log = self.run.text
        os.makedirs(OUT, exist_ok=True)
        with open(os.path.join(OUT, self.name + ".log"), "w") as f:
            f.write(log)
        return verdict(log, why, want_panic)


def device_scenario(smp):
    """The shell scenario of the #ttrace device; returns why it failed."""
    s = Session(smp, cmdline=DEFAULT_EVENTS)
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
        # status shows the mask once (ctl has it; stats does not repeat it)
        s.say("ttrace status | grep -c mask", r"\n1\r?\n")
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


def fresh_out(name):
    """build/test/NAME, the host channel file of a session, removed if a
    run before left one."""
    os.makedirs(OUT, exist_ok=True)
    out = os.path.join(OUT, name)
    if os.path.exists(out):
        os.remove(out)
    return out


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


def cut_run(data, cpu, last):
    """The trace file data with cpu's first (or last) RECORDS section cut
    out and its END made to match (count, CRC-32, size), as a tool that
    lost a run but framed the rest correctly would write it."""
    frames, off = [], 48
    while off + 16 <= len(data):
        typ, c, length = struct.unpack_from("<IIQ", data, off)
        end = off + 16 + length + 4
        frames.append((typ, c, off, end + (48 - end) % 64))
        if typ == 6:
            break
        off = frames[-1][3]
    runs = [f for f in frames if f[0] == 7 and f[1] == cpu]
    _, _, a, b = runs[-1 if last else 0]
    d = data[:a] + data[b:frames[-1][2]]
    end = len(d)
    nsections = struct.unpack_from("<I", data, frames[-1][2] + 16)[0] - 1
    body = struct.pack("<IIQIIQ", 6, 0, 16, nsections, crc32c(d),
                       end + 36)
    return d + body + struct.pack("<I", crc32c(body))


def cut_runs_refused(path):
    """verify refuses path with its busiest CPU's first or last RECORDS
    section cut out (the RANGE section names the indices the runs must
    cover), naming the missing indices. Returns why not, or ""."""
    data = open(path, "rb").read()
    v = ttdecode("verify", path)
    counts = dict(re.findall(r"cpu(\d+): (\d+) events", v.stdout))
    cpu = max(counts, key=lambda c: int(counts[c]))
    for last in (False, True):
        cut = path + (".cut-last" if last else ".cut-first")
        with open(cut, "wb") as f:
            f.write(cut_run(data, int(cpu), last))
        v = ttdecode("verify", cut)
        if v.returncode == 0 or not re.search(
                r"cpu %s: logical indices \[\d+, \d+\) missing" % cpu,
                v.stderr):
            return "verify of %s (cpu %s's %s run cut out): %s%s" % (
                cut, cpu, "last" if last else "first", v.stdout[-300:],
                v.stderr)
        os.remove(cut)
    return ""


def idle_named(path):
    """Every sched_switch in the text of path names both threads: a CPU's
    idle thread is idle/N, none is #0. Returns why not, or ""."""
    lines = [l for l in ttdecode("text", path).stdout.splitlines()
             if " sched_switch: " in l]
    if not any(re.search(r"(prev|next)=idle/\d+ ", l) for l in lines):
        return "no sched_switch names an idle thread idle/N: %s" % lines[:4]
    bad = [l for l in lines if "=#" in l]
    return "sched_switch without a name: %s" % bad[:4] if bad else ""


def roundtrip():
    """make trace CMD='ls -l /bin; sleep 0.05' (the sleep idles its CPU):
    byte-identical on the host, verified, records from every CPU, syscall
    names resolved, idle threads named; with a CPU's first or last run cut
    out, refused."""
    os.makedirs(OUT, exist_ok=True)
    out = os.path.join(OUT, "roundtrip.ttr")
    p = subprocess.run(["sh", os.path.join(ROOT, "scripts", "trace.sh"),
                        KERNEL,
                        os.path.join(BUILD, "initramfs.cpio"), out,
                        "ls -l /bin; sleep 0.05"], capture_output=True,
                       text=True, timeout=400, env=dict(os.environ, SMP="4"))
    if p.returncode != 0:
        return "trace.sh: %s %s" % (p.stdout[-1500:], p.stderr[-500:])
    return verify_trace(out, 1, r"sys:ls\[\d+\]:open syscall_enter: open\(") \
        or idle_named(out) or cut_runs_refused(out)


def capture(out, cmd):
    """trace.sh: boots, runs cmd, saves the trace to out. Returns why it
    failed, or ""."""
    p = subprocess.run(["sh", os.path.join(ROOT, "scripts", "trace.sh"),
                        KERNEL,
                        os.path.join(BUILD, "initramfs.cpio"), out, cmd],
                       capture_output=True, text=True, timeout=400,
                       env=dict(os.environ, SMP="4"))
    return "" if p.returncode == 0 else "trace.sh: %s %s" % (
        p.stdout[-1500:], p.stderr[-500:])


def two_saves():
    """make trace of a command that saves a trace itself (as `ttrace graph`
    does): both saves land whole, CMD's in OUT-0.ttr, trace.sh's in OUT;
    both verify."""
    os.makedirs(OUT, exist_ok=True)
    out = os.path.join(OUT, "two_saves.ttr")
    why = capture(out, "ttrace save /dev/host/out")
    if why:
        return why
    for path in (out, os.path.join(OUT, "two_saves-0.ttr")):
        why = verify_trace(path, 1)
        if why:
            return why
    return ""


def decode_exports():
    """ttdecode json of a real trace (the roundtrip's when it is newer than
    the kernel, else one captured here): it parses, its tracks are "CPU n",
    its slices nest, syscalls are named by syscall; stats lists them."""
    import chrome_json_check
    path = os.path.join(OUT, "roundtrip.ttr")
    kernel = KERNEL
    if not os.path.exists(path) or \
            os.path.getmtime(path) < os.path.getmtime(kernel):
        os.makedirs(OUT, exist_ok=True)
        path = os.path.join(OUT, "exports.ttr")
        why = capture(path, "ls -l /bin")
        if why:
            return why
    out = os.path.join(OUT, "exports.json")
    j = ttdecode("json", path, out)
    if j.returncode != 0:
        return "ttdecode json: %s%s" % (j.stdout, j.stderr)
    why = chrome_json_check.check(out, want_syscalls=True)
    if why:
        return why
    with open(out) as f:
        names = {e["name"] for e in json.load(f)["traceEvents"]
                 if e.get("cat") == "syscall"}
    if not {"open", "write"} <= names:
        return "syscall slices named %s, no open and write" % sorted(names)
    st = ttdecode("stats", path)
    if st.returncode != 0 or not re.search(r"\nopen +[1-9]", st.stdout):
        return "ttdecode stats: %s%s" % (st.stdout[-800:], st.stderr)
    return ""


def panic_dump(via_host):
    """A panic after boot with ttrace.dump_on_panic=1: the trace comes back
    (host channel, or the console) with the boot's events in it."""
    os.makedirs(OUT, exist_ok=True)
    out = os.path.join(OUT, "panic-%s.ttr" % ("host" if via_host else "cons"))
    if os.path.exists(out):
        os.remove(out)
    run = QemuRun(cmdline="ttrace.dump_on_panic=1 fault=panic " +
                  DEFAULT_EVENTS, smp=2,
                  timeout=300, hostout=out if via_host else None)
    code = run.wait()
    run.close()
    if code != QEMU_STATUS["PANIC"]:
        return "QEMU exit status %s, want %d (panic)" % (
            code, QEMU_STATUS["PANIC"])
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


def boot_profile():
    """make bootprof's path: a 4-CPU boot saved at the shell prompt, its
    profile (ttdecode boot --json) adding up to the boot within 5%, every
    AP with a bring-up latency, the firmware's time, the first process
    before the prompt, and the SVG timeline well-formed XML."""
    import json
    import xml.etree.ElementTree as ET
    os.makedirs(OUT, exist_ok=True)
    out = os.path.join(OUT, "bootprof.ttr")
    svg = os.path.join(OUT, "bootprof.svg")
    p = subprocess.run(["sh", os.path.join(ROOT, "scripts", "trace.sh"),
                        KERNEL,
                        os.path.join(BUILD, "initramfs.cpio"), out, "",
                        "boot"], capture_output=True, text=True,
                       timeout=400, env=dict(os.environ, SMP="4"))
    if p.returncode != 0:
        return "trace.sh: %s %s" % (p.stdout[-1500:], p.stderr[-500:])
    why = verify_trace(out, 4)
    if why:
        return why
    b = ttdecode("boot", out, "--json", "--svg", svg)
    if b.returncode != 0:
        return "ttdecode boot: " + b.stderr
    prof = json.loads(b.stdout)
    boot = prof["boot_ns"]
    cpu0 = [ph for ph in prof["phases"] if ph["cpu"] == 0]
    total = sum(ph["duration_ns"] for ph in cpu0)
    firmware = [ph for ph in cpu0 if ph["name"] == "firmware+loader"]
    aps = {ap["cpu"]: ap["bringup_ns"] for ap in prof["aps"]}
    first, prompt = prof["first_process_ns"], prof["shell_prompt_ns"]
    gaps = [(a["name"], b["name"]) for a, b in zip(cpu0, cpu0[1:])
            if a["start_ns"] + a["duration_ns"] != b["start_ns"]]
    if prompt is None or first is None or not 0 < first < prompt:
        return "first process %s, prompt %s" % (first, prompt)
    if boot != prompt or abs(total - boot) > 0.05 * boot:
        return "cpu 0's phases sum to %d ns, the boot took %d" % (total, boot)
    if gaps:
        return "cpu 0's phases not contiguous at %s" % gaps
    if not firmware or firmware[0]["duration_ns"] <= 0:
        return "no firmware+loader time: %s" % cpu0[:2]
    if sorted(aps) != [1, 2, 3] or not all(aps.values()):
        return "AP bring-up latencies %s" % aps
    root = ET.parse(svg).getroot()
    if root.tag != "{http://www.w3.org/2000/svg}svg" or \
            len(root.findall(".//{http://www.w3.org/2000/svg}rect")) <= \
            len(prof["phases"]):
        return "the SVG has no timeline: %s" % root.tag
    return ""


def file_sections(data):
    """The sections of the trace file data, as (type, payload offset,
    length), by its framing (docs/trace-file.md): a 48-byte header,
    then {u32 type, u32 cpu, u64 length} + payload + u32 CRC, padded so
    the next header starts at 48 mod 64, up to the END section (type 6),
    or while the data lasts."""
    off = 48
    while off + 16 <= len(data):
        typ = int.from_bytes(data[off:off + 4], "little")
        length = int.from_bytes(data[off + 8:off + 16], "little")
        end = off + 16 + length + 4
        yield typ, off + 16, length
        if typ == 6:
            return
        off = end + (48 - end) % 64


def split_saved(path, want):
    """The want traces saved back to back in the host channel file path,
    cut by `ttdecode split` into path-0.ttr, path-1.ttr, ...: (their
    paths, "") or ([], why not: another count, or a torn or damaged
    stream, named by its offset)."""
    s = ttdecode("split", path, path)
    m = re.fullmatch(r"split: (\d+) traces\n", s.stdout)
    if s.returncode != 0 or not m:
        return [], "ttdecode split %s: %s%s" % (path, s.stdout, s.stderr)
    if int(m.group(1)) != want:
        return [], "host got %s whole traces, guest saved %d" % (
            m.group(1), want)
    return ["%s-%d.ttr" % (path, i) for i in range(want)], ""


def finish_saved(s, out, want):
    """Ends session s, then split_saved(out, want): (paths, "") or ([],
    why the session or the split failed)."""
    why = s.finish("")
    return ([], why) if why else split_saved(out, want)


def check_saved(out, saved):
    """Every trace the guest saved to the host channel file out arrived
    whole and verifies (no undeclared hole, aux included), at least three
    in four have records, and the ring size changed between them (the
    resizes happened). A save can truly find no record: `bufsize` gives
    every CPU a new, empty ring, and until the re-arm after it has
    patched the sites back (sync IPIs: milliseconds under TCG) nothing is
    recorded, while the rings are readable again."""
    files, why = split_saved(out, saved)
    if why:
        return why
    sizes, empty = set(), 0
    for i, p in enumerate(files):
        v = ttdecode("verify", p)
        if v.returncode != 0 or "verify: OK" not in v.stdout:
            return "trace %d: ttdecode verify: %s%s" % (
                i, v.stdout[-800:], v.stderr)
        if not re.search(r"aux: \d+ bytes, [1-9]", v.stdout):
            return "trace %d: no aux records: %s" % (i, v.stdout[-800:])
        if not re.search(r"events: [1-9]", v.stdout):
            empty += 1
            if 4 * empty > len(files):
                return "%d of %d traces have no records (trace %d: %s)" % (
                    empty, len(files), i, v.stdout[-800:])
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


MODULE_PAGES = re.compile(rb"modules hold (\d+) pages, (\d+) of the "
                          rb"module area\r?\n")


def module_pages(s):
    """(pages of the allocator, pages of the module area) the loaded
    modules hold, as /dev/ttrace/probes says: the module loader's own
    count, which no other user of the page allocator moves (the free page
    count moved by 4 beside a CPU loop: a process reaped meanwhile)."""
    m = s.say("cat /dev/ttrace/probes", MODULE_PAGES)
    return int(m.group(1)), int(m.group(2))


def lifecycle():
    """bufsize limits and resizes, the files after a resize, long lines,
    and open files shared by 8 processes giving every page back."""
    s = Session(2, cmdline=DEFAULT_EVENTS, name="lifecycle")
    try:
        s.say("echo bufsize 16384 > /dev/ttrace/ctl",
              r"bufsize must be a power of two KB, 4\.\.8192;")
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
    s = Session(2, cmdline="ttrace.bufsize=8192 " + DEFAULT_EVENTS,
                mem="24M", name="oom")
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


LONG_MARKS = 80                 # more than cpuN's 64-entry read
LONG_MARK_LEN = 250             # a text line of about 310 bytes each


def check_long_marks(text):
    """Why the cpu0 text of `tracestress marks LONG_MARKS LONG_MARK_LEN`
    and then the marker 'after-marks' is wrong ("" if it is right): each
    marker whole, in order, once, none lost, the last one after them."""
    got = [(int(m.group(1)), m.group(2)) for m in
           re.finditer(r"user_marker: \S*mark-(\d+):(\d*)", text)]
    if [i for i, _ in got] != list(range(LONG_MARKS)):
        return "markers %s, want 0..%d in order" % (
            [i for i, _ in got], LONG_MARKS - 1)
    for i, digits in got:
        want = str(i % 10) * (LONG_MARK_LEN - len("mark-%d:" % i))
        if digits != want:
            return "marker %d: %d digits %r..., want %d %r" % (
                i, len(digits), digits[:8], len(want), want[:1])
    tail = text[text.rfind("mark-%d:" % (LONG_MARKS - 1)):]
    if "after-marks" not in tail:
        return "the marker after the long ones is missing"
    return ""


def long_lines():
    """cpu0's text of a run of long markers: every line whole (the block
    a read formats never overruns nor drops a line), on one CPU; and two
    opens of cpu0 read in turn give the same text (a reader that wrote
    past its block wrote into the other's: they differed at byte 8192)."""
    s = Session(1, cmdline=DEFAULT_EVENTS, name="long-lines")
    try:
        s.say("echo setmask 0x400 0xffffffffffffffff > /dev/ttrace/ctl; "
              "ttrace clear", r"\n")
        s.say("tracestress marks %d %d; ttrace mark after-marks; echo ok=$?"
              % (LONG_MARKS, LONG_MARK_LEN), r"ok=0")
        s.run.expect(r"\$ ", timeout=60)
        s.run.send("cat /dev/ttrace/cpu0; echo cat=$?\r")
        m = s.run.expect(r"(?s)\n(.*)\ncat=(\d+)\r?\n", timeout=180)
        text = m.group(1).decode(errors="replace").replace("\r", "")
        why = check_long_marks(text)
        if not why and m.group(2) != b"0":
            why = "cat exited %s" % m.group(2).decode()
        if not why:
            m = s.say("tracestress twin /dev/ttrace/cpu0",
                      r"twin: (.*)\n", timeout=120)
            if m.group(1).strip() != b"%d bytes, same" % len(text + "\n"):
                why = "two opens of cpu0 read in turn: " + \
                    m.group(1).decode().strip()
        if why:
            return s.finish(why)
    except TimeoutError as e:
        return s.finish(str(e))
    return s.finish("")


def oom_boot_cpu0():
    """CPU 0's ring cannot be allocated at boot: CPU 0 writes the early
    ring until then. A bufsize that fits must give CPU 0 its real ring
    with the early records in it (and any it refused counted), not leave
    it writing the early ring nobody reads."""
    # 16M: no free 8 MiB block at all (the kernel is in the low one, the
    # firmware tables at the top of the high one), so CPU 0's ring fails
    s = Session(2, cmdline="ttrace.bufsize=8192 " + DEFAULT_EVENTS,
                mem="16M", name="oom-cpu0")
    try:
        s.run.expect(r"ttrace: out of memory for the rings "
                     r"\(ttrace.bufsize\); tracing is off", timeout=120)
        s.say("echo bufsize 256 > /dev/ttrace/ctl; echo status=$?",
              r"status=0")
        s.say("ls /bin > /tmp/x; ls /bin > /tmp/x; echo done", r"done")
        s.say("cat /dev/ttrace/stats",
              r"cpu0 written [1-9]\d* overwritten 0 dropped 0 ")
        s.say("cat /dev/ttrace/cpu0 | grep -c 'boot_phase: memory '",
              r"\n1\r?\n")
        s.say("cat /dev/ttrace/cpu0 | grep -c sched_switch",
              r"\n\s*[1-9]\d*\r?\n")
    except TimeoutError as e:
        return s.finish(str(e))
    return s.finish("")


FILTER_CALLS = 1000             # getpid calls of `tracestress burst`


def filtered_counts(text):
    """{cpu: (dropped, filtered)} from the stats text."""
    return {int(c): (int(d), int(f)) for c, d, f in re.findall(
        r"cpu(\d+) written \d+ overwritten \d+ dropped (\d+) "
        r"filtered (\d+) ", text)}


def filtered():
    """A filter probe that suppresses every getpid syscall_enter (nr 4):
    tracestress burst's calls are counted per CPU as filtered, exactly, in
    stats and in the saved trace's STATS, and dropped stays 0; the trace
    holds their exits, not their enters."""
    out = fresh_out("filtered.ttr")
    s = Session(2, hostout=out, cmdline=DEFAULT_EVENTS, name="filtered")
    try:
        s.say("echo probe f filter syscall_enter nr!=4 > /dev/ttrace/ctl; "
              "echo status=$?", r"status=0")
        s.say("ttrace clear", r"\n")
        s.say("tracestress burst %d" % FILTER_CALLS, r"\n")
        m = s.say("cat /dev/ttrace/stats", r"((?:cpu\d+ [^\n]*\n)+)aux")
        s.say("ttrace save /dev/host/out", r"saved /dev/host/out")
    except TimeoutError as e:
        return s.finish(str(e))
    why = s.finish("")
    if why:
        return why
    counts = filtered_counts(m.group(1).decode())
    if len(counts) != 2 or any(d for d, f in counts.values()):
        return "stats: %r" % m.group(1)
    total = sum(f for d, f in counts.values())
    if total != FILTER_CALLS:
        return "stats: %d filtered, %d getpid calls: %r" % (
            total, FILTER_CALLS, m.group(1))
    v = ttdecode("verify", out)
    if v.returncode != 0 or "verify: OK" not in v.stdout:
        return "ttdecode verify: %s%s" % (v.stdout[-800:], v.stderr)
    saved = [int(f) for f in re.findall(r"dropped 0, filtered (\d+)",
                                        v.stdout)]
    if len(saved) != 2 or sum(saved) < FILTER_CALLS:
        return "verify: STATS filtered %s: %s" % (saved, v.stdout[-800:])
    t = ttdecode("text", out).stdout
    enters = len(re.findall(r"syscall_enter: getpid\(", t))
    exits = len(re.findall(r"tracestress\[\d+\]:getpid syscall_exit: "
                           r"getpid", t))
    if enters or exits != FILTER_CALLS:
        return "trace: %d getpid enters, %d tracestress getpid exits" % (
            enters, exits)
    print("# filtered: stats %s, saved STATS %s" % (counts, saved))
    return ""


STREAM_RING_KB = 256            # 4096 entries per CPU


def stream():
    """ttrace stream of a workload that writes more than 10 times the
    ring: the file declares every record it lacks; delivered + declared
    lost = the index range it covers, on every CPU."""
    os.makedirs(OUT, exist_ok=True)
    out = os.path.join(OUT, "stream.ttr")
    if os.path.exists(out):
        os.remove(out)
    s = Session(2, hostout=out, timeout=400, cmdline=DEFAULT_EVENTS,
                name="stream")
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

def stream_cpus(verify_out):
    """{cpu: (delivered, declared lost, first index, end index, STATS
    written)} from ttdecode verify's lines."""
    cpus = {}
    for cpu, firsts, conts, lo, hi, written in re.findall(
            r"cpu(\d+): \d+ events \((\d+) first \+ (\d+) continuation "
            r"entries\), indices (\d+)-(\d+), \d+ reordered; written (\d+)",
            verify_out):
        lost = sum(int(n) for n in re.findall(
            r"cpu%s: lost (\d+) records" % cpu, verify_out))
        cpus[int(cpu)] = (int(firsts) + int(conts), lost, int(lo), int(hi),
                          int(written))
    return cpus


DRAIN_RING_KB = 64              # 1024 entries per CPU
BURST_CALLS = 20000             # 40,000 records: 39 rings
PACE_ROUNDS, PACE_CALLS, PACE_MS = 60, 100, 20


def drain_run(name, setup, workload):
    """One SMP=2 boot with 1024-entry rings: the setup ctl commands, then
    `ttrace stream` of the tracestress workload to the host channel (the
    in-kernel drain), then `drain off` again and `drain maybe`, which
    must be refused with their reasons. Returns (why it failed, {cpu:
    stream_cpus() tuple}) with the file verified."""
    out = fresh_out(name + ".ttr")
    s = Session(2, hostout=out, cmdline=DEFAULT_EVENTS, name=name)
    try:
        s.say("; ".join(["echo bufsize %d > /dev/ttrace/ctl" % DRAIN_RING_KB]
                        + ["echo %s > /dev/ttrace/ctl" % c for c in setup]
                        + ["echo status=$?"]), r"status=0")
        s.say("ttrace clear", r"\n")
        s.say("ttrace stream -o /dev/host/out -- tracestress " + workload,
              rb"streamed \d+ bytes of records in \d+ ms; tracestress "
              rb"exited with status 0", timeout=200)
        s.say("echo drain off > /dev/ttrace/ctl; echo status=$?",
              r"echo: drain: off already[^\n]*\n+status=1")
        s.say("echo drain maybe > /dev/ttrace/ctl; echo status=$?",
              r"echo: ttrace ctl: drain: on\|off, not 'maybe'[^\n]*\n+"
              r"status=1")
    except TimeoutError as e:
        return s.finish(str(e)), None
    why = s.finish("")
    if why:
        return why, None
    v = ttdecode("verify", out)
    if v.returncode != 0 or "verify: OK" not in v.stdout:
        return "ttdecode verify: %s%s" % (v.stdout[-800:], v.stderr), None
    cpus = stream_cpus(v.stdout)
    # a CPU that ran no traced call (the whole workload on the other one,
    # as a loaded host's scheduler may leave it) has no records
    idle = re.findall(r"cpu(\d+): no records", v.stdout)
    if not cpus or len(cpus) + len(idle) != 2:
        return "verify: %d CPUs with records, %d without: %s" % (
            len(cpus), len(idle), v.stdout[-800:]), None
    return "", cpus


def drain_burst():
    """The in-kernel drain (ttrace stream to the host channel) of a burst
    of getpid calls 39 times the ring, with only the syscall group on:
    every record the rings took is in the file, delivered or declared
    lost, exactly (per CPU: delivered + lost = the indices covered = the
    ring's written count in STATS), and tracestress's getpid calls are
    all there, or inside a loss. The old user-space stream failed this:
    its own read and write calls after the end were written to the rings
    but were in the file neither as records nor as losses."""
    why, cpus = drain_run("drain-burst", ["setmask 0x100 0xffffffffffffffff"],
                          "burst %d" % BURST_CALLS)
    if why:
        return why
    for cpu, (got, lost, lo, hi, written) in cpus.items():
        if got + lost != hi - lo or hi - lo != written:
            return ("cpu%d: %d delivered + %d declared lost, indices %d-%d, "
                    "%d written: not every record written is accounted "
                    "for" % (cpu, got, lost, lo, hi, written))
    t = ttdecode("text", os.path.join(OUT, "drain-burst.ttr")).stdout
    calls = len(re.findall(r"tracestress\[\d+\]:getpid syscall_(?:enter|"
                           r"exit): getpid", t))
    lost = sum(c[1] for c in cpus.values())
    if calls > 2 * BURST_CALLS or calls + lost < 2 * BURST_CALLS:
        return ("%d tracestress getpid records delivered, %d declared lost, "
                "%d written" % (calls, lost, 2 * BURST_CALLS))
    print("# drain_burst: %d of %d getpid records delivered, %d records "
          "declared lost" % (calls, 2 * BURST_CALLS, lost))
    return ""


def drain_steady():
    """A steady writer (tracestress pace: 100 getpid calls, 202 records
    with its nanosleep's, every 20 ms: about 10,000 records/s, a
    thirtieth of the drain's rate under TCG, docs/benchmarks.md) for 12
    times a 1024-entry ring, drained in the kernel to the host channel:
    the file verifies and declares no loss. The pace is the writer's
    sleep, so a slow machine writes slower too. Only the syscall group is
    on: nanosleep ends by yielding in a loop until its deadline, and with
    the ipi and lock groups on each turn makes records as fast as the CPU
    can, not at the writer's pace."""
    why, cpus = drain_run("drain-steady", ["setmask 0x100 0xffffffffffffffff"],
                          "pace %d %d %d" % (PACE_ROUNDS, PACE_CALLS,
                                             PACE_MS))
    if why:
        return why
    covered = sum(hi - lo for _, _, lo, hi, _ in cpus.values())
    lost = sum(c[1] for c in cpus.values())
    ring = DRAIN_RING_KB * 1024 // 64
    if lost:
        return "%d records declared lost: %r" % (lost, cpus)
    if covered < 10 * ring:
        return "the stream covered %d records, less than 10 rings (%d)" % (
            covered, 10 * ring)
    print("# drain_steady: %d records, none lost" % covered)
    return ""


def run_tool(*args):
    """Runs a reader (uftrace, babeltrace2); returns the CompletedProcess."""
    return subprocess.run(list(args), capture_output=True, text=True,
                          timeout=300)


def export_dirs(path):
    """ttdecode uftrace and ctf of path into fresh PATH.uftrace and
    PATH.ctf; returns (uftrace dir, ctf dir, uftrace's summary line,
    ctf's summary line) or raises AssertionError with why."""
    dirs = []
    for kind in ("uftrace", "ctf"):
        d = path + "." + kind
        shutil.rmtree(d, ignore_errors=True)
        p = ttdecode(kind, path, d)
        if p.returncode != 0:
            raise AssertionError("ttdecode %s: %s%s" % (kind, p.stdout,
                                                         p.stderr))
        dirs += [d, p.stdout]
    return dirs[0], dirs[2], dirs[1], dirs[3]


def check_uftrace(d, declared, sysname):
    """The uftrace directory d read by uftrace: info, replay (syscall
    syscall:<sysname> among others; LOST records summing to the declared
    losses), report, graph,
    dump --chrome (valid JSON; uftrace 0.13 writes a bare "," line for each
    LOST record, so with losses exactly those lines are taken out)."""
    info = run_tool("uftrace", "info", "-d", d)
    if info.returncode or not re.search(r"task list\s*: 1000000\(cpu0\)",
                                        info.stdout):
        raise AssertionError("uftrace info: %s%s" % (info.stdout[-800:],
                                                     info.stderr[-800:]))
    rep = run_tool("uftrace", "replay", "-d", d)
    if rep.returncode or not re.search(r"\| +syscall:%s\(\)" % sysname,
                                       rep.stdout):
        raise AssertionError("uftrace replay: no syscall:%s: %s%s" % (
            sysname, rep.stdout[-800:], rep.stderr[-800:]))
    lost = sum(int(n) for n in re.findall(r"LOST (\d+) records", rep.stdout))
    if lost != declared:
        raise AssertionError("uftrace replay shows %d lost records, the "
                             "trace declares %d" % (lost, declared))
    report = run_tool("uftrace", "report", "-d", d)
    if report.returncode or not re.search(r"\d+\s+syscall:%s\n" % sysname,
                                          report.stdout):
        raise AssertionError("uftrace report: %s%s" % (report.stdout[-800:],
                                                       report.stderr))
    graph = run_tool("uftrace", "graph", "-d", d)
    if graph.returncode or "syscall:" not in graph.stdout:
        raise AssertionError("uftrace graph: %s" % graph.stderr[-800:])
    chrome = run_tool("uftrace", "dump", "--chrome", "-d", d)
    text = chrome.stdout
    if declared:
        text = "\n".join(l for l in text.split("\n") if l != ",")
        bare = chrome.stdout.count("\n,\n")
        nlost = len(re.findall(r"LOST \d+ records", rep.stdout))
        if bare != nlost:
            raise AssertionError("dump --chrome: %d bare commas for %d LOST "
                                 "records" % (bare, nlost))
    try:
        events = json.loads(text)["traceEvents"]
    except ValueError as e:
        raise AssertionError("uftrace dump --chrome: not JSON (%s)" % e)
    if not any(e.get("name") == "syscall:" + sysname for e in events):
        raise AssertionError("uftrace dump --chrome: no syscall:%s slice" %
                             sysname)
    return rep.stdout


def check_ctf(d, verify_out, declared, sysname):
    """babeltrace2 prints one line per event of the trace, each CPU's
    stream (cpu_id) that has events, fields by name, and reports the
    declared losses as discarded events."""
    bt = run_tool("babeltrace2", d)
    if bt.returncode:
        raise AssertionError("babeltrace2: %s" % bt.stderr[-1500:])
    lines = bt.stdout.splitlines()
    events = int(re.search(r"events: (\d+)", verify_out).group(1))
    if len(lines) != events:
        raise AssertionError("babeltrace2 printed %d events, the trace has "
                             "%d" % (len(lines), events))
    for cpu, n in re.findall(r"cpu(\d+): (\d+) events", verify_out):
        if int(n) and "{ cpu_id = %s }" % cpu not in bt.stdout:
            raise AssertionError("babeltrace2: no event of cpu %s" % cpu)
    if not re.search(r'syscall_enter: .*\{ nr = "%s", a0 = \d+' % sysname,
                     bt.stdout):
        raise AssertionError("babeltrace2: no syscall_enter with its fields")
    discarded = sum(int(n) for n in re.findall(
        r"discarded (\d+) events?\b", bt.stderr))
    if discarded != declared:
        raise AssertionError("babeltrace2 reports %d discarded events, the "
                             "trace declares %d" % (discarded, declared))


# ---- the exports agree (docs/exports.md, "One model") ----------------------

TRACE_PROCESSOR = os.path.join(ROOT, "..", "shared", "tools",
                               "trace_processor_shell")
UNITS_NS = {"ns": 1, "us": 1000, "ms": 1000000, "s": 1000000000}


def pair_calls(lines):
    """Syscalls from (ns, pid, name, 'enter'|'exit'|'proc_exit') in time
    order, paired per process (a process makes one syscall at a time; its
    proc_exit ends the exit call, which never returns): enters per name,
    and the completed calls' count and total ns per name. The oracle of a
    trace without losses, independent of ttmodel.c."""
    enters, done, open_ = {}, {}, {}
    for ns, pid, name, what in lines:
        if what == "proc_exit" and pid in open_:
            name = open_[pid][0]
        if what == "enter":
            enters[name] = enters.get(name, 0) + 1
            open_[pid] = (name, ns)
        elif open_.get(pid, (None,))[0] == name:
            c, t = done.get(name, (0, 0))
            done[name] = (c + 1, t + ns - open_.pop(pid)[1])
    return enters, done


def text_syscalls(path):
    """(ns, pid, name, what) of every syscall event of `ttdecode text`."""
    out = []
    for m in re.finditer(r"(?m)^(\d+)\.(\d{3}) us cpu\d+ sys:\S*?\[(\d+)\]"
                         r"\S* (syscall_enter|syscall_exit|proc_exit): "
                         r"(\w+)[(= ]", ttdecode("text", path).stdout):
        out.append((int(m.group(1)) * 1000 + int(m.group(2)),
                    int(m.group(3)), m.group(5),
                    m.group(4).replace("syscall_", "")))
    return out


def babeltrace_syscalls(ctf):
    """(ns, pid, name, what) of every syscall event babeltrace2 prints."""
    bt = run_tool("babeltrace2", ctf)
    out = []
    for m in re.finditer(r"\[(\d+):(\d+):(\d+)\.(\d{9})\] \S+ ttrace "
                         r"(syscall_enter|syscall_exit|proc_exit): .*?"
                         r"context = \"sys:\S*?\[(\d+)\]\S*\" \}, \{ "
                         r"(?:nr|pid) = \"(\w+)\"", bt.stdout):
        h, mi, se, ns = (int(x) for x in m.groups()[:4])
        out.append((((h * 60 + mi) * 60 + se) * 10**9 + ns, int(m.group(6)),
                    m.group(7), m.group(5).replace("syscall_", "")))
    return out


def stats_syscalls(path):
    """`ttdecode stats` rows: name -> (completed, their ns, unfinished,
    their ns); each row's count x mean must be its total."""
    rows = {}
    for m in re.finditer(r"(?m)^(\w+) +(\d+) +(\d+\.\d{3}) +(\d+\.\d{3}) +"
                         r"\S+ +\S+ +(\d+) +(\d+\.\d{3})$",
                         ttdecode("stats", path).stdout):
        n, total, mean = int(m.group(2)), float(m.group(3)), float(m.group(4))
        if abs(n * mean - total) > 0.0005 * n + 0.001:
            raise AssertionError("stats: %s: %d x %s != %s" % (
                m.group(1), n, mean, total))
        rows[m.group(1)] = (n, round(total * 1000), int(m.group(5)),
                            round(float(m.group(6)) * 1000))
    return rows


def json_syscalls(path):
    """The syscall slices of `ttdecode json`: name -> (slices, total ns),
    and the same for those neither unfinished nor clipped."""
    out = path + ".agree.json"
    j = ttdecode("json", path, out)
    if j.returncode:
        raise AssertionError("ttdecode json: %s" % j.stderr)
    with open(out) as f:
        evs = json.load(f, parse_float=decimal.Decimal)["traceEvents"]
    every, done = {}, {}
    for e in evs:
        if e.get("cat") != "syscall":
            continue
        ns = int(e["dur"] * 1000)
        for table, take in ((every, True), (done, not (
                e["args"].get("unfinished") or e["args"].get("clipped")))):
            if take:
                c, t = table.get(e["name"], (0, 0))
                table[e["name"]] = (c + 1, t + ns)
    return out, every, done


def perfetto_syscalls(json_path):
    """Perfetto's own importer reading the JSON: name -> (count, sum(dur)),
    or None when trace_processor_shell is not there."""
    if not os.path.exists(TRACE_PROCESSOR):
        return None
    q = json_path + ".sql"
    with open(q, "w") as f:
        f.write("select name, count(*), sum(dur) from slice where "
                "category = 'syscall' group by name;\n")
    p = subprocess.run([TRACE_PROCESSOR, "-q", q, json_path],
                       capture_output=True, text=True, timeout=300)
    if p.returncode:
        raise AssertionError("trace_processor_shell: %s" % p.stderr[-800:])
    return {m.group(1): (int(m.group(2)), int(m.group(3))) for m in
            re.finditer(r'(?m)^"(\w+)",(\d+),(\d+)$', p.stdout)}


def uftrace_syscalls(d):
    """`uftrace report`: syscall:NAME -> (calls, total ns, its rounding)."""
    rep = run_tool("uftrace", "report", "-d", d)
    out = {}
    for m in re.finditer(r"(?m)^ +([\d.]+) +(\w+) +[\d.]+ +\w+ +(\d+) +"
                         r"syscall:(\w+)$", rep.stdout):
        unit = UNITS_NS[m.group(2)]
        out[m.group(4)] = (int(m.group(3)), float(m.group(1)) * unit,
                           unit / 1000.0)
    if not out:
        raise AssertionError("uftrace report: no syscall: %s%s" % (
            rep.stdout[-800:], rep.stderr[-400:]))
    return out


def check_agreement(path, ud, cd, plain):
    """Per syscall name, the count and total duration agree across text,
    stats, JSON, uftrace report, babeltrace2 and Perfetto's importer (one
    model: docs/exports.md). With losses (plain False) the text and
    babeltrace2 counts of enters are compared; without, also their
    completed calls and durations, paired independently. Raises
    AssertionError."""
    stats = stats_syscalls(path)
    jpath, jall, jdone = json_syscalls(path)
    perf = perfetto_syscalls(jpath)
    uf = uftrace_syscalls(ud)
    text, bt = text_syscalls(path), babeltrace_syscalls(cd)
    t_enters, t_done = pair_calls(text)
    b_enters, b_done = pair_calls(bt)
    if perf is None:
        print("# exports agree: skipped Perfetto (no %s)" % TRACE_PROCESSOR)
    names = set(stats) | set(jall) | set(uf) | set(t_enters)
    for name in sorted(names):
        done, dns, unf, uns = stats.get(name, (0, 0, 0, 0))
        calls, total = done + unf, dns + uns
        got = {"json": jall.get(name, (0, 0)),
               "text enters": (t_enters.get(name, 0), total),
               "babeltrace2 enters": (b_enters.get(name, 0), total)}
        if perf is not None:
            got["perfetto"] = perf.get(name, (0, 0))
        for what, (n, ns) in got.items():
            if (n, ns) != (calls, total):
                raise AssertionError("%s: stats %d calls %d ns, %s %d %d" % (
                    name, calls, total, what, n, ns))
        un, uns_, tol = uf.get(name, (0, 0, 1))
        if un != calls or abs(uns_ - total) > tol:
            raise AssertionError("%s: stats %d calls %d ns, uftrace report "
                                 "%d %d" % (name, calls, total, un, uns_))
        if not plain:
            continue
        for what, n, ns, slack in (
                ("json", *jdone.get(name, (0, 0)), 0),
                ("text", *t_done.get(name, (0, 0)), 0),
                ("babeltrace2", *b_done.get(name, (0, 0)), done)):
            if n != done or abs(ns - dns) > slack:
                raise AssertionError("%s: stats %d completed %d ns, %s %d "
                                     "%d" % (name, done, dns, what, n, ns))
    return stats, text


# ---- ttdecode perfetto read by Perfetto's trace processor (issue 20) -------

def trace_sql(trace, queries):
    """Runs each query of queries on trace with trace_processor_shell;
    returns a list of row lists (CSV fields, quotes stripped)."""
    q = trace + ".sql"
    with open(q, "w") as f:
        f.write("".join(s + ";\n" for s in queries))
    p = subprocess.run([TRACE_PROCESSOR, "-q", q, trace],
                       capture_output=True, text=True, timeout=300)
    if p.returncode:
        raise AssertionError("trace_processor_shell: %s" % p.stderr[-800:])
    out = []
    for block in p.stdout.strip().split("\n\n"):
        lines = block.strip().split("\n")
        out.append([[c.strip('"') for c in l.split(",")] for l in lines[1:]
                    if l])
    return out


def switch_chains(text):
    """{cpu: ns} of ttdecode text's sched_switch records: on each CPU the
    time from each switch to the next whose prev is its next."""
    switches, spans = {}, {}
    for us, frac, cpu, prev, nxt in re.findall(
            r"(?m)^(\d+)\.(\d{3}) us cpu(\d+) \S+ sched_switch: "
            r"prev=(\S+) next=(\S+)", text):
        switches.setdefault(cpu, []).append((int(us) * 1000 + int(frac),
                                             prev, nxt))
    for cpu, sw in switches.items():
        spans[cpu] = sum(b[0] - a[0] for a, b in zip(sw, sw[1:])
                         if b[1] == a[2])
    return spans


def check_perfetto(path, stats, declared):
    """`ttdecode perfetto` of path read by trace_processor_shell: a
    sched_slice on every CPU with a sched_switch record, each CPU's
    slices tiling its time from its first switch to its last, our process
    names in thread and process (the idle task as tid 0), Running and S
    in thread_state where a switch put a process to sleep, per syscall
    the count and total of `ttdecode stats` (completed and unfinished),
    a counter row per counter record (beside the cpuidle ones of
    cpu_idle), and in its stats no import error,
    a data loss reported exactly when the trace declares one. Returns
    False when trace_processor_shell is not there; raises
    AssertionError."""
    if not os.path.exists(TRACE_PROCESSOR):
        print("# perfetto: skipped (no %s)" % TRACE_PROCESSOR)
        return False
    out = path + ".pftrace"
    p = ttdecode("perfetto", path, out)
    if p.returncode:
        raise AssertionError("ttdecode perfetto: %s" % p.stderr)
    text = ttdecode("text", path).stdout
    switch_cpus = set(re.findall(r"(?m)^\S+ us cpu(\d+) \S+ sched_switch:",
                                 text))
    sleeps = re.search(r"sched_switch: .*prev_state=sleeping", text)
    counters = len(re.findall(r"(?m)^\S+ us cpu\d+ \S+ counter:", text))
    procs = set(re.findall(r"(?m)^\d+ +(\S+) +[\d.]+ +\d+$",
                           ttdecode("stats", path).stdout))
    procs = {p for p in procs if not p.startswith("idle/")}  # swapper
    sched, threads, process, states, calls, ncounter, problems = trace_sql(
        out, ["select cpu, count(*), sum(max(dur, 0)), min(ts), max(ts) "
              "from sched_slice group by cpu",
              "select tid, name from thread",
              "select pid, name from process",
              "select distinct state from thread_state",
              "select name, count(*), sum(dur) from slice where "
              "category = 'syscall' group by name",
              "select count(*) from counter c join track t on "
              "c.track_id = t.id where t.name != 'cpuidle'",
              "select name, severity, value from stats where value > 0 "
              "and severity in ('error', 'data_loss')"])
    if {r[0] for r in sched} != switch_cpus:
        raise AssertionError("sched_slice on CPUs %s, switches on %s" % (
            sorted(r[0] for r in sched), sorted(switch_cpus)))
    # each CPU's slices tile its time from its first switch to its last,
    # whose slice runs on to the trace's end (open: dur -1), but for the
    # breaks in the chain (a switch whose prev is not the last one's next:
    # a declared loss took the switches between), where Perfetto leaves
    # the slice open too
    chained = switch_chains(text)
    for cpu, _, total, first, last in sched:
        if int(total) != chained.get(cpu, 0):
            raise AssertionError("cpu%s: sched_slice durations %s ns, its "
                                 "chained switches span %d ns (all of "
                                 "them %d ns)" % (cpu, total,
                                                  chained.get(cpu, 0),
                                                  int(last) - int(first)))
    names = {r[1] for r in threads}
    if not procs <= names or not procs <= {r[1] for r in process} or \
            ["0", "swapper"] not in threads:
        raise AssertionError("threads %s, processes %s, want %s" % (
            threads, process, procs))
    got = {r[0] for r in states}
    if switch_cpus and ("Running" not in got or (sleeps and "S" not in got)):
        raise AssertionError("thread_state states: %s" % sorted(got))
    got = {r[0]: (int(r[1]), int(r[2])) for r in calls}
    for name, (done, dns, unf, uns) in stats.items():
        n, ns = got.pop(name, (0, 0))
        if (n, ns) != (done + unf, dns + uns):
            raise AssertionError("%s: stats %d calls %d ns, perfetto %d "
                                 "%d" % (name, done + unf, dns + uns, n, ns))
    if got:
        raise AssertionError("perfetto syscalls stats lacks: %s" % got)
    if int(ncounter[0][0]) != counters:
        raise AssertionError("%s counter rows, %d counter records" % (
            ncounter[0][0], counters))
    # a switch whose prev is not the last switch's next: only across a
    # loss, where Perfetto's own ftrace traces show it too
    errors = [r for r in problems if r[1] == "error" and not (
        declared and r[0] == "mismatched_sched_switch_tids")]
    lost = [r for r in problems if r[1] == "data_loss"]
    if errors or bool(lost) != bool(declared):
        raise AssertionError("perfetto stats: %s (declared lost %d)" % (
            problems, declared))
    return True


def check_boot_marks(json_path):
    """The boot's end marks (shell_ready, ap_ready: one per AP) are on the
    boot tracks with no length: no AP's idle time under ap_ready, no
    process's time under shell_ready."""
    with open(json_path) as f:
        evs = json.load(f, parse_float=decimal.Decimal)["traceEvents"]
    marks = [e for e in evs if e.get("name") in ("shell_ready", "ap_ready")
             and e.get("ph") == "X"]
    # on the boot tracks: the kernel's (pid 0) threads "CPU n boot"
    if len(marks) != 4 or any(e["dur"] != 0 or e["pid"] != 0 or
                              e["tid"] < 0xc0000000 for e in marks):
        raise AssertionError("boot end marks: %s" % marks)


def check_known(path, stats, text):
    """The known program's truth in the plain trace: 1000 getpid, 3
    nanosleep of at least 50 ms, 10 writes of 64 bytes to its file (and
    its 2 marker writes), and stats counting at least those."""
    pid = next((p for _, p, n, w in text if n == "nanosleep"), None)
    writes = re.findall(r"sys:knowncalls\[%s\]:write syscall_enter: "
                        r"write\(0x4, 0x[0-9a-f]+, 0x40\)" % pid,
                        ttdecode("text", path).stdout)
    if len(writes) != 10:
        raise AssertionError("knowncalls: %d writes of 64 bytes to fd 4" %
                             len(writes))
    mine = [l for l in text if l[1] == pid]
    enters, done = pair_calls(mine)
    if enters.get("getpid") != 1000 or done.get("getpid", (0,))[0] != 1000:
        raise AssertionError("knowncalls: %s getpid calls, want 1000" %
                             (enters.get("getpid"),))
    sleeps = [b[0] - a[0] for a, b in zip(mine, mine[1:]) if
              a[2] == b[2] == "nanosleep" and (a[3], b[3]) == ("enter",
                                                                "exit")]
    # at least 50 ms, within the clocks' calibration: the sleep is timed
    # by the LAPIC timer, the records by the TSC at the trace's measured
    # rate (a loaded host saw 49.9958 ms, 0.008% short)
    if len(sleeps) != 3 or min(sleeps) < 50 * 10**6 * 999 // 1000:
        raise AssertionError("knowncalls: nanosleep took %s ns" % sleeps)
    if enters.get("write", 0) != 12:    # 10 to the file, 2 markers
        raise AssertionError("knowncalls: %s writes, want 10 and 2 "
                             "markers" % enters.get("write"))
    if stats.get("getpid", (0,))[0] < 1000 or \
            stats.get("nanosleep", (0,))[0] < 3:
        raise AssertionError("stats: %s" % stats)


def tracedat_corpus():
    """ttdecode tracedat of the fuzz corpus's valid traces (boots, saves
    of four CPUs and across ring changes, a stream with declared losses)
    read by trace-cmd report
    (tests/tracedat_check.py); no QEMU. Skipped, and said so, without
    trace-cmd."""
    if not shutil.which("trace-cmd"):
        print("# ttrace_tracedat: trace-cmd is not installed (scripts/"
              "deps.sh): skipped")
        return ""
    out = os.path.join(OUT, "tracedat")
    os.makedirs(out, exist_ok=True)
    for trace in tracedat_check.CORPUS:
        path = os.path.join(out, os.path.basename(trace))
        shutil.copyfile(trace, path)
        why = tracedat_check.check(TTDECODE, path)
        if why:
            return why
    return ""


def exports():
    """The exports of real traces read by their tools: boot, `ls -l /bin`,
    the known-behaviour program `knowncalls` and `ttrace save` (no loss),
    then `ttrace stream` of 20,000 getpid calls into 4 KiB rings, faster
    than the drain (declared losses); each exported to uftrace and CTF and
    read by uftrace (info, replay, report, graph, dump --chrome) and
    babeltrace2, and, per syscall name, the count and total duration
    agreeing across text, stats, JSON, uftrace report, babeltrace2 and
    Perfetto's importer (check_agreement), and with what knowncalls is
    known to do. A missing reader fails (scripts/deps.sh installs it);
    a missing trace_processor_shell is skipped, and said so."""
    for tool in ("uftrace", "babeltrace2", "trace-cmd"):
        if not shutil.which(tool):
            return "%s is not installed: run scripts/deps.sh" % tool
    os.makedirs(OUT, exist_ok=True)
    out = os.path.join(OUT, "exports.ttr")
    if os.path.exists(out):
        os.remove(out)
    s = Session(4, hostout=out, timeout=400, cmdline=DEFAULT_EVENTS,
                name="exports")
    try:
        s.say("ls -l /bin; knowncalls; ttrace save /dev/host/out",
              r"ttrace: saved /dev/host/out: \d+ bytes", timeout=120)
        s.say("echo bufsize 4 > /dev/ttrace/ctl; ttrace stream -o "
              "/dev/host/out -- tracestress burst 20000",
              r"streamed \d+ bytes of records", timeout=300)
    except TimeoutError as e:
        return s.finish(str(e))
    files, why = finish_saved(s, out, 2)
    if why:
        return why
    try:
        for i, path in enumerate(files):
            v = ttdecode("verify", path)
            if v.returncode != 0 or "verify: OK" not in v.stdout:
                return "trace %d: ttdecode verify: %s%s" % (i, v.stdout,
                                                            v.stderr)
            declared = int(re.search(r"declared lost: (\d+)",
                                     v.stdout).group(1))
            # the records overwritten before the trace: each lapped
            # CPU's first run, a declared loss like any other
            leading = leading_losses(v.stdout)
            if (declared > sum(leading.values())) != (i == 1):
                return "trace %d declares %d lost records" % (i, declared)
            ud, cd, usum, csum = export_dirs(path)
            if "%d records lost (declared), %d of them" % (
                    declared, sum(leading.values())) not in usum or \
                    "%d records lost" % declared not in csum:
                return "trace %d: the exports say %s%s" % (i, usum, csum)
            sysname = ("open", "getpid")[i]
            rep = check_uftrace(ud, declared, sysname)
            if i == 0 and "boot:kmain" not in rep:
                return "uftrace replay: no boot phase boot:kmain"
            check_ctf(cd, v.stdout, declared, sysname)
            # ---- trace-cmd (ttdecode tracedat, tests/tracedat_check.py)
            why = tracedat_check.check(TTDECODE, path)
            if why:
                return "trace %d: %s" % (i, why)
            # ---- end trace-cmd
            stats, text = check_agreement(path, ud, cd, i == 0)
            check_perfetto(path, stats, declared)
            if i == 0:
                check_known(path, stats, text)
                check_boot_marks(path + ".agree.json")
    except AssertionError as e:
        return "trace %d: %s" % (i, e)
    return ""


def leading_runs(verify_out):
    """{cpu: [(first, end)]}: the losses each CPU's ring overwrote before
    the trace, from `ttdecode verify`: the overwritten ones among the
    losses that follow one another from a CPU's first index, up to its
    first record (a stream that starts behind a writer may declare
    several, and skip ahead between them), as the exporters count them
    (tools/load/ttmodel.c's before_trace)."""
    first = {c: int(f) for c, f in re.findall(
        r"^cpu(\d+): \d+ events .*?indices (\d+)-", verify_out, re.M)}
    runs = {(c, int(f)): (int(e), why) for c, f, e, why in re.findall(
        r"^cpu(\d+): lost \d+ records \[(\d+), (\d+)\): (.+)$",
        verify_out, re.M)}
    out = {}
    for c, f in first.items():
        while (c, f) in runs:
            e, why = runs[(c, f)]
            if why == "overwritten":
                out.setdefault(int(c), []).append((f, e))
            f = e
    return out


def leading_losses(verify_out):
    """{cpu: count} of leading_runs()."""
    return {c: sum(e - f for f, e in r)
            for c, r in leading_runs(verify_out).items()}


def pull_trace(sock, out):
    """scripts/pull through QMP socket sock into out; returns why it
    failed, or ""."""
    if os.path.exists(out):
        os.remove(out)
    p = subprocess.run([os.path.join(ROOT, "scripts", "pull"), "-m", sock,
                        "-k", KERNEL_ELF, "-o", out], capture_output=True,
                       text=True,
                       timeout=300)
    if p.returncode != 0:
        return "scripts/pull: %s%s" % (p.stdout[-800:], p.stderr[-800:])
    return ""


def qmp_execute(sock, command):
    """Runs a QMP command without arguments through QEMU's QMP socket and
    reads until QEMU closes it or goes quiet for a moment."""
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(30)
            s.connect(sock)
            s.recv(4096)
            s.sendall(b'{"execute": "qmp_capabilities"}\n'
                      b'{"execute": "%s"}\n' % command.encode())
            s.settimeout(2)
            while s.recv(4096):
                pass
    except OSError:
        pass


def qmp_quit(sock):
    """Ends QEMU through its QMP socket (a hung guest cannot power off)."""
    qmp_execute(sock, "quit")


def check_hang_ipis(text, ncpus):
    """Why the text of a trace pulled after ctl `hang` is wrong ("" if
    right): the CPU that carried out the hang (its last record but
    other interrupts' the `write` of the command; the scheduler may run
    that echo on any CPU)
    took no IPI, and every other CPU entered the hang IPI (vector 241)."""
    last = {}
    for m in re.finditer(r"(?m)^\S+ us cpu(\d+) (.*)$", text):
        # an interrupt other than the hang IPI may still land between
        # the write's entry and the hang's cli: it is not the last word
        if not re.search(r"irq_e(nter|xit): vector=(?!241\b)", m.group(2)):
            last[int(m.group(1))] = m.group(2)
    hanger = [c for c in range(ncpus) if
              re.search(r"syscall_enter: write\(", last.get(c, ""))]
    if len(hanger) != 1:
        return "no one CPU's last record is the hang's write: %s" % last
    for c in range(ncpus):
        if c != hanger[0] and not re.search(
                r"cpu%d \S+ irq_enter: vector=241" % c, text):
            return "cpu%d: no irq_enter of the hang IPI (cpu%d hung the " \
                "rest)" % (c, hanger[0])
    return ""


def pull_hung():
    """make pull, from a running guest and then from one hung with
    interrupts off on every CPU (ctl `hang`): both files verify; the hung
    one has records from every CPU, the marker written just before the
    hang, and each other CPU's entry into the IPI that stopped it."""
    os.makedirs(OUT, exist_ok=True)
    sock = os.path.join(OUT, "pull-qmp.sock")
    live = os.path.join(OUT, "pull-live.ttr")
    hung = os.path.join(OUT, "pull-hung.ttr")
    s = Session(4, cmdline=DEFAULT_EVENTS, name="pull", qmp=sock)
    why = ""
    try:
        s.say("ls /bin > /tmp/x; echo live-words > /dev/ttrace/marker; "
              "echo ready=$?", r"ready=0")
        why = pull_trace(sock, live) or verify_trace(
            live, 1, r"user_marker: live-words")
        if not why:
            s.say("echo still-here=$?", r"still-here=0")   # it went on
            s.say("echo last-words > /dev/ttrace/marker; "
                  "echo hang > /dev/ttrace/ctl",
                  r"ttrace: hang: 3 of 3 other CPUs stopped")
            why = pull_trace(sock, hung) or verify_trace(
                hung, 4, r"user_marker: last-words")
        if not why:
            why = check_hang_ipis(ttdecode("text", hung).stdout, 4)
    except TimeoutError as e:
        why = str(e)
    qmp_quit(sock)
    s.run.wait(timeout=60)
    s.run.close()
    with open(os.path.join(OUT, "pull.log"), "w") as f:
        f.write(s.run.text)
    return verdict(s.run.text, why)


def lastboot_losses(verify_out, cpu):
    """cpu's declared losses in `ttdecode verify` output, but for the
    records its ring overwrote before the trace: [(first, end, reason)]."""
    lead = leading_runs(verify_out).get(cpu, [])
    out = []
    for c, f, e, why in re.findall(
            r"^cpu(\d+): lost \d+ records \[(\d+), (\d+)\): (.+)$",
            verify_out, re.M):
        if int(c) == cpu and not (why == "overwritten" and
                                  (int(f), int(e)) in lead):
            out.append((int(f), int(e), why))
    return out


def lastboot():
    """The trace that survives a crash (docs/ttrace-device.md), one QEMU
    run that may reboot once: the first boot is cold and has no last
    boot's trace (lastboot empty); it spoils a slot of its ring (ctl
    crash corrupt), writes a marker and panics on purpose with
    ttrace.reboot_on_panic; the second boot finds that trace, and the
    lastboot file pulled to the host verifies, holds the marker and
    declares exactly the spoiled slot lost."""
    out = fresh_out("lastboot.ttr")
    s = Session(2, hostout=out, timeout=300, name="lastboot", reboot=True,
                cmdline="ttrace.reboot_on_panic ttrace.crashtest " +
                DEFAULT_EVENTS)
    run = s.run
    why = ""
    try:
        run.expect(r"ttrace: last boot: none kept: no header \(a cold boot")
        s.say("ls -l /dev/ttrace/lastboot", r"\s0 /dev/ttrace/lastboot")
        m = s.say("echo crash corrupt > /dev/ttrace/ctl",
                  r"crash corrupt: cpu (\d+) slot (\d+) spoiled")
        cpu, slot = int(m.group(1)), int(m.group(2))
        s.say("echo last-words > /dev/ttrace/marker; "
              "echo crash > /dev/ttrace/ctl",
              r"panic: rebooting \(ttrace.reboot_on_panic\)")
        size = run.expect(r"ttrace: last boot 1: its trace is "
                          r"/dev/ttrace/lastboot \((\d+) bytes\)",
                          timeout=120).group(1)
        s.say("ls -l /dev/ttrace/lastboot",
              r"\s%s /dev/ttrace/lastboot" % size.decode())
        s.say("cat /dev/ttrace/lastboot > /dev/host/out; echo pulled=$?",
              r"pulled=0")
    except TimeoutError as e:
        why = str(e)
    why = s.finish(why, want_panic=True)    # the panic is the point
    if not why:
        why = verify_trace(out, 1, r"user_marker: last-words")
    if not why:
        got = lastboot_losses(ttdecode("verify", out).stdout, cpu)
        if got != [(slot, slot + 1, "in flight")]:
            why = "cpu%d: losses %s, want only the spoiled slot %d" % (
                cpu, got, slot)
    if not why and (run.text.count("panic on cpu") != 1 or
                    run.text.count("ttrace kernel booting") != 2):
        why = "not one panic and one reboot"
    return why


def lastboot_reset():
    """A reset the kernel does not see coming (QMP system_reset, as a
    triple fault or a watchdog would): the next boot's lastboot, pulled
    to the host, verifies and holds the marker written before it."""
    out = fresh_out("lastboot-reset.ttr")
    sock = os.path.join(OUT, "lastboot-qmp.sock")
    s = Session(2, hostout=out, timeout=300, name="lastboot-reset",
                reboot=True, cmdline=DEFAULT_EVENTS, qmp=sock)
    why = ""
    try:
        s.say("echo reset-words > /dev/ttrace/marker; echo marked=$?",
              r"marked=0")
        qmp_execute(sock, "system_reset")
        s.run.expect(r"ttrace: last boot 1: its trace is "
                     r"/dev/ttrace/lastboot", timeout=120)
        s.say("cat /dev/ttrace/lastboot > /dev/host/out; echo pulled=$?",
              r"pulled=0")
    except TimeoutError as e:
        why = str(e)
    why = s.finish(why)
    if not why and s.run.text.count("ttrace kernel booting") != 2:
        why = "not one reset"
    return why or verify_trace(out, 1, r"user_marker: reset-words")


def records_by_index(path):
    """{(cpu, logical index): 64-byte entry} of every RECORDS run in the
    trace file at path (docs/trace-file.md: a run's 64-byte prefix, then
    its entries)."""
    with open(path, "rb") as f:
        data = f.read()
    out = {}
    for typ, off, length in file_sections(data):
        if typ != 7:
            continue
        cpu = int.from_bytes(data[off - 12:off - 8], "little")
        first, count = struct.unpack_from("<QQ", data, off)
        for i in range(count):
            e = off + 64 + 64 * i
            out[(cpu, first + i)] = data[e:e + 64]
    return out


def start_ttlive(mem, out, ncpus, qemu_pid):
    """tools/ttlive on the shared RAM file mem, writing out, ending when
    process qemu_pid has gone."""
    pull = script_module("pull")
    pa, size = pull.root_symbol(KERNEL_ELF, os.environ.get("NM", "nm"))
    return subprocess.Popen(
        [os.path.join(BUILD, "tools", "ttlive"), "-c", str(ncpus), "-w",
         "120", "-p", str(qemu_pid), mem, hex(pa), str(size), out],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def check_live(live_out, live, saved):
    """Why the live drain's file live is wrong ("" if right): ttlive's
    summary live_out, its verify, the resizes it went through, and its
    records against the trace saved at the end (saved) for the indices
    both hold."""
    m = re.search(r"ttlive: \S+: (\d+) records, (\d+) lost .*cleared "
                  r"(\d+)\), \d+ cpus, (\d+) attaches", live_out)
    if not m:
        return "ttlive: %s" % live_out[-800:]
    v = ttdecode("verify", live)
    if v.returncode != 0 or "verify: OK" not in v.stdout:
        return "ttdecode verify %s: %s%s" % (live, v.stdout[-800:], v.stderr)
    if int(m.group(4)) < 2:
        return "no resize while the drain ran: %s" % live_out
    a, b = records_by_index(live), records_by_index(saved)
    both = set(a) & set(b)
    differ = [k for k in both if a[k] != b[k]]
    if differ:
        return "%d of %d records differ from the save's, first %s" % (
            len(differ), len(both), min(differ))
    if len(both) < 1000:
        return "only %d records in both the live file and the save" % len(
            both)
    return ""


def live():
    """make live during the stress scenario (loads, toggles, resizes,
    saves): ttlive drains the rings out of the guest's shared RAM as it
    runs; its file verifies (every index a record or a declared loss),
    went through the resizes (attached again), and its records are the
    ones a save at the end holds at the same indices."""
    os.makedirs(OUT, exist_ok=True)
    out, ttr = os.path.join(OUT, "live-saves.ttr"), os.path.join(OUT,
                                                                 "live.ttr")
    mem = os.path.join(OUT, "live.mem")
    for f in (out, ttr, mem):
        if os.path.exists(f):
            os.remove(f)
    s = Session(2, hostout=out, timeout=240, name="live", ramfile=mem)
    drain = start_ttlive(mem, ttr, 2, s.run.proc.pid)
    try:
        s.say("tracestress load | tracestress toggle | tracestress resize "
              "| tracestress save 8 4", rb"save: (\d+) traces saved",
              timeout=150)
        # the stress's last word is a bufsize (every ring emptied): work
        # for both the drain and the save to hold
        s.say("tracestress burst 3000; ttrace save /dev/host/out; "
              "echo saved=$?", r"saved=0")
    except TimeoutError as e:
        drain.kill()
        return s.finish(str(e))
    saves = int(re.search(r"save: (\d+) traces saved", s.run.text).group(1))
    why = s.finish("")
    try:
        live_out = drain.communicate(timeout=60)[0]
    except subprocess.TimeoutExpired:
        drain.kill()
        live_out = drain.communicate()[0] + " (ttlive did not end)"
    with open(os.path.join(OUT, "live-ttlive.log"), "w") as f:
        f.write(live_out)
    if why:
        return why
    files, why = split_saved(out, saves + 1)
    why = why or check_live(live_out, ttr, files[-1])
    if not why:
        os.remove(mem)
    return why


SEC_NAMES = {1: "VERSION", 2: "META", 3: "AUX", 5: "STATS", 6: "END",
             7: "RUNS", 8: "RUNS", 9: "TSC", 10: "RANGE"}


def section_layout(path):
    """The sections of the trace file at path as names, each CPU's
    RECORDS and LOSS runs as one "RUNS cpuN", STATS with its CPU: (names,
    "") or ([], why the file is not one whole trace)."""
    with open(path, "rb") as f:
        data = f.read()
    names = []
    for typ, off, length in file_sections(data):
        name = SEC_NAMES.get(typ, "type%d" % typ)
        cpu = int.from_bytes(data[off - 12:off - 8], "little")
        if name in ("RUNS", "STATS"):
            name += " cpu%d" % cpu
        if not names or names[-1] != name:
            names.append(name)
    if not names or names[-1] != "END":
        return [], "%s: no END section: %s" % (path, names)
    return names, ""


def one_writer():
    """A save (the device's trace file), a pull (scripts/pull) and a
    panic dump of 2-CPU guests lay out their sections the same way, the
    one writer's: VERSION, META, each CPU's runs in CPU order, RANGE,
    AUX, TSC, each CPU's STATS, END (a CPU that recorded nothing has no
    runs: at a boot-time panic CPU 1 may not have)."""
    os.makedirs(OUT, exist_ok=True)
    sock = os.path.join(OUT, "writer-qmp.sock")
    saved = os.path.join(OUT, "writer-save.ttr")
    pulled = os.path.join(OUT, "writer-pull.ttr")
    dumped = os.path.join(OUT, "writer-dump.ttr")
    for p in (saved, dumped):
        if os.path.exists(p):
            os.remove(p)
    s = Session(2, hostout=saved, cmdline=DEFAULT_EVENTS, name="writer",
                qmp=sock)
    try:
        s.say("ls /bin > /tmp/x; ttrace save /dev/host/out",
              r"ttrace: saved /dev/host/out: \d+ bytes")
        why = pull_trace(sock, pulled)
    except TimeoutError as e:
        why = str(e)
    why = s.finish(why)
    if why:
        return why
    run = QemuRun(cmdline="ttrace.dump_on_panic=1 fault=panic " +
                  DEFAULT_EVENTS, smp=2, timeout=300, hostout=dumped)
    code = run.wait()
    run.close()
    if code != QEMU_STATUS["PANIC"] or "ttrace: dump done" not in run.text:
        return "panic dump: QEMU exit status %s: %s" % (
            code, "\n".join(run.text.splitlines()[-10:]))
    want = ["VERSION", "META", "RUNS cpu0", "RUNS cpu1", "RANGE", "AUX",
            "TSC", "STATS cpu0", "STATS cpu1", "END"]
    for path in (saved, pulled, dumped):
        names, why = section_layout(path)
        if why:
            return why
        if path == dumped and "RUNS cpu1" not in names:
            names.insert(names.index("RANGE"), "RUNS cpu1")
        if names != want:
            return "%s: sections %s, want %s" % (path, names, want)
    return ""


# ---- probes (docs/probes.md) ----------------------------------------------

def event_ids():
    """Event name -> id: ids follow the order of kern/trace/ttrace.events."""
    ids = {}
    with open(os.path.join(ROOT, "kern", "trace", "ttrace.events")) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or line.startswith("group "):
                continue
            words = line.split()
            name = words[1] if words[0] != "disable" else words[2]
            ids[name.split("(")[0]] = len(ids)
    return ids


def trace_records(data):
    """(tsc_hz, {cpu: [(ts, id, pid, data words)]}) of one trace file,
    records in ring order, by walking its sections (docs/trace-file.md)."""
    u64 = lambda b, o: int.from_bytes(b[o:o + 8], "little")
    recs, hz = {}, 0
    for typ, at, length in file_sections(data):
        body = data[at:at + length]
        if typ == 1:
            hz = u64(body, 32)
        if typ == 7:
            for e in range(64, length, 64):
                ts, t, ctx = u64(body, e), u64(body, e + 8), u64(body, e + 16)
                if t >> 20 & 0xf or not ts:
                    continue    # (continuations: none in syscall events)
                kind = t >> 16 & 0xf
                pid = ctx >> 32 if kind in (3, 4) else -1
                recs.setdefault(t >> 28 & 0xfff, []).append(
                    (ts, t & 0x3ff, pid,
                     [u64(body, e + 24 + 8 * i) for i in range(5)]))
    return hz, recs


def probe_blocks(text):
    """The probes file as {name: [lines]}."""
    blocks, cur = {}, None
    for line in text.replace("\r", "").split("\n"):
        if line.startswith("probe "):
            cur = blocks.setdefault(line.split()[1], [line])
        elif line.startswith(" ") and cur is not None:
            cur.append(line)
    return blocks


def host_figures(hz, recs, ids, pid):
    """What the count (syscall_enter by nr if pid==PID) and latency
    (syscall_enter -> syscall_exit by nr if pid==PID) probes must say,
    computed from the trace as docs/probes.md defines them: per CPU, END
    closes the open START of the same pid and nr."""
    enter, exit_ = ids["syscall_enter"], ids["syscall_exit"]
    counts, hist, hits = {}, {}, 0
    for cpu, rs in recs.items():
        open_ = None
        for ts, ev, p, d in rs:
            if ev == enter and p == pid:
                counts[d[0]] = counts.get(d[0], 0) + 1
                open_ = (ts, d[0], p)
            elif ev == exit_ and open_ and open_[2] == p and \
                    open_[1] == d[0] and ts >= open_[0]:
                ns = (ts - open_[0]) * 1000000 // (hz // 1000)
                b = ns.bit_length()
                hist.setdefault(d[0], {})
                hist[d[0]][b] = hist[d[0]].get(b, 0) + 1
                hits += 1
                open_ = None
    return counts, hist, hits


def kernel_figures(blocks):
    # a key is its number, or NAME (number) for a syscall's
    counts = {int(k): int(n) for k, n in re.findall(
        r"key (?:\S+ \()?(\d+)\)? count (\d+)$",
        "\n".join(blocks["cnt"][2:]), re.M)}
    hist, key = {}, None
    for line in blocks["lat"][2:]:
        m = re.match(r"  key (?:\S+ \()?(\d+)\)? count", line)
        if m:
            key = int(m.group(1))
            hist[key] = {}
            continue
        lo, hi, n = (int(x) for x in line.split())
        hist[key][hi.bit_length()] = n
    hits = int(re.search(r"hits (\d+)", blocks["lat"][1]).group(1))
    return counts, hist, hits


def check_probe_figures(trace, probes_text, pid):
    """The filter kept exactly pid's syscall_enter records; the count and
    latency probes agree with the trace."""
    hz, recs = trace_records(trace)
    ids = event_ids()
    others = [r for rs in recs.values() for r in rs
              if r[1] == ids["syscall_enter"] and r[2] != pid]
    if others:
        return "filter pid==%d kept %d syscall_enter of other pids: %s" % (
            pid, len(others), others[:3])
    want = host_figures(hz, recs, ids, pid)
    got = kernel_figures(probe_blocks(probes_text))
    if not want[0]:
        return "no syscall_enter of pid %d in the trace" % pid
    for what, w, g in zip(("count", "latency histogram", "latency pairs"),
                          want, got):
        if w != g:
            return "%s: trace says %s, probes say %s" % (what, w, g)
    print("# probes: pid %d: %d syscalls, %d latency pairs agree with the "
          "trace" % (pid, sum(want[0].values()), want[2]))
    return ""


def doc_examples(doc="probes.md", section="Examples"):
    """The `$ ` lines of the section of docs/doc, each with the line that
    follows it when that line is output (it must appear)."""
    text = open(os.path.join(ROOT, "docs", doc)).read()
    sec = text.split("## " + section, 1)[1].split("\n## ", 1)[0]
    lines = [l[4:] for l in sec.split("\n") if l.startswith("    ")]
    out = []
    for i, l in enumerate(lines):
        if l.startswith("$ "):
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            out.append((l[2:], "" if nxt.startswith("$ ") else nxt))
    return out


def run_doc_examples(s, doc="probes.md", section="Examples", timeout=60):
    """Runs the `$ ` lines of the section of docs/doc in session s: each
    must print the line the doc shows after it, or exit 0 if it shows
    none."""
    for cmd, want in doc_examples(doc, section):
        if want:
            s.say(cmd, re.escape(want), timeout=timeout)
        else:
            s.say(cmd + "; echo status=$?", r"status=0\r?\n")


def settled_free_pages(s):
    """The free_pages counter once the process table holds only the shell
    and the ttrace reading it (orphans are reaped by kernel messages, after
    their parent has gone; a pipeline's processes come and go) and two
    reads agree."""
    prev = None
    for _ in range(30):
        m = s.say("sleep 1; ttrace counters",
                  rb"\nfree_pages (\d+)\nrunq_len \d+\nprocs (\d+)\n")
        free, procs = int(m.group(1)), int(m.group(2))
        if procs == 2 and free == prev:
            return free
        prev = free
    return -1


def probes():
    """docs/probes.md's examples; then a filter, a count and a latency
    histogram of one process's syscalls, checked against the trace of the
    same run on the host; then snapshot and stop on the right event; then
    the free_pages counter across usertests."""
    out = fresh_out("probes.ttr")
    # two usertests runs: under a loaded host each takes minutes
    s = Session(2, hostout=out, timeout=900, cmdline=DEFAULT_EVENTS,
                name="probes")
    try:
        run_doc_examples(s)
        s.say("echo unprobe '*' > /dev/ttrace/ctl", r"\n")
        # pids are handed out in order: ps is X, the next commands X+1...
        m = s.say("ps", rb"\n\s*(\d+)\s+\d+\s+\S+\s+\S+\s+ps\n")
        pid = int(m.group(1)) + 5
        for c in ("probe flt filter syscall_enter pid==%d" % pid,
                  "probe cnt count syscall_enter by nr if pid==%d" % pid,
                  "probe lat latency syscall_enter syscall_exit by nr "
                  "if pid==%d" % pid):
            s.say("echo %s > /dev/ttrace/ctl" % c, r"\n")
        s.say("ttrace clear", r"\n")
        s.say("ls -l /bin > /tmp/x", r"\n")
        m = s.say("cat /dev/ttrace/probes",
                  r"probe flt [^$]*(?=\$ )")
        probes_text = m.group(0).decode()
        s.say("ttrace save /dev/host/out", r"saved /dev/host/out")
        # snapshot and stop on the exit of a process with status 1
        s.say("echo unprobe '*' > /dev/ttrace/ctl; ttrace clear", r"\n")
        s.say("echo probe snap snapshot proc_exit if status==1 > "
              "/dev/ttrace/ctl", r"\n")
        s.say("echo probe halt stop proc_exit if status==1 > "
              "/dev/ttrace/ctl", r"\n")
        s.say("ttrace mark before-it; false; ttrace mark after-it", r"\n")
        s.say("cat /dev/ttrace/ctl", r"mask 0x0\r?\n")
        s.say("ttrace cat | grep -c before-it", r"\n1\r?\n")
        s.say("ttrace cat | grep -c after-it", r"\n0\r?\n")
        s.say("ttrace cat | grep proc_exit | grep -c status=1",
              r"\n1\r?\n")
        s.say("ttrace probe list", r"probe halt stop proc_exit if "
              r"status==1\r?\n  hits [12] cpu \d+ ts \d+")
        s.say("ttrace save -s /dev/host/out", r"saved /dev/host/out")
        # the static probe on syscall_exit counts failed syscalls
        s.say("ttrace enable syscall", r"\n")
        m = s.say("ttrace counters | grep syscall_errors",
                  rb"\nsyscall_errors (\d+)\n")
        errs = int(m.group(1))
        s.say("cat /nosuch; cat /nosuch", r"\n")
        m = s.say("ttrace counters | grep syscall_errors",
                  rb"\nsyscall_errors (\d+)\n")
        if int(m.group(1)) < errs + 2:
            return s.finish("syscall_errors %d, then %s after two failed "
                            "opens" % (errs, m.group(1)))
        # counters: free_pages back at its value after usertests' leak
        # check passed again (the first run warms the kernel's caches)
        s.say("echo unprobe '*' > /dev/ttrace/ctl; ttrace enable counter; "
              "echo bufsize 64 > /dev/ttrace/ctl; "
              "echo counters 10 > /dev/ttrace/ctl", r"\n")
        free = []
        for _ in range(2):
            # 0 failed: the leak check (no_page_leak) passed too
            m = s.say("usertests | grep -v PASSED",
                      r"usertests: \d+ passed, (\d+) failed", timeout=600)
            if m.group(1) != b"0":
                fails = re.findall(r"FAILED \[.*", s.run.text)
                return s.finish("usertests beside the counters:\n%s" %
                                "\n".join(fails[-5:]))
            free.append(settled_free_pages(s))
        if free[0] != free[1]:
            return s.finish("free_pages counter %d after usertests, %d after "
                            "it again" % tuple(free))
        # a settled counter is not recorded again, and the 64 KiB rings
        # have long overwritten its last change: "all" records every one,
        # into 1 MiB rings (under load cat fell behind 64 KiB ones)
        s.say("echo bufsize 1024 > /dev/ttrace/ctl; "
              "echo counters 10 all > /dev/ttrace/ctl; sleep 1", r"\n")
        m = s.say("ttrace cat | grep -c free_pages=", rb"\n(\d+)\r?\n",
                  timeout=180)
        if int(m.group(1)) == 0:
            return s.finish("no free_pages counter record in the rings")
    except TimeoutError as e:
        return s.finish(str(e))
    files, why = finish_saved(s, out, 2)
    if why:
        return why
    with open(files[0], "rb") as f:
        why = check_probe_figures(f.read(), probes_text, pid)
    if why:
        return why
    snap = files[1]
    v = ttdecode("verify", snap)
    if v.returncode != 0 or "verify: OK" not in v.stdout:
        return "snapshot: ttdecode verify: %s%s" % (v.stdout[-800:], v.stderr)
    t = ttdecode("text", snap).stdout
    if "before-it" not in t or "after-it" in t:
        return "the snapshot does not end before the trigger: before-it %s, "\
               "after-it %s" % ("before-it" in t, "after-it" in t)
    return ""


LAT_BLOCK = re.compile(
    rb"(?m)^(irqsoff|wakeup) (on|off) threshold_us \d+ sections (\d+) over \d+ "
    rb"busy \d+\r?\n  max_cycles (\d+) max_ns \d+ cpu \d+ start_tsc \d+ "
    rb"end_tsc \d+\r?\n  from (\S+) to (\S+)\r?\n")


def latency():
    """docs/latency.md's examples; then irqsoff and wakeup beside a
    workload: the latency file shows sections and a maximum for each, with
    symbols, and a wakeup histogram; the frozen irqsoff trace, saved to the
    host with the tracer off (so its maximum stays), verifies and holds the
    lat_max record of that maximum."""
    out = fresh_out("latency.ttr")
    s = Session(2, hostout=out, cmdline=DEFAULT_EVENTS, name="latency")
    try:
        run_doc_examples(s, "latency.md")
        s.say("echo latency wakeup on > /dev/ttrace/ctl; ls -l /bin > /tmp/x;"
              " echo latency irqsoff off > /dev/ttrace/ctl", r"\n")
        text = s.say("cat /dev/ttrace/latency",
                     r"\nirqsoff off [^$]*(?=\$ )").group(0)
        blocks = {b.group(1): b for b in LAT_BLOCK.finditer(text)}
        for name in (b"irqsoff", b"wakeup"):
            b = blocks.get(name)
            if not b or int(b.group(3)) == 0 or int(b.group(4)) == 0:
                return s.finish("latency file: no sections or no maximum "
                                "of %s:\n%s" % (name, text[-1500:]))
            if b.group(5).startswith(b"0x") or b.group(6).startswith(b"0x"):
                return s.finish("latency file: %s's maximum is not "
                                "symbolized: %s" % (name, b.group(0)))
        if not re.search(rb"hist cpu\d+ count [1-9]", text):
            return s.finish("no wakeup histogram: %s" % text)
        max_cycles = int(blocks[b"irqsoff"].group(4))
        s.say("ttrace save -l irqsoff /dev/host/out", r"saved /dev/host/out")
    except TimeoutError as e:
        return s.finish(str(e))
    files, why = finish_saved(s, out, 2)
    if why:
        return why
    why = verify_trace(files[1], 1)
    if why:
        return "frozen irqsoff trace: " + why
    t = ttdecode("text", files[1]).stdout
    marks = re.findall(r"lat_max: tracer=0 cycles=(\d+) ", t)
    if str(max_cycles) not in marks:
        return "frozen irqsoff trace: lat_max records %s, the maximum %d" % (
            marks, max_cycles)
    return ""


BAD_MODULES = (
    ("bad_machine.o", "wrong machine 3"),
    ("bad_trunc.o", "truncated: section table at"),
    ("bad_reloctype.o", "bad relocation: unsupported type 99"),
    ("bad_relocoff.o", "bad relocation: offset"),
    ("bad_symvalue.o", "symbol "),
    ("bad_strtab0.o", "section 0 is not the null section (type 3)"),
    ("unknown_sym.o", "unknown symbol kthread_create"),
    ("../syscount.o", "syscount is loaded already"),
)


def module_cycle(s):
    """One round of modules.__doc__ in session s; returns why it failed."""
    s.say("ttrace probe load /lib/probes/syscount.o",
          r"module: syscount loaded at 0xffffffffc")
    s.say("echo probe c count syscall_enter by pid > /dev/ttrace/ctl", r"\n")
    s.say("ls -l /bin > /dev/null", r"\n")
    m = s.say("ttrace probe list", r"probe c [^$]*(?=\$ )")
    text = m.group(0).decode()
    builtin = dict(re.findall(r"key (\d+) count (\d+)", text))
    mod = dict(re.findall(r"pid (\d+) syscalls (\d+)", text))
    # ls's pid: the largest that ran and exited before the listing
    done = sorted(int(p) for p in mod)[-2]
    if not mod or builtin.get(str(done)) != mod[str(done)]:
        return "pid %d: module counts %s, built-in %s" % (
            done, mod.get(str(done)), builtin.get(str(done)))
    for bad, why in BAD_MODULES:
        s.say("ttrace probe load /lib/probes/bad/%s" % bad,
              re.escape("module: " + why))
    s.say("ttrace probe list | grep -c 'module syscount at'", r"\n1\r?\n")
    s.say("ttrace probe unload syscount",
          r"syscount: [1-9]\d* syscalls counted\r?\n.*syscount "
          r"unloaded \(1 probes it left attached detached\)")
    s.say("ttrace probe unload c; ttrace probe list | grep -c syscalls",
          r"\n0\r?\n")
    s.say("ttrace probe load /lib/probes/syscount.o; "
          "ttrace probe list", r"total [1-9]\d* overflow 0")
    s.say("ttrace probe load /lib/probes/faultaddr.o; "
          "usertests _null_write; ttrace probe list",
          r"module faultaddr at 0x\w+\r?\n  faults [1-9]")
    s.say("ttrace probe unload faultaddr; ttrace probe unload syscount",
          r"faultaddr unloaded \(0 probes")
    return ""


def modules():
    """Probe modules: syscount counts each process's syscalls exactly as a
    built-in count does, unloads (its leftover probe detached), loads again
    and counts from zero; faultaddr sees a fault; each bad object is refused
    with its error and changes nothing (no module kept). Twice; after each
    round the modules hold no page (the loader's own count, "modules
    hold" in /dev/ttrace/probes)."""
    s = Session(2, name="modules")
    try:
        why = module_cycle(s)
        why = why or pages_back(s, "the first round")
        why = why or module_cycle(s)
        why = why or pages_back(s, "the second round")
    except TimeoutError as e:
        why = str(e)
    return s.finish(why)


MODULE_ROUNDS = 600


def pages_back(s, what):
    """Why modules still hold pages after what (every module unloaded),
    or ""."""
    held = module_pages(s)
    if held == (0, 0):
        return ""
    return "after %s modules hold %d pages, %d of the module area" % (
        (what,) + held)


def module_loop(s):
    """MODULE_ROUNDS loads and unloads of bss4m; returns why they failed."""
    # one round first: kmalloc's size classes keep their pages
    start = time.monotonic()
    m = s.say("tracestress modules %d /lib/probes/test/bss4m.o" %
              MODULE_ROUNDS, r"modules: (\d+) rounds", timeout=600)
    print("    module_space: %s rounds of bss4m in %.1f s" %
          (m.group(1).decode(), time.monotonic() - start))
    if int(m.group(1)) != MODULE_ROUNDS:
        return "bss4m: %s of %d rounds" % (m.group(1).decode(),
                                            MODULE_ROUNDS)
    why = pages_back(s, "%d rounds of bss4m" % MODULE_ROUNDS)
    s.say("ttrace probe load /lib/probes/syscount.o; ls /bin > /dev/null; "
          "ttrace probe list", r"total [1-9]\d* overflow 0")
    s.say("ttrace probe unload syscount", r"syscount unloaded")
    return why


def module_big(s):
    """bss12m: refused for its size, or loaded and every page its own;
    returns why not."""
    m = s.say("echo module load /lib/probes/test/bss12m.o > /dev/ttrace/ctl"
              "; ttrace probe list",
              r"(  bss 12 MiB pages 3072 marked \d+|echo: [^\r\n]*)\r?\n")
    text = m.group(1).decode()
    if text.startswith("  bss"):
        s.say("usertests _null_write; ls -l /bin > /tmp/x; rm /tmp/x", r"\n")
        m = s.say("ttrace probe list", r"  bss 12 MiB pages 3072 marked "
                  r"(\d+)\r?\n")
        s.say("ttrace probe unload bss12m", r"\n")
        if m.group(1) != b"3072":
            return "bss12m: %s of its 3072 pages kept its marks" % \
                m.group(1).decode()
    elif "module: too large: 3074 pages" not in text:
        return "bss12m: %s" % text
    return pages_back(s, "bss12m")


def module_space():
    """The module address space and pages under a load and unload loop
    (docs/probes.md, "Probe modules"): a correct module with a 4 MiB .bss
    (tests/probes/bigbss.c) loaded and unloaded MODULE_ROUNDS times, each
    load finding its .bss zero; then the modules hold no page, and the kernel
    still loads and runs syscount. Addresses were never reused and the end
    test wrapped past 2^64: load 256 mapped near address 0 and the kernel
    page-faulted. Then one with a 12 MiB .bss, more than one block of the
    page allocator: refused with its size, nothing changed, or loaded with
    every page of its .bss its own (its marks intact after a workload, its
    pages back after the unload). The 8 MiB cap mapped 4 MiB of pages it
    did not own."""
    s = Session(2, name="module_space")
    try:
        why = module_loop(s)
        why = why or module_big(s)
    except TimeoutError as e:
        why = str(e)
    return s.finish(why)


# ---- the function-graph tracer (docs/function-graph.md) --------------------

FUNC_LINE = re.compile(r"^\S+ us cpu(\d+) (\S+) (func_entry|func_exit): ( *)"
                       r"(\S+) depth=(\d+)(?: retval=-?\d+)?(?: \[....?\])?$")
THREAD_LINE = re.compile(r"^\S+ us cpu(\d+) (\S+) ")


def thread_of(ctx, cpu, cur):
    """The thread whose shadow stack a record of context ctx on cpu uses:
    a process's (sys: and trap: contexts name its pid), a ktask's, the
    CPU's idle thread; an interrupt or kernel message runs on the thread it
    interrupted, the last one seen on that CPU (cur)."""
    m = re.match(r"(?:sys|trap):[^\[]*\[(\d+)\]", ctx)
    if m:
        return "pid" + m.group(1)
    if ctx == "idle":
        return "idle%d" % cpu
    if ctx.startswith("kt:"):
        return ctx
    return cur.get(cpu, "idle%d" % cpu)


def func_step(st, m):
    """Applies one func_entry/func_exit match m to its thread's stack st of
    open calls (None: the thread's first; calls it had open before the
    trace began are "?", which any exit at their depth closes); returns
    why it does not fit, or ""."""
    kind, indent, fn, depth = m.group(3), m.group(4), m.group(5), \
        int(m.group(6))
    if st[:1] == [None]:
        st[:] = ["?"] * (depth + (kind == "func_exit"))
    if fn.startswith("#"):
        return "no name for function %s" % fn
    if len(indent) != 2 * min(depth, 32):
        return "indent of %d spaces for depth %d" % (len(indent), depth)
    if kind == "func_entry":
        if depth != len(st):
            return "entry at depth %d with %d calls open %s" % (
                depth, len(st), st[-3:])
        st.append(fn)
    elif not st or st[-1] not in (fn, "?") or depth != len(st) - 1:
        return "exit of %s at depth %d, open: %s" % (fn, depth, st[-3:])
    else:
        st.pop()
    return ""


def check_func_nesting(text, chain, leaf):
    """In `ttdecode text` output: every func_exit of a thread closes its
    innermost open call (same function, same depth), every entry's depth
    is the number of calls the thread has open, the indent two spaces a
    level, names are names; and at the entry of some function matching
    leaf, its thread's open calls hold chain in order. Returns (why, number
    of calls, that thread's open calls then)."""
    stacks, cur, calls, found = {}, {}, 0, None
    for line in text.splitlines():
        t = THREAD_LINE.match(line)
        if not t:
            continue
        cpu = int(t.group(1))
        cur[cpu] = key = thread_of(t.group(2), cpu, cur)
        m = FUNC_LINE.match(line)
        if not m:
            continue
        st = stacks.setdefault(key, [None])
        why = func_step(st, m)
        if why:
            return "%s: %s: %s" % (key, why, line), calls, None
        if m.group(3) == "func_entry":
            calls += 1
            names = iter(st[:-1])
            if not found and re.search(leaf, st[-1]) and \
                    all(c in names for c in chain):
                found = " > ".join(st)
    if not found:
        return "no call of %s under %s" % (leaf, " > ".join(chain)), calls, None
    return "", calls, found


def uftrace_graph_chain(graph, chain, leaf):
    """The path (root first) to the first function matching leaf in
    `uftrace graph` output whose ancestors hold chain in order, or None.
    A child's line is "+-(N) name", a column further right than its parent,
    or, when it is the only child, "| (N) name" right under the parent."""
    path = []
    for line in graph.splitlines():
        if line.startswith(("#", "=")) or ":" not in line:
            continue
        after = line.split(":", 1)[1]
        m = re.search(r"\((\d+)\) (\S+)", after)
        if not m:
            continue
        col, prefix, name = m.start(), after[:m.start()], m.group(2)
        if not prefix.strip():
            path = []
        elif prefix.endswith("+-"):
            while path and path[-1][0] >= col:
                path.pop()
        path.append((col, name))
        names = [n for _, n in path]
        if re.search(leaf, name):
            it = iter(names[:-1])
            if all(c in it for c in chain):
                return names
    return None


# The call chain of open(2) into the namespace code, and its leaf: a
# file-system walk function (mmu_walk is the page-table walk).
GRAPH_CHAIN = ["syscall_trap", "sys_open", "ns_open"]
GRAPH_LEAF = r"^(?!mmu_)\w*_walk$"


def stats_everything_on():
    """The stats file read again and again with every event on, the
    function-graph tracer included: each read ends. (It looked for each
    ring's newest record with no bound, and on the reader's own CPU, whose
    ring its own locking fills as fast as it reads, chased the head for
    ever: the 10-minute soak's stuck `sysfuzz ... pread`.) The text is
    whole: a line per CPU and the aux line."""
    s = Session(2, name="stats-on")
    try:
        s.say("echo enable '*' > /dev/ttrace/ctl; ls /bin > /tmp/x; "
              "echo on=$?", r"on=0")
        for _ in range(5):
            m = s.say("cat /dev/ttrace/stats; echo read=$?",
                      r"(cpu0 written(?:.|\n)*?)read=(\d+)", timeout=120)
            text = m.group(1).decode()
            if m.group(2) != b"0" or "cpu1 written" not in text or \
                    "aux bytes" not in text:
                return s.finish("stats: %r (status %s)" % (text, m.group(2)))
    except TimeoutError as e:
        return s.finish(str(e))
    return s.finish("")


def funcs_state(s):
    """The funcs file's text (filter, site counts), read to the end of its
    last line (a number matched before its last digit arrived made two
    equal texts differ)."""
    return s.say("cat /dev/ttrace/funcs", rb"filter (?:.*\r?\n)*?"
                 rb"tracepoints_live \d+\r?\n").group(0).replace(b"\r", b"")


def graph_session(out):
    """Refusals of untraceable functions (nothing changes), then `ttrace
    graph -- ls /bin` saved to out; every function site a NOP after it and
    the filter back to "*".
    Returns why it failed, or ""."""
    s = Session(2, hostout=out, timeout=300, cmdline=DEFAULT_EVENTS,
                name="graph")
    try:
        before = funcs_state(s)
        for glob, why in (("trace_ring_*", r"trace_ring_\w+ is not traceable"
                           r" \(the tracer"), ("trap", r"trap is not traceable"),
                          ("no_such_fn*", r"'no_such_fn\*' matches no "
                           r"function")):
            s.say("echo '%s' > /dev/ttrace/funcs; echo status=$?" % glob,
                  r"funcs: %s.*\r?\n(?:.*\r?\n)?status=[1-9]" % why)
        after = funcs_state(s)
        if after != before:
            return s.finish("a refused filter changed the funcs file: %r, "
                            "was %r" % (after, before))
        # room for every record of ls, whatever else is on (ttrace.mask=all)
        s.say("echo bufsize 8192 > /dev/ttrace/ctl; echo status=$?",
              r"status=0")
        s.say("ttrace graph -- ls /bin", r"graph saved to /dev/host/out",
              timeout=240)
        after = funcs_state(s)
        if not re.search(rb"filter \*\nfunctions (\d+)\nselected \1\nlive 0",
                         after):
            return s.finish("after ttrace graph the funcs file says %r" %
                            after)
    except TimeoutError as e:
        return s.finish(str(e))
    return s.finish("")


def readme_tour_commands():
    """The commands of README.md's "A tour at the shell" block: its
    `    $ ` lines, comments stripped."""
    text = open(os.path.join(ROOT, "README.md")).read()
    block = text.split("## A tour at the shell", 1)[1].split("\n## ", 1)[0]
    block = block.split("From the host:", 1)[0]
    return [re.sub(r"\s+#.*$", "", m.group(1)).strip()
            for m in re.finditer(r"^    \$ (.*)$", block, re.M)]


def readme_tour():
    """Types every command of README's shell tour, in order, as a reader
    would: each must exit 0 and print no usage text and no shell error, so
    the tour cannot drift from the programs."""
    cmds = readme_tour_commands()
    if len(cmds) < 5:
        return "README tour: only %d commands found" % len(cmds)
    os.makedirs(OUT, exist_ok=True)
    out = os.path.join(OUT, "readme_tour.ttr")   # the tour writes /dev/host/out
    s = Session(2, hostout=out, timeout=600, cmdline=DEFAULT_EVENTS,
                name="readme_tour")
    why = ""
    try:
        for cmd in cmds:
            start = len(s.run.text)
            m = s.say(cmd + "; echo rc=$?", r"\nrc=(\d+)\n", timeout=180)
            said = s.run.text[start:]
            if m.group(1) != b"0":
                why = "%r: exit status %s" % (cmd, m.group(1).decode())
            elif "usage:" in said or "sh: " in said:
                why = "%r: %s" % (cmd, said.strip()[-300:])
            if why:
                break
    except TimeoutError as e:
        why = "%s (after %r)" % (e, cmd)
    return s.finish(why)


def graph():
    """The function-graph tracer end to end: a probe on the tracer's own
    path (or the trap path) is refused and nothing changes; `ttrace graph
    -- ls /bin` records every kernel call, and on the host, in `ttdecode
    text`, each thread's entries and exits pair with the right depths
    (and the text indents by depth), with real names, and open(2)'s chain
    syscall_trap > sys_open > ns_open reaches a namespace walk function;
    `ttdecode uftrace` of it shows the same chain in `uftrace graph`."""
    if not shutil.which("uftrace"):
        return "uftrace is not installed: run scripts/deps.sh"
    out = fresh_out("graph.ttr")
    why = graph_session(out)
    if why:
        return why
    v = ttdecode("verify", out)
    if v.returncode != 0 or "verify: OK" not in v.stdout or \
            "declared lost: 0" not in v.stdout:
        return "ttdecode verify (no loss expected): %s%s" % (v.stdout[-800:],
                                                            v.stderr)
    why, calls, found = check_func_nesting(ttdecode("text", out).stdout,
                                           GRAPH_CHAIN, GRAPH_LEAF)
    if why:
        return "ttdecode text: " + why
    d = out + ".uftrace"
    shutil.rmtree(d, ignore_errors=True)
    u = ttdecode("uftrace", out, d)
    if u.returncode != 0:
        return "ttdecode uftrace: %s%s" % (u.stdout, u.stderr)
    g = run_tool("uftrace", "graph", "-d", d)
    path = uftrace_graph_chain(g.stdout, GRAPH_CHAIN, GRAPH_LEAF)
    if g.returncode or not path:
        return "uftrace graph: no %s > ... > %s: %s%s" % (
            " > ".join(GRAPH_CHAIN), GRAPH_LEAF, g.stdout[-1500:], g.stderr)
    why = tracedat_graph_chain(out)
    if why:
        return why
    print("# graph: %d calls; text: %s; uftrace graph: %s" % (
        calls, found, " > ".join(path)))
    return ""


FUNCGRAPH = re.compile(r"^\s*\S+\s+\[(\d+)\]\s+\S+: funcgraph_entry:"
                       r"[^|]*\|( *)(\w+)\(\)")


def tracedat_graph_chain(trace):
    """`trace-cmd report` of `ttdecode tracedat` of the graph trace shows
    kernel functions by name with their call depth: GRAPH_CHAIN, each
    nested one level under the one before, on one CPU ("" if so, or
    "skipped" is printed without trace-cmd)."""
    if not shutil.which("trace-cmd"):
        print("# graph: trace-cmd is not installed: its check skipped")
        return ""
    dat = trace + ".dat"
    t = ttdecode("tracedat", trace, dat)
    if t.returncode != 0:
        return "ttdecode tracedat: %s%s" % (t.stdout, t.stderr)
    r = run_tool("trace-cmd", "report", "-i", dat)
    if r.returncode != 0:
        return "trace-cmd report: %s" % r.stderr[-800:]
    want = {}                   # cpu: (index in GRAPH_CHAIN, its indent)
    for line in r.stdout.splitlines():
        m = FUNCGRAPH.match(line)
        if not m:
            continue
        cpu, indent, fn = m.group(1), len(m.group(2)), m.group(3)
        k, at = want.get(cpu, (0, -1))
        if fn == GRAPH_CHAIN[0]:
            want[cpu] = (1, indent)
        elif k and k < len(GRAPH_CHAIN) and fn == GRAPH_CHAIN[k] and \
                indent > at:
            want[cpu] = (k + 1, indent)
            if k + 1 == len(GRAPH_CHAIN):
                return ""
    return "trace-cmd report shows no %s nested by depth" % \
        " > ".join(GRAPH_CHAIN)


def fprobe_session(out):
    """docs/probes.md's function probe examples, then `echo fp >
    /tmp/fpknown` with the probes on, the count by mode, the probes
    deleted (refused while a built-in probe is on one), the trace saved to
    out. Returns why it failed, or ""."""
    s = Session(2, hostout=out, timeout=300, cmdline=DEFAULT_EVENTS,
                name="fprobe")
    try:
        run_doc_examples(s, section="Function probe examples")
        s.say("ttrace clear; echo fp > /tmp/fpknown; ttrace mark fp-end; "
              "echo status=$?", r"status=0\r?\n")
        s.say("ttrace probe list", r"probe fpmodes count fpopen by mode\r?\n"
              r"  hits \d+ overflow 0\r?\n(?:  key \d+ count \d+\r?\n)*"
              r"  key 577 count [1-9]")
        s.say("echo fprobe del fpopen > /dev/ttrace/ctl; echo status=$?",
              r"probes are attached to it.*\r?\n(?:.*\r?\n)?status=[1-9]")
        s.say("echo unprobe '*' > /dev/ttrace/ctl; echo status=$?",
              r"status=0\r?\n")
        for name in ("fpopen", "fpopen_ret", "fpcopy"):
            s.say("echo fprobe del %s > /dev/ttrace/ctl; echo status=$?" %
                  name, r"status=0\r?\n")
        s.say("cat /dev/ttrace/funcs | grep -c deleted", r"\n3\r?\n")
        s.say("ttrace save /dev/host/out", r"saved /dev/host/out")
    except TimeoutError as e:
        return s.finish(str(e))
    return s.finish("")


def fprobe():
    """Function probes end to end (docs/probes.md, "Function probes"): the
    doc's examples at the shell, then on the host the trace of `echo fp >
    /tmp/fpknown` holds ns_open's path and flags as the shell passed them,
    the return's pointer, copyinstr's user string, with the fields named
    in text and JSON; the filter on the probe kept only odd modes up to
    the marker written after it (then the probes are removed)."""
    out = fresh_out("fprobe.ttr")
    why = fprobe_session(out)
    if why:
        return why
    v = ttdecode("verify", out)
    if v.returncode != 0 or "verify: OK" not in v.stdout:
        return "ttdecode verify: %s%s" % (v.stdout[-800:], v.stderr)
    text = ttdecode("text", out).stdout
    for want in (r"fpopen: ns_open path=/tmp/fpknown mode=577\n",
                 r"fpopen_ret: ns_open chan=0xffff[0-9a-f]+\n",
                 r"fpcopy: copyinstr usrc=/tmp/fpknown max=256\n"):
        if not re.search(want, text):
            return "ttdecode text has no %r: %s" % (want, text[-1500:])
    if "fp-end" not in text:
        return "ttdecode text has no fp-end marker"
    modes = re.findall(r"fpopen: ns_open path=\S* mode=(\d+)",
                       text.split("fp-end", 1)[0])
    if any(int(m) % 2 == 0 for m in modes):
        return "the filter mode&0x1 kept even modes: %s" % modes
    js = out + ".json"
    j = ttdecode("json", out, js)
    if j.returncode or not re.search(
            r'"name": ?"fpopen".*"text": ?"ns_open path=/tmp/fpknown '
            r'mode=577"', open(js).read()):
        return "ttdecode json: no fpopen of /tmp/fpknown: %s" % j.stderr
    why = fprobe_ctf(out)
    if why:
        return why
    print("# fprobe: %d fpopen records, all odd modes" % len(modes))
    return ""


def fprobe_ctf(out):
    """babeltrace2 on `ttdecode ctf` of the fprobe trace shows fpopen's
    fields by name ("" if so; skipped without babeltrace2)."""
    if not shutil.which("babeltrace2"):
        print("# fprobe: babeltrace2 is not installed: its check skipped")
        return ""
    d = out + ".ctf"
    shutil.rmtree(d, ignore_errors=True)
    c = ttdecode("ctf", out, d)
    if c.returncode:
        return "ttdecode ctf: %s%s" % (c.stdout, c.stderr)
    b = run_tool("babeltrace2", d)
    if not re.search(r'fpopen: .*\{ path = "/tmp/fpknown", mode = 577 \}',
                     b.stdout):
        return "babeltrace2 shows no fpopen fields: %s%s" % (
            b.stdout[-1000:], b.stderr[-500:])
    return ""


LAT_ROW = re.compile(r"^\s*(\d+) +(\d+) +(\d+) +(\d+) +(\d+)\r?$", re.M)


def timerlat_rows(text, smp):
    """The per-CPU rows of a timerlat summary: why they are wrong ("" if
    every CPU 0..smp-1 has one, with samples and min <= avg <= max)."""
    rows = {int(r[0]): [int(x) for x in r[1:]] for r in LAT_ROW.findall(text)}
    if sorted(rows) != list(range(smp)):
        return "timerlat rows for cpus %s, want 0..%d:\n%s" % (
            sorted(rows), smp - 1, text)
    for cpu, (count, lo, avg, hi) in rows.items():
        if count == 0 or not lo <= avg <= hi:
            return "cpu%d: count %d min %d avg %d max %d:\n%s" % (
                cpu, count, lo, avg, hi, text)
    return ""


def samples_bound(path, smp):
    """Every timerlat_sample record of the trace at path is in the ring of
    the CPU it names (the thread is bound), every CPU has some: why not,
    or ""."""
    why = verify_trace(path, smp)
    if why:
        return why
    seen = set()
    for line in ttdecode("text", path).stdout.splitlines():
        m = re.search(r" cpu(\d+) .*timerlat_sample: cpu=(\d+) ", line)
        if m and m.group(1) != m.group(2):
            return "a sample of cpu %s recorded on cpu %s: %s" % (
                m.group(2), m.group(1), line)
        if m:
            seen.add(int(m.group(1)))
    if seen != set(range(smp)):
        return "timerlat_sample records from cpus %s only" % sorted(seen)
    return ""


def max_trace(path, cpu, max_ns):
    """The maximum's frozen trace (timerlat_trace) verifies, and on the
    maximum's CPU the sample before the last lat_max mark of timerlat
    (tracer 2) is the maximum: why not, or ""."""
    why = verify_trace(path, 1)
    if why:
        return "timerlat_trace: " + why
    sample, at_mark = None, None
    for line in ttdecode("text", path).stdout.splitlines():
        if not re.search(r" cpu%d " % cpu, line):
            continue
        if "timerlat_sample:" in line:
            sample = line
        elif "lat_max: tracer=2 " in line:
            at_mark = sample
    if not at_mark or "latency=%d ns" % max_ns not in at_mark:
        return "timerlat_trace: cpu%d's sample before its last lat_max is " \
            "%r, not the maximum %d ns" % (cpu, at_mark, max_ns)
    return ""


def timerlat_scenario(smp):
    """`ttrace latency timerlat 1` on smp CPUs: every CPU reports
    samples, the maximum kept (the core's) is the largest row's, the
    tracer is off afterwards;
    in the saved trace each sample is recorded on its own CPU (the
    thread is bound to it); the maximum's frozen trace (timerlat_trace)
    verifies and holds the maximum's sample and the core's mark."""
    out = fresh_out("timerlat-smp%d.ttr" % smp)
    s = Session(smp, name="timerlat-smp%d" % smp, hostout=out)
    try:
        s.say("ttrace enable latency", r"\n")
        m = s.say("ttrace latency timerlat 1 20000",
                  r"timerlat off period_us 20000(?:.*\n)*?"
                  r"max_ns (\d+) cpu (\d+) missed \d+\r?\n", timeout=120)
        text = m.group(0).decode(errors="replace")
        max_ns, max_cpu = int(m.group(1)), int(m.group(2))
        why = timerlat_rows(text, smp)
        row_max = max(int(r[4]) for r in LAT_ROW.findall(text))
        if not why and (max_cpu >= smp or max_ns != row_max):
            why = "the maximum %d ns on cpu %d of %d, the rows' %d ns" % (
                max_ns, max_cpu, smp, row_max)
        if why:
            return s.finish(why)
        s.say("ttrace save /dev/host/out", r"ttrace: saved /dev/host/out")
        s.say("ttrace save -l timerlat /dev/host/out",
              r"ttrace: saved /dev/host/out")
    except TimeoutError as e:
        return s.finish(str(e))
    files, why = finish_saved(s, out, 2)
    return why or samples_bound(files[0], smp) or \
        max_trace(files[1], max_cpu, max_ns)


def osnoise_scenario():
    """`ttrace latency osnoise 1` on 2 CPUs: each CPU's gaps include the
    LAPIC timer (vector 32, every CPU's own tick), counted as its cause;
    hostile ctl input is refused and changes nothing: the figures and
    the state stay as they were; docs/latency.md's examples run."""
    s = Session(2, name="osnoise-smp2")
    try:
        m = s.say("ttrace latency osnoise 1 200000 2000",
                  r"osnoise off runtime_us 200000 threshold_ns 2000"
                  r"(?:.*\n)*?(?=\$ )", timeout=120)
        text = m.group(0).decode(errors="replace")
        for cpu in range(2):
            c = re.search(r"cause cpu%d irq 32 count ([1-9]\d*) noise_ns "
                          r"[1-9]" % cpu, text)
            if not c:
                return s.finish("cpu%d: no timer interrupt as a cause:\n%s"
                                % (cpu, text))
        before = s.say("cat /dev/ttrace/osnoise /dev/ttrace/latency",
                       r"osnoise off(?:.*\n)*?(?=\$ )").group(0)
        for bad in ("latency osnoise on 0", "latency osnoise on 10 0",
                    "latency osnoise on 1000001", "latency osnoise of",
                    "latency timerlat on 5 5", "latency osnoise reset 1",
                    "latency timerlat off x", "latency irqsoof on",
                    "latency osnoise threshold 10000001",
                    "latency osnoise threshold",
                    "latency osnoise on 99999999999999999999999"):
            s.say("echo %s > /dev/ttrace/ctl" % bad, r"ttrace ctl: latency")
            s.say("echo status=$?", r"status=[1-9]")
        after = s.say("cat /dev/ttrace/osnoise /dev/ttrace/latency",
                      r"osnoise off(?:.*\n)*?(?=\$ )").group(0)
        if before != after:
            return s.finish("refused commands changed osnoise:\n%s\n%s" %
                            (before, after))
        s.say("cat /dev/ttrace/timerlat", r"timerlat off period_us")
        run_doc_examples(s, "latency.md", "timerlat and osnoise examples",
                         timeout=120)
    except TimeoutError as e:
        return s.finish(str(e))
    return s.finish("")


def hist_names(s):
    """ttrace hist keeps its probe's whole name and names the keys of a
    str:syscall field by the syscall, and pid.execname by the process;
    a bad key name is refused and changes nothing. Returns why not."""
    lat = "lat.syscall_enter.syscall_exit"
    s.say("ttrace hist latency syscall_enter syscall_exit",
          re.escape("ttrace: probe %s started" % lat))
    s.say("echo probe pc count syscall_enter by pid.execname > "
          "/dev/ttrace/ctl; ls /bin > /tmp/x", r"\n")
    s.say("ttrace hist latency syscall_enter syscall_exit",
          re.escape("probe %s latency syscall_enter syscall_exit by nr" %
                    lat) + r"\r?\n[^$]*  key open \(7\) count [1-9]")
    s.say("ttrace probe list | grep key", r"  key ls \(\d+\) count [1-9]")
    s.say("ttrace hist syscall_enter by nr",
          re.escape("ttrace: probe hist.syscall_enter started"))
    s.say("ls /bin > /tmp/x; ttrace hist syscall_enter by nr",
          r"  key open \(7\) +[1-9]\d* \|")
    s.say("echo probe x count syscall_enter by nr.nosuch > /dev/ttrace/ctl",
          r"no key name 'nosuch'")
    s.say("ttrace probe list | grep -c 'probe '", r"\n3\r?\n")
    s.say("echo unprobe '*' > /dev/ttrace/ctl", r"\n")
    return ""


SYSCALL_CHAIN = "syscall_traced < syscall_trap"
OPEN_CHAIN = "ns_open < sys_open < " + SYSCALL_CHAIN


def stack_triggers(s):
    """docs/latency.md's stacktrace examples: open(2)'s syscall_enter and
    ns_open's func_entry each followed by their chain, which the kernel's
    own text names; bad commands refused with nothing changed."""
    for cmd, want in (("depth 0", "depth '0': 1 to 16 frames"),
                      ("depth 99999999999999999999", "1 to 16 frames"),
                      ("depth x", "depth 'x'"),
                      ("by nr", "unexpected 'by'")):
        s.say("echo probe bad stacktrace syscall_enter %s > /dev/ttrace/ctl"
              % cmd, re.escape(want))
    s.say("echo probe bad stacktrace no_such_event > /dev/ttrace/ctl",
          r"no event 'no_such_event'")
    s.say("ttrace probe list | grep -c 'probe '", r"\n0\r?\n")
    s.say("echo probe st stacktrace syscall_enter if nr==7 > "
          "/dev/ttrace/ctl; ttrace clear; ls /bin > /tmp/x", r"\n")
    s.say("ttrace cat | grep stack: | head -n 1",
          r"stack: frames=\d+ " + re.escape(SYSCALL_CHAIN))
    s.say("echo ns_open > /dev/ttrace/funcs; echo probe sf stacktrace "
          "func_entry > /dev/ttrace/ctl; ttrace enable func; ls /bin > /tmp/x;"
          " ttrace disable func; echo '*' > /dev/ttrace/funcs", r"\n")
    s.say("ttrace probe list",
          r"probe sf stacktrace func_entry depth 16\r?\n  hits [1-9]")
    s.say("ttrace save /dev/host/out", r"saved /dev/host/out")
    s.say("echo unprobe '*' > /dev/ttrace/ctl", r"\n")
    return ""


def check_stack_trace(path):
    """The saved trace's text and JSON show each chain right after its
    event, named from the trace's own ksym records: open(2)'s
    syscall_enter reached from syscall_trap, and one ns_open (of those
    that spawn and open make) from sys_open."""
    t = ttdecode("text", path).stdout.split("\n")
    found = {}
    for a, b in zip(t, t[1:]):
        for ev, chain in (("syscall_enter: open(", SYSCALL_CHAIN),
                          ("func_entry: ns_open", OPEN_CHAIN)):
            if ev in a and " stack: frames=" in b:
                found.setdefault(ev, [])
                found[ev].append(b)
    for ev, chain in (("syscall_enter: open(", SYSCALL_CHAIN),
                      ("func_entry: ns_open", OPEN_CHAIN)):
        if not any(chain in b for b in found.get(ev, [])):
            return "ttdecode text: no stack with %r after %r: %s" % (
                chain, ev, found.get(ev, [])[:3])
    out = path + ".json"
    j = ttdecode("json", path, out)
    if j.returncode:
        return "ttdecode json: %s" % j.stderr
    with open(out) as f:
        evs = json.load(f)["traceEvents"]
    if not any(e.get("name") == "stack" and
               OPEN_CHAIN in json.dumps(e.get("args")) for e in evs):
        return "ttdecode json: no stack event with %r in its args" % \
            OPEN_CHAIN
    if shutil.which("babeltrace2"):
        ctf = path + ".ctf"
        shutil.rmtree(ctf, ignore_errors=True)
        c = ttdecode("ctf", path, ctf)
        bt = subprocess.run(["babeltrace2", ctf], capture_output=True,
                            text=True, timeout=300)
        if c.returncode or not re.search(
                r'stack: .*pc0 = "fgraph_entry", pc1 = "ns_open", '
                r'pc2 = "sys_open", pc3 = "syscall_traced"', bt.stdout):
            return "ctf: no stack of ns_open from sys_open in babeltrace2 " \
                "(%s%s)" % (c.stderr, bt.stderr[-300:])
    else:
        print("# stack: babeltrace2 missing: CTF not checked")
    print("# stack: %s" % [b for b in found["func_entry: ns_open"]
                           if OPEN_CHAIN in b][0].strip())
    return ""


STACK_MAX = re.compile(r"cpu(\d+) (\d+) bytes (\d+) frames\r?\n((?:  #\d+ .*\r?\n)*)")


def kernel_functions():
    """The names of the kernel's functions (nm: text symbols)."""
    out = subprocess.run(["nm", KERNEL_ELF], capture_output=True, text=True,
                         check=True).stdout
    return {l.split()[2] for l in out.split("\n")
            if len(l.split()) == 3 and l.split()[1] in "tTwW"}


def stack_tracer(s):
    """The stack tracer: on, a workload, then each CPU's deepest stack is
    a chain of kernel functions whose innermost frame is the entry of the
    function (+0x5: the return from its site) that went deepest; off puts
    every function site back to the NOP; reset forgets; a bad word is
    refused."""
    s.say("echo stacktracer maybe > /dev/ttrace/ctl",
          re.escape("stacktracer: 'maybe' is not on, off or reset"))
    s.say("echo stacktracer on > /dev/ttrace/ctl; ls -l /bin > /tmp/x; "
          "echo stacktracer off > /dev/ttrace/ctl", r"\n")
    # up to a line after it: the match must not end before the file does
    m = s.say("cat /dev/ttrace/stack_max; echo stack-max-end",
              r"stacktracer off\r?\n"
              r"((?:cpu\d+ \d+ bytes \d+ frames\r?\n(?:  #.*\r?\n)*)+)"
              r"stack-max-end")
    text = m.group(1).decode()
    s.say("cat /dev/ttrace/funcs", r"live 0\r?\n")
    s.say("echo stacktracer reset > /dev/ttrace/ctl; cat /dev/ttrace/stack_max"
          " | grep -c ' 0 bytes 0 frames'", r"\n2\r?\n")
    funcs = kernel_functions()
    deepest = max(STACK_MAX.findall(text), key=lambda c: int(c[1]))
    frames = re.findall(r"#(\d+) (\S+)\+0x([0-9a-f]+)", deepest[3])
    if int(deepest[1]) < 256 or len(frames) < 4 or \
            len(frames) != int(deepest[2]):
        return "stack_max: implausible deepest stack:\n%s" % text
    bad = [f for f in frames if f[1] not in funcs]
    if bad or frames[0][2] != "5":
        return "stack_max: %s not kernel functions, or #0 not a function's " \
            "entry (+0x5):\n%s" % (bad, text)
    print("# stack_max: cpu%s %s bytes: %s" % (
        deepest[0], deepest[1], " < ".join(f[1] for f in frames)))
    return ""


def stack():
    """docs/latency.md's stack traces: readable histogram keys, the
    stacktrace trigger checked in the kernel's text, ttdecode text and
    JSON, and the stack tracer."""
    out = fresh_out("stack.ttr")
    s = Session(2, hostout=out, cmdline=DEFAULT_EVENTS, name="stack")
    try:
        why = hist_names(s) or stack_triggers(s) or stack_tracer(s)
    except TimeoutError as e:
        why = str(e)
    if why:
        return s.finish(why)
    files, why = finish_saved(s, out, 1)
    return why or check_stack_trace(files[0])


def run_all(res, only):
    def want(name):
        return not only or only in name

    for smp in (1, 2, 4):
        name = "ttrace_device_smp%d" % smp
        if want(name):
            res.add(name, *(lambda w: (not w, w))(device_scenario(smp)))
    for smp in (1, 2, 4):
        name = "ttrace_timerlat_smp%d" % smp
        if want(name):
            res.add(name, *(lambda w: (not w, w))(timerlat_scenario(smp)))
    for name, fn in (("readme_tour", readme_tour),
                     ("ttrace_roundtrip", roundtrip),
                     ("ttrace_two_saves", two_saves),
                     ("ttrace_decode_exports", decode_exports),
                     ("ttrace_panic_dump_host", lambda: panic_dump(True)),
                     ("ttrace_panic_dump_console", lambda: panic_dump(False)),
                     ("ttrace_lifecycle", lifecycle),
                     ("ttrace_fprobe_user", fprobe),
                     ("ttrace_oom_boot", oom_boot),
                     ("ttrace_long_lines", long_lines),
                     ("ttrace_oom_boot_cpu0", oom_boot_cpu0),
                     ("ttrace_filtered", filtered),
                     ("ttrace_stream", stream),
                     ("ttrace_drain_burst", drain_burst),
                     ("ttrace_drain_steady", drain_steady),
                     ("ttrace_pull_hung", pull_hung),
                     ("ttrace_lastboot", lastboot),
                     ("ttrace_lastboot_reset", lastboot_reset),
                     ("ttrace_live", live),
                     ("ttrace_one_writer", one_writer),
                     ("ttrace_boot_profile", boot_profile),
                     ("ttrace_exports", exports),
                     ("ttrace_tracedat", tracedat_corpus),
                     ("ttrace_probes", probes),
                     ("ttrace_latency", latency),
                     ("ttrace_modules", modules),
                     ("ttrace_module_space", module_space),
                     ("ttrace_stats_everything_on", stats_everything_on),
                     ("ttrace_graph", graph),
                     ("ttrace_osnoise", osnoise_scenario),
                     ("ttrace_stack", stack),
                     # 12 s of guest time: six saves, a dozen resizes
                     # and mode changes, the toggler's flips all along
                     # (check_saved wants 4 saves and a resize); make
                     # soak runs the same stages for 600 s
                     ("ttrace_stress_smp4",
                      lambda: stress("stress", 4, 12, 2, []))):
        if want(name):
            why = fn()
            res.add(name, not why, why)
