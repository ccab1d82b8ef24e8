/* Unit tests of agent/journal.c: records written, read back and resumed. */
#include <sys/stat.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/journal.h"

static char			dir[64];
static char			rundir[96];
static char			path[128];
static struct proto_step	steps[2];
static struct proto_cmd		cmd;
static struct proto_plan	plan;
static int			nresent;

static void
resent(const struct proto_msg *msg, void *arg)
{
	(void)arg;
	assert_int_equal(msg->type, PROTO_SAMPLE);
	nresent++;
}

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/test-journal.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(rundir, sizeof rundir, "%s/runs", dir);
	assert_int_equal(mkdir(rundir, 0700), 0);
	snprintf(rundir, sizeof rundir, "%s/runs/r1", dir);
	assert_int_equal(mkdir(rundir, 0700), 0);
	snprintf(path, sizeof path, "%s/journal", rundir);
	memset(&plan, 0, sizeof plan);
	memset(steps, 0, sizeof steps);
	memset(&cmd, 0, sizeof cmd);
	strcpy(cmd.bench, "hash");
	memset(cmd.exe, 'a', PROTO_SHA_HEX - 1);
	plan.ncmds = 1;
	plan.cmds = &cmd;
	plan.nsteps = 2;
	plan.steps = steps;
	plan.retries = 1;
	plan.resume_seq = -1;
	nresent = 0;
	return (0);
}

static int
teardown(void **state)
{
	char	runs[96];

	(void)state;
	unlink(path);
	rmdir(rundir);
	snprintf(runs, sizeof runs, "%s/runs", dir);
	rmdir(runs);
	rmdir(dir);
	return (0);
}

/* Returns the size of the journal file. */
static off_t
size(void)
{
	struct stat	st;

	assert_int_equal(stat(path, &st), 0);
	return (st.st_size);
}

/* Opens the run's journal, which must open; resend gets what it resends. */
static int
reopen(struct journal_progress *pr, journal_resend_cb resend)
{
	char	why[256];
	int	fd;

	fd = journal_open(rundir, "r1", "", &plan, pr, resend, NULL, why,
	    sizeof why);
	if (fd == -1)
		fail_msg("journal_open: %s", why);
	return (fd);
}

/* Closes a journal reopen() opened. */
static void
finish(int fd, struct journal_progress *pr)
{
	close(fd);
	journal_progress_free(pr);
}

/* Journals a sample as the agent does: the bytes its frame seals. */
static void
result(int fd, const struct proto_msg *msg)
{
	uint8_t	*buf;
	size_t	 len;

	assert_int_equal(proto_encode(msg, &buf, &len), 0);
	assert_int_equal(journal_result(fd, buf, len), 0);
	free(buf);
}

/* Journals one whole attempt of step with status. */
static void
attempt(int fd, uint32_t step, uint32_t att, uint32_t seq, uint8_t status)
{
	struct proto_msg	msg;

	assert_int_equal(journal_started(fd, step, att), 0);
	assert_int_equal(journal_running(fd, step, att, 4242, "4242:77"), 0);
	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_SAMPLE;
	msg.u.sample.seq = seq;
	msg.u.sample.step = step;
	msg.u.sample.attempt = att;
	msg.u.sample.status = status;
	result(fd, &msg);
}

static void
test_new_then_resume(void **state)
{
	struct journal_progress	pr;
	int			fd;

	(void)state;
	fd = reopen(&pr, resent);
	assert_false(pr.resumed);
	assert_int_equal(pr.last_seq, -1);
	attempt(fd, 0, 1, 0, PROTO_ST_OK);
	assert_int_equal(journal_started(fd, 1, 1), 0);
	assert_int_equal(journal_running(fd, 1, 1, 99, ""), 0);
	finish(fd, &pr);

	fd = reopen(&pr, resent);
	assert_true(pr.resumed);
	assert_int_equal(pr.nsamples, 1);
	assert_int_equal(pr.last_seq, 0);
	assert_int_equal(nresent, 1);
	assert_true(journal_step_done(&plan, &pr, 0));
	assert_false(journal_step_done(&plan, &pr, 1));
	assert_int_equal(pr.started[1], 1);
	assert_int_equal(pr.pid[0], 4242);
	assert_string_equal(pr.ident[0], "4242:77");
	assert_int_equal(pr.pid[1], 99);
	assert_string_equal(pr.ident[1], "");
	finish(fd, &pr);
	assert_int_equal(journal_count(dir, "r1"), 1);
	assert_int_equal(journal_count(dir, "r2"), -1);
}

static void
test_resume_seq(void **state)
{
	struct journal_progress	pr;
	int			fd;

	(void)state;
	fd = reopen(&pr, resent);
	attempt(fd, 0, 1, 0, PROTO_ST_OK);
	attempt(fd, 1, 1, 1, PROTO_ST_OK);
	finish(fd, &pr);
	/* The coordinator has seq 0: only seq 1 goes again. */
	plan.resume_seq = 0;
	fd = reopen(&pr, resent);
	assert_int_equal(nresent, 1);
	assert_int_equal(pr.nsamples, 2);
	finish(fd, &pr);
}

static void
test_signal_retried(void **state)
{
	struct journal_progress	pr;
	int			fd;

	(void)state;
	fd = reopen(&pr, NULL);
	attempt(fd, 0, 1, 0, PROTO_ST_SIGNAL);
	finish(fd, &pr);
	fd = reopen(&pr, NULL);
	/* retries = 1: a second attempt is due. */
	assert_false(journal_step_done(&plan, &pr, 0));
	attempt(fd, 0, 2, 1, PROTO_ST_SIGNAL);
	finish(fd, &pr);
	fd = reopen(&pr, NULL);
	assert_true(journal_step_done(&plan, &pr, 0));
	finish(fd, &pr);
}

/* The bytes on disk are the format PROTOCOL.md and old journals use. */
static void
test_layout(void **state)
{
	struct journal_progress	pr;
	static const uint8_t	want[] = {
		'S', 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 1, 2,
		'C', 0, 0, 0, 14, 0, 0, 0, 1, 0, 0, 1, 2, 0, 1, 0, 3, 'a', 'b'
	};
	uint8_t			got[sizeof want];
	off_t			base;
	int			fd;

	(void)state;
	fd = reopen(&pr, NULL);
	base = size();
	assert_int_equal(base, 5 + PROTO_SHA_HEX - 1);
	assert_int_equal(journal_started(fd, 1, 258), 0);
	assert_int_equal(journal_running(fd, 1, 258, 65539, "ab"), 0);
	assert_int_equal(pread(fd, got, sizeof got, base), (ssize_t)sizeof got);
	assert_memory_equal(got, want, sizeof want);
	finish(fd, &pr);
}

/*
 * A sample's record is 'R', its length and the SAMPLE message as
 * proto_encode makes it: what the wire carries (test-proto pins those
 * bytes), and what a journal of an older agent holds.
 */
static void
test_sample_record(void **state)
{
	struct journal_progress	pr;
	struct proto_msg	msg;
	uint8_t			*want, *got, hdr[5];
	size_t			 len;
	off_t			 base;
	int			 fd;

	(void)state;
	fd = reopen(&pr, NULL);
	base = size();
	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_SAMPLE;
	msg.u.sample.seq = 7;
	msg.u.sample.step = 1;
	msg.u.sample.attempt = 2;
	msg.u.sample.wall_ns = 123456789;
	msg.u.sample.nmetrics = 1;
	strcpy(msg.u.sample.metrics[0].key, "ops");
	msg.u.sample.metrics[0].value = 2.5;
	assert_int_equal(proto_encode(&msg, &want, &len), 0);
	result(fd, &msg);
	assert_int_equal(size(), base + 5 + (off_t)len);
	assert_int_equal(pread(fd, hdr, sizeof hdr, base), (ssize_t)sizeof hdr);
	assert_int_equal(hdr[0], 'R');
	assert_int_equal((uint32_t)hdr[1] << 24 | (uint32_t)hdr[2] << 16 |
	    (uint32_t)hdr[3] << 8 | hdr[4], len);
	got = malloc(len);
	assert_non_null(got);
	assert_int_equal(pread(fd, got, len, base + 5), (ssize_t)len);
	assert_memory_equal(got, want, len);
	finish(fd, &pr);
	/* And it resumes: the sample is resent as it was journaled. */
	fd = reopen(&pr, resent);
	assert_int_equal(pr.nsamples, 1);
	assert_int_equal(pr.last_seq, 7);
	assert_int_equal(pr.ended[1], 2);
	assert_int_equal(nresent, 1);
	finish(fd, &pr);
	free(got);
	free(want);
}

static void
test_torn_record_dropped(void **state)
{
	struct journal_progress	pr;
	off_t			whole;
	int			fd;

	(void)state;
	fd = reopen(&pr, NULL);
	attempt(fd, 0, 1, 0, PROTO_ST_OK);
	whole = size();
	/* A crash in the middle of a record: its header and half a body. */
	assert_int_equal(write(fd, "R\0\0\1\0xyz", 8), 8);
	finish(fd, &pr);
	fd = reopen(&pr, NULL);
	assert_int_equal(size(), whole);
	assert_int_equal(pr.nsamples, 1);
	finish(fd, &pr);
	assert_int_equal(journal_count(dir, "r1"), 1);
}

static void
test_other_plan(void **state)
{
	struct journal_progress	pr;
	char			why[256];
	int			fd;

	(void)state;
	fd = reopen(&pr, NULL);
	finish(fd, &pr);
	plan.retries = 5;
	fd = journal_open(rundir, "r1", "", &plan, &pr, NULL, NULL, why,
	    sizeof why);
	assert_int_equal(fd, -1);
	assert_non_null(strstr(why, "holds another plan for run r1"));
	journal_progress_free(&pr);
	/* What differs between a run and its resume is not the plan. */
	plan.retries = 1;
	plan.resume_seq = 7;
	fd = reopen(&pr, NULL);
	finish(fd, &pr);
}

/*
 * An open plan's grants: journaled, the largest one (never beyond the
 * plan) and a final one come back on a resume; the grant is not part of
 * the plan's identity, so a resume granted less is the same plan.
 */
static void
test_grants(void **state)
{
	struct journal_progress	pr;
	int			fd;

	(void)state;
	plan.granted = 1;
	fd = reopen(&pr, NULL);
	assert_int_equal(pr.granted, 0);
	assert_int_equal(journal_granted(fd, 2, 0), 0);
	assert_int_equal(journal_granted(fd, 1, 0), 0);
	assert_int_equal(journal_granted(fd, 99, 0), 0);	/* beyond */
	finish(fd, &pr);
	plan.granted = 2;
	fd = reopen(&pr, NULL);
	assert_int_equal(pr.granted, 2);
	assert_int_equal(pr.final, 0);
	assert_int_equal(journal_granted(fd, 2, 1), 0);
	finish(fd, &pr);
	plan.granted = 1;
	fd = reopen(&pr, NULL);
	assert_int_equal(pr.granted, 2);
	assert_int_equal(pr.final, 1);
	finish(fd, &pr);
	plan.granted = 0;
}

/*
 * A bench stopped after its first round ('K') comes back on a resume with
 * its words, so that the resumed agent skips its later rounds too; a
 * command beyond the plan is ignored.
 */
static void
test_stopped(void **state)
{
	struct journal_progress	pr;
	char			long_why[600];
	int			fd;

	(void)state;
	fd = reopen(&pr, NULL);
	assert_int_equal(pr.stopped[0], 0);
	assert_int_equal(journal_stopped(fd, 0, "stopped after round 1: "
	    "every attempt of A failed the same way: exit 1: no"), 0);
	assert_int_equal(journal_stopped(fd, 7, "beyond the plan"), 0);
	finish(fd, &pr);
	fd = reopen(&pr, NULL);
	assert_int_equal(pr.resumed, 1);
	assert_int_equal(pr.stopped[0], 1);
	assert_string_equal(pr.stop_why[0], "stopped after round 1: every "
	    "attempt of A failed the same way: exit 1: no");
	/* Words too long are cut, the record still read whole. */
	memset(long_why, 'x', sizeof long_why - 1);
	long_why[sizeof long_why - 1] = '\0';
	assert_int_equal(journal_stopped(fd, 0, long_why), 0);
	finish(fd, &pr);
	fd = reopen(&pr, NULL);
	assert_int_equal(strlen(pr.stop_why[0]), JOURNAL_STOP_WHY - 1);
	assert_int_equal(journal_step_done(&plan, &pr, 0), 0);
	finish(fd, &pr);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_new_then_resume, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_resume_seq, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_signal_retried, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_layout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_record, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_torn_record_dropped, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_other_plan, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_grants, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stopped, setup, teardown),
	};

	return (cmocka_run_group_tests_name("journal", tests, NULL, NULL));
}
