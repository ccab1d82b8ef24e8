/*
 * INI files for the suite and inventory parsers (see ini.h): the file is
 * read into memory and handed to inih by our own reader, which counts
 * lines, parses [section] headers itself (inih sees a blank line instead)
 * and strips leading blanks so that inih's continuation lines never apply.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/input/ini.h"
#include "proto/ident.h"

static char	*ini_vfmt(const char *, va_list)
		    __attribute__((format(printf, 1, 0)));

/* Formats into a new string, or returns NULL when out of memory. */
static char *
ini_vfmt(const char *fmt, va_list ap)
{
	va_list	 ap2;
	char	*s;
	int	 n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || (s = malloc((size_t)n + 1)) == NULL)
		return (NULL);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return (s);
}

/* Sets src up to read path (see ini.h). */
void
ini_init(struct ini_src *src, const char *path, void (*end)(void *),
    void (*section)(void *, const char *, size_t), void *arg)
{
	memset(src, 0, sizeof *src);
	src->path = path;
	src->end = end;
	src->section = section;
	src->arg = arg;
}

/* Formats into a new string, or returns NULL when out of memory. */
char *
ini_fmt(const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = ini_vfmt(fmt, ap);
	va_end(ap);
	return (s);
}

/* Records the first error as "PATH:LINE: message" ("PATH: message" for 0). */
void
ini_error(struct ini_src *src, int line, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	if (src->failed)
		return;
	src->failed = 1;
	va_start(ap, fmt);
	msg = ini_vfmt(fmt, ap);
	va_end(ap);
	if (msg == NULL)
		return;
	if (line > 0)
		src->cause = ini_fmt("%s:%d: %s", src->path, line, msg);
	else
		src->cause = ini_fmt("%s: %s", src->path, msg);
	free(msg);
}

/* Reads the whole file into src->text (see ini.h). */
int
ini_read(struct ini_src *src, size_t max, int missing_ok)
{
	size_t		 cap = 0, len = 0;
	ssize_t		 got;
	char		*nb;
	const char	*z, *c;
	int		 fd, r = -1, saved;

	if ((fd = open(src->path, O_RDONLY | O_CLOEXEC)) == -1) {
		saved = errno;
		if (missing_ok && (saved == ENOENT || saved == ENOTDIR))
			return (1);
		ini_error(src, 0, "%s", strerror(saved));
		return (-1);
	}
	for (;;) {
		if (len == cap) {
			if (cap > max) {
				ini_error(src, 0, "file too large (over %zu "
				    "bytes)", max);
				goto out;
			}
			cap = cap == 0 ? 4096 : cap * 2;
			if ((nb = realloc(src->text, cap + 1)) == NULL) {
				ini_error(src, 0, "out of memory");
				goto out;
			}
			src->text = nb;
		}
		got = read(fd, src->text + len, cap - len);
		if (got == -1 && errno == EINTR)
			continue;
		if (got == -1) {
			saved = errno;
			ini_error(src, 0, "%s", strerror(saved));
			goto out;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	if (len > max) {
		ini_error(src, 0, "file too large (over %zu bytes)", max);
		goto out;
	}
	src->text[len] = '\0';
	if ((z = memchr(src->text, '\0', len)) != NULL) {
		src->line = 1;
		for (c = src->text; c < z; c++)
			src->line += *c == '\n';
		ini_error(src, src->line, "NUL byte in file");
		goto out;
	}
	src->len = len;
	r = 0;
out:
	close(fd);
	return (r);
}

/* Handles a [section] line, l[0..n) with l[0] == '['. */
static void
ini_section(struct ini_src *src, const char *l, size_t n)
{
	const char	*close, *a, *e, *after;

	if ((close = memchr(l, ']', n)) == NULL) {
		ini_error(src, src->line, "syntax error: missing ']'");
		return;
	}
	for (after = close + 1; after < l + n &&
	    isspace((unsigned char)*after); after++)
		;
	if (after < l + n && *after != ';' && *after != '#') {
		ini_error(src, src->line, "syntax error: text after ']'");
		return;
	}
	for (a = l + 1; a < close && isspace((unsigned char)*a); a++)
		;
	for (e = close; e > a && isspace((unsigned char)e[-1]); e--)
		;
	src->end(src->arg);
	if (!src->failed)
		src->section(src->arg, a, (size_t)(e - a));
}

/* Returns 1 if a key line l[0..n) has '=' or ':' before any comment. */
static int
ini_has_sep(const char *l, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (l[i] == '=' || l[i] == ':')
			return (1);
		/* inih's inline comment: ';' after a blank. */
		if (l[i] == ';' && i > 0 && isspace((unsigned char)l[i - 1]))
			return (0);
	}
	return (0);
}

/* The inih reader (see ini.h). */
char *
ini_read_line(char *str, int num, void *stream)
{
	struct ini_src	*src = stream;
	const char	*l, *e, *nl;
	size_t		 n;

	if (src->failed || src->off >= src->len || num < 3)
		return (NULL);
	l = src->text + src->off;
	nl = memchr(l, '\n', src->len - src->off);
	e = nl != NULL ? nl : src->text + src->len;
	src->off = (size_t)(e - src->text) + (nl != NULL);
	src->line++;
	if (src->line == 1 && e - l >= 3 && memcmp(l, "\xef\xbb\xbf", 3) == 0)
		l += 3;
	while (l < e && isspace((unsigned char)*l))
		l++;
	while (e > l && isspace((unsigned char)e[-1]))
		e--;
	n = (size_t)(e - l);
	str[0] = '\0';
	if (n == 0 || *l == ';' || *l == '#')
		return (str);
	if (*l == '[') {
		ini_section(src, l, n);
		return (src->failed ? NULL : str);
	}
	if (!ini_has_sep(l, n)) {
		ini_error(src, src->line, "syntax error: expected key = value");
		return (NULL);
	}
	/* Keep the newline: an inih built to grow its buffer looks for it. */
	if (n + 2 > (size_t)num) {
		ini_error(src, src->line, "line too long (at most %d "
		    "characters)", num - 2);
		return (NULL);
	}
	memcpy(str, l, n);
	str[n] = '\n';
	str[n + 1] = '\0';
	return (str);
}

/* Feeds src->text to inih (see ini.h). */
int
ini_run(struct ini_src *src, ini_handler handler, void *user)
{
	int	rc;

	rc = ini_parse_stream(ini_read_line, src, handler, user);
	if (rc == -2)
		ini_error(src, src->line, "out of memory");
	else if (rc > 0)	/* only if inih finds what the reader let by */
		ini_error(src, rc, "syntax error");
	if (!src->failed)
		src->end(src->arg);
	return (src->failed ? -1 : 0);
}

/* Hands the first error over to the caller (see ini.h). */
char *
ini_cause(struct ini_src *src)
{
	char	*cause = src->cause;

	src->cause = NULL;
	if (cause == NULL)
		cause = strdup("out of memory");
	return (cause);
}

/* Looks a key up and records its line (see ini.h). */
int
ini_key(struct ini_src *src, const char *label, const char *const *keys,
    int *seen, const char *key)
{
	int	k;

	if (keys == NULL) {
		ini_error(src, src->line, "key '%s' outside any section", key);
		return (-1);
	}
	for (k = 0; keys[k] != NULL; k++) {
		if (strcmp(keys[k], key) == 0)
			break;
	}
	if (keys[k] == NULL) {
		ini_error(src, src->line, "%s unknown key '%s'", label, key);
		return (-1);
	}
	if (seen[k] != 0) {
		ini_error(src, src->line, "%s duplicate key '%s' (first on "
		    "line %d)", label, key, seen[k]);
		return (-1);
	}
	seen[k] = src->line;
	return (k);
}

/* Returns 1 if s[0..len) is a valid name for a field of size bytes. */
int
ini_name_ok(const char *s, size_t len, size_t size)
{
	return (ident_ok(s, len, size));
}

/*
 * Reads the digits at *v into *out, advancing *v. Returns how many there
 * were, or -1 if more than max (max < 0: any number, *out left 0).
 */
static int
ini_cpu(const char **v, int max, unsigned long *out)
{
	int	digits = 0;

	for (*out = 0; isdigit((unsigned char)**v); (*v)++) {
		if (max < 0) {
			digits = 1;
			continue;
		}
		if (++digits > max)
			return (-1);
		*out = *out * 10 + (unsigned long)(**v - '0');
	}
	return (digits);
}

/* Checks a CPU list (see ini.h). */
int
ini_cpus_ok(const char *v, int max)
{
	unsigned long	lo, hi;
	int		maxdig = -1, m;

	if (max >= 0) {
		for (maxdig = 1, m = max; m >= 10; m /= 10)
			maxdig++;
	}
	for (;;) {
		if (ini_cpu(&v, maxdig, &lo) <= 0)
			return (0);
		hi = lo;
		if (*v == '-') {
			v++;
			if (ini_cpu(&v, maxdig, &hi) <= 0)
				return (0);
		}
		if (max >= 0 && (lo > hi || hi > (unsigned long)max))
			return (0);
		if (*v == '\0')
			return (1);
		if (*v++ != ',')
			return (0);
	}
}

/* Parses a decimal number (see ini.h). */
int
ini_decimal(const char *v, int idig_max, int fdig_max, double *out)
{
	unsigned long long	mant = 0;
	double			scale = 1.0;
	int			idig = 0, fdig = 0, sig = 0, dot = 0;

	for (; *v != '\0'; v++) {
		if (*v == '.' && !dot) {
			dot = 1;
			continue;
		}
		if (!isdigit((unsigned char)*v))
			return (-1);
		if (dot ? ++fdig > fdig_max : ++idig > idig_max)
			return (-1);
		if (mant != 0 || *v != '0')
			sig++;
		/* 15 digits and 10^22 are exact doubles: one rounding. */
		if (sig > 15)
			return (-1);
		mant = mant * 10 + (unsigned long long)(*v - '0');
		if (dot)
			scale *= 10.0;
	}
	if (idig + fdig == 0)
		return (-1);
	*out = (double)mant / scale;
	return (0);
}
