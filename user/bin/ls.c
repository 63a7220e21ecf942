/*
 * ls: list directories, or name files.
 *
 *	ls [-l] [PATH...]	default "."; -l adds mode and size
 *
 * A directory is read with open() and readdir(), whose entries carry mode
 * and size, so -l needs no stat per entry. Entries come in the order the
 * file system keeps them. With several PATHs, each directory's listing is
 * headed "PATH:".
 */
#include <dirent.h>
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static int long_format;

/* Prints one entry: its name, or with -l "drwxr-xr-x     SIZE NAME". */
static void print_entry(const char *name, uint32_t mode, uint64_t size)
{
	static const char rwx[] = "rwxrwxrwx";
	char modes[11];

	if (!long_format) {
		printf("%s\n", name);
		return;
	}
	modes[0] = S_ISDIR(mode) ? 'd' : S_ISCHR(mode) ? 'c' :
		S_ISFIFO(mode) ? 'p' : '-';
	for (int i = 0; i < 9; i++)
		modes[i + 1] = mode & (0400u >> i) ? rwx[i] : '-';
	modes[10] = 0;
	printf("%s %8llu %s\n", modes, (unsigned long long)size, name);
}

/* Lists the directory open on fd. Returns 0, or -1 after reporting. */
static int list_dir(int fd, const char *path)
{
	struct dirent ents[16];
	int n;

	while ((n = readdir(fd, ents, 16)) > 0)
		for (int i = 0; i < n; i++)
			print_entry(ents[i].name, ents[i].mode, ents[i].size);
	if (n < 0) {
		warn("%s", path);
		return -1;
	}
	return 0;
}

/* Lists path (headed by its name if header). Returns 0, or -1 after
 * reporting. */
static int list(const char *path, int header)
{
	struct stat st;
	int fd, r;

	if (stat(path, &st) < 0) {
		warn("%s", path);
		return -1;
	}
	if (!S_ISDIR(st.mode)) {
		print_entry(path, st.mode, st.size);
		return 0;
	}
	if ((fd = open(path, O_RDONLY)) < 0) {
		warn("%s", path);
		return -1;
	}
	if (header)
		printf("%s:\n", path);
	r = list_dir(fd, path);
	close(fd);
	return r;
}

int main(int argc, char **argv)
{
	int c, status = 0;

	while ((c = getopt(argc, argv, "l")) != -1) {
		if (c != 'l') {
			fprintf(stderr, "usage: ls [-l] [PATH...]\n");
			return 1;
		}
		long_format = 1;
	}
	if (optind == argc)
		return list(".", 0) < 0;
	for (int i = optind; i < argc; i++)
		if (list(argv[i], argc - optind > 1) < 0)
			status = 1;
	return status;
}
