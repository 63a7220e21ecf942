#!/usr/bin/env python3
"""Usage: hostout.py WINDOW OUT

Cuts what the guest wrote to /dev/host/out out of the shared-memory window
file QEMU's ivshmem device was backed by (arch/x86_64/src/hostout.c: a
header {magic "THOSTOUT", u64 length} in the first page, the bytes from
offset 4096) into OUT. Exits 1 if the window was never set up by a guest.
"""
import struct
import sys

MAGIC = 0x54554f54534f4854
DATA = 4096


def main():
    window, out = sys.argv[1], sys.argv[2]
    with open(window, "rb") as f:
        magic, length = struct.unpack("<QQ", f.read(16))
        if magic != MAGIC:
            print("hostout: %s: the guest never opened the channel" % window,
                  file=sys.stderr)
            open(out, "wb").close()
            return 1
        f.seek(DATA)
        data = f.read(length)
    with open(out, "wb") as f:
        f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
