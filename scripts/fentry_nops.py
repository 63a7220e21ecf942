#!/usr/bin/env python3
"""fentry_nops: make every function-graph site of a linked kernel one
instruction (docs/function-graph.md), as Linux's objtool does for mcount.

    scripts/fentry_nops.py build/kernel.elf

The kernel is compiled with -fpatchable-function-entry=5: gcc starts every
traceable function with five one-byte NOPs and lists their addresses in
__patchable_function_entries (the linker script puts the list between
__fentry_sites_start and __fentry_sites_end). Five NOPs are five
instructions; this rewrites each site, in the ELF file, into the one 5-byte
NOP (0f 1f 44 00 00) that the text patcher expects, so a disabled site
costs one instruction and the running kernel's text stays byte-identical
to its image. -pg -mfentry -mnop-mcount would give the 5-byte NOP directly,
but makes every function a caller, and with frame pointers gcc then gives
leaf functions a frame they would not have (3 more instructions each).

A site that is already the 5-byte NOP is left alone (the rewrite is
idempotent); any other bytes there stop the build with the address.
Exit status 0, or 1 with a message.
"""
import os
import struct
import subprocess
import sys

NOPS = b"\x90" * 5
NOP5 = b"\x0f\x1f\x44\x00\x00"


def symbols(path, names):
    """Addresses of the named symbols, through nm."""
    out = subprocess.run([os.environ.get("NM", "nm"), path], capture_output=True, text=True,
                         check=True).stdout
    found = {}
    for line in out.splitlines():
        words = line.split()
        if len(words) == 3 and words[2] in names:
            found[words[2]] = int(words[0], 16)
    missing = [n for n in names if n not in found]
    if missing:
        sys.exit("fentry_nops: %s: no symbol %s" % (path, ", ".join(missing)))
    return found


def load_segments(elf):
    """(vaddr, file offset, file size) of each PT_LOAD program header."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2:
        sys.exit("fentry_nops: not an ELF64 file")
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    segs = []
    for i in range(phnum):
        typ, _, off, vaddr, _, filesz = struct.unpack_from(
            "<IIQQQQ", elf, phoff + i * phentsize)
        if typ == 1:
            segs.append((vaddr, off, filesz))
    return segs


def file_offset(segs, va, n):
    """The file offset of the n bytes at virtual address va."""
    for vaddr, off, filesz in segs:
        if vaddr <= va and va + n <= vaddr + filesz:
            return off + va - vaddr
    sys.exit("fentry_nops: address %#x is in no loaded segment" % va)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: fentry_nops.py KERNEL.elf")
    path = sys.argv[1]
    sym = symbols(path, ("__fentry_sites_start", "__fentry_sites_end"))
    with open(path, "r+b") as f:
        elf = bytearray(f.read())
        segs = load_segments(elf)
        start, end = sym["__fentry_sites_start"], sym["__fentry_sites_end"]
        table = file_offset(segs, start, end - start)
        for i in range(table, table + end - start, 8):
            site, = struct.unpack_from("<Q", elf, i)
            at = file_offset(segs, site, 5)
            if elf[at:at + 5] == NOPS:
                elf[at:at + 5] = NOP5
            elif elf[at:at + 5] != NOP5:
                sys.exit("fentry_nops: site %#x holds %s, not five NOPs" %
                         (site, elf[at:at + 5].hex()))
        f.seek(0)
        f.write(elf)
    return 0


if __name__ == "__main__":
    sys.exit(main())
