/* orch doc check and render (report-doc.h): marks against their runs. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/analysis/claims.h"
#include "coordinator/input/docmark.h"
#include "coordinator/report/report-doc.h"
#include "coordinator/report/report-text.h"
#include "coordinator/store/baseline.h"
#include "coordinator/store/dataset.h"
#include "coordinator/store/record.h"
#include "proto/file.h"
#include "proto/xmalloc.h"

#define RD_MAX_RUNS	64	/* distinct runs a document names */

/* One run a document names, loaded once. */
struct rd_run {
	char		*name;		/* as the marks write it */
	struct dataset	*ds;
	struct analysis	*a;
};

/* What a document's marks need: its runs. */
struct rd_doc {
	const char	*path;
	struct rd_run	 runs[RD_MAX_RUNS];
	size_t		 nruns;
};

/* Frees the runs of d. */
static void
rd_free(struct rd_doc *d)
{
	size_t	i;

	for (i = 0; i < d->nruns; i++) {
		analysis_free(d->runs[i].a);
		dataset_free(d->runs[i].ds);
		free(d->runs[i].name);
	}
	d->nruns = 0;
}

/*
 * Resolves name into a run directory (caller frees): a directory with a
 * record, else a baseline. Returns 0, or -1 with *why set.
 */
static int
rd_resolve(const char *name, char **dir, char **why)
{
	char	path[PATH_MAX], *cause = NULL;
	int	rc;

	if ((size_t)snprintf(path, sizeof path, "%s/%s", name, RECORD_FILE) <
	    sizeof path && access(path, F_OK) == 0) {
		*dir = xstrdup(name);
		return (0);
	}
	if ((rc = baseline_resolve(name, dir, &cause)) == 0)
		return (0);
	if (rc < 0) {
		*why = cause;
		return (-1);
	}
	xasprintf(why, "no run '%s': neither a run directory (no %s in it) "
	    "nor a baseline (orch baseline list)", name, RECORD_FILE);
	return (-1);
}

/* Returns the loaded run name of d, loading it; NULL with *why set. */
static struct rd_run *
rd_run(struct rd_doc *d, const char *name, char **why)
{
	struct rd_run	*r;
	char		*dir = NULL, *cause = NULL;
	size_t		 i;

	for (i = 0; i < d->nruns; i++) {
		if (strcmp(d->runs[i].name, name) == 0)
			return (&d->runs[i]);
	}
	if (d->nruns == RD_MAX_RUNS) {
		xasprintf(why, "more than %d runs in one document",
		    RD_MAX_RUNS);
		return (NULL);
	}
	if (rd_resolve(name, &dir, why) != 0)
		return (NULL);
	r = &d->runs[d->nruns];
	memset(r, 0, sizeof *r);
	if (record_load(dir, &r->ds, &cause) != 0 ||
	    analysis_build(r->ds, &r->a, &cause) != 0 ||
	    claims_attach(r->a, &cause) != 0) {
		xasprintf(why, "run '%s': %s", name, cause);
		free(cause);
		free(dir);
		analysis_free(r->a);
		dataset_free(r->ds);
		return (NULL);
	}
	free(dir);
	r->name = xstrdup(name);
	d->nruns++;
	return (r);
}

/* Sets *why to "no WHAT 'x' in RUN (it has: a, b)"; returns -1. */
static int
rd_none(const char *what, const char *x, const char *run,
    const char *(*name)(const void *, size_t), const void *arg, size_t n,
    char **why)
{
	char	*all = xstrdup(""), *t;
	size_t	 i;

	for (i = 0; i < n; i++) {
		xasprintf(&t, "%s%s%s", all, i > 0 ? ", " : "", name(arg, i));
		free(all);
		all = t;
	}
	if (x == NULL)
		xasprintf(why, "%s= needed: %s has several (%s)", what, run,
		    all);
	else
		xasprintf(why, "no %s '%s' in %s (it has: %s)", what, x, run,
		    all);
	free(all);
	return (-1);
}

/* Names for rd_none. */
static const char *
rd_host_name(const void *arg, size_t i)
{
	return (((const struct dataset *)arg)->hosts[i].name);
}

static const char *
rd_bench_name(const void *arg, size_t i)
{
	return (((const struct dataset *)arg)->benches[i].name);
}

static const char *
rd_variant_name(const void *arg, size_t i)
{
	return (((const struct dataset *)arg)->variants[i]);
}

static const char *
rd_metric_name(const void *arg, size_t i)
{
	return (((const struct ds_bench *)arg)->metrics[i]);
}

static const char *
rd_group_name(const void *arg, size_t i)
{
	return (((const struct analysis *)arg)->groups[i].label);
}

/*
 * Finds x among n names (x NULL: the only one, or def when it is not
 * (size_t)-1); *out its index. Returns 0, or -1 with *why set.
 */
static int
rd_pick(const char *what, const char *x, const char *run,
    const char *(*name)(const void *, size_t), const void *arg, size_t n,
    size_t def, size_t *out, char **why)
{
	size_t	i;

	if (x == NULL) {
		if (n == 1 || def != (size_t)-1) {
			*out = n == 1 ? 0 : def;
			return (0);
		}
		return (rd_none(what, NULL, run, name, arg, n, why));
	}
	for (i = 0; i < n; i++) {
		if (strcmp(name(arg, i), x) == 0) {
			*out = i;
			return (0);
		}
	}
	return (rd_none(what, x, run, name, arg, n, why));
}

/* The figure a mark selects. */
struct rd_sel {
	const struct analysis	*a;
	size_t			 host, bench, metric, variant;
};

/*
 * Resolves m's host, bench, variant and metric in run r (the variant by
 * default the only one not the reference). Returns 0, or -1 with *why.
 */
static int
rd_select(const struct docmark *m, const struct rd_run *r,
    struct rd_sel *s, char **why)
{
	const struct dataset	*ds = r->ds;
	size_t			 def = (size_t)-1;

	s->a = r->a;
	if (ds->nvariants == 2)
		def = ds->ref == 0 ? 1 : 0;
	if (rd_pick("host", m->key[DM_HOST], r->name, rd_host_name, ds,
	    ds->nhosts, (size_t)-1, &s->host, why) != 0 ||
	    rd_pick("bench", m->key[DM_BENCH], r->name, rd_bench_name, ds,
	    ds->nbenches, (size_t)-1, &s->bench, why) != 0 ||
	    rd_pick("variant", m->key[DM_VARIANT], r->name, rd_variant_name,
	    ds, ds->nvariants, def, &s->variant, why) != 0 ||
	    rd_pick("metric", m->key[DM_METRIC], r->name, rd_metric_name,
	    &ds->benches[s->bench], ds->benches[s->bench].nmetrics, 0,
	    &s->metric, why) != 0)
		return (-1);
	return (0);
}

/* Writes a geometric mean's figure (field f) of m in r; 0 or -1. */
static int
rd_geo(FILE *out, const struct docmark *m, const struct rd_run *r,
    const char *f, char **why)
{
	const struct analysis	*a = r->a;
	const struct rep_geo	*geo;
	const char		*arch = m->key[DM_ARCH];
	size_t			 g = 0, i, n = 0, v, def = (size_t)-1;

	if (r->ds->nvariants == 2)
		def = r->ds->ref == 0 ? 1 : 0;
	if (rd_pick("variant", m->key[DM_VARIANT], r->name, rd_variant_name,
	    r->ds, r->ds->nvariants, def, &v, why) != 0)
		return (-1);
	if (m->key[DM_GROUP] != NULL) {
		if (rd_pick("group", m->key[DM_GROUP], r->name, rd_group_name,
		    a, a->ngroups, (size_t)-1, &g, why) != 0)
			return (-1);
	} else if (arch != NULL) {
		for (i = 0; i < a->ngroups; i++) {
			if (a->groups[i].known && strcmp(r->ds->hosts[
			    a->hosts[a->groups[i].from].host].facts.arch,
			    arch) == 0 && n++ == 0)
				g = i;
		}
		if (n == 0)
			return (rd_none("arch", arch, r->name, rd_group_name,
			    a, a->ngroups, why));
		if (n > 1) {
			xasprintf(why, "arch '%s' is %zu groups in %s: name "
			    "one with group=\"...\"", arch, n, r->name);
			return (-1);
		}
	} else if (rd_pick("group", NULL, r->name, rd_group_name, a,
	    a->ngroups, (size_t)-1, &g, why) != 0)
		return (-1);
	if ((geo = analysis_geo(a, g, v)) == NULL) {
		xasprintf(why, "variant '%s' has no geometric mean in %s (the "
		    "reference has none)", r->ds->variants[v], r->name);
		return (-1);
	}
	if (geo->nused == 0)
		fputs("—", out);
	else if (strcmp(f, "verdict") == 0)
		report_md_verdict(out, geo->verdict, geo->est);
	else if (strcmp(f, "geomean") == 0)
		report_text_estimate(out, geo->est);
	else if (strcmp(f, "ci_low") == 0 && geo->lo > 0)
		report_text_estimate(out, geo->lo);
	else if (strcmp(f, "ci_high") == 0 && isfinite(geo->hi))
		report_text_estimate(out, geo->hi);
	else
		fputs("—", out);
	return (0);
}

/* Returns rep_host of dataset host h in a, or NULL. */
static const struct rep_host *
rd_rep_host(const struct analysis *a, size_t h)
{
	size_t	i;

	for (i = 0; i < a->nhosts; i++) {
		if (a->hosts[i].host == h)
			return (&a->hosts[i]);
	}
	return (NULL);
}

/* Writes the figure of field mark m from run r; 0, or -1 with *why. */
static int
rd_field(FILE *out, const struct docmark *m, const struct rd_run *r,
    char **why)
{
	const char		*f = m->key[DM_FIELD];
	const struct rep_cmp	*c;
	const struct rep_result	*res;
	const struct rep_host	*rh;
	struct rd_sel		 s;
	char			 med[64], lo[64], hi[64];

	if (m->key[DM_ARCH] != NULL || m->key[DM_GROUP] != NULL ||
	    strcmp(f, "geomean") == 0) {
		if (strcmp(f, "geomean") != 0 && strcmp(f, "verdict") != 0 &&
		    strcmp(f, "ci_low") != 0 && strcmp(f, "ci_high") != 0) {
			xasprintf(why, "arch= and group= are for a geometric "
			    "mean (field=geomean, verdict, ci_low, ci_high), "
			    "not field=%s", f);
			return (-1);
		}
		return (rd_geo(out, m, r, f, why));
	}
	if (rd_select(m, r, &s, why) != 0)
		return (-1);
	if (strcmp(f, "rounds") == 0) {
		if ((rh = rd_rep_host(r->a, s.host)) == NULL) {
			xasprintf(why, "host '%s' has no results in %s",
			    r->ds->hosts[s.host].name, r->name);
			return (-1);
		}
		fprintf(out, "%u", rh->rounds_used);
		return (0);
	}
	if (strcmp(f, "median") == 0) {
		if ((res = analysis_result(r->a, s.host, s.bench, s.metric,
		    s.variant)) == NULL) {
			xasprintf(why, "no result of '%s' on host '%s' in %s",
			    r->ds->benches[s.bench].name,
			    r->ds->hosts[s.host].name, r->name);
			return (-1);
		}
		report_text_range(r->a, r->ds->benches[s.bench].metrics[
		    s.metric], res, med, lo, hi, sizeof med);
		fputs(med, out);
		return (0);
	}
	if ((c = analysis_cmp(r->a, s.host, s.bench, s.metric,
	    s.variant)) == NULL) {
		xasprintf(why, "variant '%s' is %s's reference: it has no %s",
		    r->ds->variants[s.variant], r->name, f);
		return (-1);
	}
	if (strcmp(f, "verdict") == 0)
		report_md_verdict(out, c->verdict, c->ratio);
	else if (strcmp(f, "p") == 0 && isfinite(c->p))
		report_text_p(out, c->p);
	else if (strcmp(f, "mde") == 0 && isfinite(c->mde))
		report_text_mde(out, c->mde);
	else if (c->verdict == VERDICT_INVALID || !isfinite(c->ratio))
		fputs("—", out);
	else if (strcmp(f, "ratio") == 0)
		report_text_estimate(out, c->ratio);
	else if (strcmp(f, "ci_low") == 0 && c->lo > 0)
		report_text_estimate(out, c->lo);
	else if (strcmp(f, "ci_high") == 0 && isfinite(c->hi))
		report_text_estimate(out, c->hi);
	else
		fputs("—", out);
	return (0);
}

/* Writes the table of block m from run r; 0, or -1 with *why. */
static int
rd_table(FILE *out, const struct docmark *m, const struct rd_run *r,
    char **why)
{
	const char	*t = m->key[DM_TABLE];
	size_t		 k, h;

	for (k = 0; k < DM_NKEYS; k++) {
		if (k != DM_TABLE && m->key[k] != NULL &&
		    (k != DM_HOST || strcmp(t, "matrix") != 0)) {
			xasprintf(why, "table=%s takes no %s= (only "
			    "table=matrix takes host=)", t,
			    docmark_key_name((enum docmark_key)k));
			return (-1);
		}
	}
	fputc('\n', out);
	if (strcmp(t, "geomeans") == 0)
		report_md_geomeans(out, r->a);
	else if (strcmp(t, "claims") == 0)
		report_md_claims(out, r->a);
	else if (m->key[DM_HOST] != NULL && rd_pick("host", m->key[DM_HOST],
	    r->name, rd_host_name, r->ds, r->ds->nhosts, (size_t)-1, &h,
	    why) != 0)
		return (-1);
	else if (report_md_matrix(out, r->a, m->key[DM_HOST]) != 0) {
		xasprintf(why, "%s has no host with results for a matrix",
		    r->name);
		return (-1);
	}
	return (0);
}

/*
 * Returns what mark m's VALUE is from its run (free it), its trailing
 * blank lines of a table made one newline; NULL with *why set.
 */
static char *
rd_value(struct rd_doc *d, const struct docmark *m, char **why)
{
	struct rd_run	*r;
	FILE		*f;
	char		*buf = NULL;
	size_t		 len = 0;
	int		 rc;

	if ((r = rd_run(d, m->run, why)) == NULL)
		return (NULL);
	if ((f = open_memstream(&buf, &len)) == NULL) {
		xasprintf(why, "open_memstream: %s", strerror(errno));
		return (NULL);
	}
	if (m->key[DM_TABLE] != NULL)
		rc = rd_table(f, m, r, why);
	else
		rc = rd_field(f, m, r, why);
	if (fclose(f) != 0 && rc == 0) {
		xasprintf(why, "a value: %s", strerror(errno));
		rc = -1;
	}
	if (rc != 0) {
		free(buf);
		return (NULL);
	}
	if (m->key[DM_TABLE] != NULL) {
		while (len > 1 && buf[len - 1] == '\n' && buf[len - 2] == '\n')
			buf[--len] = '\0';
	}
	return (buf);
}

/* The new text of a document, for file_write. */
struct rd_text {
	const char	*s;
	size_t		 len;
};

/* Writes the new text; file_write's callback. */
static int
rd_write(const void *arg, FILE *f)
{
	const struct rd_text	*t = arg;

	if (t->len > 0 && fwrite(t->s, 1, t->len, f) != t->len)
		return (-1);
	return (ferror(f) ? -1 : 0);
}

/*
 * Gives the new file at path the old one's mode (file_write makes 0600),
 * through a descriptor that refuses a link. Returns 0, or -1 with *cause.
 */
static int
rd_mode(const char *path, mode_t mode, char **cause)
{
	int	fd, rc;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		return (-1);
	}
	rc = fchmod(fd, mode);
	if (rc != 0)
		xasprintf(cause, "%s: fchmod: %s", path, strerror(errno));
	close(fd);
	return (rc == 0 ? 0 : -1);
}

/* Writes text over path through file_write; 0, or -1 with *cause. */
static int
rd_replace(const char *path, const char *text, size_t len, char **cause)
{
	struct rd_text	 t = { text, len };
	struct stat	 sb;
	const char	*slash = strrchr(path, '/');
	char		*dir, *why = NULL;
	int		 rc;

	if (lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		xasprintf(cause, "%s: not a regular file (a link?): orch doc "
		    "render replaces no link; render what it points at", path);
		return (-1);
	}
	if (slash == NULL)
		dir = xstrdup(".");
	else if (slash == path)
		dir = xstrdup("/");
	else
		xasprintf(&dir, "%.*s", (int)(slash - path), path);
	rc = file_write(dir, slash == NULL ? path : slash + 1, rd_write, &t,
	    &why);
	free(dir);
	if (rc != 0) {
		xasprintf(cause, "%s: %s", path, why);
		free(why);
		return (-1);
	}
	return (rd_mode(path, sb.st_mode & 07777, cause));
}

/* Appends "PATH:LINE: OLD in the document, NEW from RUN" to *diffs. */
static void
rd_diff(char **diffs, const char *path, const struct docmarks *dm,
    const struct docmark *m, const char *now)
{
	char	*t;

	if (m->key[DM_TABLE] != NULL)
		xasprintf(&t, "%s%s:%zu: the table=%s in the document, another "
		    "from %s\n", *diffs == NULL ? "" : *diffs, path, m->line,
		    m->key[DM_TABLE], m->run);
	else
		xasprintf(&t, "%s%s:%zu: %.*s in the document, %s from %s\n",
		    *diffs == NULL ? "" : *diffs, path, m->line,
		    (int)m->val_len, dm->text + m->val_off, now, m->run);
	free(*diffs);
	*diffs = t;
}

int
report_doc(const char *path, int render, char **diffs, char **cause)
{
	struct rd_doc	 d;
	struct docmarks	*dm = NULL;
	struct docmark	*m;
	FILE		*f = NULL;
	char		*now, *why = NULL, *text = NULL;
	size_t		 i, len = 0, at = 0;
	int		 rc = -1;

	*diffs = NULL;
	memset(&d, 0, sizeof d);
	d.path = path;
	if (docmark_load(path, &dm, cause) != 0)
		return (-1);
	if ((f = open_memstream(&text, &len)) == NULL) {
		xasprintf(cause, "open_memstream: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < dm->nmarks; i++) {
		m = &dm->marks[i];
		if ((now = rd_value(&d, m, &why)) == NULL) {
			xasprintf(cause, "%s:%zu: %s", path, m->line, why);
			free(why);
			goto out;
		}
		if (strlen(now) != m->val_len || memcmp(now, dm->text +
		    m->val_off, m->val_len) != 0)
			rd_diff(diffs, path, dm, m, now);
		fwrite(dm->text + at, 1, m->val_off - at, f);
		fputs(now, f);
		at = m->val_off + m->val_len;
		free(now);
	}
	fwrite(dm->text + at, 1, dm->len - at, f);
	if (fclose(f) != 0) {
		f = NULL;
		xasprintf(cause, "%s: %s", path, strerror(errno));
		goto out;
	}
	f = NULL;
	rc = *diffs != NULL;
	if (render && rc == 1) {
		if (rd_replace(path, text, len, cause) != 0)
			rc = -1;
		else
			rc = 0;
	}
out:
	if (f != NULL)
		fclose(f);
	if (rc < 0) {
		free(*diffs);
		*diffs = NULL;
	}
	free(text);
	docmark_free(dm);
	rd_free(&d);
	return (rc);
}
