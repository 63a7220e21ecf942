"""What a probe's string may read and who may use the tracer, at the shell
(docs/probes.md "Strings", docs/ttrace-device.md "Who may use the
tracer"): one boot.

- The reproducer of kernel memory read into a trace: a `str` probe on
  copyinstr's source and a process's open(&boot_cmdline), the kernel's
  command line (its address from kernel.elf). The probe's listing says
  ustr (the argument is __user), and the saved trace's record of that
  open says `(bad address)`, not the command line.
- `dropcap trace CMD`: CMD cannot write ctl (not even on a descriptor
  its shell opened) nor read records (EPERM, the errstr names the right),
  the mask is what it was, and the shell keeps its right.
"""
import re
import subprocess

from qemu_run import KERNEL_ELF
from ttrace_tests import Session, fresh_out, ttdecode, DEFAULT_EVENTS


def cmdline_addr():
    """boot_cmdline's address in the booted kernel, in hex."""
    nm = subprocess.run(["nm", KERNEL_ELF], capture_output=True, text=True,
                        check=True).stdout
    return re.search(r"^([0-9a-f]+) \w boot_cmdline$", nm, re.M).group(1)


def strsafe_session(out, addr):
    """The boot, open(addr) in it; saves the trace to out. Returns why it
    failed, or ""."""
    s = Session(2, hostout=out, timeout=300, cmdline=DEFAULT_EVENTS,
                name="strsafe")
    try:
        s.say("echo fprobe add cis copyinstr s=arg1:str > /dev/ttrace/ctl; "
              "echo status=$?", r"status=0\r?\n")
        s.say("cat /dev/ttrace/funcs | grep cis",
              r"fprobe add cis copyinstr s=arg1:ustr\r?\n")
        s.say("usertests _open_at %s; echo status=$?" % addr,
              r"status=0\r?\n")
        mask = s.say("cat /dev/ttrace/ctl | head -1",
                     r"mask (0x[0-9a-f]+)\r?\n").group(1)
        # the shell opens ctl (it has the right); echo's write has none
        s.say("dropcap trace echo setmask 0 0xffffffff > /dev/ttrace/ctl; "
              "echo status=$?",
              r"right to trace.*\r?\n(?:.*\r?\n)?status=1\r?\n")
        s.say("dropcap trace cat /dev/ttrace/cpu0; echo status=$?",
              r"cpu0: [^\n]*not permitted\r?\n(?:.*\r?\n)?status=1\r?\n")
        after = s.say("cat /dev/ttrace/ctl | head -1",
                      r"mask (0x[0-9a-f]+)\r?\n").group(1)
        if after != mask:
            return s.finish("ctl's mask %s after dropcap's setmask, %s "
                            "before" % (after, mask))
        s.say("echo fprobe del cis > /dev/ttrace/ctl; echo status=$?",
              r"status=0\r?\n")
        s.say("ttrace save /dev/host/out", r"saved /dev/host/out")
    except TimeoutError as e:
        return s.finish(str(e))
    return s.finish("")


def strsafe():
    """The scenario; returns why it failed, or ""."""
    out, addr = fresh_out("strsafe.ttr"), cmdline_addr()
    why = strsafe_session(out, addr)
    if why:
        return why
    text = ttdecode("text", out).stdout
    opens = re.findall(r"usertests\[\d+\]:open cis: copyinstr s=(.*)", text)
    if opens != ["(bad address)"] or "ttrace.mask=" in "".join(opens):
        return ("usertests' open(&boot_cmdline, 0x%s) under a str probe on "
                "copyinstr recorded %r, want ['(bad address)']" % (addr, opens))
    return ""


def run_all(res, only):
    if not only or only in "strsafe":
        why = strsafe()
        res.add("strsafe", not why, why)
