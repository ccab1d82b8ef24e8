/* The marks of a Markdown document (docmark.h): found, checked, bounded. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/input/docmark.h"
#include "proto/xmalloc.h"

#define DM_OPEN		"<!-- orch"

static const char *dm_names[DM_NKEYS] = {
	"host", "bench", "variant", "metric", "field", "arch", "group",
	"table"
};

static const char *dm_fields[] = {
	"ratio", "ci_low", "ci_high", "verdict", "p", "median", "geomean",
	"mde", "rounds", NULL
};

static const char *dm_tables[] = { "matrix", "geomeans", "claims", NULL };

/* Returns where the k bytes of pat first occur in s[0..n), or NULL. */
static const char *
dm_find(const char *s, size_t n, const char *pat, size_t k)
{
	const char	*p;

	while (n >= k && (p = memchr(s, pat[0], n - k + 1)) != NULL) {
		if (memcmp(p, pat, k) == 0)
			return (p);
		n -= (size_t)(p + 1 - s);
		s = p + 1;
	}
	return (NULL);
}

const char *
docmark_key_name(enum docmark_key k)
{
	return (dm_names[k]);
}

/* Frees the words of one mark. */
static void
dm_clear(struct docmark *m)
{
	size_t	k;

	free(m->run);
	m->run = NULL;
	for (k = 0; k < DM_NKEYS; k++) {
		free(m->key[k]);
		m->key[k] = NULL;
	}
}

void
docmark_free(struct docmarks *dm)
{
	size_t	i;

	if (dm == NULL)
		return;
	for (i = 0; i < dm->nmarks; i++)
		dm_clear(&dm->marks[i]);
	free(dm->marks);
	free(dm->text);
	free(dm);
}

/* Returns 1 when s is one of the NULL-ended list. */
static int
dm_in(const char *s, const char **list)
{
	for (; *list != NULL; list++) {
		if (strcmp(s, *list) == 0)
			return (1);
	}
	return (0);
}

/* Checks a field= or table= value against its list; 0 or -1 with why. */
static int
dm_check_one(const char *what, const char *v, const char **list,
    char **why)
{
	char	*all = NULL, *t;
	size_t	 i;

	if (dm_in(v, list))
		return (0);
	for (i = 0; list[i] != NULL; i++) {
		xasprintf(&t, "%s%s%s", all == NULL ? "" : all,
		    all == NULL ? "" : ", ", list[i]);
		free(all);
		all = t;
	}
	xasprintf(why, "unknown %s '%s' (one of: %s)", what, v, all);
	free(all);
	return (-1);
}

/* Takes one word of a mark into m; 0, or -1 with *why set. */
static int
dm_word(struct docmark *m, const char *w, char **why)
{
	const char	*eq = strchr(w, '=');
	size_t		 k, n;

	if (eq == NULL) {
		if (m->run != NULL) {
			xasprintf(why, "'%s' is no key=value (the run is "
			    "'%s')", w, m->run);
			return (-1);
		}
		m->run = xstrdup(w);
		return (0);
	}
	if (m->run == NULL) {
		xasprintf(why, "the mark names no run before '%s'", w);
		return (-1);
	}
	n = (size_t)(eq - w);
	for (k = 0; k < DM_NKEYS; k++) {
		if (strlen(dm_names[k]) == n && strncmp(w, dm_names[k], n) == 0)
			break;
	}
	if (k == DM_NKEYS) {
		xasprintf(why, "unknown key '%.*s' (host, bench, variant, "
		    "metric, field, arch, group, table)", (int)n, w);
		return (-1);
	}
	if (eq[1] == '\0') {
		xasprintf(why, "%s= has no value", dm_names[k]);
		return (-1);
	}
	if (m->key[k] != NULL) {
		xasprintf(why, "%s= given twice", dm_names[k]);
		return (-1);
	}
	m->key[k] = xstrdup(eq + 1);
	return (0);
}

/* Returns 1 when s[j] is a blank outside a quoted value ('="...'). */
static int
dm_blank(const char *s, size_t j, int *q)
{
	if (s[j] == '"' && (*q || (j > 0 && s[j - 1] == '=')))
		*q = !*q;
	return (!*q && (s[j] == ' ' || s[j] == '\t'));
}

/*
 * Copies the word s[i..j) into w, without the quotes of a quoted value;
 * 0, or -1 with *why set (a control byte, a quote not closed, text after
 * the closing quote).
 */
static int
dm_copy(const char *s, size_t i, size_t j, char *w, char **why)
{
	size_t	k, o = 0;
	int	q = 0;

	for (k = i; k < j; k++) {
		if ((unsigned char)s[k] < 0x20 || s[k] == 0x7f) {
			xasprintf(why, "a control byte in the mark");
			return (-1);
		}
		if (s[k] == '"' && (q || (k > i && s[k - 1] == '='))) {
			if (q && k + 1 < j) {
				xasprintf(why, "text after the closing quote "
				    "of '%.*s'", (int)(j - i), s + i);
				return (-1);
			}
			q = !q;
			continue;
		}
		w[o++] = s[k];
	}
	w[o] = '\0';
	if (q) {
		xasprintf(why, "a quote not closed in '%.*s'", (int)(j - i),
		    s + i);
		return (-1);
	}
	return (0);
}

/*
 * Parses the words of an opening, s[0..len), into m: blank-separated, a
 * value with blanks quoted (group="x86_64 · AMD EPYC"). Returns 0, or -1
 * with *why set.
 */
static int
dm_words(struct docmark *m, const char *s, size_t len, char **why)
{
	char	 w[DOCMARK_MAX_OPEN + 1];
	size_t	 i = 0, j, nw = 0;
	int	 q = 0, blank = 1, b;

	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	for (j = 0; j < len; j++) {
		b = dm_blank(s, j, &q);
		nw += blank && !b;
		blank = b;
	}
	if (nw > DOCMARK_MAX_WORDS) {
		xasprintf(why, "more than %d words in the mark",
		    DOCMARK_MAX_WORDS);
		return (-1);
	}
	for (q = 0;;) {
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == len)
			break;
		for (j = i; j < len && !dm_blank(s, j, &q); j++)
			;
		if (dm_copy(s, i, j, w, why) != 0 || dm_word(m, w, why) != 0)
			return (-1);
		i = j;
	}
	if (m->run == NULL) {
		xasprintf(why, "the mark names no run: write <!-- orch RUN "
		    "field=... -->");
		return (-1);
	}
	if ((m->key[DM_FIELD] == NULL) == (m->key[DM_TABLE] == NULL)) {
		xasprintf(why, "the mark needs one of field= and table=, "
		    "not %s", m->key[DM_FIELD] == NULL ? "neither" : "both");
		return (-1);
	}
	if (m->key[DM_FIELD] != NULL)
		return (dm_check_one("field", m->key[DM_FIELD], dm_fields,
		    why));
	return (dm_check_one("table", m->key[DM_TABLE], dm_tables, why));
}

/*
 * Returns what the comment at s (at "<!--", n bytes left) is: 0 none of
 * orch's, 1 an opening, 2 a close, -1 one of orch's malformed.
 */
static int
dm_kind(const char *s, size_t n)
{
	size_t	i = 4, cl = strlen(DOCMARK_CLOSE), op = strlen(DM_OPEN);
	char	c;

	if (n >= cl && memcmp(s, DOCMARK_CLOSE, cl) == 0)
		return (2);
	if (n > op && memcmp(s, DM_OPEN, op) == 0 &&
	    (s[op] == ' ' || s[op] == '\t'))
		return (1);
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i < n && s[i] == '/')
		i++;
	if (n - i < 4 || memcmp(s + i, "orch", 4) != 0)
		return (0);
	c = i + 4 < n ? s[i + 4] : '\0';
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || (c == '-' &&
	    i + 5 < n && s[i + 5] != '-'))
		return (0);			/* <!-- orchestra --> */
	return (-1);
}

/* The parser's state over one document. */
struct dm_state {
	const char	*path;
	const char	*text;
	size_t		 len;
	struct docmarks	*dm;
	struct docmark	*open;		/* the mark not yet closed */
	char		*cause;
};

/* Sets the state's cause to "PATH:LINE: why" and returns -1. */
static int
dm_fail(struct dm_state *st, size_t line, char *why)
{
	xasprintf(&st->cause, "%s:%zu: %s", st->path, line, why);
	free(why);
	return (-1);
}

/* Opens a mark at s (line line, n bytes left on the line); 0 or -1. */
static int
dm_open(struct dm_state *st, const char *s, size_t n, size_t line,
    size_t *used)
{
	struct docmarks	*dm = st->dm;
	struct docmark	*m;
	const char	*end;
	char		*why = NULL;
	size_t		 op = strlen(DM_OPEN);

	end = dm_find(s, n, "-->", 3);
	if (end == NULL)
		return (dm_fail(st, line, xstrdup("the mark's comment is not "
		    "closed on its line (no '-->')")));
	if ((size_t)(end + 3 - s) > DOCMARK_MAX_OPEN) {
		xasprintf(&why, "the mark is longer than %d bytes",
		    DOCMARK_MAX_OPEN);
		return (dm_fail(st, line, why));
	}
	if (dm->nmarks == DOCMARK_MAX_MARKS) {
		xasprintf(&why, "more than %d marks", DOCMARK_MAX_MARKS);
		return (dm_fail(st, line, why));
	}
	dm->marks = xreallocarray(dm->marks, dm->nmarks + 1,
	    sizeof *dm->marks);
	m = &dm->marks[dm->nmarks++];
	memset(m, 0, sizeof *m);
	m->line = line;
	if (dm_words(m, s + op, (size_t)(end - s) - op, &why) != 0)
		return (dm_fail(st, line, why));
	m->val_off = (size_t)(end + 3 - st->text);
	st->open = m;
	*used = (size_t)(end + 3 - s);
	return (0);
}

/* Closes the open mark at offset off (line line); 0 or -1. */
static int
dm_close(struct dm_state *st, size_t off, size_t line)
{
	struct docmark	*m = st->open;
	char		*why = NULL;
	size_t		 max;

	if (m == NULL)
		return (dm_fail(st, line, xstrdup("<!-- /orch --> closes no "
		    "mark")));
	m->val_len = off - m->val_off;
	if (m->key[DM_FIELD] != NULL &&
	    memchr(st->text + m->val_off, '\n', m->val_len) != NULL)
		return (dm_fail(st, m->line, xstrdup("the figure's value "
		    "spans lines (only a table= block may)")));
	max = m->key[DM_TABLE] != NULL ? DOCMARK_MAX_TABLE :
	    DOCMARK_MAX_VALUE;
	if (m->val_len > max) {
		xasprintf(&why, "the mark's value is longer than %zu bytes",
		    max);
		return (dm_fail(st, m->line, why));
	}
	st->open = NULL;
	return (0);
}

/* Returns 1 when the line at s (n bytes) opens or closes a code fence. */
static int
dm_fence(const char *s, size_t n)
{
	size_t	i = 0;

	while (i < n && i < 3 && s[i] == ' ')
		i++;
	return (n - i >= 3 && (memcmp(s + i, "```", 3) == 0 ||
	    memcmp(s + i, "~~~", 3) == 0));
}

/*
 * Returns where the next "<!--" of s[i..n) is, past the code spans of
 * the line (a run of backticks to the next run as long) when no mark is
 * open; NULL when none.
 */
static const char *
dm_next(const struct dm_state *st, const char *s, size_t i, size_t n)
{
	const char	*p, *t;
	size_t		 k, e, b;

	for (;;) {
		if ((p = dm_find(s + i, n - i, "<!--", 4)) == NULL ||
		    st->open != NULL)
			return (p);
		if ((t = memchr(s + i, '`', (size_t)(p - (s + i)))) == NULL)
			return (p);
		for (i = (size_t)(t - s), k = 0; i < n && s[i] == '`'; i++)
			k++;
		for (e = i; e < n; ) {
			if (s[e] != '`') {
				e++;
				continue;
			}
			for (b = e; e < n && s[e] == '`'; e++)
				;
			if (e - b == k) {
				i = e;		/* past the code span */
				break;
			}
		}
	}
}

/* Finds the marks of one line, s[0..n) at line line; 0 or -1. */
static int
dm_line(struct dm_state *st, const char *s, size_t n, size_t line)
{
	const char	*p;
	size_t		 i = 0, used = 0;
	int		 kind;

	while (i < n && (p = dm_next(st, s, i, n)) != NULL) {
		i = (size_t)(p - s);
		kind = dm_kind(p, n - i);
		if (kind == 0) {
			i += 4;
			continue;
		}
		if (kind < 0)
			return (dm_fail(st, line, xstrdup("a malformed mark: "
			    "write <!-- orch RUN KEY=VALUE... -->VALUE"
			    "<!-- /orch -->")));
		if (kind == 2) {
			if (dm_close(st, (size_t)(p - st->text), line) != 0)
				return (-1);
			i += strlen(DOCMARK_CLOSE);
			continue;
		}
		if (st->open != NULL) {
			char	*why;

			xasprintf(&why, "a mark inside the mark of line %zu "
			    "(no <!-- /orch --> before it)", st->open->line);
			return (dm_fail(st, line, why));
		}
		if (dm_open(st, p, n - i, line, &used) != 0)
			return (-1);
		i += used;
	}
	return (0);
}

int
docmark_parse(const char *path, const char *text, size_t len,
    struct docmarks **out, char **cause)
{
	struct dm_state	 st;
	const char	*nl;
	size_t		 off = 0, n, line = 0;
	int		 fence = 0;

	*out = NULL;
	if (len > DOCMARK_MAX_FILE) {
		xasprintf(cause, "%s: longer than %u bytes", path,
		    DOCMARK_MAX_FILE);
		return (-1);
	}
	if (memchr(text, '\0', len) != NULL) {
		xasprintf(cause, "%s: holds a NUL byte: no Markdown", path);
		return (-1);
	}
	memset(&st, 0, sizeof st);
	st.path = path;
	st.text = text;
	st.len = len;
	st.dm = xcalloc(1, sizeof *st.dm);
	while (off < len) {
		line++;
		nl = memchr(text + off, '\n', len - off);
		n = nl == NULL ? len - off : (size_t)(nl - (text + off));
		if (st.open == NULL && dm_fence(text + off, n))
			fence = !fence;
		else if ((st.open != NULL || !fence) &&
		    dm_line(&st, text + off, n, line) != 0)
			goto fail;
		off += n + (nl != NULL);
	}
	if (st.open != NULL) {
		dm_fail(&st, st.open->line, xstrdup("the mark is never closed "
		    "(no <!-- /orch -->)"));
		goto fail;
	}
	st.dm->text = xmalloc(len + 1);
	memcpy(st.dm->text, text, len);
	st.dm->text[len] = '\0';
	st.dm->len = len;
	*out = st.dm;
	return (0);

fail:
	docmark_free(st.dm);
	*cause = st.cause;
	return (-1);
}

int
docmark_load(const char *path, struct docmarks **out, char **cause)
{
	struct stat	 sb;
	char		*buf;
	size_t		 got = 0;
	ssize_t		 r;
	int		 fd, rc;

	*out = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		return (-1);
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		xasprintf(cause, "%s: not a regular file", path);
		close(fd);
		return (-1);
	}
	buf = xmalloc(DOCMARK_MAX_FILE + 2);
	while (got <= DOCMARK_MAX_FILE) {
		r = read(fd, buf + got, DOCMARK_MAX_FILE + 1 - got);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			xasprintf(cause, "%s: %s", path, strerror(errno));
			free(buf);
			close(fd);
			return (-1);
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	rc = docmark_parse(path, buf, got, out, cause);
	free(buf);
	return (rc);
}
