/*
 * Host tests of the ELF checks spawn makes before mapping an image
 * (kern/lib/elf_check.c), on the images kept as fuzz seeds in
 * tests/fuzz/corpus/elf/: good ones pass with the right entry and end,
 * each kind of damage is refused.
 */
#include <stdio.h>
#include <stdlib.h>

#include "htest.h"

#include <elf_check.h>
#include <abi/errno.h>

#define USER_LO		0x1000ull
#define USER_HI		(0x00007ffffff00000ull - 65536)
#define SEEDS		"tests/fuzz/corpus/elf/"

static unsigned char image[1 << 16];

/* Reads seed name into image; returns its length, or 0. */
static size_t seed(const char *name)
{
	FILE *f = fopen(name, "rb");
	size_t n;

	if (!f)
		return 0;
	n = fread(image, 1, sizeof(image), f);
	fclose(f);
	return n;
}

static int test_good(void)
{
	struct elf_info info;
	struct elf64_phdr ph;
	size_t n = seed(SEEDS "two-segments");

	HT_CHECK(n > 0);
	HT_CHECK(elf_check(image, n, USER_LO, USER_HI, &info) == 0);
	HT_CHECK(info.entry == 0x400078 && info.end == 0x403000);
	HT_CHECK(info.nload == 2 && info.phnum == 2);
	HT_CHECK(elf_phdr(image, &info, 1, &ph) && ph.flags == ELF_PF_W + 4);
	n = seed(SEEDS "true-stripped");
	HT_CHECK(n > 0 && elf_check(image, n, USER_LO, USER_HI, &info) == 0);
	/* every prefix of a good image that cuts a segment is refused */
	for (size_t cut = 0; cut < 0x84; cut++)
		HT_CHECK(elf_check(image, cut, USER_LO, USER_HI, &info) ==
			 -ENOEXEC);
	return 0;
}

static int test_bad(void)
{
	static const char *const bad[] = {
		"entry-outside", "phoff-odd", "memsz-wraps", "kernel-vaddr",
		"filesz-past-end", "class32", "not-load-only",
	};
	struct elf_info info;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char path[128];
		size_t n;

		snprintf(path, sizeof(path), SEEDS "%s", bad[i]);
		n = seed(path);
		if (n == 0 || elf_check(image, n, USER_LO, USER_HI, &info) !=
		    -ENOEXEC)
			HT_FAIL("%s: %s", bad[i], n ? "accepted" : "missing");
	}
	return 0;
}

static const struct ht_test tests[] = {
	{ test_good, "elf_check_good" },
	{ test_bad, "elf_check_bad" },
	{ 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
