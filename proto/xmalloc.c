/* Allocation wrappers for program-level code: they fatalx() on failure. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/log.h"
#include "proto/xmalloc.h"

void *
xmalloc(size_t n)
{
	void	*p;

	if (n == 0)
		n = 1;
	if ((p = malloc(n)) == NULL)
		fatalx("out of memory allocating %zu bytes", n);
	return (p);
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void	*p;

	if (nmemb == 0 || size == 0)
		nmemb = size = 1;
	if ((p = calloc(nmemb, size)) == NULL)
		fatalx("out of memory allocating %zu x %zu bytes", nmemb, size);
	return (p);
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	void	*p;

	if (nmemb == 0 || size == 0)
		nmemb = size = 1;
	if (nmemb > SIZE_MAX / size)
		fatalx("xreallocarray: %zu x %zu overflows", nmemb, size);
	if ((p = realloc(ptr, nmemb * size)) == NULL)
		fatalx("out of memory allocating %zu x %zu bytes", nmemb, size);
	return (p);
}

char *
xstrdup(const char *s)
{
	char	*p;

	if ((p = strdup(s)) == NULL)
		fatalx("out of memory copying a string");
	return (p);
}

int
xasprintf(char **ret, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatalx("xasprintf: bad format");
	*ret = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(*ret, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return (n);
}
