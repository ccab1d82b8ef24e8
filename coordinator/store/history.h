/*
 * The history store: every run of a reports directory indexed into one
 * SQLite file, REPORTS/history.sqlite (WAL, its schema versioned), which
 * `orch history` reads. The run directories stay the source of truth:
 * `orch index` (re)builds entries from them at any time (docs/history.md).
 */
#ifndef COORDINATOR_HISTORY_H
#define COORDINATOR_HISTORY_H

#include <stddef.h>

#define HISTORY_FILE	"history.sqlite"
#define HISTORY_SCHEMA	1		/* bump on any change of the tables */
#define HISTORY_BUSY_MS	30000		/* wait for another writer this long */
#define HISTORY_RUNS_MAX 100000		/* runs one query returns, at most */

struct history;

/* One run of the history. */
struct hist_run {
	char	*run_id;
	char	*started;	/* ISO 8601 UTC */
	char	*dir;		/* where it was indexed from */
	char	*labels;	/* "k=v k2=v2", "" none */
};

/* One (host, bench, metric, variant) of one run. */
struct hist_point {
	size_t	 run;		/* index into the query's runs, by time */
	char	*host, *arch, *cpu, *bench, *metric, *variant, *reference;
	int	 primary;	/* the bench's primary metric */
	double	 ratio, lo, hi;	/* to the reference; NAN for the reference
				   itself or an invalid comparison; hi may
				   be INFINITY (too few pairs) */
	double	 typical;	/* the variant's median; NAN none */
	char	*verdict;	/* "" for the reference */
};

/* What `orch history` selects; NULL: any. since: a date, "YYYY-MM-DD". */
struct hist_filter {
	const char	*host, *bench, *metric, *variant, *since;
};

/* Returns REPORTS/history.sqlite for a run directory, REPORTS its parent
 * (caller frees). */
char	*history_path_of(const char *rundir);

/*
 * Opens the store at path, creating it (and its schema) when create is
 * set; an older schema is rebuilt empty (*rebuilt set: re-index), a newer
 * one, a file that is not SQLite, or one whose tables are not exactly
 * orch's is refused. Returns 0, or -1 with *cause set (caller frees).
 */
int	history_open(const char *path, int create, struct history **out,
	    int *rebuilt, char **cause);
void	history_close(struct history *h);

/*
 * (Re)indexes the run in dir, through record_load and the analysis: its
 * old entry (same run id) is replaced, in one transaction. Returns 0, or
 * -1 with *cause set.
 */
int	history_index(struct history *h, const char *dir, char **cause);

/* As history_index for n runs, all in one transaction: all or none. */
int	history_index_list(struct history *h, char *const *dirs, size_t n,
	    char **cause);

/*
 * Indexes every run directory (a directory holding samples.msgpack, not a
 * symlink) under reports, in name order; a run that cannot be read is
 * said on stderr and skipped (*nbad). Returns 0 with *n indexed, or -1.
 */
int	history_rebuild(struct history *h, const char *reports, size_t *n,
	    size_t *nbad, char **cause);

/*
 * After a run: indexes dir into its reports directory's store, saying
 * where unless quiet; a failure is a warning (the run stands).
 */
void	history_index_run(const char *dir, int quiet);

/*
 * The runs (by start time) and points matching f. Every value read is
 * checked as untrusted. Returns 0, or -1 with *cause naming the file, the
 * table and the field.
 */
int	history_query(struct history *h, const struct hist_filter *f,
	    struct hist_run **runs, size_t *nruns, struct hist_point **pts,
	    size_t *npts, char **cause);
void	history_query_free(struct hist_run *runs, size_t nruns,
	    struct hist_point *pts, size_t npts);

#endif
