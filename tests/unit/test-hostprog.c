/*
 * Unit tests of the host's own programs, stdout checksums and hooks:
 * the suite keys (bin = host:NAME, checksum = stdout, prepare / setup /
 * cleanup) and their errors with FILE:LINE; the wire form of a plan that
 * has them and of PROGS, and what the decoder refuses; the agent's PATH
 * lookup (agent/hostprog.c) and its --version line; and the SHA-256 of a
 * binary standard output streamed by exec_run, with metric lines still
 * parsed beside it.
 */
#include <sys/stat.h>

#include <fcntl.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/exec.h"
#include "agent/hostprog.h"
#include "coordinator/input/suite.h"
#include "proto/hash.h"
#include "proto/proto.h"

static char	tdir[] = "/tmp/orch-test-hostprog.XXXXXX";

/* Writes text to tdir/name and returns its path (static buffer). */
static const char *
put_file(const char *name, const char *text, int mode)
{
	static char	 path[512];
	FILE		*f;

	snprintf(path, sizeof path, "%s/%s", tdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, (mode_t)mode), 0);
	return (path);
}

/* ---- suite keys ---------------------------------------------------------- */

#define HEAD	"[suite]\nrounds = 2\n[variant.A]\nbin = host:sort\n" \
		"[variant.B]\nbin = host:/usr/bin/sort\nargs = -s\n"

static void
test_suite_good(void **state)
{
	struct suite	*s = NULL;
	char		*cause = NULL;
	const char	*path;

	(void)state;
	path = put_file("good.ini", HEAD "[bench.b]\nchecksum = stdout\n"
	    "prepare = host:sh -c \"echo p >> count\"\n"
	    "setup = host:mkdir -p 'a dir'\n"
	    "cleanup = /bin/rm -rf \"a dir\"\n", 0644);
	if (suite_load(path, &s, &cause) != 0)
		fail_msg("%s", cause);
	assert_string_equal(s->variants[0].host, "sort");
	assert_string_equal(s->variants[0].bin, "host:sort");
	assert_string_equal(s->variants[1].host, "/usr/bin/sort");
	assert_string_equal(s->benches[0].checksum, "stdout");
	assert_int_equal(s->benches[0].hooks[SUITE_HOOK_PREPARE].nargv, 3);
	assert_string_equal(s->benches[0].hooks[SUITE_HOOK_PREPARE].host,
	    "sh");
	assert_string_equal(s->benches[0].hooks[SUITE_HOOK_PREPARE].argv[2],
	    "echo p >> count");
	assert_int_equal(s->benches[0].hooks[SUITE_HOOK_PREPARE].line, 10);
	assert_string_equal(s->benches[0].hooks[SUITE_HOOK_SETUP].argv[2],
	    "a dir");
	/* A pushed hook: resolved like a bin, no host program. */
	assert_null(s->benches[0].hooks[SUITE_HOOK_CLEANUP].host);
	assert_string_equal(s->benches[0].hooks[SUITE_HOOK_CLEANUP].bin,
	    "/bin/rm");
	suite_free(s);
}

struct bad_key {
	const char	*text;	/* after HEAD, or the whole file with a \n first */
	const char	*want;	/* the cause after the file's path */
};

static const struct bad_key bad_keys[] = {
	{ "[bench.b]\nprepare =\n",
	    ":9: [bench.b] prepare: no command" },
	{ "[bench.b]\nsetup = host:\n",
	    ":9: [bench.b] setup: 'host:' names no program" },
	{ "[bench.b]\ncleanup = host:bin/rm x\n",
	    ":9: [bench.b] cleanup: host program 'bin/rm' is neither a name "
	    "(looked up in the host's PATH) nor an absolute path" },
	{ "[bench.b]\nprepare = 'unterminated\n",
	    ":9: [bench.b] prepare: unterminated ' quote" },
	{ "[bench.b]\nprepare = ./no-such-hook\n",
	    ":9: [bench.b] bin './no-such-hook' does not exist" },
	{ "[bench.b]\nprepare = host:true\nprepare = host:false\n",
	    ":10: [bench.b] duplicate key 'prepare' (first on line 9)" },
	{ "\n[variant.A]\nbin = host:\n[variant.B]\nbin = host:x\n",
	    ":3: [variant.A] bin: 'host:' names no program" },
	{ "\n[variant.A]\nbin = host:usr/bin/gzip\n[variant.B]\nbin = host:x\n",
	    ":3: [variant.A] bin: host program 'usr/bin/gzip' is neither a "
	    "name (looked up in the host's PATH) nor an absolute path" },
	{ "\n[variant.A]\nbin = host:a b\n[variant.B]\nbin = host:x\n",
	    ":3: [variant.A] bin: host program 'a b' has a blank or control "
	    "character" },
	{ "\n[variant.A]\nbin = host:"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "\n",
	    ":3: line too long (at most 198 characters)" },
};

/* Each bad key: suite_load fails with exactly FILE:LINE and the words. */
static void
test_suite_bad(void **state)
{
	struct suite	*s;
	char		*cause, text[2048], want[1024];
	const char	*path;
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof bad_keys / sizeof bad_keys[0]; i++) {
		if (bad_keys[i].text[0] == '\n')
			snprintf(text, sizeof text, "[suite]%s", bad_keys[i].text);
		else
			snprintf(text, sizeof text, HEAD "%s", bad_keys[i].text);
		path = put_file("bad.ini", text, 0644);
		snprintf(want, sizeof want, "%s%s", path, bad_keys[i].want);
		s = (struct suite *)1;
		cause = NULL;
		assert_int_equal(suite_load(path, &s, &cause), -1);
		assert_null(s);
		assert_non_null(cause);
		if (strcmp(cause, want) != 0)
			fail_msg("case %zu: got '%s', want '%s'", i, cause,
			    want);
		free(cause);
	}
}

/* ---- the wire ------------------------------------------------------------ */

/* A plan of two commands, B the host's gzip, sharing a prepare hook. */
static void
make_plan(struct proto_msg *m)
{
	struct proto_plan	*p = &m->u.plan;
	size_t			 i;

	memset(m, 0, sizeof *m);
	m->type = PROTO_PLAN;
	p->nfiles = 1;
	p->files = calloc(1, sizeof *p->files);
	hash_buf("A", 1, p->files[0]);
	p->ncmds = 3;
	p->cmds = calloc(3, sizeof *p->cmds);
	for (i = 0; i < 3; i++) {
		strcpy(p->cmds[i].bench, "b");
		p->cmds[i].args = calloc(1, sizeof (char *));
		p->cmds[i].env = calloc(1, sizeof (char *));
	}
	strcpy(p->cmds[0].variant, "A");
	strcpy(p->cmds[0].exe, p->files[0]);
	strcpy(p->cmds[0].checksum_key, PROTO_CHECKSUM_STDOUT);
	strcpy(p->cmds[1].variant, "B");
	p->cmds[1].has_host = 1;
	strcpy(p->cmds[1].host, "gzip");
	p->cmds[2].has_host = 1;
	strcpy(p->cmds[2].host, "/bin/true");
	for (i = 0; i < 2; i++) {
		p->cmds[i].has_hooks = 1;
		p->cmds[i].hooks[PROTO_HOOK_PREPARE] = 2;
		p->cmds[i].hooks[PROTO_HOOK_SETUP] = -1;
		p->cmds[i].hooks[PROTO_HOOK_CLEANUP] = -1;
	}
	p->nsteps = 2;
	p->steps = calloc(2, sizeof *p->steps);
	p->steps[0] = (struct proto_step){ 0, 1, 0 };
	p->steps[1] = (struct proto_step){ 1, 1, 0 };
	p->resume_seq = -1;
}

/* Encodes m and decodes it again into out; returns proto_decode's answer. */
static int
round_trip(const struct proto_msg *m, struct proto_msg *out)
{
	uint8_t	*buf = NULL;
	size_t	 len = 0;
	int	 r;

	memset(out, 0, sizeof *out);
	if ((r = proto_encode(m, &buf, &len)) != 0)
		return (r);
	r = proto_decode(buf, len, out);
	free(buf);
	return (r);
}

static void
test_wire_plan(void **state)
{
	struct proto_msg	m, out;

	(void)state;
	make_plan(&m);
	assert_int_equal(round_trip(&m, &out), 0);
	assert_string_equal(out.u.plan.cmds[0].checksum_key,
	    PROTO_CHECKSUM_STDOUT);
	assert_string_equal(out.u.plan.cmds[1].exe, "");
	assert_int_equal(out.u.plan.cmds[1].has_host, 1);
	assert_string_equal(out.u.plan.cmds[1].host, "gzip");
	assert_int_equal(out.u.plan.cmds[0].has_hooks, 1);
	assert_int_equal(out.u.plan.cmds[0].hooks[PROTO_HOOK_PREPARE], 2);
	assert_int_equal(out.u.plan.cmds[0].hooks[PROTO_HOOK_CLEANUP], -1);
	assert_int_equal(out.u.plan.cmds[2].has_hooks, 0);
	proto_msg_free(&out);

	/* Each of these the encoder refuses, as the decoder would. */
	m.u.plan.steps[1].cmd = 2;		/* a hook as a step */
	assert_int_equal(round_trip(&m, &out), PROTO_ERR_FIELD);
	m.u.plan.steps[1].cmd = 1;
	strcpy(m.u.plan.cmds[1].exe, m.u.plan.files[0]);	/* both */
	assert_int_equal(round_trip(&m, &out), PROTO_ERR_FIELD);
	m.u.plan.cmds[1].exe[0] = '\0';
	m.u.plan.cmds[1].has_host = 0;		/* neither */
	assert_int_equal(round_trip(&m, &out), PROTO_ERR_FIELD);
	m.u.plan.cmds[1].has_host = 1;
	strcpy(m.u.plan.cmds[1].host, "bin/gzip");	/* relative path */
	assert_int_equal(round_trip(&m, &out), PROTO_ERR_FIELD);
	strcpy(m.u.plan.cmds[1].host, "gzip");
	m.u.plan.cmds[0].hooks[PROTO_HOOK_SETUP] = 3;	/* no such cmd */
	assert_int_equal(round_trip(&m, &out), PROTO_ERR_FIELD);
	m.u.plan.cmds[0].hooks[PROTO_HOOK_SETUP] = 1;	/* a step's cmd */
	assert_int_equal(round_trip(&m, &out), PROTO_ERR_FIELD);
	m.u.plan.cmds[0].hooks[PROTO_HOOK_SETUP] = -1;
	strcpy(m.u.plan.cmds[0].checksum_key, "(other)");	/* not a key */
	assert_int_equal(round_trip(&m, &out), PROTO_ERR_FIELD);
	strcpy(m.u.plan.cmds[0].checksum_key, "checksum");
	assert_int_equal(round_trip(&m, &out), 0);
	proto_msg_free(&out);
	proto_msg_free(&m);
}

/* At most PROTO_PROGS_MAX distinct host programs; repeats are one. */
static void
test_wire_progs_max(void **state)
{
	struct proto_msg	m, out;
	struct proto_plan	*p = &m.u.plan;
	size_t			i, n = PROTO_PROGS_MAX + 40;

	(void)state;
	memset(&m, 0, sizeof m);
	m.type = PROTO_PLAN;
	p->ncmds = n;
	p->cmds = calloc(n, sizeof *p->cmds);
	for (i = 0; i < n; i++) {
		strcpy(p->cmds[i].bench, "b");
		snprintf(p->cmds[i].variant, sizeof p->cmds[i].variant,
		    "v%zu", i);
		p->cmds[i].args = calloc(1, sizeof (char *));
		p->cmds[i].env = calloc(1, sizeof (char *));
		p->cmds[i].has_host = 1;
		snprintf(p->cmds[i].host, sizeof p->cmds[i].host, "prog%zu",
		    i % 2);
	}
	p->resume_seq = -1;
	assert_int_equal(round_trip(&m, &out), 0);
	proto_msg_free(&out);
	for (i = 0; i < n; i++)
		snprintf(p->cmds[i].host, sizeof p->cmds[i].host, "prog%zu",
		    i % PROTO_PROGS_MAX);
	assert_int_equal(round_trip(&m, &out), 0);
	proto_msg_free(&out);
	snprintf(p->cmds[n - 1].host, sizeof p->cmds[n - 1].host, "one-more");
	assert_int_equal(round_trip(&m, &out), PROTO_ERR_FIELD);
	proto_msg_free(&m);
}

static void
test_wire_progs(void **state)
{
	struct proto_msg	m, out;

	(void)state;
	memset(&m, 0, sizeof m);
	m.type = PROTO_PROGS;
	m.u.progs.n = 1;
	m.u.progs.v = calloc(1, sizeof *m.u.progs.v);
	strcpy(m.u.progs.v[0].prog, "gzip");
	strcpy(m.u.progs.v[0].path, "/usr/bin/gzip");
	hash_buf("x", 1, m.u.progs.v[0].sha);
	strcpy(m.u.progs.v[0].version, "gzip 1.12");
	assert_int_equal(round_trip(&m, &out), 0);
	assert_int_equal(out.u.progs.n, 1);
	assert_string_equal(out.u.progs.v[0].path, "/usr/bin/gzip");
	assert_string_equal(out.u.progs.v[0].sha, m.u.progs.v[0].sha);
	assert_string_equal(out.u.progs.v[0].version, "gzip 1.12");
	proto_msg_free(&out);
	m.u.progs.v[0].sha[0] = 'X';		/* not a hash */
	assert_int_equal(round_trip(&m, &out), PROTO_ERR_FIELD);
	proto_msg_free(&m);
}

/* ---- the agent's lookup -------------------------------------------------- */

/*
 * Resolves bin/tool into f, then rewrites it in place with the same size,
 * inode and mtime (touch -r): only its ctime tells, and it must be seen.
 */
static void
rewritten_in_place(struct cache_file *f)
{
	struct timespec	 ts[2], nap = { 0, 1000000 };
	struct stat	 st, sc;
	char		 why[1024], path[600];
	FILE		*fp;
	int		 i;

	assert_int_equal(hostprog_resolve("tool", f, why, sizeof why), 0);
	assert_int_equal(hostprog_unchanged(f), 1);
	snprintf(path, sizeof path, "%s/bin/tool", tdir);
	assert_int_equal(stat(path, &st), 0);
	/* Until the clock that stamps ctime has moved on (a tick, ms). */
	for (i = 0; i < 2000; i++) {
		/* Writing a file stamps its ctime with that clock. */
		assert_int_equal(stat(put_file("scratch", "", 0600), &sc), 0);
		if (sc.st_ctim.tv_sec != st.st_ctim.tv_sec ||
		    sc.st_ctim.tv_nsec != st.st_ctim.tv_nsec)
			break;
		nanosleep(&nap, NULL);
	}
	assert_true(i < 2000);
	assert_non_null(fp = fopen(path, "r+"));
	assert_int_equal(fputs("#!/bin/sh\nprintf 'tool 6.6", fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
	ts[0] = st.st_atim;
	ts[1] = st.st_mtim;
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	assert_int_equal(stat(path, &sc), 0);
	assert_true(sc.st_ino == st.st_ino && sc.st_size == st.st_size &&
	    sc.st_mtim.tv_sec == st.st_mtim.tv_sec &&
	    sc.st_mtim.tv_nsec == st.st_mtim.tv_nsec);
	assert_int_equal(hostprog_unchanged(f), 0);
	cache_files_close(f, 1);
}

static void
test_resolve(void **state)
{
	struct cache_file	 f;
	char			 why[1024], want[PROTO_SHA_HEX], path[600];
	char			 pathenv[1200], version[PROTO_VERSION_LINE];
	char			*envp[] = { NULL };
	const char		*old = getenv("PATH");
	char			*saved = old != NULL ? strdup(old) : NULL;

	(void)state;
	snprintf(path, sizeof path, "%s/bin", tdir);
	mkdir(path, 0755);
	put_file("bin/tool", "#!/bin/sh\nprintf 'tool 1.0\\001\\r\\nmore\\n'\n",
	    0755);
	put_file("bin/plain", "not executable\n", 0644);
	assert_int_equal(hash_file(put_file("bin/tool",
	    "#!/bin/sh\nprintf 'tool 1.0\\001\\r\\nmore\\n'\n", 0755), want), 0);

	/* Relative and empty entries are never searched. */
	snprintf(pathenv, sizeof pathenv, "bin::%s/bin:/usr/bin", tdir);
	setenv("PATH", pathenv, 1);
	assert_int_equal(hostprog_resolve("tool", &f, why, sizeof why), 0);
	snprintf(path, sizeof path, "%s/bin/tool", tdir);
	assert_string_equal(f.path, path);
	assert_string_equal(f.sha, want);
	assert_true(f.fd >= 0);
	assert_int_equal(hostprog_unchanged(&f), 1);
	/* --version: first line, printable, trailing \r gone. */
	assert_int_equal(hostprog_version(&f, envp, NULL, -1, 5000, version,
	    sizeof version), 0);
	assert_string_equal(version, "tool 1.0?");
	put_file("bin/tool", "#!/bin/sh\necho changed\n", 0755);
	assert_int_equal(hostprog_unchanged(&f), 0);
	cache_files_close(&f, 1);
	put_file("bin/tool", "#!/bin/sh\nprintf 'tool 1.0\\001\\r\\nmore\\n'\n",
	    0755);
	rewritten_in_place(&f);

	assert_int_equal(hostprog_resolve("no-such-tool", &f, why,
	    sizeof why), -1);
	snprintf(want, sizeof want, "host program no-such-tool: not found");
	assert_non_null(strstr(why, want));
	assert_non_null(strstr(why, pathenv));
	assert_int_equal(hostprog_resolve("plain", &f, why, sizeof why), -1);
	assert_non_null(strstr(why, "not runnable: Permission denied"));
	assert_int_equal(hostprog_resolve("a/b", &f, why, sizeof why), -1);
	assert_non_null(strstr(why, "not a name or an absolute path"));
	snprintf(path, sizeof path, "%s/bin/absent", tdir);
	assert_int_equal(hostprog_resolve(path, &f, why, sizeof why), -1);
	assert_non_null(strstr(why, "No such file or directory"));
	/* No PATH at all: POSIX's default, where sh is. */
	unsetenv("PATH");
	assert_int_equal(hostprog_resolve("sh", &f, why, sizeof why), 0);
	assert_true(strcmp(f.path, "/usr/bin/sh") == 0 ||
	    strcmp(f.path, "/bin/sh") == 0);
	cache_files_close(&f, 1);
	if (saved != NULL) {
		setenv("PATH", saved, 1);
		free(saved);
	}
}

/* ---- stdout's checksum --------------------------------------------------- */

/* The one metric key the checksum tests' programs print. */
static char *const hp_mkeys[] = { (char *)"speed" };

/* Runs /bin/sh -c script with checksum = stdout into smp. */
static void
run_sh(char *script, struct proto_sample *smp)
{
	char *const	argv[] = { (char *)"/bin/sh", (char *)"-c", script,
			    NULL };
	char *const	envp[] = { (char *)"PATH=/usr/bin:/bin", NULL };
	struct exec_req	req;

	memset(&req, 0, sizeof req);
	req.argv = argv;
	req.envp = envp;
	req.timeout_ms = 20000;
	req.checksum_key = PROTO_CHECKSUM_STDOUT;
	req.mkeys = hp_mkeys;
	req.nmkeys = 1;
	req.lifeline_fd = -1;
	assert_int_equal(exec_run(&req, smp), 0);
}

static void
test_stdout_sum(void **state)
{
	struct proto_sample	*smp = calloc(1, sizeof *smp);
	char			 hex[PROTO_SHA_HEX], want[80], *big;
	const char		*path;
	size_t			 n = 3 * 1024 * 1024, i;
	FILE			*f;

	(void)state;
	/*
	 * Binary: NULs, 3 MiB without a newline, then a metric line and a
	 * line claiming to be the checksum, which is not one any more.
	 */
	big = malloc(n + 64);
	for (i = 0; i < n; i++)
		big[i] = (char)(i % 7 == 0 ? 0 : 'a' + i % 26);
	memcpy(big + n, "\nspeed=42\nstdout=bogus\n", 23);
	path = put_file("blob", "", 0644);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(big, 1, n + 23, f), n + 23);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(hash_buf(big, n + 23, hex), 0);
	snprintf(want, sizeof want, "sha256:%s", hex);

	snprintf(big, 64 + n, "cat '%s'", path);
	run_sh(big, smp);
	assert_int_equal(smp->status, PROTO_ST_OK);
	assert_int_equal(smp->has_checksum, 1);
	assert_string_equal(smp->checksum, want);
	assert_int_equal(smp->nmetrics, 1);
	assert_string_equal(smp->metrics[0].key, "speed");

	/* Empty output has a checksum too: SHA-256 of nothing. */
	snprintf(big, 64, "true");
	run_sh(big, smp);
	assert_int_equal(hash_buf("", 0, hex), 0);
	snprintf(want, sizeof want, "sha256:%s", hex);
	assert_string_equal(smp->checksum, want);
	free(big);
	free(smp);
}

static int
setup(void **state)
{
	(void)state;
	if (mkdtemp(tdir) == NULL)
		return (-1);
	return (exec_init());
}

static int
teardown(void **state)
{
	char	cmd[600];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tdir);
	return (system(cmd) == 0 ? 0 : -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suite_good),
		cmocka_unit_test(test_suite_bad),
		cmocka_unit_test(test_wire_plan),
		cmocka_unit_test(test_wire_progs),
		cmocka_unit_test(test_wire_progs_max),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_stdout_sum),
	};

	return (cmocka_run_group_tests(tests, setup, teardown));
}
