/*
 * Unit tests for hostile records (coordinator/store/dataset.c, entry.c,
 * analysis.c, report.c): a run directory is evidence passed around, and `orch report
 * DIR` must refuse a crafted DIR/samples.msgpack with a message naming the
 * file, the record and the field, leaving the previous report files as
 * they were, and without reading or writing out of bounds. Each case is a valid record
 * with one field changed.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

#include "coordinator/input/suite.h"
#include "coordinator/input/tty.h"
#include "coordinator/report/report.h"
#include "coordinator/run/run.h"
#include "coordinator/store/entry.h"
#include "coordinator/store/record.h"
#include "proto/hash.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))
#define OLD_REPORT	"the previous report\n"
/* What an orch before issue 27 stored of tests/tools/hostile --agent forged */
#define FORGED_FIXTURE	"tests/unit/fixtures/record/forged.msgpack"

/* One hostile change to a valid record of 5 rounds, A against B. */
struct spec {
	const char	*run_id;
	uint64_t	 rounds;
	const char	*hosts[2];	/* the run record's "hosts" */
	const char	*variant_b;	/* the second variant's name */
	const char	*bench;
	const char	*metric;	/* the bench's primary metric */
	const char	*dup_metric;	/* a second metric, or NULL */
	const char	*host;		/* host record and samples */
	uint64_t	 round;		/* of the last sample */
	uint64_t	 seq;		/* of the last sample */
	int64_t		 exit_code;	/* of the last sample */
	const char	*mkey;		/* a program metric of the samples */
	double		 cores;		/* the host record's */
	const char	*suite_path;
	const char	*suite_text;
	const char	*cmdline;
	const char	*orch_version;
	const char	*started;
	uint32_t	 nsamples;	/* rounds of samples written */
	const char	*os, *kernel, *agent_version, *cpu_model;
	const char	*host_failed;	/* a hostend's error, or NULL */
	const char	*err;		/* the last sample's stderr tail */
	int		 forged;	/* hosts[1] adds a forged sample */
	int64_t		 env_pad;	/* every sample's; -1: none (a
					   record before protocol 8) */
	const char	*alloc_node;	/* an alloc record's node, or NULL */
	const char	*alloc_addr;	/* its node_addr */
	const char	*alloc_job;	/* its job_id */
	int		 alloc_twice;	/* a second alloc for the host */
	const char	*alloc_features;	/* its node_features; NULL:
					   a good one */
	int		 release;	/* a release record of its job */
};

static void
spec_default(struct spec *sp)
{
	memset(sp, 0, sizeof *sp);
	sp->run_id = "20260115-100000-abcd";
	sp->rounds = 5;
	sp->hosts[0] = "local";
	sp->variant_b = "B";
	sp->bench = "sum";
	sp->metric = "wall_ns";
	sp->host = "local";
	sp->round = 5;
	sp->seq = 9;
	sp->mkey = "ops";
	sp->cores = 4;
	sp->env_pad = -1;
	sp->nsamples = 5;
	sp->os = "linux";
	sp->kernel = "6.1";
	sp->agent_version = "test";
	sp->cpu_model = "Test CPU";
	sp->suite_path = "suites/hostile.ini";
	sp->suite_text = "[suite]\nname = hostile\n";
	sp->cmdline = "orch run suites/hostile.ini";
	sp->orch_version = "test";
	sp->started = "2026-01-15T10:00:00Z";
}

static void
pk_str(msgpack_packer *pk, const char *s)
{
	msgpack_pack_str(pk, strlen(s));
	msgpack_pack_str_body(pk, s, strlen(s));
}

static void
pk_kstr(msgpack_packer *pk, const char *k, const char *v)
{
	pk_str(pk, k);
	pk_str(pk, v);
}

static void
pk_kuint(msgpack_packer *pk, const char *k, uint64_t v)
{
	pk_str(pk, k);
	msgpack_pack_uint64(pk, v);
}

static void
pk_kint(msgpack_packer *pk, const char *k, int64_t v)
{
	pk_str(pk, k);
	msgpack_pack_int64(pk, v);
}

static void
pk_kdouble(msgpack_packer *pk, const char *k, double v)
{
	pk_str(pk, k);
	msgpack_pack_double(pk, v);
}

/* Packs the run record of sp. */
static void
pk_run(msgpack_packer *pk, const struct spec *sp)
{
	size_t	nh = sp->hosts[1] != NULL ? 2 : 1, i;
	size_t	nm = sp->dup_metric != NULL ? 2 : 1;

	msgpack_pack_map(pk, 18);
	pk_kstr(pk, "t", "run");
	pk_str(pk, "hosts");
	msgpack_pack_array(pk, nh);
	for (i = 0; i < nh; i++)
		pk_str(pk, sp->hosts[i]);
	pk_kstr(pk, "run_id", sp->run_id);
	pk_kstr(pk, "orch_version", sp->orch_version);
	pk_kstr(pk, "suite", "hostile");
	pk_kstr(pk, "suite_path", sp->suite_path);
	pk_kstr(pk, "suite_text", sp->suite_text);
	pk_kstr(pk, "cmdline", sp->cmdline);
	pk_kstr(pk, "started", sp->started);
	pk_kuint(pk, "seed", 7);
	pk_kdouble(pk, "min_effect", 0.01);
	pk_kuint(pk, "rounds", sp->rounds);
	pk_kuint(pk, "warmup", 0);
	pk_kuint(pk, "reference", 0);
	pk_kstr(pk, "counters", "");
	pk_kuint(pk, "subtract_floor", 0);
	pk_str(pk, "variants");
	msgpack_pack_array(pk, 2);
	pk_str(pk, "A");
	pk_str(pk, sp->variant_b);
	pk_str(pk, "benches");
	msgpack_pack_array(pk, 1);
	msgpack_pack_map(pk, 4);
	pk_kstr(pk, "name", sp->bench);
	pk_kstr(pk, "checksum", "");
	pk_str(pk, "metrics");
	msgpack_pack_array(pk, nm);
	pk_str(pk, sp->metric);
	if (nm > 1)
		pk_str(pk, sp->dup_metric);
	pk_str(pk, "higher");
	msgpack_pack_array(pk, nm);
	for (i = 0; i < nm; i++)
		msgpack_pack_false(pk);
}

/* Packs the host record of sp. */
static void
pk_host(msgpack_packer *pk, const struct spec *sp)
{
	msgpack_pack_map(pk, 11);
	pk_kstr(pk, "t", "host");
	pk_kstr(pk, "host", sp->host);
	pk_kstr(pk, "agent_version", sp->agent_version);
	pk_kstr(pk, "os", sp->os);
	pk_kstr(pk, "arch", "x86_64");
	pk_kstr(pk, "cpu_model", sp->cpu_model);
	pk_kstr(pk, "kernel", sp->kernel);
	pk_kstr(pk, "hostname", "box");
	pk_kstr(pk, "workdir", "/tmp/w");
	pk_kdouble(pk, "cores", sp->cores);
	pk_kuint(pk, "mem_kb", 1024);
}

/* Packs one sample. */
static void
pk_sample(msgpack_packer *pk, const struct spec *sp, const char *variant,
    uint64_t round, uint64_t seq, int64_t exit_code)
{
	size_t	i;

	msgpack_pack_map(pk, 22 + (sp->env_pad >= 0));
	pk_kstr(pk, "t", "sample");
	pk_kstr(pk, "host", sp->host);
	pk_kstr(pk, "bench", sp->bench);
	pk_kstr(pk, "variant", variant);
	pk_kuint(pk, "round", round);
	pk_kuint(pk, "attempt", 1);
	pk_kuint(pk, "seq", seq);
	pk_kuint(pk, "warmup", 0);
	pk_kstr(pk, "status", exit_code != 0 && sp->err != NULL ? "failed" :
	    "ok");
	pk_kint(pk, "exit", exit_code);
	pk_kint(pk, "signal", 0);
	pk_kdouble(pk, "load1", 0.5);
	pk_kint(pk, "start_ns", (int64_t)seq * 1000);
	for (i = 0; i < DS_NBUILTIN; i++)
		pk_kuint(pk, ds_builtin_names[i], 1000000 + round * 10 +
		    (variant[0] == 'A' ? 0 : 1));
	pk_kstr(pk, "err", exit_code != 0 && sp->err != NULL ? sp->err : "");
	pk_kuint(pk, "step", seq);
	if (sp->env_pad >= 0)
		pk_kuint(pk, "env_pad", (uint64_t)sp->env_pad);
	pk_str(pk, "metrics");
	msgpack_pack_map(pk, 1);
	pk_str(pk, sp->mkey);
	msgpack_pack_double(pk, 1.5);
}

/* Writes the record of sp into dir; the last sample carries sp's values. */
static void
write_record(const char *dir, const struct spec *sp)
{
	struct spec	 forged = *sp;
	msgpack_sbuffer	 sb;
	msgpack_packer	 pk;
	char		 path[1024];
	FILE		*f;
	uint32_t	 r;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	pk_run(&pk, sp);
	pk_host(&pk, sp);
	for (r = 1; r < sp->nsamples; r++) {
		pk_sample(&pk, sp, "A", r, 2 * r - 2, 0);
		pk_sample(&pk, sp, sp->variant_b, r, 2 * r - 1, 0);
	}
	pk_sample(&pk, sp, "A", sp->round, sp->seq - 1, 0);
	pk_sample(&pk, sp, sp->variant_b, sp->round, sp->seq, sp->exit_code);
	if (sp->forged) {
		/* What an older orch stored of a hostile agent's sample. */
		forged.host = sp->hosts[1];
		pk_host(&pk, &forged);
		pk_sample(&pk, &forged, "A", sp->rounds + 1000, 0xffffffffU,
		    0);
	}
	for (r = 0; sp->alloc_node != NULL && r < 1 + (sp->alloc_twice != 0);
	    r++) {
		msgpack_pack_map(&pk, 15);
		pk_kstr(&pk, "t", "alloc");
		pk_kuint(&pk, "node_cpus", 8);
		pk_kstr(&pk, "node_features", sp->alloc_features != NULL ?
		    sp->alloc_features : "zen4,avx512");
		pk_kstr(&pk, "host", sp->host);
		pk_kstr(&pk, "cluster", "lab");
		pk_kstr(&pk, "login", "local");
		pk_kstr(&pk, "job_id", sp->alloc_job);
		pk_kuint(&pk, "component", 0);
		pk_kstr(&pk, "node", sp->alloc_node);
		pk_kstr(&pk, "node_addr", sp->alloc_addr);
		pk_kstr(&pk, "partition", "epyc");
		pk_kstr(&pk, "constraint", "");
		pk_kstr(&pk, "workdir", "~/.orch/node-n1");
		pk_kuint(&pk, "timeout_s", 30);
		pk_kuint(&pk, "end_s", 1800000000);
	}
	if (sp->release) {
		msgpack_pack_map(&pk, 4);
		pk_kstr(&pk, "t", "release");
		pk_kstr(&pk, "cluster", "lab");
		pk_kstr(&pk, "job_id", sp->alloc_job);
		pk_kstr(&pk, "at", "2026-01-15T10:01:00Z");
	}
	if (sp->host_failed != NULL) {
		msgpack_pack_map(&pk, 4);
		pk_kstr(&pk, "t", "hostend");
		pk_kstr(&pk, "host", sp->host);
		pk_kstr(&pk, "status", "failed");
		pk_kstr(&pk, "error", sp->host_failed);
	}
	snprintf(path, sizeof path, "%s/%s", dir, RECORD_FILE);
	if ((f = fopen(path, "wb")) == NULL)
		fail_msg("%s: %s", path, strerror(errno));
	assert_int_equal(fwrite(sb.data, 1, sb.size, f), sb.size);
	assert_int_equal(fclose(f), 0);
	msgpack_sbuffer_destroy(&sb);
}

static void
put_file(const char *dir, const char *name, const char *text)
{
	char	 path[1024];
	FILE	*f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((f = fopen(path, "w")) == NULL)
		fail_msg("%s: %s", path, strerror(errno));
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Returns dir/name's contents (static buffer), or "" when absent. */
static const char *
get_file(const char *dir, const char *name)
{
	static char	 buf[65536];
	char		 path[1024];
	FILE		*f;
	size_t		 n;

	buf[0] = '\0';
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((f = fopen(path, "r")) == NULL)
		return (buf);
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return (buf);
}

/* Fails when dir holds a file starting with '.' (a left temporary). */
static void
no_temporaries(const char *dir)
{
	DIR		*d;
	struct dirent	*e;

	assert_non_null(d = opendir(dir));
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 &&
		    strcmp(e->d_name, "..") != 0)
			fail_msg("%s/%s left behind", dir, e->d_name);
	}
	closedir(d);
}

/* Removes everything in dir (one level), then dir. */
static void
rm_dir(char *dir)
{
	DIR		*d;
	struct dirent	*e;
	char		 path[1024];

	if ((d = opendir(dir)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(dir);
	free(dir);
}

static char *
new_dir(void)
{
	char	*d = strdup("/tmp/orch-test-record.XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return (d);
}

/*
 * Renders the record of sp over a previous report: want NULL expects
 * success, else a refusal whose message names the record file and holds
 * want, with the previous report.md intact and no temporary left.
 */
static void
expect_render(const struct spec *sp, const char *want)
{
	char	*dir = new_dir(), *cause = NULL, file[1100];

	write_record(dir, sp);
	put_file(dir, "report.md", OLD_REPORT);
	if (report_render(dir, 0, NULL, NULL, &cause) == 0) {
		if (want != NULL)
			fail_msg("rendered; want a refusal with \"%s\"", want);
	} else {
		if (want == NULL)
			fail_msg("refused: %s", cause);
		snprintf(file, sizeof file, "%s/%s: ", dir, RECORD_FILE);
		if (strncmp(cause, file, strlen(file)) != 0 ||
		    strstr(cause, want) == NULL)
			fail_msg("got \"%s\", want \"%s...%s\"", cause, file,
			    want);
		assert_string_equal(get_file(dir, "report.md"), OLD_REPORT);
	}
	no_temporaries(dir);
	free(cause);
	rm_dir(dir);
}

/*
 * Renders the record of sp, which must succeed, and returns what was
 * warned on stderr meanwhile (static buffer); *dir is the record's
 * directory (rm_dir it).
 */
static const char *
render_warnings(const struct spec *sp, char **dir)
{
	static char	 buf[8192];
	char		*cause = NULL, path[1100];
	FILE		*f;
	size_t		 n;
	int		 saved, fd;

	*dir = new_dir();
	write_record(*dir, sp);
	put_file(*dir, "report.md", OLD_REPORT);
	snprintf(path, sizeof path, "%s/.stderr", *dir);
	fflush(stderr);
	saved = dup(2);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved != -1 && fd != -1);
	dup2(fd, 2);
	close(fd);
	if (report_render(*dir, 0, NULL, NULL, &cause) != 0)
		fail_msg("refused: %s", cause);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	assert_non_null(f = fopen(path, "r"));
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	unlink(path);
	no_temporaries(*dir);
	return (buf);
}

/* The unchanged record renders: the cases below differ from it only. */
static void
test_valid(void **state)
{
	struct spec	sp;

	(void)state;
	spec_default(&sp);
	expect_render(&sp, NULL);
}

/*
 * A Slurm host's alloc and release records: loaded and rendered (the node
 * in report.md and summary.json, the job id a string), a record without
 * them as before, and hostile fields refused.
 */
static void
test_slurm_alloc(void **state)
{
	static const struct {
		const char	*node, *addr, *job, *want;
		int		 twice;
	} bad[] = {
		{ "n1;rm -rf ~", "10.0.0.1", "12", "field 'node'", 0 },
		{ "-oProxyCommand=x", "10.0.0.1", "12", "field 'node'", 0 },
		{ "n1", "10.0.0.1 NodeAddr=10.6.6.6", "12",
		    "field 'node_addr'", 0 },
		{ "n1", "$(reboot)", "12", "field 'node_addr'", 0 },
		{ "n1234567890123456789012345678901234567890123456789012345"
		    "678901234567890", "10.0.0.1", "12", "field 'node'", 0 },
		{ "n1", "10.0.0.1", "12+1", "field 'job_id'", 0 },
		{ "n1", "10.0.0.1", "", "field 'job_id'", 0 },
		{ "n1", "10.0.0.1", "12", "a second alloc for host local", 1 },
	};
	struct spec	 sp;
	struct dataset	*ds = NULL;
	char		*dir, *cause = NULL;
	size_t		 i;

	(void)state;
	spec_default(&sp);
	dir = new_dir();
	write_record(dir, &sp);
	if (record_load(dir, &ds, &cause) != 0)
		fail_msg("record_load: %s", cause);
	assert_null(ds->hosts[0].slurm);
	dataset_free(ds);
	rm_dir(dir);

	sp.alloc_node = "n1";
	sp.alloc_addr = "169.254.213.2";
	sp.alloc_job = "12";
	sp.release = 1;
	dir = new_dir();
	write_record(dir, &sp);
	if (record_load(dir, &ds, &cause) != 0)
		fail_msg("record_load: %s", cause);
	assert_non_null(ds->hosts[0].slurm);
	assert_string_equal(ds->hosts[0].slurm->node, "n1");
	assert_string_equal(ds->hosts[0].slurm->node_addr, "169.254.213.2");
	assert_string_equal(ds->hosts[0].slurm->job_id, "12");
	assert_int_equal(ds->hosts[0].slurm->released, 1);
	assert_int_equal(ds->hosts[0].slurm->node_cpus, 8);
	assert_string_equal(ds->hosts[0].slurm->node_features, "zen4,avx512");
	assert_string_equal(ds->hosts[0].slurm->node_arch, "");
	dataset_free(ds);
	if (report_render(dir, 0, NULL, NULL, &cause) != 0)
		fail_msg("report_render: %s", cause);
	assert_non_null(strstr(get_file(dir, "report.md"), "- Slurm: host "
	    "`local` ran on node `n1` (job 12, component 0, partition `epyc`, "
	    "cluster `lab`, released)\n"));
	assert_non_null(strstr(get_file(dir, "summary.json"), "\"slurm\": "
	    "{\"cluster\": \"lab\", \"job_id\": \"12\", \"component\": 0, "
	    "\"node\": \"n1\", \"partition\": \"epyc\"}"));
	rm_dir(dir);

	sp.alloc_features = "a;reboot";
	sp.release = 0;
	expect_render(&sp, "field 'node_features'");
	sp.alloc_features = NULL;
	for (i = 0; i < NELEM(bad); i++) {
		sp.alloc_node = bad[i].node;
		sp.alloc_addr = bad[i].addr;
		sp.alloc_job = bad[i].job;
		sp.alloc_twice = bad[i].twice;
		sp.release = 0;
		expect_render(&sp, bad[i].want);
	}
}

/* 2^32-1 rounds made R + 1 wrap to 0: cells[round] was out of bounds. */
static void
test_rounds_wrap(void **state)
{
	struct spec	sp;

	(void)state;
	spec_default(&sp);
	sp.rounds = 0xFFFFFFFFULL;
	sp.nsamples = 3;
	sp.round = 3;
	sp.seq = 5;
	expect_render(&sp, "record 0: field 'rounds' 4294967295 is out of "
	    "range (at most 100000)");
	sp.rounds = 1ULL << 32;
	expect_render(&sp, "record 0: field 'rounds' 4294967296 is out of "
	    "range");
	sp.rounds = 0;
	expect_render(&sp, "record 0: field 'rounds' is 0");
	/* The most a suite allows, with 3 samples: renders, quickly. */
	sp.rounds = 100000;
	expect_render(&sp, NULL);
}

/* A sample's round past the run's rounds. */
static void
test_round_beyond(void **state)
{
	struct spec	sp;
	const char	*err;
	char		*dir;

	(void)state;
	spec_default(&sp);
	sp.round = 7;
	/* run, host, 4 rounds of 2 samples, then the last pair: skipped. */
	err = render_warnings(&sp, &dir);
	if (strstr(err, "record 10: a sample of host local for round 7, "
	    "beyond the run's rounds (5): skipped") == NULL)
		fail_msg("warnings: \"%s\"", err);
	rm_dir(dir);
	sp.round = 1ULL << 32;
	err = render_warnings(&sp, &dir);
	if (strstr(err, "record 11: a sample of host local for round "
	    "4294967296, beyond") == NULL)
		fail_msg("warnings: \"%s\"", err);
	rm_dir(dir);
}

/*
 * A hostile agent's sample (round + 1000, step 2^32-1) that an older orch
 * stored: the record still loads, the other host's report renders, and
 * the warning names the file and the record.
 */
static void
test_forged_sample(void **state)
{
	struct spec	 sp;
	const char	*err;
	char		*dir, want[1200];

	(void)state;
	spec_default(&sp);
	sp.hosts[1] = "evil";
	sp.forged = 1;
	err = render_warnings(&sp, &dir);
	snprintf(want, sizeof want, "%s/%s: record 13: a sample of host evil "
	    "for round 1005, beyond the run's rounds (5): skipped", dir,
	    RECORD_FILE);
	if (strstr(err, want) == NULL)
		fail_msg("warnings: \"%s\", want \"%s\"", err, want);
	if (strstr(get_file(dir, "report.md"), "local") == NULL)
		fail_msg("report.md names no host local");
	assert_int_equal(strcmp(get_file(dir, "report.md"), OLD_REPORT) != 0,
	    1);
	rm_dir(dir);
}

/*
 * The record an older orch wrote of a real run against a hostile agent
 * (hostile --agent forged: its third sample of round 1001, step 2^32-1)
 * loads: the forged sample is skipped, named, and the report renders the
 * eight others.
 */
static void
test_forged_fixture(void **state)
{
	static char	 warn[8192];
	char		*dir = new_dir(), *cause = NULL, path[1100], want[1200];
	char		 buf[65536];
	FILE		*in, *out;
	size_t		 n;
	int		 saved, fd;

	(void)state;
	assert_non_null(in = fopen(FORGED_FIXTURE, "rb"));
	snprintf(path, sizeof path, "%s/%s", dir, RECORD_FILE);
	assert_non_null(out = fopen(path, "wb"));
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
	snprintf(path, sizeof path, "%s/.stderr", dir);
	fflush(stderr);
	saved = dup(2);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved != -1 && fd != -1);
	dup2(fd, 2);
	close(fd);
	if (report_render(dir, 0, NULL, NULL, &cause) != 0)
		fail_msg("refused: %s", cause);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	assert_non_null(in = fopen(path, "r"));
	n = fread(warn, 1, sizeof warn - 1, in);
	warn[n] = '\0';
	fclose(in);
	unlink(path);
	snprintf(want, sizeof want, "%s/%s: record 8: a sample of host local "
	    "for round 1001, beyond the run's rounds (4): skipped", dir,
	    RECORD_FILE);
	if (strstr(warn, want) == NULL)
		fail_msg("warnings: \"%s\", want \"%s\"", warn, want);
	/* 8 samples of 2 variants in 4 rounds: 8 wall_ns lines. */
	if (strstr(get_file(dir, "samples.csv"), ",1001,") != NULL)
		fail_msg("samples.csv holds the forged sample");
	assert_non_null(strstr(get_file(dir, "summary.json"), "\"local\""));
	rm_dir(dir);
}

/* Counters and codes out of their types' range. */
static void
test_ranges(void **state)
{
	struct spec	sp;

	(void)state;
	spec_default(&sp);
	sp.seq = 1ULL << 32;
	expect_render(&sp, "record 11: field 'seq' 4294967296 is out of "
	    "range (at most 4294967295)");
	spec_default(&sp);
	sp.exit_code = (int64_t)1 << 40;
	expect_render(&sp, "record 11: field 'exit' 1099511627776 is out of "
	    "range");
	spec_default(&sp);
	sp.cores = 1e300;
	expect_render(&sp, "record 1: field 'cores' 1e+300 is out of range");
}

/*
 * A sample's env_pad: samples.csv's last column, empty in a record without
 * it; past PROTO_ENV_PAD_MAX the record is refused naming the field.
 */
static void
test_env_pad(void **state)
{
	struct spec	 sp;
	char		*dir, *cause = NULL;
	const char	*csv;

	(void)state;
	spec_default(&sp);
	dir = new_dir();
	write_record(dir, &sp);
	assert_int_equal(report_render(dir, 0, NULL, NULL, &cause), 0);
	csv = get_file(dir, "samples.csv");
	assert_non_null(strstr(csv, ",metric,value,env_pad\n"));
	assert_non_null(strstr(csv, ",wall_ns,1000051,\n"));
	rm_dir(dir);
	sp.env_pad = 4096;
	dir = new_dir();
	write_record(dir, &sp);
	assert_int_equal(report_render(dir, 0, NULL, NULL, &cause), 0);
	csv = get_file(dir, "samples.csv");
	assert_non_null(strstr(csv, ",wall_ns,1000051,4096\n"));
	assert_non_null(strstr(csv, ",ops,1.5,4096\n"));
	assert_non_null(strstr(csv, ",load1,0.50,4096\n"));
	rm_dir(dir);
	sp.env_pad = PROTO_ENV_PAD_MAX + 1;
	expect_render(&sp, "record 2: field 'env_pad' 65537 is out of "
	    "range (at most 65536)");
}

/* Names that are not identifiers, wherever they enter. */
static void
test_names(void **state)
{
	static const char *const bad[] = {
		"..", "x;id>PWNED;#", "-rf", ".hidden", "a/b", "",
		"a b", "tab\there", "\x1b[2J",
		"0123456789012345678901234567890123456789012345678901234567890123",
	};
	struct spec	 sp;
	size_t		 i;
	char		 want[128];

	(void)state;
	for (i = 0; i < NELEM(bad); i++) {
		print_message("name \"%s\"\n", bad[i]);
		spec_default(&sp);
		sp.run_id = bad[i];
		expect_render(&sp, "record 0: field 'run_id' ");
		spec_default(&sp);
		sp.hosts[1] = bad[i];
		expect_render(&sp, "record 0: field 'hosts' ");
		spec_default(&sp);
		sp.variant_b = bad[i];
		expect_render(&sp, "record 0: field 'variants' ");
		spec_default(&sp);
		sp.bench = bad[i];
		expect_render(&sp, "record 0: field 'benches.name' ");
		spec_default(&sp);
		sp.metric = bad[i];
		expect_render(&sp, "record 0: field 'benches.metrics' ");
		spec_default(&sp);
		sp.host = bad[i];
		sp.hosts[0] = "other";
		expect_render(&sp, "record 1: field 'host' ");
		spec_default(&sp);
		sp.mkey = bad[i];
		/* An empty key is the one an agent could never send either. */
		snprintf(want, sizeof want, "record 2: field 'metrics' ");
		expect_render(&sp, want);
	}
	/* The message shows the name, with anything unprintable as '?'. */
	spec_default(&sp);
	sp.run_id = "x;id>PWNED;#";
	expect_render(&sp, "field 'run_id' 'x;id>PWNED;#' is not a valid "
	    "name");
	spec_default(&sp);
	sp.run_id = "\x1b[2J";
	expect_render(&sp, "field 'run_id' '?[2J' is not a valid name");
}

/* A name twice where names index arrays. */
static void
test_duplicates(void **state)
{
	struct spec	sp;

	(void)state;
	spec_default(&sp);
	sp.variant_b = "A";
	expect_render(&sp, "record 0: field 'variants': 'A' twice");
	spec_default(&sp);
	sp.dup_metric = "wall_ns";
	expect_render(&sp, "metric 'wall_ns' twice");
}

/*
 * A record claiming 2^32-1 entries in a few bytes: msgpack-c would
 * allocate for all of them (96 GiB) on reading the header. It cannot end
 * within the file, so it is a record cut short: ignored, the rest loads.
 */
static void
test_huge_count(void **state)
{
	static const unsigned char	 huge[] = {
		0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1, 't', 0xa6, 's', 'a', 'm'
	};
	struct spec			 sp;
	struct dataset			*ds = NULL;
	char				*dir = new_dir(), *cause = NULL;
	char				 path[1024];
	FILE				*f;

	(void)state;
	spec_default(&sp);
	write_record(dir, &sp);
	snprintf(path, sizeof path, "%s/%s", dir, RECORD_FILE);
	assert_non_null(f = fopen(path, "ab"));
	assert_int_equal(fwrite(huge, 1, sizeof huge, f), sizeof huge);
	assert_int_equal(fclose(f), 0);
	if (record_load(dir, &ds, &cause) != 0)
		fail_msg("record_load: %s", cause);
	assert_int_equal(ds->truncated, 1);
	assert_int_equal(ds->nsamples, 2 * sp.nsamples);
	dataset_free(ds);
	if (report_render(dir, 0, NULL, NULL, &cause) != 0)
		fail_msg("report_render: %s", cause);
	rm_dir(dir);
}

/*
 * Text from the record in report.md: it cannot close its code span or
 * fence, or start a link or an image (which a viewer would fetch).
 */
static void
test_markdown(void **state)
{
	struct spec	 sp;
	char		*dir = new_dir(), *cause = NULL;
	const char	*md;

	(void)state;
	spec_default(&sp);
	sp.cmdline = "orch run` ![pixel](https://evil.example/p.png) `x";
	sp.orch_version = "[click](https://evil.example/)";
	sp.suite_text = "[suite]\n```\n# Injected heading\n";
	write_record(dir, &sp);
	if (report_render(dir, 0, NULL, NULL, &cause) != 0)
		fail_msg("report_render: %s", cause);
	md = get_file(dir, "report.md");
	if (strstr(md, "- orch \\[click\\](https://evil.example/);") == NULL)
		fail_msg("orch_version not escaped:\n%s", md);
	if (strstr(md, "- command: ``orch run` ![pixel](https://evil.example/"
	    "p.png) `x``\n") == NULL)
		fail_msg("command not in a code span of its own:\n%s", md);
	if (strstr(md, "\n````ini\n[suite]\n```\n# Injected heading\n"
	    "````\n") == NULL)
		fail_msg("suite text not fenced:\n%s", md);
	rm_dir(dir);
}

/*
 * Every free-text field of a host in report.md: its os, kernel and agent
 * version in the hosts' table, its CPU in the failed hosts' banner, each
 * escaped (they were written as they came: raw HTML in the page).
 */
static void
test_markdown_facts(void **state)
{
	struct spec	 sp;
	char		*dir = new_dir(), *cause = NULL;
	const char	*md, *at, *bad[] = { "<img", "<script", "[x](" };
	size_t		 i;

	(void)state;
	spec_default(&sp);
	sp.os = "<img src=x onerror=alert(1)>";
	sp.kernel = "<script>alert(2)</script>";
	sp.agent_version = "[x](https://evil.example/)";
	sp.cpu_model = "![p](https://evil.example/p.png) <b>";
	sp.host_failed = "lost";
	write_record(dir, &sp);
	if (report_render(dir, 0, NULL, NULL, &cause) != 0)
		fail_msg("report_render: %s", cause);
	md = get_file(dir, "report.md");
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		for (at = md; (at = strstr(at, bad[i])) != NULL; at++)
			if (at == md || at[-1] != '\\')
				fail_msg("'%s' unescaped in report.md: "
				    "...%.60s", bad[i], at > md + 40 ?
				    at - 40 : md);
	if (strstr(md, "\\<img src=x") == NULL ||
	    strstr(md, "\\<script>") == NULL ||
	    strstr(md, "\\[x\\](https://evil.example/)") == NULL ||
	    strstr(md, "- `local` (x86_64 · !\\[p\\](https://evil.example/"
	    "p.png) \\<b>): lost\n") == NULL)
		fail_msg("facts not escaped as record text:\n%s", md);
	rm_dir(dir);
}

/*
 * A benchmark's stderr of any bytes (\377\376) reaches summary.json as
 * valid UTF-8 (they were copied raw into the failure's text).
 */
static void
test_json_utf8(void **state)
{
	struct spec	 sp;
	char		*dir = new_dir(), *cause = NULL;
	const char	*js, *p;
	size_t		 n;

	(void)state;
	spec_default(&sp);
	sp.exit_code = 1;
	sp.err = "boom \377\376 \xc2\x9b end";
	write_record(dir, &sp);
	if (report_render(dir, 0, NULL, NULL, &cause) != 0)
		fail_msg("report_render: %s", cause);
	js = get_file(dir, "summary.json");
	for (p = js; *p != '\0'; p += n)
		if ((n = tty_utf8_len(p)) == 0)
			fail_msg("summary.json: not UTF-8 at byte %zu: ...%.40s",
			    (size_t)(p - js), p > js + 20 ? p - 20 : js);
	if (strstr(js, "boom \\ufffd\\ufffd \xc2\x9b end") == NULL)
		fail_msg("the stderr tail is not in summary.json:\n%s", js);
	rm_dir(dir);
}

/* ---- writing into a run directory ------------------------------------ */

/* The report files and their temporaries' old names. */
static const char *const rendered[] = {
	"samples.csv", "summary.json", "report.md", "report.html"
};

/* Fails unless dir/name is a regular file (not a link) of mode 0600. */
static void
expect_private(const char *dir, const char *name)
{
	struct stat	st;
	char		path[1024];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (lstat(path, &st) == -1)
		fail_msg("%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		fail_msg("%s is not a regular file", path);
	if ((st.st_mode & 07777) != 0600)
		fail_msg("%s has mode %o, want 600", path,
		    (unsigned)(st.st_mode & 07777));
}

/*
 * Links planted at the temporaries' names and at the report files
 * themselves: nothing is written through them, the files they point at
 * stay as they were, and the reports are written, mode 0600.
 */
static void
test_symlinks(void **state)
{
	struct spec	 sp;
	char		*dir = new_dir(), *victims = new_dir(), *cause = NULL;
	char		 link[1024], victim[1024], tmpname[128];
	size_t		 i;

	(void)state;
	spec_default(&sp);
	write_record(dir, &sp);
	for (i = 0; i < NELEM(rendered); i++) {
		snprintf(tmpname, sizeof tmpname, "tmp-%s", rendered[i]);
		put_file(victims, tmpname, "victim\n");
		put_file(victims, rendered[i], "victim\n");
		snprintf(victim, sizeof victim, "%s/%s", victims, tmpname);
		snprintf(link, sizeof link, "%s/.%s.tmp", dir, rendered[i]);
		assert_int_equal(symlink(victim, link), 0);
		snprintf(victim, sizeof victim, "%s/%s", victims, rendered[i]);
		snprintf(link, sizeof link, "%s/%s", dir, rendered[i]);
		assert_int_equal(symlink(victim, link), 0);
	}
	if (report_render(dir, 0, NULL, NULL, &cause) != 0)
		fail_msg("report_render: %s", cause);
	for (i = 0; i < NELEM(rendered); i++) {
		snprintf(tmpname, sizeof tmpname, "tmp-%s", rendered[i]);
		assert_string_equal(get_file(victims, tmpname), "victim\n");
		assert_string_equal(get_file(victims, rendered[i]),
		    "victim\n");
		expect_private(dir, rendered[i]);
		/* The planted links are left alone, not removed. */
		snprintf(link, sizeof link, "%s/.%s.tmp", dir, rendered[i]);
		assert_int_equal(unlink(link), 0);
	}
	no_temporaries(dir);
	rm_dir(dir);
	rm_dir(victims);
}

/* The record is created 0600, never through a link planted for it. */
static void
test_record_create(void **state)
{
	struct record	 rec;
	char		*dir = new_dir(), *victims = new_dir(), *cause = NULL;
	char		 link[1024], victim[1024];

	(void)state;
	assert_int_equal(record_open(&rec, dir, &cause), 0);
	assert_int_equal(record_close(&rec, "2026-01-15T10:00:00Z"), 0);
	expect_private(dir, RECORD_FILE);
	rm_dir(dir);

	dir = new_dir();
	put_file(victims, "victim", "victim\n");
	snprintf(victim, sizeof victim, "%s/victim", victims);
	snprintf(link, sizeof link, "%s/%s", dir, RECORD_FILE);
	assert_int_equal(symlink(victim, link), 0);
	assert_int_not_equal(record_open(&rec, dir, &cause), 0);
	free(cause);
	cause = NULL;
	/* Resuming appends: a link is refused there too. */
	assert_int_not_equal(record_reopen(&rec, dir, 0, &cause), 0);
	free(cause);
	assert_string_equal(get_file(victims, "victim"), "victim\n");
	rm_dir(dir);
	rm_dir(victims);
}

/* A FIFO planted as the record is refused at once, not waited on. */
static void
test_record_fifo(void **state)
{
	char	*dir = new_dir(), *cause = NULL, path[1024];

	(void)state;
	snprintf(path, sizeof path, "%s/%s", dir, RECORD_FILE);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_not_equal(report_render(dir, 0, NULL, NULL, &cause), 0);
	if (strstr(cause, "not a regular file") == NULL)
		fail_msg("got \"%s\"", cause);
	free(cause);
	rm_dir(dir);
}

/* ---- resuming --------------------------------------------------------- */

#define AA_SUITE	"suites/aa.ini"

/* Loads the record of sp from a fresh directory and its resume suite. */
static int
resume_suite(const struct spec *sp, struct suite **s, char **cause)
{
	struct dataset	*ds = NULL;
	char		*dir = new_dir();
	int		 r;

	write_record(dir, sp);
	if (record_load(dir, &ds, cause) != 0)
		fail_msg("record_load: %s", *cause);
	r = run_resume_suite(ds, s, cause);
	dataset_free(ds);
	rm_dir(dir);
	return (r);
}

/*
 * orch run --resume=DIR runs the suite at the path the record names: only
 * a regular file (a FIFO there would block orch for ever) whose text is
 * the record's; otherwise the message names both SHA-256s.
 */
static void
test_resume_suite(void **state)
{
	struct spec	 sp;
	struct suite	*s = NULL;
	char		*dir = new_dir(), *cause = NULL, *text;
	char		 path[1024], want[256], was[PROTO_SHA_HEX];
	char		 now[PROTO_SHA_HEX];
	FILE		*f;
	long		 n;

	(void)state;
	assert_non_null(f = fopen(AA_SUITE, "r"));
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	assert_true((n = ftell(f)) > 0);
	rewind(f);
	assert_non_null(text = calloc(1, (size_t)n + 1));
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);

	/* The suite as the run started: it loads. */
	spec_default(&sp);
	sp.suite_path = AA_SUITE;
	sp.suite_text = text;
	if (resume_suite(&sp, &s, &cause) != 0)
		fail_msg("%s", cause);
	assert_non_null(s);
	suite_free(s);
	s = NULL;

	/* A FIFO: refused at once. */
	snprintf(path, sizeof path, "%s/suite.ini", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	sp.suite_path = path;
	assert_int_not_equal(resume_suite(&sp, &s, &cause), 0);
	assert_null(s);
	snprintf(want, sizeof want, "%s: not a regular file", path);
	if (strstr(cause, want) == NULL)
		fail_msg("got \"%s\"", cause);
	free(cause);
	cause = NULL;
	assert_int_equal(unlink(path), 0);

	/* Another text at that path: refused, naming both hashes. */
	put_file(dir, "suite.ini", text);
	sp.suite_text = "[suite]\nname = other\n";
	assert_int_not_equal(resume_suite(&sp, &s, &cause), 0);
	assert_null(s);
	assert_int_equal(hash_buf(text, strlen(text), now), 0);
	assert_int_equal(hash_buf(sp.suite_text, strlen(sp.suite_text), was),
	    0);
	snprintf(want, sizeof want, "(SHA-256 now %s, at the start %s)", now,
	    was);
	if (strstr(cause, want) == NULL)
		fail_msg("got \"%s\"", cause);
	free(cause);
	cause = NULL;

	/* Text shown on the terminal: no control characters. */
	spec_default(&sp);
	sp.started = "2026\x1b]0;owned\x07";
	expect_render(&sp, "record 0: field 'started' is empty, too long or "
	    "has control characters");
	/* A path with control characters is refused where it enters. */
	sp.suite_path = "suites/\x1b[2Jaa.ini";
	expect_render(&sp, "record 0: field 'suite_path' is empty, too long "
	    "or has control characters");
	free(text);
	rm_dir(dir);
}

/* Packs e by t and unpacks it into u, the caller's to destroy. */
static void
entry_round(const struct entry_type *t, const void *e, msgpack_sbuffer *sb,
    msgpack_unpacked *u)
{
	msgpack_packer	pk;

	msgpack_sbuffer_init(sb);
	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	entry_pack(&pk, t, e);
	msgpack_unpacked_init(u);
	assert_int_equal(msgpack_unpack_next(u, sb->data, sb->size, NULL),
	    MSGPACK_UNPACK_SUCCESS);
}

/*
 * The sample's table (coordinator/store/entry.c): its built-in metrics
 * are ds_builtin_names, in order; what is written reads back; without any
 * required field, the entry is refused naming it.
 */
static void
test_entry_table(void **state)
{
	const struct entry_type		*t = &entry_sample_type;
	const struct entry_field	*bad;
	struct proto_metric		 m = { "ops", 2.5 };
	struct entry_sample		 e, r;
	msgpack_sbuffer			 sb;
	msgpack_unpacked		 u;
	msgpack_object_kv		 kv;
	size_t				 i, j, n;

	(void)state;
	for (i = 0; i < DS_NBUILTIN; i++) {
		for (j = 0; j < t->n; j++) {
			if (t->tab[j].off == offsetof(struct entry_sample,
			    builtin) + i * sizeof e.builtin[0])
				break;
		}
		assert_true(j < t->n);
		assert_string_equal(t->tab[j].name, ds_builtin_names[i]);
	}
	memset(&e, 0, sizeof e);
	e.host = entry_s("h1");
	e.bench = entry_s("b");
	e.variant = entry_s("A");
	e.round = 3;
	e.exit_code = -2;
	e.load1 = 0.5;
	e.builtin[0] = 1234;
	e.err = entry_s("");
	e.metrics = &m;
	e.nmetrics = 1;
	e.checksum = entry_s("abc");
	e.has_checksum = ENTRY_HAS;
	e.env_pad = 4096;
	e.has_env_pad = ENTRY_HAS;
	entry_round(t, &e, &sb, &u);
	assert_int_equal(u.data.via.map.size, 24);
	assert_int_equal(entry_read(t, &u.data, &r, &bad), 0);
	assert_int_equal(r.has_env_pad, ENTRY_HAS);
	assert_int_equal(r.env_pad, 4096);
	e.has_env_pad = ENTRY_ABSENT;
	msgpack_unpacked_destroy(&u);
	msgpack_sbuffer_destroy(&sb);
	entry_round(t, &e, &sb, &u);
	assert_int_equal(u.data.via.map.size, 23);
	assert_int_equal(entry_read(t, &u.data, &r, &bad), 0);
	assert_true(entry_is(&r.host, "h1") && entry_is(&r.checksum, "abc"));
	assert_int_equal(r.has_checksum, ENTRY_HAS);
	assert_int_equal(r.round, 3);
	assert_int_equal(r.exit_code, -2);
	assert_true(r.load1 == 0.5 && r.builtin[0] == 1234);
	assert_non_null(r.metrics_o);
	assert_int_equal(r.metrics_o->via.map.size, 1);
	/* Each required field dropped in turn (moved past the end). */
	n = u.data.via.map.size;
	for (i = 1; i < n; i++) {
		kv = u.data.via.map.ptr[i];
		for (j = 0; j < t->n; j++) {
			if (kv.key.via.str.size == strlen(t->tab[j].name) &&
			    memcmp(kv.key.via.str.ptr, t->tab[j].name,
			    kv.key.via.str.size) == 0)
				break;
		}
		assert_true(j < t->n);
		u.data.via.map.ptr[i] = u.data.via.map.ptr[n - 1];
		u.data.via.map.ptr[n - 1] = kv;
		u.data.via.map.size = (uint32_t)n - 1;
		if (t->tab[j].how == ENTRY_REQ && t->tab[j].kind != ENTRY_SUB) {
			assert_int_equal(entry_read(t, &u.data, &r, &bad), -1);
			assert_ptr_equal(bad, &t->tab[j]);
		} else
			assert_int_equal(entry_read(t, &u.data, &r, &bad), 0);
		u.data.via.map.size = (uint32_t)n;
		u.data.via.map.ptr[n - 1] = u.data.via.map.ptr[i];
		u.data.via.map.ptr[i] = kv;
	}
	/* Without its checksum, the entry has one key less. */
	e.has_checksum = ENTRY_ABSENT;
	msgpack_unpacked_destroy(&u);
	msgpack_sbuffer_destroy(&sb);
	entry_round(t, &e, &sb, &u);
	assert_int_equal(u.data.via.map.size, 22);
	assert_int_equal(entry_read(t, &u.data, &r, &bad), 0);
	assert_int_equal(r.has_checksum, ENTRY_ABSENT);
	msgpack_unpacked_destroy(&u);
	msgpack_sbuffer_destroy(&sb);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_slurm_alloc),
		cmocka_unit_test(test_rounds_wrap),
		cmocka_unit_test(test_round_beyond),
		cmocka_unit_test(test_forged_sample),
		cmocka_unit_test(test_forged_fixture),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_env_pad),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_huge_count),
		cmocka_unit_test(test_markdown),
		cmocka_unit_test(test_markdown_facts),
		cmocka_unit_test(test_json_utf8),
		cmocka_unit_test(test_symlinks),
		cmocka_unit_test(test_record_create),
		cmocka_unit_test(test_record_fifo),
		cmocka_unit_test(test_resume_suite),
		cmocka_unit_test(test_entry_table),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
