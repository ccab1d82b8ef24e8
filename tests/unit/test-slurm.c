/*
 * Unit tests for coordinator/hosts/slurm.c: reading `scontrol show -o`
 * fields and names back as untrusted text, and, against the real test
 * cluster (tests/lab/slurm.sh; tests/e2e/t-slurm-lab.sh runs this with
 * ORCH_SLURM_LAB=1 and SLURM_CONF set), allocating, verifying and
 * releasing a node, the refusal of a FORCE:2 partition, a bad partition
 * and a controller that accepts and never answers. Without the cluster the live
 * tests are skipped. A login host that refuses the connection fails every
 * command, naming the cluster, the login host and the command, quickly.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "coordinator/hosts/inventory.h"
#include "coordinator/hosts/slurm-login.h"
#include "coordinator/hosts/slurm.h"
#include "proto/util.h"

/* scontrol -o fields: first token, later ones, missing, twice, too long. */
static void
test_field(void **state)
{
	const char	*t = "JobId=12 JobName=orch-x JobState=RUNNING "
			    "NodeList=n1 OverSubscribe=NO XNodeList=zz "
			    "Comment=a NodeList2=q";
	char		 v[16];

	(void)state;
	assert_int_equal(slurm_field(t, "JobId", v, sizeof v), 0);
	assert_string_equal(v, "12");
	assert_int_equal(slurm_field(t, "NodeList", v, sizeof v), 0);
	assert_string_equal(v, "n1");
	assert_int_equal(slurm_field(t, "Comment", v, sizeof v), 0);
	assert_string_equal(v, "a");
	assert_int_equal(slurm_field(t, "Partition", v, sizeof v), -1);
	assert_int_equal(slurm_field(t, "JobName", v, 4), -3);
	/* A value that smuggles " OverSubscribe=NO" in is caught. */
	assert_int_equal(slurm_field("JobName=a OverSubscribe=NO "
	    "OverSubscribe=YES", "OverSubscribe", v, sizeof v), -2);
	assert_int_equal(slurm_field("", "JobId", v, sizeof v), -1);
	assert_int_equal(slurm_field("JobId=", "JobId", v, sizeof v), 0);
	assert_string_equal(v, "");
	assert_int_equal(slurm_field("JobId=7\nNext=1", "JobId", v, sizeof v),
	    0);
	assert_string_equal(v, "7");
}

/* Names read back: the plain characters only, no leading '-'. */
static void
test_word(void **state)
{
	(void)state;
	assert_true(slurm_word_ok("n1", "", 64));
	assert_true(slurm_word_ok("node-1.lab_x", "", 64));
	assert_true(slurm_word_ok("FORCE:2", ":", 64));
	assert_false(slurm_word_ok("FORCE:2", "", 64));
	assert_false(slurm_word_ok("", "", 64));
	assert_false(slurm_word_ok("-oProxyCommand=x", "", 64));
	assert_false(slurm_word_ok("n1;rm", "", 64));
	assert_false(slurm_word_ok("n 1", "", 64));
	assert_false(slurm_word_ok("n1\n", "", 64));
	assert_false(slurm_word_ok("n[1-2]", "", 64));
	assert_false(slurm_word_ok("abcd", "", 4));
	assert_true(slurm_word_ok("abc", "", 4));
}

/* squeue's ID|NODE|PARTITION|STATE line: ours, one, plain words only. */
static void
test_parse_job(void **state)
{
	static const char *const bad[] = {
		"13|n1|epyc|RUNNING",		/* another job */
		"12|n1|epyc|RUNNING\n12|n2|epyc|RUNNING",	/* two lines */
		"12|n1;reboot|epyc|RUNNING",
		"12|$(id)|epyc|RUNNING",
		"12|-oProxyCommand=x|epyc|RUNNING",
		"12|n1|epyc",
		"12|n1|epyc|RUNNING|x",
		"12|n[1-2]|epyc|RUNNING",	/* more than one node */
		"12||epyc|RUNNING",
		"12|n1|ep yc|RUNNING",
		"12|n1234567890123456789012345678901234567890123456789012345"
		    "67890123456|epyc|RUNNING",	/* over 63 bytes */
		"",
	};
	struct slurm_job	 job;
	char			 text[256], st[32];
	size_t			 i;

	(void)state;
	memset(&job, 0, sizeof job);
	snprintf(job.id, sizeof job.id, "12");
	snprintf(text, sizeof text, "12|n1|epyc|RUNNING\n");
	assert_int_equal(slurm_parse_job(text, &job, st, sizeof st), 0);
	assert_string_equal(job.node, "n1");
	assert_string_equal(job.partition, "epyc");
	assert_string_equal(st, "RUNNING");
	/* A heterogeneous job: squeue -j lists every component. */
	snprintf(job.id, sizeof job.id, "12+1");
	snprintf(text, sizeof text, "12+1|n2|arm|RUNNING\n"
	    "12+0|n1|epyc|RUNNING\n");
	assert_int_equal(slurm_parse_job(text, &job, st, sizeof st), 0);
	assert_string_equal(job.node, "n2");
	assert_string_equal(job.partition, "arm");
	snprintf(job.id, sizeof job.id, "12+1");
	snprintf(text, sizeof text, "12+1|n2|arm|RUNNING\n12+0|n1;x|epyc|"
	    "RUNNING\n");
	assert_int_equal(slurm_parse_job(text, &job, st, sizeof st), -1);
	assert_string_equal(job.node, "");
	snprintf(text, sizeof text, "12+1|n2|arm|RUNNING\n12+x|n1|epyc|"
	    "RUNNING\n");
	assert_int_equal(slurm_parse_job(text, &job, st, sizeof st), -1);
	snprintf(text, sizeof text, "12+0|n1|epyc|RUNNING\n");
	assert_int_equal(slurm_parse_job(text, &job, st, sizeof st), -1);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(&job, 0, sizeof job);
		snprintf(job.id, sizeof job.id, "12");
		snprintf(text, sizeof text, "%s", bad[i]);
		if (slurm_parse_job(text, &job, st, sizeof st) == 0)
			fail_msg("took '%s'", bad[i]);
		assert_string_equal(job.node, "");
	}
}

/* salloc's refusal of a heterogeneous job, told from other errors. */
static void
test_het_refused(void **state)
{
	(void)state;
	assert_true(slurm_het_refused("salloc: error: Heterogeneous job "
	    "support is disabled"));
	assert_true(slurm_het_refused("salloc: error: HetJob not allowed"));
	/* A job_submit plugin's words, then salloc's own line. */
	assert_true(slurm_het_refused("salloc: error: Heterogeneous jobs are "
	    "disabled here\nsalloc: error: Job submit/allocate failed: "
	    "Unspecified error"));
	assert_false(slurm_het_refused("salloc: error: invalid partition "
	    "specified: nope"));
	assert_false(slurm_het_refused("salloc: error: Unable to allocate "
	    "resources: Connection timed out"));
}

/* NodeAddr from scontrol show node -o: once, of the node, an address. */
static void
test_node_addr(void **state)
{
	static const char *const bad[] = {
		"NodeName=n1 NodeAddr=10.0.0.1 NodeAddr=10.6.6.6 State=IDLE",
		"NodeName=n2 NodeAddr=10.0.0.1 State=IDLE",	/* not ours */
		"NodeName=n1 NodeHostName=n1 State=IDLE",	/* none */
		"NodeName=n1 NodeAddr=$(reboot) State=IDLE",
		"NodeName=n1 NodeAddr=-oProxyCommand=x State=IDLE",
		"NodeName=n1 NodeAddr=a;b State=IDLE",
		"NodeName=n1 NodeAddr=../x State=IDLE",
		"NodeName=n1 NodeAddr= State=IDLE",
		"NodeName=n1 NodeAddr=n1234567890123456789012345678901 "
		    "State=IDLE",			/* over 31 bytes */
		"NodeName=n1 Comment=x NodeName=n1 NodeAddr=10.0.0.1",
	};
	char	addr[32];
	size_t	i;

	(void)state;
	assert_int_equal(slurm_parse_node_addr("NodeName=n1 Arch=x86_64 "
	    "CoresPerSocket=1 NodeAddr=169.254.213.2 NodeHostName=n1 "
	    "State=IDLE\n", "n1", addr, sizeof addr), 0);
	assert_string_equal(addr, "169.254.213.2");
	assert_int_equal(slurm_parse_node_addr("NodeName=n1 NodeAddr=fe80::1 "
	    "State=IDLE", "n1", addr, sizeof addr), 0);
	assert_string_equal(addr, "fe80::1");
	assert_int_equal(slurm_parse_node_addr("NodeName=n1 "
	    "NodeAddr=node1.lab.example State=IDLE", "n1", addr, sizeof addr),
	    0);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (slurm_parse_node_addr(bad[i], "n1", addr, sizeof addr) == 0)
			fail_msg("took '%s' as %s", bad[i], addr);
		assert_string_equal(addr, "");
	}
	assert_true(slurm_addr_ok("10.0.0.1", 32));
	assert_false(slurm_addr_ok(".x", 32));
	assert_false(slurm_addr_ok("a b", 32));
	{
		struct slurm_node_facts	f;

		slurm_parse_node_facts("NodeName=n1 Arch=x86_64 CoresPerSocket"
		    "=1 CPUTot=8 RealMemory=15000 AvailableFeatures=zen4,avx512"
		    " NodeAddr=10.0.0.1", &f);
		assert_int_equal(f.cpus, 8);
		assert_int_equal(f.mem_mb, 15000);
		assert_string_equal(f.arch, "x86_64");
		assert_string_equal(f.features, "zen4,avx512");
		/* Twice, hostile or absent: unknown, never trusted. */
		slurm_parse_node_facts("NodeName=n1 CPUTot=8 CPUTot=9 "
		    "RealMemory=1e9 Arch=$(id) AvailableFeatures=(null)", &f);
		assert_int_equal(f.cpus, 0);
		assert_int_equal(f.mem_mb, 0);
		assert_string_equal(f.arch, "");
		assert_string_equal(f.features, "");
		slurm_parse_node_facts("AvailableFeatures=a;reboot CPUTot="
		    "99999999999999999999", &f);
		assert_string_equal(f.features, "");
		assert_int_equal(f.cpus, 0);
	}
	slurm_workdir(addr, sizeof addr, "n1");
	assert_string_equal(addr, "~/.orch/node-n1");
}

/* Skips the test unless the test cluster is up. */
static void
need_lab(void)
{
	const char	*v = getenv("ORCH_SLURM_LAB");

	if (v == NULL || strcmp(v, "1") != 0 || getenv("SLURM_CONF") == NULL)
		skip();
}

/* A cluster of login = local, bounds short enough for a test. */
static void
lab_cluster(struct inventory_slurm *c)
{
	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "lab");
	snprintf(c->login, sizeof c->login, "local");
	c->time_s = 600;
	c->wait_s = 5;
	c->timeout_s = 10;
}

/* True when squeue lists a job called name (any live state). */
static int
listed(const char *name)
{
	char	 cmd[256], buf[64];
	FILE	*f;
	int	 any;

	snprintf(cmd, sizeof cmd, "timeout 10 squeue -h -n %s -o %%i", name);
	assert_non_null(f = popen(cmd, "r"));
	any = fgets(buf, sizeof buf, f) != NULL;
	pclose(f);
	return (any);
}

/* epyc: a node of its own, verified, released; nothing left after. */
static void
test_lab_alloc(void **state)
{
	struct inventory_slurm		 c;
	struct inventory_slurm_node	 n;
	struct slurm_job		 job;
	char				*cause = NULL;

	(void)state;
	need_lab();
	lab_cluster(&c);
	memset(&n, 0, sizeof n);
	n.cluster = &c;
	n.partition = "epyc";
	if (slurm_alloc(&n, "e", "orch-unit-a", NULL, &job, &cause) != 0)
		fail_msg("%s", cause);
	assert_string_equal(job.node, "n1");
	assert_string_equal(job.partition, "epyc");
	assert_string_equal(job.name, "orch-unit-a");
	assert_true(strspn(job.id, "0123456789") == strlen(job.id));
	assert_true(listed("orch-unit-a"));
	if (slurm_verify_exclusive(&c, "e", &job, &cause) != 0)
		fail_msg("%s", cause);
	if (slurm_release(&c, "e", &job, &cause) != 0)
		fail_msg("%s", cause);
	assert_false(listed("orch-unit-a"));
	/* Released twice: scancel of a job that ended is no error. */
	if (slurm_release(&c, "e", &job, &cause) != 0) {
		assert_non_null(cause);
		free(cause);
	}
}

/*
 * forced (OverSubscribe=FORCE:2): two --exclusive jobs share n3, and
 * verifying either refuses it by host, job, node, the word exclusive and
 * the partition's setting.
 */
static void
test_lab_forced(void **state)
{
	struct inventory_slurm		 c;
	struct inventory_slurm_node	 n;
	struct slurm_job		 j1, j2;
	char				*cause = NULL, want[256];

	(void)state;
	need_lab();
	lab_cluster(&c);
	memset(&n, 0, sizeof n);
	n.cluster = &c;
	n.partition = "forced";
	if (slurm_alloc(&n, "f1", "orch-unit-f1", NULL, &j1, &cause) != 0)
		fail_msg("%s", cause);
	if (slurm_alloc(&n, "f2", "orch-unit-f2", NULL, &j2, &cause) != 0)
		fail_msg("%s", cause);
	assert_string_equal(j1.node, "n3");
	assert_string_equal(j2.node, "n3");
	assert_int_equal(slurm_verify_exclusive(&c, "f1", &j1, &cause), -1);
	snprintf(want, sizeof want, "f1: job %s on node n3 is not exclusive "
	    "(OverSubscribe=YES, 1 other job on the node; partition forced "
	    "has OverSubscribe=FORCE:2)", j1.id);
	assert_string_equal(cause, want);
	free(cause);
	assert_int_equal(slurm_release(&c, "f1", &j1, &cause), 0);
	assert_int_equal(slurm_release(&c, "f2", &j2, &cause), 0);
	assert_false(listed("orch-unit-f1"));
	assert_false(listed("orch-unit-f2"));
}

/* A partition Slurm does not know: refused by name, no job left. */
static void
test_lab_bad_partition(void **state)
{
	struct inventory_slurm		 c;
	struct inventory_slurm_node	 n;
	struct slurm_job		 job;
	char				*cause = NULL;

	(void)state;
	need_lab();
	lab_cluster(&c);
	memset(&n, 0, sizeof n);
	n.cluster = &c;
	n.partition = "nope";
	assert_int_equal(slurm_alloc(&n, "x", "orch-unit-x", NULL, &job, &cause),
	    -1);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "x: salloc -p nope: "));
	assert_non_null(strstr(cause, "nvalid partition"));
	free(cause);
	assert_false(listed("orch-unit-x"));
}

/*
 * A controller that does not answer: slurm.conf names a socket here that
 * listens and never accepts, so a client connects and waits for a reply
 * that never comes. Every call ends within its bound (the cluster's
 * timeout, plus wait for salloc) and says so.
 */
static void
test_lab_no_controller(void **state)
{
	struct inventory_slurm		 c;
	struct inventory_slurm_node	 n;
	struct slurm_job		 job;
	struct sockaddr_in		 sin;
	socklen_t			 sl = sizeof sin;
	const char			*conf = getenv("SLURM_CONF");
	char				*cause = NULL, *copy, path[64], cmd[512];
	int64_t				 t0, took;
	int				 fd, s;

	(void)state;
	need_lab();
	assert_true((s = socket(AF_INET, SOCK_STREAM, 0)) != -1);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(s, (struct sockaddr *)&sin, sizeof sin), 0);
	assert_int_equal(listen(s, 16), 0);
	assert_int_equal(getsockname(s, (struct sockaddr *)&sin, &sl), 0);
	assert_non_null(copy = strdup(conf));
	snprintf(path, sizeof path, "/tmp/test-slurm.XXXXXX");
	assert_true((fd = mkstemp(path)) != -1);
	close(fd);
	snprintf(cmd, sizeof cmd, "sed -e 's/^SlurmctldPort=.*/SlurmctldPort="
	    "%u/' -e 's/^SlurmctldHost=\\([^(]*\\)(.*/SlurmctldHost=\\1"
	    "(127.0.0.1)/' %s > %s", ntohs(sin.sin_port), conf, path);
	assert_int_equal(system(cmd), 0);
	setenv("SLURM_CONF", path, 1);
	lab_cluster(&c);
	c.timeout_s = 2;
	c.wait_s = 1;
	memset(&n, 0, sizeof n);
	n.cluster = &c;
	n.partition = "epyc";
	t0 = util_now_ms();
	assert_int_equal(slurm_alloc(&n, "e", "orch-unit-z", NULL, &job, &cause),
	    -1);
	took = util_now_ms() - t0;
	assert_non_null(strstr(cause, "e: salloc -p epyc: "));
	free(cause);
	/* salloc's bound (wait + timeout), then scancel's (timeout). */
	if (took < 3000 || took > 3000 + 2000 + 2 * 2000 + 2000)
		fail_msg("took %lld ms, want 3 to 9 s", (long long)took);
	t0 = util_now_ms();
	snprintf(job.id, sizeof job.id, "1");
	assert_int_equal(slurm_release(&c, "e", &job, &cause), -1);
	took = util_now_ms() - t0;
	assert_non_null(strstr(cause, "e: scancel 1: "));
	free(cause);
	if (took < 2000 || took > 2000 + 2000 + 2000)
		fail_msg("scancel took %lld ms, want 2 to 6 s",
		    (long long)took);
	close(s);
	setenv("SLURM_CONF", copy, 1);
	free(copy);
	unlink(path);
	assert_false(listed("orch-unit-z"));
}

/* ssh.c's messages start with the host's name; ours name it already. */
static void
test_login_unnamed(void **state)
{
	(void)state;
	assert_string_equal(slurm_login_unnamed("L: unknown host key", "L"),
	    "unknown host key");
	assert_string_equal(slurm_login_unnamed("L2: x", "L"), "L2: x");
	assert_string_equal(slurm_login_unnamed("L:x", "L"), "L:x");
	assert_string_equal(slurm_login_unnamed("cannot connect", "L"),
	    "cannot connect");
	assert_string_equal(slurm_login_unnamed("L: ", ""), "L: ");
}

/*
 * login = L, an inventory host whose port refuses: orch check and an
 * allocation fail at once, naming the cluster, L and the command.
 */
static void
test_login_refused(void **state)
{
	struct inventory_slurm		c;
	struct inventory_slurm_node	n;
	struct slurm_job		job;
	char				path[] = "/tmp/test-slurm-inv.XXXXXX";
	char				out[512], *cause = NULL;
	int64_t				t0;
	int				fd, excl;
	FILE				*f;

	(void)state;
	assert_true((fd = mkstemp(path)) != -1);
	assert_non_null(f = fdopen(fd, "w"));
	fprintf(f, "[host.L]\naddress = 127.0.0.1\nport = 1\n"
	    "user = nobody\n");
	fclose(f);
	slurm_login_inventory(path);
	memset(&c, 0, sizeof c);
	snprintf(c.name, sizeof c.name, "lab");
	snprintf(c.login, sizeof c.login, "L");
	c.timeout_s = 5;
	c.wait_s = 5;
	c.time_s = 60;
	memset(&n, 0, sizeof n);
	n.cluster = &c;
	n.partition = "epyc";
	t0 = util_now_ms();
	assert_int_equal(slurm_check(&n, "e", out, sizeof out, &excl, &cause),
	    -1);
	assert_string_equal(cause, "cluster lab: login host L: scontrol: "
	    "cannot connect to 127.0.0.1 port 1: Connection refused");
	free(cause);
	cause = NULL;
	assert_int_equal(slurm_alloc(&n, "e", "orch-unit-l", NULL, &job,
	    &cause), -1);
	assert_string_equal(cause, "cluster lab: login host L: salloc: "
	    "cannot connect to 127.0.0.1 port 1: Connection refused");
	free(cause);
	if (util_now_ms() - t0 > 3000)
		fail_msg("took %lld ms, want < 3 s",
		    (long long)(util_now_ms() - t0));
	slurm_login_close();
	slurm_login_inventory(NULL);
	inventory_forget();
	unlink(path);
}

/* Runs argv on the lab's login host L; returns its status, err in err. */
static int
login_status(const struct inventory_slurm *c, const char *cmd, char *err,
    size_t errlen)
{
	char	*argv[] = { (char *)(uintptr_t)"sh", (char *)(uintptr_t)"-c",
		    (char *)(uintptr_t)cmd, NULL };
	char	 out[256], *cause = NULL;
	int	 status = -1;

	if (slurm_login_run(c, argv, "sh", 20000, NULL, out, sizeof out, err,
	    errlen, &status, &cause) != 0)
		fail_msg("slurm_login_run: %s", cause);
	return (status);
}

/*
 * Through the lab's login host (ORCH_SLURM_LOGIN_INV: an inventory naming
 * it L; t-slurm-lab sets it): a command killed by a signal there is no
 * success (libssh2 says exit status 0 for it), and its stderr ends with
 * the signal's name; exit statuses pass as they are.
 */
static void
test_login_killed(void **state)
{
	struct inventory_slurm	 c;
	const char		*inv = getenv("ORCH_SLURM_LOGIN_INV");
	char			 err[256];
	size_t			 n;

	(void)state;
	if (inv == NULL || *inv == '\0')
		skip();
	slurm_login_inventory(inv);
	memset(&c, 0, sizeof c);
	snprintf(c.name, sizeof c.name, "lab");
	snprintf(c.login, sizeof c.login, "L");
	c.timeout_s = 10;
	assert_int_equal(login_status(&c, "true", err, sizeof err), 0);
	assert_string_equal(err, "");
	assert_int_equal(login_status(&c, "echo no >&2; exit 3", err,
	    sizeof err), 3);
	assert_string_equal(err, "no\n");
	assert_int_equal(login_status(&c, "echo dying >&2; kill -KILL $$",
	    err, sizeof err), 128 + 9);
	assert_string_equal(err, "dying\nkilled by signal KILL");
	assert_int_equal(login_status(&c, "printf x >&2; kill -TERM $$", err,
	    sizeof err), 128 + 15);
	assert_string_equal(err, "x\nkilled by signal TERM");
	/* A full stderr gives way to the signal's line. */
	assert_int_equal(login_status(&c, "head -c 300 /dev/zero | tr '\\0' "
	    "e >&2; kill -KILL $$", err, 64), 128 + 9);
	n = strlen(err);
	assert_int_equal(n, 63);
	assert_string_equal(err + n - 22, "\nkilled by signal KILL");
	slurm_login_close();
	slurm_login_inventory(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_field),
		cmocka_unit_test(test_word),
		cmocka_unit_test(test_parse_job),
		cmocka_unit_test(test_node_addr),
		cmocka_unit_test(test_het_refused),
		cmocka_unit_test(test_login_unnamed),
		cmocka_unit_test(test_login_refused),
		cmocka_unit_test(test_login_killed),
		cmocka_unit_test(test_lab_alloc),
		cmocka_unit_test(test_lab_forced),
		cmocka_unit_test(test_lab_bad_partition),
		cmocka_unit_test(test_lab_no_controller),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
