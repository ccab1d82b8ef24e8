/*
 * Memory layout (layout.h): Spearman's rank correlation of each measured
 * run's environment padding with its primary metric, per host, benchmark
 * and variant, Bonferroni over them all.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/analysis/layout.h"
#include "coordinator/analysis/stats.h"
#include "coordinator/store/dataset.h"

/* A value and where it was, for ranking. */
struct lay_pair {
	double	v;
	size_t	i;
};

/* Orders pairs by value. */
static int
lay_cmp(const void *a, const void *b)
{
	double	x = ((const struct lay_pair *)a)->v;
	double	y = ((const struct lay_pair *)b)->v;

	return ((x > y) - (x < y));
}

/*
 * Fills r with the ranks of x (1..n, ties their mean rank). Returns 0, or
 * -1 out of memory.
 */
static int
lay_ranks(const double *x, size_t n, double *r)
{
	struct lay_pair	*p;
	size_t		 i, j, k;

	if ((p = calloc(n + 1, sizeof *p)) == NULL)
		return (-1);
	for (i = 0; i < n; i++) {
		p[i].v = x[i];
		p[i].i = i;
	}
	qsort(p, n, sizeof *p, lay_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && p[j].v == p[i].v; j++)
			;
		for (k = i; k < j; k++)
			r[p[k].i] = (double)(i + j + 1) / 2.0;
	}
	free(p);
	return (0);
}

double
layout_spearman(const double *x, const double *y, size_t n, double *p)
{
	double	*rx, *ry, mx, sxy = 0, sxx = 0, syy = 0, rho, z;
	size_t	 i;

	*p = NAN;
	if (n < LAYOUT_MIN_N)
		return (NAN);
	rx = calloc(n, sizeof *rx);
	ry = calloc(n, sizeof *ry);
	if (rx == NULL || ry == NULL || lay_ranks(x, n, rx) != 0 ||
	    lay_ranks(y, n, ry) != 0) {
		free(rx);
		free(ry);
		return (NAN);
	}
	/* Pearson's correlation of the ranks; both have mean (n + 1) / 2. */
	mx = (double)(n + 1) / 2.0;
	for (i = 0; i < n; i++) {
		sxy += (rx[i] - mx) * (ry[i] - mx);
		sxx += (rx[i] - mx) * (rx[i] - mx);
		syy += (ry[i] - mx) * (ry[i] - mx);
	}
	free(rx);
	free(ry);
	if (sxx == 0 || syy == 0)
		return (NAN);
	rho = sxy / sqrt(sxx * syy);
	if (rho > 1)
		rho = 1;
	if (rho < -1)
		rho = -1;
	if (fabs(rho) >= 1) {
		*p = 0;
		return (rho);
	}
	z = atanh(rho) * sqrt((double)(n - 3) / 1.06);
	*p = erfc(fabs(z) / sqrt(2.0));
	return (rho);
}

/*
 * Collects (host h, bench b)'s padded good measured runs of its primary
 * metric into pad, lv (the log value) and var; returns how many.
 */
static size_t
lay_collect(const struct analysis *a, size_t h, size_t b, double *pad,
    double *lv, size_t *var)
{
	const struct dataset	*ds = a->ds;
	const struct ds_sample	*s;
	const char		*metric = ds->benches[b].metrics[0];
	size_t			 hb = h * ds->nbenches + b, i, n = 0;
	double			 v;

	for (i = a->hb_start[hb]; i < a->hb_start[hb + 1]; i++) {
		s = &ds->samples[a->by_hb[i]];
		if (s->warmup || s->status != 0 || s->env_pad < 0 ||
		    analysis_value(a, h, s, metric, &v) != 0 || !(v > 0) ||
		    !isfinite(v))
			continue;
		pad[n] = s->env_pad;
		lv[n] = log(v);
		var[n++] = s->variant;
	}
	return (n);
}

/*
 * Adds the tests of (host h, bench b), one per variant with enough runs.
 * Returns 0, or -1 out of memory.
 */
static int
lay_hb(const struct analysis *a, size_t h, size_t b, struct layout *l)
{
	const struct dataset	*ds = a->ds;
	size_t			 hb = h * ds->nbenches + b, m, n, i, v, k;
	double			*pad, *lv, *x, *y, rho, p;
	size_t			*var;
	struct layout_test	*t;
	int			 r = -1;

	m = a->hb_start[hb + 1] - a->hb_start[hb] + 1;
	pad = calloc(m, sizeof *pad);
	lv = calloc(m, sizeof *lv);
	x = calloc(m, sizeof *x);
	y = calloc(m, sizeof *y);
	var = calloc(m, sizeof *var);
	if (pad == NULL || lv == NULL || x == NULL || y == NULL ||
	    var == NULL)
		goto out;
	n = lay_collect(a, h, b, pad, lv, var);
	for (v = 0; v < ds->nvariants; v++) {
		for (i = k = 0; i < n; i++) {
			if (var[i] != v)
				continue;
			x[k] = pad[i];
			y[k++] = lv[i];
		}
		rho = layout_spearman(x, y, k, &p);
		if (isnan(rho) || isnan(p))
			continue;
		t = realloc(l->tests, (l->ntests + 1) * sizeof *l->tests);
		if (t == NULL)
			goto out;
		l->tests = t;
		t = &l->tests[l->ntests++];
		t->host = h;
		t->bench = b;
		t->variant = v;
		t->n = k;
		t->rho = rho;
		t->p = p;
		t->sensitive = 0;
	}
	r = 0;
out:
	free(pad);
	free(lv);
	free(x);
	free(y);
	free(var);
	return (r);
}

int
layout_build(const struct analysis *a, struct layout **out)
{
	const struct dataset	*ds = a->ds;
	struct layout		*l;
	size_t			 i, b;

	*out = NULL;
	if ((l = calloc(1, sizeof *l)) == NULL)
		return (-1);
	for (i = 0; i < a->nhosts; i++) {
		for (b = 0; b < ds->nbenches; b++) {
			if (ds->benches[b].nmetrics == 0)
				continue;
			if (lay_hb(a, a->hosts[i].host, b, l) != 0) {
				layout_free(l);
				return (-1);
			}
		}
	}
	l->alpha = l->ntests > 0 ? STATS_ALPHA / (double)l->ntests :
	    STATS_ALPHA;
	for (i = 0; i < l->ntests; i++)
		l->tests[i].sensitive = l->tests[i].p <= l->alpha;
	*out = l;
	return (0);
}

void
layout_free(struct layout *l)
{
	if (l == NULL)
		return;
	free(l->tests);
	free(l);
}
