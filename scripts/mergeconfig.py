#!/usr/bin/env python3
"""mergeconfig.py OUT BASE FRAGMENT...: writes the configuration BASE with
each FRAGMENT's settings on top (later ones win, as Linux's
merge_config.sh) to OUT, filled in with defaults like `make defconfig`."""
import sys

import kconfiglib


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, base, fragments = sys.argv[1], sys.argv[2], sys.argv[3:]
    kconf = kconfiglib.Kconfig("Kconfig")
    kconf.warn_assign_override = False   # overriding is the point
    kconf.load_config(base)
    for f in fragments:
        kconf.load_config(f, replace=False)
    kconf.write_config(out)


if __name__ == "__main__":
    main()
