/*
 * A run bound to the user who started it: DIR/run.mac, an HMAC-SHA256
 * with a key of the user's own (made at first use, 0600, in the user's
 * orch state directory) over what identifies the run (its id, its suite's
 * path and SHA-256, its hosts). A run directory someone else made has no
 * MAC this user's key makes, so resuming it needs the user's say-so.
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

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "coordinator/run/run-bind.h"
#include "proto/file.h"
#include "proto/hash.h"
#include "proto/xmalloc.h"

#define BIND_KEY_LEN	32
#define BIND_MAC_HEX	(2 * 32 + 1)

/* Writes the user's orch state directory into buf. Returns 0 or -1. */
static int
bind_state_dir(char *buf, size_t len, char **cause)
{
	const char	*x = getenv("XDG_STATE_HOME"), *h = getenv("HOME");
	int		 n;

	if (x != NULL && x[0] == '/')
		n = snprintf(buf, len, "%s/orch", x);
	else if (h != NULL && h[0] == '/')
		n = snprintf(buf, len, "%s/.local/state/orch", h);
	else {
		xasprintf(cause, "no state directory for the run key: "
		    "neither $XDG_STATE_HOME nor $HOME is an absolute path");
		return (-1);
	}
	if (n < 0 || (size_t)n >= len) {
		xasprintf(cause, "the state directory's path is too long");
		return (-1);
	}
	return (0);
}

/*
 * Makes dir and its missing parents 0700, then checks dir is the user's
 * own directory that no one else may write. Returns 0, or -1 with cause.
 */
static int
bind_make_dir(const char *dir, char **cause)
{
	struct stat	 st;
	char		 p[PATH_MAX];
	size_t		 i;

	snprintf(p, sizeof p, "%s", dir);
	for (i = 1; p[i] != '\0'; i++) {
		if (p[i] != '/')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0700) == -1 && errno != EEXIST)
			goto bad;
		p[i] = '/';
	}
	if (mkdir(p, 0700) == -1 && errno != EEXIST)
		goto bad;
	if (lstat(dir, &st) == -1)
		goto bad;
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 022) != 0) {
		xasprintf(cause, "%s: not a directory of yours that only you "
		    "may write (the run key's directory)", dir);
		return (-1);
	}
	return (0);
bad:
	xasprintf(cause, "%s: %s (the run key's directory)", p,
	    strerror(errno));
	return (-1);
}

/* Reads the key at path into key. Returns 0, 1 when missing, or -1. */
static int
bind_read_key(const char *path, unsigned char *key, char **cause)
{
	struct stat	 st;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			return (1);
		xasprintf(cause, "%s: %s", path, strerror(errno));
		return (-1);
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_uid != getuid() || (st.st_mode & 077) != 0 ||
	    st.st_size != BIND_KEY_LEN ||
	    (n = read(fd, key, BIND_KEY_LEN)) != BIND_KEY_LEN) {
		close(fd);
		xasprintf(cause, "%s: not a run key of yours (a file of %d "
		    "bytes, mode 0600): remove it and orch makes a new one",
		    path, BIND_KEY_LEN);
		return (-1);
	}
	close(fd);
	return (0);
}

/*
 * Makes a new key at dir/run.key: written to a private temporary, then
 * linked into place, so that of two runs making one at once both use the
 * one that won. Returns 0, or -1 with cause.
 */
static int
bind_new_key(const char *dir, const char *path, char **cause)
{
	unsigned char	 key[BIND_KEY_LEN];
	char		 tmp[PATH_MAX];
	int		 fd, r = -1;

	if (RAND_bytes(key, sizeof key) != 1) {
		xasprintf(cause, "cannot make a run key: no random bytes");
		return (-1);
	}
	if ((fd = file_create_tmp(dir, "run.key", tmp, sizeof tmp)) == -1) {
		xasprintf(cause, "%s: %s", dir, strerror(errno));
		return (-1);
	}
	if (write(fd, key, sizeof key) != (ssize_t)sizeof key ||
	    fsync(fd) == -1)
		xasprintf(cause, "%s: %s", tmp, strerror(errno));
	else if (link(tmp, path) == -1 && errno != EEXIST)
		xasprintf(cause, "%s: %s", path, strerror(errno));
	else
		r = 0;
	close(fd);
	unlink(tmp);
	OPENSSL_cleanse(key, sizeof key);
	return (r);
}

int
run_bind_key(unsigned char *key, int create, char *path, size_t len,
    char **cause)
{
	char	dir[PATH_MAX];
	int	r;

	if (bind_state_dir(dir, sizeof dir - 16, cause) != 0)
		return (-1);
	snprintf(path, len, "%s/run.key", dir);
	if ((r = bind_read_key(path, key, cause)) != 1)
		return (r);
	if (!create) {
		xasprintf(cause, "%s does not exist: you started no run here",
		    path);
		return (-1);
	}
	if (bind_make_dir(dir, cause) != 0 ||
	    bind_new_key(dir, path, cause) != 0)
		return (-1);
	if ((r = bind_read_key(path, key, cause)) == 1)
		xasprintf(cause, "%s: made, then gone", path);
	return (r == 0 ? 0 : -1);
}

/* Compares two host names, for qsort. */
static int
bind_cmp(const void *a, const void *b)
{
	return (strcmp(*(const char *const *)a, *(const char *const *)b));
}

/* Appends s and its NUL to the buffer m of *len bytes. */
static void
bind_put(char **m, size_t *len, const char *s)
{
	size_t	n = strlen(s) + 1;

	*m = xreallocarray(*m, 1, *len + n);
	memcpy(*m + *len, s, n);
	*len += n;
}

int
run_bind_mac(const unsigned char *key, const struct run_bind *b,
    char hex[RUN_BIND_HEX])
{
	unsigned char	 md[EVP_MAX_MD_SIZE];
	unsigned int	 mdlen = 0;
	const char	**names;
	char		 sha[PROTO_SHA_HEX], *m = NULL;
	size_t		 i, len = 0;
	int		 ok;

	if (hash_buf(b->suite_text, strlen(b->suite_text), sha) != 0)
		return (-1);
	names = xcalloc(b->nhosts + 1, sizeof *names);
	for (i = 0; i < b->nhosts; i++)
		names[i] = b->hosts[i];
	qsort(names, b->nhosts, sizeof *names, bind_cmp);
	/* Each field ends with its NUL: no two lists read the same. */
	bind_put(&m, &len, "orch-run-1");
	bind_put(&m, &len, b->run_id);
	bind_put(&m, &len, b->suite_path);
	bind_put(&m, &len, sha);
	for (i = 0; i < b->nhosts; i++)
		bind_put(&m, &len, names[i]);
	ok = HMAC(EVP_sha256(), key, BIND_KEY_LEN, (unsigned char *)m, len,
	    md, &mdlen) != NULL && mdlen == 32;
	free(m);
	free(names);
	if (!ok)
		return (-1);
	for (i = 0; i < mdlen; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	return (0);
}

/* Writes the MAC's line for file_write. */
static int
bind_write_cb(const void *arg, FILE *f)
{
	return (fprintf(f, "%s\n", (const char *)arg) < 0 ? -1 : 0);
}

int
run_bind_write(const char *dir, const struct run_bind *b, char **cause)
{
	unsigned char	key[BIND_KEY_LEN];
	char		hex[RUN_BIND_HEX], path[PATH_MAX];
	int		r;

	if (run_bind_key(key, 1, path, sizeof path, cause) != 0)
		return (-1);
	r = run_bind_mac(key, b, hex);
	OPENSSL_cleanse(key, sizeof key);
	if (r != 0) {
		xasprintf(cause, "cannot compute the run's MAC");
		return (-1);
	}
	return (file_write(dir, RUN_BIND_FILE, bind_write_cb, hex, cause));
}

int
run_bind_check(const char *dir, const struct run_bind *b, char **why)
{
	unsigned char	key[BIND_KEY_LEN];
	char		hex[RUN_BIND_HEX], got[RUN_BIND_HEX + 2];
	char		path[PATH_MAX], kpath[PATH_MAX];
	ssize_t		n;
	int		fd, r;

	snprintf(path, sizeof path, "%s/%s", dir, RUN_BIND_FILE);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		xasprintf(why, "%s: %s", path, strerror(errno));
		return (0);
	}
	n = read(fd, got, sizeof got - 1);
	close(fd);
	got[n > 0 ? n : 0] = '\0';
	got[strcspn(got, "\n")] = '\0';
	if (run_bind_key(key, 0, kpath, sizeof kpath, why) != 0)
		return (0);
	r = run_bind_mac(key, b, hex);
	OPENSSL_cleanse(key, sizeof key);
	if (r != 0 || strlen(got) != RUN_BIND_HEX - 1 ||
	    CRYPTO_memcmp(got, hex, RUN_BIND_HEX - 1) != 0) {
		xasprintf(why, "%s was not made with your run key %s", path,
		    kpath);
		return (0);
	}
	return (1);
}
