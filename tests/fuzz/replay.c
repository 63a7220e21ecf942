/*
 * The `make test` side of a fuzz target: main() for build/host/
 * test_fuzz_TARGET (gcc, ASan and UBSan), which feeds the target every
 * file of tests/fuzz/corpus/TARGET (the seeds) and tests/fuzz/crashes/
 * TARGET (every input that once crashed or hung it, kept as a regression)
 * and prints one result line for each directory:
 *	PASSED [fuzz_TARGET_corpus] 12 inputs
 * A crash ends the process with the sanitizer's report; the name of the
 * input being replayed is printed on stderr first. `-f FILE...` replays
 * just those (to debug one crash file); another argument runs only the
 * results whose name contains it (make test T=).
 * FUZZ_TARGET (the name) comes from the build rule in mk/fuzz.mk.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* Runs the target on the contents of path; returns 0, or -1 if it could
 * not be read. */
static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	size_t n;

	if (!f)
		return -1;
	buf = malloc(FUZZ_MAX_INPUT);
	if (!buf) {
		fclose(f);
		return -1;
	}
	n = fread(buf, 1, FUZZ_MAX_INPUT, f);
	fclose(f);
	fprintf(stderr, "replaying %s (%zu bytes)\n", path, n);
	/* a copy of exactly n bytes, so ASan sees any read past the input */
	uint8_t *in = malloc(n ? n : 1);
	if (in) {
		memcpy(in, buf, n);
		LLVMFuzzerTestOneInput(in, n);
		free(in);
	}
	free(buf);
	return in ? 0 : -1;
}

/* Replays every regular file in dir (a missing dir holds none); prints
 * the result line named name. Returns 1 if a file could not be read. */
static int replay_dir(const char *dir, const char *name, int need_some)
{
	char path[4096];
	struct dirent *d;
	DIR *dp = opendir(dir);
	int n = 0;

	for (; dp && (d = readdir(dp)); n++) {
		if (d->d_name[0] == '.') {
			n--;
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (replay_file(path) < 0) {
			printf("FAILED [%s] cannot read %s\n", name, path);
			closedir(dp);
			return 1;
		}
	}
	if (dp)
		closedir(dp);
	if (need_some && n == 0) {
		printf("FAILED [%s] no inputs in %s\n", name, dir);
		return 1;
	}
	printf("PASSED [%s] %d inputs\n", name, n);
	return 0;
}

/* Whether the result called name is wanted: argv[1], when given, is a
 * part of the names to run (as for the other host tests, make test T=). */
static int wanted(int argc, char **argv, const char *name)
{
	return argc < 2 || strstr(name, argv[1]) != NULL;
}

int main(int argc, char **argv)
{
	static const char corpus[] = "fuzz_" FUZZ_TARGET "_corpus";
	static const char crashes[] = "fuzz_" FUZZ_TARGET "_crashes";
	int failed = 0;

	if (argc > 2 && !strcmp(argv[1], "-f")) {
		for (int i = 2; i < argc; i++)
			failed |= replay_file(argv[i]) < 0;
		return failed;
	}
	if (wanted(argc, argv, corpus))
		failed |= replay_dir("tests/fuzz/corpus/" FUZZ_TARGET, corpus, 1);
	if (wanted(argc, argv, crashes))
		failed |= replay_dir("tests/fuzz/crashes/" FUZZ_TARGET, crashes,
				     0);
	return failed;
}
