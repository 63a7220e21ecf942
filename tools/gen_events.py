#!/usr/bin/env python3
"""gen_events.py: generate ttrace's event code from kern/trace/ttrace.events.

    python3 tools/gen_events.py kern/trace/ttrace.events build/gen

writes (only when their contents change, so make does not rebuild for
nothing) into the output directory:

  ttrace_events.h  event ids (TTRACE_EV_*), group bits (TTRACE_GROUP_*), the
                   default group mask, and one emitter per event,
                   static inline void ttrace_NAME(args), which under
                   CONFIG_TTRACE tests ttrace_armed[ID] and calls
                   ttrace_emit_N / ttrace_emit_ext (kern/include/ttrace_emit.h),
                   or ttrace_probe_fire when a probe is attached; an event
                   marked probe=ttrace_sp_NAME first calls that static probe
                   (kern/include/ttrace_static_probes.h) inline and records
                   only if it returns true; without it compiles to nothing;
  ttrace_events.c  the metadata table (ttrace_meta_builtin), in names
                   (TTRACE_ARG_U32, TTRACE_AUX_SYSCALL_NAME...), not numbers.

The metadata blob (ttrace_meta_blob) is not made here: build/tools/ttmetablob
(tools/ttmetablob.c) serialises the table with the kernel's own
ttrace_meta_serialise(), so there is one serialiser. The numbers and limits
this script checks against (argument types, aux tags, TTRACE_MAX_ARGS,
TTRACE_META_MAX_*) are read from kern/trace/lib/ttrace_format.h, the one place
that says them; this file keeps only the events file's spelling of them.

The syntax is described at the top of kern/trace/ttrace.events and in
docs/trace-format.md. Errors name file:line and exit with status 1.
Python 3 standard library only.
"""

import os
import re
import sys

FORMAT_H = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "kern", "trace", "lib", "ttrace_format.h")

# The events file's type names: C parameter type, widening to uint64_t. The
# enum member is TTRACE_ARG_ + the name in capitals (ttrace_format.h).
TYPES = {
    "u8": ("uint8_t", "(uint64_t)%s"),
    "u16": ("uint16_t", "(uint64_t)%s"),
    "u32": ("uint32_t", "(uint64_t)%s"),
    "u64": ("uint64_t", "(uint64_t)%s"),
    "s8": ("int8_t", "(uint64_t)(int64_t)%s"),
    "s16": ("int16_t", "(uint64_t)(int64_t)%s"),
    "s32": ("int32_t", "(uint64_t)(int64_t)%s"),
    "s64": ("int64_t", "(uint64_t)%s"),
    "ptr": ("const void *", "(uint64_t)(uintptr_t)%s"),
    "bool": ("bool", "(uint64_t)%s"),
}
STR_TYPE = "TTRACE_ARG_STR"


def read_format_h(path):
    """The integer #defines and enum members of ttrace_format.h, by name.
    A #define whose value is an expression of earlier ones is evaluated."""
    with open(path, encoding="ascii") as f:
        text = f.read().replace("\\\n", " ")
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    names = {}
    for m in re.finditer(r"^#define\s+(TTRACE_\w+)\s+([^\n]+)$", text, re.M):
        expr = re.sub(r"(?<=\d)U?L*L?\b", "", m.group(2).strip())
        if re.fullmatch(r"[\w\s()+*-]+", expr):
            try:
                names[m.group(1)] = int(eval(expr, {"__builtins__": {}},
                                             dict(names)))
            except (NameError, SyntaxError, TypeError):
                pass
    for body in re.findall(r"enum\s+\w+\s*\{(.*?)\}", text, re.S):
        for m in re.finditer(r"(\w+)\s*=\s*(\d+)", body):
            names[m.group(1)] = int(m.group(2))
    return names


def read_aux_tags(path):
    """str:TAG in the events file: {short name: enum member}, from the one
    list of aux tags, ttrace_format.h's TTRACE_AUX_TAGS(X) lines
    X(NAME, value, short name)."""
    with open(path, encoding="ascii") as f:
        text = f.read().replace("\\\n", " ")
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    m = re.search(r"^#define\s+TTRACE_AUX_TAGS\(X\)(.*)$", text, re.M)
    tags = re.findall(r"X\((\w+),\s*\d+,\s*(\w+)\)", m.group(1) if m else "")
    assert tags, "%s: no TTRACE_AUX_TAGS(X) list" % path
    return {short: "TTRACE_AUX_" + name for name, short in tags}


FORMAT = read_format_h(FORMAT_H)
MAX_ARGS = FORMAT["TTRACE_MAX_ARGS"]
MAX_EVENTS = FORMAT["TTRACE_META_MAX_EVENTS"]
MAX_GROUPS = FORMAT["TTRACE_META_MAX_GROUPS"]
MAX_NAME = FORMAT["TTRACE_META_MAX_NAME"]
MAX_FORMAT = FORMAT["TTRACE_META_MAX_FORMAT"]
AUX_TAGS = read_aux_tags(FORMAT_H)
for _name in [STR_TYPE] + ["TTRACE_ARG_" + t.upper() for t in TYPES]:
    assert _name in FORMAT, "%s: no %s" % (FORMAT_H, _name)

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
GROUP_RE = re.compile(r"group\s+(\S+)\s+(\S+)\s+(\S+)\s*(#.*)?\Z")
RESERVE_RE = re.compile(r"reserve\s+(\S+)\s+(\S+)\s+(\d+)\s*\Z")
EVENT_RE = re.compile(
    r'(?:(disable)\s+)?(\S+)\s+([^\s(]+)\s*\(([^()]*)\)\s*"([^"]*)"'
    r'(?:\s+probe=(\S+))?\s*\Z')
CONV_RE = re.compile(
    r"%(?:%|(?P<flags>[-0# +]*)(?P<width>[0-9]{0,2})(?:\.(?P<prec>[0-9]{0,2}))?"
    r"(?P<len>hh|h|ll|l|z)?(?P<conv>[diuxXops]))")
C_KEYWORDS = set("""auto break case char const continue default do double else
    enum extern float for goto if inline int long register restrict return
    short signed sizeof static struct switch typedef union unsigned void
    volatile while bool true false""".split())
# ttrace_<event> must not collide with the tracer's own API names.
RESERVED_PREFIXES = ("emit", "armed", "is_armed", "mask", "meta", "aux", "ctl",
                     "format", "pair", "glob", "init", "ctx", "panic", "ring",
                     "event", "group", "version", "snapshot", "point")


class EventsError(Exception):
    pass


class Group:
    def __init__(self, name, bit, on):
        self.name, self.bit, self.on = name, bit, on


# The bytes of each type in a record (a str: its ident's, as a u64).
TYPE_BYTES = {"u8": 1, "s8": 1, "bool": 1, "u16": 2, "s16": 2, "u32": 4,
              "s32": 4}


class Arg:
    def __init__(self, tname, name, off=None, size=None, src=None):
        self.tname, self.name = tname, name
        self.off, self.size = off, size     # bytes in the argument words
        self.src = src      # NAME=SRC: SRC's bytes, no word of its own
        if tname.startswith("str:"):
            self.type, self.tag = STR_TYPE, AUX_TAGS[tname[4:]]
            self.ctype, self.widen = "uint64_t", "(uint64_t)%s"
        else:
            self.ctype, self.widen = TYPES[tname]
            self.type, self.tag = "TTRACE_ARG_" + tname.upper(), "0"


class Event:
    def __init__(self, group, name, args, fmt, on, probe=None, slot=None):
        self.group, self.name, self.args = group, name, args
        # placed: the emitter takes the record's words (w0, w1...), each
        # its placed arguments' bytes, ready made by the caller
        self.nwords, self.placed = place_args(args)
        self.fmt, self.on, self.probe = fmt, on, probe
        self.slot = slot    # (range name, index) for a reserved id


def check_format(fmt, args):
    """Checks fmt like ttrace_meta_check_format(); returns None or a reason."""
    if len(fmt) > MAX_FORMAT:
        return "format longer than %d" % MAX_FORMAT
    if any(c < " " or c > "~" or c in '"\\' for c in fmt):
        return "format has a character not allowed (control, quote, backslash)"
    i, argi = 0, 0
    while i < len(fmt):
        if fmt[i] != "%":
            i += 1
            continue
        m = CONV_RE.match(fmt, i)
        if not m:
            return "conversion not allowed at %r" % fmt[i:i + 8]
        i = m.end()
        if m.group(0) == "%%":
            continue
        flags, conv, ln = m.group("flags"), m.group("conv"), m.group("len")
        if len(set(flags)) != len(flags):
            return "repeated flag in %r" % m.group(0)
        if conv in "ps" and ln:
            return "length modifier with %%%s" % conv
        if ln == "z" and conv in "di":
            return "%%z%s is not allowed" % conv
        if argi >= len(args):
            return "more conversions than arguments"
        if conv == "s" and args[argi].type != STR_TYPE:
            return "%%s for argument %r, which is not str:TAG" % args[argi].name
        argi += 1
    if argi != len(args):
        return "fewer conversions than arguments"
    return None


def check_name(name, what):
    if not IDENT.match(name) or len(name) > MAX_NAME:
        raise EventsError("bad %s name %r" % (what, name))


ARG_RE = re.compile(r"(\S+)\s+([A-Za-z_]\w*)"
                    r"(?:@(\d+)(?::(\d+))?|=([A-Za-z_]\w*))?\Z")


def place_args(args):
    """Lays the arguments out in the record's words (docs/trace-format.md,
    "Packed arguments"): with no NAME@OFFSET each is a word of its own, in
    order; with one, every argument is placed (NAME@OFFSET[:SIZE], bytes
    in the argument words) or names another's bytes (NAME=SRC). Returns
    the number of words."""
    own = [a for a in args if a.src is None]
    placed = [a for a in own if a.off is not None]
    if placed and len(placed) != len(own):
        raise EventsError("either every argument is NAME@OFFSET "
                          "(or NAME=SRC) or none is")
    for i, a in enumerate(own):
        if a.off is None:
            a.off, a.size = 8 * i, 8
        if a.size is None:
            a.size = 8 if a.type == STR_TYPE else TYPE_BYTES.get(a.tname, 8)
        if a.size not in (1, 2, 4, 8) or a.off % a.size:
            raise EventsError("argument %r: size %d at %d is not 1, 2, 4 or "
                              "8 bytes aligned" % (a.name, a.size, a.off))
        if a.type != STR_TYPE and a.size < TYPE_BYTES.get(a.tname, 8):
            raise EventsError("argument %r: %s does not fit %d bytes" %
                              (a.name, a.tname, a.size))
        if a.off + a.size > 8 * MAX_ARGS:
            raise EventsError("argument %r past word %d" % (a.name, MAX_ARGS))
        for b in own[:i]:
            if a.off < b.off + b.size and b.off < a.off + a.size:
                raise EventsError("arguments %r and %r overlap" %
                                  (b.name, a.name))
    for a in args:
        if a.src is not None:
            src = [b for b in own if b.name == a.src]
            if not src:
                raise EventsError("argument %r: no argument %r of its own" %
                                  (a.name, a.src))
            a.off, a.size = src[0].off, src[0].size
    return max([(a.off + a.size + 7) // 8 for a in args] or [0]), \
        bool(placed)


def parse_args(text):
    args = []
    if not text.strip():
        return args
    for part in text.split(","):
        m = ARG_RE.match(part.strip())
        if not m:
            raise EventsError("argument %r is not 'TYPE NAME[@OFFSET[:SIZE]"
                              "|=SRC]'" % part.strip())
        tname, name, off, size, src = m.groups()
        if tname not in TYPES and not (tname.startswith("str:") and
                                       tname[4:] in AUX_TAGS):
            raise EventsError("unknown type %r" % tname)
        check_name(name, "argument")
        if name in C_KEYWORDS or name.startswith("ttrace_"):
            raise EventsError("argument name %r is reserved" % name)
        if name in [a.name for a in args]:
            raise EventsError("duplicate argument %r" % name)
        args.append(Arg(tname, name, None if off is None else int(off),
                        None if size is None else int(size), src))
    if len(args) > MAX_ARGS:
        raise EventsError("more than %d arguments" % MAX_ARGS)
    return args


def parse_group(m, groups):
    name, bit, state = m.group(1), m.group(2), m.group(3)
    check_name(name, "group")
    if not bit.isdigit() or int(bit) >= MAX_GROUPS:
        raise EventsError("group bit must be 0..%d, not %r" %
                          (MAX_GROUPS - 1, bit))
    if state not in ("on", "off"):
        raise EventsError("group state must be on or off, not %r" % state)
    if any(g.name == name or g.bit == int(bit) for g in groups.values()):
        raise EventsError("duplicate group name or bit: %s %s" % (name, bit))
    groups[name] = Group(name, int(bit), state == "on")


def parse_event(m, groups, events):
    disable, gname, name, argtext, fmt, probe = m.groups()
    if gname not in groups:
        raise EventsError("undeclared group %r" % gname)
    check_name(name, "event")
    if any(name == p or name.startswith(p + "_") for p in RESERVED_PREFIXES):
        raise EventsError("event name %r clashes with the ttrace API" % name)
    if any(e.name == name for e in events):
        raise EventsError("duplicate event %r" % name)
    args = parse_args(argtext)
    why = check_format(fmt, args)
    if why:
        raise EventsError("event %s: %s" % (name, why))
    if probe is not None and (not IDENT.match(probe) or
                              not probe.startswith("ttrace_sp_")):
        raise EventsError("static probe %r: want probe=ttrace_sp_NAME" % probe)
    events.append(Event(groups[gname], name, args, fmt, not disable, probe))


def parse_reserve(m, groups, events, ranges):
    """reserve GROUP NAME COUNT: COUNT ids NAME0.. for events defined at run
    time (fprobes), placeholders without arguments until then."""
    gname, name, count = m.group(1), m.group(2), int(m.group(3))
    if gname not in groups:
        raise EventsError("undeclared group %r" % gname)
    check_name(name, "range")
    if not 1 <= count <= 64 or name in ranges:
        raise EventsError("bad or duplicate range %s %d" % (name, count))
    ranges[name] = (len(events), count)
    for i in range(count):
        parse_event(EVENT_RE.match('disable %s %s%d() ""' % (gname, name, i)),
                    groups, events)
        events[-1].slot = (name, i)


def parse(path):
    groups, events, ranges = {}, [], {}
    with open(path, encoding="ascii") as f:
        lines = f.read().split("\n")
    for lineno, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            m = GROUP_RE.match(line)
            if line.startswith("group ") and m:
                parse_group(m, groups)
                continue
            m = RESERVE_RE.match(line)
            if line.startswith("reserve ") and m:
                parse_reserve(m, groups, events, ranges)
                continue
            m = EVENT_RE.match(line)
            if not m:
                raise EventsError("cannot parse line")
            parse_event(m, groups, events)
        except EventsError as e:
            raise EventsError("%s:%d: %s" % (path, lineno, e))
    if not events:
        raise EventsError("%s: no events" % path)
    if len(events) > MAX_EVENTS:
        raise EventsError("%s: more than %d events" % (path, MAX_EVENTS))
    return list(groups.values()), events, ranges


# ---- C output -------------------------------------------------------------

HEADER = "/* Generated by tools/gen_events.py from %s: do not edit. */\n"


def wrap_call(head, items, tail):
    """head + items joined by ', ' + tail, wrapped at 80 columns."""
    lines, cur = [], head
    for i, item in enumerate(items):
        piece = item + (", " if i + 1 < len(items) else tail)
        if len(cur) + len(piece.rstrip()) > 79 and cur.strip() != head.strip():
            lines.append(cur.rstrip())
            cur = "\t"
        cur += piece
    lines.append(cur)
    return lines


def args_array(words, indent):
    """The argument words as a local array (for the probes, and for
    ttrace_emit_ext, which the kernel inlines)."""
    out = [indent + "const uint64_t ttrace_args_[%d] = {" % len(words)]
    out += [indent + "\t%s," % w for w in words]
    return out + [indent + "};"]


def probe_fire(cid, words, indent):
    """The call of an armed event's probes (ttrace_probe_fire)."""
    if not words:
        return [indent + "ttrace_probe_fire(%s, NULL, 0);" % cid]
    return args_array(words, indent) + [
        indent + "ttrace_probe_fire(%s, ttrace_args_, %d);" % (cid, len(words))]


def emitter(e):
    cid = "TTRACE_EV_" + e.name.upper()
    if e.placed:
        if e.probe:
            raise EventsError("event %s: a static probe takes arguments, "
                              "not placed words" % e.name)
        names = ["w%d" % k for k in range(e.nwords)]
        params = ["uint64_t " + n for n in names] or ["void"]
        words = names
    else:
        own = [a for a in e.args if a.src is None]
        names = [a.name for a in own]
        params = [a.ctype + ("" if a.ctype.endswith("*") else " ") + a.name
                  for a in own] or ["void"]
        words = [a.widen % a.name for a in own]
    # ttrace_emit_at_NAME: the event at a site in a known state (a lazy
    # site's, TTRACE_LAZY); ttrace_NAME: at its own site
    out = wrap_call("static __always_inline void ttrace_emit_at_%s(" % e.name,
                    ["int ttrace_site_"] + params[:len(names)], ")")
    out.append("{")
    out.append("#ifdef CONFIG_TTRACE")
    out.append("\tif (unlikely(ttrace_site_ != TTRACE_SITE_OFF)) {")
    if e.probe:     # a static probe, inline: false drops the record
        out += wrap_call("\t\tif (!%s(" % e.probe, names or [""], "))")
        out.append("\t\t\treturn;")
    if len(words) <= 5:
        out.append("\t\tif (likely(ttrace_site_ == TTRACE_SITE_RECORD)) {")
        call = wrap_call("\t\t\tttrace_emit_%d(" % len(words), [cid] + words,
                         ");")
        out += [call[0]] + ["\t\t\t\t" + c.lstrip() for c in call[1:]]
        out.append("\t\t} else {")
        out += probe_fire(cid, words, "\t\t\t")
        out.append("\t\t}")
    else:   # the record's array never escapes: its words become stores
        out.append("\t\tif (likely(ttrace_site_ == TTRACE_SITE_RECORD)) {")
        out += args_array(words, "\t\t\t")
        out.append("\t\t\tttrace_emit_ext(%s, ttrace_args_, %d);" %
                   (cid, len(words)))
        out.append("\t\t} else {")
        out += probe_fire(cid, words, "\t\t\t")
        out.append("\t\t}")
    out.append("\t}")
    out.append("#else")
    voids = ["\t(void)%s;" % n for n in names]
    out += ["\t(void)ttrace_site_;"] + voids
    out.append("#endif")
    out.append("}")
    out.append("")
    out += wrap_call("static __always_inline void ttrace_%s(" % e.name,
                     params, ")")
    out.append("{")
    out.append("#ifdef CONFIG_TTRACE")
    out += wrap_call("\tttrace_emit_at_%s(" % e.name,
                     ["ttrace_site_state(%s)" % cid] + names, ");")
    out.append("#else")
    out += voids
    out.append("#endif")
    out.append("}")
    return "\n".join(out) + "\n"


def gen_header(src, groups, events, ranges):
    default = 0
    for g in groups:
        if g.on:
            default |= 1 << g.bit
    out = [HEADER % src, "#ifndef TTRACE_EVENTS_H", "#define TTRACE_EVENTS_H",
           "", "#include <compiler.h>", "#include <ttrace_meta.h>",
           "#ifdef CONFIG_TTRACE", "#include <ttrace_emit.h>",
           "#include <ttrace_static_probes.h>", "#else",
           "/* ttrace_emit.h's TTRACE_LAZY: emit is compiled (its",
           " * arguments stay used) but never run; its emitter is empty. */",
           "#define TTRACE_LAZY(id, site, emit) \\",
           "\tdo { if (0) { const int site = 0; emit; } } while (0)",
           "#endif", "",
           "/* Group bits in the group mask. */", "enum ttrace_group_bit {"]
    out += ["\tTTRACE_GROUP_%s = %d," % (g.name.upper(), g.bit) for g in groups]
    out += ["};", "", "#define TTRACE_NUM_GROUPS %d" % len(groups),
            "#define TTRACE_GROUP_MASK_DEFAULT 0x%xULL" % default, "",
            "/* Event ids: indices into ttrace_event_table. */",
            "enum ttrace_event_id {"]
    out += ["\tTTRACE_EV_%s = %d," % (e.name.upper(), i)
            for i, e in enumerate(events)]
    out += ["\tTTRACE_NUM_EVENTS = %d," % len(events), "};", ""]
    for name, (first, count) in sorted(ranges.items()):
        out += ["/* Ids reserved for events defined at run time. */",
                "#define TTRACE_EV_%s_FIRST %d" % (name.upper(), first),
                "#define TTRACE_EV_%s_COUNT %d" % (name.upper(), count), ""]
    out += [
            "extern const struct ttrace_event_meta "
            "ttrace_event_table[TTRACE_NUM_EVENTS];",
            "extern const struct ttrace_group_meta "
            "ttrace_group_table[TTRACE_NUM_GROUPS];",
            "extern const struct ttrace_meta_table ttrace_meta_builtin;",
            "/* ttrace_meta_builtin serialised (build/gen/ttrace_meta_blob.c,",
            " * made by tools/ttmetablob.c). */",
            "extern const uint8_t ttrace_meta_blob[];",
            "extern const uint32_t ttrace_meta_blob_size;", "",
            "/* Emitters: nothing at all without CONFIG_TTRACE. */", ""]
    text = "\n".join(out) + "\n"
    text += "\n".join(emitter(e) for e in events if not e.slot)
    return text + "\n#endif /* TTRACE_EVENTS_H */\n"


def c_string(s):
    return '"' + s + '"'     # check_format() allows no quote or backslash


def gen_source(src, groups, events):
    out = [HEADER % src, "#include <ttrace_meta.h>",
           "#include <ttrace_events.h>", ""]
    for e in events:
        if not e.args:
            continue
        out.append("static const struct ttrace_arg_meta ttrace_args_%s[] = {"
                   % e.name)
        out += ['\t{ "%s", %s, %s, %d, %d },' % (a.name, a.type, a.tag, a.off,
                                                 a.size) for a in e.args]
        out += ["};", ""]
    out.append("const struct ttrace_event_meta "
               "ttrace_event_table[TTRACE_NUM_EVENTS] = {")
    for e in events:
        cid = "TTRACE_EV_" + e.name.upper()
        args = "ttrace_args_" + e.name if e.args else "NULL"
        out += ["\t[%s] = {" % cid,
                '\t\t.name = "%s",' % e.name,
                "\t\t.format = %s," % c_string(e.fmt),
                "\t\t.args = %s," % args,
                "\t\t.id = %s," % cid,
                "\t\t.group = TTRACE_GROUP_%s," % e.group.name.upper(),
                "\t\t.flags = %s," % ("TTRACE_EVF_DEFAULT_ON" if e.on else "0"),
                "\t\t.nargs = %d," % len(e.args), "\t},"]
    out += ["};", "", "const struct ttrace_group_meta "
            "ttrace_group_table[TTRACE_NUM_GROUPS] = {"]
    out += ['\t{ "%s", TTRACE_GROUP_%s, %s },' % (
        g.name, g.name.upper(), "TTRACE_EVF_DEFAULT_ON" if g.on else "0")
        for g in groups]
    out += ["};", "", "const struct ttrace_meta_table ttrace_meta_builtin = {",
            "\t.events = ttrace_event_table,", "\t.groups = ttrace_group_table,",
            "\t.nevents = TTRACE_NUM_EVENTS,", "\t.ngroups = TTRACE_NUM_GROUPS,",
            "};", ""]
    return "\n".join(out)


def write_if_changed(path, text):
    try:
        with open(path, encoding="ascii") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="ascii") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: gen_events.py EVENTS_FILE OUTDIR\n")
        return 2
    src, outdir = argv[1], argv[2]
    try:
        groups, events, ranges = parse(src)
    except (EventsError, OSError, UnicodeDecodeError) as e:
        sys.stderr.write("gen_events: %s\n" % e)
        return 1
    os.makedirs(outdir, exist_ok=True)
    write_if_changed(os.path.join(outdir, "ttrace_events.h"),
                     gen_header(src, groups, events, ranges))
    write_if_changed(os.path.join(outdir, "ttrace_events.c"),
                     gen_source(src, groups, events))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
