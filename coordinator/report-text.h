/*
 * Text that report.md and report.html share, written once for both: values
 * for people, the short form of a reason, what a host's measurement saw.
 */
#ifndef COORDINATOR_REPORT_TEXT_H
#define COORDINATOR_REPORT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "coordinator/analysis.h"

/* Formats a duration or value of a metric for people ("12.3 ms"). */
void	report_text_value(const char *metric, double v, char *buf, size_t len);

/*
 * Writes the short form of an invalid comparison's reason (up to its first
 * ':' or ';', e.g. "checksums disagree") into buf.
 */
void	report_text_reason(const char *reason, char *buf, size_t len);

/*
 * Writes what host i's measurement saw (floor, first runs, load waits,
 * notes, facts) as one line's text: esc escapes record text, code_open and
 * code_close surround names.
 */
void	report_text_measure(FILE *f, const struct analysis *a, size_t i,
	    void (*esc)(FILE *, const char *), const char *code_open,
	    const char *code_close);

#endif
