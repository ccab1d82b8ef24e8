/*
 * Text that report.md and report.html share, written once for both: values
 * for people, the short form of a reason, what a host's measurement saw.
 */
#ifndef COORDINATOR_REPORT_TEXT_H
#define COORDINATOR_REPORT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "coordinator/analysis/analysis.h"

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
	const char *list_open, *list_close;	/* around a list's items */
	const char *stops_open;		/* list_open of the adaptive stops */
	const char *alert_open, *alert_close;	/* a paragraph that warns */
	void	(*prose)(FILE *, const char *);	/* orch's own text in a cell */

	/* A table: its header row, and an optional rule under it. */
	const char *table_open, *table_close;
	const char *head_open, *th_open, *th_close, *head_close;
	const char *rule_open, *rule_left, *rule_right, *rule_close;
	const char *row_open, *row_close;	/* a body row */
	const char *cell_open, *num_open, *cell_close;	/* text, a number */
	const char *cell_code_open, *cell_code_close;	/* a name in a cell */
	const char *failed_open, *failed_close;	/* around a status "failed" */

	/* A comparison in a cell: its verdict and what qualifies it. */
	void	(*verdict)(FILE *, enum stats_verdict, double ratio);
	const char *ratio_open, *ratio_close;	/* around a ratio [CI] */
	const char *why_open;		/* a remark on a comparison */
	const char *aa_open;		/* the remark "A/A comparison" */
	const char *aside_close;	/* after a remark */
	const char *reason_open, *reason_close;	/* a refusal's short reason */

	/* The answers: a list of "B vs A: headline — detail" items. */
	const char *answers_open, *answers_close;	/* around the list */
	const char *lead_open, *lead_close;	/* around "B vs A:" */
	const char *verdict_open;	/* NULL: no class; else before it */
	const char *verdict_mid;	/* after the class,
					   before the headline */
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
 * Writes text from the record (anyone's) escaped for a line or a table
 * cell of Markdown: the one escaping of record text in report.md,
 * answer.md and compare.md.
 */
void	report_md_text(FILE *f, const char *s);

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

/*
 * Writes an estimate with its interval ("1.020 [0.990, 1.050]"), the
 * interval unbounded when lo is not above 0 or hi is not finite; "—" when
 * not ok.
 */
void	report_text_interval(FILE *f, double est, double lo, double hi,
	    int ok);

/* Writes an estimate (a ratio, a bound, a geometric mean): "1.020". */
void	report_text_estimate(FILE *f, double v);

/* Writes a p-value as the benchmark tables do: "0.0021". */
void	report_text_p(FILE *f, double p);

/* Writes a minimum detectable effect (a ratio - 1) as "3.2%". */
void	report_text_mde(FILE *f, double mde);

/*
 * report.md's pieces, for marks in documents (report-doc.c): the matrix
 * (only host's column when host is not NULL; -1 when no column), the
 * geometric means' table, the claims, a verdict as its cells write it.
 */
int	report_md_matrix(FILE *f, const struct analysis *a, const char *host);
void	report_md_geomeans(FILE *f, const struct analysis *a);
void	report_md_claims(FILE *f, const struct analysis *a);
void	report_md_verdict(FILE *f, enum stats_verdict v, double ratio);

/* Writes comparison c's ratio with its interval, or "—" for none. */
void	report_text_ratio(FILE *f, const struct rep_cmp *c);

/*
 * Writes what qualifies comparison c's interval: serially correlated
 * rounds that widened it, and for an inconclusive one the rounds that
 * would decide it at min_effect.
 */
void	report_text_cmp_notes(FILE *f, const struct report_fmt *fmt,
	    const struct rep_cmp *c);

/*
 * Writes one cell of the benchmark × host matrix: verdict, ratio and
 * interval or the short reason of a refusal, its notes; "—" for no
 * comparison (c NULL).
 */
void	report_text_matrix_cell(FILE *f, const struct report_fmt *fmt,
	    const struct rep_cmp *c);

/*
 * Writes, on a line of its own in a cell, that a comparison is of
 * identical files.
 */
void	report_text_aa(FILE *f, const struct report_fmt *fmt);

/* Writes how many of a geometric mean's comparisons had each verdict. */
void	report_text_geo_counts(FILE *f, const struct rep_geo *geo);

/*
 * Writes the sentence that opens the geometric means, ending in end (":"
 * before a table, "." closing a paragraph).
 */
void	report_text_geo_intro(FILE *f, const struct report_fmt *fmt,
	    const struct analysis *a, const char *end);

/*
 * Writes the guarantee of the primary verdicts, what each host can
 * resolve, how adaptive rounds stopped and which hosts' rounds were
 * serially correlated.
 */
void	report_text_family(FILE *f, const struct report_fmt *fmt,
	    const struct analysis *a);

/*
 * Writes, per primary comparison of bench b on host that is invalid, why
 * it has no ratio.
 */
void	report_text_no_ratio(FILE *f, const struct report_fmt *fmt,
	    const struct analysis *a, size_t host, size_t b);

/* Returns what is subtracted from wall_ns on host (an index), or 0. */
double	report_text_floor_sub(const struct analysis *a, size_t host);

/*
 * Writes v of metric as report_text_value does, but a wall_ns net of a
 * subtracted floor fs (> 0) that is not above 0 as "below the floor (F)":
 * the run took no longer than the harness's own, never a negative time.
 */
void	report_text_net_value(const char *metric, double v, double fs,
	    char *buf, size_t len);

/*
 * Writes res's median, min and max for people into med, lo and hi; a
 * wall_ns net of its host's subtracted floor that is not above 0 reads
 * "below the floor (F)", never a negative time.
 */
void	report_text_range(const struct analysis *a, const char *metric,
	    const struct rep_result *res, char *med, char *lo, char *hi,
	    size_t len);

/*
 * Writes res's IQR and CV as percentages into iqr and cv, or "-" when
 * there are no values or the median (mean) is not above 0, where a
 * spread relative to it means nothing (never a negative CV).
 */
void	report_text_spread(const struct rep_result *res, char *iqr, char *cv,
	    size_t len);

/*
 * Writes "Measurement:" and what each host of group g saw, a list item
 * each.
 */
void	report_text_measures(FILE *f, const struct report_fmt *fmt,
	    const struct analysis *a, const struct rep_group *g);

/*
 * Writes the hosts of group g, which gave no facts, each with its error,
 * as a list.
 */
void	report_text_no_facts(FILE *f, const struct report_fmt *fmt,
	    const struct analysis *a, const struct rep_group *g);

/*
 * Writes " (PATH): N variants over R interleaved rounds ..., reference
 * REF, min_effect E": the suite's path and its plan, after its name; R
 * the rounds the hosts ran (with rounds = auto, the most a host ran, and
 * each host's when they differ; else the planned, and the hosts that ran
 * fewer).
 */
void	report_text_plan(FILE *f, const struct report_fmt *fmt,
	    const struct analysis *a);

/*
 * Writes the paragraph that opens the matrix and the family's guarantee,
 * or that no host gave results (ncols, the hosts with results, 0).
 */
void	report_text_across(FILE *f, const struct report_fmt *fmt,
	    const struct analysis *a, size_t ncols);

/* Writes the list item of orch's version and when the run started, ended. */
void	report_text_versions(FILE *f, const struct report_fmt *fmt,
	    const struct dataset *ds);

/* Writes the list item of how often the run resumed; nothing if never. */
void	report_text_resumed(FILE *f, const struct report_fmt *fmt,
	    const struct dataset *ds);

/* Writes the benchmarks, each with its metrics and their direction. */
void	report_text_benches(FILE *f, const struct report_fmt *fmt,
	    const struct dataset *ds);

/*
 * Writes " (the host's own host:NAME; --version: ...)" for a file that is
 * a program of the host, nothing otherwise.
 */
void	report_text_host_prog(FILE *f, const struct report_fmt *fmt,
	    const struct ds_file *file);

/*
 * The ratio axis of report.html's forest plots (the architectures' and
 * the Machines section's): lo at x0 px to hi at x1 px, on a log scale.
 */
struct report_scale {
	double	lo, hi;
	int	x0, x1;
};

/* Returns where ratio r falls on scale sc, in px. */
double	report_scale_x(const struct report_scale *sc, double r);

/*
 * Writes the ticks of scale sc at y: of the nice[n] ratios (nice[one] is
 * 1), those within it, from 1 outwards on each side and kept apart by
 * 44 px, so that 1 is always labelled.
 */
void	report_scale_ticks(FILE *f, const struct report_scale *sc,
	    const double *nice, long n, long one, double y);

/*
 * Writes the line at 1 of scale sc, from top down to y, and the axis along
 * y.
 */
void	report_scale_axis(FILE *f, const struct report_scale *sc, int top,
	    double y);

/* Writes a run's status: "timeout", "signal 9", "failed (exit 2)", … */
void	report_text_status(FILE *f, const struct ds_sample *s);

#endif
