/*
 * The layout-sensitivity lines (coordinator/analysis/layout.h): one per
 * host, benchmark and variant whose primary metric moves with the
 * environment's size beyond noise, on the terminal, in report.md and
 * report.html; summary.json's "layout" holds every test's count and the
 * sensitive ones.
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

/* The same for report.html: a section of its own, or nothing. */
int	report_layout_html(FILE *f, const struct analysis *a);

/*
 * Writes summary.json's "layout" member (a line of its own, ending in a
 * comma): alpha, the count of tests and the sensitive ones, always.
 * Returns 0, or -1 out of memory.
 */
int	report_layout_json(FILE *f, const struct analysis *a);

#endif
