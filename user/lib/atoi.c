/* atoi: decimal conversion on top of the kernel library's strtol. */
#include <stdlib.h>

int atoi(const char *s)
{
	return (int)strtol(s, NULL, 10);
}
