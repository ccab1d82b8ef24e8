/*
 * Unit tests of agent/exec.c: real programs (/bin/sh and tests/progs, found
 * through $ORCH_TEST_PROGS, default tests/progs/bin/<os>-<arch> from the
 * repository root) run under every outcome. Every run has a deadline, so
 * no test can hang.
 */
#ifdef __linux__
#define _GNU_SOURCE	/* sched_getaffinity, to check pinning */
#include <sched.h>
#endif
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/exec.h"
#include "agent/proc.h"
#include "proto/log.h"

#define MS	1000000LL	/* nanoseconds */

extern char **environ;

static char			 tmpdir[1024];	/* per-group scratch */
static char			 progdir[1024];
static struct proto_sample	 sample;

/* Returns CLOCK_MONOTONIC in nanoseconds. */
static int64_t
now_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec);
}

/* Returns the path of test program name, failing when it is not built. */
static char *
prog(const char *name)
{
	static char	path[4][PATH_MAX];
	static int	next;
	char		*p = path[next++ % 4];

	snprintf(p, PATH_MAX, "%s/%s", progdir, name);
	if (access(p, X_OK) == -1)
		fail_msg("test program %s is not built (make suites, or set "
		    "ORCH_TEST_PROGS): %s", p, strerror(errno));
	return (p);
}

/* Returns a path inside the scratch directory. */
static char *
tmp(const char *name)
{
	static char	path[4][PATH_MAX];
	static int	next;
	char		*p = path[next++ % 4];

	snprintf(p, PATH_MAX, "%s/%s", tmpdir, name);
	return (p);
}

/* The metric keys the tests' programs print (wall_ns: to be refused). */
static char *const default_keys[] = {
	"a", "after", "b", "before_crash", "bg", "child_pid", "cpus",
	"elapsed_ns", "f", "fds", "foo", "has_home", "n", "partial", "r",
	"ran", "ratio", "slept_ms", "survived", "touched_mb", "x", "y", "z",
	"wall_ns",
};
static char *const *mkeys = default_keys;
static size_t nmkeys = sizeof default_keys / sizeof default_keys[0];
static char *const after_key[] = { "after" };

/*
 * Fills a request with the defaults: our environment, a 20 s deadline,
 * the metric keys mkeys.
 */
static void
req_init(struct exec_req *req, char *const *argv)
{
	memset(req, 0, sizeof *req);
	req->argv = argv;
	req->mkeys = mkeys;
	req->nmkeys = nmkeys;
	req->envp = environ;
	req->timeout_ms = 20000;
	req->lifeline_fd = -1;
}

/* Runs `/bin/sh -c script` with the defaults and checksum_key. */
static int
run_sh(char *script, const char *checksum_key)
{
	char *const	 argv[] = { (char *)"/bin/sh", (char *)"-c", script,
	    NULL };
	struct exec_req	 req;

	req_init(&req, argv);
	req.checksum_key = checksum_key;
	return (exec_run(&req, &sample));
}

/* Returns the metric called key, failing the test when absent. */
static double
metric(const char *key)
{
	size_t	i;

	for (i = 0; i < sample.nmetrics; i++) {
		if (strcmp(sample.metrics[i].key, key) == 0)
			return (sample.metrics[i].value);
	}
	fail_msg("metric %s missing (err_tail \"%s\")", key, sample.err_tail);
	return (0);
}

/* Returns 1 when the sample has a metric called key. */
static int
has_metric(const char *key)
{
	size_t	i;

	for (i = 0; i < sample.nmetrics; i++) {
		if (strcmp(sample.metrics[i].key, key) == 0)
			return (1);
	}
	return (0);
}

/* Returns the reason exec_run gives for a death by sig (libc's words). */
static const char *
signal_reason(int sig)
{
	static char	buf[128];

	snprintf(buf, sizeof buf, "killed by signal %d (%s)", sig,
	    strsignal(sig));
	return (buf);
}

/*
 * Returns 1 when pid is gone within ms: no such process, or a zombie that
 * our pid 1 has not reaped yet (it is dead all the same).
 */
static int
gone(pid_t pid, int ms)
{
	struct timespec	 ts = { 0, 10 * 1000000L };
	char		 path[64], buf[512], *p;
	FILE		*f;
	int		 i, zombie;

	for (i = 0; i <= ms / 10; i++) {
		if (kill(pid, 0) == -1 && errno == ESRCH)
			return (1);
		zombie = 0;
		snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
		if ((f = fopen(path, "r")) != NULL) {
			if (fgets(buf, sizeof buf, f) != NULL &&
			    (p = strrchr(buf, ')')) != NULL && p[1] == ' ' &&
			    p[2] == 'Z')
				zombie = 1;
			fclose(f);
		}
		if (zombie)
			return (1);
		nanosleep(&ts, NULL);
	}
	return (0);
}

/* Kills pid if it is still there, so a failing test leaves nothing. */
static void
reap_stray(pid_t pid)
{
	if (pid > 1)
		kill(pid, SIGKILL);
}

/* Returns 1 when this process has no child at all, live or zombie. */
static int
no_children(void)
{
	return (waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD);
}

/* Returns how many descriptors below 1024 are open. */
static int
count_fds(void)
{
	int	fd, n = 0;

	for (fd = 0; fd < 1024; fd++) {
		if (fcntl(fd, F_GETFD) != -1)
			n++;
	}
	return (n);
}

/* Reads a pid a shell wrote into a scratch file; 0 when absent. */
static pid_t
read_pid(const char *name)
{
	FILE	*f;
	long	 pid = 0;

	if ((f = fopen(tmp(name), "r")) == NULL)
		return (0);
	if (fscanf(f, "%ld", &pid) != 1)
		pid = 0;
	fclose(f);
	return ((pid_t)pid);
}

static int
group_setup(void **state)
{
	struct utsname	 u;
	const char	*env = getenv("ORCH_TEST_PROGS");
	const char	*arch;

	(void)state;
	log_init("test-exec", LOG_WARN);
	if (exec_init() == -1)
		return (-1);
	if (env != NULL && *env != '\0')
		snprintf(progdir, sizeof progdir, "%s", env);
	else {
		if (uname(&u) == -1)
			return (-1);
		arch = strcmp(u.machine, "arm64") == 0 ? "aarch64" :
		    strcmp(u.machine, "amd64") == 0 ? "x86_64" : u.machine;
#ifdef __APPLE__
		snprintf(progdir, sizeof progdir, "tests/progs/bin/darwin-%s",
		    arch);
#else
		snprintf(progdir, sizeof progdir, "tests/progs/bin/linux-%s",
		    arch);
#endif
	}
	snprintf(tmpdir, sizeof tmpdir, "/tmp/orch-test-exec.XXXXXX");
	if (mkdtemp(tmpdir) == NULL)
		return (-1);
	return (0);
}

static int
group_teardown(void **state)
{
	DIR		*d;
	struct dirent	*de;

	(void)state;
	if ((d = opendir(tmpdir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") != 0 &&
			    strcmp(de->d_name, "..") != 0)
				unlink(tmp(de->d_name));
		}
		closedir(d);
	}
	rmdir(tmpdir);
	return (0);
}

/* Fills the sample with garbage, so that tests see what exec_run set. */
static int
dirty(void **state)
{
	(void)state;
	memset(&sample, 0xa5, sizeof sample);
	sample.nmetrics = 0;
	return (0);
}

static void
test_ok_metrics_checksum(void **state)
{
	struct timespec	rt;

	(void)state;
	sample.seq = 77;
	sample.round = 5;
	sample.nmetrics = 3;	/* left from an earlier run */
	assert_int_equal(run_sh("echo elapsed_ns=123; echo ' ratio = 1.5 ';"
	    " echo checksum=abc123; echo hello world; echo version=1.2.3",
	    "checksum"), 0);
	assert_int_equal(sample.status, PROTO_ST_OK);
	assert_int_equal(sample.exit_code, 0);
	assert_int_equal(sample.signal, 0);
	assert_int_equal(sample.nmetrics, 2);
	assert_true(metric("elapsed_ns") == 123.0);
	assert_true(metric("ratio") == 1.5);
	assert_int_equal(sample.has_checksum, 1);
	assert_string_equal(sample.checksum, "abc123");
	assert_string_equal(sample.err_tail, "");
	assert_true(sample.wall_ns > 0 && sample.wall_ns < 10000 * MS);
	clock_gettime(CLOCK_REALTIME, &rt);
	assert_true(sample.start_ns > ((int64_t)rt.tv_sec - 30) * 1000000000LL);
	assert_true(sample.start_ns <= ((int64_t)rt.tv_sec + 1) * 1000000000LL);
	/* Fields that are not measurements are left alone. */
	assert_int_equal(sample.seq, 77);
	assert_int_equal(sample.round, 5);
}

/*
 * A program that prints a built-in metric's name, or a bad number, fails
 * with the reason (its stderr tail gives way to it); ours is still kept.
 */
static void
test_bad_metric_lines(void **state)
{
	(void)state;
	assert_int_equal(run_sh("echo elapsed_ns=123; echo wall_ns=1; "
	    "echo oops >&2", NULL), 0);
	assert_int_equal(sample.status, PROTO_ST_FAILED);
	assert_int_equal(sample.exit_code, 0);
	assert_string_equal(sample.err_tail, "the program printed wall_ns=1, "
	    "which collides with orch's built-in metric wall_ns: rename it");
	assert_true(sample.wall_ns > 1 && sample.wall_ns < 10000 * MS);
	assert_int_equal(run_sh("echo elapsed_ns=NaN; echo elapsed_ns=1e999",
	    NULL), 0);
	assert_int_equal(sample.status, PROTO_ST_FAILED);
	/* The first bad line is the reason. */
	assert_string_equal(sample.err_tail, "metric elapsed_ns=NaN is not a "
	    "finite decimal number");
	/* A failure of its own keeps its own status and stderr. */
	assert_int_equal(run_sh("echo a=1; echo a=2; echo disk >&2; exit 3",
	    NULL), 0);
	assert_int_equal(sample.status, PROTO_ST_FAILED);
	assert_int_equal(sample.exit_code, 3);
	assert_string_equal(sample.err_tail, "disk\n");
}

static void
test_noop_clean_sample(void **state)
{
	char *const	argv[] = { prog("noop"), NULL };
	struct exec_req	req;

	(void)state;
	req_init(&req, argv);
	assert_int_equal(exec_run(&req, &sample), 0);
	assert_int_equal(sample.status, PROTO_ST_OK);
	assert_int_equal(sample.exit_code, 0);
	assert_int_equal(sample.signal, 0);
	assert_int_equal(sample.nmetrics, 0);
	assert_int_equal(sample.has_checksum, 0);
	assert_string_equal(sample.checksum, "");
	assert_string_equal(sample.err_tail, "");
	assert_true(sample.maxrss_kb > 0);
}

static void
test_last_line_without_newline(void **state)
{
	(void)state;
	assert_int_equal(run_sh("printf 'a=1\\nb=2'", NULL), 0);
	assert_int_equal(sample.status, PROTO_ST_OK);
	assert_true(metric("a") == 1.0);
	assert_true(metric("b") == 2.0);
	assert_int_equal(run_sh("printf 'x=1\\nsum=ff00'", "sum"), 0);
	assert_string_equal(sample.checksum, "ff00");
}

static void
test_exit_code_with_stderr(void **state)
{
	char *const	argv[] = { prog("failer"), (char *)"3", NULL };
	struct exec_req	req;

	(void)state;
	req_init(&req, argv);
	assert_int_equal(exec_run(&req, &sample), 0);
	assert_int_equal(sample.status, PROTO_ST_FAILED);
	assert_int_equal(sample.exit_code, 3);
	assert_int_equal(sample.signal, 0);
	assert_string_equal(sample.err_tail,
	    "failer: something went wrong, exiting with 3\n");
	/* What it printed before failing still counts. */
	assert_true(metric("partial") == 1.0);
}

static void
test_exit_code_without_stderr(void **state)
{
	(void)state;
	assert_int_equal(run_sh("exit 3", NULL), 0);
	assert_int_equal(sample.status, PROTO_ST_FAILED);
	assert_int_equal(sample.exit_code, 3);
	assert_string_equal(sample.err_tail, "exit code 3");
	/* 127 from a program that exists is just an exit code. */
	assert_int_equal(run_sh("exit 127", NULL), 0);
	assert_int_equal(sample.status, PROTO_ST_FAILED);
	assert_int_equal(sample.exit_code, 127);
	assert_string_equal(sample.err_tail, "exit code 127");
}

static void
test_sigsegv(void **state)
{
	char *const	argv[] = { prog("crash"), NULL };
	struct exec_req	req;

	(void)state;
	req_init(&req, argv);
	assert_int_equal(exec_run(&req, &sample), 0);
	assert_int_equal(sample.status, PROTO_ST_SIGNAL);
	assert_int_equal(sample.signal, SIGSEGV);
	assert_int_equal(sample.exit_code, 0);
	assert_string_equal(sample.err_tail, signal_reason(SIGSEGV));
#ifdef __linux__
	assert_string_equal(sample.err_tail,
	    "killed by signal 11 (Segmentation fault)");
#endif
	assert_true(metric("before_crash") == 1.0);
}

static void
test_default_signals(void **state)
{
	sigset_t	block, old;

	(void)state;
	/* We ignore SIGPIPE; the benchmark must not inherit that. */
	assert_int_equal(run_sh("kill -PIPE $$; echo survived=1", NULL), 0);
	assert_int_equal(sample.status, PROTO_ST_SIGNAL);
	assert_int_equal(sample.signal, SIGPIPE);
	assert_false(has_metric("survived"));
	/* Nor a blocked signal mask. */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	assert_int_equal(pthread_sigmask(SIG_BLOCK, &block, &old), 0);
	assert_int_equal(run_sh("kill -TERM $$; echo survived=1", NULL), 0);
	assert_int_equal(pthread_sigmask(SIG_SETMASK, &old, NULL), 0);
	assert_int_equal(sample.status, PROTO_ST_SIGNAL);
	assert_int_equal(sample.signal, SIGTERM);
	assert_string_equal(sample.err_tail, signal_reason(SIGTERM));
#ifdef __linux__
	assert_string_equal(sample.err_tail, "killed by signal 15 (Terminated)");
#endif
}

static void
test_timeout(void **state)
{
	char *const	argv[] = { prog("sleeper"), (char *)"10000",
	    NULL };
	struct exec_req	req;
	int64_t		t0, took;

	(void)state;
	req_init(&req, argv);
	req.timeout_ms = 300;
	t0 = now_ns();
	assert_int_equal(exec_run(&req, &sample), 0);
	took = now_ns() - t0;
	assert_int_equal(sample.status, PROTO_ST_TIMEOUT);
	assert_int_equal(sample.signal, SIGKILL);
	assert_true(sample.wall_ns >= 300 * MS);
	assert_true(sample.wall_ns < 3000 * MS);
	assert_true(took < 3000 * MS);
	assert_string_equal(sample.err_tail, "timed out after 300 ms");
	assert_false(has_metric("slept_ms"));
	assert_true(no_children());
}

static void
test_timeout_kills_group(void **state)
{
	char	script[1024];
	pid_t	bg;

	(void)state;
	/* A background sleeper holds stdout too: the deadline ends both. */
	snprintf(script, sizeof script, "%s 10000 & echo bg=$!; exec %s 10000",
	    prog("sleeper"), prog("sleeper"));
	{
		char *const	argv[] = { (char *)"/bin/sh", (char *)"-c",
		    script, NULL };
		struct exec_req	req;

		req_init(&req, argv);
		req.timeout_ms = 300;
		assert_int_equal(exec_run(&req, &sample), 0);
	}
	assert_int_equal(sample.status, PROTO_ST_TIMEOUT);
	bg = (pid_t)metric("bg");
	assert_true(bg > 1);
	if (!gone(bg, 30000)) {
		reap_stray(bg);
		fail_msg("background sleeper %ld survived", (long)bg);
	}
}

static void
test_grandchild_killed(void **state)
{
	char *const	argv[] = { prog("forker"), NULL };
	struct exec_req	req;
	int64_t		t0;
	pid_t		gc;

	(void)state;
	req_init(&req, argv);
	t0 = now_ns();
	assert_int_equal(exec_run(&req, &sample), 0);
	assert_true(now_ns() - t0 < 5000 * MS);
	assert_int_equal(sample.status, PROTO_ST_OK);
	gc = (pid_t)metric("child_pid");
	assert_true(gc > 1);
	if (!gone(gc, 30000)) {
		reap_stray(gc);
		fail_msg("grandchild %ld survived the run", (long)gc);
	}
	assert_true(no_children());
}

/*
 * Runs the daemonizer (forks, setsid, forks again) with timeout_ms, "hang"
 * when asked, and checks that its grandchild, which left the process group
 * and the session, does not outlive the run.
 */
static void
daemonizer_run(int hang, uint32_t timeout_ms, uint8_t want)
{
	char *const	argv[] = { prog("daemonizer"), tmp("daemon.pid"),
	    (char *)(hang ? "hang" : NULL), NULL };
	struct exec_req	req;
	pid_t		gc;

	unlink(tmp("daemon.pid"));
	req_init(&req, argv);
	req.timeout_ms = timeout_ms;
	assert_int_equal(exec_run(&req, &sample), 0);
	gc = read_pid("daemon.pid");
	unlink(tmp("daemon.pid"));
	if (gc <= 1)
		fail_msg("the daemonizer wrote no pid file (err_tail \"%s\")",
		    sample.err_tail);
	if (!gone(gc, 30000)) {
		reap_stray(gc);
		fail_msg("daemonized grandchild %ld survived the run",
		    (long)gc);
	}
	assert_int_equal(sample.status, want);
	assert_true(no_children());
}

static void
test_daemon_killed_at_end(void **state)
{
	(void)state;
	daemonizer_run(0, 20000, PROTO_ST_OK);
}

static void
test_daemon_killed_at_timeout(void **state)
{
	(void)state;
	daemonizer_run(1, 5000, PROTO_ST_TIMEOUT);
}

static void
test_proc_ident(void **state)
{
	char	a[PROC_IDENT_LEN], b[PROC_IDENT_LEN], c[PROC_IDENT_LEN];
	pid_t	pid;

	(void)state;
	/* Stable for one process, different for another, none for no one. */
	assert_int_equal(proc_ident(getpid(), a, sizeof a), 0);
	assert_int_equal(proc_ident(getpid(), b, sizeof b), 0);
	assert_string_equal(a, b);
	assert_true((pid = fork()) != -1);
	if (pid == 0) {
		sleep(10);
		_exit(0);
	}
	assert_int_equal(proc_ident(pid, c, sizeof c), 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_string_not_equal(a, c);
	assert_int_equal(proc_ident((pid_t)INT_MAX, c, sizeof c), -1);
}

/* What a spawned callback saw: its identity as told and as read. */
struct born_seen {
	int	calls;
	int	same;
	char	told[PROC_IDENT_LEN];
	char	read[PROC_IDENT_LEN];
};

static void
born_cb(long pid, const struct proc_born *born, void *arg)
{
	struct born_seen	*b = arg;

	b->calls++;
	if (proc_ident_born((pid_t)pid, born, b->told, sizeof b->told) == 0 &&
	    proc_ident((pid_t)pid, b->read, sizeof b->read) == 0 &&
	    strcmp(b->told, b->read) == 0)
		b->same++;
}

/*
 * A child's identity told from the clock around its spawn is the one read
 * from the OS, for every one of many children: by fork here and by
 * exec_run's own spawn (what the journal's C record holds). On Linux, a
 * window within one clock tick is taken as it is (no /proc read: a made-up
 * window gives a made-up start), and one across ticks is read.
 */
static void
test_proc_ident_born(void **state)
{
	char *const		argv[] = { prog("noop"), NULL };
	struct exec_req		req;
	struct born_seen	seen;
	struct proc_born	born;
	char			a[PROC_IDENT_LEN], b[PROC_IDENT_LEN];
	pid_t			pid;
	int			i, n = 200;

	(void)state;
	for (i = 0; i < n; i++) {
		born.lo = proc_born_clock();
		assert_true((pid = fork()) != -1);
		if (pid == 0) {
			pause();
			_exit(0);
		}
		born.hi = proc_born_clock();
		assert_int_equal(proc_ident_born(pid, &born, a, sizeof a), 0);
		assert_int_equal(proc_ident(pid, b, sizeof b), 0);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		assert_string_equal(a, b);
	}
	memset(&seen, 0, sizeof seen);
	req_init(&req, argv);
	req.spawned = born_cb;
	req.spawned_arg = &seen;
	for (i = 0; i < 50; i++)
		assert_int_equal(exec_run(&req, &sample), 0);
	assert_int_equal(seen.calls, 50);
	assert_int_equal(seen.same, 50);
#ifdef __linux__
	assert_true((pid = fork()) != -1);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	assert_int_equal(proc_ident(pid, b, sizeof b), 0);
	born.lo = born.hi = 1;		/* within the boot's first tick */
	assert_int_equal(proc_ident_born(pid, &born, a, sizeof a), 0);
	assert_non_null(strstr(a, " 0"));
	assert_string_not_equal(a, b);
	born.lo = 1;
	born.hi = proc_born_clock();	/* ticks apart: read */
	assert_int_equal(proc_ident_born(pid, &born, a, sizeof a), 0);
	assert_string_equal(a, b);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
#endif
}

static void
test_nonexistent_program(void **state)
{
	char *const	argv[] = { (char *)"/nonexistent/orch-prog", NULL };
	struct exec_req	req;

	(void)state;
	req_init(&req, argv);
	assert_int_equal(exec_run(&req, &sample), 0);
	assert_int_equal(sample.status, PROTO_ST_FAILED);
	/* glibc reports it from posix_spawn; under valgrind it is exit 127. */
	assert_non_null(strstr(sample.err_tail,
	    "cannot execute /nonexistent/orch-prog: No such file or directory"));
	assert_int_equal(sample.nmetrics, 0);
	assert_true(no_children());
}

static void
test_not_executable(void **state)
{
	char *const	argv[] = { tmp("plain.txt"), NULL };
	struct exec_req	req;
	int		fd;

	(void)state;
	assert_true((fd = open(tmp("plain.txt"), O_WRONLY | O_CREAT | O_TRUNC,
	    0644)) != -1);
	close(fd);
	req_init(&req, argv);
	assert_int_equal(exec_run(&req, &sample), 0);
	assert_int_equal(sample.status, PROTO_ST_FAILED);
	assert_non_null(strstr(sample.err_tail, "plain.txt: Permission denied"));
	unlink(tmp("plain.txt"));
}

static void
test_huge_output(void **state)
{
	int64_t	t0;
	size_t	len;

	(void)state;
	/*
	 * 50 MB of 100-byte lines (short enough to be parsed, few enough for
	 * valgrind), a 10 MB line, 3 MB of stderr: all bounded.
	 */
	/* Only after is named: the x=1 ... lines are output. */
	mkeys = after_key;
	nmkeys = 1;
	t0 = now_ns();
	assert_int_equal(run_sh("yes 'x=1 ......................................"
	    "..................................................' |"
	    " head -c 50000000;"
	    " head -c 10000000 /dev/zero | tr '\\0' a; echo;"
	    " echo after=7; yes e | head -c 3000000 >&2; echo END >&2", NULL),
	    0);
	mkeys = default_keys;
	nmkeys = sizeof default_keys / sizeof default_keys[0];
	assert_true(now_ns() - t0 < 20000 * MS);
	assert_int_equal(sample.status, PROTO_ST_OK);
	assert_int_equal(sample.nmetrics, 1);
	assert_true(metric("after") == 7.0);
	len = strlen(sample.err_tail);
	assert_int_equal(len, PROTO_TAIL_MAX - 1);
	assert_string_equal(sample.err_tail + len - 8, "e\ne\nEND\n");
	assert_string_equal(sample.err_tail + len - 12, "e\ne\ne\ne\nEND\n");
}

static void
test_long_line_skipped(void **state)
{
	(void)state;
	/* 5000 blanks then "x=1" is one over-long line, not a metric. */
	assert_int_equal(run_sh("printf '%5000s' ''; echo x=1; echo y=2;"
	    " printf '%4090s' ''; echo z=3", NULL), 0);
	assert_int_equal(sample.status, PROTO_ST_OK);
	assert_false(has_metric("x"));
	assert_true(metric("y") == 2.0);
	/* 4093 bytes fit in the line buffer. */
	assert_true(metric("z") == 3.0);
}

static void
test_stderr_tail_exact(void **state)
{
	char	expect[4096];
	size_t	len = 0;
	int	i;

	(void)state;
	for (i = 0; i < 300; i++)
		len += (size_t)snprintf(expect + len, sizeof expect - len,
		    "line%04d\n", i);
	assert_int_equal(len, 2700);
	assert_int_equal(run_sh("i=0; while [ $i -lt 300 ]; do"
	    " printf 'line%04d\\n' $i >&2; i=$((i+1)); done; exit 1", NULL), 0);
	assert_int_equal(sample.status, PROTO_ST_FAILED);
	assert_int_equal(sample.exit_code, 1);
	assert_int_equal(strlen(sample.err_tail), PROTO_TAIL_MAX - 1);
	assert_string_equal(sample.err_tail,
	    expect + len - (PROTO_TAIL_MAX - 1));
}

static void
test_env_and_cwd(void **state)
{
	char *const	 envp[] = { (char *)"FOO=42", (char *)"BAR=x y", NULL };
	char *const	 argv[] = { (char *)"/bin/sh", (char *)"-c",
	    (char *)"echo foo=$FOO; echo \"bar=$BAR\"; echo dir=$(pwd -P);"
	    " echo has_home=${HOME:+1}${HOME:-0}; echo f=$(cat here.txt)",
	    NULL };
	char		 real[PATH_MAX];
	struct exec_req	 req;
	FILE		*f;

	(void)state;
	assert_non_null(f = fopen(tmp("here.txt"), "w"));
	fputs("9\n", f);
	fclose(f);
	assert_non_null(realpath(tmpdir, real));
	req_init(&req, argv);
	req.envp = envp;
	req.cwd = tmpdir;
	req.checksum_key = "dir";
	assert_int_equal(exec_run(&req, &sample), 0);
	assert_int_equal(sample.status, PROTO_ST_OK);
	assert_true(metric("foo") == 42.0);
	assert_true(metric("has_home") == 0.0);
	assert_true(metric("f") == 9.0);
	assert_false(has_metric("bar"));	/* not named: output */
	assert_int_equal(sample.has_checksum, 1);
	assert_string_equal(sample.checksum, real);
	unlink(tmp("here.txt"));
}

static void
test_cwd_missing(void **state)
{
	char *const	argv[] = { (char *)"/bin/sh", (char *)"-c",
	    (char *)"echo ran=1", NULL };
	struct exec_req	req;

	(void)state;
	req_init(&req, argv);
	req.cwd = "/nonexistent-orch-dir";
	assert_int_equal(exec_run(&req, &sample), 0);
	assert_int_equal(sample.status, PROTO_ST_FAILED);
	assert_false(has_metric("ran"));
	assert_non_null(strstr(sample.err_tail, "cannot change to directory "
	    "/nonexistent-orch-dir: No such file or directory"));
	assert_true(no_children());
}

static void
test_stdin_is_devnull(void **state)
{
	(void)state;
	/* A benchmark reading stdin sees EOF rather than hanging. */
	assert_int_equal(run_sh("read x; echo r=$?; echo n=$(wc -c)", NULL), 0);
	assert_int_equal(sample.status, PROTO_ST_OK);
	assert_true(metric("r") == 1.0);
	assert_true(metric("n") == 0.0);
}

/* Closes the write end of the lifeline after 100 ms. */
static void *
lifeline_closer(void *arg)
{
	struct timespec	ts = { 0, 100 * 1000000L };

	nanosleep(&ts, NULL);
	close(*(int *)arg);
	return (NULL);
}

static void
test_lifeline_closes(void **state)
{
	char		script[1024];
	struct exec_req	req;
	pthread_t	th;
	int		p[2], r, fds;
	int64_t		t0, took;
	pid_t		sh, bg;

	(void)state;
	fds = count_fds();
	snprintf(script, sizeof script, "echo $$ > %s; %s 10000 &"
	    " echo $! > %s; exec %s 10000", tmp("sh.pid"), prog("sleeper"),
	    tmp("bg.pid"), prog("sleeper"));
	{
		char *const	argv[] = { (char *)"/bin/sh", (char *)"-c",
		    script, NULL };

		assert_int_equal(pipe(p), 0);
		req_init(&req, argv);
		req.timeout_ms = 10000;
		req.lifeline_fd = p[0];
		assert_int_equal(pthread_create(&th, NULL, lifeline_closer,
		    &p[1]), 0);
		t0 = now_ns();
		r = exec_run(&req, &sample);
		took = now_ns() - t0;
		pthread_join(th, NULL);
		close(p[0]);
	}
	sh = read_pid("sh.pid");
	bg = read_pid("bg.pid");
	assert_int_equal(r, -1);
	assert_true(took >= 90 * MS);
	assert_true(took < 2000 * MS);
	assert_true(no_children());
	assert_true(sh > 1 && bg > 1);
	assert_true(gone(sh, 0));
	if (!gone(bg, 30000)) {
		reap_stray(bg);
		fail_msg("background sleeper %ld survived", (long)bg);
	}
	assert_int_equal(count_fds(), fds);
	unlink(tmp("sh.pid"));
	unlink(tmp("bg.pid"));
}

static void
test_lifeline_open(void **state)
{
	char *const	argv[] = { prog("sleeper"), (char *)"200",
	    NULL };
	struct exec_req	req;
	int		p[2];

	(void)state;
	/* Bytes on a live lifeline do not abort the run. */
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "ping", 4), 4);
	req_init(&req, argv);
	req.lifeline_fd = p[0];
	assert_int_equal(exec_run(&req, &sample), 0);
	close(p[0]);
	close(p[1]);
	assert_int_equal(sample.status, PROTO_ST_OK);
	assert_true(metric("slept_ms") == 200.0);
	assert_true(sample.wall_ns >= 200 * MS);
}

#ifdef __linux__
static void
test_pin_cpu0(void **state)
{
	char *const	argv[] = { prog("affinity"), NULL };
	struct exec_req	req;
	cpu_set_t	before, after;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof before, &before), 0);
	req_init(&req, argv);
	req.pin = "0";
	req.checksum_key = "cpu_list";
	assert_int_equal(exec_run(&req, &sample), 0);
	assert_int_equal(sample.status, PROTO_ST_OK);
	assert_true(metric("cpus") == 1.0);
	assert_string_equal(sample.checksum, "0");
	/* The agent itself is unpinned again... */
	assert_int_equal(sched_getaffinity(0, sizeof after, &after), 0);
	assert_true(CPU_EQUAL(&before, &after));
	/* ...and an unpinned run sees every CPU it had. */
	req.pin = NULL;
	assert_int_equal(exec_run(&req, &sample), 0);
	assert_true(metric("cpus") == (double)CPU_COUNT(&before));
}
#endif

static void
test_pin_failure(void **state)
{
	char *const	argv[] = { (char *)"/bin/sh", (char *)"-c",
	    (char *)"echo ran=1", NULL };
	struct exec_req	req;

	(void)state;
	/* A pin that cannot be applied fails the run; it never runs unpinned. */
	req_init(&req, argv);
	req.pin = "zz";
	assert_int_equal(exec_run(&req, &sample), 0);
	assert_int_equal(sample.status, PROTO_ST_FAILED);
	assert_false(has_metric("ran"));
	assert_non_null(strstr(sample.err_tail, "cannot pin to CPUs zz: "));
#ifdef __linux__
	assert_non_null(strstr(sample.err_tail, "bad CPU list"));
#else
	assert_non_null(strstr(sample.err_tail, "not supported"));
#endif
	assert_true(no_children());
}

static void
test_wall_time_sleep(void **state)
{
	char *const	argv[] = { (char *)"/bin/sleep", (char *)"0.2", NULL };
	struct exec_req	req;

	(void)state;
	req_init(&req, argv);
	assert_int_equal(exec_run(&req, &sample), 0);
	assert_int_equal(sample.status, PROTO_ST_OK);
	assert_true(sample.wall_ns >= 200 * MS);
	assert_true(sample.wall_ns <= 2000 * MS);
	/* Sleeping is not CPU time. */
	assert_true(sample.user_ns + sample.sys_ns < 100 * MS);
	assert_true(sample.nvcsw >= 1);
}

static void
test_maxrss(void **state)
{
	char *const	argv[] = { prog("memhog"), (char *)"50", NULL };
	struct exec_req	req;

	(void)state;
	req_init(&req, argv);
	assert_int_equal(exec_run(&req, &sample), 0);
	assert_int_equal(sample.status, PROTO_ST_OK);
	assert_true(metric("touched_mb") == 50.0);
	if (sample.maxrss_kb < 40000)
		fail_msg("maxrss_kb %llu < 40000",
		    (unsigned long long)sample.maxrss_kb);
	assert_true(sample.maxrss_kb < 1000000);
	/* Touching 50 MB costs page faults: some CPU time was measured. */
	assert_true(sample.user_ns + sample.sys_ns > 0);
}

static void
test_no_fd_or_child_leak(void **state)
{
	char *const	ok[] = { (char *)"/bin/sh", (char *)"-c",
	    (char *)"echo a=1; echo oops >&2", NULL };
	char *const	missing[] = { (char *)"/nonexistent/x", NULL };
	char *const	slow[] = { prog("sleeper"), (char *)"5000",
	    NULL };
	struct exec_req	req;
	int		fds, i;

	(void)state;
	fds = count_fds();
	for (i = 0; i < 3; i++) {
		req_init(&req, ok);
		assert_int_equal(exec_run(&req, &sample), 0);
		req_init(&req, missing);
		assert_int_equal(exec_run(&req, &sample), 0);
		req_init(&req, ok);
		req.cwd = "/nonexistent-orch-dir";
		assert_int_equal(exec_run(&req, &sample), 0);
		req_init(&req, slow);
		req.timeout_ms = 50;
		assert_int_equal(exec_run(&req, &sample), 0);
		assert_int_equal(sample.status, PROTO_ST_TIMEOUT);
	}
	assert_int_equal(count_fds(), fds);
	assert_true(no_children());
}

static void
test_fds_not_inherited(void **state)
{
	int	fd, n;

	(void)state;
	/* A descriptor the agent holds (here without CLOEXEC) stays ours. */
	assert_true((fd = open("/dev/null", O_RDONLY)) != -1);
	assert_int_equal(run_sh("n=0; for f in /dev/fd/*; do n=$((n+1)); done;"
	    " echo fds=$n", NULL), 0);
	close(fd);
	assert_int_equal(sample.status, PROTO_ST_OK);
	n = (int)metric("fds");
	/* 0, 1, 2 and the directory the glob reads; never more than 5. */
	assert_true(n >= 3 && n <= 5);
}

static void
test_agent_idle_while_running(void **state)
{
	char *const	argv[] = { prog("sleeper"), (char *)"500", NULL };
	struct exec_req	req;
	struct rusage	a, b;
	int64_t		used;

	(void)state;
	/* The agent sleeps in poll(): no CPU taken from the benchmark. */
	req_init(&req, argv);
	assert_int_equal(getrusage(RUSAGE_SELF, &a), 0);
	assert_int_equal(exec_run(&req, &sample), 0);
	assert_int_equal(getrusage(RUSAGE_SELF, &b), 0);
	assert_int_equal(sample.status, PROTO_ST_OK);
	used = (int64_t)(b.ru_utime.tv_sec - a.ru_utime.tv_sec) * 1000000 +
	    (b.ru_utime.tv_usec - a.ru_utime.tv_usec) +
	    (int64_t)(b.ru_stime.tv_sec - a.ru_stime.tv_sec) * 1000000 +
	    (b.ru_stime.tv_usec - a.ru_stime.tv_usec);
	if (used > 50000)
		fail_msg("the agent used %lld us of CPU during a 500 ms run",
		    (long long)used);
}

/*
 * The agent sleeps once while a silent program runs, until its exit: the
 * exit's closing of stdout and stderr wakes nobody (the agent holds the
 * pipes' write ends until the reap). Voluntary context switches per run:
 * the spawn's wait for the child's exec, and that one sleep; with the
 * write ends closed, each pipe's hangup woke the agent before SIGCHLD.
 * This thread's alone where the OS tells (a sanitizer's runtime has threads
 * of its own); under valgrind, whose scheduler sleeps, not counted.
 */
#ifdef RUSAGE_THREAD
#define ONE_WAKE_WHO	RUSAGE_THREAD
#else
#define ONE_WAKE_WHO	RUSAGE_SELF
#endif
static void
test_one_wake_at_exit(void **state)
{
	char *const	argv[] = { (char *)"/bin/sleep", (char *)"0.05", NULL };
	struct exec_req	req;
	struct rusage	a, b;
	long		switches;
	int		i, n = 10;

	(void)state;
	if (getenv("VALGRIND") != NULL && strcmp(getenv("VALGRIND"), "1") == 0)
		skip();
	req_init(&req, argv);
	assert_int_equal(getrusage(ONE_WAKE_WHO, &a), 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(exec_run(&req, &sample), 0);
		assert_int_equal(sample.status, PROTO_ST_OK);
	}
	assert_int_equal(getrusage(ONE_WAKE_WHO, &b), 0);
	switches = b.ru_nvcsw - a.ru_nvcsw;
	if (switches > 2 * n)
		fail_msg("%ld voluntary context switches in %d runs of a "
		    "silent 50 ms program (at most 2 a run)", switches, n);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_ok_metrics_checksum, dirty),
		cmocka_unit_test_setup(test_bad_metric_lines, dirty),
		cmocka_unit_test_setup(test_noop_clean_sample, dirty),
		cmocka_unit_test_setup(test_last_line_without_newline, dirty),
		cmocka_unit_test_setup(test_exit_code_with_stderr, dirty),
		cmocka_unit_test_setup(test_exit_code_without_stderr, dirty),
		cmocka_unit_test_setup(test_sigsegv, dirty),
		cmocka_unit_test_setup(test_default_signals, dirty),
		cmocka_unit_test_setup(test_timeout, dirty),
		cmocka_unit_test_setup(test_timeout_kills_group, dirty),
		cmocka_unit_test_setup(test_grandchild_killed, dirty),
		cmocka_unit_test_setup(test_daemon_killed_at_end, dirty),
		cmocka_unit_test_setup(test_daemon_killed_at_timeout, dirty),
		cmocka_unit_test_setup(test_proc_ident, dirty),
		cmocka_unit_test_setup(test_proc_ident_born, dirty),
		cmocka_unit_test_setup(test_nonexistent_program, dirty),
		cmocka_unit_test_setup(test_not_executable, dirty),
		cmocka_unit_test_setup(test_huge_output, dirty),
		cmocka_unit_test_setup(test_long_line_skipped, dirty),
		cmocka_unit_test_setup(test_stderr_tail_exact, dirty),
		cmocka_unit_test_setup(test_env_and_cwd, dirty),
		cmocka_unit_test_setup(test_cwd_missing, dirty),
		cmocka_unit_test_setup(test_stdin_is_devnull, dirty),
		cmocka_unit_test_setup(test_lifeline_closes, dirty),
		cmocka_unit_test_setup(test_lifeline_open, dirty),
#ifdef __linux__
		cmocka_unit_test_setup(test_pin_cpu0, dirty),
#endif
		cmocka_unit_test_setup(test_pin_failure, dirty),
		cmocka_unit_test_setup(test_wall_time_sleep, dirty),
		cmocka_unit_test_setup(test_maxrss, dirty),
		cmocka_unit_test_setup(test_no_fd_or_child_leak, dirty),
		cmocka_unit_test_setup(test_fds_not_inherited, dirty),
		cmocka_unit_test_setup(test_agent_idle_while_running, dirty),
		cmocka_unit_test_setup(test_one_wake_at_exit, dirty),
	};

	return (cmocka_run_group_tests_name("exec", tests, group_setup,
	    group_teardown));
}
