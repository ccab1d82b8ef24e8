/*
 * Unit tests for coordinator/hosts/inventory.c: an inventory with every key, the
 * defaults, one fixture per bad input (tests/unit/inventory/bad-*.ini) with
 * the exact message beside it, resolving --hosts lists, and picking the
 * inventory path. Run from the repository root: fixture paths and messages
 * are relative.
 */
#include <sys/types.h>

#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "coordinator/hosts/host-route.h"
#include "coordinator/hosts/hosts.h"
#include "coordinator/hosts/inventory.h"
#include "coordinator/input/oneline.h"
#include "coordinator/input/suite.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))
#define DIR		"tests/unit/inventory/"
#define HOME		"/home/tester"

/* Sets the environment every test starts from. */
static int
setup_env(void **state)
{
	(void)state;
	setenv("HOME", HOME, 1);
	setenv("USER", "alice", 1);
	unsetenv("ORCH_WORKDIR");
	unsetenv("ORCH_INVENTORY");
	return (0);
}

/* Loads a fixture that must parse, failing the test with the cause if not. */
static struct inventory *
load_ok(const char *path, int required)
{
	struct inventory	*inv = NULL;
	char			*cause = NULL;

	if (inventory_load(path, required, &inv, &cause) != 0)
		fail_msg("%s: %s", path, cause != NULL ? cause : "(no cause)");
	assert_null(cause);
	assert_non_null(inv);
	return (inv);
}

/* Resolves list, which must work, and renders the names as "a b c". */
static struct host *
resolve_ok(const struct inventory *inv, const char *list, size_t *n,
    char *names, size_t len)
{
	struct host	*hosts = NULL;
	char		*cause = NULL;
	size_t		 i, o = 0;

	if (inventory_resolve(inv, list, &hosts, n, &cause) != 0)
		fail_msg("%s: %s", list != NULL ? list : "(null)",
		    cause != NULL ? cause : "(no cause)");
	assert_null(cause);
	assert_non_null(hosts);
	assert_true(*n > 0);
	names[0] = '\0';
	for (i = 0; i < *n; i++)
		o += (size_t)snprintf(names + o, len - o, "%s%s",
		    i > 0 ? " " : "", hosts[i].name);
	return (hosts);
}

/* Resolves list, which must fail with exactly want. */
static void
resolve_bad(const struct inventory *inv, const char *list, const char *want)
{
	struct host	*hosts = (struct host *)1;
	char		*cause = NULL;
	size_t		 n = 99;

	assert_int_equal(inventory_resolve(inv, list, &hosts, &n, &cause), -1);
	assert_null(hosts);
	assert_int_equal(n, 0);
	assert_non_null(cause);
	assert_string_equal(cause, want);
	free(cause);
}

/* ---- loading ------------------------------------------------------------ */

/* Every key of good.ini parses to its exact value. */
static void
test_good(void **state)
{
	struct inventory	*inv;
	struct host		*h;
	size_t			 n;
	char			 names[256];

	(void)state;
	inv = load_ok(DIR "good.ini", 1);
	assert_int_equal(inventory_nhosts(inv), 3);
	assert_string_equal(inventory_host_name(inv, 0), "epyc");
	assert_string_equal(inventory_host_name(inv, 1), "m2");
	assert_string_equal(inventory_host_name(inv, 2), "twocore");
	assert_null(inventory_host_name(inv, 3));

	h = resolve_ok(inv, "epyc,m2,twocore", &n, names, sizeof names);
	assert_int_equal(n, 3);
	assert_string_equal(h[0].name, "epyc");
	assert_null(h[0].ops);
	assert_null(h[0].priv);
	assert_non_null(h[0].route);
	assert_int_equal(h[0].route->nhops, 0);
	assert_int_equal(h[0].route->reach.nids, 0);
	assert_string_equal(h[0].address, "epyc.lab.example.org");
	assert_int_equal(h[0].port, 2222);
	assert_string_equal(h[0].user, "bench");
	assert_string_equal(h[0].identity, HOME "/.ssh/id_ed25519");
	assert_int_equal(h[0].transport, HOST_TRANSPORT_DIRECT);
	assert_string_equal(h[0].workdir, "/srv/orch");
	assert_string_equal(h[0].pin, "2,3");
	assert_true(h[0].max_load == 0.33);
	assert_int_equal(h[0].line, 2);
	assert_int_equal(h[0].chan.sock, -1);
	assert_int_equal(h[0].status, HOST_OK);

	assert_string_equal(h[1].name, "m2");
	assert_string_equal(h[1].address, "192.0.2.10");
	assert_int_equal(h[1].port, 22);
	assert_string_equal(h[1].user, "alice");
	assert_string_equal(h[1].identity, "/keys/m2 key");
	assert_int_equal(h[1].transport, HOST_TRANSPORT_TUNNEL);
	assert_string_equal(h[1].workdir, "~/.orch");
	assert_string_equal(h[1].pin, "");
	assert_true(h[1].max_load < 0);
	assert_int_equal(h[1].line, 13);

	assert_string_equal(h[2].name, "twocore");
	assert_string_equal(h[2].address, "twocore.lab.example.org");
	assert_string_equal(h[2].user, "ops");
	assert_string_equal(h[2].identity, "");
	assert_int_equal(h[2].transport, HOST_TRANSPORT_TUNNEL);
	assert_string_equal(h[2].pin, "0-1,3,5-5");
	assert_int_equal(h[2].line, 17);
	free(h);
	inventory_free(inv);
}

/* IP literals (with an IPv6 zone) and host names are addresses. */
static void
test_addresses(void **state)
{
	struct inventory	*inv;
	struct host		*h;
	size_t			 n;
	char			 names[64];

	(void)state;
	inv = load_ok(DIR "addresses.ini", 0);
	h = resolve_ok(inv, "v4,v6,zone,fqdn,under", &n, names, sizeof names);
	assert_int_equal(n, 5);
	assert_string_equal(h[0].address, "192.0.2.1");
	assert_string_equal(h[1].address, "2001:db8::1");
	assert_string_equal(h[2].address, "fe80::1%eth0");
	assert_string_equal(h[3].address, "h-1.lab.example.org.");
	assert_string_equal(h[4].address, "my_host");
	free(h);
	inventory_free(inv);
}

/* A host with only an address gets every default. */
static void
test_defaults(void **state)
{
	struct inventory	*inv;
	struct host		*h;
	size_t			 n;
	char			 names[64];

	(void)state;
	inv = load_ok(DIR "defaults.ini", 0);
	h = resolve_ok(inv, "solo", &n, names, sizeof names);
	assert_int_equal(n, 1);
	assert_string_equal(h->name, "solo");
	assert_null(h->ops);
	assert_string_equal(h->address, "solo.example.org");
	assert_int_equal(h->port, 22);
	assert_string_equal(h->user, "alice");
	assert_string_equal(h->identity, "");
	assert_int_equal(h->transport, HOST_TRANSPORT_TUNNEL);
	assert_string_equal(h->workdir, "~/.orch");
	assert_string_equal(h->pin, "");
	assert_true(h->max_load < 0);
	assert_int_equal(h->line, 1);
	free(h);
	inventory_free(inv);
}

/* Without $USER the default user is the login name from the password file. */
static void
test_default_user_passwd(void **state)
{
	struct inventory	*inv;
	struct host		*h;
	struct passwd		*pw;
	size_t			 n;
	char			 names[64];

	(void)state;
	if ((pw = getpwuid(getuid())) == NULL || strlen(pw->pw_name) >= 64)
		skip();
	unsetenv("USER");
	inv = load_ok(DIR "defaults.ini", 0);
	h = resolve_ok(inv, "solo", &n, names, sizeof names);
	assert_string_equal(h->user, pw->pw_name);
	free(h);
	inventory_free(inv);
	setenv("USER", "", 1);	/* empty counts as unset */
	inv = load_ok(DIR "defaults.ini", 0);
	h = resolve_ok(inv, "solo", &n, names, sizeof names);
	assert_string_equal(h->user, pw->pw_name);
	free(h);
	inventory_free(inv);
}

/* An unusable $USER is reported at the host's section. */
static void
test_default_user_bad(void **state)
{
	struct inventory	*inv = (struct inventory *)1;
	char			*cause = NULL;

	(void)state;
	setenv("USER", "two words", 1);
	assert_int_equal(inventory_load(DIR "defaults.ini", 0, &inv, &cause),
	    -1);
	assert_null(inv);
	assert_string_equal(cause, DIR "defaults.ini:1: [host.solo] missing "
	    "user, and the login name 'two words' cannot be used");
	free(cause);
}

/* A file of comments and blank lines is an empty inventory. */
static void
test_empty_file(void **state)
{
	struct inventory	*inv;
	struct host		*h;
	size_t			 n;
	char			 names[64];

	(void)state;
	inv = load_ok(DIR "empty.ini", 1);
	assert_int_equal(inventory_nhosts(inv), 0);
	h = resolve_ok(inv, NULL, &n, names, sizeof names);
	assert_string_equal(names, "local");
	free(h);
	resolve_bad(inv, "all",
	    "--hosts: 'all' names no hosts (" DIR "empty.ini has none)");
	resolve_bad(inv, "epyc", "--hosts: unknown host or group 'epyc' ("
	    DIR "empty.ini has no hosts)");
	inventory_free(inv);
}

/* A missing file is an error only when the user named it. */
static void
test_missing_required(void **state)
{
	struct inventory	*inv = (struct inventory *)1;
	char			*cause = NULL;

	(void)state;
	assert_int_equal(inventory_load(DIR "no-such.ini", 1, &inv, &cause),
	    -1);
	assert_null(inv);
	assert_string_equal(cause, DIR "no-such.ini: No such file or "
	    "directory");
	free(cause);
	assert_int_equal(inventory_load(DIR "good.ini/x", 1, &inv, &cause),
	    -1);
	assert_null(inv);
	assert_string_equal(cause, DIR "good.ini/x: No such file or "
	    "directory");
	free(cause);
	inventory_free(NULL);
}

/* A missing default file is an empty inventory: `local` still resolves. */
static void
test_missing_optional(void **state)
{
	struct inventory	*inv;
	struct host		*h;
	size_t			 n;
	char			 names[64];

	(void)state;
	setenv("ORCH_WORKDIR", "/tmp/orch-wd", 1);
	inv = load_ok(DIR "no-such.ini", 0);
	assert_int_equal(inventory_nhosts(inv), 0);
	assert_null(inventory_host_name(inv, 0));
	h = resolve_ok(inv, NULL, &n, names, sizeof names);
	assert_int_equal(n, 1);
	assert_string_equal(h->name, "local");
	assert_string_equal(h->ops->kind, "local");
	assert_null(h->route);
	assert_string_equal(h->workdir, "/tmp/orch-wd");
	assert_string_equal(h->pin, "");
	assert_true(h->max_load < 0);
	assert_int_equal(h->line, 0);
	free(h);
	h = resolve_ok(inv, " local , local", &n, names, sizeof names);
	assert_string_equal(names, "local");
	free(h);
	resolve_bad(inv, "epyc", "--hosts: unknown host or group 'epyc' ("
	    DIR "no-such.ini does not exist; only 'local' exists)");
	resolve_bad(inv, "all", "--hosts: 'all' names no hosts ("
	    DIR "no-such.ini does not exist)");
	inventory_free(inv);
}

/* A file that cannot be read is an error even when not required. */
static void
test_unreadable(void **state)
{
	struct inventory	*inv = (struct inventory *)1;
	char			*cause = NULL;

	(void)state;
	assert_int_equal(inventory_load(DIR, 0, &inv, &cause), -1);
	assert_null(inv);
	assert_string_equal(cause, DIR ": Is a directory");
	free(cause);
}

/* A file over 1 MiB is refused before parsing. */
static void
test_too_large(void **state)
{
	struct inventory	*inv = (struct inventory *)1;
	char			 path[] = "/tmp/test-inventory.XXXXXX", *cause;
	char			 want[128];
	FILE			*f;
	int			 fd;
	size_t			 i;

	(void)state;
	assert_true((fd = mkstemp(path)) != -1);
	assert_non_null(f = fdopen(fd, "w"));
	for (i = 0; i < 1024 * 1024; i++)
		fputc(i % 64 == 63 ? '\n' : ';', f);
	assert_int_equal(fclose(f), 0);
	/* Exactly the limit is fine. */
	inv = load_ok(path, 1);
	inventory_free(inv);
	assert_non_null(f = fopen(path, "a"));
	fputc('\n', f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(inventory_load(path, 1, &inv, &cause), -1);
	assert_null(inv);
	snprintf(want, sizeof want, "%s: file too large (over 1048576 bytes)",
	    path);
	assert_string_equal(cause, want);
	free(cause);
	unlink(path);
}

/* The documented example inventory loads, with the values it shows. */
static void
test_example(void **state)
{
	struct inventory	*inv;
	struct host		*h;
	size_t			 n;
	char			 names[256];

	(void)state;
	inv = load_ok("inventory/example.ini", 1);
	h = resolve_ok(inv, "lab,local", &n, names, sizeof names);
	assert_string_equal(names, "epyc m2 twocore local");
	assert_string_equal(h[0].address, "epyc.lab.example.org");
	assert_int_equal(h[0].port, 22);
	assert_string_equal(h[0].user, "bench");
	assert_string_equal(h[0].identity, HOME "/.ssh/id_ed25519");
	assert_int_equal(h[0].transport, HOST_TRANSPORT_TUNNEL);
	assert_string_equal(h[0].workdir, "~/.orch");
	assert_string_equal(h[0].pin, "2,3");
	assert_true(h[0].max_load == 0.33);
	assert_string_equal(h[1].address, "m2.lab.example.org");
	assert_string_equal(h[1].pin, "");
	assert_true(h[1].max_load < 0);
	assert_string_equal(h[2].address, "192.0.2.20");
	assert_int_equal(h[2].port, 2222);
	assert_string_equal(h[2].identity, "");
	assert_string_equal(h[2].pin, "1");
	assert_true(h[2].max_load == 0.5);
	assert_string_equal(h[3].pin, "");
	assert_int_equal(h[3].line, 0);
	free(h);
	inventory_free(inv);
}

/* A BOM, CRLF line ends and trailing blanks are accepted. */
static void
test_crlf(void **state)
{
	struct inventory	*inv;
	struct host		*h;
	size_t			 n;
	char			 names[64];

	(void)state;
	inv = load_ok(DIR "crlf.ini", 1);
	h = resolve_ok(inv, "w", &n, names, sizeof names);
	assert_string_equal(names, "win");
	assert_string_equal(h->address, "win.example.org");
	assert_int_equal(h->port, 2200);
	assert_int_equal(h->line, 2);
	free(h);
	inventory_free(inv);
}

/* Without $HOME, ~/ is expanded with the password file's home. */
static void
test_tilde_passwd(void **state)
{
	struct inventory	*inv;
	struct host		*h;
	struct passwd		*pw;
	size_t			 n;
	char			 names[256], want[1100];

	(void)state;
	if ((pw = getpwuid(getuid())) == NULL || pw->pw_dir[0] == '\0' ||
	    strlen(pw->pw_dir) > 400)
		skip();
	snprintf(want, sizeof want, "%s/.ssh/id_ed25519", pw->pw_dir);
	unsetenv("HOME");
	inv = load_ok(DIR "good.ini", 1);
	h = resolve_ok(inv, "epyc", &n, names, sizeof names);
	assert_string_equal(h->identity, want);
	free(h);
	inventory_free(inv);
}

/* A ~/ path too long once expanded is refused, not cut. */
static void
test_tilde_long(void **state)
{
	struct inventory	*inv = (struct inventory *)1;
	char			 home[501], *cause = NULL;

	(void)state;
	memset(home, 'h', sizeof home - 1);
	home[0] = '/';
	home[sizeof home - 1] = '\0';
	setenv("HOME", home, 1);
	assert_int_equal(inventory_load(DIR "good.ini", 1, &inv, &cause), -1);
	assert_null(inv);
	assert_string_equal(cause, DIR "good.ini:6: [host.epyc] identity: "
	    "'~/.ssh/id_ed25519' is too long once expanded (at most 511 "
	    "characters)");
	free(cause);
}

/* Writes text to a new temporary file whose name goes into path. */
static void
write_tmp(char *path, size_t len, const char *text)
{
	FILE	*f;
	int	 fd;

	snprintf(path, len, "/tmp/test-inventory.XXXXXX");
	assert_true((fd = mkstemp(path)) != -1);
	assert_non_null(f = fdopen(fd, "w"));
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Returns an inventory of hosts h0.. and groups g0.. (g_i holds one host). */
static char *
many(size_t nhosts, size_t ngroups)
{
	char	*t;
	size_t	 i, o = 0, len = (nhosts + ngroups) * 48 + 1;

	assert_non_null(t = malloc(len));
	t[0] = '\0';
	for (i = 0; i < nhosts; i++)
		o += (size_t)snprintf(t + o, len - o, "[host.h%zu]\naddress = "
		    "h%zu\n", i, i);
	for (i = 0; i < ngroups; i++)
		o += (size_t)snprintf(t + o, len - o, "[group.g%zu]\nhosts = "
		    "h%zu\n", i, i % (nhosts > 0 ? nhosts : 1));
	return (t);
}

/* 1024 hosts and groups load; one more of either is refused. */
static void
test_limits(void **state)
{
	struct inventory	*inv = (struct inventory *)1;
	struct host		*h;
	char			 path[64], want[1024], *text, *cause = NULL;
	size_t			 n;

	(void)state;
	text = many(1024, 1024);
	write_tmp(path, sizeof path, text);
	free(text);
	inv = load_ok(path, 1);
	assert_int_equal(inventory_nhosts(inv), 1024);
	assert_string_equal(inventory_host_name(inv, 1023), "h1023");
	h = NULL;
	assert_int_equal(inventory_resolve(inv, "all,g5", &h, &n, &cause), 0);
	assert_int_equal(n, 1024);
	assert_string_equal(h[5].name, "h5");
	free(h);
	snprintf(want, sizeof want, "--hosts: unknown host or group 'x' (%s "
	    "has: h0, h1, h2, h3, h4, h5, h6, h7, h8, h9, h10, h11, h12, h13, "
	    "h14, h15, h16, h17, h18, h19, h20, h21, h22, h23, h24, h25, h26, "
	    "h27, h28, h29, h30, h31, ... (992 more); groups: g0, g1, g2, g3, "
	    "g4, g5, g6, g7, g8, g9, g10, g11, g12, g13, g14, g15, g16, g17, "
	    "g18, g19, g20, g21, g22, g23, g24, g25, g26, g27, g28, g29, g30, "
	    "g31, ... (992 more))", path);
	resolve_bad(inv, "x", want);
	inventory_free(inv);
	unlink(path);

	text = many(1025, 0);
	write_tmp(path, sizeof path, text);
	free(text);
	assert_int_equal(inventory_load(path, 1, &inv, &cause), -1);
	snprintf(want, sizeof want, "%s:2049: too many hosts (at most 1024)",
	    path);
	assert_string_equal(cause, want);
	free(cause);
	unlink(path);

	text = many(1, 1025);
	write_tmp(path, sizeof path, text);
	free(text);
	assert_int_equal(inventory_load(path, 1, &inv, &cause), -1);
	snprintf(want, sizeof want, "%s:2051: too many groups (at most 1024)",
	    path);
	assert_string_equal(cause, want);
	free(cause);
	unlink(path);
}

/* ---- Slurm ------------------------------------------------------------- */

/*
 * [slurm.NAME] with every key and one with the defaults; hosts with
 * slurm = NAME resolve (alone, in a group, in all) with no address, and
 * with no workdir unless their entry names one (run-slurm.c gives them
 * their node's); a plain host still resolves.
 */
static void
test_slurm(void **state)
{
	const struct inventory_slurm	*c;
	struct inventory_slurm_node	 node;
	struct inventory		*inv;
	struct host			*h = NULL;
	char				 names[256];
	size_t				 n;

	(void)state;
	inv = load_ok(DIR "good-slurm.ini", 1);
	assert_int_equal(inventory_nhosts(inv), 3);
	assert_non_null(c = inventory_slurm(inv, "lab"));
	assert_string_equal(c->name, "lab");
	assert_string_equal(c->login, "local");
	assert_string_equal(c->account, "bench");
	assert_string_equal(c->qos, "high");
	assert_int_equal(c->time_s, 5400);
	assert_int_equal(c->wait_s, 120);
	assert_int_equal(c->timeout_s, 10);
	assert_int_equal(c->nargs, 3);
	assert_string_equal(c->args[0], "--mem-per-cpu=1");
	assert_string_equal(c->args[1], "--comment=orch:x/y,z@1");
	assert_string_equal(c->args[2], "-x");
	assert_int_equal(c->line, 2);
	assert_non_null(c = inventory_slurm(inv, "hpc"));
	assert_string_equal(c->login, "hpc-login.example.org");
	assert_string_equal(c->account, "");
	assert_string_equal(c->qos, "");
	assert_int_equal(c->time_s, INVENTORY_SLURM_TIME);
	assert_int_equal(c->time_s, 3600);
	assert_int_equal(c->wait_s, 600);
	assert_int_equal(c->timeout_s, 30);
	assert_int_equal(c->nargs, 0);
	assert_null(inventory_slurm(inv, "nope"));
	assert_null(inventory_slurm(NULL, "lab"));

	assert_int_equal(inventory_slurm_host(inv, "e", &node), 1);
	assert_ptr_equal(node.cluster, inventory_slurm(inv, "lab"));
	assert_string_equal(node.partition, "epyc");
	assert_null(node.constraint);
	assert_null(node.nodelist);
	assert_int_equal(node.line, 14);
	assert_int_equal(inventory_slurm_host(inv, "a", &node), 1);
	assert_string_equal(node.partition, "arm");
	assert_string_equal(node.constraint, "a64fx&[r1|r2]");
	assert_string_equal(node.nodelist, "n[1-3],m2");
	assert_int_equal(inventory_slurm_host(inv, "plain", &node), 0);
	assert_null(node.cluster);
	assert_int_equal(inventory_slurm_host(inv, "nodes", &node), 0);
	assert_int_equal(inventory_slurm_host(inv, "zz", &node), 0);

	h = resolve_ok(inv, "plain", &n, names, sizeof names);
	assert_string_equal(names, "plain");
	free(h);
	h = resolve_ok(inv, "nodes", &n, names, sizeof names);
	assert_string_equal(names, "e a");
	assert_string_equal(h[0].address, "");
	assert_string_equal(h[0].workdir, "/tmp/orch-e");
	assert_string_equal(h[1].address, "");
	assert_string_equal(h[1].workdir, "");
	assert_string_equal(h[1].user, "bench");
	free(h);
	h = resolve_ok(inv, "all", &n, names, sizeof names);
	assert_string_equal(names, "e a plain");
	free(h);
	inventory_free(inv);
}

/* Loads [slurm.x] with one more line; returns the cluster or NULL. */
static struct inventory *
slurm_one(const char *line, const struct inventory_slurm **c)
{
	struct inventory	*inv = NULL;
	char			*cause = NULL, path[64], text[256];

	snprintf(text, sizeof text, "[slurm.x]\nlogin = local\n%s\n", line);
	write_tmp(path, sizeof path, text);
	if (inventory_load(path, 1, &inv, &cause) != 0) {
		assert_non_null(cause);
		free(cause);
		inv = NULL;
	}
	unlink(path);
	*c = inv != NULL ? inventory_slurm(inv, "x") : NULL;
	return (inv);
}

/*
 * time, wait and timeout take exactly what suite_parse_budget takes, with
 * the same value; args splits as oneline_split does, and refuses what is
 * not a plain option.
 */
static void
test_slurm_syntax(void **state)
{
	static const char *const durs[] = { "1", "90s", "20m", "2h", "1d",
	    "30d", "31d", "2592000", "2592001", "0", "0s", "", "s", "m",
	    "1x", "1.5h", "-1", "+1", "1 s", "1hs", "090s", "1H",
	    "99999999999999999999", "720h", "43200m", "43201m" };
	static const char *const args[] = { "-x", "--mem=0 --constraint=a,b",
	    "--comment=orch:1  --qos=high\t-N1", "-p epyc", "--x='a'",
	    "--x=\"a\"", "--x=a\\ b", "--x=$HOME", "--x=`id`", "--x;y",
	    "--x=*", "--x=~", "--x=#", "--x=a|b", "--x=(a)" };
	const struct inventory_slurm	*c;
	struct inventory		*inv;
	char				 line[128], **w, *cause;
	uint32_t			 want;
	size_t				 i, j, n;
	int				 ok;

	(void)state;
	for (i = 0; i < NELEM(durs); i++) {
		snprintf(line, sizeof line, "time = %s", durs[i]);
		inv = slurm_one(line, &c);
		ok = suite_parse_budget(durs[i], &want) == 0;
		if (ok != (inv != NULL))
			fail_msg("time = '%s': inventory %s, suite %s",
			    durs[i], inv != NULL ? "takes" : "refuses",
			    ok ? "takes" : "refuses");
		if (inv != NULL)
			assert_int_equal(c->time_s, want);
		inventory_free(inv);
	}
	for (i = 0; i < NELEM(args); i++) {
		snprintf(line, sizeof line, "args = %s", args[i]);
		inv = slurm_one(line, &c);
		/* "-p epyc": a word that is no option; the rest: quoting. */
		ok = i < 3;
		if (ok != (inv != NULL))
			fail_msg("args = '%s': %s", args[i], ok ?
			    "refused" : "taken");
		if (inv == NULL)
			continue;
		cause = NULL;
		assert_int_equal(oneline_split(args[i], &w, &n, &cause), 0);
		assert_int_equal(c->nargs, n);
		for (j = 0; j < n; j++)
			assert_string_equal(c->args[j], w[j]);
		oneline_free_words(w, n);
		inventory_free(inv);
	}
}

/* ---- bad inputs: fixture file, then the message after its path ---------- */

struct bad_case {
	const char	*file;
	const char	*want;	/* the cause after the fixture's path */
};

static const struct bad_case bad_cases[] = {
	{ "bad-syntax.ini",
	    ":3: syntax error: expected key = value" },
	{ "bad-section-bracket.ini",
	    ":3: syntax error: missing ']'" },
	{ "bad-section-text.ini",
	    ":1: syntax error: text after ']'" },
	{ "bad-unknown-section.ini",
	    ":4: unknown section [suite] (want [host.NAME], [group.NAME] or [slurm.NAME])" },
	{ "bad-unknown-section-empty.ini",
	    ":1: unknown section [hosts] (want [host.NAME], [group.NAME] or [slurm.NAME])" },
	{ "bad-outside.ini",
	    ":2: key 'address' outside any section" },
	{ "bad-empty-key.ini",
	    ":2: [host.a] unknown key ''" },
	{ "bad-unknown-key-host.ini",
	    ":3: [host.a] unknown key 'adress'" },
	{ "bad-unknown-key-group.ini",
	    ":4: [group.g] unknown key 'members'" },
	{ "bad-dup-key.ini",
	    ":5: [host.a] duplicate key 'port' (first on line 3)" },
	{ "bad-dup-key-group.ini",
	    ":5: [group.g] duplicate key 'hosts' (first on line 4)" },
	{ "bad-dup-host.ini",
	    ":5: duplicate section [host.a] (first on line 1)" },
	{ "bad-dup-group.ini",
	    ":5: duplicate section [group.g] (first on line 3)" },
	{ "bad-dup-local.ini",
	    ":3: duplicate section [host.local] (first on line 1)" },
	{ "bad-same-name-group.ini",
	    ":3: [group.lab] has the same name as [host.lab] (line 1)" },
	{ "bad-same-name-host.ini",
	    ":4: [host.lab] has the same name as [group.lab] (line 1)" },
	{ "bad-name-dash.ini",
	    ":1: [host.-a] bad name '-a' (want 1 to 63 of A-Z a-z 0-9 _ . -, not starting with - or .)" },
	{ "bad-name-dot.ini",
	    ":3: [group..g] bad name '.g' (want 1 to 63 of A-Z a-z 0-9 _ . -, not starting with - or .)" },
	{ "bad-name.ini",
	    ":1: [host.a b] bad name 'a b' (want 1 to 63 of A-Z a-z 0-9 _ . -, not starting with - or .)" },
	{ "bad-name-empty.ini",
	    ":1: [group.] bad name '' (want 1 to 63 of A-Z a-z 0-9 _ . -, not starting with - or .)" },
	{ "bad-name-long.ini",
	    ":1: [host.nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn] bad name 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn' (want 1 to 63 of A-Z a-z 0-9 _ . -, not starting with - or .)" },
	{ "bad-name-char.ini",
	    ":1: [host.epyc/1] bad name 'epyc/1' (want 1 to 63 of A-Z a-z 0-9 _ . -, not starting with - or .)" },
	{ "bad-reserved-all-group.ini",
	    ":1: [group.all] 'all' is reserved (it means every host)" },
	{ "bad-reserved-all-host.ini",
	    ":1: [host.all] 'all' is reserved (it means every host)" },
	{ "bad-reserved-local-group.ini",
	    ":1: [group.local] 'local' is reserved (the built-in host)" },
	{ "bad-local-key.ini",
	    ":3: [host.local] the built-in local host takes only workdir, pin and max_load" },
	{ "bad-local-unknown-key.ini",
	    ":2: [host.local] the built-in local host takes only workdir, pin and max_load" },
	{ "bad-local-pin.ini",
	    ":2: [host.local] bad pin 'all' (want a CPU list like 0-3,8 with CPUs 0 to 1023)" },
	{ "bad-missing-address.ini",
	    ":1: [host.a] missing address" },
	{ "bad-missing-address-last.ini",
	    ":3: [host.b] missing address" },
	{ "bad-address-empty.ini",
	    ":2: [host.a] bad address '' (want a host name of letters, digits, '-', '_' and '.', or an IP address; at most 255 characters)" },
	{ "bad-address-space.ini",
	    ":2: [host.a] bad address 'epyc lab' (want a host name of letters, digits, '-', '_' and '.', or an IP address; at most 255 characters)" },
	{ "bad-address-semicolon.ini",
	    ":2: [host.a] bad address 'epyc;touch${IFS}x' (want a host name of letters, digits, '-', '_' and '.', or an IP address; at most 255 characters)" },
	{ "bad-address-subst.ini",
	    ":2: [host.a] bad address '$(reboot)' (want a host name of letters, digits, '-', '_' and '.', or an IP address; at most 255 characters)" },
	{ "bad-address-backtick.ini",
	    ":2: [host.a] bad address '`id`.lab' (want a host name of letters, digits, '-', '_' and '.', or an IP address; at most 255 characters)" },
	{ "bad-address-dots.ini",
	    ":2: [host.a] bad address 'a..b' (want a host name of letters, digits, '-', '_' and '.', or an IP address; at most 255 characters)" },
	{ "bad-address-label-dash.ini",
	    ":2: [host.a] bad address 'lab-.example' (want a host name of letters, digits, '-', '_' and '.', or an IP address; at most 255 characters)" },
	{ "bad-address-zone.ini",
	    ":2: [host.a] bad address 'fe80::1%eth0;x' (want a host name of letters, digits, '-', '_' and '.', or an IP address; at most 255 characters)" },
	{ "bad-address-dash.ini",
	    ":2: [host.a] bad address '-oProxyCommand=x' (want a host name of letters, digits, '-', '_' and '.', or an IP address; at most 255 characters)" },
	{ "bad-port-zero.ini",
	    ":3: [host.a] bad port '0' (want 1 to 65535)" },
	{ "bad-port-big.ini",
	    ":3: [host.a] bad port '70000' (want 1 to 65535)" },
	{ "bad-port-text.ini",
	    ":3: [host.a] bad port '22x' (want 1 to 65535)" },
	{ "bad-port-sign.ini",
	    ":3: [host.a] bad port '+22' (want 1 to 65535)" },
	{ "bad-port-empty.ini",
	    ":3: [host.a] bad port '' (want 1 to 65535)" },
	{ "bad-user-empty.ini",
	    ":3: [host.a] bad user '' (want a login name: no spaces, no leading '-', at most 63 characters)" },
	{ "bad-user-space.ini",
	    ":3: [host.a] bad user 'bench user' (want a login name: no spaces, no leading '-', at most 63 characters)" },
	{ "bad-identity-user.ini",
	    ":3: [host.a] identity: '~bob/.ssh/id_ed25519': only ~/ is expanded, not ~user" },
	{ "bad-identity-control.ini",
	    ":3: [host.a] bad identity: control character in path" },
	{ "bad-transport.ini",
	    ":3: [host.a] bad transport 'ssh' (want tunnel or direct)" },
	{ "bad-workdir-empty.ini",
	    ":3: [host.a] bad workdir '' (want a directory path)" },
	{ "bad-pin-text.ini",
	    ":3: [host.a] bad pin '2,x' (want a CPU list like 0-3,8 with CPUs 0 to 1023)" },
	{ "bad-pin-range.ini",
	    ":3: [host.a] bad pin '3-1' (want a CPU list like 0-3,8 with CPUs 0 to 1023)" },
	{ "bad-pin-big.ini",
	    ":3: [host.a] bad pin '0-1024' (want a CPU list like 0-3,8 with CPUs 0 to 1023)" },
	{ "bad-pin-trailing.ini",
	    ":3: [host.a] bad pin '1,' (want a CPU list like 0-3,8 with CPUs 0 to 1023)" },
	{ "bad-pin-space.ini",
	    ":3: [host.a] bad pin '1, 2' (want a CPU list like 0-3,8 with CPUs 0 to 1023)" },
	{ "bad-max-load-neg.ini",
	    ":3: [host.a] bad max_load '-1' (want a number >= 0, like 0.33)" },
	{ "bad-max-load-text.ini",
	    ":3: [host.a] bad max_load '0.3x' (want a number >= 0, like 0.33)" },
	{ "bad-max-load-exp.ini",
	    ":3: [host.a] bad max_load '1e3' (want a number >= 0, like 0.33)" },
	{ "bad-max-load-dot.ini",
	    ":3: [host.a] bad max_load '.' (want a number >= 0, like 0.33)" },
	{ "bad-group-unknown.ini",
	    ":7: [group.lab] unknown host or group 'm3'" },
	{ "bad-group-unknown-later.ini",
	    ":4: [group.b] unknown host or group 'c'" },
	{ "bad-group-self.ini",
	    ":4: [group.a] includes itself (a -> a)" },
	{ "bad-group-cycle.ini",
	    ":4: [group.a] includes itself (a -> b -> a)" },
	{ "bad-group-cycle-deep.ini",
	    ":6: [group.a] includes itself (a -> b -> c -> a)" },
	{ "bad-group-missing-hosts.ini",
	    ":3: [group.g] missing hosts" },
	{ "bad-group-empty-list.ini",
	    ":2: [group.g] hosts: empty list" },
	{ "bad-group-empty-name.ini",
	    ":6: [group.g] hosts: empty name in 'a,,b'" },
	{ "bad-group-trailing.ini",
	    ":4: [group.g] hosts: empty name in 'a,'" },
	{ "bad-group-bad-name.ini",
	    ":6: [group.g] hosts: bad name 'epyc m2' (want 1 to 63 of A-Z a-z 0-9 _ . -, not starting with - or ., separated by commas)" },
	{ "bad-group-all.ini",
	    ":4: [group.g] hosts: 'all' cannot be a member (name the hosts or groups)" },
	{ "bad-group-twice.ini",
	    ":4: [group.g] hosts: 'a' listed twice" },
	{ "bad-nul.ini",
	    ":3: NUL byte in file" },
	{ "bad-long-line.ini",
	    ":2: line too long (at most 198 characters)" },	{ "bad-slurm-no-login.ini",
	    ":1: [slurm.lab] missing login (a host where Slurm's commands run, or local)" },
	{ "bad-slurm-login.ini",
	    ":2: [slurm.lab] bad login '-oProxyCommand=x' (want local, or a host of the inventory or of ssh_config)" },
	{ "bad-slurm-time.ini",
	    ":3: [slurm.lab] bad time '1x' (want a duration like 90s, 20m or 2h, at most 30d)" },
	{ "bad-slurm-wait.ini",
	    ":3: [slurm.lab] bad wait '0' (want a duration like 90s, 20m or 2h, at most 30d)" },
	{ "bad-slurm-timeout.ini",
	    ":3: [slurm.lab] bad timeout '31d' (want a duration like 90s, 20m or 2h, at most 30d)" },
	{ "bad-slurm-args.ini",
	    ":3: [slurm.lab] args: bad word '$(id)' (want salloc options separated by blanks, each starting with - and its value after =, of A-Z a-z 0-9 _ . / , : + = @ % ^ -; no quotes, no shell)" },
	{ "bad-slurm-account.ini",
	    ":3: [slurm.lab] bad account 'a/b' (want A-Z a-z 0-9 _ . -, not starting with -, at most 127 characters)" },
	{ "bad-slurm-qos.ini",
	    ":3: [slurm.lab] bad qos '-x' (want A-Z a-z 0-9 _ . -, not starting with -, at most 127 characters)" },
	{ "bad-slurm-unknown-key.ini",
	    ":3: [slurm.lab] unknown key 'partition'" },
	{ "bad-slurm-dup.ini",
	    ":3: duplicate section [slurm.lab] (first on line 1)" },
	{ "bad-slurm-name.ini",
	    ":1: [slurm.-x] bad name '-x' (want 1 to 63 of A-Z a-z 0-9 _ . -, not starting with - or .)" },
	{ "bad-slurm-unknown.ini",
	    ":5: [host.e] unknown slurm 'nope' (no [slurm.nope] section)" },
	{ "bad-slurm-no-partition.ini",
	    ":4: [host.e] missing partition (a host with slurm = names its partition)" },
	{ "bad-slurm-partition-alone.ini",
	    ":3: [host.e] partition without slurm (it is a key of a Slurm host)" },
	{ "bad-slurm-address.ini",
	    ":7: [host.e] address and slurm exclude each other (a Slurm host is the node allocated for the run)" },
	{ "bad-slurm-ssh-config.ini",
	    ":7: [host.e] ssh_config and slurm exclude each other (a Slurm host is the node allocated for the run)" },
	{ "bad-slurm-partition.ini",
	    ":6: [host.e] bad partition 'a b' (want a Slurm partition: A-Z a-z 0-9 _ . -, not starting with -, at most 127 characters)" },
	{ "bad-slurm-constraint.ini",
	    ":7: [host.e] bad constraint 'a;b' (want Slurm features like a&b or [x|y]: no spaces, not starting with -, at most 255 characters)" },
	{ "bad-slurm-nodelist.ini",
	    ":7: [host.e] bad nodelist '-n1' (want Slurm node names like n1 or n[1-3],m2: no spaces, not starting with -, at most 255 characters)" },
	{ "bad-slurm-login-node.ini",
	    ":1: [slurm.lab] login 'e' is a Slurm host itself (line 4)" },
	{ "bad-slurm-login-group.ini",
	    ":1: [slurm.lab] login 'logins' is a group (want one host, or local)" },
	{ "bad-slurm-login-all.ini",
	    ":2: [slurm.lab] bad login 'all' (want local, or a host of the inventory or of ssh_config)" },
	{ "bad-slurm-slurm.ini",
	    ":2: [host.e] bad slurm 'l b' (want the NAME of a [slurm.NAME] section)" },
	{ "bad-slurm-local.ini",
	    ":5: [host.local] the built-in local host takes only workdir, pin and max_load" },
};

/* One bad fixture: the load fails with exactly the expected message. */
static void
test_bad(void **state)
{
	const struct bad_case	*c = *state;
	struct inventory	*inv = (struct inventory *)1;
	char			*cause = NULL, path[256], want[512];

	setup_env(NULL);
	snprintf(path, sizeof path, DIR "%s", c->file);
	snprintf(want, sizeof want, "%s%s", path, c->want);
	assert_int_equal(inventory_load(path, 0, &inv, &cause), -1);
	assert_null(inv);
	assert_non_null(cause);
	assert_string_equal(cause, want);
	free(cause);
}

/* ---- resolving --hosts ------------------------------------------------- */

/* Host names, groups, nested groups, `all` and `local`, in list order. */
static void
test_resolve(void **state)
{
	static const struct {
		const char	*list;
		const char	*want;
	} cases[] = {
		{ "epyc", "epyc" },
		{ "m2,epyc", "m2 epyc" },
		{ "lab", "epyc m2 twocore" },
		{ "arm", "m2" },
		{ "nested", "m2 local epyc twocore" },
		{ "all", "epyc m2 twocore" },
		{ "local,all", "local epyc m2 twocore" },
		{ "all,local", "epyc m2 twocore local" },
		{ "local", "local" },
		{ " twocore , epyc,lab ,twocore,local,nested ",
		    "twocore epyc m2 local" },
		{ "arm,arm,nested,all", "m2 local epyc twocore" },
	};
	static const struct {
		const char	*list;
		const char	*want;
	} diamond[] = {
		{ "top", "h1 h2 h3" },
		{ "right", "h1 h2" },
		{ "h3,right,top", "h3 h1 h2" },
		{ "h2,bottom,all", "h2 h1 h3" },
	};
	struct inventory	*inv;
	struct host		*h;
	size_t			 i, n;
	char			 names[256];

	(void)state;
	inv = load_ok(DIR "good.ini", 1);
	for (i = 0; i < NELEM(cases); i++) {
		h = resolve_ok(inv, cases[i].list, &n, names, sizeof names);
		if (strcmp(names, cases[i].want) != 0)
			fail_msg("'%s': got '%s', want '%s'", cases[i].list,
			    names, cases[i].want);
		free(h);
	}
	inventory_free(inv);
	inv = load_ok(DIR "diamond.ini", 1);
	for (i = 0; i < NELEM(diamond); i++) {
		h = resolve_ok(inv, diamond[i].list, &n, names, sizeof names);
		if (strcmp(names, diamond[i].want) != 0)
			fail_msg("'%s': got '%s', want '%s'", diamond[i].list,
			    names, diamond[i].want);
		free(h);
	}
	inventory_free(inv);
}

/* Unknown names list what exists; empty lists and names are refused. */
static void
test_resolve_bad(void **state)
{
	struct inventory	*inv;

	(void)state;
	inv = load_ok(DIR "good.ini", 1);
	resolve_bad(inv, "nope", "--hosts: unknown host or group 'nope' ("
	    DIR "good.ini has: epyc, m2, twocore; groups: lab, arm, nested)");
	resolve_bad(inv, "epyc,EPYC", "--hosts: unknown host or group 'EPYC' "
	    "(" DIR "good.ini has: epyc, m2, twocore; groups: lab, arm, "
	    "nested)");
	resolve_bad(inv, "", "--hosts: empty list");
	resolve_bad(inv, "  ", "--hosts: empty list");
	resolve_bad(inv, " , ,", "--hosts: empty list");
	resolve_bad(inv, "epyc,,m2", "--hosts: empty name in 'epyc,,m2'");
	resolve_bad(inv, "epyc,", "--hosts: empty name in 'epyc,'");
	inventory_free(inv);
	resolve_bad(NULL, "epyc", "--hosts: unknown host or group 'epyc' (no "
	    "inventory; only 'local' exists)");
}

/* [host.local] overrides workdir (~/ expanded here), pin and max_load. */
static void
test_resolve_local(void **state)
{
	struct inventory	*inv;
	struct host		*h;
	size_t			 n;
	char			 names[256];

	(void)state;
	setenv("ORCH_WORKDIR", "/tmp/orch-wd", 1);
	inv = load_ok(DIR "good.ini", 1);
	h = resolve_ok(inv, NULL, &n, names, sizeof names);
	assert_int_equal(n, 1);
	assert_string_equal(h->name, "local");
	assert_string_equal(h->ops->kind, "local");
	assert_null(h->route);
	assert_int_equal(h->chan.sock, -1);
	assert_string_equal(h->workdir, HOME "/orch-work");
	assert_string_equal(h->pin, "1");
	assert_true(h->max_load == 0.5);
	assert_int_equal(h->line, 30);
	free(h);
	inventory_free(inv);

	/* Only max_load: workdir stays as host_local_init() set it. */
	inv = load_ok(DIR "local-only.ini", 1);
	assert_int_equal(inventory_nhosts(inv), 0);
	h = resolve_ok(inv, "me", &n, names, sizeof names);
	assert_string_equal(names, "local");
	assert_string_equal(h->workdir, "/tmp/orch-wd");
	assert_string_equal(h->pin, "");
	assert_true(h->max_load == 0);
	assert_int_equal(h->line, 1);
	free(h);
	resolve_bad(inv, "all", "--hosts: 'all' names no hosts ("
	    DIR "local-only.ini has none)");
	resolve_bad(inv, "you", "--hosts: unknown host or group 'you' ("
	    DIR "local-only.ini has no hosts; groups: me)");
	inventory_free(inv);

	/* No inventory at all: the built-in host as is. */
	unsetenv("ORCH_WORKDIR");
	h = resolve_ok(NULL, "local", &n, names, sizeof names);
	assert_string_equal(h->workdir, "");
	assert_true(h->max_load < 0);
	free(h);
}

/* hosts_resolve binds each host to its backend: local, else SSH. */
static void
test_hosts_resolve(void **state)
{
	struct host	*h = NULL;
	char		*cause = NULL;
	size_t		 n = 0;

	(void)state;
	assert_int_equal(hosts_resolve(DIR "good.ini", "epyc,local,m2", &h,
	    &n, &cause), 0);
	assert_null(cause);
	assert_int_equal(n, 3);
	assert_string_equal(h[0].ops->kind, "ssh");
	assert_non_null(h[0].route);
	assert_string_equal(h[1].ops->kind, "local");
	assert_null(h[1].route);
	assert_string_equal(h[2].ops->kind, "ssh");
	assert_non_null(h[2].route);
	assert_true(h[0].route != h[2].route);
	assert_int_equal(h[2].chan.sock, -1);
	free(h);

	/* An inventory given and missing: its path and why. */
	h = (struct host *)1;
	assert_int_equal(hosts_resolve(DIR "no-such.ini", NULL, &h, &n,
	    &cause), -1);
	assert_null(h);
	assert_int_equal(n, 0);
	assert_non_null(cause);
	assert_non_null(strstr(cause, DIR "no-such.ini"));
	free(cause);
	inventory_forget();
}

/* Writes text to path, replacing what it held. */
static void
put_file(const char *path, const char *text)
{
	FILE	*f;

	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/*
 * inventory_get reads a file once in a process: the hosts of a command
 * and their Slurm clusters (read again by run, check and deploy) come
 * from one version of it, even when it changes in between. A failed load
 * is not kept, and inventory_forget makes the next call read anew.
 */
static void
test_get_once(void **state)
{
	const struct inventory	*a, *b, *c;
	struct host		*h = NULL;
	char			 dir[] = "/tmp/test-inventory.XXXXXX", path[64];
	char			*cause = NULL;
	size_t			 n = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/hosts.ini", dir);

	/* Missing and required: an error, not kept. */
	assert_int_equal(inventory_get(path, 1, &a, &cause), -1);
	assert_null(a);
	assert_non_null(strstr(cause, path));
	free(cause);
	cause = NULL;

	put_file(path, "[host.one]\naddress = 127.0.0.1\n");
	assert_int_equal(inventory_get(path, 1, &a, &cause), 0);
	assert_null(cause);
	assert_int_equal(inventory_nhosts(a), 1);
	assert_string_equal(inventory_host_name(a, 0), "one");

	/* Changed on disk: the process goes on with what it read. */
	put_file(path, "[host.two]\naddress = 127.0.0.1\n"
	    "[host.three]\naddress = 127.0.0.1\n");
	assert_int_equal(inventory_get(path, 1, &b, &cause), 0);
	assert_ptr_equal(a, b);
	assert_int_equal(inventory_nhosts(b), 1);
	assert_int_equal(hosts_resolve(path, "all", &h, &n, &cause), 0);
	assert_int_equal(n, 1);
	assert_string_equal(h[0].name, "one");
	free(h);

	/* The same path asked for as optional is a reading of its own. */
	assert_int_equal(inventory_get(path, 0, &c, &cause), 0);
	assert_true(c != a);
	assert_int_equal(inventory_nhosts(c), 2);

	inventory_forget();
	assert_int_equal(inventory_get(path, 1, &a, &cause), 0);
	assert_int_equal(inventory_nhosts(a), 2);
	assert_string_equal(inventory_host_name(a, 0), "two");
	inventory_forget();
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* ---- inventory_path ----------------------------------------------------- */

/* --inventory beats $ORCH_INVENTORY, which beats the default. */
static void
test_path(void **state)
{
	int	req = -1;

	(void)state;
	assert_string_equal(inventory_path(NULL, &req), "inventory/hosts.ini");
	assert_int_equal(req, 0);
	setenv("ORCH_INVENTORY", "", 1);
	req = -1;
	assert_string_equal(inventory_path(NULL, &req), "inventory/hosts.ini");
	assert_int_equal(req, 0);
	setenv("ORCH_INVENTORY", "/etc/orch/lab.ini", 1);
	req = -1;
	assert_string_equal(inventory_path(NULL, &req), "/etc/orch/lab.ini");
	assert_int_equal(req, 1);
	req = -1;
	assert_string_equal(inventory_path("mine.ini", &req), "mine.ini");
	assert_int_equal(req, 1);
	unsetenv("ORCH_INVENTORY");
	req = -1;
	assert_string_equal(inventory_path("mine.ini", &req), "mine.ini");
	assert_int_equal(req, 1);
}

/* Runs the named cases, then one test per bad fixture. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_good, setup_env),
		cmocka_unit_test_setup(test_defaults, setup_env),
		cmocka_unit_test_setup(test_addresses, setup_env),
		cmocka_unit_test_setup(test_default_user_passwd, setup_env),
		cmocka_unit_test_setup(test_default_user_bad, setup_env),
		cmocka_unit_test_setup(test_empty_file, setup_env),
		cmocka_unit_test_setup(test_missing_required, setup_env),
		cmocka_unit_test_setup(test_missing_optional, setup_env),
		cmocka_unit_test_setup(test_unreadable, setup_env),
		cmocka_unit_test_setup(test_too_large, setup_env),
		cmocka_unit_test_setup(test_example, setup_env),
		cmocka_unit_test_setup(test_crlf, setup_env),
		cmocka_unit_test_setup(test_tilde_passwd, setup_env),
		cmocka_unit_test_setup(test_tilde_long, setup_env),
		cmocka_unit_test_setup(test_limits, setup_env),
		cmocka_unit_test_setup(test_resolve, setup_env),
		cmocka_unit_test_setup(test_resolve_bad, setup_env),
		cmocka_unit_test_setup(test_resolve_local, setup_env),
		cmocka_unit_test_setup(test_hosts_resolve, setup_env),
		cmocka_unit_test_setup(test_get_once, setup_env),
		cmocka_unit_test_setup(test_path, setup_env),
		cmocka_unit_test_setup(test_slurm, setup_env),
		cmocka_unit_test_setup(test_slurm_syntax, setup_env),
	};
	struct CMUnitTest	bad[NELEM(bad_cases)];
	size_t			i;
	int			fails = 0;

	for (i = 0; i < NELEM(bad_cases); i++) {
		memset(&bad[i], 0, sizeof bad[i]);
		bad[i].name = bad_cases[i].file;
		bad[i].test_func = test_bad;
		bad[i].initial_state = (void *)(uintptr_t)&bad_cases[i];
	}
	fails += cmocka_run_group_tests_name("inventory", tests, NULL, NULL);
	fails += _cmocka_run_group_tests("inventory_bad", bad, NELEM(bad),
	    NULL, NULL);
	return (fails != 0);
}
