/*
 * Host tests for kern/lib/path.c: cleaning against a current directory,
 * the limits (NAME_MAX components, the output size), "#device" roots, and
 * the helpers the mount table uses (path_under, path_split, path_elem).
 * Inputs are copied into malloc'd buffers of exactly their size so
 * AddressSanitizer catches any read past a NUL.
 */
#include <stdlib.h>
#include <string.h>

#include "htest.h"
#include <path.h>

#define T_NAME_MAX	63	/* abi/syscall.h's NAME_MAX */
#define T_PATH_MAX	256

static char *dup_exact(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	memcpy(d, s, n);
	return d;
}

/* Cleans path against cwd into a size-byte buffer; returns the result, or
 * "<err N>" for -N. */
static const char *clean(const char *cwd, const char *path, size_t size)
{
	static char result[1024];
	char *c = dup_exact(cwd), *p = dup_exact(path), *out = malloc(size);
	long r = path_clean(out, size, c, p);

	if (r < 0)
		snprintf(result, sizeof(result), "<err %ld>", -r);
	else if ((size_t)r != strlen(out))
		snprintf(result, sizeof(result), "<bad length %ld>", r);
	else
		snprintf(result, sizeof(result), "%s", out);
	free(out);
	free(p);
	free(c);
	return result;
}

#define CHECK_CLEAN(cwd, path, want)                                       \
	do {                                                               \
		const char *got_ = clean(cwd, path, T_PATH_MAX);           \
		if (strcmp(got_, want) != 0)                               \
			HT_FAIL("clean('%s', '%s') = '%s', want '%s'",     \
				cwd, path, got_, want);                    \
	} while (0)

static int test_absolute(void)
{
	CHECK_CLEAN("/", "/", "/");
	CHECK_CLEAN("/", "///", "/");
	CHECK_CLEAN("/", "/tmp", "/tmp");
	CHECK_CLEAN("/", "/tmp/", "/tmp");
	CHECK_CLEAN("/", "//tmp//a///b/", "/tmp/a/b");
	CHECK_CLEAN("/", "/./tmp/./a/.", "/tmp/a");
	CHECK_CLEAN("/", "/tmp/a/../b", "/tmp/b");
	CHECK_CLEAN("/", "/..", "/");
	CHECK_CLEAN("/", "/../../tmp/..", "/");
	CHECK_CLEAN("/", "/tmp/..x/.y", "/tmp/..x/.y");
	CHECK_CLEAN("/", "/a/b/c/../../d", "/a/d");
	CHECK_CLEAN("/ignored", "/x", "/x");
	return 0;
}

static int test_relative(void)
{
	CHECK_CLEAN("/", "tmp", "/tmp");
	CHECK_CLEAN("/tmp", "x", "/tmp/x");
	CHECK_CLEAN("/tmp", ".", "/tmp");
	CHECK_CLEAN("/tmp", "..", "/");
	CHECK_CLEAN("/tmp/a", "../../../b", "/b");
	CHECK_CLEAN("/tmp", "./a//b/", "/tmp/a/b");
	CHECK_CLEAN("#c", "cons", "#c/cons");
	CHECK_CLEAN("#c", "..", "#c");
	CHECK_CLEAN("", "x", "/x");
	return 0;
}

static int test_device_roots(void)
{
	CHECK_CLEAN("/", "#c", "#c");
	CHECK_CLEAN("/", "#c/", "#c");
	CHECK_CLEAN("/", "#c/cons", "#c/cons");
	CHECK_CLEAN("/", "#ttrace/./ctl/../data", "#ttrace/data");
	CHECK_CLEAN("/", "#c/../../x", "#c/x");
	CHECK_CLEAN("/", "#", "<err 2>");
	CHECK_CLEAN("/", "#/x", "<err 2>");
	CHECK_CLEAN("/", "", "<err 2>");
	CHECK_CLEAN("/tmp", "", "<err 2>");
	return 0;
}

static int test_limits(void)
{
	char name[T_NAME_MAX + 2], path[2 * T_PATH_MAX];
	const char *got;

	memset(name, 'n', sizeof(name) - 1);
	name[T_NAME_MAX] = 0;
	snprintf(path, sizeof(path), "/tmp/%s", name);
	HT_CHECK(strcmp(clean("/", path, T_PATH_MAX), path) == 0);
	name[T_NAME_MAX] = 'n';
	name[T_NAME_MAX + 1] = 0;
	snprintf(path, sizeof(path), "/tmp/%s", name);
	HT_CHECK(strcmp(clean("/", path, T_PATH_MAX), "<err 36>") == 0);
	/* A long component is refused even if ".." would remove it. */
	snprintf(path, sizeof(path), "/tmp/%s/..", name);
	HT_CHECK(strcmp(clean("/", path, T_PATH_MAX), "<err 36>") == 0);
	snprintf(path, sizeof(path), "#%s", name);
	HT_CHECK(strcmp(clean("/", path, T_PATH_MAX), "<err 36>") == 0);
	/* The result must fit with its NUL: "/abc" needs 5 bytes. */
	HT_CHECK(strcmp(clean("/", "/abc", 5), "/abc") == 0);
	HT_CHECK(strcmp(clean("/", "/abc", 4), "<err 36>") == 0);
	HT_CHECK(strcmp(clean("/", "/", 2), "/") == 0);
	HT_CHECK(strcmp(clean("/", "/", 1), "<err 36>") == 0);
	/* Every step must fit, the cwd's components included. */
	HT_CHECK(strcmp(clean("/abcdef", "..", 2), "<err 36>") == 0);
	HT_CHECK(strcmp(clean("/abcdef", "..", 8), "/") == 0);
	/* 60 components of 4 bytes: 240 fit in 512, not in 200. */
	memset(path, 0, sizeof(path));
	for (int i = 0; i < 60; i++)
		strcat(path, "/abc");
	got = clean("/", path, sizeof(path));
	HT_CHECK(strlen(got) == 240);
	HT_CHECK(strcmp(clean("/", path, 200), "<err 36>") == 0);
	return 0;
}

static int test_under(void)
{
	HT_CHECK(strcmp(path_under("/", "/tmp/a"), "tmp/a") == 0);
	HT_CHECK(strcmp(path_under("/", "/"), "") == 0);
	HT_CHECK(path_under("/", "#c") == NULL);
	HT_CHECK(strcmp(path_under("/tmp", "/tmp"), "") == 0);
	HT_CHECK(strcmp(path_under("/tmp", "/tmp/a/b"), "/a/b") == 0);
	HT_CHECK(path_under("/tmp", "/tmpx") == NULL);
	HT_CHECK(path_under("/tmp", "/tm") == NULL);
	HT_CHECK(path_under("/tmp/a", "/tmp") == NULL);
	HT_CHECK(strcmp(path_under("#c", "#c/cons"), "/cons") == 0);
	HT_CHECK(path_under("#c", "#cons") == NULL);
	return 0;
}

static int test_split(void)
{
	char parent[T_PATH_MAX], name[T_NAME_MAX + 1];

	HT_CHECK(path_split("/tmp/a", parent, sizeof(parent), name) == 0);
	HT_CHECK(strcmp(parent, "/tmp") == 0 && strcmp(name, "a") == 0);
	HT_CHECK(path_split("/tmp", parent, sizeof(parent), name) == 0);
	HT_CHECK(strcmp(parent, "/") == 0 && strcmp(name, "tmp") == 0);
	HT_CHECK(path_split("#c/cons", parent, sizeof(parent), name) == 0);
	HT_CHECK(strcmp(parent, "#c") == 0 && strcmp(name, "cons") == 0);
	HT_CHECK(path_split("/", parent, sizeof(parent), name) == -22);
	HT_CHECK(path_split("#c", parent, sizeof(parent), name) == -22);
	HT_CHECK(path_split("/tmp/a", parent, 4, name) == -36);
	return 0;
}

static int test_elem_root(void)
{
	const char *p = "/bin/ls/x";
	char name[T_NAME_MAX + 1];

	HT_CHECK(path_root_len("/bin") == 1);
	HT_CHECK(path_root_len("#c/cons") == 2);
	HT_CHECK(path_root_len("#ttrace") == 7);
	p += path_root_len(p);
	HT_CHECK(path_elem(&p, name) && strcmp(name, "bin") == 0);
	HT_CHECK(path_elem(&p, name) && strcmp(name, "ls") == 0);
	HT_CHECK(path_elem(&p, name) && strcmp(name, "x") == 0);
	HT_CHECK(!path_elem(&p, name) && !path_elem(&p, name));
	p = "";
	HT_CHECK(!path_elem(&p, name));
	p = "/a";
	HT_CHECK(path_elem(&p, name) && strcmp(name, "a") == 0);
	return 0;
}

static const struct ht_test tests[] = {
	{ test_absolute, "path_absolute" },
	{ test_relative, "path_relative" },
	{ test_device_roots, "path_device_roots" },
	{ test_limits, "path_limits" },
	{ test_under, "path_under" },
	{ test_split, "path_split" },
	{ test_elem_root, "path_elem_root" },
	{ 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
