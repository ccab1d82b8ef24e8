/*
 * The host's own programs: looked up by the agent, never through a shell.
 * Only absolute PATH entries are searched (an empty or relative entry
 * would make the program depend on the agent's working directory).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/exec.h"
#include "agent/hostprog.h"
#include "proto/hash.h"

/* Opens path and fills f when it is a regular, executable file; 0 or -1. */
static int
hostprog_open(const char *path, struct cache_file *f, int *err)
{
	struct stat	st;
	int		fd;

	if (access(path, X_OK) != 0) {
		*err = errno;
		return (-1);
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		*err = errno;
		return (-1);
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		*err = S_ISDIR(st.st_mode) ? EISDIR : EACCES;
		close(fd);
		return (-1);
	}
	if (hash_fd(fd, f->sha) != 0) {
		*err = errno;
		close(fd);
		return (-1);
	}
	snprintf(f->path, sizeof f->path, "%s", path);
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->size = st.st_size;
#ifdef __APPLE__
	f->mtime = st.st_mtimespec;
	f->ctime = st.st_ctimespec;
#else
	f->mtime = st.st_mtim;
	f->ctime = st.st_ctim;
#endif
	f->fd = fd;
	return (0);
}

int
hostprog_resolve(const char *prog, struct cache_file *f, char *why,
    size_t len)
{
	const char	*pathenv, *p, *end;
	char		 cand[PATH_MAX];
	size_t		 dlen;
	int		 err = ENOENT, e;

	f->fd = -1;
	if (prog[0] == '/') {
		if (hostprog_open(prog, f, &err) == 0)
			return (0);
		snprintf(why, len, "host program %s: %s", prog, strerror(err));
		return (-1);
	}
	if (prog[0] == '\0' || strchr(prog, '/') != NULL) {
		snprintf(why, len, "host program '%s': not a name or an "
		    "absolute path", prog);
		return (-1);
	}
	if ((pathenv = getenv("PATH")) == NULL || *pathenv == '\0')
		pathenv = HOSTPROG_DEFAULT_PATH;
	for (p = pathenv; ; p = end + 1) {
		end = strchr(p, ':');
		dlen = end != NULL ? (size_t)(end - p) : strlen(p);
		if (dlen > 0 && p[0] == '/' && dlen + 1 + strlen(prog) <
		    sizeof cand) {
			snprintf(cand, sizeof cand, "%.*s/%s", (int)dlen, p,
			    prog);
			if (hostprog_open(cand, f, &e) == 0)
				return (0);
			/* The most telling reason: a file that is there. */
			if (e != ENOENT && e != ENOTDIR)
				err = e;
		}
		if (end == NULL)
			break;
	}
	if (err == ENOENT)
		snprintf(why, len, "host program %s: not found in the agent's "
		    "PATH (%.200s)", prog, pathenv);
	else
		snprintf(why, len, "host program %s: found in the agent's PATH "
		    "(%.200s) but not runnable: %s", prog, pathenv,
		    strerror(err));
	return (-1);
}

int
hostprog_unchanged(const struct cache_file *f)
{
	struct stat	st;

	if (f->fd == -1 || fstat(f->fd, &st) == -1 || st.st_size != f->size ||
	    st.st_dev != f->dev || st.st_ino != f->ino)
		return (0);
	/*
	 * The ctime too: a program rewritten in place with its mtime put
	 * back (touch -r) keeps its size, inode and mtime, not its ctime.
	 */
#ifdef __APPLE__
	if (st.st_mtimespec.tv_sec != f->mtime.tv_sec ||
	    st.st_mtimespec.tv_nsec != f->mtime.tv_nsec ||
	    st.st_ctimespec.tv_sec != f->ctime.tv_sec ||
	    st.st_ctimespec.tv_nsec != f->ctime.tv_nsec)
		return (0);
#else
	if (st.st_mtim.tv_sec != f->mtime.tv_sec ||
	    st.st_mtim.tv_nsec != f->mtime.tv_nsec ||
	    st.st_ctim.tv_sec != f->ctime.tv_sec ||
	    st.st_ctim.tv_nsec != f->ctime.tv_nsec)
		return (0);
#endif
	/* It runs by its path (a script needs one): the path must be it. */
	if (stat(f->path, &st) == -1 || st.st_dev != f->dev ||
	    st.st_ino != f->ino)
		return (0);
	return (1);
}

void
hostprog_sanitize(char *s)
{
	for (; *s != '\0'; s++) {
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*s = '?';
	}
}

int
hostprog_version(const struct cache_file *f, char *const *envp,
    const char *cwd, int lifeline_fd, uint32_t timeout_ms, char *out,
    size_t outlen)
{
	struct proto_sample	*smp;
	struct exec_req		 req;
	char			 path[PATH_MAX], arg[] = "--version";
	char			*argv[3];
	size_t			 n;
	int			 r;

	out[0] = '\0';
	snprintf(path, sizeof path, "%s", f->path);
	argv[0] = path;
	argv[1] = arg;
	argv[2] = NULL;
	memset(&req, 0, sizeof req);
	req.argv = argv;
	req.envp = envp;
	req.cwd = cwd;
	req.timeout_ms = timeout_ms;
	req.lifeline_fd = lifeline_fd;
	req.firstline = out;
	req.firstline_len = outlen;
	/* A sample is big: not on the stack. */
	if ((smp = calloc(1, sizeof *smp)) == NULL)
		return (0);
	r = exec_run(&req, smp);
	if (r != 0 || smp->status != PROTO_ST_OK)
		out[0] = '\0';
	free(smp);
	n = strlen(out);
	while (n > 0 && (out[n - 1] == '\r' || out[n - 1] == ' ' ||
	    out[n - 1] == '\t'))
		out[--n] = '\0';
	hostprog_sanitize(out);
	return (r);
}
