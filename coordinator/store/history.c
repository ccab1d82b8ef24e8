/*
 * The history store in SQLite. Every statement is a constant with bound
 * parameters; every value read back is checked as untrusted (the file is
 * anyone's to edit). Writers take the database's write lock for a whole
 * run's entry (BEGIN IMMEDIATE) and wait up to HISTORY_BUSY_MS for it, so
 * two runs finishing at once both land.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "coordinator/input/tty.h"
#include "coordinator/store/dataset.h"
#include "coordinator/store/history.h"
#include "proto/ident.h"
#include "proto/util.h"
#include "proto/xmalloc.h"

struct history {
	sqlite3	*db;
	char	*path;
};

/* The schema, exactly as SQLite keeps it in sqlite_schema. */
static const struct {
	const char	*type, *name, *sql;
} hist_schema[] = {
	{ "table", "schema", "CREATE TABLE schema (version INTEGER NOT NULL)" },
	{ "table", "runs", "CREATE TABLE runs (id INTEGER PRIMARY KEY, "
	  "run_id TEXT NOT NULL UNIQUE, dir TEXT NOT NULL, started TEXT NOT "
	  "NULL, ended TEXT NOT NULL, suite TEXT NOT NULL)" },
	{ "table", "labels", "CREATE TABLE labels (run INTEGER NOT NULL, "
	  "key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (run, key))" },
	{ "table", "points", "CREATE TABLE points (run INTEGER NOT NULL, "
	  "host TEXT NOT NULL, arch TEXT NOT NULL, cpu TEXT NOT NULL, bench "
	  "TEXT NOT NULL, metric TEXT NOT NULL, variant TEXT NOT NULL, "
	  "reference TEXT NOT NULL, is_primary INTEGER NOT NULL, ratio REAL, "
	  "lo REAL, hi REAL, verdict TEXT NOT NULL, typical REAL, node "
	  "TEXT NOT NULL)" },
	{ "index", "points_run", "CREATE INDEX points_run ON points (run)" },
};
#define HIST_NSCHEMA	(sizeof hist_schema / sizeof hist_schema[0])
/* The indexes SQLite makes for runs' UNIQUE and labels' PRIMARY KEY. */
#define HIST_NAUTO	2

/* Sets *cause to the file and SQLite's words for what failed. */
static int
hist_err(struct history *h, const char *what, char **cause)
{
	xasprintf(cause, "%s: %s: %s", h->path, what, sqlite3_errmsg(h->db));
	return (-1);
}

/* Runs one constant statement without parameters or rows. */
static int
hist_exec(struct history *h, const char *sql, char **cause)
{
	if (sqlite3_exec(h->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return (hist_err(h, sql, cause));
	return (0);
}

char *
history_path_of(const char *rundir)
{
	char	*d, *slash, *p;
	size_t	 len;

	d = xstrdup(rundir);
	len = strlen(d);
	while (len > 1 && d[len - 1] == '/')
		d[--len] = '\0';
	if ((slash = strrchr(d, '/')) == NULL)
		xasprintf(&p, "%s", HISTORY_FILE);
	else if (slash == d)
		xasprintf(&p, "/%s", HISTORY_FILE);
	else {
		*slash = '\0';
		xasprintf(&p, "%s/%s", d, HISTORY_FILE);
	}
	free(d);
	return (p);
}

/*
 * Checks that the database holds exactly orch's objects at this schema:
 * no other table, view, index or trigger. Returns 0 or -1 (cause).
 */
static int
hist_check_schema(struct history *h, char **cause)
{
	sqlite3_stmt	*st = NULL;
	const char	*type, *name, *sql;
	size_t		 i, seen = 0, nauto = 0;
	int		 rc, r = -1;

	if (sqlite3_prepare_v2(h->db, "SELECT type, name, sql FROM "
	    "sqlite_schema", -1, &st, NULL) != SQLITE_OK)
		return (hist_err(h, "reading its schema", cause));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		type = (const char *)sqlite3_column_text(st, 0);
		name = (const char *)sqlite3_column_text(st, 1);
		sql = (const char *)sqlite3_column_text(st, 2);
		if (type == NULL || name == NULL)
			goto bad;
		if (sql == NULL && strcmp(type, "index") == 0 &&
		    (strcmp(name, "sqlite_autoindex_runs_1") == 0 ||
		    strcmp(name, "sqlite_autoindex_labels_1") == 0)) {
			nauto++;
			continue;
		}
		for (i = 0; i < HIST_NSCHEMA; i++) {
			if (sql != NULL && strcmp(type, hist_schema[i].type) ==
			    0 && strcmp(name, hist_schema[i].name) == 0 &&
			    strcmp(sql, hist_schema[i].sql) == 0)
				break;
		}
		if (i == HIST_NSCHEMA) {
			xasprintf(cause, "%s: not an orch history database: "
			    "it has a %.20s '%.64s' orch does not make (move "
			    "it away and run orch index --rebuild)", h->path,
			    type, name);
			goto out;
		}
		seen++;
	}
	if (rc != SQLITE_DONE) {
		hist_err(h, "reading its schema", cause);
		goto out;
	}
	if (seen != HIST_NSCHEMA || nauto != HIST_NAUTO)
		goto bad;
	r = 0;
	goto out;
bad:
	xasprintf(cause, "%s: not an orch history database: its tables are "
	    "not orch's schema %d (move it away and run orch index "
	    "--rebuild)", h->path, HISTORY_SCHEMA);
out:
	sqlite3_finalize(st);
	return (r);
}

/* Creates orch's tables and the version row. */
static int
hist_create(struct history *h, char **cause)
{
	sqlite3_stmt	*st = NULL;
	size_t		 i;

	for (i = 0; i < HIST_NSCHEMA; i++) {
		if (hist_exec(h, hist_schema[i].sql, cause) != 0)
			return (-1);
	}
	if (sqlite3_prepare_v2(h->db, "INSERT INTO schema (version) VALUES "
	    "(?)", -1, &st, NULL) != SQLITE_OK)
		return (hist_err(h, "creating it", cause));
	sqlite3_bind_int(st, 1, HISTORY_SCHEMA);
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_finalize(st);
		return (hist_err(h, "creating it", cause));
	}
	sqlite3_finalize(st);
	return (0);
}

/*
 * Reads the schema version into *version: -1 when the file is empty (no
 * objects at all). Returns 0, or -1 (cause) when it is not orch's.
 */
static int
hist_version(struct history *h, int *version, char **cause)
{
	sqlite3_stmt	*st = NULL;
	int		 rc, r = -1, n;

	*version = -1;
	if (sqlite3_prepare_v2(h->db, "SELECT count(*) FROM sqlite_schema",
	    -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
		hist_err(h, "not an orch history database", cause);
		goto out;
	}
	n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (n == 0)
		return (0);
	if (sqlite3_prepare_v2(h->db, "SELECT version FROM schema", -1, &st,
	    NULL) != SQLITE_OK) {
		xasprintf(cause, "%s: not an orch history database (no "
		    "schema version: %s)", h->path, sqlite3_errmsg(h->db));
		goto out;
	}
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW || sqlite3_column_type(st, 0) != SQLITE_INTEGER ||
	    sqlite3_column_int64(st, 0) < 0 ||
	    sqlite3_column_int64(st, 0) > INT_MAX) {
		xasprintf(cause, "%s: not an orch history database (its "
		    "schema version is not a number)", h->path);
		goto out;
	}
	*version = sqlite3_column_int(st, 0);
	if (sqlite3_step(st) != SQLITE_DONE) {
		xasprintf(cause, "%s: not an orch history database (more "
		    "than one schema version)", h->path);
		goto out;
	}
	r = 0;
out:
	sqlite3_finalize(st);
	return (r);
}

/*
 * Checks where the store at path lives before SQLite opens it: not in a
 * directory every user may write (/tmp: anyone could have made it first,
 * or swap it), not a link, a regular file of this user's; with create, a
 * store that is not there yet is made empty, 0600 (SQLite gives its WAL
 * and shared-memory files the same mode). Returns 0, or -1 (cause).
 */
static int
hist_check_place(const char *path, int create, char **cause)
{
	struct stat	 sb;
	char		*dir, *slash;
	int		 fd, r = -1;

	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) == NULL) {
		free(dir);
		dir = xstrdup(".");
	} else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (stat(dir, &sb) == 0 && (sb.st_mode & S_IWOTH)) {
		xasprintf(cause, "%s: its directory %s is writable by every "
		    "user, who could have made or could swap the store: keep "
		    "runs in a reports directory of your own (--out=, "
		    "--reports=)", path, dir);
		goto out;
	}
	if (lstat(path, &sb) != 0) {
		if (errno != ENOENT || !create) {
			xasprintf(cause, "%s: %s", path, strerror(errno));
			goto out;
		}
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
		if (fd == -1 && errno != EEXIST) {
			xasprintf(cause, "%s: cannot create it: %s", path,
			    strerror(errno));
			goto out;
		}
		if (fd != -1)
			close(fd);
		if (lstat(path, &sb) != 0) {
			xasprintf(cause, "%s: %s", path, strerror(errno));
			goto out;
		}
	}
	if (S_ISLNK(sb.st_mode))
		xasprintf(cause, "%s: a symbolic link, not a store: move it "
		    "away", path);
	else if (!S_ISREG(sb.st_mode))
		xasprintf(cause, "%s: not a regular file", path);
	else if (sb.st_uid != geteuid())
		xasprintf(cause, "%s: owned by uid %lu, not by this user "
		    "(uid %lu): move it away and run orch index --rebuild",
		    path, (unsigned long)sb.st_uid, (unsigned long)geteuid());
	else
		r = 0;
out:
	free(dir);
	return (r);
}

/* Returns 1 if SQLite's code rc means another connection holds a lock. */
static int
hist_busy(int rc)
{
	return ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED);
}

/*
 * One attempt of history_open. Sets *busy when it failed on a lock that
 * another connection held at a step where SQLite does not call the busy
 * handler (switching to WAL, reading the schema of a store another
 * process is creating), so the caller may try again.
 */
static int
hist_open_try(const char *path, int create, struct history **out,
    int *rebuilt, int *busy, char **cause)
{
	struct history	*h;
	int		 version, flags, rc, r = -1;

	*busy = 0;
	h = xcalloc(1, sizeof *h);
	h->path = xstrdup(path);
	flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW |
	    (create ? SQLITE_OPEN_CREATE : 0);
	if (sqlite3_open_v2(path, &h->db, flags, NULL) != SQLITE_OK) {
		if (h->db == NULL)
			xasprintf(cause, "%s: cannot open: out of memory",
			    path);
		else
			hist_err(h, "cannot open", cause);
		goto out;
	}
	/*
	 * A hostile file's schema runs no functions, writes no shadow tables.
	 */
	sqlite3_db_config(h->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(h->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_db_config(h->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
	sqlite3_db_config(h->db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
	sqlite3_busy_timeout(h->db, HISTORY_BUSY_MS);
	if (sqlite3_exec(h->db, "PRAGMA journal_mode=WAL", NULL, NULL,
	    NULL) != SQLITE_OK) {
		rc = sqlite3_errcode(h->db);
		if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT)
			xasprintf(cause, "%s: not an orch history database "
			    "(%s): move it away and run orch index --rebuild",
			    path, sqlite3_errmsg(h->db));
		else
			hist_err(h, "cannot use it", cause);
		goto out;
	}
	/*
	 * An index the run directories can rebuild (orch index --rebuild):
	 * a commit is not synced on its own (a power loss may take the last
	 * entry back, never leave the store inconsistent); checkpoints are.
	 */
	if (hist_exec(h, "PRAGMA synchronous=NORMAL", cause) != 0)
		goto out;
	if (hist_exec(h, create ? "BEGIN IMMEDIATE" : "BEGIN", cause) != 0)
		goto out;
	if (hist_version(h, &version, cause) != 0)
		goto rollback;
	if (version > HISTORY_SCHEMA) {
		xasprintf(cause, "%s: its schema is version %d, newer than "
		    "this orch's (%d): use a newer orch, or move it away and "
		    "run orch index --rebuild", path, version, HISTORY_SCHEMA);
		goto rollback;
	}
	if (version < 0 && !create) {
		xasprintf(cause, "%s: an empty database, no history", path);
		goto rollback;
	}
	if (version >= 0 && version < HISTORY_SCHEMA) {
		if (!create) {
			xasprintf(cause, "%s: its schema is version %d, older "
			    "than this orch's (%d): run orch index --rebuild",
			    path, version, HISTORY_SCHEMA);
			goto rollback;
		}
		/* The run directories are the truth: start again from them. */
		if (hist_exec(h, "DROP TABLE IF EXISTS points", cause) != 0 ||
		    hist_exec(h, "DROP TABLE IF EXISTS labels", cause) != 0 ||
		    hist_exec(h, "DROP TABLE IF EXISTS runs", cause) != 0 ||
		    hist_exec(h, "DROP TABLE IF EXISTS schema", cause) != 0)
			goto rollback;
		if (rebuilt != NULL)
			*rebuilt = 1;
		version = -1;
	}
	if (version < 0 && hist_create(h, cause) != 0)
		goto rollback;
	if (hist_check_schema(h, cause) != 0)
		goto rollback;
	if (hist_exec(h, "COMMIT", cause) != 0)
		goto rollback;
	*out = h;
	return (0);
rollback:
	*busy = hist_busy(sqlite3_extended_errcode(h->db));
	sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
	history_close(h);
	return (r);
out:
	if (h->db != NULL)
		*busy = hist_busy(sqlite3_extended_errcode(h->db));
	history_close(h);
	return (r);
}

int
history_open(const char *path, int create, struct history **out,
    int *rebuilt, char **cause)
{
	struct timespec	 ts;
	struct stat	 sb;
	int64_t		 deadline;
	int		 busy, r;
	long		 pause_ms = 1;

	*out = NULL;
	if (rebuilt != NULL)
		*rebuilt = 0;
	if (!create && stat(path, &sb) != 0) {
		xasprintf(cause, "%s: no history there (%s): `orch index "
		    "DIR...` or a run makes it", path, strerror(errno));
		return (-1);
	}
	if (hist_check_place(path, create, cause) != 0)
		return (-1);
	/*
	 * The busy handler covers BEGIN IMMEDIATE, not every lock SQLite
	 * takes while a store is opened, created or switched to WAL: those
	 * are tried again, with a growing pause, within the same bound.
	 */
	deadline = util_now_ms() + HISTORY_BUSY_MS;
	for (;;) {
		r = hist_open_try(path, create, out, rebuilt, &busy, cause);
		if (r == 0 || !busy || util_now_ms() >= deadline)
			return (r);
		free(*cause);
		*cause = NULL;
		ts.tv_sec = 0;
		ts.tv_nsec = pause_ms * 1000000L;
		nanosleep(&ts, NULL);
		if (pause_ms < 64)
			pause_ms *= 2;
	}
}

void
history_close(struct history *h)
{
	if (h == NULL)
		return;
	sqlite3_close(h->db);
	free(h->path);
	free(h);
}

/* Binds text (NULL: SQL NULL) to parameter i. */
static void
hist_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s == NULL)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

/* Binds a finite value, else NULL. */
static void
hist_real(sqlite3_stmt *st, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

/* Steps a statement that returns no row, then resets it for the next. */
static int
hist_step(struct history *h, sqlite3_stmt *st, const char *what,
    char **cause)
{
	int	rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return (hist_err(h, what, cause));
	return (0);
}

static const char *const hist_sql_ins[] = {
	"DELETE FROM points WHERE run IN (SELECT id FROM runs WHERE "
	"run_id = ?1)",
	"DELETE FROM labels WHERE run IN (SELECT id FROM runs WHERE "
	"run_id = ?1)",
	"DELETE FROM runs WHERE run_id = ?1",
	"INSERT INTO runs (run_id, dir, started, ended, suite) VALUES "
	"(?1, ?2, ?3, ?4, ?5)",
	"INSERT INTO labels (run, key, value) VALUES (?1, ?2, ?3)",
	"INSERT INTO points (run, host, arch, cpu, bench, metric, variant, "
	"reference, is_primary, ratio, lo, hi, verdict, typical, node) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
	"?15)",
};
#define HIST_NINS	(sizeof hist_sql_ins / sizeof hist_sql_ins[0])

/* Binds row p of a run's entry to the points insert st, for run id. */
static void
hist_bind_point(sqlite3_stmt *st, sqlite3_int64 id, const struct hist_row *p)
{
	sqlite3_bind_int64(st, 1, id);
	hist_text(st, 2, p->host);
	hist_text(st, 3, p->arch);
	hist_text(st, 4, p->cpu);
	hist_text(st, 5, p->bench);
	hist_text(st, 6, p->metric);
	hist_text(st, 7, p->variant);
	hist_text(st, 8, p->reference);
	sqlite3_bind_int(st, 9, p->primary != 0);
	hist_real(st, 10, p->ratio);
	hist_real(st, 11, p->lo);
	hist_real(st, 12, p->hi);
	hist_text(st, 13, p->verdict);
	hist_real(st, 14, p->typical);
	hist_text(st, 15, p->node != NULL ? p->node : "");
}

int
history_put(struct history *h, const struct hist_entry *e, char **cause)
{
	sqlite3_stmt		*st[HIST_NINS] = { NULL };
	sqlite3_int64		 id;
	size_t			 i;
	int			 k, r = -1;

	for (i = 0; i < HIST_NINS; i++) {
		if (sqlite3_prepare_v2(h->db, hist_sql_ins[i], -1, &st[i],
		    NULL) != SQLITE_OK) {
			hist_err(h, "preparing the entry", cause);
			goto out;
		}
	}
	for (k = 0; k < 3; k++) {
		hist_text(st[k], 1, e->run_id);
		if (hist_step(h, st[k], "removing the old entry", cause) != 0)
			goto out;
	}
	hist_text(st[3], 1, e->run_id);
	hist_text(st[3], 2, e->dir);
	hist_text(st[3], 3, e->started);
	hist_text(st[3], 4, e->ended);
	hist_text(st[3], 5, e->suite);
	if (hist_step(h, st[3], "adding the run", cause) != 0)
		goto out;
	id = sqlite3_last_insert_rowid(h->db);
	for (i = 0; i < e->nlabels; i++) {
		sqlite3_bind_int64(st[4], 1, id);
		hist_text(st[4], 2, e->label_keys[i]);
		hist_text(st[4], 3, e->label_values[i]);
		if (hist_step(h, st[4], "adding a label", cause) != 0)
			goto out;
	}
	for (i = 0; i < e->nrows; i++) {
		hist_bind_point(st[5], id, &e->rows[i]);
		if (hist_step(h, st[5], "adding a result", cause) != 0)
			goto out;
	}
	r = 0;
out:
	for (i = 0; i < HIST_NINS; i++)
		sqlite3_finalize(st[i]);
	return (r);
}

int
history_begin(struct history *h, char **cause)
{
	return (hist_exec(h, "BEGIN IMMEDIATE", cause));
}

int
history_commit(struct history *h, char **cause)
{
	if (hist_exec(h, "COMMIT", cause) != 0) {
		history_rollback(h);
		return (-1);
	}
	return (0);
}

void
history_rollback(struct history *h)
{
	sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
}

int
history_put_run(struct history *h, const struct hist_entry *e, char **cause)
{
	if (history_begin(h, cause) != 0)
		return (-1);
	if (history_put(h, e, cause) != 0) {
		history_rollback(h);
		return (-1);
	}
	return (history_commit(h, cause));
}

/* Reads column i as a name (host, bench, ...): a copy, or NULL (cause). */
static char *
hist_col_name(struct history *h, sqlite3_stmt *st, int i, const char *table,
    size_t row, char **cause)
{
	const char	*s = NULL;

	/* The type first: sqlite3_column_text converts a blob, after which
	 * the column's type is undefined (SQLite's own words). */
	if (sqlite3_column_type(st, i) == SQLITE_TEXT)
		s = (const char *)sqlite3_column_text(st, i);
	if (s == NULL || !ident_str_ok(s, PROTO_NAME_MAX)) {
		xasprintf(cause, "%s: table %s, row %zu: column '%s' is not a "
		    "name", h->path, table, row, sqlite3_column_name(st, i));
		return (NULL);
	}
	return (xstrdup(s));
}

/* Reads column i as printable text of 0 to max - 1 bytes, or NULL. */
static char *
hist_col_text(struct history *h, sqlite3_stmt *st, int i, size_t max,
    const char *table, size_t row, char **cause)
{
	const unsigned char	*s = NULL;
	size_t			 k;

	if (sqlite3_column_type(st, i) == SQLITE_TEXT)	/* as above */
		s = sqlite3_column_text(st, i);
	if (s == NULL)
		goto bad;
	for (k = 0; s[k] != '\0'; k++) {
		if (s[k] < 0x20 || s[k] == 0x7f || k + 1 >= max)
			goto bad;
	}
	return (xstrdup((const char *)s));
bad:
	xasprintf(cause, "%s: table %s, row %zu: column '%s' is not text of "
	    "printable characters under %zu bytes", h->path, table, row,
	    sqlite3_column_name(st, i), max);
	return (NULL);
}

/*
 * Reads column i as a path of 0 to max - 1 bytes, or NULL: a directory's
 * name may hold any byte, so one that a terminal must not be shown is
 * read as '?' rather than refused (one run directory named with an
 * escape does not make the whole store unreadable).
 */
static char *
hist_col_path(struct history *h, sqlite3_stmt *st, int i, size_t max,
    const char *table, size_t row, char **cause)
{
	const unsigned char	*s = NULL;
	int			 n = -1;

	if (sqlite3_column_type(st, i) == SQLITE_TEXT) {	/* as above */
		s = sqlite3_column_text(st, i);
		n = sqlite3_column_bytes(st, i);
	}
	if (s == NULL || n < 0 || (size_t)n >= max || strlen((const char *)s) !=
	    (size_t)n) {
		xasprintf(cause, "%s: table %s, row %zu: column '%s' is not "
		    "a path under %zu bytes", h->path, table, row,
		    sqlite3_column_name(st, i), max);
		return (NULL);
	}
	return (tty_clean(xstrdup((const char *)s), 0));
}

/*
 * Reads column i as a Slurm node's name, as the record's loader takes
 * one (A-Z a-z 0-9 _ . -, not starting with '-', under max bytes), or
 * "" for a host that was not a Slurm host; NULL (cause) otherwise.
 */
static char *
hist_col_node(struct history *h, sqlite3_stmt *st, int i, size_t max,
    const char *table, size_t row, char **cause)
{
	const char	*s;
	size_t		 n;

	/* The type first: reading a blob as text converts it. */
	if (sqlite3_column_type(st, i) == SQLITE_TEXT &&
	    (s = (const char *)sqlite3_column_text(st, i)) != NULL) {
		n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstu"
		    "vwxyz0123456789_.-");
		if (s[n] == '\0' && n < max && s[0] != '-')
			return (xstrdup(s));
	}
	xasprintf(cause, "%s: table %s, row %zu: column '%s' is not a Slurm "
	    "node's name", h->path, table, row, sqlite3_column_name(st, i));
	return (NULL);
}

/* What hist_col_real accepts besides NULL (NAN). */
#define HIST_FINITE	0
#define HIST_POSITIVE	1
#define HIST_NONNEG	2

/* Reads column i as NULL (NAN) or a finite number of the kind asked. */
static int
hist_col_real(struct history *h, sqlite3_stmt *st, int i, int kind,
    const char *table, size_t row, double *v, char **cause)
{
	static const char *const words[] = { "a finite", "a positive",
	    "a non-negative" };
	int	t = sqlite3_column_type(st, i);

	*v = NAN;
	if (t == SQLITE_NULL)
		return (0);
	if (t == SQLITE_FLOAT || t == SQLITE_INTEGER) {
		*v = sqlite3_column_double(st, i);
		if (isfinite(*v) && (kind == HIST_FINITE ||
		    (kind == HIST_POSITIVE && *v > 0) ||
		    (kind == HIST_NONNEG && *v >= 0)))
			return (0);
	}
	xasprintf(cause, "%s: table %s, row %zu: column '%s' is not %s "
	    "number", h->path, table, row, sqlite3_column_name(st, i),
	    words[kind]);
	return (-1);
}

/* Checks --since: YYYY-MM-DD, optionally followed by a time. */
static int
hist_since_ok(const char *s)
{
	size_t	i;

	for (i = 0; i < 10; i++) {
		if (i == 4 || i == 7) {
			if (s[i] != '-')
				return (0);
		} else if (s[i] < '0' || s[i] > '9')
			return (0);
	}
	for (; s[i] != '\0'; i++) {
		if (i >= 32 || ((s[i] < '0' || s[i] > '9') && s[i] != ':' &&
		    s[i] != 'T' && s[i] != 'Z'))
			return (0);
	}
	return (1);
}

void
history_query_free(struct hist_run *runs, size_t nruns,
    struct hist_point *pts, size_t npts)
{
	size_t	i;

	for (i = 0; i < nruns; i++) {
		free(runs[i].run_id);
		free(runs[i].started);
		free(runs[i].dir);
		free(runs[i].labels);
	}
	free(runs);
	for (i = 0; i < npts; i++) {
		free(pts[i].host);
		free(pts[i].arch);
		free(pts[i].cpu);
		free(pts[i].bench);
		free(pts[i].metric);
		free(pts[i].variant);
		free(pts[i].reference);
		free(pts[i].verdict);
		free(pts[i].node);
	}
	free(pts);
}

/* Appends key=value to a run's labels, checked. */
static int
hist_read_labels(struct history *h, sqlite3_stmt *st, sqlite3_int64 id,
    char **out, char **cause)
{
	char	*k, *v, *nl;
	size_t	 row = 0;
	int	 rc;

	*out = xstrdup("");
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		row++;
		if ((k = hist_col_name(h, st, 0, "labels", row, cause)) ==
		    NULL)
			goto bad;
		if ((v = hist_col_text(h, st, 1, LABEL_VALUE_MAX, "labels",
		    row, cause)) == NULL) {
			free(k);
			goto bad;
		}
		if (row > LABELS_MAX) {
			xasprintf(cause, "%s: table labels: more than %d "
			    "labels for one run", h->path, LABELS_MAX);
			free(k);
			free(v);
			goto bad;
		}
		xasprintf(&nl, "%s%s%s=%s", *out, **out ? " " : "", k, v);
		free(*out);
		*out = nl;
		free(k);
		free(v);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return (hist_err(h, "reading labels", cause));
	return (0);
bad:
	sqlite3_reset(st);
	return (-1);
}

/* What history_query has read so far, and its statements. */
struct hist_q {
	struct history		*h;
	sqlite3_stmt		*rs, *ls, *ps;
	struct hist_run		*runs;
	size_t			 nruns;
	sqlite3_int64		*ids;
	struct hist_point	*pts;
	size_t			 npts;
};

/* Reads the runs since f->since (all: NULL), checked, into q. */
static int
hist_read_runs(struct hist_q *q, const struct hist_filter *f, char **cause)
{
	struct history	*h = q->h;
	struct hist_run	*hr;
	size_t		 row = 0;
	int		 rc;

	hist_text(q->rs, 1, f->since);
	while ((rc = sqlite3_step(q->rs)) == SQLITE_ROW) {
		row++;
		if (q->nruns == HISTORY_RUNS_MAX) {
			xasprintf(cause, "%s: more than %d runs: narrow it "
			    "with --since", h->path, HISTORY_RUNS_MAX);
			return (-1);
		}
		q->runs = xreallocarray(q->runs, q->nruns + 1,
		    sizeof *q->runs);
		q->ids = xreallocarray(q->ids, q->nruns + 1, sizeof *q->ids);
		hr = &q->runs[q->nruns];
		memset(hr, 0, sizeof *hr);
		q->ids[q->nruns++] = sqlite3_column_int64(q->rs, 0);
		if ((hr->run_id = hist_col_name(h, q->rs, 1, "runs", row,
		    cause)) == NULL || (hr->started = hist_col_text(h, q->rs,
		    2, 64, "runs", row, cause)) == NULL || (hr->dir =
		    hist_col_path(h, q->rs, 3, PATH_MAX, "runs", row,
		    cause)) == NULL || hist_read_labels(h, q->ls,
		    q->ids[q->nruns - 1], &hr->labels, cause) != 0)
			return (-1);
	}
	if (rc != SQLITE_DONE)
		return (hist_err(h, "reading its runs", cause));
	return (0);
}

/* Reads the points statement's current row (row) into p, checked. */
static int
hist_read_point(struct history *h, sqlite3_stmt *ps, size_t row,
    struct hist_point *p, char **cause)
{
	if ((p->host = hist_col_name(h, ps, 0, "points", row, cause)) ==
	    NULL ||
	    (p->arch = hist_col_text(h, ps, 1, 64, "points", row, cause)) ==
	    NULL ||
	    (p->cpu = hist_col_text(h, ps, 2, 256, "points", row, cause)) ==
	    NULL ||
	    (p->bench = hist_col_name(h, ps, 3, "points", row, cause)) ==
	    NULL ||
	    (p->metric = hist_col_name(h, ps, 4, "points", row, cause)) ==
	    NULL ||
	    (p->variant = hist_col_name(h, ps, 5, "points", row, cause)) ==
	    NULL ||
	    (p->reference = hist_col_name(h, ps, 6, "points", row, cause)) ==
	    NULL ||
	    hist_col_real(h, ps, 8, HIST_POSITIVE, "points", row, &p->ratio,
	    cause) != 0 ||
	    hist_col_real(h, ps, 9, HIST_NONNEG, "points", row, &p->lo,
	    cause) != 0 ||
	    hist_col_real(h, ps, 10, HIST_POSITIVE, "points", row, &p->hi,
	    cause) != 0 ||
	    (p->verdict = hist_col_text(h, ps, 11, 32, "points", row,
	    cause)) == NULL ||
	    hist_col_real(h, ps, 12, HIST_FINITE, "points", row, &p->typical,
	    cause) != 0 ||
	    (p->node = hist_col_node(h, ps, 13, 64, "points", row, cause)) ==
	    NULL)
		return (-1);
	p->primary = sqlite3_column_int(ps, 7) != 0;
	/* Stored as NULL: an interval with no upper end. */
	if (isfinite(p->ratio) && isnan(p->hi))
		p->hi = INFINITY;
	if (isfinite(p->ratio) && isnan(p->lo))
		p->lo = 0;
	return (0);
}

/* Reads the points of run i matching f into q. */
static int
hist_read_points(struct hist_q *q, const struct hist_filter *f, size_t i,
    char **cause)
{
	struct history		*h = q->h;
	struct hist_point	*p;
	size_t			 row = 0;
	int			 rc;

	sqlite3_bind_int64(q->ps, 1, q->ids[i]);
	hist_text(q->ps, 2, f->host);
	hist_text(q->ps, 3, f->bench);
	hist_text(q->ps, 4, f->metric);
	hist_text(q->ps, 5, f->variant);
	while ((rc = sqlite3_step(q->ps)) == SQLITE_ROW) {
		row++;
		q->pts = xreallocarray(q->pts, q->npts + 1, sizeof *q->pts);
		p = &q->pts[q->npts++];
		memset(p, 0, sizeof *p);
		p->run = i;
		if (hist_read_point(h, q->ps, row, p, cause) != 0)
			return (-1);
		if (q->npts > (size_t)HISTORY_RUNS_MAX * 64) {
			xasprintf(cause, "%s: too many results: narrow it "
			    "with --host, --bench or --since", h->path);
			return (-1);
		}
	}
	sqlite3_reset(q->ps);
	if (rc != SQLITE_DONE)
		return (hist_err(h, "reading its results", cause));
	return (0);
}

int
history_query(struct history *h, const struct hist_filter *f,
    struct hist_run **runsp, size_t *nrunsp, struct hist_point **ptsp,
    size_t *nptsp, char **cause)
{
	struct hist_q	q;
	size_t		i;
	int		r = -1;

	*runsp = NULL;
	*ptsp = NULL;
	*nrunsp = *nptsp = 0;
	if (f->since != NULL && !hist_since_ok(f->since)) {
		xasprintf(cause, "--since '%.40s': not a date (YYYY-MM-DD, or "
		    "YYYY-MM-DDTHH:MM:SSZ)", f->since);
		return (-1);
	}
	if (hist_exec(h, "BEGIN", cause) != 0)
		return (-1);
	memset(&q, 0, sizeof q);
	q.h = h;
	if (sqlite3_prepare_v2(h->db, "SELECT id, run_id, started, dir FROM "
	    "runs WHERE ?1 IS NULL OR started >= ?1 ORDER BY started, ended, "
	    "run_id",
	    -1, &q.rs, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h->db, "SELECT key, value FROM labels WHERE "
	    "run = ?1 ORDER BY rowid", -1, &q.ls, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h->db, "SELECT host, arch, cpu, bench, metric, "
	    "variant, reference, is_primary, ratio, lo, hi, verdict, typical, "
	    "node FROM points WHERE run = ?1 AND (?2 IS NULL OR host = ?2) AND "
	    "(?3 IS NULL OR bench = ?3) AND (?4 IS NULL OR metric = ?4) AND "
	    "(?5 IS NULL OR variant = ?5 OR reference = ?5) ORDER BY host, "
	    "bench, metric, variant", -1, &q.ps, NULL) != SQLITE_OK) {
		hist_err(h, "reading it", cause);
		goto out;
	}
	if (hist_read_runs(&q, f, cause) != 0)
		goto out;
	for (i = 0; i < q.nruns; i++) {
		if (hist_read_points(&q, f, i, cause) != 0)
			goto out;
	}
	r = 0;
out:
	sqlite3_finalize(q.rs);
	sqlite3_finalize(q.ls);
	sqlite3_finalize(q.ps);
	sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL);
	free(q.ids);
	if (r != 0) {
		history_query_free(q.runs, q.nruns, q.pts, q.npts);
		return (-1);
	}
	*runsp = q.runs;
	*nrunsp = q.nruns;
	*ptsp = q.pts;
	*nptsp = q.npts;
	return (0);
}
