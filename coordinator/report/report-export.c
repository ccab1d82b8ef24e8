/*
 * Exports (see report-export.h): a run's report files copied to the
 * user's paths, each through a temporary file renamed into place.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/report/report-export.h"
#include "coordinator/report/report.h"
#include "proto/file.h"
#include "proto/util.h"
#include "proto/xmalloc.h"

/* One export: the option, the user's path and the run's file. */
struct exp_one {
	const char	*opt;
	const char	*path;
	const char	*file;
	char		 dir[PATH_MAX];		/* the path's directory */
	char		 base[NAME_MAX + 1];	/* its last component */
	char		 tmp[PATH_MAX];		/* "" until created */
};

/* Fills the table of the exports asked for; returns how many. */
static size_t
exp_table(const struct report_exports *e, struct exp_one *o)
{
	size_t	n = 0;

	memset(o, 0, 3 * sizeof *o);
	if (e->json != NULL)
		o[n++] = (struct exp_one){ "--export-json", e->json,
		    "summary.json", "", "", "" };
	if (e->md != NULL)
		o[n++] = (struct exp_one){ "--export-markdown", e->md,
		    "report.md", "", "", "" };
	if (e->csv != NULL)
		o[n++] = (struct exp_one){ "--export-csv", e->csv,
		    "samples.csv", "", "", "" };
	return (n);
}

/* Splits o->path into its directory and name; -1 with *cause when bad. */
static int
exp_split(struct exp_one *o, char **cause)
{
	const char	*slash = strrchr(o->path, '/');
	const char	*base = slash != NULL ? slash + 1 : o->path;
	size_t		 dlen;

	if (*base == '\0' || strcmp(base, ".") == 0 ||
	    strcmp(base, "..") == 0) {
		xasprintf(cause, "%s=%s: not a file name", o->opt, o->path);
		return (-1);
	}
	if (strlen(base) > NAME_MAX - 16 || strlen(o->path) >= PATH_MAX - 32) {
		xasprintf(cause, "%s=%s: name too long", o->opt, o->path);
		return (-1);
	}
	snprintf(o->base, sizeof o->base, "%s", base);
	if (slash == NULL)
		snprintf(o->dir, sizeof o->dir, ".");
	else {
		dlen = slash == o->path ? 1 : (size_t)(slash - o->path);
		snprintf(o->dir, sizeof o->dir, "%.*s", (int)dlen, o->path);
	}
	return (0);
}

int
report_export_check(const struct report_exports *e, char **cause)
{
	struct exp_one	o[3];
	struct stat	st;
	size_t		n, i, j;

	n = exp_table(e, o);
	for (i = 0; i < n; i++) {
		if (exp_split(&o[i], cause) != 0)
			return (-1);
		for (j = 0; j < i; j++) {
			if (strcmp(o[i].path, o[j].path) == 0) {
				xasprintf(cause, "%s=%s: the same path as %s",
				    o[i].opt, o[i].path, o[j].opt);
				return (-1);
			}
		}
		if (stat(o[i].dir, &st) != 0) {
			xasprintf(cause, "%s=%s: %s: %s", o[i].opt, o[i].path,
			    o[i].dir, strerror(errno));
			return (-1);
		}
		if (!S_ISDIR(st.st_mode)) {
			xasprintf(cause, "%s=%s: %s: not a directory",
			    o[i].opt, o[i].path, o[i].dir);
			return (-1);
		}
		if (access(o[i].dir, W_OK | X_OK) != 0) {
			xasprintf(cause, "%s=%s: %s: %s", o[i].opt, o[i].path,
			    o[i].dir, strerror(errno));
			return (-1);
		}
		if (stat(o[i].path, &st) == 0 && S_ISDIR(st.st_mode)) {
			xasprintf(cause, "%s=%s: is a directory", o[i].opt,
			    o[i].path);
			return (-1);
		}
	}
	return (0);
}

/* Copies DIR/o->file into a new temporary beside o->path; -1 with *cause. */
static int
exp_copy(const char *dir, struct exp_one *o, char **cause)
{
	char	src[PATH_MAX], buf[65536];
	ssize_t	got;
	int	in = -1, out = -1, r = -1;

	snprintf(src, sizeof src, "%s/%s", dir, o->file);
	if ((in = open(src, O_RDONLY | O_CLOEXEC)) == -1) {
		xasprintf(cause, "%s=%s: %s: %s", o->opt, o->path, src,
		    strerror(errno));
		goto out;
	}
	if ((out = file_create_tmp(o->dir, o->base, o->tmp,
	    sizeof o->tmp)) == -1) {
		o->tmp[0] = '\0';
		xasprintf(cause, "%s=%s: cannot create a file in %s: %s",
		    o->opt, o->path, o->dir, strerror(errno));
		goto out;
	}
	for (;;) {
		got = read(in, buf, sizeof buf);
		if (got == -1 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (util_write_all(out, buf, (size_t)got) != 0)
			break;
	}
	if (got != 0 || fsync(out) != 0) {
		xasprintf(cause, "%s=%s: cannot write %s: %s", o->opt, o->path,
		    o->tmp, strerror(errno));
		goto out;
	}
	r = close(out);
	out = -1;
	if (r != 0)
		xasprintf(cause, "%s=%s: cannot write %s: %s", o->opt,
		    o->path, o->tmp, strerror(errno));
out:
	if (in != -1)
		close(in);
	if (out != -1)
		close(out);
	return (r);
}

int
report_export(const char *dir, const struct report_exports *e, char **cause)
{
	struct exp_one	o[3];
	size_t		n, i;
	int		r = -1;

	n = exp_table(e, o);
	for (i = 0; i < n; i++) {
		if (exp_split(&o[i], cause) != 0 ||
		    exp_copy(dir, &o[i], cause) != 0)
			goto out;
	}
	/* Only when every copy is whole does any replace the user's file. */
	for (i = 0; i < n; i++) {
		if (rename(o[i].tmp, o[i].path) != 0) {
			xasprintf(cause, "%s=%s: %s", o[i].opt, o[i].path,
			    strerror(errno));
			goto out;
		}
		o[i].tmp[0] = '\0';
	}
	r = 0;
out:
	for (i = 0; i < n; i++) {
		if (o[i].tmp[0] != '\0')
			unlink(o[i].tmp);
	}
	return (r);
}
