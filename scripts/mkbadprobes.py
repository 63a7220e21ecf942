#!/usr/bin/env python3
"""Writes bad probe modules for the tests, each a copy of a good one
(build/probes/syscount.o) with one fault, so each kind of refusal is seen:

    mkbadprobes.py GOOD.o OUTDIR

  bad_machine.o   e_machine is EM_386 (3)
  bad_trunc.o     cut in the middle of its sections
  bad_reloctype.o the first relocation of .rela.text has type 99
  bad_relocoff.o  the first relocation of .rela.text points past .text
  bad_symvalue.o  probe_init's value lies 0x30 past the end of its section
  bad_strtab0.o   the symbol table names section 0 as its string table,
                  and section 0 claims to be one, 4 KiB at 1 TiB

The unknown-symbol case is compiled from tests/probes/unknown_sym.c.
Python 3 standard library only.
"""
import os
import struct
import sys


def sections(data):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shnum, shstrndx = struct.unpack_from("<HH", data, 0x3c)
    secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + 64 * i)
            for i in range(shnum)]
    strtab = secs[shstrndx]
    names = [data[strtab[4] + s[0]:data.index(b"\0", strtab[4] + s[0])]
             for s in secs]
    return secs, names


def first_text_rela(data):
    secs, names = sections(data)
    for s, n in zip(secs, names):
        if n == b".rela.text" and s[5] >= 24:
            return s[4], secs[s[7]][5]   # offset of the first rela, .text size
    sys.exit("mkbadprobes: no .rela.text in the good object")


def symtab(data):
    """(symtab header offset, symtab section, its string table section)."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    secs, _ = sections(data)
    for i, s in enumerate(secs):
        if s[1] == 2:
            return shoff + 64 * i, s, secs[s[6]]
    sys.exit("mkbadprobes: no symbol table in the good object")


def sym_value_out(data):
    """A copy whose probe_init lies 0x30 past the end of its section."""
    out = bytearray(data)
    _, st, strtab = symtab(data)
    secs, _ = sections(data)
    for off in range(st[4], st[4] + st[5], 24):
        name, _, _, shndx = struct.unpack_from("<IBBH", data, off)
        end = data.index(b"\0", strtab[4] + name)
        if data[strtab[4] + name:end] == b"probe_init":
            struct.pack_into("<Q", out, off + 8, secs[shndx][5] + 0x30)
            return out
    sys.exit("mkbadprobes: no probe_init in the good object")


def strtab_zero(data):
    """A copy whose symbol table links to section 0, which claims to be a
    string table of 4 KiB at 1 TiB."""
    out = bytearray(data)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    hdr, _, _ = symtab(data)
    struct.pack_into("<I", out, shoff + 4, 3)                 # sh_type
    struct.pack_into("<QQ", out, shoff + 24, 1 << 40, 4096)   # offset, size
    struct.pack_into("<I", out, hdr + 40, 0)                  # sh_link
    return out


def main():
    good, out = sys.argv[1], sys.argv[2]
    data = bytearray(open(good, "rb").read())
    os.makedirs(out, exist_ok=True)
    bad = {}
    m = bytearray(data)
    struct.pack_into("<H", m, 0x12, 3)
    bad["bad_machine.o"] = m
    secs, _ = sections(data)
    bad["bad_trunc.o"] = data[:max(s[4] + s[5] for s in secs if s[1] != 8) // 2]
    rela, text_size = first_text_rela(data)
    t = bytearray(data)
    info, = struct.unpack_from("<Q", t, rela + 8)
    struct.pack_into("<Q", t, rela + 8, (info & ~0xffffffff) | 99)
    bad["bad_reloctype.o"] = t
    o = bytearray(data)
    struct.pack_into("<Q", o, rela, text_size + 64)
    bad["bad_relocoff.o"] = o
    bad["bad_symvalue.o"] = sym_value_out(data)
    bad["bad_strtab0.o"] = strtab_zero(data)
    for name, b in bad.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(b)


if __name__ == "__main__":
    main()
