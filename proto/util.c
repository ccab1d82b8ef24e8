/* Small helpers both programs share: time, whole writes, arch names. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto/util.h"

/* Where util_stop_signals' handler notes the signal. */
static atomic_int	*util_stop_flag;

static void
util_stop_handler(int sig)
{
	struct sigaction	sa;
	int			saved = errno;

	if (util_stop_flag != NULL)
		*util_stop_flag = sig;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigaction(sig, &sa, NULL);
	errno = saved;
}

void
util_stop_signals(atomic_int *flag)
{
	struct sigaction	sa;

	util_stop_flag = flag;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = util_stop_handler;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int64_t
util_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

int64_t
util_clock_ns(clockid_t clock)
{
	struct timespec	ts;

	if (clock_gettime(clock, &ts) == -1)
		return (0);
	return ((int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec);
}

int
util_write_all(int fd, const void *buf, size_t len)
{
	const char	*p = buf;
	struct pollfd	 pfd;
	ssize_t		 n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			pfd.fd = fd;
			pfd.events = POLLOUT;
			pfd.revents = 0;
			poll(&pfd, 1, 100);
			continue;
		}
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return (-1);
		}
		p += n;
		len -= (size_t)n;
	}
	return (0);
}

const char *
util_arch(const char *machine)
{
	if (strcmp(machine, "arm64") == 0)
		return ("aarch64");
	if (strcmp(machine, "amd64") == 0)
		return ("x86_64");
	return (machine);
}

/* Appends printf-style text to *s (see util.h). */
int
util_appendf(char **s, const char *fmt, ...)
{
	va_list	 ap;
	size_t	 old = *s == NULL ? 0 : strlen(*s);
	char	*p;
	int	 n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || (p = realloc(*s, old + (size_t)n + 1)) == NULL)
		return (-1);
	*s = p;
	va_start(ap, fmt);
	vsnprintf(*s + old, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return (0);
}

/* One step of splitmix64: returns the mix of x. */
static uint64_t
util_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return (x ^ (x >> 31));
}

uint32_t
util_env_pad(uint64_t seed, uint32_t step, uint32_t attempt, uint32_t max)
{
	uint64_t	x;

	if (max == 0)
		return (0);
	x = util_mix64(seed);
	x = util_mix64(x ^ ((uint64_t)step << 32 | attempt));
	/* max + 1 <= 65537 values: the modulo's bias is below 2^-47. */
	return ((uint32_t)(x % ((uint64_t)max + 1)));
}
