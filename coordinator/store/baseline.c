/*
 * orch baseline set|list|rm: a baseline is a name for a run directory, a
 * symbolic link reports/baselines/NAME to the directory's absolute path,
 * so that `orch compare NAME DIR` compares a run with it. The name follows
 * proto/ident.h's rule, so it is never a path.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/store/baseline.h"
#include "coordinator/store/dataset.h"
#include "proto/ident.h"
#include "proto/proto.h"
#include "proto/xmalloc.h"

#define BASELINE_NAME_RULE \
	"1 to 63 of A-Z a-z 0-9 _ . -, not starting with - or ."

int
baseline_resolve(const char *name, char **dir, char **cause)
{
	char	 path[PATH_MAX], target[PATH_MAX];
	ssize_t	 n;

	*dir = NULL;
	if (!ident_str_ok(name, PROTO_NAME_MAX))
		return (1);
	snprintf(path, sizeof path, "%s/%s", BASELINE_DIR, name);
	if ((n = readlink(path, target, sizeof target - 1)) == -1) {
		if (errno == ENOENT)
			return (1);
		xasprintf(cause, "baseline %s: %s: %s", name, path,
		    strerror(errno));
		return (-1);
	}
	target[n] = '\0';
	*dir = xstrdup(target);
	return (0);
}

/* Creates reports/baselines (and reports) when missing. */
static int
baseline_mkdir(void)
{
	if (mkdir("reports", 0755) == -1 && errno != EEXIST)
		return (-1);
	if (mkdir(BASELINE_DIR, 0755) == -1 && errno != EEXIST)
		return (-1);
	return (0);
}

/* orch baseline set NAME DIR */
int
baseline_set(const char *name, const char *dir)
{
	struct dataset	*ds = NULL;
	char		 real[PATH_MAX], path[PATH_MAX], tmp[PATH_MAX];
	char		*cause = NULL;

	if (!ident_str_ok(name, PROTO_NAME_MAX)) {
		fprintf(stderr, "orch baseline: bad name '%.64s' (want "
		    BASELINE_NAME_RULE ")\n", name);
		return (2);
	}
	/* A baseline names a run: its record must load. */
	if (record_load(dir, &ds, &cause) != 0) {
		fprintf(stderr, "orch baseline: %s: %s\n", dir, cause);
		free(cause);
		return (2);
	}
	dataset_free(ds);
	if (realpath(dir, real) == NULL) {
		fprintf(stderr, "orch baseline: %s: %s\n", dir,
		    strerror(errno));
		return (2);
	}
	if (baseline_mkdir() != 0) {
		fprintf(stderr, "orch baseline: %s: %s\n", BASELINE_DIR,
		    strerror(errno));
		return (2);
	}
	snprintf(path, sizeof path, "%s/%s", BASELINE_DIR, name);
	snprintf(tmp, sizeof tmp, "%s/.%s.%ld.tmp", BASELINE_DIR, name,
	    (long)getpid());
	/* Replaced in one rename: a reader sees the old link or the new. */
	unlink(tmp);
	if (symlink(real, tmp) == -1 || rename(tmp, path) == -1) {
		fprintf(stderr, "orch baseline: %s: %s\n", path,
		    strerror(errno));
		unlink(tmp);
		return (2);
	}
	printf("baseline %s -> %s\n", name, real);
	return (0);
}

/* Compares two strings for qsort. */
static int
baseline_cmp(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

/* orch baseline list */
int
baseline_list(void)
{
	DIR		*d;
	struct dirent	*e;
	char		**names = NULL, *dir, *cause = NULL;
	size_t		 n = 0, i;

	if ((d = opendir(BASELINE_DIR)) == NULL) {
		if (errno == ENOENT)
			return (0);
		fprintf(stderr, "orch baseline: %s: %s\n", BASELINE_DIR,
		    strerror(errno));
		return (2);
	}
	while ((e = readdir(d)) != NULL) {
		if (!ident_str_ok(e->d_name, PROTO_NAME_MAX))
			continue;	/* ., .., temporaries */
		names = xreallocarray(names, n + 1, sizeof *names);
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (n > 0)		/* qsort wants a real array, even of none */
		qsort(names, n, sizeof *names, baseline_cmp);
	for (i = 0; i < n; i++) {
		if (baseline_resolve(names[i], &dir, &cause) == 0) {
			printf("%s\t%s\n", names[i], dir);
			free(dir);
		} else {
			free(cause);
			cause = NULL;
		}
		free(names[i]);
	}
	free(names);
	return (0);
}

/* orch baseline rm NAME */
int
baseline_rm(const char *name)
{
	char	path[PATH_MAX], *dir = NULL, *cause = NULL;
	int	rc;

	if ((rc = baseline_resolve(name, &dir, &cause)) != 0) {
		if (rc < 0) {
			fprintf(stderr, "orch baseline: %s\n", cause);
			free(cause);
		} else
			fprintf(stderr, "orch baseline: no baseline '%.64s' "
			    "(orch baseline list)\n", name);
		return (2);
	}
	free(dir);
	snprintf(path, sizeof path, "%s/%s", BASELINE_DIR, name);
	if (unlink(path) == -1) {
		fprintf(stderr, "orch baseline: %s: %s\n", path,
		    strerror(errno));
		return (2);
	}
	return (0);
}
