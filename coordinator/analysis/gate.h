/*
 * The --fail-on gate of orch run and orch report: which verdicts of the
 * primary comparisons (the family of docs/statistics.md) make the command
 * exit 1, and the line that says why for each one that does.
 */
#ifndef COORDINATOR_GATE_H
#define COORDINATOR_GATE_H

#include <stddef.h>

#include "coordinator/analysis/analysis.h"

#define GATE_WORSE		0x1
#define GATE_INVALID		0x2
#define GATE_INCONCLUSIVE	0x4
#define GATE_REFUTED		0x8	/* a claim (claims.h) refuted */
#define GATE_ANY		(GATE_WORSE | GATE_INVALID | \
				    GATE_INCONCLUSIVE | GATE_REFUTED)

/*
 * Parses a comma list of worse, invalid, inconclusive, refuted and any
 * into *mask (or-ed into it, so the option may repeat). Returns 0, or -1
 * with *cause set (caller frees) naming the word it does not know.
 */
int	gate_parse(const char *list, int *mask, char **cause);

/*
 * Counts the primary comparisons of a whose verdict mask trips into *n
 * and sets *lines (caller frees; NULL when none) to one line each:
 * "orch: --fail-on: HOST BENCH METRIC: B vs A worse (+3.1%, ...)", and
 * with GATE_REFUTED one per architecture group that refutes a claim.
 * Returns 0, or -1 out of memory.
 */
int	gate_check(const struct analysis *a, int mask, size_t *n,
	    char **lines);

#endif
