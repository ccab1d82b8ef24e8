/*
 * Claims' verdicts: what the suite states it expects of a variant
 * ([claim.NAME], parsed with the suite: coordinator/input/suite.h),
 * decided per architecture group and host from the run's primary
 * comparisons at the family's level (docs/statistics.md, "Claims"). The
 * reports write them (coordinator/report/report-claims.h).
 */
#ifndef COORDINATOR_CLAIMS_H
#define COORDINATOR_CLAIMS_H

#include <stddef.h>

struct analysis;
struct dataset;
struct rep_cmp;
struct suite;
struct suite_claim;

enum claim_verdict {
	CLAIM_CONFIRMED,
	CLAIM_REFUTED,
	CLAIM_UNDECIDED,
};

/* One primary comparison a claim covers: (host, bench) of its variant. */
struct claim_row {
	size_t			 claim, host, bench;	/* host: index into
							   analysis.hosts */
	const struct rep_cmp	*cmp;		/* NULL: no comparison */
	enum claim_verdict	 verdict;
};

/*
 * A claim's verdict over some of its rows: a host's (host is an index
 * into analysis.hosts), a group's (host is (size_t)-1) or the whole run's
 * (group too). decider is the row that decides it.
 */
struct claim_sum {
	size_t			 claim, group, host;
	enum claim_verdict	 verdict;
	const struct claim_row	*decider;	/* NULL: no row */
	size_t			 nrows;
	size_t			 count[CLAIM_UNDECIDED + 1];
};

struct claims {
	const struct suite	*suite;		/* the dataset's, parsed from
						   the record */
	struct rep_cmp		*extra;		/* comparisons against a
						   claim's own reference,
						   in the family */
	size_t			 nextra;
	size_t			 nrows;
	struct claim_row	*rows;		/* by claim, group,
						   host, bench */
	size_t			 nsums;
	struct claim_sum	*sums;		/* per claim: run, then
						   per group the group
						   and its hosts */
	char			*error;		/* the suite's claims could not
						   be read: why; else NULL */
};

/*
 * Decides the claims of the suite recorded in a's dataset and hangs them
 * on a (a->claims, NULL when the suite states none; freed with a).
 * Returns 0, or -1 with *cause set (caller frees) out of memory.
 */
int	claims_attach(struct analysis *a, char **cause);

/* Returns "CONFIRMED", "REFUTED" or "UNDECIDED". */
const char *claims_verdict_name(enum claim_verdict v);

/* Returns the name of claim c's reference variant in ds. */
const char *claims_ref_name(const struct dataset *ds,
	    const struct suite_claim *c);

/*
 * Writes a row's comparison into buf: "3.007 [2.988, 3.050] at 99.00%",
 * "no comparison", "invalid" or "R, interval unbounded".
 */
void	claims_ratio_text(const struct claim_row *r, char *buf, size_t len);

/*
 * Writes the deciding row's "host: bench" (host set) or "bench" into buf,
 * "-" when there is none; returns buf.
 */
const char *claims_decider_text(const struct analysis *a,
	    const struct claim_row *r, char *buf, size_t len, int host);

/*
 * Counts the claims a refutes into *n and appends one line each to
 * *lines ("orch: --fail-on: claim NAME REFUTED on ...").  Returns 0, or
 * -1 out of memory.
 */
int	claims_gate(const struct analysis *a, size_t *n, char **lines);

#endif
