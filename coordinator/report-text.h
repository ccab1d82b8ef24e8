/*
 * Text that report.md and report.html share, written once for both: values
 * for people, the short form of a reason, what a host's measurement saw.
 */
#ifndef COORDINATOR_REPORT_TEXT_H
#define COORDINATOR_REPORT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "coordinator/analysis.h"

/*
 * How a report's format writes the pieces of a sentence, so that the prose
 * Markdown and HTML share is written once (report-md.c, report-html.c).
 */
struct report_fmt {
	void	(*text)(FILE *, const char *);	/* text from the record */
	void	(*name)(FILE *, const char *);	/* a host, variant, bench */
	const char *code_open, *code_close;	/* around names */
	const char *bold_open, *bold_close;
	const char *item_open, *item_close;	/* a list item */
	const char *para_open, *para_close;	/* a paragraph */
	const char *note_open, *note_close;	/* a paragraph set apart */
	const char *small_open;			/* a paragraph in small print */
};

/* Formats a duration or value of a metric for people ("12.3 ms"). */
void	report_text_value(const char *metric, double v, char *buf, size_t len);

/*
 * Writes the short form of an invalid comparison's reason (up to its first
 * ':' or ';', e.g. "checksums disagree") into buf.
 */
void	report_text_reason(const char *reason, char *buf, size_t len);

/*
 * Writes what host i's measurement saw (floor, first runs, load waits,
 * notes, facts) as a list item in format fmt.
 */
void	report_text_measure(FILE *f, const struct report_fmt *fmt,
	    const struct analysis *a, size_t i);

/*
 * Writes, per non-reference variant, which hosts of group g ran it on the
 * reference's very files: A/A (same settings too) as a note, same files
 * with other settings as a paragraph.
 */
void	report_text_files_notes(FILE *f, const struct report_fmt *fmt,
	    const struct analysis *a, const struct rep_group *g);

/*
 * Writes how many runs of bench b on host failed and were retried, per
 * variant, as a small paragraph (nothing when none did); named: lead with
 * the bench's and the host's names.
 */
void	report_text_bench_counts(FILE *f, const struct report_fmt *fmt,
	    const struct analysis *a, size_t host, size_t b, int named);

/*
 * Returns where the last line of s starts, trailing newlines dropped, and
 * its length in *len: the end of an error tail says most.
 */
const char *report_text_last_line(const char *s, size_t *len);

/* Writes a run's status: "timeout", "signal 9", "failed (exit 2)", … */
void	report_text_status(FILE *f, const struct ds_sample *s);

#endif
