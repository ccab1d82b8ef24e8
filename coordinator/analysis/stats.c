/*
 * Statistics for paired A/B samples: type-7 quantiles, summaries, seeded
 * percentile bootstraps of the median and of a geometric mean of medians,
 * the Wilcoxon signed-rank test as R computes it, the comparison procedure
 * of docs/statistics.md (Hodges-Lehmann estimate, signed-rank p and its
 * inverted interval, serial-correlation widening, detectable effect) and
 * the verdict rules.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/analysis/rng.h"
#include "coordinator/analysis/stats.h"

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

static void
stats_swap(double *a, size_t i, size_t j)
{
	double	t = a[i];

	a[i] = a[j];
	a[j] = t;
}

/* Sifts a[i] down the max-heap a[0..n). */
static void
stats_sift(double *a, size_t i, size_t n)
{
	size_t	c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && a[c + 1] > a[c])
			c++;
		if (!(a[c] > a[i]))
			return;
		stats_swap(a, i, c);
		i = c;
	}
}

/*
 * Introsort of a[0..n) without NANs: quicksort on a median of three,
 * insertion sort for short runs, heapsort when the partitions go bad.
 * The comparison is inline: several times faster than qsort's callback
 * on the hundred thousand values of a long run.
 */
static void
stats_introsort(double *a, size_t n, unsigned depth)
{
	size_t	i, j, mid;
	double	p, t;

	while (n > 16) {
		if (depth-- == 0) {
			for (i = n / 2; i-- > 0; )
				stats_sift(a, i, n);
			for (i = n - 1; i > 0; i--) {
				stats_swap(a, 0, i);
				stats_sift(a, 0, i);
			}
			return;
		}
		mid = n / 2;
		if (a[mid] < a[0])
			stats_swap(a, 0, mid);
		if (a[n - 1] < a[0])
			stats_swap(a, 0, n - 1);
		if (a[n - 1] < a[mid])
			stats_swap(a, mid, n - 1);
		p = a[mid];
		/* Hoare partition: a[0] <= p <= a[n-1] bound both scans. */
		i = 0;
		j = n - 1;
		for (;;) {
			while (a[++i] < p)
				;
			while (p < a[--j])
				;
			if (i >= j)
				break;
			stats_swap(a, i, j);
		}
		/* Recurse into the smaller side, loop on the larger. */
		if (j + 1 < n - j - 1) {
			stats_introsort(a, j + 1, depth);
			a += j + 1;
			n -= j + 1;
		} else {
			stats_introsort(a + j + 1, n - j - 1, depth);
			n = j + 1;
		}
	}
	for (i = 1; i < n; i++) {
		t = a[i];
		for (j = i; j > 0 && t < a[j - 1]; j--)
			a[j] = a[j - 1];
		a[j] = t;
	}
}

void
stats_sort(double *a, size_t n)
{
	size_t		i, m = 0;
	unsigned	depth = 0;

	/* NANs go last, so they never land inside the data. */
	for (i = 0; i < n; i++) {
		if (!isnan(a[i])) {
			if (i != m)
				stats_swap(a, i, m);
			m++;
		}
	}
	for (i = m; i > 1; i >>= 1)
		depth += 2;
	stats_introsort(a, m, depth);
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
	stats_sort(s, n);

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

	stats_sort(v, nboot);
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
	stats_sort(s, n);
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

/*
 * Long: the exact distribution and the normal approximation side by side,
 * so the switch between them is in one place.
 */
double
stats_wilcoxon_p(const double *d, size_t n)
{
	double	*a = NULL, *pos, *neg, v = 0, ties = 0, rank, t, mm, z, corr;
	double	 sigma, x, p = NAN;
	size_t	 m = 0, np = 0, nn = 0, i, j, l, cp, cn;
	int	 zeros = 0, tied = 0;

	if (n == 0) {
		p = 1.0;
		goto out;
	}
	if ((a = stats_alloc(n)) == NULL)
		goto out;
	/* |d|: the positive differences from the front, the negative
	 * ones from the back. */
	for (i = 0; i < n; i++) {
		if (isnan(d[i]))
			continue;	/* R drops missing values first */
		if (d[i] == 0)
			zeros = 1;
		else if (d[i] > 0)
			a[np++] = d[i];
		else
			a[n - ++nn] = -d[i];
	}
	m = np + nn;
	if (m == 0) {
		p = 1.0;
		goto out;
	}
	pos = a;
	neg = a + n - nn;
	stats_sort(pos, np);
	stats_sort(neg, nn);

	/*
	 * Average ranks of |d| over each run of ties, merging the two sorted
	 * sides; V sums the ranks of the positive differences.
	 */
	for (i = 0, cp = 0, cn = 0; i < m; i = j) {
		x = cp < np && (cn >= nn || pos[cp] <= neg[cn]) ? pos[cp] :
		    neg[cn];
		for (j = i, l = 0; cp < np && pos[cp] == x; cp++, l++)
			j++;
		for (; cn < nn && neg[cn] == x; cn++)
			j++;
		rank = ((double)(i + 1) + (double)j) / 2;
		t = (double)(j - i);
		if (j - i > 1) {
			tied = 1;
			ties += t * t * t - t;
		}
		for (; l > 0; l--)
			v += rank;
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

/*
 * The comparison procedure of docs/statistics.md: the Hodges-Lehmann
 * estimate of the log ratios (the median of their Walsh averages), the
 * Wilcoxon signed-rank test and the interval that inverts that very test.
 * Everything is counted on the Walsh sums d[i] + d[j] (i <= j) of the
 * sorted log ratios, never stored: n may be the hundred thousand rounds of
 * a long run, and n(n+1)/2 sums of that would not fit.
 */

/* Returns #{i <= j : d[i] + d[j] < t} (strict) or <= t, d sorted. */
static double
stats_walsh_count(const double *d, size_t n, double t, int strict)
{
	size_t	i, j = n;
	double	c = 0;

	/* For each i the j >= i that qualify are d[i..j); j only falls. */
	for (i = 0; i < n; i++) {
		while (j > i && (strict ? !(d[i] + d[j - 1] < t) :
		    !(d[i] + d[j - 1] <= t)))
			j--;
		if (j <= i)
			break;
		c += (double)(j - i);
	}
	return (c);
}

/* Returns the largest Walsh sum of sorted d not above t; -inf when none. */
static double
stats_walsh_below(const double *d, size_t n, double t)
{
	double	best = -INFINITY;
	size_t	i, j;

	for (i = 0, j = n; i < n; i++) {
		while (j > i && !(d[i] + d[j - 1] <= t))
			j--;
		if (j <= i)
			break;
		if (d[i] + d[j - 1] > best)
			best = d[i] + d[j - 1];
	}
	return (best);
}

/* Walsh sums listed and sorted once a bracket holds at most so many. */
#define STATS_WALSH_LIST_MAX	16384

/*
 * Returns the r-th smallest (1-based) of the c Walsh sums of sorted d in
 * (lo, hi], or NAN when they cannot be listed: for each i they are
 * d[i] + d[j] for j in [a, b), the j >= i past lo and not past hi; both
 * ends only fall as i grows, and never below i.
 */
static double
stats_walsh_list(const double *d, size_t n, double lo, double hi, double c,
    double r)
{
	double	*w, v = NAN;
	size_t	i, a = n, b = n, j, k = 0, max = (size_t)c;

	if (!(c >= 1 && c <= STATS_WALSH_LIST_MAX) ||
	    (w = malloc(max * sizeof *w)) == NULL)
		return (NAN);
	for (i = 0; i < n; i++) {
		if (a < i)
			a = i;
		if (b < i)
			b = i;
		while (b > i && !(d[i] + d[b - 1] <= hi))
			b--;
		while (a > i && d[i] + d[a - 1] > lo)
			a--;
		for (j = a; j < b && k < max; j++)
			w[k++] = d[i] + d[j];
	}
	stats_sort(w, k);
	if (r >= 1 && r <= (double)k)
		v = w[(size_t)r - 1];
	free(w);
	return (v);
}

/*
 * Returns the n(n+1)/2 Walsh sums of sorted d, sorted, when there are at
 * most STATS_WALSH_LIST_MAX (the k-th of them is then looked up, each of
 * the four a comparison takes from one sort); else, or out of memory,
 * NULL.
 */
static double *
stats_walsh_all(const double *d, size_t n)
{
	double	*w;
	size_t	 i, j, k = 0;

	if (n == 0 || n > STATS_WALSH_LIST_MAX ||
	    n * (n + 1) / 2 > STATS_WALSH_LIST_MAX ||
	    (w = malloc(n * (n + 1) / 2 * sizeof *w)) == NULL)
		return (NULL);
	for (i = 0; i < n; i++) {
		for (j = i; j < n; j++)
			w[k++] = d[i] + d[j];
	}
	stats_sort(w, k);
	return (w);
}

/*
 * Returns the k-th smallest (1-based, 1 <= k <= N) Walsh sum of sorted d:
 * all[k - 1] when all holds them all (stats_walsh_all). Else first a
 * bisection on the value, one count a step, until (lo, hi] holds few
 * enough sums to list and sort: some 20 passes over the data where
 * the loop below takes three a step. Should many sums be equal (tied
 * data), that loop follows: its upper end is always snapped to a sum,
 * done when fewer than k sums lie below it, so that a k-th sum of
 * exactly 0 (equal values of both variants) ends at once instead of
 * chasing the bracket through a thousand subnormal halvings.
 */
static double
stats_walsh_kth(const double *d, size_t n, const double *all, double k)
{
	double	lo = 2 * d[0], hi = 2 * d[n - 1], mid, s, c, clo, chi, v;
	size_t	it;

	if (all != NULL && k >= 1 && k <= (double)n * ((double)n + 1) / 2)
		return (all[(size_t)k - 1]);
	if ((clo = stats_walsh_count(d, n, lo, 0)) >= k)
		return (lo);
	chi = (double)n * ((double)n + 1) / 2;
	/* count(lo) < k <= count(hi) throughout. */
	for (it = 0; it < 64 && chi - clo > STATS_WALSH_LIST_MAX; it++) {
		mid = lo + (hi - lo) / 2;
		if (!(mid > lo && mid < hi))
			break;
		if ((c = stats_walsh_count(d, n, mid, 0)) >= k) {
			hi = mid;
			chi = c;
		} else {
			lo = mid;
			clo = c;
		}
	}
	if (!isnan(v = stats_walsh_list(d, n, lo, hi, chi - clo, k - clo)))
		return (v);
	/* The largest sum not above hi: a sum, above lo, counted as hi. */
	hi = stats_walsh_below(d, n, hi);
	/* And hi is a sum, throughout. */
	for (it = 0; it < 2100; it++) {
		if (stats_walsh_count(d, n, hi, 1) < k)
			return (hi);
		mid = lo + (hi - lo) / 2;
		if (!(mid > lo && mid < hi))
			break;
		s = stats_walsh_below(d, n, mid);
		if (s > lo && stats_walsh_count(d, n, s, 0) >= k)
			hi = s;
		else
			lo = mid;
	}
	return (hi);
}

/* The exact null distribution of the signed-rank statistic for n ranks. */
struct stats_null {
	size_t	 n;
	double	 total;		/* N = n(n+1)/2 */
	double	 var;		/* n(n+1)(2n+1)/24 */
	double	*upper;		/* upper[v] = P(V >= v), exact; NULL: normal */
};

/*
 * Sets up the null distribution: exact below STATS_WILCOXON_EXACT_MAX
 * ranks, else the normal approximation. Returns 0 or -1.
 */
static int
stats_null_new(struct stats_null *z, size_t n)
{
	uint64_t	*cnt;
	size_t		 total = n * (n + 1) / 2, j, s;
	double		 tail;

	memset(z, 0, sizeof *z);
	z->n = n;
	z->total = (double)total;
	z->var = (double)n * ((double)n + 1) * (2 * (double)n + 1) / 24;
	if (n >= STATS_WILCOXON_EXACT_MAX)
		return (0);
	if ((cnt = calloc(total + 1, sizeof *cnt)) == NULL)
		return (-1);
	if ((z->upper = calloc(total + 2, sizeof *z->upper)) == NULL) {
		free(cnt);
		return (-1);
	}
	cnt[0] = 1;
	for (j = 1; j <= n; j++) {
		for (s = j * (j + 1) / 2; s >= j; s--)
			cnt[s] += cnt[s - j];
	}
	for (tail = 0, s = total + 1; s-- > 0; ) {
		tail += ldexp((double)cnt[s], -(int)n);
		z->upper[s] = tail;
	}
	free(cnt);
	return (0);
}

/*
 * Returns the two-sided p-value of a statistic v (a multiple of 1/2: a
 * Walsh sum equal to the hypothesis counts half) under z.
 */
static double
stats_null_p(const struct stats_null *z, double v)
{
	double	t = fabs(v - z->total / 2), c, p;

	if (t == 0)
		return (1.0);
	if (z->upper != NULL) {
		/* P(|V - N/2| >= t) = 2 P(V >= N/2 + t), V whole. */
		c = ceil(z->total / 2 + t - 1e-9);
		if (c > z->total)
			return (0.0);
		p = 2 * z->upper[(size_t)c];
	} else {
		/* R's continuity correction toward the centre. */
		t = t > 0.5 ? t - 0.5 : 0;
		p = erfc(t / sqrt(z->var) / M_SQRT2);
	}
	return (p > 1 ? 1.0 : p);
}

/* Returns the statistic V at shift t2 (twice the log shift). */
static double
stats_walsh_v(const double *d, size_t n, double total, double t2)
{
	double	le = stats_walsh_count(d, n, t2, 0);
	double	lt = stats_walsh_count(d, n, t2, 1);

	return (total - le + (le - lt) / 2);
}

/* Returns the lag-1 autocorrelation of x[0..n) in order; NAN when n < 3. */
double
stats_lag1(const double *x, size_t n)
{
	double	mean = 0, num = 0, den = 0;
	size_t	i;

	if (n < 3)
		return (NAN);
	for (i = 0; i < n; i++)
		mean += x[i];
	mean /= (double)n;
	for (i = 0; i < n; i++) {
		den += (x[i] - mean) * (x[i] - mean);
		if (i + 1 < n)
			num += (x[i] - mean) * (x[i + 1] - mean);
	}
	/* Values equal but for rounding (a constant ratio's logarithms)
	 * have no correlation to speak of, only their last bits'. */
	if (!(sqrt(den / (double)n) > 1e-9 * fabs(mean)) || !(den > 0))
		return (NAN);
	return (num / den);
}

/* The standard normal quantile (Acklam's rational approximation, refined
 * by one Newton step on erfc: good to 1e-12 for 1e-300 < p < 1). */
double
stats_qnorm(double p)
{
	static const double a[] = { -3.969683028665376e+01,
	    2.209460984245205e+02, -2.759285104469687e+02,
	    1.383577518672690e+02, -3.066479806614716e+01,
	    2.506628277459239e+00 };
	static const double b[] = { -5.447609879822406e+01,
	    1.615858368580409e+02, -1.556989798598866e+02,
	    6.680131188771972e+01, -1.328068155288572e+01 };
	static const double c[] = { -7.784894002430293e-03,
	    -3.223964580411365e-01, -2.400758277161838e+00,
	    -2.549732539343734e+00, 4.374664141464968e+00,
	    2.938163982698783e+00 };
	static const double d[] = { 7.784695709041462e-03,
	    3.224671290700398e-01, 2.445134137142996e+00,
	    3.754408661907416e+00 };
	double	q, r, x, e;

	if (!(p > 0 && p < 1))
		return (p <= 0 ? -INFINITY : INFINITY);
	if (p < 0.02425) {
		q = sqrt(-2 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) *
		    q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) *
		    q + 1);
	} else if (p > 1 - 0.02425) {
		q = sqrt(-2 * log(1 - p));
		x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) *
		    q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) *
		    q + 1);
	} else {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) *
		    r + a[5]) * q / (((((b[0] * r + b[1]) * r + b[2]) * r +
		    b[3]) * r + b[4]) * r + 1);
	}
	e = 0.5 * erfc(-x / M_SQRT2) - p;
	x -= e * sqrt(2 * M_PI) * exp(x * x / 2);
	return (x);
}

/*
 * Returns the continued fraction of the regularized incomplete beta
 * I_x(a, b) (modified Lentz), for x < (a + 1) / (a + b + 2).
 */
static double
stats_betacf(double a, double b, double x)
{
	double	c = 1, d, h, aa, del, tiny = 1e-300;
	int	m, m2;

	d = 1 - (a + b) * x / (a + 1);
	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 1000; m++) {
		m2 = 2 * m;
		aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return (h);
}

/* Returns the regularized incomplete beta I_x(a, b), 0 <= x <= 1. */
static double
stats_betai(double a, double b, double x)
{
	double	lbt;

	if (x <= 0)
		return (0.0);
	if (x >= 1)
		return (1.0);
	lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
	    b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return (exp(lbt) * stats_betacf(a, b, x) / a);
	return (1 - exp(lbt) * stats_betacf(b, a, 1 - x) / b);
}

/*
 * Returns the upper quantile of Student's t with df (> 0, not only whole)
 * degrees of freedom: the t with P(T > t) = q, 0 < q < 1/2. P(T > t) =
 * I_x(df/2, 1/2) / 2 with x = df / (df + t^2), solved for x by bisection
 * on log x (x is tiny for tiny df and q).
 */
double
stats_qt_upper(double q, double df)
{
	double	lo = -1400, hi = 0, mid, x;
	int	it;

	if (!(q > 0 && q < 0.5) || !(df > 0))
		return (NAN);
	for (it = 0; it < 200; it++) {
		mid = (lo + hi) / 2;
		if (stats_betai(df / 2, 0.5, exp(mid)) / 2 > q)
			hi = mid;
		else
			lo = mid;
	}
	x = exp((lo + hi) / 2);
	if (!(x > 0))
		return (INFINITY);
	return (sqrt(df * (1 - x) / x));
}

int
stats_compare(const double *logs, size_t n, double alpha, double min_effect,
    struct stats_cmp *out)
{
	return (stats_compare_serial(logs, n, alpha, min_effect, NAN, 0, out));
}

/*
 * Sets out->r1 and out->widen: the serial correlation of the rounds, and
 * the variance factor it calls for (pooled_r1 of pooled_n rounds if any).
 */
static void
stats_serial_widen(const double *logs, size_t n, double pooled_r1,
    size_t pooled_n, struct stats_cmp *out)
{
	double	rr, nn, r;

	/*
	 * Serial correlation of the rounds, bias-corrected (Marriott and
	 * Pope: E[r] ~ rho - (1 + 3 rho) / n). When it is positive, the
	 * variance of the statistic grows by about (1 + rho) / (1 - rho):
	 * the effective number of rounds shrinks by as much.
	 */
	out->r1 = stats_lag1(logs, n);
	rr = out->r1;
	nn = (double)n;
	if (pooled_n > 0 && isfinite(pooled_r1)) {
		rr = pooled_r1;
		nn = (double)pooled_n;
	}
	if (isfinite(rr) && n >= STATS_SERIAL_MIN_SERIES &&
	    nn >= STATS_SERIAL_MIN && rr > STATS_SERIAL_Z / sqrt(nn)) {
		/*
		 * Significant (one-sided, 10%): widen by the bias-corrected
		 * estimate plus one standard error, as the estimate from a
		 * few dozen rounds is as often too low as too high, and too
		 * low lets false verdicts through (docs/statistics.md).
		 */
		r = ((double)n * rr + 1) / ((double)n - 3);
		r += STATS_SERIAL_SE * sqrt(fmax(0, 1 - r * r) / nn);
		if (r > 0.9)
			r = 0.9;
		out->widen = (1 + r) / (1 - r);
	}
}

/*
 * Sets out->lo and out->hi from the sorted differences d[0..n), N Walsh
 * averages of them, and the null distribution z: the inverted test.
 */
static void
stats_hl_interval(const double *d, size_t n, const double *all, double N,
    const struct stats_null *z, double alpha, struct stats_cmp *out)
{
	double	u, lo2, hi2, k;
	size_t	step, a, b, mid;

	/*
	 * The interval: every shift the test at alpha accepts. p depends on
	 * the shift only through V, so acceptance is |V - N/2| <= u - N/2
	 * for the largest half-step u whose p exceeds alpha (p falls as u
	 * rises); V falls as the shift rises, stepping at Walsh sums.
	 */
	for (a = 0, b = (size_t)N; a < b; ) {
		/* Half-steps above N/2: u = N/2 + step/2. */
		mid = a + (b - a + 1) / 2;
		if (stats_null_p(z, N / 2 + (double)mid / 2) > alpha)
			a = mid;
		else
			b = mid - 1;
	}
	step = a;
	u = N / 2 + (double)step / 2;
	if (u >= N) {
		lo2 = -INFINITY;
		hi2 = INFINITY;
	} else {
		/* The lowest accepted shift: #{sums > t} <= u first holds at
		 * the k-th smallest sum, k = ceil(N - u); the highest, by
		 * symmetry, at the k-th largest. */
		k = ceil(N - u);
		lo2 = stats_walsh_kth(d, n, all, k);
		hi2 = stats_walsh_kth(d, n, all, N + 1 - k);
	}
	out->lo = lo2 / 2;
	out->hi = hi2 / 2;
}

/*
 * Sets out->p and out->scale, and scales the interval for serial
 * correlation (docs/statistics.md, "shift-t"): with no widening, the
 * exact test's p at 0. With a widening w, the interval about the estimate
 * grows by c = sqrt(w) t_{n/w-1}(1 - alpha/2) / t_{n-1}(1 - alpha/2) (the
 * rounds' effective number, n/w, on the scale of the shift, so no rank
 * statistic's bound makes it unbounded; the exact interval of n rounds is
 * studentised by its own data and already pays for n - 1 degrees of
 * freedom, so c charges only the rest, and is 1 as w comes down to 1) and
 * p is the exact test's at the shift est (1 - 1/c): 0 lies in the scaled
 * interval exactly when that shift lies in the exact one, so p and
 * interval stay one procedure.
 */
static void
stats_shift_t(const double *d, size_t n, double N,
    const struct stats_null *z, double alpha, struct stats_cmp *out)
{
	double	df, c;

	out->scale = 1;
	if (!(out->widen > 1)) {
		out->p = stats_null_p(z, stats_walsh_v(d, n, N, 0));
		return;
	}
	/*
	 * n/w - 1 below STATS_SERIAL_DF (a w near n: fewer than three
	 * effective rounds) takes that many degrees of freedom: with one,
	 * t's quantile at a family's level (50 at 1.25%) would make a 3x
	 * effect of 20 rounds inconclusive (docs/statistics.md).
	 */
	df = fmax((double)n / out->widen - 1, STATS_SERIAL_DF);
	c = sqrt(out->widen) * stats_qt_upper(alpha / 2, df) /
	    stats_qt_upper(alpha / 2, (double)n - 1);
	if (!(c >= 1))
		c = 1;
	out->scale = c;
	if (isfinite(out->lo))
		out->lo = out->est - c * (out->est - out->lo);
	if (isfinite(out->hi))
		out->hi = out->est + c * (out->hi - out->est);
	out->p = stats_null_p(z, stats_walsh_v(d, n, N,
	    2 * out->est * (1 - 1 / c)));
}

/*
 * Sets out->sd, out->mde and out->decide_rounds from the log ratios logs,
 * sorted in d, with dev as scratch, for a test at alpha of N Walsh sums.
 */
static void
stats_detectable(const double *logs, const double *d, double *dev, size_t n,
    double N, const struct stats_null *z, double alpha, double min_effect,
    struct stats_cmp *out)
{
	double	k, r, se, za, zb, me, mad;
	size_t	i, mid;

	/*
	 * The effect this run could detect with 80% power: the Hodges-
	 * Lehmann estimate's standard error (sigma sqrt(pi/3n) for normal
	 * noise, sigma from the median absolute deviation so outliers do
	 * not inflate it), scaled as the interval is. A run too short for the
	 * test to reach alpha at all detects nothing (infinite).
	 */
	mid = n / 2;
	r = n % 2 == 1 ? d[mid] : (d[mid - 1] + d[mid]) / 2;
	for (i = 0; i < n; i++)
		dev[i] = fabs(logs[i] - r);
	mad = stats_median(dev, n) * 1.482602218505602;
	if (!(mad > 0)) {
		for (mad = 0, i = 0; i < n; i++)
			mad += (d[i] - d[mid]) * (d[i] - d[mid]);
		mad = n > 1 ? sqrt(mad / (double)(n - 1)) : 0;
	}
	out->sd = mad;
	za = stats_qnorm(1 - alpha / 2);
	zb = stats_qnorm(0.8);
	me = min_effect > 0 ? log(1 + min_effect) : 0;
	se = mad * sqrt(M_PI / 3 / (double)n) * out->scale;
	/* The noise's resolution; a verdict needs min_effect besides. */
	if (stats_null_p(z, N) > alpha)
		out->mde = INFINITY;
	else
		out->mde = (za + zb) * se;
	if (me > 0 && mad > 0) {
		k = ceil(pow((za + zb) * mad * sqrt(M_PI / 3) *
		    sqrt(out->widen) / me, 2));
		out->decide_rounds = k > 1e9 ? 1000000000 : (size_t)k;
	}
}

/*
 * Fills out for the log ratios logs: the Hodges-Lehmann estimate, the
 * signed-rank test, its interval and the detectable effect.
 */
int
stats_compare_serial(const double *logs, size_t n, double alpha,
    double min_effect, double pooled_r1, size_t pooled_n,
    struct stats_cmp *out)
{
	struct stats_null	 z;
	double			*d = NULL, *dev = NULL, *all = NULL, N;
	size_t			 i;
	int			 ret = -1;

	memset(out, 0, sizeof *out);
	memset(&z, 0, sizeof z);
	out->n = n;
	out->est = out->lo = out->hi = out->p = out->mde = NAN;
	out->r1 = NAN;
	out->widen = 1;
	out->scale = 1;
	out->level = 1 - alpha;
	out->decide_rounds = 0;
	if (n == 0 || !(alpha > 0 && alpha < 1) ||
	    n > SIZE_MAX / 2 / (n + 1))
		goto out;
	if ((d = stats_alloc(n)) == NULL || (dev = stats_alloc(n)) == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		if (!isfinite(logs[i]))
			goto out;
	}
	stats_serial_widen(logs, n, pooled_r1, pooled_n, out);
	memcpy(d, logs, n * sizeof *d);
	stats_sort(d, n);
	N = (double)n * ((double)n + 1) / 2;
	if (stats_null_new(&z, n) != 0)
		goto out;

	all = stats_walsh_all(d, n);
	/* Hodges-Lehmann: the median of the Walsh averages. */
	if (fmod(N, 2) == 1)
		out->est = stats_walsh_kth(d, n, all, (N + 1) / 2) / 2;
	else
		out->est = (stats_walsh_kth(d, n, all, N / 2) +
		    stats_walsh_kth(d, n, all, N / 2 + 1)) / 4;
	stats_hl_interval(d, n, all, N, &z, alpha, out);
	stats_shift_t(d, n, N, &z, alpha, out);
	stats_detectable(logs, d, dev, n, N, &z, alpha, min_effect, out);
	ret = 0;
out:
	free(d);
	free(dev);
	free(all);
	free(z.upper);
	return (ret);
}

/*
 * Returns the smallest p-value n rounds can give (all log ratios of one
 * sign) under the exact distribution; for n at or past the exact limit,
 * the normal approximation's.
 */
double
stats_min_p(size_t n)
{
	struct stats_null	z;
	double			p;

	if (n == 0 || stats_null_new(&z, n) != 0)
		return (1.0);
	p = stats_null_p(&z, z.total);
	free(z.upper);
	return (p);
}

enum stats_verdict
stats_verdict_test(const struct stats_cmp *c, double alpha,
    double min_effect, int higher_better)
{
	double	me = min_effect, ratio, lo, hi;

	if (isnan(c->est) || isnan(c->p) || isnan(me))
		return (VERDICT_INCONCLUSIVE);
	if (me < 0)
		me = 0;
	ratio = exp(c->est);
	lo = exp(c->lo);
	hi = exp(c->hi);
	if (lo >= 1 - me && hi <= 1 + me)
		return (VERDICT_SAME);
	/* Proven by the test (p <= alpha, the interval excludes 1) and
	 * past min_effect. */
	if (c->p <= alpha && ratio < 1 - me)
		return (higher_better ? VERDICT_WORSE : VERDICT_BETTER);
	if (c->p <= alpha && ratio > 1 + me)
		return (higher_better ? VERDICT_BETTER : VERDICT_WORSE);
	return (VERDICT_INCONCLUSIVE);
}
