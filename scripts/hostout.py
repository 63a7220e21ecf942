#!/usr/bin/env python3
"""Usage: hostout.py WINDOW OUT

Cuts what the guest wrote to /dev/host/out out of the shared-memory window
file QEMU's ivshmem device was backed by into OUT. The window's layout (a
header {magic "THOSTOUT", u64 length} in the first page, the bytes from
HOSTOUT_DATA_OFFSET) is read from arch/x86_64/include/arch/hostout.h, the
one description of it, which the kernel compiles. Exits 1 if the window
was never set up by a guest, 2 if the header cannot be read.
"""
import os
import re
import struct
import sys

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                      "arch", "x86_64", "include", "arch", "hostout.h")


def layout(path=HEADER):
    """(magic, data offset, struct format, field names) from hostout.h."""
    with open(path, encoding="ascii") as f:
        text = f.read()
    magic = re.search(r"^#define\s+HOSTOUT_MAGIC\s+(0x[0-9a-fA-F]+)u?l*\b",
                      text, re.M | re.I)
    data = re.search(r"^#define\s+HOSTOUT_DATA_OFFSET\s+(\d+)\b", text, re.M)
    body = re.search(r"struct\s+hostout_header\s*\{(.*?)\};", text, re.S)
    fields = re.findall(r"^\s*uint64_t\s+(\w+);",
                        body.group(1) if body else "", re.M)
    if not (magic and data and "magic" in fields and "length" in fields):
        raise ValueError("%s: no HOSTOUT_MAGIC, HOSTOUT_DATA_OFFSET or "
                         "struct hostout_header {magic, length}" % path)
    return int(magic.group(1), 16), int(data.group(1)), \
        "<" + "Q" * len(fields), fields


def main():
    window, out = sys.argv[1], sys.argv[2]
    try:
        magic, data, fmt, fields = layout()
    except (OSError, ValueError) as e:
        print("hostout: %s" % e, file=sys.stderr)
        return 2
    with open(window, "rb") as f:
        size = struct.calcsize(fmt)
        hdr = dict(zip(fields, struct.unpack(fmt, f.read(size))))
        if hdr["magic"] != magic:
            print("hostout: %s: the guest never opened the channel" % window,
                  file=sys.stderr)
            open(out, "wb").close()
            return 1
        f.seek(data)
        data = f.read(hdr["length"])
    with open(out, "wb") as f:
        f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
