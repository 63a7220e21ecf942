"""QEMU scenario of issue 27's stack chains (docs/latency.md, "The walk"):
the chain of a stacktrace probe on a function reached by a tail call
under the function-graph tracer names the real caller, and the chain of
a probe at a function's return goes on to the function's caller, every
pc a kernel function's. One boot; the irqsoff and stack tracer items are
ktests (kt_latency.c, kt_stack.c)."""
import re

from ttrace_tests import Session, kernel_functions
from qemu_run import DEFAULT_EVENTS

CTL = "/dev/ttrace/ctl"
# the output of the command typed before it, up to its sentinel line
UNTIL_END = r"echo chains-end\r?\n((?:.*\r?\n)*?)chains-end\r?\n"


def probe_chains(s, setup, workload, fprobes):
    """The chains of the stack records setup (shell commands) and
    workload write; then no probe is left, nor the function probes
    fprobes."""
    for cmd in setup:
        s.say(cmd, r"\n")
    s.say("ttrace clear; %s" % workload, r"\n")
    text = s.say("ttrace cat | grep stack: ; echo chains-end",
                 UNTIL_END).group(1).decode()
    s.say("echo unprobe '*' > %s" % CTL, r"\n")
    for name in fprobes:
        s.say("echo fprobe del %s > %s" % (name, CTL), r"\n")
    return re.findall(r"stack: frames=\d+ (.*?)\s*$", text, re.M)


def check_chains(what, chains, want, funcs):
    """Why the chains are wrong: none has want, or a pc is no kernel
    function (a trampoline's, or data read as a frame)."""
    if not chains:
        return "%s: no stack record" % what
    for c in chains:
        names = c.split(" < ")
        bad = [n for n in names if n not in funcs or "trampoline" in n]
        if bad:
            return "%s: %s in the chain %r" % (what, bad, c)
    if not any(want in c for c in chains):
        return "%s: no chain with %r: %s" % (what, want, chains[:4])
    print("# %s: %s" % (what, [c for c in chains if want in c][0]))
    return ""


def chains():
    """A stacktrace probe on user_marker, whose tracepoint tt_write
    reaches, with the graph tracer hooking write_step and chan_write,
    which tail-call it: both their shadow frames have the slot of the
    return into bounce_run, chan_write's with the return trampoline; the
    chain shows bounce_run, not the trampoline. A stacktrace probe on
    ns_open%return: the chain goes from the probe (fire_slow, called by
    fgraph_exit() inside its recursion guard) through the return
    trampoline's frame to sys_open, the caller ns_open returned to."""
    s = Session(2, cmdline=DEFAULT_EVENTS, name="latstack_chains")
    funcs = kernel_functions()
    try:
        tail = probe_chains(
            s, ["echo '*write*' > /dev/ttrace/funcs",
                "echo probe lss stacktrace user_marker > " + CTL],
            "ttrace enable func; echo x > /dev/ttrace/marker; "
            "ttrace disable func; echo '*' > /dev/ttrace/funcs", [])
        ret = probe_chains(
            s, ["echo fprobe add lso ns_open%return > " + CTL,
                "echo probe lsos stacktrace lso > " + CTL],
            "cat /etc/motd > /dev/null", ["lso"])
    except TimeoutError as e:
        return s.finish(str(e))
    why = check_chains("tail call", tail, "tt_write < bounce_run < sys_write",
                       funcs) or \
        check_chains("return probe", ret, "fire_slow < fgraph_exit < sys_open < syscall_",
                     funcs)
    return s.finish(why)


def run_all(res, only):
    for name, fn in (("latstack_chains", chains),):
        if not only or only in name:
            why = fn()
            res.add(name, not why, why)
