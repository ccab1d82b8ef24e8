/* The agent's cache, WORKDIR/cache: verified files named by their hash. */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent/cache.h"
#include "agent/proc.h"
#include "proto/hash.h"
#include "proto/log.h"
#include "proto/util.h"

/* Returns st's modification time. */
static struct timespec
cache_mtime(const struct stat *st)
{
#ifdef __APPLE__
	return (st->st_mtimespec);
#else
	return (st->st_mtim);
#endif
}

/* Returns st's status change time. */
static struct timespec
cache_ctime(const struct stat *st)
{
#ifdef __APPLE__
	return (st->st_ctimespec);
#else
	return (st->st_ctim);
#endif
}

/* Returns 1 when a and b are the same time. */
static int
cache_ts_eq(struct timespec a, struct timespec b)
{
	return (a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec);
}

/* Returns 1 when sha was verified in this session on a file like st. */
static int
cache_verified(const struct cache *c, const char *sha, const struct stat *st)
{
	const struct cache_seen	*v;
	size_t			 i;

	for (i = 0; i < c->nverified; i++) {
		v = &c->verified[i];
		if (strcmp(v->sha, sha) == 0 && v->dev == st->st_dev &&
		    v->ino == st->st_ino && v->size == st->st_size &&
		    v->mtime == st->st_mtime && v->ctime == st->st_ctime)
			return (1);
	}
	return (0);
}

/* Remembers a verified file (the oldest entry goes when full). */
static void
cache_verified_add(struct cache *c, const char *sha, const struct stat *st)
{
	struct cache_seen	*v;

	if (c->nverified == CACHE_VERIFIED_MAX) {
		memmove(c->verified, c->verified + 1,
		    (CACHE_VERIFIED_MAX - 1) * sizeof *c->verified);
		c->nverified--;
	}
	v = &c->verified[c->nverified++];
	snprintf(v->sha, sizeof v->sha, "%s", sha);
	v->dev = st->st_dev;
	v->ino = st->st_ino;
	v->size = st->st_size;
	v->mtime = st->st_mtime;
	v->ctime = st->st_ctime;
}

void
cache_init(struct cache *c, const char *workdir)
{
	memset(c, 0, sizeof *c);
	snprintf(c->workdir, sizeof c->workdir, "%s", workdir);
}

int
cache_check(struct cache *c, const char *sha, struct cache_file *f)
{
	char		path[PATH_MAX], got[PROTO_SHA_HEX];
	struct stat	st;
	int		fd, r = -1;

	if (snprintf(path, sizeof path, "%s/cache/%s", c->workdir, sha) >=
	    (int)sizeof path)
		return (-1);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return (-1);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode))
		goto out;
	/*
	 * Hashed already in this session and not touched since (same inode,
	 * size and times): the hash still holds. Else hash it again.
	 */
	if (!cache_verified(c, sha, &st)) {
		if (hash_fd(fd, got) != 0)
			goto out;
		if (strcmp(got, sha) != 0) {
			log_warnx("cache file %s has hash %s: removed", path,
			    got);
			unlink(path);
			goto out;
		}
		cache_verified_add(c, sha, &st);
	}
	if (f != NULL) {
		snprintf(f->sha, sizeof f->sha, "%s", sha);
		snprintf(f->path, sizeof f->path, "%s", path);
		f->dev = st.st_dev;
		f->ino = st.st_ino;
		f->size = st.st_size;
		f->mtime = cache_mtime(&st);
		f->ctime = cache_ctime(&st);
		f->fd = fd;
		fd = -1;
	}
	r = 0;
out:
	if (fd != -1)
		close(fd);
	return (r);
}

int
cache_file_unchanged(const struct cache_file *f)
{
	struct stat	st;
	char		fdpath[64];

	/*
	 * What runs is the file open on the descriptor, as it was hashed: a
	 * write to it since shows in its size or times. Where no path
	 * reaches a descriptor (macOS), the path must still name that file,
	 * unchanged.
	 */
	if (fstat(f->fd, &st) == -1 || st.st_size != f->size ||
	    !cache_ts_eq(cache_mtime(&st), f->mtime) ||
	    !cache_ts_eq(cache_ctime(&st), f->ctime))
		return (0);
	if (proc_fd_path(f->fd, fdpath, sizeof fdpath) == -1 &&
	    (stat(f->path, &st) == -1 || st.st_dev != f->dev ||
	    st.st_ino != f->ino))
		return (0);
	return (1);
}

void
cache_files_close(struct cache_file *files, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (files[i].fd != -1)
			close(files[i].fd);
		files[i].fd = -1;
	}
}

/* Returns 1 when base is a file name: not empty, no '/', not . or .. */
static int
cache_base_ok(const char *base)
{
	return (base[0] != '\0' && strchr(base, '/') == NULL &&
	    strcmp(base, ".") != 0 && strcmp(base, "..") != 0);
}

/* Writes WORKDIR/cache/SHA.d to dir and its BASE to path; 0 or -1. */
static int
cache_name_paths(const char *file, const char *base, char *dir,
    size_t dsize, char *path, size_t size)
{
	if (!cache_base_ok(base)) {
		errno = EINVAL;
		return (-1);
	}
	if (snprintf(dir, dsize, "%s.d", file) >= (int)dsize ||
	    snprintf(path, size, "%s/%s", dir, base) >= (int)size) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	return (0);
}

int
cache_link_name(struct cache *c, const char *sha, const char *base)
{
	char		file[PATH_MAX], dir[PATH_MAX], path[PATH_MAX];
	struct stat	fst, st;
	int		tries;

	if (snprintf(file, sizeof file, "%s/cache/%s", c->workdir, sha) >=
	    (int)sizeof file) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	if (cache_name_paths(file, base, dir, sizeof dir, path,
	    sizeof path) != 0)
		return (-1);
	if (lstat(file, &fst) == -1)
		return (-1);
	if (!S_ISREG(fst.st_mode)) {
		errno = EINVAL;
		return (-1);
	}
	if (mkdir(dir, 0700) == -1 && errno != EEXIST)
		return (-1);
	if (lstat(dir, &st) == -1)
		return (-1);
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return (-1);
	}
	for (tries = 0; tries < 3; tries++) {
		if (lstat(path, &st) == 0) {
			if (S_ISREG(st.st_mode) && st.st_dev == fst.st_dev &&
			    st.st_ino == fst.st_ino)
				return (0);
			/* Another file, or a link of any kind: made again. */
			if (unlink(path) == -1 && errno != ENOENT)
				return (-1);
		} else if (errno != ENOENT)
			return (-1);
		if (link(file, path) == -1 && errno != EEXIST)
			return (-1);
	}
	errno = EEXIST;
	return (-1);
}

int
cache_named(const struct cache_file *f, const char *base, char *path,
    size_t size)
{
	char		dir[PATH_MAX];
	struct stat	st;
	int		fd;

	if (cache_name_paths(f->path, base, dir, sizeof dir, path,
	    size) != 0)
		return (-1);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return (-1);
	if (fstat(fd, &st) == 0 && st.st_dev == f->dev &&
	    st.st_ino == f->ino)
		return (fd);
	close(fd);
	errno = ESTALE;
	return (-1);
}

/*
 * Creates path for writing, mode 0700: never an existing file, never
 * through a symbolic link. Returns the fd, or -1 with errno.
 */
static int
cache_create(const char *path)
{
	return (open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0700));
}

int
cache_install(struct cache *c, const char *src, const char *sha)
{
	char	dst[PATH_MAX], tmp[PATH_MAX], buf[65536];
	ssize_t	n;
	int	in = -1, out = -1, r = -1, saved;

	snprintf(dst, sizeof dst, "%s/cache/%s", c->workdir, sha);
	snprintf(tmp, sizeof tmp, "%s.tmp-%ld", dst, (long)getpid());
	if ((in = open(src, O_RDONLY | O_CLOEXEC)) == -1)
		goto out;
	/* A name left by a dead agent of the same pid is ours to remove. */
	if ((out = cache_create(tmp)) == -1 && errno == EEXIST &&
	    unlink(tmp) == 0)
		out = cache_create(tmp);
	if (out == -1)
		goto out;
	while ((n = read(in, buf, sizeof buf)) > 0) {
		if (util_write_all(out, buf, (size_t)n) != 0)
			goto out;
	}
	if (n == 0 && close(out) == 0) {
		out = -1;
		if (rename(tmp, dst) == 0)
			r = 0;
	}
out:
	saved = errno;
	if (in != -1)
		close(in);
	if (out != -1)
		close(out);
	if (r != 0)
		unlink(tmp);
	errno = saved;
	return (r);
}
