/*
 * Reports: every file rendered from the analysis of a dataset (analysis.h),
 * so `orch report DIR` reproduces them byte for byte, and writing them into
 * a run's directory atomically.
 */
#ifndef COORDINATOR_REPORT_H
#define COORDINATOR_REPORT_H

#include <stdio.h>

#include "coordinator/analysis.h"
#include "coordinator/record.h"

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
 * renamed into place. fail_on is a GATE_* mask (coordinator/gate.h):
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
 * Creates a new file DIR/.NAME.XXXXXXXX.tmp of mode 0600 for writing, with
 * O_CREAT | O_EXCL | O_NOFOLLOW and a random name (its path in tmp), for
 * a rename into place. Returns the descriptor, or -1 (errno).
 */
int	report_create_tmp(const char *dir, const char *name, char *tmp,
	    size_t len);

/*
 * Writes DIR/NAME through fn(arg, f) into a temporary of
 * report_create_tmp, synced, then renamed into place: a reader sees the
 * old file or the whole new one. Returns 0, or -1 with cause (nothing
 * left behind).
 */
int	report_write_file(const char *dir, const char *name,
	    int (*fn)(const void *, FILE *), const void *arg, char **cause);

#endif
