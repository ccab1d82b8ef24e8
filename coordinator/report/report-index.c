/*
 * A run's entry in the history store, from its analysis: what `orch
 * index` and the end of a run write (report-index.h). The store itself
 * knows only rows (coordinator/store/history.h).
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/input/oneline.h"
#include "coordinator/input/suite.h"
#include "coordinator/report/report-index.h"
#include "coordinator/store/dataset.h"
#include "coordinator/store/history.h"
#include "coordinator/store/record.h"
#include "proto/proto.h"
#include "proto/xmalloc.h"

/*
 * Returns the series key of each variant of a one-line run (oneline_key:
 * its command's), a command given twice in the run with ".2", ".3", …
 * after the later ones; NULL when ds is not a one-line run. Free it with
 * ri_keys_free.
 */
static char **
ri_oneline_keys(const struct dataset *ds)
{
	char	**k, key[PROTO_NAME_MAX];
	size_t	  v, j, same;

	if (ds->suite == NULL || !oneline_is(ds->suite_text) ||
	    ds->suite->nvariants != ds->nvariants)
		return (NULL);
	k = xcalloc(ds->nvariants, sizeof *k);
	for (v = 0; v < ds->nvariants; v++) {
		oneline_key(ds->suite, v, key, sizeof key);
		for (j = 0, same = 1; j < v; j++)
			same += strncmp(k[j], key, strlen(key)) == 0;
		if (same > 1)
			xasprintf(&k[v], "%.*s.%zu", PROTO_NAME_MAX - 6, key,
			    same);
		else
			k[v] = xstrdup(key);
	}
	return (k);
}

/* Frees the keys of ri_oneline_keys; NULL is ok. */
static void
ri_keys_free(char **k, size_t n)
{
	size_t	i;

	for (i = 0; k != NULL && i < n; i++)
		free(k[i]);
	free(k);
}

/*
 * Writes the entry of ds (analysed in a), indexed from dir, inside the
 * caller's transaction: one point per result with measured runs; a
 * one-line run's under its commands, so that two commands never share a
 * series (docs/history.md).
 */
static int
ri_put(struct history *h, const char *dir, const struct dataset *ds,
    const struct analysis *a, char **cause)
{
	struct hist_entry	 e;
	struct hist_row		*rows, *p;
	const struct rep_result	*res;
	const struct rep_cmp	*c;
	const struct ds_host	*hh;
	char			 real[PATH_MAX], **keys;
	size_t			 i;
	int			 r;

	keys = ri_oneline_keys(ds);
	if (realpath(dir, real) == NULL)
		snprintf(real, sizeof real, "%s", dir);
	memset(&e, 0, sizeof e);
	e.run_id = ds->run_id;
	e.dir = real;
	e.started = ds->started;
	e.ended = ds->ended;
	e.suite = ds->suite_name;
	e.nlabels = ds->nlabels;
	e.label_keys = ds->label_keys;
	e.label_values = ds->label_values;
	rows = xcalloc(a->nresults + 1, sizeof *rows);
	for (i = 0; i < a->nresults; i++) {
		res = &a->results[i];
		if (res->sum.n == 0)
			continue;
		hh = &ds->hosts[res->host];
		c = analysis_cmp(a, res->host, res->bench, res->metric,
		    res->variant);
		p = &rows[e.nrows++];
		p->host = hh->name;
		p->arch = hh->facts.arch;
		p->cpu = hh->facts.cpu_model;
		p->bench = ds->benches[res->bench].name;
		p->metric = ds->benches[res->bench].metrics[res->metric];
		p->variant = keys != NULL ? keys[res->variant] :
		    ds->variants[res->variant];
		p->reference = keys != NULL ? keys[ds->ref] :
		    ds->variants[ds->ref];
		p->primary = res->metric == 0;
		p->ratio = c != NULL ? c->ratio : NAN;
		p->lo = c != NULL ? c->lo : NAN;
		p->hi = c != NULL ? c->hi : NAN;
		p->verdict = c != NULL ? stats_verdict_name(c->verdict) : "";
		p->typical = res->sum.median;
		/* Allocated per run: the machine behind the name may move. */
		p->node = hh->slurm != NULL ? hh->slurm->node : "";
	}
	e.rows = rows;
	r = history_put(h, &e, cause);
	free(rows);
	ri_keys_free(keys, ds->nvariants);
	return (r);
}

/* Loads, analyses and writes one run inside the caller's transaction. */
static int
ri_load_put(struct history *h, const char *dir, char **cause)
{
	struct dataset	*ds = NULL;
	struct analysis	*a = NULL;
	int		 r = -1;

	if (record_load(dir, &ds, cause) != 0)
		return (-1);
	if (analysis_build(ds, &a, cause) == 0)
		r = ri_put(h, dir, ds, a, cause);
	analysis_free(a);
	dataset_free(ds);
	return (r);
}

int
report_index_list(struct history *h, char *const *dirs, size_t n,
    char **cause)
{
	size_t	i;

	if (history_begin(h, cause) != 0)
		return (-1);
	for (i = 0; i < n; i++) {
		if (ri_load_put(h, dirs[i], cause) != 0) {
			history_rollback(h);
			return (-1);
		}
	}
	return (history_commit(h, cause));
}

int
report_index(struct history *h, const char *dir, char **cause)
{
	if (history_begin(h, cause) != 0)
		return (-1);
	if (ri_load_put(h, dir, cause) != 0) {
		history_rollback(h);
		return (-1);
	}
	return (history_commit(h, cause));
}

static int
ri_name_cmp(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

/*
 * Returns the names of the run directories under reports (holding a
 * regular samples.msgpack, not through a symlink), sorted, in *names.
 * Returns 0, or -1 with *cause set.
 */
static int
ri_runs(const char *reports, char ***names, size_t *nn, char **cause)
{
	DIR		*d;
	struct dirent	*e;
	struct stat	 sb;
	char		*p;

	*names = NULL;
	*nn = 0;
	if ((d = opendir(reports)) == NULL) {
		xasprintf(cause, "%s: %s", reports, strerror(errno));
		return (-1);
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		xasprintf(&p, "%s/%s", reports, e->d_name);
		/* Not reports/latest: the run it points at is there too. */
		if (lstat(p, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
			free(p);
			continue;
		}
		free(p);
		xasprintf(&p, "%s/%s/%s", reports, e->d_name, RECORD_FILE);
		if (lstat(p, &sb) == 0 && S_ISREG(sb.st_mode)) {
			*names = xreallocarray(*names, *nn + 1, sizeof **names);
			(*names)[(*nn)++] = xstrdup(e->d_name);
		}
		free(p);
	}
	closedir(d);
	if (*nn > 0)
		qsort(*names, *nn, sizeof **names, ri_name_cmp);
	return (0);
}

int
report_index_rebuild(struct history *h, const char *reports, size_t *n,
    size_t *nbad, char **cause)
{
	char	**names, *p, *why = NULL;
	size_t	 nn, i;

	*n = *nbad = 0;
	if (ri_runs(reports, &names, &nn, cause) != 0)
		return (-1);
	for (i = 0; i < nn; i++) {
		xasprintf(&p, "%s/%s", reports, names[i]);
		/* A run still going indexes itself when it ends. */
		if (record_busy(p)) {
			fprintf(stderr, "orch: index: skipped %s: its run is "
			    "still going (it indexes itself at its end)\n", p);
			free(p);
			free(names[i]);
			continue;
		}
		if (report_index(h, p, &why) != 0) {
			fprintf(stderr, "orch: index: skipped %s: %s\n", p,
			    why);
			free(why);
			why = NULL;
			(*nbad)++;
		} else
			(*n)++;
		free(p);
		free(names[i]);
	}
	free(names);
	return (0);
}

/* An older store was rebuilt empty: fills it from the runs beside it. */
static int
ri_rebuild_at(struct history *h, const char *path, char **cause)
{
	char	*rdir = xstrdup(path), *slash = strrchr(rdir, '/');
	size_t	 n, nbad;
	int	 r;

	if (slash == NULL) {
		free(rdir);
		rdir = xstrdup(".");
	} else
		*slash = '\0';
	fprintf(stderr, "orch: %s had an older schema: rebuilt at version "
	    "%d from the runs in %s\n", path, HISTORY_SCHEMA, rdir);
	r = report_index_rebuild(h, rdir, &n, &nbad, cause);
	free(rdir);
	return (r);
}

/* As report_index, for a run already loaded and analysed. */
static int
ri_put_run(struct history *h, const char *dir, const struct dataset *ds,
    const struct analysis *a, char **cause)
{
	if (history_begin(h, cause) != 0)
		return (-1);
	if (ri_put(h, dir, ds, a, cause) != 0) {
		history_rollback(h);
		return (-1);
	}
	return (history_commit(h, cause));
}

void
report_index_run(const char *dir, const struct dataset *ds,
    const struct analysis *a, int quiet)
{
	struct history	*h = NULL;
	char		*path, *cause = NULL;
	int		 rebuilt = 0, r;

	path = history_path_of(dir);
	r = history_open(path, 1, &h, &rebuilt, &cause);
	if (r == 0)
		r = ds == NULL ? report_index(h, dir, &cause) :
		    ri_put_run(h, dir, ds, a, &cause);
	if (r == 0 && rebuilt)
		r = ri_rebuild_at(h, path, &cause);
	if (r != 0) {
		fprintf(stderr, "orch: warning: not indexed into the history: "
		    "%s (orch index %s tries again)\n", cause, dir);
		free(cause);
	} else if (!quiet)
		/* Under the report: block, with the files the run wrote. */
		printf("        history: %s (orch history)\n", path);
	history_close(h);
	free(path);
}
