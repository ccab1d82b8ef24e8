/*
 * The history store: every run of a reports directory indexed into one
 * SQLite file, REPORTS/history.sqlite (WAL, its schema versioned), which
 * `orch history` reads. The run directories stay the source of truth:
 * `orch index` (re)builds entries from them at any time (docs/history.md;
 * coordinator/report/report-index.h analyses a run into its entry).
 */
#ifndef COORDINATOR_HISTORY_H
#define COORDINATOR_HISTORY_H

#include <stddef.h>

#define HISTORY_FILE	"history.sqlite"
#define HISTORY_SCHEMA	2		/* bump on any change of the tables
				   (2: points.node) */
#define HISTORY_BUSY_MS	30000		/* wait for another writer this long */
#define HISTORY_RUNS_MAX 100000		/* runs one query returns, at most */

struct history;

/* One run of the history. */
struct hist_run {
	char	*run_id;
	char	*started;	/* ISO 8601 UTC */
	char	*dir;		/* where it was indexed from; a byte a
				   terminal must not see as '?' */
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
	char	*node;		/* the Slurm node its host ran on in
				   that run; "" not a Slurm host */
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

/* One point of a run to store: as struct hist_point, by its run. */
struct hist_row {
	const char	*host, *arch, *cpu, *bench, *metric, *variant;
	const char	*reference;
	int		 primary;
	double		 ratio, lo, hi;	/* not finite: stored as NULL */
	const char	*verdict;
	double		 typical;
	const char	*node;		/* its host's Slurm node; NULL or ""
					   none */
};

/* A run's entry: its run, labels and points, as plain values. */
struct hist_entry {
	const char		*run_id, *dir, *started, *ended, *suite;
	size_t			 nlabels;
	char *const		*label_keys, *const *label_values;
	size_t			 nrows;
	const struct hist_row	*rows;
};

/*
 * A writer's transaction (BEGIN IMMEDIATE, waiting up to HISTORY_BUSY_MS
 * for another writer), its end, and its undoing. history_commit rolls
 * back what it cannot commit. Return 0, or -1 with *cause set.
 */
int	history_begin(struct history *h, char **cause);
int	history_commit(struct history *h, char **cause);
void	history_rollback(struct history *h);

/*
 * Writes e inside the caller's transaction, replacing the entry of the
 * same run id. Returns 0, or -1 with *cause set.
 */
int	history_put(struct history *h, const struct hist_entry *e,
	    char **cause);

/* As history_put, in a transaction of its own: all of it or none. */
int	history_put_run(struct history *h, const struct hist_entry *e,
	    char **cause);

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
