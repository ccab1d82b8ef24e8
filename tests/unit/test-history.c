/*
 * Unit tests for the history store (coordinator/store/history.c), a run
 * indexed into it (coordinator/report/report-index.c, and at the end of a
 * run with report_render_keep and report_index_run) and the label
 * record: the schema version, an idempotent re-index, an older schema
 * rebuilt, a newer one refused, a file that is not SQLite, a database with
 * objects orch does not make, hostile values in orch's own tables, and
 * labels checked where they enter (--label and the record). The databases
 * are real SQLite files, written through the library itself.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <msgpack.h>
#include <sqlite3.h>

#include "coordinator/report/report-history.h"
#include "coordinator/report/report-index.h"
#include "coordinator/report/report.h"
#include "coordinator/store/dataset.h"
#include "coordinator/store/history.h"

#define FIXTURE	"tests/unit/fixtures/report/example.msgpack"

struct fx {
	char	dir[64];	/* a temporary reports directory */
	char	run[128];	/* dir/run1, a copy of FIXTURE */
	char	db[128];	/* dir/history.sqlite */
};

/* Appends one msgpack map of string pairs (k, v, k, v, ...) to path. */
static void
append_map(const char *path, const char *const *kv, size_t n)
{
	msgpack_sbuffer	sb;
	msgpack_packer	pk;
	FILE		*f;
	size_t		 i;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, n / 2);
	for (i = 0; i < n; i++) {
		msgpack_pack_str(&pk, strlen(kv[i]));
		msgpack_pack_str_body(&pk, kv[i], strlen(kv[i]));
	}
	assert_non_null(f = fopen(path, "a"));
	assert_int_equal(fwrite(sb.data, 1, sb.size, f), sb.size);
	fclose(f);
	msgpack_sbuffer_destroy(&sb);
}

/* Copies FIXTURE into a new run directory dir/name. */
static void
make_run(const char *dir, const char *name, char *out, size_t len)
{
	char	cmd[512];

	snprintf(out, len, "%s/%s", dir, name);
	assert_int_equal(mkdir(out, 0755), 0);
	snprintf(cmd, sizeof cmd, "cp %s '%s/%s'", FIXTURE, out, RECORD_FILE);
	assert_int_equal(system(cmd), 0);
}

static int
setup(void **state)
{
	struct fx	*fx = calloc(1, sizeof *fx);
	char		 rec[256];
	const char	*l1[] = { "t", "label", "key", "release", "value", "v5" };

	snprintf(fx->dir, sizeof fx->dir, "/tmp/test-history.XXXXXX");
	if (fx == NULL || mkdtemp(fx->dir) == NULL)
		return (-1);
	make_run(fx->dir, "run1", fx->run, sizeof fx->run);
	snprintf(rec, sizeof rec, "%s/%s", fx->run, RECORD_FILE);
	append_map(rec, l1, 6);
	snprintf(fx->db, sizeof fx->db, "%s/%s", fx->dir, HISTORY_FILE);
	*state = fx;
	return (0);
}

static int
teardown(void **state)
{
	struct fx	*fx = *state;
	char		 cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf %s", fx->dir);
	if (system(cmd) != 0)
		return (-1);
	free(fx);
	return (0);
}

/* Runs one SQL statement on the file directly (as a hostile editor). */
static void
sql(const char *path, const char *stmt)
{
	sqlite3	*db;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, stmt, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("%s: %s", stmt, sqlite3_errmsg(db));
	sqlite3_close(db);
}

/* The single integer a query returns. */
static long long
sql_int(const char *path, const char *q)
{
	sqlite3		*db;
	sqlite3_stmt	*st;
	long long	 v;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return (v);
}

/* The single text a query returns ("" for NULL). */
static char *
sql_text(const char *path, const char *q)
{
	sqlite3		*db;
	sqlite3_stmt	*st;
	const char	*t;
	char		*v;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	t = (const char *)sqlite3_column_text(st, 0);
	assert_non_null(v = strdup(t != NULL ? t : ""));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return (v);
}

/* Every point of the store, as one text. */
#define POINTS_ALL "SELECT group_concat(p, ';') FROM (SELECT host || ',' || " \
	"arch || ',' || cpu || ',' || bench || ',' || metric || ',' || " \
	"variant || ',' || reference || ',' || is_primary || ',' || " \
	"ifnull(ratio, 'n') || ',' || ifnull(lo, 'n') || ',' || " \
	"ifnull(hi, 'n') || ',' || verdict || ',' || ifnull(typical, 'n') " \
	"AS p FROM points ORDER BY host, bench, metric, variant)"

/* Indexes fx's run into a new store; returns 0 or -1 with *cause. */
static void
index_ok(struct fx *fx)
{
	struct history	*h;
	char		*cause = NULL;

	if (history_open(fx->db, 1, &h, NULL, &cause) != 0 ||
	    report_index(h, fx->run, &cause) != 0)
		fail_msg("%s", cause);
	history_close(h);
}

/* Expects history_open (create or not) to fail with want in the words. */
static void
open_fails(const char *path, int create, const char *want)
{
	struct history	*h = NULL;
	char		*cause = NULL;

	assert_int_equal(history_open(path, create, &h, NULL, &cause), -1);
	assert_null(h);
	assert_non_null(cause);
	if (strstr(cause, want) == NULL || strstr(cause, path) == NULL)
		fail_msg("'%s' does not name the file and say '%s'", cause,
		    want);
	free(cause);
}

/* Expects a query to fail, naming want. */
static void
query_fails(const char *path, const char *want)
{
	struct history		*h = NULL;
	struct hist_filter	 f = { NULL, NULL, NULL, NULL, NULL };
	struct hist_run		*runs;
	struct hist_point	*pts;
	size_t			 nr, np;
	char			*cause = NULL;

	if (history_open(path, 0, &h, NULL, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(history_query(h, &f, &runs, &nr, &pts, &np, &cause),
	    -1);
	if (strstr(cause, want) == NULL)
		fail_msg("'%s' does not say '%s'", cause, want);
	free(cause);
	history_close(h);
}

/* A new store: WAL, schema version 1, the run, its label and points. */
static void
test_create(void **state)
{
	struct fx		*fx = *state;
	struct history		*h;
	struct hist_filter	 f = { NULL, NULL, NULL, NULL, NULL };
	struct hist_run		*runs;
	struct hist_point	*pts;
	size_t			 nr, np, i, nratio = 0;
	char			*cause = NULL;

	index_ok(fx);
	assert_int_equal(sql_int(fx->db, "SELECT version FROM schema"),
	    HISTORY_SCHEMA);
	assert_int_equal(sql_int(fx->db, "SELECT count(*) FROM runs"), 1);
	assert_int_equal(sql_int(fx->db, "SELECT count(*) FROM "
	    "pragma_journal_mode WHERE journal_mode = 'wal'"), 1);
	if (history_open(fx->db, 0, &h, NULL, &cause) != 0 ||
	    history_query(h, &f, &runs, &nr, &pts, &np, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(nr, 1);
	assert_string_equal(runs[0].labels, "release=v5");
	assert_true(np > 0);
	for (i = 0; i < np; i++) {
		if (strcmp(pts[i].variant, pts[i].reference) == 0)
			assert_true(pts[i].ratio != pts[i].ratio);	/* NAN */
		else if (pts[i].ratio == pts[i].ratio) {
			nratio++;
			assert_true(pts[i].lo <= pts[i].ratio &&
			    pts[i].ratio <= pts[i].hi);
		}
		assert_true(pts[i].typical > 0);
	}
	assert_true(nratio > 0);
	history_query_free(runs, nr, pts, np);
	/* --since after the run: nothing; a bad date: refused. */
	f.since = "2099-01-01";
	assert_int_equal(history_query(h, &f, &runs, &nr, &pts, &np, &cause),
	    0);
	assert_int_equal(nr, 0);
	history_query_free(runs, nr, pts, np);
	f.since = "2024-01-01'; DROP TABLE runs; --";
	assert_int_equal(history_query(h, &f, &runs, &nr, &pts, &np, &cause),
	    -1);
	assert_non_null(strstr(cause, "not a date"));
	free(cause);
	history_close(h);
}

/* Indexing the same run twice keeps one entry, with the same points. */
static void
test_reindex(void **state)
{
	struct fx	*fx = *state;
	long long	 npts;

	index_ok(fx);
	npts = sql_int(fx->db, "SELECT count(*) FROM points");
	index_ok(fx);
	assert_int_equal(sql_int(fx->db, "SELECT count(*) FROM runs"), 1);
	assert_int_equal(sql_int(fx->db, "SELECT count(*) FROM labels"), 1);
	assert_int_equal(sql_int(fx->db, "SELECT count(*) FROM points"), npts);
}

/* A newer schema is refused, as are versions that are not numbers. */
static void
test_newer(void **state)
{
	struct fx	*fx = *state;

	index_ok(fx);
	sql(fx->db, "UPDATE schema SET version = 7");
	open_fails(fx->db, 1, "schema is version 7, newer than this orch's");
	open_fails(fx->db, 0, "newer");
	sql(fx->db, "UPDATE schema SET version = -3");
	open_fails(fx->db, 1, "schema version is not a number");
	sql(fx->db, "UPDATE schema SET version = 'one'");
	open_fails(fx->db, 1, "schema version is not a number");
	sql(fx->db, "UPDATE schema SET version = 2; INSERT INTO schema "
	    "VALUES (2)");
	open_fails(fx->db, 1, "more than one schema version");
	sql(fx->db, "DROP TABLE schema");
	open_fails(fx->db, 1, "no schema version");
}

/*
 * An older schema (version 0: other columns): rebuilt empty with orch's
 * tables, and the caller told to re-index; without create, refused. A
 * table orch never made survives the rebuild and is refused.
 */
static void
test_older(void **state)
{
	struct fx	*fx = *state;
	struct history	*h;
	char		*cause = NULL;
	int		 rebuilt = 0;

	sql(fx->db, "CREATE TABLE schema (version INTEGER NOT NULL); "
	    "INSERT INTO schema VALUES (0); CREATE TABLE runs (id INTEGER "
	    "PRIMARY KEY, old TEXT); INSERT INTO runs (old) VALUES ('x'); "
	    "CREATE TABLE points (a, b)");
	open_fails(fx->db, 0, "older than this orch's (2): run orch index "
	    "--rebuild");
	if (history_open(fx->db, 1, &h, &rebuilt, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(rebuilt, 1);
	assert_int_equal(report_index(h, fx->run, &cause), 0);
	history_close(h);
	assert_int_equal(sql_int(fx->db, "SELECT version FROM schema"),
	    HISTORY_SCHEMA);
	assert_int_equal(sql_int(fx->db, "SELECT count(*) FROM runs"), 1);
	/* A run's end on an older store: rebuilt, and refilled from dir. */
	sql(fx->db, "UPDATE schema SET version = 0; DELETE FROM runs");
	report_index_run(fx->run, NULL, NULL, 1);
	assert_int_equal(sql_int(fx->db, "SELECT version FROM schema"),
	    HISTORY_SCHEMA);
	assert_int_equal(sql_int(fx->db, "SELECT count(*) FROM runs"), 1);
	sql(fx->db, "UPDATE schema SET version = 0; CREATE TABLE mine (x)");
	open_fails(fx->db, 1, "it has a table 'mine'");
}

/* Not SQLite at all, or empty when it must exist: clear errors. */
static void
test_corrupt(void **state)
{
	struct fx	*fx = *state;
	FILE		*f;
	int		 i;

	assert_non_null(f = fopen(fx->db, "w"));
	for (i = 0; i < 4096; i++)
		fputc((i * 7919) & 0xff, f);
	fclose(f);
	open_fails(fx->db, 1, "not an orch history database");
	open_fails(fx->db, 0, "not an orch history database");
	unlink(fx->db);
	open_fails(fx->db, 0, "no history there");
}

/* Objects orch does not make (a trigger, a view, a table): refused. */
static void
test_foreign_objects(void **state)
{
	struct fx	*fx = *state;

	index_ok(fx);
	sql(fx->db, "CREATE TRIGGER t AFTER INSERT ON runs BEGIN DELETE FROM "
	    "points; END");
	open_fails(fx->db, 1, "it has a trigger 't' orch does not make");
	sql(fx->db, "DROP TRIGGER t");
	sql(fx->db, "CREATE VIEW v AS SELECT * FROM runs");
	open_fails(fx->db, 0, "it has a view 'v'");
	sql(fx->db, "DROP VIEW v");
	sql(fx->db, "CREATE TABLE extra (x)");
	open_fails(fx->db, 1, "it has a table 'extra'");
	sql(fx->db, "DROP TABLE extra");
	sql(fx->db, "DROP INDEX points_run");
	open_fails(fx->db, 1, "its tables are not orch's schema");
}

/* Hostile values in orch's own tables: each refused, naming the column. */
static void
test_hostile_values(void **state)
{
	struct fx	*fx = *state;

	index_ok(fx);
	sql(fx->db, "UPDATE points SET host = '../../etc' WHERE rowid = 1");
	query_fails(fx->db, "table points, row 1: column 'host' is not a name");
	index_ok(fx);
	sql(fx->db, "UPDATE points SET ratio = -2 WHERE ratio IS NOT NULL");
	query_fails(fx->db, "column 'ratio' is not a positive number");
	index_ok(fx);
	sql(fx->db, "UPDATE points SET lo = -1e308 * 10 WHERE ratio IS NOT "
	    "NULL");
	query_fails(fx->db, "column 'lo' is not a non-negative number");
	index_ok(fx);
	sql(fx->db, "UPDATE points SET typical = 'x'");
	query_fails(fx->db, "column 'typical' is not a finite number");
	index_ok(fx);
	sql(fx->db, "UPDATE points SET cpu = X'41421b5b326a'");
	query_fails(fx->db, "column 'cpu' is not text");
	index_ok(fx);
	sql(fx->db, "UPDATE labels SET value = 'a' || char(10) || 'b'");
	query_fails(fx->db, "table labels, row 1: column 'value' is not text");
	index_ok(fx);
	sql(fx->db, "UPDATE points SET node = 'n1' || char(27) || '[2J'");
	query_fails(fx->db, "column 'node' is not a Slurm node's name");
	index_ok(fx);
	sql(fx->db, "UPDATE points SET node = '-oProxyCommand=x'");
	query_fails(fx->db, "column 'node' is not a Slurm node's name");
	index_ok(fx);
	sql(fx->db, "UPDATE points SET node = X'6e31'");
	query_fails(fx->db, "column 'node' is not a Slurm node's name");
	index_ok(fx);
	/* Printable blobs: a blob is no text, whatever its bytes. */
	index_ok(fx);
	sql(fx->db, "UPDATE points SET host = X'6c6f63616c'");
	query_fails(fx->db, "column 'host' is not a name");
	index_ok(fx);
	sql(fx->db, "UPDATE points SET cpu = X'414243'");
	query_fails(fx->db, "column 'cpu' is not text");
	index_ok(fx);
	sql(fx->db, "UPDATE runs SET dir = X'2f746d70'");
	query_fails(fx->db, "table runs, row 1: column 'dir' is not a path");
	index_ok(fx);
	sql(fx->db, "UPDATE runs SET run_id = X'2e2e'");
	query_fails(fx->db, "table runs, row 1: column 'run_id' is not a name");
}

/*
 * A run directory named with an escape is indexed, and read back with '?'
 * for the bytes a terminal must not see; the store stays readable (the
 * whole store used to be refused for its 'dir').
 */
static void
test_escaped_dir(void **state)
{
	struct fx		*fx = *state;
	struct history		*h;
	struct hist_filter	 f = { NULL, NULL, NULL, NULL, NULL };
	struct hist_run		*runs;
	struct hist_point	*pts;
	size_t			 nr, np, i, nq = 0;
	char			 run2[128], *cause = NULL;

	/* The same run as fx's (one run id): indexed from elsewhere. */
	make_run(fx->dir, "run\033]0;PWNED\007", run2, sizeof run2);
	if (history_open(fx->db, 1, &h, NULL, &cause) != 0 ||
	    report_index(h, run2, &cause) != 0)
		fail_msg("%s", cause);
	history_close(h);
	if (history_open(fx->db, 0, &h, NULL, &cause) != 0 ||
	    history_query(h, &f, &runs, &nr, &pts, &np, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(nr, 1);
	assert_true(np > 0);
	for (i = 0; i < nr; i++) {
		assert_null(strchr(runs[i].dir, '\033'));
		nq += strstr(runs[i].dir, "/run?]0;PWNED?") != NULL;
	}
	assert_int_equal(nq, 1);
	history_query_free(runs, nr, pts, np);
	history_close(h);
	/* A NUL inside is still refused, naming the column. */
	sql(fx->db, "UPDATE runs SET dir = CAST(X'2f610062' AS TEXT)");
	query_fails(fx->db, "table runs, row 1: column 'dir' is not a path");
}

/* Concurrent writers: two processes index at once; both land. */
static void
test_two_writers(void **state)
{
	struct fx	*fx = *state;
	char		 run2[128];
	pid_t		 pid[2];
	int		 i, st;

	make_run(fx->dir, "run2", run2, sizeof run2);
	for (i = 0; i < 2; i++) {
		if ((pid[i] = fork()) == 0) {
			struct history	*h;
			char		*cause = NULL;
			int		 k, r = 0;

			for (k = 0; k < 20 && r == 0; k++) {
				if (history_open(fx->db, 1, &h, NULL,
				    &cause) != 0 || report_index(h, i ? run2 :
				    fx->run, &cause) != 0) {
					fprintf(stderr, "%s\n", cause);
					r = 1;
				}
				history_close(h);
			}
			_exit(r);
		}
		assert_true(pid[i] > 0);
	}
	for (i = 0; i < 2; i++) {
		assert_int_equal(waitpid(pid[i], &st, 0), pid[i]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	/* The fixture's run id twice: one entry; never two of either. */
	assert_int_equal(sql_int(fx->db, "SELECT count(*) FROM runs"), 1);
	assert_int_equal(sql_int(fx->db, "SELECT count(DISTINCT run) FROM "
	    "points"), 1);
}

/* The end of a run, as run_finish does it: the reports, then the history. */
static int
render_index(const char *dir, char **tripped, size_t *nfailed, char **cause)
{
	struct dataset	*ds = NULL;
	struct analysis	*a = NULL;
	int		 r;

	r = report_render_keep(dir, NULL, 0, tripped, nfailed, &ds, &a, cause);
	if (r == 0)
		report_index_run(dir, ds, a, 1);
	analysis_free(a);
	dataset_free(ds);
	return (r);
}

/*
 * The end of a run: one load and analysis writes the report files, and
 * indexes the run, with the same points `orch index` writes from it.
 */
static void
test_render_index(void **state)
{
	static const char *const files[] = { "samples.csv", "summary.json",
	    "report.md", "report.html", "answer.md" };
	struct fx	*fx = *state;
	struct stat	 sb;
	char		 p[256], *cause = NULL, *tripped = NULL, *once, *again;
	size_t		 i, nfailed = 1;

	if (render_index(fx->run, &tripped, &nfailed, &cause) != 0)
		fail_msg("%s", cause);
	assert_null(tripped);
	assert_int_equal(nfailed, 0);
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", fx->run, files[i]);
		assert_int_equal(stat(p, &sb), 0);
		assert_true(sb.st_size > 0);
	}
	assert_int_equal(sql_int(fx->db, "SELECT count(*) FROM runs"), 1);
	assert_int_equal(sql_int(fx->db, "SELECT count(*) FROM labels"), 1);
	assert_true(sql_int(fx->db, "SELECT count(*) FROM points") > 0);
	once = sql_text(fx->db, POINTS_ALL);
	index_ok(fx);
	again = sql_text(fx->db, POINTS_ALL);
	assert_string_equal(once, again);
	free(once);
	free(again);
	/* A record that does not load: the run's failure, nothing indexed. */
	unlink(fx->db);
	snprintf(p, sizeof p, "%s/%s", fx->run, RECORD_FILE);
	assert_int_equal(truncate(p, 0), 0);
	assert_int_equal(render_index(fx->run, NULL, NULL, &cause), -1);
	assert_non_null(strstr(cause, "empty record"));
	free(cause);
	assert_int_not_equal(stat(fx->db, &sb), 0);
}

/* The store takes plain rows: a run's entry written and read back. */
static void
test_put_rows(void **state)
{
	struct fx		*fx = *state;
	struct history		*h;
	struct hist_filter	 f = { NULL, NULL, NULL, NULL, NULL };
	struct hist_run		*runs;
	struct hist_point	*pts;
	char			*keys[] = { "k" }, *values[] = { "v" };
	struct hist_row		 rows[2] = {
		{ "h1", "x86_64", "cpu", "b", "wall_ns", "A", "A", 1, NAN,
		    NAN, NAN, "", 100, NULL },
		{ "h1", "x86_64", "cpu", "b", "wall_ns", "B", "A", 1, 0.9,
		    0.8, INFINITY, "better", 90, "n3" },
	};
	struct hist_entry	 e = { "r1", "/r1", "2026-01-01T00:00:00Z",
	    "2026-01-01T00:01:00Z", "s", 1, keys, values, 2, rows };
	size_t			 nr, np;
	char			*cause = NULL;

	if (history_open(fx->db, 1, &h, NULL, &cause) != 0 ||
	    history_put_run(h, &e, &cause) != 0 ||
	    history_put_run(h, &e, &cause) != 0 ||
	    history_query(h, &f, &runs, &nr, &pts, &np, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(nr, 1);
	assert_string_equal(runs[0].run_id, "r1");
	assert_string_equal(runs[0].labels, "k=v");
	assert_int_equal(np, 2);
	assert_true(isnan(pts[0].ratio));
	assert_string_equal(pts[1].verdict, "better");
	assert_true(pts[1].ratio == 0.9 && isinf(pts[1].hi));
	assert_string_equal(pts[0].node, "");
	assert_string_equal(pts[1].node, "n3");
	history_query_free(runs, nr, pts, np);
	history_close(h);
}

/*
 * A store of schema 1 (no points.node), as orch wrote it before: opened by
 * orch index, it is rebuilt at the current version and every run beside
 * it indexed again, each point with its node ("" here: no Slurm host).
 */
static void
test_schema1(void **state)
{
	struct fx	*fx = *state;
	char		*dirs[1], *nodes, out[192], line[512];
	FILE		*f;
	int		 fd, saved, rc;

	sql(fx->db, "CREATE TABLE schema (version INTEGER NOT NULL); "
	    "INSERT INTO schema VALUES (1); "
	    "CREATE TABLE runs (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL "
	    "UNIQUE, dir TEXT NOT NULL, started TEXT NOT NULL, ended TEXT NOT "
	    "NULL, suite TEXT NOT NULL); "
	    "CREATE TABLE labels (run INTEGER NOT NULL, key TEXT NOT NULL, "
	    "value TEXT NOT NULL, PRIMARY KEY (run, key)); "
	    "CREATE TABLE points (run INTEGER NOT NULL, host TEXT NOT NULL, "
	    "arch TEXT NOT NULL, cpu TEXT NOT NULL, bench TEXT NOT NULL, "
	    "metric TEXT NOT NULL, variant TEXT NOT NULL, reference TEXT NOT "
	    "NULL, is_primary INTEGER NOT NULL, ratio REAL, lo REAL, hi REAL, "
	    "verdict TEXT NOT NULL, typical REAL); "
	    "CREATE INDEX points_run ON points (run); "
	    "INSERT INTO runs VALUES (1, 'old', '/old', '2026-01-01T00:00:00Z', "
	    "'2026-01-01T00:01:00Z', 's'); "
	    "INSERT INTO points VALUES (1, 'h', 'x86_64', 'c', 'b', 'm', 'A', "
	    "'A', 1, NULL, NULL, NULL, '', 1)");
	open_fails(fx->db, 0, "its schema is version 1, older than this "
	    "orch's (2): run orch index --rebuild");
	dirs[0] = fx->run;
	/* Its one line counts the run once, though the rebuild met it too. */
	snprintf(out, sizeof out, "%s/index.out", fx->dir);
	fflush(stdout);
	assert_true((saved = dup(STDOUT_FILENO)) != -1);
	assert_true((fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600)) != -1);
	assert_true(dup2(fd, STDOUT_FILENO) != -1);
	close(fd);
	rc = history_index_main(fx->dir, 0, dirs, 1);
	fflush(stdout);
	assert_true(dup2(saved, STDOUT_FILENO) != -1);
	close(saved);
	assert_int_equal(rc, 0);
	assert_non_null(f = fopen(out, "r"));
	assert_non_null(fgets(line, sizeof line, f));
	fclose(f);
	unlink(out);
	assert_non_null(strstr(line, ": 1 run indexed\n"));
	assert_int_equal(sql_int(fx->db, "SELECT version FROM schema"),
	    HISTORY_SCHEMA);
	/* The old entry is gone (not a run directory), the run is back. */
	assert_int_equal(sql_int(fx->db, "SELECT count(*) FROM runs"), 1);
	assert_int_equal(sql_int(fx->db, "SELECT count(*) FROM runs WHERE "
	    "run_id = 'old'"), 0);
	assert_true(sql_int(fx->db, "SELECT count(*) FROM points") > 0);
	nodes = sql_text(fx->db, "SELECT group_concat(DISTINCT node) FROM "
	    "points");
	assert_string_equal(nodes, "");
	free(nodes);
}

/*
 * A run's entry names each Slurm host's node: the dataset's ds_slurm as
 * record_load sets it from an alloc record; a host without one, "".
 */
static void
test_node_index(void **state)
{
	struct fx	*fx = *state;
	struct dataset	*ds = NULL;
	struct analysis	*a = NULL;
	char		*cause = NULL, *nodes;

	if (record_load(fx->run, &ds, &cause) != 0 ||
	    analysis_build(ds, &a, &cause) != 0)
		fail_msg("%s", cause);
	assert_null(ds->hosts[0].slurm);
	report_index_run(fx->run, ds, a, 1);
	nodes = sql_text(fx->db, "SELECT group_concat(DISTINCT node) FROM "
	    "points");
	assert_string_equal(nodes, "");
	free(nodes);
	assert_non_null(ds->hosts[0].slurm = calloc(1,
	    sizeof *ds->hosts[0].slurm));
	snprintf(ds->hosts[0].slurm->node, sizeof ds->hosts[0].slurm->node,
	    "n7");
	report_index_run(fx->run, ds, a, 1);
	nodes = sql_text(fx->db, "SELECT group_concat(DISTINCT node) FROM "
	    "points");
	assert_string_equal(nodes, "n7");
	free(nodes);
	assert_int_equal(sql_int(fx->db, "SELECT count(*) FROM runs"), 1);
	analysis_free(a);
	dataset_free(ds);
}

/* The whole text of path, up to 1 MB (free it). */
static char *
slurp(const char *path)
{
	char	*buf;
	size_t	 n;
	FILE	*f;

	assert_non_null(buf = malloc(1 << 20));
	assert_non_null(f = fopen(path, "r"));
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return (buf);
}

/* Runs orch history on reports (host: --host) into html, stdout to out. */
static int
history_to(const char *reports, const char *host, const char *html,
    const char *out)
{
	struct history_opts	o;
	int			fd, saved, r;

	memset(&o, 0, sizeof o);
	o.reports = reports;
	o.f.host = host;
	o.out = html;
	fflush(stdout);
	assert_true((saved = dup(1)) != -1);
	assert_true((fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600)) !=
	    -1);
	assert_int_equal(dup2(fd, 1), 1);
	close(fd);
	r = history_main(&o);
	fflush(stdout);
	assert_int_equal(dup2(saved, 1), 1);
	close(saved);
	return (r);
}

/* Counts the occurrences of needle in s. */
static size_t
count_of(const char *s, const char *needle)
{
	size_t	n = 0;

	while ((s = strstr(s, needle)) != NULL) {
		n++;
		s += strlen(needle);
	}
	return (n);
}

/*
 * orch history warns when consecutive runs of a host name ran on
 * different Slurm nodes: host e on n1, n1, (not a Slurm host), n4 warns
 * once, naming runs 2 and 4; f on n2 in every run, and x never a Slurm
 * host, do not. In the terminal's text and in history.html.
 */
static void
test_node_moves(void **state)
{
	static const char *const enode[] = { "n1", "n1", "", "n4" };
	static const char *const runid[] = { "r1", "r2", "r3", "r4" };
	static const char *const start[] = { "2026-01-01T00:00:00Z",
	    "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z",
	    "2026-01-04T00:00:00Z" };
	struct fx		*fx = *state;
	struct history		*h;
	struct hist_row		 rows[3];
	struct hist_entry	 e;
	char			 html[160], out[160], *t, *cause = NULL;
	size_t			 i, k;

	if (history_open(fx->db, 1, &h, NULL, &cause) != 0)
		fail_msg("%s", cause);
	for (i = 0; i < 4; i++) {
		memset(rows, 0, sizeof rows);
		for (k = 0; k < 3; k++) {
			rows[k].host = k == 0 ? "e" : k == 1 ? "f" : "x";
			rows[k].arch = "x86_64";
			rows[k].cpu = "cpu";
			rows[k].bench = "b";
			rows[k].metric = "wall_ns";
			rows[k].variant = "A";
			rows[k].reference = "A";
			rows[k].primary = 1;
			rows[k].ratio = rows[k].lo = rows[k].hi = NAN;
			rows[k].verdict = "";
			rows[k].typical = 100;
			rows[k].node = k == 0 ? enode[i] : k == 1 ? "n2" :
			    NULL;
		}
		memset(&e, 0, sizeof e);
		e.run_id = runid[i];
		e.dir = "/r";
		e.started = e.ended = start[i];
		e.suite = "s";
		e.nrows = 3;
		e.rows = rows;
		if (history_put_run(h, &e, &cause) != 0)
			fail_msg("%s", cause);
	}
	history_close(h);
	snprintf(html, sizeof html, "%s/h.html", fx->dir);
	snprintf(out, sizeof out, "%s/out", fx->dir);
	assert_int_equal(history_to(fx->dir, NULL, html, out), 0);
	t = slurp(out);
	if (strstr(t, "\nwarning: host e ran on node n1 in run 2 and on node "
	    "n4 in run 4: its series compares different machines\n") == NULL)
		fail_msg("no warning for host e in:\n%s", t);
	assert_int_equal(count_of(t, "warning:"), 1);
	free(t);
	t = slurp(html);
	assert_non_null(strstr(t, "<p class=\"warning\">warning: host <code>e"
	    "</code> ran on node <code>n1</code> in run 2 and on node <code>n4"
	    "</code> in run 4: its series compares different machines</p>"));
	assert_int_equal(count_of(t, "warning:"), 1);
	free(t);
	/* The same node in every run of e: no warning. */
	sql(fx->db, "UPDATE points SET node = 'n1' WHERE host = 'e' AND "
	    "node != ''");
	assert_int_equal(history_to(fx->dir, NULL, html, out), 0);
	t = slurp(out);
	assert_int_equal(count_of(t, "warning:"), 0);
	free(t);
	t = slurp(html);
	assert_int_equal(count_of(t, "warning:"), 0);
	free(t);
	/* e moved again, in run 1; outside the selection (--host=f): not. */
	sql(fx->db, "UPDATE points SET node = 'n9' WHERE host = 'e' AND "
	    "run = (SELECT id FROM runs WHERE run_id = 'r1')");
	assert_int_equal(history_to(fx->dir, NULL, html, out), 0);
	t = slurp(out);
	assert_int_equal(count_of(t, "\nwarning: host e ran on node n9 in run "
	    "1 and on node n1 in run 2: its series"), 1);
	assert_int_equal(count_of(t, "warning:"), 1);
	free(t);
	assert_int_equal(history_to(fx->dir, "f", html, out), 0);
	t = slurp(out);
	assert_int_equal(count_of(t, "warning:"), 0);
	assert_non_null(strstr(t, "\nf · b · wall_ns"));
	free(t);
}

/* Labels where they enter: --label's words and the record's. */
static void
test_labels(void **state)
{
	struct fx	*fx = *state;
	struct dataset	*ds = NULL;
	char		 rec[256], *k, *v, *cause = NULL, big[400];
	const char	*dup[] = { "t", "label", "key", "release", "value", "v6" };
	const char	*bad[] = { "t", "label", "key", "-x", "value", "v" };
	const char	*ctl[] = { "t", "label", "key", "x", "value", "a\x1b[2J" };
	size_t		 i;

	assert_int_equal(dataset_label_parse("release=v5", &k, &v, &cause), 0);
	assert_string_equal(k, "release");
	assert_string_equal(v, "v5");
	free(k);
	assert_int_equal(dataset_label_parse("a=b=c", &k, &v, &cause), 0);
	assert_string_equal(v, "b=c");
	free(k);
	assert_int_equal(dataset_label_parse("novalue", &k, &v, &cause), -1);
	assert_non_null(strstr(cause, "not KEY=VALUE"));
	free(cause);
	assert_int_equal(dataset_label_parse("bad key=v", &k, &v, &cause), -1);
	assert_non_null(strstr(cause, "is not a name"));
	free(cause);
	assert_int_equal(dataset_label_parse("k=", &k, &v, &cause), -1);
	assert_non_null(strstr(cause, "printable"));
	free(cause);
	assert_int_equal(dataset_label_parse("k=a\tb", &k, &v, &cause), -1);
	free(cause);
	memset(big, 'x', sizeof big);
	memcpy(big, "k=", 2);
	big[sizeof big - 1] = '\0';
	assert_int_equal(dataset_label_parse(big, &k, &v, &cause), -1);
	free(cause);

	/* The record: fx's run has release=v5. */
	assert_int_equal(record_load(fx->run, &ds, &cause), 0);
	assert_int_equal(ds->nlabels, 1);
	assert_string_equal(ds->label_keys[0], "release");
	assert_string_equal(ds->label_values[0], "v5");
	dataset_free(ds);
	snprintf(rec, sizeof rec, "%s/%s", fx->run, RECORD_FILE);
	append_map(rec, dup, 6);
	assert_int_equal(record_load(fx->run, &ds, &cause), -1);
	assert_non_null(strstr(cause, "label 'release' given twice"));
	free(cause);
	for (i = 0; i < 2; i++) {
		char	r2[128], rec2[256];

		make_run(fx->dir, i ? "ctl" : "bad", r2, sizeof r2);
		snprintf(rec2, sizeof rec2, "%s/%s", r2, RECORD_FILE);
		append_map(rec2, i ? ctl : bad, 6);
		assert_int_equal(record_load(r2, &ds, &cause), -1);
		assert_non_null(strstr(cause, i ? "field 'value'" :
		    "field 'key'"));
		assert_non_null(strstr(cause, rec2));
		free(cause);
	}
}

/* Writes s to path (a new file). */
static void
put_file(const char *path, const char *s)
{
	FILE	*f;

	assert_non_null(f = fopen(path, "w"));
	fputs(s, f);
	fclose(f);
}

/* The text of path (free it). */
static char *
get_file(const char *path)
{
	char	buf[256];
	size_t	n;
	FILE	*f;

	assert_non_null(f = fopen(path, "r"));
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return (strdup(buf));
}

/*
 * Where the store and history.html are written: created 0600, never
 * through a link planted at the store, history.html or history.html.tmp,
 * never another user's store, never in a directory every user may write.
 */
static void
test_store_place(void **state)
{
	struct fx		*fx = *state;
	struct history_opts	 o;
	struct history		*h = NULL;
	struct stat		 sb;
	char			 p[256], victim[256], pub[128], *t, *cause;

	index_ok(fx);
	assert_int_equal(stat(fx->db, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	snprintf(p, sizeof p, "%s-wal", fx->db);
	if (stat(p, &sb) == 0)
		assert_int_equal(sb.st_mode & 0077, 0);

	/* history.html: links at its name and its old temporary. */
	snprintf(victim, sizeof victim, "%s/victim", fx->dir);
	put_file(victim, "keep");
	snprintf(p, sizeof p, "%s/history.html.tmp", fx->dir);
	assert_int_equal(symlink(victim, p), 0);
	memset(&o, 0, sizeof o);
	o.reports = fx->dir;
	o.quiet = 1;
	assert_int_equal(history_main(&o), 0);
	t = get_file(victim);
	assert_string_equal(t, "keep");
	free(t);
	snprintf(p, sizeof p, "%s/history.html", fx->dir);
	assert_int_equal(lstat(p, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	assert_int_equal(sb.st_mode & 07777, 0600);
	unlink(p);
	assert_int_equal(symlink(victim, p), 0);
	assert_int_equal(history_main(&o), 0);
	t = get_file(victim);
	assert_string_equal(t, "keep");
	free(t);
	assert_int_equal(lstat(p, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));

	/* A link at the store is refused, to read or to write. */
	snprintf(p, sizeof p, "%s/real.sqlite", fx->dir);
	assert_int_equal(rename(fx->db, p), 0);
	assert_int_equal(symlink(p, fx->db), 0);
	open_fails(fx->db, 0, "symbolic link");
	open_fails(fx->db, 1, "symbolic link");
	unlink(fx->db);
	assert_int_equal(rename(p, fx->db), 0);

	/* Another user's store (root can make one). */
	if (chown(fx->db, 65534, 65534) == 0) {
		open_fails(fx->db, 0, "owned by uid 65534");
		open_fails(fx->db, 1, "owned by uid 65534");
	} else
		assert_int_not_equal(geteuid(), 0);

	/* A directory every user may write (as /tmp): nothing made there. */
	snprintf(pub, sizeof pub, "%s/pub", fx->dir);
	assert_int_equal(mkdir(pub, 0700), 0);
	assert_int_equal(chmod(pub, 01777), 0);
	make_run(pub, "run", p, sizeof p);
	t = history_path_of(p);
	open_fails(t, 1, "writable by every user");
	assert_int_not_equal(lstat(t, &sb), 0);
	cause = NULL;
	assert_int_equal(history_open(t, 1, &h, NULL, &cause), -1);
	assert_non_null(strstr(cause, pub));
	free(cause);
	free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reindex, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_older, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_objects, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_hostile_values, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_two_writers, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_labels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_index, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_put_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_schema1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_node_index, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_node_moves, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_store_place, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_escaped_dir, setup,
		    teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
