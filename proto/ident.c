/* Identifiers: the one rule (see ident.h). */
#include <string.h>

#include "proto/ident.h"

static int
ident_char(unsigned char c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-');
}

int
ident_ok(const char *s, size_t len, size_t size)
{
	size_t	i;

	if (s == NULL || len == 0 || len >= size)
		return (0);
	if (s[0] == '-' || s[0] == '.')
		return (0);
	for (i = 0; i < len; i++) {
		if (!ident_char((unsigned char)s[i]))
			return (0);
	}
	return (1);
}

int
ident_str_ok(const char *s, size_t size)
{
	if (s == NULL)
		return (0);
	return (ident_ok(s, strnlen(s, size), size));
}
