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

/*
 * Parses the words of an opening, s[0..len), into m; 0, or -1 with *why
 * set.
 */
static int
dm_words(struct docmark *m, const char *s, size_t len, char **why)
{
	char	 w[DOCMARK_MAX_OPEN + 1];
	size_t	 i = 0, j, nw = 0;

	for (j = 0; j < len; j++)
		nw += s[j] != ' ' && s[j] != '\t' && (j == 0 ||
		    s[j - 1] == ' ' || s[j - 1] == '\t');
	if (nw > DOCMARK_MAX_WORDS) {
		xasprintf(why, "more than %d words in the mark",
		    DOCMARK_MAX_WORDS);
		return (-1);
	}
	for (;;) {
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == len)
			break;
		for (j = i; j < len && s[j] != ' ' && s[j] != '\t'; j++) {
			if ((unsigned char)s[j] < 0x20 || s[j] == 0x7f) {
				xasprintf(why, "a control byte in the mark");
				return (-1);
			}
		}
		memcpy(w, s + i, j - i);
		w[j - i] = '\0';
		if (dm_word(m, w, why) != 0)
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

/* Finds the marks of one line, s[0..n) at line line; 0 or -1. */
static int
dm_line(struct dm_state *st, const char *s, size_t n, size_t line)
{
	const char	*p;
	size_t		 i = 0, used;
	int		 kind;

	while (i < n && (p = dm_find(s + i, n - i, "<!--", 4)) != NULL) {
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
