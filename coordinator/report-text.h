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
	void	(*prose)(FILE *, const char *);	/* orch's own text in a cell */

	/* A table: its header row, and an optional rule under it. */
	const char *table_open, *table_close;
	const char *head_open, *th_open, *th_close, *head_close;
	const char *rule_open, *rule_left, *rule_right, *rule_close;
	const char *row_open, *row_close;	/* a body row */
	const char *cell_open, *num_open, *cell_close;	/* text, a number */
	const char *cell_code_open, *cell_code_close;	/* a name in a cell */
	const char *failed_open, *failed_close;	/* around a status "failed" */

	/* The answers: a list of "B vs A: headline — detail" items. */
	const char *answers_open, *answers_close;	/* around the list */
	const char *lead_open, *lead_close;	/* around "B vs A:" */
	const char *verdict_open;	/* NULL: no class; else before it */
	const char *verdict_mid;	/* after the class, before the headline */
	const char *verdict_close;	/* after the headline */
	const char *detail_open, *detail_close;
	const char *section_close;	/* after the answers' small print */

	/* The banners at the top: an incomplete record, failed hosts. */
	const char *warn_open, *warn_close;
	const char *banner_open;	/* before the failed hosts' count */
	const char *banner_list;	/* before the list of them */
	const char *banner_item;	/* before one of them */
	const char *banner_close;

	/* The failed runs of a host: a title, then a table. */
	const char *fail_open, *fail_close;	/* around the title */
	const char *more_open, *more_close;	/* the row of runs not shown */
	/* Writes the last line of a run's stderr, len bytes at s. */
	void	(*err_tail)(FILE *, const char *s, size_t len);
};

/* Formats a duration or value of a metric for people ("12.3 ms"). */
/*
 * Writes s escaped for HTML text and attribute values (& < > " '): the one
 * escaping of every HTML file orch writes.
 */
void	report_html_esc(FILE *f, const char *s);

void	report_text_value(const char *metric, double v, char *buf, size_t len);

/*
 * Writes the short form of an invalid comparison's reason (up to its first
 * ':' or ';', e.g. "checksums disagree") into buf.
 */
void	report_text_reason(const char *reason, char *buf, size_t len);

struct ds_host;
struct rep_host;

/*
 * Writes "; load gate off ..." when the host's plan measured whatever
 * the load (max_load 0), with the highest load seen and whether it was
 * above the default gate; nothing otherwise.
 */
void	report_text_gate(FILE *f, const struct rep_host *rh,
	    const struct ds_host *h);

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
 * Writes the table of the hosts a->hosts[from..to): facts, counts, load
 * and status.
 */
void	report_text_host_table(FILE *f, const struct report_fmt *fmt,
	    const struct analysis *a, size_t from, size_t to);

/*
 * Writes the banners at the top: the record is incomplete; which hosts
 * failed, with their errors.
 */
void	report_text_banners(FILE *f, const struct report_fmt *fmt,
	    const struct analysis *a);

/* Writes the one-line answer per variant, with what it is based on. */
void	report_text_answers(FILE *f, const struct report_fmt *fmt,
	    const struct analysis *a);

/*
 * Writes the failed runs of a host, one row per kind of failure (bench,
 * variant, status, last line of stderr) with its count and first run (the
 * first 20 kinds); nothing when none failed.
 */
void	report_text_failures(FILE *f, const struct report_fmt *fmt,
	    const struct analysis *a, size_t host);

/*
 * Returns where the last line of s starts, trailing newlines dropped, and
 * its length in *len: the end of an error tail says most.
 */
const char *report_text_last_line(const char *s, size_t *len);

/*
 * rounds = auto: how host rh stopped, as plain text after its name (": 15
 * of at most 200 rounds, stopped: every primary comparison decided (1 of
 * 1), 41 s measuring"), then each undecided primary comparison with its
 * minimum detectable effect and the rounds it would still need. "" for a
 * run of fixed rounds.
 */
void	report_text_stop(const struct analysis *a,
	    const struct rep_host *rh, char *buf, size_t len);

/* Writes a run's status: "timeout", "signal 9", "failed (exit 2)", … */
void	report_text_status(FILE *f, const struct ds_sample *s);

#endif
