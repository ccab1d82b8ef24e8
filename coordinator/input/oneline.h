/*
 * One-line runs: `orch run -- 'CMD A' 'CMD B'` (hyperfine's habit). Each
 * command is split into words as a POSIX shell would split it, with no
 * expansion and no shell at run time, and the commands become a suite's
 * text (one variant a command, one benchmark `cmd`), which is parsed,
 * run and recorded like any suite file's (docs/suites.md, "One-line
 * runs").
 */
#ifndef COORDINATOR_ONELINE_H
#define COORDINATOR_ONELINE_H

#include <stddef.h>

struct suite;

#define ONELINE_LABEL	"(command line)"	/* the suite's path in errors */
#define ONELINE_HEADER	"; orch run --: the commands as a suite " \
			"(docs/suites.md)"	/* its text's first line */
#define ONELINE_FILE	"suite.ini"		/* the suite, in the
						   run's DIR */

/*
 * Splits cmd into words like sh: blanks separate, '…' and "…" quote,
 * backslash escapes. What the shell would expand or interpret instead of
 * passing on ($, `, |, &, ;, <, >, (, ), unquoted * ? [, a leading ~ or
 * #, a VAR=value prefix, a newline) is refused with *cause saying to
 * quote it, or to write a wrapper script or a suite. Returns 0, or -1
 * with *cause set (caller frees).
 */
int	oneline_split(const char *cmd, char ***words, size_t *nwords,
	    char **cause);

/* Frees the words of oneline_split; NULL is ok. */
void	oneline_free_words(char **words, size_t nwords);

/*
 * Builds the suite text of a one-line run from ncmds commands and nnames
 * names (0, or one per command; else derived from the commands). The
 * program of each command is its first word: a path (with a '/') is made
 * absolute, a bare name is looked up in this machine's PATH; either is
 * pushed to every host like a suite's `bin =`. Returns 0 with *text set
 * (caller frees), or -1 with *cause set naming the command.
 */
int	oneline_suite(const char *const *cmds, size_t ncmds,
	    const char *const *names,
	    size_t nnames, char **text, char **cause);

/* A one-line run's hooks and sweeps (orch run --prepare, -L). */
#define ONELINE_PARAMS_MAX	8
struct oneline_opts {
	const char	*prepare;	/* a command run untimed before every
					   run; NULL none */
	size_t		 nparams;	/* -L NAME V1,V2,...: {NAME} in the
					   commands, a sweep */
	const char	*pname[ONELINE_PARAMS_MAX];
	const char	*pvals[ONELINE_PARAMS_MAX];	/* "V1,V2,..." */
};

/*
 * As oneline_suite, with o (NULL: none): o->prepare split and resolved
 * like a command, the bench's prepare = hook; each -L NAME the bench's
 * params = NAME=V1,V2,..., and {NAME} in the commands' arguments (and
 * the prepare's) its value at each point. A {NAME} in a program word,
 * an -L NAME in no command, a bad name or value: -1 with *cause.
 */
int	oneline_suite_opts(const char *const *cmds, size_t ncmds,
	    const char *const *names, size_t nnames,
	    const struct oneline_opts *o, char **text, char **cause);

/*
 * Writes the suite's text to DIR/suite.ini (temporary file, renamed) and
 * makes that its path, so the record names a file that --resume can
 * reload. Returns 0, or -1 with *cause set.
 */
int	oneline_save(const char *dir, struct suite *s, char **cause);

/*
 * Returns argv joined as it would be typed to a POSIX shell: a word of
 * only A-Z a-z 0-9 and _ . / , : + = @ % ^ - as it is, any other in single
 * quotes ('\'' for a quote), for the record's command line. The caller
 * frees it.
 */
char	*oneline_cmdline(int argc, char **argv);

/* Returns 1 if text is a one-line run's suite (its first line), else 0. */
int	oneline_is(const char *text);

/*
 * Returns variant v of s's command as oneline_cmdline writes it: its
 * program (the path pushed, or host:NAME) and its arguments; the history
 * files a one-line run's series under it. The caller frees it.
 */
char	*oneline_command(const struct suite *s, size_t v);

/*
 * Writes variant v's series key in the history into out (size at least
 * PROTO_NAME_MAX): the name its command's words give (as a derived
 * variant name, whatever -n said), a '.' and the first 8 hex digits of
 * the SHA-256 of oneline_command, so that two commands never share a
 * series and one command always has the same.
 */
void	oneline_key(const struct suite *s, size_t v, char *out, size_t size);

#endif
