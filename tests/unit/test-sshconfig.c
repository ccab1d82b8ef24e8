/*
 * Unit tests for coordinator/hosts/sshconfig.c and the jump host resolution of
 * coordinator/hosts/inventory.c: `ssh -G` answers, good and hostile, each with
 * the exact result or message beside it; ProxyJump hop lists; jump chains
 * through inventory hosts with their loops; and one real `ssh -G -F FILE`.
 */
#include <sys/types.h>

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
#include "coordinator/hosts/inventory.h"
#include "coordinator/hosts/sshconfig.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))
#define HOME		"/home/tester"

/* Sets the environment every test starts from. */
static int
setup_env(void **state)
{
	(void)state;
	setenv("HOME", HOME, 1);
	setenv("USER", "alice", 1);
	unsetenv("ORCH_SSH_CONFIG");
	sshcfg_set_file(NULL);
	return (0);
}

/* Parses text as ssh -G's answer for host "epyc"; returns parse's result. */
static int
parse(const char *text, struct sshcfg *c, char *err, size_t errlen)
{
	err[0] = '\0';
	return (sshcfg_parse("epyc", text, strlen(text), c, err, errlen));
}

/* A typical answer: the keys orch keeps, the many it ignores. */
static void
test_parse_good(void **state)
{
	struct sshcfg	c;
	char		err[1024];

	(void)state;
	assert_int_equal(parse("host epyc\nuser bench\nhostname 10.0.0.7\n"
	    "port 2222\naddressfamily any\nidentityfile ~/.ssh/id_ed25519\n"
	    "identityfile /keys/%h-%r-%p-%n-%%\nproxyjump bastion,u@b2:23\n"
	    "hostkeyalias epyc.lab\nconnecttimeout 7\n"
	    "userknownhostsfile /root/kh /root/kh2 none\n"
	    "proxycommand none\nciphers aes128-ctr\n", &c, err, sizeof err),
	    0);
	assert_string_equal(c.hostname, "10.0.0.7");
	assert_string_equal(c.user, "bench");
	assert_int_equal(c.port, 2222);
	assert_int_equal(c.reach.nids, 2);
	assert_string_equal(c.reach.ids[0], HOME "/.ssh/id_ed25519");
	assert_string_equal(c.reach.ids[1],
	    "/keys/10.0.0.7-bench-2222-epyc-%");
	assert_string_equal(c.proxyjump, "bastion,u@b2:23");
	assert_string_equal(c.reach.hostkey_alias, "epyc.lab");
	assert_int_equal(c.reach.timeout_ms, 7000);
	assert_int_equal(c.reach.nkh, 2);
	assert_string_equal(c.reach.known_hosts[0], "/root/kh");
	assert_string_equal(c.reach.known_hosts[1], "/root/kh2");
}

/* Defaults: no port line is 22; "none" values are none; CRLF is fine. */
static void
test_parse_defaults(void **state)
{
	struct sshcfg	c;
	char		err[1024];

	(void)state;
	assert_int_equal(parse("hostname epyc\r\nuser u\r\nproxyjump none\r\n"
	    "connecttimeout none\r\nnokey\r\n", &c, err, sizeof err), 0);
	assert_int_equal(c.port, 22);
	assert_string_equal(c.proxyjump, "");
	assert_int_equal(c.reach.timeout_ms, 0);
	assert_int_equal(c.reach.nids, 0);
	assert_int_equal(c.reach.nkh, 0);
}

/* Hostile answers, each refused with the message beside it. */
static const struct {
	const char	*text;
	const char	*msg;
} parse_bad[] = {
	{ "user u\n", "ssh_config host epyc: ssh -G gave no hostname" },
	{ "hostname -oProxyCommand=x\n", "ssh_config host epyc: bad HostName "
	    "'-oProxyCommand=x' (want a host name or IP address)" },
	{ "hostname a\x1b[2Jb\n", "ssh_config host epyc: bad HostName "
	    "'a?[2Jb' (want a host name or IP address)" },
	{ "hostname h\nproxyjump a\x07" "b\n", "ssh_config host epyc: "
	    "ProxyJump: bad jump host 'a?b' (want [user@]host[:port], hosts "
	    "separated by commas)" },
	{ "hostname a;reboot\n", "ssh_config host epyc: bad HostName "
	    "'a;reboot' (want a host name or IP address)" },
	{ "hostname h\nuser -l\n", "ssh_config host epyc: bad User '-l' (want "
	    "a login name: no spaces, no leading '-', at most 63 characters)" },
	{ "hostname h\nuser a b\n", "ssh_config host epyc: bad User 'a b' "
	    "(want a login name: no spaces, no leading '-', at most 63 "
	    "characters)" },
	{ "hostname h\nport 0\n", "ssh_config host epyc: bad Port '0' (want 1 "
	    "to 65535)" },
	{ "hostname h\nport 65536\n", "ssh_config host epyc: bad Port '65536' "
	    "(want 1 to 65535)" },
	{ "hostname h\nport 22x\n", "ssh_config host epyc: bad Port '22x' "
	    "(want 1 to 65535)" },
	{ "hostname h\nproxycommand nc %h %p\n", "ssh_config host epyc: "
	    "ProxyCommand is not supported (orch speaks SSH itself); use "
	    "ProxyJump, or an inventory entry with jump =" },
	{ "hostname h\nproxyjump a,,b\n", "ssh_config host epyc: ProxyJump: "
	    "bad jump host '' (want [user@]host[:port], hosts separated by "
	    "commas)" },
	{ "hostname h\nproxyjump a,b,c,d,e\n", "ssh_config host epyc: "
	    "ProxyJump has more than 4 hops" },
	{ "hostname h\nproxyjump x$(id)\n", "ssh_config host epyc: ProxyJump: "
	    "bad jump host 'x$(id)' (want [user@]host[:port], hosts separated "
	    "by commas)" },
	{ "hostname h\nhostkeyalias a b\n", "ssh_config host epyc: bad "
	    "HostKeyAlias 'a b'" },
	{ "hostname h\nconnecttimeout -1\n", "ssh_config host epyc: bad "
	    "ConnectTimeout '-1' (want 1 to 3600 seconds)" },
	{ "hostname h\nconnecttimeout 99999999999999999999\n", "ssh_config "
	    "host epyc: bad ConnectTimeout '99999999999999999999' (want 1 to "
	    "3600 seconds)" },
	{ "hostname h\nidentityfile ~/%C\n", "ssh_config host epyc: "
	    "IdentityFile has %C, a token orch does not expand (it knows %% %d "
	    "%u %h %r %p %n %i)" },
	{ "hostname h\nidentityfile ~bob/k\n", "ssh_config host epyc: "
	    "IdentityFile '~bob/k': only ~/ is expanded, not ~user" },
	{ "hostname h\nidentityfile a\x01" "b\n", "ssh_config host epyc: "
	    "IdentityFile holds a control character" },
	{ "hostname h\nidentityfile \n", "ssh_config host epyc: empty "
	    "IdentityFile" },
	{ "hostname h\nuserknownhostsfile ~x/kh\n", "ssh_config host epyc: "
	    "UserKnownHostsFile '~x/kh': only ~/ is expanded, not ~user" },
};

/* Each hostile answer gets its message. */
static void
test_parse_bad(void **state)
{
	struct sshcfg	c;
	char		err[1024];
	size_t		i;

	(void)state;
	for (i = 0; i < NELEM(parse_bad); i++) {
		if (parse(parse_bad[i].text, &c, err, sizeof err) != -1)
			fail_msg("case %zu accepted: %s", i, parse_bad[i].text);
		if (strcmp(err, parse_bad[i].msg) != 0)
			fail_msg("case %zu: got '%s', want '%s'", i, err,
			    parse_bad[i].msg);
	}
}

/* NUL bytes, over-long paths and lines: refused or skipped, never overrun. */
static void
test_parse_sizes(void **state)
{
	struct sshcfg	 c;
	char		 err[1024], *big;
	const char	 nul[] = "hostname h\nuser a\0b\n";
	size_t		 i, n;

	(void)state;
	assert_int_equal(sshcfg_parse("epyc", nul, sizeof nul - 1, &c, err,
	    sizeof err), -1);
	assert_string_equal(err, "ssh_config host epyc: ssh -G printed a NUL "
	    "byte");

	/* An identity path longer than a host's field. */
	n = 20000;
	big = malloc(n + 64);
	assert_non_null(big);
	strcpy(big, "hostname h\nidentityfile /");
	for (i = strlen(big); i < n; i++)
		big[i] = 'k';
	strcpy(big + n, "\n");
	assert_int_equal(parse(big, &c, err, sizeof err), 0);
	assert_int_equal(c.reach.nids, 0);	/* a line too long is skipped */
	strcpy(big, "hostname h\nidentityfile /");
	for (i = strlen(big); i < 1000; i++)
		big[i] = 'k';
	strcpy(big + 1000, "\n");
	assert_int_equal(parse(big, &c, err, sizeof err), -1);
	assert_string_equal(err, "ssh_config host epyc: an IdentityFile path is "
	    "too long");
	/* A HostName longer than the field. */
	strcpy(big, "hostname ");
	for (i = strlen(big); i < 400; i++)
		big[i] = 'a';
	strcpy(big + 400, "\n");
	assert_int_equal(parse(big, &c, err, sizeof err), -1);
	/* More identity files than kept: the first HOST_IDS_MAX. */
	strcpy(big, "hostname h\n");
	for (i = 0; i < HOST_IDS_MAX + 5; i++)
		snprintf(big + strlen(big), 64, "identityfile /k%zu\n", i);
	assert_int_equal(parse(big, &c, err, sizeof err), 0);
	assert_int_equal(c.reach.nids, HOST_IDS_MAX);
	assert_string_equal(c.reach.ids[HOST_IDS_MAX - 1], "/k7");
	free(big);
}

/* ProxyJump lists, hop by hop. */
static void
test_next_hop(void **state)
{
	const char	*spec = "bastion,ssh://me@b2:2022,[fe80::1]:23,10.0.0.1";
	char		 user[64], host[256], err[512];
	int		 port;

	(void)state;
	assert_int_equal(sshcfg_next_hop(&spec, user, sizeof user, host,
	    sizeof host, &port, err, sizeof err), 1);
	assert_string_equal(host, "bastion");
	assert_string_equal(user, "");
	assert_int_equal(port, 0);
	assert_int_equal(sshcfg_next_hop(&spec, user, sizeof user, host,
	    sizeof host, &port, err, sizeof err), 1);
	assert_string_equal(host, "b2");
	assert_string_equal(user, "me");
	assert_int_equal(port, 2022);
	assert_int_equal(sshcfg_next_hop(&spec, user, sizeof user, host,
	    sizeof host, &port, err, sizeof err), 1);
	assert_string_equal(host, "fe80::1");
	assert_int_equal(port, 23);
	assert_int_equal(sshcfg_next_hop(&spec, user, sizeof user, host,
	    sizeof host, &port, err, sizeof err), 1);
	assert_string_equal(host, "10.0.0.1");
	assert_int_equal(sshcfg_next_hop(&spec, user, sizeof user, host,
	    sizeof host, &port, err, sizeof err), 0);
}

/* Bad hops: each refused, naming itself. */
static void
test_next_hop_bad(void **state)
{
	static const char *const bad[] = {
		",a", "a,", "-x", "u@", "@h", "h:", "h:0", "h:123456",
		"[::1", "[::1]x", "a b", "h;id", "-o@h", "u@v@h", "[a;b]:22",
	};
	const char	*spec;
	char		 user[64], host[256], err[512];
	int		 port, r;
	size_t		 i;

	(void)state;
	for (i = 0; i < NELEM(bad); i++) {
		spec = bad[i];
		while ((r = sshcfg_next_hop(&spec, user, sizeof user, host,
		    sizeof host, &port, err, sizeof err)) == 1)
			;
		if (r != -1)
			fail_msg("'%s' accepted", bad[i]);
		if (strncmp(err, "bad jump host '", 15) != 0)
			fail_msg("'%s': %s", bad[i], err);
	}
}

/* Writes text to a fresh file and loads it as an inventory. */
static struct inventory *
load_text(const char *text, char *path, size_t len)
{
	struct inventory	*inv = NULL;
	char			*cause = NULL;
	FILE			*f;
	int			 fd;

	snprintf(path, len, "/tmp/test-sshconfig.XXXXXX");
	assert_true((fd = mkstemp(path)) != -1);
	assert_non_null(f = fdopen(fd, "w"));
	fputs(text, f);
	fclose(f);
	if (inventory_load(path, 1, &inv, &cause) != 0)
		fail_msg("%s", cause);
	return (inv);
}

/* Jump chains through inventory hosts, as OpenSSH orders ProxyJump hops. */
static void
test_chain(void **state)
{
	struct inventory	*inv;
	struct host		*h = NULL;
	char			 path[64], *cause = NULL;
	size_t			 n;

	(void)state;
	inv = load_text("[host.t]\naddress = 10.0.0.9\njump = b2,u@b3:2200\n"
	    "[host.b1]\naddress = 10.0.0.1\n"
	    "[host.b2]\naddress = 10.0.0.2\nport = 23\njump = b1\n"
	    "[host.b3]\naddress = 10.0.0.3\njump = b1\n"
	    "[host.n]\naddress = 10.0.0.4\njump = none\n", path, sizeof path);
	assert_int_equal(inventory_resolve(inv, "t,n", &h, &n, &cause), 0);
	assert_int_equal(n, 2);
	/* b2's own jump comes first; b3's own is not used (-J semantics). */
	assert_int_equal(h[0].route->nhops, 3);
	assert_string_equal(h[0].route->hops[0].name, "b1");
	assert_string_equal(h[0].route->hops[1].name, "b2");
	assert_int_equal(h[0].route->hops[1].port, 23);
	assert_string_equal(h[0].route->hops[2].name, "b3");
	assert_string_equal(h[0].route->hops[2].user, "u");
	assert_int_equal(h[0].route->hops[2].port, 2200);
	assert_string_equal(h[0].route->hops[2].address, "10.0.0.3");
	assert_int_equal(h[1].route->nhops, 0);
	free(h);
	inventory_free(inv);
	unlink(path);
}

/* Loops, self-jumps, local, twice, too many, direct: refused. */
static void
test_chain_bad(void **state)
{
	static const struct {
		const char	*text;
		const char	*hosts;
		const char	*msg;
	} cases[] = {
		{ "[host.a]\naddress = h\njump = a\n", "a",
		    "--hosts: a: jumps through itself" },
		{ "[host.a]\naddress = h\njump = b\n[host.b]\naddress = h\n"
		    "jump = c\n[host.c]\naddress = h\njump = a\n", "a",
		    "--hosts: a: jump loop: a -> b -> c -> a" },
		{ "[host.a]\naddress = h\njump = b\n[host.b]\naddress = h\n"
		    "jump = b\n", "a", "--hosts: a: jump loop: a -> b -> b" },
		{ "[host.a]\naddress = h\njump = local\n", "a",
		    "--hosts: a: 'local' cannot be a jump host" },
		{ "[host.a]\naddress = h\njump = b,b\n[host.b]\naddress = h\n",
		    "a", "--hosts: a: jump host b is on the way twice" },
		{ "[host.a]\naddress = h\njump = b,c\n[host.b]\naddress = h\n"
		    "jump = c\n[host.c]\naddress = h\n", "a",
		    "--hosts: a: jump host c is on the way twice" },
		{ "[host.a]\naddress = h\njump = b\n[host.b]\naddress = h\n"
		    "jump = c\n[host.c]\naddress = h\njump = d\n[host.d]\n"
		    "address = h\njump = e\n[host.e]\naddress = h\njump = f\n"
		    "[host.f]\naddress = h\n", "a",
		    "--hosts: a: more than 4 jump hosts" },
		{ "[host.a]\naddress = h\ntransport = direct\njump = b\n"
		    "[host.b]\naddress = h\n", "a", "--hosts: a: transport = "
		    "direct cannot go through a jump host (the agent's port is "
		    "not reachable from here); use transport = tunnel" },
	};
	struct inventory	*inv;
	struct host		*h;
	char			 path[64], *cause;
	size_t			 i, n;

	(void)state;
	for (i = 0; i < NELEM(cases); i++) {
		inv = load_text(cases[i].text, path, sizeof path);
		h = NULL;
		cause = NULL;
		if (inventory_resolve(inv, cases[i].hosts, &h, &n, &cause) !=
		    -1)
			fail_msg("case %zu resolved", i);
		if (strcmp(cause, cases[i].msg) != 0)
			fail_msg("case %zu: got '%s', want '%s'", i, cause,
			    cases[i].msg);
		assert_null(h);
		free(cause);
		inventory_free(inv);
		unlink(path);
	}
}

/* An unknown jump host without ssh_config lookups: the usual message. */
static void
test_chain_unknown(void **state)
{
	struct inventory	*inv;
	struct host		*h = NULL;
	char			 path[64], *cause = NULL;
	size_t			 n;

	(void)state;
	inv = load_text("[host.a]\naddress = h\njump = zz\n", path,
	    sizeof path);
	assert_int_equal(inventory_resolve(inv, "a", &h, &n, &cause), -1);
	assert_non_null(strstr(cause, "unknown host or group 'zz'"));
	free(cause);
	inventory_free(inv);
	unlink(path);
}

static char	kh_dir[] = "/tmp/test-sshconfig-kh.XXXXXX";
static char	kh_cfg[128];

/* Writes kh_dir/name from a printf format. */
static void
kh_write(const char *name, const char *fmt, ...)
{
	char	 p[256];
	FILE	*f;
	va_list	 ap;

	snprintf(p, sizeof p, "%s/%s", kh_dir, name);
	assert_non_null(f = fopen(p, "w"));
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	assert_int_equal(fclose(f), 0);
}

/*
 * Parses "hostname h" and one known-hosts line, each @ of the printed value
 * fmt the directory, with kh_cfg as --ssh-config.
 */
static int
kh_parse(struct sshcfg *c, char *err, size_t errlen, const char *key,
    const char *fmt)
{
	char	text[2048], value[1024];
	size_t	o = 0;

	for (; *fmt != '\0' && o + sizeof kh_dir < sizeof value; fmt++) {
		if (*fmt == '@') {
			memcpy(value + o, kh_dir, strlen(kh_dir));
			o += strlen(kh_dir);
		} else
			value[o++] = *fmt;
	}
	value[o] = '\0';
	snprintf(text, sizeof text, "hostname h\n%s %s\n", key, value);
	sshcfg_set_file(kh_cfg);
	return (parse(text, c, err, errlen));
}

/*
 * UserKnownHostsFile and GlobalKnownHostsFile lists taken whole: the
 * line ssh -G's unquoted answer came from says where a path has blanks.
 */
static void
test_known_hosts_lists(void **state)
{
	struct sshcfg	c;
	char		err[1024], want[1024];
	const char	*U = "userknownhostsfile", *G = "globalknownhostsfile";

	(void)state;
	assert_non_null(mkdtemp(kh_dir));
	snprintf(kh_cfg, sizeof kh_cfg, "%s/config", kh_dir);

	/* Quoted with a blank, through an Include: one path. */
	kh_write("config", "Host other\n  HostName x\nInclude %s/inc\n",
	    kh_dir);
	kh_write("inc", "Host epyc\n  UserKnownHostsFile \"%s/my kh\" "
	    "~/x\n  GlobalKnownHostsFile = '%s/g 1' %s/g2\n", kh_dir, kh_dir,
	    kh_dir);
	assert_int_equal(kh_parse(&c, err, sizeof err, U,
	    "@/my kh " HOME "/x"), 0);
	assert_int_equal(c.reach.nkh, 2);
	assert_string_equal(c.reach.known_hosts[0] + strlen(kh_dir),
	    "/my kh");
	assert_string_equal(c.reach.known_hosts[1], HOME "/x");
	assert_int_equal(c.reach.global_set, 0);
	assert_int_equal(kh_parse(&c, err, sizeof err, G, "@/g 1 @/g2"),
	    0);
	assert_int_equal(c.reach.global_set, 1);
	assert_int_equal(c.reach.nglobal, 2);
	assert_string_equal(c.reach.global_kh[0] + strlen(kh_dir), "/g 1");
	assert_string_equal(c.reach.global_kh[1] + strlen(kh_dir), "/g2");
	assert_int_equal(kh_parse(&c, err, sizeof err, G, "none"), 0);
	assert_int_equal(c.reach.global_set, 1);
	assert_int_equal(c.reach.nglobal, 0);

	/* No line for it, split at the blanks: a relative part is refused. */
	kh_write("config", "Host epyc\n  HostName x\n");
	assert_int_equal(kh_parse(&c, err, sizeof err, U,
	    "@/my kh @/dir/known_hosts"), -1);
	assert_string_equal(err, "ssh_config host epyc: UserKnownHostsFile "
	    "'kh' is a relative path (ssh would read it from the current "
	    "directory); write it as ~/kh or in full");
	assert_int_equal(kh_parse(&c, err, sizeof err, U, "@/a @/b"),
	    0);
	assert_int_equal(c.reach.nkh, 2);
	/* ... and when the joined words name a file, ambiguous. */
	kh_write("my kh", "");
	assert_int_equal(kh_parse(&c, err, sizeof err, U, "@/my kh"), -1);
	snprintf(want, sizeof want, "ssh_config host epyc: UserKnownHostsFile "
	    "is ambiguous: ssh -G prints it unquoted ('%s/my kh'), and '%s/my "
	    "kh' names a file though it reads as 2 paths; no line of %s "
	    "writes it: quote the path in the ssh_config line that sets it "
	    "(UserKnownHostsFile \"%s/my kh\")", kh_dir, kh_dir, kh_cfg,
	    kh_dir);
	assert_string_equal(err, want);

	/* Written unquoted while the joined path is a file: quote it. */
	kh_write("config", "Host epyc\n\tuserknownhostsfile %s/my kh\n",
	    kh_dir);
	assert_int_equal(kh_parse(&c, err, sizeof err, U, "@/my kh"), -1);
	snprintf(want, sizeof want, "%s:2: UserKnownHostsFile: '%s/my kh' "
	    "names a file, but unquoted it is read as 2 paths; quote it: "
	    "UserKnownHostsFile \"%s/my kh\"", kh_cfg, kh_dir, kh_dir);
	assert_string_equal(err, want);
	/* Quoted, it is the one file. */
	kh_write("config", "Host epyc\n\tuserknownhostsfile \"%s/my kh\"\n",
	    kh_dir);
	assert_int_equal(kh_parse(&c, err, sizeof err, U, "@/my kh"), 0);
	assert_int_equal(c.reach.nkh, 1);

	/* Quoted, naming no file while its parts are files: refused. */
	kh_write("p1", "");
	kh_write("p2", "");
	kh_write("config", "Host epyc\n\tUserKnownHostsFile \"%s/p1 %s/p2\""
	    "\n", kh_dir, kh_dir);
	assert_int_equal(kh_parse(&c, err, sizeof err, U, "@/p1 @/p2"),
	    -1);
	assert_non_null(strstr(err, ":2: UserKnownHostsFile: the quoted path "));
	assert_non_null(strstr(err, "names no file, but each of its "
	    "blank-separated parts does"));

	/* Two lines that print alike, split otherwise: refused. */
	kh_write("config", "Host epyc\n\tUserKnownHostsFile \"%s/q r\"\n"
	    "Host *\n\tUserKnownHostsFile %s/q\\ r\n"
	    "\tUserKnownHostsFile %s/q r\n", kh_dir, kh_dir, kh_dir);
	assert_int_equal(kh_parse(&c, err, sizeof err, U, "@/q r"), -1);
	snprintf(want, sizeof want, "ssh_config host epyc: UserKnownHostsFile: "
	    "%s:2 and %s:5 print alike but split into other paths; quote the "
	    "paths with blanks", kh_cfg, kh_cfg);
	assert_string_equal(err, want);

	/* More files than orch keeps: refused, not cut. */
	assert_int_equal(kh_parse(&c, err, sizeof err, U,
	    "/a /b /c /d /e"), -1);
	assert_string_equal(err, "ssh_config host epyc: UserKnownHostsFile "
	    "names more than 4 files");
	sshcfg_set_file(NULL);
	snprintf(want, sizeof want, "rm -rf '%s'", kh_dir);
	assert_int_equal(system(want), 0);
}

/* The real ssh -G -F FILE: an ssh_config host, with an inventory override. */
static void
test_query_real(void **state)
{
	struct inventory	*inv;
	struct host		*h = NULL;
	char			 path[64], cfg[64], *cause = NULL;
	FILE			*f;
	size_t			 n;
	int			 fd;

	(void)state;
	snprintf(cfg, sizeof cfg, "/tmp/test-sshconfig-cfg.XXXXXX");
	assert_true((fd = mkstemp(cfg)) != -1);
	assert_non_null(f = fdopen(fd, "w"));
	fputs("Host epyc\n\tHostName 192.0.2.7\n\tPort 2201\n\tUser bench\n"
	    "\tIdentityFile ~/.ssh/lab\n\tProxyJump gw\n"
	    "Host deep\n\tHostName 192.0.2.8\n"
	    "\tProxyJump gw,inner-name-orch-test\n"
	    "Host gw\n\tHostName 192.0.2.1\n\tUser jumper\n", f);
	fclose(f);
	sshcfg_set_file(cfg);
	inv = load_text("[host.m2]\nssh_config = yes\nuser = me\n"
	    "[host.gw2]\naddress = 192.0.2.2\n", path, sizeof path);
	assert_int_equal(inventory_resolve_ssh(inv, "epyc", &h, &n, &cause),
	    0);
	assert_int_equal(n, 1);
	assert_string_equal(h[0].address, "192.0.2.7");
	assert_int_equal(h[0].port, 2201);
	assert_string_equal(h[0].user, "bench");
	assert_string_equal(h[0].workdir, "~/.orch");
	assert_int_equal(h[0].route->reach.nids, 1);
	assert_string_equal(h[0].route->reach.ids[0], HOME "/.ssh/lab");
	assert_int_equal(h[0].route->nhops, 1);
	assert_string_equal(h[0].route->hops[0].name, "gw");
	assert_string_equal(h[0].route->hops[0].address, "192.0.2.1");
	assert_string_equal(h[0].route->hops[0].user, "jumper");
	free(h);
	h = NULL;
	/* A second hop is resolved by the first: its name need not resolve. */
	assert_int_equal(inventory_resolve_ssh(inv, "deep", &h, &n, &cause),
	    0);
	assert_int_equal(h[0].route->nhops, 2);
	assert_string_equal(h[0].route->hops[1].address,
	    "inner-name-orch-test");
	free(h);
	h = NULL;
	/*
	 * m2 has an entry with ssh_config = yes: taken as ssh says (its name
	 * as the address), its user from the entry.
	 */
	assert_int_equal(inventory_resolve_ssh(inv, "m2", &h, &n, &cause), 0);
	assert_string_equal(h[0].address, "m2");
	assert_string_equal(h[0].user, "me");
	free(h);
	h = NULL;
	/* No entry, no HostName, no jump, and it does not resolve: a typo. */
	assert_int_equal(inventory_resolve_ssh(inv, "nosuchhost.invalid", &h, &n,
	    &cause), -1);
	assert_non_null(strstr(cause, "--hosts: unknown host or group "
	    "'nosuchhost.invalid' ("));
	assert_non_null(strstr(cause, "has no HostName for it, and the name "
	    "does not resolve"));
	free(cause);
	cause = NULL;
	inventory_free(inv);
	unlink(path);
	inv = load_text("[host.epyc]\nssh_config = yes\nuser = me\nport = 22\n"
	    "jump = gw2\n[host.gw2]\naddress = 192.0.2.2\n", path,
	    sizeof path);
	assert_int_equal(inventory_resolve_ssh(inv, "epyc", &h, &n, &cause),
	    0);
	assert_string_equal(h[0].address, "192.0.2.7");
	assert_string_equal(h[0].user, "me");
	assert_int_equal(h[0].port, 22);
	assert_int_equal(h[0].route->nhops, 1);
	assert_string_equal(h[0].route->hops[0].address, "192.0.2.2");
	free(h);
	inventory_free(inv);
	unlink(path);
	unlink(cfg);
	sshcfg_set_file(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_parse_good, setup_env),
		cmocka_unit_test_setup(test_parse_defaults, setup_env),
		cmocka_unit_test_setup(test_parse_bad, setup_env),
		cmocka_unit_test_setup(test_parse_sizes, setup_env),
		cmocka_unit_test_setup(test_next_hop, setup_env),
		cmocka_unit_test_setup(test_next_hop_bad, setup_env),
		cmocka_unit_test_setup(test_chain, setup_env),
		cmocka_unit_test_setup(test_chain_bad, setup_env),
		cmocka_unit_test_setup(test_chain_unknown, setup_env),
		cmocka_unit_test_setup(test_query_real, setup_env),
		cmocka_unit_test_setup(test_known_hosts_lists, setup_env),
	};

	return (cmocka_run_group_tests_name("sshconfig", tests, NULL, NULL));
}
