/*
 * The looks of rounds = auto (seq.h): where blocks end, the alpha each look
 * tests at, and the budget's check.
 */
#include <math.h>

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
