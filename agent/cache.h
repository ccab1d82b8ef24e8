/*
 * The agent's cache, WORKDIR/cache: files named by their SHA-256, verified
 * by hashing them, and held open so that a run executes what was hashed.
 */
#ifndef AGENT_CACHE_H
#define AGENT_CACHE_H

#include <sys/types.h>

#include <limits.h>
#include <stddef.h>
#include <time.h>

#include "proto/proto.h"

#define CACHE_VERIFIED_MAX	64	/* files whose hash a session
					   remembers */

/* A cache file a plan uses, verified and (for a program) held open. */
struct cache_file {
	char	sha[PROTO_SHA_HEX];
	char	path[PATH_MAX];
	int	fd;		/* open on the file hashed, or -1: every run */
	dev_t	dev;		/* executes this very file, unchanged since */
	ino_t	ino;
	off_t	size;
	struct timespec mtime;
	struct timespec ctime;
};

/* A cache file hashed in this session, and how it looked then. */
struct cache_seen {
	char	sha[PROTO_SHA_HEX];
	dev_t	dev;
	ino_t	ino;
	off_t	size;
	time_t	mtime;
	time_t	ctime;
};

struct cache {
	char			 workdir[PATH_MAX];	/* the cache is in it */
	struct cache_seen	 verified[CACHE_VERIFIED_MAX];
	size_t			 nverified;
};

/* Sets up the cache of workdir, remembering nothing verified yet. */
void	cache_init(struct cache *c, const char *workdir);

/*
 * Checks that the cache holds the file with this hash, by hashing it (or
 * by remembering it hashed, untouched since). Fills f when given, keeping
 * the file open in f->fd. Returns 0, or -1 when missing or different (a
 * corrupt file is removed so a later push can replace it). A symbolic
 * link in the cache is never followed.
 */
int	cache_check(struct cache *c, const char *sha, struct cache_file *f);

/*
 * Returns 1 when f's descriptor still holds the file as it was hashed
 * (and, where no path reaches a descriptor, f's path still names it), 0
 * when it changed since.
 */
int	cache_file_unchanged(const struct cache_file *f);

/* Closes the n files of files that are open. */
void	cache_files_close(struct cache_file *files, size_t n);

/*
 * Makes WORKDIR/cache/SHA.d/BASE a hard link to the cache file SHA (made
 * again when it names anything else), so that the program can run under
 * its own name. Call it before cache_check: a new link changes the file's
 * status change time. Returns 0, or -1 with errno set.
 */
int	cache_link_name(struct cache *c, const char *sha, const char *base);

/*
 * Opens the verified cache file f through its name base (cache_link_name).
 * Writes that path to path[size]. Returns a descriptor (close-on-exec) of
 * f's very file, or -1 with errno set (no such link to f: the caller runs
 * f itself).
 */
int	cache_named(const struct cache_file *f, const char *base, char *path,
	    size_t size);

/*
 * Copies the file at src, whose hash is sha, into the cache, through a
 * temporary name of this process. Returns 0, or -1 with errno set.
 */
int	cache_install(struct cache *c, const char *src, const char *sha);

#endif
