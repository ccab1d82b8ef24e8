/* Text for a terminal, and well-formed UTF-8: coordinator/input/tty.h. */
#include <stdio.h>

#include "coordinator/input/tty.h"

size_t
tty_utf8_len(const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;
	unsigned long		 cp;
	size_t			 n, i;

	if (p[0] < 0x80)
		return (p[0] != 0);
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		cp = p[0] & 0x07;
	} else
		return (0);
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return (0);
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	/* Overlong three- and four-byte forms, surrogates, past U+10FFFF. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return (0);
	return (n);
}

/*
 * Returns how many bytes of s one terminal-safe step takes, setting *ok
 * when they may be written as they are (else one '?' stands for them);
 * lines: a newline may.
 */
static size_t
tty_step(const char *s, int lines, int *ok)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 n = tty_utf8_len(s);

	*ok = 0;
	if (n == 0)
		return (1);
	if (n == 1)
		*ok = (p[0] >= 0x20 && p[0] != 0x7f) ||
		    (lines && p[0] == '\n');
	else
		*ok = !(p[0] == 0xc2 && p[1] < 0xa0);
	return (n);
}

char *
tty_clean(char *s, int lines)
{
	char	*r = s, *w = s;
	size_t	 n, i;
	int	 ok;

	while (*r != '\0') {
		n = tty_step(r, lines, &ok);
		if (!ok) {
			*w++ = '?';
			r += n;
			continue;
		}
		for (i = 0; i < n; i++)
			*w++ = *r++;
	}
	*w = '\0';
	return (s);
}

void
tty_write(FILE *f, const char *s)
{
	size_t	n;
	int	ok;

	while (*s != '\0') {
		n = tty_step(s, 0, &ok);
		if (ok)
			fwrite(s, 1, n, f);
		else
			fputc('?', f);
		s += n;
	}
}
