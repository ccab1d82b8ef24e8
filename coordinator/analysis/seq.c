/*
 * The looks of rounds = auto (seq.h): where blocks end, the alpha each look
 * tests at, and the budget's check.
 */
#include <math.h>
#include <stddef.h>

#include "coordinator/analysis/seq.h"

uint32_t
seq_next(uint32_t n, uint32_t min_rounds, uint32_t max_rounds)
{
	uint64_t	next;

	if (min_rounds == 0 || n >= max_rounds)
		return (max_rounds);
	next = ((uint64_t)n / min_rounds + 1) * min_rounds;
	return (next > max_rounds ? max_rounds : (uint32_t)next);
}

uint32_t
seq_prev(uint32_t n, uint32_t min_rounds, uint32_t max_rounds)
{
	uint32_t	prev;

	if (min_rounds == 0 || n <= min_rounds)
		return (0);
	if (n > max_rounds)
		n = max_rounds;
	prev = (n - 1) / min_rounds * min_rounds;
	return (prev);
}

/* The spending function: alpha's share spent by the fraction t. */
static double
seq_spend(double t)
{
	if (t <= 0)
		return (0);
	if (t >= 1)
		return (1);
	return (pow(t, SEQ_RHO));
}

double
seq_share(uint32_t n, uint32_t min_rounds, uint32_t max_rounds)
{
	double	N = max_rounds;

	if (n == 0 || max_rounds == 0)
		return (0);
	return (seq_spend(n / N) -
	    seq_spend(seq_prev(n, min_rounds, max_rounds) / N));
}

/*
 * A schedule's nominal levels, computed once per thread (a look analyses
 * the record again at every block: the same schedule each time).
 */
struct seq_cache {
	double		alpha;
	uint32_t	min_rounds, max_rounds;
	size_t		k;		/* looks computed; 0: empty slot */
	double		level[SEQ_EXACT_LOOKS];
};
#define SEQ_NCACHE	4
static _Thread_local struct seq_cache	seq_caches[SEQ_NCACHE];
static _Thread_local unsigned		seq_cache_next;

/* Computes the schedule's levels into sc; returns 0 or -1. */
static int
seq_schedule(struct seq_cache *sc, double alpha, uint32_t min_rounds,
    uint32_t max_rounds)
{
	double		info[SEQ_EXACT_LOOKS], spent[SEQ_EXACT_LOOKS];
	double		c[SEQ_EXACT_LOOKS];
	uint32_t	n = 0;
	size_t		k = 0, i;

	while (k < SEQ_EXACT_LOOKS && n < max_rounds) {
		n = seq_next(n, min_rounds, max_rounds);
		info[k] = n;
		spent[k] = alpha * seq_spend((double)n / max_rounds);
		k++;
	}
	if (k == 0 || seq_bounds(info, k, spent, c, NULL) != 0)
		return (-1);
	for (i = 0; i < k; i++)
		sc->level[i] = erfc(c[i] / M_SQRT2);
	sc->alpha = alpha;
	sc->min_rounds = min_rounds;
	sc->max_rounds = max_rounds;
	sc->k = k;
	return (0);
}

double
seq_level(uint32_t n, uint32_t min_rounds, uint32_t max_rounds,
    double alpha)
{
	struct seq_cache	*sc = NULL;
	size_t			 i, look;

	if (n == 0 || max_rounds == 0 || min_rounds == 0 || !(alpha > 0))
		return (0);
	if (n > max_rounds)
		n = max_rounds;
	if (n != max_rounds && n % min_rounds != 0)
		return (alpha * seq_share(n, min_rounds, max_rounds));
	look = (n - 1) / min_rounds;	/* max_rounds: the last look */
	if (look >= SEQ_EXACT_LOOKS)
		return (alpha * seq_share(n, min_rounds, max_rounds));
	for (i = 0; i < SEQ_NCACHE; i++) {
		if (seq_caches[i].k > 0 && seq_caches[i].alpha == alpha &&
		    seq_caches[i].min_rounds == min_rounds &&
		    seq_caches[i].max_rounds == max_rounds)
			sc = &seq_caches[i];
	}
	if (sc == NULL) {
		sc = &seq_caches[seq_cache_next++ % SEQ_NCACHE];
		sc->k = 0;
		if (seq_schedule(sc, alpha, min_rounds, max_rounds) != 0)
			return (0);
	}
	return (look < sc->k ? sc->level[look] : 0);
}

int
seq_over_budget(int64_t spent_ns, int64_t pace_ns, uint32_t budget_s)
{
	if (budget_s == 0)
		return (0);
	return (spent_ns + pace_ns > (int64_t)budget_s * 1000000000LL);
}

const char *
seq_stop_name(enum seq_stop s)
{
	switch (s) {
	case SEQ_DECIDED:
		return ("decided");
	case SEQ_MAX:
		return ("max_rounds");
	case SEQ_BUDGET:
		return ("budget");
	default:
		return ("going");
	}
}
