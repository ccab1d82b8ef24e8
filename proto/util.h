/* Small helpers both programs share: time, whole writes, arch names. */
#ifndef PROTO_UTIL_H
#define PROTO_UTIL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Returns milliseconds of CLOCK_MONOTONIC. */
int64_t	util_now_ms(void);

/* Returns the time of clock in nanoseconds, 0 if it cannot be read. */
int64_t	util_clock_ns(clockid_t clock);

/*
 * Makes SIGINT and SIGTERM set *flag to the signal (flag lock-free, so a
 * handler may, and a thread may read it); the first one also puts that
 * signal back to its default, so that a second ends the program at once.
 */
void	util_stop_signals(atomic_int *flag);

/*
 * Writes all len bytes of buf to fd, again after a short write or EINTR
 * and, on a non-blocking fd, once poll() finds room after EAGAIN. Returns
 * 0, or -1 with errno set.
 */
int	util_write_all(int fd, const void *buf, size_t len);

/*
 * Returns orch's name for a `uname -m` machine name: aarch64 for arm64,
 * x86_64 for amd64, else machine itself.
 */
const char *util_arch(const char *machine);

/*
 * Appends printf-style text to the string *s (NULL: start one). Returns 0,
 * or -1 out of memory or on a format vsnprintf refuses (*s is left as it
 * was, for the caller to free).
 */
int	util_appendf(char **s, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/*
 * Returns the length, 0..max, of the environment padding of attempt of
 * step in a plan whose env_pad_seed is seed: splitmix64 of the three, so
 * that one seed gives the same lengths everywhere and each run its own.
 */
uint32_t util_env_pad(uint64_t seed, uint32_t step, uint32_t attempt,
	    uint32_t max);

#endif
