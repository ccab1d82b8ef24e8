/* The `key=value` convention: a program's numeric stdout lines are metrics. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/metrics.h"

static const char *const metrics_builtins[] = {
	"wall_ns", "user_ns", "sys_ns", "maxrss_kb", "nvcsw", "nivcsw",
};

/* Returns 1 for the blanks allowed around a key and a value. */
static int
metrics_blank(char c)
{
	return (c == ' ' || c == '\t' || c == '\r' || c == '\v' ||
	    c == '\f');
}

/* Returns 1 when c may start a key. */
static int
metrics_keystart(char c)
{
	return ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_');
}

/* Returns 1 when c may continue a key. */
static int
metrics_keychar(char c)
{
	return (metrics_keystart(c) || (c >= '0' && c <= '9') || c == '.' ||
	    c == '-');
}

/* Returns the number of decimal digits at the start of p[0..len). */
static size_t
metrics_digits(const char *p, size_t len)
{
	size_t	n = 0;

	while (n < len && p[n] >= '0' && p[n] <= '9')
		n++;
	return (n);
}

/*
 * Returns 1 when v[0..len) is a plain decimal number,
 * [-+]?digits[.digits][(e|E)[-+]?digits], so that strtod's extras (hex,
 * inf, nan, ".5") are not metrics.
 */
static int
metrics_numeric(const char *v, size_t len)
{
	size_t	i = 0, n;

	if (i < len && (v[i] == '-' || v[i] == '+'))
		i++;
	if ((n = metrics_digits(v + i, len - i)) == 0)
		return (0);
	i += n;
	if (i < len && v[i] == '.') {
		i++;
		if ((n = metrics_digits(v + i, len - i)) == 0)
			return (0);
		i += n;
	}
	if (i < len && (v[i] == 'e' || v[i] == 'E')) {
		i++;
		if (i < len && (v[i] == '-' || v[i] == '+'))
			i++;
		if ((n = metrics_digits(v + i, len - i)) == 0)
			return (0);
		i += n;
	}
	return (i == len);
}

int
metrics_builtin(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof metrics_builtins / sizeof metrics_builtins[0];
	    i++) {
		if (strcmp(name, metrics_builtins[i]) == 0)
			return (1);
	}
	return (0);
}

/*
 * Stores value under key; -1 with the reason in err when the key is already
 * there (which of two values was meant cannot be known), 0 when full.
 */
static int
metrics_put(struct proto_sample *s, const char *key, double value,
    char *err, size_t errlen)
{
	size_t	i;

	for (i = 0; i < s->nmetrics; i++) {
		if (strcmp(s->metrics[i].key, key) == 0) {
			snprintf(err, errlen, "metric %s printed twice (%.17g, "
			    "then %.17g)", key, s->metrics[i].value, value);
			return (-1);
		}
	}
	if (s->nmetrics >= PROTO_METRICS_MAX)
		return (0);
	memcpy(s->metrics[s->nmetrics].key, key, strlen(key) + 1);
	s->metrics[s->nmetrics].value = value;
	s->nmetrics++;
	return (1);
}

/*
 * Returns 1 when v is what strtod would take as a number whole (hex, inf,
 * nan, "1.", ".5", a decimal out of range): a number written wrong, not
 * text such as "1.2.3" or "12 ms".
 */
static int
metrics_number_like(const char *v)
{
	char	*end;

	(void)strtod(v, &end);
	return (end != v && *end == '\0');
}

int
metrics_line(struct proto_sample *s, const char *line, size_t len,
    const char *checksum_key, char *const *keys, size_t nkeys, char *err,
    size_t errlen)
{
	char		 key[PROTO_NAME_MAX], num[128];
	const char	*v;
	size_t		 i = 0, k, klen, vlen;
	double		 d;
	char		*end;

	while (i < len && metrics_blank(line[i]))
		i++;
	if (i == len || !metrics_keystart(line[i]))
		return (0);
	for (klen = 0; i + klen < len && metrics_keychar(line[i + klen]);
	    klen++)
		;
	if (klen >= sizeof key)
		return (0);
	memcpy(key, line + i, klen);
	key[klen] = '\0';
	i += klen;
	while (i < len && metrics_blank(line[i]))
		i++;
	if (i == len || line[i] != '=')
		return (0);
	i++;
	while (i < len && metrics_blank(line[i]))
		i++;
	v = line + i;
	vlen = len - i;
	while (vlen > 0 && metrics_blank(v[vlen - 1]))
		vlen--;

	if (checksum_key != NULL && *checksum_key != '\0' &&
	    strcmp(key, checksum_key) == 0) {
		/*
		 * A truncated checksum could make two different results look
		 * equal, so one that does not fit is not kept at all.
		 */
		if (vlen >= sizeof s->checksum || memchr(v, '\0', vlen) != NULL)
			return (0);
		memcpy(s->checksum, v, vlen);
		s->checksum[vlen] = '\0';
		s->has_checksum = 1;
		return (1);
	}

	for (k = 0; k < nkeys; k++) {
		if (strcmp(key, keys[k]) == 0)
			break;
	}
	if (k == nkeys)
		return (0);	/* not a metric the suite names: output */
	if (vlen >= sizeof num || memchr(v, '\0', vlen) != NULL) {
		snprintf(err, errlen, "metric %s: its value is not a number "
		    "(%zu bytes of text)", key, vlen);
		return (-1);
	}
	memcpy(num, v, vlen);
	num[vlen] = '\0';
	if (metrics_builtin(key)) {
		snprintf(err, errlen, "the program printed %s=%s, which "
		    "collides with orch's built-in metric %s: rename it", key,
		    num, key);
		return (-1);
	}
	if (!metrics_numeric(v, vlen)) {
		if (!metrics_number_like(num)) {
			snprintf(err, errlen, "metric %s=%s is not a number",
			    key, num);
			return (-1);
		}
		snprintf(err, errlen, "metric %s=%s is not a finite decimal "
		    "number", key, num);
		return (-1);
	}
	errno = 0;
	d = strtod(num, &end);
	if (*end != '\0' || !isfinite(d) || errno == ERANGE) {
		snprintf(err, errlen, "metric %s=%s is out of range (not a "
		    "finite double)", key, num);
		return (-1);
	}
	return (metrics_put(s, key, d, err, errlen));
}
