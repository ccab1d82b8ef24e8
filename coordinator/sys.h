/*
 * Small helpers every part of the coordinator uses: the clock, full
 * writes, architecture names. (proto/ would be their home for the agent
 * too; until it takes them they live here, coordinator side only.)
 */
#ifndef COORDINATOR_SYS_H
#define COORDINATOR_SYS_H

#include <stddef.h>
#include <stdint.h>

/* Returns milliseconds of CLOCK_MONOTONIC. */
int64_t	sys_now_ms(void);

/*
 * Writes all of buf to fd, retrying after EINTR and, on a non-blocking
 * fd, after EAGAIN (polling for room). Returns 0, or -1 (errno).
 */
int	sys_write_all(int fd, const char *buf, size_t len);

/* Normalizes a `uname -m` name in place: arm64 to aarch64, amd64 to x86_64. */
void	sys_arch(char *arch);

#endif
