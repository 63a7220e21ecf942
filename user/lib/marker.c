/*
 * marker(): one write of the text to /dev/ttrace/marker (marker.h).
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <err.h>
#include <marker.h>

void marker(const char *text)
{
	int fd = open("/dev/ttrace/marker", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			warn("marker");
		close(fd);
	}
}
