/*
 * E-divisive means: the energy distance between the runs before and after
 * a candidate split (exponent 1), maximised over the split; the largest
 * split over all segments is kept when a permutation test finds it
 * significant, and the search repeats on the pieces. The split's right end
 * is the segment's end (as Hunter and Otava do), not searched as well.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/analysis/changepoint.h"
#include "coordinator/analysis/rng.h"
#include "coordinator/analysis/stats-hl.h"

/*
 * The best split of v[0..len): *tau in [m, len - m] maximising the
 * e-divisive statistic Q, returned (-1 when len < 2m). wl and wr are
 * scratch of len + 1.
 */
static double
cp_best(const double *v, size_t len, size_t m, double *wl, double *wr,
    size_t *tau)
{
	double	best = -1, q, b, n1, n2, s;
	size_t	i, t;

	*tau = 0;
	if (len < 2 * m)
		return (-1);
	/* wl[t]: distances within v[0..t); wr[t]: within v[t..len). */
	wl[0] = 0;
	for (t = 1; t <= len; t++) {
		s = 0;
		for (i = 0; i + 1 < t; i++)
			s += fabs(v[t - 1] - v[i]);
		wl[t] = wl[t - 1] + s;
	}
	wr[len] = 0;
	for (t = len; t-- > 0;) {
		s = 0;
		for (i = t + 1; i < len; i++)
			s += fabs(v[t] - v[i]);
		wr[t] = wr[t + 1] + s;
	}
	for (t = m; t + m <= len; t++) {
		n1 = (double)t;
		n2 = (double)(len - t);
		b = wl[len] - wl[t] - wr[t];	/* across the split */
		q = n1 * n2 / (n1 + n2) * (2 * b / (n1 * n2) -
		    2 * wl[t] / (n1 * (n1 - 1)) - 2 * wr[t] / (n2 * (n2 - 1)));
		if (q > best) {
			best = q;
			*tau = t;
		}
	}
	return (best);
}

static int
cp_cmp(const void *a, const void *b)
{
	size_t	x = *(const size_t *)a, y = *(const size_t *)b;

	return (x < y ? -1 : x > y);
}

/*
 * The best split over the segments between cuts[0..ncuts): returns its
 * statistic (-1 when no segment can split) and sets *btau to its run.
 */
static double
cp_split(const double *x, const size_t *cuts, size_t ncuts, size_t min_seg,
    double *wl, double *wr, size_t *btau)
{
	double	best = -1, q;
	size_t	k, tau;

	for (k = 0; k + 1 < ncuts; k++) {
		q = cp_best(x + cuts[k], cuts[k + 1] - cuts[k], min_seg, wl, wr,
		    &tau);
		if (q > best) {
			best = q;
			*btau = cuts[k] + tau;
		}
	}
	return (best);
}

/*
 * The permutation p-value of the best split's statistic best: the same
 * search over each segment's values permuted, perms times, in buf.
 */
static double
cp_pvalue(const double *x, size_t n, const size_t *cuts, size_t ncuts,
    size_t min_seg, size_t perms, double best, struct rng *rng, double *wl,
    double *wr, double *buf)
{
	double	q, pq;
	size_t	i, k, tau, from, len, hits = 0;

	for (i = 0; i < perms; i++) {
		memcpy(buf, x, n * sizeof *buf);
		pq = -1;
		for (k = 0; k + 1 < ncuts; k++) {
			from = cuts[k];
			len = cuts[k + 1] - from;
			if (len < 2 * min_seg)
				continue;
			rng_shuffle(rng, buf + from, len, sizeof *buf);
			q = cp_best(buf + from, len, min_seg, wl, wr, &tau);
			if (q > pq)
				pq = q;
		}
		if (pq >= best)
			hits++;
	}
	return ((double)(hits + 1) / (double)(perms + 1));
}

/*
 * Sorts pts[0..n) by run and sets each one's shift between its
 * neighbouring segments of x[0..nx). Returns 0 or -1.
 */
static int
cp_shifts(const double *x, size_t nx, struct cp_point *pts, size_t n)
{
	double	est, lo, hi;
	size_t	i, k;

	for (i = 0; i < n; i++) {
		for (k = i + 1; k < n; k++) {
			if (pts[k].at < pts[i].at) {
				struct cp_point	t = pts[i];

				pts[i] = pts[k];
				pts[k] = t;
			}
		}
	}
	for (i = 0; i < n; i++) {
		size_t	a = i == 0 ? 0 : pts[i - 1].at, b = pts[i].at;
		size_t	c = i + 1 == n ? nx : pts[i + 1].at;

		if (stats_hl_shift(x + a, b - a, x + b, c - b, 0.95, &est,
		    &lo, &hi) != 0)
			return (-1);
		pts[i].shift = est;
		pts[i].lo = lo;
		pts[i].hi = hi;
	}
	return (0);
}

/* Finds the change points of x[0..n) by e-divisive means. */
int
changepoint_find(const double *x, size_t n, size_t min_seg, size_t perms,
    double alpha, uint64_t seed, const char *key, struct cp_point **out,
    size_t *nout)
{
	struct rng	 rng;
	struct cp_point	*pts = NULL, *np;
	size_t		*cuts = NULL, ncuts, i, btau = 0;
	double		*wl = NULL, *wr = NULL, *buf = NULL, best, pval;
	int		 r = -1;

	*out = NULL;
	*nout = 0;
	if (n > CP_MAX_N || min_seg < 2 || perms < 1 || !(alpha > 0))
		return (-1);
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return (-1);
	}
	if (n < 2 * min_seg)
		return (0);
	rng_seed_str(&rng, seed, key != NULL ? key : "");
	/* cuts: 0, the change points so far, n: segments between them. */
	cuts = calloc(n + 2, sizeof *cuts);
	wl = calloc(n + 1, sizeof *wl);
	wr = calloc(n + 1, sizeof *wr);
	buf = calloc(n, sizeof *buf);
	if (cuts == NULL || wl == NULL || wr == NULL || buf == NULL)
		goto out;
	cuts[0] = 0;
	cuts[1] = n;
	ncuts = 2;
	for (;;) {
		best = cp_split(x, cuts, ncuts, min_seg, wl, wr, &btau);
		if (best < 0)
			break;
		pval = cp_pvalue(x, n, cuts, ncuts, min_seg, perms, best, &rng,
		    wl, wr, buf);
		if (pval > alpha)
			break;
		cuts[ncuts++] = btau;
		qsort(cuts, ncuts, sizeof *cuts, cp_cmp);
		if ((np = realloc(pts, (*nout + 1) * sizeof *pts)) == NULL)
			goto out;
		pts = np;
		pts[*nout].at = btau;
		pts[*nout].p = pval;
		(*nout)++;
	}
	/* Sorted by run, each shift between its neighbouring segments. */
	if (cp_shifts(x, n, pts, *nout) != 0)
		goto out;
	*out = pts;
	pts = NULL;
	r = 0;
out:
	if (r != 0)
		*nout = 0;
	free(pts);
	free(cuts);
	free(wl);
	free(wr);
	free(buf);
	return (r);
}
