/*
 * Statistics for paired A/B samples: summaries; one comparison's
 * Hodges-Lehmann estimate, Wilcoxon signed-rank p and the interval that
 * inverts it, with serial-correlation widening and the detectable effect;
 * seeded bootstraps (the median, the geometric mean of medians); and the
 * verdict rules of docs/statistics.md. Pure functions; nothing here
 * allocates without reporting failure.
 */
#ifndef COORDINATOR_STATS_H
#define COORDINATOR_STATS_H

#include <stddef.h>
#include <stdint.h>

#define STATS_BOOT_N	10000	/* bootstrap resamples */
#define STATS_BOOT_EXACT_MIN 2000	/* larger samples: the median's interval
					   in closed form, without resampling */
#define STATS_BOOT_WORK	20000000	/* values drawn by one geomean
					   bootstrap */
#define STATS_BOOT_MIN	2000		/* fewest geomean resamples */
#define STATS_MIN_PAIRS	5	/* fewer good pairs: invalid */
#define STATS_ALPHA	0.05	/* family-wise error of the primary verdicts */
#define STATS_SERIAL_MIN 20	/* fewer rounds (pooled): no serial
				   correlation estimate, no widening */
#define STATS_SERIAL_MIN_SERIES 8	/* nor from a shorter series */
#define STATS_SERIAL_Z	1.28	/* widen when lag-1 r > this / sqrt(n) */
#define STATS_SERIAL_SE	1.0	/* standard errors added to the estimate */
#define STATS_SERIAL_DF	2.0	/* fewest degrees of freedom of the
				   widened interval's t */

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
	double	iqr_pct;	/* (q3 - q1) / median * 100; 0 when
				   median is 0 */
	double	cv;		/* sample stddev / mean; 0 when n < 2
				   or mean 0 */
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

/*
 * One comparison by the procedure of docs/statistics.md, on the log ratios
 * of its pairs in round order: the Hodges-Lehmann estimate, the Wilcoxon
 * signed-rank p-value and the interval of every shift that test accepts at
 * alpha, all on the log scale, so the interval excludes 0 exactly when
 * p <= alpha (up to an endpoint the test itself rejects).
 */
struct stats_cmp {
	size_t	n;
	double	est, lo, hi;	/* log ratio; lo/hi may be -inf/inf */
	double	p;		/* two-sided */
	double	level;		/* 1 - alpha */
	double	r1;		/* lag-1 autocorrelation; NAN below 3 rounds */
	double	widen;		/* variance factor for it; 1: none */
	double	scale;		/* the interval's factor for it; 1: none */
	double	sd;		/* robust spread of the log ratios */
	double	mde;		/* log effect found with 80% power; inf: none */
	size_t	decide_rounds;	/* rounds that find min_effect at 80%; 0 */
};

/* Fills out for the n log ratios logs at alpha. Returns 0 or -1. */
int	stats_compare(const double *logs, size_t n, double alpha,
	    double min_effect, struct stats_cmp *out);

/*
 * As stats_compare, with the serial correlation judged from pooled_r1,
 * the mean lag-1 autocorrelation of pooled_n rounds of series like this
 * one (pooled_n 0: from logs alone).
 */
int	stats_compare_serial(const double *logs, size_t n, double alpha,
	    double min_effect, double pooled_r1, size_t pooled_n,
	    struct stats_cmp *out);

/* The verdict of docs/statistics.md for a comparison tested at alpha. */
enum stats_verdict stats_verdict_test(const struct stats_cmp *c,
	    double alpha, double min_effect, int higher_better);

/* Returns the smallest two-sided p-value n rounds can reach. */
double	stats_min_p(size_t n);

/* Returns the lag-1 autocorrelation of x in order; NAN when n < 3. */
double	stats_lag1(const double *x, size_t n);

/* Returns the standard normal quantile of p. */
double	stats_qnorm(double p);

/* Returns the t with P(T > t) = q (0 < q < 1/2) for Student's t with df
 * (> 0, not only whole) degrees of freedom; NAN for bad arguments. */
double	stats_qt_upper(double q, double df);

/* Returns "better", "worse", "same", "inconclusive" or "invalid". */
const char	*stats_verdict_name(enum stats_verdict v);

#endif
