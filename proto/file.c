/* Writing a file into place atomically: proto/file.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "proto/file.h"
#include "proto/xmalloc.h"

int
file_create_tmp(const char *dir, const char *name, char *tmp, size_t len)
{
	static const char	 digits[] = "0123456789abcdefghijklmnopqrstuv";
	unsigned char		 rnd[8];
	char			 sfx[sizeof rnd + 1];
	size_t			 i;
	int			 fd, tries;

	/*
	 * A new file of a random name, never an existing one and never
	 * through a symbolic link: whatever was planted in the directory
	 * is not written to. Mode 0600: the record carries suite settings.
	 */
	for (tries = 0; tries < 100; tries++) {
		if (RAND_bytes(rnd, sizeof rnd) != 1) {
			errno = EIO;
			return (-1);
		}
		for (i = 0; i < sizeof rnd; i++)
			sfx[i] = digits[rnd[i] % 32];
		sfx[sizeof rnd] = '\0';
		if (snprintf(tmp, len, "%s/.%s.%s.tmp", dir, name, sfx) >=
		    (int)len) {
			errno = ENAMETOOLONG;
			return (-1);
		}
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
		if (fd != -1 || errno != EEXIST)
			return (fd);
	}
	return (-1);
}

void
file_out_write(struct file_out *o)
{
	FILE	*f;
	int	 r, fd, err;

	o->r = -1;
	if ((fd = file_create_tmp(o->dir, o->name, o->tmp,
	    sizeof o->tmp)) == -1) {
		xasprintf(&o->cause, "cannot create a file in %s: %s", o->dir,
		    strerror(errno));
		o->tmp[0] = '\0';
		return;
	}
	if ((f = fdopen(fd, "w")) == NULL) {
		xasprintf(&o->cause, "%s: %s", o->tmp, strerror(errno));
		close(fd);
		unlink(o->tmp);
		o->tmp[0] = '\0';
		return;
	}
	/* Large writes: samples.csv of a long run is hundreds of MB. */
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	/* The cause is the errno of the first failure, not of fclose. */
	errno = 0;
	r = o->fn(o->arg, f);
	err = errno;
	if (r == 0 && (ferror(f) || fflush(f) != 0 ||
	    fsync(fileno(f)) != 0)) {
		r = -1;
		err = errno;
	}
	if (fclose(f) != 0 && r == 0) {
		r = -1;
		err = errno;
	}
	if (r != 0) {
		xasprintf(&o->cause, "cannot write %s/%s: %s", o->dir, o->name,
		    strerror(err != 0 ? err : EIO));
		unlink(o->tmp);
		o->tmp[0] = '\0';
		return;
	}
	o->r = 0;
}

/* A link planted at DIR/name is replaced by the rename, not followed. */
int
file_out_commit(struct file_out *o)
{
	char	dst[PATH_MAX];

	snprintf(dst, sizeof dst, "%s/%s", o->dir, o->name);
	if (rename(o->tmp, dst) == -1) {
		xasprintf(&o->cause, "rename %s: %s", dst, strerror(errno));
		return (-1);
	}
	o->tmp[0] = '\0';
	return (0);
}

void
file_out_discard(struct file_out *o)
{
	free(o->cause);
	o->cause = NULL;
	/* Only what this attempt created, never a planted name. */
	if (o->tmp[0] != '\0')
		unlink(o->tmp);
	o->tmp[0] = '\0';
}

int
file_write(const char *dir, const char *name,
    int (*fn)(const void *, FILE *), const void *arg, char **cause)
{
	struct file_out	o = { dir, name, fn, arg, NULL, -1, "" };

	file_out_write(&o);
	if (o.r != 0 || file_out_commit(&o) != 0) {
		if (o.tmp[0] != '\0')
			unlink(o.tmp);
		*cause = o.cause;
		return (-1);
	}
	return (0);
}
