/*
 * Reports: every file rendered from the analysis of a dataset (analysis.h),
 * so `orch report DIR` reproduces them byte for byte, and writing them into
 * a run's directory atomically.
 */
#ifndef COORDINATOR_REPORT_H
#define COORDINATOR_REPORT_H

#include <stdio.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/store/record.h"

/* Renderers, each writing one file's content to f. Return 0 or -1. */
int	report_json(const struct analysis *a, FILE *f);
int	report_csv(const struct dataset *ds, FILE *f);
int	report_md(const struct analysis *a, FILE *f);
int	report_html(const struct analysis *a, FILE *f);
int	report_answer_md(const struct analysis *a, FILE *f);

/*
 * Writes the answer for a terminal (report-answer.c): per variant the
 * headline, per architecture the geomean, one line per primary comparison.
 */
void	report_answer_text(const struct analysis *a, FILE *f);

/* Writes text from the record escaped for a line or cell of Markdown. */
void	report_md_text(FILE *f, const char *s);

/*
 * Loads DIR/samples.msgpack and writes samples.csv, summary.json,
 * report.md, report.html and answer.md into DIR, each through a temporary file
 * renamed into place. fail_on is a GATE_* mask (coordinator/analysis/gate.h):
 * *tripped, when not NULL, receives one line per primary comparison it
 * trips (NULL when none; caller frees). *nfailed, when not NULL, receives
 * the number of measured runs that failed. Returns 0, or -1 with *cause
 * set.
 */
int	report_render(const char *dir, int fail_on, char **tripped,
	    size_t *nfailed, char **cause);

/* As report_render, and then prints the answer on tty unless it is NULL. */
int	report_render_answer(const char *dir, FILE *tty, int fail_on,
	    char **tripped, size_t *nfailed, char **cause);

/*
 * The end of a run: as report_render_answer, and then indexes the run
 * into its reports directory's history store from the same dataset and
 * analysis, saying where unless quiet; a failure of the history is a
 * warning on stderr, never this function's (report-index.h).
 */
int	report_render_index(const char *dir, FILE *tty, int fail_on,
	    int quiet, char **tripped, size_t *nfailed, char **cause);

/*
 * After a run: loads and analyses dir again and indexes it into its
 * reports directory's store, saying where unless quiet; a failure is a
 * warning (the run stands). report_render_index does both at once.
 */
void	history_index_run(const char *dir, int quiet);

#endif
