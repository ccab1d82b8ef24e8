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
 * As report_render_answer, leaving the loaded record in *dsp and its
 * analysis in *ap (caller frees both, with dataset_free and
 * analysis_free, also on failure): the end of a run hands them on to the
 * history (report_index_run), so a run is loaded and analysed once.
 */
int	report_render_keep(const char *dir, FILE *tty, int fail_on,
	    char **tripped, size_t *nfailed, struct dataset **dsp,
	    struct analysis **ap, char **cause);

#endif
