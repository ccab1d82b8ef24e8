/*
 * Change points of a series of runs: e-divisive means (Matteson & James,
 * 2014) with its permutation test, the method `orch history` finds the runs
 * where a benchmark's level shifted with (docs/history.md).
 */
#ifndef COORDINATOR_CHANGEPOINT_H
#define COORDINATOR_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

#define CP_MIN_SEG	5	/* runs on each side of a change, at least */
#define CP_PERMS	199	/* permutations of each significance test */
#define CP_ALPHA	0.05	/* level of each test */
#define CP_SEED		20260401ULL	/* fixed: the same series, the same
					   change points */
#define CP_MAX_N	2000	/* longest series searched: O(n^2) a
				   permutation; longer ones, their last runs */

struct cp_point {
	size_t	at;		/* first index of the new level */
	double	p;		/* permutation p-value of its split */
	double	shift;		/* Hodges–Lehmann shift, after - before */
	double	lo, hi;		/* its 95% Mann–Whitney interval; NAN when
				   the segments are too short */
};

/*
 * Finds the change points of x[0..n) (finite values; pass logs for a
 * multiplicative level): bisects at the split of largest energy statistic
 * while its permutation p-value (perms permutations within the current
 * segments, generator seeded from seed and key) is at most alpha, each
 * segment at least min_seg long. The points come sorted by at, each with
 * the shift between its neighbouring segments. Returns 0 with *out (caller
 * frees; NULL when none) and *nout, or -1 on a bad argument or no memory.
 */
int	changepoint_find(const double *x, size_t n, size_t min_seg,
	    size_t perms, double alpha, uint64_t seed, const char *key,
	    struct cp_point **out, size_t *nout);

#endif
