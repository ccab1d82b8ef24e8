/*
 * The claims in each report: the table of report.md and report.html,
 * summary.json's member, answer.md's lines and the terminal's, from the
 * verdicts of coordinator/analysis/claims.h (nothing when the suite states
 * no claim).
 */
#ifndef COORDINATOR_REPORT_CLAIMS_H
#define COORDINATOR_REPORT_CLAIMS_H

#include <stdio.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/report/report-text.h"

/* Writes the claims table of report.md / report.html in format fmt. */
void	report_claims_table(FILE *f, const struct report_fmt *fmt,
	    const struct analysis *a);

/* Writes summary.json's "claims" member (with its leading ",\n"). */
void	report_claims_json(FILE *f, const struct analysis *a);

/* Writes the claims for answer.md: per claim its run's and groups' verdicts. */
void	report_claims_answer_md(FILE *f, const struct analysis *a);

/* Writes the claims for the terminal, before the answer. */
void	report_claims_text(FILE *f, const struct analysis *a);

#endif
