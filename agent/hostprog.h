/*
 * The host's own programs (a suite's `bin = host:NAME`): found in the
 * agent's PATH or at an absolute path, hashed and held open like a cache
 * file, and asked for their --version line, so that what ran is evidence.
 */
#ifndef AGENT_HOSTPROG_H
#define AGENT_HOSTPROG_H

#include <stddef.h>

#include "agent/cache.h"
#include "proto/proto.h"

/* Where a name is looked up when the agent has no PATH (POSIX's). */
#define HOSTPROG_DEFAULT_PATH	"/usr/bin:/bin"

/*
 * Finds prog (a name without '/': the first regular, executable file of
 * that name in a directory of the agent's PATH, absolute entries only; or
 * an absolute path), opens and hashes it into f (f->path: the path found,
 * f->fd open). Returns 0, or -1 with words for a person in why.
 */
int	hostprog_resolve(const char *prog, struct cache_file *f, char *why,
	    size_t len);

/*
 * Returns 1 when f still is the file hashed: the descriptor's file
 * unchanged (its size, inode, mtime and ctime), and f->path still naming
 * it.
 */
int	hostprog_unchanged(const struct cache_file *f);

/*
 * Runs f's program with --version (no shell, stdin /dev/null, at most
 * timeout_ms, lifeline as exec_run's) and puts its first stdout line, cut
 * to out's size and made printable ('?' for any other byte), in out; ""
 * when it printed none or did not exit 0. envp: the environment.
 * Returns 0, or -1 when the lifeline closed.
 */
int	hostprog_version(const struct cache_file *f, char *const *envp,
	    const char *cwd, int lifeline_fd, uint32_t timeout_ms, char *out,
	    size_t outlen);

/* Makes s printable ASCII in place: bytes outside 0x20..0x7e become '?'. */
void	hostprog_sanitize(char *s);

#endif
