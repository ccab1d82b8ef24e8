/* The Hodges–Lehmann shift of two unpaired samples and its interval. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/analysis/stats-hl.h"
#include "coordinator/analysis/stats.h"

/* Bisection steps: enough to reach adjacent doubles from any range. */
#define HL_STEPS	2200

double
stats_hl_probit(double p)
{
	return (stats_qnorm(p));
}

/*
 * The exact rank of stats_hl_rank: the null distribution of U by the
 * recurrence on the largest of n' + m' values (it belongs to the first
 * sample with probability n' / (n' + m') and then beats all m' others),
 * in probabilities, so nothing overflows. Two rows of m + 1 vectors.
 */
static uint64_t
stats_hl_rank_exact(size_t n, size_t m, double alpha2)
{
	size_t		 len = n * m + 1, i, j, u;
	double		*prev, *cur, *t, cum, w1, w2;
	uint64_t	 k = (uint64_t)-1;

	prev = calloc((m + 1) * len, sizeof *prev);
	cur = calloc((m + 1) * len, sizeof *cur);
	if (prev == NULL || cur == NULL)
		goto out;
	for (j = 0; j <= m; j++)
		prev[j * len] = 1;	/* n' = 0: U is 0 */
	for (i = 1; i <= n; i++) {
		memset(cur, 0, (m + 1) * len * sizeof *cur);
		cur[0] = 1;		/* m' = 0: U is 0 */
		for (j = 1; j <= m; j++) {
			w1 = (double)i / (double)(i + j);
			w2 = (double)j / (double)(i + j);
			for (u = 0; u <= i * j; u++) {
				cur[j * len + u] = w2 * cur[(j - 1) * len + u];
				if (u >= j)
					cur[j * len + u] +=
					    w1 * prev[j * len + u - j];
			}
		}
		t = prev;
		prev = cur;
		cur = t;
	}
	/* prev holds p(n, m') now; the smallest u reaching alpha2. */
	cum = 0;
	for (u = 0; u < len; u++) {
		cum += prev[m * len + u];
		if (cum >= alpha2 - 1e-12)
			break;
	}
	k = u;
out:
	free(prev);
	free(cur);
	return (k);
}

uint64_t
stats_hl_rank(size_t n, size_t m, double level)
{
	double	alpha2 = (1 - level) / 2, nm, sigma, u;

	if (n == 0 || m == 0 || !(level > 0 && level < 1))
		return (0);
	if (n <= STATS_HL_EXACT_MAX && m <= STATS_HL_EXACT_MAX)
		return (stats_hl_rank_exact(n, m, alpha2));
	nm = (double)n * (double)m;
	sigma = sqrt(nm * ((double)n + (double)m + 1) / 12);
	u = ceil(nm / 2 - 0.5 + stats_hl_probit(alpha2) * sigma);
	return (u <= 0 ? 0 : (uint64_t)u);
}

/* Returns how many differences y[j] - x[i] are <= t (x, y sorted). */
static uint64_t
stats_hl_count(const double *x, size_t n, const double *y, size_t m,
    double t)
{
	uint64_t	c = 0;
	size_t		i = 0, j;

	/* y[j] - x[i] falls as i grows and rises with j: one pass each. */
	for (j = 0; j < m; j++) {
		while (i < n && y[j] - x[i] > t)
			i++;
		c += n - i;
	}
	return (c);
}

/* Returns the smallest difference y[j] - x[i] above t, or INFINITY. */
static double
stats_hl_above(const double *x, size_t n, const double *y, size_t m,
    double t)
{
	double	best = INFINITY, d;
	size_t	q = 0, j;

	/* The differences above t are x[0..q) for y[j]; q grows with j. */
	for (j = 0; j < m; j++) {
		while (q < n && y[j] - x[q] > t)
			q++;
		if (q > 0 && (d = y[j] - x[q - 1]) < best)
			best = d;
	}
	return (best);
}

/*
 * Differences listed and sorted once a bracket holds at most so many:
 * sorting them costs about what one more count over 100,000 values does.
 */
#define HL_LIST_MAX	16384

/*
 * Returns the r-th smallest (1-based) of the c differences y[j] - x[i] in
 * (lo, hi], listed into d[c] and sorted: for each j they are a run of i,
 * between the first i whose difference is <= hi and the first whose is
 * <= lo, and both bounds only grow with j.
 */
static double
stats_hl_list(const double *x, size_t n, const double *y, size_t m,
    double lo, double hi, double *d, size_t c, uint64_t r)
{
	size_t	a = 0, b = 0, j, i, k = 0;

	for (j = 0; j < m; j++) {
		while (a < n && y[j] - x[a] > hi)
			a++;
		while (b < n && y[j] - x[b] > lo)
			b++;
		for (i = a; i < b && k < c; i++)
			d[k++] = y[j] - x[i];
	}
	stats_sort(d, k);
	return (k >= r ? d[r - 1] : NAN);
}

/* Returns the k-th smallest (1-based, 1 <= k <= n * m) difference. */
static double
stats_hl_kth(const double *x, size_t n, const double *y, size_t m,
    uint64_t k)
{
	double		lo, hi, mid, v, *d;
	uint64_t	clo = 0, chi = (uint64_t)n * m, c;
	int		step;

	/* count(lo) < k <= count(hi) throughout. */
	lo = nextafter(y[0] - x[n - 1], -INFINITY);
	hi = y[m - 1] - x[0];
	/*
	 * Halving the range first, one count a step, until (lo, hi] holds
	 * few enough differences to list: some 20 passes over the data on a
	 * million pairs and more, where checking for one distinct value at
	 * every step took three passes a step and 60 steps.
	 */
	for (step = 0; step < 64; step++) {
		if (chi - clo <= HL_LIST_MAX) {
			if ((d = malloc((size_t)(chi - clo) * sizeof *d)) ==
			    NULL)
				break;
			v = stats_hl_list(x, n, y, m, lo, hi, d,
			    (size_t)(chi - clo), k - clo);
			free(d);
			if (!isnan(v))
				return (v);
			break;
		}
		mid = lo + (hi - lo) / 2;
		if (!(mid > lo && mid < hi))
			break;
		if ((c = stats_hl_count(x, n, y, m, mid)) >= k) {
			hi = mid;
			chi = c;
		} else {
			lo = mid;
			clo = c;
		}
	}
	/* Many equal differences (counters' ties): one distinct value. */
	for (step = 0; step < HL_STEPS; step++) {
		/*
		 * The smallest difference above lo is the k-th once (lo, hi]
		 * holds one distinct value: usually some 60 steps, and few
		 * when ties (counters) make many differences equal.
		 */
		v = stats_hl_above(x, n, y, m, lo);
		if (stats_hl_count(x, n, y, m, v) >= k)
			return (v);
		mid = lo + (hi - lo) / 2;
		if (!(mid > lo && mid < hi))
			break;
		if (stats_hl_count(x, n, y, m, mid) >= k)
			hi = mid;
		else
			lo = mid;
	}
	return (stats_hl_above(x, n, y, m, lo));
}

int
stats_hl_shift(const double *x, size_t n, const double *y, size_t m,
    double level, double *est, double *lo, double *hi)
{
	double		*xs = NULL, *ys = NULL, v, w;
	uint64_t	 nm, k;
	size_t		 i;
	int		 r = -1;

	*est = *lo = *hi = NAN;
	if (n == 0 || m == 0)
		return (-1);
	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return (-1);
	for (i = 0; i < m; i++)
		if (!isfinite(y[i]))
			return (-1);
	if ((xs = malloc(n * sizeof *xs)) == NULL ||
	    (ys = malloc(m * sizeof *ys)) == NULL)
		goto out;
	memcpy(xs, x, n * sizeof *xs);
	memcpy(ys, y, m * sizeof *ys);
	stats_sort(xs, n);
	stats_sort(ys, m);
	nm = (uint64_t)n * (uint64_t)m;
	if (nm % 2 == 1)
		*est = stats_hl_kth(xs, n, ys, m, nm / 2 + 1);
	else {
		/* The next one is the same, or the smallest above it. */
		v = stats_hl_kth(xs, n, ys, m, nm / 2);
		w = stats_hl_count(xs, n, ys, m, v) >= nm / 2 + 1 ? v :
		    stats_hl_above(xs, n, ys, m, v);
		*est = (v + w) / 2;
	}
	if ((k = stats_hl_rank(n, m, level)) == (uint64_t)-1)
		goto out;
	if (k > 0 && k <= nm / 2 + 1) {
		*lo = stats_hl_kth(xs, n, ys, m, k);
		*hi = stats_hl_kth(xs, n, ys, m, nm + 1 - k);
	}
	r = 0;
out:
	free(xs);
	free(ys);
	return (r);
}
