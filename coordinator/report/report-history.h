/*
 * `orch index` and `orch history`: the history store's commands. history
 * prints each series with its change points and writes history.html, one
 * trend plot per host and benchmark (docs/history.md).
 */
#ifndef COORDINATOR_REPORT_HISTORY_H
#define COORDINATOR_REPORT_HISTORY_H

#include <stddef.h>

#include "coordinator/store/history.h"

struct history_opts {
	const char		*reports;	/* NULL: "reports" */
	const char		*out;		/* history.html; NULL: beside
						   the store */
	struct hist_filter	 f;
	int			 quiet;		/* no series on stdout */
};

/*
 * orch history: returns the exit code (0, or 2 with the error said when
 * the store or an option is bad).
 */
int	history_main(const struct history_opts *o);

/*
 * orch index: dirs into reports/history.sqlite (reports NULL: the dirs'
 * common parent), all or nothing; with rebuild every run under reports.
 * Returns the exit code (0, or 2 with the error said).
 */
int	history_index_main(const char *reports, int rebuild, char **dirs,
	    size_t ndirs);

#endif
