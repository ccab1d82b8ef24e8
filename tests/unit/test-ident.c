/*
 * One machine, one host (issue 32): hosts that share a machine.
 *
 * The geometric mean on synthetic records written through the real record
 * writer: hosts a and b of one machine, B twice as slow as A on both, and
 * host c of another machine where B is as fast as A. Counted as one
 * machine, a and b average their log ratios first: the mean is sqrt(2),
 * not 2^(2/3) (three hosts counted apart, as in a record without machine
 * ids, which still loads). The record keeps 16 hex digits of the hash;
 * the report's note names the hosts that share a machine. The agent's
 * side: the journal of another host name, and its run lock, are refused.
 */
#include <sys/stat.h>

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

#include "agent/journal.h"
#include "agent/workdir.h"
#include "coordinator/analysis/analysis.h"
#include "coordinator/analysis/rng.h"
#include "coordinator/hosts/host.h"
#include "coordinator/report/report-machines.h"
#include "coordinator/store/record.h"
#include "tests/unit/synth.h"

#define ROUNDS	12
#define MACH_A	"aaaaaaaaaaaaaaaa0123456789abcdef0123456789abcdef0123456789abcdef"
#define MACH_C	"cccccccccccccccc0123456789abcdef0123456789abcdef0123456789abcdef"

/*
 * Writes a record of hosts a, b and c (one bench, B / A = 2 on a and b,
 * 1 on c, noise of sd 0.01 from a fixed seed); with ids, a and b say one
 * machine and c another.
 */
static void
gen_shared(const char *dir, int ids)
{
	static const char *const	 names[3] = { "a", "b", "c" };
	static const double		 eff[3] = { 2, 2, 1 };
	struct record			 rec;
	struct synth_suite		 ss;
	struct proto_sample		 smp;
	struct host			 h[3];
	struct rng			 r;
	char				*cause = NULL;
	uint32_t			 round, seq = 0;
	size_t				 i;

	assert_int_equal(synth_suite(&ss, "shared", 2, 1, ROUNDS, 1), 0);
	for (i = 0; i < 3; i++) {
		synth_host(&h[i], names[i], "x86_64", "Synthetic", 2);
		if (ids)
			snprintf(h[i].facts.machine, sizeof h[i].facts.machine,
			    "%s", i < 2 ? MACH_A : MACH_C);
	}
	rng_seed(&r, 7);
	if (synth_open(&rec, dir, "20260101-000000-ident", &ss.s,
	    "orch run shared.ini", h, 3, &cause) != 0)
		fail_msg("%s", cause);
	for (i = 0; i < 3; i++)
		assert_int_equal(record_host(&rec, &h[i]), 0);
	for (round = 1; round <= ROUNDS; round++) {
		for (i = 0; i < 3; i++) {
			synth_elapsed(&smp, seq++, round, 2000000, 1e6 *
			    exp(0.01 * synth_gauss(&r)));
			assert_int_equal(record_sample(&rec, names[i],
			    ss.bs[0].name, ss.vars[0].name, &smp), 0);
			synth_elapsed(&smp, seq++, round, 2000000, 1e6 *
			    eff[i] * exp(0.01 * synth_gauss(&r)));
			assert_int_equal(record_sample(&rec, names[i],
			    ss.bs[0].name, ss.vars[1].name, &smp), 0);
		}
	}
	assert_int_equal(synth_close(&rec, h, 3), 0);
}

/* Loads gen_shared's record; returns its geometric mean of B. */
static double
shared_geo(int ids, char **note)
{
	struct dataset		*ds;
	struct analysis		*a;
	const struct rep_geo	*geo;
	char			*dir, *cause = NULL, *buf = NULL;
	size_t			 len = 0;
	double			 est;
	FILE			*f;

	assert_non_null(dir = synth_tmpdir_new("ident"));
	gen_shared(dir, ids);
	if (synth_load(dir, &ds, &a, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(a->ngroups, 1);
	assert_non_null(geo = analysis_geo(a, 0, 1));
	assert_int_equal(geo->nused, 3);
	est = geo->est;
	/* The record keeps 16 hex digits of the hash; none when none. */
	assert_string_equal(ds->hosts[0].facts.machine, ids ?
	    "aaaaaaaaaaaaaaaa" : "");
	assert_int_equal(analysis_same_machine(ds, 0, 1), ids);
	assert_int_equal(analysis_same_machine(ds, 0, 2), 0);
	assert_non_null(f = open_memstream(&buf, &len));
	report_machines_shared_text(f, a);
	fclose(f);
	*note = buf;
	analysis_free(a);
	dataset_free(ds);
	synth_tmpdir_free(dir);
	return (est);
}

/* Hosts of one machine count once in the geometric mean. */
static void
test_geo_by_machine(void **state)
{
	char	*note;
	double	 est;

	(void)state;
	est = shared_geo(1, &note);
	if (fabs(log(est) - log(2) / 2) > 0.02)
		fail_msg("one machine counted once: geomean %g, want %g", est,
		    sqrt(2));
	assert_non_null(strstr(note, "a and b share a machine"));
	assert_null(strstr(note, "and c"));
	free(note);

	/* Without ids (an older record): three machines, 2^(2/3). */
	est = shared_geo(0, &note);
	if (fabs(log(est) - 2 * log(2) / 3) > 0.02)
		fail_msg("three machines: geomean %g, want %g", est,
		    pow(2, 2.0 / 3));
	assert_string_equal(note, "");
	free(note);
}

/* The journal and the run lock of another host name are refused. */
static void
test_other_host(void **state)
{
	struct journal_progress	 pr;
	struct proto_plan	 plan;
	struct proto_step	 steps[1];
	struct proto_cmd	 cmd;
	char			*dir, rundir[256], path[300], why[512];
	int			 fd, lock;

	(void)state;
	assert_non_null(dir = synth_tmpdir_new("ident"));
	snprintf(rundir, sizeof rundir, "%s/runs", dir);
	assert_int_equal(mkdir(rundir, 0700), 0);
	snprintf(rundir, sizeof rundir, "%s/runs/r1", dir);
	assert_int_equal(mkdir(rundir, 0700), 0);
	memset(&plan, 0, sizeof plan);
	memset(steps, 0, sizeof steps);
	memset(&cmd, 0, sizeof cmd);
	strcpy(cmd.bench, "hash");
	memset(cmd.exe, 'a', PROTO_SHA_HEX - 1);
	plan.ncmds = 1;
	plan.cmds = &cmd;
	plan.nsteps = 1;
	plan.steps = steps;
	plan.resume_seq = -1;

	fd = journal_open(rundir, "r1", "h1", &plan, &pr, NULL, NULL, why,
	    sizeof why);
	assert_true(fd != -1);
	close(fd);
	journal_progress_free(&pr);
	/* The same host takes it up again; another is refused. */
	fd = journal_open(rundir, "r1", "h1", &plan, &pr, NULL, NULL, why,
	    sizeof why);
	assert_true(fd != -1);
	close(fd);
	journal_progress_free(&pr);
	fd = journal_open(rundir, "r1", "h1b", &plan, &pr, NULL, NULL, why,
	    sizeof why);
	assert_int_equal(fd, -1);
	assert_non_null(strstr(why, "journal of host h1 of run r1, not of "
	    "host h1b"));
	journal_progress_free(&pr);

	/* The lock names its host; another host of the run never takes it. */
	lock = workdir_lock(dir, "r1", "h1", WORKDIR_TAKE_ASK, why,
	    sizeof why);
	assert_true(lock >= 0);
	assert_int_equal(workdir_lock(dir, "r1", "h1b",
	    WORKDIR_TAKE_ASK, why, sizeof why), -2);
	assert_non_null(strstr(why, "host h1b is the same machine and "
	    "workdir"));
	assert_non_null(strstr(why, ", host h1, "));
	close(lock);

	snprintf(path, sizeof path, "%s/journal", rundir);
	unlink(path);
	rmdir(rundir);
	snprintf(path, sizeof path, "%s/run.lock", dir);
	unlink(path);
	snprintf(rundir, sizeof rundir, "%s/runs", dir);
	rmdir(rundir);
	synth_tmpdir_free(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_geo_by_machine),
		cmocka_unit_test(test_other_host),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
