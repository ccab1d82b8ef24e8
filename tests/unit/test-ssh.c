/*
 * ssh_put (coordinator/hosts/ssh.c) against a real sshd of the test lab:
 * ORCH_SSH_LAB_INV names an inventory whose host h1 it reaches, and
 * ORCH_SSH_LAB_DIR a directory of this machine that h1's user writes
 * (t-remote sets both; without them the test is skipped). A push into the
 * cache (SSH_PUT_KEEP) keeps a file of the same size already there, so a
 * program another run verified never changes under it; one of another
 * size is an error; SSH_PUT_REPLACE replaces; no temporary is left.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
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

#include "coordinator/hosts/host-backend.h"
#include "coordinator/hosts/host.h"
#include "coordinator/hosts/hosts.h"
#include "coordinator/hosts/inventory.h"
#include "coordinator/hosts/ssh.h"

/* Writes n bytes of c to path. */
static void
put_bytes(const char *path, int c, size_t n)
{
	FILE	*f;
	size_t	 i;

	assert_non_null(f = fopen(path, "w"));
	for (i = 0; i < n; i++)
		assert_int_equal(fputc(c, f), c);
	assert_int_equal(fclose(f), 0);
}

/* Fails unless path holds n bytes, each c. */
static void
expect_bytes(const char *path, int c, size_t n)
{
	FILE	*f;
	size_t	 i;
	int	 got;

	assert_non_null(f = fopen(path, "r"));
	for (i = 0; i < n; i++) {
		if ((got = fgetc(f)) != c)
			fail_msg("%s: byte %zu is %d, want %d", path, i, got, c);
	}
	assert_int_equal(fgetc(f), EOF);
	fclose(f);
}

/* Returns how many entries of dir other than "." and ".." there are. */
static int
entries(const char *dir)
{
	DIR		*d;
	struct dirent	*e;
	int		 n = 0;

	assert_non_null(d = opendir(dir));
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return (n);
}

static void
test_put_keep(void **state)
{
	const char		*inv = getenv("ORCH_SSH_LAB_INV");
	const char		*dir = getenv("ORCH_SSH_LAB_DIR");
	struct host		*h = NULL;
	struct ssh_target	 t, hops[HOST_HOPS_MAX];
	struct ssh		 s;
	struct stat		 st;
	char			 a[PATH_MAX], b[PATH_MAX], c[PATH_MAX];
	char			 cache[PATH_MAX], remote[PATH_MAX];
	char			 err[SSH_ERR_LEN], *cause = NULL;
	uint64_t		 bytes = 0;
	size_t			 n = 0;

	(void)state;
	if (inv == NULL || *inv == '\0' || dir == NULL || *dir == '\0')
		skip();
	snprintf(a, sizeof a, "%s/a", dir);
	snprintf(b, sizeof b, "%s/b", dir);
	snprintf(c, sizeof c, "%s/c", dir);
	put_bytes(a, 'a', 5000);
	put_bytes(b, 'b', 5000);
	put_bytes(c, 'c', 4000);
	/* The parent directory is made by the push. */
	snprintf(cache, sizeof cache, "%s/cache", dir);
	snprintf(remote, sizeof remote, "%s/sha", cache);

	if (hosts_resolve(inv, "h1", &h, &n, &cause) != 0)
		fail_msg("%s: %s", inv, cause);
	assert_int_equal(n, 1);
	host_ssh_target(&h[0], &t, hops);
	memset(&s, 0, sizeof s);
	if (ssh_open(&s, &t, err, sizeof err) != 0)
		fail_msg("ssh_open: %s", err);

	/* A new name: the file lands, with its mode. */
	if (ssh_put(&s, a, remote, 0700, SSH_PUT_KEEP, &bytes, err,
	    sizeof err) != 0)
		fail_msg("first push: %s", err);
	assert_int_equal(bytes, 5000);
	expect_bytes(remote, 'a', 5000);
	assert_int_equal(stat(remote, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);

	/* The same size there: kept as it is, and a success. */
	if (ssh_put(&s, b, remote, 0700, SSH_PUT_KEEP, &bytes, err,
	    sizeof err) != 0)
		fail_msg("push onto the same size: %s", err);
	expect_bytes(remote, 'a', 5000);
	assert_int_equal(entries(cache), 1);

	/* Another size there: not what the name promises, an error. */
	err[0] = '\0';
	assert_int_equal(ssh_put(&s, c, remote, 0700, SSH_PUT_KEEP, &bytes,
	    err, sizeof err), -1);
	if (strstr(err, "cannot rename") == NULL ||
	    strstr(err, remote) == NULL)
		fail_msg("got \"%s\"", err);
	expect_bytes(remote, 'a', 5000);
	assert_int_equal(entries(cache), 1);

	/* SSH_PUT_REPLACE: replaced. */
	if (ssh_put(&s, c, remote, 0600, SSH_PUT_REPLACE, &bytes, err,
	    sizeof err) != 0)
		fail_msg("replace: %s", err);
	expect_bytes(remote, 'c', 4000);
	assert_int_equal(entries(cache), 1);

	ssh_close(&s);
	free(h);
	inventory_forget();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_keep),
	};

	return (cmocka_run_group_tests_name("ssh", tests, NULL, NULL));
}
