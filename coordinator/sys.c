/* Small helpers every part of the coordinator uses. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coordinator/sys.h"

int64_t
sys_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

int
sys_write_all(int fd, const char *buf, size_t len)
{
	ssize_t	n;

	while (len > 0) {
		n = write(fd, buf, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN) {
			struct pollfd pfd = { fd, POLLOUT, 0 };

			poll(&pfd, 1, 100);
			continue;
		}
		if (n <= 0)
			return (-1);
		buf += n;
		len -= (size_t)n;
	}
	return (0);
}

void
sys_arch(char *arch)
{
	if (strcmp(arch, "arm64") == 0)
		strcpy(arch, "aarch64");
	else if (strcmp(arch, "amd64") == 0)
		strcpy(arch, "x86_64");
}
