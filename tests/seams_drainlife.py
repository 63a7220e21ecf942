"""The in-kernel drain's lifecycle (docs/ttrace-device.md, "The in-kernel
drain"), in one SMP=1 boot with the host channel: who ends the drain, a
wait of it interrupted, and a panic while it streams.

  1. ^C on `ttrace stream` while it waits for its time: the drain belongs
     to the ctl file that turned it on, so the process's exit ends it and
     the channel comes back (it stayed on: `drain: on already`, EBUSY).
  2. ^C on `ttrace stream` while it waits in `drain off`, held up by
     slots in flight (`crash corrupt`): the wait ends (at SMP=1 the killed
     thread's ksleep returned -EINTR at once, for ever: a hang), the drain
     still ends its file, and starts again.
  3. a panic while the drain streams: the stream is closed where it
     stands, so `ttdecode split` finds it and the dump after it (it
     stopped at `section UNKNOWN length ... runs past end of file`).
Every file the channel got is then split and verified.
"""
import os
import re
import time

from qemu_run import QEMU_STATUS
from ttrace_tests import Session, OUT, fresh_out, ttdecode

SPOILED = 40            # slots in flight ahead of the drain in step 2
CTRL_C_DELAY = 0.3      # s after the stream's command exits (step 2)


def drain_off_seen(s, timeout=60):
    """Polls ctl until the drain is off (a drain ended by a close or by
    its thread after an interrupted wait finishes on its own)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        m = s.say("cat /dev/ttrace/ctl | grep drain",
                  rb"\ndrain (\w+) bytes")
        if m.group(1) == b"off":
            return
        time.sleep(1)
    raise TimeoutError("the drain is still on %d s after its stream was "
                       "killed" % timeout)


def interrupt(s, after, delay):
    """Waits for the regex after, then delay seconds, then types ^C and
    waits for the shell's prompt."""
    s.run.expect(after, timeout=120)
    time.sleep(delay)
    s.run.send("\x03")
    s.run.expect(r"\$ ", timeout=90)
    s.run.send("\r")        # say() waits for a prompt of its own


def spoil(s, n):
    """n slots of CPU 0's ring spoiled (read as in flight)."""
    for done in range(0, n, 20):
        k = min(20, n - done)
        s.say("; ".join(["echo crash corrupt > /dev/ttrace/ctl"] * k) +
              "; echo spoiled=$?", r"spoiled=0")


def killed_stream(s):
    """1. ^C while the stream waits for its time: the close ends the
    drain and the channel is free again."""
    s.say("ttrace clear", r"\n")
    s.run.expect(r"\$ ", timeout=60)
    s.run.send("ttrace stream -t 100\r")
    time.sleep(3)
    s.run.send("\x03")
    s.run.expect(r"\$ ", timeout=90)
    s.run.send("\r")
    drain_off_seen(s)
    s.say("ttrace save /dev/host/out; echo saved=$?", r"saved=0")


def killed_drain_off(s):
    """2. ^C while the stream waits in drain off behind slots in flight;
    then the drain streams again."""
    s.say("ttrace clear", r"\n")
    spoil(s, SPOILED)
    s.run.expect(r"\$ ", timeout=60)
    s.run.send("ttrace stream -- echo go\r")
    interrupt(s, r"\ngo\r?\n", CTRL_C_DELAY)
    drain_off_seen(s)
    s.say("ttrace stream -t 1", r"ttrace: streamed \d+ bytes", timeout=120)


def panic_while_streaming(s):
    """3. a panic while the drain streams: the dump follows the stream."""
    s.run.expect(r"\$ ", timeout=60)
    s.run.send("ttrace stream -- sh -c 'sleep 1; echo crash > /dev/ttrace/ctl'"
               "\r")
    s.run.expect(r"ttrace: dump done", timeout=120)


STEPS = (killed_stream, killed_drain_off, panic_while_streaming)


def split_verified(out):
    """Splits the channel's file, verifies every trace in it; returns why
    it failed, or "". Want: the killed stream, the save, the interrupted
    stream, the stream after it, the stream the panic closed, the dump."""
    prefix = os.path.join(OUT, "drainlife-part")
    sp = ttdecode("split", out, prefix)
    if sp.returncode != 0:
        return "ttdecode split: %s%s" % (sp.stdout, sp.stderr)
    n = int(re.search(r"split: (\d+) traces", sp.stdout).group(1))
    if n != 6:
        return "split: %d traces, want 6 (%s)" % (n, sp.stdout)
    for i in range(n):
        v = ttdecode("verify", "%s-%d.ttr" % (prefix, i))
        if v.returncode != 0 or "verify: OK" not in v.stdout:
            return "trace %d of the channel: %s%s" % (i, v.stdout[-600:],
                                                       v.stderr)
    v = ttdecode("verify", "%s-2.ttr" % prefix).stdout
    if len(re.findall(r"cpu0: lost 1 records \[\d+, \d+\): in flight",
                      v)) != SPOILED:
        return "the interrupted stream: not %d slots in flight: %s" % (
            SPOILED, v[-600:])
    return ""


def drainlife(steps=STEPS):
    """The scenario above (steps: all of it, the panic last); returns why
    it failed, or ""."""
    out = fresh_out("drainlife.ttr")
    s = Session(1, hostout=out, timeout=600, name="drainlife",
                cmdline="ttrace.mask=default ttrace.crashtest "
                        "ttrace.dump_on_panic=1")
    why = ""
    try:
        for step in steps:
            step(s)
    except TimeoutError as e:
        why = str(e)
    if why:
        return s.finish(why)
    code = s.run.wait(timeout=120)
    s.run.close()
    with open(os.path.join(OUT, "drainlife.log"), "w") as f:
        f.write(s.run.text)
    if code != QEMU_STATUS["PANIC"]:
        return "QEMU exit status %s, want %d (the panic)" % (
            code, QEMU_STATUS["PANIC"])
    return split_verified(out)


def run_all(res, only):
    if not only or only in "drainlife_smp1":
        why = drainlife()
        res.add("drainlife_smp1", not why, why)
