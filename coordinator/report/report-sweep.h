/*
 * Sweeps in the report: for each benchmark of the suite with params =
 * (docs/suites.md), its primary ratio and 95% interval against the
 * sweep's points, per host and variant; a table in Markdown, an inline
 * SVG plot in HTML. The sweeps are read from the record's suite text.
 */
#ifndef COORDINATOR_REPORT_SWEEP_H
#define COORDINATOR_REPORT_SWEEP_H

#include <stdio.h>

#include "coordinator/analysis/analysis.h"

/* Writes the "Sweeps" section of report.md; nothing when none. */
void	report_sweep_md(FILE *f, const struct analysis *a);

/* Writes the "Sweeps" section of report.html; nothing when none. */
void	report_sweep_html(FILE *f, const struct analysis *a);

/*
 * Writes summary.json's "sweeps" member and its comma: each sweep's
 * [bench.NAME] and its points, each a benchmark and its parameters;
 * nothing when the suite has no sweep.
 */
void	report_sweep_json(FILE *f, const struct analysis *a);

#endif
