/*
 * Memory layout: does a benchmark's primary metric move with the size of
 * its environment (the padding each measured run gets, docs/suites.md
 * "env_pad")? A Spearman rank correlation per host, benchmark and
 * variant, at the family-wise level over all of them (docs/statistics.md,
 * "Memory layout").
 */
#ifndef COORDINATOR_LAYOUT_H
#define COORDINATOR_LAYOUT_H

#include <stddef.h>

struct analysis;

#define LAYOUT_MIN_N	10	/* padded runs a test needs */

/* One test: the padding against the metric of one variant's runs. */
struct layout_test {
	size_t	host, bench, variant;	/* dataset indices */
	size_t	n;			/* padded runs with a value */
	double	rho;			/* Spearman's rank correlation */
	double	p;			/* two-sided */
	int	sensitive;		/* p <= layout.alpha */
};

struct layout {
	size_t			 ntests;
	struct layout_test	*tests;
	double			 alpha;	/* STATS_ALPHA / ntests */
};

/*
 * Returns Spearman's rank correlation of x and y (n pairs, ties ranked
 * by their mean rank) and sets *p to its two-sided p-value (Fisher's z of
 * rho, with the variance 1.06 / (n - 3)). Both are NAN when n is below
 * LAYOUT_MIN_N or x or y is constant.
 */
double	layout_spearman(const double *x, const double *y, size_t n, double *p);

/*
 * Tests every (host, bench, variant) of a's dataset with at least
 * LAYOUT_MIN_N padded good measured runs of its bench's primary metric:
 * the padding against the value, within the variant. The rounds' drift
 * is left in, as noise: each run's padding is drawn on its own, so the
 * drift cannot make a correlation, and taking out a round's mean would
 * mix the other variants' paddings into each one's. Returns 0, or -1 out
 * of memory; *out is freed with layout_free.
 */
int	layout_build(const struct analysis *a, struct layout **out);

/* Frees a layout; NULL is ok. */
void	layout_free(struct layout *l);

#endif
