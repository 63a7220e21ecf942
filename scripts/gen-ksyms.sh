#!/bin/sh
# Usage: gen-ksyms.sh KERNEL.ELF > ksyms.S
# Emits the kernel's function symbols, sorted by address, as the tables
# kern/src/ksyms.c searches: ksym_addrs[], ksym_name_offs[], ksym_names, and
# ksym_count. They live in .ksyms, after all text, so linking them in does not
# move any function.
set -e
${NM:-nm} -n "$1" | awk '
BEGIN { n = 0 }
$2 ~ /^[tTwW]$/ && $3 !~ /^\./ { addr[n] = $1; name[n] = $3; n++ }
END {
	print "\t.section .ksyms, \"a\""
	print "\t.balign 8"
	print "\t.globl ksym_count, ksym_addrs, ksym_name_offs, ksym_names"
	print "ksym_count:\n\t.quad " n
	print "ksym_addrs:"
	for (i = 0; i < n; i++) print "\t.quad 0x" addr[i]
	print "ksym_name_offs:"
	off = 0
	for (i = 0; i < n; i++) { print "\t.long " off; off += length(name[i]) + 1 }
	print "ksym_names:"
	for (i = 0; i < n; i++) print "\t.asciz \"" name[i] "\""
}'
