/* JSON output helpers. */
#include <math.h>
#include <stdio.h>

#include "coordinator/input/tty.h"
#include "coordinator/report/json.h"

void
json_str(FILE *f, const char *s)
{
	const unsigned char	*p;
	size_t			 n;

	fputc('"', f);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		/* Valid UTF-8 whatever the bytes: one U+FFFD a bad byte. */
		if (*p >= 0x80) {
			if ((n = tty_utf8_len((const char *)p)) == 0)
				fputs("\\ufffd", f);
			else
				fwrite(p, 1, n, f);
			p += n > 0 ? n - 1 : 0;
			continue;
		}
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

void
json_num(FILE *f, double v)
{
	if (!isfinite(v)) {
		fputs("null", f);
		return;
	}
	if (v == floor(v) && fabs(v) < 1e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.9g", v);
}
