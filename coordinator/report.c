/* Writing every report file of a run atomically. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "coordinator/machines.h"
#include "coordinator/gate.h"
#include "coordinator/report.h"
#include "proto/log.h"
#include "proto/xmalloc.h"

/*
 * One report file: written to a new DIR/.name.XXXXXXXX.tmp and synced by
 * rep_write, then renamed into place by rep_commit once every file was
 * written, so a failure leaves the previous files whole and no file from
 * this attempt.
 */
struct rep_out {
	const char	 *dir;
	const char	 *name;
	int		(*fn)(const void *, FILE *);
	const void	 *arg;
	char		 *cause;
	int		  r;
	char		  tmp[PATH_MAX];	/* "" until created */
};

int
report_create_tmp(const char *dir, const char *name, char *tmp, size_t len)
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

/* Writes and syncs a new temporary; sets o->r (0 or -1 with o->cause). */
static void
rep_write(struct rep_out *o)
{
	FILE	*f;
	int	 r, fd, err;

	o->r = -1;
	if ((fd = report_create_tmp(o->dir, o->name, o->tmp,
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

static void *
rep_write_thread(void *arg)
{
	rep_write(arg);
	return (NULL);
}

/*
 * Renames a written temporary into place (a link planted at DIR/name is
 * replaced, not followed); -1 with o->cause.
 */
static int
rep_commit(struct rep_out *o)
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

int
report_write_file(const char *dir, const char *name,
    int (*fn)(const void *, FILE *), const void *arg, char **cause)
{
	struct rep_out	o = { dir, name, fn, arg, NULL, -1, "" };

	rep_write(&o);
	if (o.r != 0 || rep_commit(&o) != 0) {
		if (o.tmp[0] != '\0')
			unlink(o.tmp);
		*cause = o.cause;
		return (-1);
	}
	return (0);
}

/* The rep_write callbacks, one per file. */
static int
rep_json_cb(const void *a, FILE *f)
{
	return (report_json(a, f));
}

static int
rep_csv_cb(const void *ds, FILE *f)
{
	return (report_csv(ds, f));
}

static int
rep_md_cb(const void *a, FILE *f)
{
	return (report_md(a, f));
}

static int
rep_html_cb(const void *a, FILE *f)
{
	return (report_html(a, f));
}

static int
rep_answer_cb(const void *a, FILE *f)
{
	return (report_answer_md(a, f));
}

int
report_render(const char *dir, int fail_on, char **tripped, size_t *nfailed,
    char **cause)
{
	return (report_render_answer(dir, NULL, fail_on, tripped, nfailed,
	    cause));
}

int
report_render_answer(const char *dir, FILE *tty, int fail_on,
    char **tripped, size_t *nfailed, char **cause)
{
	struct dataset	*ds = NULL;
	struct analysis	*a = NULL;
	struct rep_out	 out[] = {
		{ dir, "samples.csv", rep_csv_cb, NULL, NULL, -1, "" },
		{ dir, "summary.json", rep_json_cb, NULL, NULL, -1, "" },
		{ dir, "report.md", rep_md_cb, NULL, NULL, -1, "" },
		{ dir, "report.html", rep_html_cb, NULL, NULL, -1, "" },
		{ dir, "answer.md", rep_answer_cb, NULL, NULL, -1, "" },
	};
	const size_t	 nout = sizeof out / sizeof out[0];
	pthread_t	 csv;
	size_t		 i;
	int		 r = -1, threaded = 0;

	if (record_load(dir, &ds, cause) != 0 || machines_check(ds, cause) != 0)
		goto out;
	/*
	 * samples.csv needs only the samples: it is written beside the
	 * analysis (a million samples make nine million rows), and when no
	 * thread can be had, after it.
	 */
	out[0].arg = ds;
	threaded = pthread_create(&csv, NULL, rep_write_thread, &out[0]) == 0;
	if (analysis_build(ds, &a, cause) != 0)
		goto out;
	for (i = 1; i < nout; i++) {
		out[i].arg = a;
		rep_write(&out[i]);
		if (out[i].r != 0)
			break;
	}
	if (threaded) {
		pthread_join(csv, NULL);
		threaded = 0;
	} else
		rep_write(&out[0]);
	for (i = 0; i < nout; i++) {
		if (out[i].r != 0) {
			*cause = out[i].cause;
			out[i].cause = NULL;
			goto out;
		}
	}
	for (i = 0; i < nout; i++) {
		if (rep_commit(&out[i]) != 0) {
			*cause = out[i].cause;
			out[i].cause = NULL;
			goto out;
		}
	}
	if (tty != NULL) {
		report_answer_text(a, tty);
		fflush(tty);
	}
	if (tripped != NULL) {
		size_t	ntrip;

		if (gate_check(a, fail_on, &ntrip, tripped) != 0) {
			xasprintf(cause, "--fail-on: out of memory");
			goto out;
		}
	}
	if (nfailed != NULL)
		*nfailed = a->nfailed_samples;
	r = 0;
out:
	if (threaded)
		pthread_join(csv, NULL);
	for (i = 0; i < nout; i++) {
		free(out[i].cause);
		/* Only what this attempt created, never a planted name. */
		if (out[i].tmp[0] != '\0')
			unlink(out[i].tmp);
	}
	analysis_free(a);
	dataset_free(ds);
	return (r);
}
