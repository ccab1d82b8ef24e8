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

int
changepoint_find(const double *x, size_t n, size_t min_seg, size_t perms,
    double alpha, uint64_t seed, const char *key, struct cp_point **out,
    size_t *nout)
{
	struct rng	 rng;
	struct cp_point	*pts = NULL, *np;
	size_t		*cuts = NULL, ncuts, i, k, tau, btau = 0;
	size_t		 from, len, hits;
	double		*wl = NULL, *wr = NULL, *buf = NULL, q, best, pq, pval;
	double		 est, lo, hi;
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
		best = -1;
		for (k = 0; k + 1 < ncuts; k++) {
			q = cp_best(x + cuts[k], cuts[k + 1] - cuts[k],
			    min_seg, wl, wr, &tau);
			if (q > best) {
				best = q;
				btau = cuts[k] + tau;
			}
		}
		if (best < 0)
			break;
		/* The same search over each segment's values permuted. */
		hits = 0;
		for (i = 0; i < perms; i++) {
			memcpy(buf, x, n * sizeof *buf);
			pq = -1;
			for (k = 0; k + 1 < ncuts; k++) {
				from = cuts[k];
				len = cuts[k + 1] - from;
				if (len < 2 * min_seg)
					continue;
				rng_shuffle(&rng, buf + from, len, sizeof *buf);
				q = cp_best(buf + from, len, min_seg, wl, wr,
				    &tau);
				if (q > pq)
					pq = q;
			}
			if (pq >= best)
				hits++;
		}
		pval = (double)(hits + 1) / (double)(perms + 1);
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
	for (i = 0; i < *nout; i++) {
		for (k = i + 1; k < *nout; k++) {
			if (pts[k].at < pts[i].at) {
				struct cp_point	t = pts[i];

				pts[i] = pts[k];
				pts[k] = t;
			}
		}
	}
	for (i = 0; i < *nout; i++) {
		size_t	a = i == 0 ? 0 : pts[i - 1].at, b = pts[i].at;
		size_t	c = i + 1 == *nout ? n : pts[i + 1].at;

		if (stats_hl_shift(x + a, b - a, x + b, c - b, 0.95, &est,
		    &lo, &hi) != 0)
			goto out;
		pts[i].shift = est;
		pts[i].lo = lo;
		pts[i].hi = hi;
	}
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
