/*
 * Statistics for paired A/B samples: summaries, the median of per-round
 * ratios with a seeded bootstrap interval, the Wilcoxon signed-rank test,
 * and the verdict rule of docs/report.md. Pure functions; nothing here allocates
 * without reporting failure.
 */
#ifndef COORDINATOR_STATS_H
#define COORDINATOR_STATS_H

#include <stddef.h>
#include <stdint.h>

#define STATS_BOOT_N	10000	/* bootstrap resamples */
#define STATS_BOOT_EXACT_MIN 2000	/* larger samples: the median's interval
					   in closed form, without resampling */
#define STATS_BOOT_WORK	20000000	/* values drawn by one geomean bootstrap */
#define STATS_BOOT_MIN	200		/* fewest geomean resamples */
#define STATS_MIN_PAIRS	5	/* fewer good pairs: invalid */

enum stats_verdict {
	VERDICT_BETTER,
	VERDICT_WORSE,
	VERDICT_SAME,
	VERDICT_INCONCLUSIVE,
	VERDICT_INVALID,
};

struct stats_summary {
	size_t	n;
	double	median;
	double	min;
	double	max;
	double	mean;
	double	q1;		/* 25th percentile */
	double	q3;		/* 75th percentile */
	double	iqr_pct;	/* (q3 - q1) / median * 100; 0 when median is 0 */
	double	cv;		/* sample stddev / mean; 0 when n < 2 or mean 0 */
};

/* Returns the q-quantile (0..1) of sorted x (n > 0), linear interpolation
 * between closest ranks (R type 7, numpy's default). */
double	stats_quantile(const double *sorted, size_t n, double q);

/* Summarizes x (n may be 0: all zero). Returns 0 or -1 (out of memory). */
int	stats_summarize(const double *x, size_t n, struct stats_summary *out);

/* Returns the median of x (n > 0); x is not changed. NAN when n is 0 or
 * memory runs out. */
double	stats_median(const double *x, size_t n);
/* Sorts x[0..n) ascending, NANs last. */
void	stats_sort(double *x, size_t n);

/*
 * The percentile bootstrap interval (level e.g. 0.95) of the median of x,
 * from STATS_BOOT_N resamples drawn from a generator seeded with seed; for
 * n > STATS_BOOT_EXACT_MIN the same interval is computed in closed form
 * (the bootstrap median's distribution is binomial in the order statistics).
 * Returns 0 or -1 (n == 0 or out of memory).
 */
int	stats_boot_median(const double *x, size_t n, uint64_t seed,
	    double level, double *lo, double *hi);
/* As stats_boot_median, from nboot (> 0) resamples instead of STATS_BOOT_N. */
int	stats_boot_median_n(const double *x, size_t n, uint64_t seed,
	    double level, size_t nboot, double *lo, double *hi);

/*
 * The geometric mean over k benchmarks of their median paired ratios, and
 * its bootstrap interval where rounds are resampled jointly: each resample
 * draws round indices once and uses them for every benchmark. ratios[b] has
 * n[b] per-round ratios indexed by round (round r of benchmark b is
 * ratios[b][r]; rounds missing in a benchmark are NAN and skipped).
 * Returns 0 or -1.
 */
int	stats_boot_geomean(const double *const *ratios, const size_t *n,
	    size_t k, uint64_t seed, double level, double *est, double *lo,
	    double *hi);

/*
 * Two-sided p-value of the Wilcoxon signed-rank test that the d[i] are
 * symmetric about 0 (zeros dropped, average ranks for ties; exact for
 * n < 50 without ties, else the normal approximation with tie and
 * continuity correction, as R's wilcox.test). Returns 1.0 when fewer than
 * one non-zero difference remains; NAN on out of memory.
 */
double	stats_wilcoxon_p(const double *d, size_t n);

/*
 * The verdict (docs/report.md) for a ratio (variant / reference) with interval
 * [lo, hi], given min_effect and whether higher values are better. npairs
 * below STATS_MIN_PAIRS or checksum_ok == 0 gives VERDICT_INVALID.
 */
enum stats_verdict stats_verdict(double ratio, double lo, double hi,
	    double min_effect, int higher_better, size_t npairs,
	    int checksum_ok);

/* Returns "better", "worse", "same", "inconclusive" or "invalid". */
const char	*stats_verdict_name(enum stats_verdict v);

#endif
