/* linecmd: the -n N [FILE...] command line of head and tail (linecmd.h). */
#include <err.h>
#include <fcntl.h>
#include <linecmd.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The line count given by -n's argument s, or -1 if s is not one. */
static long parse_count(const char *s)
{
	char *end;
	long n = strtol(s, &end, 10);

	return *s == 0 || *end != 0 || n < 0 ? -1 : n;
}

int linecmd_main(int argc, char **argv, const char *prog, linecmd_fn each)
{
	long nlines = 10;
	int c, status = 0;

	if (argc > 1 && argv[1][0] == '-' && parse_count(argv[1] + 1) >= 0) {
		nlines = parse_count(argv[1] + 1);	/* the old -N form */
		argv[1] = argv[0];
		argc--;
		argv++;
	}
	while ((c = getopt(argc, argv, "n:")) != -1) {
		if (c != 'n') {
			fprintf(stderr, "usage: %s [-n N] [FILE...]\n", prog);
			return 1;
		}
		if ((nlines = parse_count(optarg)) < 0) {
			fprintf(stderr, "%s: bad line count '%s'\n", prog,
				optarg);
			return 1;
		}
	}
	if (optind == argc)
		return each(STDIN_FILENO, "stdin", nlines) < 0;
	for (int i = optind; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);

		if (argc - optind > 1)
			printf("%s==> %s <==\n", i > optind ? "\n" : "", argv[i]);
		if (fd < 0) {
			warn("%s", argv[i]);
			status = 1;
			continue;
		}
		if (each(fd, argv[i], nlines) < 0)
			status = 1;
		close(fd);
	}
	return status;
}
