"""CRC-32C (Castagnoli, reflected 0x82F63B78), the trace file's CRC
(docs/trace-file.md "CRC-32C"), for the scripts and tests that check what
the kernel and the tools print: crc32c(data[, crc]) chains like
zlib.crc32. `python3 scripts/crc32c.py FILE...` prints each file's."""
import sys

_POLY = 0x82F63B78


def _table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (_POLY if c & 1 else 0)
        t.append(c)
    return t


_T = _table()


def crc32c(data, crc=0):
    """The CRC-32C of data, continuing crc (0 to start)."""
    c, t = crc ^ 0xFFFFFFFF, _T
    for b in data:
        c = (c >> 8) ^ t[(c ^ b) & 0xFF]
    return c ^ 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283   # the check value

if __name__ == "__main__":
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            print("%s: crc32c 0x%08x" % (path, crc32c(f.read())))
