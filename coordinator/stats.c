/*
 * Statistics for paired A/B samples: type-7 quantiles, summaries, seeded
 * percentile bootstraps of the median and of a geometric mean of medians,
 * the Wilcoxon signed-rank test as R computes it, and the verdict rule of
 * DESIGN.md ("Outputs").
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/rng.h"
#include "coordinator/stats.h"

/* Above this many non-zero differences R (and we) use the normal
 * approximation; below it, the exact distribution when nothing is tied. */
#define STATS_WILCOXON_EXACT_MAX	50

/* Returns an array of n doubles, or NULL (n == 0, overflow, no memory). */
static double *
stats_alloc(size_t n)
{
	if (n == 0 || n > SIZE_MAX / sizeof(double))
		return (NULL);
	return (malloc(n * sizeof(double)));
}

/* qsort order for doubles, NANs last so they never land inside the data. */
static int
stats_cmp(const void *pa, const void *pb)
{
	double	a = *(const double *)pa, b = *(const double *)pb;

	if (isnan(a))
		return (isnan(b) ? 0 : 1);
	if (isnan(b))
		return (-1);
	return ((a > b) - (a < b));
}

/* qsort order by absolute value, for ranking Wilcoxon differences. */
static int
stats_cmp_abs(const void *pa, const void *pb)
{
	double	a = fabs(*(const double *)pa), b = fabs(*(const double *)pb);

	return ((a > b) - (a < b));
}

static void
stats_swap(double *a, size_t i, size_t j)
{
	double	t = a[i];

	a[i] = a[j];
	a[j] = t;
}

/*
 * Reorders a[0..n) so a[k] is the element a sort would put there, with
 * nothing larger before it and nothing smaller after it (nth_element).
 * The three-way partition keeps the many duplicates of a bootstrap resample
 * linear, and every index stays in range even if a NAN slips in, because a
 * value neither below nor above the pivot simply joins the middle.
 */
static void
stats_select(double *a, size_t n, size_t k)
{
	size_t	lo = 0, hi = n, lt, gt, i, mid;
	double	p, x, y, z;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		x = a[lo];
		y = a[mid];
		z = a[hi - 1];
		/* Median of three keeps sorted and reversed input linear. */
		if ((x <= y && y <= z) || (z <= y && y <= x))
			p = y;
		else if ((y <= x && x <= z) || (z <= x && x <= y))
			p = x;
		else
			p = z;
		lt = i = lo;
		gt = hi;
		while (i < gt) {
			if (a[i] < p)
				stats_swap(a, lt++, i++);
			else if (a[i] > p)
				stats_swap(a, i, --gt);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return;
	}
}

/* Returns the median of a[0..n), n > 0, reordering a. */
static double
stats_median_inplace(double *a, size_t n)
{
	size_t	k = n / 2, i;
	double	below;

	stats_select(a, n, k);
	if (n % 2 == 1)
		return (a[k]);
	/* After the selection a[0..k) holds the k smallest: take its top. */
	below = a[0];
	for (i = 1; i < k; i++) {
		if (a[i] > below)
			below = a[i];
	}
	return ((below + a[k]) / 2);
}

double
stats_quantile(const double *sorted, size_t n, double q)
{
	double	idx, flo, h, a, b;
	size_t	j;

	if (n == 0 || isnan(q))
		return (NAN);
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	/* The same arithmetic as R's quantile.default, to the last bit. */
	idx = 1 + (double)(n - 1) * q;
	flo = floor(idx);
	h = idx - flo;
	j = (size_t)flo - 1;
	a = sorted[j];
	if (h == 0 || j + 1 >= n)
		return (a);
	b = sorted[j + 1];
	if (a == b)
		return (a);
	return ((1 - h) * a + h * b);
}

int
stats_summarize(const double *x, size_t n, struct stats_summary *out)
{
	double	*s = NULL, mean, corr, ss, dev;
	size_t	 i;
	int	 r = -1;

	memset(out, 0, sizeof *out);
	if (n == 0) {
		r = 0;
		goto out;
	}
	if ((s = stats_alloc(n)) == NULL)
		goto out;
	memcpy(s, x, n * sizeof *s);
	qsort(s, n, sizeof *s, stats_cmp);

	out->n = n;
	out->min = s[0];
	out->max = s[n - 1];
	out->q1 = stats_quantile(s, n, 0.25);
	out->q3 = stats_quantile(s, n, 0.75);
	if (n % 2 == 1)
		out->median = s[n / 2];
	else
		out->median = (s[n / 2 - 1] + s[n / 2]) / 2;

	/* Two passes, the second correcting the first's rounding (as R). */
	mean = 0;
	for (i = 0; i < n; i++)
		mean += x[i];
	mean /= (double)n;
	corr = 0;
	for (i = 0; i < n; i++)
		corr += x[i] - mean;
	mean += corr / (double)n;
	out->mean = mean;

	if (out->median != 0)
		out->iqr_pct = (out->q3 - out->q1) / out->median * 100;
	if (n >= 2 && mean != 0) {
		ss = 0;
		for (i = 0; i < n; i++) {
			dev = x[i] - mean;
			ss += dev * dev;
		}
		out->cv = sqrt(ss / (double)(n - 1)) / mean;
	}
	r = 0;
out:
	free(s);
	return (r);
}

double
stats_median(const double *x, size_t n)
{
	double	*s, m = NAN;

	if ((s = stats_alloc(n)) == NULL)
		goto out;
	memcpy(s, x, n * sizeof *s);
	m = stats_median_inplace(s, n);
out:
	free(s);
	return (m);
}

/* Sorts the nboot bootstrap statistics in v and sets the level interval. */
static void
stats_boot_interval(double *v, size_t nboot, double level, double *lo,
    double *hi)
{
	double	alpha = (1 - level) / 2;

	qsort(v, nboot, sizeof *v, stats_cmp);
	*lo = stats_quantile(v, nboot, alpha);
	*hi = stats_quantile(v, nboot, 1 - alpha);
}

/*
 * Returns P(Binomial(n, p) >= m) by the normal approximation with a
 * continuity correction: accurate to far better than the Monte Carlo
 * error of a resampled bootstrap once n is in the thousands.
 */
static double
stats_binom_sf(size_t n, double p, size_t m)
{
	double	mu = (double)n * p, sd = sqrt((double)n * p * (1 - p));

	if (sd == 0)
		return (mu >= (double)m ? 1.0 : 0.0);
	return (0.5 * erfc(((double)m - 0.5 - mu) / (sd * M_SQRT2)));
}

/*
 * The percentile bootstrap interval of the median without resampling, for
 * large n: a resample's median is at most the j-th smallest value exactly
 * when at least half of its n draws are, a Binomial(n, j/n) event. The
 * interval is where that probability crosses the tails.
 */
static int
stats_boot_median_exact(const double *x, size_t n, double level, double *lo,
    double *hi)
{
	double	*s, alpha = (1 - level) / 2;
	size_t	 m = n / 2 + 1, a, b, j;

	if ((s = stats_alloc(n)) == NULL)
		return (-1);
	memcpy(s, x, n * sizeof *s);
	qsort(s, n, sizeof *s, stats_cmp);
	/* Smallest j (1-based) with P(median* <= x_(j)) >= alpha. */
	for (a = 1, b = n; a < b; ) {
		j = a + (b - a) / 2;
		if (stats_binom_sf(n, (double)j / (double)n, m) >= alpha)
			b = j;
		else
			a = j + 1;
	}
	*lo = s[a - 1];
	for (a = 1, b = n; a < b; ) {
		j = a + (b - a) / 2;
		if (stats_binom_sf(n, (double)j / (double)n, m) >= 1 - alpha)
			b = j;
		else
			a = j + 1;
	}
	*hi = s[a - 1];
	free(s);
	return (0);
}

int
stats_boot_median_n(const double *x, size_t n, uint64_t seed, double level,
    size_t nboot, double *lo, double *hi)
{
	struct rng	 rng;
	double		*buf = NULL, *meds = NULL;
	size_t		 b, i;
	int		 r = -1;

	*lo = *hi = NAN;
	if (n == 0 || nboot == 0 || !(level > 0 && level < 1))
		goto out;
	if (n == 1) {
		*lo = *hi = x[0];
		r = 0;
		goto out;
	}
	if (n > STATS_BOOT_EXACT_MIN) {
		r = stats_boot_median_exact(x, n, level, lo, hi);
		goto out;
	}
	if ((buf = stats_alloc(n)) == NULL ||
	    (meds = stats_alloc(nboot)) == NULL)
		goto out;
	rng_seed(&rng, seed);
	for (b = 0; b < nboot; b++) {
		for (i = 0; i < n; i++)
			buf[i] = x[rng_below(&rng, n)];
		meds[b] = stats_median_inplace(buf, n);
	}
	stats_boot_interval(meds, nboot, level, lo, hi);
	r = 0;
out:
	free(buf);
	free(meds);
	return (r);
}

int
stats_boot_median(const double *x, size_t n, uint64_t seed, double level,
    double *lo, double *hi)
{
	return (stats_boot_median_n(x, n, seed, level, STATS_BOOT_N, lo, hi));
}

int
stats_boot_geomean(const double *const *ratios, const size_t *n, size_t k,
    uint64_t seed, double level, double *est, double *lo, double *hi)
{
	struct rng	 rng;
	double		*logmed = NULL, *buf = NULL, *gm = NULL, s, v;
	size_t		*idx = NULL, nr = 0, used = 0, b, i, m, it, nboot;
	int		 r = -1;

	*est = *lo = *hi = NAN;
	if (k == 0 || !(level > 0 && level < 1))
		goto out;
	for (b = 0; b < k; b++) {
		if (n[b] > nr)
			nr = n[b];
	}
	/*
	 * A resample costs k x nr: past STATS_BOOT_WORK values, draw fewer
	 * (never under STATS_BOOT_MIN), so a million samples render in
	 * seconds. The count depends only on the shape: still reproducible.
	 */
	nboot = STATS_BOOT_N;
	if (nr > 0 && k * nr > STATS_BOOT_WORK / STATS_BOOT_N) {
		nboot = STATS_BOOT_WORK / (k * nr);
		if (nboot < STATS_BOOT_MIN)
			nboot = STATS_BOOT_MIN;
	}
	if (nr == 0 || nr > SIZE_MAX / sizeof *idx)
		goto out;
	if ((logmed = stats_alloc(k)) == NULL ||
	    (buf = stats_alloc(nr)) == NULL ||
	    (gm = stats_alloc(nboot)) == NULL ||
	    (idx = malloc(nr * sizeof *idx)) == NULL)
		goto out;

	/*
	 * Point estimates. A benchmark without one valid round, or with a
	 * median that has no logarithm, is left out of the mean (NAN here).
	 */
	for (b = 0; b < k; b++) {
		for (m = 0, i = 0; i < n[b]; i++) {
			if (!isnan(ratios[b][i]))
				buf[m++] = ratios[b][i];
		}
		logmed[b] = NAN;
		if (m > 0 && (v = stats_median_inplace(buf, m)) > 0) {
			logmed[b] = log(v);
			used++;
		}
	}
	if (used == 0)
		goto out;
	for (s = 0, b = 0; b < k; b++) {
		if (!isnan(logmed[b]))
			s += logmed[b];
	}
	*est = exp(s / (double)used);

	rng_seed(&rng, seed);
	for (it = 0; it < nboot; it++) {
		/* One draw of rounds, shared by every benchmark. */
		for (i = 0; i < nr; i++)
			idx[i] = (size_t)rng_below(&rng, nr);
		for (s = 0, b = 0; b < k; b++) {
			if (isnan(logmed[b]))
				continue;
			for (m = 0, i = 0; i < nr; i++) {
				if (idx[i] >= n[b])
					continue;	/* round past its end */
				v = ratios[b][idx[i]];
				if (!isnan(v))
					buf[m++] = v;
			}
			s += m > 0 ? log(stats_median_inplace(buf, m)) :
			    logmed[b];
		}
		gm[it] = exp(s / (double)used);
	}
	stats_boot_interval(gm, nboot, level, lo, hi);
	r = 0;
out:
	if (r != 0)
		*est = *lo = *hi = NAN;
	free(logmed);
	free(buf);
	free(gm);
	free(idx);
	return (r);
}

/*
 * Returns P(S <= v) or, when upper, P(S >= v), for S the signed-rank
 * statistic of m < 64 untied non-zero differences (R's psignrank). Subset
 * counts below 2^m stay exact in 64 bits; NAN on out of memory.
 */
static double
stats_signrank_tail(size_t m, size_t v, int upper)
{
	uint64_t	*cnt, tail = 0;
	size_t		 total = m * (m + 1) / 2, j, s;
	double		 p = NAN;

	if ((cnt = calloc(total + 1, sizeof *cnt)) == NULL)
		goto out;
	cnt[0] = 1;
	for (j = 1; j <= m; j++) {
		/* Add rank j to every subset of ranks 1..j-1. */
		for (s = j * (j + 1) / 2; s >= j; s--)
			cnt[s] += cnt[s - j];
	}
	if (upper) {
		for (s = v; s <= total; s++)
			tail += cnt[s];
	} else {
		for (s = 0; s <= v && s <= total; s++)
			tail += cnt[s];
	}
	p = ldexp((double)tail, -(int)m);
out:
	free(cnt);
	return (p);
}

double
stats_wilcoxon_p(const double *d, size_t n)
{
	double	*a = NULL, v = 0, ties = 0, rank, t, mm, z, corr, sigma;
	double	 p = NAN;
	size_t	 m = 0, i, j, l;
	int	 zeros = 0, tied = 0;

	if (n == 0) {
		p = 1.0;
		goto out;
	}
	if ((a = stats_alloc(n)) == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		if (isnan(d[i]))
			continue;	/* R drops missing values first */
		if (d[i] == 0)
			zeros = 1;
		else
			a[m++] = d[i];
	}
	if (m == 0) {
		p = 1.0;
		goto out;
	}
	qsort(a, m, sizeof *a, stats_cmp_abs);

	/* Average ranks of |d| over each run of ties; V sums the positive. */
	for (i = 0; i < m; i = j) {
		for (j = i + 1; j < m && fabs(a[j]) == fabs(a[i]); j++)
			;
		rank = ((double)(i + 1) + (double)j) / 2;
		t = (double)(j - i);
		if (j - i > 1) {
			tied = 1;
			ties += t * t * t - t;
		}
		for (l = i; l < j; l++) {
			if (a[l] > 0)
				v += rank;
		}
	}

	mm = (double)m;
	if (m < STATS_WILCOXON_EXACT_MAX && !tied && !zeros) {
		/* Without ties every rank is whole, so V is an integer. */
		if (v > mm * (mm + 1) / 4)
			p = stats_signrank_tail(m, (size_t)v, 1);
		else
			p = stats_signrank_tail(m, (size_t)v, 0);
		if (!isnan(p))
			p = fmin(2 * p, 1.0);
		goto out;
	}

	/* R's arithmetic, in R's order: continuity correction toward 0. */
	z = v - mm * (mm + 1) / 4;
	sigma = sqrt(mm * (mm + 1) * (2 * mm + 1) / 24 - ties / 48);
	corr = z > 0 ? 0.5 : (z < 0 ? -0.5 : 0);
	if (sigma > 0) {
		z = (z - corr) / sigma;
		/* 2 * min(pnorm(z), pnorm(-z)), accurate far into the tail. */
		p = erfc(fabs(z) / sqrt(2.0));
	} else
		p = 1.0;	/* cannot happen with m >= 1; keep a number */
out:
	free(a);
	return (p);
}

enum stats_verdict
stats_verdict(double ratio, double lo, double hi, double min_effect,
    int higher_better, size_t npairs, int checksum_ok)
{
	double	me = min_effect;

	if (!checksum_ok || npairs < STATS_MIN_PAIRS)
		return (VERDICT_INVALID);
	if (isnan(ratio) || isnan(lo) || isnan(hi) || isnan(me))
		return (VERDICT_INCONCLUSIVE);
	if (me < 0)
		me = 0;
	if (lo >= 1 - me && hi <= 1 + me)
		return (VERDICT_SAME);
	/* Statistically (interval excludes 1) and practically significant. */
	if (hi < 1 && ratio < 1 - me)
		return (higher_better ? VERDICT_WORSE : VERDICT_BETTER);
	if (lo > 1 && ratio > 1 + me)
		return (higher_better ? VERDICT_BETTER : VERDICT_WORSE);
	return (VERDICT_INCONCLUSIVE);
}

const char *
stats_verdict_name(enum stats_verdict v)
{
	switch (v) {
	case VERDICT_BETTER:
		return ("better");
	case VERDICT_WORSE:
		return ("worse");
	case VERDICT_SAME:
		return ("same");
	case VERDICT_INCONCLUSIVE:
		return ("inconclusive");
	case VERDICT_INVALID:
		return ("invalid");
	}
	return ("invalid");
}
