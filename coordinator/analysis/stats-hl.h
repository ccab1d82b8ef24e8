/*
 * Two unpaired samples: the Hodges–Lehmann estimate of the shift between
 * them and its Mann–Whitney (Wilcoxon rank-sum) inversion interval. The
 * report's Machines section compares hosts with it, on log values, where
 * there are no pairs to form: different hardware, measured at the same time.
 */
#ifndef COORDINATOR_STATS_HL_H
#define COORDINATOR_STATS_HL_H

#include <stddef.h>
#include <stdint.h>

/* Both samples at most this large: the exact rank-sum distribution. */
#define STATS_HL_EXACT_MAX	50

/*
 * The Hodges–Lehmann shift of y against x: the median of the n * m
 * differences y[j] - x[i], and the interval [d(k), d(nm + 1 - k)] of those
 * differences whose rank k comes from the Mann–Whitney distribution at
 * level (e.g. 0.95): exact when n and m are both at most STATS_HL_EXACT_MAX,
 * else its normal approximation with continuity correction. The differences
 * are never stored: order statistics are found by counting. *lo and *hi are
 * NAN when the samples are too small for the level (3 and 3 runs at 95%).
 * Returns 0, or -1 when n or m is 0, a value is not finite, or memory runs
 * out.
 */
int	stats_hl_shift(const double *x, size_t n, const double *y, size_t m,
	    double level, double *est, double *lo, double *hi);

/*
 * The rank k of the interval's lower end for samples of n and m at level:
 * the smallest u with P(U <= u) >= (1 - level) / 2 under the Mann–Whitney
 * null distribution (R's qwilcox). 0 when the level cannot be reached;
 * (uint64_t)-1 when memory runs out.
 */
uint64_t stats_hl_rank(size_t n, size_t m, double level);

/* Returns the standard normal quantile of p in (0, 1). */
double	stats_hl_probit(double p);

#endif
