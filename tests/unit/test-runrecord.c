/*
 * Unit tests for what a resume and orch status read back from a record
 * (coordinator/store/record.c writes, dataset.c loads): the command line's
 * --max-load ("opts"), each host's plan settings ("plan"), a detached
 * coordinator ("detach") and the writer's lock (record_busy). Records
 * crafted with bad values are refused naming the field; records older than
 * these types load with "unknown" values.
 */
#include <sys/stat.h>

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

#include "coordinator/hosts/host.h"
#include "coordinator/input/suite.h"
#include "coordinator/store/record.h"

static char *
rr_dir(void)
{
	char	tmpl[] = "/tmp/orch-test-runrecord.XXXXXX", *d;

	d = mkdtemp(tmpl);
	assert_non_null(d);
	return (strdup(d));
}

static void
rr_rm(char *dir)
{
	char	p[512];

	snprintf(p, sizeof p, "%s/%s", dir, RECORD_FILE);
	unlink(p);
	rmdir(dir);
	free(dir);
}

/* Opens a record in dir with a run record of one host, h1. */
static void
rr_open(struct record *rec, const char *dir)
{
	static struct suite_metric	m = { "wall_ns", 0 };
	struct suite_variant		v[2];
	struct suite_bench		b;
	struct suite			s;
	struct host			h;
	char				*cause = NULL;

	memset(&s, 0, sizeof s);
	memset(v, 0, sizeof v);
	memset(&b, 0, sizeof b);
	memset(&h, 0, sizeof h);
	s.path = (char *)(uintptr_t)"rr.ini";
	s.text = (char *)(uintptr_t)"[suite]\n";
	snprintf(s.name, sizeof s.name, "rr");
	s.rounds = 3;
	s.min_effect = 0.01;
	s.max_load = 1.0 / 3;
	s.nvariants = 2;
	s.variants = v;
	snprintf(v[0].name, sizeof v[0].name, "A");
	snprintf(v[1].name, sizeof v[1].name, "B");
	s.nbenches = 1;
	s.benches = &b;
	snprintf(b.name, sizeof b.name, "n");
	b.nmetrics = 1;
	b.metrics = &m;
	snprintf(h.name, sizeof h.name, "h1");
	if (record_open(rec, dir, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(record_run(rec, "20260101-000000-rr", &s, 7,
	    "orch run rr.ini", "2026-01-01T00:00:00Z", &h, 1), 0);
}

/* The settings a resume needs come back as written. */
static void
test_round_trip(void **state)
{
	struct proto_plan	 p;
	struct record		 rec;
	struct host		 h;
	struct dataset		*ds;
	char			*dir = rr_dir(), *cause = NULL;

	(void)state;
	rr_open(&rec, dir);
	assert_int_equal(record_opts(&rec, 0, 100), 0);
	memset(&p, 0, sizeof p);
	p.max_load = 0;
	p.load_wait_ms = 4000;
	snprintf(p.pin, sizeof p.pin, "2,3");
	memset(&h, 0, sizeof h);
	snprintf(h.name, sizeof h.name, "h1");
	snprintf(h.workdir, sizeof h.workdir, "~/bench wd");
	assert_int_equal(record_plan(&rec, &h, &p), 0);
	/* The writer holds the record: a coordinator runs it. */
	assert_int_equal(record_busy(dir), 1);
	assert_int_equal(record_detach(&rec, "2026-01-01T00:01:00Z"), 0);
	assert_int_equal(record_busy(dir), 0);
	if (record_load(dir, &ds, &cause) != 0)
		fail_msg("%s", cause);
	assert_true(ds->opt_max_load == 0);
	assert_int_equal(ds->opt_env_pad, 100);
	assert_int_equal(ds->nhosts, 1);
	assert_int_equal(ds->hosts[0].has_plan, 1);
	assert_true(ds->hosts[0].max_load == 0);
	assert_int_equal(ds->hosts[0].load_wait_ms, 4000);
	assert_string_equal(ds->hosts[0].pin, "2,3");
	assert_string_equal(ds->hosts[0].workdir, "~/bench wd");
	assert_int_equal(ds->detached, 1);
	assert_string_equal(ds->detached_at, "2026-01-01T00:01:00Z");
	assert_string_equal(ds->ended, "");
	dataset_free(ds);
	rr_rm(dir);
}

/* A record from before these types: unknown, not zero. */
static void
test_older_record(void **state)
{
	struct record	 rec;
	struct dataset	*ds;
	char		*dir = rr_dir(), *cause = NULL;

	(void)state;
	rr_open(&rec, dir);
	assert_int_equal(record_close(&rec, "2026-01-01T00:02:00Z"), 0);
	if (record_load(dir, &ds, &cause) != 0)
		fail_msg("%s", cause);
	assert_true(ds->opt_max_load < 0);
	assert_true(ds->opt_env_pad < 0);
	assert_int_equal(ds->hosts[0].has_plan, 0);
	assert_null(ds->hosts[0].workdir);
	assert_int_equal(ds->detached, 0);
	assert_string_equal(ds->detached_at, "");
	dataset_free(ds);
	rr_rm(dir);
}

/*
 * Appends a crafted record of type t whose field k1 holds v1, a double
 * (kind 'd') or a string; a "plan" record gets its other fields valid.
 */
static void
rr_append(const char *dir, const char *t, const char *k1, int kind1,
    const void *v1)
{
	msgpack_sbuffer	 sb;
	msgpack_packer	 pk;
	FILE		*f;
	char		 p[512];
	uint32_t	 n;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	if (strcmp(t, "plan") != 0)
		n = 2;
	else if (strcmp(k1, "max_load") == 0 ||
	    strcmp(k1, "load_wait_ms") == 0 || strcmp(k1, "pin") == 0)
		n = 5;
	else
		n = 6;
	msgpack_pack_map(&pk, n);
	msgpack_pack_str(&pk, 1);
	msgpack_pack_str_body(&pk, "t", 1);
	msgpack_pack_str(&pk, strlen(t));
	msgpack_pack_str_body(&pk, t, strlen(t));
	if (strcmp(t, "plan") == 0) {
		msgpack_pack_str(&pk, 4);
		msgpack_pack_str_body(&pk, "host", 4);
		msgpack_pack_str(&pk, 2);
		msgpack_pack_str_body(&pk, "h1", 2);
		/* The defaults, unless k1 names the field. */
		if (strcmp(k1, "max_load") != 0) {
			msgpack_pack_str(&pk, 8);
			msgpack_pack_str_body(&pk, "max_load", 8);
			msgpack_pack_double(&pk, 0.5);
		}
		if (strcmp(k1, "load_wait_ms") != 0) {
			msgpack_pack_str(&pk, 12);
			msgpack_pack_str_body(&pk, "load_wait_ms", 12);
			msgpack_pack_uint32(&pk, 1000);
		}
		if (strcmp(k1, "pin") != 0) {
			msgpack_pack_str(&pk, 3);
			msgpack_pack_str_body(&pk, "pin", 3);
			msgpack_pack_str(&pk, 0);
			msgpack_pack_str_body(&pk, "", 0);
		}
	}
	msgpack_pack_str(&pk, strlen(k1));
	msgpack_pack_str_body(&pk, k1, strlen(k1));
	if (kind1 == 'd')
		msgpack_pack_double(&pk, *(const double *)v1);
	else
		msgpack_pack_str_with_body(&pk, (const char *)v1,
		    strlen((const char *)v1));
	snprintf(p, sizeof p, "%s/%s", dir, RECORD_FILE);
	f = fopen(p, "ab");
	assert_non_null(f);
	assert_int_equal(fwrite(sb.data, 1, sb.size, f), sb.size);
	fclose(f);
	msgpack_sbuffer_destroy(&sb);
}

/* Loads dir, which must be refused with a cause holding want. */
static void
rr_refused(const char *dir, const char *want)
{
	struct dataset	*ds;
	char		*cause = NULL;

	if (record_load(dir, &ds, &cause) == 0)
		fail_msg("a record with a bad %s loaded", want);
	if (strstr(cause, want) == NULL)
		fail_msg("cause '%s' does not name %s", cause, want);
	free(cause);
}

/* Values from outside are checked where they enter. */
static void
test_bad_values(void **state)
{
	static const struct {
		const char	*t, *key;
		int		 kind;
		double		 d;
		const char	*s;
		const char	*want;
	} cases[] = {
		{ "opts", "max_load", 'd', -2, NULL, "'max_load'" },
		{ "opts", "max_load", 'd', NAN, NULL, "'max_load'" },
		{ "opts", "max_load", 's', 0, "0", "'max_load'" },
		{ "plan", "max_load", 'd', -1, NULL, "'max_load'" },
		{ "plan", "max_load", 'd', INFINITY, NULL, "'max_load'" },
		{ "plan", "load_wait_ms", 'd', 1e12, NULL, "'load_wait_ms'" },
		{ "plan", "pin", 's', 0, "2,3\n; rm -rf", "'pin'" },
		{ "plan", "workdir", 's', 0, "/tmp/a\x1b]0;x\x07", "'workdir'" },
		{ "plan", "workdir", 'd', 3, NULL, "'workdir'" },
		{ "detach", "at", 's', 0, "\x1b[2J", "'at'" },
		{ "detach", "at", 'd', 1, NULL, "'at'" },
	};
	struct record	 rec;
	size_t		 i;
	char		*dir;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		dir = rr_dir();
		rr_open(&rec, dir);
		assert_int_equal(record_close(&rec, ""), 0);
		/*
		 * The crafted record follows the end record: the loader
		 * reads every record, wherever it stands.
		 */
		rr_append(dir, cases[i].t, cases[i].key, cases[i].kind,
		    cases[i].kind == 'd' ? (const void *)&cases[i].d :
		    (const void *)cases[i].s);
		rr_refused(dir, cases[i].want);
		rr_rm(dir);
	}
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_older_record),
		cmocka_unit_test(test_bad_values),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
