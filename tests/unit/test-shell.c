/*
 * Unit tests for coordinator/hosts/shell.c: hostile words go through a real
 * /bin/sh (and bash, when there) as one command line and must arrive as
 * the same argv, byte for byte. The helper that prints its argv is this
 * program itself, run as "test-shell --print-argv WORD...".
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "coordinator/hosts/shell.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))
#define OUT_MAX		65536

extern char **environ;

static char	*self;	/* this program, the argv printer */

/* The hostile words: each must reach the remote program unchanged. */
static const char *hostile[] = {
	"plain",
	"",
	"two words",
	"'",
	"''",
	"it's",
	"'; touch /tmp/orch-pwned; '",
	"a;b",
	"; rm -rf / ;",
	"$(touch /tmp/orch-pwned)",
	"`touch /tmp/orch-pwned`",
	"${HOME}",
	"$HOME",
	"\"double\"",
	"back\\slash\\",
	"line\nbreak",
	"\n",
	"tab\there",
	"\xff\xfe non-UTF-8 \x80",
	"-n",
	"--",
	"--run=x;y",
	"-e",
	"=zsh-expands-this",
	"*",
	"?",
	"[a]",
	"{a,b}",
	"!",
	"#comment",
	"&",
	"|",
	"<in",
	">out",
	"~user",
	"a~/b",
	"run-2026.01_x",
};

/* Reads fd into buf until EOF or 10 s; returns the bytes read or -1. */
static ssize_t
read_all(int fd, char *buf, size_t len)
{
	struct pollfd	pfd = { fd, POLLIN, 0 };
	size_t		got = 0;
	ssize_t		n;

	while (got < len) {
		if (poll(&pfd, 1, 10000) != 1)
			return (-1);
		if ((n = read(fd, buf + got, len - got)) < 0)
			return (-1);
		if (n == 0)
			return ((ssize_t)got);
		got += (size_t)n;
	}
	return (-1);
}

/*
 * Runs "SHELL -c LINE" (spawned with an argv, no shell of ours) and
 * returns what it printed on stdout, its length in *outlen.
 */
static char *
run_line(const char *shell, const char *line, size_t *outlen)
{
	posix_spawn_file_actions_t	 fa;
	char				*argv[4], *out;
	pid_t				 pid;
	ssize_t				 n;
	int				 p[2], st;

	argv[0] = (char *)(uintptr_t)shell;
	argv[1] = (char *)(uintptr_t)"-c";
	argv[2] = (char *)(uintptr_t)line;
	argv[3] = NULL;
	assert_int_equal(pipe(p), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addclose(&fa, p[0]);
	assert_int_equal(posix_spawn(&pid, shell, &fa, NULL, argv, environ),
	    0);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	out = malloc(OUT_MAX);
	assert_non_null(out);
	n = read_all(p[0], out, OUT_MAX);
	close(p[0]);
	if (n < 0)
		kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(n >= 0);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	*outlen = (size_t)n;
	return (out);
}

/* Asserts that argv[0..n) arrived as the NUL-separated words in out. */
static void
assert_argv(const char *out, size_t len, const char *const want[], size_t n)
{
	size_t	i, off = 0, wl;

	for (i = 0; i < n; i++) {
		wl = strlen(want[i]);
		if (off + wl + 1 > len || memcmp(out + off, want[i], wl) != 0 ||
		    out[off + wl] != '\0')
			fail_msg("word %zu ('%s') did not arrive intact", i,
			    want[i]);
		off += wl + 1;
	}
	assert_int_equal(off, len);
}

/* Sends argv through shell as one line; asserts it arrives unchanged. */
static void
roundtrip(const char *shell, const char *const words[], size_t n,
    const char *const want[])
{
	char	 line[SHELL_CMD_MAX], *argv[64], *out;
	size_t	 i, len;

	assert_true(n + 3 < NELEM(argv));
	argv[0] = (char *)(uintptr_t)self;
	argv[1] = (char *)(uintptr_t)"--print-argv";
	for (i = 0; i < n; i++)
		argv[i + 2] = (char *)(uintptr_t)words[i];
	argv[n + 2] = NULL;
	assert_int_equal(shell_command(line, sizeof line, argv), 0);
	out = run_line(shell, line, &len);
	assert_argv(out, len, want, n);
	free(out);
}

/* The shells at hand: /bin/sh always, bash when installed. */
static const char *shells[] = { "/bin/sh", "/bin/bash", "/bin/dash" };

/* Each hostile word alone, then all of them in one line. */
static void
test_hostile_words(void **state)
{
	size_t	i, s;

	(void)state;
	unlink("/tmp/orch-pwned");
	for (s = 0; s < NELEM(shells); s++) {
		if (access(shells[s], X_OK) != 0)
			continue;
		for (i = 0; i < NELEM(hostile); i++)
			roundtrip(shells[s], &hostile[i], 1, &hostile[i]);
		roundtrip(shells[s], hostile, NELEM(hostile), hostile);
	}
	assert_int_not_equal(access("/tmp/orch-pwned", F_OK), 0);
}

/* "~", "~/x" and "--opt=~/x" are the remote home, however odd $HOME is. */
static void
test_home(void **state)
{
	const char	*words[] = { "~", "~/a b", "--workdir=~/.orch",
			    "--workdir=~", "~/it's $(x)", "~user", "x=~/y" };
	const char	*want[] = { "/h o'm$e", "/h o'm$e/a b",
			    "--workdir=/h o'm$e/.orch", "--workdir=/h o'm$e",
			    "/h o'm$e/it's $(x)", "~user", "x=~/y" };

	(void)state;
	setenv("HOME", "/h o'm$e", 1);
	roundtrip("/bin/sh", words, NELEM(words), want);
}

/* The line is as short as it can be for plain words; quotes otherwise. */
static void
test_format(void **state)
{
	char	line[128];
	char	*a1[] = { (char *)(uintptr_t)"orch-agent", (char *)(uintptr_t)
		    "--run=r1", (char *)(uintptr_t)"", NULL };
	char	*a2[] = { (char *)(uintptr_t)"it's", (char *)(uintptr_t)
		    "--workdir=~/w d", NULL };
	char	*a3[] = { NULL };

	(void)state;
	assert_int_equal(shell_command(line, sizeof line, a1), 0);
	assert_string_equal(line, "orch-agent --run=r1 ''");
	assert_int_equal(shell_command(line, sizeof line, a2), 0);
	assert_string_equal(line, "'it'\\''s' --workdir=\"$HOME\"'/w d'");
	assert_int_equal(shell_command(line, sizeof line, a3), -1);
	assert_string_equal(line, "");
	/* Too long: an error, never a truncated command. */
	assert_int_equal(shell_command(line, 10, a1), -1);
	assert_string_equal(line, "");
	assert_int_equal(shell_command(line, 22, a1), -1);
	assert_int_equal(shell_command(line, 23, a1), 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_words),
		cmocka_unit_test(test_home),
		cmocka_unit_test(test_format),
	};
	int	i;

	if (argc > 1 && strcmp(argv[1], "--print-argv") == 0) {
		for (i = 2; i < argc; i++)
			fwrite(argv[i], 1, strlen(argv[i]) + 1, stdout);
		return (fflush(stdout) == 0 ? 0 : 1);
	}
	if ((self = realpath(argv[0], NULL)) == NULL)
		return (1);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
