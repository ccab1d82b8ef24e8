/*
 * rounds = auto: the looks of a host's sequential test. A host runs
 * blocks of min_rounds rounds and is looked at after each; the family's
 * alpha is spent over the looks by a spending function of the information
 * fraction n / max_rounds, fixed before the first round. Each look tests
 * at the nominal level of its exact group-sequential boundary (seq_level:
 * the cumulative statistic's joint normal law over the looks, integrated
 * numerically), so that the family's error holds at every look, whenever
 * the host stops (docs/statistics.md, "Adaptive rounds").
 */
#ifndef COORDINATOR_SEQ_H
#define COORDINATOR_SEQ_H

#include <stddef.h>
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
 * Returns the share of the family's alpha that the look at n rounds
 * spends: F(n / max) - F(prev(n) / max), F(t) = min(1, t)^SEQ_RHO. The
 * shares of all looks sum to at most 1 (the union bound). seq_level tests
 * at it off the schedule and past SEQ_EXACT_LOOKS. 0 when n is 0.
 */
double		seq_share(uint32_t n, uint32_t min_rounds,
		    uint32_t max_rounds);

/*
 * Looks past this many are tested at their share (the union bound over
 * them, after the exact boundaries of the first SEQ_EXACT_LOOKS).
 */
#define SEQ_EXACT_LOOKS	100

/*
 * Returns the two-sided level the look at n rounds tests at, for a family
 * level alpha: at a look of the schedule (seq_next's boundaries) the
 * nominal level 2 (1 - Phi(c_k)) of its exact boundary c_k, so that under
 * no change the probability of any crossing by look k is alpha F(t_k);
 * off the schedule (a host that stopped mid-block) alpha times its share
 * (seq_share), which keeps the error at most alpha F(n / max). 0 when n is
 * 0 or the schedule cannot be computed.
 */
double		seq_level(uint32_t n, uint32_t min_rounds, uint32_t max_rounds,
		    double alpha);

/*
 * The exact boundaries of k looks at information info[0..k-1]
 * (increasing, positive) for a standardised statistic whose cumulative
 * sum has independent normal increments: with spent (the cumulative
 * alpha to spend by each look) non-NULL, sets c[i] to the two-sided
 * boundary at which the probability of crossing first at look i is
 * spent[i] - spent[i - 1] (INFINITY when that is not positive); with
 * spent NULL, takes c as given. Sets cum[i] (when not NULL) to the
 * probability of any crossing by look i. Returns 0, or -1 when info is
 * not increasing and positive.
 */
int		seq_bounds(const double *info, size_t k, const double *spent,
		    double *c, double *cum);

/*
 * Returns 1 when a block taking pace_ns more would end past the budget,
 * already spent_ns into it (0: no budget).
 */
int		seq_over_budget(int64_t spent_ns, int64_t pace_ns,
		    uint32_t budget_s);

/* Returns "decided", "max_rounds", "budget" or "going". */
const char	*seq_stop_name(enum seq_stop);

#endif
