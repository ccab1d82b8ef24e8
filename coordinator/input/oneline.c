/*
 * One-line runs (see oneline.h): the commands of `orch run -- 'CMD A'
 * 'CMD B'` split as sh would split them, and turned into a suite's text.
 * The text is the record's suite, so `orch report` and `--resume` treat a
 * one-line run like any other.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/input/oneline.h"
#include "coordinator/input/suite.h"
#include "proto/file.h"
#include "proto/hash.h"
#include "proto/ident.h"
#include "proto/proto.h"
#include "proto/xmalloc.h"

/* inih's line buffer in the Debian build: 198 characters of a line. */
#define ONELINE_LINE_MAX	198
/*
 * A one-line run measures until its answer is decided, as hyperfine
 * measures at least 10 times and 3 s: rounds = auto in blocks of
 * ONELINE_BLOCK rounds (at most 200), stopped once another block would
 * pass ONELINE_BUDGET of measuring. The first block always runs, and
 * fewer than 10 pairs can never decide (the signed-rank test's smallest
 * p-value at 5 pairs is 1/16): a command of 1 s gets 10 rounds, one of
 * 2 s 10 rounds too; a short command its 200 well under a second unless
 * decided before (docs/suites.md).
 */
#define ONELINE_BLOCK		"10"
#define ONELINE_BUDGET		"30s"
#define ONELINE_ADVICE \
	"orch runs each command without a shell: quote it to pass it on " \
	"as it is, or write a wrapper script or a suite (docs/suites.md)"

/* Sets *cause to "MSG (ADVICE)"; returns -1. */
static int
oneline_refuse(char **cause, const char *what, char c)
{
	if (c == '\n' || c == '\r')
		xasprintf(cause, "'%s' %s; %s", c == '\n' ? "\\n" : "\\r",
		    what, ONELINE_ADVICE);
	else
		xasprintf(cause, "unquoted '%c' %s; %s", c, what,
		    ONELINE_ADVICE);
	return (-1);
}

/* What the shell would do with an unquoted c, or NULL if it passes it on. */
static const char *
oneline_special(char c, int word_start)
{
	switch (c) {
	case '$':
		return ("would be expanded by the shell");
	case '`':
		return ("would be a command substitution");
	case '|': case '&': case ';': case '<': case '>': case '(': case ')':
		return ("is a shell operator");
	case '*': case '?': case '[':
		return ("would be a glob");
	case '\n': case '\r':
		return ("(a line break) would end the command");
	case '~':
		return (word_start ? "would be expanded to a home directory" :
		    NULL);
	case '#':
		return (word_start ? "would start a comment" : NULL);
	}
	return (NULL);
}

void
oneline_free_words(char **w, size_t n)
{
	size_t	i;

	if (w == NULL)
		return;
	for (i = 0; i < n; i++)
		free(w[i]);
	free(w);
}

/*
 * Returns 1 if the unquoted word w[0..len) would be an assignment to sh,
 * NAME=value before the command.
 */
static int
oneline_assignment(const char *w, size_t len, size_t eq)
{
	size_t	i;

	if (eq == 0 || eq >= len || isdigit((unsigned char)w[0]))
		return (0);
	for (i = 0; i < eq; i++) {
		if (!isalnum((unsigned char)w[i]) && w[i] != '_')
			return (0);
	}
	return (1);
}

/*
 * Reads the '…' quote at *pp into buf at *len, and moves *pp past it.
 * Returns 0, or -1 with *cause.
 */
static int
oneline_single(const char **pp, char *buf, size_t *len, char **cause)
{
	const char	*p = *pp;

	for (p++; *p != '\''; p++) {
		if (*p == '\0') {
			xasprintf(cause, "unterminated ' quote");
			return (-1);
		}
		if (*p == '\n' || *p == '\r')
			return (oneline_refuse(cause, oneline_special(*p, 0),
			    *p));
		buf[(*len)++] = *p;
	}
	*pp = p + 1;
	return (0);
}

/*
 * Reads the "…" quote at *pp into buf at *len, and moves *pp past it.
 * Returns 0, or -1 with *cause.
 */
static int
oneline_double(const char **pp, char *buf, size_t *len, char **cause)
{
	const char	*p = *pp;

	for (p++; *p != '"'; p++) {
		if (*p == '\0') {
			xasprintf(cause, "unterminated \" quote");
			return (-1);
		}
		if (*p == '\n' || *p == '\r')
			return (oneline_refuse(cause, oneline_special(*p, 0),
			    *p));
		if (*p == '$' || *p == '`') {
			xasprintf(cause, "'%c' inside \"…\" would be "
			    "expanded by the shell; %s", *p, ONELINE_ADVICE);
			return (-1);
		}
		if (*p == '\\' && p[1] != '\0' &&
		    strchr("\"\\$`", p[1]) != NULL)
			p++;
		buf[(*len)++] = *p;
	}
	*pp = p + 1;
	return (0);
}

/*
 * Reads the backslash and the character it escapes at *pp into buf at
 * *len, and moves *pp past them. Returns 0, or -1 with *cause.
 */
static int
oneline_backslash(const char **pp, char *buf, size_t *len, char **cause)
{
	const char	*p = *pp;

	if (p[1] == '\0') {
		xasprintf(cause, "a backslash at the end (the shell would "
		    "wait for more)");
		return (-1);
	}
	if (p[1] == '\n' || p[1] == '\r')
		return (oneline_refuse(cause, oneline_special(p[1], 0), p[1]));
	buf[(*len)++] = p[1];
	*pp = p + 2;
	return (0);
}

/*
 * The unquoted characters of a word that bash would expand where sh may
 * not: a brace expansion ({a,b}, x{1..3}) and a '~' after the '=' or a
 * ':' of a NAME=value word.
 */
struct oneline_bash {
	int	open;		/* an unquoted '{' is open */
	int	list;		/* an unquoted ',' or ".." since it */
	int	prev;		/* the last character was unquoted */
};

/*
 * Looks at the unquoted c about to be added to buf[0..len) (eq, quoted:
 * as oneline_word's) for what bash would expand. Returns 0, or -1 with
 * *cause.
 */
static int
oneline_bashism(struct oneline_bash *b, const char *buf, size_t len,
    size_t eq, int quoted, char c, char **cause)
{
	if (c == '{') {
		b->open = 1;
		b->list = 0;
	} else if (b->open && (c == ',' || (c == '.' && b->prev &&
	    len > 0 && buf[len - 1] == '.')))
		b->list = 1;
	else if (c == '}' && b->open && b->list)
		return (oneline_refuse(cause, "with a ',' or '..' before its "
		    "'}' would be a brace expansion in bash", '{'));
	if (c == '~' && b->prev && eq != 0 && !quoted && len > 0 &&
	    (buf[len - 1] == ':' || len == eq) &&
	    oneline_assignment(buf, len, eq - 1))
		return (oneline_refuse(cause, "after NAME= would be expanded "
		    "to a home directory by bash", '~'));
	return (0);
}

/*
 * Reads the word at *pp (not blank) into buf[0..*len), and moves *pp past
 * it. *eq is 1 + the offset of its first unquoted '=' (0: none), *quoted
 * whether a quote or backslash comes before that '='. Returns 0, or -1
 * with *cause.
 */
static int
oneline_word(const char **pp, char *buf, size_t *len, size_t *eq,
    int *quoted, char **cause)
{
	struct oneline_bash	 b = { 0, 0, 0 };
	const char		*p = *pp, *what;
	int			 r;

	*len = 0;
	*eq = 0;
	*quoted = 0;
	while (*p != '\0' && *p != ' ' && *p != '\t') {
		if (*p == '\'' || *p == '"' || *p == '\\') {
			if (*p == '\'')
				r = oneline_single(&p, buf, len, cause);
			else if (*p == '"')
				r = oneline_double(&p, buf, len, cause);
			else
				r = oneline_backslash(&p, buf, len, cause);
			if (r != 0)
				return (-1);
			*quoted |= *eq == 0;
			b.prev = 0;
		} else if ((what = oneline_special(*p, *len == 0 &&
		    !*quoted)) != NULL) {
			return (oneline_refuse(cause, what, *p));
		} else {
			if (oneline_bashism(&b, buf, *len, *eq, *quoted, *p,
			    cause) != 0)
				return (-1);
			if (*p == '=' && *eq == 0)
				*eq = *len + 1;
			buf[(*len)++] = *p++;
			b.prev = 1;
		}
	}
	*pp = p;
	return (0);
}

/* Splits cmd (see oneline.h). */
int
oneline_split(const char *cmd, char ***words, size_t *nwords, char **cause)
{
	const char	 *p = cmd;
	char		**w, *buf;
	size_t		  n = 0, len, eq;
	int		  r = -1, quoted;

	*words = NULL;
	*nwords = 0;
	*cause = NULL;
	buf = xmalloc(strlen(cmd) + 1);
	w = xcalloc(PROTO_ARGS_MAX + 1, sizeof *w);
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		if (oneline_word(&p, buf, &len, &eq, &quoted, cause) != 0)
			goto out;
		if (n == 0 && !quoted && eq != 0 &&
		    oneline_assignment(buf, len, eq - 1)) {
			xasprintf(cause, "'%.*s' would set an environment "
			    "variable in the shell; a suite's env = does "
			    "(docs/suites.md)", (int)len, buf);
			goto out;
		}
		if (n == PROTO_ARGS_MAX) {
			xasprintf(cause, "too many words (at most %d)",
			    PROTO_ARGS_MAX);
			goto out;
		}
		w[n] = xmalloc(len + 1);
		memcpy(w[n], buf, len);
		w[n++][len] = '\0';
	}
	if (n == 0) {
		xasprintf(cause, "empty command");
		goto out;
	}
	*words = w;
	*nwords = n;
	w = NULL;
	r = 0;
out:
	oneline_free_words(w, n);
	free(buf);
	return (r);
}

/*
 * Appends word to the growing string *s (length *len) so that the suite
 * reader (inih, then suite_split) gives it back unchanged: blanks (which
 * inih trims at the ends of a line) in single quotes, every other byte
 * that inih or the splitter would read (';', '#', quotes, backslash, ...)
 * after a backslash. Line breaks never get here (oneline_split).
 */
static void
oneline_quote(char **s, size_t *len, const char *word)
{
	size_t	 need = strlen(word) * 3 + 4;
	char	*o;

	*s = xreallocarray(*s, 1, *len + need);
	o = *s + *len;
	if (*word == '\0') {
		*o++ = '\'';
		*o++ = '\'';
	}
	for (; *word != '\0'; word++) {
		unsigned char	c = (unsigned char)*word;

		if (isspace(c)) {
			*o++ = '\'';
			*o++ = (char)c;
			*o++ = '\'';
		} else if (isalnum(c) || c >= 0x80 ||
		    strchr("_./,:+=-%@^", c) != NULL)
			*o++ = (char)c;
		else {
			*o++ = '\\';
			*o++ = (char)c;
		}
	}
	*o = '\0';
	*len = (size_t)(o - *s);
}

/*
 * Returns 0 if path can be a suite's bin = value as it is: inih would
 * trim blanks at its ends and cut it at a blank and ';', and the run
 * expands {os} and {arch} in it.
 */
static int
oneline_bin_ok(const char *path)
{
	size_t	i, n = strlen(path);

	if (n == 0 || isspace((unsigned char)path[0]) ||
	    isspace((unsigned char)path[n - 1]))
		return (-1);
	for (i = 0; i < n; i++) {
		if (path[i] == '{' || iscntrl((unsigned char)path[i]) ||
		    (path[i] == ';' && i > 0 &&
		    isspace((unsigned char)path[i - 1])))
			return (-1);
	}
	return (0);
}

/*
 * Finds the program of a command: a word with a '/' as a path made
 * absolute, a bare name in PATH as execvp(3) would. Returns the path
 * (caller frees), or NULL with *cause set. A bare name is this machine's
 * program, pushed like any bin =; a program already on each host (a
 * suite's bin = host:NAME) would be a different choice, for a flag.
 */
static char *
oneline_program(const char *word, char **cause)
{
	struct stat	 st;
	const char	*path, *dir, *end;
	char		 cwd[PATH_MAX], *p = NULL;
	size_t		 dlen;

	/* host:NAME: the host's own program (docs/suites.md), as written. */
	if (strncmp(word, "host:", 5) == 0) {
		if (word[5] == '\0') {
			xasprintf(cause, "program '%s': no name after host:",
			    word);
			return (NULL);
		}
		return (xstrdup(word));
	}
	if (strchr(word, '/') != NULL) {
		if (word[0] == '/')
			p = xstrdup(word);
		else if (getcwd(cwd, sizeof cwd) == NULL) {
			xasprintf(cause, "cannot find the current directory: "
			    "%s", strerror(errno));
			return (NULL);
		} else
			xasprintf(&p, "%s/%s", cwd, word);
		if (stat(p, &st) != 0) {
			xasprintf(cause, "program '%s': %s", word,
			    strerror(errno));
			goto bad;
		}
		if (!S_ISREG(st.st_mode) || access(p, X_OK) != 0) {
			xasprintf(cause, "program '%s' is not an executable "
			    "file", word);
			goto bad;
		}
		if (oneline_bin_ok(p) != 0) {
			xasprintf(cause, "program '%s' is %s, which a suite's "
			    "bin = cannot hold (a blank at an end, a blank "
			    "then ';', '{' or a control character): move or "
			    "link it", word, p);
			goto bad;
		}
		return (p);
	}
	if ((path = getenv("PATH")) == NULL)
		path = "/usr/bin:/bin";
	for (dir = path; ; dir = end + 1) {
		end = strchr(dir, ':');
		dlen = end != NULL ? (size_t)(end - dir) : strlen(dir);
		/* An empty element is the current directory, as in execvp. */
		if (dlen == 0) {
			if (getcwd(cwd, sizeof cwd) != NULL)
				xasprintf(&p, "%s/%s", cwd, word);
		} else
			xasprintf(&p, "%.*s/%s", (int)dlen, dir, word);
		if (p != NULL && p[0] == '/' && stat(p, &st) == 0 &&
		    S_ISREG(st.st_mode) && access(p, X_OK) == 0) {
			if (oneline_bin_ok(p) == 0)
				return (p);
			xasprintf(cause, "program '%s' is %s, which a suite's "
			    "bin = cannot hold (a blank at an end, a blank "
			    "then ';', '{' or a control character): move or "
			    "link it", word, p);
			goto bad;
		}
		free(p);
		p = NULL;
		if (end == NULL)
			break;
	}
	xasprintf(cause, "program '%s' is not in PATH (orch pushes a program "
	    "from this machine; give its path to push another)", word);
	return (NULL);
bad:
	free(p);
	return (NULL);
}

/*
 * The files a one-line run's command lines name (docs/suites.md, "One-line
 * runs"): pushed as the bench's files = and linked into the run's
 * directory under the names typed, by the bench's setup.
 */
#define ONELINE_FILES_MAX	64
struct oneline_files {
	char	*word[ONELINE_FILES_MAX];	/* as typed, relative */
	char	*path[ONELINE_FILES_MAX];	/* made absolute */
	size_t	 n;
};

/*
 * The setup of a one-line run with files: for each pair of arguments
 * (the pushed file in the host's cache, the name typed) makes the name's
 * directory and a link to the file under it, in the run's directory.
 */
#define ONELINE_LINK_SCRIPT \
	"while [ $# -gt 1 ];do mkdir -p \"$(dirname \"$2\")\"&&" \
	"ln -sf \"$1\" \"$2\"||exit;shift 2;done"

/* Returns 1 if the relative path w has a ".." component. */
static int
oneline_dotdot(const char *w)
{
	const char	*p;

	for (p = w; (p = strstr(p, "..")) != NULL; p += 2) {
		if ((p == w || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
			return (1);
	}
	return (0);
}

/*
 * Takes the argument word w as a file of the command line when it names
 * an existing regular file relative to the current directory and is not
 * an option or a NAME=value (no leading '-' or '/', no '='): adds it to
 * f once. Returns 0 (a file or not), or -1 with *cause set.
 */
static int
oneline_file(struct oneline_files *f, const char *w, char **cause)
{
	struct stat	 st;
	char		 cwd[PATH_MAX], *path;
	size_t		 i;

	if (*w == '\0' || *w == '/' || *w == '-' || strchr(w, '=') != NULL ||
	    stat(w, &st) != 0 || !S_ISREG(st.st_mode))
		return (0);
	for (i = 0; i < f->n; i++) {
		if (strcmp(f->word[i], w) == 0)
			return (0);
	}
	if (oneline_dotdot(w)) {
		xasprintf(cause, "file '%s' is outside the current directory: "
		    "orch pushes a file of a command line into the run's "
		    "directory under the name typed, which '..' would leave "
		    "(run orch from a directory above it, or give its "
		    "absolute path to read the host's own)", w);
		return (-1);
	}
	if (f->n == ONELINE_FILES_MAX) {
		xasprintf(cause, "too many files (at most %d): write a suite",
		    ONELINE_FILES_MAX);
		return (-1);
	}
	if (getcwd(cwd, sizeof cwd) == NULL) {
		xasprintf(cause, "cannot find the current directory: %s",
		    strerror(errno));
		return (-1);
	}
	xasprintf(&path, "%s/%s", cwd, w);
	if (oneline_bin_ok(path) != 0 || strchr(path, ',') != NULL) {
		xasprintf(cause, "file '%s' is %s, which a suite's files = "
		    "cannot hold (a blank at an end, a blank then ';', '{', "
		    "',' or a control character): move or link it", w, path);
		free(path);
		return (-1);
	}
	f->word[f->n] = xstrdup(w);
	f->path[f->n++] = path;
	return (0);
}

/* Frees the files of a one-line run. */
static void
oneline_files_free(struct oneline_files *f)
{
	size_t	i;

	for (i = 0; i < f->n; i++) {
		free(f->word[i]);
		free(f->path[i]);
	}
	f->n = 0;
}

/* Appends the string a to *s (length *len). */
static void
oneline_cat(char **s, size_t *len, const char *a)
{
	size_t	n = strlen(a);

	*s = xreallocarray(*s, 1, *len + n + 1);
	memcpy(*s + *len, a, n + 1);
	*len += n;
}

/*
 * Appends the bench's files = and setup = lines for f to *s (length
 * *len). Returns 0, or -1 when a line would be too long for the suite
 * reader.
 */
static int
oneline_files_lines(const struct oneline_files *f, char **s, size_t *len)
{
	char	 ref[32];
	size_t	 start, i;

	if (f->n == 0)
		return (0);
	start = *len;
	oneline_cat(s, len, "files = ");
	for (i = 0; i < f->n; i++) {
		snprintf(ref, sizeof ref, "%sf%zu=", i > 0 ? ", " : "", i + 1);
		oneline_cat(s, len, ref);
		oneline_cat(s, len, f->path[i]);
	}
	if (*len - start > ONELINE_LINE_MAX)
		return (-1);
	oneline_cat(s, len, "\n");
	start = *len;
	oneline_cat(s, len, "setup = host:sh -c '" ONELINE_LINK_SCRIPT "' sh");
	for (i = 0; i < f->n; i++) {
		snprintf(ref, sizeof ref, " {file:f%zu} ", i + 1);
		oneline_cat(s, len, ref);
		oneline_quote(s, len, f->word[i]);
	}
	if (*len - start > ONELINE_LINE_MAX)
		return (-1);
	oneline_cat(s, len, "\n");
	return (0);
}

/*
 * Derives a variant name from a command's words: the program's basename
 * and the arguments joined by '_', every byte outside the name rule of
 * proto/ident.h made '_', runs of '_' made one, cut to fit.
 */
static void
oneline_name(char **w, size_t n, char *out, size_t size)
{
	const char	*base, *s;
	size_t		 o = 0, i;
	int		 under = 0;

	base = strrchr(w[0], '/');
	base = base != NULL ? base + 1 : w[0];
	for (i = 0; i < n && o + 1 < size; i++) {
		s = i == 0 ? base : w[i];
		if (i > 0)
			under = 1;
		for (; *s != '\0' && o + 1 < size; s++) {
			unsigned char	c = (unsigned char)*s;

			if (!isalnum(c) && c != '.' && c != '-' && c != '_')
				c = '_';
			if (c == '_') {
				under = 1;
				continue;
			}
			/* Not starting with '-' or '.': never an option. */
			if (o == 0 && (c == '-' || c == '.'))
				continue;
			if (under && o > 0 && o + 2 < size)
				out[o++] = '_';
			under = 0;
			out[o++] = (char)c;
		}
	}
	out[o] = '\0';
	if (o == 0)
		snprintf(out, size, "cmd");
}

/* Makes names[i] unique among names[0..i) with a ".2", ".3", … suffix. */
static void
oneline_unique(char (*names)[PROTO_NAME_MAX], size_t i)
{
	char	base[PROTO_NAME_MAX], sfx[16];
	size_t	j, k, cut;

	snprintf(base, sizeof base, "%s", names[i]);
	for (k = 2; ; k++) {
		for (j = 0; j < i; j++) {
			if (strcmp(names[j], names[i]) == 0)
				break;
		}
		if (j == i)
			return;
		snprintf(sfx, sizeof sfx, ".%zu", k);
		cut = strlen(base);
		if (cut + strlen(sfx) >= PROTO_NAME_MAX)
			cut = PROTO_NAME_MAX - 1 - strlen(sfx);
		snprintf(names[i], PROTO_NAME_MAX, "%.*s%s", (int)cut, base,
		    sfx);
	}
}

/*
 * Appends "KEY = " and the words to *s: quoted for args, as they are for
 * bin (which the suite reader does not split). Returns -1 when the line
 * is too long.
 */
static int
oneline_line(char **s, size_t *len, const char *key, char **w, size_t n)
{
	size_t	start = *len, i;

	*s = xreallocarray(*s, 1, *len + strlen(key) + 8);
	*len += (size_t)sprintf(*s + *len, "%s = ", key);
	if (strcmp(key, "bin") == 0) {
		*s = xreallocarray(*s, 1, *len + strlen(w[0]) + 1);
		*len += (size_t)sprintf(*s + *len, "%s", w[0]);
		n = 0;
	}
	for (i = 0; i < n; i++) {
		if (i > 0) {
			*s = xreallocarray(*s, 1, *len + 2);
			(*s)[(*len)++] = ' ';
			(*s)[*len] = '\0';
		}
		oneline_quote(s, len, w[i]);
	}
	if (*len - start > ONELINE_LINE_MAX)
		return (-1);
	*s = xreallocarray(*s, 1, *len + 2);
	(*s)[(*len)++] = '\n';
	(*s)[*len] = '\0';
	return (0);
}

/* Builds the suite text of commands alone (see oneline.h). */
int
oneline_suite(const char *const *cmds, size_t ncmds,
    const char *const *names, size_t nnames, char **text, char **cause)
{
	return (oneline_suite_opts(cmds, ncmds, names, nnames, NULL, text,
	    cause));
}

/* Returns 1 if s is a parameter's name: a letter or _, alnum or _, < 32. */
static int
oneline_param_name_ok(const char *s)
{
	size_t	i, n = strlen(s);

	if (n == 0 || n >= 32 || isdigit((unsigned char)s[0]))
		return (0);
	for (i = 0; i < n; i++) {
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return (0);
	}
	return (1);
}

/* Checks o's -L names and values. Returns 0, or -1 with *cause. */
static int
oneline_params_ok(const struct oneline_opts *o, char **cause)
{
	size_t	i, j;

	for (i = 0; i < o->nparams; i++) {
		if (!oneline_param_name_ok(o->pname[i])) {
			xasprintf(cause, "-L '%s': bad name (want a letter or "
			    "_, then letters, digits or _, at most 31)",
			    o->pname[i]);
			return (-1);
		}
		if (o->pvals[i][0] == '\0' ||
		    strspn(o->pvals[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789_.-,") !=
		    strlen(o->pvals[i])) {
			xasprintf(cause, "-L %s '%s': bad values (want V1,V2,"
			    "... of A-Z a-z 0-9 _ . -)", o->pname[i],
			    o->pvals[i]);
			return (-1);
		}
		for (j = 0; j < i; j++) {
			if (strcmp(o->pname[j], o->pname[i]) == 0) {
				xasprintf(cause, "-L %s: given twice",
				    o->pname[i]);
				return (-1);
			}
		}
	}
	return (0);
}

/*
 * Refuses a {NAME} of an -L NAME in prog, a command's program word.
 * Returns 0, or -1 with *cause.
 */
static int
oneline_params_prog(const struct oneline_opts *o, const char *prog,
    char **cause)
{
	char	ref[40];
	size_t	k;

	for (k = 0; o != NULL && k < o->nparams; k++) {
		snprintf(ref, sizeof ref, "{%s}", o->pname[k]);
		if (strstr(prog, ref) != NULL) {
			xasprintf(cause, "-L %s: %s in the program '%s': orch "
			    "pushes one program per command; sweep its "
			    "arguments", o->pname[k], ref, prog);
			return (-1);
		}
	}
	return (0);
}

/*
 * Replaces {NAME} of each -L NAME in the words w[0..n) after the first
 * by {param:NAME}, marking used[k] for each found (the program word
 * is checked before, oneline_params_prog).
 */
static void
oneline_params_words(const struct oneline_opts *o, char **w, size_t n,
    int *used)
{
	char	ref[40], *p, *nw;
	size_t	i, k, off;

	for (k = 0; o != NULL && k < o->nparams; k++) {
		snprintf(ref, sizeof ref, "{%s}", o->pname[k]);
		for (i = 1; i < n; i++) {
			while ((p = strstr(w[i], ref)) != NULL) {
				off = (size_t)(p - w[i]);
				xasprintf(&nw, "%.*s{param:%s}%s", (int)off,
				    w[i], o->pname[k], p + strlen(ref));
				free(w[i]);
				w[i] = nw;
				used[k] = 1;
			}
		}
	}
}

/*
 * Appends the bench's prepare = and params = lines of o to *s (length
 * *len), the prepare's files to f. Returns 0, or -1 with *cause.
 */
static int
oneline_opts_lines(const struct oneline_opts *o, struct oneline_files *f,
    char **s, size_t *len, int *used, char **cause)
{
	char	**w = NULL, *prog = NULL, *why = NULL;
	size_t	  nw = 0, i, start;
	int	  r = -1;

	if (o->prepare != NULL) {
		if (oneline_split(o->prepare, &w, &nw, &why) != 0 ||
		    oneline_params_prog(o, w[0], &why) != 0 ||
		    (prog = oneline_program(w[0], &why)) == NULL)
			goto bad;
		oneline_params_words(o, w, nw, used);
		for (i = 1; i < nw; i++) {
			if (oneline_file(f, w[i], &why) != 0)
				goto bad;
		}
		free(w[0]);
		w[0] = prog;
		prog = NULL;
		if (oneline_line(s, len, "prepare", w, nw) != 0) {
			xasprintf(&why, "too long for a suite line (at most "
			    "%d characters)", ONELINE_LINE_MAX);
			goto bad;
		}
	}
	for (i = 0; i < o->nparams; i++) {
		start = *len;
		oneline_cat(s, len, i == 0 ? "params = " : " ");
		oneline_cat(s, len, o->pname[i]);
		oneline_cat(s, len, "=");
		oneline_cat(s, len, o->pvals[i]);
		if (*len - start > ONELINE_LINE_MAX) {
			xasprintf(cause, "-L: too long for a suite line (at "
			    "most %d characters)", ONELINE_LINE_MAX);
			goto out;
		}
	}
	if (o->nparams > 0)
		oneline_cat(s, len, "\n");
	r = 0;
	goto out;
bad:
	xasprintf(cause, "--prepare '%s': %s", o->prepare, why);
out:
	oneline_free_words(w, nw);
	free(prog);
	free(why);
	return (r);
}

/*
 * Checks the -n names and copies them into vn. Returns 0, or -1 with
 * *cause.
 */
static int
oneline_names(const char *const *names, size_t nnames,
    char (*vn)[PROTO_NAME_MAX], char **cause)
{
	size_t	i, j;

	for (i = 0; i < nnames; i++) {
		if (!ident_str_ok(names[i], PROTO_NAME_MAX)) {
			xasprintf(cause, "-n '%s': bad name (want 1 to 63 of "
			    "A-Z a-z 0-9 _ . -, not starting with - or .)",
			    names[i]);
			return (-1);
		}
		for (j = 0; j < i; j++) {
			if (strcmp(names[j], names[i]) == 0) {
				xasprintf(cause, "-n '%s': given twice",
				    names[i]);
				return (-1);
			}
		}
		snprintf(vn[i], sizeof vn[i], "%s", names[i]);
	}
	return (0);
}

/*
 * Builds the suite text (see oneline.h). Long because it checks the
 * names, then writes each command's section in one pass.
 */
int
oneline_suite_opts(const char *const *cmds, size_t ncmds,
    const char *const *names, size_t nnames, const struct oneline_opts *o,
    char **text, char **cause)
{
	struct oneline_files	  files;
	int			  used[ONELINE_PARAMS_MAX] = { 0 };
	char			(*vn)[PROTO_NAME_MAX] = NULL;
	char			**w = NULL, *prog = NULL, *why = NULL;
	char			 *s = NULL;
	size_t			  nw = 0, len = 0, i, j;
	int			  r = -1;

	*text = NULL;
	*cause = NULL;
	files.n = 0;
	if (o != NULL && o->nparams > ONELINE_PARAMS_MAX) {
		xasprintf(cause, "-L: at most %d parameters",
		    ONELINE_PARAMS_MAX);
		return (-1);
	}
	if (o != NULL && oneline_params_ok(o, cause) != 0)
		return (-1);
	if (ncmds < 2) {
		xasprintf(cause, "orch run --: give at least two commands to "
		    "compare (the first is the reference)");
		return (-1);
	}
	if (ncmds > 64) {
		xasprintf(cause, "orch run --: too many commands (at most 64)");
		return (-1);
	}
	if (nnames != 0 && nnames != ncmds) {
		xasprintf(cause, "-n: %zu name%s for %zu commands (give one "
		    "per command, or none)", nnames, nnames == 1 ? "" : "s",
		    ncmds);
		return (-1);
	}
	vn = xcalloc(ncmds, sizeof *vn);
	if (oneline_names(names, nnames, vn, cause) != 0)
		goto out;
	/*
	 * A command near the harness floor would be all floor: compare its
	 * wall time as it is, as hyperfine -N does (docs/suites.md). And a
	 * one-line run starts at once, as hyperfine does: its variants are
	 * interleaved alike through the agent's first, unsettled rounds, and
	 * the pause would be a quarter of a short run's wall time.
	 */
	xasprintf(&s, "%s\n[suite]\nname = oneline\nrounds = auto\n"
	    "min_rounds = %s\nbudget = %s\nsubtract_floor = no\n"
	    "settle = 0\n", ONELINE_HEADER, ONELINE_BLOCK, ONELINE_BUDGET);
	len = strlen(s);
	for (i = 0; i < ncmds; i++) {
		if (oneline_split(cmds[i], &w, &nw, &why) != 0 ||
		    oneline_params_prog(o, w[0], &why) != 0 ||
		    (prog = oneline_program(w[0], &why)) == NULL) {
			xasprintf(cause, "command %zu '%s': %s", i + 1,
			    cmds[i], why);
			goto out;
		}
		for (j = 1; j < nw; j++) {
			if (oneline_file(&files, w[j], &why) != 0) {
				xasprintf(cause, "command %zu '%s': %s", i + 1,
				    cmds[i], why);
				goto out;
			}
		}
		if (nnames == 0) {
			oneline_name(w, nw, vn[i], sizeof vn[i]);
			oneline_unique(vn, i);
		}
		oneline_params_words(o, w, nw, used);
		s = xreallocarray(s, 1, len + strlen(vn[i]) + 32);
		len += (size_t)sprintf(s + len, "\n[variant.%s]\n", vn[i]);
		if (oneline_line(&s, &len, "bin", &prog, 1) != 0 ||
		    (nw > 1 && oneline_line(&s, &len, "args", w + 1,
		    nw - 1) != 0)) {
			xasprintf(cause, "command %zu '%s': too long for a "
			    "suite line (at most %d characters); write a "
			    "wrapper script or a suite (docs/suites.md)",
			    i + 1, cmds[i], ONELINE_LINE_MAX);
			goto out;
		}
		oneline_free_words(w, nw);
		w = NULL;
		free(prog);
		prog = NULL;
	}
	s = xreallocarray(s, 1, len + 16);
	len += (size_t)sprintf(s + len, "\n[bench.cmd]\n");
	if (o != NULL && oneline_opts_lines(o, &files, &s, &len, used,
	    cause) != 0)
		goto out;
	for (j = 0; o != NULL && j < o->nparams; j++) {
		if (!used[j]) {
			xasprintf(cause, "-L %s: {%s} is in no command",
			    o->pname[j], o->pname[j]);
			goto out;
		}
	}
	if (oneline_files_lines(&files, &s, &len) != 0) {
		xasprintf(cause, "the files of the commands (%zu) are too "
		    "many or too long for a suite line (at most %d "
		    "characters); write a suite (docs/suites.md)", files.n,
		    ONELINE_LINE_MAX);
		goto out;
	}
	*text = s;
	s = NULL;
	r = 0;
out:
	oneline_free_words(w, nw);
	oneline_files_free(&files);
	free(prog);
	free(why);
	free(vn);
	free(s);
	return (r);
}

/* Writes the suite's text (file_write's callback). */
static int
oneline_text_cb(const void *arg, FILE *f)
{
	const struct suite	*s = arg;

	return (fputs(s->text, f) == EOF ? -1 : 0);
}

/* Writes DIR/suite.ini (see oneline.h). */
int
oneline_save(const char *dir, struct suite *s, char **cause)
{
	char	dst[PATH_MAX];

	if (snprintf(dst, sizeof dst, "%s/%s", dir, ONELINE_FILE) >=
	    (int)sizeof dst) {
		xasprintf(cause, "%s/%s: path too long", dir, ONELINE_FILE);
		return (-1);
	}
	if (file_write(dir, ONELINE_FILE, oneline_text_cb, s,
	    cause) != 0)
		return (-1);
	free(s->path);
	s->path = xstrdup(dst);
	return (0);
}

/* Joins argv as a shell would need it typed (see oneline.h). */
char *
oneline_cmdline(int argc, char **argv)
{
	char	*s = NULL;
	size_t	 len = 0, i;
	int	 k;

	s = xcalloc(1, 1);
	for (k = 0; k < argc; k++) {
		const char	*w = argv[k];
		int		 plain = *w != '\0';

		for (i = 0; w[i] != '\0'; i++) {
			if (!isalnum((unsigned char)w[i]) &&
			    strchr("_./,:+=@%^-", w[i]) == NULL)
				plain = 0;
		}
		s = xreallocarray(s, 1, len + strlen(w) * 4 + 4);
		if (k > 0)
			s[len++] = ' ';
		if (plain) {
			len += (size_t)sprintf(s + len, "%s", w);
			continue;
		}
		s[len++] = '\'';
		for (i = 0; w[i] != '\0'; i++) {
			if (w[i] == '\'') {
				memcpy(s + len, "'\\''", 4);
				len += 4;
			} else
				s[len++] = w[i];
		}
		s[len++] = '\'';
		s[len] = '\0';
	}
	return (s);
}

/* Tells a one-line run's suite text by its first line (see oneline.h). */
int
oneline_is(const char *text)
{
	size_t	n = strlen(ONELINE_HEADER);

	return (text != NULL && strncmp(text, ONELINE_HEADER, n) == 0 &&
	    text[n] == '\n');
}

/* Returns variant v's command, program and arguments (see oneline.h). */
char *
oneline_command(const struct suite *s, size_t v)
{
	const struct suite_variant	*sv = &s->variants[v];
	char				**w, *cmd;
	size_t				  i;

	w = xcalloc(sv->nargs + 1, sizeof *w);
	if (sv->host != NULL)
		xasprintf(&w[0], "host:%s", sv->host);
	else
		w[0] = xstrdup(sv->bin != NULL ? sv->bin : sv->name);
	for (i = 0; i < sv->nargs; i++)
		w[i + 1] = sv->args[i];
	cmd = oneline_cmdline((int)sv->nargs + 1, w);
	free(w[0]);
	free(w);
	return (cmd);
}

/* Writes variant v's series key for the history (see oneline.h). */
void
oneline_key(const struct suite *s, size_t v, char *out, size_t size)
{
	const struct suite_variant	*sv = &s->variants[v];
	char				**w, *cmd, sha[PROTO_SHA_HEX];
	char				  name[PROTO_NAME_MAX];
	size_t				  i;

	cmd = oneline_command(s, v);
	if (hash_buf(cmd, strlen(cmd), sha) != 0)
		memset(sha, '0', 8);
	free(cmd);
	w = xcalloc(sv->nargs + 1, sizeof *w);
	w[0] = sv->host != NULL ? sv->host : sv->bin != NULL ? sv->bin :
	    (char *)(uintptr_t)sv->name;
	for (i = 0; i < sv->nargs; i++)
		w[i + 1] = sv->args[i];
	oneline_name(w, sv->nargs + 1, name, sizeof name);
	free(w);
	snprintf(out, size, "%.*s.%.8s", PROTO_NAME_MAX - 10, name, sha);
}
