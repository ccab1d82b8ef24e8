/*
 * Runs into the history store (coordinator/store/history.h): a run's
 * record loaded and analysed into its entry, one point per (host, bench,
 * metric, variant) with its ratio to the reference and its median. What
 * `orch index` and the end of a run write.
 */
#ifndef COORDINATOR_REPORT_INDEX_H
#define COORDINATOR_REPORT_INDEX_H

#include <stddef.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/store/history.h"

/*
 * (Re)indexes the run in dir, through record_load and the analysis: its
 * old entry (same run id) is replaced, in one transaction. Returns 0, or
 * -1 with *cause set.
 */
int	report_index(struct history *h, const char *dir, char **cause);

/* As report_index for n runs, all in one transaction: all or none. */
int	report_index_list(struct history *h, char *const *dirs, size_t n,
	    char **cause);

/*
 * Indexes every run directory (a directory holding samples.msgpack, not a
 * symlink) under reports, in name order; a run that cannot be read is
 * said on stderr and skipped (*nbad). Returns 0 with *n indexed, or -1.
 */
int	report_index_rebuild(struct history *h, const char *reports,
	    size_t *n, size_t *nbad, char **cause);

/*
 * After a run: indexes dir, whose record is loaded in ds and analysed in
 * a (both NULL: loaded and analysed here), into its reports directory's
 * store, saying where unless quiet; a failure is a warning (the run
 * stands).
 */
void	report_index_run(const char *dir, const struct dataset *ds,
	    const struct analysis *a, int quiet);

#endif
