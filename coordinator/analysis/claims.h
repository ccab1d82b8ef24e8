/*
 * Claims: what a suite states it expects of a variant ([claim.NAME] in the
 * suite, docs/suites.md), parsed with the suite, and decided per
 * architecture group and host from the run's primary comparisons at the
 * family's level (docs/statistics.md, "Claims").
 */
#ifndef COORDINATOR_CLAIMS_H
#define COORDINATOR_CLAIMS_H

#include <stddef.h>
#include <stdio.h>

#include "proto/proto.h"

struct ini_src;
struct suite;
struct analysis;
struct rep_cmp;
struct report_fmt;

#define CLAIMS_MAX		64	/* [claim.NAME] sections per suite */
#define CLAIMS_BENCHES_MAX	256	/* names in one benchmarks list */

#define CLAIM_BETTER	0
#define CLAIM_WORSE	1
#define CLAIM_SAME	2

struct suite_claim {
	char		 name[PROTO_NAME_MAX];
	char		 variant[PROTO_NAME_MAX];
	char		 reference[PROTO_NAME_MAX];	/* "" the suite's */
	size_t		 nbenches;	/* 0: all */
	char		**benches;
	int		 expect;	/* CLAIM_* */
	double		 by;		/* "by >= N%": N / 100; 0 none */
	int		 line;		/* of [claim.NAME] */
	int		 variant_line, reference_line, benches_line;
	int		 expect_line;
};

/* The keys of a [claim.NAME] section, NULL-terminated (for ini_key). */
extern const char *const claims_keys[];

/*
 * Starts a claim named name[0..len) in s at src's line: checks the name
 * and that it is new. Returns the claim, or NULL with the error reported.
 */
struct suite_claim *claims_add(struct ini_src *src, struct suite *s,
	    const char *name, size_t len);

/* Takes key k (index into claims_keys) = v of claim c; reports errors. */
void	claims_key(struct ini_src *src, struct suite_claim *c, int k,
	    const char *v);

/* Checks claim c once its section ends (expect and variant given). */
void	claims_end(struct ini_src *src, struct suite_claim *c);

/*
 * Checks every claim of s against its variants and benchmarks once the
 * whole suite is read; reports the first error.
 */
void	claims_finish(struct ini_src *src, struct suite *s);

/* Frees s's claims. */
void	claims_free(struct suite *s);

/* Writes a claim's expectation: "better by >= 2%", "same". */
void	claims_expect_text(const struct suite_claim *c, char *buf,
	    size_t len);

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
	struct suite		*suite;		/* parsed from the record */
	struct rep_cmp		*extra;		/* comparisons against a claim's
						   own reference, in the family */
	size_t			 nextra;
	size_t			 nrows;
	struct claim_row	*rows;		/* by claim, group, host, bench */
	size_t			 nsums;
	struct claim_sum	*sums;		/* per claim: run, then per group
						   the group and its hosts */
	char			*error;		/* the suite's claims could not
						   be read: why; else NULL */
};

/*
 * Returns how many tests the claims of a's suite add to the run's family:
 * their comparisons against a reference other than the suite's, with
 * enough pairs (docs/statistics.md, "Claims"). 0 when none or unreadable.
 */
size_t	claims_family_extra(const struct analysis *a);

/*
 * Decides the claims of the suite recorded in a's dataset. Returns 0 with
 * *out set (NULL when the suite states none), or -1 out of memory.
 */
int	claims_build(const struct analysis *a, struct claims **out);
void	claims_free_set(struct claims *cs);

/* Returns "CONFIRMED", "REFUTED" or "UNDECIDED". */
const char *claims_verdict_name(enum claim_verdict v);

/* Writes the claims table of report.md / report.html in format fmt. */
void	claims_report(FILE *f, const struct report_fmt *fmt,
	    const struct analysis *a);

/* Writes summary.json's "claims" member (with its leading ",\n"). */
void	claims_json(FILE *f, const struct analysis *a);

/* Writes the claims for answer.md: per claim its run's and groups' verdicts. */
void	claims_answer_md(FILE *f, const struct analysis *a);

/* Writes the claims for the terminal, before the answer. */
void	claims_text(FILE *f, const struct analysis *a);

/*
 * Counts the claims a refutes into *n and appends one line each to
 * *lines ("orch: --fail-on: claim NAME REFUTED on ...").  Returns 0, or
 * -1 out of memory.
 */
int	claims_gate(const struct analysis *a, size_t *n, char **lines);

#endif
