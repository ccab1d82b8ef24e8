/*
 * Remote command lines: the one way orch turns an argv into the string an
 * SSH exec request carries, which the remote user's login shell (assumed
 * POSIX: sh, dash, bash, ksh, zsh) splits back into that argv.
 *
 * Every word is quoted literally: a word of only [A-Za-z0-9_./,:+=-]
 * (not empty, not starting with '=', which zsh expands) stays as it is;
 * any other goes in single quotes, each embedded ' written '\''.
 * Nothing is expanded, with one exception, the remote home: a word that
 * is "~", or starts with "~/", or is an option "--NAME=~" or
 * "--NAME=~/...", has that one '~' written "$HOME" (double-quoted, so
 * neither split nor globbed). That is how a workdir such as ~/.orch
 * reaches the host; ~user is not expanded.
 */
#ifndef COORDINATOR_SHELL_H
#define COORDINATOR_SHELL_H

#include <stddef.h>

#define SHELL_CMD_MAX	16384	/* longest remote command line, with NUL */

/*
 * Appends word, quoted, to the NUL-terminated string in out (of size len).
 * Returns 0, or -1 when it does not fit (out is then unchanged).
 */
int	shell_quote(char *out, size_t len, const char *word);

/*
 * Writes argv (NULL-terminated, at least one word) as one command line
 * into out, words separated by one space. Returns 0, or -1 when it does
 * not fit in len or argv is empty (out is then "").
 */
int	shell_command(char *out, size_t len, char *const argv[]);

#endif
