/*
 * Unit tests of coordinator/hosts/deploy.c's choice of a prebuilt agent: the
 * cross-built macOS arm64 agent (bin/darwin-aarch64/, make darwin) for a
 * darwin/aarch64 host, this machine's own for a host of its kind, the
 * ones make install put in PREFIX/libexec/orch for an installed orch, and
 * building from source on the host when none matches.
 */
#include <sys/stat.h>
#include <sys/utsname.h>

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

#include "coordinator/hosts/deploy.h"

static char	root[PATH_MAX];

/* Writes an executable file ROOT/rel, making its directories. */
static void
touch(const char *rel)
{
	char	path[PATH_MAX + 64], *p;
	FILE	*f;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		(void)mkdir(path, 0755);
		*p = '/';
	}
	assert_non_null(f = fopen(path, "w"));
	fputs("agent\n", f);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
}

/* The tree: bin/orch-agent (this machine's), bin/darwin-aarch64/orch-agent. */
static int
setup(void **state)
{
	char	path[PATH_MAX + 32];

	(void)state;
	snprintf(root, sizeof root, "%s/orch-test-deploy-XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(root) == NULL)
		return (-1);
	touch("bin/orch-agent");
	touch("bin/darwin-aarch64/orch-agent");
	touch("bin/darwin-aarch64/orch-null");
	deploy_set_root(root);
	snprintf(path, sizeof path, "%s/bin/orch-agent", root);
	deploy_set_agent(path);
	return (0);
}

static int
teardown(void **state)
{
	char	cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	return (system(cmd) == 0 ? 0 : -1);
}

/* Asserts that a host of os/arch gets ROOT/want ("" for none). */
static void
expect(const char *os, const char *arch, const char *want)
{
	char	path[PATH_MAX], full[PATH_MAX + 64];
	int	r;

	r = deploy_prebuilt_path(os, arch, path, sizeof path);
	if (*want == '\0') {
		assert_int_equal(r, -1);
		assert_string_equal(path, "");
		return;
	}
	snprintf(full, sizeof full, "%s/%s", root, want);
	assert_int_equal(r, 0);
	assert_string_equal(path, full);
}

static void
test_darwin_prebuilt(void **state)
{
	(void)state;
	expect("darwin", "aarch64", "bin/darwin-aarch64/orch-agent");
	/* An Intel Mac: nothing cross-built for it, so built there. */
	expect("darwin", "x86_64", "");
	expect("freebsd", "aarch64", "");
}

static void
test_local_kind(void **state)
{
	struct utsname	u;
	char		arch[64];

	(void)state;
	assert_int_equal(uname(&u), 0);
	snprintf(arch, sizeof arch, "%s", strcmp(u.machine, "arm64") == 0 ?
	    "aarch64" : strcmp(u.machine, "amd64") == 0 ? "x86_64" :
	    u.machine);
	if (strcmp(u.sysname, "Linux") == 0)
		expect("linux", arch, "bin/orch-agent");
	/* Another architecture of Linux: none here. */
	expect("linux", strcmp(arch, "riscv64") == 0 ? "s390x" : "riscv64",
	    "");
}

static void
test_by_hand_first(void **state)
{
	(void)state;
	touch("bin/agents/darwin-aarch64/orch-agent");
	expect("darwin", "aarch64", "bin/agents/darwin-aarch64/orch-agent");
	touch("bin/agents/linux-riscv64/orch-agent");
	expect("linux", "riscv64", "bin/agents/linux-riscv64/orch-agent");
}

static void
test_hostile_names(void **state)
{
	(void)state;
	/* A host's uname answer never reaches outside bin/. */
	touch("secret/orch-agent");
	expect("..", "secret", "");
	expect("darwin", "../../secret", "");
	expect("Darwin", "aarch64", "");
	expect("", "aarch64", "");
	expect("darwin", "", "");
}

/* An installed orch: PREFIX/libexec/orch/OS-ARCH (make install). */
static void
test_installed(void **state)
{
	char	path[PATH_MAX + 32];

	(void)state;
	touch("libexec/orch/linux-s390x/orch-agent");
	expect("linux", "s390x", "");
	snprintf(path, sizeof path, "%s/libexec/orch", root);
	deploy_set_libexec(path);
	expect("linux", "s390x", "libexec/orch/linux-s390x/orch-agent");
	/* The source tree's agents still come first. */
	touch("libexec/orch/darwin-aarch64/orch-agent");
	expect("darwin", "aarch64", "bin/agents/darwin-aarch64/orch-agent");
	/* The installed tree gives no path of its own to a hostile name. */
	expect("linux", "../../libexec", "");
	deploy_set_libexec("");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_darwin_prebuilt),
		cmocka_unit_test(test_local_kind),
		cmocka_unit_test(test_by_hand_first),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_installed),
	};

	return (cmocka_run_group_tests_name("deploy", tests, setup, teardown));
}
