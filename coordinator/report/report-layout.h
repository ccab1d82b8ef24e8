/*
 * The layout-sensitivity lines (coordinator/analysis/layout.h): one per
 * host, benchmark and variant whose primary metric moves with the
 * environment's size beyond noise, in report.md and on the terminal.
 */
#ifndef COORDINATOR_REPORT_LAYOUT_H
#define COORDINATOR_REPORT_LAYOUT_H

#include <stdio.h>

#include "coordinator/analysis/analysis.h"

/*
 * Writes the lines: md 1 for report.md (a paragraph and a list), 0 for
 * the terminal. Nothing when none is sensitive. Returns 0, or -1 out of
 * memory.
 */
int	report_layout(FILE *f, const struct analysis *a, int md);

#endif
