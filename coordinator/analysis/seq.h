/*
 * rounds = auto: the looks of a host's sequential test. A host runs
 * blocks of min_rounds rounds and is looked at after each; the family's
 * alpha is spent over the looks by a spending function of the information
 * fraction n / max_rounds, each look testing at its increment, so that by
 * the union bound the family's error holds at every look, whenever the
 * host stops (docs/statistics.md, "Adaptive rounds").
 */
#ifndef COORDINATOR_SEQ_H
#define COORDINATOR_SEQ_H

#include <stdint.h>

/* How a host stopped (or why it goes on). */
enum seq_stop {
	SEQ_GOING,		/* undecided, rounds and budget left */
	SEQ_DECIDED,		/* every primary comparison decided */
	SEQ_MAX,		/* reached max_rounds */
	SEQ_BUDGET,		/* another block would not fit its budget */
};

/* The spending function: the share of alpha spent by fraction t, t^rho. */
#define SEQ_RHO		1.0

/*
 * Returns the look after n rounds: the smallest block boundary (a multiple
 * of min_rounds, or max_rounds) above n. n >= max_rounds gives max_rounds.
 */
uint32_t	seq_next(uint32_t n, uint32_t min_rounds, uint32_t max_rounds);

/*
 * Returns the look before n: the largest block boundary below n, or 0.
 */
uint32_t	seq_prev(uint32_t n, uint32_t min_rounds, uint32_t max_rounds);

/*
 * Returns the share of the family's alpha that the look at n rounds tests
 * at: F(n / max) - F(prev(n) / max), F(t) = min(1, t)^SEQ_RHO. The shares
 * of all looks sum to at most 1 whatever the looks were, so the family's
 * error holds at every look. 0 when n is 0.
 */
double		seq_share(uint32_t n, uint32_t min_rounds,
		    uint32_t max_rounds);

/*
 * Returns 1 when a block taking pace_ns more would end past the budget,
 * already spent_ns into it (0: no budget).
 */
int		seq_over_budget(int64_t spent_ns, int64_t pace_ns,
		    uint32_t budget_s);

/* Returns "decided", "max_rounds", "budget" or "going". */
const char	*seq_stop_name(enum seq_stop);

#endif
