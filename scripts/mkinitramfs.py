#!/usr/bin/env python3
"""Writes the initramfs: a cpio archive in the "newc" format.

    mkinitramfs.py OUT.cpio NAME=FILE...

Each NAME=FILE puts host file FILE into the archive as NAME (a path
without a leading slash, e.g. bin/sh=build/user/sh). Directories the names
imply get entries of their own, and the archive always has dev, proc and
tmp, the mount points the kernel's name space uses (kern/src/ns.c). Files
keep their executable bit; owners, times and inode numbers are fixed, so the
same inputs give the same bytes. Only the standard library is used, so the
build needs no cpio tool. kern/lib/cpio_newc.c reads the result.
"""
import os
import stat
import sys

MOUNT_POINTS = ("dev", "proc", "tmp")


def entry(name, mode, data, ino):
    """Returns one newc entry: header, name, data, each padded to 4."""
    fields = (ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name) + 1, 0)
    out = b"070701" + b"".join(b"%08x" % f for f in fields)
    out += name.encode() + b"\0"
    out += b"\0" * (-len(out) % 4)
    out += data + b"\0" * (-len(data) % 4)
    return out


def parse(args):
    """Returns {name: host file} from NAME=FILE arguments."""
    files = {}
    for arg in args:
        name, sep, path = arg.partition("=")
        name = name.strip("/")
        if not sep or not name or ".." in name.split("/"):
            sys.exit("mkinitramfs: bad argument %r (want NAME=FILE)" % arg)
        files[name] = path
    return files


def directories(names):
    """Returns every directory the names imply, parents first."""
    dirs = set(MOUNT_POINTS)
    for name in names:
        parts = name.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    return sorted(dirs, key=lambda d: (d.count("/"), d))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    files = parse(sys.argv[2:])
    out, ino = b"", 1
    for d in directories(files):
        out += entry(d, stat.S_IFDIR | 0o755, b"", ino)
        ino += 1
    for name in sorted(files):
        with open(files[name], "rb") as f:
            data = f.read()
        exe = os.stat(files[name]).st_mode & 0o111
        out += entry(name, stat.S_IFREG | (0o755 if exe else 0o644), data, ino)
        ino += 1
    out += entry("TRAILER!!!", 0, b"", 0)
    out += b"\0" * (-len(out) % 512)
    tmp = sys.argv[1] + ".tmp"
    with open(tmp, "wb") as f:
        f.write(out)
    os.replace(tmp, sys.argv[1])


if __name__ == "__main__":
    main()
