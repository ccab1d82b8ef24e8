/*
 * Unit tests for coordinator/hosts/knownhosts.c: a file written per case, the
 * verdict for the server's key, the warnings with their PATH:LINE.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "coordinator/hosts/knownhosts.h"

static char	path[] = "/tmp/orch-test-kh.XXXXXX";
static char	warnings[8192];

static void
collect(const char *msg)
{
	strncat(warnings, msg, sizeof warnings - strlen(warnings) - 2);
	strcat(warnings, "\n");
}

/* A key blob: string type, then string of 32 bytes of seed. */
static size_t
blob(unsigned char *out, const char *type, int seed)
{
	size_t	n = strlen(type), i;

	out[0] = out[1] = out[2] = 0;
	out[3] = (unsigned char)n;
	memcpy(out + 4, type, n);
	out[4 + n] = out[5 + n] = out[6 + n] = 0;
	out[7 + n] = 32;
	for (i = 0; i < 32; i++)
		out[8 + n + i] = (unsigned char)(seed + (int)i);
	return (8 + n + 32);
}

/* "TYPE BASE64" for a blob. */
static void
pubkey(char *out, size_t len, const char *type, int seed)
{
	unsigned char	b[128];
	char		b64[256];
	size_t		n = blob(b, type, seed);

	EVP_EncodeBlock((unsigned char *)b64, b, (int)n);
	snprintf(out, len, "%s %s", type, b64);
}

/* Writes the file from a printf format. */
static void
write_file(const char *fmt, ...)
{
	FILE	*f;
	va_list	 ap;

	assert_non_null(f = fopen(path, "w"));
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	assert_int_equal(fclose(f), 0);
}

/* Checks name with the server key (type, seed); returns the status. */
static enum kh_status
check(const char *name, const char *type, int seed, struct kh_result *res)
{
	unsigned char	b[128];
	size_t		n = blob(b, type, seed);
	char		err[256];

	warnings[0] = '\0';
	assert_int_equal(knownhosts_check(path, name, b, n, res, collect, err,
	    sizeof err), 0);
	return (res->status);
}

static int
setup(void **state)
{
	int	fd;

	(void)state;
	assert_true((fd = mkstemp(path)) != -1);
	close(fd);
	return (0);
}

static int
teardown(void **state)
{
	(void)state;
	unlink(path);
	return (0);
}

#define ED	"ssh-ed25519"
#define EC	"ecdsa-sha2-nistp256"

/* A pinned key is known; the same host with another key is not. */
static void
test_known_and_changed(void **state)
{
	struct kh_result	res;
	char			ed[256], fp[KH_FP_LEN];
	unsigned char		b[128];

	(void)state;
	pubkey(ed, sizeof ed, ED, 1);
	write_file("# comment\n\nother.lab %s\nh.lab %s\n", ed, ed);
	assert_int_equal(check("h.lab", ED, 1, &res), KH_KNOWN);
	assert_int_equal(res.line, 4);
	assert_int_equal(check("H.LAB", ED, 1, &res), KH_KNOWN);
	/* Same type, other key. */
	assert_int_equal(check("h.lab", ED, 2, &res), KH_CHANGED);
	/* Another type: OpenSSH's REMOTE HOST IDENTIFICATION HAS CHANGED. */
	assert_int_equal(check("h.lab", EC, 1, &res), KH_CHANGED);
	assert_int_equal(res.line, 4);
	knownhosts_fingerprint(b, blob(b, ED, 1), fp, sizeof fp);
	assert_string_equal(res.known_fp, fp);
	assert_true(strncmp(fp, "ED25519 key SHA256:", 19) == 0);
	assert_int_equal(res.ntypes, 1);
	assert_string_equal(res.types[0], ED);
	assert_int_equal(check("new.lab", EC, 1, &res), KH_NEW);
	assert_string_equal(warnings, "");
}

/*
 * A line of any length is read whole, as OpenSSH reads it: a pin after
 * 800 names (over 16 KiB) is known, and another key for the host is a
 * changed key, never a new host (that line used to be skipped).
 */
static void
test_long_line(void **state)
{
	struct kh_result	 res;
	char			 ed[256], *names;
	size_t			 i, o = 0, cap = 800 * 24 + 64;

	(void)state;
	pubkey(ed, sizeof ed, ED, 1);
	assert_non_null(names = malloc(cap));
	for (i = 0; i < 800; i++)
		o += (size_t)snprintf(names + o, cap - o,
		    "node%04zu.example.lab,", i);
	snprintf(names + o, cap - o, "h.lab");
	assert_true(strlen(names) > KH_LINE_MAX);
	write_file("%s %s\n", names, ed);
	assert_int_equal(check("h.lab", ED, 1, &res), KH_KNOWN);
	assert_int_equal(res.line, 1);
	assert_int_equal(check("h.lab", EC, 1, &res), KH_CHANGED);
	assert_int_equal(check("node0799.example.lab", EC, 1, &res),
	    KH_CHANGED);
	assert_int_equal(check("other.lab", EC, 1, &res), KH_NEW);
	assert_string_equal(warnings, "");
	free(names);
}

/* Garbage and long lines are skipped, named, and hide nothing. */
static void
test_bad_lines(void **state)
{
	struct kh_result	 res;
	char			 ed[256], want[512], *lng;

	(void)state;
	pubkey(ed, sizeof ed, ED, 1);
	assert_non_null(lng = malloc(40000));
	memset(lng, 'A', 39999);
	lng[39999] = '\0';
	write_file("garbage\nh.lab ssh-ed25519 %s\nh.lab ssh-ed25519 !!!!\n"
	    "@bogus h.lab %s\nh.lab ssh-rsa %s\n|1|abc %s\nh.lab %s\n",
	    lng, ed, ed + strlen(ED) + 1, ed, ed);
	assert_int_equal(check("h.lab", EC, 1, &res), KH_CHANGED);
	assert_int_equal(res.line, 7);
	assert_int_equal(check("h.lab", ED, 1, &res), KH_KNOWN);
	snprintf(want, sizeof want,
	    "%s:1: not HOSTS KEYTYPE KEY, line skipped\n"
	    "%s:2: the key is not valid base64 of a key, line skipped\n"
	    "%s:3: the key is not valid base64 of a key, line skipped\n"
	    "%s:4: unknown marker (want @revoked or @cert-authority), line skipped\n"
	    "%s:5: the key type does not match the key, line skipped\n"
	    "%s:6: malformed hashed host name, line skipped\n",
	    path, path, path, path, path, path);
	assert_string_equal(warnings, want);
	free(lng);

	/* A NUL byte, and a last line without its newline. */
	{
		FILE	*f = fopen(path, "w");

		assert_non_null(f);
		fwrite("a\0b\n", 1, 4, f);
		fprintf(f, "h.lab %s", ed);
		fclose(f);
	}
	assert_int_equal(check("h.lab", EC, 1, &res), KH_CHANGED);
	snprintf(want, sizeof want, "%s:1: holds a NUL byte, line skipped\n",
	    path);
	assert_string_equal(warnings, want);
}

/* Hashed names, [host]:port, patterns and negation. */
static void
test_names(void **state)
{
	struct kh_result	res;
	unsigned char		salt[20], mac[EVP_MAX_MD_SIZE];
	char			ed[256], s64[64], h64[64];
	const char		*name = "[127.0.0.1]:2222";
	size_t			maclen, i;

	(void)state;
	pubkey(ed, sizeof ed, ED, 1);
	for (i = 0; i < sizeof salt; i++)
		salt[i] = (unsigned char)(i * 7);
	assert_non_null(EVP_Q_mac(NULL, "HMAC", NULL, "SHA1", NULL, salt,
	    sizeof salt, (const unsigned char *)name, strlen(name), mac,
	    sizeof mac, &maclen));
	EVP_EncodeBlock((unsigned char *)s64, salt, sizeof salt);
	EVP_EncodeBlock((unsigned char *)h64, mac, 20);
	write_file("|1|%s|%s %s\n", s64, h64, ed);
	assert_int_equal(check(name, ED, 1, &res), KH_KNOWN);
	assert_int_equal(check(name, EC, 1, &res), KH_CHANGED);
	assert_int_equal(check("[127.0.0.1]:2223", EC, 1, &res), KH_NEW);
	assert_int_equal(check("127.0.0.1", EC, 1, &res), KH_NEW);

	write_file("[127.0.0.1]:2222 %s\n", ed);
	assert_int_equal(check(name, EC, 1, &res), KH_CHANGED);
	assert_int_equal(check("127.0.0.1", EC, 1, &res), KH_NEW);
	assert_int_equal(check("[127.0.0.1]:22", EC, 1, &res), KH_NEW);

	write_file("*.lab,!bad.lab,h?.x %s\n", ed);
	assert_int_equal(check("a.lab", EC, 1, &res), KH_CHANGED);
	assert_int_equal(check("bad.lab", EC, 1, &res), KH_NEW);
	assert_int_equal(check("h1.x", EC, 1, &res), KH_CHANGED);
	assert_int_equal(check("h12.x", EC, 1, &res), KH_NEW);
	assert_string_equal(warnings, "");
}

/* @revoked refuses the key even when pinned; @cert-authority alone. */
static void
test_markers(void **state)
{
	struct kh_result	res;
	char			ed[256], ec[256];

	(void)state;
	pubkey(ed, sizeof ed, ED, 1);
	pubkey(ec, sizeof ec, EC, 5);
	write_file("h.lab %s\n@revoked * %s\n", ed, ed);
	assert_int_equal(check("h.lab", ED, 1, &res), KH_REVOKED);
	assert_int_equal(res.line, 2);
	assert_int_equal(check("other", ED, 1, &res), KH_REVOKED);
	assert_int_equal(check("other", ED, 2, &res), KH_NEW);
	write_file("@cert-authority *.lab %s\n", ec);
	assert_int_equal(check("h.lab", ED, 1, &res), KH_CA_ONLY);
	assert_int_equal(res.line, 1);
	write_file("@cert-authority *.lab %s\nh.lab %s\n", ec, ed);
	assert_int_equal(check("h.lab", ED, 1, &res), KH_KNOWN);
	assert_string_equal(warnings, "");
}

/*
 * A skipped line whose host field names the host makes it unverifiable,
 * never new; a readable pin or a revocation still decides.
 */
static void
test_unverifiable(void **state)
{
	struct kh_result	 res;
	char			 ed[256], want[256];
	const char		*b64;
	FILE			*f;

	(void)state;
	pubkey(ed, sizeof ed, ED, 1);
	b64 = ed + strlen(ED) + 1;
	write_file("h.lab ssh-ed25519 !!!!\n");
	assert_int_equal(check("h.lab", ED, 1, &res), KH_UNVERIFIABLE);
	assert_int_equal(res.line, 1);
	assert_int_equal(check("other.lab", ED, 1, &res), KH_NEW);
	write_file("x 1\n@bogus h.lab %s\n", ed);
	assert_int_equal(check("h.lab", ED, 1, &res), KH_UNVERIFIABLE);
	assert_int_equal(res.line, 2);
	write_file("*.lab\n");
	assert_int_equal(check("h.lab", EC, 1, &res), KH_UNVERIFIABLE);
	write_file("h.lab ssh-rsa %s\n", b64);
	assert_int_equal(check("h.lab", ED, 1, &res), KH_UNVERIFIABLE);
	write_file("@revoked h.lab ssh-ed25519 !!!!\n");
	assert_int_equal(check("h.lab", ED, 1, &res), KH_UNVERIFIABLE);
	/* A pin of this key, another key, a revocation: each decides. */
	write_file("*.lab ssh-ed25519 !!!!\nh.lab %s\n", ed);
	assert_int_equal(check("h.lab", ED, 1, &res), KH_KNOWN);
	assert_int_equal(check("h.lab", EC, 1, &res), KH_CHANGED);
	assert_int_equal(res.line, 2);
	write_file("h.lab ssh-ed25519 !!!!\n@revoked * %s\n", ed);
	assert_int_equal(check("h.lab", ED, 1, &res), KH_REVOKED);
	/* A NUL byte: the host field before it counts. */
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "h.lab %s", ed);
	fwrite("\0x\n", 1, 3, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(check("h.lab", ED, 1, &res), KH_UNVERIFIABLE);
	snprintf(want, sizeof want, "%s:1: holds a NUL byte, line skipped\n",
	    path);
	assert_string_equal(warnings, want);
	assert_int_equal(check("h2.lab", ED, 1, &res), KH_NEW);
}

/* A line we write reads back as the pin; a missing file is empty. */
static void
test_line_and_missing(void **state)
{
	struct kh_result	res;
	unsigned char		b[128];
	char			line[512], err[128];
	size_t			n;

	(void)state;
	n = blob(b, EC, 9);
	assert_int_equal(knownhosts_line("[h]:2", b, n, "added by orch", line,
	    sizeof line), 0);
	write_file("%s", line);
	assert_int_equal(check("[h]:2", EC, 9, &res), KH_KNOWN);
	assert_int_equal(knownhosts_line("[h]:2", b, n, NULL, line, 20), -1);
	unlink(path);
	assert_int_equal(knownhosts_check(path, "h", b, n, &res, collect, err,
	    sizeof err), 0);
	assert_int_equal(res.status, KH_NEW);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_and_changed),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_markers),
		cmocka_unit_test(test_unverifiable),
		cmocka_unit_test(test_line_and_missing),
	};

	return (cmocka_run_group_tests(tests, setup, teardown));
}
