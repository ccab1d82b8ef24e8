/*
 * orch compare OLD NEW. Two runs share no rounds, so nothing pairs their
 * samples across runs. The relative rows compare each variant's per-round
 * log ratio to its own run's reference (the machine's state cancels within
 * a round) between the runs as two independent samples, by the
 * Hodges–Lehmann shift and its Mann–Whitney inversion interval
 * (stats-hl.c), held to one Bonferroni family of 5% family-wise error like
 * a run's primary comparisons; they decide. The absolute rows compare each
 * variant's own values the same way, say whether its files are the same in
 * both runs, and are never called better or worse: their interval knows
 * nothing of the between-run spread (docs/statistics.md, "Between runs").
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/analysis/gate.h"
#include "coordinator/analysis/stats-hl.h"
#include "coordinator/input/suite.h"
#include "coordinator/input/tty.h"
#include "coordinator/report/compare.h"
#include "coordinator/report/json.h"
#include "coordinator/report/report-text.h"
#include "coordinator/report/report.h"
#include "coordinator/store/history.h"
#include "proto/file.h"
#include "proto/log.h"
#include "proto/xmalloc.h"

struct cmp_row {
	size_t			 ahost;		/* index into new
						   analysis.hosts */
	size_t			 oh, nh;	/* dataset hosts: old, new */
	size_t			 ob, nb;	/* benches */
	size_t			 ov, nv;	/* variants */
	size_t			 nold, nnew;	/* good measured runs */
	double			 ratio, lo, hi;	/* new / old; NAN unknown */
	enum stats_verdict	 verdict;
	enum stats_verdict	 tested;	/* the test's own verdict */
	int			 same_files;	/* the variant's and the
						   data files' SHA-256s */
	double			 spread;	/* between-run sd of the log
						   median; NAN unknown */
	size_t			 nspread;	/* indexed runs it is from */
	size_t			 spread_df;
};

/* One variant against its own run's reference, new over old. */
struct cmp_rel {
	size_t			 row;		/* its absolute row */
	size_t			 ow, nw;	/* the reference: old, new */
	size_t			 nold, nnew;	/* rounds with both */
	double			 ratio, lo, hi;	/* new / old; NAN unknown */
	enum stats_verdict	 verdict;
};

struct cmp {
	const char		*old_dir, *new_dir;
	struct dataset		*old, *new;
	struct analysis		*ao, *an;
	size_t			 nrows;
	struct cmp_row		*rows;
	size_t			 nrel;
	struct cmp_rel		*rel;
	size_t			 family;	/* comparisons with
						   a verdict test */
	double			 level;		/* of every interval */
	size_t			 nwarn;
	char			**warn;
	size_t			 nonly;
	char			**only;		/* present in one run only */
	struct history		*hist;		/* NEW's reports' store;
						   NULL none */
};

#define CMP_SPREAD_MIN	3	/* indexed runs of one row's files */
#define CMP_SPREAD_LOAD	12	/* records read for one row, at most */

/* Appends a printf-style line to a list. */
static void __attribute__((format(printf, 3, 4)))
cmp_list(char ***list, size_t *nlist, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;
	int	 n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatalx("cannot format a line");
	s = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	*list = xreallocarray(*list, *nlist + 1, sizeof **list);
	(*list)[(*nlist)++] = s;
}

/* Returns the index of name among names[0..n), or -1. */
static long
cmp_find(char *const *names, size_t n, const char *name)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (strcmp(names[i], name) == 0)
			return ((long)i);
	}
	return (-1);
}

/* Returns the index of bench name in ds, or -1. */
static long
cmp_bench(const struct dataset *ds, const char *name)
{
	size_t	i;

	for (i = 0; i < ds->nbenches; i++) {
		if (strcmp(ds->benches[i].name, name) == 0)
			return ((long)i);
	}
	return (-1);
}

/* Returns the value of a fact key of h, or NULL. */
static const char *
cmp_fact(const struct ds_host *h, const char *key)
{
	size_t	i;

	for (i = 0; i < h->facts.nextra && i < PROTO_FACTS_EXTRA_MAX; i++) {
		if (strcmp(h->facts.extra[i].key, key) == 0)
			return (h->facts.extra[i].value);
	}
	return (NULL);
}

/*
 * Collects the log values of the good measured runs of (host, bench,
 * variant) on metric into *x. Returns how many.
 */
static size_t
cmp_logs(const struct analysis *a, size_t host, size_t bench, size_t variant,
    double **x)
{
	const struct dataset	*ds = a->ds;
	const struct ds_sample	*s;
	const char		*metric = ds->benches[bench].metrics[0];
	size_t			 hb = host * ds->nbenches + bench, i, n = 0;
	double			 v;

	/* The analysis' index: only (host, bench)'s samples, in order. */
	*x = xreallocarray(NULL, a->hb_start[hb + 1] - a->hb_start[hb] + 1,
	    sizeof **x);
	for (i = a->hb_start[hb]; i < a->hb_start[hb + 1]; i++) {
		s = &ds->samples[a->by_hb[i]];
		if (s->variant != variant || s->warmup || s->status != 0)
			continue;
		if (analysis_value(a, host, s, metric, &v) != 0 ||
		    !isfinite(v) || !(v > 0))
			continue;
		(*x)[n++] = log(v);
	}
	return (n);
}

/* Warns where host oh of the old run and nh of the new differ. */
static void
cmp_facts(struct cmp *c, size_t oh, size_t nh)
{
	const struct ds_host	*o = &c->old->hosts[oh];
	const struct ds_host	*n = &c->new->hosts[nh];
	const char		*ov, *nv;
	size_t			 i;

	if (strcmp(o->facts.cpu_model, n->facts.cpu_model) != 0)
		cmp_list(&c->warn, &c->nwarn, "host %s: CPU model differs: "
		    "'%s' then, '%s' now", n->name, o->facts.cpu_model,
		    n->facts.cpu_model);
	if (strcmp(o->facts.arch, n->facts.arch) != 0)
		cmp_list(&c->warn, &c->nwarn, "host %s: architecture differs: "
		    "%s then, %s now", n->name, o->facts.arch, n->facts.arch);
	if (strcmp(o->facts.kernel, n->facts.kernel) != 0)
		cmp_list(&c->warn, &c->nwarn, "host %s: kernel differs: %s "
		    "then, %s now", n->name, o->facts.kernel, n->facts.kernel);
	if (o->facts.cores != n->facts.cores)
		cmp_list(&c->warn, &c->nwarn, "host %s: cores differ: %u "
		    "then, %u now", n->name, o->facts.cores, n->facts.cores);
	if (strcmp(o->agent_version, n->agent_version) != 0)
		cmp_list(&c->warn, &c->nwarn, "host %s: agent version "
		    "differs: %s then, %s now", n->name, o->agent_version,
		    n->agent_version);
	/* governor, boost, SMT, ...: every fact either run reported. */
	for (i = 0; i < n->facts.nextra && i < PROTO_FACTS_EXTRA_MAX; i++) {
		nv = n->facts.extra[i].value;
		ov = cmp_fact(o, n->facts.extra[i].key);
		if (ov == NULL || strcmp(ov, nv) != 0)
			cmp_list(&c->warn, &c->nwarn, "host %s: %s differs: "
			    "%s then, %s now", n->name, n->facts.extra[i].key,
			    ov != NULL ? ov : "(not reported)", nv);
	}
	for (i = 0; i < o->facts.nextra && i < PROTO_FACTS_EXTRA_MAX; i++) {
		if (cmp_fact(n, o->facts.extra[i].key) == NULL)
			cmp_list(&c->warn, &c->nwarn, "host %s: %s differs: "
			    "%s then, (not reported) now", n->name,
			    o->facts.extra[i].key, o->facts.extra[i].value);
	}
}

/* Warns where the files of (host, variant) differ between the runs. */
static void
cmp_files(struct cmp *c, size_t oh, size_t nh)
{
	const struct ds_file	*nf, *of;
	size_t			 i, j;

	for (i = 0; i < c->new->nfiles; i++) {
		nf = &c->new->files[i];
		if (nf->host != nh)
			continue;
		for (j = 0; j < c->old->nfiles; j++) {
			of = &c->old->files[j];
			if (of->host == oh && strcmp(of->variant,
			    nf->variant) == 0 && strcmp(of->role,
			    nf->role) == 0)
				break;
		}
		if (j == c->old->nfiles)
			continue;
		if (strcmp(of->sha, nf->sha) != 0)
			cmp_list(&c->warn, &c->nwarn, "host %s: %s%s%s's "
			    "SHA-256 differs: %.12s then, %.12s now",
			    c->new->hosts[nh].name, nf->variant,
			    nf->variant[0] != '\0' ? " " : "", nf->role,
			    of->sha, nf->sha);
	}
}

/* Warns when a host's median load per core moved by more than 0.25. */
static void
cmp_load(struct cmp *c, size_t nh)
{
	const struct rep_host	*ro = NULL, *rn = NULL;
	double			 cores;
	long			 oh = dataset_host(c->old,
				    c->new->hosts[nh].name);
	size_t			 i;

	for (i = 0; i < c->an->nhosts; i++) {
		if (c->an->hosts[i].host == nh)
			rn = &c->an->hosts[i];
	}
	for (i = 0; oh >= 0 && i < c->ao->nhosts; i++) {
		if (c->ao->hosts[i].host == (size_t)oh)
			ro = &c->ao->hosts[i];
	}
	if (ro == NULL || rn == NULL || isnan(ro->load_med) ||
	    isnan(rn->load_med))
		return;
	cores = c->new->hosts[nh].facts.cores > 0 ?
	    c->new->hosts[nh].facts.cores : 1;
	if (fabs(rn->load_med - ro->load_med) / cores > 0.25)
		cmp_list(&c->warn, &c->nwarn, "host %s: load differs: median "
		    "1-minute load %.2f then, %.2f now (%u cores)",
		    c->new->hosts[nh].name, ro->load_med, rn->load_med,
		    c->new->hosts[nh].facts.cores);
}

/*
 * Warns when the orch versions differ, and lists the hosts, benchmarks
 * and variants the old run has and the new one lacks, and the other way.
 */
static void
cmp_only(struct cmp *c)
{
	const struct dataset	*o = c->old, *n = c->new;
	size_t			 i;

	if (strcmp(o->orch_version, n->orch_version) != 0)
		cmp_list(&c->warn, &c->nwarn, "orch version differs: %s then, "
		    "%s now", o->orch_version, n->orch_version);
	for (i = 0; i < o->nhosts; i++) {
		if (dataset_host(n, o->hosts[i].name) < 0)
			cmp_list(&c->only, &c->nonly, "host %s: only in the "
			    "old run", o->hosts[i].name);
	}
	for (i = 0; i < o->nbenches; i++) {
		if (strcmp(o->benches[i].name, RECORD_FLOOR) != 0 &&
		    cmp_bench(n, o->benches[i].name) < 0)
			cmp_list(&c->only, &c->nonly, "bench %s: only in the "
			    "old run", o->benches[i].name);
	}
	for (i = 0; i < n->nbenches; i++) {
		if (strcmp(n->benches[i].name, RECORD_FLOOR) != 0 &&
		    cmp_bench(o, n->benches[i].name) < 0)
			cmp_list(&c->only, &c->nonly, "bench %s: only in the "
			    "new run", n->benches[i].name);
	}
	for (i = 0; i < o->nvariants; i++) {
		if (cmp_find(n->variants, n->nvariants, o->variants[i]) < 0)
			cmp_list(&c->only, &c->nonly, "variant %s: only in the "
			    "old run", o->variants[i]);
	}
	for (i = 0; i < n->nvariants; i++) {
		if (cmp_find(o->variants, o->nvariants, n->variants[i]) < 0)
			cmp_list(&c->only, &c->nonly, "variant %s: only in the "
			    "new run", n->variants[i]);
	}
}

/*
 * Adds a row for each benchmark and variant of the analysed host ai (nh
 * in the new run, oh in the old) that both runs have, with one primary
 * metric; lists those whose primary metric changed.
 */
static void
cmp_host_rows(struct cmp *c, size_t ai, size_t nh, size_t oh)
{
	const struct dataset	*o = c->old, *n = c->new;
	struct cmp_row		*r;
	size_t			 b, v;
	long			 ob, ov;

	for (b = 0; b < n->nbenches; b++) {
		if (strcmp(n->benches[b].name, RECORD_FLOOR) == 0 ||
		    n->benches[b].nmetrics == 0 ||
		    (ob = cmp_bench(o, n->benches[b].name)) < 0)
			continue;
		if (o->benches[ob].nmetrics == 0 ||
		    strcmp(o->benches[ob].metrics[0],
		    n->benches[b].metrics[0]) != 0) {
			cmp_list(&c->only, &c->nonly, "host %s bench %s: "
			    "primary metric %s then, %s now: not compared",
			    n->hosts[nh].name, n->benches[b].name,
			    o->benches[ob].nmetrics ?
			    o->benches[ob].metrics[0] : "none",
			    n->benches[b].metrics[0]);
			continue;
		}
		for (v = 0; v < n->nvariants; v++) {
			if ((ov = cmp_find(o->variants, o->nvariants,
			    n->variants[v])) < 0)
				continue;
			c->rows = xreallocarray(c->rows, c->nrows + 1,
			    sizeof *c->rows);
			r = &c->rows[c->nrows++];
			memset(r, 0, sizeof *r);
			r->ahost = ai;
			r->oh = oh;
			r->nh = nh;
			r->ob = (size_t)ob;
			r->nb = b;
			r->ov = (size_t)ov;
			r->nv = v;
		}
	}
}

/* Returns 1 when some file of host h in ds has variant "" and SHA-256 sha. */
static int
cmp_has_data(const struct dataset *ds, size_t h, const char *sha)
{
	size_t	i;

	for (i = 0; i < ds->nfiles; i++) {
		if (ds->files[i].host == h && ds->files[i].variant[0] == '\0' &&
		    strcmp(ds->files[i].sha, sha) == 0)
			return (1);
	}
	return (0);
}

/* Returns the SHA-256 of variant's role file on host h in ds, or NULL. */
static const char *
cmp_sha(const struct dataset *ds, size_t h, const char *variant,
    const char *role)
{
	size_t	i;

	for (i = 0; i < ds->nfiles; i++) {
		if (ds->files[i].host == h &&
		    strcmp(ds->files[i].variant, variant) == 0 &&
		    strcmp(ds->files[i].role, role) == 0)
			return (ds->files[i].sha);
	}
	return (NULL);
}

/*
 * Returns 1 when one side's files of variant name on a host (its program
 * by role, the data files and hooks by SHA-256) are all in the other's,
 * and there is at least one.
 */
static int
cmp_files_in(const struct dataset *a, size_t ha, const struct dataset *b,
    size_t hb, const char *name)
{
	const struct ds_file	*f;
	const char		*sha;
	size_t			 i, n = 0;

	for (i = 0; i < a->nfiles; i++) {
		f = &a->files[i];
		if (f->host != ha)
			continue;
		if (f->variant[0] == '\0') {
			if (!cmp_has_data(b, hb, f->sha))
				return (0);
		} else if (strcmp(f->variant, name) == 0) {
			if ((sha = cmp_sha(b, hb, name, f->role)) == NULL ||
			    strcmp(sha, f->sha) != 0)
				return (0);
			n++;
		}
	}
	return (n > 0);
}

/* Returns variant name of ds's parsed suite, or NULL. */
static const struct suite_variant *
cmp_def(const struct dataset *ds, const char *name)
{
	size_t	i;

	for (i = 0; ds->suite != NULL && i < ds->suite->nvariants; i++) {
		if (strcmp(ds->suite->variants[i].name, name) == 0)
			return (&ds->suite->variants[i]);
	}
	return (NULL);
}

/* Returns 1 when two settings strings (NULL: none) are the same. */
static int
cmp_same_str(const char *a, const char *b)
{
	return (strcmp(a != NULL ? a : "", b != NULL ? b : "") == 0);
}

/*
 * Returns 1 when bench name has the same arguments in the parsed suites
 * of a and b, or neither suite has it.
 */
static int
cmp_same_args(const struct dataset *a, const struct dataset *b,
    const char *name)
{
	const struct suite_bench	*ob = NULL, *nb = NULL;
	size_t				 i;

	for (i = 0; a->suite != NULL && i < a->suite->nbenches; i++)
		if (strcmp(a->suite->benches[i].name, name) == 0)
			ob = &a->suite->benches[i];
	for (i = 0; b->suite != NULL && i < b->suite->nbenches; i++)
		if (strcmp(b->suite->benches[i].name, name) == 0)
			nb = &b->suite->benches[i];
	if (ob == NULL || nb == NULL)
		return (ob == nb);
	if (ob->nargs != nb->nargs)
		return (0);
	for (i = 0; i < ob->nargs; i++) {
		if (strcmp(ob->args[i], nb->args[i]) != 0)
			return (0);
	}
	return (1);
}

/*
 * Returns 1 when variant name on bench is the same on host ha of run a
 * and hb of run b: its files and the data files by SHA-256, its settings
 * (args, env, ...) and the benchmark's arguments as the suites write them.
 */
static int
cmp_same_in(const struct dataset *a, size_t ha, const struct dataset *b,
    size_t hb, const char *name, const char *bench)
{
	const struct suite_variant	*ov, *nv;

	if (!cmp_files_in(a, ha, b, hb, name) ||
	    !cmp_files_in(b, hb, a, ha, name))
		return (0);
	ov = cmp_def(a, name);
	nv = cmp_def(b, name);
	if (ov == NULL || nv == NULL) {
		if (ov != nv)
			return (0);
	} else if (!cmp_same_str(ov->settings, nv->settings))
		return (0);
	return (cmp_same_args(a, b, bench));
}

/* Returns 1 when row r's variant is the same in both runs. */
static int
cmp_same_files(const struct cmp *c, const struct cmp_row *r)
{
	return (cmp_same_in(c->old, r->oh, c->new, r->nh,
	    c->new->variants[r->nv], c->new->benches[r->nb].name));
}

/*
 * Adds a relative row for each absolute row of a variant other than the
 * new run's reference, when the old run has that reference too.
 */
static void
cmp_rel_rows(struct cmp *c)
{
	const char	*ref = c->new->variants[c->new->ref];
	struct cmp_rel	*q;
	size_t		 i;
	long		 ow;

	if ((ow = cmp_find(c->old->variants, c->old->nvariants, ref)) < 0)
		return;
	for (i = 0; i < c->nrows; i++) {
		if (c->rows[i].nv == c->new->ref ||
		    c->rows[i].ov == (size_t)ow)
			continue;
		c->rel = xreallocarray(c->rel, c->nrel + 1, sizeof *c->rel);
		q = &c->rel[c->nrel++];
		memset(q, 0, sizeof *q);
		q->row = i;
		q->ow = (size_t)ow;
		q->nw = c->new->ref;
	}
}

/* Returns 1 when relative row q's variant and reference are both the same
 * in the two runs: then only the machine or the layout moved. */
static int
cmp_rel_same(const struct cmp *c, const struct cmp_rel *q)
{
	const struct cmp_row	*r = &c->rows[q->row];
	size_t			 i;

	for (i = 0; i < c->nrows; i++) {
		if (c->rows[i].ahost == r->ahost && c->rows[i].nb == r->nb &&
		    c->rows[i].nv == q->nw)
			return (r->same_files && c->rows[i].same_files);
	}
	return (0);
}

/*
 * Tests relative row q at the family's level (test 0: only counts its
 * rounds). Returns 1 when it can be called: both runs have enough rounds,
 * and the variant or its reference changed (with neither changed, it is
 * never better or worse).
 */
static int
cmp_rel_test(struct cmp *c, struct cmp_rel *q, int test)
{
	const struct cmp_row	*r = &c->rows[q->row];
	double			*x, *y, e, l, h;
	size_t			 nx, ny;

	x = xreallocarray(NULL, c->old->rounds + 1, sizeof *x);
	y = xreallocarray(NULL, c->new->rounds + 1, sizeof *y);
	nx = analysis_pair_logs(c->ao, r->oh, r->ob, r->ov, q->ow, x);
	ny = analysis_pair_logs(c->an, r->nh, r->nb, r->nv, q->nw, y);
	q->nold = nx;
	q->nnew = ny;
	q->ratio = q->lo = q->hi = NAN;
	if (test && nx >= STATS_MIN_PAIRS && ny >= STATS_MIN_PAIRS &&
	    stats_hl_shift(x, nx, y, ny, c->level, &e, &l, &h) == 0) {
		q->ratio = exp(e);
		q->lo = exp(l);
		q->hi = exp(h);
	}
	free(x);
	free(y);
	if (test)
		q->verdict = stats_verdict(q->ratio, q->lo, q->hi,
		    c->new->min_effect, c->new->benches[r->nb].higher[0],
		    nx < ny ? nx : ny, 1);
	if (cmp_rel_same(c, q)) {
		if (q->verdict == VERDICT_BETTER || q->verdict == VERDICT_WORSE)
			q->verdict = VERDICT_INCONCLUSIVE;
		return (0);
	}
	return (nx >= STATS_MIN_PAIRS && ny >= STATS_MIN_PAIRS);
}

/*
 * Reads indexed run i of a query for row r: when its files of r's variant
 * are the old run's (group 0) or the new run's (1), returns the group and
 * sets *x to the log of its median; -1 when its record was read and its
 * files are neither, -2 when it was not read (OLD or NEW itself, not the
 * primary metric, no median).
 */
static int
cmp_spread_run(const struct cmp *c, const struct cmp_row *r,
    const struct hist_run *run, const struct hist_point *p, double *x)
{
	struct dataset	*ds = NULL;
	const char	*name = c->new->variants[r->nv];
	const char	*bench = c->new->benches[r->nb].name;
	char		*why = NULL;
	long		 h;
	int		 g = -1;

	if (!p->primary || !isfinite(p->typical) || !(p->typical > 0) ||
	    strcmp(run->run_id, c->old->run_id) == 0 ||
	    strcmp(run->run_id, c->new->run_id) == 0)
		return (-2);
	if (record_load(run->dir, &ds, &why) != 0) {
		free(why);
		return (-1);
	}
	if ((h = dataset_host(ds, c->new->hosts[r->nh].name)) >= 0) {
		if (cmp_same_in(ds, (size_t)h, c->old, r->oh, name, bench))
			g = 0;
		else if (cmp_same_in(ds, (size_t)h, c->new, r->nh, name,
		    bench))
			g = 1;
	}
	dataset_free(ds);
	*x = log(p->typical);
	return (g);
}

/*
 * Sets row r's between-run spread from the history store: the pooled
 * standard deviation of the log medians of those of the latest
 * CMP_SPREAD_LOAD indexed runs read whose files are the old run's or the
 * new run's, known when CMP_SPREAD_MIN or more have one run's files.
 */
static void
cmp_spread(struct cmp *c, struct cmp_row *r)
{
	struct hist_filter	 f;
	struct hist_run		*runs = NULL;
	struct hist_point	*pts = NULL;
	double			 x[2][CMP_SPREAD_LOAD], v, m, ss = 0;
	size_t			 nruns = 0, npts = 0, n[2] = { 0, 0 }, seen = 0;
	size_t			 i, j, k, df = 0;
	char			*why = NULL;
	int			 g;

	r->spread = NAN;
	memset(&f, 0, sizeof f);
	f.host = c->new->hosts[r->nh].name;
	f.bench = c->new->benches[r->nb].name;
	f.metric = c->new->benches[r->nb].metrics[0];
	f.variant = c->new->variants[r->nv];
	if (c->hist == NULL || history_query(c->hist, &f, &runs, &nruns,
	    &pts, &npts, &why) != 0) {
		free(why);
		return;
	}
	for (i = npts; i-- > 0 && seen < CMP_SPREAD_LOAD; ) {
		if ((g = cmp_spread_run(c, r, &runs[pts[i].run], &pts[i],
		    &v)) == -2)
			continue;
		seen++;
		if (g >= 0)
			x[g][n[g]++] = v;
	}
	history_query_free(runs, nruns, pts, npts);
	for (k = 0; k < 2; k++) {
		if (n[k] < 2)
			continue;
		for (m = 0, j = 0; j < n[k]; j++)
			m += x[k][j] / (double)n[k];
		for (j = 0; j < n[k]; j++)
			ss += (x[k][j] - m) * (x[k][j] - m);
		df += n[k] - 1;
	}
	if ((n[0] >= CMP_SPREAD_MIN || n[1] >= CMP_SPREAD_MIN) && df >= 2) {
		r->spread = sqrt(ss / (double)df);
		r->nspread = n[0] + n[1];
		r->spread_df = df;
	}
}

/*
 * Widens row r's interval by its between-run spread: the within-run
 * standard error (from the interval) and twice the run-level variance
 * (each run has its own), at the level with Student's t on the spread's
 * degrees of freedom.
 */
static void
cmp_widen(const struct cmp *c, struct cmp_row *r)
{
	double	z, sew, se, t, d;

	if (isnan(r->ratio) || isnan(r->lo) || isnan(r->hi) ||
	    !(r->lo > 0) || !(r->hi > r->lo)) {
		r->lo = r->hi = NAN;
		return;
	}
	z = stats_qnorm(1 - (1 - c->level) / 2);
	sew = (log(r->hi) - log(r->lo)) / (2 * z);
	se = sqrt(sew * sew + 2 * r->spread * r->spread);
	t = stats_qt_upper((1 - c->level) / 2, (double)r->spread_df);
	d = log(r->ratio);
	r->lo = exp(d - t * se);
	r->hi = exp(d + t * se);
}

/*
 * Tests absolute row r at the family's level. With the same files it is
 * never better or worse (the machine moved); with changed files it is
 * decided only with a known between-run spread in its interval, else
 * inconclusive.
 */
static void
cmp_abs_test(struct cmp *c, struct cmp_row *r)
{
	double	*x = NULL, *y = NULL, e, l, h;
	size_t	 nx, ny;

	r->ratio = r->lo = r->hi = NAN;
	nx = cmp_logs(c->ao, r->oh, r->ob, r->ov, &x);
	ny = cmp_logs(c->an, r->nh, r->nb, r->nv, &y);
	r->nold = nx;
	r->nnew = ny;
	if (nx >= STATS_MIN_PAIRS && ny >= STATS_MIN_PAIRS &&
	    stats_hl_shift(x, nx, y, ny, c->level, &e, &l, &h) == 0) {
		r->ratio = exp(e);
		r->lo = exp(l);
		r->hi = exp(h);
	}
	free(x);
	free(y);
	if (!r->same_files && !isnan(r->spread))
		cmp_widen(c, r);
	r->tested = stats_verdict(r->ratio, r->lo, r->hi,
	    c->new->min_effect, c->new->benches[r->nb].higher[0],
	    nx < ny ? nx : ny, 1);
	r->verdict = r->tested;
	if (r->verdict == VERDICT_INVALID)
		return;
	if (!r->same_files && !isnan(r->spread))
		return;
	if (!r->same_files || r->verdict != VERDICT_SAME)
		r->verdict = VERDICT_INCONCLUSIVE;
}

/*
 * Tests every row at the family's level: its ratio, interval and verdict.
 * The family is every row that can be called: the relative rows, and the
 * absolute rows of changed files whose between-run spread is known.
 */
static void
cmp_test(struct cmp *c)
{
	struct cmp_row	*r;
	double		*x = NULL, *y = NULL;
	size_t		 i, nx, ny;

	for (i = 0; i < c->nrows; i++) {
		r = &c->rows[i];
		r->same_files = cmp_same_files(c, r);
		r->spread = NAN;
		if (r->same_files)
			continue;
		cmp_spread(c, r);
		if (isnan(r->spread))
			continue;
		nx = cmp_logs(c->ao, r->oh, r->ob, r->ov, &x);
		ny = cmp_logs(c->an, r->nh, r->nb, r->nv, &y);
		free(x);
		free(y);
		x = y = NULL;
		c->family += nx >= STATS_MIN_PAIRS && ny >= STATS_MIN_PAIRS;
	}
	cmp_rel_rows(c);
	for (i = 0; i < c->nrel; i++)
		c->family += cmp_rel_test(c, &c->rel[i], 0);
	c->level = 1 - STATS_ALPHA / (double)(c->family > 0 ? c->family : 1);
	for (i = 0; i < c->nrel; i++)
		cmp_rel_test(c, &c->rel[i], 1);
	for (i = 0; i < c->nrows; i++)
		cmp_abs_test(c, &c->rows[i]);
}

/* Builds the rows, warnings and lists of what only one run has. */
static void
cmp_build(struct cmp *c)
{
	const struct dataset	*o = c->old, *n = c->new;
	size_t			 ai, nh;
	long			 oh;

	cmp_only(c);
	for (ai = 0; ai < c->an->nhosts; ai++) {
		nh = c->an->hosts[ai].host;
		if ((oh = dataset_host(o, n->hosts[nh].name)) < 0) {
			cmp_list(&c->only, &c->nonly, "host %s: only in the "
			    "new run", n->hosts[nh].name);
			continue;
		}
		cmp_facts(c, (size_t)oh, nh);
		cmp_files(c, (size_t)oh, nh);
		cmp_load(c, nh);
		cmp_host_rows(c, ai, nh, (size_t)oh);
	}
	cmp_test(c);
}

/* Writes a ratio and its interval into buf. */
static void
cmp_ratio(const struct cmp_row *r, char *buf, size_t len)
{
	if (isnan(r->ratio))
		snprintf(buf, len, "-");
	else if (isnan(r->lo) || isnan(r->hi))
		snprintf(buf, len, "%.3f [unbounded]", r->ratio);
	else
		snprintf(buf, len, "%.3f [%.3f, %.3f]", r->ratio, r->lo,
		    r->hi);
}

/* Returns the verdict's word, with why it is invalid. */
static const char *
cmp_verdict(const struct cmp_row *r, char *buf, size_t len)
{
	if (r->verdict == VERDICT_INVALID) {
		snprintf(buf, len, "invalid: %zu then and %zu now good runs "
		    "(fewer than %d)", r->nold, r->nnew, STATS_MIN_PAIRS);
		return (buf);
	}
	return (stats_verdict_name(r->verdict));
}

/* Returns the absolute row of the new run's reference beside r, or NULL. */
static const struct cmp_row *
cmp_ref_row(const struct cmp *c, const struct cmp_row *r)
{
	size_t	i;

	for (i = 0; i < c->nrows; i++) {
		if (c->rows[i].ahost == r->ahost && c->rows[i].nb == r->nb &&
		    c->rows[i].nv == c->new->ref)
			return (&c->rows[i]);
	}
	return (NULL);
}

/*
 * Writes what absolute row r says beyond its verdict into buf: the files
 * unchanged and the machine's move (the reference's beside it), or why a
 * row of changed files is not decided. "" for an invalid row.
 */
static const char *
cmp_note(const struct cmp *c, const struct cmp_row *r, char *buf,
    size_t len)
{
	const struct cmp_row	*w = cmp_ref_row(c, r);
	char			 ref[128] = "";

	if (r->verdict == VERDICT_INVALID)
		snprintf(buf, len, "files %s", r->same_files ? "unchanged" :
		    "changed");
	else if (!r->same_files && !isnan(r->spread))
		snprintf(buf, len, "files changed: between-run spread %.1f%% "
		    "from %zu indexed runs of these files, in the interval",
		    r->spread * 100, r->nspread);
	else if (!r->same_files)
		snprintf(buf, len, "files changed: between-run spread "
		    "unknown: index >= 3 runs of these files, or compare the "
		    "relative rows");
	else if (isnan(r->ratio))
		snprintf(buf, len, "files unchanged");
	else {
		if (w != NULL && w != r && !isnan(w->ratio))
			snprintf(ref, sizeof ref, " (the reference %s: "
			    "%+.1f%%%s)", c->new->variants[w->nv],
			    (w->ratio - 1) * 100, w->same_files ? "" :
			    ", its files changed");
		snprintf(buf, len, "files unchanged: the machine moved by "
		    "%+.1f%%%s", (r->ratio - 1) * 100, ref);
	}
	return (buf);
}

/* Writes whose files changed, of relative row q's variant and reference,
 * into buf. */
static const char *
cmp_rel_note(const struct cmp *c, const struct cmp_rel *q, char *buf,
    size_t len)
{
	const struct cmp_row	*r = &c->rows[q->row];
	const struct cmp_row	*w = cmp_ref_row(c, r);
	int			 wsame = w != NULL && w->same_files;

	if (r->same_files && wsame)
		snprintf(buf, len, "files of both unchanged: never better or "
		    "worse, only the machine moved");
	else if (r->same_files)
		snprintf(buf, len, "%s's files unchanged, the reference's "
		    "changed: a move is the reference's",
		    c->new->variants[r->nv]);
	else if (wsame)
		snprintf(buf, len, "%s's files changed",
		    c->new->variants[r->nv]);
	else
		snprintf(buf, len, "files of both changed");
	return (buf);
}

/* Writes relative row q's ratio and interval into buf. */
static void
cmp_rel_ratio(const struct cmp_rel *q, char *buf, size_t len)
{
	struct cmp_row	r;

	memset(&r, 0, sizeof r);
	r.ratio = q->ratio;
	r.lo = q->lo;
	r.hi = q->hi;
	cmp_ratio(&r, buf, len);
}

/* Returns relative row q's verdict word, with why it is invalid. */
static const char *
cmp_rel_verdict(const struct cmp_rel *q, char *buf, size_t len)
{
	if (q->verdict == VERDICT_INVALID) {
		snprintf(buf, len, "invalid: %zu then and %zu now rounds "
		    "with both (fewer than %d)", q->nold, q->nnew,
		    STATS_MIN_PAIRS);
		return (buf);
	}
	return (stats_verdict_name(q->verdict));
}

/* Returns the architecture group label of row r. */
static const char *
cmp_group(const struct cmp *c, const struct cmp_row *r)
{
	const struct rep_group	*g = &c->an->groups[c->an->hosts[r->ahost].
				    group];

	return (g->known ? g->label : "hosts that gave no facts");
}

/* The introduction: what is compared with what, at which level. */
static void
cmp_intro(const struct cmp *c, FILE *f, void (*text)(FILE *, const char *))
{
	fputs("Old run ", f);
	text(f, c->old->run_id);
	fputs(" (", f);
	text(f, c->old_dir);
	fputs(", started ", f);
	text(f, c->old->started);
	fputs("), new run ", f);
	text(f, c->new->run_id);
	fputs(" (", f);
	text(f, c->new_dir);
	fputs(", started ", f);
	text(f, c->new->started);
	fprintf(f, "). The relative rows decide: each variant's per-round "
	    "ratio to its own run's reference (the machine's state cancels "
	    "within a round), new / old, the two runs compared as two "
	    "independent samples: the Hodges-Lehmann shift of the log ratios, "
	    "its interval the Mann-Whitney inversion at %.2f%% (%zu "
	    "comparison%s, Bonferroni: 5%% family-wise); worse means the new "
	    "run is worse. The absolute rows compare each variant's own "
	    "values the same way and say whether its files are the same in "
	    "both runs; with unchanged files only the machine moved and they "
	    "are never better or worse, with changed files they are decided "
	    "only when the history store gives the spread between runs of "
	    "these files, which then is in their interval.", c->level * 100,
	    c->family,
	    c->family == 1 ? "" : "s");
}

static void
cmp_md_text(FILE *f, const char *s)
{
	report_md_text(f, s);
}

/* Returns the row of (bench b, variant v) on analysis host k, or NULL. */
static const struct cmp_row *
cmp_cell(const struct cmp *c, size_t b, size_t v, size_t k)
{
	size_t	i;

	for (i = 0; i < c->nrows; i++) {
		if (c->rows[i].nb == b && c->rows[i].nv == v &&
		    c->rows[i].ahost == k)
			return (&c->rows[i]);
	}
	return (NULL);
}

/* Returns 1 when some host compared (bench b, variant v). */
static int
cmp_has(const struct cmp *c, size_t b, size_t v)
{
	size_t	i;

	for (i = 0; i < c->nrows; i++) {
		if (c->rows[i].nb == b && c->rows[i].nv == v)
			return (1);
	}
	return (0);
}

/* compare.md's relative rows. */
static void
cmp_md_rel(const struct cmp *c, FILE *f)
{
	const struct cmp_rel	*q;
	const struct cmp_row	*r;
	char			 ratio[128], vb[128], nb[256];
	size_t			 i;

	if (c->nrel == 0)
		return;
	fputs("## Relative: each variant against its own run's reference\n\n"
	    "| host | bench | metric | variant | reference | old rounds | "
	    "new rounds | new / old [interval] | verdict | files |\n"
	    "|---|---|---|---|---|---:|---:|---:|---|---|\n", f);
	for (i = 0; i < c->nrel; i++) {
		q = &c->rel[i];
		r = &c->rows[q->row];
		cmp_rel_ratio(q, ratio, sizeof ratio);
		fprintf(f, "| `%s` | `%s` | `%s` | `%s` | `%s` | %zu | %zu | ",
		    c->new->hosts[r->nh].name, c->new->benches[r->nb].name,
		    c->new->benches[r->nb].metrics[0],
		    c->new->variants[r->nv], c->new->variants[q->nw],
		    q->nold, q->nnew);
		report_md_text(f, ratio);
		fputs(" | ", f);
		report_md_text(f, cmp_rel_verdict(q, vb, sizeof vb));
		fputs(" | ", f);
		report_md_text(f, cmp_rel_note(c, q, nb, sizeof nb));
		fputs(" |\n", f);
	}
	fputc('\n', f);
}

/* compare.md */
static int
cmp_md(const void *arg, FILE *f)
{
	const struct cmp	*c = arg;
	const struct cmp_row	*r;
	const char		*g = NULL;
	char			 ratio[128], vb[128], nb[256];
	size_t			 i, j, k;

	fputs("# orch compare: ", f);
	report_md_text(f, c->old->suite_name);
	fputs("\n\n", f);
	cmp_intro(c, f, cmp_md_text);
	fputs("\n\n", f);
	cmp_md_rel(c, f);
	if (c->nwarn > 0) {
		fputs("## Warnings: the runs differ in what matters\n\n", f);
		for (i = 0; i < c->nwarn; i++) {
			fputs("- **warning:** ", f);
			report_md_text(f, c->warn[i]);
			fputc('\n', f);
		}
		fputc('\n', f);
	}
	if (c->nonly > 0) {
		fputs("## Not compared\n\n", f);
		for (i = 0; i < c->nonly; i++) {
			fputs("- ", f);
			report_md_text(f, c->only[i]);
			fputc('\n', f);
		}
		fputc('\n', f);
	}
	for (i = 0; i < c->nrows; i++) {
		r = &c->rows[i];
		if (g == NULL || strcmp(g, cmp_group(c, r)) != 0) {
			g = cmp_group(c, r);
			fputs("## Absolute: ", f);
			report_md_text(f, g);
			fputs("\n\n| host | bench | metric | variant | "
			    "old runs | new runs | new / old [interval] "
			    "| verdict | files |\n"
			    "|---|---|---|---|---:|---:|---:|---|---|\n", f);
		}
		cmp_ratio(r, ratio, sizeof ratio);
		fprintf(f, "| `%s` | `%s` | `%s` | `%s` | %zu | %zu | ",
		    c->new->hosts[r->nh].name, c->new->benches[r->nb].name,
		    c->new->benches[r->nb].metrics[0],
		    c->new->variants[r->nv], r->nold, r->nnew);
		report_md_text(f, ratio);
		fputs(" | ", f);
		report_md_text(f, cmp_verdict(r, vb, sizeof vb));
		fputs(" | ", f);
		report_md_text(f, cmp_note(c, r, nb, sizeof nb));
		fputs(" |\n", f);
		if (i + 1 == c->nrows || strcmp(g, cmp_group(c,
		    &c->rows[i + 1])) != 0)
			fputc('\n', f);
	}
	/* The matrix: per benchmark and variant, each host's ratio. */
	if (c->nrows > 0) {
		fputs("## Matrix\n\n| bench | variant |", f);
		for (k = 0; k < c->an->nhosts; k++)
			fprintf(f, " `%s` |", c->new->hosts[c->an->hosts[k].
			    host].name);
		fputs("\n|---|---|", f);
		for (k = 0; k < c->an->nhosts; k++)
			fputs("---:|", f);
		fputc('\n', f);
		for (j = 0; j < c->new->nbenches * c->new->nvariants; j++) {
			size_t	b = j / c->new->nvariants;
			size_t	v = j % c->new->nvariants;

			if (!cmp_has(c, b, v))
				continue;
			fprintf(f, "| `%s` | `%s` |", c->new->benches[b].name,
			    c->new->variants[v]);
			for (k = 0; k < c->an->nhosts; k++) {
				if ((r = cmp_cell(c, b, v, k)) == NULL) {
					fputs(" |", f);
					continue;
				}
				cmp_ratio(r, ratio, sizeof ratio);
				fputc(' ', f);
				report_md_text(f, ratio);
				fprintf(f, " %s |", stats_verdict_name(
				    r->verdict));
			}
			fputc('\n', f);
		}
	}
	return (ferror(f) ? -1 : 0);
}

/* compare.html's relative rows. */
static void
cmp_html_rel(const struct cmp *c, FILE *f)
{
	const struct cmp_rel	*q;
	const struct cmp_row	*r;
	char			 ratio[128], vb[128], nb[256];
	size_t			 i;

	if (c->nrel == 0)
		return;
	fputs("<h2>Relative: each variant against its own run's reference"
	    "</h2>\n<table>\n<tr><th>host</th><th>bench</th><th>metric</th>"
	    "<th>variant</th><th>reference</th><th>old rounds</th>"
	    "<th>new rounds</th><th>new / old [interval]</th>"
	    "<th>verdict</th><th>files</th></tr>\n", f);
	for (i = 0; i < c->nrel; i++) {
		q = &c->rel[i];
		r = &c->rows[q->row];
		cmp_rel_ratio(q, ratio, sizeof ratio);
		fprintf(f, "<tr><td><code>%s</code></td><td><code>%s</code>"
		    "</td><td><code>%s</code></td><td><code>%s</code></td>"
		    "<td><code>%s</code></td><td class=\"n\">%zu</td>"
		    "<td class=\"n\">%zu</td><td class=\"n\">%s</td><td>",
		    c->new->hosts[r->nh].name, c->new->benches[r->nb].name,
		    c->new->benches[r->nb].metrics[0],
		    c->new->variants[r->nv], c->new->variants[q->nw],
		    q->nold, q->nnew, ratio);
		report_html_esc(f, cmp_rel_verdict(q, vb, sizeof vb));
		fputs("</td><td>", f);
		report_html_esc(f, cmp_rel_note(c, q, nb, sizeof nb));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* compare.html */
static int
cmp_html(const void *arg, FILE *f)
{
	const struct cmp	*c = arg;
	const struct cmp_row	*r;
	const char		*g = NULL;
	char			 ratio[128], vb[128], nb[256];
	size_t			 i, j, k;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
	    "charset=\"utf-8\">\n<title>orch compare: ", f);
	report_html_esc(f, c->old->suite_name);
	fputs("</title>\n<style>body{font-family:sans-serif;max-width:72em;"
	    "margin:1em auto}table{border-collapse:collapse}td,th{border:1px "
	    "solid #ccc;padding:.2em .5em}.warn{color:#a00;font-weight:bold}"
	    "td.n{text-align:right}</style>\n</head>\n<body>\n<h1>orch "
	    "compare: ", f);
	report_html_esc(f, c->old->suite_name);
	fputs("</h1>\n<p>", f);
	cmp_intro(c, f, report_html_esc);
	fputs("</p>\n", f);
	cmp_html_rel(c, f);
	if (c->nwarn > 0) {
		fputs("<h2>Warnings: the runs differ in what matters</h2>\n"
		    "<ul>\n", f);
		for (i = 0; i < c->nwarn; i++) {
			fputs("<li class=\"warn\">warning: ", f);
			report_html_esc(f, c->warn[i]);
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	}
	if (c->nonly > 0) {
		fputs("<h2>Not compared</h2>\n<ul>\n", f);
		for (i = 0; i < c->nonly; i++) {
			fputs("<li>", f);
			report_html_esc(f, c->only[i]);
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	}
	for (i = 0; i < c->nrows; i++) {
		r = &c->rows[i];
		if (g == NULL || strcmp(g, cmp_group(c, r)) != 0) {
			if (g != NULL)
				fputs("</table>\n", f);
			g = cmp_group(c, r);
			fputs("<h2>Absolute: ", f);
			report_html_esc(f, g);
			fputs("</h2>\n<table>\n<tr><th>host</th><th>bench</th>"
			    "<th>metric</th><th>variant</th><th>old runs</th>"
			    "<th>new runs</th><th>new / old [interval]</th>"
			    "<th>verdict</th><th>files</th></tr>\n", f);
		}
		cmp_ratio(r, ratio, sizeof ratio);
		fprintf(f, "<tr><td><code>%s</code></td><td><code>%s</code>"
		    "</td><td><code>%s</code></td><td><code>%s</code></td>"
		    "<td class=\"n\">%zu</td><td class=\"n\">%zu</td>"
		    "<td class=\"n\">%s</td><td>", c->new->hosts[r->nh].name,
		    c->new->benches[r->nb].name,
		    c->new->benches[r->nb].metrics[0],
		    c->new->variants[r->nv], r->nold, r->nnew, ratio);
		report_html_esc(f, cmp_verdict(r, vb, sizeof vb));
		fputs("</td><td>", f);
		report_html_esc(f, cmp_note(c, r, nb, sizeof nb));
		fputs("</td></tr>\n", f);
	}
	if (g != NULL)
		fputs("</table>\n", f);
	/* The matrix: per benchmark and variant, each host's ratio. */
	fputs("<h2>Matrix</h2>\n<table>\n<tr><th>bench</th><th>variant</th>",
	    f);
	for (k = 0; k < c->an->nhosts; k++)
		fprintf(f, "<th><code>%s</code></th>", c->new->hosts[
		    c->an->hosts[k].host].name);
	fputs("</tr>\n", f);
	for (j = 0; j < c->new->nbenches * c->new->nvariants; j++) {
		size_t	b = j / c->new->nvariants;
		size_t	v = j % c->new->nvariants;

		if (!cmp_has(c, b, v))
			continue;
		fprintf(f, "<tr><td><code>%s</code></td><td><code>%s</code>"
		    "</td>", c->new->benches[b].name, c->new->variants[v]);
		for (k = 0; k < c->an->nhosts; k++) {
			if ((r = cmp_cell(c, b, v, k)) == NULL) {
				fputs("<td></td>", f);
				continue;
			}
			cmp_ratio(r, ratio, sizeof ratio);
			fprintf(f, "<td class=\"n\">%s %s</td>", ratio,
			    stats_verdict_name(r->verdict));
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n</body>\n</html>\n", f);
	return (ferror(f) ? -1 : 0);
}

/* Writes one run's identity as a JSON object. */
static void
cmp_json_run(FILE *f, const struct dataset *ds, const char *dir)
{
	fputs("{\"dir\": ", f);
	json_str(f, dir);
	fputs(", \"run_id\": ", f);
	json_str(f, ds->run_id);
	fputs(", \"suite\": ", f);
	json_str(f, ds->suite_name);
	fputs(", \"started\": ", f);
	json_str(f, ds->started);
	fputs(", \"orch_version\": ", f);
	json_str(f, ds->orch_version);
	fputs("}", f);
}

/*
 * A compare.json row's host, bench, metric and variant members; sep goes
 * before the first ("" when they open the row).
 */
static void
cmp_json_where(const struct cmp *c, const struct cmp_row *r,
    const char *sep, FILE *f)
{
	fprintf(f, "%s\"host\": ", sep);
	json_str(f, c->new->hosts[r->nh].name);
	fputs(", \"bench\": ", f);
	json_str(f, c->new->benches[r->nb].name);
	fputs(", \"metric\": ", f);
	json_str(f, c->new->benches[r->nb].metrics[0]);
	fputs(", \"variant\": ", f);
	json_str(f, c->new->variants[r->nv]);
}

/* A row's ratio, its interval's ends under the names given, its verdict. */
static void
cmp_json_interval(FILE *f, double ratio, const char *lo_name, double lo,
    const char *hi_name, double hi, enum stats_verdict verdict)
{
	json_num(f, ratio);
	fprintf(f, ", \"%s\": ", lo_name);
	json_num(f, lo);
	fprintf(f, ", \"%s\": ", hi_name);
	json_num(f, hi);
	fputs(", \"verdict\": ", f);
	json_str(f, stats_verdict_name(verdict));
}

/* A list of strings, the items of a compare.json array. */
static void
cmp_json_strings(FILE *f, char *const *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		json_str(f, v[i]);
	}
}

/* compare.json's relative rows: the list's items. */
static void
cmp_json_rel(const struct cmp *c, FILE *f)
{
	const struct cmp_rel	*q;
	const struct cmp_row	*r;
	size_t			 i;

	for (i = 0; i < c->nrel; i++) {
		q = &c->rel[i];
		r = &c->rows[q->row];
		fputs(i ? ",\n    {" : "\n    {", f);
		cmp_json_where(c, r, "", f);
		fputs(", \"reference\": ", f);
		json_str(f, c->new->variants[q->nw]);
		fprintf(f, ", \"old_rounds\": %zu, \"new_rounds\": %zu, "
		    "\"ratio\": ", q->nold, q->nnew);
		cmp_json_interval(f, q->ratio, "ci_low", q->lo, "ci_high",
		    q->hi, q->verdict);
		fputs("}", f);
	}
}

/* compare.json's absolute rows: the list's items. */
static void
cmp_json_abs(const struct cmp *c, FILE *f)
{
	const struct cmp_row	*r;
	char			 nb[256];
	size_t			 i;

	for (i = 0; i < c->nrows; i++) {
		r = &c->rows[i];
		fputs(i ? ",\n    {\"group\": " : "\n    {\"group\": ", f);
		json_str(f, cmp_group(c, r));
		cmp_json_where(c, r, ", ", f);
		fprintf(f, ", \"old_runs\": %zu, \"new_runs\": %zu, "
		    "\"ratio\": ", r->nold, r->nnew);
		cmp_json_interval(f, r->ratio, "lo", r->lo, "hi", r->hi,
		    r->verdict);
		fputs(", \"files\": ", f);
		json_str(f, r->same_files ? "same" : "changed");
		fputs(", \"note\": ", f);
		json_str(f, cmp_note(c, r, nb, sizeof nb));
		fputs("}", f);
	}
}

/* compare.json */
static int
cmp_json(const void *arg, FILE *f)
{
	const struct cmp	*c = arg;

	fputs("{\n  \"old\": ", f);
	cmp_json_run(f, c->old, c->old_dir);
	fputs(",\n  \"new\": ", f);
	cmp_json_run(f, c->new, c->new_dir);
	fprintf(f, ",\n  \"family_size\": %zu,\n  \"level\": ", c->family);
	json_num(f, c->level);
	fputs(",\n  \"warnings\": [", f);
	cmp_json_strings(f, c->warn, c->nwarn);
	fputs(c->nwarn ? "\n  ],\n  \"not_compared\": [" :
	    "],\n  \"not_compared\": [", f);
	cmp_json_strings(f, c->only, c->nonly);
	fputs(c->nonly ? "\n  ],\n  \"relative\": [" :
	    "],\n  \"relative\": [", f);
	cmp_json_rel(c, f);
	fputs(c->nrel ? "\n  ],\n  \"comparisons\": [" :
	    "],\n  \"comparisons\": [", f);
	cmp_json_abs(c, f);
	fputs(c->nrows ? "\n  ]\n}\n" : "]\n}\n", f);
	return (ferror(f) ? -1 : 0);
}

/* The relative rows on the terminal. */
static void
cmp_text_rel(const struct cmp *c, FILE *f)
{
	const struct cmp_rel	*q;
	const struct cmp_row	*r;
	char			 ratio[128], vb[128], nb[256];
	size_t			 i;

	if (c->nrel > 0)
		fputs("  relative: each variant / its own run's reference, "
		    "new / old (these decide):\n", f);
	for (i = 0; i < c->nrel; i++) {
		q = &c->rel[i];
		r = &c->rows[q->row];
		cmp_rel_ratio(q, ratio, sizeof ratio);
		fprintf(f, "    %s  %s  %s  %s / %s  %s  %s",
		    c->new->hosts[r->nh].name, c->new->benches[r->nb].name,
		    c->new->benches[r->nb].metrics[0],
		    c->new->variants[r->nv], c->new->variants[q->nw], ratio,
		    cmp_rel_verdict(q, vb, sizeof vb));
		fprintf(f, "  (%s)\n", cmp_rel_note(c, q, nb, sizeof nb));
	}
}

/* The answer on the terminal. */
static void
cmp_text(const struct cmp *c, FILE *f)
{
	const struct cmp_row	*r;
	const char		*g = NULL;
	char			 ratio[128], vb[128], nb[256];
	size_t			 i;

	fputs("compare: new run ", f);
	tty_write(f, c->new->run_id);
	fputs(" against old run ", f);
	tty_write(f, c->old->run_id);
	fprintf(f, ": ratio new / old on each primary metric, with its "
	    "interval at %.2f%% (%zu comparison%s that can be called, 5%% "
	    "family-wise)\n", c->level * 100, c->family,
	    c->family == 1 ? "" : "s");
	for (i = 0; i < c->nwarn; i++) {
		fputs("WARNING: ", f);
		tty_write(f, c->warn[i]);
		fputc('\n', f);
	}
	for (i = 0; i < c->nonly; i++) {
		fputs("not compared: ", f);
		tty_write(f, c->only[i]);
		fputc('\n', f);
	}
	cmp_text_rel(c, f);
	for (i = 0; i < c->nrows; i++) {
		r = &c->rows[i];
		if (g == NULL || strcmp(g, cmp_group(c, r)) != 0) {
			g = cmp_group(c, r);
			fputs("  absolute, ", f);
			tty_write(f, g);
			fputs(" (decided only with a between-run spread):\n",
			    f);
		}
		cmp_ratio(r, ratio, sizeof ratio);
		fprintf(f, "    %s  %s  %s  %s  %s  %s  %s\n",
		    c->new->hosts[r->nh].name, c->new->benches[r->nb].name,
		    c->new->benches[r->nb].metrics[0],
		    c->new->variants[r->nv], ratio,
		    cmp_verdict(r, vb, sizeof vb), cmp_note(c, r, nb,
		    sizeof nb));
	}
}

/* Returns the --fail-on bit verdict v trips. */
static int
cmp_gate_bit(enum stats_verdict v)
{
	return (v == VERDICT_WORSE ? GATE_WORSE : v == VERDICT_INVALID ?
	    GATE_INVALID : v == VERDICT_INCONCLUSIVE ? GATE_INCONCLUSIVE : 0);
}

/* The --fail-on lines of the relative rows that trip mask. */
static char *
cmp_gate_rel(const struct cmp *c, int mask)
{
	const struct cmp_rel	*q;
	const struct cmp_row	*r;
	char			*lines = NULL, *s, ratio[128], vb[128];
	size_t			 i;

	for (i = 0; i < c->nrel; i++) {
		q = &c->rel[i];
		r = &c->rows[q->row];
		if ((cmp_gate_bit(q->verdict) & mask) == 0)
			continue;
		cmp_rel_ratio(q, ratio, sizeof ratio);
		xasprintf(&s, "%sorch: --fail-on: %s %s %s %s: new vs old %s: "
		    "ratio %s relative to %s at %.2f%% (family of %zu)\n",
		    lines != NULL ? lines : "", c->new->hosts[r->nh].name,
		    c->new->benches[r->nb].name,
		    c->new->benches[r->nb].metrics[0],
		    c->new->variants[r->nv], cmp_rel_verdict(q, vb,
		    sizeof vb), ratio, c->new->variants[q->nw],
		    c->level * 100, c->family);
		free(lines);
		lines = s;
	}
	return (lines);
}

/* The --fail-on lines of the comparisons that trip mask. */
static char *
cmp_gate(const struct cmp *c, int mask)
{
	const struct cmp_row	*r;
	char			*lines, *s, ratio[128], vb[128], nb[256];
	size_t			 i;

	lines = cmp_gate_rel(c, mask);
	for (i = 0; i < c->nrows; i++) {
		r = &c->rows[i];
		if ((cmp_gate_bit(r->verdict) & mask) == 0)
			continue;
		cmp_ratio(r, ratio, sizeof ratio);
		xasprintf(&s, "%sorch: --fail-on: %s %s %s %s: new vs old %s: "
		    "ratio %s at %.2f%% (family of %zu): %s\n", lines != NULL ?
		    lines : "", c->new->hosts[r->nh].name,
		    c->new->benches[r->nb].name,
		    c->new->benches[r->nb].metrics[0],
		    c->new->variants[r->nv], cmp_verdict(r, vb, sizeof vb),
		    ratio, c->level * 100, c->family, cmp_note(c, r, nb,
		    sizeof nb));
		free(lines);
		lines = s;
	}
	return (lines);
}

/*
 * Opens the history store of NEW's reports directory, when there is one,
 * for the between-run spreads; one that cannot be read is a warning.
 */
static void
cmp_hist_open(struct cmp *c)
{
	char	*path = history_path_of(c->new_dir), *why = NULL;
	int	 rebuilt = 0;

	if (path == NULL || access(path, F_OK) != 0) {
		free(path);
		return;
	}
	if (history_open(path, 0, &c->hist, &rebuilt, &why) != 0) {
		cmp_list(&c->warn, &c->nwarn, "history store not read (no "
		    "between-run spread): %s", why);
		free(why);
		c->hist = NULL;
	}
	free(path);
}

int
compare_render(const char *old_dir, const char *new_dir, const char *out_dir,
    FILE *tty, int fail_on, char **tripped, char **cause)
{
	struct cmp	 c;
	char		*why = NULL;
	size_t		 i;
	int		 r = -1;

	memset(&c, 0, sizeof c);
	*cause = NULL;
	if (tripped != NULL)
		*tripped = NULL;
	c.old_dir = old_dir;
	c.new_dir = new_dir;
	if (record_load(old_dir, &c.old, &why) != 0) {
		xasprintf(cause, "old run %s: %s", old_dir, why);
		goto out;
	}
	if (record_load(new_dir, &c.new, &why) != 0) {
		xasprintf(cause, "new run %s: %s", new_dir, why);
		goto out;
	}
	if (analysis_build(c.old, &c.ao, &why) != 0 ||
	    analysis_build(c.new, &c.an, &why) != 0) {
		*cause = why;
		why = NULL;
		goto out;
	}
	cmp_hist_open(&c);
	cmp_build(&c);
	if (c.nrows == 0) {
		xasprintf(cause, "%s and %s have no host, benchmark and "
		    "variant in common: nothing to compare", old_dir, new_dir);
		goto out;
	}
	if (file_write(out_dir, "compare.json", cmp_json, &c,
	    cause) != 0 ||
	    file_write(out_dir, "compare.md", cmp_md, &c, cause) != 0 ||
	    file_write(out_dir, "compare.html", cmp_html, &c,
	    cause) != 0)
		goto out;
	if (tty != NULL) {
		cmp_text(&c, tty);
		fflush(tty);
	}
	if (tripped != NULL)
		*tripped = cmp_gate(&c, fail_on);
	r = 0;
out:
	free(why);
	for (i = 0; i < c.nwarn; i++)
		free(c.warn[i]);
	free(c.warn);
	for (i = 0; i < c.nonly; i++)
		free(c.only[i]);
	free(c.only);
	free(c.rows);
	free(c.rel);
	if (c.hist != NULL)
		history_close(c.hist);
	analysis_free(c.ao);
	analysis_free(c.an);
	dataset_free(c.old);
	dataset_free(c.new);
	return (r);
}
