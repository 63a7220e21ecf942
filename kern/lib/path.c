/*
 * Lexical path cleaning (the rules are in path.h).
 *
 * path_clean() builds the result in place in the caller's buffer: first the
 * root ("/" or "#name"), then each component of the input in turn, with
 * ".." cutting the buffer back to the previous slash. It never builds the
 * joined "cwd/path" string, so a long cwd plus a path full of ".." works
 * as long as the cleaned result fits.
 */
#include <path.h>
#include <string.h>
#include <abi/errno.h>
#include <abi/syscall.h>

/* The cleaned path being built: out[0..len), whose root is rootlen bytes. */
struct path_buf {
	char *out;
	size_t size;
	size_t len;
	size_t rootlen;
};

/* Returns the length of the component at s: up to '/' or the end. (The
 * kernel's string.h has no strcspn.) */
static size_t elem_len(const char *s)
{
	size_t n = 0;

	while (s[n] && s[n] != '/')
		n++;
	return n;
}

/* Removes the last component, if any, with the slash before it. */
static void pop_elem(struct path_buf *b)
{
	while (b->len > b->rootlen && b->out[b->len - 1] != '/')
		b->len--;
	if (b->len > b->rootlen)
		b->len--;
}

/* Appends component s (n bytes). Returns 0 or -ENAMETOOLONG. */
static int push_elem(struct path_buf *b, const char *s, size_t n)
{
	size_t slash = b->out[b->len - 1] != '/';

	if (n > NAME_MAX || b->len + slash + n + 1 > b->size)
		return -ENAMETOOLONG;
	if (slash)
		b->out[b->len++] = '/';
	memcpy(b->out + b->len, s, n);
	b->len += n;
	return 0;
}

/* Applies every component of s (rooted or not; its root must already have
 * been skipped) to b. Returns 0 or -ENAMETOOLONG. */
static int add_elems(struct path_buf *b, const char *s)
{
	while (*s) {
		size_t n = elem_len(s);
		int r = 0;

		if (n == 2 && s[0] == '.' && s[1] == '.')
			pop_elem(b);
		else if (n > 0 && !(n == 1 && s[0] == '.'))
			r = push_elem(b, s, n);
		if (r < 0)
			return r;
		s += n;
		while (*s == '/')
			s++;
	}
	return 0;
}

/* Copies the root of s into b. Returns the rest of s after the root, or
 * NULL with *err set when the root is bad or does not fit. */
static const char *set_root(struct path_buf *b, const char *s, long *err)
{
	size_t n = path_root_len(s);

	*err = -ENAMETOOLONG;
	if (s[0] == '#' && n == 1)
		*err = -ENOENT;
	if ((s[0] == '#' && (n == 1 || n - 1 > NAME_MAX)) || n + 1 > b->size)
		return NULL;
	memcpy(b->out, s, n);
	b->len = b->rootlen = n;
	return s + n;
}

long path_clean(char *out, size_t size, const char *cwd, const char *path)
{
	struct path_buf b = { .out = out, .size = size };
	const char *rest;
	long err;
	int r;

	if (path[0] == 0)
		return -ENOENT;
	if (path[0] == '/' || path[0] == '#') {
		if ((rest = set_root(&b, path, &err)) == NULL)
			return err;
	} else {
		if (cwd[0] != '/' && cwd[0] != '#')
			cwd = "/";
		if ((rest = set_root(&b, cwd, &err)) == NULL)
			return err;
		if ((r = add_elems(&b, rest)) < 0)
			return r;
		rest = path;
	}
	if ((r = add_elems(&b, rest)) < 0)
		return r;
	out[b.len] = 0;
	return (long)b.len;
}

bool path_elem(const char **p, char *name)
{
	const char *s = *p;
	size_t n;

	while (*s == '/')
		s++;
	if (*s == 0)
		return false;
	n = elem_len(s);
	memcpy(name, s, MIN(n, (size_t)NAME_MAX));
	name[MIN(n, (size_t)NAME_MAX)] = 0;
	*p = s + n;
	return true;
}

size_t path_root_len(const char *path)
{
	if (path[0] == '#')
		return 1 + elem_len(path + 1);
	return 1;
}

const char *path_under(const char *prefix, const char *path)
{
	size_t n = strlen(prefix);

	if (strcmp(prefix, "/") == 0)
		return path[0] == '/' ? path + 1 : NULL;
	if (strncmp(prefix, path, n) != 0 || (path[n] && path[n] != '/'))
		return NULL;
	return path + n;
}

int path_split(const char *path, char *parent, size_t size, char *name)
{
	size_t rootlen = path_root_len(path), plen;
	const char *slash = strrchr(path, '/');

	if (path[rootlen] == 0 || slash == NULL)
		return -EINVAL;
	plen = MAX((size_t)(slash - path), rootlen);
	if (plen + 1 > size || strlen(slash + 1) > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(parent, path, plen);
	parent[plen] = 0;
	strcpy(name, slash + 1);
	return 0;
}
