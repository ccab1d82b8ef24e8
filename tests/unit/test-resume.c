/*
 * A run directory is evidence, never instructions (issue 27): the suite
 * path a record names is run without the user naming it only when it is
 * an absolute path outside the run directory to the user's own file no
 * one else may write; a run is bound to its user by an HMAC under a key
 * of theirs; and the host names a record holds pick only hosts the
 * user's inventory names by that very name.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "coordinator/cli/args.h"
#include "coordinator/hosts/host.h"
#include "coordinator/hosts/inventory.h"
#include "coordinator/run/run-bind.h"
#include "coordinator/run/run.h"

static char	tdir[PATH_MAX];

/* Writes text to dir/name with mode. */
static void
put(const char *dir, const char *name, const char *text, mode_t mode)
{
	char	 p[PATH_MAX];
	FILE	*f;

	snprintf(p, sizeof p, "%s/%s", dir, name);
	assert_non_null(f = fopen(p, "w"));
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(p, mode), 0);
}

/* Expects run_resume_suite_trust(dir, path) to refuse, saying want. */
static void
refused(const char *dir, const char *path, const char *want)
{
	char	*cause = NULL;

	assert_int_equal(run_resume_suite_trust(dir, path, &cause), -1);
	if (cause == NULL || strstr(cause, want) == NULL ||
	    strstr(cause, "name the suite to run") == NULL)
		fail_msg("%s: got \"%s\", want \"%s\"", path, cause, want);
	free(cause);
}

/* The record's suite path: what may run without the user naming it. */
static void
test_trust(void **state)
{
	char	run[PATH_MAX], p[PATH_MAX], *cause = NULL;

	(void)state;
	snprintf(run, sizeof run, "%s/R", tdir);
	assert_int_equal(mkdir(run, 0700), 0);
	put(tdir, "mine.ini", "[suite]\n", 0644);
	put(run, "suite.ini", "[suite]\n", 0644);
	put(tdir, "open.ini", "[suite]\n", 0666);
	put(tdir, "group.ini", "[suite]\n", 0664);

	snprintf(p, sizeof p, "%s/mine.ini", tdir);
	if (run_resume_suite_trust(run, p, &cause) != 0)
		fail_msg("%s", cause);
	refused(run, "reports/R/suite.ini", "is a relative path");
	snprintf(p, sizeof p, "%s/suite.ini", run);
	refused(run, p, "is inside the run directory");
	/* The same, through a link outside it. */
	snprintf(p, sizeof p, "%s/link.ini", tdir);
	assert_int_equal(symlink("R/suite.ini", p), 0);
	refused(run, p, "is inside the run directory");
	snprintf(p, sizeof p, "%s/open.ini", tdir);
	refused(run, p, "may be written by others");
	snprintf(p, sizeof p, "%s/group.ini", tdir);
	refused(run, p, "may be written by others");
	snprintf(p, sizeof p, "%s", tdir);
	refused(run, p, "is not a regular file");
	/* A file of ours in a directory anyone may write (not sticky). */
	snprintf(p, sizeof p, "%s/open", tdir);
	assert_int_equal(mkdir(p, 0700), 0);
	put(p, "s.ini", "[suite]\n", 0644);
	assert_int_equal(chmod(p, 0777), 0);
	snprintf(p, sizeof p, "%s/open/s.ini", tdir);
	refused(run, p, "is in a directory others may write to");
	snprintf(p, sizeof p, "%s/open", tdir);
	assert_int_equal(chmod(p, 01777), 0);
	snprintf(p, sizeof p, "%s/open/s.ini", tdir);
	if (run_resume_suite_trust(run, p, &cause) != 0)
		fail_msg("%s", cause);
	snprintf(p, sizeof p, "%s/missing.ini", tdir);
	assert_int_equal(run_resume_suite_trust(run, p, &cause), -1);
	assert_non_null(strstr(cause, "No such file"));
	free(cause);
}

/* The MAC: the user's key binds the run; another key, or a change, not. */
static void
test_bind(void **state)
{
	const char	*hosts[] = { "h2", "local" }, *other[] = { "local",
			    "h2" }, *more[] = { "local", "h2", "h3" };
	struct run_bind	 b = { "20260101-000000-abcd", "suites/x.ini",
			    "[suite]\n", hosts, 2 };
	unsigned char	 key[32];
	char		 run[PATH_MAX], st[PATH_MAX], kpath[PATH_MAX];
	char		 hex[RUN_BIND_HEX], *why = NULL, *cause = NULL;
	struct stat	 sb;

	(void)state;
	snprintf(st, sizeof st, "%s/state", tdir);
	setenv("XDG_STATE_HOME", st, 1);
	snprintf(run, sizeof run, "%s/B", tdir);
	assert_int_equal(mkdir(run, 0700), 0);
	/* No key yet: nothing is bound. */
	assert_int_equal(run_bind_check(run, &b, &why), 0);
	free(why);
	why = NULL;
	if (run_bind_write(run, &b, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(run_bind_key(key, 0, kpath, sizeof kpath, &cause),
	    0);
	assert_int_equal(stat(kpath, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	snprintf(kpath, sizeof kpath, "%s/orch", st);
	assert_int_equal(stat(kpath, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0700);
	assert_int_equal(run_bind_check(run, &b, &why), 1);
	/* The hosts in another order: the same run. */
	b.hosts = other;
	assert_int_equal(run_bind_check(run, &b, &why), 1);
	/* Another host, suite text, path or run id: not the run bound. */
	b.hosts = more;
	b.nhosts = 3;
	assert_int_equal(run_bind_check(run, &b, &why), 0);
	assert_non_null(strstr(why, "was not made with your run key"));
	free(why);
	b.hosts = hosts;
	b.nhosts = 2;
	b.suite_text = "[suite]\nrounds = 9\n";
	assert_int_equal(run_bind_check(run, &b, &why), 0);
	free(why);
	b.suite_text = "[suite]\n";
	b.suite_path = "reports/B/suite.ini";
	assert_int_equal(run_bind_check(run, &b, &why), 0);
	free(why);
	b.suite_path = "suites/x.ini";
	assert_int_equal(run_bind_check(run, &b, &why), 1);
	/* Another user's key: not bound. */
	snprintf(st, sizeof st, "%s/state2", tdir);
	setenv("XDG_STATE_HOME", st, 1);
	assert_int_equal(run_bind_key(key, 1, kpath, sizeof kpath, &cause),
	    0);
	assert_int_equal(run_bind_check(run, &b, &why), 0);
	assert_non_null(strstr(why, "was not made with your run key"));
	free(why);
	/* A key others may read is refused, not used. */
	assert_int_equal(chmod(kpath, 0644), 0);
	assert_int_equal(run_bind_key(key, 0, kpath, sizeof kpath, &cause),
	    -1);
	assert_non_null(strstr(cause, "not a run key of yours"));
	free(cause);
	assert_int_equal(run_bind_mac(key, &b, hex), 0);
	assert_int_equal(strlen(hex), RUN_BIND_HEX - 1);
}

/* A record's host names pick only the inventory's hosts by those names. */
static void
test_named(void **state)
{
	struct host	*h;
	char		 inv[PATH_MAX], *unknown = NULL;
	size_t		 n = 0;

	(void)state;
	setenv("ORCH_SSH_CONFIG", "/dev/null", 1);
	put(tdir, "inv.ini", "[host.h1]\naddress = 127.0.0.1\n"
	    "[host.h2]\naddress = 127.0.0.1\n"
	    "[group.g]\nhosts = h1, h2\n", 0600);
	snprintf(inv, sizeof inv, "%s/inv.ini", tdir);
	h = args_hosts_named(inv, "all,g,localhost,h2,local", &n, &unknown);
	assert_non_null(h);
	assert_int_equal(n, 2);
	assert_string_equal(h[0].name, "h2");
	assert_string_equal(h[1].name, "local");
	assert_non_null(unknown);
	if (strstr(unknown, "host 'all' of the record is unknown, not "
	    "contacted: 'all' stands for every host") == NULL ||
	    strstr(unknown, "host 'g' of the record is unknown, not "
	    "contacted: it is a group") == NULL ||
	    strstr(unknown, "host 'localhost' of the record is unknown, "
	    "not contacted:") == NULL)
		fail_msg("got \"%s\"", unknown);
	free(unknown);
	free(h);
	h = args_hosts_named(inv, "g", &n, &unknown);
	assert_null(h);
	assert_int_equal(n, 0);
	free(unknown);
	inventory_forget();
}

/* Makes the test's directory. */
static int
setup(void **state)
{
	(void)state;
	snprintf(tdir, sizeof tdir, "/tmp/test-resume.XXXXXX");
	return (mkdtemp(tdir) == NULL ? -1 : 0);
}

/* Removes the test's directory. */
static int
teardown(void **state)
{
	char	cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tdir);
	return (system(cmd) == 0 ? 0 : -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_trust, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_named, setup, teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
