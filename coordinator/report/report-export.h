/*
 * Exports hyperfine users expect: --export-json, --export-markdown and
 * --export-csv copy a run's summary.json, report.md and samples.csv to a
 * path of the user's choice, besides the run's directory.
 */
#ifndef COORDINATOR_REPORT_EXPORT_H
#define COORDINATOR_REPORT_EXPORT_H

struct report_exports {
	const char	*json;		/* summary.json there, or NULL */
	const char	*md;		/* report.md there, or NULL */
	const char	*csv;		/* samples.csv there, or NULL */
};

/*
 * Checks, before anything runs, that each path can be written: its
 * directory exists, it is not a directory, no two options name the same
 * path. Returns 0, or -1 with *cause naming the option and the path.
 */
int	report_export_check(const struct report_exports *e, char **cause);

/*
 * Copies the files of the run in dir to the paths of e: each to a new
 * temporary file beside its path, synced, and renamed into place only
 * when every one was written whole. Returns 0, or -1 with *cause naming
 * the option and the path (no export is then half-written).
 */
int	report_export(const char *dir, const struct report_exports *e,
	    char **cause);

#endif
